// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=4 k-split=2" --fgemm-schedule-tiles | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=4 k-split=2" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=RING
// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles --verify-diagnostics
// fgemm-schedule-tiles with k_split = S: the S consecutive CTAs of a cluster
// along grid x compute one tile, CTA x mod S (its rank) over a share of
// ceil(K blocks / S) blocks; fgemm.combine_k_split adds the shares up on
// rank 0, the only CTA that stores.

// CHECK: fgemm.kernel @sm90_fp8_gemm_1d2d
// CHECK-SAME: grid = #fgemm.tile_grid<dense, ["n", "m"]>
// CHECK: %[[X:.*]] = fgemm.program_id  x
// CHECK: %[[RANK:.*]] = arith.remui %[[X]], %[[S:.*]] : index
// CHECK: %[[TN:.*]] = arith.divui %[[X]], %[[S]] : index
// CHECK: %[[TM:.*]] = fgemm.program_id  y
// CHECK: %[[ALL:.*]] = fgemm.num_blocks "k" by "bk"
// CHECK: %[[SHARE:.*]] = arith.ceildivui %[[ALL]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.muli %[[RANK]], %[[SHARE]] : index
// CHECK: %[[FIRST:.*]] = arith.minui %[[START]], %[[ALL]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[ALL]], %[[FIRST]] : index
// CHECK: %[[BLOCKS:.*]] = arith.minui %[[SHARE]], %[[LEFT]] : index
// CHECK: %[[PARTIAL:.*]] = fgemm.k_loop "k" first(%[[FIRST]]) blocks(%[[BLOCKS]]) init(
// CHECK: fgemm.load %{{.*}}[%[[TM]], %{{.*}}]
// CHECK: fgemm.load %{{.*}}[%[[TN]], %{{.*}}]
// CHECK: %[[SUM:.*]], %[[OWNER:.*]] = fgemm.combine_k_split %[[PARTIAL]] : <[bm, bn], f32>
// CHECK-NEXT: fgemm.store %[[SUM]], %{{.*}}[%[[TM]], %[[TN]]] if(%[[OWNER]])

// The ring of a CTA's one share starts at the share's first block; the
// plan has the two barriers the shares meet at past the ring's eight.
// (116736 + 4 x 2 x 8 + 2 x 8 = 116816)
// RING: fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, {{.*}} barriers = 116736, scales = 116816,
// RING: fgemm.k_loop "k" first(%[[FIRST:.*]]) blocks(
// RING-NEXT: ^bb0(%[[K:.*]]: index):
// RING-NEXT: arith.subi %[[K]], %[[FIRST]] : index
// RING: fgemm.ring.put

// -----

fgemm.kernel @grouped(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>, %masked: !fgemm.tensor<[g], i32>,
    %d: !fgemm.tensor<[g, m, n], bf16>) attributes {dims = ["g", "m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, k_split = 2>} {
  // expected-error @below {{k_split = 2 splits the tiles of a dense tile space only, not grouped_masked}}
  fgemm.tile_space grouped_masked(%masked : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[g, m, n], bf16> {
  ^bb0(%grp: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %tb = fgemm.load %b[%grp, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%grp, %tm, %tn] rows(%lo, %hi) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[g, m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @two_loops(%d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"], config = #fgemm.config<math_warpgroups = 2, k_split = 4>} {
  // expected-error @below {{k_split = 4 splits the tile's one K loop; the tile has 0}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
