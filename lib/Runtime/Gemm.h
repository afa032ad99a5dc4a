//===- Gemm.h - The dense FP8 GEMM entry point ------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// DenseGemm is the runtime's public API: it loads every compiled dense kernel
// of a directory (NAME.cubin + NAME.meta from fgemmc), and run() computes
//
//   D[m, n] = sum_kb SFA[m, kb] * SFB[n / 128, kb] * sum_{k in kb} A[m, k] B[n,
//   k]
//
// with the data contract of docs/ABI.md. Sizes are validated before any
// launch; a configuration heuristic picks the kernel, which is launched by
// its description through the generic path of Launch.h. The validation and
// the heuristic are pure functions, declared here so they are unit-tested.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_GEMM_H
#define FGEMM_RUNTIME_GEMM_H

#include "Runtime/Device.h"
#include "Runtime/KernelMeta.h"
#include "Runtime/Launch.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace fgemm {

/// The largest M, N or K: TMA coordinates and the kernel's sizes are 32-bit
/// signed.
constexpr int64_t kMaxGemmDim = kMaxDimValue;

/// The scaling recipes of the dense GEMM (docs/ABI.md, "The dense
/// variants"); a DenseGemm serves one.
enum class DenseRecipe {
  /// 1x128 scales on A, 128x128 on B; D bf16 = A B^T (variant `dense`).
  k1D2D,
  /// 1x128 scales on A and on B; D f32 = C + A B^T, C f32 and possibly D
  /// itself (variant `dense_1d1d`; DeepGEMM's FP32 path).
  k1D1D,
  /// The 1D2D recipe plus a bf16 bias per column: D bf16 = A B^T + bias
  /// (variant `dense_bias`).
  kBias1D2D,
  /// One f32 scale per operand: D bf16 = sa sb A B^T (variant
  /// `dense_per_tensor`).
  kPerTensor,
  /// The 1D2D recipe with an e5m2 A (gradients) and an e4m3 B (variant
  /// `dense_e5m2_e4m3`).
  kE5M2xE4M3,
  /// The 1D2D recipe with an e4m3 A and an e5m2 B (variant
  /// `dense_e4m3_e5m2`).
  kE4M3xE5M2,
};
/// The description's `variant` of a recipe's kernels.
const char *denseVariant(DenseRecipe recipe);

/// A dense GEMM problem: device pointers and sizes (docs/ABI.md data
/// contract). `c` is the 1D1D recipe's addend, `bias` the bias recipe's
/// vector (0 for the recipes without them).
struct DenseGemmProblem {
  CUdeviceptr a = 0, sfa = 0, b = 0, sfb = 0, c = 0, d = 0, bias = 0;
  int64_t m = 0, n = 0, k = 0;

  bool operator==(const DenseGemmProblem &o) const {
    return a == o.a && sfa == o.sfa && b == o.b && sfb == o.sfb && c == o.c &&
           d == o.d && bias == o.bias && m == o.m && n == o.n && k == o.k;
  }
};

/// ceil(a / b) for a >= 0, b > 0: tiles, waves, scale blocks.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// M rounded up to 4: SFA's padded M extent (16-byte TMA row stride).
inline int64_t alignedSfaRows(int64_t m) { return (m + 3) / 4 * 4; }

/// ceil(x / 128): the number of 128-wide scale blocks.
inline int64_t scaleBlocks(int64_t x) { return (x + 127) / 128; }

/// The dense variants' arguments, by index (`arg.I` of their descriptions):
/// A, B, SFA, SFB, then D (1D2D, per tensor), C, D (1D1D) or BIAS, D (bias).
enum DenseArg : size_t { kDenseA, kDenseB, kDenseSfa, kDenseSfb };

/// Checks that `meta` is a kernel of `recipe` with the argument list
/// DenseGemm binds (docs/ABI.md): its variant, arg.0.. exactly as
/// documented, dims = m, n, k in any order. Its parameter order and grid
/// rule are its own business.
Status checkDenseKernel(const KernelMeta &meta,
                        DenseRecipe recipe = DenseRecipe::k1D2D);

