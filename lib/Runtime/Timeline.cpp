//===- Timeline.cpp - the timeline knob's stamps, read back -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Timeline.h"

#include <string>

using namespace fgemm;

namespace {
struct TimelineBuffer {
  CUdeviceptr stamps = 0;
  size_t bytes = 0;
  int32_t shape[3] = {0, 0, 0}; // CTAs, roles, slots
};
} // namespace

/// The module's two globals; nullopt without them.
static Expected<std::optional<TimelineBuffer>>
findTimeline(const Driver &cu, CUfunction function) {
  CUmodule module = nullptr;
  FGEMM_CU_CHECK(cu.cuFuncGetModule(&module, function));
  TimelineBuffer buffer;
  CUdeviceptr shape = 0;
  size_t shapeBytes = 0;
  CUresult found =
      cu.cuModuleGetGlobal(&shape, &shapeBytes, module, "fgemm_timeline_shape");
  if (found == CUDA_ERROR_NOT_FOUND)
    return std::optional<TimelineBuffer>();
  if (found != CUDA_SUCCESS)
    return cuError(found, "cuModuleGetGlobal", __FILE__, __LINE__);
  if (shapeBytes != sizeof(buffer.shape))
    return Status::error("fgemm_timeline_shape holds " +
                         std::to_string(shapeBytes) +
                         " bytes, expected 12 (three i32)");
  FGEMM_CU_CHECK(cu.cuMemcpyDtoH(buffer.shape, shape, sizeof(buffer.shape)));
  FGEMM_CU_CHECK(cu.cuModuleGetGlobal(&buffer.stamps, &buffer.bytes, module,
                                      "fgemm_timeline"));
  uint64_t expected = uint64_t(8) * uint64_t(buffer.shape[0]) *
                      uint64_t(buffer.shape[1]) * uint64_t(buffer.shape[2]);
  if (buffer.shape[0] <= 0 || buffer.shape[1] <= 0 || buffer.shape[2] <= 0 ||
      buffer.bytes != expected)
    return Status::error("fgemm_timeline holds " +
                         std::to_string(buffer.bytes) +
                         " bytes, which does not match its shape");
  return std::optional<TimelineBuffer>(buffer);
}

Expected<std::optional<TimelineStamps>>
fgemm::readTimeline(const Driver &cu, CUfunction function) {
  Expected<std::optional<TimelineBuffer>> buffer = findTimeline(cu, function);
  if (!buffer.ok())
    return buffer.takeStatus();
  if (!*buffer)
    return std::optional<TimelineStamps>();
  TimelineStamps timeline;
  timeline.ctas = (*buffer)->shape[0];
  timeline.roles = (*buffer)->shape[1];
  timeline.slots = (*buffer)->shape[2];
  timeline.stamps.resize((*buffer)->bytes / 8);
  FGEMM_CU_CHECK(cu.cuMemcpyDtoH(timeline.stamps.data(), (*buffer)->stamps,
                                 (*buffer)->bytes));
  return std::optional<TimelineStamps>(std::move(timeline));
}

Status fgemm::clearTimeline(const Driver &cu, CUfunction function,
                            CUstream stream) {
  Expected<std::optional<TimelineBuffer>> buffer = findTimeline(cu, function);
  if (!buffer.ok())
    return buffer.takeStatus();
  if (*buffer)
    FGEMM_CU_CHECK(cu.cuMemsetD32Async((*buffer)->stamps, 0,
                                       (*buffer)->bytes / 4, stream));
  return Status::success();
}
