// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=64 block-n=64 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=64 block-n=64 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=CONTIGUOUS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PERSISTENT
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_psum_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PSUM
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_unpadded_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=UNPADDED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED-PERSISTENT
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent cluster=2 multicast=b" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PAIRS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=192 stages=4 schedule=persistent cluster=2 multicast=b" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED-PAIRS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED-DRAIN
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED-SHARED-BARRIER
// convert-fgemm-to-nvvm on the grouped kernels: group coordinates on the
// TMA copies, the layout tensor read by every thread, per-group SFB offsets,
// a store cut by rows in shorter TMA boxes and its rows at the cut copied out
// by the math threads, padding rows zeroed.

// The masked output is a TMA store target in boxes of 64 rows, and of 32,
// 16 and 8 (for tiles the group's rows cut), and a pointer (for the rows at
// the cut); masked_m is a pointer.
// MASKED: llvm.func @sm90_m_grouped_fp8_gemm_masked_1d2d(
// MASKED-SAME: fgemm.params = [#fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 2, box = [64, 1], swizzle = 0>, #fgemm.tensor_map_param<arg = 5, box = [64, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 5, box = [64, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 5, box = [64, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 5, box = [64, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 3>, #fgemm.pointer_param<arg = 4>, #fgemm.pointer_param<arg = 5>, #fgemm.dim_param<"m">, #fgemm.dim_param<"n">, #fgemm.dim_param<"k">, #fgemm.dim_param<"g">]
// One math warpgroup (256 threads): the register file allows 248 per thread
// at entry (384 threads: 168).
// MASKED-SAME: nvvm.maxnreg = 248 : i32, nvvm.reqntid = array<i32: 256, 1, 1>
// MASKED: %[[G:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// MASKED: %[[COUNT:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// MASKED: arith.maxsi %[[COUNT]]
// A CTA whose tile has no rows of its group does nothing else.
// MASKED: %[[HAS:.*]] = arith.cmpi ult
// MASKED-NEXT: scf.if %[[HAS]] {
// MASKED-NOT: nvvm.read.ptx.sreg.ctaid
// MASKED: nvvm.mbarrier.init
// The producer runs the tile's K blocks (none past the group's rows), four
// a trip (the K loops of tiles this small are unrolled by four) and the rest
// after; A, B and SFA copies carry the group as their third coordinate.
// MASKED: %[[REST:.*]] = arith.remsi %[[BLOCKS:.*]], %c4 : index
// MASKED: %[[EVEN:.*]] = arith.subi %[[BLOCKS]], %[[REST]] : index
// MASKED: scf.for %{{.*}} = %c0 to %[[EVEN]] step %c4 {
// MASKED: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC:.*]]]
// MASKED: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg2, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// SFB of group g starts g x ceil(n/128) x ceil(k/128) scales in (staged by
// the math threads at each chunk's first K block).
// MASKED: scf.for %{{.*}} = %[[EVEN]] to %[[BLOCKS]] step %c1 {
// The math loop's first K block runs before it (a tile of no rows runs
// none) and writes the accumulator with fmul (no zeros to materialize);
// the loop runs over blocks 1 .. (its index from 0).
// MASKED: scf.if
// MASKED: %[[SFB_GROUP:.*]] = arith.muli %[[GC]], %{{.*}} : i32
// MASKED: arith.addi %[[SFB_GROUP]]
// MASKED: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// MASKED: llvm.fmul
// MASKED: scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args(
// A tile inside the rows: TMA store at (n, m, group). A tile the rows cut:
// the leader stores a wave wholly inside them in the same box, else the
// wave's whole 8-row patterns in boxes of 32, 16 and 8 rows (%arg4-6), at
// most one of each; then each math thread reads its 16-byte pieces of the
// staged wave, a batch of four before any store, and stores those inside
// the rows but outside the boxes.
// MASKED: scf.if
// MASKED: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: } else {
// MASKED: scf.if
// MASKED: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: } else {
// MASKED: arith.cmpi sge, %{{.*}}, %c32_i32
// MASKED: nvvm.cp.async.bulk.tensor.global.shared.cta %arg4, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: arith.cmpi sge, %{{.*}}, %c16_i32
// MASKED: nvvm.cp.async.bulk.tensor.global.shared.cta %arg5, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: arith.cmpi sge, %{{.*}}, %c8_i32
// MASKED: nvvm.cp.async.bulk.tensor.global.shared.cta %arg6, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[GC]]]
// MASKED: nvvm.cp.async.bulk.commit.group
// MASKED: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// MASKED-NOT: llvm.store
// MASKED: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// MASKED-NOT: llvm.store
// MASKED: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// MASKED-NOT: llvm.store
// MASKED: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// MASKED: scf.if
// MASKED: llvm.getelementptr %arg15[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// MASKED: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>

