// RUN: fgemm-opt %s --split-input-file --fgemm-warp-specialize --verify-diagnostics --allow-unregistered-dialect
// fgemm-warp-specialize: "not applied" warnings and errors.

// The pass needs a configuration.
// expected-error @below {{fgemm-warp-specialize needs a specialized kernel (run fgemm-specialize first)}}
fgemm.kernel @unspecialized(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// Nothing to split: no K loop feeding a scaled dot.
// expected-warning @below {{fgemm-warp-specialize: not applied: no fgemm.k_loop with a fgemm.scaled_dot at kernel level}}
fgemm.kernel @no_loop(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], config = #fgemm.config<block_m = 128, block_n = 128, stages = 4, math_warpgroups = 2, cluster = 1>} {
  fgemm.return
}

// -----

// A load whose index is computed inside the loop cannot run ahead in the producer.
fgemm.kernel @inner_index(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>) attributes {dims = ["m", "n", "k"], config = #fgemm.config<block_m = 128, block_n = 128, stages = 4, math_warpgroups = 2, cluster = 1>} {
  %c0 = arith.constant 0 : index
  %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
    %row = arith.addi %kb, %kb : index
    // expected-warning @below {{fgemm-warp-specialize: not applied: load index is computed inside the K loop}}
    %ta = fgemm.load %a[%row, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
    %tb = fgemm.load %b[%c0, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
    %sa = "test.sa"() : () -> !fgemm.tile<[bm], f32>
    %sb = "test.sb"() : () -> !fgemm.tile<[bn], f32>
    %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
        : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
          !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
    fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
  } -> !fgemm.tile<[bm, bn], f32>
  fgemm.return
}

// -----

// Epilogue work before the math loop would run before the roles split, on no
// math thread (a fuzzer's bias kernel with its row-scale read moved up).
fgemm.kernel @read_before_loop(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>, %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>, %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>, %v: !fgemm.tensor<[m], f32>, %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"], config = #fgemm.config<block_m = 64, block_n = 96, stages = 10, math_warpgroups = 1, cluster = 1>} {
  %tn = fgemm.program_id x
  %tm = fgemm.program_id y
  %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{'fgemm.read_tile' before the math K loop: it works on the math threads' accumulator fragments, so it must follow the loop (the tile's epilogue)}}
  %rows = fgemm.read_tile %v[%tm] : !fgemm.tensor<[m], f32> -> !fgemm.tile<[bm], f32>
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
  %out = fgemm.mul %acc, %rows : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bm], f32>
  fgemm.store %out, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
  fgemm.return
}
