//===- JitTest.cpp - the JIT's kernel provider, without a GPU ----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// lib/Jit's provider compiles the shipped dense kernel for a configuration
// into a kernel cache (ptxas included) and hands back what DenseGemm loads;
// keys separate configurations and sources. Launching needs a GPU
// (scripts/gpu-python.sh, fgemm-bench).
//
//===----------------------------------------------------------------------===//

#include "Jit/Jit.h"
#include "Runtime/KernelMeta.h"
#include "Target/PTX/PtxCompiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fgemm;
namespace fs = std::filesystem;

namespace {

std::string kernelSource() {
  std::ifstream in(FGEMM_DENSE_KERNEL);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool havePtxas() { return static_cast<bool>(mlir::fgemm::ptxasVersion("")); }

} // namespace

TEST(Jit, KeysSeparateConfigurationsSourcesAndToolchains) {
  std::string source = kernelSource();
  ASSERT_FALSE(source.empty());
  mlir::fgemm::KernelConfig a = jit::toKernelConfig({128, 128, false, 16});
  mlir::fgemm::KernelConfig b = jit::toKernelConfig({128, 128, true, 16});
  std::string key = jit::cacheKey(source, a, "toolchain 1");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, jit::cacheKey(source, a, "toolchain 1"));
  EXPECT_NE(key, jit::cacheKey(source, b, "toolchain 1"));
  EXPECT_NE(key, jit::cacheKey(source + " ", a, "toolchain 1"));
  EXPECT_NE(key, jit::cacheKey(source, a, "toolchain 2"));
  a.sassPolicy = mlir::fgemm::SassPolicy::DeepGemm;
  EXPECT_NE(key, jit::cacheKey(source, a, "toolchain 1"));
}

TEST(Jit, LongKPairsCoupleTheirMathWarpgroups) {
  // A persistent pair (cluster of two) of `m` x `n` tiles compiled for K.
  auto couples = [](uint32_t m, uint32_t n, bool sharingB, int64_t k,
                    uint32_t cluster = 2) {
    DenseConfiguration config{m, n, true, 8};
    config.cluster = cluster;
    config.multicastB = sharingB;
    config.fixedN = k ? 4096 : 0;
    config.fixedK = uint32_t(k);
    return jit::toKernelConfig(config).coupleMathWarpgroups;
  };
  // The dense 256x128 pairs sharing A, from kCoupledMathWarpgroupsMinK.
  EXPECT_TRUE(couples(256, 128, false, kCoupledMathWarpgroupsMinK));
  EXPECT_FALSE(couples(256, 128, false, 7168));
  EXPECT_FALSE(couples(256, 128, false, 0)); // K known at launch only
  EXPECT_FALSE(couples(256, 128, false, 16384, /*cluster=*/1));
  EXPECT_FALSE(couples(256, 128, true, 16384));
  EXPECT_FALSE(couples(192, 128, false, 16384)); // three math warpgroups
  // The contiguous layouts' 128x256 pairs sharing B, from a shorter K.
  EXPECT_TRUE(couples(128, 256, true, kCoupledPairsSharingBMinK));
  EXPECT_FALSE(couples(128, 256, true, 2048));
  EXPECT_FALSE(couples(128, 192, true, 16384)); // the masked layout's pairs
}

TEST(Jit, ProviderCompilesIntoTheCacheOnce) {
  if (!havePtxas())
    GTEST_SKIP() << "no ptxas";
  fs::path dir = fs::path(::testing::TempDir()) / "fgemm_jit_provider";
  fs::remove_all(dir);
  DenseGemm::KernelProvider provider = jit::denseKernelProvider(
      KernelCache(dir.string()), kernelSource(), FGEMM_DENSE_KERNEL);
  DenseConfiguration config{256, 128, true, 8};
  Expected<std::string> base = provider(config);
  ASSERT_TRUE(base.ok()) << base.status().message();
  Expected<KernelMeta> meta = readKernelMeta(*base + ".meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_TRUE(checkDenseKernel(*meta).ok());
  EXPECT_EQ(meta->blockM, 256u);
  EXPECT_EQ(meta->blockN, 128u);
  EXPECT_TRUE(meta->persistent());
  EXPECT_GT(fs::file_size(*base + ".cubin"), 1000u);
  // The second request is a cache hit: the same files, not rewritten.
  auto written = fs::last_write_time(*base + ".cubin");
  Expected<std::string> again = provider(config);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *base);
  EXPECT_EQ(fs::last_write_time(*again + ".cubin"), written);
  // N and K compiled in: a different cache entry, described as such.
  DenseConfiguration fixed{128, 32, false, 16};
  fixed.fixedN = 4096;
  fixed.fixedK = 7168;
  Expected<std::string> specialized = provider(fixed);
  ASSERT_TRUE(specialized.ok()) << specialized.status().message();
  EXPECT_NE(*specialized, *base);
  Expected<KernelMeta> fixedMeta = readKernelMeta(*specialized + ".meta");
  ASSERT_TRUE(fixedMeta.ok()) << fixedMeta.status().message();
  EXPECT_EQ(fixedMeta->fixedN, 4096u);
  EXPECT_EQ(fixedMeta->fixedK, 7168u);
  // A configuration the compiler refuses says why.
  Expected<std::string> bad = provider({256, 192, false, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("two m64 waves"), std::string::npos)
      << bad.status().message();
  fs::remove_all(dir);
}
