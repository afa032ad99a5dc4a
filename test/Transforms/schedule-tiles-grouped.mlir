// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4" --fgemm-schedule-tiles | FileCheck %s --check-prefix=MASKED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 cluster=2" --fgemm-schedule-tiles | FileCheck %s --check-prefix=CONTIGUOUS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles | FileCheck %s --check-prefix=PERSISTENT
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_psum_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4" --fgemm-schedule-tiles | FileCheck %s --check-prefix=PSUM
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_unpadded_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles | FileCheck %s --check-prefix=UNPADDED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent cluster=2 multicast=b" --fgemm-schedule-tiles | FileCheck %s --check-prefix=PAIRS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent cluster=2 multicast=b" --fgemm-schedule-tiles | FileCheck %s --check-prefix=MPAIRS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 cluster=2 multicast=b" --fgemm-schedule-tiles | FileCheck %s --check-prefix=MPLAIN
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/contiguous-derived-group.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent cluster=2 multicast=b" --fgemm-schedule-tiles | FileCheck %s --check-prefix=DERIVED
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/masked-other-rows-store.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles | FileCheck %s --check-prefix=OTHERROWS
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/masked-unknown-effects.mlir --allow-unregistered-dialect --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles | FileCheck %s --check-prefix=UNKNOWN
// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles --verify-diagnostics
// fgemm-schedule-tiles on grouped tile spaces: what a tile knows about its
// group, read from the layout tensor on the GPU, and a K loop that runs no
// blocks for a tile without rows of its group.

// Masked: grid z is the group; masked_m[group] clamped to [0, m] ends the
// group's rows; the store keeps to them.
// MASKED: grid = #fgemm.tile_grid<grouped_masked, ["n", "m", "g"]>
// MASKED: %[[TN:.*]] = fgemm.program_id x
// MASKED: %[[TM:.*]] = fgemm.program_id y
// MASKED: %[[G:.*]] = fgemm.program_id z
// MASKED: %[[M:.*]] = fgemm.dim "m"
// MASKED: %[[ZERO:.*]] = arith.constant 0 : index
// MASKED: %[[COUNT:.*]] = fgemm.read %{{.*}}[%[[G]]] : <[g], i32> -> i32
// MASKED: %[[POS:.*]] = arith.maxsi %[[COUNT]], %{{.*}} : i32
// MASKED: %[[POSI:.*]] = arith.index_cast %[[POS]] : i32 to index
// MASKED: %[[END:.*]] = arith.minui %[[POSI]], %[[M]] : index
// MASKED: %[[HAS:.*]] = arith.cmpi ult
// A tile past its group's rows ends its CTA at once.
// MASKED: %[[EMPTY:.*]] = arith.xori %[[HAS]], %true
// MASKED: fgemm.skip_tile_if %[[EMPTY]]
// Only the group's rows are stored: the K loop learns which of the tile's
// rows those are, [0, min(max(end, first) - first, 128)).
// MASKED: %[[TFIRST:.*]] = arith.muli %[[TM]], %c128
// MASKED: %[[PAST:.*]] = arith.maxui %[[END]], %[[TFIRST]]
// MASKED: %[[FROMFIRST:.*]] = arith.subi %[[PAST]], %[[TFIRST]]
// MASKED: %[[HI:.*]] = arith.minui %[[FROMFIRST]], %c128
// MASKED: %[[ALL:.*]] = fgemm.num_blocks "k" by "bk"
// MASKED: %[[BLOCKS:.*]] = arith.select %[[HAS]], %[[ALL]], %{{.*}} : index
// MASKED: fgemm.k_loop "k" blocks(%[[BLOCKS]]) rows(%c0{{.*}}, %[[HI]]) init(
// MASKED: fgemm.load %{{.*}}[%[[G]], %[[TM]], %{{.*}}] : <[g, m, k], f8E4M3FN>
// MASKED: fgemm.load %{{.*}}[%[[G]], %[[TN]], %{{.*}}] : <[g, n, k], f8E4M3FN>
// MASKED: fgemm.store %{{.*}}, %{{.*}}[%[[G]], %[[TM]], %[[TN]]] rows(%[[ZERO]], %[[END]])

