//===- Workspace.h - scratch memory of kernels, per stream ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Kernels with a `workspace` parameter (docs/ABI.md: the stream-K schedule's
// partial tiles and flags) need global memory that is zero before their
// first launch and that no launch running at the same time shares. Launches
// on one stream run one after another, so one buffer per (context, stream)
// suffices: allocated and zeroed (on the stream, ahead of the launch) the
// first time a stream needs it, grown when a launch needs more, kept for
// the life of the process. The per-thread default stream is one stream per
// thread, so its buffers are per thread too.
//
// Under CUDA graph capture a stream's first use allocates (cuMemAlloc is
// not a stream operation) and records the zeroing in the graph, so every
// replay zeros the buffer before its kernels: correct, at the cost of one
// memset node per graph.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_WORKSPACE_H
#define FGEMM_RUNTIME_WORKSPACE_H

#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstddef>

namespace fgemm {

/// A zeroed buffer of at least `bytes` bytes private to `stream` of the
/// current context (which must be `context`). Thread-safe.
Expected<CUdeviceptr> acquireWorkspace(const Driver &driver, CUcontext context,
                                       CUstream stream, size_t bytes);

} // namespace fgemm

#endif // FGEMM_RUNTIME_WORKSPACE_H