/// The bindings of `problem` for a kernel of `recipe`: the pointers by
/// argument index and m, n, k by name.
KernelBindings denseBindings(const DenseGemmProblem &problem,
                             DenseRecipe recipe = DenseRecipe::k1D2D);

/// Checks the sizes alone: M, N, K >= 0 and <= 2^31-1, N % 8 == 0,
/// K % 16 == 0, K > 0. (The pointers are checked by the generic launch
/// path, for the arguments the chosen kernel uses.)
Status validateDenseGemmShape(int64_t m, int64_t n, int64_t k);

/// True when the output has no elements (M == 0 or N == 0): nothing to launch.
inline bool isEmptyGemm(const DenseGemmProblem &problem) {
  return problem.m == 0 || problem.n == 0;
}

/// Estimated TFLOPS one SM sustains on a block_m x block_n tile (a model
/// fitted to H100 and H200 measurements; only ratios between configurations
/// matter).
double estimateTileRate(uint32_t blockM, uint32_t blockN);
/// The factor estimateTileRate applies to block_n for tiles that straddle
/// 128-column scale blocks (1 where there is none).
double straddlePenalty(uint32_t blockN);

/// A configuration of the dense kernel the runtime chooses from.
struct DenseConfiguration {
  uint32_t blockM, blockN;
  bool persistent;
  uint32_t rasterGroup;
  /// N and K compiled in as constants (0: known at launch only); the
  /// runtime prefers a kernel specialized for the call's N and K.
  uint32_t fixedN = 0, fixedK = 0;
  /// CTAs per cluster (1 or 2), sharing the A tile (pairs along N) or, with
  /// multicastB, the B tile (pairs along M) by TMA multicast.
  uint32_t cluster = 1;
  bool multicastB = false;
  /// CTAs computing one tile, each a share of its K blocks (1, 2 or 4; a
  /// plain grid without an operand-sharing cluster).
  uint32_t kSplit = 1;
  /// The raster group is a launch parameter (rasterGroup its default):
  /// chooseRasterGroup picks it per launch.
  bool launchRaster = false;
  /// Persistent: each tile's first scales are loaded during the tile before
  /// (the prefetch_scales knob).
  bool prefetchScales = false;
  /// With persistent: schedule stream_k (the last round of tiles, or of
  /// cluster units, split along K over every CTA).
  bool streamK = false;
  /// Whether its kernel couples the math warpgroups per tile (the
  /// couple_math_warpgroups knob): the 256x128 pairs sharing A compiled for
  /// a K of at least kCoupledMathWarpgroupsMinK, the 128x256 pairs sharing B
  /// (the contiguous layouts') for at least kCoupledPairsSharingBMinK.
  /// Derived from the fields above, so a kernel's stem still names its whole
  /// configuration.
  bool couplesMathWarpgroups() const;
  /// NAME of its NAME.cubin / NAME.meta in a kernel directory:
  /// bm<M>_bn<N>_<plain|persistent|stream_k>[_cluster2[b]][_ksplit<S>]
  /// [_n<fixed N>][_k<fixed K>].
  std::string stem() const;
};
/// The shortest fixed K at which the 256x128 pairs sharing A couple their
/// math warpgroups per tile (DenseConfiguration::couplesMathWarpgroups).
/// Decoupled, a pair's two warpgroups run their tile loops apart and the
/// CTAs of a long launch drift apart (the L2 merges fewer identical reads,
/// the launch waits for the slowest pair; docs/PERF.md, forty-second
/// session). Coupled against decoupled, generic kernels (H200, forty-third
/// session): 0.993-0.998x the time at K = 16384 and 0.996-1.000x at 10240
/// (M = 2048-8192, N = 4096 / 7168), 0.995-1.002x at 7168, 0.999-1.005x at
/// 4096; the N/K-specialized kernels 0.983-0.988x at K = 16384 (forty-second
/// session). The 192x128 pairs (three warpgroups) lost 0-0.4% coupled and
/// stay decoupled, as do kernels whose K is known at launch only.
inline constexpr int64_t kCoupledMathWarpgroupsMinK = 8192;
/// The same for the 128x256 pairs sharing B of the contiguous layouts (their
/// launches run 30-40 rounds of tiles): coupled against decoupled, generic
/// kernels, 4 x 8192 and 8 x 4096 rows (H200, forty-third session): 0.982x
/// the time at K = 16384, 0.987-0.995x at 7168, 0.997x at 4096. The masked
/// layout's 128x192 pairs lost 0.5-0.9% coupled (K = 7168) and stay
/// decoupled.
inline constexpr int64_t kCoupledPairsSharingBMinK = 4096;

