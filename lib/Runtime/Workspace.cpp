//===- Workspace.cpp - scratch memory of kernels, per stream ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Workspace.h"

#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

using namespace fgemm;

namespace {
struct StreamKey {
  CUcontext context;
  CUstream stream;
  std::thread::id thread; ///< the per-thread default stream's thread
  bool operator<(const StreamKey &o) const {
    return std::tie(context, stream, thread) <
           std::tie(o.context, o.stream, o.thread);
  }
};
struct Buffer {
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};
} // namespace

/// Buffers are allocated in steps of this many bytes.
static constexpr size_t kGranularity = size_t(1) << 20;

Expected<CUdeviceptr> fgemm::acquireWorkspace(const Driver &driver,
                                              CUcontext context,
                                              CUstream stream, size_t bytes) {
  static std::mutex mutex;
  static std::map<StreamKey, Buffer> buffers;
  // A grown stream's old buffer may still be in use by its queued launches:
  // it is kept, never freed.
  static std::vector<CUdeviceptr> retired;
  StreamKey key{context, stream, std::thread::id()};
  if (stream == CU_STREAM_PER_THREAD)
    key.thread = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mutex);
  Buffer &buffer = buffers[key];
  if (buffer.bytes >= bytes)
    return buffer.pointer;
  size_t size = (bytes + kGranularity - 1) / kGranularity * kGranularity;
  CUdeviceptr pointer = 0;
  FGEMM_CU_CHECK(driver.cuMemAlloc(&pointer, size));
  // Zeroed on the stream, so before any launch that follows on it.
  CUresult zeroed = driver.cuMemsetD32Async(pointer, 0, size / 4, stream);
  if (zeroed != CUDA_SUCCESS) {
    driver.cuMemFree(pointer);
    FGEMM_CU_CHECK(zeroed);
  }
  if (buffer.pointer)
    retired.push_back(buffer.pointer);
  buffer = Buffer{pointer, size};
  return pointer;
}
