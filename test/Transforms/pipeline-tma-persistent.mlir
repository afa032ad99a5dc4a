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