/// The set the configuration choice is fitted to (docs/PERF.md): what
/// fgemm-precompile compiles by default and scripts/gpu-prepare.sh ships.
/// The 1D1D recipe's f32 output tile takes twice the shared memory of a
/// bf16 one, so its set stops at 128 x 128.
const std::vector<DenseConfiguration> &
denseConfigurationSet(DenseRecipe recipe = DenseRecipe::k1D2D);

/// Tiles a launch of `meta` computes for tilesM x tilesN output tiles: with a
/// cluster, the count along grid x (the split one, `tiles[0]`) rounded up
/// to whole clusters, whose extra tiles lie past the output but still run
/// their loads and math. (A K-split kernel runs k_split CTAs per tile.)
/// Persistent dense pairs now give an odd count's last line to tail units
/// (docs/ABI.md) and compute at most one such tile; the model keeps the
/// rounded count, as its choices were measured with it (the tail units
/// measured no faster: docs/PERF.md, thirty-sixth session).
int64_t launchedTiles(const KernelMeta &meta, int64_t tilesM, int64_t tilesN);

/// How much longer a K-split CTA's share of a tile takes than 1 / k_split of
/// the tile (the split's cost in the dense choice model). H100, cold L2,
/// docs/PERF.md (thirteenth session): measured against the model's share,
/// k_split 2 took 1.40-1.42x (64x32 at 64x2112x7168), 1.58x (128x32 at
/// 128x2112x7168) and 1.6x (128x64 at 128x4096x7168, where it lost to the
/// unsplit 128x32 grid and so is not in the set).
inline constexpr double kKSplitShareCost = 1.45;
/// The shortest K at which the choice considers a K-split kernel before the
/// others: the shares meet at a fixed cost of about 1 us, which a short K
/// does not repay (H100, docs/PERF.md, thirteenth session: 64x32 and 128x32
/// pairs against the unsplit choice at M = 64 / 128, N = 512-2112, 5-21%
/// slower at K <= 2048, 4-15% faster at K = 7168, 14-27% at K = 16384).
inline constexpr int64_t kKSplitMinK = 4096;

/// The stream-K choice (schedule stream_k, 128x192 pairs sharing B; H200,
/// docs/PERF.md, thirty-sixth session), against the same pairs persistent
/// over R = tiles / SMs rounds: the whole rounds cost kStreamKOverhead each
/// (3072x2112x7168, nothing split: 1.038x), the last round's share f costs
/// kStreamKTailCost x f rounds (its pieces start at different K offsets and
/// stream their operands without the L2 sharing of CTAs in step: 1.32-1.89
/// fitted at K = 7168). Only where that was measured to win: at least one
/// whole round, f <= kStreamKMaxTail (2048x2112x7168, f = 0.33: 0.842x)
/// and K >= kStreamKMinK (at K = 2048 the hand-over of the partial tiles
/// lost 12-16% whatever the tail; at M <= 128, no whole round, the eleventh
/// session's pieces ran 1.3-1.4x), and N <= kRowMajorMaxN (its row-major
/// order).
inline constexpr double kStreamKOverhead = 1.04;
inline constexpr double kStreamKTailCost = 1.9;
inline constexpr double kStreamKMaxTail = 0.4;
inline constexpr int64_t kStreamKMinK = 7168;

