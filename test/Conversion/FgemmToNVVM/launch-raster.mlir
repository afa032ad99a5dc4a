// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=192 schedule=persistent cluster=2 multicast=b raster-group=8 launch-raster=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// launch_raster lowered: the raster group is the kernel's last parameter (an
// i32 after the dimension symbols, #fgemm.raster_group_param with the
// configuration's group as its default), and both the producer's and the
// math warpgroups' tile orders clamp it to [1, row units] before use.

// CHECK: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %[[RASTER:arg16]]: i32)
// CHECK-SAME: fgemm.params = [{{.*}}#fgemm.dim_param<"k">, #fgemm.raster_group_param<default = 8>]
// CHECK: %[[G:.*]] = arith.index_castui %[[RASTER]] : i32 to index
// CHECK: %[[AT_LEAST_ONE:.*]] = arith.maxui %[[G]], %c1 : index
// CHECK-NEXT: %[[UNITS:.*]] = arith.maxui %{{.*}}, %c1 : index
// CHECK-NEXT: arith.minui %[[AT_LEAST_ONE]], %[[UNITS]] : index
// CHECK: arith.maxui %[[G]], %c1 : index
// CHECK-NEXT: arith.maxui %{{.*}}, %c1 : index
// CHECK-NEXT: arith.minui
