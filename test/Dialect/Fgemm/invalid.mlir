// RUN: fgemm-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// Verifier and type diagnostics of the fgemm dialect.

// A 4-D global tensor: at most a group dimension and a matrix.
// expected-error @below {{fgemm tensors have 1 to 3 dimensions (row-major; with 3 the first is a group dimension); got 4 dimensions}}
fgemm.kernel @rank(%a: !fgemm.tensor<[g, m, k, j], f8E4M3FN>) attributes {dims = ["g", "m", "k", "j"]} {
  fgemm.return
}

// -----

// expected-error @below {{tensor element type must be f8E4M3FN or f8E5M2 (operands), bf16 or f32 (outputs, epilogue operands) or i32 (1-D index arrays), got 'i8'}}
fgemm.kernel @elem(%a: !fgemm.tensor<[m, k], i8>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// Scales must follow the 128-wide K blocks the promotion works on.
// expected-error @below {{scale blocks must be 128 wide along K (the K block the promotion works on), got 64}}
fgemm.kernel @scale_block(%s: !fgemm.scales<[m, k], f32, block = [1, 64]>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// expected-error @below {{scales must be f32, got 'bf16'}}
fgemm.kernel @scale_type(%s: !fgemm.scales<[m, k], bf16, block = [1, 128]>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// A dimension symbol the kernel does not declare.
// expected-error @below {{'fgemm.kernel' op argument #0 uses dimension 'k', which is not in `dims` ["m"]}}
fgemm.kernel @undeclared(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m"]} {
  fgemm.return
}

// -----

// Tiles are sized by configuration symbols only.
fgemm.kernel @tile_dims(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  // expected-error @below {{tile dimensions are the configuration symbols bm, bn, bk; got '128'}}
  %z = fgemm.zeros : !fgemm.tile<[128, bk], f32>
  fgemm.return
}

// -----

// A tile of an [m, k] tensor is [bm, bk].
fgemm.kernel @load_shape(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'fgemm.load' op a tile of [m, k] must have shape [bm, bk], got [bn, bk]}}
  %t = fgemm.load %a[%c0, %c0] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
  fgemm.return
}

// -----

// multicast_if says when a multicast load's tile is shared.
fgemm.kernel @multicast_if(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %c0 = arith.constant 0 : index
  %same = arith.constant true
  // expected-error @below {{'fgemm.load' op has multicast_if but is not a multicast load: the condition says when a multicast tile is shared}}
  %t = fgemm.load %a[%c0, %c0] multicast_if(%same) : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
  fgemm.return
}

// -----

// Scales are multicast with their TMA-loaded tile; a load_scales'
// multicast_if likewise needs multicast.
fgemm.kernel @scales_multicast_if(%s: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>) attributes {dims = ["m", "k"]} {
  %c0 = arith.constant 0 : index
  %same = arith.constant true
  // expected-error @below {{'fgemm.load_scales' op has multicast_if but is not a multicast load: the condition says when the multicast scales are shared}}
  %t = fgemm.load_scales %s[%c0, %c0] multicast_if(%same) : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
  fgemm.return
}

// -----

// Per-block scales are read by the math threads, not TMA-loaded: no multicast.
fgemm.kernel @scales_multicast_blocks(%s: !fgemm.scales<[n, k], f32, block = [128, 128]>) attributes {dims = ["n", "k"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'fgemm.load_scales' op is multicast but its scales are not mn_major: only TMA-loaded (mn_major) scales can be multicast}}
  %t = fgemm.load_scales %s[%c0, %c0] {multicast} : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @dot_k(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %ta = "test.a"() : () -> !fgemm.tile<[bm, bk], f8E4M3FN>
  %tb = "test.b"() : () -> !fgemm.tile<[bn, bm], f8E4M3FN>
  %sa = "test.sa"() : () -> !fgemm.tile<[bm], f32>
  %sb = "test.sb"() : () -> !fgemm.tile<[bn], f32>
  %c = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // Both operands are K-major: they must share the second dimension.
  // expected-error @below {{'fgemm.scaled_dot' op operands must share their K dimension (both K-major): [bm, bk] vs [bn, bm]}}
  %r = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
      : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bm], f8E4M3FN>,
        !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @dot_acc(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %ta = "test.a"() : () -> !fgemm.tile<[bm, bk], f8E4M3FN>
  %tb = "test.b"() : () -> !fgemm.tile<[bn, bk], f8E4M3FN>
  %sa = "test.sa"() : () -> !fgemm.tile<[bm], f32>
  %sb = "test.sb"() : () -> !fgemm.tile<[bn], f32>
  %c = fgemm.zeros : !fgemm.tile<[bn, bm], f32>
  // expected-error @below {{'fgemm.scaled_dot' op accumulator must be [bm, bn], got [bn, bm]}}
  %r = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
      : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
        !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bn, bm], f32>
  fgemm.return
}