// Contiguous: m_indices of the tile's first row picks B; A is 2-D. Each math
// thread reads m_indices of its two rows before the math loop (their latency
// is off the epilogue's path) and after it zeroes the fragments of rows
// marked -1 before the TMA store; a warp whose rows are all kept skips the
// selects.
// CONTIGUOUS: llvm.func @sm90_m_grouped_fp8_gemm_contiguous_1d2d(
// CONTIGUOUS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CONTIGUOUS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%{{.*}}, %{{.*}}] {isCTAOnly = true}
// CONTIGUOUS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] {isCTAOnly = true}
// CONTIGUOUS: %[[ROW0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CONTIGUOUS: %[[ROW8:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CONTIGUOUS: nvvm.wgmma.mma_async
// CONTIGUOUS: arith.cmpi sge, %[[ROW0]], %c0_i32
// CONTIGUOUS: arith.cmpi sge, %[[ROW8]], %c0_i32
// CONTIGUOUS: %[[ALL:.*]] = nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
// CONTIGUOUS: scf.if %[[ALL]]
// CONTIGUOUS: } else {
// CONTIGUOUS: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CONTIGUOUS: nvvm.cp.async.bulk.tensor.global.shared.cta
// CONTIGUOUS-NOT: vector<4xi32>

// Persistent: both roles' tile loops carry the K blocks their earlier tiles
// ran, the ring position of the next tile's first block, and how many tiles
// they ran.
// PERSISTENT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BEFORE:.*]] = %c0, %[[COUNT:.*]] = %c0) -> (index, index) {
// PERSISTENT: arith.addi %[[BEFORE]], %{{.*}} : index
// PERSISTENT: %[[NEXT:.*]] = arith.addi %[[COUNT]], %c1 : index
// PERSISTENT-NEXT: scf.yield %{{.*}}, %[[NEXT]] : index, index
// PERSISTENT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BEFORE2:.*]] = %c0, %[[COUNT2:.*]] = %c0) -> (index, index) {
// PERSISTENT: arith.addi %[[BEFORE2]], %{{.*}} : index
// PERSISTENT: %[[NEXT2:.*]] = arith.addi %[[COUNT2]], %c1 : index
// PERSISTENT-NEXT: scf.yield %{{.*}}, %[[NEXT2]] : index, index

// fgemm.find_group: lo, hi = 0, groups; while lo < hi, mid = (lo + hi) / 2
// and ends[mid] > row keeps the lower half.
// PSUM: %[[SEARCH:.*]]:2 = scf.while (%[[LO:.*]] = %c0_i32, %[[HI:.*]] = %{{.*}}) : (i32, i32) -> (i32, i32) {
// PSUM: %[[MORE:.*]] = arith.cmpi ult, %[[LO]], %[[HI]] : i32
// PSUM: scf.condition(%[[MORE]]) %[[LO]], %[[HI]] : i32, i32
// PSUM: } do {
// PSUM: ^bb0(%[[L:.*]]: i32, %[[H:.*]]: i32):
// PSUM: %[[SUM:.*]] = arith.addi %[[L]], %[[H]] : i32
// PSUM: %[[MID:.*]] = arith.shrui %[[SUM]], %c1_i32 : i32
// PSUM: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// PSUM: arith.cmpi sgt
// PSUM: scf.yield

