//===- Jit.h - compile kernels into the kernel cache -------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The glue between the compile library (lib/Compiler, MLIR) and the
// runtime's kernel cache (lib/Runtime/KernelCache, no MLIR): a kernel's cache
// key digests its DSL source, name, every configuration knob, the compiler
// build, LLVM's version, ptxas's version and the target, so a change to any
// of them compiles anew and nothing stale is ever loaded.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_JIT_JIT_H
#define FGEMM_JIT_JIT_H

#include "Compiler/Compiler.h"
#include "Runtime/Gemm.h"
#include "Runtime/KernelCache.h"

#include "llvm/Support/Error.h"

#include <string>

namespace fgemm::jit {

/// Everything besides source and configuration that a cubin depends on:
/// this compiler build, LLVM, ptxas (run once per process) and the target.
llvm::Expected<std::string> toolchainFingerprint(llvm::StringRef ptxasPath);

/// The cache key (64 hex digits) of a kernel. The source's file name is not
/// part of it: the same text compiles to the same cubin wherever it lives.
std::string cacheKey(llvm::StringRef source,
                     const mlir::fgemm::KernelConfig &config,
                     llvm::StringRef fingerprint);

/// The cached kernel of `source` + `options.config`, compiled (DSL -> PTX ->
/// cubin -> SASS pass, in this process but for ptxas) if the cache has no
/// valid entry; concurrent callers of one key wait for one compile.
llvm::Expected<CachedKernel>
compileCached(const KernelCache &cache, llvm::StringRef source,
              llvm::StringRef sourceName,
              const mlir::fgemm::CompileOptions &options);

/// The compiler configuration of one of the runtime's dense configurations
/// (the deepest pipeline that fits; everything else at its default).
mlir::fgemm::KernelConfig toKernelConfig(const DenseConfiguration &config);

/// A DenseGemm::KernelProvider: compiles `source` (a kernel's DSL text, dense
/// or grouped: the configuration knobs are the same) for the requested
/// configuration into `cache`, or finds it there.
DenseGemm::KernelProvider denseKernelProvider(KernelCache cache,
                                              std::string source,
                                              std::string sourceName,
                                              std::string ptxasPath = "");

} // namespace fgemm::jit

#endif // FGEMM_JIT_JIT_H
