//===- Compiler.h - DSL source + configuration -> PTX, cubin ------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The compile library: the one function fgemmc and the JIT call. It parses a
// DSL kernel, runs the sm_90 pipeline for a configuration, translates to PTX,
// assembles with ptxas, applies the SASS pass, and describes the kernel for
// the runtime (docs/ABI.md) -- in process, with diagnostics returned to the
// caller instead of printed.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_COMPILER_COMPILER_H
#define FGEMM_COMPILER_COMPILER_H

#include "dialect/KernelConfig.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::fgemm {

/// Where compilation stops (fgemmc --emit).
enum class CompileStage { Fgemm, Gpu, Llvm, Ptx, Cubin };

struct CompileOptions {
  KernelConfig config;
  CompileStage stopAfter = CompileStage::Cubin;
  /// ptxas to run ("" = the CUDA toolkit's, found as PtxCompiler does).
  std::string ptxasPath;
  /// Print the IR after every pass to stderr (mlir-opt's flag).
  bool printIRAfterAll = false;
  /// Keep the last IR stage's and the LLVM IR's text in the result when
  /// compiling on to PTX or a cubin (fgemmc --dump-dir). The JIT needs only
  /// the cubin and the description; printing a large unrolled kernel's IR
  /// costs it ~7 MB of text.
  bool keepIR = false;
};

struct CompileResult {
  /// Diagnostics of a successful compile (e.g. "not applied" warnings, ptxas
  /// performance notes), in file:line:col form.
  std::string diagnostics;
  /// The pass pipeline that ran, replayable in fgemm-opt.
  std::string pipeline;
  /// The module after the last IR stage that ran (fgemm, gpu or llvm);
  /// past the LLVM stage (and llvmIR), only with CompileOptions::keepIR.
  std::string ir;
  std::string llvmIR, ptx;
  /// The cubin after the SASS pass, and ptxas -v's report.
  std::string cubin, ptxasLog;
  /// What the SASS pass changed (empty when its policy is off).
  std::string sassReport;
  /// The kernel description the runtime reads (NAME.meta, docs/ABI.md).
  std::string description;
};

/// Compiles the DSL kernel in `source` (`sourceName` names it in
/// diagnostics). A compile error is returned as an llvm::Error whose message
/// holds every diagnostic, located in the source.
llvm::Expected<CompileResult> compileKernel(llvm::StringRef source,
                                            llvm::StringRef sourceName,
                                            const CompileOptions &options);

/// The kernel description of the one lowered fgemm kernel in `module` (from
/// the attributes convert-fgemm-to-nvvm leaves on it), which it then removes
/// so that only LLVM and NVVM attributes reach the LLVM IR translation.
llvm::Expected<std::string> takeKernelDescription(ModuleOp module);

} // namespace mlir::fgemm

#endif // FGEMM_COMPILER_COMPILER_H
