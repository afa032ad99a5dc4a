//===- DenseGemmMockTest.cpp - DenseGemm against a mock driver --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Runs DenseGemm end to end on MockCuda's libcuda.so.1 (linked into this
// test, so the runtime's dlopen finds it): directory loading, error
// messages, validation before launch, and the exact launch it makes.
//
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"
#include "MockCuda.h"
#include "MockDeviceTest.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/Gemm.h"
#include "Runtime/Timeline.h"
#include "Runtime/Tuning.h"

#include "TestDirectory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <optional>
#include <thread>
#include <tuple>

using namespace fgemm;
using fgemm::test::DenseConfig;
using fgemm::test::denseDescription;
namespace fs = std::filesystem;

namespace {

/// Writes STEM.cubin (a fake one holding `symbols`, with the dense
/// kernel's parameter sizes) and STEM.meta (what fgemmc writes).
void writeKernel(const fs::path &dir, const std::string &stem,
                 const std::string &kernel, uint32_t blockM, uint32_t blockN,
                 uint32_t smem, uint32_t fixedN = 0,
                 std::vector<std::string> symbols = {},
                 const char *schedule = "plain", uint32_t cluster = 1,
                 uint32_t fixedK = 0) {
  DenseConfig config;
  config.kernel = kernel;
  config.blockM = blockM;
  config.blockN = blockN;
  config.stages = 4;
  config.smemBytes = smem;
  config.cluster = cluster;
  config.schedule = schedule;
  config.fixedN = fixedN;
  config.fixedK = fixedK;
  fgemm::test::writeDenseKernel(dir, stem, config, std::move(symbols));
}

/// What a compiling provider makes for `config` (plain schedule): kernel
/// k_STEM in DIR/STEM.{cubin,meta}; returns DIR/STEM.
std::string writeConfigurationKernel(const fs::path &dir,
                                     const DenseConfiguration &config) {
  writeKernel(dir, config.stem(), "k_" + config.stem(), config.blockM,
              config.blockN, 165952, config.fixedN, {}, "plain", 1,
              config.fixedK);
  return (dir / config.stem()).string();
}

/// An m x n x k problem whose operands all point at `p` (the mock never
/// reads them).
DenseGemmProblem problemAt(CUdeviceptr p, int64_t m, int64_t n, int64_t k) {
  DenseGemmProblem problem;
  problem.a = problem.sfa = problem.b = problem.sfb = problem.d = p;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  return problem;
}

class DenseGemmMock : public fgemm::test::MockDeviceTest {
protected:
  DenseGemmMock() : MockDeviceTest("fgemm_mock_") {}

