//===- Module.cpp - Cubin loading and kernel launch -------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Module.h"

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace fgemm;

Expected<Module> Module::loadData(const Driver &driver,
                                  const std::vector<char> &image,
                                  const std::string &name) {
  // An ELF cubin starts with 0x7f 'E' 'L' 'F'; anything else (a PTX file, a
  // fatbin, an empty file) would give the driver's vaguer INVALID_IMAGE.
  if (image.size() < 4 || image[0] != 0x7f || image[1] != 'E' ||
      image[2] != 'L' || image[3] != 'F')
    return Status::error("'" + name + "' is not a cubin (no ELF header)");
  CUmodule module = nullptr;
  CUresult result = driver.cuModuleLoadData(&module, image.data());
  if (result != CUDA_SUCCESS) {
    Status error = cuError(result, "cuModuleLoadData", __FILE__, __LINE__);
    if (result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
        result == CUDA_ERROR_INVALID_IMAGE)
      return std::move(error).withContext(
          "cannot load '" + name +
          "' (was it compiled for this GPU's architecture?)");
    return std::move(error).withContext("cannot load '" + name + "'");
  }
  return Module(driver, module, name);
}

Expected<Module> Module::loadFile(const Driver &driver,
                                  const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open cubin '" + path + "'");
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  if (file.bad())
    return Status::error("cannot read cubin '" + path + "'");
  return loadData(driver, image, path);
}

Module::Module(Module &&other) noexcept
    : driver(other.driver), module(other.module),
      moduleName(std::move(other.moduleName)) {
  other.module = nullptr;
}

Module::~Module() {
  if (module)
    (void)driver->cuModuleUnload(module);
}

Expected<CUfunction> Module::function(const std::string &symbol) const {
  CUfunction function = nullptr;
  CUresult result =
      driver->cuModuleGetFunction(&function, module, symbol.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    return Status::error("no kernel '" + symbol + "' in '" + moduleName +
                         "' (does the .meta 'kernel' key match the cubin?)");
  if (result != CUDA_SUCCESS)
    return cuError(result, "cuModuleGetFunction", __FILE__, __LINE__)
        .withContext("kernel '" + symbol + "' in '" + moduleName + "'");
  return function;
}

Status fgemm::validateLaunchDims(const LaunchDims &dims) {
  for (int i = 0; i < 3; ++i)
    if (dims.grid[i] == 0 || dims.block[i] == 0)
      return Status::error("launch with an empty grid or block");
  if (dims.grid[0] > 0x7fffffffu || dims.grid[1] > 65535 ||
      dims.grid[2] > 65535)
    return Status::error("grid (" + std::to_string(dims.grid[0]) + ", " +
                         std::to_string(dims.grid[1]) + ", " +
                         std::to_string(dims.grid[2]) +
                         ") exceeds the limits (2^31-1, 65535, 65535)");
  uint64_t threads = uint64_t(dims.block[0]) * dims.block[1] * dims.block[2];
  if (threads > 1024)
    return Status::error("block of " + std::to_string(threads) +
                         " threads exceeds 1024");
  if (dims.cluster > 8 || (dims.cluster && dims.grid[0] % dims.cluster != 0))
    return Status::error("grid x = " + std::to_string(dims.grid[0]) +
                         " is not a multiple of cluster size " +
                         std::to_string(dims.cluster) + " (at most 8)");
  return Status::success();
}

Status fgemm::prepareFunction(const Driver &driver, CUfunction function,
                              const std::string &symbol, uint32_t bytes,
                              uint32_t threads) {
  int staticBytes = 0, maxThreads = 0, optin = 0;
  FGEMM_CU_CHECK(driver.cuFuncGetAttribute(
      &staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function));
  CUdevice device;
  FGEMM_CU_CHECK(driver.cuCtxGetDevice(&device));
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
  if (uint64_t(staticBytes) + bytes > uint64_t(optin))
    return Status::error("kernel '" + symbol + "' needs " +
                         std::to_string(bytes) + " bytes of dynamic plus " +
                         std::to_string(staticBytes) +
                         " bytes of static shared memory; the device allows " +
                         std::to_string(optin));
  FGEMM_CU_CHECK(driver.cuFuncSetAttribute(
      function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      static_cast<int>(bytes)));
  // Read after raising the shared memory limit: it can lower this one.
  FGEMM_CU_CHECK(driver.cuFuncGetAttribute(
      &maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function));
  if (uint64_t(threads) > uint64_t(maxThreads))
    return Status::error("kernel '" + symbol + "' is launched with " +
                         std::to_string(threads) +
                         " threads but can run at most " +
                         std::to_string(maxThreads) + " (register use?)");
  return Status::success();
}

Expected<int> fgemm::residentClusterCtas(const Driver &driver,
                                         CUfunction function, uint32_t threads,
                                         uint32_t bytes, uint32_t cluster,
                                         int sms) {
  CUlaunchConfig config = {};
  config.gridDimX = std::max<uint32_t>(uint32_t(sms) / cluster, 1) * cluster;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = threads;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = bytes;
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster;
  attribute.value.clusterDim.y = attribute.value.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  FGEMM_CU_CHECK(
      driver.cuOccupancyMaxActiveClusters(&clusters, function, &config));
  return std::min<int>(sms, clusters * int(cluster));
}

Status fgemm::launchKernel(const Driver &driver, CUfunction function,
                           const LaunchDims &dims, CUstream stream,
                           void **params) {
  FGEMM_RETURN_IF_ERROR(validateLaunchDims(dims));
  CUlaunchConfig config = {};
  config.gridDimX = dims.grid[0];
  config.gridDimY = dims.grid[1];
  config.gridDimZ = dims.grid[2];
  config.blockDimX = dims.block[0];
  config.blockDimY = dims.block[1];
  config.blockDimZ = dims.block[2];
  config.sharedMemBytes = dims.sharedBytes;
  config.hStream = stream;
  CUlaunchAttribute attribute = {};
  if (dims.cluster) {
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = dims.cluster;
    attribute.value.clusterDim.y = 1;
    attribute.value.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  FGEMM_CU_CHECK(driver.cuLaunchKernelEx(&config, function, params,
                                         /*extra=*/nullptr));
  return Status::success();
}
