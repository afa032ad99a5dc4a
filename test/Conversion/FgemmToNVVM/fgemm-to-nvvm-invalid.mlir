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