// Contiguous: the group of the tile's first row; -1 or a value >= g (one
// unsigned compare) gives group 0 for in-bounds addresses and no rows. The
// cluster shares A (the M tile, hence the group).
// CONTIGUOUS: grid = #fgemm.tile_grid<grouped_contiguous, ["n", "m"]>
// CONTIGUOUS: %[[TM:.*]] = fgemm.program_id y
// CONTIGUOUS: %[[FIRST:.*]] = arith.muli %[[TM]], %c128
// CONTIGUOUS: %[[GROUPS:.*]] = fgemm.dim "g"
// CONTIGUOUS: %[[GROUPS32:.*]] = arith.index_cast %[[GROUPS]] : index to i32
// CONTIGUOUS: %[[RAW:.*]] = fgemm.read %{{.*}}[%[[FIRST]]] : <[m], i32> -> i32
// CONTIGUOUS: %[[VALID:.*]] = arith.cmpi ult, %[[RAW]], %[[GROUPS32]] : i32
// CONTIGUOUS: %[[RAWI:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CONTIGUOUS: %[[G:.*]] = arith.select %[[VALID]], %[[RAWI]], %{{.*}} : index
// CONTIGUOUS-NOT: fgemm.skip_tile_if
// Padding tiles store zeros: every row of the K loop's results is stored.
// CONTIGUOUS: fgemm.k_loop "k" blocks({{[^)]*}}) init(
// CONTIGUOUS: fgemm.load %{{.*}}[%[[TM]], %{{.*}}] {multicast} : <[m, k], f8E4M3FN>
// CONTIGUOUS: fgemm.load %{{.*}}[%[[G]], %{{.*}}, %{{.*}}] : <[g, n, k], f8E4M3FN>
// CONTIGUOUS: fgemm.zero_rows %{{.*}}, %{{.*}}[%[[TM]]]
// CONTIGUOUS-NOT: rows(

// The K loop gets rows(...) only where every store keeps to the group's
// rows and nothing else may write: not with a second store of other rows,
// nor with an op of unknown memory effects.
// OTHERROWS: fgemm.k_loop "k" blocks({{[^)]*}}) init(
// UNKNOWN: fgemm.k_loop "k" blocks({{[^)]*}}) init(

// The psum form: the group whose end row is past the tile's first row (a
// binary search); it starts at the previous group's end rounded up to 128,
// and a tile before that start (a gap) has no rows.
// PSUM: grid = #fgemm.tile_grid<grouped_contiguous_psum, ["n", "m"]>
// PSUM: %[[TM:.*]] = fgemm.program_id y
// PSUM: %[[FIRST:.*]] = arith.muli %[[TM]], %c128
// PSUM: %[[FOUND:.*]] = fgemm.find_group %{{.*}}[%[[FIRST]]] : <[g], i32> -> i32
// PSUM: %[[IN:.*]] = arith.cmpi ult, %[[FOUND]]
// PSUM: %[[PREV:.*]] = fgemm.read
// PSUM: %[[START:.*]] = arith.muli %{{.*}}, %c128
// PSUM: %[[NOTGAP:.*]] = arith.cmpi ule, %[[START]], %[[FIRST]]
// PSUM: %[[VALID:.*]] = arith.andi %[[IN]], %[[NOTGAP]]
// PSUM: %[[BEGIN:.*]] = arith.select %[[VALID]], %[[START]], %[[FIRST]]
// PSUM: fgemm.k_loop "k" blocks({{[^)]*}}) rows(
// PSUM: fgemm.store %{{.*}}, %{{.*}}[%[[TM]], %{{.*}}] rows(%[[BEGIN]], %{{.*}})