  /// The error of DenseGemm::create(dir), or "" if it succeeded.
  std::string createError() {
    Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
    return gemm.ok() ? std::string() : gemm.status().message();
  }
};

void expectMap(const MockLaunch &launch, unsigned param,
               CUtensorMapDataType type, CUdeviceptr base, uint64_t dim0,
               uint64_t dim1, uint64_t stride, uint32_t box0, uint32_t box1,
               CUtensorMapSwizzle swizzle) {
  ASSERT_EQ(launch.paramSizes[param], 128u);
  MockTensorMap map = mockParam<MockTensorMap>(launch, param);
  EXPECT_EQ(map.magic, kMockTensorMapMagic);
  EXPECT_EQ(map.dataType, uint32_t(type));
  EXPECT_EQ(map.rank, 2u);
  EXPECT_EQ(map.base, base);
  EXPECT_EQ(map.dims[0], dim0);
  EXPECT_EQ(map.dims[1], dim1);
  EXPECT_EQ(map.strides[0], stride);
  EXPECT_EQ(map.box[0], box0);
  EXPECT_EQ(map.box[1], box1);
  EXPECT_EQ(map.elementStrides[0], 1u);
  EXPECT_EQ(map.elementStrides[1], 1u);
  EXPECT_EQ(map.swizzle, uint32_t(swizzle));
  EXPECT_EQ(map.oobFill, uint32_t(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  EXPECT_EQ(map.l2Promotion, uint32_t(CU_TENSOR_MAP_L2_PROMOTION_L2_256B));
  EXPECT_EQ(map.interleave, uint32_t(CU_TENSOR_MAP_INTERLEAVE_NONE));
}

} // namespace

TEST_F(DenseGemmMock, LoadsEveryKernelAndRaisesSharedMemory) {
  writeKernel(dir, "bm64", "k64", 64, 128, 115776);
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  std::ofstream(dir / "bm64.ptxas.log") << "ignored\n";
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_EQ(gemm->kernels().size(), 2u);
  EXPECT_EQ(gemm->kernels()[0].kernel, "k128"); // sorted by file name
  EXPECT_EQ(gemm->kernels()[1].kernel, "k64");
  EXPECT_EQ(gemm->kernelPath(1), (dir / "bm64.cubin").string());
  EXPECT_EQ(gemm->device().smCount, 132);
  EXPECT_EQ(fgemmMockDynamicSharedBytes("k64"), 115776);
  EXPECT_EQ(fgemmMockDynamicSharedBytes("k128"), 165952);
}

TEST_F(DenseGemmMock, KernelsWithoutTheTimelineKnobHaveNoTimeline) {
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  Expected<DenseGemm::Prepared> prepared =
      gemm->prepare(problemAt(allocate(1 << 20), 128, 256, 256));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  Expected<std::optional<TimelineStamps>> timeline =
      readTimeline(*driver, prepared->launch.function);
  ASSERT_TRUE(timeline.ok()) << timeline.status().message();
  EXPECT_FALSE(timeline->has_value());
  EXPECT_TRUE(clearTimeline(*driver, prepared->launch.function, nullptr).ok());
}

TEST_F(DenseGemmMock, LaunchFollowsTheAbi) {
  writeKernel(dir, "bm64", "k64", 64, 128, 115776);
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  const int64_t m = 520, n = 2112, k = 144;
  CUdeviceptr a = allocate(m * k), sfa = allocate(520 * 2 * 4);
  CUdeviceptr b = allocate(n * k), sfb = allocate(17 * 2 * 4);
  CUdeviceptr d = allocate(m * n * 2);
  Expected<Stream> stream = Stream::create(*driver);
  ASSERT_TRUE(stream.ok());
  int before = fgemmMockLaunchCount();
  Status status = gemm->run(a, sfa, b, sfb, d, m, n, k, stream->get());
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(fgemmMockLaunchCount(), before + 1);
  const MockLaunch &launch = *fgemmMockLastLaunch();
  // One wave of 128-row tiles (85) against two of 64-row ones (153).
  EXPECT_STREQ(launch.function, "k128");
  EXPECT_EQ(launch.grid[0], 17u);
  EXPECT_EQ(launch.grid[1], 5u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 384u);
  EXPECT_EQ(launch.block[1], 1u);
  EXPECT_EQ(launch.sharedBytes, 165952u);
  // Single CTAs: no cluster attribute (the cluster launch path is slower).
  EXPECT_EQ(launch.numAttrs, 0u);
  EXPECT_EQ(launch.clusterX, 0u);
  ASSERT_EQ(launch.paramCount, 8u);
  expectMap(launch, 0, CU_TENSOR_MAP_DATA_TYPE_UINT8, a, k, m, k, 128, 128,
            CU_TENSOR_MAP_SWIZZLE_128B);
  expectMap(launch, 1, CU_TENSOR_MAP_DATA_TYPE_UINT8, b, k, n, k, 128, 128,
            CU_TENSOR_MAP_SWIZZLE_128B);
  expectMap(launch, 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, sfa, 520, 2, 520 * 4,
            128, 1, CU_TENSOR_MAP_SWIZZLE_NONE);
  expectMap(launch, 3, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, d, n, m, n * 2, 128,
            128, CU_TENSOR_MAP_SWIZZLE_NONE);
  EXPECT_EQ(mockParam<uint64_t>(launch, 4), sfb);
  EXPECT_EQ(mockParam<uint32_t>(launch, 5), 520u);
  EXPECT_EQ(mockParam<uint32_t>(launch, 6), 2112u);
  EXPECT_EQ(mockParam<uint32_t>(launch, 7), 144u);

  // M <= 64 takes the 64-row kernel, with 64-row boxes.
  status = gemm->run(a, sfa, b, sfb, d, 1, n, k, stream->get());
  ASSERT_TRUE(status.ok()) << status.message();
  const MockLaunch &small = *fgemmMockLastLaunch();
  EXPECT_STREQ(small.function, "k64");
  EXPECT_EQ(small.block[0], 256u);
  EXPECT_EQ(mockParam<MockTensorMap>(small, 0).box[1], 64u);
  EXPECT_EQ(mockParam<MockTensorMap>(small, 2).dims[0], 4u);
  EXPECT_EQ(mockParam<MockTensorMap>(small, 3).box[1], 64u);
  EXPECT_EQ(mockParam<uint32_t>(small, 5), 1u);
}

/// `fgemmc kernels/sm90_fp8_gemm_1d1d.mlir --block-n=64`'s description.
constexpr const char *k1D1DDescription =
    "abi_version=3\nkernel=sm90_fp8_gemm_1d1d\nvariant=dense_1d1d\n"
    "block_m=128\nblock_n=64\nblock_k=128\nstages=4\nmath_warpgroups=2\n"
    "threads=384\nsmem_bytes=134208\ncluster=1\nschedule=plain\n"
    "fixed_n=0\nfixed_k=0\ndims=m,n,k\n"
    "arg.0=tensor e4m3 m,k\narg.1=tensor e4m3 n,k\n"
    "arg.2=scales f32 m,k block=1x128 mn_major\n"
    "arg.3=scales f32 n,k block=1x128 mn_major\n"
    "arg.4=tensor f32 m,n\narg.5=tensor f32 m,n\n"
    "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
    "param.1=tensor_map arg=1 box=128x64 swizzle=128b\n"
    "param.2=tensor_map arg=2 box=128x1 swizzle=none\n"
    "param.3=tensor_map arg=3 box=64x1 swizzle=none\n"
    "param.4=tensor_map arg=5 box=32x128 swizzle=128b\n"
    "param.5=pointer arg=4\nparam.6=pointer arg=5\nparam.7=dim m\n"
    "param.8=dim n\nparam.9=dim k\n"
    "tiles=n/64,m/128\n";

TEST_F(DenseGemmMock, Recipe1D1DBindsCAndAnF32Output) {
  writeKernel(dir, "bf16", "k_bf16", 128, 128, 165952);
  {
    std::ofstream cubin(dir / "f32.cubin", std::ios::binary);
    cubin << "\x7f"
             "ELFFAKE\nsm90_fp8_gemm_1d1d 128,128,128,128,128,8,8,4,4,4\n\n";
    std::ofstream(dir / "f32.meta") << k1D1DDescription;
  }
  // Each recipe loads its own kernels and skips the other's.
  Expected<DenseGemm> bf16 = DenseGemm::create(dir.string());
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  EXPECT_EQ(bf16->kernels().size(), 1u);
  Expected<DenseGemm> gemm =
      DenseGemm::create(dir.string(), DenseRecipe::k1D1D);
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_EQ(gemm->kernels().size(), 1u);
  EXPECT_EQ(gemm->skipped().size(), 1u);

  const int64_t m = 130, n = 200, k = 256;
  DenseGemmProblem problem;
  problem.a = allocate(m * k);
  problem.sfa = allocate(132 * 2 * 4);
  problem.b = allocate(n * k);
  problem.sfb = allocate(200 * 2 * 4);
  problem.c = allocate(m * n * 4);
  problem.d = allocate(m * n * 4);
  problem.m = m;
  problem.n = n;
  problem.k = k;
  Status status = gemm->run(problem, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  const MockLaunch &launch = *fgemmMockLastLaunch();
  EXPECT_STREQ(launch.function, "sm90_fp8_gemm_1d1d");
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  ASSERT_EQ(launch.paramCount, 10u);
  // SFB is N-major like SFA (N padded to 4), D an f32 map in 32-column
  // slabs, C a pointer and so is D (the kernel compares the two).
  expectMap(launch, 3, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, problem.sfb, 200, 2,
            200 * 4, 64, 1, CU_TENSOR_MAP_SWIZZLE_NONE);
  expectMap(launch, 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, problem.d, n, m, n * 4,
            32, 128, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(mockParam<uint64_t>(launch, 5), problem.c);
  EXPECT_EQ(mockParam<uint64_t>(launch, 6), problem.d);

  // C is the recipe's addend: null is refused (D itself accumulates in
  // place), and the 1D2D recipe takes none.
  int before = fgemmMockLaunchCount();
  DenseGemmProblem noC = problem;
  noC.c = 0;
  EXPECT_NE(gemm->run(noC, nullptr).message().find("C is null"),
            std::string::npos);
  EXPECT_NE(bf16->run(problem, nullptr).message().find("C is given"),
            std::string::npos);
  EXPECT_EQ(fgemmMockLaunchCount(), before);
  // In place: C = D.
  DenseGemmProblem inPlace = problem;
  inPlace.c = problem.d;
  ASSERT_TRUE(gemm->run(inPlace, nullptr).ok());
  EXPECT_EQ(mockParam<uint64_t>(*fgemmMockLastLaunch(), 5), problem.d);
}

/// `fgemmc kernels/sm90_fp8_gemm_bias_1d2d.mlir --block-n=64`'s and
/// `fgemmc kernels/sm90_fp8_gemm_per_tensor.mlir --block-n=64`'s
/// descriptions (their kernel names shortened).
constexpr const char *kBiasDescription =
    "abi_version=3\nkernel=k_bias\nvariant=dense_bias\n"
    "block_m=128\nblock_n=64\nblock_k=128\nstages=4\nmath_warpgroups=2\n"
    "threads=384\nsmem_bytes=117312\ncluster=1\nschedule=plain\n"
    "fixed_n=0\nfixed_k=0\ndims=m,n,k\n"
    "arg.0=tensor e4m3 m,k\narg.1=tensor e4m3 n,k\n"
    "arg.2=scales f32 m,k block=1x128 mn_major\n"
    "arg.3=scales f32 n,k block=128x128\n"
    "arg.4=tensor bf16 n\narg.5=tensor bf16 m,n\n"
    "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
    "param.1=tensor_map arg=1 box=128x64 swizzle=128b\n"
    "param.2=tensor_map arg=2 box=128x1 swizzle=none\n"
    "param.3=tensor_map arg=5 box=64x128 swizzle=128b\n"
    "param.4=pointer arg=3\nparam.5=pointer arg=4\nparam.6=dim m\n"
    "param.7=dim n\nparam.8=dim k\ntiles=n/64,m/128\n";
constexpr const char *kPerTensorDescription =
    "abi_version=3\nkernel=k_per_tensor\nvariant=dense_per_tensor\n"
    "block_m=128\nblock_n=64\nblock_k=128\nstages=4\nmath_warpgroups=2\n"
    "threads=384\nsmem_bytes=115776\ncluster=1\nschedule=plain\n"
    "fixed_n=0\nfixed_k=0\ndims=m,n,k\n"
    "arg.0=tensor e4m3 m,k\narg.1=tensor e4m3 n,k\n"
    "arg.2=scales f32 m,k per_tensor\narg.3=scales f32 n,k per_tensor\n"
    "arg.4=tensor bf16 m,n\n"
    "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
    "param.1=tensor_map arg=1 box=128x64 swizzle=128b\n"
    "param.2=tensor_map arg=4 box=64x128 swizzle=128b\n"
    "param.3=pointer arg=2\nparam.4=pointer arg=3\nparam.5=dim m\n"
    "param.6=dim n\nparam.7=dim k\ntiles=n/64,m/128\n";

TEST_F(DenseGemmMock, BiasAndPerTensorRecipesBindTheirOperands) {
  writeKernel(dir, "bf16", "k_bf16", 128, 128, 165952);
  // The fake cubins list each kernel's parameter sizes (maps, pointers,
  // dims).
  for (auto [stem, name, params, description] :
       {std::tuple{"bias", "k_bias", "128,128,128,128,8,8,4,4,4",
                   kBiasDescription},
        std::tuple{"per_tensor", "k_per_tensor", "128,128,128,8,8,4,4,4",
                   kPerTensorDescription}}) {
    std::ofstream cubin(dir / (std::string(stem) + ".cubin"), std::ios::binary);
    cubin << "\x7f"
             "ELFFAKE\n"
          << name << " " << params << "\n\n";
    std::ofstream(dir / (std::string(stem) + ".meta")) << description;
  }
  Expected<DenseGemm> bias =
      DenseGemm::create(dir.string(), DenseRecipe::kBias1D2D);
  ASSERT_TRUE(bias.ok()) << bias.status().message();
  ASSERT_EQ(bias->kernels().size(), 1u);
  EXPECT_EQ(bias->skipped().size(), 2u);
  Expected<DenseGemm> perTensor =
      DenseGemm::create(dir.string(), DenseRecipe::kPerTensor);
  ASSERT_TRUE(perTensor.ok()) << perTensor.status().message();
  ASSERT_EQ(perTensor->kernels().size(), 1u);

  const int64_t m = 130, n = 200, k = 256;
  DenseGemmProblem problem;
  problem.a = allocate(m * k);
  problem.sfa = allocate(132 * 2 * 4);
  problem.b = allocate(n * k);
  problem.sfb = allocate(2 * 2 * 4);
  problem.bias = allocate(n * 2);
  problem.d = allocate(m * n * 2);
  problem.m = m;
  problem.n = n;
  problem.k = k;
  Status status = bias->run(problem, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  const MockLaunch &launch = *fgemmMockLastLaunch();
  EXPECT_STREQ(launch.function, "k_bias");
  ASSERT_EQ(launch.paramCount, 9u);
  EXPECT_EQ(mockParam<uint64_t>(launch, 4), problem.sfb);
  EXPECT_EQ(mockParam<uint64_t>(launch, 5), problem.bias);

  // The bias is the recipe's operand: null is refused, and the other
  // recipes take none.
  int before = fgemmMockLaunchCount();
  DenseGemmProblem noBias = problem;
  noBias.bias = 0;
  EXPECT_NE(bias->run(noBias, nullptr).message().find("the bias is null"),
            std::string::npos);
  EXPECT_NE(perTensor->run(problem, nullptr).message().find("a bias is given"),
            std::string::npos);
  EXPECT_EQ(fgemmMockLaunchCount(), before);

  // Per tensor: SFA and SFB are one f32 each, passed as pointers.
  DenseGemmProblem scalar = noBias;
  scalar.sfa = allocate(4);
  scalar.sfb = allocate(4);
  status = perTensor->run(scalar, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  const MockLaunch &scaled = *fgemmMockLastLaunch();
  EXPECT_STREQ(scaled.function, "k_per_tensor");
  ASSERT_EQ(scaled.paramCount, 8u);
  EXPECT_EQ(mockParam<uint64_t>(scaled, 3), scalar.sfa);
  EXPECT_EQ(mockParam<uint64_t>(scaled, 4), scalar.sfb);
}

TEST_F(DenseGemmMock, ClusterPairsShareA) {
  writeKernel(dir, "c2", "kc2", 128, 128, 165952, 0, {}, "plain",
              /*cluster=*/2);
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(size_t(64) << 20);
  Status status = gemm->run(p, p, p, p, p, 4096, 2112, 512, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  const MockLaunch &launch = *fgemmMockLastLaunch();
  EXPECT_EQ(launch.grid[0], 18u); // 17 column tiles, rounded up to pairs
  EXPECT_EQ(launch.grid[1], 32u);
  EXPECT_EQ(launch.clusterX, 2u);
  // Each CTA of a pair multicasts half of A's tile.
  EXPECT_EQ(mockParam<MockTensorMap>(launch, 0).box[1], 64u);
}

TEST_F(DenseGemmMock, PersistentKernelsGetOneCtaPerSm) {
  writeKernel(dir, "p", "kp", 128, 128, 165952, 0, {}, "persistent");
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(size_t(64) << 20);
  Status status = gemm->run(p, p, p, p, p, 4096, 4096, 512, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "kp");
  EXPECT_EQ(fgemmMockLastLaunch()->grid[0], 132u);
  EXPECT_EQ(fgemmMockLastLaunch()->grid[1], 1u);
  EXPECT_EQ(fgemmMockLastLaunch()->numAttrs, 0u);
}

TEST_F(DenseGemmMock, NothingIsLaunchedForEmptyOrInvalidProblems) {
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(1 << 20);
  int before = fgemmMockLaunchCount();
  EXPECT_TRUE(gemm->run(0, 0, 0, 0, 0, 0, 128, 128, nullptr).ok());
  EXPECT_TRUE(gemm->run(0, 0, 0, 0, 0, 128, 0, 128, nullptr).ok());
  Status misaligned = gemm->run(p, p + 8, p, p, p, 128, 128, 128, nullptr);
  EXPECT_EQ(misaligned.message().find("arg.2 (SFA) ("), 0u)
      << misaligned.message();
  Status null = gemm->run(p, p, p, 0, p, 128, 128, 128, nullptr);
  EXPECT_EQ(null.message(), "arg.3 (SFB) is a null pointer");
  Status badN = gemm->run(p, p, p, p, p, 128, 100, 128, nullptr);
  EXPECT_NE(badN.message().find("N = 100"), std::string::npos);
  EXPECT_EQ(fgemmMockLaunchCount(), before);
}

TEST_F(DenseGemmMock, SpecializedKernelsRefuseOtherShapes) {
  writeKernel(dir, "fixed", "kfixed", 128, 128, 165952, /*fixedN=*/4096);
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(1 << 24);
  Status status = gemm->run(p, p, p, p, p, 128, 2112, 128, nullptr);
  EXPECT_NE(status.message().find("no loaded kernel accepts N = 2112"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(gemm->run(p, p, p, p, p, 128, 4096, 128, nullptr).ok());
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 6), 4096u);
}

TEST_F(DenseGemmMock, OtherVariantsAreSkipped) {
  writeKernel(dir, "dense", "kd", 128, 128, 165952);
  writeKernel(dir, "grouped", "kg", 128, 128, 165952);
  std::string grouped;
  {
    std::ifstream in(dir / "grouped.meta");
    grouped.assign(std::istreambuf_iterator<char>(in), {});
  }
  grouped.replace(grouped.find("variant=dense"), 13, "variant=grouped_masked");
  std::ofstream(dir / "grouped.meta") << grouped;
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_EQ(gemm->kernels().size(), 1u);
  EXPECT_EQ(gemm->kernels()[0].kernel, "kd");
  ASSERT_EQ(gemm->skipped().size(), 1u);
  EXPECT_EQ(gemm->skipped()[0], (dir / "grouped.meta").string());
  fs::remove(dir / "dense.meta");
  fs::remove(dir / "dense.cubin");
  EXPECT_EQ(createError(), "no dense kernels in '" + dir.string() +
                               "' (1 kernel(s) of other variants)");
}

TEST_F(DenseGemmMock, DescriptionErrors) {
  // A kernel compiled for another description version.
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  std::string text;
  {
    std::ifstream in(dir / "a.meta");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string v1 = text;
  v1.replace(v1.find("abi_version=3\n"), 14, "");
  std::ofstream(dir / "a.meta") << v1;
  EXPECT_NE(createError().find("a.meta: no abi_version key"), std::string::npos)
      << createError();
  // A "dense" kernel whose arguments are not the dense contract.
  std::string other = text;
  other.replace(other.find(" mn_major"), 9, "");
  std::ofstream(dir / "a.meta") << other;
  EXPECT_EQ(createError(), (dir / "a.meta").string() +
                               ": arg.2 (SFA) is 'scales f32 m,k block=1x128' "
                               "but a dense kernel's is 'scales f32 m,k "
                               "block=1x128 mn_major' (docs/ABI.md)");
}

TEST_F(DenseGemmMock, DirectoryErrors) {
  EXPECT_NE(createError().find("no compiled kernels (NAME.cubin + NAME.meta)"),
            std::string::npos);
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  fs::remove(dir / "a.cubin");
  EXPECT_NE(createError().find("a.meta' has no a.cubin beside it"),
            std::string::npos);
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  fs::remove(dir / "a.meta");
  EXPECT_NE(createError().find("a.cubin' has no a.meta beside it"),
            std::string::npos);
  writeKernel(dir, "a", "ka", 128, 128, 1000, 0, {"other"});
  EXPECT_NE(createError().find("no kernel 'ka' in"), std::string::npos)
      << createError();
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  std::ofstream(dir / "a.meta", std::ios::app) << "bogus=1\n";
  EXPECT_NE(createError().find("unknown key 'bogus'"), std::string::npos);
  fs::remove_all(dir);
  EXPECT_NE(createError().find("cannot list kernel directory"),
            std::string::npos);
}

TEST_F(DenseGemmMock, NeedsHopperAndAContext) {
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  fgemmMockSetComputeCapability(8, 6);
  EXPECT_EQ(createError(), "fgemm kernels need sm_90a (Hopper); device 0 "
                           "(Mock Hopper) is sm_86");
  fgemmMockSetComputeCapability(9, 0);
  EXPECT_EQ(createError(), "");
  context.reset(); // releases the primary context (the current one stays)
  ASSERT_EQ((*Driver::get())->cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_NE(createError().find("no current CUDA context"), std::string::npos);
}

TEST_F(DenseGemmMock, ModulesAreUnloaded) {
  writeKernel(dir, "a", "ka", 128, 128, 1000);
  int before = fgemmMockLoadedModules();
  {
    Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
    ASSERT_TRUE(gemm.ok());
    EXPECT_EQ(fgemmMockLoadedModules(), before + 1);
  }
  EXPECT_EQ(fgemmMockLoadedModules(), before);
}

TEST_F(DenseGemmMock, OnDemandKernelsAreMadeOnFirstUse) {
  // A provider that writes the kernel the configuration asks for, counting
  // its calls (lib/Jit's compiles into the kernel cache).
  std::vector<std::string> made;
  DenseGemm::KernelProvider provider =
      [&](const DenseConfiguration &config) -> Expected<std::string> {
    made.push_back(config.stem());
    writeKernel(dir, config.stem(), "k_" + config.stem(), config.blockM,
                config.blockN, 165952, 0, {},
                config.persistent ? "persistent" : "plain");
    return (dir / config.stem()).string();
  };
  Expected<DenseGemm> gemm = DenseGemm::createOnDemand(
      {{128, 128, false, 16}, {64, 64, false, 0}}, provider);
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  EXPECT_TRUE(made.empty());
  EXPECT_EQ(gemm->kernelPath(0), "");
  CUdeviceptr p = allocate(1 << 24);
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 4096, 7168, 7168, nullptr).ok());
  EXPECT_EQ(made, std::vector<std::string>{"bm128_bn128_plain"});
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function),
            "k_bm128_bn128_plain");
  EXPECT_EQ(gemm->kernels()[0].stages, 4u); // the made kernel's description
  // Made once: another shape on the same configuration only launches.
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 2048, 7168, 7168, nullptr).ok());
  EXPECT_EQ(made.size(), 1u);
  // A small problem picks the other configuration, made then.
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 64, 128, 256, nullptr).ok());
  EXPECT_EQ(made.back(), "bm64_bn64_plain");
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function), "k_bm64_bn64_plain");
}

