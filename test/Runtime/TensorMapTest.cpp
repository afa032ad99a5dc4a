//===- TensorMapTest.cpp - Tests of the TMA descriptor math -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"

#include "Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fgemm;
using fgemm::test::DenseConfig;
using fgemm::test::denseDescription;

namespace {

KernelMeta parse(const std::string &text) {
  Expected<KernelMeta> meta = parseKernelMeta(text, "test.meta");
  EXPECT_TRUE(meta.ok()) << meta.status().message();
  return meta.ok() ? *meta : KernelMeta();
}

KernelMeta denseMeta(uint32_t blockM, uint32_t blockN, uint32_t cluster = 1) {
  DenseConfig config;
  config.blockM = blockM;
  config.blockN = blockN;
  config.cluster = cluster;
  return parse(denseDescription(config));
}

constexpr CUdeviceptr kA = 0x10000, kSfa = 0x20000, kB = 0x30000,
                      kSfb = 0x40000, kD = 0x50000;

/// The descriptor of tensor_map parameter `param` of a dense kernel
/// (arguments A, B, SFA, SFB, D at the addresses above).
Expected<TensorMapDesc> denseMap(const KernelMeta &meta, size_t param,
                                 int64_t m, int64_t n, int64_t k,
                                 CUdeviceptr offset = 0) {
  const CUdeviceptr bases[] = {kA, kB, kSfa, kSfb, kD};
  return describeTensorMap(meta, param, {m, n, k},
                           bases[meta.params[param].arg] + offset,
                           "param." + std::to_string(param));
}

TensorMapDesc denseMapOk(const KernelMeta &meta, size_t param, int64_t m,
                         int64_t n, int64_t k) {
  Expected<TensorMapDesc> desc = denseMap(meta, param, m, n, k);
  EXPECT_TRUE(desc.ok()) << desc.status().message();
  return desc.ok() ? *desc : TensorMapDesc();
}

//===----------------------------------------------------------------------===//
// The runtime's dense descriptors before kernel descriptions (v1), frozen:
// the generic path must reproduce them exactly.
//===----------------------------------------------------------------------===//

TensorMapDesc legacyDesc(CUtensorMapDataType type, CUdeviceptr base,
                         int64_t columns, int64_t rows, int64_t rowStride,
                         uint32_t boxColumns, uint32_t boxRows,
                         CUtensorMapSwizzle swizzle) {
  TensorMapDesc desc;
  desc.dataType = type;
  desc.base = base;
  desc.dims[0] = static_cast<uint64_t>(columns);
  desc.dims[1] = static_cast<uint64_t>(rows);
  desc.strides[0] = static_cast<uint64_t>(rowStride);
  desc.box[0] = boxColumns;
  desc.box[1] = boxRows;
  desc.swizzle = swizzle;
  return desc;
}

/// A, B, SFA, D as computeDenseTensorMaps made them.
std::vector<TensorMapDesc> legacyDenseMaps(uint32_t blockM, uint32_t blockN,
                                           uint32_t cluster, int64_t m,
                                           int64_t n, int64_t k) {
  int64_t sfaRows = (m + 3) / 4 * 4, kBlocks = (k + 127) / 128;
  return {
      legacyDesc(CU_TENSOR_MAP_DATA_TYPE_UINT8, kA, k, m, k, 128,
                 blockM / std::max<uint32_t>(cluster, 1),
                 CU_TENSOR_MAP_SWIZZLE_128B),
      legacyDesc(CU_TENSOR_MAP_DATA_TYPE_UINT8, kB, k, n, k, 128, blockN,
                 CU_TENSOR_MAP_SWIZZLE_128B),
      legacyDesc(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, kSfa, sfaRows, kBlocks,
                 sfaRows * 4, blockM, 1, CU_TENSOR_MAP_SWIZZLE_NONE),
      legacyDesc(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, kD, n, m, n * 2, blockN,
                 blockM, CU_TENSOR_MAP_SWIZZLE_NONE),
  };
}

/// Every field cuTensorMapEncodeTiled sees (not the message label).
void expectSameEncoding(const TensorMapDesc &a, const TensorMapDesc &b,
                        const std::string &what) {
  EXPECT_EQ(a.dataType, b.dataType) << what;
  EXPECT_EQ(a.base, b.base) << what;
  ASSERT_EQ(a.rank, b.rank) << what;
  for (uint32_t i = 0; i < a.rank; ++i) {
    EXPECT_EQ(a.dims[i], b.dims[i]) << what << " dim " << i;
    EXPECT_EQ(a.box[i], b.box[i]) << what << " box " << i;
    EXPECT_EQ(a.elementStrides[i], b.elementStrides[i]) << what << " " << i;
    if (i + 1 < a.rank) {
      EXPECT_EQ(a.strides[i], b.strides[i]) << what << " stride " << i;
    }
  }
  EXPECT_EQ(a.interleave, b.interleave) << what;
  EXPECT_EQ(a.swizzle, b.swizzle) << what;
  EXPECT_EQ(a.l2Promotion, b.l2Promotion) << what;
  EXPECT_EQ(a.oobFill, b.oobFill) << what;
}

} // namespace

