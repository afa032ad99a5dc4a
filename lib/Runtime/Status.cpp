//===- Status.cpp - CUresult to Status --------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Status.h"
#include "Runtime/Driver.h"

using namespace fgemm;

std::string fgemm::cuResultName(CUresult result) {
  const Driver *driver = loadedDriver();
  const char *name = nullptr;
  if (driver && driver->cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

Status fgemm::cuError(CUresult result, const char *call, const char *file,
                      int line) {
  std::string message = std::string(call) + " failed: " + cuResultName(result);
  const Driver *driver = loadedDriver();
  const char *text = nullptr;
  if (driver && driver->cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    message += std::string(" (") + text + ")";
  // Only the file name: full build paths add nothing for the reader.
  std::string path(file);
  size_t slash = path.find_last_of('/');
  message += " at " +
             (slash == std::string::npos ? path : path.substr(slash + 1)) +
             ":" + std::to_string(line);
  return Status::error(std::move(message));
}
