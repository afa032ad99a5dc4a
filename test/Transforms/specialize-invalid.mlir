// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=96" 2>&1 | FileCheck %s --check-prefix=BM
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=12" 2>&1 | FileCheck %s --check-prefix=WGMMA-N
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=200" 2>&1 | FileCheck %s --check-prefix=BN
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="stages=8" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-k=100" 2>&1 | FileCheck %s --check-prefix=K16
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-n=20" 2>&1 | FileCheck %s --check-prefix=N8
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="cluster=4" 2>&1 | FileCheck %s --check-prefix=CLUSTER
// Configurations the hardware cannot run are rejected with a located error
// that says what is allowed.

// BM: dense.mlir:{{[0-9]+}}:{{[0-9]+}}: error: block-m must be 64 or 128 (64 rows per math warpgroup, WGMMA's M), got 96
// WGMMA-N: error: block-n must be a multiple of 8 in [8, 256] (WGMMA's N), got 12
// BN: error: block-n must be at most 192 (the accumulators of a larger tile do not fit in the math warpgroups' registers), got 200
// SMEM: error: configuration needs 299136 bytes of shared memory (8 stages); sm_90 allows 232448 (227 KiB): use fewer stages or smaller blocks
// K16: error: fixed K must be a positive multiple of 16 (FP8 rows of A and B need 16-byte strides for TMA), got 100
// N8: error: fixed N must be a positive multiple of 8 (BF16 rows of D need 16-byte strides for TMA), got 20
// CLUSTER: error: cluster must be 1 or 2 (CTAs sharing their A tile by TMA multicast), got 4