TEST_F(DenseGemmMock, OnDemandKernelsSpecializedPerShape) {
  std::vector<std::string> made;
  DenseGemm::KernelProvider provider =
      [&](const DenseConfiguration &config) -> Expected<std::string> {
    made.push_back(config.stem());
    return writeConfigurationKernel(dir, config);
  };
  Expected<DenseGemm> gemm =
      DenseGemm::createOnDemand({{128, 128, false, 16}}, provider);
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_TRUE(gemm->specializeShapes(true).ok());
  CUdeviceptr p = allocate(1 << 24);
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 4096, 7168, 2048, nullptr).ok());
  EXPECT_EQ(made, std::vector<std::string>{"bm128_bn128_plain_n7168_k2048"});
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function),
            "k_bm128_bn128_plain_n7168_k2048");
  // Another M with the same N and K reuses it; a new N or K makes another.
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 256, 7168, 2048, nullptr).ok());
  EXPECT_EQ(made.size(), 1u);
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 256, 4096, 2048, nullptr).ok());
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 256, 7168, 512, nullptr).ok());
  EXPECT_EQ(made, (std::vector<std::string>{"bm128_bn128_plain_n7168_k2048",
                                            "bm128_bn128_plain_n4096_k2048",
                                            "bm128_bn128_plain_n7168_k512"}));
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function),
            "k_bm128_bn128_plain_n7168_k512");
  // The generic kernel was never made; the prepared launch names the one
  // that runs.
  EXPECT_EQ(gemm->kernelPath(0), "");
  Expected<DenseGemm::Prepared> prepared =
      gemm->prepare(problemAt(p, 64, 7168, 2048));
  ASSERT_TRUE(prepared.ok());
  ASSERT_NE(prepared->specialized, nullptr);
  EXPECT_EQ(prepared->specialized->meta().fixedN, 7168u);
  // A specialized kernel that cannot be made (ptxas spilled for that N and
  // K; here a provider that returns the generic one, which is caught): the
  // call runs the generic kernel, and the failure is not retried.
  int asked = 0;
  Expected<DenseGemm> generic = DenseGemm::createOnDemand(
      {{128, 128, false, 16}},
      [&](const DenseConfiguration &config) -> Expected<std::string> {
        ++asked;
        writeKernel(dir, "generic", "kgeneric", config.blockM, config.blockN,
                    165952);
        return (dir / "generic").string();
      });
  ASSERT_TRUE(generic.ok());
  ASSERT_TRUE(generic->specializeShapes(true).ok());
  Status status = generic->run(p, p, p, p, p, 128, 256, 256, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function), "kgeneric");
  EXPECT_EQ(asked, 2); // the specialized kernel, then the generic one
  ASSERT_TRUE(generic->run(p, p, p, p, p, 256, 256, 256, nullptr).ok());
  EXPECT_EQ(asked, 2);
  // A directory's kernels are what they are.
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  Expected<DenseGemm> loadedDir = DenseGemm::create(dir.string());
  ASSERT_TRUE(loadedDir.ok());
  EXPECT_NE(loadedDir->specializeShapes(true).message().find(
                "needs an on-demand context"),
            std::string::npos);
}

