//===- Driver.cpp - dlopen'ed CUDA Driver API -------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <mutex>

using namespace fgemm;

// Two levels so that the argument is macro-expanded first: the stringified
// name is the versioned symbol cuda.h maps the API name to.
#define FGEMM_STRINGIFY_IMPL(x) #x
#define FGEMM_STRINGIFY(x) FGEMM_STRINGIFY_IMPL(x)

static std::atomic<const Driver *> processDriver{nullptr};

const Driver *fgemm::loadedDriver() { return processDriver.load(); }

std::string fgemm::formatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string((version % 1000) / 10);
}

/// dlerror() text, or a fallback when the loader gave none.
static std::string lastDlError() {
  const char *text = dlerror();
  return text ? text : "unknown dynamic loader error";
}

Expected<std::unique_ptr<Driver>> Driver::open(const std::string &library) {
  dlerror();
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return Status::error("cannot load the CUDA driver library '" + library +
                         "' (" + lastDlError() +
                         "); is the NVIDIA driver installed?");

  std::unique_ptr<Driver> driver(new Driver());
  driver->libraryName = library;
  std::string missing;
  auto resolve = [&](const char *symbol, const char *legacy) -> void * {
    void *address = dlsym(handle, symbol);
    if (!address && legacy)
      address = dlsym(handle, legacy);
    if (!address)
      missing += missing.empty() ? symbol : std::string(", ") + symbol;
    return address;
  };
#define FGEMM_CU_SYMBOL(name)                                                  \
  driver->name = reinterpret_cast<decltype(driver->name)>(                     \
      resolve(FGEMM_STRINGIFY(name), nullptr));
#define FGEMM_CU_SYMBOL_COMPAT(name, legacy)                                   \
  driver->name = reinterpret_cast<decltype(driver->name)>(                     \
      resolve(FGEMM_STRINGIFY(name), legacy));
#include "Runtime/CudaSymbols.def"

  // The version helps explain missing symbols, so ask before reporting them.
  int version = 0;
  if (driver->cuDriverGetVersion &&
      driver->cuDriverGetVersion(&version) == CUDA_SUCCESS)
    driver->driverVersion = version;
  if (!missing.empty()) {
    std::string versionText = driver->driverVersion
                                  ? formatCudaVersion(driver->driverVersion)
                                  : std::string("unknown");
    // The handle stays open: another Driver may share it, and unloading
    // libcuda is never safe once any symbol was taken.
    return Status::error("the CUDA driver library '" + library + "' (CUDA " +
                         versionText + ") lacks " + missing +
                         "; fgemm needs a driver for CUDA 12.0 or newer");
  }
  return driver;
}

Expected<const Driver *> Driver::get() {
  // Function-local statics are initialized once, thread-safely.
  static Expected<const Driver *> result = []() -> Expected<const Driver *> {
    Expected<std::unique_ptr<Driver>> opened = open("libcuda.so.1");
    if (!opened.ok())
      return opened.takeStatus();
    CUresult init = (*opened)->cuInit(0);
    const Driver *driver = opened->release();
    // Published before cuInit's error is formatted so cuError can name it.
    processDriver.store(driver);
    if (init != CUDA_SUCCESS)
      return cuError(init, "cuInit(0)", __FILE__, __LINE__)
          .withContext("the CUDA driver did not initialize (no usable GPU?)");
    return driver;
  }();
  return result;
}
