//===- Pipelines.h - registered fgemm pass pipelines -------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_PIPELINES_PIPELINES_H
#define FGEMM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include "dialect/KnobOptions.h"

namespace mlir::fgemm {

/// The pipeline's options: one per knob of dialect/KernelConfig.def.
struct Sm90PipelineOptions : public PassPipelineOptions<Sm90PipelineOptions> {
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  KnobPipelineOption<TYPE> NAME{*this, FLAG, HELP, DEFAULT};
#include "dialect/KernelConfig.def"

  KernelConfig getConfig() const {
    KernelConfig config;
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  config.NAME = NAME;
#include "dialect/KernelConfig.def"
    return config;
  }
};

/// Where a pipeline run stops (fgemmc's --emit stages that are IR).
enum class Sm90Stage { Fgemm, Gpu, Llvm };

/// fgemm-specialize .. fgemm-pipeline-tma (stop = Fgemm), then
/// convert-fgemm-to-nvvm (Gpu), then the upstream conversions to the LLVM
/// dialect (Llvm).
void buildSm90Pipeline(OpPassManager &pm, const KernelConfig &config,
                       Sm90Stage stopAfter = Sm90Stage::Llvm);

/// Registers `fgemm-sm90-pipeline`.
void registerFgemmPipelines();

} // namespace mlir::fgemm

#endif // FGEMM_PIPELINES_PIPELINES_H
