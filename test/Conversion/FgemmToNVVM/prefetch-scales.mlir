// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent prefetch-scales=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=OFF
// prefetch_scales lowered: the math role computes the first tile's order
// (its tile indices, the values the rest of the body uses) and loads its B
// scales (what its first staging copies: an f32 per stager load, 128
// entries over a warpgroup's 96 stagers, each warpgroup staging its own
// copy) before the tile loop, guarded by the tile being in range, into stack
// slots (the indices as i32). Each tile reads its order and scales from the
// slots, its first staging stores the scales to shared memory with no
// global load between its barriers (the warpgroup's: id 2 + warpgroup, 128
// threads), and once its first wgmmas are issued, before their wait, it
// computes the next tile's (tile + P) and stores them to the slots.

// CHECK: %[[SCALE2_SLOT:.*]] = llvm.alloca %{{.*}} x f32
// CHECK-NEXT: %[[SCALE_SLOT:.*]] = llvm.alloca %{{.*}} x f32
// CHECK-NEXT: %[[TN_SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NEXT: %[[TM_SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[FIRST:.*]]:4 = scf.if %{{.*}} -> (index, index, f32, f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %[[TM_SLOT]] : i32, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[TN_SLOT]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[FIRST]]#2, %[[SCALE_SLOT]] : f32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[FIRST]]#3, %[[SCALE2_SLOT]] : f32, !llvm.ptr
// CHECK-NEXT: scf.for %[[TILE:.*]] = %{{.*}} to %{{.*}} step %[[PROGRAMS:[[:alnum:]_]+]] iter_args(%{{.*}} = %c0) -> (index) {
// CHECK: llvm.load %[[TM_SLOT]] : !llvm.ptr -> i32
// CHECK: llvm.load %[[TN_SLOT]] : !llvm.ptr -> i32
// CHECK: %[[MINE:.*]] = llvm.load %[[SCALE_SLOT]] : !llvm.ptr -> f32
// CHECK-NEXT: %[[MINE2:.*]] = llvm.load %[[SCALE2_SLOT]] : !llvm.ptr -> f32
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: llvm.store %[[MINE]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: llvm.store %[[MINE2]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: %[[WG_BARRIER:.*]] = arith.addi %{{.*}}, %c2_i32 : i32
// CHECK-NEXT: nvvm.barrier id = %[[WG_BARRIER]] number_of_threads = %c128_i32
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[LAST:.*]] = nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: %[[NEXT_TILE:.*]] = arith.addi %[[TILE]], %[[PROGRAMS]] : index
// CHECK-NEXT: %[[IN_RANGE:.*]] = arith.cmpi ult, %[[NEXT_TILE]], %{{.*}} : index
// CHECK-NEXT: %[[NEXT:.*]]:4 = scf.if %[[IN_RANGE]] -> (index, index, f32, f32) {
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %[[TM_SLOT]] : i32, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[TN_SLOT]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[NEXT]]#2, %[[SCALE_SLOT]] : f32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[NEXT]]#3, %[[SCALE2_SLOT]] : f32, !llvm.ptr
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// Without the knob nothing is carried to the next tile (no f32 stack slot):
// a tile's first scales are loaded under its first wgmmas, and stored to
// shared memory after their wait and the slot's release.
// OFF: llvm.func @sm90_fp8_gemm_1d2d
// OFF-NOT: {{: f32, !llvm.ptr$}}
// OFF: nvvm.setmaxregister increase
// OFF-NOT: invariant
// OFF: nvvm.wgmma.mma_async
// OFF: -> (f32) {
// OFF: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// OFF: nvvm.wgmma.wait.group.sync.aligned 0
// OFF: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// OFF: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// OFF: nvvm.barrier id
// OFF: llvm.fmul
