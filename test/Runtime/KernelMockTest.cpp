//===- KernelMockTest.cpp - A described kernel on a mock driver -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Launches a kernel whose parameter list the dense kernel does not have (a
// masked grouped GEMM: 3-D operands, a group-count dimension, an i32 array
// passed by pointer) through the generic API of Launch.h, with nothing in
// the runtime specific to it, and checks what the mock driver received.
//
//===----------------------------------------------------------------------===//

#include "MockCuda.h"
#include "MockDeviceTest.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/Launch.h"

#include "TestDirectory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

using namespace fgemm;
namespace fs = std::filesystem;

namespace {

/// What fgemmc would write for a masked grouped GEMM: D[g] = A[g] B[g]^T on
/// the first masked_m[g] rows of each group.
std::string groupedDescription(const char *schedule) {
  return std::string("# fgemm kernel description (docs/ABI.md)\n"
                     "abi_version=3\n"
                     "kernel=sm90_fp8_m_grouped_gemm_masked\n"
                     "variant=grouped_masked\n"
                     "block_m=128\nblock_n=128\nblock_k=128\nstages=4\n"
                     "math_warpgroups=2\nthreads=384\nsmem_bytes=200000\n"
                     "cluster=1\nschedule=") +
         schedule +
         "\nfixed_n=0\nfixed_k=0\n"
         "dims=g,m,n,k\n"
         "arg.0=tensor e4m3 g,m,k\n"
         "arg.1=tensor e4m3 g,n,k\n"
         "arg.2=scales f32 g,m,k block=1x128 mn_major\n"
         "arg.3=scales f32 g,n,k block=128x128\n"
         "arg.4=tensor i32 g\n"
         "arg.5=tensor bf16 g,m,n\n"
         "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
         "param.1=tensor_map arg=1 box=128x128 swizzle=128b\n"
         "param.2=tensor_map arg=2 box=128x1 swizzle=none\n"
         "param.3=tensor_map arg=5 box=128x128 swizzle=none\n"
         "param.4=pointer arg=3\n"
         "param.5=pointer arg=4\n"
         "param.6=dim g\n"
         "param.7=dim m\n"
         "param.8=dim n\n"
         "param.9=dim k\n"
         "tiles=n/128,m/128,g/1\n";
}

/// The parameter sizes ptxas records for that kernel: four CUtensorMaps,
/// two pointers, four u32.
constexpr const char *kGroupedParamSizes = "128,128,128,128,8,8,4,4,4,4";

class KernelMock : public fgemm::test::MockDeviceTest {
protected:
  KernelMock() : MockDeviceTest("fgemm_kernel_mock_") {}

  /// Writes BASE.meta and a fake BASE.cubin; returns BASE.
  std::string write(const std::string &description) {
    std::string base = (dir / "grouped").string();
    std::ofstream(base + ".cubin", std::ios::binary)
        << "\x7f"
           "ELFFAKE\nsm90_fp8_m_grouped_gemm_masked "
        << kGroupedParamSizes << "\n\n";
    std::ofstream(base + ".meta") << description;
    return base;
  }

  /// Bindings of a problem of `g` groups of m x n x k, on fresh buffers.
  KernelBindings bind(int64_t g, int64_t m, int64_t n, int64_t k) {
    KernelBindings bindings;
    int64_t mPadded = (m + 3) / 4 * 4, kBlocks = (k + 127) / 128;
    bindings.args = {
        allocate(size_t(g * m * k)),                           // A
        allocate(size_t(g * n * k)),                           // B
        allocate(size_t(g * mPadded * kBlocks * 4)),           // SFA
        allocate(size_t(g * ((n + 127) / 128) * kBlocks * 4)), // SFB
        allocate(size_t(g * 4)),                               // masked_m
        allocate(size_t(g * m * n * 2)),                       // D
    };
    bindings.dims = {{"g", g}, {"m", m}, {"n", n}, {"k", k}};
    return bindings;
  }
};

} // namespace