/// Pairs of row tiles sharing B (persistent) overlap a tile's epilogue with
/// the next tile's loads as the persistent grid alone does (1 / 1.2 of the
/// time) from K > kPairsSharingBMinOverlapK: 0.80-0.85 of the estimate at
/// K = 1536, M = 256-4096 (H200, docs/PERF.md, thirty-seventh session);
/// with four K blocks (K = 512) they ran 1.07-1.14x the 128x256 persistent
/// grid of an equal estimate and keep the long-K factor.
inline constexpr int64_t kPairsSharingBMinOverlapK = 512;
/// 192-row tiles (three math warpgroups) where M leaves their last row tile
/// partly empty: their waves end worse than the estimate counts (1.03-1.09x
/// the 256x128 pairs' time at 4096 x 7168 x 16384 and 4096 x 4096 x 7168,
/// thirty-fifth session), yet they were the fastest kernel at 4096 x 2112 x
/// 7168, 4096 x 24576 x 1536, 2048 x 7168 x 2048 / 16384 and 1024 x 2112 x
/// 7168 (2-12%). A cost factor fitted to 66 shapes (M = 64-4096 x the six
/// N, K of DESIGN.md, every kernel of the set timed; H200, docs/PERF.md,
/// thirty-seventh session) in place of ranking them after every other.
inline constexpr double kPartialThreeWarpgroupTileCost = 1.03;
/// The fewest rows at which the choice considers 64x48 tiles before the
/// others. Against 64x64 (H200, docs/PERF.md, forty-fifth session) they
/// ran 0.91-0.99x the time where their one wave holds a third more CTAs
/// at M = 32-512 (144-192 x 2112 x 7168 0.956-0.964x, 64 x 6144 x 7168
/// 0.910x, 32 x 6144 x 7168 0.960x), 1.00-1.01x at two row tiles of
/// N = 2560-3072, and lost where the launch only streams B: 1 x 5120 x 7168
/// 1.09-1.11x (1 x 6144 x 7168 1.000x, 16 x 5120 x 7168 1.008x).
inline constexpr int64_t kNarrowTileMinM = 32;

/// The most rows at which the A scales of one K block are a single 16-byte
/// row (the MN-major scales' rows are aligned to 4 floats, docs/ABI.md):
/// every CTA of a launch then reads its K blocks' scales from the same few
/// lines, and the L2 serves those reads at a bounded rate. Measured on the
/// H200 (docs/PERF.md, forty-sixth session): 64x32 at 1-4 x 4096 x 7168
/// (128 CTAs) 1.28x its time at M = 5-16, the per-tensor recipe's kernel
/// (no A-scale reads) at M = 1 as fast as at M = 8, one L2 slice taking
/// 2.2x the mean slice's reads; 64x64 there (64 CTAs) no slower than at
/// M = 8. With more CTAs 64x64 pays too, at M = 1 only (1 x 5120 x 7168:
/// 14.4 us against 13.2 without A scales; forty-seventh session), where the
/// set holds no kernel that reads fewer scales.
inline constexpr int64_t kScaleRowHotSpotMaxM = 4;
/// Per tile of a launch reading its A scales at M <= kScaleRowHotSpotMaxM,
/// the least time the estimate allows in its units (time per K block of the
/// launch, estimateTileRate): all of the launch's scale reads pass one L2
/// slice at about 470 per microsecond (1 x 4096 x 7168, 64x32). Fitted
/// between the 64x32 launch of 128 tiles that it must place after 64x64
/// (floor above 64x64's estimate) and the 64x64 launches of 64-112 tiles it
/// must not (floor at most their estimate).
inline constexpr double kScaleRowReadCostPerTile = 12.0;

