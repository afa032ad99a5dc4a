// RUN: fgemm-opt %s --fgemm-pipeline-tma --convert-fgemm-to-nvvm --verify-diagnostics
// Block-scaled B scales are read by the math threads, which stage them in
// shared memory: a producer K loop (no fgemm.scaled_dot) that loads them
// gets a diagnostic, not a crash (found by scripts/fuzz-compiler.py).

module {
  fgemm.kernel @gemm_bias(%arg0: !fgemm.tensor<[m, k], f8E4M3FN>, %arg1: !fgemm.tensor<[n, k], f8E4M3FN>, %arg2: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>, %arg3: !fgemm.scales<[n, k], f32, block = [128, 128]>, %arg4: !fgemm.tensor<[m], f32>, %arg5: !fgemm.tensor<[n], f32>, %arg6: !fgemm.tensor<[m, n], bf16>) attributes {config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 2, multicast = b, k_split = 1, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, prefetch_scales = false, overlap_epilogue = false, sass_policy = off, sass_every_n = 4, timeline = false>, dims = ["m", "n", "k"], grid = #fgemm.tile_grid<dense, ["m", "n"]>} {
    %0 = fgemm.program_id  x
    %1 = fgemm.program_id  y
    %3 = fgemm.zeros : <[bm, bn], f32>
    %4 = fgemm.ring.create : !fgemm.ring
    fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
      fgemm.k_loop "k" {
      ^bb0(%arg7: index):
        %5 = fgemm.load %arg0[%0, %arg7] : <[m, k], f8E4M3FN> -> <[bm, bk], f8E4M3FN>
        %6 = fgemm.load %arg1[%1, %arg7] {multicast} : <[n, k], f8E4M3FN> -> <[bn, bk], f8E4M3FN>
        // expected-error @below {{block-scaled scales read by the math threads (not a TMA load) in a K loop without fgemm.scaled_dot: load them in the math warpgroups' K loop, beside the dot that uses them}}
        %11 = fgemm.load_scales %arg3[%1, %arg7] : <[n, k], f32, block = [128, 128]> -> <[bn], f32>
        %7 = fgemm.load_scales %arg2[%0, %arg7] : <[m, k], f32, block = [1, 128], mn_major> -> <[bm], f32>
        fgemm.ring.put %4[%arg7] (%5, %6, %7) : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>
        fgemm.yield
      }
      fgemm.yield
    } consumer {
      %5 = fgemm.k_loop "k" init(%3 : !fgemm.tile<[bm, bn], f32>) {
      ^bb0(%arg7: index, %arg8: !fgemm.tile<[bm, bn], f32>):
        %10:3 = fgemm.ring.get %4[%arg7] : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>
        %11 = fgemm.load_scales %arg3[%1, %arg7] : <[n, k], f32, block = [128, 128]> -> <[bn], f32>
        %12 = fgemm.scaled_dot %10#0, %10#1 scales(%10#2, %11) acc(%arg8) : <[bm, bk], f8E4M3FN>, <[bn, bk], f8E4M3FN>, <[bm], f32>, <[bn], f32> -> <[bm, bn], f32>
        fgemm.yield %12 : !fgemm.tile<[bm, bn], f32>
      } -> !fgemm.tile<[bm, bn], f32>
      %6 = fgemm.read_tile %arg4[%0] : <[m], f32> -> <[bm], f32>
      %7 = fgemm.mul %5, %6 : <[bm, bn], f32>, <[bm], f32>
      %8 = fgemm.read_tile %arg5[%1] : <[n], f32> -> <[bn], f32>
      %9 = fgemm.add %7, %8 : <[bm, bn], f32>, <[bn], f32>
      fgemm.store %9, %arg6[%0, %1] : <[bm, bn], f32>, <[m, n], bf16>
      fgemm.yield
    }
    fgemm.return
  }
}