// fgemm.find_piece_group: the first g in [1, groups) with
// max(ends[g - 1], 0) / 128 + g > piece, minus one.
// UNPADDED: scf.while (%[[LO:.*]] = %c1_i32, %[[HI:.*]] = %{{.*}}) : (i32, i32) -> (i32, i32) {
// UNPADDED: } do {
// UNPADDED: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// UNPADDED: arith.maxsi
// UNPADDED: arith.divui %{{.*}}, %c128_i32 : i32
// UNPADDED: arith.cmpi ugt
// UNPADDED: scf.yield

// Persistent masked: thread 0 prefetches masked_m's first line into L2 while
// it sets up the barriers; after the set-up, before the roles split, every
// thread sums the groups' row tiles (masked_m clamped to [0, m], ceil by
// 128), one group per lane, 32 a step; the tile loop runs over those row tiles
// times the column tiles, and each role walks the groups to the one holding
// the tile's row tile: a tile inside the group the last lookup found (its
// group, first tile, end and rows in four stack slots, zero at entry, shared
// by all lookups) needs no load; otherwise the walk starts from that group.
// MASKED-PERSISTENT: %[[GROUP:.*]] = llvm.alloca %{{.*}} x i32
// MASKED-PERSISTENT-NEXT: llvm.store %[[ZERO:.*]], %[[GROUP]]
// MASKED-PERSISTENT-NEXT: %[[START:.*]] = llvm.alloca %{{.*}} x i32
// MASKED-PERSISTENT-NEXT: llvm.store %[[ZERO]], %[[START]]
// MASKED-PERSISTENT-NEXT: %[[END:.*]] = llvm.alloca %{{.*}} x i32
// MASKED-PERSISTENT-NEXT: llvm.store %[[ZERO]], %[[END]]
// MASKED-PERSISTENT-NEXT: %[[ROWS:.*]] = llvm.alloca %{{.*}} x i32
// MASKED-PERSISTENT-NEXT: llvm.store %[[ZERO]], %[[ROWS]]
// MASKED-PERSISTENT-NOT: llvm.alloca
// MASKED-PERSISTENT: nvvm.prefetch level = L2, %arg
// MASKED-PERSISTENT: nvvm.mbarrier.init
// MASKED-PERSISTENT: nvvm.barrier0
// The row-tile count: each lane loads one group's masked_m (32 a step),
// clamps it and the warp sums the lanes' row tiles.
// MASKED-PERSISTENT: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// MASKED-PERSISTENT: %[[COUNT:.*]] = scf.for %[[FIRST:.*]] = %c0 to %{{.*}} step %c32 iter_args(%[[SUM:.*]] = %c0_i32) -> (i32) {
// MASKED-PERSISTENT: %[[G:.*]] = arith.addi %{{.*}}, %[[LANE]] : i32
// MASKED-PERSISTENT: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// MASKED-PERSISTENT-NOT: llvm.load
// MASKED-PERSISTENT: arith.maxsi
// MASKED-PERSISTENT: arith.minui
// MASKED-PERSISTENT: arith.ceildivui %{{.*}}, %c128_i32
// MASKED-PERSISTENT: %[[MINE:.*]] = arith.select
// MASKED-PERSISTENT: %[[WARP:.*]] = nvvm.redux.sync  add %[[MINE]], %c-1_i32 : i32 -> i32
// MASKED-PERSISTENT: %[[NEXT:.*]] = arith.addi %[[SUM]], %[[WARP]]
// MASKED-PERSISTENT: scf.yield %[[NEXT]]
// MASKED-PERSISTENT: nvvm.setmaxregister decrease
// MASKED-PERSISTENT: scf.for
// MASKED-PERSISTENT: %[[LASTG:.*]] = llvm.load %[[GROUP]] : !llvm.ptr -> i32
// MASKED-PERSISTENT-NEXT: %[[LASTS:.*]] = llvm.load %[[START]] : !llvm.ptr -> i32
// MASKED-PERSISTENT-NEXT: %[[LASTE:.*]] = llvm.load %[[END]] : !llvm.ptr -> i32
// MASKED-PERSISTENT-NEXT: %[[LASTR:.*]] = llvm.load %[[ROWS]] : !llvm.ptr -> i32
// MASKED-PERSISTENT-NEXT: %[[BEFOREEND:.*]] = arith.cmpi ult, %[[TILE:.*]], %[[LASTE]] : i32
// MASKED-PERSISTENT-NEXT: %[[FROMSTART:.*]] = arith.cmpi ule, %[[LASTS]], %[[TILE]] : i32
// MASKED-PERSISTENT-NEXT: %[[HIT:.*]] = arith.andi %[[FROMSTART]], %[[BEFOREEND]] : i1
// MASKED-PERSISTENT-NEXT: %[[FOUND:.*]]:4 = scf.if %[[HIT]] -> (i32, i32, i32, i32) {
// MASKED-PERSISTENT-NEXT: scf.yield %[[LASTG]], %[[LASTS]], %[[LASTE]], %[[LASTR]] : i32, i32, i32, i32
// MASKED-PERSISTENT-NEXT: } else {
// Back while the tile lies before the group's start, then forward.
// MASKED-PERSISTENT-NEXT: %[[BACK:.*]]:2 = scf.while (%{{.*}} = %[[LASTG]], %{{.*}} = %[[LASTS]])
// MASKED-PERSISTENT: arith.cmpi ult, %[[TILE]], %
// MASKED-PERSISTENT: scf.condition
// MASKED-PERSISTENT: arith.subi %{{.*}}, %c1_i32
// MASKED-PERSISTENT: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// MASKED-PERSISTENT: arith.subi
// MASKED-PERSISTENT: %[[WALKED:.*]]:3 = scf.while (%{{.*}} = %[[BACK]]#0, %{{.*}} = %[[BACK]]#1)
// MASKED-PERSISTENT: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// MASKED-PERSISTENT: arith.maxsi
// MASKED-PERSISTENT: arith.minui
// MASKED-PERSISTENT: arith.ceildivui %{{.*}}, %c128_i32
// MASKED-PERSISTENT: scf.condition
// The found group's rows: one load after the walk.
// MASKED-PERSISTENT: llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// MASKED-PERSISTENT: arith.maxsi
// MASKED-PERSISTENT: %[[FOUNDROWS:.*]] = arith.minui
// MASKED-PERSISTENT: scf.yield %[[WALKED]]#0, %[[WALKED]]#1, %[[WALKED]]#2, %[[FOUNDROWS]] : i32, i32, i32, i32
// MASKED-PERSISTENT: llvm.store %[[FOUND]]#0, %[[GROUP]]
// MASKED-PERSISTENT-NEXT: llvm.store %[[FOUND]]#1, %[[START]]
// MASKED-PERSISTENT-NEXT: llvm.store %[[FOUND]]#2, %[[END]]
// MASKED-PERSISTENT-NEXT: llvm.store %[[FOUND]]#3, %[[ROWS]]
// MASKED-PERSISTENT: nvvm.setmaxregister increase
// MASKED-PERSISTENT: scf.while
// A tile the rows miss skips its store but still meets the staging barrier
// (in a persistent loop the warpgroup's: id 2 + warpgroup, 128 threads):
// every store ends with one, so the next tile stages its B scales with no
// barrier before.
// (The cut tile's copy: 8 unrolled steps of 16-byte pieces, 64 x 128 bf16.)
// MASKED-PERSISTENT: nvvm.cp.async.bulk.commit.group
// MASKED-PERSISTENT-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// MASKED-PERSISTENT-NEXT: }
// MASKED-PERSISTENT-NEXT: }
// MASKED-PERSISTENT-NEXT: } else {
// MASKED-PERSISTENT-NEXT: %[[WG_BARRIER:.*]] = arith.addi %{{.*}}, %c2_i32 : i32
// MASKED-PERSISTENT-NEXT: nvvm.barrier id = %[[WG_BARRIER]] number_of_threads = %c128_i32
// MASKED-PERSISTENT-NEXT: }
// MASKED-PERSISTENT-NEXT: arith.addi
// MASKED-PERSISTENT-NEXT: arith.addi %{{.*}}, %c1 : index
// MASKED-PERSISTENT-NEXT: scf.yield

