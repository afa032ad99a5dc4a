// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize | FileCheck %s --check-prefix=DEFAULT
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=6 fixed-n=2112 fixed-k=7168" | FileCheck %s --check-prefix=SMALL
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="stages=0" | FileCheck %s --check-prefix=AUTO
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=0 fixed-n=7168 fixed-k=16384" | FileCheck %s --check-prefix=ALIGNED
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=0" | FileCheck %s --check-prefix=DEEPEST
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="stages=0 fixed-k=7168" | FileCheck %s --check-prefix=AUTO
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="schedule=persistent raster-group=8 cluster=1 overlap-promotion=true sass-policy=deepgemm-full" | FileCheck %s --check-prefix=KNOBS
// fgemm-specialize attaches #fgemm.config; invalid configurations are in specialize-invalid.mlir.

// DEFAULT-LABEL: fgemm.kernel @sm90_fp8_gemm_1d2d
// DEFAULT-SAME: config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2, cluster = 1, multicast = a, k_split = 1, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = false, prefetch_scales = false, overlap_epilogue = false, couple_math_warpgroups = false, sass_policy = off, sass_every_n = 4, timeline = false>
// DEFAULT: fgemm.tile_space dense

// SMALL-LABEL: fgemm.kernel @sm90_fp8_gemm_1d2d
// SMALL-SAME: config = #fgemm.config<block_m = 64, block_n = 64, block_k = 128, stages = 6, math_warpgroups = 1, cluster = 1, multicast = a, k_split = 1, schedule = plain, raster_group = 0, launch_raster = false, fixed_n = 2112, fixed_k = 7168,

// stages=0: the deepest pipeline that fits in 227 KiB (6 stages of 128x128 need 232544 bytes).
// AUTO: config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 5,

// With K compiled in, one stage fewer where that aligns the K loop's trips
// (4 copies over 12 stages instead of 13) and at least 8 remain; not
// without K compiled in, and not where 4 would remain (128x128 above keeps
// 5 with fixed-k too).
// ALIGNED: config = #fgemm.config<block_m = 64, block_n = 64, block_k = 128, stages = 12,
// DEEPEST: config = #fgemm.config<block_m = 64, block_n = 64, block_k = 128, stages = 13,

// Every knob of dialect/KernelConfig.def is a pass option and a field of #fgemm.config.
// KNOBS: schedule = persistent, raster_group = 8, launch_raster = false, fixed_n = 0, fixed_k = 0, overlap_promotion = true, prefetch_scales = false, overlap_epilogue = false, couple_math_warpgroups = false, sass_policy = "deepgemm-full", sass_every_n = 4, timeline = false>
