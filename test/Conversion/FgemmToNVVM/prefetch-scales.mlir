// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent prefetch-scales=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=OFF
// prefetch_scales lowered: the math role loads the first tile's B scales
// (what its first staging copies) before the tile loop, guarded by the tile
// being in range; the loop carries them (an f32 per stager load: 128
// entries over a warpgroup's 96 stagers, each warpgroup staging its own
// copy), loads the next tile's at the top of each tile (its order
// recomputed from tile + P), and the tile's first staging stores the
// carried values to shared memory, with no global load between its
// barriers (the warpgroup's: id 2 + warpgroup, 128 threads).

// CHECK: %[[FIRST:.*]]:2 = scf.if %{{.*}} -> (f32, f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MINE:.*]] = %[[FIRST]]#0, %[[MINE2:.*]] = %[[FIRST]]#1) -> (f32, f32) {
// CHECK: %[[NEXT_TILE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IN_RANGE:.*]] = arith.cmpi ult, %[[NEXT_TILE]], %{{.*}} : index
// CHECK-NEXT: %[[NEXT:.*]]:2 = scf.if %[[IN_RANGE]] -> (f32, f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %[[MINE]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %[[MINE2]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: %[[WG_BARRIER:.*]] = arith.addi %{{.*}}, %c2_i32 : i32
// CHECK-NEXT: nvvm.barrier id = %[[WG_BARRIER]] number_of_threads = %c128_i32
// CHECK: scf.yield %[[NEXT]]#0, %[[NEXT]]#1 : f32, f32

// Without the knob no loop or branch yields a lone prefetched f32.
// OFF: llvm.func @sm90_fp8_gemm_1d2d
// OFF-NOT: -> (f32) {
