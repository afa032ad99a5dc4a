//===- KernelMetaTest.cpp - Tests of the .meta parser -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/KernelMeta.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace fgemm;

namespace {

/// What fgemmc writes for a 128x128, 5-stage kernel.
const char *const kGoodMeta = "# fgemm kernel launch description (docs/ABI.md)\n"
                              "kernel=sm90_fp8_gemm_1d2d\n"
                              "variant=dense\n"
                              "block_m=128\n"
                              "block_n=128\n"
                              "block_k=128\n"
                              "stages=5\n"
                              "math_warpgroups=2\n"
                              "threads=384\n"
                              "smem_bytes=197632\n"
                              "cluster=1\n"
                              "schedule=plain\n"
                              "fixed_n=0\n"
                              "fixed_k=0\n";

/// kGoodMeta with the line of `key` replaced by `replacement` (a whole line,
/// or "" to drop it).
std::string withLine(const std::string &key, const std::string &replacement) {
  std::string text = kGoodMeta;
  size_t at = text.find("\n" + key + "=");
  EXPECT_NE(at, std::string::npos) << key;
  size_t end = text.find('\n', at + 1);
  text.replace(at + 1, end - at, replacement.empty() ? "" : replacement + "\n");
  return text;
}

/// The error message of parsing `text` ("" if it parsed).
std::string parseError(const std::string &text) {
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  return meta.ok() ? std::string() : meta.status().message();
}

} // namespace

TEST(KernelMeta, ParsesCompilerOutput) {
  Expected<KernelMeta> meta = parseKernelMeta(kGoodMeta, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->kernel, "sm90_fp8_gemm_1d2d");
  EXPECT_EQ(meta->variant, "dense");
  EXPECT_EQ(meta->blockM, 128u);
  EXPECT_EQ(meta->blockN, 128u);
  EXPECT_EQ(meta->blockK, 128u);
  EXPECT_EQ(meta->stages, 5u);
  EXPECT_EQ(meta->mathWarpgroups, 2u);
  EXPECT_EQ(meta->threads, 384u);
  EXPECT_EQ(meta->smemBytes, 197632u);
  EXPECT_EQ(meta->cluster, 1u);
  EXPECT_EQ(meta->schedule, "plain");
  EXPECT_FALSE(meta->persistent());
  EXPECT_EQ(meta->fixedN, 0u);
  EXPECT_EQ(meta->fixedK, 0u);
  EXPECT_EQ(meta->configName(), "bm128_bn128_s5");
}

TEST(KernelMeta, AcceptsCommentsBlankLinesAndCrlf) {
  std::string text = withLine("stages", "stages=4   # deepest that fits\r");
  text = "\n\n# leading comment\n" + text + "\n   \n";
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->stages, 4u);
}

TEST(KernelMeta, SpecializedKernelName) {
  std::string text = withLine("fixed_n", "fixed_n=7168");
  text = text.replace(text.find("fixed_k=0"), 9, "fixed_k=2048");
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->configName(), "bm128_bn128_s5_n7168_k2048");
}

TEST(KernelMeta, EveryMissingKeyIsReported) {
  for (const char *key :
       {"kernel", "variant", "block_m", "block_n", "block_k", "stages",
        "math_warpgroups", "threads", "smem_bytes", "cluster", "fixed_n",
        "fixed_k"}) {
    std::string error = parseError(withLine(key, ""));
    EXPECT_NE(error.find("missing key(s): " + std::string(key)),
              std::string::npos)
        << key << ": " << error;
  }
}

TEST(KernelMeta, UnknownKeyIsAnError) {
  std::string error = parseError(std::string(kGoodMeta) + "swizzle=128\n");
  EXPECT_NE(error.find("k.meta:15: unknown key 'swizzle'"), std::string::npos)
      << error;
  EXPECT_NE(error.find("known keys: kernel, variant"), std::string::npos);
}

