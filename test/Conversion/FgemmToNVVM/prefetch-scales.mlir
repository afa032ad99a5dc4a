// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent prefetch-scales=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=OFF
// prefetch_scales lowered: the math role loads the first tile's B scales
// (what its first staging copies) before the tile loop, guarded by the tile
// being in range; the loop carries them (an f32 per stager load), loads the
// next tile's at the top of each tile (its order recomputed from tile + P),
// and the tile's first staging stores the carried value to shared memory,
// with no global load between its barriers.

// CHECK: %[[FIRST:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MINE:.*]] = %[[FIRST]]) -> (f32) {
// CHECK: %[[NEXT_TILE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IN_RANGE:.*]] = arith.cmpi ult, %[[NEXT_TILE]], %{{.*}} : index
// CHECK-NEXT: %[[NEXT:.*]] = scf.if %[[IN_RANGE]] -> (f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %[[MINE]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: scf.yield %[[NEXT]] : f32

// Without the knob no loop or branch yields a lone prefetched f32.
// OFF: llvm.func @sm90_fp8_gemm_1d2d
// OFF-NOT: -> (f32) {
