//===- JitCApi.cpp - fgemm_jit_context_create --------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Jit/fgemm_jit.h"

#include "Jit/Jit.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

using namespace fgemm;

namespace {

/// The shipped kernels' DSL text, embedded at build time.
struct KernelSource {
  const char *variant, *file, *text;
};
constexpr KernelSource kKernelSources[] = {
#include "Jit/KernelSources.inc"
};

/// One provider per cache directory, alive for the process: contexts keep
/// a pointer to it.
struct Provider {
  std::map<std::string, DenseGemm::KernelProvider> byVariant;
};

fgemm_status provide(const fgemm_kernel_request *request, char *base,
                     size_t capacity, void *user) {
  auto &byVariant = static_cast<Provider *>(user)->byVariant;
  auto found = byVariant.find(request->variant ? request->variant : "");
  if (found == byVariant.end()) {
    std::snprintf(base, capacity,
                  "libfgemm_jit.so has no kernel of variant "
                  "'%s'",
                  request->variant ? request->variant : "(null)");
    return FGEMM_ERROR_RUNTIME;
  }
  const fgemm_dense_config &c = request->config;
  DenseConfiguration config{uint32_t(c.block_m), uint32_t(c.block_n),
                            c.persistent != 0, uint32_t(c.raster_group)};
  config.cluster = uint32_t(c.cluster);
  config.multicastB = c.multicast_b != 0;
  config.kSplit = uint32_t(c.k_split);
  config.launchRaster = c.launch_raster != 0;
  config.prefetchScales = c.prefetch_scales != 0;
  config.streamK = c.stream_k != 0;
  config.fixedN = uint32_t(c.fixed_n);
  config.fixedK = uint32_t(c.fixed_k);
  Expected<std::string> made = found->second(config);
  std::snprintf(base, capacity, "%s",
                made.ok() ? made->c_str() : made.status().message().c_str());
  return made.ok() ? FGEMM_SUCCESS : FGEMM_ERROR_RUNTIME;
}

} // namespace

extern "C" fgemm_status fgemm_jit_context_create(int device,
                                                 const char *cache_dir,
                                                 fgemm_context **out) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Provider>> providers;
  std::string dir =
      cache_dir && *cache_dir ? cache_dir : KernelCache::defaultDirectory();
  Provider *provider;
  {
    std::lock_guard<std::mutex> guard(mutex);
    std::unique_ptr<Provider> &slot = providers[dir];
    if (!slot) {
      slot = std::make_unique<Provider>();
      for (const KernelSource &source : kKernelSources)
        slot->byVariant[source.variant] = jit::denseKernelProvider(
            KernelCache(dir), source.text, source.file);
    }
    provider = slot.get();
  }
  fgemm_status status =
      fgemm_context_create_with_provider(device, provide, provider, out);
  if (status != FGEMM_SUCCESS)
    return status;
  // The JIT compiles: each (configuration, N, K) gets its own kernel, N and
  // K compiled in (1-4% faster at M <= 128, docs/PERF.md); with
  // FGEMM_JIT_BACKGROUND=1 on another thread while the generic kernel runs.
  const char *background = std::getenv("FGEMM_JIT_BACKGROUND");
  status = fgemm_context_specialize(
      *out, background && std::string(background) == "1" ? 2 : 1);
  if (status != FGEMM_SUCCESS) {
    fgemm_context_destroy(*out);
    *out = nullptr;
  }
  return status;
}
