//===- Module.h - Cubin loading and kernel launch ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// A Module owns a loaded cubin (cuModuleLoadData) and unloads it when
// destroyed. launchKernel wraps cuLaunchKernelEx, adding the cluster
// dimension attribute where a kernel runs in clusters (of 2). The parameters a
// described kernel takes are packed by Launch.h.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_MODULE_H
#define FGEMM_RUNTIME_MODULE_H

#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fgemm {

/// A cubin loaded into the current context.
class Module {
public:
  /// Loads a cubin image; `name` identifies it in messages.
  static Expected<Module> loadData(const Driver &driver,
                                   const std::vector<char> &image,
                                   const std::string &name);
  /// Reads `path` and loads its bytes.
  static Expected<Module> loadFile(const Driver &driver,
                                   const std::string &path);

  Module(Module &&other) noexcept;
  Module &operator=(Module &&) = delete;
  Module(const Module &) = delete;
  ~Module();

  /// The entry point `symbol` (an error naming the module if absent).
  Expected<CUfunction> function(const std::string &symbol) const;
  const std::string &name() const { return moduleName; }

private:
  Module(const Driver &driver, CUmodule module, std::string name)
      : driver(&driver), module(module), moduleName(std::move(name)) {}
  const Driver *driver;
  CUmodule module;
  std::string moduleName;
};

/// Grid, block, dynamic shared memory and cluster size of a launch.
struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  /// CTAs per cluster along x; 0 launches without a cluster attribute.
  uint32_t cluster = 0;
};

/// Checks a launch's shape against the hardware limits (grid y/z <= 65535,
/// grid x < 2^31, block <= 1024 threads, grid x a multiple of the cluster).
Status validateLaunchDims(const LaunchDims &dims);

/// Raises the kernel's dynamic shared memory limit to `bytes` and checks
/// that the function's static shared memory plus `bytes` fits the device
/// and that it may run `threads` threads per block.
Status prepareFunction(const Driver &driver, CUfunction function,
                       const std::string &symbol, uint32_t bytes,
                       uint32_t threads);

/// How many CTAs of `function` (in clusters of `cluster`, `threads` threads
/// and `bytes` of dynamic shared memory each) can be resident at once, at
/// most `sms` (the driver's cuOccupancyMaxActiveClusters x `cluster`).
Expected<int> residentClusterCtas(const Driver &driver, CUfunction function,
                                  uint32_t threads, uint32_t bytes,
                                  uint32_t cluster, int sms);

/// cuLaunchKernelEx; `params` holds one pointer per kernel parameter.
Status launchKernel(const Driver &driver, CUfunction function,
                    const LaunchDims &dims, CUstream stream, void **params);

} // namespace fgemm

#endif // FGEMM_RUNTIME_MODULE_H
