// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-sm90-pipeline | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-sm90-pipeline="block-m=64 block-n=32 stages=8" | FileCheck %s --check-prefix=SMALL
// The whole sm_90 pipeline ends in the LLVM dialect plus NVVM: no fgemm, scf,
// arith or cf ops are left.

// CHECK-NOT: fgemm.kernel
// CHECK-NOT: scf.
// CHECK-NOT: arith.
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d2d
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: llvm.inline_asm {{.*}}mbarrier.try_wait.parity
// CHECK: nvvm.setmaxregister increase 232
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NOT: scf.
// CHECK-NOT: arith.

// SMALL: nvvm.reqntid = array<i32: 256, 1, 1>
// SMALL: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
