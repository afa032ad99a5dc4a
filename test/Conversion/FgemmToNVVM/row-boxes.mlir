// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="cluster=2 multicast=b" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MULTICAST
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-n=4096" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FIXED-N
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-n=2112" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PARTIAL-N
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=192 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=THREE
// A tile load that may reach past its source's last row (M, or N where it
// comes with the launch or the tile does not divide it): TMA's zero fill of
// rows past the end costs about 2-3 rows of data each, so such a tile loads
// only the rows before the end, in boxes of 64, 32, 16 and 8 rows (one per
// binary digit of its 8-row patterns; each box one 128-byte swizzle pattern
// or more, landing where the whole box puts its rows). Rows past the end
// keep what the slot held: they reach only output rows no store writes.

// 128x128: A and B each get maps of 64-, 32-, 16- and 8-row boxes.
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: #fgemm.tensor_map_param<arg = 4, box = [64, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 3>

// Only the whole boxes' maps are prefetched at entry (the shorter ones serve
// only a tile at the end of its source).
// CHECK: nvvm.prefetch tensormap in_param_space, %arg3 : !llvm.ptr
// CHECK-NOT: nvvm.prefetch tensormap

// The producer: the rows A's tile has before M (M - 128 tm); the whole box
// (all 16 KiB expected) where at most 16 of its rows are past M (one filled
// box costs less than the three or four short ones), else one 8-row
// pattern per 1 KiB of expected bytes (the last pattern's fill counted too);
// B likewise; then the 512 bytes of A's scales.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[A_ROW:.*]] = arith.muli %{{.*}}, %c128_i32 : i32
// CHECK: %[[A_LEFT:.*]] = arith.subi %{{.*}}, %[[A_ROW]] : i32
// CHECK-NEXT: %[[A_WHOLE:.*]] = arith.cmpi sge, %[[A_LEFT]], %c112_i32 : i32
// CHECK-NEXT: %[[A_BEFORE:.*]] = arith.maxsi %[[A_LEFT]], %c0_i32 : i32
// CHECK-NEXT: %[[A_KEPT:.*]] = arith.select %[[A_WHOLE]], %c128_i32, %[[A_BEFORE]] : i32
// CHECK-NEXT: %[[A_UP:.*]] = arith.addi %[[A_KEPT]], %c7_i32 : i32
// CHECK-NEXT: %[[A_PATTERNS:.*]] = arith.divui %[[A_UP]], %c8_i32 : i32
// CHECK-NEXT: %[[A_BYTES:.*]] = arith.muli %[[A_PATTERNS]], %c1024_i32 : i32
// CHECK: %[[B_WHOLE:.*]] = arith.cmpi sge, %{{.*}}, %c112_i32 : i32
// CHECK: %[[B_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// CHECK-NEXT: %[[AB:.*]] = arith.addi %[[A_BYTES]], %[[B_BYTES]] : i32
// CHECK-NEXT: %[[ALL:.*]] = arith.addi %[[AB]], %c512_i32 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %[[ALL]]

// A whole tile: its one box. Else the pattern count is pinned (the boxes'
// rows and addresses stay on this path instead of taking the producer's few
// registers across the loop) and each binary digit loads its box after the
// taller digits' rows: 64 rows at pattern 0, 32 after the 64-row digit, ...
// CHECK: scf.if %[[A_WHOLE]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[A_SLOT:[0-9]+]], %arg0, %[[FULL]], box[%[[COL:[0-9]+]], %[[A_ROW]]] {isCTAOnly = true}
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[P:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %[[A_PATTERNS]] : (i32) -> i32
// CHECK: %[[D64:.*]] = arith.andi %[[P]], %c8_i32 : i32
// CHECK-NEXT: %[[T64:.*]] = arith.cmpi ne, %[[D64]], %c0_i32 : i32
// CHECK-NEXT: scf.if %[[T64]] {
// CHECK-NEXT: %[[ABOVE64:.*]] = arith.andi %[[P]], %c-16_i32 : i32
// CHECK-NEXT: %[[R64:.*]] = arith.muli %[[ABOVE64]], %c8_i32 : i32
// CHECK-NEXT: %[[G64:.*]] = arith.addi %[[A_ROW]], %[[R64]] : i32
// CHECK-NEXT: %[[O64:.*]] = arith.muli %[[ABOVE64]], %c1024_i32 : i32
// CHECK-NEXT: %[[S64:.*]] = llvm.getelementptr %[[A_SLOT]][%[[O64]]]
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[S64]], %arg4, %[[FULL]], box[%{{.*}}, %[[G64]]] {isCTAOnly = true}
// CHECK: arith.andi %[[P]], %c4_i32 : i32
// CHECK: arith.andi %[[P]], %c-8_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg5, %[[FULL]]
// CHECK: arith.andi %[[P]], %c2_i32 : i32
// CHECK: arith.andi %[[P]], %c-4_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6, %[[FULL]]
// CHECK: arith.andi %[[P]], %c1_i32 : i32
// CHECK: arith.andi %[[P]], %c-2_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7, %[[FULL]]
// B the same way with its own maps; the scales' box is never cut.
// CHECK: scf.if %[[B_WHOLE]] {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %[[FULL]]
// CHECK: } else {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg11, %[[FULL]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg2, %[[FULL]]

// Pairs sharing B (multicast): B's maps are of the part each CTA loads (64
// rows) and shorter; CTA r loads the patterns of its part, rows [64 r, 64 r
// + 64), into both CTAs.
// MULTICAST-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// MULTICAST-SAME: #fgemm.tensor_map_param<arg = 1, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param
// MULTICAST: multicast_mask = %c3_i16
// MULTICAST-NEXT: } else {
// MULTICAST-NEXT: %[[P:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// MULTICAST-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// MULTICAST-NEXT: %[[BEFORE:.*]] = arith.muli %[[RANK]], %c8_i32 : i32
// MULTICAST-NEXT: %[[REST:.*]] = arith.subi %[[P]], %[[BEFORE]] : i32
// MULTICAST-NEXT: %[[MIN:.*]] = arith.minsi %[[REST]], %c8_i32 : i32
// MULTICAST-NEXT: %[[IN_PART:.*]] = arith.maxsi %[[MIN]], %c0_i32 : i32
// MULTICAST-NEXT: arith.muli %[[RANK]], %c64_i32 : i32
// MULTICAST: arith.andi %[[IN_PART]], %c8_i32 : i32
// MULTICAST: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg8, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16
// MULTICAST: arith.andi %[[IN_PART]], %c1_i32 : i32
// MULTICAST: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg11, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16

// N compiled in and a multiple of the tile's columns: B's tiles never reach
// past N, only A gets the shorter maps.
// FIXED-N-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// FIXED-N-SAME: #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 3>
// FIXED-N-NOT: tensor_map_param<arg = 1, box = [128, 64]
// 2112 = 16.5 x 128: B's last tile is half past N.
// PARTIAL-N-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// PARTIAL-N-SAME: #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 3>

// 192-row tiles: 23 patterns at most before the end, boxes up to 128 rows.
// THREE-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// THREE-SAME: #fgemm.tensor_map_param<arg = 0, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 1
// THREE: arith.cmpi sge, %{{.*}}, %c176_i32 : i32
// THREE: arith.andi %{{.*}}, %c16_i32 : i32
// THREE-NEXT: arith.cmpi ne
// THREE-NEXT: scf.if
// THREE-NEXT: arith.andi %{{.*}}, %c-32_i32 : i32
