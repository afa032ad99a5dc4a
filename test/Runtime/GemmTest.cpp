//===- GemmTest.cpp - Tests of argument checks and kernel choice -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Gemm.h"

#include <gtest/gtest.h>

#include <cstddef>

using namespace fgemm;

namespace {

DenseGemmProblem validProblem() {
  DenseGemmProblem problem;
  problem.a = 0x100000;
  problem.sfa = 0x200000;
  problem.b = 0x300000;
  problem.sfb = 0x400000;
  problem.d = 0x500000;
  problem.m = 128;
  problem.n = 2112;
  problem.k = 7168;
  return problem;
}

std::string errorOf(const DenseGemmProblem &problem) {
  Status status = validateDenseGemmArgs(problem);
  return status.ok() ? std::string() : status.message();
}

KernelMeta kernel(uint32_t blockM, uint32_t blockN, uint32_t stages = 4,
                  uint32_t fixedN = 0, uint32_t fixedK = 0) {
  KernelMeta meta;
  meta.kernel = "bm" + std::to_string(blockM) + "_bn" + std::to_string(blockN);
  meta.variant = "dense";
  meta.blockM = blockM;
  meta.blockN = blockN;
  meta.blockK = 128;
  meta.stages = stages;
  meta.mathWarpgroups = blockM / 64;
  meta.threads = 128 * (1 + meta.mathWarpgroups);
  meta.smemBytes = 200000;
  meta.cluster = 1;
  meta.fixedN = fixedN;
  meta.fixedK = fixedK;
  return meta;
}

/// The six configurations scripts/compile-kernels.sh builds.
std::vector<KernelMeta> shippedKernels() {
  return {kernel(128, 128), kernel(128, 64), kernel(64, 128),
          kernel(64, 64),   kernel(64, 32),  kernel(64, 16)};
}

std::string choose(const std::vector<KernelMeta> &kernels, int64_t m,
                   int64_t n, int64_t k, int sms = 132) {
  Expected<size_t> index = selectDenseKernel(kernels, m, n, k, sms);
  return index.ok() ? kernels[*index].kernel : "error: " + index.status().message();
}

} // namespace

TEST(GemmArgs, AcceptsValidProblem) {
  EXPECT_EQ(errorOf(validProblem()), "");
}

TEST(GemmArgs, NullPointers) {
  const std::pair<CUdeviceptr DenseGemmProblem::*, const char *> fields[] = {
      {&DenseGemmProblem::a, "A"},
      {&DenseGemmProblem::sfa, "SFA"},
      {&DenseGemmProblem::b, "B"},
      {&DenseGemmProblem::sfb, "SFB"},
      {&DenseGemmProblem::d, "D"}};
  for (const auto &[field, name] : fields) {
    DenseGemmProblem problem = validProblem();
    problem.*field = 0;
    EXPECT_EQ(errorOf(problem), std::string("pointer ") + name + " is null");
  }
}

TEST(GemmArgs, MisalignedPointers) {
  DenseGemmProblem problem = validProblem();
  problem.sfb += 4;
  EXPECT_EQ(errorOf(problem), "pointer SFB (0x400004) is not 16-byte aligned "
                              "(TMA needs 16-byte aligned base addresses)");
  problem = validProblem();
  problem.d += 8;
  EXPECT_NE(errorOf(problem).find("pointer D (0x500008)"), std::string::npos);
}

