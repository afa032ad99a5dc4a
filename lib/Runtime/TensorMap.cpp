//===- TensorMap.cpp - TMA descriptors of described arguments ---*- C++ -*-===//
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

CUtensorMapDataType fgemm::tensorMapDataType(ElementType type) {
  switch (type) {
  case ElementType::E4M3:
  case ElementType::E5M2:
    // TMA copies bytes; the FP8 interpretation is WGMMA's.
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case ElementType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case ElementType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case ElementType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
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

/// a * b, or UINT64_MAX when that overflows (the stride checks reject it).
static uint64_t saturatingMul(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

static uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/// Why `arg` has no tensor-map rule, or "" if it has one.
static std::string missingRule(const KernelArg &arg) {
  size_t rank = arg.dims.size();
  if (arg.kind == KernelArg::Kind::Tensor) {
    if (rank < 2)
      return "no tensor-map rule for a " + std::to_string(rank) +
             "-D tensor (allowed: 2-D, or 3-D with a leading group "
             "dimension; pass it as `pointer`)";
    return "";
  }
  if (arg.element != ElementType::F32)
    return std::string("no tensor-map rule for ") +
           elementTypeName(arg.element) + " scales (allowed: f32)";
  if (arg.perTensor)
    return "no tensor-map rule for per_tensor scales (one value: pass them "
           "as `pointer`)";
  if (arg.mnMajor && arg.block[0] != 1)
    return "no tensor-map rule for M-major scales with block " +
           std::to_string(arg.block[0]) + "x" + std::to_string(arg.block[1]) +
           " (allowed: block=1xB)";
  return "";
}

Status fgemm::checkTensorMapParam(const KernelArg &arg,
                                  const KernelParam &param) {
  std::string why = missingRule(arg);
  if (!why.empty())
    return Status::error(why);
  for (int i = 0; i < 2; ++i)
    if (param.box[i] == 0 || param.box[i] > 256)
      return Status::error("box dimension " + std::to_string(i) + " = " +
                           std::to_string(param.box[i]) +
                           " (allowed: 1 to 256)");
  // The inner box row must be a multiple of 16 bytes (TMA without
  // interleave), and a swizzled row at most the swizzle pattern's span.
  uint64_t rowBytes = uint64_t(param.box[0]) * elementBytes(arg.element);
  if (rowBytes % 16 != 0)
    return Status::error("inner box of " + std::to_string(param.box[0]) + " " +
                         elementTypeName(arg.element) + " is " +
                         std::to_string(rowBytes) +
                         " bytes, not a multiple of 16");
  uint32_t span = swizzleSpanBytes(param.swizzle);
  if (span && rowBytes > span)
    return Status::error("inner box of " + std::to_string(rowBytes) +
                         " bytes exceeds the " + std::to_string(span) +
                         "-byte swizzle span (allowed: at most " +
                         std::to_string(span) + " bytes)");
  return Status::success();
}

Expected<TensorMapDesc>
fgemm::describeTensorMap(const KernelMeta &meta, size_t param,
                         const std::vector<int64_t> &dimValues,
                         CUdeviceptr base, const std::string &operand) {
  std::string what = "TMA descriptor of " + operand + ": ";
  if (param >= meta.params.size() ||
      meta.params[param].kind != KernelParam::Kind::TensorMap ||
      meta.params[param].arg >= meta.args.size())
    return Status::error(what + "param." + std::to_string(param) +
                         " is not a tensor_map over an argument");
  const KernelParam &p = meta.params[param];
  const KernelArg &arg = meta.args[p.arg];
  Status rule = checkTensorMapParam(arg, p);
  if (!rule.ok())
    return std::move(rule).withContext(what.substr(0, what.size() - 2));
  // The argument's extents, outermost first.
  std::vector<uint64_t> extents;
  for (const std::string &name : arg.dims) {
    int index = meta.dimIndex(name);
    if (index < 0 || size_t(index) >= dimValues.size() ||
        dimValues[size_t(index)] < 0)
      return Status::error(what + "no value for dimension '" + name + "'");
    extents.push_back(uint64_t(dimValues[size_t(index)]));
  }

  TensorMapDesc desc;
  desc.operand = operand;
  desc.base = base;
  desc.rank = uint32_t(extents.size());
  desc.box[0] = p.box[0];
  desc.box[1] = p.box[1];
  desc.swizzle = p.swizzle;
  // The two innermost dimensions as a matrix of `rows` x `columns` elements
  // `rowStride` bytes apart; a 3-D argument adds an outermost group
  // dimension of whole matrices.
  uint64_t d0 = extents[desc.rank - 2], d1 = extents[desc.rank - 1];
  uint64_t columns, rows, elementSize;
  if (arg.kind == KernelArg::Kind::Tensor) {
    desc.dataType = tensorMapDataType(arg.element);
    elementSize = elementBytes(arg.element);
    columns = d1;
    rows = d0;
  } else if (arg.mnMajor) {
    // One row of D0 scales (padded to 4, so rows are 16-byte aligned) per
    // block of B1 along D1: the layout DeepGEMM's SFA uses.
    desc.dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    elementSize = 4;
    columns = (d0 + 3) / 4 * 4;
    rows = ceilDiv(d1, arg.block[1]);
  } else {
    desc.dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    elementSize = 4;
    columns = ceilDiv(d1, arg.block[1]);
    rows = ceilDiv(d0, arg.block[0]);
  }
  desc.dims[0] = columns;
  desc.dims[1] = rows;
  desc.strides[0] = saturatingMul(columns, elementSize);
  if (desc.rank == 3) {
    desc.dims[2] = extents[0];
    desc.strides[1] = saturatingMul(desc.strides[0], rows);
    desc.box[2] = 1; // one group per copy
  }
  FGEMM_RETURN_IF_ERROR(validateTensorMapDesc(desc));
  return desc;
}

Status fgemm::validateTensorMapDesc(const TensorMapDesc &desc) {
  std::string what = "TMA descriptor of " + desc.operand + ": ";
  uint32_t elementBytes = tensorMapElementBytes(desc.dataType);
  if (elementBytes == 0)
    return Status::error(what + "unsupported data type " +
                         std::to_string(static_cast<int>(desc.dataType)));
  if (desc.rank < 2 || desc.rank > 3)
    return Status::error(what + "rank " + std::to_string(desc.rank) +
                         " (allowed: 2 or 3)");
  if (desc.base == 0)
    return Status::error(what + "null base address");
  if (desc.base % 16 != 0)
    return Status::error(what + "base address " + std::to_string(desc.base) +
                         " is not 16-byte aligned");
  for (uint32_t i = 0; i < desc.rank; ++i) {
    if (desc.dims[i] == 0 || desc.dims[i] > (uint64_t(1) << 32))
      return Status::error(what + "dimension " + std::to_string(i) + " = " +
                           std::to_string(desc.dims[i]) +
                           " (allowed: 1 to 2^32)");
    if (desc.box[i] == 0 || desc.box[i] > 256)
      return Status::error(what + "box dimension " + std::to_string(i) + " = " +
                           std::to_string(desc.box[i]) +
                           " (allowed: 1 to 256)");
    if (desc.elementStrides[i] == 0 || desc.elementStrides[i] > 8)
      return Status::error(what + "element stride " + std::to_string(i) +
                           " = " + std::to_string(desc.elementStrides[i]) +
                           " (allowed: 1 to 8)");
  }
  for (uint32_t i = 0; i + 1 < desc.rank; ++i) {
    std::string name = i == 0
                           ? "row stride "
                           : "dimension-" + std::to_string(i + 1) + " stride ";
    uint64_t stride = desc.strides[i];
    if (stride % 16 != 0)
      return Status::error(what + name + std::to_string(stride) +
                           " bytes is not a multiple of 16");
    if (stride >= (uint64_t(1) << 40))
      return Status::error(what + name + std::to_string(stride) +
                           " bytes is not below 2^40");
    // Each stride spans the whole of the dimensions inside it.
    uint64_t inner = i == 0 ? desc.dims[0] * elementBytes
                            : saturatingMul(desc.strides[i - 1], desc.dims[i]);
    if (stride < inner)
      return Status::error(what + name + std::to_string(stride) +
                           " bytes is shorter than " +
                           (i == 0 ? "a row" : "the dimensions inside it") +
                           " of " + std::to_string(inner));
  }
  uint64_t boxRowBytes = uint64_t(desc.box[0]) * elementBytes;
  if (desc.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && boxRowBytes % 16 != 0)
    return Status::error(what + "box row of " + std::to_string(boxRowBytes) +
                         " bytes is not a multiple of 16");
  uint32_t span = swizzleSpanBytes(desc.swizzle);
  if (span && boxRowBytes > span)
    return Status::error(what + "box row of " + std::to_string(boxRowBytes) +
                         " bytes exceeds the " + std::to_string(span) +
                         "-byte swizzle span");
  return Status::success();
}

Expected<CUtensorMap> fgemm::encodeTensorMap(const Driver &driver,
                                             const TensorMapDesc &desc) {
  FGEMM_RETURN_IF_ERROR(validateTensorMapDesc(desc));
  CUtensorMap map;
  cuuint64_t dims[3] = {desc.dims[0], desc.dims[1], desc.dims[2]};
  cuuint64_t strides[2] = {desc.strides[0], desc.strides[1]};
  cuuint32_t box[3] = {desc.box[0], desc.box[1], desc.box[2]};
  cuuint32_t elementStrides[3] = {
      desc.elementStrides[0], desc.elementStrides[1], desc.elementStrides[2]};
  CUresult result = driver.cuTensorMapEncodeTiled(
      &map, desc.dataType, desc.rank, reinterpret_cast<void *>(desc.base), dims,
      strides, box, elementStrides, desc.interleave, desc.swizzle,
      desc.l2Promotion, desc.oobFill);
  if (result != CUDA_SUCCESS) {
    std::string shape = "dims " + std::to_string(desc.dims[0]),
                boxText = "box " + std::to_string(desc.box[0]);
    for (uint32_t i = 1; i < desc.rank; ++i) {
      shape += " x " + std::to_string(desc.dims[i]);
      boxText += " x " + std::to_string(desc.box[i]);
    }
    return cuError(result, "cuTensorMapEncodeTiled", __FILE__, __LINE__)
        .withContext("TMA descriptor of " + desc.operand + " (" + shape + ", " +
                     boxText + ")");
  }
  return map;
}
