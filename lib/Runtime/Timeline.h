//===- Timeline.h - the timeline knob's stamps, read back -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// A kernel compiled with the `timeline` knob (a diagnostic) stamps
// %globaltimer into its module's global `fgemm_timeline` at fixed events of
// each CTA's warpgroups; `fgemm_timeline_shape` holds the buffer's shape.
// Layout and events: docs/TIMELINE.md. Kernels compiled without the knob
// have neither global, and reading gives nothing.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_TIMELINE_H
#define FGEMM_RUNTIME_TIMELINE_H

#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace fgemm {

struct TimelineStamps {
  int32_t ctas = 0, roles = 0, slots = 0;
  /// ctas x roles x slots nanoseconds of %globaltimer (slot meanings:
  /// docs/TIMELINE.md); 0 = not stamped.
  std::vector<uint64_t> stamps;
  uint64_t at(int32_t cta, int32_t role, int32_t slot) const {
    return stamps[(size_t(cta) * roles + role) * slots + slot];
  }
};

/// The stamps of `function`'s module; nullopt when it was compiled without
/// the knob.
Expected<std::optional<TimelineStamps>> readTimeline(const Driver &driver,
                                                     CUfunction function);

/// Zeroes the stamps on `stream` (nothing without the knob), so that a
/// launch's read shows only its own.
Status clearTimeline(const Driver &driver, CUfunction function,
                     CUstream stream);

} // namespace fgemm

#endif // FGEMM_RUNTIME_TIMELINE_H