TEST_F(KernelMock, LaunchesAGroupedKernelByItsDescription) {
  Expected<Kernel> kernel =
      Kernel::loadFiles(*driver, write(groupedDescription("plain")));
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_EQ(kernel->meta().variant, "grouped_masked");
  EXPECT_EQ(kernel->smCount(), 132);
  EXPECT_EQ(fgemmMockDynamicSharedBytes("sm90_fp8_m_grouped_gemm_masked"),
            200000);

  const int64_t g = 3, m = 65, n = 256, k = 512;
  KernelBindings bindings = bind(g, m, n, k);
  Expected<Stream> stream = Stream::create(*driver);
  ASSERT_TRUE(stream.ok());
  int before = fgemmMockLaunchCount();
  Status status = kernel->run(bindings, stream->get());
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(fgemmMockLaunchCount(), before + 1);

  const MockLaunch &launch = *fgemmMockLastLaunch();
  EXPECT_STREQ(launch.function, "sm90_fp8_m_grouped_gemm_masked");
  // tiles=n/128,m/128,g/1: one CTA per tile of each group.
  EXPECT_EQ(launch.grid[0], 2u);
  EXPECT_EQ(launch.grid[1], 1u);
  EXPECT_EQ(launch.grid[2], 3u);
  EXPECT_EQ(launch.block[0], 384u);
  EXPECT_EQ(launch.sharedBytes, 200000u);
  EXPECT_EQ(launch.numAttrs, 0u); // no cluster attribute for single CTAs
  ASSERT_EQ(launch.paramCount, 10u);

  // A [g, m, k] e4m3: a 3-D map {k, m, g}.
  MockTensorMap a = mockParam<MockTensorMap>(launch, 0);
  EXPECT_EQ(a.magic, kMockTensorMapMagic);
  EXPECT_EQ(a.rank, 3u);
  EXPECT_EQ(a.base, bindings.args[0]);
  EXPECT_EQ(a.dataType, uint32_t(CU_TENSOR_MAP_DATA_TYPE_UINT8));
  EXPECT_EQ(a.dims[0], uint64_t(k));
  EXPECT_EQ(a.dims[1], uint64_t(m));
  EXPECT_EQ(a.dims[2], uint64_t(g));
  EXPECT_EQ(a.strides[0], uint64_t(k));
  EXPECT_EQ(a.strides[1], uint64_t(m * k));
  EXPECT_EQ(a.box[0], 128u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.box[2], 1u);
  EXPECT_EQ(a.swizzle, uint32_t(CU_TENSOR_MAP_SWIZZLE_128B));
  EXPECT_EQ(mockParam<MockTensorMap>(launch, 1).base, bindings.args[1]);
  // SFA [g, m, k] M-major: {align(m, 4), k / 128, g}.
  MockTensorMap sfa = mockParam<MockTensorMap>(launch, 2);
  EXPECT_EQ(sfa.dataType, uint32_t(CU_TENSOR_MAP_DATA_TYPE_FLOAT32));
  EXPECT_EQ(sfa.dims[0], 68u);
  EXPECT_EQ(sfa.dims[1], 4u);
  EXPECT_EQ(sfa.dims[2], 3u);
  EXPECT_EQ(sfa.strides[1], 68u * 4 * 4);
  // D [g, m, n] bf16 is arg.5, not arg.3: the description says so.
  MockTensorMap d = mockParam<MockTensorMap>(launch, 3);
  EXPECT_EQ(d.base, bindings.args[5]);
  EXPECT_EQ(d.dataType, uint32_t(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16));
  EXPECT_EQ(d.strides[1], uint64_t(m * n * 2));
  // SFB and masked_m by pointer, then g, m, n, k as u32.
  EXPECT_EQ(launch.paramSizes[4], 8u);
  EXPECT_EQ(mockParam<uint64_t>(launch, 4), bindings.args[3]);
  EXPECT_EQ(mockParam<uint64_t>(launch, 5), bindings.args[4]);
  const uint32_t dims[] = {3, 65, 256, 512};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(launch.paramSizes[6 + i], 4u);
    EXPECT_EQ(mockParam<uint32_t>(launch, 6 + i), dims[i]) << i;
  }
}

