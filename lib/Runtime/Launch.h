//===- Launch.h - Launching a kernel by its description ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The generic launch path: a kernel description (KernelMeta.h, docs/ABI.md)
// plus what one launch binds to it (device pointers of the arguments, values
// of the dimension symbols) gives the TMA descriptors, the packed parameter
// list and the grid. No variant is special here: DenseGemm binds its five
// operands and m, n, k, a grouped GEMM would bind its own, and neither needs
// a parameter struct of its own.
//
//   bindings ──planLaunch──> LaunchPlan (pure: dims checked, tensor-map
//                            descriptors, grid, or "empty")
//            ──encodeTensorMap (driver)──> CUtensorMaps
//            ──packKernelParams──> KernelParamBuffer (pure)
//
// Kernel::prepare runs the three; Kernel::launch only calls the driver, so a
// benchmark can time launches of one prepared launch.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_LAUNCH_H
#define FGEMM_RUNTIME_LAUNCH_H

#include "Runtime/Driver.h"
#include "Runtime/KernelMeta.h"
#include "Runtime/Module.h"
#include "Runtime/Status.h"
#include "Runtime/TensorMap.h"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fgemm {

/// The largest value of a dimension symbol: TMA coordinates and the kernels'
/// sizes are 32-bit signed.
constexpr int64_t kMaxDimValue = (int64_t(1) << 31) - 1;

/// What one launch binds to a kernel description.
struct KernelBindings {
  /// The device pointer of each argument: args[I] for `arg.I`.
  std::vector<CUdeviceptr> args;
  /// The value of every dimension symbol of `dims`, by name, in any order.
  std::vector<std::pair<std::string, int64_t>> dims;
  /// Optional roles of the arguments ("A", "SFA"), for messages.
  std::vector<std::string> argNames;
  /// The tile order's raster group for a kernel with a `raster_group`
  /// parameter (1 = row-major; 0 = the kernel's default); ignored by others.
  uint32_t rasterGroup = 0;
};

/// The host image of a kernel's parameter list: each parameter at its
/// natural alignment (CUtensorMap 64 bytes), as in the kernel's parameter
/// space, and the pointer array cuLaunchKernelEx takes.
class KernelParamBuffer {
public:
  KernelParamBuffer() = default;
  KernelParamBuffer(const KernelParamBuffer &other);
  KernelParamBuffer &operator=(const KernelParamBuffer &other);
  // Moving a vector keeps its heap buffer, so the pointers stay valid.
  KernelParamBuffer(KernelParamBuffer &&) = default;
  KernelParamBuffer &operator=(KernelParamBuffer &&) = default;

  /// Appends a parameter of `size` bytes at the next multiple of
  /// `alignment` (a power of two, at most 64), copying `value`.
  void append(const void *value, size_t size, size_t alignment);

  /// Number of parameters.
  size_t size() const { return offsets.size(); }
  size_t offset(size_t index) const { return offsets[index]; }
  size_t paramSize(size_t index) const { return sizes[index]; }
  /// The bytes of all parameters, `byteSize()` long (padding is zero).
  const unsigned char *bytes() const;
  size_t byteSize() const { return used; }
  /// One pointer per parameter, into this buffer. The driver only reads
  /// through them; the array is non-const because cuLaunchKernelEx's is.
  void **pointers() const { return const_cast<void **>(pointerArray.data()); }

private:
  struct alignas(64) Chunk {
    unsigned char bytes[64];
  };
  void rebuildPointers();
  std::vector<Chunk> storage;
  size_t used = 0;
  std::vector<size_t> offsets, sizes;
  std::vector<void *> pointerArray;
};

/// Everything about a launch that needs no driver.
struct LaunchPlan {
  std::vector<int64_t> dims; ///< the symbols' values, in `meta.dims` order
  /// True when a tile count is 0 (an empty output): nothing to launch, and
  /// no descriptors or grid are computed.
  bool empty = false;
  LaunchDims launch;
  /// One descriptor per tensor_map parameter, in parameter order.
  std::vector<TensorMapDesc> tensorMaps;
};

/// "arg.2 (SFA)", or "arg.2" without a name, for messages.
std::string argLabel(const KernelBindings &bindings, size_t arg);

