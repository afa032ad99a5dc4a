//===- PtxCompiler.h - LLVM dialect -> PTX -> cubin ---------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TARGET_PTX_PTXCOMPILER_H
#define FGEMM_TARGET_PTX_PTXCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::fgemm {

struct PtxOptions {
  std::string chip = "sm_90a";
  /// PTX ISA 8.6: the first with shared::cta destinations for TMA loads.
  std::string features = "+ptx86";
  unsigned optLevel = 3;
};

/// Translates a module in the LLVM + NVVM dialects to LLVM IR, optimizes it
/// and runs LLVM's NVPTX backend in process. `llvmIR` receives the IR text.
llvm::Expected<std::string> translateToPtx(ModuleOp module,
                                           const PtxOptions &options,
                                           std::string *llvmIR = nullptr);

struct CubinResult {
  std::string cubin;
  std::string log; // ptxas -v: registers, shared memory, spills
};

/// Assembles PTX with ptxas (`-arch=sm_90a -v --warn-on-spills
/// --warn-on-local-memory-usage`, DeepGEMM's flags). `ptxasPath` empty =
/// $FGEMM_PTXAS, then PATH, then /usr/local/cuda/bin/ptxas. A spill or
/// local-memory warning is an error: the math loop must live in registers.
/// `ptxas --version`'s last line (e.g. "Cuda compilation tools, release
/// 13.0, V13.0.88"): part of every kernel cache key.
llvm::Expected<std::string> ptxasVersion(llvm::StringRef ptxasPath = "");

llvm::Expected<CubinResult> assembleCubin(llvm::StringRef ptx,
                                          llvm::StringRef chip,
                                          llvm::StringRef ptxasPath = "");

} // namespace mlir::fgemm

#endif // FGEMM_TARGET_PTX_PTXCOMPILER_H
