//===- ScaleLayout.h - The runtime's scale re-layout kernel -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The kernels read SFA (and the 1D1D recipe's SFB) MN-major with the rows
// padded to a multiple of 4 (16 bytes: DeepGEMM's TMA-aligned layout).
// Callers often hold them row-major ([rows, K / 128] as quantization makes
// them): ScaleLayoutKernel re-lays them out on the GPU in one launch of a
// kernel of fgemm's own (ScaleLayout.cu, compiled by nvcc at build time and
// embedded in the library), so that no framework op is needed.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_SCALELAYOUT_H
#define FGEMM_RUNTIME_SCALELAYOUT_H

#include "Runtime/Module.h"

#include <cstdint>

namespace fgemm {

/// A copy of FP32 scales src[g][r][c] (element strides strideGroup,
/// strideRow, strideCol) into dst [groups][cols][alignedRows(rows)], the
/// padding rows zeroed.
struct ScalesToMnMajor {
  CUdeviceptr src = 0, dst = 0;
  int64_t groups = 0, rows = 0, cols = 0;
  int64_t strideGroup = 0, strideRow = 0, strideCol = 0;

  /// rows rounded up to a multiple of 4.
  int64_t alignedRows() const { return (rows + 3) / 4 * 4; }
  /// What is wrong with the copy (dimensions, strides, alignment, launch
  /// limits), naming the argument and the rule; success if nothing.
  Status validate() const;
};

/// The re-layout kernel, loaded into the current context.
class ScaleLayoutKernel {
public:
  static Expected<ScaleLayoutKernel> load(const Driver &driver);
  /// Validates `copy` and queues it on `stream`; nothing for an empty one.
  Status run(const ScalesToMnMajor &copy, CUstream stream) const;

private:
  ScaleLayoutKernel(const Driver &driver, Module module, CUfunction function)
      : driver(&driver), module(std::move(module)), function(function) {}
  const Driver *driver;
  Module module;
  CUfunction function;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_SCALELAYOUT_H
