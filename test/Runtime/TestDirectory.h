//===- TestDirectory.h - a fresh directory per test --------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TEST_RUNTIME_TESTDIRECTORY_H
#define FGEMM_TEST_RUNTIME_TESTDIRECTORY_H

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace fgemm::test {

/// An empty directory under gtest's TempDir named PREFIX + the current
/// test's name (removed first if a crashed run left it).
inline std::filesystem::path freshTestDirectory(const std::string &prefix) {
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      (prefix +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

} // namespace fgemm::test

#endif // FGEMM_TEST_RUNTIME_TESTDIRECTORY_H
