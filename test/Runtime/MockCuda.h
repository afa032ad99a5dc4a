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
// A fake cubin is the text "\x7fELFFAKE\n", one kernel name per line, and an
// empty line. Any other image (a real cubin) provides whatever function is
// asked for.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TEST_RUNTIME_MOCKCUDA_H
#define FGEMM_TEST_RUNTIME_MOCKCUDA_H

#include <cuda.h>

#include <cstdint>

/// What cuTensorMapEncodeTiled was called with, stored in the CUtensorMap.
struct MockTensorMap {
  uint32_t magic; ///< kMockTensorMapMagic
  uint32_t dataType;
  uint32_t rank;
  uint32_t interleave, swizzle, l2Promotion, oobFill;
  uint64_t base;
  uint64_t dims[2];
  uint64_t stride;
  uint32_t box[2];
  uint32_t elementStrides[2];
};
static_assert(sizeof(MockTensorMap) <= sizeof(CUtensorMap), "must fit");
constexpr uint32_t kMockTensorMapMagic = 0x544d4150; // "TMAP"

/// The last cuLaunchKernelEx, with the dense kernel's parameters copied.
struct MockLaunch {
  unsigned grid[3], block[3], sharedBytes;
  unsigned numAttrs, clusterX, clusterY, clusterZ;
  char function[64];
  MockTensorMap maps[4];
  uint64_t sfb;
  uint32_t m, n, k;
};

extern "C" {
/// Launches recorded since the library was loaded.
int fgemmMockLaunchCount();
const MockLaunch *fgemmMockLastLaunch();
/// The last MAX_DYNAMIC_SHARED_SIZE_BYTES set on a function named `name`.
int fgemmMockDynamicSharedBytes(const char *name);
/// Modules currently loaded.
int fgemmMockLoadedModules();
/// The compute capability devices report (default 9.0).
void fgemmMockSetComputeCapability(int major, int minor);
}

#endif // FGEMM_TEST_RUNTIME_MOCKCUDA_H
