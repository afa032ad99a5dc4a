// A read_tile nothing uses (compiler fuzzing found lowerReadTile dereferencing its
// first user): it lowers to loads and nothing else.
module {
  fgemm.kernel @sm90_fp8_gemm_1d1d(%arg0: !fgemm.tensor<[m, k], f8E4M3FN>, %arg1: !fgemm.tensor<[n, k], f8E4M3FN>, %arg2: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>, %arg3: !fgemm.scales<[n, k], f32, block = [1, 128], mn_major>, %arg4: !fgemm.tensor<[m, n], f32>, %arg5: !fgemm.tensor<[m, n], f32>) attributes {config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, multicast = a, schedule = plain, raster_group = 0, fixed_n = 0, fixed_k = 0, overlap_promotion = false, sass_policy = off, sass_every_n = 4>, dims = ["m", "n", "k"], grid = #fgemm.tile_grid<dense, ["n", "m"]>, variant = "dense_1d1d"} {
    %0 = fgemm.program_id  x
    %1 = fgemm.program_id  y
    %2 = fgemm.zeros : <[bm, bn], f32>
    %3 = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0, 65536, 131072, 133120], slot_strides = [16384, 16384, 512, 512], slot_bytes = [16384, 16384, 512, 512], output_offset = 135168, barriers = 200704, scales = 200768, scale_bytes = 0, smem_bytes = 200768>} : !fgemm.ring
    fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
      fgemm.k_loop "k" {
      ^bb0(%arg6: index):
        fgemm.yield
      }
      fgemm.yield
    } consumer {
      %4 = fgemm.k_loop "k" init(%2 : !fgemm.tile<[bm, bn], f32>) {
      ^bb0(%arg6: index, %arg7: !fgemm.tile<[bm, bn], f32>):
        %c4 = arith.constant 4 : index
        %c1 = arith.constant 1 : index
        %7 = arith.remui %arg6, %c4 : index
        %8 = arith.divui %arg6, %c4 : index
        %9 = arith.andi %8, %c1 : index
        %10:4 = fgemm.ring.get %3[%arg6] stage(%7, %9) : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>, !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32>
        %11 = fgemm.scaled_dot %10#0, %10#1 scales(%10#2, %10#3) acc(%arg7) : <[bm, bk], f8E4M3FN>, <[bn, bk], f8E4M3FN>, <[bm], f32>, <[bn], f32> -> <[bm, bn], f32>
        fgemm.yield %11 : !fgemm.tile<[bm, bn], f32>
      } -> !fgemm.tile<[bm, bn], f32>
      %5 = fgemm.read_tile %arg4[%1, %0] : <[m, n], f32> -> <[bm, bn], f32>
      fgemm.yield
    }
    fgemm.return
  }
}
