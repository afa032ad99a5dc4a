// The dense 1D2D kernel with an epilogue: D = (A B^T) * row_scale[m] + bias[n].
fgemm.kernel @gemm_bias(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %row_scale: !fgemm.tensor<[m], f32>,
    %bias: !fgemm.tensor<[n], f32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    %rs = fgemm.read_tile %row_scale[%tm] : !fgemm.tensor<[m], f32> -> !fgemm.tile<[bm], f32>
    %scaled = fgemm.mul %acc, %rs : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bm], f32>
    %bv = fgemm.read_tile %bias[%tn] : !fgemm.tensor<[n], f32> -> !fgemm.tile<[bn], f32>
    %sum = fgemm.add %scaled, %bv : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bn], f32>
    fgemm.store %sum, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