TEST(TensorMap, DenseDescriptionsReproduceTheV1Maps) {
  struct Case {
    uint32_t blockM, blockN, cluster;
    int64_t m, n, k;
  };
  const Case cases[] = {
      {128, 128, 1, 4096, 7168, 7168}, {64, 16, 1, 1, 64, 128},
      {128, 64, 1, 65, 2112, 7168},    {128, 128, 1, 256, 256, 144},
      {64, 32, 1, 64, 2112, 7168},     {64, 128, 1, 4097, 24576, 1536},
      {128, 128, 2, 4096, 7168, 7168}, {128, 128, 2, 65, 2112, 144},
      {64, 128, 2, 64, 4096, 7168},    {128, 96, 2, 300, 1000, 2048},
  };
  for (const Case &c : cases) {
    KernelMeta meta = denseMeta(c.blockM, c.blockN, c.cluster);
    std::vector<TensorMapDesc> legacy =
        legacyDenseMaps(c.blockM, c.blockN, c.cluster, c.m, c.n, c.k);
    for (size_t param = 0; param < 4; ++param) {
      std::string what = "bm" + std::to_string(c.blockM) + " bn" +
                         std::to_string(c.blockN) + " cluster " +
                         std::to_string(c.cluster) + " " + std::to_string(c.m) +
                         "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
                         " param " + std::to_string(param);
      expectSameEncoding(denseMapOk(meta, param, c.m, c.n, c.k), legacy[param],
                         what);
    }
  }
}