TEST_F(KernelMock, PreparedLaunchesRepeat) {
  Expected<Kernel> kernel =
      Kernel::loadFiles(*driver, write(groupedDescription("persistent")));
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  KernelBindings bindings = bind(8, 1024, 1024, 256);
  Expected<PreparedLaunch> prepared = kernel->prepare(bindings);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_FALSE(prepared->empty);
  ASSERT_EQ(prepared->params.size(), 10u);
  EXPECT_EQ(prepared->params.offset(5), 520u);
  EXPECT_EQ(prepared->params.offset(9), 540u);
  // 8 x 8 x 8 tiles: one CTA per SM.
  EXPECT_EQ(prepared->dims.grid[0], 132u);
  EXPECT_EQ(prepared->dims.grid[2], 1u);
  int before = fgemmMockLaunchCount();
  for (int i = 0; i < 3; ++i) {
    Status status = kernel->launch(*prepared, nullptr);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  EXPECT_EQ(fgemmMockLaunchCount(), before + 3);
  EXPECT_EQ(fgemmMockLastLaunch()->grid[0], 132u);
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 6), 8u);

  // A copy of a prepared launch works on its own bytes.
  std::optional<PreparedLaunch> copy;
  {
    Expected<PreparedLaunch> original = kernel->prepare(bind(2, 64, 128, 128));
    ASSERT_TRUE(original.ok()) << original.status().message();
    copy = *original;
  }
  ASSERT_TRUE(kernel->launch(*copy, nullptr).ok());
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 6), 2u);
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 7), 64u);
}

// A stream-K kernel (schedule=stream_k, a workspace parameter): one CTA per
// SM even for fewer tiles, and each stream's own zeroed workspace, bound at
// launch (lib/Runtime/Workspace.h).
TEST_F(KernelMock, StreamKLaunchesBindTheStreamsWorkspace) {
  // The workspace goes after the pointers: the dims move up by one.
  std::string description = groupedDescription("stream_k");
  for (int i = 9; i >= 6; --i) {
    std::string from = "param." + std::to_string(i) + "=dim";
    description.replace(description.find(from), from.size(),
                        "param." + std::to_string(i + 1) + "=dim");
  }
  description.replace(description.find("param.7=dim g"), 0,
                      "param.6=workspace bytes_per_cta=65664\n");
  std::string base = (dir / "grouped").string();
  std::ofstream(base + ".cubin", std::ios::binary)
      << "\x7f"
         "ELFFAKE\nsm90_fp8_m_grouped_gemm_masked "
      << "128,128,128,128,8,8,8,4,4,4,4"
      << "\n\n";
  std::ofstream(base + ".meta") << description;
  Expected<Kernel> kernel = Kernel::loadFiles(*driver, base);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  // 1 x 1 x 2 tiles: still every SM (the kernel splits them along K).
  Expected<PreparedLaunch> prepared = kernel->prepare(bind(2, 64, 128, 4096));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(prepared->dims.grid[0], 132u);
  EXPECT_EQ(prepared->workspaceParam, 6);
  EXPECT_EQ(prepared->workspaceBytes, 132u * 65664u);

  CUstream first = nullptr, second = nullptr;
  ASSERT_EQ(driver->cuStreamCreate(&first, 0), CUDA_SUCCESS);
  ASSERT_EQ(driver->cuStreamCreate(&second, 0), CUDA_SUCCESS);
  ASSERT_TRUE(kernel->launch(*prepared, first).ok());
  auto workspace = mockParam<uint64_t>(*fgemmMockLastLaunch(), 6);
  ASSERT_NE(workspace, 0u);
  EXPECT_EQ(workspace % 256, 0u);
  // Zeroed (the mock's device memory is host memory).
  const auto *bytes = reinterpret_cast<const unsigned char *>(workspace);
  EXPECT_TRUE(std::all_of(bytes, bytes + prepared->workspaceBytes,
                          [](unsigned char b) { return b == 0; }));
  // The other parameters are the prepared launch's.
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 7), 2u);
  EXPECT_EQ(mockParam<uint32_t>(*fgemmMockLastLaunch(), 10), 4096u);
  ASSERT_TRUE(kernel->launch(*prepared, first).ok());
  EXPECT_EQ(mockParam<uint64_t>(*fgemmMockLastLaunch(), 6), workspace);
  ASSERT_TRUE(kernel->launch(*prepared, second).ok());
  uint64_t other = mockParam<uint64_t>(*fgemmMockLastLaunch(), 6);
  EXPECT_NE(other, 0u);
  EXPECT_NE(other, workspace);
  // The prepared launch itself keeps no stream's buffer.
  EXPECT_EQ(mockParam<uint64_t>(*fgemmMockLastLaunch(), 6), other);
  driver->cuStreamDestroy(first);
  driver->cuStreamDestroy(second);

  // In clusters of two the grid is whole clusters, no more than the driver
  // can keep resident at once (the CTAs wait for each other's pieces).
  std::string clustered = description;
  clustered.replace(clustered.find("cluster=1"), 9, "cluster=2");
  std::ofstream(base + ".meta") << clustered;
  fgemmMockSetMaxActiveClusters(60);
  Expected<Kernel> pairs = Kernel::loadFiles(*driver, base);
  fgemmMockSetMaxActiveClusters(66);
  ASSERT_TRUE(pairs.ok()) << pairs.status().message();
  EXPECT_EQ(pairs->smCount(), 120);
  prepared = pairs->prepare(bind(2, 64, 128, 4096));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(prepared->dims.grid[0], 120u);
  EXPECT_EQ(prepared->dims.cluster, 2u);
  EXPECT_EQ(prepared->workspaceBytes, 120u * 65664u);
  prepared = pairs->prepare(bind(2, 64, 128, 4096), /*smLimit=*/7);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(prepared->dims.grid[0], 6u);
  fgemmMockSetMaxActiveClusters(0);
  EXPECT_EQ(Kernel::loadFiles(*driver, base).status().message(),
            "kernel 'sm90_fp8_m_grouped_gemm_masked': no cluster of 2 CTAs "
            "fits on the device at once");
  fgemmMockSetMaxActiveClusters(66);
}