TEST(GemmArgs, Sizes) {
  DenseGemmProblem problem = validProblem();
  problem.m = -1;
  EXPECT_EQ(errorOf(problem), "M = -1 is negative (M, N and K must be >= 0)");
  problem = validProblem();
  problem.k = -16;
  EXPECT_NE(errorOf(problem).find("K = -16 is negative"), std::string::npos);
  problem = validProblem();
  problem.n = 100;
  EXPECT_NE(errorOf(problem).find("N = 100 is not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(errorOf(problem).find("allowed: N % 8 == 0"), std::string::npos);
  problem = validProblem();
  problem.k = 100;
  EXPECT_NE(errorOf(problem).find("K = 100 is not a multiple of 16"),
            std::string::npos);
  EXPECT_NE(errorOf(problem).find("allowed: K % 16 == 0"), std::string::npos);
  problem = validProblem();
  problem.k = 0;
  EXPECT_NE(errorOf(problem).find("K = 0"), std::string::npos);
  problem = validProblem();
  problem.m = kMaxGemmDim + 1;
  EXPECT_NE(errorOf(problem).find("M = 2147483648 is too large"),
            std::string::npos);
  problem.m = kMaxGemmDim;
  EXPECT_EQ(errorOf(problem), "");
}

TEST(GemmArgs, EmptyOutputNeedsNoPointers) {
  DenseGemmProblem problem;
  problem.m = 0;
  problem.n = 64;
  problem.k = 128;
  EXPECT_EQ(errorOf(problem), "");
  EXPECT_TRUE(isEmptyGemm(problem));
  problem.m = 64;
  problem.n = 0;
  EXPECT_EQ(errorOf(problem), "");
  // Sizes are still checked.
  problem.k = 8;
  EXPECT_NE(errorOf(problem).find("K = 8"), std::string::npos);
  problem.k = 128;
  problem.m = 1;
  problem.n = 8;
  EXPECT_FALSE(isEmptyGemm(problem));
  EXPECT_EQ(errorOf(problem), "pointer A is null");
}

TEST(GemmConfig, BlockMFollowsM) {
  std::vector<KernelMeta> kernels = shippedKernels();
  EXPECT_EQ(choose(kernels, 64, 7168, 2048).substr(0, 4), "bm64");
  EXPECT_EQ(choose(kernels, 1, 7168, 2048).substr(0, 4), "bm64");
  EXPECT_EQ(choose(kernels, 65, 7168, 2048).substr(0, 5), "bm128");
  EXPECT_EQ(choose(kernels, 4096, 7168, 2048).substr(0, 5), "bm128");
}

TEST(GemmConfig, EstimatedTime) {
  std::vector<KernelMeta> kernels = shippedKernels();
  // 4096 x 7168: 128-wide tiles need 14 waves on 132 SMs, 64-wide ones 28.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  // M = 64, N = 2112: every width fits one wave; 16-wide tiles fill 132 SMs.
  EXPECT_EQ(choose(kernels, 64, 2112, 7168), "bm64_bn16");
  // M = 128, N = 2112: 64x32 tiles keep all 132 SMs busy in one wave (on the
  // H100: 19.0 us, against 24.6 for 128x64 and 36.8 for 128x128).
  EXPECT_EQ(choose(kernels, 128, 2112, 7168), "bm64_bn32");
  // N = 4096 on 64 SMs: one wave of 128x64 tiles beats fewer, wider ones
  // and more waves of narrower ones.
  EXPECT_EQ(choose(kernels, 128, 4096, 7168, 64), "bm128_bn64");
  // Two waves of narrow tiles lose to one of wide ones.
  EXPECT_EQ(choose({kernel(64, 64), kernel(64, 128)}, 64, 128, 128, 1),
            "bm64_bn128");
}

TEST(GemmConfig, StagesBreakTies) {
  std::vector<KernelMeta> kernels = {kernel(128, 128, 3), kernel(128, 128, 6)};
  Expected<size_t> index = selectDenseKernel(kernels, 512, 512, 512, 132);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(*index, 1u);
}

TEST(GemmConfig, FixedShapes) {
  std::vector<KernelMeta> kernels = shippedKernels();
  kernels.push_back(kernel(128, 128, 5, /*fixedN=*/7168, /*fixedK=*/2048));
  kernels.back().kernel = "fixed";
  EXPECT_EQ(choose(kernels, 4096, 7168, 2048), "fixed");
  // A specialized kernel never runs another N or K.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  EXPECT_EQ(choose(kernels, 4096, 4096, 2048), "bm128_bn128");

  std::vector<KernelMeta> onlyFixed = {kernel(128, 128, 5, 7168, 0)};
  std::string error = choose(onlyFixed, 128, 4096, 2048);
  EXPECT_NE(error.find("no loaded kernel accepts N = 4096, K = 2048"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(N=7168, K=any)"), std::string::npos) << error;
  EXPECT_EQ(choose({}, 1, 8, 16), "error: no kernels loaded");
}

TEST(GemmConfig, FallsBackToTheOtherBlockM) {
  EXPECT_EQ(choose({kernel(128, 128)}, 1, 256, 256), "bm128_bn128");
  EXPECT_EQ(choose({kernel(64, 128)}, 4096, 256, 256), "bm64_bn128");
}

TEST(GemmLaunch, DenseLaunchDims) {
  KernelMeta meta = kernel(128, 64);
  LaunchDims dims = denseLaunchDims(meta, 4097, 2112, /*smCount=*/132);
  EXPECT_EQ(dims.grid[0], 33u);
  EXPECT_EQ(dims.grid[1], 33u);
  EXPECT_EQ(dims.grid[2], 1u);
  EXPECT_EQ(dims.block[0], 384u);
  EXPECT_EQ(dims.block[1], 1u);
  EXPECT_EQ(dims.sharedBytes, 200000u);
  EXPECT_EQ(dims.cluster, 1u);
  EXPECT_TRUE(validateLaunchDims(dims).ok());
}

TEST(GemmLaunch, PersistentGridIsAtMostOneCtaPerSm) {
  KernelMeta meta = kernel(128, 128);
  meta.schedule = "persistent";
  LaunchDims dims = denseLaunchDims(meta, 4096, 7168, 132); // 1792 tiles
  EXPECT_EQ(dims.grid[0], 132u);
  EXPECT_EQ(dims.grid[1], 1u);
  EXPECT_EQ(dims.block[0], 384u);
  dims = denseLaunchDims(meta, 128, 1024, 132); // 8 tiles
  EXPECT_EQ(dims.grid[0], 8u);
  EXPECT_EQ(dims.grid[1], 1u);
  // The 65535 row-block limit of plain grids does not apply.
  dims = denseLaunchDims(meta, int64_t(70000) * 128, 128, 132);
  EXPECT_EQ(dims.grid[0], 132u);
  EXPECT_TRUE(validateLaunchDims(dims).ok());
}

TEST(GemmConfig, PersistentForShortKWithSeveralTiles) {
  KernelMeta persistent = kernel(128, 128);
  persistent.kernel = "persistent";
  persistent.schedule = "persistent";
  std::vector<KernelMeta> kernels = {kernel(128, 128), persistent};
  // Several tiles per CTA and a short K loop: the overlapped epilogue pays.
  EXPECT_EQ(choose(kernels, 4096, 24576, 1536), "persistent");
  // Long K: the plain grid measured faster.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  // One wave: nothing to overlap.
  EXPECT_EQ(choose(kernels, 128, 1024, 2048), "bm128_bn128");
}

TEST(GemmLaunch, LaunchLimits) {
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
  EXPECT_NE(validateLaunchDims(dims).message().find("not a multiple of cluster"),
            std::string::npos);
  dims.grid[0] = 4;
  EXPECT_TRUE(validateLaunchDims(dims).ok());
}

TEST(GemmDevice, NeedsHopper) {
  DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.major = 9;
  device.minor = 0;
  EXPECT_TRUE(checkHopper(device).ok());
  device.ordinal = 1;
  device.name = "NVIDIA A100-SXM4-80GB";
  device.major = 8;
  EXPECT_EQ(checkHopper(device).message(),
            "fgemm kernels need sm_90a (Hopper); device 1 "
            "(NVIDIA A100-SXM4-80GB) is sm_80");
  device.major = 10;
  EXPECT_NE(checkHopper(device).message().find("is sm_100"), std::string::npos);
}

TEST(GemmLaunch, ParameterOrder) {
  DenseKernelParams params = {};
  void *pointers[8];
  params.fillPointers(pointers);
  EXPECT_EQ(pointers[0], &params.a);
  EXPECT_EQ(pointers[1], &params.b);
  EXPECT_EQ(pointers[2], &params.sfa);
  EXPECT_EQ(pointers[3], &params.d);
  EXPECT_EQ(pointers[4], &params.sfb);
  EXPECT_EQ(pointers[5], &params.m);
  EXPECT_EQ(pointers[6], &params.n);
  EXPECT_EQ(pointers[7], &params.k);
  // Each host copy of a tensor map must be 64-byte aligned for the driver.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointers[i]) % 64, 0u) << i;
}

TEST(GemmLaunch, ClusterRoundsGridXUp) {
  KernelMeta meta = kernel(128, 128);
  meta.cluster = 2;
  // 17 column tiles -> 18 CTAs along x (9 clusters); the extra one stores nothing.
  LaunchDims dims = denseLaunchDims(meta, 4096, 2112, /*smCount=*/132);
  EXPECT_EQ(dims.grid[0], 18u);
  EXPECT_EQ(dims.grid[1], 32u);
  EXPECT_EQ(dims.cluster, 2u);
  EXPECT_TRUE(validateLaunchDims(dims).ok());
}