/// The raster group a launch of `meta` passes (KernelBindings::rasterGroup;
/// 0 = the kernel's default, and for kernels without the parameter). Pairs
/// of row tiles sharing B walk row-major (1) where measured faster on the
/// H100 with 128x192 pairs (docs/PERF.md), else in the default groups of
/// pair rows:
/// - one group: while its B, N x K bytes, fits in 60% of the L2 (`l2Bytes`)
///   and N is at most kRowMajorMaxN: row-major 1.5-2.6% faster at N = 2112,
///   K = 7168 (B 15 MB), equal at B = 22-33 MB, 3.3% slower at 44 MB on a
///   clean L2 (fourteenth session); after a memset (dirty L2, the grouped
///   benchmark's condition) 0.4-1.4% faster at N = 2112 and 2.6% at one
///   masked group of N = 4096, K = 2048, but 1.1-2.6% slower on one masked
///   group of N = 7168, K = 2048 (twenty-second session);
/// - several groups of `rowsPerGroup` rows each (masked: expected_m; 0 =
///   unknown, the contiguous layouts, which keep the default): where the
///   groups' pairs span more than one band of the default order and either
///   two groups' B fit (row-major reuses a group's B a pair row later, and
///   a round of tiles that crosses into the next group holds both) or a
///   group is one pair (no pairs share its B).
///   Row-major 2.4-7.6% faster at 32 x 192 and 6 x 1024 rows (N = 4096,
///   K = 2048; 32 x 192 at N = 6144, K = 7168), 2.3% slower at 6 x 1024,
///   N = 6144, K = 7168, and 5-6% slower on 2-4 groups of 1-2 pairs, which
///   one band holds (twenty-first session, clean L2; after a memset the
///   same: row-major 2.1-7.2% faster on those rows and at 8 x 512, N = 4096,
///   2.8% slower at 6 x 1024, N = 6144, K = 7168, twenty-second session).
/// Row-major's first round of tiles streams all of B from DRAM, N x 128
/// bytes per 128-deep K block; at N = 7168, with the L2 writing back the
/// dirty lines it evicts, more than the DRAM gives, while groups of 8 pair
/// rows stream a third of it per round. Measured bounds: 4096 row-major
/// faster, 7168 slower (H100, twenty-second session). Masked pairs walk
/// their bands inside each group since the twenty-eighth session (the
/// default clamped to a group's pair rows); these choices were still the
/// best measured or equal at 6 x 1024 (N = 6144, K = 7168), 16 x 384,
/// 2 x 512 and 4 x 256 rows (docs/PERF.md). At 8 x 640 rows, N = 4096,
/// K = 7168 (B 29 MB, one group's fits, two do not) groups of 3-16 pair
/// rows ran 1.7-2.1% faster than row-major (thirty-first session).
inline constexpr int64_t kRowMajorMaxN = 4096;

uint32_t chooseRasterGroup(const KernelMeta &meta, int64_t n, int64_t k,
                           int64_t groups, int64_t rowsPerGroup,
                           int64_t l2Bytes);

/// What a dense kernel's epilogue does at a launch, which the configuration
/// choice weighs.
enum class DenseEpilogue {
  kStore,      ///< writes D (the 1D2D recipe)
  kReadAddend, ///< reads C apart from D, then writes D (1D1D)
  kAccumulate, ///< adds into D by TMA reduce-add (1D1D with C = D)
};

/// One kernel's place in the dense choice (rankDenseKernels), with the terms
/// it was ranked by, in the order they count.
struct DenseCandidate {
  size_t index = 0; ///< into the kernels ranked
  /// Why it comes after every kernel without such a reason (null: none; the
  /// first of several).
  const char *demotedBy = nullptr;
  /// Its tile is at least half empty at this M (a 128-row or taller tile
  /// for M <= 64): after every tile that is not.
  bool wastedRows = false;
  /// The estimated time in the model's units (waves x a CTA's work per K
  /// block / its tile's rate, with the schedule's factors).
  double estimate = 0;
  /// The estimate is the floor of the A-scale reads at a few rows
  /// (kScaleRowHotSpotMaxM), not the tiles' rate.
  bool scaleReadFloor = false;
  int64_t tiles = 0, waves = 0; ///< tiles launched (with K-split CTAs: waves)
};

