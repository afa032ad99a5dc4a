// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize=schedule=persistent --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s
// With a persistent schedule both roles get a tile loop; the ring position
// runs on across tiles: iteration * K blocks per tile + kb.

// CHECK: %[[RING:.*]] = fgemm.ring.create
// CHECK: fgemm.warp_specialize
// CHECK-SAME: producer {
// CHECK-NEXT: fgemm.tile_loop %{{.*}} {
// CHECK-NEXT: ^bb0(%[[IT:.*]]: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[TM:.*]] = arith.divui %[[TILE]]
// CHECK-NEXT: %[[TN:.*]] = arith.remui %[[TILE]]
// CHECK-NEXT: fgemm.k_loop "k" {
// CHECK-NEXT: ^bb0(%[[KB:.*]]: index):
// CHECK-NEXT: %[[NK:.*]] = fgemm.num_blocks "k" by "bk"
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[IT]], %[[NK]] : index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[BASE]], %[[KB]] : index
// CHECK: %[[S:.*]] = arith.remui %[[POS]]
// CHECK: fgemm.load %{{.*}}[%[[TM]], %[[KB]]]
// CHECK: fgemm.load %{{.*}}[%[[TN]], %[[KB]]]
// CHECK: fgemm.ring.put %[[RING]][%[[KB]]] stage(%[[S]],
// CHECK: } consumer {
// CHECK-NEXT: fgemm.tile_loop %{{.*}} {
// CHECK-NEXT: ^bb0(%[[IT2:.*]]: index, %{{.*}}: index):
// CHECK-NEXT: arith.divui
// CHECK-NEXT: arith.remui
// CHECK-NEXT: fgemm.zeros
// CHECK-NEXT: fgemm.k_loop "k" init
// CHECK-NEXT: ^bb0(%[[KB2:.*]]: index, %{{.*}}: !fgemm.tile<[bm, bn], f32>):
// CHECK-NEXT: %[[NK2:.*]] = fgemm.num_blocks "k" by "bk"
// CHECK-NEXT: arith.muli %[[IT2]], %[[NK2]] : index
// CHECK: fgemm.ring.get %[[RING]][%[[KB2]]]
// CHECK: fgemm.scaled_dot
// CHECK-NEXT: fgemm.ring.release %[[RING]][%[[KB2]]]
// CHECK: fgemm.store

// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=GROUPED
// Grouped tiles run different numbers of K blocks: the tile loop's third
// argument counts those the CTA already ran, and the position is it + kb.
// Warp specialization gives the producer its own copy of the group lookup
// and of the K-block count, so both roles walk the ring alike.
// GROUPED: fgemm.warp_specialize
// GROUPED-SAME: producer {
// GROUPED-NEXT: fgemm.tile_loop %{{.*}} {
// GROUPED-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[BEFORE:.*]]: index):
// GROUPED: fgemm.find_row_tile_group
// GROUPED: %[[BLOCKS:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// GROUPED-NEXT: fgemm.k_loop "k" blocks(%[[BLOCKS]]) {
// GROUPED-NEXT: ^bb0(%[[KB:.*]]: index):
// GROUPED-NEXT: %[[POS:.*]] = arith.addi %[[BEFORE]], %[[KB]] : index
// GROUPED: fgemm.ring.put
// GROUPED: } consumer {
// GROUPED-NEXT: fgemm.tile_loop %{{.*}} {
// GROUPED-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[CBEFORE:.*]]: index):
// GROUPED: fgemm.k_loop "k" blocks(
// GROUPED: %[[CPOS:.*]] = arith.addi %[[CBEFORE]], %{{.*}} : index
// GROUPED: fgemm.ring.get