// Contiguous row tiles in pairs sharing B: the producer multicasts its half
// of B into both CTAs when the pair's tiles are in one group, else loads
// both halves into its own slot (the same bytes for the slot's barrier).
// (A's and B's tiles past the last row come in shorter boxes, after the
// whole tiles' loads: row-boxes.mlir.)
// PAIRS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[{{.*}}] {isCTAOnly = true}
// PAIRS: nvvm.read.ptx.sreg.cluster.ctarank
// PAIRS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[{{.*}}] multicast_mask = %c3_i16
// PAIRS-NEXT: } else {
// PAIRS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[{{.*}}] {isCTAOnly = true}
// PAIRS: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[{{.*}}] {isCTAOnly = true}
// PAIRS-NEXT: }

// Masked pairs count units per group: a lane's group of T row tiles adds
// (T >> 1) pair rows of tiles_n units and (T & 1) tails of ceil(tiles_n / 2)
// units to the warp's sum.
// MASKED-PAIRS: %[[T:.*]] = arith.ceildivui %{{.*}}, %c128_i32 : i32
// MASKED-PAIRS: %[[PAIRROWS:.*]] = arith.shrui %[[T]], %c1_i32 : i32
// MASKED-PAIRS: %[[ODD:.*]] = arith.andi %[[T]], %c1_i32 : i32
// MASKED-PAIRS: %[[TAIL:.*]] = arith.muli %[[ODD]], %{{.*}} : i32
// MASKED-PAIRS: %[[BODY:.*]] = arith.muli %[[PAIRROWS]], %{{.*}} : i32
// MASKED-PAIRS: %[[UNITS:.*]] = arith.addi %[[BODY]], %[[TAIL]] : i32
// MASKED-PAIRS: %[[MINE:.*]] = arith.select %{{.*}}, %[[UNITS]], %c0_i32 : i32
// MASKED-PAIRS: nvvm.redux.sync  add %[[MINE]]

