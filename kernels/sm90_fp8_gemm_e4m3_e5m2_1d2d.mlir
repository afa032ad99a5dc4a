// Dense NT FP8 GEMM with DeepGEMM's 1D2D scaling recipe, an e4m3 A and an
// e5m2 B (e.g. the weight gradient's activations against gradients):
//   D[m, n] = sum_kb SFA[m, kb] * SFB[n / 128, kb] * sum_{k in kb} A[m, k] * B[n, k]
// Scales and D as in sm90_fp8_gemm_1d2d.mlir; only B's element type differs.
fgemm.kernel @sm90_fp8_gemm_e4m3_e5m2_1d2d(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E5M2>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"], variant = "dense_e4m3_e5m2"} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E5M2> -> !fgemm.tile<[bn, bk], f8E5M2>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E5M2>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