TEST_F(KernelMock, BindingErrorsAndEmptyLaunches) {
  Expected<Kernel> kernel =
      Kernel::loadFiles(*driver, write(groupedDescription("plain")));
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  int before = fgemmMockLaunchCount();
  // No groups: nothing to launch, no pointers needed.
  KernelBindings empty;
  empty.args.assign(6, 0);
  empty.dims = {{"g", 0}, {"m", 128}, {"n", 128}, {"k", 128}};
  EXPECT_TRUE(kernel->run(empty, nullptr).ok());
  EXPECT_EQ(fgemmMockLaunchCount(), before);

  KernelBindings bindings = bind(2, 128, 128, 128);
  bindings.args[4] = 0;
  EXPECT_EQ(kernel->run(bindings, nullptr).message(),
            "arg.4 is a null pointer");
  bindings = bind(2, 128, 128, 128);
  bindings.dims.pop_back();
  EXPECT_EQ(kernel->run(bindings, nullptr).message(),
            "no value for dimension 'k' of kernel "
            "'sm90_fp8_m_grouped_gemm_masked' (dims: g,m,n,k)");
  EXPECT_EQ(fgemmMockLaunchCount(), before);
}

TEST_F(KernelMock, LaunchesBelongToTheirKernelAndContext) {
  std::string base = write(groupedDescription("plain"));
  Expected<Kernel> first = Kernel::loadFiles(*driver, base);
  Expected<Kernel> second = Kernel::loadFiles(*driver, base);
  ASSERT_TRUE(first.ok() && second.ok());
  Expected<PreparedLaunch> prepared = first->prepare(bind(1, 128, 128, 128));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_NE(second->launch(*prepared, nullptr)
                .message()
                .find("a launch prepared for another kernel"),
            std::string::npos);
  KernelBindings bindings = bind(1, 128, 128, 128);
  context.reset();
  ASSERT_EQ(driver->cuCtxSetCurrent(nullptr), CUDA_SUCCESS); // no current one
  EXPECT_NE(first->prepare(bindings).status().message().find(
                "the current CUDA context is not the one"),
            std::string::npos);
}

TEST_F(KernelMock, LoadErrors) {
  EXPECT_NE(Kernel::loadFiles(*driver, (dir / "none").string())
                .status()
                .message()
                .find("cannot open kernel description"),
            std::string::npos);
  std::string description = groupedDescription("plain");
  description.replace(description.find("abi_version=3"), 13, "abi_version=5");
  std::string base = write(description);
  EXPECT_NE(
      Kernel::loadFiles(*driver, base)
          .status()
          .message()
          .find(
              "abi_version=5, but this runtime reads abi_version=3 to 4 only"),
      std::string::npos);
}
