//===- CApiMockTest.cpp - the C API on the mock libcuda ----------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Calls libfgemm's C interface only (lib/CApi/fgemm.h) against the mock
// driver: status codes, messages, argument checks, launches.
//
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"
#include "MockCuda.h"

#include "CApi/fgemm.h"
#include "Runtime/Driver.h"

#include "TestDirectory.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace fs = std::filesystem;
using fgemm::test::DenseConfig;

namespace {

class CApiMock : public ::testing::Test {
protected:
  void SetUp() override {
    fgemmMockSetComputeCapability(9, 0);
    dir = fgemm::test::freshTestDirectory("fgemm_capi_");
    DenseConfig big, small;
    small.blockM = 64;
    small.blockN = 64;
    small.smemBytes = 100000;
    fgemm::test::writeDenseKernel(dir, "bm128_bn128", big);
    fgemm::test::writeDenseKernel(dir, "bm64_bn64", small);
  }
  void TearDown() override {
    fgemm_context_destroy(context);
    fs::remove_all(dir);
  }

  fgemm_status create() {
    return fgemm_context_create(0, dir.c_str(), &context);
  }
  fgemm_status gemm(int64_t m, int64_t n, int64_t k, uintptr_t a = 0x10000) {
    auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
    return fgemm_gemm_fp8_nt(context, p(a), p(0x20000), p(0x30000), p(0x40000),
                             p(0x50000), m, n, k, nullptr);
  }

  fs::path dir;
  fgemm_context *context = nullptr;
};

} // namespace

TEST_F(CApiMock, Version) {
  EXPECT_EQ(fgemm_api_version(), FGEMM_API_VERSION);
  EXPECT_STREQ(fgemm_last_error(), "");
}

