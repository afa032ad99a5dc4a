//===- TensorMap.h - TMA descriptors of described arguments -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// A `tensor_map` parameter of a kernel description (docs/ABI.md) is a TMA
// descriptor over one of the kernel's arguments. Its global shape follows
// from the argument's description and the launch's dimension values, its
// box and swizzle come from the description; everything else (interleave,
// L2 promotion, zero fill of out-of-bounds elements, unit element strides)
// is fixed here. The rules are pure functions, validated against the
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
#include <vector>

namespace fgemm {

/// The arguments of one cuTensorMapEncodeTiled call for a rank-2 or rank-3
/// tensor. Index 0 is the contiguous (innermost) dimension; entries past
/// `rank` are unused.
struct TensorMapDesc {
  std::string operand; ///< names the parameter and argument in messages
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  CUdeviceptr base = 0;
  uint32_t rank = 2;
  uint64_t dims[3] = {0, 0, 0};
  /// globalStrides: bytes between consecutive indices of dimensions 1 and 2
  /// (dimension 0 is contiguous). strides[0] is the row stride.
  uint64_t strides[2] = {0, 0};
  uint32_t box[3] = {0, 0, 0};
  uint32_t elementStrides[3] = {1, 1, 1};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  /// NONE fills out-of-bounds elements with zeros, which partial tiles and a
  /// partial last K block rely on.
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// Bytes per element of a TMA data type (0 for types fgemm never uses).
uint32_t tensorMapElementBytes(CUtensorMapDataType type);

/// The TMA data type of an element type (e4m3 and e5m2 travel as UINT8).
CUtensorMapDataType tensorMapDataType(ElementType type);

/// Ok when the description has a tensor-map rule for `arg` (a 2-D or 3-D
/// tensor; f32 scales, M-major ones with block 1xB1) and `param`'s box and
/// swizzle suit it: box dimensions in [1, 256], inner box rows a multiple of
/// 16 bytes and at most the swizzle span.
Status checkTensorMapParam(const KernelArg &arg, const KernelParam &param);

/// The descriptor of tensor_map parameter `param` of `meta` over an argument
/// at `base`, for dimension values `dimValues` (in `meta.dims` order), named
/// `operand` in messages. Validated.
Expected<TensorMapDesc> describeTensorMap(const KernelMeta &meta, size_t param,
                                          const std::vector<int64_t> &dimValues,
                                          CUdeviceptr base,
                                          const std::string &operand);

/// Checks one descriptor against cuTensorMapEncodeTiled's rules (16-byte
/// aligned base and strides, 1 <= dims <= 2^32, strides < 2^40 and not
/// overlapping, 1 <= box <= 256, 16-byte box rows, swizzle span).
Status validateTensorMapDesc(const TensorMapDesc &desc);

/// Encodes `desc` with the driver (after validating it again).
Expected<CUtensorMap> encodeTensorMap(const Driver &driver,
                                      const TensorMapDesc &desc);

} // namespace fgemm

#endif // FGEMM_RUNTIME_TENSORMAP_H
