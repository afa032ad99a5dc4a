// RUN: fgemm-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// RUN: %if valgrind %{ valgrind -q --error-exitcode=99 fgemm-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect %}
// Verifiers of what the passes hand each other (#fgemm.config, #fgemm.ring_plan,
// the ring ops), including every reproducer of ../shared/fuzz-repros in the
// current syntax: each used to crash or hang a later pass, now the IR is
// rejected where it is read.

// fuzz-repros 03: block_n = -2^31 (SmallVector grow in the lowering).
// expected-error @below {{invalid #fgemm.config: block-n must be a multiple of 8 in [8, 192] (WGMMA's N), or 256 (two groups of 128 columns), got -2147483648}}
fgemm.kernel @block_n_negative(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<block_n = -2147483648, math_warpgroups = 2>} {
  fgemm.return
}

// -----

// fuzz-repros 04: block_n = 2^31 - 1 (out of memory in the lowering).
// expected-error @below {{invalid #fgemm.config: block-n must be a multiple of 8 in [8, 192] (WGMMA's N), or 256 (two groups of 128 columns), got 2147483647}}
fgemm.kernel @block_n_huge(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<block_n = 2147483647, math_warpgroups = 2>} {
  fgemm.return
}

// -----

// fuzz-repros 05: block_n = 0 (division by zero in the scale lowering).
// expected-error @below {{invalid #fgemm.config: block-n must be a multiple of 8 in [8, 192] (WGMMA's N), or 256 (two groups of 128 columns), got 0}}
fgemm.kernel @block_n_zero(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<block_n = 0, math_warpgroups = 2>} {
  fgemm.return
}

// -----

// fuzz-repros 07: block_k = 2^31 - 1 (a hang issuing wgmmas).
// expected-error @below {{invalid #fgemm.config: block-k must be 128 (the K granularity of the scales), got 2147483647}}
fgemm.kernel @block_k_huge(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<block_k = 2147483647, math_warpgroups = 2>} {
  fgemm.return
}

// -----

// A configuration is always resolved: no "choose for me" zeros.
// expected-error @below {{invalid #fgemm.config: stages must be in [1, 16]; got 0}}
fgemm.kernel @stages_unresolved(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<stages = 0, math_warpgroups = 2>} {
  fgemm.return
}

// -----

// expected-error @below {{unknown field 'blockn'; #fgemm.config has: block_m, block_n, block_k, stages, math_warpgroups, cluster, multicast, k_split, schedule, raster_group, launch_raster, fixed_n, fixed_k, overlap_promotion, prefetch_scales, overlap_epilogue, couple_math_warpgroups, sass_policy, sass_every_n}}
fgemm.kernel @unknown_field(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<blockn = 64>} {
  fgemm.return
}

// -----

// expected-error @below {{field 'stages' is given twice}}
fgemm.kernel @twice(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<stages = 4, stages = 5>} {
  fgemm.return
}

// -----

// expected-error @below {{unknown value 'diagonal'; allowed: plain, persistent}}
fgemm.kernel @bad_enum(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<schedule = diagonal>} {
  fgemm.return
}

// -----

// fuzz-repros 08: a ring plan of 2^31 - 1 stages (a hang initializing barriers).
fgemm.kernel @ring_stages_huge(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{ring plan: stages must be in [1, 16], got 2147483647}}
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 2147483647, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 0, scale_bytes = 0, smem_bytes = 98368>} : !fgemm.ring
  fgemm.return
}

// -----

fgemm.kernel @ring_scales_outside(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{ring plan: the 512 bytes of staged scales at 98368 must be 16-byte aligned and lie inside smem_bytes 98368}}
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 2, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 98368, scale_bytes = 512, smem_bytes = 98368>} : !fgemm.ring
  fgemm.return
}

// -----

fgemm.kernel @ring_scales_misaligned(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{ring plan: the 512 bytes of staged scales at 98344 must be 16-byte aligned and lie inside smem_bytes 99000}}
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 2, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 98344, scale_bytes = 512, smem_bytes = 99000>} : !fgemm.ring
  fgemm.return
}

// -----

fgemm.kernel @ring_outside(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{ring plan: the 4 slots of value 0 at offset 0 do not fit in smem_bytes 1024}}
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 0, barriers = 0, scales = 0, scale_bytes = 0, smem_bytes = 1024>} : !fgemm.ring
  fgemm.return
}

// -----

fgemm.kernel @ring_too_big(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  // expected-error @below {{ring plan: smem_bytes must be in [0, 232448] (sm_90's 227 KiB), got 300000}}
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 0, scale_bytes = 0, smem_bytes = 300000>} : !fgemm.ring
  fgemm.return
}

// -----

