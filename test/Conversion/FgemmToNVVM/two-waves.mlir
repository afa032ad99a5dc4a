// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 stages=3" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=128 math-warpgroups=1 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=ONE-WG
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 stages=3 fixed-k=1536" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FIXEDK
// Two m64 waves per math warpgroup (block_m 256 on two warpgroups): the A
// tile and the output are 256 rows; per K block each warpgroup runs wave 0
// (rows 64 g ..) and then wave 1 (rows 128 + 64 g ..), each with its own row
// scales and promoted accumulator, and one partial sum between them.

// A's and D's boxes are 256 rows; the slot holds 32 KiB of A + 16 KiB of B +
// 1 KiB of A scales (50176 bytes a stage; A and B counted as loaded, 1 KiB
// per 8 rows: row-boxes.mlir).
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: fgemm.params = [#fgemm.tensor_map_param<arg = 0, box = [128, 256], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 2, box = [256, 1], swizzle = 0>, #fgemm.tensor_map_param<arg = 4, box = [64, 64], swizzle = 128>
// The low word of a descriptor of the shared base (start address >> 4 |
// leading offset 1), once per kernel.
// CHECK: %[[BASE_LOW:.*]] = arith.ori %{{.*}}, %c65536_i32 : i32
// CHECK: %[[CHECK_A_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// CHECK: %[[CHECK_B_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// CHECK: %[[CHECK_AB:.*]] = arith.addi %[[CHECK_A_BYTES]], %[[CHECK_B_BYTES]] : i32
// CHECK: %[[CHECK_ALL:.*]] = arith.addi %[[CHECK_AB]], %c1024_i32 : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[CHECK_ALL]]

// The math loop carries the accumulator: one struct of 2 x 64 f32 per thread
// (the B scales come from shared memory, staged at each chunk's first block),
// and the last partial sum (64 f32), which the next block's first wgmma takes
// as its ignored input so that all blocks' partial sums share registers.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.struct<({{(f32, ){127,127}f32}})>, !llvm.struct<({{(f32, ){63,63}f32}})>) {

// Wave 0: row scales, a partial sum started afresh (scale-d 0) in the carried
// one's registers,
// wait, FFMAs into fields 0..63, then a register fence so that its FFMAs
// finish before wave 1 claims the partial sum.
// The slots' descriptor low words (base + offset >> 4) are computed before
// the barrier wait; after it only the wave's and the k step's offsets are
// added, in 32 bits, and the word is joined to the constant high word
// (0x40000040: stride 1024 B, 128-byte swizzle) by a mov.b64 that LLVM
// cannot fold into 64-bit arithmetic (ptxas 13.0 dropped the high word of
// such an add; MathLowering.cpp, buildDescriptor).
// CHECK: %[[A_LOW:.*]] = arith.addi %[[BASE_LOW]], %{{.*}} : i32
// CHECK: %[[B_LOW:.*]] = arith.addi %[[BASE_LOW]], %{{.*}} : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[LOW:.*]] = arith.addi %[[A_LOW]], %{{.*}} : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DESC_A:.*]] = llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %[[LOW]], %c1073741888_i32 : (i32, i32) -> i64
// CHECK: %[[DESC_B:.*]] = llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %[[B_LOW]], %c1073741888_i32 : (i32, i32) -> i64
// CHECK: nvvm.wgmma.mma_async %[[DESC_A]], %[[DESC_B]], %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-NEXT: arith.addi %[[LOW]], %c2_i32 : i32
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: %[[P0:.*]] = nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: llvm.intr.fma
// CHECK: llvm.inline_asm has_side_effects "", "=f,
// Wave 1: its own row scales, its wgmmas rewrite wave 0's partial sum (same
// B descriptor, A 128 rows further), then the slot is released and wave 1
// promotes into fields 64..127.
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects "", "=f,
// CHECK: llvm.insertvalue %{{.*}}, %[[P0]][0]
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %[[DESC_B]], %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.extractvalue %{{.*}}[127]
// CHECK: llvm.intr.fma

// Epilogue: the tile is staged in two 64-column slabs of 256 x 128 bytes,
// swizzled, by stmatrix x4 (two 8-column fragments, rows 0-7 and 8-15 of
// the warp's 16): four base addresses per lane (one per pair of 16-byte
// units, XOR the row's place in the 8-row pattern), computed from pinned
// values, and each store a constant offset from one: the second slab at
// +32768, wave 1's rows (128 further) at +16384; 16 stores in all.
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;"
// CHECK: arith.xori
// CHECK: %[[BASE:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: nvvm.stmatrix %[[BASE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-3: nvvm.stmatrix
// CHECK: %[[SLAB2:.*]] = llvm.getelementptr %[[BASE]][32768]
// CHECK: nvvm.stmatrix %[[SLAB2]]
// CHECK-COUNT-3: nvvm.stmatrix
// CHECK: %[[WAVE1:.*]] = llvm.getelementptr %[[BASE]][16384]
// CHECK: nvvm.stmatrix %[[WAVE1]]
// CHECK-COUNT-7: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box
// CHECK: nvvm.cp.async.bulk.commit.group

// One math warpgroup with 128 rows: 256 threads, two waves, rows 64 apart.
// ONE-WG: nvvm.reqntid = array<i32: 256, 1, 1>
// ONE-WG: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <zero>]
// ONE-WG: llvm.inline_asm has_side_effects
// ONE-WG: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <zero>]
// ONE-WG: llvm.getelementptr %{{.*}}[8192]

// With K compiled in (12 blocks) and 3 stages: both loops run three blocks
// a trip, each copy at a constant ring stage (kLoopUnrollFactor). The math
// loop peels the first block (two waves of four wgmmas) and runs the two
// blocks a loop of whole trips leaves over right after it, then blocks 3-11
// three at a time (24 wgmmas a trip), with no remainder.
// FIXEDK: scf.for %{{.*}} = %c0 to %c12 step %c3
// FIXEDK-COUNT-24: nvvm.wgmma.mma_async
// FIXEDK: scf.for %{{.*}} = %c0 to %c9 step %c3
// FIXEDK-COUNT-24: nvvm.wgmma.mma_async
// FIXEDK: scf.yield
// FIXEDK-NOT: nvvm.wgmma.mma_async
// FIXEDK: llvm.return
