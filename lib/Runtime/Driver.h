//===- Driver.h - dlopen'ed CUDA Driver API ---------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// fgemm never links libcuda: it opens libcuda.so.1 at run time and resolves
// the functions listed in CudaSymbols.def. Tools and tests therefore build
// and start on machines without a driver, and report "no driver" as an error
// value instead of failing in the dynamic loader.
//
// Calls read `driver.cuMemAlloc(...)`: the member names go through the same
// cuda.h macros as the API, so they carry the versioned ABI names.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_DRIVER_H
#define FGEMM_RUNTIME_DRIVER_H

#include "Runtime/Status.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace fgemm {

/// The resolved Driver API entry points of one opened libcuda.
class Driver {
public:
#define FGEMM_CU_SYMBOL(name) decltype(&::name) name = nullptr;
#include "Runtime/CudaSymbols.def"

  /// The process-wide driver: libcuda.so.1 opened, every symbol resolved and
  /// cuInit(0) called. Done once; later calls return the same result
  /// (including the same error when there is no driver or no device).
  static Expected<const Driver *> get();

  /// Opens `library` (a soname or a path) and resolves every symbol, without
  /// calling cuInit. The handle stays open for the life of the process.
  static Expected<std::unique_ptr<Driver>> open(const std::string &library);

  /// The driver's CUDA version (e.g. 12080), from cuDriverGetVersion; 0 if
  /// that call failed (stub libraries fail it).
  int version() const { return driverVersion; }

  /// The library it was opened from.
  const std::string &library() const { return libraryName; }

private:
  Driver() = default;
  int driverVersion = 0;
  std::string libraryName;
};

/// The driver opened by Driver::get(), or null before (or without) one. Used
/// to name CUresults in error messages.
const Driver *loadedDriver();

/// "12.8" for 12080.
std::string formatCudaVersion(int version);

} // namespace fgemm

#endif // FGEMM_RUNTIME_DRIVER_H
