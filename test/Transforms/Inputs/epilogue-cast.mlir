// An f32 output rounded to bf16 precision first (a cast to bf16 and back),
// then scaled by a bf16 vector per row: D = f32(bf16(A B^T)) * row_scale[m].
fgemm.kernel @gemm_cast(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %row_scale: !fgemm.tensor<[m], bf16>,
    %d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], f32> {
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
    %h = fgemm.cast %acc : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], bf16>
    %r = fgemm.cast %h : !fgemm.tile<[bm, bn], bf16> -> !fgemm.tile<[bm, bn], f32>
    %s = fgemm.read_tile %row_scale[%tm] : !fgemm.tensor<[m], bf16> -> !fgemm.tile<[bm], bf16>
    %sf = fgemm.cast %s : !fgemm.tile<[bm], bf16> -> !fgemm.tile<[bm], f32>
    %out = fgemm.mul %r, %sf : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bm], f32>
    fgemm.store %out, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], f32>
    fgemm.yield
  }
  fgemm.return
}