// Two math warpgroups of 64 rows each, decoupled (persistent: each stages
// its own copy of the B scales under its own barrier): one none of whose
// rows are stored (the K loop's rows(0, hi) from the tile's first row) runs
// a copy of the K loop without wgmmas, which waits for each slot, releases
// it and stages the B scales under its barrier; its accumulator is
// undefined.
// MASKED-DRAIN: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32{{(, f32)+}})>
// MASKED-DRAIN: nvvm.setmaxregister increase
// MASKED-DRAIN: %[[FIRST:.*]] = arith.muli %{{.*}}, %c64_i32 : i32
// MASKED-DRAIN-NEXT: %[[END:.*]] = arith.addi %[[FIRST]], %c64_i32 : i32
// MASKED-DRAIN-NEXT: %[[LAST:.*]] = arith.index_cast %{{.*}} : index to i32
// MASKED-DRAIN-NEXT: %[[HI:.*]] = arith.minui %[[LAST]], %[[END]] : i32
// MASKED-DRAIN-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[FIRST]], %[[HI]] : i32
// MASKED-DRAIN-NEXT: %[[ACC:.*]] = scf.if %[[HAS]] -> (
// MASKED-DRAIN: nvvm.wgmma.mma_async
// The copy's own check for a tile of no K blocks, then its K blocks.
// MASKED-DRAIN: %[[DRAINANY:.*]] = arith.cmpi ugt, %{{.*}}, %c0 : index
// MASKED-DRAIN-NEXT: scf.if %[[DRAINANY]] {
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.mbarrier.try_wait.parity
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.mbarrier.arrive
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: scf.for
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.mbarrier.try_wait.parity
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: nvvm.mbarrier.arrive
// MASKED-DRAIN-NOT: nvvm.wgmma.mma_async
// MASKED-DRAIN: scf.yield %[[UNDEF]]
// MASKED-DRAIN-NEXT: }
// The store reads the branch's accumulator.
// MASKED-DRAIN: llvm.extractvalue %[[ACC]][0]

// On a plain grid the two math warpgroups stage the B scales under one
// barrier of both (id 1, 256 threads): a drain copy would meet it at other
// instructions than the loop with wgmmas, which bar.sync (.aligned) does not
// allow. No copy: every K loop issues wgmmas.
// MASKED-SHARED-BARRIER: nvvm.setmaxregister increase
// MASKED-SHARED-BARRIER-NOT: arith.muli %{{.*}}, %c64_i32 : i32
// MASKED-SHARED-BARRIER: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// MASKED-SHARED-BARRIER: nvvm.wgmma.mma_async
