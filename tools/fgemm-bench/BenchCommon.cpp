//===- BenchCommon.cpp - What the dense and grouped runs share --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

#include "Runtime/Launch.h"
#include "Runtime/Timeline.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>

using namespace fgemm;
using namespace fgemm::bench;

CheckPartial
fgemm::bench::sumCheckPartials(const std::vector<CheckPartial> &partials) {
  CheckPartial total = {0, 0, -1, -1, 0, 0, 0};
  for (const CheckPartial &p : partials) {
    total.sumXY += p.sumXY;
    total.sumSquares += p.sumSquares;
    total.emuXY += p.emuXY;
    total.emuSquares += p.emuSquares;
    total.nonFinite += p.nonFinite;
    if (p.worstIndex >= 0 && p.maxRatio > total.maxRatio) {
      total.maxRatio = p.maxRatio;
      total.worstIndex = p.worstIndex;
    }
  }
  return total;
}

double fgemm::bench::calcDiffLimit(double quantization) {
  // DeepGEMM's 1e-3 assumes enough outputs for the quantization noise to
  // average out (it is 6.8e-4 on every benchmark shape). On a few dozen
  // outputs it can exceed 1e-3 by itself; there the kernel must stay within
  // 10% of the exact quantized math's own calc_diff.
  return std::max(kMaxDiff, kQuantizationMargin * quantization);
}

Status fgemm::bench::launchReference(const Driver &cu, CUfunction function,
                                     uint32_t gridX, uint32_t gridY,
                                     CUstream stream,
                                     std::vector<void *> params) {
  LaunchDims dims;
  dims.grid[0] = gridX;
  dims.grid[1] = gridY;
  dims.block[0] = 256;
  return launchKernel(cu, function, dims, stream, params.data());
}

Expected<double>
fgemm::bench::medianLaunchTime(const Driver &cu, CUstream stream,
                               CUdeviceptr flush, int iters,
                               const std::function<Status()> &launch) {
  for (int i = 0; i < kWarmupRuns; ++i)
    FGEMM_RETURN_IF_ERROR(launch());
  std::vector<Event> starts, stops;
  for (int i = 0; i < iters; ++i) {
    Expected<Event> start = Event::create(cu), stop = Event::create(cu);
    if (!start.ok())
      return start.takeStatus();
    if (!stop.ok())
      return stop.takeStatus();
    starts.push_back(std::move(*start));
    stops.push_back(std::move(*stop));
  }
  for (int i = 0; i < iters; ++i) {
    if (flush)
      FGEMM_CU_CHECK(
          cu.cuMemsetD32Async(flush, unsigned(i), kFlushBytes / 4, stream));
    FGEMM_RETURN_IF_ERROR(starts[i].record(stream));
    FGEMM_RETURN_IF_ERROR(launch());
    FGEMM_RETURN_IF_ERROR(stops[i].record(stream));
  }
  FGEMM_CU_CHECK(cu.cuStreamSynchronize(stream));
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    Expected<float> ms = stops[i].elapsedSince(starts[i]);
    if (!ms.ok())
      return ms.takeStatus();
    times.push_back(double(*ms) * 1e3);
  }
  std::sort(times.begin(), times.end());
  size_t half = times.size() / 2;
  return times.size() % 2 ? times[half] : 0.5 * (times[half - 1] + times[half]);
}

Expected<bool>
fgemm::bench::recordTimeline(const Driver &cu, CUstream stream,
                             CUdeviceptr flush, CUfunction function,
                             const std::string &path, const std::string &label,
                             const std::function<Status()> &launch) {
  FGEMM_RETURN_IF_ERROR(clearTimeline(cu, function, stream));
  Expected<double> ran = medianLaunchTime(cu, stream, flush, 1, launch);
  if (!ran.ok())
    return ran.takeStatus();
  Expected<std::optional<TimelineStamps>> read = readTimeline(cu, function);
  if (!read.ok())
    return read.takeStatus();
  if (!*read)
    return false;
  const TimelineStamps &timeline = **read;
  uint64_t first = UINT64_MAX;
  for (uint64_t stamp : timeline.stamps)
    if (stamp)
      first = std::min(first, stamp);
  std::ifstream existing(path);
  bool fresh =
      !existing || existing.peek() == std::ifstream::traits_type::eof();
  std::ofstream out(path, std::ios::app);
  if (!out)
    return Status::error("cannot write the timeline to '" + path + "'");
  if (fresh)
    out << "shape,cta,role,slot,ns\n";
  for (int32_t cta = 0; cta < timeline.ctas; ++cta)
    for (int32_t role = 0; role < timeline.roles; ++role)
      for (int32_t slot = 0; slot < timeline.slots; ++slot)
        if (uint64_t stamp = timeline.at(cta, role, slot))
          out << label << ',' << cta << ',' << role << ',' << slot << ','
              << stamp - first << '\n';
  if (!out)
    return Status::error("cannot write the timeline to '" + path + "'");
  return true;
}

int fgemm::bench::runShapes(
    const Driver &cu, size_t count,
    const std::function<ShapeOutcome(size_t)> &runShape) {
  int passed = 0, failed = 0, unchecked = 0;
  for (size_t i = 0; i < count; ++i) {
    ShapeOutcome outcome = runShape(i);
    if (!outcome.passed)
      ++failed;
    else if (outcome.counted)
      ++passed;
    else
      ++unchecked;
    // A launch failure can leave the context unusable; say so once instead
    // of one confusing error per remaining shape.
    if (outcome.error && cu.cuCtxSynchronize() != CUDA_SUCCESS) {
      size_t remaining = count - i - 1;
      std::printf("fgemm-bench: the CUDA context is unusable after this "
                  "error; %zu remaining shape(s) not run\n",
                  remaining);
      failed += int(remaining);
      break;
    }
  }
  std::printf("%d passed, %d failed", passed, failed);
  if (unchecked)
    std::printf(", %d unchecked", unchecked);
  std::printf("\n");
  return failed ? 1 : 0;
}
