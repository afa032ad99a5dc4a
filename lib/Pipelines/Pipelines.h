//===- Pipelines.h - registered fgemm pass pipelines -------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_PIPELINES_PIPELINES_H
#define FGEMM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fgemm {

struct Sm90PipelineOptions : public PassPipelineOptions<Sm90PipelineOptions> {
  Option<int64_t> blockM{*this, "block-m", llvm::cl::desc("Output tile rows (64 or 128)"),
                         llvm::cl::init(128)};
  Option<int64_t> blockN{*this, "block-n", llvm::cl::desc("Output tile columns"),
                         llvm::cl::init(128)};
  Option<int64_t> stages{*this, "stages", llvm::cl::desc("Shared-memory pipeline depth"),
                         llvm::cl::init(4)};
  Option<bool> persistent{*this, "persistent",
                          llvm::cl::desc("One CTA per SM looping over tiles"),
                          llvm::cl::init(false)};
  Option<bool> overlapPromotion{
      *this, "overlap-promotion",
      llvm::cl::desc("Overlap each K block's promotion with the next block's wgmmas"),
      llvm::cl::init(false)};
  Option<int64_t> cluster{*this, "cluster",
                          llvm::cl::desc("CTAs per cluster (2 = A multicast)"),
                          llvm::cl::init(1)};
  Option<int64_t> fixedN{*this, "fixed-n", llvm::cl::desc("Fold N (0 = runtime)"),
                         llvm::cl::init(0)};
  Option<int64_t> fixedK{*this, "fixed-k", llvm::cl::desc("Fold K (0 = runtime)"),
                         llvm::cl::init(0)};
};

/// Where a pipeline run stops (fgemmc's --emit stages that are IR).
enum class Sm90Stage { Fgemm, Gpu, Llvm };

/// fgemm-specialize .. fgemm-pipeline-tma (stop = Fgemm), then
/// convert-fgemm-to-nvvm (Gpu), then the upstream conversions to the LLVM
/// dialect (Llvm).
void buildSm90Pipeline(OpPassManager &pm, const Sm90PipelineOptions &options,
                       Sm90Stage stopAfter = Sm90Stage::Llvm);

/// Registers `fgemm-sm90-pipeline`.
void registerFgemmPipelines();

} // namespace mlir::fgemm

#endif // FGEMM_PIPELINES_PIPELINES_H