/// The kernels of `kernels` that run N and K (those specialized for another
/// N or K are left out), best first, for an M x N x K problem on a device
/// with `smCount` SMs. Preference: no demotion (K-split kernels only where K
/// repays their shares, stream-K only where its model was measured, 64x48
/// only from kNarrowTileMinM rows), no half-empty tile, then the shortest
/// estimated time (waves of tiles over the SMs, the tile's rate, the grid's
/// schedule), then the plain grid, wider block_n, a kernel specialized for
/// this N/K over the generic one of its configuration, and more stages.
std::vector<DenseCandidate>
rankDenseKernels(const std::vector<KernelMeta> &kernels, int64_t m, int64_t n,
                 int64_t k, int smCount,
                 DenseEpilogue epilogue = DenseEpilogue::kStore);

/// Index into `kernels` of the kernel to run an M x N x K problem on
/// (rankDenseKernels' first), or an error naming what was loaded.
Expected<size_t>
selectDenseKernel(const std::vector<KernelMeta> &kernels, int64_t m, int64_t n,
                  int64_t k, int smCount,
                  DenseEpilogue epilogue = DenseEpilogue::kStore);

/// The NAMEs of the NAME.cubin + NAME.meta pairs in `directory`, sorted; an
/// error for an unreadable directory, a file without its pair, or no pairs.
Expected<std::vector<std::string>>
listKernelDirectory(const std::string &directory);

/// The descriptions of `directory`'s kernels of `recipe`'s variant (each
/// checked against the recipe's contract), with their NAMEs; the other
/// variants' .meta files are listed as skipped. An error names the file.
struct DenseKernelDescriptions {
  std::vector<std::string> stems;
  std::vector<KernelMeta> metas;
  std::vector<std::string> skippedFiles;
};
Expected<DenseKernelDescriptions>
readDenseKernelDescriptions(const std::string &directory, DenseRecipe recipe);

/// The epilogue selectDenseKernel plans for: the 1D1D recipe reads C apart
/// from D, or accumulates into D in place; the others store D.
inline DenseEpilogue denseEpilogue(DenseRecipe recipe, bool accumulateInPlace) {
  if (recipe != DenseRecipe::k1D1D)
    return DenseEpilogue::kStore;
  return accumulateInPlace ? DenseEpilogue::kAccumulate
                           : DenseEpilogue::kReadAddend;
}

/// What the configuration choice needs to know of a kernel not made yet
/// (an on-demand context's stub description).
KernelMeta configurationStub(std::string kernel, std::string variant,
                             const DenseConfiguration &config);

/// Launches `launch`, prepared for kernel `index` of `kernels`, on `stream`
/// (nothing for an empty launch); an index past them or a kernel not made
/// yet is an error.
Status launchPrepared(const std::vector<std::optional<Kernel>> &kernels,
                      size_t index, const PreparedLaunch &launch,
                      CUstream stream);

/// Makes on-demand kernel `kernel` once (`mutex` guards the making): asks
/// `provide` for BASE (BASE.cubin + BASE.meta), whose description must pass
/// `check` and be the requested `config` (`what` names it in errors), loads it
/// into the current context and replaces the stub `meta`.
Status
makeOnDemandKernel(std::optional<Kernel> &kernel, KernelMeta &meta,
                   std::mutex &mutex,
                   const std::function<Expected<std::string>()> &provide,
                   const DenseConfiguration &config,
                   const std::function<Status(const KernelMeta &)> &check,
                   const std::string &what);

