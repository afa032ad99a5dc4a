//===- TensorMapTest.cpp - Tests of the TMA descriptor math -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/TensorMap.h"

#include <gtest/gtest.h>

using namespace fgemm;

namespace {

KernelMeta makeMeta(uint32_t blockM, uint32_t blockN) {
  KernelMeta meta;
  meta.kernel = "k";
  meta.variant = "dense";
  meta.blockM = blockM;
  meta.blockN = blockN;
  meta.blockK = 128;
  meta.stages = 4;
  meta.mathWarpgroups = blockM / 64;
  meta.threads = 128 * (1 + meta.mathWarpgroups);
  meta.smemBytes = 100000;
  meta.cluster = 1;
  return meta;
}

DenseGemmProblem makeProblem(int64_t m, int64_t n, int64_t k) {
  DenseGemmProblem problem;
  problem.a = 0x10000;
  problem.sfa = 0x20000;
  problem.b = 0x30000;
  problem.sfb = 0x40000;
  problem.d = 0x50000;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  return problem;
}

DenseTensorMapDescs compute(const KernelMeta &meta, int64_t m, int64_t n,
                            int64_t k) {
  Expected<DenseTensorMapDescs> descs =
      computeDenseTensorMaps(meta, makeProblem(m, n, k));
  EXPECT_TRUE(descs.ok()) << descs.status().message();
  return descs.ok() ? *descs : DenseTensorMapDescs();
}

} // namespace

TEST(TensorMap, Helpers) {
  EXPECT_EQ(alignedSfaRows(1), 4);
  EXPECT_EQ(alignedSfaRows(4), 4);
  EXPECT_EQ(alignedSfaRows(65), 68);
  EXPECT_EQ(scaleBlocks(128), 1);
  EXPECT_EQ(scaleBlocks(144), 2);
  EXPECT_EQ(scaleBlocks(7168), 56);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_UINT8), 1u);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16), 2u);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT32), 4u);
}

