//===- GroupedGemm.h - M-grouped FP8 GEMMs (MoE) ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The mixture-of-experts GEMMs, DeepGEMM's two M-grouped layouts
// (NUMERICS.md 3.6-3.7), over a directory of compiled grouped kernels
// (kernels/sm90_m_grouped_fp8_gemm_{contiguous,masked}_1d2d.mlir):
//
//   contiguous: A [M, K], SFA [ceil(K/128), align(M, 4)], B [G, N, K],
//     SFB [G, ceil(N/128), ceil(K/128)], D [M, N], m_indices [M] (int32 on
//     the GPU, the group of each row, -1 on padding rows; each group's rows
//     start on a multiple of 128). Padding rows are written as zeros.
//   masked: A [G, M, K], SFA [G, ceil(K/128), align(M, 4)], B, SFB as above,
//     D [G, M, N], masked_m [G] (int32 on the GPU): group g's valid rows are
//     [0, masked_m[g]) (clamped to [0, M] on the GPU); rows past them are
//     left untouched. expected_m, a host hint of the rows per group, picks
//     the configuration only.
//
// Sizes are validated before any launch; the kernel is launched by its
// description through the generic path of Launch.h (docs/ABI.md).
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_GROUPEDGEMM_H
#define FGEMM_RUNTIME_GROUPEDGEMM_H

#include "Runtime/Device.h"
#include "Runtime/Gemm.h"
#include "Runtime/KernelMeta.h"
#include "Runtime/Launch.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace fgemm {

/// Row alignment of each group in the contiguous layout (DeepGEMM's
/// get_mk_alignment_for_contiguous_layout).
constexpr int64_t kContiguousGroupAlignment = 128;

/// Rows per group as the benchmarks draw them, kGroupRowsLow-kGroupRowsHigh x
/// the expected rows (DeepGEMM's generator; fgemm-bench's too): the spread
/// the masked layout's configuration choice plans for.
constexpr double kGroupRowsLow = 0.7, kGroupRowsHigh = 1.3;

/// The draw at u in [0, 1] of that spread, as a factor of the expected rows.
inline double groupRowsFactor(double u) { return kGroupRowsLow + 0.6 * u; }

/// The smallest capacity (rows per group, a multiple of 128) above every
/// row count of that spread: fgemm-bench's default, and what
/// fgemm-precompile --shapes gives a masked shape.
inline int64_t maskedSpreadCapacity(int64_t expectedM) {
  int64_t most = int64_t(kGroupRowsHigh * double(expectedM)) + 1;
  return (most + kContiguousGroupAlignment - 1) / kContiguousGroupAlignment *
         kContiguousGroupAlignment;
}

/// Contiguous: m_indices per row; ContiguousPsum: DeepGEMM's psum form, each
/// group's end row; Masked: masked_m per group.
/// ContiguousUnpadded: the psum form's ends with groups starting at any row.
enum class GroupedLayout {
  Contiguous,
  ContiguousPsum,
  ContiguousUnpadded,
  Masked
};

/// "grouped_contiguous", "grouped_contiguous_psum" or "grouped_masked": the
/// kernels' `variant`.
const char *groupedVariant(GroupedLayout layout);

/// One M-grouped problem: device pointers and sizes. `groupRows` is the
/// m_indices (contiguous) or masked_m (masked) array on the GPU.
struct GroupedGemmProblem {
  GroupedLayout layout = GroupedLayout::Contiguous;
  CUdeviceptr a = 0, sfa = 0, b = 0, sfb = 0, d = 0, groupRows = 0;
  /// Contiguous: the total rows of A and D. Masked: the rows per group.
  int64_t m = 0;
  int64_t n = 0, k = 0, groups = 0;
  /// Masked only: the expected rows per group (> 0), for the configuration.
  int64_t expectedM = 0;
};

/// The configurations fgemm-precompile --set contiguous|masked|... compiles
/// and scripts/gpu-prepare.sh ships, plain and persistent grids (the choice
/// among them: selectGroupedKernel).
const std::vector<DenseConfiguration> &
groupedConfigurationSet(GroupedLayout layout);

/// Checks the sizes: G >= 1, N % 8 == 0, K % 16 == 0 and K > 0, every size
/// in [0, 2^31-1]; contiguous M % 128 == 0; masked expected_m > 0.
Status validateGroupedGemmShape(const GroupedGemmProblem &problem);

/// Checks that `meta` is a kernel of `layout` with the argument list
/// GroupedGemm binds (A, B, SFA, SFB, m_indices or masked_m, D) and dims m,
/// n, k, g; contiguous kernels need block_m <= 128 (a tile must not span two
/// groups' 128-row blocks).
Status checkGroupedKernel(const KernelMeta &meta, GroupedLayout layout);

/// The descriptions of `directory`'s grouped kernels (any layout, each
/// checked by checkGroupedKernel), with their NAMEs; other variants' files
/// are passed over. An error names the file; none found is an error too.
struct GroupedKernelDescriptions {
  std::vector<std::string> stems;
  std::vector<KernelMeta> metas;
};
Expected<GroupedKernelDescriptions>
readGroupedKernelDescriptions(const std::string &directory);

/// Index into `kernels` (all of `problem.layout`) of the kernel to run it
/// on: the estimated time of the tiles that hold rows (contiguous: all of
/// M; masked: expected_m per group) on `smCount` SMs, then wider block_n.
/// For the masked layout, whose rows the host does not know, then checked
/// on whole waves for 0.7-1.3x expected_m rows: a narrower pair kernel
/// where it never runs more waves, and where every tile fits in one wave
/// the smallest tiles of a grid without clusters.
Expected<size_t> selectGroupedKernel(const std::vector<KernelMeta> &kernels,
                                     const GroupedGemmProblem &problem,
                                     int smCount);

