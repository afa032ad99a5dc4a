//===- Gemm.h - The dense FP8 GEMM entry point ------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// DenseGemm is the runtime's public API: it loads every compiled kernel of a
// directory (NAME.cubin + NAME.meta from fgemmc), and run() computes
//
//   D[m, n] = sum_kb SFA[m, kb] * SFB[n / 128, kb] * sum_{k in kb} A[m, k] B[n, k]
//
// with the data contract of docs/ABI.md. Arguments are validated before any
// launch; a configuration heuristic picks the kernel. The validation and the
// heuristic are pure functions, declared here so they are unit-tested.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_GEMM_H
#define FGEMM_RUNTIME_GEMM_H

#include "Runtime/Device.h"
#include "Runtime/KernelMeta.h"
#include "Runtime/Module.h"
#include "Runtime/Status.h"
#include "Runtime/TensorMap.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fgemm {

/// The largest M, N or K: TMA coordinates and the kernel's sizes are 32-bit
/// signed.
constexpr int64_t kMaxGemmDim = (int64_t(1) << 31) - 1;

/// Checks the sizes alone: M, N, K >= 0 and <= 2^31-1, N % 8 == 0,
/// K % 16 == 0, K > 0.
Status validateDenseGemmShape(int64_t m, int64_t n, int64_t k);

/// Checks sizes and pointers of a dense GEMM against the ABI's requirements:
/// M, N, K >= 0 and <= 2^31-1, N % 8 == 0, K % 16 == 0, K > 0, and (unless
/// the output is empty) non-null, 16-byte aligned pointers.
Status validateDenseGemmArgs(const DenseGemmProblem &problem);

/// True when the output has no elements (M == 0 or N == 0): nothing to launch.
inline bool isEmptyGemm(const DenseGemmProblem &problem) {
  return problem.m == 0 || problem.n == 0;
}

/// Estimated TFLOPS one SM sustains on a block_m x block_n tile (a model
/// fitted to H100 measurements; only ratios between configurations matter).
double estimateTileRate(uint32_t blockM, uint32_t blockN);

/// Index into `kernels` of the kernel to run an M x N x K problem on a device
/// with `smCount` SMs. Kernels specialized for another N or K are never
/// chosen. Preference: block_m 64 for M <= 64 and 128 otherwise, then kernels
/// specialized for this N/K, then fewer waves of tiles over the SMs, then
/// more tiles in the last wave, then persistent kernels when a CTA gets
/// several tiles, then wider block_n, then more stages.
Expected<size_t> selectDenseKernel(const std::vector<KernelMeta> &kernels,
                                   int64_t m, int64_t n, int64_t k,
                                   int smCount);

/// Grid and block of the dense kernel `meta` for an M x N problem: one CTA
/// per tile, or for a persistent kernel min(tiles, smCount) CTAs along x.
LaunchDims denseLaunchDims(const KernelMeta &meta, int64_t m, int64_t n,
                           int smCount);

/// The dense GEMM over a directory of compiled kernels.
class DenseGemm {
public:
  /// Loads every NAME.cubin with its NAME.meta in `directory` into the
  /// calling thread's current context, whose device must be sm_90.
  static Expected<DenseGemm> create(const std::string &directory);

  /// Validates, selects a kernel, encodes the descriptors and launches on
  /// `stream`. M == 0 or N == 0 returns success without launching.
  Status run(CUdeviceptr a, CUdeviceptr sfa, CUdeviceptr b, CUdeviceptr sfb,
             CUdeviceptr d, int64_t m, int64_t n, int64_t k,
             CUstream stream) const;

  /// Everything run() does before the launch, kept so a benchmark can time
  /// the launch alone.
  struct Prepared {
    DenseKernelParams params; ///< first: it holds the 64-byte aligned maps
    LaunchDims dims;
    size_t kernel = 0;  ///< index into kernels()
    bool empty = false; ///< nothing to launch
  };
  Expected<Prepared> prepare(const DenseGemmProblem &problem) const;
  Status launch(const Prepared &prepared, CUstream stream) const;

  const std::vector<KernelMeta> &kernels() const { return metas; }
  /// The cubin file of kernel `index`.
  const std::string &kernelPath(size_t index) const {
    return loaded[index].path;
  }
  const DeviceInfo &device() const { return deviceInfo; }

private:
  struct LoadedKernel {
    std::string path;
    Module module;
    CUfunction function;
  };
  DenseGemm(const Driver &driver, CUcontext context, DeviceInfo device)
      : driver(&driver), context(context), deviceInfo(std::move(device)) {}

  const Driver *driver;
  CUcontext context;
  DeviceInfo deviceInfo;
  std::vector<KernelMeta> metas;
  std::vector<LoadedKernel> loaded;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_GEMM_H
