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
