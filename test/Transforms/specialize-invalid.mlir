// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="k-split=3" 2>&1 | FileCheck %s --check-prefix=KSPLIT
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="k-split=2 cluster=2" 2>&1 | FileCheck %s --check-prefix=KSPLIT-CLUSTER
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="k-split=2 schedule=persistent" 2>&1 | FileCheck %s --check-prefix=KSPLIT-SCHEDULE
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="k-split=2 block-m=128 block-n=128 stages=1" 2>&1 | FileCheck %s --check-prefix=KSPLIT-RING
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=96" 2>&1 | FileCheck %s --check-prefix=BM
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=12" 2>&1 | FileCheck %s --check-prefix=WGMMA-N
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=200" 2>&1 | FileCheck %s --check-prefix=BN
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="stages=8" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-k=100" 2>&1 | FileCheck %s --check-prefix=K16
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-n=20" 2>&1 | FileCheck %s --check-prefix=N8
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="cluster=4" 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="raster-group=65" 2>&1 | FileCheck %s --check-prefix=RASTER
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 math-warpgroups=1" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 block-n=136" 2>&1 | FileCheck %s --check-prefix=WAVES-N
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 block-n=64 overlap-promotion=true" 2>&1 | FileCheck %s --check-prefix=WAVES-OVERLAP
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=256 block-n=256" 2>&1 | FileCheck %s --check-prefix=WAVES-GROUPS
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=128 block-n=256 overlap-promotion=true" 2>&1 | FileCheck %s --check-prefix=GROUPS-OVERLAP
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=192 math-warpgroups=2" 2>&1 | FileCheck %s --check-prefix=THREE-ROWS
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=192 block-n=136" 2>&1 | FileCheck %s --check-prefix=THREE-N
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=192 block-n=64 overlap-promotion=true" 2>&1 | FileCheck %s --check-prefix=THREE-OVERLAP
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="math-warpgroups=4" 2>&1 | FileCheck %s --check-prefix=MATH-WG
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="overlap-epilogue=true" 2>&1 | FileCheck %s --check-prefix=OE-PLAIN
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="overlap-epilogue=true overlap-promotion=true schedule=persistent" 2>&1 | FileCheck %s --check-prefix=OE-PROMOTION
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="prefetch-scales=true" 2>&1 | FileCheck %s --check-prefix=PF-PLAIN
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="prefetch-scales=true overlap-epilogue=true schedule=persistent" 2>&1 | FileCheck %s --check-prefix=PF-OVERLAP
// RUN: not fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_bias_1d2d.mlir --fgemm-specialize="overlap-epilogue=true schedule=persistent" 2>&1 | FileCheck %s --check-prefix=OE-READ
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-k=64" 2>&1 | FileCheck %s --check-prefix=BK
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=8 cluster=2 multicast=b" 2>&1 | FileCheck %s --check-prefix=MCAST-B
// RUN: not fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="schedule=diagonal" 2>&1 | FileCheck %s --check-prefix=ENUM
// Configurations the hardware cannot run are rejected with a located error
// that says what is allowed.

// BM: dense.mlir:{{[0-9]+}}:{{[0-9]+}}: error: block-m must be 64, 128, 192 or 256 (64 or 128 rows per math warpgroup, in waves of WGMMA's M = 64), got 96
// WGMMA-N: error: block-n must be a multiple of 8 in [8, 192] (WGMMA's N), or 256 (two groups of 128 columns), got 12
// BN: error: block-n must be at most 192, or 256 as two groups of 128 columns (the accumulators of another width do not fit in the math warpgroups' registers), got 200
// THREE-ROWS: error: each math warpgroup owns 64 or 128 rows (one or two m64 waves); block-m 192 with 2 math warpgroups would need 96 rows each
// THREE-N: error: block-n must be at most 128 with three math warpgroups (160 registers per math thread): their accumulators would not fit in registers; got 136
// THREE-OVERLAP: error: overlap-promotion's second partial sum does not fit in the 160 registers of three math warpgroups' threads: it needs 1 or 2 math warpgroups
// MATH-WG: error: math-warpgroups must be 1, 2 or 3, or 0 for min(2, block-m / 64) (3 with block-m 192); got 4
// GROUPS-OVERLAP: error: overlap-promotion keeps a second partial sum in flight: it does not combine with block-n 256 (column groups)
// SMEM: error: configuration needs 299648 bytes of shared memory (8 stages); sm_90 allows 232448 (227 KiB): use fewer stages or smaller blocks
// K16: error: fixed K must be 0 (any) or a positive multiple of 16 (FP8 rows of A and B need 16-byte strides for TMA), got 100
// N8: error: fixed N must be 0 (any) or a positive multiple of 8 (BF16 rows of D need 16-byte strides for TMA), got 20
// KSPLIT: error: k-split must be 1, 2 or 4 (CTAs of a cluster sharing one tile's K blocks), got 3
// KSPLIT-CLUSTER: error: k-split 2 makes the cluster of the tile's K shares; it needs cluster = 1 (no operand multicast), got cluster 2
// KSPLIT-RING: error: k-split 2: a CTA's f32 share of the 128x128 tile (65536 bytes) waits in its ring, which has {{[0-9]+}} bytes at 1 stages: use more stages
// KSPLIT-SCHEDULE: error: k-split 2 needs schedule = plain (one cluster per output tile), got persistent
// CLUSTER: error: cluster must be 1 or 2 (CTAs sharing one operand tile by TMA multicast), got 4
// RASTER: error: raster-group must be in [0, 64], got 65
// ROWS: error: each math warpgroup owns 64 or 128 rows (one or two m64 waves); block-m 256 with 1 math warpgroups would need 256 rows each
// WAVES-N: error: block-n must be at most 128 with two m64 waves per math warpgroup (block-m 256 on 2 math warpgroups): their accumulators would not fit in registers; got 136
// WAVES-GROUPS: error: block-n must be at most 128 with two m64 waves per math warpgroup (block-m 256 on 2 math warpgroups): their accumulators would not fit in registers; got 256
// WAVES-OVERLAP: error: overlap-promotion needs one m64 wave per math warpgroup (a second in-flight partial sum does not fit beside two accumulators); block-m 256 on 2 math warpgroups has two
// OE-PLAIN: error: overlap-epilogue defers each tile's store into the next tile's first K block: it needs schedule persistent, got plain
// OE-PROMOTION: error: overlap-epilogue and overlap-promotion cannot be combined
// PF-PLAIN: error: prefetch-scales loads each tile's first scales during the previous tile of a persistent CTA: it needs schedule persistent, got plain
// PF-OVERLAP: error: prefetch-scales cannot be combined with overlap-epilogue (their first K block stages the tile's scales itself)
// OE-READ: error: overlap-epilogue is not supported for kernels that read tiles or vectors in the epilogue (fgemm.read_tile)
// BK: error: block-k must be 128 (the K granularity of the scales), got 64
// MCAST-B: error: a cluster of 2 sharing B splits its 8 rows into 4-row parts; each must be a multiple of 8 rows (the 128-byte swizzle's 1024-byte atom)
// ENUM: for the --schedule option: Cannot find option named 'diagonal'!
