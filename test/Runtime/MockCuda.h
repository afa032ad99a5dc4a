//===- MockCuda.h - A host-only stand-in for libcuda.so.1 -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// MockCuda.cpp builds a libcuda.so.1 that implements the Driver API calls
// fgemm makes on the host: "device memory" is host memory, launches are
// recorded instead of run, and cuTensorMapEncodeTiled stores its arguments
// in the map. Tests run with it on LD_LIBRARY_PATH to check DenseGemm's
// loading, validation and launch packing end to end without a GPU.
//
// A fake cubin is the text "\x7fELFFAKE\n", one kernel per line, and an
// empty line. A kernel line is its name, optionally followed by a space and
// the byte sizes of its parameters ("k 128,128,8,4"), which a real cubin
// records for the driver: launches of such a kernel copy that many
// parameters of those sizes, checking each pointer's natural alignment. Any
// other image (a real cubin) provides whatever function is asked for,
// without parameter sizes.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TEST_RUNTIME_MOCKCUDA_H
#define FGEMM_TEST_RUNTIME_MOCKCUDA_H

#include <cuda.h>

#include <cstdint>
#include <cstring>

/// What cuTensorMapEncodeTiled was called with, stored in the CUtensorMap.
/// Entries past `rank` (`rank - 1` for strides) are 0.
struct MockTensorMap {
  uint32_t magic; ///< kMockTensorMapMagic
  uint32_t dataType;
  uint32_t rank;
  uint32_t interleave, swizzle, l2Promotion, oobFill;
  uint64_t base;
  uint64_t dims[3];
  uint64_t strides[2];
  uint32_t box[3];
  uint32_t elementStrides[3];
};
static_assert(sizeof(MockTensorMap) <= sizeof(CUtensorMap), "must fit");
constexpr uint32_t kMockTensorMapMagic = 0x544d4150; // "TMAP"

constexpr unsigned kMockMaxParams = 16;

/// The last cuLaunchKernelEx, with the kernel's parameters copied.
struct MockLaunch {
  unsigned grid[3], block[3], sharedBytes;
  unsigned numAttrs, clusterX, clusterY, clusterZ;
  char function[64];
  /// As the fake cubin declares them; 0 for a kernel without sizes.
  unsigned paramCount;
  unsigned paramSizes[kMockMaxParams];
  unsigned char params[kMockMaxParams][128];
};

/// Parameter `index` of `launch` as a T (its first sizeof(T) bytes).
template <typename T>
T mockParam(const MockLaunch &launch, unsigned index) {
  static_assert(sizeof(T) <= sizeof(launch.params[0]), "too large");
  T value;
  std::memcpy(&value, launch.params[index], sizeof(T));
  return value;
}

extern "C" {
/// Launches recorded since the library was loaded.
int fgemmMockLaunchCount();
/// cuTensorMapEncodeTiled calls so far.
int fgemmMockTensorMapEncodes();
const MockLaunch *fgemmMockLastLaunch();
/// The last MAX_DYNAMIC_SHARED_SIZE_BYTES set on a function named `name`.
int fgemmMockDynamicSharedBytes(const char *name);
/// Modules currently loaded.
int fgemmMockLoadedModules();
/// The compute capability devices report (default 9.0).
void fgemmMockSetComputeCapability(int major, int minor);
/// The clusters cuOccupancyMaxActiveClusters reports resident at once
/// (default 66: all 132 SMs in pairs).
void fgemmMockSetMaxActiveClusters(int clusters);
}

#endif // FGEMM_TEST_RUNTIME_MOCKCUDA_H
