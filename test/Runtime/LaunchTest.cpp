//===- LaunchTest.cpp - Tests of the generic launch path --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"

#include "Runtime/Launch.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace fgemm;
using fgemm::test::DenseConfig;
using fgemm::test::denseDescription;

namespace {

KernelMeta parse(const std::string &text) {
  Expected<KernelMeta> meta = parseKernelMeta(text, "test.meta");
  EXPECT_TRUE(meta.ok()) << meta.status().message();
  return meta.ok() ? *meta : KernelMeta();
}

KernelMeta denseMeta(uint32_t blockM = 128, uint32_t blockN = 128,
                     const char *schedule = "plain", uint32_t cluster = 1) {
  DenseConfig config;
  config.blockM = blockM;
  config.blockN = blockN;
  config.schedule = schedule;
  config.cluster = cluster;
  config.smemBytes = 200000;
  return parse(denseDescription(config));
}

/// Dense bindings: A, B, SFA, SFB, D (argument order) and m, n, k.
KernelBindings dense(int64_t m, int64_t n, int64_t k) {
  KernelBindings bindings;
  bindings.args = {0x100000, 0x300000, 0x200000, 0x400000, 0x500000};
  bindings.dims = {{"k", k}, {"m", m}, {"n", n}}; // any order
  bindings.argNames = {"A", "B", "SFA", "SFB", "D"};
  return bindings;
}

std::string planError(const KernelMeta &meta, const KernelBindings &bindings,
                      int sms = 132) {
  Expected<LaunchPlan> plan = planLaunch(meta, bindings, sms);
  return plan.ok() ? std::string() : plan.status().message();
}

LaunchDims launchDims(const KernelMeta &meta, int64_t m, int64_t n,
                      int sms = 132) {
  Expected<LaunchDims> dims = computeLaunchDims(meta, {m, n, 128}, sms);
  EXPECT_TRUE(dims.ok()) << dims.status().message();
  return dims.ok() ? *dims : LaunchDims();
}

} // namespace

TEST(KernelParamBuffer, NaturalAlignmentAndOwnership) {
  KernelParamBuffer buffer;
  uint32_t small = 7;
  uint64_t pointer = 0x1234567890ull;
  unsigned char map[128];
  for (int i = 0; i < 128; ++i)
    map[i] = static_cast<unsigned char>(i);
  buffer.append(&small, 4, 4);
  buffer.append(&pointer, 8, 8);
  buffer.append(map, 128, 64);
  buffer.append(&small, 4, 4);
  ASSERT_EQ(buffer.size(), 4u);
  EXPECT_EQ(buffer.offset(0), 0u);
  EXPECT_EQ(buffer.offset(1), 8u);
  EXPECT_EQ(buffer.offset(2), 64u);
  EXPECT_EQ(buffer.offset(3), 192u);
  EXPECT_EQ(buffer.paramSize(2), 128u);
  EXPECT_EQ(buffer.byteSize(), 196u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.bytes()) % 64, 0u);
  // Padding is zero, values are in place.
  EXPECT_EQ(buffer.bytes()[4], 0);
  EXPECT_EQ(std::memcmp(buffer.bytes() + 64, map, 128), 0);

  auto check = [&](const KernelParamBuffer &b) {
    void **pointers = b.pointers();
    for (size_t i = 0; i < b.size(); ++i)
      EXPECT_EQ(pointers[i], b.bytes() + b.offset(i));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointers[2]) % 64, 0u);
    uint64_t read;
    std::memcpy(&read, pointers[1], 8);
    EXPECT_EQ(read, pointer);
  };
  check(buffer);
  // Copies point into their own bytes, moves keep them.
  KernelParamBuffer copy = buffer;
  EXPECT_NE(copy.bytes(), buffer.bytes());
  check(copy);
  KernelParamBuffer moved = std::move(copy);
  check(moved);
  KernelParamBuffer assigned;
  assigned = moved;
  check(assigned);
}