TEST_F(DenseGemmMock, OnDemandKernelsSpecializedInTheBackground) {
  // The specialized kernel's compile is held until `release`: calls meanwhile
  // run the generic kernel, and the first call after the compile runs the
  // specialized one.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> specializedAsks{0}, genericAsks{0};
  DenseGemm::KernelProvider provider =
      [&, released](const DenseConfiguration &config) -> Expected<std::string> {
    if (config.fixedK) {
      ++specializedAsks;
      released.wait();
    } else {
      ++genericAsks;
    }
    return writeConfigurationKernel(dir, config);
  };
  Expected<DenseGemm> gemm =
      DenseGemm::createOnDemand({{128, 128, false, 16}}, provider);
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_TRUE(gemm->specializeShapes(true, /*background=*/true).ok());
  CUdeviceptr p = allocate(1 << 24);
  const std::string generic = "k_bm128_bn128_plain",
                    specialized = "k_bm128_bn128_plain_n7168_k2048";
  // EXPECT, not ASSERT, before the release: the context's destructor waits
  // for the held compile.
  for (int call = 0; call < 3; ++call) {
    EXPECT_TRUE(gemm->run(p, p, p, p, p, 4096, 7168, 2048, nullptr).ok());
    EXPECT_EQ(std::string(fgemmMockLastLaunch()->function), generic);
  }
  release.set_value();
  for (int call = 0;
       call < 500 &&
       std::string(fgemmMockLastLaunch()->function) != specialized;
       ++call) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_TRUE(gemm->run(p, p, p, p, p, 4096, 7168, 2048, nullptr).ok());
  }
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function), specialized);
  // Asked once each; from now on the call's launch is kept.
  ASSERT_TRUE(gemm->run(p, p, p, p, p, 4096, 7168, 2048, nullptr).ok());
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function), specialized);
  EXPECT_EQ(specializedAsks.load(), 1);
  EXPECT_EQ(genericAsks.load(), 1);
}

