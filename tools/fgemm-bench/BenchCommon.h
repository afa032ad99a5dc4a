//===- BenchCommon.h - What the dense and grouped runs share ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The reference kernels' check results and launches (Reference.cu), the
// accuracy limits, and the timing method of fgemm-bench: the median of
// launches between CUDA events, L2 flushed by a memset before each.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_BENCH_BENCHCOMMON_H
#define FGEMM_BENCH_BENCHCOMMON_H

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace fgemm::bench {

/// Mirrors CheckPartial in Reference.cu.
struct CheckPartial {
  double sumXY;
  double sumSquares;
  double maxRatio;
  long long worstIndex;
  unsigned long long nonFinite;
  double emuXY;
  double emuSquares;
};
static_assert(sizeof(CheckPartial) == 56, "must match Reference.cu");

constexpr size_t kFlushBytes = size_t(256) << 20;
constexpr int kWarmupRuns = 3;
constexpr double kMaxDiff = 1e-3;
/// The limit at outputs so small that the FP8 quantization alone moves
/// calc_diff past kMaxDiff: this factor times the exact quantized math's own
/// calc_diff (the kernel's bf16 rounding adds about 1e-6).
constexpr double kQuantizationMargin = 1.1;
/// The emulation check's tolerance: |d - emu| <= kRel |emu| + kAbsSum
/// sum|a b| + kAbs.
constexpr double kRelTolerance = 0x1p-7, kAbsSumTolerance = 0x1p-10,
                 kAbsTolerance = 1e-6;

/// The partials summed; worstIndex is the worst block's (-1: none).
CheckPartial sumCheckPartials(const std::vector<CheckPartial> &partials);

/// The calc_diff limit for outputs whose exact quantized math has
/// calc_diff `quantization`: max(kMaxDiff, kQuantizationMargin x it).
double calcDiffLimit(double quantization);

/// Launches a 256-thread reference kernel on a gridX x gridY grid.
Status launchReference(const Driver &cu, CUfunction function, uint32_t gridX,
                       uint32_t gridY, CUstream stream,
                       std::vector<void *> params);

/// The median time in us of `iters` calls of `launch` on `stream`, each
/// between two events after a memset of `flush` (kFlushBytes), which evicts
/// L2 and keeps the GPU busy while the host enqueues (so launch latency is
/// not timed), after kWarmupRuns untimed calls. A `flush` of 0 skips the
/// memset (--warm-l2).
Expected<double> medianLaunchTime(const Driver &cu, CUstream stream,
                                  CUdeviceptr flush, int iters,
                                  const std::function<Status()> &launch);

/// The SMs --choose plans for without --sms (no GPU to ask): H100 and H200
/// SXM; fgemm-precompile's --shapes plans for the same.
inline constexpr int kChoiceSmsWithoutGpu = 132;

/// What --timeline prints for a kernel compiled without the timeline knob.
inline constexpr const char *kNoTimelineNote =
    "no timeline: the kernel was compiled without the timeline knob";

/// --timeline: one more launch of `function` (after an L2 flush, as the timed
/// ones), its stamps appended to `path` as CSV rows `label,cta,role,slot,ns`
/// (ns from the launch's first stamp; docs/TIMELINE.md). False when the
/// kernel was compiled without the timeline knob.
Expected<bool> recordTimeline(const Driver &cu, CUstream stream,
                              CUdeviceptr flush, CUfunction function,
                              const std::string &path, const std::string &label,
                              const std::function<Status()> &launch);

/// How one shape ended: `error` (it could not run: a failure), `passed`,
/// and whether it was checked (or had nothing to check).
struct ShapeOutcome {
  bool error = false, passed = true, counted = true;
};

/// Runs shapes 0 .. count - 1 with `runShape` (which prints the shape's
/// row) and prints "P passed, F failed[, U unchecked]". After an error that
/// leaves the CUDA context unusable the remaining shapes are not run and
/// count as failed. Returns fgemm-bench's exit status (1: a shape failed).
int runShapes(const Driver &cu, size_t count,
              const std::function<ShapeOutcome(size_t)> &runShape);

} // namespace fgemm::bench

#endif // FGEMM_BENCH_BENCHCOMMON_H