/// The dimension values in `meta.dims` order. Every symbol must be bound
/// once and no other; each value in [0, 2^31-1]; `n` and `k` equal to
/// fixed_n and fixed_k where those are nonzero.
Expected<std::vector<int64_t>>
bindDims(const KernelMeta &meta,
         const std::vector<std::pair<std::string, int64_t>> &dims);

/// ceil(value / block) of each `tiles` factor.
std::vector<int64_t> countTiles(const KernelMeta &meta,
                                const std::vector<int64_t> &dimValues);

/// The grid of a non-empty launch: plain = the tile counts along x, y, z
/// with x rounded up to a multiple of `cluster`; persistent = (min(product
/// of those counts, smCount) rounded down to whole clusters, 1, 1);
/// stream_k = (smCount rounded down to whole clusters, 1, 1) (the pieces of
/// the tiles fill every SM). Block =
/// threads, dynamic shared memory = smem_bytes. Checked against the grid
/// limits.
Expected<LaunchDims> computeLaunchDims(const KernelMeta &meta,
                                       const std::vector<int64_t> &dimValues,
                                       int smCount);

/// The argument pointers the parameters use: one per argument, non-null,
/// and 16-byte aligned under a tensor map (TMA's rule).
Status validateArgPointers(const KernelMeta &meta,
                           const KernelBindings &bindings);

/// Checks `bindings` against `meta` and computes the grid and descriptors.
/// An empty output is not an error: the plan says `empty`, and pointers are
/// not checked (an empty GEMM needs none).
Expected<LaunchPlan> planLaunch(const KernelMeta &meta,
                                const KernelBindings &bindings, int smCount);

/// The parameter list of `meta` for a non-empty `plan`: `maps` are the
/// encoded plan.tensorMaps, in order.
Expected<KernelParamBuffer>
packKernelParams(const KernelMeta &meta, const KernelBindings &bindings,
                 const LaunchPlan &plan, const std::vector<CUtensorMap> &maps);

/// A launch ready to go: parameters, grid, and the function it is for.
struct PreparedLaunch {
  KernelParamBuffer params;
  LaunchDims dims;
  bool empty = false; ///< nothing to launch
  CUfunction function = nullptr;
  /// The `workspace` parameter's index (-1: none) and the bytes it needs;
  /// launch binds the stream's buffer (Workspace.h) there.
  int workspaceParam = -1;
  size_t workspaceBytes = 0;
};

/// A compiled kernel (NAME.cubin + NAME.meta) loaded into the context that
/// was current at load time, launched by its description.
class Kernel {
public:
  /// Loads the cubin at `cubinPath`, finds `meta.kernel` in it and raises
  /// its dynamic shared memory limit to `meta.smemBytes`.
  static Expected<Kernel> load(const Driver &driver,
                               const std::string &cubinPath, KernelMeta meta);
  /// Reads BASE.meta and loads BASE.cubin.
  static Expected<Kernel> loadFiles(const Driver &driver,
                                    const std::string &base);

  const KernelMeta &meta() const { return description; }
  const std::string &path() const { return cubinPath; }
  /// SMs of the device it was loaded on (persistent grids); for a stream-K
  /// kernel in clusters, the CTAs that can be resident at once.
  int smCount() const { return sms; }

  /// planLaunch, then the descriptors are encoded and the parameters
  /// packed. Needs the context the kernel was loaded in to be current.
  /// `smLimit` > 0 caps the SMs a persistent grid uses (DeepGEMM's
  /// set_num_sms); 0 = all of the device's.
  Expected<PreparedLaunch> prepare(const KernelBindings &bindings,
                                   int smLimit = 0) const;
  /// Launches `prepared` (which must come from this kernel's prepare) on
  /// `stream`; an empty one launches nothing.
  Status launch(const PreparedLaunch &prepared, CUstream stream) const;
  /// prepare, then launch.
  Status run(const KernelBindings &bindings, CUstream stream) const;

private:
  Kernel(const Driver &driver, CUcontext context, Module module,
         CUfunction function, KernelMeta meta, std::string path, int sms)
      : driver(&driver), context(context), module(std::move(module)),
        function(function), description(std::move(meta)),
        cubinPath(std::move(path)), sms(sms) {}

  const Driver *driver;
  CUcontext context;
  Module module;
  CUfunction function;
  KernelMeta description;
  std::string cubinPath;
  int sms;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_LAUNCH_H
