// Test input: the masked kernel with a second store whose rows are not the
// tile space's row arguments: not every store keeps to the group's rows,
// so the K loop gets no rows(...).
fgemm.kernel @sm90_m_grouped_fp8_gemm_masked_1d2d(
    %a: !fgemm.tensor<[g, m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[g, n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[g, m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[g, n, k], f32, block = [128, 128]>,
    %masked_m: !fgemm.tensor<[g], i32>,
    %d: !fgemm.tensor<[g, m, n], bf16>) attributes {dims = ["m", "n", "k", "g"]} {
  fgemm.tile_space grouped_masked(%masked_m : !fgemm.tensor<[g], i32>)
      over %d : !fgemm.tensor<[g, m, n], bf16> {
  ^bb0(%grp: index, %tm: index, %tn: index, %rows_begin: index, %rows_end: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%grp, %tm, %kb] : !fgemm.tensor<[g, m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%grp, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%grp, %tm, %kb] : !fgemm.scales<[g, m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%grp, %tn, %kb] : !fgemm.scales<[g, n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%grp, %tm, %tn] rows(%rows_begin, %rows_end) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[g, m, n], bf16>
    %first = arith.constant 0 : index
    fgemm.store %acc, %d[%grp, %tm, %tn] rows(%first, %rows_end) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[g, m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
