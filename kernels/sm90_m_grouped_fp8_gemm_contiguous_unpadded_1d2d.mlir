// M-grouped contiguous FP8 GEMM without padding (beyond DeepGEMM):
//   D[r, n] = sum_kb SFA[r, kb] * SFB[g, n / 128, kb] * sum_{k in kb} A[r, k] * B[g, n, k]
// for the rows r of group g, [group_ends[g - 1], group_ends[g]) (group 0
// from row 0): groups start at any row, so tokens need no padding to 128. A
// block_m-row block that holds rows of several groups is computed once per
// group, and each row is written by its own group only. group_ends is int32
// [g] on the GPU. Scheduled persistently (schedule=persistent). Layouts as
// sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir.
fgemm.kernel @sm90_m_grouped_fp8_gemm_contiguous_unpadded_1d2d(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[g, n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[g, n, k], f32, block = [128, 128]>,
    %group_ends: !fgemm.tensor<[g], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k", "g"]} {
  fgemm.tile_space grouped_contiguous_unpadded(%group_ends : !fgemm.tensor<[g], i32>)
      over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%grp: index, %tm: index, %tn: index, %rows_begin: index, %rows_end: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%grp, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%grp, %tn, %kb] : !fgemm.scales<[g, n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] rows(%rows_begin, %rows_end) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
