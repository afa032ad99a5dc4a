//===- TuningTest.cpp - Tests of the tuning file ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Tuning.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace fgemm;

namespace {

std::string errorOf(const std::string &text) {
  Expected<TunedChoices> parsed = TunedChoices::parse(text, "f.txt");
  return parsed.ok() ? std::string() : parsed.status().message();
}

} // namespace

TEST(TunedChoices, ParsesEntriesAndComments) {
  Expected<TunedChoices> parsed = TunedChoices::parse(
      "# header\n\ndense 4096 7168 2048 bm256_bn128_persistent_cluster2\n"
      "  dense_1d1d 64 2112 7168 bm64_bn32_plain   # a comment\n",
      "f.txt");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->entries().size(), 2u);
  const std::string *dense = parsed->find("dense", 4096, 7168, 2048);
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(*dense, "bm256_bn128_persistent_cluster2");
  ASSERT_NE(parsed->find("dense_1d1d", 64, 2112, 7168), nullptr);
  EXPECT_EQ(parsed->find("dense", 64, 2112, 7168), nullptr);
  EXPECT_EQ(parsed->find("dense", 4096, 7168, 2049), nullptr);
}

TEST(TunedChoices, SerializeRoundTrips) {
  TunedChoices choices;
  choices.set("dense", 128, 4096, 7168, "bm64_bn64_plain");
  choices.set("dense", 64, 4096, 7168, "bm64_bn32_plain");
  choices.set("dense", 128, 4096, 7168, "bm128_bn32_plain_ksplit2");
  std::string text = choices.serialize();
  EXPECT_EQ(text.substr(0, 1), "#");
  EXPECT_NE(text.find("dense 64 4096 7168 bm64_bn32_plain\n"
                      "dense 128 4096 7168 bm128_bn32_plain_ksplit2\n"),
            std::string::npos)
      << text;
  Expected<TunedChoices> again = TunedChoices::parse(text, "f.txt");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->entries(), choices.entries());
}

TEST(TunedChoices, Errors) {
  EXPECT_EQ(errorOf("dense 64 128\n"),
            "f.txt:1: expected 5 fields, got 3 (VARIANT M N K KERNEL (M >= 1, "
            "N >= 1, K >= 1; KERNEL the NAME of a NAME.cubin in the kernel "
            "directory))");
  EXPECT_NE(errorOf("\ndense 64 x 128 k\n")
                .find("f.txt:2: N = 'x' is not an "
                      "integer in [1, 2^31-1]"),
            std::string::npos);
  EXPECT_NE(errorOf("dense 0 64 128 k\n").find("M = '0'"), std::string::npos);
  EXPECT_NE(errorOf("dense 64 64 -128 k\n").find("K = '-128'"),
            std::string::npos);
  EXPECT_NE(errorOf("dense 64 64 4294967296 k\n").find("K = '4294967296'"),
            std::string::npos);
  EXPECT_EQ(errorOf("dense 64 64 128 a\ndense 64 64 128 b\n"),
            "f.txt:2: a second entry for dense 64 64 128 (one kernel per "
            "shape)");
}

TEST(TunedChoices, ReadsAndWritesFiles) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "fgemm_tuning_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A file that does not exist holds no entries.
  Expected<TunedChoices> none = TunedChoices::read((dir / "none").string());
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->entries().empty());
  TunedChoices choices;
  choices.set("dense", 64, 2112, 7168, "bm64_bn32_plain_ksplit2");
  std::string path = (dir / "t.txt").string();
  ASSERT_TRUE(choices.write(path).ok());
  Expected<TunedChoices> read = TunedChoices::read(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->entries(), choices.entries());
  // Errors name the file and line.
  std::ofstream(path) << "dense 64\n";
  Expected<TunedChoices> bad = TunedChoices::read(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find(path + ":1: expected 5 fields"), 0u);
  EXPECT_FALSE(choices.write((dir / "no" / "such" / "t.txt").string()).ok());
  fs::remove_all(dir);
}
