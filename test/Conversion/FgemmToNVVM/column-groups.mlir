// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=128 block-n=256 stages=3" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// Two column groups per wave (block_n 256, one m64 wave on each of two math
// warpgroups): per K block each warpgroup issues columns 0..127 and then
// 128..255 of its 64 rows, both groups on the same A descriptors (the same
// rows), each waited for and promoted through one partial sum of 64 f32;
// the row scales are read once for both.

// B's box is 256 rows; a stage holds 16 KiB of A + 32 KiB of B + 512 bytes
// of A scales (A and B counted as loaded, 1 KiB per 8 rows: row-boxes.mlir).
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: #fgemm.tensor_map_param<arg = 1, box = [128, 256], swizzle = 128>
// CHECK: %[[CHECK_A_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// CHECK: %[[CHECK_B_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// CHECK: %[[CHECK_AB:.*]] = arith.addi %[[CHECK_A_BYTES]], %[[CHECK_B_BYTES]] : i32
// CHECK: %[[CHECK_ALL:.*]] = arith.addi %[[CHECK_AB]], %c512_i32 : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[CHECK_ALL]]

// The first K block (peeled). Group 0: the row scales, four m64n128k32 into
// a fresh partial sum, the wait.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %[[A0:[0-9]+]], %[[B0:[0-9]+]], %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async %[[A1:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %[[A2:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %[[A3:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Group 0's promotion, no new row scales, the slot kept, and the register
// fence of its fields before group 1 takes the partial sum's registers.
// CHECK-NOT: !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: llvm.inline_asm has_side_effects "", "=f,
// CHECK-NOT: !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.mbarrier.arrive
// Group 1: the same A descriptors, B 128 rows (1024 x 16 bytes) further on.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects "", "=f,
// CHECK: %[[B1:[0-9]+]] = llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %{{[0-9]+}}, %c1073741888_i32
// CHECK-NEXT: nvvm.wgmma.mma_async %[[A0]], %[[B1]], %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async %[[A1]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %[[A2]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async %[[A3]], %{{[0-9]+}}, %{{[0-9]+}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// Then the slot is released.
// CHECK: nvvm.mbarrier.arrive

// The math loop carries the accumulator (2 x 64 f32: the wave's 256
// columns, in the m64n256 layout) and the one partial sum of 64 f32.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.struct<({{(f32, ){127,127}f32}})>, !llvm.struct<({{(f32, ){63,63}f32}})>) {
