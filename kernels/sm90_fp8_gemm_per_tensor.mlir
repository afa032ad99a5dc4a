// Dense NT FP8 GEMM with one scale per operand (per-tensor scaling, as
// torch._scaled_mm's): D[m, n] = sa * sb * sum_k A[m, k] * B[n, k].
// A [m, k] and B [n, k] are e4m3, K-major; SFA and SFB are one f32 each; D is
// bf16. The tensor cores' partial sums are still promoted into FP32 every
// 128-wide K block (the FP8 accumulation of wgmma keeps fewer bits).
fgemm.kernel @sm90_fp8_gemm_per_tensor(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, per_tensor>,
    %sfb: !fgemm.scales<[n, k], f32, per_tensor>,
    %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"], variant = "dense_per_tensor"} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %r: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, per_tensor> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, per_tensor> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%r)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
