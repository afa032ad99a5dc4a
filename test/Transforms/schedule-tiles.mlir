// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles --verify-diagnostics --allow-unregistered-dialect | FileCheck %s
// fgemm-schedule-tiles: the schedule the configuration names, as IR: program
// ids (plain grid), a tile loop with the tile-order arithmetic (persistent),
// multicast marks for the operand a cluster shares, and the launch grid.

// Plain: one CTA per output tile, x over the N tiles.
// CHECK-LABEL: fgemm.kernel @plain
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK-NOT: fgemm.tile_space
// CHECK: %[[X:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[Y:.*]] = fgemm.program_id y
// CHECK-NEXT: %[[Z:.*]] = fgemm.zeros
// CHECK-NEXT: fgemm.store %[[Z]], %{{.*}}[%[[Y]], %[[X]]]
// CHECK-NEXT: fgemm.return
fgemm.kernel @plain(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Persistent, row-major: a tile loop over tiles_m x tiles_n linear indices.
// CHECK-LABEL: fgemm.kernel @persistent
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK-NEXT: %[[COUNT:.*]] = arith.muli %[[TILES_M]], %[[TILES_N]]
// CHECK-NEXT: fgemm.tile_loop %[[COUNT]] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[TM:.*]] = arith.divui %[[TILE]], %[[TILES_N]]
// CHECK-NEXT: %[[TN:.*]] = arith.remui %[[TILE]], %[[TILES_N]]
// CHECK-NEXT: %[[Z:.*]] = fgemm.zeros
// CHECK-NEXT: fgemm.store %[[Z]], %{{.*}}[%[[TM]], %[[TN]]]
// CHECK-NEXT: fgemm.yield
fgemm.kernel @persistent(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, schedule = persistent>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Persistent with raster groups of 4 tile rows walked column by column:
//   group = t / (4 tiles_n), rows = min(tiles_m - 4 group, 4),
//   tm = 4 group + (t mod 4 tiles_n) mod rows, tn = (t mod 4 tiles_n) / rows.
// CHECK-LABEL: fgemm.kernel @raster
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[G:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[GROUP_TILES:.*]] = arith.muli %[[TILES_N]], %[[G]]
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[TILE]], %[[GROUP_TILES]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[G]]
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[TILES_M]], %[[FIRST]]
// CHECK-NEXT: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[G]]
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[TILE]], %[[GROUP_TILES]]
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK-NEXT: %[[TM:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK-NEXT: %[[TN:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%[[TM]], %[[TN]]]
fgemm.kernel @raster(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, schedule = persistent, raster_group = 4>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// launch_raster: the group is the launch's (fgemm.raster_group), clamped to
// [1, tiles_m] so any parameter value walks every tile once.
// CHECK-LABEL: fgemm.kernel @launch_raster
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[LAUNCH:.*]] = fgemm.raster_group
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[AT_LEAST_ONE:.*]] = arith.maxui %[[LAUNCH]], %[[ONE]]
// CHECK-NEXT: %[[ROWS_OR_ONE:.*]] = arith.maxui %[[TILES_M]], %[[ONE]]
// CHECK-NEXT: %[[G:.*]] = arith.minui %[[AT_LEAST_ONE]], %[[ROWS_OR_ONE]]
// CHECK-NEXT: %[[GROUP_TILES:.*]] = arith.muli %[[TILES_N]], %[[G]]
// CHECK-NEXT: arith.divui %[[TILE]], %[[GROUP_TILES]]
// CHECK: fgemm.store
fgemm.kernel @launch_raster(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, schedule = persistent, raster_group = 8, launch_raster = true>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// launch_raster for persistent pairs sharing A: the groups run across the
// columns of pairs, so the launch's group is clamped to [1, pair columns].
// CHECK-LABEL: fgemm.kernel @launch_raster_cluster_a
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK: %[[ORDER_PAIRS:.*]] = arith.maxui %{{.*}}, %{{.*}}
// CHECK: fgemm.tile_loop
// CHECK: %[[LAUNCH:.*]] = fgemm.raster_group
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[AT_LEAST_ONE:.*]] = arith.maxui %[[LAUNCH]], %[[ONE]]
// CHECK-NEXT: %[[COLS_OR_ONE:.*]] = arith.maxui %[[ORDER_PAIRS]], %[[ONE]]
// CHECK-NEXT: %[[G:.*]] = arith.minui %[[AT_LEAST_ONE]], %[[COLS_OR_ONE]]
// CHECK-NEXT: %[[GROUP_TILES:.*]] = arith.muli %[[TILES_M]], %[[G]]
// CHECK: fgemm.store
fgemm.kernel @launch_raster_cluster_a(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = a, schedule = persistent, raster_group = 8, launch_raster = true>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      "use"(%ta, %tb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A plain grid with launch_raster orders its CTAs like a raster group even
// when raster_group is 0 (the launch's value 1 is the row-major order).
// CHECK-LABEL: fgemm.kernel @plain_launch_raster
// CHECK: %[[LINEAR:.*]] = arith.addi
// CHECK-NEXT: %[[LAUNCH:.*]] = fgemm.raster_group
// CHECK: arith.divui %[[LINEAR]]
// CHECK: fgemm.store
fgemm.kernel @plain_launch_raster(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, launch_raster = true>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Plain grid with raster groups of 8: the CTA's linear index y * tiles_n + x
// goes through the group order.
// CHECK-LABEL: fgemm.kernel @plain_raster
// CHECK: %[[X:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[Y:.*]] = fgemm.program_id y
// CHECK-NEXT: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[Y]], %[[TILES_N]]
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[ROW]], %[[X]]
// CHECK-NEXT: %[[G:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[GROUP_TILES:.*]] = arith.muli %[[TILES_N]], %[[G]]
// CHECK-NEXT: arith.divui %[[LINEAR]], %[[GROUP_TILES]]
// CHECK: fgemm.store
fgemm.kernel @plain_raster(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, raster_group = 8>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Raster groups with a cluster of 2 sharing A: the pair (x / 2) is ordered as
// one unit over ceil(tiles_n / 2) columns, and x mod 2 picks the pair's
// column. The groups run across columns of pairs, walked row by row, so that
// consecutive pairs share the multicast A tile:
//   group = u / (8 tiles_m), cols = min(pairs - 8 group, 8),
//   pair column = 8 group + (u mod 8 tiles_m) mod cols,
//   tm = (u mod 8 tiles_m) / cols.
// CHECK-LABEL: fgemm.kernel @cluster_raster
// CHECK: %[[X:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[Y:.*]] = fgemm.program_id y
// CHECK-NEXT: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[X]], %[[C2]]
// CHECK-NEXT: %[[RANK:.*]] = arith.remui %[[X]], %[[C2]]
// CHECK-NEXT: %[[PAIRS:.*]] = arith.ceildivui %[[TILES_N]], %[[C2]]
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[Y]], %[[PAIRS]]
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[ROW]], %[[PAIR]]
// CHECK-NEXT: %[[G:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[GROUP_TILES:.*]] = arith.muli %[[TILES_M]], %[[G]]
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[LINEAR]], %[[GROUP_TILES]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[G]]
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[PAIRS]], %[[FIRST]]
// CHECK-NEXT: %[[COLS:.*]] = arith.minui %[[LEFT]], %[[G]]
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[LINEAR]], %[[GROUP_TILES]]
// CHECK-NEXT: %[[C:.*]] = arith.remui %[[IN]], %[[COLS]]
// CHECK-NEXT: %[[PAIR_COLUMN:.*]] = arith.addi %[[FIRST]], %[[C]]
// CHECK-NEXT: %[[TM:.*]] = arith.divui %[[IN]], %[[COLS]]
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[PAIR_COLUMN]], %[[C2]]
// CHECK-NEXT: %[[TN:.*]] = arith.addi %[[BASE]], %[[RANK]]
// CHECK: fgemm.load %{{.*}}[%[[TM]], %{{.*}}] {multicast}
// CHECK: fgemm.load %{{.*}}[%[[TN]], %{{.*}}] :
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%[[TM]], %[[TN]]]
fgemm.kernel @cluster_raster(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = a, raster_group = 8>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      "use"(%ta, %tb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Cluster of 2 sharing A: x over N tiles; the A tile (row = tm) is the same
// for both CTAs of a cluster and is multicast, B's (row = tn) is not.
// CHECK-LABEL: fgemm.kernel @cluster_a
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK: %[[X:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[Y:.*]] = fgemm.program_id y
// CHECK: fgemm.load %{{.*}}[%[[Y]], %{{.*}}] {multicast}
// CHECK: fgemm.load %{{.*}}[%[[X]], %{{.*}}] :
fgemm.kernel @cluster_a(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = a>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      "use"(%ta, %tb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Cluster of 2 sharing B: x over M tiles, B multicast, and B's per-row
// (1D1D, TMA-loaded) scales with it; A's scales are the CTA's own.
// CHECK-LABEL: fgemm.kernel @cluster_b
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["m", "n"]>
// CHECK: %[[X:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[Y:.*]] = fgemm.program_id y
// CHECK: fgemm.load %{{.*}}[%[[X]], %{{.*}}] :
// CHECK: fgemm.load %{{.*}}[%[[Y]], %{{.*}}] {multicast}
// CHECK: fgemm.load_scales %{{.*}}[%[[X]], %{{.*}}] :
// CHECK: fgemm.load_scales %{{.*}}[%[[Y]], %{{.*}}] {multicast}
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%[[X]], %[[Y]]]
fgemm.kernel @cluster_b(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [1, 128], mn_major>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = b>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bn], f32>
      "use"(%ta, %tb, %sa, %sb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A cluster whose CTAs share no operand tile cannot multicast.
fgemm.kernel @cluster_nothing_shared(%b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = a>} {
  // expected-error @below {{cluster 2 with multicast = a: no operand tile is the same for every CTA of the cluster}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      "use"(%tb) : (!fgemm.tile<[bn, bk], f8E4M3FN>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A kernel without a tile space is left alone, with a warning.
// CHECK-LABEL: fgemm.kernel @nothing
// expected-warning @below {{fgemm-schedule-tiles: not applied: no fgemm.tile_space in the kernel}}
fgemm.kernel @nothing(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2>} {
  fgemm.return
}

// -----

// expected-error @below {{fgemm-schedule-tiles needs a specialized kernel (run fgemm-specialize first)}}
fgemm.kernel @unspecialized(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  fgemm.return
}

// -----

fgemm.kernel @two(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %zero, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  // expected-error @below {{a kernel has one tile space; found 2}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %zero, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Persistent with a cluster of 2 sharing A: the loop runs over 2 x (tiles_m
// x floor(tiles_n / 2) + tail) indices; consecutive indices (the CTAs of a
// cluster) are one unit in the tile order and take the two N tiles of one
// pair. With tiles_n odd, ceil(tiles_m / 2) tail units come last, their
// CTAs taking row tiles 2u and 2u + 1 of the last tile column, each loading
// its own A (multicast_if false). A's TMA-loaded scales go with A; B's
// per-block scales (read by the math threads) are not TMA loads.
// CHECK-LABEL: fgemm.kernel @persistent_cluster_a
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[PAIRS:.*]] = arith.divui %[[TILES_N]], %[[C2]]
// CHECK-NEXT: %[[BODY:.*]] = arith.muli %[[TILES_M]], %[[PAIRS]]
// CHECK: %[[ODD:.*]] = arith.remui %[[TILES_N]], %[[C2]]
// CHECK-NEXT: %[[HAS_TAIL:.*]] = arith.cmpi ne, %[[ODD]], %{{.*}}
// CHECK-NEXT: %[[HALF_M:.*]] = arith.ceildivui %[[TILES_M]], %[[C2]]
// CHECK-NEXT: %[[TAIL:.*]] = arith.select %[[HAS_TAIL]], %[[HALF_M]], %{{.*}}
// CHECK-NEXT: %[[UNITS:.*]] = arith.addi %[[BODY]], %[[TAIL]]
// CHECK: %[[ORDER_PAIRS:.*]] = arith.maxui %[[PAIRS]], %{{.*}}
// CHECK-NEXT: %[[COUNT:.*]] = arith.muli %[[UNITS]], %[[C2]]
// CHECK-NEXT: fgemm.tile_loop %[[COUNT]] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[RANK:.*]] = arith.remui %[[TILE]], %[[C2]]
// CHECK-NEXT: %[[UNIT:.*]] = arith.divui %[[TILE]], %[[C2]]
// CHECK-NEXT: %[[IN_TAIL:.*]] = arith.cmpi uge, %[[UNIT]], %[[BODY]]
// CHECK: %[[ORDER_UNIT:.*]] = arith.select %[[IN_TAIL]], %{{.*}}, %[[UNIT]]
// CHECK-NEXT: %[[TM0:.*]] = arith.divui %[[ORDER_UNIT]], %[[ORDER_PAIRS]]
// CHECK-NEXT: %[[PAIR:.*]] = arith.remui %[[ORDER_UNIT]], %[[ORDER_PAIRS]]
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[PAIR]], %[[C2]]
// CHECK-NEXT: %[[TN0:.*]] = arith.addi %[[BASE]], %[[RANK]]
// CHECK-NEXT: %[[TAIL_UNIT:.*]] = arith.subi %[[UNIT]], %[[BODY]]
// CHECK-NEXT: %[[TAIL_BASE:.*]] = arith.muli %[[TAIL_UNIT]], %[[C2]]
// CHECK-NEXT: %[[TAIL_TM:.*]] = arith.addi %[[TAIL_BASE]], %[[RANK]]
// CHECK: %[[LAST_TN:.*]] = arith.subi %[[TILES_N]], %{{.*}}
// CHECK-NEXT: %[[TM:.*]] = arith.select %[[IN_TAIL]], %[[TAIL_TM]], %[[TM0]]
// CHECK-NEXT: %[[TN:.*]] = arith.select %[[IN_TAIL]], %[[LAST_TN]], %[[TN0]]
// CHECK: %[[SHARED:.*]] = arith.xori %[[IN_TAIL]], %{{.*}} : i1
// CHECK: fgemm.load %{{.*}}[%[[TM]], %{{.*}}] multicast_if(%[[SHARED]]) {multicast}
// CHECK: fgemm.load %{{.*}}[%[[TN]], %{{.*}}] :
// CHECK: fgemm.load_scales %{{.*}}[%[[TM]], %{{.*}}] multicast_if(%[[SHARED]]) {multicast}
// CHECK: fgemm.load_scales %{{.*}}[%[[TN]], %{{.*}}] :
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%[[TM]], %[[TN]]]
fgemm.kernel @persistent_cluster_a(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = a, schedule = persistent>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      "use"(%ta, %tb, %sa, %sb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Persistent with a cluster of 2 sharing B: the pair runs along M, and x
// (the count the runtime rounds up to whole clusters) is the M tiles; with
// tiles_m odd the tail units take column tiles 2u and 2u + 1 of the last
// row tile, each CTA loading its own B.
// CHECK-LABEL: fgemm.kernel @persistent_cluster_b
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["m", "n"]>
// CHECK: %[[TILES_M:.*]] = fgemm.num_blocks "m" by "bm"
// CHECK-NEXT: %[[TILES_N:.*]] = fgemm.num_blocks "n" by "bn"
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[PAIRS:.*]] = arith.divui %[[TILES_M]], %[[C2]]
// CHECK-NEXT: %[[BODY:.*]] = arith.muli %[[PAIRS]], %[[TILES_N]]
// CHECK: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index):
// CHECK-NEXT: %[[RANK:.*]] = arith.remui %[[TILE]], %[[C2]]
// CHECK-NEXT: %[[UNIT:.*]] = arith.divui %[[TILE]], %[[C2]]
// CHECK-NEXT: %[[IN_TAIL:.*]] = arith.cmpi uge, %[[UNIT]], %[[BODY]]
// CHECK: %[[ORDER_UNIT:.*]] = arith.select %[[IN_TAIL]], %{{.*}}, %[[UNIT]]
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[ORDER_UNIT]], %[[TILES_N]]
// CHECK-NEXT: %[[TN0:.*]] = arith.remui %[[ORDER_UNIT]], %[[TILES_N]]
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[PAIR]], %[[C2]]
// CHECK-NEXT: %[[TM0:.*]] = arith.addi %[[BASE]], %[[RANK]]
// CHECK: %[[LAST_TM:.*]] = arith.subi %[[TILES_M]], %{{.*}}
// CHECK-NEXT: %[[TM:.*]] = arith.select %[[IN_TAIL]], %[[LAST_TM]], %[[TM0]]
// CHECK-NEXT: %[[TN:.*]] = arith.select %[[IN_TAIL]], %{{.*}}, %[[TN0]]
// CHECK: %[[SHARED:.*]] = arith.xori %[[IN_TAIL]], %{{.*}} : i1
// CHECK: fgemm.load %{{.*}}[%[[TM]], %{{.*}}] :
// CHECK: fgemm.load %{{.*}}[%[[TN]], %{{.*}}] multicast_if(%[[SHARED]]) {multicast}
fgemm.kernel @persistent_cluster_b(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, cluster = 2, multicast = b, schedule = persistent>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      "use"(%ta, %tb) : (!fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>) -> ()
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