TEST_F(CApiMock, CreateErrors) {
  EXPECT_EQ(fgemm_context_create(0, dir.c_str(), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fgemm_last_error(), "fgemm_context_create: out is NULL");
  EXPECT_EQ(fgemm_context_create(0, "", &context),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(context, nullptr);
  EXPECT_EQ(fgemm_context_create(7, dir.c_str(), &context),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("no CUDA device 7"),
            std::string::npos)
      << fgemm_last_error();
  fs::path missing = dir / "missing";
  EXPECT_EQ(fgemm_context_create(0, missing.c_str(), &context),
            FGEMM_ERROR_RUNTIME);
  EXPECT_NE(
      std::string(fgemm_last_error()).find("cannot list kernel directory"),
      std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(context, nullptr);
  fgemm_context_destroy(nullptr); // allowed
}

TEST_F(CApiMock, CreateKeepsTheCallersCurrentContext) {
  // PyTorch's thread has the primary context current; a failed create (a
  // directory without dense kernels) and a successful one leave it so, and
  // a thread without a current context keeps none.
  const fgemm::Driver &cu = **fgemm::Driver::get();
  CUdevice device;
  CUcontext primary = nullptr, current = nullptr;
  ASSERT_EQ(cu.cuDeviceGet(&device, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuDevicePrimaryCtxRetain(&primary, device), CUDA_SUCCESS);
  for (CUcontext callers : {primary, CUcontext(nullptr)}) {
    ASSERT_EQ(cu.cuCtxSetCurrent(callers), CUDA_SUCCESS);
    fs::path empty = dir / "empty";
    fs::create_directories(empty);
    fgemm::test::writeDenseKernel(empty, "stray", DenseConfig());
    fs::remove(empty / "stray.cubin");
    EXPECT_NE(fgemm_context_create(0, empty.c_str(), &context), FGEMM_SUCCESS);
    ASSERT_EQ(cu.cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, callers);
    ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
    ASSERT_EQ(cu.cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, callers);
    fgemm_context_destroy(context);
    context = nullptr;
    ASSERT_EQ(cu.cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, callers);
    fs::remove_all(empty);
  }
  ASSERT_EQ(cu.cuDevicePrimaryCtxRelease(device), CUDA_SUCCESS);
}

TEST_F(CApiMock, GroupedArgumentErrors) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(fgemm_context_num_grouped_kernels(context), 0);
  auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
  const int32_t *rows = reinterpret_cast<const int32_t *>(0x60000);
  auto masked = [&](const int32_t *counts, int64_t expected, uintptr_t a) {
    return fgemm_m_grouped_gemm_fp8_nt_masked(
        context, p(a), p(0x20000), p(0x30000), p(0x40000), p(0x50000), counts,
        4, 256, 512, 512, expected, nullptr);
  };
  EXPECT_EQ(masked(rows, 0, 0x10000), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("expected_m = 0 must be > 0"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(masked(nullptr, 64, 0x10000), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fgemm_last_error(),
               "fgemm_m_grouped_gemm_fp8_nt_masked: masked_m is NULL");
  EXPECT_EQ(masked(rows, 64, 0x10008), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("a is not 16-byte aligned"),
            std::string::npos)
      << fgemm_last_error();
  // Valid arguments, but the directory holds only dense kernels.
  EXPECT_EQ(masked(rows, 64, 0x10000), FGEMM_ERROR_RUNTIME);
  EXPECT_NE(std::string(fgemm_last_error()).find("has no M-grouped kernels"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_m_grouped_gemm_fp8_nt_contiguous(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), rows, 200, 512, 512, 2, nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("is not a multiple of 128"),
            std::string::npos)
      << fgemm_last_error();
  // The psum form allows any M.
  EXPECT_EQ(fgemm_m_grouped_gemm_fp8_nt_contiguous_psum(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), rows, 200, 512, 512, 2, nullptr),
            FGEMM_ERROR_RUNTIME);
}

TEST_F(CApiMock, GroupedKernelsOnly) {
  // A directory of M-grouped kernels alone makes a context (MoE users may
  // precompile only those); dense calls then name what is missing.
  fs::path groupedDir = fgemm::test::freshTestDirectory("fgemm_capi_grouped_");
  fgemm::test::writeMaskedKernel(groupedDir, "masked_bm128_bn128_plain");
  ASSERT_EQ(fgemm_context_create(0, groupedDir.c_str(), &context),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_context_num_kernels(context), 0);
  EXPECT_EQ(fgemm_context_num_grouped_kernels(context), 1);
  EXPECT_EQ(fgemm_context_num_sms(context), 132);
  EXPECT_EQ(fgemm_context_set_num_sms(context, 66), FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_context_num_sms(context), 66);
  EXPECT_EQ(gemm(128, 128, 128), FGEMM_ERROR_RUNTIME);
  EXPECT_NE(std::string(fgemm_last_error()).find("has no dense kernels"),
            std::string::npos)
      << fgemm_last_error();
  auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
  EXPECT_EQ(fgemm_m_grouped_gemm_fp8_nt_masked(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), reinterpret_cast<const int32_t *>(0x60000), 4, 256,
                512, 512, 64, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  fs::remove_all(groupedDir);
}

TEST_F(CApiMock, LaunchesTheRuntimesChoice) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(fgemm_context_num_kernels(context), 2);
  EXPECT_GT(fgemm_context_num_sms(context), 0);
  int before = fgemmMockLaunchCount();
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(fgemmMockLaunchCount(), before + 1);
  const MockLaunch *launch = fgemmMockLastLaunch();
  // 128x128 tiles: 56 x 32.
  EXPECT_EQ(launch->grid[0] * launch->grid[1] * launch->grid[2], 56u * 32u);
  // An empty problem launches nothing.
  EXPECT_EQ(gemm(0, 7168, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(fgemmMockLaunchCount(), before + 1);
}

TEST_F(CApiMock, RepeatedProblemsOnlyLaunch) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS) << fgemm_last_error();
  int encodes = fgemmMockTensorMapEncodes(), launches = fgemmMockLaunchCount();
  MockLaunch first = *fgemmMockLastLaunch();
  // The same pointers and shape: the prepared launch is reused.
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(fgemmMockTensorMapEncodes(), encodes);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 1);
  EXPECT_EQ(std::memcmp(first.params, fgemmMockLastLaunch()->params,
                        sizeof(first.params)),
            0);
  // Another pointer or shape is prepared anew.
  ASSERT_EQ(gemm(4096, 7168, 7168, /*a=*/0x60000), FGEMM_SUCCESS);
  EXPECT_EQ(fgemmMockTensorMapEncodes(), encodes + 4);
  ASSERT_EQ(gemm(2048, 7168, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(fgemmMockTensorMapEncodes(), encodes + 8);
  // A new SM cap plans new grids.
  ASSERT_EQ(fgemm_context_set_num_sms(context, 7), FGEMM_SUCCESS);
  ASSERT_EQ(gemm(2048, 7168, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(fgemmMockTensorMapEncodes(), encodes + 12);
}

TEST_F(CApiMock, ArgumentErrors) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  int before = fgemmMockLaunchCount();
  EXPECT_EQ(gemm(128, 100, 7168), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(fgemm_last_error()).find("N = 100 is not a multiple of 8"),
      std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(gemm(128, 128, 100), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemm(128, 128, 128, /*a=*/0), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fgemm_last_error(), "a is NULL (M = 128, N = 128 needs it)");
  EXPECT_EQ(gemm(128, 128, 128, /*a=*/0x10008), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("a is not 16-byte aligned"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_gemm_fp8_nt(nullptr, nullptr, nullptr, nullptr, nullptr,
                              nullptr, 1, 8, 16, nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fgemmMockLaunchCount(), before);
  // The FP32 entry point: a context without 1D1D kernels says how to get
  // them; C is read in float pairs.
  auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
  EXPECT_EQ(fgemm_gemm_fp8_nt_fp32(context, p(0x10000), p(0x20000), p(0x30000),
                                   p(0x40000), p(0x50004), p(0x60000), 128, 128,
                                   128, nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("c is not 8-byte aligned"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_gemm_fp8_nt_fp32(context, p(0x10000), p(0x20000), p(0x30000),
                                   p(0x40000), nullptr, p(0x60000), 128, 128,
                                   128, nullptr),
            FGEMM_ERROR_RUNTIME);
  EXPECT_NE(std::string(fgemm_last_error()).find("--set dense_1d1d"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemmMockLaunchCount(), before);
}

TEST_F(CApiMock, DenseVariantsOfTheDirectory) {
  // An e5m2 x e4m3 kernel: the dense description with A in e5m2.
  DenseConfig config;
  config.kernel = "k_e5m2";
  std::string text = fgemm::test::denseDescription(config);
  for (auto [from, to] : {std::pair<std::string, std::string>{
                              "variant=dense\n", "variant=dense_e5m2_e4m3\n"},
                          {"arg.0=tensor e4m3 m,k", "arg.0=tensor e5m2 m,k"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  fgemm::test::writeDenseKernel(dir, "e5m2", config);
  std::ofstream(dir / "e5m2.meta") << text;
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(fgemm_context_num_kernels(context), 2); // the 1D2D ones
  auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
  auto call = [&](const char *variant, void *bias) {
    return fgemm_gemm_fp8_nt_variant(context, variant, p(0x10000), p(0x20000),
                                     p(0x30000), p(0x40000), bias, p(0x50000),
                                     256, 7168, 7168, nullptr);
  };
  int before = fgemmMockLaunchCount();
  ASSERT_EQ(call("dense_e5m2_e4m3", nullptr), FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(fgemmMockLaunchCount(), before + 1);
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "k_e5m2");
  // Errors: an unknown variant, a bias for a variant without one, a
  // variant the directory lacks.
  EXPECT_EQ(call("dense_fp4", nullptr), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error())
                .find("allowed: dense_bias, dense_per_tensor, "
                      "dense_e5m2_e4m3, dense_e4m3_e5m2"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(call("dense_e5m2_e4m3", p(0x60000)), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("only dense_bias adds one"),
            std::string::npos);
  EXPECT_EQ(call("dense_bias", nullptr), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call("dense_bias", p(0x60000)), FGEMM_ERROR_RUNTIME);
  EXPECT_NE(std::string(fgemm_last_error()).find("--set dense_bias"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemmMockLaunchCount(), before + 1);
}

TEST_F(CApiMock, ScalesToMnMajor) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  auto f = [](uintptr_t v) { return reinterpret_cast<float *>(v); };
  int before = fgemmMockLaunchCount();
  // Row-major [4097, 56] scales (K = 7168) into [56][4100], and two groups
  // of a strided view.
  ASSERT_EQ(fgemm_scales_to_mn_major(context, f(0x10004), 1, 4097, 56, 0, 56, 1,
                                     f(0x80000), nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  ASSERT_EQ(fgemmMockLaunchCount(), before + 1);
  const MockLaunch *launch = fgemmMockLastLaunch();
  EXPECT_STREQ(launch->function, "fgemm_scales_to_mn_major");
  EXPECT_EQ(launch->grid[0], 17u); // ceil(4100 / 256)
  EXPECT_EQ(launch->grid[1], 56u);
  EXPECT_EQ(launch->grid[2], 1u);
  EXPECT_EQ(launch->block[0], 256u);
  // (The mock cannot read a real cubin's parameter sizes, so it records no
  // parameters: python/tests check the copy's values on the GPU.)
  ASSERT_EQ(fgemm_scales_to_mn_major(context, f(0x10000), 2, 64, 16, 4096, 32,
                                     2, f(0x80000), nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  launch = fgemmMockLastLaunch();
  EXPECT_EQ(launch->grid[0], 1u);
  EXPECT_EQ(launch->grid[1], 16u);
  EXPECT_EQ(launch->grid[2], 2u);
  // Empty copies launch nothing; bad ones say what is wrong.
  int launches = fgemmMockLaunchCount();
  EXPECT_EQ(fgemm_scales_to_mn_major(context, nullptr, 1, 0, 56, 0, 56, 1,
                                     nullptr, nullptr),
            FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_scales_to_mn_major(context, f(0x10000), 1, 64, 56, 0, 56, 1,
                                     f(0x80008), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("dst is not 16-byte aligned"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_scales_to_mn_major(context, f(0x10002), 1, 64, 56, 0, 56, 1,
                                     f(0x80000), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fgemm_scales_to_mn_major(context, f(0x10000), 1, 64, 56, 0, -56, 1,
                                     f(0x80000), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("strides must be >= 0"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_scales_to_mn_major(context, f(0x10000), 1, 64, 70000, 0,
                                     70000, 1, f(0x80000), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("at most 65535"),
            std::string::npos)
      << fgemm_last_error();
  EXPECT_EQ(fgemm_scales_to_mn_major(nullptr, f(0x10000), 1, 64, 56, 0, 56, 1,
                                     f(0x80000), nullptr),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fgemmMockLaunchCount(), launches);
}

TEST_F(CApiMock, NumSms) {
  ASSERT_EQ(create(), FGEMM_SUCCESS) << fgemm_last_error();
  int all = fgemm_context_num_sms(context);
  EXPECT_EQ(fgemm_context_set_num_sms(context, all + 1),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("num_sms"), std::string::npos);
  EXPECT_EQ(fgemm_context_set_num_sms(context, 1), FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_context_num_sms(context), 1);
  EXPECT_EQ(fgemm_context_set_num_sms(context, 0), FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_context_num_sms(context), all);
  EXPECT_EQ(fgemm_context_set_num_sms(nullptr, 0),
            FGEMM_ERROR_INVALID_ARGUMENT);
}

namespace {
/// A C provider that writes the requested kernel into the test's directory.
struct FakeProvider {
  fs::path dir;
  int calls = 0;
  bool fail = false;
};

fgemm_status fakeProvide(const fgemm_dense_config *config, char *base,
                         size_t capacity, void *user) {
  auto *state = static_cast<FakeProvider *>(user);
  ++state->calls;
  if (state->fail) {
    std::snprintf(base, capacity, "ptxas: out of registers");
    return FGEMM_ERROR_RUNTIME;
  }
  std::string stem = "bm" + std::to_string(config->block_m) + "_bn" +
                     std::to_string(config->block_n) +
                     (config->persistent ? "_persistent" : "_plain");
  if (config->cluster > 1 && config->multicast_b) {
    // (The fake descriptions split A's box only.)
    std::snprintf(base, capacity, "fake provider: no pairs sharing B");
    return FGEMM_ERROR_RUNTIME;
  }
  if (config->cluster > 1)
    stem += "_cluster" + std::to_string(config->cluster);
  if (config->fixed_n || config->fixed_k)
    stem += "_n" + std::to_string(config->fixed_n) + "_k" +
            std::to_string(config->fixed_k);
  DenseConfig made;
  made.kernel = "k_" + stem;
  made.blockM = config->block_m;
  made.blockN = config->block_n;
  made.schedule = config->persistent ? "persistent" : "plain";
  made.cluster = uint32_t(std::max(config->cluster, 1));
  made.smemBytes = 165952;
  made.fixedN = uint32_t(config->fixed_n);
  made.fixedK = uint32_t(config->fixed_k);
  fgemm::test::writeDenseKernel(state->dir, stem, made);
  std::snprintf(base, capacity, "%s", (state->dir / stem).c_str());
  return FGEMM_SUCCESS;
}
} // namespace

namespace {
/// A provider of every variant: dense and grouped_masked fakes.
fgemm_status fakeProvideVariant(const fgemm_kernel_request *request, char *base,
                                size_t capacity, void *user) {
  auto *state = static_cast<FakeProvider *>(user);
  std::string variant = request->variant;
  if (variant == "dense")
    return fakeProvide(&request->config, base, capacity, user);
  ++state->calls;
  if (variant != "grouped_masked") {
    std::snprintf(base, capacity, "no %s kernel here", variant.c_str());
    return FGEMM_ERROR_RUNTIME;
  }
  const fgemm_dense_config &c = request->config;
  bool pairs = c.cluster > 1;
  if (pairs && !c.multicast_b) {
    std::snprintf(base, capacity, "fake provider: no masked pairs sharing A");
    return FGEMM_ERROR_RUNTIME;
  }
  std::string stem = variant + "_bm" + std::to_string(c.block_m) + "_bn" +
                     std::to_string(c.block_n) +
                     (c.persistent ? "_persistent" : "_plain") +
                     (pairs ? "_cluster2b" : "");
  fgemm::test::writeMaskedKernel(state->dir, stem, c.block_m, c.block_n,
                                 c.persistent != 0, 0, 0, pairs);
  std::snprintf(base, capacity, "%s", (state->dir / stem).c_str());
  return FGEMM_SUCCESS;
}
} // namespace

TEST_F(CApiMock, ProviderContextsMakeDenseAndGroupedKernels) {
  FakeProvider provider{dir};
  ASSERT_EQ(fgemm_context_create_with_provider(0, nullptr, &provider, &context),
            FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(fgemm_last_error(),
               "fgemm_context_create_with_provider: provider is NULL");
  ASSERT_EQ(fgemm_context_create_with_provider(0, fakeProvideVariant, &provider,
                                               &context),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(provider.calls, 0);
  auto p = [](uintptr_t v) { return reinterpret_cast<void *>(v); };
  auto masked = [&] {
    return fgemm_m_grouped_gemm_fp8_nt_masked(
        context, p(0x10000), p(0x20000), p(0x30000), p(0x40000), p(0x50000),
        reinterpret_cast<const int32_t *>(0x60000), 4, 1024, 4096, 7168, 1024,
        nullptr);
  };
  ASSERT_EQ(masked(), FGEMM_SUCCESS) << fgemm_last_error();
  ASSERT_EQ(masked(), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(provider.calls, 1); // made once
  EXPECT_STREQ(fgemmMockLastLaunch()->function,
               "sm90_m_grouped_fp8_gemm_masked_1d2d");
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(provider.calls, 2);
  // A variant the provider cannot make: its message reaches the caller.
  EXPECT_EQ(fgemm_m_grouped_gemm_fp8_nt_contiguous(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), reinterpret_cast<const int32_t *>(0x60000), 256,
                512, 512, 2, nullptr),
            FGEMM_ERROR_RUNTIME);
  EXPECT_NE(
      std::string(fgemm_last_error()).find("no grouped_contiguous kernel here"),
      std::string::npos)
      << fgemm_last_error();
}

TEST_F(CApiMock, OnDemandContextsAskTheProviderOnce) {
  FakeProvider provider{dir};
  ASSERT_EQ(fgemm_context_create_on_demand(0, fakeProvide, &provider, &context),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(provider.calls, 0);
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS) << fgemm_last_error();
  ASSERT_EQ(gemm(4096, 7168, 7168, /*a=*/0x60000), FGEMM_SUCCESS);
  EXPECT_EQ(provider.calls, 1);
  EXPECT_EQ(std::string(fgemmMockLastLaunch()->function).rfind("k_bm", 0), 0u);
  EXPECT_EQ(fgemm_context_create_on_demand(0, nullptr, nullptr, &context),
            FGEMM_ERROR_INVALID_ARGUMENT);
}

TEST_F(CApiMock, SpecializedContextsAskForEachNAndK) {
  EXPECT_EQ(fgemm_context_specialize(nullptr, 1), FGEMM_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(create(), FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_context_specialize(context, 1),
            FGEMM_ERROR_INVALID_ARGUMENT); // a kernel directory's context
  EXPECT_NE(std::string(fgemm_last_error()).find("on-demand"),
            std::string::npos);
  fgemm_context_destroy(context);
  context = nullptr;
  FakeProvider provider{dir};
  ASSERT_EQ(fgemm_context_create_on_demand(0, fakeProvide, &provider, &context),
            FGEMM_SUCCESS);
  ASSERT_EQ(fgemm_context_specialize(context, 1), FGEMM_SUCCESS);
  ASSERT_EQ(gemm(4096, 7168, 7168), FGEMM_SUCCESS) << fgemm_last_error();
  ASSERT_EQ(gemm(4096, 7168, 7168, /*a=*/0x60000), FGEMM_SUCCESS);
  EXPECT_EQ(provider.calls, 1);
  EXPECT_NE(std::string(fgemmMockLastLaunch()->function).find("_n7168_k7168"),
            std::string::npos);
  ASSERT_EQ(gemm(4096, 7168, 2048), FGEMM_SUCCESS) << fgemm_last_error();
  EXPECT_EQ(provider.calls, 2);
  EXPECT_NE(std::string(fgemmMockLastLaunch()->function).find("_n7168_k2048"),
            std::string::npos);
  // 2 = in the background; other values are refused.
  EXPECT_EQ(fgemm_context_specialize(context, 2), FGEMM_SUCCESS);
  EXPECT_EQ(fgemm_context_specialize(context, 3), FGEMM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fgemm_last_error()).find("allowed: 0 (off), 1 (on), 2"),
            std::string::npos);
}

TEST_F(CApiMock, OnDemandFailuresReachTheCaller) {
  FakeProvider provider{dir};
  provider.fail = true;
  ASSERT_EQ(fgemm_context_create_on_demand(0, fakeProvide, &provider, &context),
            FGEMM_SUCCESS);
  EXPECT_EQ(gemm(128, 128, 128), FGEMM_ERROR_RUNTIME);
  EXPECT_NE(std::string(fgemm_last_error()).find("ptxas: out of registers"),
            std::string::npos)
      << fgemm_last_error();
}
