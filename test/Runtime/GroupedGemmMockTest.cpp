//===- GroupedGemmMockTest.cpp - GroupedGemm against a mock driver -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Runs GroupedGemm on MockCuda's libcuda.so.1 with the description fgemmc
// writes for the masked kernel: the kernels it loads and skips, validation
// before any launch, and the launch it makes (grid, maps, pointers, dims).
//
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"
#include "MockCuda.h"
#include "MockDeviceTest.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/GroupedGemm.h"

#include "TestDirectory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <thread>

using namespace fgemm;
namespace fs = std::filesystem;

namespace {

class GroupedGemmMock : public fgemm::test::MockDeviceTest {
protected:
  GroupedGemmMock() : MockDeviceTest("fgemm_grouped_mock_") {}
  void SetUp() override {
    MockDeviceTest::SetUp();
    fgemm::test::writeMaskedKernel(dir, "masked_bm128_bn128_plain");
    // A dense kernel beside it: not GroupedGemm's.
    fgemm::test::writeDenseKernel(dir, "bm128_bn128",
                                  fgemm::test::DenseConfig());
  }

  GroupedGemmProblem masked(int64_t groups, int64_t m, int64_t n, int64_t k) {
    GroupedGemmProblem p;
    p.layout = GroupedLayout::Masked;
    p.a = allocate(size_t(groups * m * k));
    p.b = allocate(size_t(groups * n * k));
    p.sfa = allocate(size_t(groups * (m + 3) / 4 * 4 * (k / 128) * 4));
    p.sfb = allocate(size_t(groups * ((n + 127) / 128) * (k / 128) * 4));
    p.groupRows = allocate(size_t(groups * 4));
    p.d = allocate(size_t(groups * m * n * 2));
    p.m = m;
    p.n = n;
    p.k = k;
    p.groups = groups;
    p.expectedM = 64;
    return p;
  }
};

} // namespace

TEST_F(GroupedGemmMock, LaunchesTheMaskedKernelByItsDescription) {
  Expected<GroupedGemm> gemm = GroupedGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_EQ(gemm->kernels().size(), 1u); // the dense kernel is skipped
  GroupedGemmProblem p = masked(3, 200, 256, 512);
  int before = fgemmMockLaunchCount();
  Status status = gemm->run(p, nullptr);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(fgemmMockLaunchCount(), before + 1);
  const MockLaunch &launch = *fgemmMockLastLaunch();
  EXPECT_STREQ(launch.function, "sm90_m_grouped_fp8_gemm_masked_1d2d");
  EXPECT_EQ(launch.grid[0], 2u); // N tiles
  EXPECT_EQ(launch.grid[1], 2u); // M tiles of the capacity
  EXPECT_EQ(launch.grid[2], 3u); // groups
  ASSERT_EQ(launch.paramCount, 11u);
  MockTensorMap a = mockParam<MockTensorMap>(launch, 0);
  EXPECT_EQ(a.rank, 3u);
  EXPECT_EQ(a.base, p.a);
  EXPECT_EQ(a.dims[2], 3u);
  MockTensorMap d = mockParam<MockTensorMap>(launch, 3);
  EXPECT_EQ(d.base, p.d);
  EXPECT_EQ(d.dims[0], 256u);
  EXPECT_EQ(d.dims[1], 200u);
  EXPECT_EQ(mockParam<CUdeviceptr>(launch, 4), p.sfb);
  EXPECT_EQ(mockParam<CUdeviceptr>(launch, 5), p.groupRows);
  EXPECT_EQ(mockParam<CUdeviceptr>(launch, 6),
            p.d); // rows cut: stored directly
  EXPECT_EQ(mockParam<uint32_t>(launch, 7), 200u);
  EXPECT_EQ(mockParam<uint32_t>(launch, 10), 3u);
}

TEST_F(GroupedGemmMock, ChoiceFollowsTheSmCap) {
  // 64-row tiles fit in one wave of 132 SMs (3 groups x 4 x 2 = 24 CTAs),
  // not of 7: the choice is made again when the cap changes.
  fgemm::test::writeMaskedKernel(dir, "masked_bm64_bn128_plain", 64, 128);
  Expected<GroupedGemm> gemm = GroupedGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  GroupedGemmProblem p = masked(3, 256, 256, 512);
  p.expectedM = 200;
  auto rowTilesLaunched = [&]() -> unsigned {
    Status status = gemm->run(p, nullptr);
    EXPECT_TRUE(status.ok()) << status.message();
    return fgemmMockLastLaunch()->grid[1];
  };
  EXPECT_EQ(rowTilesLaunched(), 4u);
  EXPECT_EQ(rowTilesLaunched(), 4u);
  ASSERT_TRUE(gemm->setSmLimit(7).ok());
  EXPECT_EQ(rowTilesLaunched(), 2u);
  ASSERT_TRUE(gemm->setSmLimit(0).ok());
  EXPECT_EQ(rowTilesLaunched(), 4u);
}

