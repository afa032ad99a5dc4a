//===- Jit.cpp - compile kernels into the kernel cache -----------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Jit/Jit.h"

#include "Runtime/Sha256.h"
#include "Target/PTX/PtxCompiler.h"

#include "llvm/Config/llvm-config.h"

#include <mutex>

using namespace fgemm;
using namespace mlir::fgemm;

#ifndef FGEMM_COMPILER_BUILD
#define FGEMM_COMPILER_BUILD "unknown"
#endif

llvm::Expected<std::string>
jit::toolchainFingerprint(llvm::StringRef ptxasPath) {
  // ptxas --version costs a process start: once per process and path.
  static std::mutex mutex;
  static llvm::StringMap<std::string> known;
  std::lock_guard<std::mutex> guard(mutex);
  auto it = known.find(ptxasPath);
  if (it == known.end()) {
    llvm::Expected<std::string> version = ptxasVersion(ptxasPath);
    if (!version)
      return version.takeError();
    PtxOptions ptx;
    it = known
             .try_emplace(ptxasPath, "fgemm " FGEMM_COMPILER_BUILD
                                     "; LLVM " LLVM_VERSION_STRING "; " +
                                         *version + "; " + ptx.chip + " " +
                                         ptx.features + " O" +
                                         std::to_string(ptx.optLevel))
             .first;
  }
  return it->second;
}

std::string jit::cacheKey(llvm::StringRef source, const KernelConfig &config,
                          llvm::StringRef fingerprint) {
  Sha256 hash;
  auto field = [&](llvm::StringRef name, llvm::StringRef value) {
    // Length-prefixed, so no two inputs digest the same bytes.
    hash.update(name.str() + ":" + std::to_string(value.size()) + ":");
    hash.update(value.data(), value.size());
  };
  field("source", source);
  field("toolchain", fingerprint);
  auto knob = [](const auto &value) -> std::string {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_enum_v<T>)
      return getKnobValueName(value).str();
    else
      return std::to_string(value);
  };
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  field(KEY, knob(config.NAME));
#include "dialect/KernelConfig.def"
  return hash.finishHex();
}

llvm::Expected<CachedKernel> jit::compileCached(const KernelCache &cache,
                                                llvm::StringRef source,
                                                llvm::StringRef sourceName,
                                                const CompileOptions &options) {
  if (options.stopAfter != CompileStage::Cubin)
    return llvm::createStringError("the kernel cache holds cubins: compile "
                                   "with stopAfter = Cubin");
  llvm::Expected<std::string> fingerprint =
      toolchainFingerprint(options.ptxasPath);
  if (!fingerprint)
    return fingerprint.takeError();
  std::string key = cacheKey(source, options.config, *fingerprint);
  std::string compileError;
  Expected<CachedKernel> cached =
      cache.getOrBuild(key, [&]() -> Expected<KernelFiles> {
        llvm::Expected<CompileResult> result =
            compileKernel(source, sourceName, options);
        if (!result) {
          compileError = llvm::toString(result.takeError());
          return Status::error(compileError);
        }
        return KernelFiles{std::move(result->cubin),
                           std::move(result->description)};
      });
  if (!cached.ok())
    return llvm::createStringError(cached.status().message());
  return *cached;
}

KernelConfig jit::toKernelConfig(const DenseConfiguration &c) {
  KernelConfig config;
  config.blockM = c.blockM;
  config.blockN = c.blockN;
  config.stages = 0; // the deepest that fits
  config.schedule = c.streamK      ? Schedule::StreamK
                    : c.persistent ? Schedule::Persistent
                                   : Schedule::Plain;
  config.rasterGroup = c.rasterGroup;
  config.launchRaster = c.launchRaster;
  config.prefetchScales = c.prefetchScales;
  config.coupleMathWarpgroups = c.couplesMathWarpgroups();
  config.cluster = c.cluster;
  config.multicast = c.multicastB ? Multicast::B : Multicast::A;
  config.kSplit = c.kSplit;
  config.fixedN = c.fixedN;
  config.fixedK = c.fixedK;
  return config;
}

DenseGemm::KernelProvider jit::denseKernelProvider(KernelCache cache,
                                                   std::string source,
                                                   std::string sourceName,
                                                   std::string ptxasPath) {
  return [cache = std::move(cache), source = std::move(source),
          sourceName = std::move(sourceName), ptxasPath = std::move(ptxasPath)](
             const DenseConfiguration &config) -> Expected<std::string> {
    CompileOptions options;
    options.config = toKernelConfig(config);
    options.ptxasPath = ptxasPath;
    llvm::Expected<CachedKernel> kernel =
        compileCached(cache, source, sourceName, options);
    if (!kernel)
      return Status::error(llvm::toString(kernel.takeError()));
    return kernel->base;
  };
}