TEST(Launch, BindDims) {
  KernelMeta meta = denseMeta();
  Expected<std::vector<int64_t>> values =
      bindDims(meta, {{"k", 3}, {"n", 2}, {"m", 1}});
  ASSERT_TRUE(values.ok()) << values.status().message();
  EXPECT_EQ(*values, (std::vector<int64_t>{1, 2, 3}));

  auto errorOf = [&](const std::vector<std::pair<std::string, int64_t>> &d) {
    Expected<std::vector<int64_t>> bound = bindDims(meta, d);
    return bound.ok() ? std::string() : bound.status().message();
  };
  EXPECT_EQ(errorOf({{"m", 1}, {"n", 2}}),
            "no value for dimension 'k' of kernel 'sm90_fp8_gemm_1d2d' "
            "(dims: m,n,k)");
  EXPECT_EQ(errorOf({{"m", 1}, {"n", 2}, {"k", 3}, {"g", 4}}),
            "the launch binds dimension 'g', which kernel "
            "'sm90_fp8_gemm_1d2d' does not have (dims: m,n,k)");
  EXPECT_EQ(errorOf({{"m", 1}, {"m", 1}, {"n", 2}, {"k", 3}}),
            "dimension 'm' is bound twice");
  EXPECT_EQ(errorOf({{"m", -1}, {"n", 2}, {"k", 3}}),
            "dimension m = -1 is out of range (allowed: 0 to 2^31-1 = "
            "2147483647: TMA coordinates and the kernels' sizes are 32-bit "
            "signed)");
  EXPECT_NE(errorOf({{"m", 1}, {"n", kMaxDimValue + 1}, {"k", 3}})
                .find("dimension n = 2147483648 is out of range"),
            std::string::npos);
  EXPECT_EQ(errorOf({{"m", kMaxDimValue}, {"n", 0}, {"k", 3}}), "");

  // A specialized kernel refuses other values of n and k.
  meta.fixedN = 4096;
  meta.fixedK = 7168;
  EXPECT_EQ(errorOf({{"m", 1}, {"n", 2112}, {"k", 7168}}),
            "kernel 'sm90_fp8_gemm_1d2d' (bm128_bn128_s5_n4096_k7168) is "
            "specialized for n = 4096 (fixed_n) and cannot run n = 2112");
  EXPECT_NE(errorOf({{"m", 1}, {"n", 4096}, {"k", 128}})
                .find("specialized for k = 7168 (fixed_k)"),
            std::string::npos);
  EXPECT_EQ(errorOf({{"m", 1}, {"n", 4096}, {"k", 7168}}), "");
}

TEST(Launch, PlainGrid) {
  KernelMeta meta = denseMeta(128, 64);
  std::vector<int64_t> counts = countTiles(meta, {4097, 2112, 128});
  EXPECT_EQ(counts, (std::vector<int64_t>{33, 33}));
  LaunchDims dims = launchDims(meta, 4097, 2112);
  EXPECT_EQ(dims.grid[0], 33u);
  EXPECT_EQ(dims.grid[1], 33u);
  EXPECT_EQ(dims.grid[2], 1u);
  EXPECT_EQ(dims.block[0], 384u);
  EXPECT_EQ(dims.block[1], 1u);
  EXPECT_EQ(dims.sharedBytes, 200000u);
  EXPECT_EQ(dims.cluster, 0u); // launched without a cluster attribute
}

TEST(Launch, ClusterRoundsGridXUp) {
  KernelMeta meta = denseMeta(128, 128, "plain", /*cluster=*/2);
  // 17 column tiles -> 18 CTAs along x (9 clusters); the extra one stores
  // nothing.
  LaunchDims dims = launchDims(meta, 4096, 2112);
  EXPECT_EQ(dims.grid[0], 18u);
  EXPECT_EQ(dims.grid[1], 32u);
  EXPECT_EQ(dims.cluster, 2u);
}

