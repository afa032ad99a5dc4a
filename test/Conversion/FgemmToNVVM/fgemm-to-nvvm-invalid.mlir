// RUN: fgemm-opt %s --split-input-file --convert-fgemm-to-nvvm --verify-diagnostics --allow-unregistered-dialect
// convert-fgemm-to-nvvm refuses IR the earlier passes have not prepared, with
// a diagnostic; it never reads a plan or a schedule it was not given.

// expected-error @below {{convert-fgemm-to-nvvm needs a specialized kernel}}
fgemm.kernel @unspecialized(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// expected-error @below {{convert-fgemm-to-nvvm needs warp roles (run fgemm-warp-specialize first)}}
fgemm.kernel @no_roles(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], config = #fgemm.config<math_warpgroups = 2>} {
  fgemm.return
}

// -----

// expected-error @below {{convert-fgemm-to-nvvm needs one pipelined ring (run fgemm-pipeline-tma first)}}
fgemm.kernel @unpipelined(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], config = #fgemm.config<math_warpgroups = 2>} {
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

// expected-error @below {{convert-fgemm-to-nvvm needs scheduled tiles (run fgemm-schedule-tiles first)}}
fgemm.kernel @unscheduled(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<math_warpgroups = 2>} {
  %ring = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 0, scale_bytes = 0, smem_bytes = 98368>} : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.yield
  } consumer {
    fgemm.yield
  }
  fgemm.return
}

// -----

// An op of no registered dialect (found by scripts/fuzz-compiler.py: the
// lowering asked for its dialect and crashed).
fgemm.kernel @foreign_op(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"], config = #fgemm.config<math_warpgroups = 2>, grid = #fgemm.tile_grid<dense, ["n", "m"]>} {
  %ring = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0], slot_strides = [16384], slot_bytes = [16384], output_offset = 65536, barriers = 98304, scales = 0, scale_bytes = 0, smem_bytes = 98368>} : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.yield
  } consumer {
    // expected-error @below {{convert-fgemm-to-nvvm cannot lower this op}}
    "foreign.op"() : () -> ()
    fgemm.yield
  }
  fgemm.return
}