TEST_F(DenseGemmMock, BackgroundSpecializationThatFailsKeepsTheGenericKernel) {
  DenseGemm::KernelProvider provider =
      [&](const DenseConfiguration &config) -> Expected<std::string> {
    if (config.fixedK)
      return Status::error("ptxas: out of registers");
    return writeConfigurationKernel(dir, config);
  };
  Expected<DenseGemm> gemm =
      DenseGemm::createOnDemand({{128, 128, false, 16}}, provider);
  ASSERT_TRUE(gemm.ok());
  ASSERT_TRUE(gemm->specializeShapes(true, /*background=*/true).ok());
  CUdeviceptr p = allocate(1 << 24);
  for (int call = 0; call < 20; ++call) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    Status status = gemm->run(p, p, p, p, p, 256, 4096, 512, nullptr);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(std::string(fgemmMockLastLaunch()->function),
              "k_bm128_bn128_plain");
  }
}

TEST_F(DenseGemmMock, OnDemandFailuresSayWhichKernel) {
  Expected<DenseGemm> failing = DenseGemm::createOnDemand(
      {{128, 128, false, 0}},
      [](const DenseConfiguration &) -> Expected<std::string> {
        return Status::error("ptxas: out of registers");
      });
  ASSERT_TRUE(failing.ok());
  CUdeviceptr p = allocate(1 << 20);
  Status status = failing->run(p, p, p, p, p, 128, 128, 128, nullptr);
  EXPECT_NE(status.message().find("ptxas: out of registers"),
            std::string::npos);
  EXPECT_NE(status.message().find("bm128_bn128_plain"), std::string::npos)
      << status.message();
  // A provider that makes another configuration than asked is caught.
  Expected<DenseGemm> wrong = DenseGemm::createOnDemand(
      {{128, 128, false, 0}},
      [&](const DenseConfiguration &) -> Expected<std::string> {
        writeKernel(dir, "other", "kother", 64, 64, 165952);
        return (dir / "other").string();
      });
  ASSERT_TRUE(wrong.ok());
  status = wrong->run(p, p, p, p, p, 128, 128, 128, nullptr);
  EXPECT_NE(status.message().find("not the requested bm128_bn128_plain"),
            std::string::npos)
      << status.message();
  EXPECT_FALSE(DenseGemm::createOnDemand({}, nullptr).ok());
}