TEST(TensorMap, Helpers) {
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_UINT8), 1u);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16), 2u);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT32), 4u);
  EXPECT_EQ(tensorMapElementBytes(CU_TENSOR_MAP_DATA_TYPE_INT32), 4u);
  EXPECT_EQ(tensorMapDataType(ElementType::E4M3),
            CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(tensorMapDataType(ElementType::E5M2),
            CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(tensorMapDataType(ElementType::BF16),
            CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(tensorMapDataType(ElementType::F32),
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(tensorMapDataType(ElementType::I32), CU_TENSOR_MAP_DATA_TYPE_INT32);
}

TEST(TensorMap, LargeAlignedShape) {
  KernelMeta meta = denseMeta(128, 128);
  // A [M, K] e4m3: dims {K, M}, K-byte rows, 128 x block_m boxes, 128B swizzle.
  TensorMapDesc a = denseMapOk(meta, 0, 4096, 7168, 7168);
  EXPECT_EQ(a.dataType, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(a.base, kA);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.dims[0], 7168u);
  EXPECT_EQ(a.dims[1], 4096u);
  EXPECT_EQ(a.strides[0], 7168u);
  EXPECT_EQ(a.box[0], 128u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(a.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(a.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  // SFA: M-major, one row of align(M, 4) floats per K block.
  TensorMapDesc sfa = denseMapOk(meta, 2, 4096, 7168, 7168);
  EXPECT_EQ(sfa.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(sfa.base, kSfa);
  EXPECT_EQ(sfa.dims[0], 4096u);
  EXPECT_EQ(sfa.dims[1], 56u);
  EXPECT_EQ(sfa.strides[0], 4096u * 4);
  EXPECT_EQ(sfa.box[0], 128u);
  EXPECT_EQ(sfa.box[1], 1u);
  // D [M, N] bf16.
  TensorMapDesc d = denseMapOk(meta, 3, 4096, 7168, 7168);
  EXPECT_EQ(d.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(d.base, kD);
  EXPECT_EQ(d.dims[0], 7168u);
  EXPECT_EQ(d.dims[1], 4096u);
  EXPECT_EQ(d.strides[0], 7168u * 2);
}

TEST(TensorMap, SingleRow) {
  // M = 1: boxes larger than the tensor are fine (TMA zero-fills), SFA pads
  // M to 4 floats so its row stride is 16 bytes.
  KernelMeta meta = denseMeta(64, 16);
  TensorMapDesc sfa = denseMapOk(meta, 2, 1, 64, 128);
  EXPECT_EQ(sfa.dims[0], 4u);
  EXPECT_EQ(sfa.dims[1], 1u);
  EXPECT_EQ(sfa.strides[0], 16u);
  EXPECT_EQ(sfa.box[0], 64u);
}

TEST(TensorMap, RowMajorScalesAndOtherElementTypes) {
  // SFB as a tensor map: [ceil(N/128), ceil(K/128)] floats, row-major.
  std::string text = denseDescription(DenseConfig());
  text.replace(text.find("param.4=pointer arg=3"), 21,
               "param.4=tensor_map arg=3 box=4x1 swizzle=none");
  KernelMeta meta = parse(text);
  TensorMapDesc sfb = denseMapOk(meta, 4, 128, 2112, 512);
  EXPECT_EQ(sfb.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(sfb.base, kSfb);
  EXPECT_EQ(sfb.dims[0], 4u);  // ceil(512 / 128)
  EXPECT_EQ(sfb.dims[1], 17u); // ceil(2112 / 128)
  EXPECT_EQ(sfb.strides[0], 16u);
  // K = 7168: 56 blocks, a 224-byte row: fine. K = 384: 12 bytes: TMA's
  // 16-byte stride rule refuses it.
  EXPECT_TRUE(denseMap(meta, 4, 128, 2112, 7168).ok());
  Expected<TensorMapDesc> narrow = denseMap(meta, 4, 128, 2112, 384);
  ASSERT_FALSE(narrow.ok());
  EXPECT_EQ(narrow.status().message(),
            "TMA descriptor of param.4: row stride 12 bytes is not a "
            "multiple of 16");

  // Other element types keep their size and TMA type.
  KernelMeta ints = parse("abi_version=3\nkernel=k\nvariant=x\nblock_m=64\n"
                          "block_n=64\nblock_k=128\nstages=1\n"
                          "math_warpgroups=1\nthreads=256\nsmem_bytes=1000\n"
                          "cluster=1\nschedule=plain\nfixed_n=0\nfixed_k=0\n"
                          "dims=r,c\narg.0=tensor i32 r,c\n"
                          "arg.1=tensor e5m2 r,c\narg.2=tensor f32 r,c\n"
                          "param.0=tensor_map arg=0 box=8x4 swizzle=32b\n"
                          "param.1=tensor_map arg=1 box=64x4 swizzle=64b\n"
                          "param.2=tensor_map arg=2 box=4x4 swizzle=none\n"
                          "tiles=r/4\n");
  Expected<TensorMapDesc> i32 =
      describeTensorMap(ints, 0, {10, 12}, 0x1000, "i32");
  ASSERT_TRUE(i32.ok()) << i32.status().message();
  EXPECT_EQ(i32->dataType, CU_TENSOR_MAP_DATA_TYPE_INT32);
  EXPECT_EQ(i32->dims[0], 12u);
  EXPECT_EQ(i32->dims[1], 10u);
  EXPECT_EQ(i32->strides[0], 48u);
  EXPECT_EQ(i32->swizzle, CU_TENSOR_MAP_SWIZZLE_32B);
  Expected<TensorMapDesc> e5m2 =
      describeTensorMap(ints, 1, {10, 64}, 0x1000, "e5m2");
  ASSERT_TRUE(e5m2.ok()) << e5m2.status().message();
  EXPECT_EQ(e5m2->dataType, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(e5m2->strides[0], 64u);
  Expected<TensorMapDesc> f32 =
      describeTensorMap(ints, 2, {10, 4}, 0x1000, "f32");
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  EXPECT_EQ(f32->dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(f32->strides[0], 16u);
}

TEST(TensorMap, GroupedArgumentsAreThreeDimensional) {
  KernelMeta meta = parse(
      "abi_version=3\nkernel=k\nvariant=grouped_masked\nblock_m=128\n"
      "block_n=128\nblock_k=128\nstages=4\nmath_warpgroups=2\nthreads=384\n"
      "smem_bytes=1000\ncluster=1\nschedule=plain\nfixed_n=0\nfixed_k=0\n"
      "dims=g,m,n,k\n"
      "arg.0=tensor e4m3 g,m,k\n"
      "arg.1=scales f32 g,m,k block=1x128 mn_major\n"
      "arg.2=scales f32 g,n,k block=128x128\n"
      "arg.3=tensor bf16 g,m,n\n"
      "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
      "param.1=tensor_map arg=1 box=128x1 swizzle=none\n"
      "param.2=tensor_map arg=2 box=4x1 swizzle=none\n"
      "param.3=tensor_map arg=3 box=128x128 swizzle=none\n"
      "tiles=n/128,m/128,g/1\n");
  const std::vector<int64_t> values = {3, 65, 256, 512}; // g, m, n, k
  // A [g, m, k]: {k, m, g}, strides {k, m * k}.
  Expected<TensorMapDesc> a = describeTensorMap(meta, 0, values, 0x1000, "A");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->rank, 3u);
  EXPECT_EQ(a->dims[0], 512u);
  EXPECT_EQ(a->dims[1], 65u);
  EXPECT_EQ(a->dims[2], 3u);
  EXPECT_EQ(a->strides[0], 512u);
  EXPECT_EQ(a->strides[1], 65u * 512);
  EXPECT_EQ(a->box[0], 128u);
  EXPECT_EQ(a->box[1], 128u);
  EXPECT_EQ(a->box[2], 1u);
  // M-major scales [g, m, k] block 1x128: {align(m, 4), ceil(k/128), g}.
  Expected<TensorMapDesc> sfa =
      describeTensorMap(meta, 1, values, 0x2000, "SFA");
  ASSERT_TRUE(sfa.ok()) << sfa.status().message();
  EXPECT_EQ(sfa->rank, 3u);
  EXPECT_EQ(sfa->dims[0], 68u);
  EXPECT_EQ(sfa->dims[1], 4u);
  EXPECT_EQ(sfa->dims[2], 3u);
  EXPECT_EQ(sfa->strides[0], 68u * 4);
  EXPECT_EQ(sfa->strides[1], 68u * 4 * 4);
  // Row-major scales [g, n, k] block 128x128: {ceil(k/128), ceil(n/128), g}.
  Expected<TensorMapDesc> sfb =
      describeTensorMap(meta, 2, values, 0x3000, "SFB");
  ASSERT_TRUE(sfb.ok()) << sfb.status().message();
  EXPECT_EQ(sfb->dims[0], 4u);
  EXPECT_EQ(sfb->dims[1], 2u);
  EXPECT_EQ(sfb->dims[2], 3u);
  EXPECT_EQ(sfb->strides[0], 16u);
  EXPECT_EQ(sfb->strides[1], 32u);
  // D [g, m, n] bf16: {n, m, g}, strides {2n, 2mn}.
  Expected<TensorMapDesc> d = describeTensorMap(meta, 3, values, 0x4000, "D");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->dims[0], 256u);
  EXPECT_EQ(d->dims[1], 65u);
  EXPECT_EQ(d->dims[2], 3u);
  EXPECT_EQ(d->strides[0], 512u);
  EXPECT_EQ(d->strides[1], 65u * 512);
  // No group: TMA needs every dimension >= 1.
  Expected<TensorMapDesc> none =
      describeTensorMap(meta, 0, {0, 65, 256, 512}, 0x1000, "A");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "TMA descriptor of A: dimension 2 = 0 (allowed: 1 to 2^32)");
}

TEST(TensorMap, RejectsBadArguments) {
  KernelMeta meta = denseMeta(128, 128);
  Expected<TensorMapDesc> misaligned = denseMap(meta, 2, 128, 128, 128, 8);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.status().message().find(
                "TMA descriptor of param.2: base address"),
            std::string::npos)
      << misaligned.status().message();
  // K = 24: 24-byte rows of A are not a 16-byte multiple.
  Expected<TensorMapDesc> stride = denseMap(meta, 0, 128, 128, 24);
  ASSERT_FALSE(stride.ok());
  EXPECT_EQ(stride.status().message(), "TMA descriptor of param.0: row "
                                       "stride 24 bytes is not a multiple of "
                                       "16");
  // Not a tensor map parameter.
  Expected<TensorMapDesc> pointer = denseMap(meta, 4, 128, 128, 128);
  ASSERT_FALSE(pointer.ok());
  EXPECT_NE(pointer.status().message().find("is not a tensor_map"),
            std::string::npos);
}

TEST(TensorMap, TensorMapRules) {
  KernelArg vector;
  vector.kind = KernelArg::Kind::Tensor;
  vector.element = ElementType::I32;
  vector.dims = {"g"};
  KernelParam param;
  param.kind = KernelParam::Kind::TensorMap;
  param.box[0] = 4;
  param.box[1] = 1;
  EXPECT_NE(checkTensorMapParam(vector, param)
                .message()
                .find("no tensor-map rule for a 1-D tensor"),
            std::string::npos);
  vector.dims = {"g", "m"};
  EXPECT_TRUE(checkTensorMapParam(vector, param).ok());
  param.box[0] = 2; // 8 bytes
  EXPECT_NE(
      checkTensorMapParam(vector, param).message().find("not a multiple of 16"),
      std::string::npos);
}

TEST(TensorMap, ValidatesDescriptorRules) {
  TensorMapDesc good;
  good.operand = "X";
  good.dataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  good.base = 0x1000;
  good.dims[0] = 256;
  good.dims[1] = 64;
  good.strides[0] = 256;
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
  desc.strides[0] = uint64_t(1) << 40;
  EXPECT_NE(errorOf(desc).find("not below 2^40"), std::string::npos);
  desc = good;
  desc.strides[0] = 128;
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
  desc = good;
  desc.rank = 4;
  EXPECT_NE(errorOf(desc).find("rank 4 (allowed: 2 or 3)"), std::string::npos);

  // Rank 3: the outer stride spans whole matrices, 16-byte aligned.
  TensorMapDesc grouped = good;
  grouped.rank = 3;
  grouped.dims[2] = 4;
  grouped.strides[1] = 256 * 64;
  grouped.box[2] = 1;
  ASSERT_TRUE(validateTensorMapDesc(grouped).ok());
  desc = grouped;
  desc.strides[1] = 256 * 63;
  EXPECT_EQ(errorOf(desc), "TMA descriptor of X: dimension-2 stride 16128 "
                           "bytes is shorter than the dimensions inside it "
                           "of 16384");
  desc = grouped;
  desc.strides[1] = 256 * 64 + 8;
  EXPECT_NE(errorOf(desc).find("dimension-2 stride 16392 bytes is not a "
                               "multiple of 16"),
            std::string::npos);
  desc = grouped;
  desc.box[2] = 0;
  EXPECT_NE(errorOf(desc).find("box dimension 2 = 0"), std::string::npos);
}

TEST(TensorMap, ClusterBoxComesFromTheDescription) {
  // Each CTA of a pair multicasts 64 of the tile's 128 rows of A: fgemmc
  // writes box=128x64; the runtime does no cluster arithmetic.
  KernelMeta meta = denseMeta(128, 128, /*cluster=*/2);
  EXPECT_EQ(meta.params[0].box[1], 64u);
  TensorMapDesc a = denseMapOk(meta, 0, 4096, 7168, 7168);
  EXPECT_EQ(a.box[0], 128u);
  EXPECT_EQ(a.box[1], 64u);
  EXPECT_EQ(denseMapOk(meta, 1, 4096, 7168, 7168).box[1], 128u);
}
