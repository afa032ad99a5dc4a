// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=64 block-n=32 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FOUR
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FOUR
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=32 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=TWO
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=96 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=TWO
// How far convert-fgemm-to-nvvm unrolls the producer's and the math
// threads' K loops: by four where the math threads' sums are small (64-row
// tiles up to 64 columns, two warpgroups of 64 columns), by two for larger
// sums and for two warpgroups of at most 32 columns; the blocks a trip does
// not cover run one by one after.

// FOUR: arith.remsi %{{.*}}, %c4 : index
// FOUR: scf.for %{{.*}} = %c0 to %{{.*}} step %c4 {
// FOUR: scf.for %{{.*}} step %c1 {
// FOUR: arith.remsi %{{.*}}, %c4 : index
// FOUR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 iter_args(
// FOUR: scf.for %{{.*}} step %c1 iter_args(

// TWO: arith.remsi %{{.*}}, %c2 : index
// TWO: scf.for %{{.*}} = %c0 to %{{.*}} step %c2 {
// TWO: scf.for %{{.*}} step %c1 {
// TWO: arith.remsi %{{.*}}, %c2 : index
// TWO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2 iter_args(
// TWO: scf.for %{{.*}} step %c1 iter_args(