// Unpadded: the loop runs over (tiles_m + g - 1) x tiles_n (block, group)
// pieces; a piece's group comes from the search, its block is piece - group,
// its rows are [ends[g - 1], ends[g]).
// UNPADDED: grid = #fgemm.tile_grid<grouped_contiguous_unpadded, ["n", "m"]>
// UNPADDED: %[[TM:.*]] = fgemm.num_blocks "m" by "bm"
// UNPADDED: %[[TN:.*]] = fgemm.num_blocks "n" by "bn"
// UNPADDED: %[[G:.*]] = fgemm.dim "g"
// UNPADDED: %[[SUM:.*]] = arith.addi %[[TM]], %[[G]]
// UNPADDED: %[[PIECES:.*]] = arith.subi %[[SUM]], %c1
// UNPADDED: %[[ALL:.*]] = arith.muli %[[PIECES]], %[[TN]]
// UNPADDED: fgemm.tile_loop %[[ALL]] {
// UNPADDED: ^bb0(%{{.*}}: index, %[[T:.*]]: index, %{{.*}}: index):
// UNPADDED: %[[PIECE:.*]] = arith.divui %[[T]], %[[TN]]
// UNPADDED: %[[FOUND:.*]] = fgemm.find_piece_group %{{.*}}[%[[PIECE]]] {block = 128 : i64}
// UNPADDED: %[[GROUP:.*]] = arith.index_cast %[[FOUND]] : i32 to index
// UNPADDED: %[[BLOCK:.*]] = arith.subi %[[PIECE]], %[[GROUP]]
// UNPADDED: fgemm.k_loop "k" blocks({{[^)]*}}) rows(
// UNPADDED: fgemm.load %{{.*}}[%[[BLOCK]], %{{.*}}] : <[m, k], f8E4M3FN>
// UNPADDED: fgemm.load %{{.*}}[%[[GROUP]], %{{.*}}, %{{.*}}] : <[g, n, k], f8E4M3FN>
// UNPADDED: fgemm.store %{{.*}}, %{{.*}}[%[[BLOCK]], %{{.*}}] rows(

// Persistent masked: one loop over the row tiles that hold rows, group by
// group (counted on the GPU from masked_m, clamped to m), times the column
// tiles; fgemm.find_row_tile_group gives a row tile's group, its row tile
// inside the group and the group's rows (no second read of masked_m). Tiles
// run different numbers of K blocks, so the loop
// counts them (its third argument); a tile without rows stores nothing
// instead of ending the CTA.
// PERSISTENT: grid = #fgemm.tile_grid<grouped_masked, ["n", "m", "g"]>
// PERSISTENT: %[[TN:.*]] = fgemm.num_blocks "n" by "bn"
// PERSISTENT: %[[M:.*]] = fgemm.dim "m"
// PERSISTENT: %[[ROWTILES:.*]] = fgemm.count_row_tiles %arg4 limit %[[M]] {block = 128 : i64}
// PERSISTENT: %[[ALL:.*]] = arith.muli %[[ROWTILES]], %[[TN]]
// PERSISTENT: fgemm.tile_loop %[[ALL]] {
// PERSISTENT: ^bb0(%{{.*}}: index, %[[T:.*]]: index, %{{.*}}: index):
// PERSISTENT: %[[ROWTILE:.*]] = arith.divui %[[T]], %[[TN]]
// PERSISTENT: %[[COL:.*]] = arith.remui %[[T]], %[[TN]]
// PERSISTENT: %[[GROUP:.*]], %[[TM:.*]], %[[ROWS:.*]] = fgemm.find_row_tile_group %arg4[%[[ROWTILE]]] limit %[[M]] {block = 128 : i64}
// PERSISTENT-NOT: fgemm.read
// PERSISTENT-NOT: fgemm.skip_tile_if
// PERSISTENT: arith.minui %{{.*}}, %[[ROWS]] : index
// PERSISTENT: fgemm.k_loop "k" blocks({{[^)]*}}) rows(
// PERSISTENT: fgemm.load %arg0[%[[GROUP]], %[[TM]], %{{.*}}]
// PERSISTENT: fgemm.load %arg1[%[[GROUP]], %[[COL]], %{{.*}}]
// PERSISTENT: fgemm.store {{.*}} rows(

// -----

