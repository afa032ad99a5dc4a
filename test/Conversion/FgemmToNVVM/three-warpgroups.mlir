// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=192 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize | FileCheck %s --check-prefix=ROLES
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=192 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// 192-row tiles run on three math warpgroups of one m64 wave each (the
// default for block-m 192): 512 threads whose register file splits as
// 3 x 160 + 32 per thread, A loaded as one 192-row box, one arrival per math
// warp (12) on each empty barrier, and warpgroup w's wgmmas reading A from
// row 64 w (512 in the descriptor's 16-byte units).

// ROLES: fgemm.warp_specialize {consumer_regs = 160 : i64, math_warpgroups = 3 : i64, producer_regs = 32 : i64}

// CHECK: #fgemm.tensor_map_param<arg = 0, box = [128, 192], swizzle = 128>
// CHECK-SAME: nvvm.maxnreg = 128 : i32, nvvm.reqntid = array<i32: 512, 1, 1>
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c12_i32
// CHECK: nvvm.setmaxregister  decrease 32
// CHECK: nvvm.setmaxregister  increase 160
// CHECK: %[[WG:.*]] = nvvm.shfl.sync idx %c-1_i32
// CHECK: %[[AROW:.*]] = arith.muli %[[WG]], %c512_i32 : i32
// CHECK: %[[ASTART:.*]] = arith.addi %{{.*}}, %[[AROW]] : i32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %[[ASTART]]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
