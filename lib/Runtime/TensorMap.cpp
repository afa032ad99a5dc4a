//===- TensorMap.cpp - TMA descriptors of the dense GEMM --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/TensorMap.h"

#include <algorithm>

using namespace fgemm;

uint32_t fgemm::tensorMapElementBytes(CUtensorMapDataType type) {
  switch (type) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32:
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    return 4;
  default:
    return 0;
  }
}

/// The bytes one swizzle pattern spans along the inner dimension.
static uint32_t swizzleSpanBytes(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_32B:
    return 32;
  case CU_TENSOR_MAP_SWIZZLE_64B:
    return 64;
  case CU_TENSOR_MAP_SWIZZLE_128B:
    return 128;
  default:
    return 0;
  }
}

Status fgemm::validateTensorMapDesc(const TensorMapDesc &desc) {
  std::string what = "TMA descriptor of " + desc.operand + ": ";
  uint32_t elementBytes = tensorMapElementBytes(desc.dataType);
  if (elementBytes == 0)
    return Status::error(what + "unsupported data type " +
                         std::to_string(static_cast<int>(desc.dataType)));
  if (desc.base == 0)
    return Status::error(what + "null base address");
  if (desc.base % 16 != 0)
    return Status::error(what + "base address " + std::to_string(desc.base) +
                         " is not 16-byte aligned");
  for (int i = 0; i < 2; ++i) {
    if (desc.dims[i] == 0 || desc.dims[i] > (uint64_t(1) << 32))
      return Status::error(what + "dimension " + std::to_string(i) + " = " +
                           std::to_string(desc.dims[i]) +
                           " (allowed: 1 to 2^32)");
    if (desc.box[i] == 0 || desc.box[i] > 256)
      return Status::error(what + "box dimension " + std::to_string(i) +
                           " = " + std::to_string(desc.box[i]) +
                           " (allowed: 1 to 256)");
    if (desc.elementStrides[i] == 0 || desc.elementStrides[i] > 8)
      return Status::error(what + "element stride " + std::to_string(i) +
                           " = " + std::to_string(desc.elementStrides[i]) +
                           " (allowed: 1 to 8)");
  }
  if (desc.rowStrideBytes % 16 != 0)
    return Status::error(what + "row stride " +
                         std::to_string(desc.rowStrideBytes) +
                         " bytes is not a multiple of 16");
  if (desc.rowStrideBytes >= (uint64_t(1) << 40))
    return Status::error(what + "row stride " +
                         std::to_string(desc.rowStrideBytes) +
                         " bytes is not below 2^40");
  if (desc.rowStrideBytes < desc.dims[0] * elementBytes)
    return Status::error(what + "row stride " +
                         std::to_string(desc.rowStrideBytes) +
                         " bytes is shorter than a row of " +
                         std::to_string(desc.dims[0] * elementBytes));
  uint64_t boxRowBytes = uint64_t(desc.box[0]) * elementBytes;
  if (desc.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE &&
      boxRowBytes % 16 != 0)
    return Status::error(what + "box row of " + std::to_string(boxRowBytes) +
                         " bytes is not a multiple of 16");
  uint32_t span = swizzleSpanBytes(desc.swizzle);
  if (span && boxRowBytes > span)
    return Status::error(what + "box row of " + std::to_string(boxRowBytes) +
                         " bytes exceeds the " + std::to_string(span) +
                         "-byte swizzle span");
  return Status::success();
}

/// A rank-2 row-major tensor of `rows` x `columns` elements, `rowStride`
/// bytes apart, read in `boxColumns` x `boxRows` boxes.
static TensorMapDesc makeDesc(const char *operand, CUtensorMapDataType type,
                              CUdeviceptr base, int64_t columns, int64_t rows,
                              int64_t rowStride, uint32_t boxColumns,
                              uint32_t boxRows, CUtensorMapSwizzle swizzle) {
  TensorMapDesc desc;
  desc.operand = operand;
  desc.dataType = type;
  desc.base = base;
  desc.dims[0] = static_cast<uint64_t>(columns);
  desc.dims[1] = static_cast<uint64_t>(rows);
  desc.rowStrideBytes = static_cast<uint64_t>(rowStride);
  desc.box[0] = boxColumns;
  desc.box[1] = boxRows;
  desc.swizzle = swizzle;
  return desc;
}

Expected<DenseTensorMapDescs>
fgemm::computeDenseTensorMaps(const KernelMeta &meta,
                              const DenseGemmProblem &problem) {
  const int64_t m = problem.m, n = problem.n, k = problem.k;
  if (m <= 0 || n <= 0 || k <= 0)
    return Status::error("TMA descriptors need a non-empty problem, got M=" +
                         std::to_string(m) + " N=" + std::to_string(n) +
                         " K=" + std::to_string(k));
  DenseTensorMapDescs maps;
  // A [M, K] and B [N, K] e4m3, K contiguous; one 128-byte K slice per box
  // row, which is exactly the 128B swizzle span WGMMA reads.
  // In a cluster each CTA multicasts 1/cluster of the shared A tile.
  maps.a = makeDesc("A", CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.a, k, m, k,
                    meta.blockK, meta.blockM / std::max<uint32_t>(meta.cluster, 1),
                    CU_TENSOR_MAP_SWIZZLE_128B);
  maps.b = makeDesc("B", CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.b, k, n, k,
                    meta.blockK, meta.blockN, CU_TENSOR_MAP_SWIZZLE_128B);
  // SFA is M-major: one row per K block, M padded to 4 floats; a box is the
  // block_m scales of one K block.
  int64_t sfaRows = alignedSfaRows(m);
  maps.sfa = makeDesc("SFA", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, problem.sfa,
                      sfaRows, scaleBlocks(k), sfaRows * 4, meta.blockM, 1,
                      CU_TENSOR_MAP_SWIZZLE_NONE);
  // D [M, N] bf16; the TMA store clips the parts of a tile outside M x N.
  maps.d = makeDesc("D", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, problem.d, n, m,
                    n * 2, meta.blockN, meta.blockM,
                    CU_TENSOR_MAP_SWIZZLE_NONE);
  for (const TensorMapDesc *desc : {&maps.a, &maps.b, &maps.sfa, &maps.d})
    FGEMM_RETURN_IF_ERROR(validateTensorMapDesc(*desc));
  return maps;
}

Expected<CUtensorMap> fgemm::encodeTensorMap(const Driver &driver,
                                             const TensorMapDesc &desc) {
  FGEMM_RETURN_IF_ERROR(validateTensorMapDesc(desc));
  CUtensorMap map;
  cuuint64_t dims[2] = {desc.dims[0], desc.dims[1]};
  cuuint64_t strides[1] = {desc.rowStrideBytes};
  cuuint32_t box[2] = {desc.box[0], desc.box[1]};
  cuuint32_t elementStrides[2] = {desc.elementStrides[0],
                                  desc.elementStrides[1]};
  CUresult result = driver.cuTensorMapEncodeTiled(
      &map, desc.dataType, /*tensorRank=*/2,
      reinterpret_cast<void *>(desc.base), dims, strides, box,
      elementStrides, desc.interleave, desc.swizzle, desc.l2Promotion,
      desc.oobFill);
  if (result != CUDA_SUCCESS)
    return cuError(result, "cuTensorMapEncodeTiled", __FILE__, __LINE__)
        .withContext("TMA descriptor of " + desc.operand + " (dims " +
                     std::to_string(desc.dims[0]) + " x " +
                     std::to_string(desc.dims[1]) + ", box " +
                     std::to_string(desc.box[0]) + " x " +
                     std::to_string(desc.box[1]) + ")");
  return map;
}