/// Kernels of an on-demand context made for one N and K each (compiled in):
/// one per (configuration index, N, K), made on first use. Slots stay where
/// they are, so prepared launches keep pointers to their kernels.
class SpecializedKernels {
public:
  /// The kernel of `config` (configuration `index`, generic) for N = n, K =
  /// k: asks `provide` for it once (under `makeMutex`); its description must
  /// pass `check`. `variant` names the kernel's variant in its stub. Null
  /// when it could not be made (ptxas spilled registers for some N and K
  /// where the generic kernel fits): the caller runs the generic kernel, and
  /// the failure is remembered, not retried.
  /// In the background (setBackground): the first call starts `provide` on
  /// another thread and returns null with `*pending` set, as does every call
  /// until it has answered; the call that finds the answer loads the kernel
  /// (in the calling thread's context) and returns it. `provide` must then
  /// be safe to call from another thread and is copied there.
  const Kernel *
  get(size_t index, int64_t n, int64_t k, DenseConfiguration config,
      const std::string &variant, std::mutex &makeMutex,
      const std::function<Expected<std::string>(const DenseConfiguration &)>
          &provide,
      const std::function<Status(const KernelMeta &)> &check,
      bool *pending = nullptr);
  /// Makes specialized kernels on another thread while the caller runs the
  /// generic kernel of the configuration, instead of making the call wait
  /// for the compile. Set before the first GEMM.
  void setBackground(bool on) { background = on; }
  /// specializeShapes' refusal for a context that loaded a kernel directory.
  static Status needsOnDemand(bool onDemand);

private:
  struct Slot {
    KernelMeta meta;
    std::optional<Kernel> kernel;
    /// &*kernel once made (a call then takes no lock), or set `failed`.
    std::atomic<const Kernel *> ready{nullptr};
    std::atomic<bool> failed{false};
    /// In the background: the provider's answer, on its way once valid
    /// (guarded by `mutex`). The last copy's destructor waits for the
    /// compile, so a context outlives the threads it started.
    std::shared_future<Expected<std::string>> answer;
  };
  bool background = false;
  std::mutex mutex; ///< guards the map and the answers, not the making
  std::map<std::tuple<size_t, int64_t, int64_t>, std::unique_ptr<Slot>> slots;
};

/// The dense GEMM over a directory of compiled kernels.
class DenseGemm {
public:
  /// Loads every NAME.cubin whose NAME.meta describes a kernel of `recipe`
  /// in `directory` into the calling thread's current context, whose device
  /// must be sm_90. Kernels of other variants are skipped.
  static Expected<DenseGemm> create(const std::string &directory,
                                    DenseRecipe recipe = DenseRecipe::k1D2D);

  /// Turns a configuration into BASE (BASE.cubin + BASE.meta of a dense
  /// kernel), e.g. by compiling it into the kernel cache (lib/Jit).
  using KernelProvider =
      std::function<Expected<std::string>(const DenseConfiguration &)>;
  /// Kernels made on first use: the configuration choice picks among
  /// `configs`, and the first launch of one asks `provider` for it and loads
  /// it into the calling thread's current context (which must be sm_90).
  static Expected<DenseGemm>
  createOnDemand(std::vector<DenseConfiguration> configs,
                 KernelProvider provider,
                 DenseRecipe recipe = DenseRecipe::k1D2D);

  /// Validates, selects a kernel, encodes the descriptors and launches on
  /// `stream`. M == 0 or N == 0 returns success without launching. The
  /// prepared launches of the last few problems (pointers and shape) are
  /// kept, so a repeated call only launches.
  Status run(const DenseGemmProblem &problem, CUstream stream) const;
  /// run() of the 1D2D recipe's problem D = A B^T.
  Status run(CUdeviceptr a, CUdeviceptr sfa, CUdeviceptr b, CUdeviceptr sfb,
             CUdeviceptr d, int64_t m, int64_t n, int64_t k,
             CUstream stream) const;
  DenseRecipe recipe() const { return recipeServed; }

  /// Everything run() does before the launch, kept so a benchmark can time
  /// the launch alone.
  struct Prepared {
    PreparedLaunch launch; ///< `launch.empty`: nothing to launch
    size_t kernel = 0;     ///< index into kernels()
    /// With specializeShapes: the kernel made from kernels()[kernel] for the
    /// problem's N and K, which the launch runs.
    const Kernel *specialized = nullptr;
    /// The generic kernel stands in while the specialized one is made in
    /// the background: run() does not keep this launch for the problem.
    bool provisional = false;
  };
  Expected<Prepared> prepare(const DenseGemmProblem &problem) const;
  Status launch(const Prepared &prepared, CUstream stream) const;