// Contiguous row tiles in pairs sharing B: the CTA's row tile and its
// peer's (the pair's other one), each group read with the row clamped to the
// tensor (the pair's second tile can lie past the last row); the pair runs
// every K block when either tile has rows, and multicasts B only when both
// have rows of one group.
// PAIRS: %[[RANK:.*]] = arith.remui %{{.*}}, %c2 : index
// PAIRS: %[[TM:.*]] = arith.addi %{{.*}}, %[[RANK]] : index
// PAIRS: %[[BASE:.*]] = arith.subi %[[TM]], %[[RANK]] : index
// PAIRS: %[[OTHER:.*]] = arith.subi %c1, %[[RANK]] : index
// PAIRS: %[[PEER:.*]] = arith.addi %[[BASE]], %[[OTHER]] : index
// PAIRS: %[[FIRST:.*]] = arith.muli %[[TM]], %{{.*}} : index
// PAIRS: %[[IN:.*]] = arith.cmpi ult, %[[FIRST]], %{{.*}} : index
// PAIRS: %[[ROW:.*]] = arith.select %[[IN]], %[[FIRST]], %{{.*}} : index
// PAIRS: fgemm.read %arg4[%[[ROW]]]
// PAIRS: %[[PFIRST:.*]] = arith.muli %[[PEER]], %{{.*}} : index
// PAIRS: %[[PIN:.*]] = arith.cmpi ult, %[[PFIRST]], %{{.*}} : index
// PAIRS: %[[PROW:.*]] = arith.select %[[PIN]], %[[PFIRST]], %{{.*}} : index
// PAIRS: fgemm.read %arg4[%[[PROW]]]
// PAIRS: %[[EITHER:.*]] = arith.ori %[[HAS:.*]], %[[PHAS:.*]] : i1
// PAIRS: %[[SAMEG:.*]] = arith.cmpi eq, %[[G:.*]], %{{.*}} : index
// PAIRS: %[[BOTH:.*]] = arith.andi %[[HAS]], %[[PHAS]] : i1
// PAIRS: %[[SHARED:.*]] = arith.andi %[[BOTH]], %[[SAMEG]] : i1
// PAIRS: %[[BLOCKS:.*]] = arith.select %[[EITHER]], %{{.*}}, %{{.*}} : index
// PAIRS: fgemm.k_loop "k" blocks(%[[BLOCKS]]) init(
// PAIRS: fgemm.load %arg0[%[[TM]], %{{.*}}] :
// PAIRS: fgemm.load %arg1[%[[G]], %{{.*}}, %{{.*}}] multicast_if(%[[SHARED]]) {multicast}

// Masked row tiles in pairs sharing B: the persistent loop counts units
// group by group (fgemm.count_row_tiles pairs(tiles_n, ceil(tiles_n / 2))):
// a group of T row tiles holds T / 2 pair rows of tiles_n units, walked in
// the tile order inside the group, and when T is odd a tail of
// ceil(tiles_n / 2) units whose two CTAs take columns 2j and 2j + 1 of its
// last row tile, without multicast. Both tiles of a pair are in the unit's
// group. On a plain grid (one group per grid z) a CTA ends at once only
// when neither tile of its pair has rows.
// MPAIRS: %[[TN:.*]] = fgemm.num_blocks "n" by "bn"
// MPAIRS: %[[HALF:.*]] = arith.ceildivui %[[TN]], %[[TWO:.*]] : index
// MPAIRS: %[[M:.*]] = fgemm.dim "m"
// MPAIRS: %[[UNITS:.*]] = fgemm.count_row_tiles %arg4 limit %[[M]] pairs(%[[TN]], %[[HALF]]) {block = 128 : i64}
// MPAIRS: %[[TOTAL:.*]] = arith.muli %[[UNITS]], %[[TWO]] : index
// MPAIRS: fgemm.tile_loop %[[TOTAL]]
// MPAIRS: %[[RANK:.*]] = arith.remui %{{.*}}, %[[TWO]] : index
// MPAIRS: %[[UNIT:.*]] = arith.divui %{{.*}}, %[[TWO]] : index
// MPAIRS: %[[G:.*]], %[[U:.*]], %[[GROWS:.*]] = fgemm.find_row_tile_group %arg4[%[[UNIT]]] limit %[[M]] pairs(%[[TN]], %[[HALF]]) {block = 128 : i64}
// MPAIRS-NOT: fgemm.read
// MPAIRS: %[[T:.*]] = arith.ceildivui %[[GROWS]], %{{.*}} : index
// MPAIRS: %[[PAIRROWS:.*]] = arith.divui %[[T]], %[[TWO]] : index
// MPAIRS: %[[BODY:.*]] = arith.muli %[[PAIRROWS]], %[[TN]] : index
// MPAIRS: %[[INTAIL:.*]] = arith.cmpi uge, %[[U]], %[[BODY]] : index
// MPAIRS: %[[ORDERED:.*]] = arith.select %[[INTAIL]], %{{.*}}, %[[U]] : index
// MPAIRS: %[[COL:.*]] = arith.remui %[[ORDERED]], %[[TN]] : index
// MPAIRS: %[[ROW:.*]] = arith.addi %{{.*}}, %[[RANK]] : index
// MPAIRS: %[[PEER:.*]] = arith.addi
// MPAIRS: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}} : index
// MPAIRS: %[[J:.*]] = arith.subi %[[U]], %[[BODY]] : index
// MPAIRS: %[[J2:.*]] = arith.muli %[[J]], %[[TWO]] : index
// MPAIRS: %[[TAILCOL:.*]] = arith.addi %[[J2]], %[[RANK]] : index
// MPAIRS: %[[TM:.*]] = arith.select %[[INTAIL]], %[[LAST]], %[[ROW]] : index
// MPAIRS: %[[TNV:.*]] = arith.select %[[INTAIL]], %[[TAILCOL]], %[[COL]] : index
// MPAIRS: %[[PTM:.*]] = arith.select %[[INTAIL]], %[[LAST]], %[[PEER]] : index
// MPAIRS-NOT: fgemm.find_row_tile_group
// MPAIRS: %[[EITHER:.*]] = arith.ori
// MPAIRS: %[[EQ:.*]] = arith.cmpi eq, %[[G]], %[[G]] : index
// MPAIRS: %[[SAME:.*]] = arith.andi %{{.*}}, %[[EQ]] : i1
// MPAIRS: %[[BLOCKS:.*]] = arith.select %[[EITHER]]
// MPAIRS: %[[NOTTAIL:.*]] = arith.xori %[[INTAIL]], %true : i1
// MPAIRS: %[[SHARED:.*]] = arith.andi %[[SAME]], %[[NOTTAIL]] : i1
// MPAIRS: fgemm.k_loop "k" blocks(%[[BLOCKS]]) rows(
// MPAIRS: fgemm.load %arg1[%[[G]], %[[TNV]], %{{.*}}] multicast_if(%[[SHARED]]) {multicast}
// MPLAIN: %[[EITHER:.*]] = arith.ori
// MPLAIN: %[[NEITHER:.*]] = arith.xori %[[EITHER]], %true : i1
// MPLAIN: fgemm.skip_tile_if %[[NEITHER]]
// MPLAIN: fgemm.load %arg1[%{{.*}}] multicast_if(%{{.*}}) {multicast}

