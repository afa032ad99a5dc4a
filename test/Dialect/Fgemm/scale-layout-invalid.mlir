// RUN: fgemm-opt %s --split-input-file --verify-diagnostics
// The scale layouts a scaled_dot lowers: A per row (MN-major, by TMA) or per
// tensor; B also per 128x128 block (row-major). Anything else is refused
// where the kernel is written, not deep in the lowering.
fgemm.kernel @a_per_block(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [128, 128]>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [128, 128]> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      // expected-error @below {{'fgemm.scaled_dot' op scale a is '!fgemm.scales<[m, k], f32, block = [128, 128]>', which is not a layout for A: A's scales are per row (block = [1, 128], mn_major) or per_tensor (B also takes block = [128, 128])}}
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @a_row_major(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128]>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128]> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      // expected-error @below {{'fgemm.scaled_dot' op scale a is '!fgemm.scales<[m, k], f32, block = [1, 128]>', which is read by TMA with the operand tile, so it must be stored M/N-major: add mn_major}}
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @b_block_mn_major(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128], mn_major>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128], mn_major> -> !fgemm.tile<[bn], f32>
      // expected-error @below {{'fgemm.scaled_dot' op scale b is '!fgemm.scales<[n, k], f32, block = [128, 128], mn_major>', which the math threads read row-major: drop mn_major}}
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