TEST_F(DenseGemmMock, TheRasterGroupIsChosenPerLaunch) {
  // 128x192 pairs sharing B whose tile order is a launch parameter.
  DenseConfig config;
  config.kernel = "kpairs";
  config.blockN = 192;
  config.stages = 4;
  config.smemBytes = 216640;
  config.schedule = "persistent";
  config.cluster = 2;
  std::string meta = fgemm::test::denseDescription(config);
  auto replace = [&](const std::string &from, const std::string &to) {
    meta.replace(meta.find(from), from.size(), to);
  };
  replace("abi_version=3", "abi_version=4");
  replace("box=128x64 swizzle=128b", "box=128x128 swizzle=128b"); // A whole
  replace("box=128x192 swizzle=128b", "box=128x96 swizzle=128b"); // B halves
  replace("tiles=n/192,m/128", "param.8=raster_group default=8\n"
                               "tiles=m/128,n/192");
  std::ofstream(dir / "pairs.meta") << meta;
  std::ofstream(dir / "pairs.cubin", std::ios::binary)
      << "\x7f"
         "ELFFAKE\nkpairs "
      << fgemm::test::denseParamSizes() << ",4\n\n";
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(size_t(256) << 20);
  auto passed = [&](int64_t n) -> uint32_t {
    Status status = gemm->run(p, p, p, p, p, 4096, n, 7168, nullptr);
    EXPECT_TRUE(status.ok()) << status.message();
    return mockParam<uint32_t>(*fgemmMockLastLaunch(), 8);
  };
  // B of 15 MB fits in the mock device's 50 MB L2: row-major; 44 MB: the
  // kernel's default.
  EXPECT_EQ(passed(2112), 1u);
  EXPECT_EQ(passed(6144), 8u);
  gemm->setRasterGroup(3);
  EXPECT_EQ(passed(2112), 3u);
  gemm->setRasterGroup(0);
  EXPECT_EQ(passed(2112), 1u);
}