// A B index computed from the group is conditional on the pair's group too.
// DERIVED: fgemm.k_loop
// DERIVED: %[[G:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// DERIVED-NEXT: fgemm.load %arg1[%[[G]], %{{.*}}, %{{.*}}] multicast_if(%{{.*}}) {multicast}

// -----

// The unpadded layout's pieces do not pair up: it shares A only.
fgemm.kernel @multicast_b(%ends: !fgemm.tensor<[g], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k", "g"],
    config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 2, multicast = b, schedule = persistent, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, sass_policy = off, sass_every_n = 4>} {
  // expected-error @below {{a grouped_contiguous_unpadded tile space with cluster 2 multicasts A only (multicast = a): B is shared by pairs of row tiles (cluster 2) of the grouped_contiguous, grouped_contiguous_psum and grouped_masked tile spaces only}}
  fgemm.tile_space grouped_contiguous_unpadded(%ends : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] rows(%lo, %hi) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// The contiguous layout finds the group count from the operand it indexes.
fgemm.kernel @no_group_use(%idx: !fgemm.tensor<[m], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, multicast = a, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, sass_policy = off, sass_every_n = 4>} {
  // expected-error @below {{no load of the grouped_contiguous tile space uses the tile's group (the first body argument): index a 3-D operand [g, n, k] with it}}
  fgemm.tile_space grouped_contiguous(%idx : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A 256-row tile would span two 128-row group blocks.
fgemm.kernel @contiguous_256(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>, %idx: !fgemm.tensor<[m], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k", "g"],
    config = #fgemm.config<block_m = 256, block_n = 128, block_k = 128, stages = 2, math_warpgroups = 2, cluster = 1, multicast = a, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, sass_policy = off, sass_every_n = 4>} {
  // expected-error @below {{a grouped_contiguous tile space needs block_m <= 128, got 256: groups start on 128-row boundaries and a tile must not span two of them}}
  fgemm.tile_space grouped_contiguous(%idx : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// The unpadded layout's tile count is known on the GPU only.
fgemm.kernel @unpadded_plain(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>, %ends: !fgemm.tensor<[g], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k", "g"],
    config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, multicast = a, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, sass_policy = off, sass_every_n = 4>} {
  // expected-error @below {{a grouped_contiguous_unpadded tile space is scheduled persistently only (schedule = persistent): its number of tiles is known on the GPU only}}
  fgemm.tile_space grouped_contiguous_unpadded(%ends : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] rows(%lo, %hi) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