TEST(KernelMeta, DuplicateKeyIsAnError) {
  std::string error = parseError(std::string(kGoodMeta) + "stages=6\n");
  EXPECT_NE(error.find("k.meta:15: duplicate key 'stages' (first set on line 7)"),
            std::string::npos)
      << error;
}

TEST(KernelMeta, MalformedLinesAndNumbers) {
  EXPECT_NE(parseError(withLine("stages", "stages 5")).find("expected key=value"),
            std::string::npos);
  for (const char *value : {"-1", "5a", "0x10", "", "4294967296", "1 2"}) {
    std::string error =
        parseError(withLine("stages", std::string("stages=") + value));
    EXPECT_NE(error.find("'stages' needs a non-negative decimal integer"),
              std::string::npos)
        << value << ": " << error;
  }
  EXPECT_NE(parseError(withLine("kernel", "kernel=")).find("empty value"),
            std::string::npos);
}

TEST(KernelMeta, ValuesAreCheckedAgainstTheAbi) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kernel=9lives", "not a symbol name"},
      {"variant=grouped_masked", "variant='grouped_masked' is not supported"},
      {"block_k=64", "block_k=64 but"},
      {"math_warpgroups=3", "math_warpgroups=3 (allowed: 1 or 2)"},
      {"block_m=64", "block_m=64 does not match math_warpgroups=2"},
      {"threads=256", "threads=256 but 2 math warpgroup(s)"},
      {"block_n=12", "block_n=12 (allowed: a multiple of 8 in [8, 256])"},
      {"block_n=264", "block_n=264"},
      {"block_n=0", "block_n=0"},
      {"stages=0", "stages=0"},
      {"smem_bytes=0", "smem_bytes=0"},
      {"smem_bytes=232449", "smem_bytes=232449 (allowed: 1 to 232448"},
      {"cluster=4", "cluster=4 (allowed: 1, or 2"},
      {"schedule=stream_k", "schedule='stream_k' (allowed: plain or persistent)"},
      {"fixed_n=100", "fixed_n=100 is not a multiple of 8"},
      {"fixed_k=120", "fixed_k=120 is not a multiple of 16"},
  };
  for (const auto &[line, expected] : cases) {
    std::string key = line.substr(0, line.find('='));
    std::string error = parseError(withLine(key, line));
    EXPECT_NE(error.find(expected), std::string::npos)
        << line << " gave: " << error;
    EXPECT_EQ(error.rfind("k.meta: ", 0), 0u) << error;
  }
}

TEST(KernelMeta, Schedule) {
  Expected<KernelMeta> persistent =
      parseKernelMeta(withLine("schedule", "schedule=persistent"), "k.meta");
  ASSERT_TRUE(persistent.ok()) << persistent.status().message();
  EXPECT_TRUE(persistent->persistent());
  EXPECT_EQ(persistent->configName(), "bm128_bn128_s5_persistent");
  // Kernels compiled before the key existed are plain.
  Expected<KernelMeta> old = parseKernelMeta(withLine("schedule", ""), "k.meta");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->schedule, "plain");
  EXPECT_NE(parseError(withLine("schedule", "schedule=")).find("empty value"),
            std::string::npos);
}

TEST(KernelMeta, OneMathWarpgroup) {
  std::string text = withLine("math_warpgroups", "math_warpgroups=1");
  text = text.replace(text.find("block_m=128"), 11, "block_m=64");
  text = text.replace(text.find("threads=384"), 11, "threads=256");
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->blockM, 64u);
  EXPECT_EQ(meta->threads, 256u);
}

TEST(KernelMeta, ReadsFiles) {
  std::string path = ::testing::TempDir() + "fgemm_meta_test.meta";
  {
    std::ofstream file(path);
    file << kGoodMeta;
  }
  Expected<KernelMeta> meta = readKernelMeta(path);
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->smemBytes, 197632u);
  std::remove(path.c_str());

  Expected<KernelMeta> missing = readKernelMeta(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open kernel description"),
            std::string::npos);
}