TEST_F(DenseGemmMock, TunedChoicesOverrideTheModelForTheirShapeOnly) {
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  writeKernel(dir, "bm64", "k64", 64, 64, 165952);
  writeKernel(dir, "fixed", "kfixed", 64, 64, 165952, /*fixedN=*/4096);
  // The model takes 128x128 tiles at 4096 x 4096 x 512; the directory's
  // tuning file says 64x64 for that shape (and names another variant's
  // kernel, which this context ignores).
  std::ofstream(dir / kTuningFileName)
      << "# tuned\ndense 4096 4096 512 bm64\ndense_1d1d 64 64 128 nothere\n";
  Expected<DenseGemm> gemm = DenseGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  CUdeviceptr p = allocate(size_t(64) << 20);
  auto launched = [&](int64_t m, int64_t n, int64_t k) -> std::string {
    Status status = gemm->run(p, p, p, p, p, m, n, k, nullptr);
    EXPECT_TRUE(status.ok()) << status.message();
    return fgemmMockLastLaunch()->function;
  };
  EXPECT_EQ(launched(4096, 4096, 512), "k64");
  EXPECT_EQ(launched(4096, 4096, 1024), "k128"); // another shape: the model
  // setTunedKernel replaces it (and the launch prepared for the old one).
  ASSERT_TRUE(gemm->setTunedKernel(4096, 4096, 512, "fixed").ok());
  EXPECT_EQ(launched(4096, 4096, 512), "kfixed");
  ASSERT_TRUE(gemm->setTunedKernel(4096, 4096, 512, "").ok());
  EXPECT_EQ(launched(4096, 4096, 512), "k128");
  size_t index = 0;
  while (gemm->kernelName(index) != "bm64")
    ++index;
  EXPECT_EQ(gemm->kernels()[index].kernel, "k64");
  // Refused: a kernel not loaded, one compiled for another N.
  Status unknown = gemm->setTunedKernel(64, 64, 128, "bm32");
  EXPECT_EQ(unknown.message(),
            "no loaded dense kernel is named 'bm32' (a tuned choice names the "
            "NAME of a NAME.cubin of the kernel directory)");
  Status otherN = gemm->setTunedKernel(64, 2112, 128, "fixed");
  EXPECT_EQ(otherN.message(), "kernel 'fixed' is compiled for N = 4096, "
                              "K = 0 (0: any) and cannot run N = 2112, "
                              "K = 128");
}

TEST_F(DenseGemmMock, TuningFileErrorsNameTheFileAndEntry) {
  writeKernel(dir, "bm128", "k128", 128, 128, 165952);
  std::string path = (dir / kTuningFileName).string();
  std::ofstream(path) << "dense 64 64\n";
  EXPECT_EQ(createError().find(path + ":1: expected 5 fields"), 0u)
      << createError();
  std::ofstream(path) << "dense 64 64 128 bm64\n";
  EXPECT_EQ(createError(), path + ": dense 64 64 128 bm64: no loaded dense "
                                  "kernel is named 'bm64' (a tuned choice "
                                  "names the NAME of a NAME.cubin of the "
                                  "kernel directory)");
}