  const std::vector<KernelMeta> &kernels() const { return metas; }
  /// The cubin file of kernel `index` ("" while an on-demand kernel is not
  /// made yet).
  std::string kernelPath(size_t index) const {
    return loaded[index] ? loaded[index]->path() : std::string();
  }
  /// The .meta files of other variants that create() skipped.
  const std::vector<std::string> &skipped() const { return skippedFiles; }
  const DeviceInfo &device() const { return deviceInfo; }
  /// On-demand contexts only: from now on each configuration the choice
  /// picks is made for the call's N and K, compiled in (the provider gets
  /// fixedN / fixedK; DeepGEMM's JIT does the same), once per (configuration,
  /// N, K). For providers that compile (lib/Jit); call it before the first
  /// GEMM. `background`: a call whose specialized kernel is not made yet
  /// runs the generic one and the specialized one is compiled on another
  /// thread (SpecializedKernels::setBackground); later calls pick it up.
  Status specializeShapes(bool on, bool background = false);
  /// Caps the SMs the configuration choice and persistent grids plan for
  /// (DeepGEMM's set_num_sms); 0 = all. Values above the device's count
  /// are refused.
  Status setSmLimit(int sms);
  /// The SMs launches plan for.
  int smCount() const { return smLimit > 0 ? smLimit : deviceInfo.smCount; }
  /// Makes launches of kernels with a raster_group parameter pass `group`
  /// (1 = row-major) instead of chooseRasterGroup's choice; 0 restores the
  /// choice. For tuning and benchmarks (fgemm-bench --raster-group).
  void setRasterGroup(uint32_t group);
  /// Problems of exactly M x N x K run kernel `kernel` (the NAME of its
  /// NAME.cubin; on-demand contexts: the configuration's stem) instead of
  /// the configuration choice's; "" restores the choice. create() applies
  /// the entries of the directory's fgemm-tuning.txt (Runtime/Tuning.h) for
  /// the context's variant; fgemm-bench --autotune writes them. Refused for
  /// a kernel not loaded or compiled for another N or K. Not to be called
  /// while another thread runs a GEMM on the context.
  Status setTunedKernel(int64_t m, int64_t n, int64_t k,
                        const std::string &kernel);
  /// The name setTunedKernel takes for kernels()[index].
  const std::string &kernelName(size_t index) const { return stems[index]; }

private:
  DenseGemm(DeviceInfo device, DenseRecipe recipe)
      : deviceInfo(std::move(device)), recipeServed(recipe),
        recent(std::make_unique<RecentLaunches>()) {}

  /// Prepared launches of recent problems, newest last.
  struct RecentLaunches {
    static constexpr size_t kCapacity = 16;
    std::mutex mutex;
    std::vector<std::pair<DenseGemmProblem, Prepared>> entries;
  };

  DeviceInfo deviceInfo;
  DenseRecipe recipeServed;
  int smLimit = 0;
  uint32_t rasterOverride = 0;
  /// Loads on-demand kernel `index` if it is not loaded yet.
  Status ensureLoaded(size_t index) const;

  /// For selectDenseKernel: loaded[i]'s description, or for an on-demand
  /// kernel not made yet one with the fields the choice reads.
  mutable std::vector<KernelMeta> metas;
  mutable std::vector<std::optional<Kernel>> loaded;
  /// Set by createOnDemand.
  struct OnDemand {
    std::vector<DenseConfiguration> configs;
    KernelProvider provider;
    std::mutex mutex;
    /// specializeShapes: kernels made per (configuration, N, K).
    bool specialize = false;
    SpecializedKernels specialized;
  };
  std::unique_ptr<OnDemand> onDemand;
  std::vector<std::string> skippedFiles;
  std::unique_ptr<RecentLaunches> recent;
  /// The NAME of each kernel's NAME.cubin (on-demand: the configuration's
  /// stem), parallel to `metas`.
  std::vector<std::string> stems;
  /// setTunedKernel's choices: (M, N, K) -> index into `metas`.
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> tuned;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_GEMM_H