TEST(Launch, KSplitRunsItsSharesAsOneClusterAlongX) {
  KernelMeta meta = denseMeta(128, 64);
  meta.kSplit = 2;
  // 64 column tiles x 2 shares along x, one row tile; clusters of 2.
  LaunchDims dims = launchDims(meta, 128, 4096);
  EXPECT_EQ(dims.grid[0], 128u);
  EXPECT_EQ(dims.grid[1], 1u);
  EXPECT_EQ(dims.cluster, 2u);
  meta.kSplit = 4;
  dims = launchDims(meta, 256, 2112); // 33 x 4 along x, 2 row tiles
  EXPECT_EQ(dims.grid[0], 132u);
  EXPECT_EQ(dims.grid[1], 2u);
  EXPECT_EQ(dims.cluster, 4u);
}

TEST(Launch, PersistentGridIsAtMostOneCtaPerSm) {
  KernelMeta meta = denseMeta(128, 128, "persistent");
  LaunchDims dims = launchDims(meta, 4096, 7168); // 1792 tiles
  EXPECT_EQ(dims.grid[0], 132u);
  EXPECT_EQ(dims.grid[1], 1u);
  EXPECT_EQ(dims.block[0], 384u);
  dims = launchDims(meta, 128, 1024); // 8 tiles
  EXPECT_EQ(dims.grid[0], 8u);
  // The 65535 limit of grid y does not apply; huge products saturate.
  dims = launchDims(meta, int64_t(70000) * 128, 128);
  EXPECT_EQ(dims.grid[0], 132u);
  dims = launchDims(meta, kMaxDimValue, kMaxDimValue, 1);
  EXPECT_EQ(dims.grid[0], 1u);
}

TEST(Launch, PersistentClusterGridIsWholeClusters) {
  KernelMeta meta = denseMeta(128, 128, "persistent", /*cluster=*/2);
  LaunchDims dims = launchDims(meta, 4096, 7168);
  EXPECT_EQ(dims.grid[0], 132u);
  EXPECT_EQ(dims.cluster, 2u);
  // An odd SM count leaves one SM idle rather than split a cluster.
  EXPECT_EQ(launchDims(meta, 4096, 7168, 131).grid[0], 130u);
  // 1 x 3 tiles: the column tiles round up to 4 (2 clusters), the fourth
  // computes a tile past N that stores nothing.
  EXPECT_EQ(launchDims(meta, 128, 384).grid[0], 4u);
  // One SM still gets a whole cluster.
  EXPECT_EQ(launchDims(meta, 4096, 7168, 1).grid[0], 2u);
}

TEST(Launch, GridLimits) {
  KernelMeta meta = denseMeta(64, 128);
  Expected<LaunchDims> dims =
      computeLaunchDims(meta, {int64_t(65536) * 64, 128, 128}, 132);
  ASSERT_FALSE(dims.ok());
  EXPECT_EQ(dims.status().message(),
            "kernel 'sm90_fp8_gemm_1d2d': grid y = 65536 (tiles m/64 for m = "
            "4194304) exceeds the limit of 65535");
  EXPECT_TRUE(
      computeLaunchDims(meta, {int64_t(65535) * 64, 128, 128}, 132).ok());
  Expected<LaunchDims> empty = computeLaunchDims(meta, {0, 128, 128}, 132);
  EXPECT_FALSE(empty.ok());
}

TEST(Launch, ThreeTileFactorsFillGridZ) {
  std::string text = denseDescription(DenseConfig());
  text.replace(text.find("tiles=n/128,m/128"), 17, "tiles=n/128,m/128,k/512");
  KernelMeta meta = parse(text);
  Expected<LaunchDims> dims = computeLaunchDims(meta, {256, 384, 1025}, 132);
  ASSERT_TRUE(dims.ok()) << dims.status().message();
  EXPECT_EQ(dims->grid[0], 3u);
  EXPECT_EQ(dims->grid[1], 2u);
  EXPECT_EQ(dims->grid[2], 3u);
}

