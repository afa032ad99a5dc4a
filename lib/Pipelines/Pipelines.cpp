//===- Pipelines.cpp - registered fgemm pass pipelines ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The sm_90 pipeline, DESIGN.md section 3, steps 1-6:
//   fgemm-specialize -> fgemm-schedule-tiles -> fgemm-warp-specialize ->
//   fgemm-pipeline-tma -> convert-fgemm-to-nvvm -> convert-scf-to-cf ->
//   convert-nvvm-to-llvm -> convert-arith-to-llvm -> convert-cf-to-llvm ->
//   reconcile-unrealized-casts
//
//===----------------------------------------------------------------------===//

#include "Pipelines/Pipelines.h"
#include "dialect/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fgemm;

/// Bits of `index` in the generated code.
static constexpr unsigned kIndexBitwidth = 32;

void mlir::fgemm::buildSm90Pipeline(OpPassManager &pm,
                                    const KernelConfig &config,
                                    Sm90Stage stopAfter) {
  pm.addPass(createFgemmSpecializePass(config));
  pm.addPass(createFgemmScheduleTilesPass());
  pm.addPass(createFgemmWarpSpecializePass());
  pm.addPass(createFgemmPipelineTmaPass());
  if (stopAfter == Sm90Stage::Fgemm)
    return;
  pm.addPass(createConvertFgemmToNVVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFgemmLoopCountersPass());
  pm.addPass(createCanonicalizerPass());
  if (stopAfter == Sm90Stage::Gpu)
    return;
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  // Index arithmetic (tile and K-block indices, stages, phases, loop
  // counters) in 32 bits: every extent is below 2^31 (the runtime checks it),
  // and 64-bit division by the stage count cost ten uniform instructions per
  // K block.
  pm.addPass(createArithToLLVMConversionPass(
      ArithToLLVMConversionPassOptions{kIndexBitwidth}));
  pm.addPass(createConvertControlFlowToLLVMPass(
      ConvertControlFlowToLLVMPassOptions{kIndexBitwidth}));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::fgemm::registerFgemmPipelines() {
  PassPipelineRegistration<Sm90PipelineOptions>(
      "fgemm-sm90-pipeline",
      "Compiles fgemm kernels to the LLVM dialect with NVVM for sm_90a",
      [](OpPassManager &pm, const Sm90PipelineOptions &options) {
        buildSm90Pipeline(pm, options.getConfig());
      });
}
