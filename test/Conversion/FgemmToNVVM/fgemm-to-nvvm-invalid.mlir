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

// -----

// prefetch_scales recomputes the next tile's scale indices from the tile
// loop's order: a B-scale tile index that comes from anything else (here an
// unknown op in place of the order's remui) is refused.
module {
  fgemm.kernel @sm90_fp8_gemm_1d2d(%arg0: !fgemm.tensor<[m, k], f8E4M3FN>, %arg1: !fgemm.tensor<[n, k], f8E4M3FN>, %arg2: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>, %arg3: !fgemm.scales<[n, k], f32, block = [128, 128]>, %arg4: !fgemm.tensor<[m, n], bf16>) attributes {config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, multicast = a, k_split = 1, schedule = persistent, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, prefetch_scales = true, overlap_epilogue = false, sass_policy = off, sass_every_n = 4>, dims = ["m", "n", "k"], grid = #fgemm.tile_grid<dense, ["n", "m"]>} {
    %0 = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0, 65536, 131072], slot_strides = [16384, 16384, 512], slot_bytes = [16384, 16384, 512], output_offset = 133120, barriers = 165888, scales = 165952, scale_bytes = 512, smem_bytes = 166464>} : !fgemm.ring
    %1 = fgemm.num_blocks "m" by "bm"
    %2 = fgemm.num_blocks "n" by "bn"
    %3 = arith.muli %1, %2 : index
    fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
      fgemm.tile_loop %3 {
      ^bb0(%arg5: index, %arg6: index):
        %4 = arith.divui %arg6, %2 : index
        %5 = arith.remui %arg6, %2 : index
        fgemm.k_loop "k" {
        ^bb0(%arg7: index):
          %6 = fgemm.num_blocks "k" by "bk"
          %7 = arith.muli %arg5, %6 : index
          %8 = arith.addi %7, %arg7 : index
          %c4 = arith.constant 4 : index
          %c1 = arith.constant 1 : index
          %9 = arith.remui %8, %c4 : index
          %10 = arith.divui %8, %c4 : index
          %11 = arith.andi %10, %c1 : index
          %12 = fgemm.load %arg0[%4, %arg7] : <[m, k], f8E4M3FN> -> <[bm, bk], f8E4M3FN>
          %13 = fgemm.load %arg1[%5, %arg7] : <[n, k], f8E4M3FN> -> <[bn, bk], f8E4M3FN>
          %14 = fgemm.load_scales %arg2[%4, %arg7] : <[m, k], f32, block = [1, 128], mn_major> -> <[bm], f32>
          fgemm.ring.put %0[%arg7] stage(%9, %11) (%12, %13, %14) : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>
          fgemm.yield
        }
        fgemm.yield
      }
      fgemm.yield
    } consumer {
      fgemm.tile_loop %3 {
      ^bb0(%arg5: index, %arg6: index):
        %4 = arith.divui %arg6, %2 : index
        %5 = "test.tile_column"(%arg6, %2) : (index, index) -> index
        %6 = fgemm.zeros : <[bm, bn], f32>
        %7 = fgemm.k_loop "k" init(%6 : !fgemm.tile<[bm, bn], f32>) {
        ^bb0(%arg7: index, %arg8: !fgemm.tile<[bm, bn], f32>):
          %8 = fgemm.num_blocks "k" by "bk"
          %9 = arith.muli %arg5, %8 : index
          %10 = arith.addi %9, %arg7 : index
          %c4 = arith.constant 4 : index
          %c1 = arith.constant 1 : index
          %11 = arith.remui %10, %c4 : index
          %12 = arith.divui %10, %c4 : index
          %13 = arith.andi %12, %c1 : index
          %14:3 = fgemm.ring.get %0[%arg7] stage(%11, %13) : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>
          // expected-error @below {{prefetch-scales: the scales' tile index or group comes from more than the tile loop's tile order}}
          %15 = fgemm.load_scales %arg3[%5, %arg7] : <[n, k], f32, block = [128, 128]> -> <[bn], f32>
          %16 = fgemm.scaled_dot %14#0, %14#1 scales(%14#2, %15) acc(%arg8) : <[bm, bk], f8E4M3FN>, <[bn, bk], f8E4M3FN>, <[bm], f32>, <[bn], f32> -> <[bm, bn], f32>
          fgemm.ring.release %0[%arg7] stage(%11, %13)
          fgemm.yield %16 : !fgemm.tile<[bm, bn], f32>
        } -> !fgemm.tile<[bm, bn], f32>
        fgemm.store %7, %arg4[%4, %5] : <[bm, bn], f32>, <[m, n], bf16>
        fgemm.yield
      }
      fgemm.yield
    }
    fgemm.return
  }
}