// -----

fgemm.kernel @store_fp8(%d: !fgemm.tensor<[m, n], f8E4M3FN>) attributes {dims = ["m", "n"]} {
  %c0 = arith.constant 0 : index
  %c = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{'fgemm.store' op stores to bf16 or f32 tensors; got 'f8E4M3FN'}}
  fgemm.store %c, %d[%c0, %c0] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], f8E4M3FN>
  fgemm.return
}

// -----

fgemm.kernel @loop_dim(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  // expected-error @below {{'fgemm.k_loop' op loops over dimension 'q', which is not a kernel dimension}}
  fgemm.k_loop "q" {
  ^bb0(%kb: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @loop_yield(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{'fgemm.k_loop' op yields 0 values but carries 1}}
  %r = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    fgemm.yield
  } -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @space_args(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{'fgemm.tile_space' op body takes two index arguments: the tile's row and column block indices}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @regs(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  // At most three math warpgroups (and a producer) in a CTA of 512 threads.
  // expected-error @below {{'fgemm.warp_specialize' op math_warpgroups must be 1, 2 or 3, got 4}}
  fgemm.warp_specialize {consumer_regs = 160 : i64, math_warpgroups = 4 : i64, producer_regs = 24 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @budget(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  // 128 * (64 + 2 * 240) = 69632 registers > 65536.
  // expected-error @below {{'fgemm.warp_specialize' op register budget 69632 exceeds the 65536 registers of an SM}}
  fgemm.warp_specialize {consumer_regs = 240 : i64, math_warpgroups = 2 : i64, producer_regs = 64 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

// Malformed syntax gets a located parse error, not a crash.
// expected-error @below {{expected '['}}
fgemm.kernel @syntax(%a: !fgemm.tensor<m, k, f8E4M3FN>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// The name is the PTX entry symbol (LLVM's NVPTX printer aborted on a comma).
// expected-error @below {{'fgemm.kernel' op name 'gemm_1d,2d' must be an identifier ([A-Za-z_][A-Za-z0-9_]*): it is the kernel's PTX entry symbol}}
fgemm.kernel @"gemm_1d,2d"(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  fgemm.return
}

// -----

// expected-error @below {{'fgemm.kernel' op variant 'dense-1d1d' must be an identifier ([A-Za-z_][A-Za-z0-9_]*): the runtime loads kernels by it}}
fgemm.kernel @bad_variant(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"], variant = "dense-1d1d"} {
  fgemm.return
}

// -----

fgemm.kernel @read_tile_bf16(%c: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'fgemm.read_tile' op reads f32 or bf16 tensors into tiles of the same element type; got 'bf16' -> 'f32'}}
  %t = fgemm.read_tile %c[%c0, %c0] : !fgemm.tensor<[m, n], bf16> -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @read_tile_grouped(%c: !fgemm.tensor<[g, m, n], f32>) attributes {dims = ["g", "m", "n"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'fgemm.read_tile' op reads 1-D or 2-D tensors; got [g, m, n] (group-indexed epilogue operands are not supported yet)}}
  %t = fgemm.read_tile %c[%c0, %c0, %c0] : !fgemm.tensor<[g, m, n], f32> -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @read_tile_shape(%bias: !fgemm.tensor<[n], f32>) attributes {dims = ["n"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'fgemm.read_tile' op a tile of [n] must have shape [bn], got [bm]}}
  %t = fgemm.read_tile %bias[%c0] : !fgemm.tensor<[n], f32> -> !fgemm.tile<[bm], f32>
  fgemm.return
}

// -----

fgemm.kernel @read_tile_in_loop(%c: !fgemm.tensor<[m, k], f32>) attributes {dims = ["m", "k"]} {
  %c0 = arith.constant 0 : index
  fgemm.k_loop "k" {
  ^bb0(%kb: index):
    // expected-error @below {{'fgemm.read_tile' op is inside fgemm.k_loop: epilogue operands are read once per tile, after the loop}}
    %t = fgemm.read_tile %c[%c0, %kb] : !fgemm.tensor<[m, k], f32> -> !fgemm.tile<[bm, bk], f32>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @add_shape(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  %x = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %y = fgemm.zeros : !fgemm.tile<[bk], f32>
  // expected-error @below {{'fgemm.add' op rhs must be [bm, bn], [bn] (per column) or [bm] (per row); got [bk]}}
  %r = fgemm.add %x, %y : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bk], f32>
  fgemm.return
}

// -----

fgemm.kernel @mul_vector_lhs(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  %x = fgemm.zeros : !fgemm.tile<[bn], f32>
  // expected-error @below {{'fgemm.mul' op lhs must be a 2-D tile [b0, b1]; got [bn]}}
  %r = fgemm.mul %x, %x : !fgemm.tile<[bn], f32>, !fgemm.tile<[bn], f32>
  fgemm.return
}

// -----

// expected-error @below {{1-D tensors are i32 index arrays or f32 / bf16 vectors (per-row or per-column epilogue operands); got 'f8E4M3FN'}}
fgemm.kernel @fp8_vector(%bias: !fgemm.tensor<[n], f8E4M3FN>) attributes {dims = ["n"]} {
  fgemm.return
}

// -----

fgemm.kernel @add_bf16(%bias: !fgemm.tensor<[n], bf16>) attributes {dims = ["n"]} {
  %c0 = arith.constant 0 : index
  %acc = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %b = fgemm.read_tile %bias[%c0] : !fgemm.tensor<[n], bf16> -> !fgemm.tile<[bn], bf16>
  // expected-error @below {{'fgemm.add' op takes f32 tiles (fgemm.cast a bf16 one first); got 'f32' and 'bf16'}}
  %r = fgemm.add %acc, %b : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bn], bf16>
  fgemm.return
}

// -----

fgemm.kernel @cast_shape(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  %acc = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{'fgemm.cast' op keeps the shape: [bm, bn] -> [bn, bm]}}
  %r = fgemm.cast %acc : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bn, bm], bf16>
  fgemm.return
}

// -----

fgemm.kernel @cast_fp8(%d: !fgemm.tensor<[m, n], f32>) attributes {dims = ["m", "n"]} {
  %acc = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{'fgemm.cast' op converts between f32 and bf16 tiles; got 'f32' -> 'f8E4M3FN'}}
  %r = fgemm.cast %acc : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], f8E4M3FN>
  fgemm.return
}

// -----

// expected-error @below {{per_tensor scales are one value, so they have no major order: drop mn_major}}
fgemm.kernel @per_tensor_mn_major(%s: !fgemm.scales<[m, k], f32, per_tensor, mn_major>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// fgemm.aligned_trips marks an scf.for (convert-fgemm-to-nvvm for
// fgemm-loop-counters), nothing else.
// expected-error @below {{attribute 'fgemm.aligned_trips' must be a unit attribute of an scf.for, got unit}}
"test.op"() {fgemm.aligned_trips} : () -> ()
