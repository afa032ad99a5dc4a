//===- MockDeviceTest.h - a test on the mock libcuda's device ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The fixture the runtime's mock tests share: an sm_90 mock device, its
// primary context retained and current, a fresh kernel directory, and device
// buffers that live as long as the test.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TEST_RUNTIME_MOCKDEVICETEST_H
#define FGEMM_TEST_RUNTIME_MOCKDEVICETEST_H

#include "MockCuda.h"
#include "TestDirectory.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fgemm::test {

class MockDeviceTest : public ::testing::Test {
protected:
  /// `prefix` names the test's kernel directory.
  explicit MockDeviceTest(std::string prefix) : prefix(std::move(prefix)) {}

  void SetUp() override {
    fgemmMockSetComputeCapability(9, 0);
    Expected<const Driver *> loaded = Driver::get();
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    driver = *loaded;
    Expected<PrimaryContext> retained = PrimaryContext::retain(*driver, 0);
    ASSERT_TRUE(retained.ok()) << retained.status().message();
    context.emplace(std::move(*retained));
    dir = freshTestDirectory(prefix);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  CUdeviceptr allocate(size_t bytes) {
    Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(*driver, bytes);
    EXPECT_TRUE(buffer.ok());
    buffers.push_back(std::move(*buffer));
    return buffers.back().get();
  }

  std::string prefix;
  const Driver *driver = nullptr;
  std::optional<PrimaryContext> context;
  std::filesystem::path dir;
  std::vector<DeviceBuffer> buffers;
};

} // namespace fgemm::test

#endif // FGEMM_TEST_RUNTIME_MOCKDEVICETEST_H
