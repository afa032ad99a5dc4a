// RUN: fgemm-opt %s --split-input-file --convert-fgemm-to-nvvm --verify-diagnostics
// convert-fgemm-to-nvvm refuses IR the earlier passes have not prepared.

// expected-error @below {{convert-fgemm-to-nvvm needs a specialized kernel}}
fgemm.kernel @unspecialized(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// expected-error @below {{convert-fgemm-to-nvvm needs warp roles (run fgemm-warp-specialize first)}}
fgemm.kernel @no_roles(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, fixed_n = 0, fixed_k = 0>} {
  fgemm.return
}

// -----

// expected-error @below {{convert-fgemm-to-nvvm needs a pipelined ring (run fgemm-pipeline-tma first)}}
fgemm.kernel @unpipelined(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, fixed_n = 0, fixed_k = 0>} {
  %ring = fgemm.ring.create : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

// A ring whose plan was written by hand and is missing parts.
// expected-error @below {{the ring's shared-memory plan is incomplete}}
fgemm.kernel @partial_plan(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, fixed_n = 0, fixed_k = 0>} {
  %ring = fgemm.ring.create {stages = 4 : i64} : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

// A persistent tile loop cannot be clustered (pairs must own paired tiles).
// expected-error @below {{clusters need the plain schedule (one CTA per tile)}}
fgemm.kernel @persistent_cluster(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 2, fixed_n = 0, fixed_k = 0>} {
  %ring = fgemm.ring.create {barriers = 0 : i64, offsets = array<i64>, output_offset = 0 : i64, slot_bytes = array<i64>, slot_strides = array<i64>, smem_bytes = 16 : i64, stages = 4 : i64} : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.tile_loop over %d : !fgemm.tensor<[m, n], bf16> {
    ^bb0(%i: index, %tm: index, %tn: index):
      fgemm.yield
    }
    fgemm.yield
  }
  fgemm.return
}
