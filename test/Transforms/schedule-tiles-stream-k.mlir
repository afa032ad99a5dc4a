// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=stream_k" --fgemm-schedule-tiles | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=stream_k" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=RING
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=256 block-n=128 stages=3 schedule=stream_k cluster=2 multicast=a" --fgemm-schedule-tiles | FileCheck %s --check-prefix=PAIRS
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=192 stages=4 schedule=stream_k" --fgemm-schedule-tiles | FileCheck %s --check-prefix=MASKED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=192 stages=4 schedule=stream_k cluster=2 multicast=b raster-group=1" --fgemm-schedule-tiles | FileCheck %s --check-prefix=MPAIRS
// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles --verify-diagnostics
// fgemm-schedule-tiles with schedule = stream_k: the persistent loop runs
// pieces of tiles (split_k), the K loop runs the piece, the pieces are
// combined after it and only the tile's owner stores.

// CHECK: fgemm.kernel @sm90_fp8_gemm_1d2d
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK: %[[TILES:.*]] = arith.muli
// CHECK: %[[KB:.*]] = fgemm.num_blocks "k" by "bk"
// CHECK: fgemm.tile_loop %[[TILES]] split_k(%[[KB]]) {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index, %{{.*}}: index, %[[FIRST:.*]]: index, %[[BLOCKS:.*]]: index):
// CHECK: arith.divui %[[TILE]]
// CHECK: %[[PARTIAL:.*]] = fgemm.k_loop "k" first(%[[FIRST]]) blocks(%[[BLOCKS]]) init(
// CHECK: %[[SUM:.*]], %[[OWNER:.*]] = fgemm.combine_k_pieces %[[PARTIAL]] : <[bm, bn], f32>
// CHECK-NEXT: fgemm.store %[[SUM]], %{{.*}} if(%[[OWNER]])

// The ring position of a piece's K block counts from the piece's first
// block: the K blocks of the CTA's earlier pieces + kb - first.
// RING: fgemm.tile_loop %{{.*}} split_k(%{{.*}}) {
// RING-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[BEFORE:.*]]: index, %[[FIRST:.*]]: index, %{{.*}}: index):
// RING: fgemm.k_loop "k" first(%[[FIRST]])
// RING-NEXT: ^bb0(%[[K:.*]]: index):
// RING-NEXT: %[[IN:.*]] = arith.subi %[[K]], %[[FIRST]] : index
// RING-NEXT: arith.addi %[[BEFORE]], %[[IN]] : index
// RING: fgemm.ring.put

// In clusters of two sharing A, the loop counts two indices per unit of
// tiles that share an A tile (the lowering splits units over clusters), and
// the body takes the rank and the unit from the index.
// PAIRS: %[[UNITS:.*]] = arith.addi
// PAIRS: %[[COUNT:.*]] = arith.muli %[[UNITS]], %c2 : index
// PAIRS: fgemm.tile_loop %[[COUNT]] split_k(%{{.*}}) {
// PAIRS-NEXT: ^bb0(%{{.*}}: index, %[[T:.*]]: index, %{{.*}}: index, %[[FIRST:.*]]: index, %[[BLOCKS:.*]]: index):
// PAIRS-NEXT: arith.remui %[[T]], %c2 : index
// PAIRS-NEXT: arith.divui %[[T]], %c2 : index
// PAIRS: fgemm.k_loop "k" first(%[[FIRST]]) blocks(%[[BLOCKS]])
// PAIRS: fgemm.combine_k_pieces


// A masked loop's tile count is the GPU's (the row tiles that hold rows):
// every draw of masked_m runs whole rounds and one split round. The K loop
// keeps the tile's rows; only the owner stores, inside them.
// MASKED: fgemm.kernel @sm90_m_grouped_fp8_gemm_masked_1d2d
// MASKED-SAME: grid = #fgemm.tile_grid<grouped_masked, ["n", "m", "g"]>
// MASKED: %[[ROWTILES:.*]] = fgemm.count_row_tiles
// MASKED: %[[TILES:.*]] = arith.muli %[[ROWTILES]]
// MASKED: %[[KB:.*]] = fgemm.num_blocks "k" by "bk"
// MASKED: fgemm.tile_loop %[[TILES]] split_k(%[[KB]]) {
// MASKED-NEXT: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index, %{{.*}}: index, %[[FIRST:.*]]: index, %[[BLOCKS:.*]]: index):
// MASKED: fgemm.find_row_tile_group
// MASKED: %[[PARTIAL:.*]] = fgemm.k_loop "k" first(%[[FIRST]]) blocks(%[[BLOCKS]]) rows(
// MASKED: %[[SUM:.*]], %[[OWNER:.*]] = fgemm.combine_k_pieces %[[PARTIAL]]
// MASKED-NEXT: fgemm.store %[[SUM]], %{{.*}} rows(%{{.*}}, %{{.*}}) if(%[[OWNER]])

// Pairs of row tiles sharing B split units of two tiles: the loop counts
// the pairs' units twice (a cluster's two CTAs).
// MPAIRS: %[[UNITS:.*]] = fgemm.count_row_tiles %{{.*}} pairs(
// MPAIRS: %[[TILES:.*]] = arith.muli %[[UNITS]], %c2
// MPAIRS: fgemm.tile_loop %[[TILES]] split_k(
// MPAIRS-NEXT: ^bb0(%{{.*}}: index, %[[T:.*]]: index, %{{.*}}: index, %[[FIRST:.*]]: index, %[[BLOCKS:.*]]: index):
// MPAIRS-NEXT: arith.remui %[[T]], %c2 : index
// MPAIRS-NEXT: arith.divui %[[T]], %c2 : index
// MPAIRS: fgemm.k_loop "k" first(%[[FIRST]]) blocks(%[[BLOCKS]]) rows(
// MPAIRS: fgemm.load %{{.*}} multicast_if(
// MPAIRS: fgemm.combine_k_pieces

// -----

fgemm.kernel @grouped(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>, %ends: !fgemm.tensor<[g], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["g", "m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, schedule = stream_k>} {
  // expected-error @below {{schedule = stream_k splits the tiles of a dense tile space or a grouped_masked one only, not grouped_contiguous_psum}}
  fgemm.tile_space grouped_contiguous_psum(%ends : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%grp: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %tb = fgemm.load %b[%grp, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] rows(%lo, %hi) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @no_loop(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"],
    config = #fgemm.config<math_warpgroups = 2, schedule = stream_k>} {
  // expected-error @below {{schedule = stream_k splits the tile's one K loop; the tile has 0}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @bf16_acc(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, schedule = stream_k>} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %h = fgemm.cast %z : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], bf16>
    // expected-error @below {{schedule = stream_k adds up shares of one f32 accumulator tile: the K loop must carry exactly that}}
    %acc = fgemm.k_loop "k" init(%h : !fgemm.tile<[bm, bn], bf16>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], bf16>):
      fgemm.yield %c : !fgemm.tile<[bm, bn], bf16>
    } -> !fgemm.tile<[bm, bn], bf16>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], bf16>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