TEST(Launch, PointersTheParametersUse) {
  KernelMeta meta = denseMeta();
  EXPECT_EQ(planError(meta, dense(128, 2112, 7168)), "");
  const char *names[] = {"A", "B", "SFA", "SFB", "D"};
  for (size_t i = 0; i < 5; ++i) {
    KernelBindings bindings = dense(128, 2112, 7168);
    bindings.args[i] = 0;
    EXPECT_EQ(planError(meta, bindings), "arg." + std::to_string(i) + " (" +
                                             names[i] + ") is a null pointer");
  }
  KernelBindings bindings = dense(128, 2112, 7168);
  bindings.args[2] += 8;
  EXPECT_EQ(planError(meta, bindings),
            "arg.2 (SFA) (0x200008) is not 16-byte aligned (TMA needs 16-byte "
            "aligned base addresses)");
  // SFB is read through a plain pointer: TMA's alignment rule does not
  // apply to it, its element's does.
  bindings = dense(128, 2112, 7168);
  bindings.args[3] += 4;
  EXPECT_EQ(planError(meta, bindings), "");
  bindings.args[3] += 2;
  EXPECT_EQ(planError(meta, bindings),
            "arg.3 (SFB) (0x400006) is not 4-byte aligned (the kernel reads "
            "its f32 elements)");
  // A bf16 or f32 tensor passed as a pointer (a bias, FP32 C) is read in
  // pairs.
  KernelMeta bias = meta;
  bias.args[3] = KernelArg{KernelArg::Kind::Tensor, ElementType::BF16, {"n"}};
  bindings = dense(128, 2112, 7168);
  bindings.args[3] += 2;
  EXPECT_EQ(planError(bias, bindings),
            "arg.3 (SFB) (0x400002) is not 4-byte aligned (the kernel reads "
            "its bf16 elements in pairs)");
  // Without names, messages give the index alone.
  bindings = dense(128, 2112, 7168);
  bindings.argNames.clear();
  bindings.args[4] = 0;
  EXPECT_EQ(planError(meta, bindings), "arg.4 is a null pointer");
  bindings.args.pop_back();
  EXPECT_EQ(planError(meta, bindings),
            "the launch binds 4 argument pointer(s) but kernel "
            "'sm90_fp8_gemm_1d2d' has 5 argument(s)");
}

TEST(Launch, EmptyOutputNeedsNoPointers) {
  KernelMeta meta = denseMeta();
  KernelBindings bindings = dense(0, 64, 128);
  bindings.args.assign(5, 0);
  Expected<LaunchPlan> plan = planLaunch(meta, bindings, 132);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->empty);
  EXPECT_TRUE(plan->tensorMaps.empty());
  bindings.dims = {{"m", 64}, {"n", 0}, {"k", 128}};
  plan = planLaunch(meta, bindings, 132);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->empty);
  // The dimensions are still checked.
  bindings.dims = {{"m", -1}, {"n", 0}, {"k", 128}};
  EXPECT_NE(planError(meta, bindings).find("dimension m = -1"),
            std::string::npos);
  // K = 0 is not an empty output; its tensor maps are invalid.
  EXPECT_EQ(planError(meta, dense(64, 64, 0)),
            "TMA descriptor of param.0 over arg.0 (A): dimension 0 = 0 "
            "(allowed: 1 to 2^32)");
  LaunchPlan emptyPlan;
  emptyPlan.empty = true;
  EXPECT_FALSE(packKernelParams(meta, bindings, emptyPlan, {}).ok());
}

