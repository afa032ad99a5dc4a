//===- TensorMap.h - TMA descriptors of the dense GEMM ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The four TMA descriptors a dense fgemm kernel takes (docs/ABI.md): A and B
// (e4m3, 128B swizzle), SFA (fp32, M-major, padded to 4 rows) and D (bf16).
// Their parameters are computed by pure functions and validated against the
// cuTensorMapEncodeTiled rules before the driver sees them, so the math and
// the error messages are unit-tested without a GPU; encodeTensorMap is the
// one function that calls the driver.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_TENSORMAP_H
#define FGEMM_RUNTIME_TENSORMAP_H

#include "Runtime/Driver.h"
#include "Runtime/KernelMeta.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace fgemm {

/// The arguments of one cuTensorMapEncodeTiled call for a rank-2 tensor.
/// Index 0 is the contiguous (innermost) dimension.
struct TensorMapDesc {
  std::string operand; ///< "A", "B", "SFA", "D": for messages
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  CUdeviceptr base = 0;
  uint64_t dims[2] = {0, 0};
  uint64_t rowStrideBytes = 0; ///< globalStrides[0]: bytes between rows
  uint32_t box[2] = {0, 0};
  uint32_t elementStrides[2] = {1, 1};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  /// NONE fills out-of-bounds elements with zeros, which partial tiles and a
  /// partial last K block rely on.
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// A dense GEMM problem: device pointers and sizes (docs/ABI.md data contract).
struct DenseGemmProblem {
  CUdeviceptr a = 0, sfa = 0, b = 0, sfb = 0, d = 0;
  int64_t m = 0, n = 0, k = 0;
};

/// The descriptors of a dense launch, in kernel parameter order.
struct DenseTensorMapDescs {
  TensorMapDesc a, b, sfa, d;
};

/// Bytes per element of a TMA data type (0 for types fgemm never uses).
uint32_t tensorMapElementBytes(CUtensorMapDataType type);

/// M rounded up to 4: SFA's padded M extent (16-byte TMA row stride).
inline int64_t alignedSfaRows(int64_t m) { return (m + 3) / 4 * 4; }

/// ceil(x / 128): the number of 128-wide scale blocks.
inline int64_t scaleBlocks(int64_t x) { return (x + 127) / 128; }

/// Checks one descriptor against cuTensorMapEncodeTiled's rules (16-byte
/// aligned base and stride, 1 <= dims <= 2^32, stride < 2^40, 1 <= box <=
/// 256, 16-byte box rows, swizzle span).
Status validateTensorMapDesc(const TensorMapDesc &desc);

/// The four descriptors for `problem` run by the kernel `meta`, validated.
/// The problem must be non-empty (M, N, K > 0).
Expected<DenseTensorMapDescs> computeDenseTensorMaps(const KernelMeta &meta,
                                                     const DenseGemmProblem &problem);

/// Encodes `desc` with the driver (after validating it again).
Expected<CUtensorMap> encodeTensorMap(const Driver &driver,
                                      const TensorMapDesc &desc);

} // namespace fgemm

#endif // FGEMM_RUNTIME_TENSORMAP_H