/// Debug check of a host copy of group ends: group g starts at
/// align(ends[g - 1], alignment) (0 for g = 0; alignment 128 for the psum
/// form, 1 unpadded) and ends at ends[g] >= that start (equal: an empty
/// group), and the last end is at most m.
Status validateGroupEnds(const std::vector<int32_t> &ends, int64_t m,
                         int64_t alignment);

/// Copies the G group ends from the device and runs validateGroupEnds.
Status validateGroupEndsOnDevice(CUdeviceptr ends, int64_t groups, int64_t m,
                                 int64_t alignment);

/// Debug check of a host copy of m_indices against the contiguous layout's
/// contract: values in [-1, G), one group per 128-row block, -1 only as a
/// block's tail. The kernel stays in bounds either way; this says what is
/// wrong (the first offending row).
Status validateContiguousIndices(const std::vector<int32_t> &mIndices,
                                 int64_t groups);

/// Copies `m` entries of m_indices from the device (the current context's)
/// and runs validateContiguousIndices: a debug option, it synchronizes.
Status validateContiguousIndicesOnDevice(CUdeviceptr mIndices, int64_t m,
                                         int64_t groups);

/// The M-grouped GEMMs over a directory of compiled kernels.
class GroupedGemm {
public:
  /// Loads every NAME.cubin whose NAME.meta describes a grouped kernel in
  /// `directory` (kernels of other variants are skipped) into the calling
  /// thread's current context, whose device must be sm_90.
  static Expected<GroupedGemm> create(const std::string &directory);

  /// Turns a layout's configuration into BASE (BASE.cubin + BASE.meta of a
  /// grouped kernel of that layout), e.g. by compiling it (lib/Jit).
  using KernelProvider = std::function<Expected<std::string>(
      GroupedLayout, const DenseConfiguration &)>;
  /// Kernels made on first use: the configuration choice picks among every
  /// layout's groupedConfigurationSet, and the first launch of one asks
  /// `provider` for it and loads it into the calling thread's current
  /// context (which must be sm_90).
  static Expected<GroupedGemm> createOnDemand(KernelProvider provider);

  /// Validates, selects a kernel of the problem's layout and launches on
  /// `stream`. An empty output (M, N or G = 0) launches nothing.
  Status run(const GroupedGemmProblem &problem, CUstream stream) const;

  struct Prepared {
    PreparedLaunch launch; ///< `launch.empty`: nothing to launch
    size_t kernel = 0;     ///< index into kernels()
    /// With specializeShapes: the kernel made from kernels()[kernel] for the
    /// problem's N and K, which the launch runs.
    const Kernel *specialized = nullptr;
  };
  Expected<Prepared> prepare(const GroupedGemmProblem &problem) const;
  Status launch(const Prepared &prepared, CUstream stream) const;

  const std::vector<KernelMeta> &kernels() const { return metas; }
  const DeviceInfo &device() const { return deviceInfo; }
  /// On-demand contexts only: kernels made per (configuration, N, K), N and K
  /// compiled in (DenseGemm::specializeShapes), in the background if asked.
  Status specializeShapes(bool on, bool background = false);
  /// Caps the SMs the configuration choice and persistent grids plan for
  /// (DeepGEMM's set_num_sms); 0 = all. Values above the device's count are
  /// refused.
  Status setSmLimit(int sms);
  int smCount() const { return smLimit > 0 ? smLimit : deviceInfo.smCount; }
  /// Launches pass this raster group instead of chooseRasterGroup's
  /// (DenseGemm::setRasterGroup); 0 restores the choice.
  void setRasterGroup(uint32_t group);

private:
  explicit GroupedGemm(DeviceInfo device) : deviceInfo(std::move(device)) {}
  /// Loads on-demand kernel `index` if it is not loaded yet.
  Status ensureLoaded(size_t index) const;

  /// selectGroupedKernel's answers per problem shape (its whole-wave
  /// checks of the masked layout walk every group's row draws: 1-20 us a
  /// choice, each call's host time otherwise). Cleared when a kernel's
  /// description changes (an on-demand kernel made) or the SM cap does.
  struct Choices {
    static constexpr size_t kCapacity = 64;
    std::mutex mutex;
    std::map<
        std::tuple<GroupedLayout, int64_t, int64_t, int64_t, int64_t, int64_t>,
        size_t>
        index;
  };
  Expected<size_t> choose(const GroupedGemmProblem &p) const;

  DeviceInfo deviceInfo;
  int smLimit = 0;
  uint32_t rasterOverride = 0;
  std::unique_ptr<Choices> choices = std::make_unique<Choices>();
  /// For selectGroupedKernel: loaded[i]'s description, or for an on-demand
  /// kernel not made yet one with the fields the choice reads.
  mutable std::vector<KernelMeta> metas;
  mutable std::vector<std::optional<Kernel>> loaded;
  /// Set by createOnDemand.
  struct OnDemand {
    std::vector<std::pair<GroupedLayout, DenseConfiguration>> configs;
    KernelProvider provider;
    std::mutex mutex;
    bool specialize = false;
    SpecializedKernels specialized;
  };
  std::unique_ptr<OnDemand> onDemand;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_GROUPEDGEMM_H
