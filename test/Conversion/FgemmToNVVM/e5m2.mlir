// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_e5m2_e4m3_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_e4m3_e5m2_1d2d.mlir --fgemm-specialize="block-m=64 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=EB
// An e5m2 operand: the wgmmas take each operand's own type, the tile's
// bytes (and so the TMA boxes and the ring) are those of e4m3, and the
// description names the variant and records A's type.

// CHECK-LABEL: llvm.func @sm90_fp8_gemm_e5m2_e4m3_1d2d(
// CHECK-SAME: fgemm.args = [!fgemm.tensor<[m, k], f8E5M2>, !fgemm.tensor<[n, k], f8E4M3FN>,
// CHECK-SAME: #fgemm.tensor_map_param<arg = 0, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 128], swizzle = 128>
// CHECK-SAME: fgemm.variant = "dense_e5m2_e4m3"
// CHECK-COUNT-4: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <{{zero|one}}>], A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-NOT: A[<e4m3>

// EB-LABEL: llvm.func @sm90_fp8_gemm_e4m3_e5m2_1d2d(
// EB-SAME: fgemm.args = [!fgemm.tensor<[m, k], f8E4M3FN>, !fgemm.tensor<[n, k], f8E5M2>,
// EB-SAME: fgemm.variant = "dense_e4m3_e5m2"
// EB-COUNT-4: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <{{zero|one}}>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