TEST(Launch, PlanAndPackTheDenseKernel) {
  KernelMeta meta = denseMeta(128, 64);
  KernelBindings bindings = dense(65, 2112, 144);
  Expected<LaunchPlan> plan = planLaunch(meta, bindings, 132);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->empty);
  EXPECT_EQ(plan->dims, (std::vector<int64_t>{65, 2112, 144}));
  EXPECT_EQ(plan->launch.grid[0], 33u);
  EXPECT_EQ(plan->launch.grid[1], 1u);
  ASSERT_EQ(plan->tensorMaps.size(), 4u);
  EXPECT_EQ(plan->tensorMaps[0].operand, "param.0 over arg.0 (A)");
  EXPECT_EQ(plan->tensorMaps[2].operand, "param.2 over arg.2 (SFA)");
  EXPECT_EQ(plan->tensorMaps[3].operand, "param.3 over arg.4 (D)");
  EXPECT_EQ(plan->tensorMaps[3].base, 0x500000u);
  EXPECT_EQ(plan->tensorMaps[3].box[0], 64u);

  // Stand-in encoded maps: each filled with its index.
  std::vector<CUtensorMap> maps(4);
  for (size_t i = 0; i < 4; ++i)
    std::memset(&maps[i], int(i + 1), sizeof(CUtensorMap));
  Expected<KernelParamBuffer> params =
      packKernelParams(meta, bindings, *plan, maps);
  ASSERT_TRUE(params.ok()) << params.status().message();
  // The parameter space of the dense kernel: 4 maps, SFB, m, n, k.
  ASSERT_EQ(params->size(), 8u);
  const size_t offsets[] = {0, 128, 256, 384, 512, 520, 524, 528};
  const size_t sizes[] = {128, 128, 128, 128, 8, 4, 4, 4};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(params->offset(i), offsets[i]) << i;
    EXPECT_EQ(params->paramSize(i), sizes[i]) << i;
  }
  void **pointers = params->pointers();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointers[i]) % 64, 0u) << i;
    EXPECT_EQ(std::memcmp(pointers[i], &maps[i], 128), 0) << i;
  }
  uint64_t sfb;
  std::memcpy(&sfb, pointers[4], 8);
  EXPECT_EQ(sfb, 0x400000u);
  uint32_t m, n, k;
  std::memcpy(&m, pointers[5], 4);
  std::memcpy(&n, pointers[6], 4);
  std::memcpy(&k, pointers[7], 4);
  EXPECT_EQ(m, 65u);
  EXPECT_EQ(n, 2112u);
  EXPECT_EQ(k, 144u);

  maps.pop_back();
  EXPECT_FALSE(packKernelParams(meta, bindings, *plan, maps).ok());
}

TEST(Launch, TheRasterGroupIsTheBindingsOrTheDefault) {
  KernelMeta meta = denseMeta(128, 64);
  KernelParam raster;
  raster.kind = KernelParam::Kind::RasterGroup;
  raster.defaultRasterGroup = 8;
  meta.params.push_back(raster);
  KernelBindings bindings = dense(4096, 2112, 7168);
  Expected<LaunchPlan> plan = planLaunch(meta, bindings, 132);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<CUtensorMap> maps(4);
  auto passed = [&]() -> uint32_t {
    Expected<KernelParamBuffer> params =
        packKernelParams(meta, bindings, *plan, maps);
    EXPECT_TRUE(params.ok()) << params.status().message();
    if (!params.ok() || params->size() != 9)
      return 0;
    EXPECT_EQ(params->offset(8), 532u);
    uint32_t value;
    std::memcpy(&value, params->pointers()[8], 4);
    return value;
  };
  EXPECT_EQ(passed(), 8u);
  bindings.rasterGroup = 1;
  EXPECT_EQ(passed(), 1u);
}

TEST(Launch, GridLimitsAreCheckedWhenPlanning) {
  KernelMeta meta = denseMeta(128, 128);
  std::string error = planError(meta, dense(int64_t(70000) * 128, 128, 128));
  EXPECT_NE(error.find("grid y = 70000"), std::string::npos) << error;
  EXPECT_EQ(planError(denseMeta(128, 128, "persistent"),
                      dense(int64_t(70000) * 128, 128, 128)),
            "");
}

TEST(Launch, LaunchLimits) {
  LaunchDims dims;
  dims.block[0] = 384;
  dims.grid[1] = 65536;
  EXPECT_NE(validateLaunchDims(dims).message().find("exceeds the limits"),
            std::string::npos);
  dims.grid[1] = 1;
  dims.block[0] = 1025;
  EXPECT_NE(validateLaunchDims(dims).message().find("1025 threads"),
            std::string::npos);
  dims.block[0] = 128;
  dims.grid[0] = 3;
  dims.cluster = 2;
  EXPECT_NE(
      validateLaunchDims(dims).message().find("not a multiple of cluster"),
      std::string::npos);
  dims.grid[0] = 4;
  EXPECT_TRUE(validateLaunchDims(dims).ok());
}
