//===- JitCApi.cpp - fgemm_jit_context_create --------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Jit/fgemm_jit.h"

#include "Jit/Jit.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

using namespace fgemm;

namespace {

/// The dense kernel's DSL text, embedded at build time.
constexpr const char *kDenseSource =
#include "Jit/DenseKernelSource.inc"
    ;

/// One provider per cache directory, alive for the process: contexts keep
/// a pointer to it.
struct Provider {
  DenseGemm::KernelProvider provide;
};

fgemm_status provide(const fgemm_dense_config *c, char *base, size_t capacity,
                     void *user) {
  DenseConfiguration config{uint32_t(c->block_m), uint32_t(c->block_n),
                            c->persistent != 0, uint32_t(c->raster_group)};
  Expected<std::string> made = static_cast<Provider *>(user)->provide(config);
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
      slot->provide = jit::denseKernelProvider(KernelCache(dir), kDenseSource,
                                               "sm90_fp8_gemm_1d2d.mlir");
    }
    provider = slot.get();
  }
  return fgemm_context_create_on_demand(device, provide, provider, out);
}