TEST_F(GroupedGemmMock, OnDemandKernelsSpecializedPerShape) {
  std::vector<std::string> made;
  Expected<GroupedGemm> gemm = GroupedGemm::createOnDemand(
      [&](GroupedLayout layout,
          const DenseConfiguration &config) -> Expected<std::string> {
        std::string stem =
            std::string(groupedVariant(layout)) + "_" + config.stem();
        made.push_back(stem);
        fgemm::test::writeMaskedKernel(dir, stem, int(config.blockM),
                                       int(config.blockN), config.persistent,
                                       config.fixedN, config.fixedK);
        return (dir / stem).string();
      });
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_TRUE(gemm->specializeShapes(true).ok());
  GroupedGemmProblem p = masked(3, 200, 256, 512);
  Status first = gemm->run(p, nullptr);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_NE(made[0].find("_n256_k512"), std::string::npos) << made[0];
  ASSERT_TRUE(gemm->run(p, nullptr).ok());
  EXPECT_EQ(made.size(), 1u);
  GroupedGemmProblem wider = masked(3, 200, 512, 512);
  ASSERT_TRUE(gemm->run(wider, nullptr).ok());
  ASSERT_EQ(made.size(), 2u);
  EXPECT_NE(made[1].find("_n512_k512"), std::string::npos) << made[1];
  Expected<GroupedGemm> fromDir = GroupedGemm::create(dir.string());
  ASSERT_TRUE(fromDir.ok());
  EXPECT_FALSE(fromDir->specializeShapes(true).ok());
}

TEST_F(GroupedGemmMock, OnDemandKernelsSpecializedInTheBackground) {
  // The provider runs on another thread for the specialized kernel: the
  // first call launches the generic kernel, a later one the specialized.
  // The specialized compile is held until the first call has returned (else
  // a fast provider on a loaded machine could finish it first).
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> asks{0};
  Expected<GroupedGemm> gemm = GroupedGemm::createOnDemand(
      [&, released](GroupedLayout layout,
                    const DenseConfiguration &config) -> Expected<std::string> {
        ++asks;
        if (config.fixedK)
          released.wait();
        std::string stem =
            std::string(groupedVariant(layout)) + "_" + config.stem();
        fgemm::test::writeMaskedKernel(dir, stem, int(config.blockM),
                                       int(config.blockN), config.persistent,
                                       config.fixedN, config.fixedK);
        return (dir / stem).string();
      });
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  ASSERT_TRUE(gemm->specializeShapes(true, /*background=*/true).ok());
  GroupedGemmProblem p = masked(3, 200, 256, 512);
  Expected<GroupedGemm::Prepared> first = gemm->prepare(p);
  release.set_value();
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->specialized, nullptr); // the generic kernel stands in
  const Kernel *specialized = nullptr;
  for (int call = 0; call < 500 && !specialized; ++call) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    Expected<GroupedGemm::Prepared> later = gemm->prepare(p);
    ASSERT_TRUE(later.ok()) << later.status().message();
    specialized = later->specialized;
  }
  ASSERT_NE(specialized, nullptr);
  EXPECT_EQ(specialized->meta().fixedN, 256u);
  EXPECT_EQ(specialized->meta().fixedK, 512u);
  EXPECT_EQ(asks.load(), 2); // the generic kernel and the specialized one
  ASSERT_TRUE(gemm->run(p, nullptr).ok());
}

TEST_F(GroupedGemmMock, RefusesBeforeLaunching) {
  Expected<GroupedGemm> gemm = GroupedGemm::create(dir.string());
  ASSERT_TRUE(gemm.ok()) << gemm.status().message();
  int before = fgemmMockLaunchCount();
  GroupedGemmProblem p = masked(2, 64, 256, 512);
  p.expectedM = 0;
  EXPECT_NE(gemm->run(p, nullptr).message().find("expected_m = 0"),
            std::string::npos);
  p.expectedM = 32;
  p.groupRows = 0;
  EXPECT_NE(gemm->run(p, nullptr).message().find("masked_m"),
            std::string::npos);
  // No contiguous kernel in the directory.
  GroupedGemmProblem c = masked(2, 128, 256, 512);
  c.layout = GroupedLayout::Contiguous;
  EXPECT_EQ(gemm->run(c, nullptr).message(),
            "no loaded grouped_contiguous kernel accepts N = 256, K = 512");
  // Empty outputs launch nothing and need no pointers.
  GroupedGemmProblem empty;
  empty.layout = GroupedLayout::Masked;
  empty.n = 256;
  empty.k = 512;
  empty.groups = 4;
  empty.expectedM = 1;
  EXPECT_TRUE(gemm->run(empty, nullptr).ok());
  EXPECT_EQ(fgemmMockLaunchCount(), before);
}

TEST_F(GroupedGemmMock, DirectoriesWithoutGroupedKernels) {
  fs::remove(dir / "masked_bm128_bn128_plain.cubin");
  fs::remove(dir / "masked_bm128_bn128_plain.meta");
  Expected<GroupedGemm> gemm = GroupedGemm::create(dir.string());
  ASSERT_FALSE(gemm.ok());
  EXPECT_EQ(gemm.status().message(),
            "no grouped kernels in '" + dir.string() + "'");
}
