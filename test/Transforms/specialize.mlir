// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize | FileCheck %s --check-prefix=DEFAULT
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=6 fixed-n=2112 fixed-k=7168" | FileCheck %s --check-prefix=SMALL
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="stages=0" | FileCheck %s --check-prefix=AUTO
// fgemm-specialize attaches #fgemm.config; invalid configurations are in specialize-invalid.mlir.

// DEFAULT-LABEL: fgemm.kernel @sm90_fp8_gemm_1d2d
// DEFAULT-SAME: fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, fixed_n = 0, fixed_k = 0>
// DEFAULT: fgemm.tile_space dense

// SMALL-LABEL: fgemm.kernel @sm90_fp8_gemm_1d2d
// SMALL-SAME: fgemm.config = #fgemm.config<block_m = 64, block_n = 64, block_k = 128, stages = 6, math_warpgroups = 1, cluster = 1, fixed_n = 2112, fixed_k = 7168>

// stages=0: the deepest pipeline that fits in 227 KiB (6 stages of 128x128 need 232544 bytes).
// AUTO: fgemm.config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 5,
