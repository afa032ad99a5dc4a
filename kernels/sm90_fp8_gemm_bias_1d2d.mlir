// Dense NT FP8 GEMM with DeepGEMM's 1D2D scaling recipe and a bias per
// output column, rounded to bf16 once:
//   D[m, n] = bf16(sum_kb SFA[m, kb] * SFB[n / 128, kb] * sum_{k in kb} A[m, k] * B[n, k] + bias[n])
// A [m, k] and B [n, k] are e4m3, K-major; SFA per row and 128-wide K block
// (M-major, TMA-aligned), SFB per 128x128 block; bias [n] and D are bf16.
fgemm.kernel @sm90_fp8_gemm_bias_1d2d(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %bias: !fgemm.tensor<[n], bf16>,
    %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"], variant = "dense_bias"} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %r: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%r)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    %bv = fgemm.read_tile %bias[%tn] : !fgemm.tensor<[n], bf16> -> !fgemm.tile<[bn], bf16>
    %bf = fgemm.cast %bv : !fgemm.tile<[bn], bf16> -> !fgemm.tile<[bn], f32>
    %sum = fgemm.add %acc, %bf : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bn], f32>
    fgemm.store %sum, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