// fuzz-repros 06: a ring.put with a stage but no phase (a null dereference in
// the lowering).
fgemm.kernel @stage_without_phase(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %x = fgemm.program_id x
  %r = fgemm.ring.create : !fgemm.ring
  fgemm.k_loop "k" {
  ^bb0(%kb: index):
    %t = fgemm.load %a[%x, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
    // expected-error @below {{needs both a stage and a phase, or neither}}
    fgemm.ring.put %r[%kb] stage(%kb, ) (%t) : !fgemm.tile<[bm, bk], f8E4M3FN>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A put value the producer cannot TMA-load.
fgemm.kernel @put_not_a_load(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %r = fgemm.ring.create : !fgemm.ring
  fgemm.k_loop "k" {
  ^bb0(%kb: index):
    %t = "make"() : () -> !fgemm.tile<[bm, bk], f8E4M3FN>
    // expected-error @below {{value #0 must come from an fgemm.load (or fgemm.load_scales of MN-major scales) in the same block: the producer turns each into a TMA load}}
    fgemm.ring.put %r[%kb] (%t) : !fgemm.tile<[bm, bk], f8E4M3FN>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A get must yield what the put carries.
fgemm.kernel @get_mismatch(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %x = fgemm.program_id x
  %r = fgemm.ring.create : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      %t = fgemm.load %a[%x, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.ring.put %r[%kb] (%t) : !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.yield
    }
    fgemm.yield
  } consumer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      // expected-error @below {{yields '!fgemm.tile<[bn, bk], f8E4M3FN>' but the ring's put carries '!fgemm.tile<[bm, bk], f8E4M3FN>'}}
      %g = fgemm.ring.get %r[%kb] : !fgemm.tile<[bn, bk], f8E4M3FN>
      fgemm.yield
    }
    fgemm.yield
  }
  fgemm.return
}

// -----

// A planned ring: every access needs its stage and phase.
fgemm.kernel @planned_unstaged(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %x = fgemm.program_id x
  %r = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 0, scale_bytes = 0, smem_bytes = 98368>} : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      %t = fgemm.load %a[%x, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      // expected-error @below {{accesses a planned ring without a stage and phase}}
      fgemm.ring.put %r[%kb] (%t) : !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.yield
    }
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

// Found by scripts/fuzz-compiler.py: a ring.get and scaled_dot outside the
// consumer role reached the lowering, which has no math threads there.
fgemm.kernel @get_outside_roles(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %r = fgemm.ring.create : !fgemm.ring
  fgemm.k_loop "k" {
  ^bb0(%kb: index):
    // expected-error @below {{must be inside the consumer region of an fgemm.warp_specialize}}
    %g = fgemm.ring.get %r[%kb] : !fgemm.tile<[bm, bk], f8E4M3FN>
    fgemm.yield
  }
  fgemm.return
}

// -----

// Found by scripts/fuzz-compiler.py: the ring's verifier read its users'
// operands before their operand segment sizes were checked.
fgemm.kernel @put_bad_segments(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %r = fgemm.ring.create : !fgemm.ring
  %c = arith.constant 0 : index
  // expected-error @below {{operand count (4) does not match with the total size (1030) specified in attribute 'operandSegmentSizes'}}
  "fgemm.ring.put"(%r, %c, %c, %c) <{operandSegmentSizes = array<i32: 1, 1024, 1, 1, 3>}> : (!fgemm.ring, index, index, index) -> ()
  fgemm.return
}

// -----

// fuzz-repros 02 (use after free on a parse error): a forward reference
// resolved to a block argument inside fgemm.warp_specialize, then an error in
// its consumer region. The parser parks the regions instead of freeing them.
fgemm.kernel @uaf(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %t = fgemm.load %a[%i, %i] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
    fgemm.k_loop "k" {
    ^bb0(%i: index):
      fgemm.yield
    }
    fgemm.yield
  } consumer {
    // expected-error @below {{redefinition of SSA value '%t'}}
    // expected-note @-9 {{previously defined here}}
    %t = arith.constant 0 : index
    fgemm.yield
  }
  fgemm.return
}

// -----

// The same through fgemm.k_loop: an error after its body.
fgemm.kernel @uaf_loop(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %t = fgemm.load %a[%i, %i] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
  fgemm.k_loop "k" {
  ^bb0(%i: index):
    fgemm.yield
  // expected-error @below {{unknown  type `bogus` in dialect `fgemm`}}
  } -> !fgemm.bogus
  fgemm.return
}

// -----

// The same through fgemm.tile_loop (found by scripts/fuzz-compiler.py, seed
// 46): a forward reference resolved inside a k_loop in the loop's body, then
// an error later in that body.
fgemm.kernel @uaf_tile_loop(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %n = fgemm.num_blocks "m" by "bm"
  "test.use"(%i) : (index) -> ()
  fgemm.tile_loop %n {
  ^bb0(%it: index, %t: index):
    fgemm.k_loop "k" {
    ^bb0(%i: index):
      fgemm.yield
    }
  // expected-error @below {{redefinition of block '^bb0'}}
  ^bb0(%it2: index, %t2: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

// The same through fgemm.tile_space.
fgemm.kernel @uaf_tile_space(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  "test.use"(%i) : (index) -> ()
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    fgemm.k_loop "k" {
    ^bb0(%i: index):
      fgemm.yield
    }
  // expected-error @below {{redefinition of block '^bb0'}}
  ^bb0(%tm2: index, %tn2: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

// And through the kernel itself: an op before it uses one of its block
// arguments.
"test.use"(%i) : (index) -> ()
fgemm.kernel @uaf_kernel(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.k_loop "k" {
  ^bb0(%i: index):
    fgemm.yield
  }
  // expected-error @below {{custom op 'fgemm.bogus' is unknown}}
  fgemm.bogus
  fgemm.return
}

// -----

// A split tile loop's body has the piece's first K block and its blocks.
fgemm.kernel @split_args(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %n = fgemm.num_blocks "m" by "bm"
  %kb = fgemm.num_blocks "k" by "bk"
  // expected-error @below {{with split_k the body takes five index arguments: the CTA's iteration, the linear tile index, the K blocks of the CTA's earlier pieces, the piece's first K block and its number of K blocks}}
  fgemm.tile_loop %n split_k(%kb) {
  ^bb0(%i: index, %t: index, %before: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @first_without_blocks(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %f = fgemm.num_blocks "k" by "bk"
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{first(...) needs blocks(...): a piece of the K range has a first block and a number of blocks}}
  %acc = "fgemm.k_loop"(%f, %z) <{dim = "k", operandSegmentSizes = array<i32: 1, 0, 0, 1>}> ({
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
  }) : (index, !fgemm.tile<[bm, bn], f32>) -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

// rows(...) is a range: its first and its end.
fgemm.kernel @rows_one_value(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %n = fgemm.num_blocks "k" by "bk"
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{rows(...) takes two values, the first row of the tile that is stored and the end of its stored rows (both counted from the tile's first row), got 1}}
  %acc = fgemm.k_loop "k" blocks(%n) rows(%n) init(%z : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
  } -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

// The pieces of a tile are combined in the split tile loop that made them.
fgemm.kernel @combine_outside(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{combines the pieces of a `fgemm.tile_loop ... split_k(...)`: it must be in such a loop's body}}
  %sum, %owner = fgemm.combine_k_pieces %z : !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @combine_bf16(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %n = fgemm.num_blocks "m" by "bm"
  %kb = fgemm.num_blocks "k" by "bk"
  fgemm.tile_loop %n split_k(%kb) {
  ^bb0(%i: index, %t: index, %before: index, %first: index, %blocks: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %h = fgemm.cast %z : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], bf16>
    // expected-error @below {{adds f32 partial sums; got 'bf16'}}
    %sum, %owner = fgemm.combine_k_pieces %h : !fgemm.tile<[bm, bn], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// K shares are combined only in a kernel whose clusters split tiles along K.
fgemm.kernel @combine_split_unsplit(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<math_warpgroups = 2>} {
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{combines the K shares of a cluster: the kernel must be specialized with k_split > 1}}
  %sum, %owner = fgemm.combine_k_split %z : !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

fgemm.kernel @combine_split_bf16(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<math_warpgroups = 2, k_split = 2>} {
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %h = fgemm.cast %z : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], bf16>
  // expected-error @below {{adds f32 partial sums; got 'bf16'}}
  %sum, %owner = fgemm.combine_k_split %h : !fgemm.tile<[bm, bn], bf16>
  fgemm.return
}

// -----

fgemm.kernel @combine_split_in_loop(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"], config = #fgemm.config<math_warpgroups = 2, k_split = 2>} {
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    // expected-error @below {{runs once per CTA after the math K loop (a plain grid's tile), not inside a K loop or tile loop}}
    %sum, %owner = fgemm.combine_k_split %c : !fgemm.tile<[bm, bn], f32>
    fgemm.yield %sum : !fgemm.tile<[bm, bn], f32>
  } -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

// A first block outside a split tile loop would leave gaps in the ring.
fgemm.kernel @first_outside_split(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %f = fgemm.num_blocks "k" by "bk"
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{first(...) runs a piece of a tile split along K: it belongs in the body of a `fgemm.tile_loop ... split_k(...)` (fgemm-schedule-tiles with schedule = stream_k) or in the one tile of a kernel with k_split > 1}}
  %acc = fgemm.k_loop "k" first(%f) blocks(%f) init(%z : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
  } -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}