TEST(TensorMap, LargeAlignedShape) {
  DenseTensorMapDescs maps = compute(makeMeta(128, 128), 4096, 7168, 7168);
  // A [M, K] e4m3: dims {K, M}, K-byte rows, 128 x block_m boxes, 128B swizzle.
  EXPECT_EQ(maps.a.dataType, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(maps.a.base, 0x10000u);
  EXPECT_EQ(maps.a.dims[0], 7168u);
  EXPECT_EQ(maps.a.dims[1], 4096u);
  EXPECT_EQ(maps.a.rowStrideBytes, 7168u);
  EXPECT_EQ(maps.a.box[0], 128u);
  EXPECT_EQ(maps.a.box[1], 128u);
  EXPECT_EQ(maps.a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(maps.a.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  // B [N, K].
  EXPECT_EQ(maps.b.base, 0x30000u);
  EXPECT_EQ(maps.b.dims[0], 7168u);
  EXPECT_EQ(maps.b.dims[1], 7168u);
  EXPECT_EQ(maps.b.box[1], 128u);
  EXPECT_EQ(maps.b.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  // SFA: M-major, one row of align(M, 4) floats per K block.
  EXPECT_EQ(maps.sfa.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(maps.sfa.base, 0x20000u);
  EXPECT_EQ(maps.sfa.dims[0], 4096u);
  EXPECT_EQ(maps.sfa.dims[1], 56u);
  EXPECT_EQ(maps.sfa.rowStrideBytes, 4096u * 4);
  EXPECT_EQ(maps.sfa.box[0], 128u);
  EXPECT_EQ(maps.sfa.box[1], 1u);
  EXPECT_EQ(maps.sfa.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
  // D [M, N] bf16.
  EXPECT_EQ(maps.d.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(maps.d.base, 0x50000u);
  EXPECT_EQ(maps.d.dims[0], 7168u);
  EXPECT_EQ(maps.d.dims[1], 4096u);
  EXPECT_EQ(maps.d.rowStrideBytes, 7168u * 2);
  EXPECT_EQ(maps.d.box[0], 128u);
  EXPECT_EQ(maps.d.box[1], 128u);
  EXPECT_EQ(maps.d.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
}

TEST(TensorMap, SingleRow) {
  // M = 1: boxes larger than the tensor are fine (TMA zero-fills), SFA pads
  // M to 4 floats so its row stride is 16 bytes.
  DenseTensorMapDescs maps = compute(makeMeta(64, 16), 1, 64, 128);
  EXPECT_EQ(maps.a.dims[1], 1u);
  EXPECT_EQ(maps.a.box[1], 64u);
  EXPECT_EQ(maps.sfa.dims[0], 4u);
  EXPECT_EQ(maps.sfa.dims[1], 1u);
  EXPECT_EQ(maps.sfa.rowStrideBytes, 16u);
  EXPECT_EQ(maps.sfa.box[0], 64u);
  EXPECT_EQ(maps.d.dims[0], 64u);
  EXPECT_EQ(maps.d.dims[1], 1u);
  EXPECT_EQ(maps.d.box[0], 16u);
  EXPECT_EQ(maps.d.box[1], 64u);
  EXPECT_EQ(maps.d.rowStrideBytes, 128u);
}

TEST(TensorMap, RowCountNotAMultipleOfFour) {
  DenseTensorMapDescs maps = compute(makeMeta(128, 64), 65, 2112, 7168);
  EXPECT_EQ(maps.sfa.dims[0], 68u);
  EXPECT_EQ(maps.sfa.rowStrideBytes, 68u * 4);
  EXPECT_EQ(maps.sfa.dims[1], 56u);
  EXPECT_EQ(maps.b.box[1], 64u);
  EXPECT_EQ(maps.d.box[0], 64u);
}

TEST(TensorMap, PartialLastKBlock) {
  // K = 144: a full and a 16-wide K block; TMA zero-fills the rest.
  DenseTensorMapDescs maps = compute(makeMeta(128, 128), 256, 256, 144);
  EXPECT_EQ(maps.a.dims[0], 144u);
  EXPECT_EQ(maps.a.rowStrideBytes, 144u);
  EXPECT_EQ(maps.b.rowStrideBytes, 144u);
  EXPECT_EQ(maps.sfa.dims[1], 2u);
}

TEST(TensorMap, RejectsBadProblems) {
  KernelMeta meta = makeMeta(128, 128);
  Expected<DenseTensorMapDescs> empty =
      computeDenseTensorMaps(meta, makeProblem(0, 128, 128));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("non-empty"), std::string::npos);

  DenseGemmProblem misaligned = makeProblem(128, 128, 128);
  misaligned.sfa += 8;
  Expected<DenseTensorMapDescs> error = computeDenseTensorMaps(meta, misaligned);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("TMA descriptor of SFA: base address"),
            std::string::npos)
      << error.status().message();

  // K = 24: 24-byte rows of A are not a 16-byte multiple.
  Expected<DenseTensorMapDescs> stride =
      computeDenseTensorMaps(meta, makeProblem(128, 128, 24));
  ASSERT_FALSE(stride.ok());
  EXPECT_NE(stride.status().message().find(
                "TMA descriptor of A: row stride 24 bytes is not a multiple of 16"),
            std::string::npos)
      << stride.status().message();
}

TEST(TensorMap, ValidatesDescriptorRules) {
  TensorMapDesc good;
  good.operand = "X";
  good.dataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  good.base = 0x1000;
  good.dims[0] = 256;
  good.dims[1] = 64;
  good.rowStrideBytes = 256;
  good.box[0] = 128;
  good.box[1] = 64;
  good.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  ASSERT_TRUE(validateTensorMapDesc(good).ok());

  auto errorOf = [](const TensorMapDesc &desc) {
    Status status = validateTensorMapDesc(desc);
    return status.ok() ? std::string() : status.message();
  };
  TensorMapDesc desc = good;
  desc.base = 0;
  EXPECT_NE(errorOf(desc).find("null base"), std::string::npos);
  desc = good;
  desc.dims[1] = 0;
  EXPECT_NE(errorOf(desc).find("dimension 1 = 0"), std::string::npos);
  desc = good;
  desc.dims[1] = (uint64_t(1) << 32) + 1;
  EXPECT_NE(errorOf(desc).find("allowed: 1 to 2^32"), std::string::npos);
  desc = good;
  desc.box[1] = 257;
  EXPECT_NE(errorOf(desc).find("box dimension 1 = 257"), std::string::npos);
  desc = good;
  desc.rowStrideBytes = uint64_t(1) << 40;
  EXPECT_NE(errorOf(desc).find("not below 2^40"), std::string::npos);
  desc = good;
  desc.rowStrideBytes = 128;
  EXPECT_NE(errorOf(desc).find("shorter than a row of 256"), std::string::npos);
  desc = good;
  desc.box[0] = 256;
  EXPECT_NE(errorOf(desc).find("exceeds the 128-byte swizzle span"),
            std::string::npos);
  desc = good;
  desc.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  desc.box[0] = 24;
  EXPECT_NE(errorOf(desc).find("box row of 24 bytes is not a multiple of 16"),
            std::string::npos);
  desc = good;
  desc.elementStrides[0] = 9;
  EXPECT_NE(errorOf(desc).find("element stride 0 = 9"), std::string::npos);
  desc = good;
  desc.dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  EXPECT_NE(errorOf(desc).find("unsupported data type"), std::string::npos);
}

TEST(TensorMap, ClusterSplitsTheSharedATile) {
  KernelMeta meta = makeMeta(128, 128);
  meta.cluster = 2;
  DenseTensorMapDescs maps = compute(meta, 4096, 7168, 7168);
  // Each CTA of the pair multicasts 64 of the tile's 128 rows of A.
  EXPECT_EQ(maps.a.box[0], 128u);
  EXPECT_EQ(maps.a.box[1], 64u);
  EXPECT_EQ(maps.b.box[1], 128u);
}
