//===- GroupedBench.h - fgemm-bench's M-grouped runs -------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// fgemm-bench --grouped: runs, checks and times the M-grouped kernels
// (GroupedGemm) by the dense runs' method: inputs per NUMERICS.md §3 (each
// group's B quantized on its own), D poisoned before one run, each group's
// rows checked against the two GPU references like a dense output,
// m_indices' padding rows checked to be zeros and the rows the psum form
// and the masked layout must leave untouched (and 128 rows past the
// unpadded form's output) to hold the poison still, then
// the median of --iters timed launches with L2 flushed before each.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_BENCH_GROUPEDBENCH_H
#define FGEMM_BENCH_GROUPEDBENCH_H

#include "BenchOptions.h"

#include "Runtime/Driver.h"

namespace fgemm::bench {

/// Runs options.groupedShapes; the exit status of fgemm-bench.
int runGroupedBench(const Driver &cu, const Options &options,
                    CUfunction refGemm, CUfunction refCheck, CUstream stream,
                    CUdeviceptr flush);

/// --choose --grouped: per shape of options.groupedShapes, with its rows as
/// a run would draw them, the kernel of the directory the runtime's choice
/// (selectGroupedKernel) takes; no GPU needed. The exit status.
int chooseGroupedKernels(const Options &options);

} // namespace fgemm::bench

#endif // FGEMM_BENCH_GROUPEDBENCH_H
