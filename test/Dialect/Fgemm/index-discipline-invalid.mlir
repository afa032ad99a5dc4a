// RUN: fgemm-opt %s -split-input-file -verify-diagnostics
// Index discipline: well-typed programs that would compile to a silently
// wrong kernel are refused where they are written, naming the tensor, the
// dimension and the index that belongs there.

fgemm.kernel @b_with_m_index(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      // expected-error @below {{'fgemm.load' op index 0 is the fgemm.tile_space index of dimension 'm', but dimension 0 of kernel argument #1 [n, k] is 'n': use the index bound to 'n'}}
      %tb = fgemm.load %b[%tm, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @a_with_k_first(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      // expected-error @below {{index 0 is the fgemm.k_loop index of dimension 'k', but dimension 0 of kernel argument #0 [m, k] is 'm'}}
      %ta = fgemm.load %a[%kb, %tm] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @store_transposed(%d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    // expected-error @below {{'fgemm.store' op index 0 is the fgemm.tile_space index of dimension 'n', but dimension 0 of kernel argument #0 [m, n] is 'm': use the index bound to 'm'}}
    fgemm.store %zero, %d[%tn, %tm] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @scales_with_n_index(%sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      // expected-error @below {{'fgemm.load_scales' op index 0 is the fgemm.tile_space index of dimension 'n', but dimension 0 of kernel argument #0 [m, k] is 'm'}}
      %sa = fgemm.load_scales %sfa[%tn, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @reduce_over_n(%d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    // expected-error @below {{'fgemm.k_loop' op reduces over 'n', a dimension of the output [m, n] that fgemm.tile_space iterates over: a k_loop reduces over a dimension the output does not have}}
    %acc = fgemm.k_loop "n" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @over_an_input(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  // expected-error @below {{'fgemm.tile_space' op iterates over the tiles of a tensor it never stores into: the tile space must be over the kernel's output (the fgemm.store destination)}}
  fgemm.tile_space dense over %a : !fgemm.tensor<[m, k], f8E4M3FN> {
  ^bb0(%tm: index, %tk: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @store_in_k_loop(%d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      // expected-error @below {{'fgemm.store' op is inside fgemm.k_loop, so it would store a partial sum every K block: store the k_loop's result after the loop}}
      fgemm.store %c, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @unused_dot(%a: !fgemm.tensor<[m, k], f8E4M3FN>,
    %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
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
      // expected-error @below {{'fgemm.scaled_dot' op result is never used: yield it from the fgemm.k_loop (an unused dot would store zeros)}}
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A bias indexed by the M tile index: the per-column vector of a [n] tensor
// needs the tile's N index.
fgemm.kernel @bias_with_m_index(%bias: !fgemm.tensor<[n], f32>,
    %d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], f32> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    // expected-error @below {{'fgemm.read_tile' op index 0 is the fgemm.tile_space index of dimension 'm', but dimension 0 of kernel argument #0 [n] is 'n': use the index bound to 'n'}}
    %bv = fgemm.read_tile %bias[%tm] : !fgemm.tensor<[n], f32> -> !fgemm.tile<[bn], f32>
    %sum = fgemm.add %zero, %bv : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bn], f32>
    fgemm.store %sum, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], f32>
    fgemm.yield
  }
  fgemm.return
}

// -----

// C read transposed: [%tn, %tm] of an [m, n] tensor.
fgemm.kernel @c_transposed(%c: !fgemm.tensor<[m, n], f32>,
    %d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], f32> {
  ^bb0(%tm: index, %tn: index):
    // expected-error @below {{'fgemm.read_tile' op index 0 is the fgemm.tile_space index of dimension 'n', but dimension 0 of kernel argument #0 [m, n] is 'm': use the index bound to 'm'}}
    %ct = fgemm.read_tile %c[%tn, %tm] : !fgemm.tensor<[m, n], f32> -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %ct, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], f32>
    fgemm.yield
  }
  fgemm.return
}
