//===- KernelCacheTest.cpp - the on-disk kernel cache ------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// SHA-256 against FIPS 180-4's examples; the cache's build-once, hit, and
// rebuild of truncated, modified or incomplete entries; and sixteen
// processes asking for one key at once: exactly one builds, all get a
// valid entry, nothing partial is left.
//
//===----------------------------------------------------------------------===//

#include "Runtime/KernelCache.h"
#include "Runtime/Sha256.h"

#include "TestDirectory.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace fgemm;
namespace fs = std::filesystem;

namespace {

const std::string kKey =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

std::string slurp(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fgemm::test::freshTestDirectory("fgemm_cache_");
  }
  void TearDown() override { fs::remove_all(dir); }

  /// A build step that counts its runs.
  std::function<Expected<KernelFiles>()> counting(int &runs) {
    return [&runs]() -> Expected<KernelFiles> {
      ++runs;
      return KernelFiles{"CUBIN-BYTES", "kernel=k\n"};
    };
  }

  fs::path dir;
};

} // namespace

TEST(Sha256, Fips180Examples) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 pieces;
  pieces.update("ab");
  pieces.update("c");
  EXPECT_EQ(pieces.finishHex(), sha256Hex("abc"));
}

TEST_F(KernelCacheTest, BuildsOnceThenHits) {
  KernelCache cache(dir.string());
  int runs = 0;
  Expected<CachedKernel> first = cache.getOrBuild(kKey, counting(runs));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->built);
  EXPECT_EQ(slurp(first->base + ".cubin"), "CUBIN-BYTES");
  EXPECT_EQ(slurp(first->base + ".meta"), "kernel=k\n");
  Expected<CachedKernel> second = cache.getOrBuild(kKey, counting(runs));
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->built);
  EXPECT_EQ(second->base, first->base);
  EXPECT_EQ(runs, 1);
  // Nothing but the entry and its lock file.
  int others = 0;
  for (const auto &item : fs::directory_iterator(dir))
    if (item.path().filename() != kKey &&
        item.path().filename() != kKey + ".lock")
      ++others;
  EXPECT_EQ(others, 0);
}

TEST_F(KernelCacheTest, RebuildsDamagedEntries) {
  KernelCache cache(dir.string());
  int runs = 0;
  ASSERT_TRUE(cache.getOrBuild(kKey, counting(runs)).ok());
  fs::path entry = dir / kKey;
  auto damage = [&](const char *what) {
    if (std::string(what) == "truncate")
      fs::resize_file(entry / "kernel.cubin", 3);
    else if (std::string(what) == "modify")
      std::ofstream(entry / "kernel.meta") << "kernel=evil\n";
    else
      fs::remove(entry / "manifest");
  };
  for (const char *what : {"truncate", "modify", "unmanifested"}) {
    SCOPED_TRACE(what);
    damage(what);
    Expected<std::optional<CachedKernel>> found = cache.lookup(kKey);
    ASSERT_FALSE(found.ok());
    EXPECT_NE(found.status().message().find("is corrupt"), std::string::npos);
    int before = runs;
    Expected<CachedKernel> rebuilt = cache.getOrBuild(kKey, counting(runs));
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
    EXPECT_TRUE(rebuilt->built);
    EXPECT_EQ(runs, before + 1);
    EXPECT_EQ(slurp(rebuilt->base + ".cubin"), "CUBIN-BYTES");
    EXPECT_EQ(slurp(rebuilt->base + ".meta"), "kernel=k\n");
  }
}

TEST_F(KernelCacheTest, BuildFailuresPublishNothing) {
  KernelCache cache(dir.string());
  Expected<CachedKernel> failed =
      cache.getOrBuild(kKey, []() -> Expected<KernelFiles> {
        return Status::error("ptxas: out of registers");
      });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "ptxas: out of registers");
  EXPECT_FALSE(fs::exists(dir / kKey));
  Expected<CachedKernel> bad = cache.getOrBuild("../x", nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not 16 to 128 lowercase hex"),
            std::string::npos);
}

TEST_F(KernelCacheTest, SixteenProcessesBuildOnce) {
  fs::create_directories(dir);
  fs::path log = dir / "builds.log";
  constexpr int kProcesses = 16;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      KernelCache cache(dir.string());
      Expected<CachedKernel> kernel =
          cache.getOrBuild(kKey, [&]() -> Expected<KernelFiles> {
            // Slow enough that every process arrives while it runs.
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            std::ofstream(log, std::ios::app) << ::getpid() << "\n";
            return KernelFiles{std::string(100000, 'c'), "kernel=k\n"};
          });
      bool good = kernel.ok() &&
                  slurp(kernel->base + ".cubin") == std::string(100000, 'c');
      ::_exit(good ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::istringstream lines(slurp(log));
  int builds = 0;
  for (std::string line; std::getline(lines, line);)
    ++builds;
  EXPECT_EQ(builds, 1);
  for (const auto &item : fs::directory_iterator(dir))
    EXPECT_EQ(item.path().filename().string().rfind(".tmp-", 0),
              std::string::npos)
        << "left behind: " << item.path();
}
