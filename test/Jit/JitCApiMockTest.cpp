//===- JitCApiMockTest.cpp - compile on first use, through C -----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libfgemm_jit.so's contexts on the mock libcuda (which loads real cubins
// and counts their launches): the first call of a configuration compiles it
// into the kernel cache and launches it, later calls only launch, a second
// context on the same cache compiles nothing. Running the kernels needs a GPU.
//
//===----------------------------------------------------------------------===//

#include "Jit/fgemm_jit.h"
#include "MockCuda.h"
#include "Target/PTX/PtxCompiler.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace {

int cacheEntries(const fs::path &dir) {
  int entries = 0;
  if (fs::exists(dir))
    for (const auto &item : fs::directory_iterator(dir))
      entries +=
          item.is_directory() && item.path().filename().string().front() != '.';
  return entries;
}

/// A fake device address (the mock never dereferences it).
void *p(uintptr_t v) { return reinterpret_cast<void *>(v); }

fgemm_status gemm(fgemm_context *context, int64_t m, int64_t n, int64_t k,
                  uintptr_t a = 0x10000) {
  return fgemm_gemm_fp8_nt(context, p(a), p(0x20000), p(0x30000), p(0x40000),
                           p(0x50000), m, n, k, nullptr);
}

} // namespace

/// A JIT context on an sm_90 mock device with an empty kernel cache of the
/// test's own (skipped where there is no ptxas to compile with).
class JitCApiMock : public ::testing::Test {
protected:
  void SetUp() override {
    if (!mlir::fgemm::ptxasVersion(""))
      GTEST_SKIP() << "no ptxas";
    fgemmMockSetComputeCapability(9, 0);
    cache = fs::path(::testing::TempDir()) /
            (std::string("fgemm_jit_") +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(cache);
    ASSERT_EQ(fgemm_jit_context_create(0, cache.c_str(), &context),
              FGEMM_SUCCESS)
        << fgemm_last_error();
  }
  void TearDown() override {
    fgemm_context_destroy(context);
    if (!cache.empty())
      fs::remove_all(cache);
  }
  fs::path cache;
  fgemm_context *context = nullptr;
};

TEST_F(JitCApiMock, CompilesOnFirstUseIntoTheCache) {
  EXPECT_EQ(cacheEntries(cache), 0);
  int launches = fgemmMockLaunchCount();
  ASSERT_EQ(gemm(context, 4096, 7168, 7168), FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(cacheEntries(cache), 1);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 1);
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "sm90_fp8_gemm_1d2d");
  // Same configuration (other buffers): launch only. A small problem picks
  // another configuration: one more compile.
  ASSERT_EQ(gemm(context, 4096, 7168, 7168, /*a=*/0x60000), FGEMM_SUCCESS);
  EXPECT_EQ(cacheEntries(cache), 1);
  ASSERT_EQ(gemm(context, 64, 2112, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(cacheEntries(cache), 2);
  // The JIT compiles N and K in: the first configuration for another N is
  // one more compile.
  ASSERT_EQ(gemm(context, 4096, 4096, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(cacheEntries(cache), 3);
  // Another context on the same cache finds them.
  fgemm_context *other = nullptr;
  ASSERT_EQ(fgemm_jit_context_create(0, cache.c_str(), &other), FGEMM_SUCCESS);
  ASSERT_EQ(gemm(other, 4096, 7168, 7168), FGEMM_SUCCESS);
  ASSERT_EQ(gemm(other, 64, 2112, 7168), FGEMM_SUCCESS);
  EXPECT_EQ(cacheEntries(cache), 3);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 6);
  fgemm_context_destroy(other);
}

TEST_F(JitCApiMock, CompilesGroupedKernelsOnFirstUse) {
  int launches = fgemmMockLaunchCount();
  // 4 groups of up to 1024 rows, expected 1024: a 128x192 masked kernel,
  // compiled from the embedded DSL into the cache, then launched.
  ASSERT_EQ(fgemm_m_grouped_gemm_fp8_nt_masked(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), reinterpret_cast<const int32_t *>(0x60000), 4, 1024,
                4096, 7168, 1024, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(cacheEntries(cache), 1);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 1);
  EXPECT_STREQ(fgemmMockLastLaunch()->function,
               "sm90_m_grouped_fp8_gemm_masked_1d2d");
  // The contiguous layout: its own kernel.
  ASSERT_EQ(fgemm_m_grouped_gemm_fp8_nt_contiguous(
                context, p(0x10000), p(0x20000), p(0x30000), p(0x40000),
                p(0x50000), reinterpret_cast<const int32_t *>(0x60000), 4096,
                4096, 7168, 4, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_EQ(cacheEntries(cache), 2);
  EXPECT_STREQ(fgemmMockLastLaunch()->function,
               "sm90_m_grouped_fp8_gemm_contiguous_1d2d");
}

TEST_F(JitCApiMock, CompilesTheFp32KernelOnFirstUse) {
  int launches = fgemmMockLaunchCount();
  // C apart from D, then in place: one compile, two launches.
  ASSERT_EQ(fgemm_gemm_fp8_nt_fp32(context, p(0x10000), p(0x20000), p(0x30000),
                                   p(0x40000), p(0x60000), p(0x50000), 256,
                                   2112, 1024, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  ASSERT_EQ(fgemm_gemm_fp8_nt_fp32(context, p(0x10000), p(0x20000), p(0x30000),
                                   p(0x40000), p(0x50000), p(0x50000), 256,
                                   2112, 1024, nullptr),
            FGEMM_SUCCESS);
  EXPECT_EQ(cacheEntries(cache), 1);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 2);
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "sm90_fp8_gemm_1d1d");
}

TEST_F(JitCApiMock, CompilesTheOtherDenseVariantsOnFirstUse) {
  int launches = fgemmMockLaunchCount();
  // Per-tensor scales (one f32 each), then a bias: one compile each.
  ASSERT_EQ(fgemm_gemm_fp8_nt_variant(
                context, "dense_per_tensor", p(0x10000), p(0x20004), p(0x30000),
                p(0x40004), nullptr, p(0x50000), 64, 2112, 1024, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "sm90_fp8_gemm_per_tensor");
  ASSERT_EQ(fgemm_gemm_fp8_nt_variant(
                context, "dense_bias", p(0x10000), p(0x20000), p(0x30000),
                p(0x40000), p(0x60000), p(0x50000), 64, 2112, 1024, nullptr),
            FGEMM_SUCCESS)
      << fgemm_last_error();
  EXPECT_STREQ(fgemmMockLastLaunch()->function, "sm90_fp8_gemm_bias_1d2d");
  EXPECT_EQ(cacheEntries(cache), 2);
  EXPECT_EQ(fgemmMockLaunchCount(), launches + 2);
}
