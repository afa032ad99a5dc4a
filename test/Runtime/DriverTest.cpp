//===- DriverTest.cpp - Tests of Status and the driver loader ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <gtest/gtest.h>

#include <memory>

using namespace fgemm;

namespace {

Status checked(CUresult result) {
  FGEMM_CU_CHECK(result);
  return Status::success();
}

Expected<int> doubled(CUresult result, int value) {
  FGEMM_CU_CHECK(result);
  return 2 * value;
}

Status chained(bool fail) {
  FGEMM_RETURN_IF_ERROR(fail ? Status::error("inner") : Status::success());
  return Status::error("reached the end");
}

} // namespace

TEST(Status, SuccessAndError) {
  Status ok = Status::success();
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
  Status error = Status::error("bad thing");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(std::move(error).withContext("loading x").message(),
            "loading x: bad thing");
  EXPECT_TRUE(Status::success().withContext("ignored").ok());
  EXPECT_EQ(chained(true).message(), "inner");
  EXPECT_EQ(chained(false).message(), "reached the end");
}

TEST(Status, ExpectedHoldsValueOrError) {
  Expected<std::unique_ptr<int>> value = std::make_unique<int>(7);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(**value, 7);
  Expected<int> error = Status::error("nope");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(), "nope");
  EXPECT_EQ(error.takeStatus().message(), "nope");
}

TEST(Status, CuCheckNamesCallAndLocation) {
  EXPECT_TRUE(checked(CUDA_SUCCESS).ok());
  Status status = checked(CUDA_ERROR_INVALID_VALUE);
  ASSERT_FALSE(status.ok());
  const std::string &message = status.message();
  EXPECT_EQ(message.rfind("result failed: ", 0), 0u) << message;
  EXPECT_NE(message.find("DriverTest.cpp:"), std::string::npos) << message;
  // Only the file name, not the build path.
  EXPECT_EQ(message.find("/test/Runtime/"), std::string::npos) << message;

  Expected<int> value = doubled(CUDA_SUCCESS, 21);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  EXPECT_FALSE(doubled(CUDA_ERROR_OUT_OF_MEMORY, 1).ok());
}

TEST(Status, CuErrorWithoutDriverUsesTheNumber) {
  if (loadedDriver())
    GTEST_SKIP() << "a driver is loaded; names come from it";
  Status status = cuError(CUDA_ERROR_INVALID_VALUE, "cuFoo(x, y)",
                          "/some/where/File.cpp", 42);
  EXPECT_EQ(status.message(), "cuFoo(x, y) failed: CUresult 1 at File.cpp:42");
  EXPECT_EQ(cuResultName(CUDA_ERROR_NO_DEVICE), "CUresult 100");
}

TEST(Driver, FormatsVersions) {
  EXPECT_EQ(formatCudaVersion(12080), "12.8");
  EXPECT_EQ(formatCudaVersion(13000), "13.0");
  EXPECT_EQ(formatCudaVersion(12020), "12.2");
}

TEST(Driver, MissingLibraryIsAnError) {
  Expected<std::unique_ptr<Driver>> driver =
      Driver::open("libfgemm-no-such-driver.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_NE(
      driver.status().message().find("cannot load the CUDA driver library "
                                     "'libfgemm-no-such-driver.so.1'"),
      std::string::npos)
      << driver.status().message();
  EXPECT_NE(driver.status().message().find("is the NVIDIA driver installed?"),
            std::string::npos);
}

TEST(Driver, LibraryWithoutTheSymbolsIsAnError) {
  // libm is a real shared library with none of the Driver API in it.
  Expected<std::unique_ptr<Driver>> driver = Driver::open("libm.so.6");
  ASSERT_FALSE(driver.ok());
  const std::string &message = driver.status().message();
  EXPECT_NE(message.find("lacks cuInit, cuDriverGetVersion"), std::string::npos)
      << message;
  // The versioned ABI name is what was looked up.
  EXPECT_NE(message.find("cuMemAlloc_v2"), std::string::npos) << message;
  EXPECT_NE(message.find("cuEventElapsedTime_v2"), std::string::npos);
}

TEST(Driver, ResolvesEverySymbolOfTheStubLibrary) {
#ifndef FGEMM_CUDA_STUB_LIBRARY
  GTEST_SKIP() << "no CUDA stub libcuda.so found at configure time";
#else
  Expected<std::unique_ptr<Driver>> driver =
      Driver::open(FGEMM_CUDA_STUB_LIBRARY);
  ASSERT_TRUE(driver.ok()) << driver.status().message();
  const Driver &cu = **driver;
#define FGEMM_CU_SYMBOL(name) EXPECT_NE(cu.name, nullptr) << #name;
#include "Runtime/CudaSymbols.def"
  // The stub refuses to initialize; the error is a value, not a crash.
  EXPECT_NE(cu.cuInit(0), CUDA_SUCCESS);
#endif
}
