// Test input: the contiguous kernel with B indexed by a value computed from
// the tile's group (not the group argument itself): in pairs of row tiles
// sharing B, its multicast must still be conditional on the pair's group.
fgemm.kernel @sm90_m_grouped_fp8_gemm_contiguous_1d2d(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[g, n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[g, n, k], f32, block = [128, 128]>,
    %m_indices: !fgemm.tensor<[m], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k", "g"]} {
  fgemm.tile_space grouped_contiguous(%m_indices : !fgemm.tensor<[m], i32>)
      over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%grp: index, %tm: index, %tn: index, %rows_begin: index, %rows_end: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %gg = arith.minui %grp, %tn : index
      %tb = fgemm.load %b[%gg, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%grp, %tn, %kb] : !fgemm.scales<[g, n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    %out = fgemm.zero_rows %acc, %m_indices[%tm] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m], i32>
    fgemm.store %out, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
