// Dense NT FP8 GEMM with the 1D1D scaling recipe and FP32 accumulation
// (DeepGEMM's fp8_gemm_nt with an FP32 `d` and `c`):
//   D[m, n] = C[m, n] + sum_kb SFA[m, kb] * SFB[n, kb] * sum_{k in kb} A[m, k] * B[n, k]
// A [m, k] and B [n, k] are e4m3, K-major; SFA and SFB hold one scale per row
// and 128-wide K block (M-major / N-major, TMA-aligned); C and D are f32 and
// may be the same tensor (accumulation in place).
fgemm.kernel @sm90_fp8_gemm_1d1d(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [1, 128], mn_major>,
    %c: !fgemm.tensor<[m, n], f32>,
    %d: !fgemm.tensor<[m, n], f32>)
    attributes {dims = ["m", "n", "k"], variant = "dense_1d1d"} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], f32> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %r: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%r)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    %ct = fgemm.read_tile %c[%tm, %tn] : !fgemm.tensor<[m, n], f32> -> !fgemm.tile<[bm, bn], f32>
    %sum = fgemm.add %acc, %ct : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bm, bn], f32>
    fgemm.store %sum, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], f32>
    fgemm.yield
  }
  fgemm.return
}
