//===- Gemm.cpp - The dense FP8 GEMM entry point ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Gemm.h"
#include "Runtime/Tuning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

using namespace fgemm;

Status fgemm::validateDenseGemmShape(int64_t m, int64_t n, int64_t k) {
  const std::pair<const char *, int64_t> dims[] = {
      {"M", m}, {"N", n}, {"K", k}};
  for (const auto &[name, value] : dims) {
    if (value < 0)
      return Status::error(std::string(name) + " = " + std::to_string(value) +
                           " is negative (M, N and K must be >= 0)");
    if (value > kMaxGemmDim)
      return Status::error(
          std::string(name) + " = " + std::to_string(value) +
          " is too large (at most 2^31-1 = " + std::to_string(kMaxGemmDim) +
          ": TMA coordinates are 32-bit)");
  }
  if (n % 8 != 0)
    return Status::error("N = " + std::to_string(n) +
                         " is not a multiple of 8 (D's bf16 rows must be a "
                         "multiple of 16 bytes for TMA; allowed: N % 8 == 0)");
  if (k == 0)
    return Status::error("K = 0: nothing to reduce over (allowed: K > 0, "
                         "K % 16 == 0)");
  if (k % 16 != 0)
    return Status::error("K = " + std::to_string(k) +
                         " is not a multiple of 16 (A's and B's e4m3 rows "
                         "must be a multiple of 16 bytes for TMA; allowed: "
                         "K % 16 == 0)");
  return Status::success();
}

double fgemm::estimateTileRate(uint32_t blockM, uint32_t blockN) {
  // rate = a * bn / (bn + c) (TFLOPS per SM): two math warpgroups (block_m
  // 128) issue twice the WGMMA work, and wider tiles amortize the loads and
  // the promotion. 128 rows: fitted to the per-configuration table of
  // docs/PERF.md (H100). 64 rows: refitted on the H200 once their K loops
  // had shed their per-block address work (aligned trips, 64x64 with 12
  // stages): with 3.91 and 29 the model ranked 128x32 above 64x64 at one
  // wave of equal tiles (80-128 x 4096 x 7168), where 64x64 measured 13.4-14.0
  // us against 13.8-16.8 (docs/PERF.md, fortieth session). a and c sit on
  // the ridge of least regret over that grid (36 shapes, every kernel for
  // M <= 320 timed) and the thirty-seventh session's 96 shapes.
  double a = blockM >= 128 ? 10.57 : 7.5, c = blockM >= 128 ? 63.6 : 90.0;
  // 128x32 (two warpgroups of m64n32 wgmmas, each reading as much A from
  // shared memory per wgmma as a wider tile does) ran 1.2x the curve's time
  // on that grid.
  if (blockM == 128 && blockN <= 32)
    a /= 1.2;
  // 256-row tiles (two m64 waves per warpgroup) read each B tile for twice
  // the rows: 1.13x the 128-row rate (H100, 256x128 against 128x128 at
  // 4096x7168x16384 and 4096x4096x7168, same number of tile-waves;
  // docs/PERF.md).
  if (blockM >= 256)
    a *= 1.13;
  // 192-row tiles (three math warpgroups of one m64 wave: while one
  // promotes, two have wgmmas queued) ran 1.033-1.036x the 256x128 pairs'
  // rate per tile-wave at M = 3072 and 6144, N = 7168, K = 16384, where
  // both tile heights divide M (H200, docs/PERF.md, thirty-fifth session).
  if (blockM == 192)
    a *= 1.13 * 1.034;
  // 256-column tiles (wider than the compiler's one-group limit of 192: two
  // 128-column groups per wave, sharing its A rows) ran as fast as 256x128
  // at K = 7168 and 16384 (H100, docs/PERF.md, thirty-third session): the
  // same rate.
  if (blockN > 192)
    return estimateTileRate(2 * blockM, blockN / 2);
  return straddlePenalty(blockN) * a * blockN / (blockN + c);
}

double fgemm::straddlePenalty(uint32_t blockN) {
  // Tiles narrower than a 128-column B-scale block that straddle two: 128x96
  // measured 10-14% under the curve, also with one K loop per offset of the
  // tile in its block. 128x192 tiles ran 10% under it while each fragment
  // selected its scale in the loop, and on it since (H100, docs/PERF.md).
  return blockN < 128 && 128 % blockN != 0 ? 0.9 : 1.0;
}

std::string DenseConfiguration::stem() const {
  return "bm" + std::to_string(blockM) + "_bn" + std::to_string(blockN) +
         (streamK      ? "_stream_k"
          : persistent ? "_persistent"
                       : "_plain") +
         (cluster > 1
              ? "_cluster" + std::to_string(cluster) + (multicastB ? "b" : "")
              : std::string()) +
         (kSplit > 1 ? "_ksplit" + std::to_string(kSplit) : std::string()) +
         (fixedN ? "_n" + std::to_string(fixedN) : std::string()) +
         (fixedK ? "_k" + std::to_string(fixedK) : std::string());
}

bool DenseConfiguration::couplesMathWarpgroups() const {
  if (!persistent || streamK || cluster != 2)
    return false;
  if (blockM == 256 && blockN == 128 && !multicastB)
    return fixedK >= kCoupledMathWarpgroupsMinK;
  if (blockM == 128 && blockN == 256 && multicastB)
    return fixedK >= kCoupledPairsSharingBMinK;
  return false;
}

const char *fgemm::denseVariant(DenseRecipe recipe) {
  switch (recipe) {
  case DenseRecipe::k1D2D:
    return "dense";
  case DenseRecipe::k1D1D:
    return "dense_1d1d";
  case DenseRecipe::kBias1D2D:
    return "dense_bias";
  case DenseRecipe::kPerTensor:
    return "dense_per_tensor";
  case DenseRecipe::kE5M2xE4M3:
    return "dense_e5m2_e4m3";
  case DenseRecipe::kE4M3xE5M2:
    return "dense_e4m3_e5m2";
  }
  return "dense";
}

const std::vector<DenseConfiguration> &
fgemm::denseConfigurationSet(DenseRecipe recipe) {
  // f32 staging of a 128 x 128 tile is 64 KiB: 4 stages fit beside it, and
  // 256 x 128 would keep 2 (and spills).
  // 64x64 persistent: in place at M = 64 and K <= 2048, 0.74-0.96x the
  // plain grids' time (H100, docs/PERF.md).
  static const std::vector<DenseConfiguration> f32Set = {
      {128, 128, false, 16}, {128, 128, true, 0}, {128, 64, false, 16},
      {128, 32, false, 16},  {64, 128, false, 0}, {64, 64, false, 0},
      {64, 64, true, 0},     {64, 32, false, 0},  {64, 16, false, 0}};
  if (recipe == DenseRecipe::k1D1D)
    return f32Set;
  // The bias, per-tensor and e5m2 recipes have the 1D2D kernel's main loop
  // and bf16 output, so they share its set.
  // 256- and 128-row plain grids walk raster groups of 8 and 16 tile rows
  // (2048 rows of A either way), the 256-row persistent grid groups of 8;
  // measured on the H100 (docs/PERF.md). The 256x128 and 192x128 pairs
  // sharing A walk groups of 8 pair columns (the schedule's order for
  // A-sharing clusters): the best of 4-16 on the H200 (forty-first session).
  // 64x64 walks raster groups of 16: at M = 128 the two row tiles that share
  // a B tile then run on consecutive CTAs, as in DeepGEMM's scheduler (14.4
  // against 16.9 us row-major at 128x4096x7168, H200, docs/PERF.md).
  // 128x32: one wave of 128 tiles at M = 128, N = 4096 with two math
  // warpgroups per SM had won on the H100 (15.3 us at 128x4096x7168 against
  // 17.6 with 64x64); since the fortieth session's refit the model ranks it
  // below 64x64 at every swept shape (64x64 13.0 us there on the H200), and
  // it stays for the autotuner (11.7 against 12.1 us at 512x1024x4096) and
  // as the K-split pairs' tile.
  // 128x192 persistent in clusters of two sharing B (pairs of M tiles):
  // DeepGEMM's choice at 4096x2112x7168; the plain grid stays for M <= 128,
  // where a pair would compute an M tile past the output.
  // 256x128 persistent in clusters of two sharing A (pairs of N tiles, as
  // DeepGEMM at M = 4096): 0.6-2.7% faster than the persistent grid alone
  // and 1-38% faster than the plain grid on the six M = 4096 shapes it runs
  // (H100, docs/PERF.md, 2026-11-25), so it replaced the persistent grid.
  // Compiled for a K of at least kCoupledMathWarpgroupsMinK they couple
  // their math warpgroups (DenseConfiguration::couplesMathWarpgroups).
  // M <= 64 at N >= 24576, K <= 1536 (H200, ncu, docs/PERF.md 2026-11-26):
  // one wave of 64x192 tiles ran 64x24576x1536 in 13.5 us against 16.2 for
  // three waves of 64x64; 64x128 persistent ran 64x32768x512 in 9.0 us
  // against 9.7 for the plain grid's two waves.
  // K-split pairs (a cluster of two CTAs per tile, each half of its K
  // blocks): where the unsplit grid leaves SMs idle or runs one long chain
  // per SM at long K: 128x32 pairs ran 128x2112x7168 in 11.5 us against
  // 12.6 for 64x32, 64x32 pairs 64x2112x7168 in 10.6 against 11.2 for 64x16
  // (H100, docs/PERF.md, 2026-11-26 thirteenth session).
  // The 128x128 and 64x128 persistent grids (short tiles at M <= 128) load
  // each tile's first B scales during the tile before: 4.9% and 1.0%
  // faster at 128x32768x512 and 64x32768x512 in this set's choice (H100,
  // docs/PERF.md, fifteenth session, item 5). The 256x128 pairs too, now
  // that the next tile's order and scales are computed under the tile's
  // first wgmmas and carried (the order had been recomputed at each tile's
  // top, and the pairs lost with it): 0.98-1.00x the time on the M = 4096
  // shapes (H100, docs/PERF.md, 2026-11-27 twenty-fifth session).
  // 128x256 persistent (two 128-column wgmma groups per warpgroup sharing
  // A): 1.4% and 5% faster than the 256x128 pairs at 4096x24576x1536 and
  // 4096x32768x512, alike at K = 2048-16384 (H100, docs/PERF.md,
  // thirty-third session); its estimate equals theirs, so it takes the
  // shapes where the pairs had no edge (K <= 4096, ties go to the wider).
  // 192x128 persistent in clusters of two sharing A (three math
  // warpgroups): 0.965-0.979x the 256x128 pairs' time where 192 divides M
  // (3072 and 6144 rows at K = 7168-16384), 1.03-1.09x at M = 4096, N =
  // 4096-7168 where its last row tile is a third empty and its waves end
  // worse (H200, docs/PERF.md, thirty-fifth session); the wave count
  // decides, with a cost for a partly empty last row tile
  // (kPartialThreeWarpgroupTileCost).
  // 64x48 (15 stages): one wave of a third more CTAs where 64x64 leaves
  // SMs idle and 64x32 takes two waves, as DeepGEMM picks at 192 x 2112 x
  // 7168 (3 x 44 = 132 tiles against 99 of 64x64: 0.956x the time; H200,
  // docs/PERF.md, forty-fifth session); not at fewer than kNarrowTileMinM
  // rows.
  // 128x192 pairs sharing B with stream-K (the last round of cluster units
  // split along K): 0.842x the persistent pairs' time at 2048x2112x7168
  // (1.33 rounds), 1.254x DeepGEMM's speed there; chosen only where its
  // model was measured (kStreamKMaxTail; H200, docs/PERF.md, thirty-sixth
  // session). Row-major: the persistent pairs' launch raster chooses it at
  // N <= 4096, and with stream-K the launch parameter spills.
  static const std::vector<DenseConfiguration> set = {
      {256, 128, false, 8},
      {192, 128, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/false, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/true},
      {128, 256, true, 16, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/1,
       /*multicastB=*/false, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/true},
      {256, 128, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/false, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/true},
      {128, 192, false, 16},
      {128, 192, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 192, true, 1, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/false, /*streamK=*/true},
      {128, 128, false, 16},
      {128, 128, true, 0, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/1,
       /*multicastB=*/false, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/true},
      {128, 96, false, 16},
      {128, 96, true, 0},
      {128, 64, false, 16},
      {128, 32, false, 16},
      {64, 192, false, 0},
      {64, 128, false, 0},
      {64, 128, true, 0, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/1,
       /*multicastB=*/false, /*kSplit=*/1, /*launchRaster=*/false,
       /*prefetchScales=*/true},
      {64, 64, false, 16},
      {64, 48, false, 16},
      {64, 32, false, 0},
      {64, 16, false, 0},
      {128, 32, false, 16, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/1,
       /*multicastB=*/false, /*kSplit=*/2},
      {64, 32, false, 0, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/1,
       /*multicastB=*/false, /*kSplit=*/2}};
  return set;
}

int64_t fgemm::launchedTiles(const KernelMeta &meta, int64_t tilesM,
                             int64_t tilesN) {
  if (meta.cluster <= 1)
    return tilesM * tilesN;
  int64_t &split = meta.clusterAlongM() ? tilesM : tilesN;
  split = ceilDiv(split, int64_t(meta.cluster)) * int64_t(meta.cluster);
  return tilesM * tilesN;
}

uint32_t fgemm::chooseRasterGroup(const KernelMeta &meta, int64_t n, int64_t k,
                                  int64_t groups, int64_t rowsPerGroup,
                                  int64_t l2Bytes) {
  auto raster =
      std::find_if(meta.params.begin(), meta.params.end(), [](const auto &p) {
        return p.kind == KernelParam::Kind::RasterGroup;
      });
  if (raster == meta.params.end() || !meta.clusterAlongM() || l2Bytes <= 0)
    return 0;
  // B is FP8: N x K bytes per group; it fits while it takes at most 60% of
  // the L2.
  auto fits = [&](int64_t bytes) { return 5 * bytes <= 3 * l2Bytes; };
  if (groups == 1)
    return fits(n * k) && n <= kRowMajorMaxN ? 1 : 0;
  if (rowsPerGroup <= 0)
    return 0;
  int64_t unitsPerGroup =
      ceilDiv(rowsPerGroup, int64_t(meta.blockM) * meta.cluster);
  // One band of the default order holds every group's pairs: keep it.
  if (groups * unitsPerGroup <= int64_t(raster->defaultRasterGroup))
    return 0;
  // Row-major reuses a group's B a pair row later, and a round of tiles
  // that crosses into the next group holds two groups' B.
  return fits(2 * n * k) || unitsPerGroup <= 1 ? 1 : 0;
}

namespace {
/// The dense choice's lexicographic cost of a kernel; the smallest wins and
/// the index breaks ties.
using DenseCost =
    std::tuple<int, int, int64_t, int, int64_t, int, int64_t, size_t>;
} // namespace

/// Kernel `i`'s place in the dense choice (rankDenseKernels), or nothing
/// where it does not run N and K. No allocation: selectDenseKernel runs it
/// on every launch the recent-launch cache misses.
static std::optional<std::pair<DenseCost, DenseCandidate>>
rankDenseKernel(const KernelMeta &meta, size_t i, int64_t m, int64_t n,
                int64_t k, int64_t sms, DenseEpilogue epilogue) {
  if (!meta.runsNK(n, k))
    return std::nullopt;
  // A tile at least half empty computes the empty rows while streaming the
  // same B: for M <= 64 the 64-row kernels measured faster than the
  // 128-row ones on every such shape.
  int wastedRows = meta.blockM > 64 && 2 * m <= meta.blockM ? 1 : 0;
  int64_t tiles =
      launchedTiles(meta, ceilDiv(std::max<int64_t>(m, 1), meta.blockM),
                    ceilDiv(std::max<int64_t>(n, 1), meta.blockN));
  int64_t waves = ceilDiv(tiles * meta.kSplit, sms);
  DenseCandidate candidate;
  candidate.index = i;
  candidate.wastedRows = wastedRows != 0;
  candidate.tiles = tiles;
  candidate.waves = waves;
  // Estimated time: waves x one CTA's work / the rate an SM sustains on
  // that tile shape (estimateTileRate, fitted to H100 measurements); a
  // K-split CTA runs a share of its tile, at a measured cost.
  double time = double(waves) * meta.blockM * meta.blockN /
                estimateTileRate(meta.blockM, meta.blockN);
  if (meta.kSplit > 1)
    time *= kKSplitShareCost / meta.kSplit;
  // Stream-K: whole rounds plus the split last round's cost, where the
  // model was measured to hold (kStreamKMaxTail); elsewhere it comes after
  // every other kernel. Its tile order is row-major, which the persistent
  // pairs' launch raster picks only up to N = kRowMajorMaxN (a wider B
  // would stream from DRAM once per row of units).
  double rounds = double(tiles) / double(sms);
  double wholeRounds = std::floor(rounds), lastRound = rounds - wholeRounds;
  bool streamKFits = wholeRounds >= 1 && lastRound > 0 &&
                     lastRound <= kStreamKMaxTail && k >= kStreamKMinK &&
                     n <= kRowMajorMaxN;
  if (meta.streamK() && streamKFits)
    time *= kStreamKOverhead * (wholeRounds + kStreamKTailCost * lastRound) /
            double(waves);
  // At a few rows every tile's A-scale reads of a K block go to the same
  // L2 lines (kScaleRowHotSpotMaxM): the launch takes at least its tiles'
  // reads at the rate the L2 serves them; a cluster sharing A reads them
  // once per pair. The per-tensor recipe reads no A scales per block.
  if (m <= kScaleRowHotSpotMaxM &&
      meta.variant != denseVariant(DenseRecipe::kPerTensor)) {
    int64_t readers = meta.cluster > 1 && !meta.clusterAlongM()
                          ? tiles / meta.cluster
                          : tiles;
    double floor = double(readers) * kScaleRowReadCostPerTile;
    candidate.scaleReadFloor = floor > time;
    time = std::max(time, floor);
  }
  // 192-row tiles whose last row tile M leaves partly empty.
  if (meta.blockM == 192 && m % meta.blockM != 0)
    time *= kPartialThreeWarpgroupTileCost;
  // A persistent CTA overlaps a tile's epilogue with the next tile's loads:
  // measured 1.2x faster at K <= 2048 with several tiles per CTA, 5% slower
  // at K >= 7168 (docs/PERF.md). In clusters of two the persistent grid
  // also wins at long K: 128x192 pairs sharing B 1.4-4.6% faster than the
  // plain grid at M = 4096 at every K (2026-11-24); 256x128 pairs sharing
  // A 2.7-3.8% at K = 7168 and 16384, and at K <= 2048 as much as the
  // persistent grid alone (2026-11-25; H100, docs/PERF.md); the 128x192
  // pairs too from K > kPairsSharingBMinOverlapK (H200, thirty-seventh
  // session).
  // With the 1D1D recipe's FP32 output (H100, docs/PERF.md 2026-11-24,
  // 128 x 128 at M = 4096): reading C apart from D, the tile loop waits
  // for C's loads (1.0-1.45x the plain grid's time, which prefetches C);
  // accumulating in place by reduce-add, persistent grids ran 0.86-1.0x
  // the plain grid's time up to K = 7168 (1.24x at K = 512, 1.02x at
  // K = 16384).
  bool overlapsShortK =
      k <= 4096 && (!meta.clusterAlongM() || k > kPairsSharingBMinOverlapK);
  if (meta.persistent() && meta.cluster > 1 && waves > 1)
    time *= overlapsShortK ? 1.0 / 1.2 : 0.97;
  else if (meta.persistent() && waves > 1 &&
           epilogue == DenseEpilogue::kReadAddend)
    time *= 1.3;
  else if (meta.persistent() && waves > 1 &&
           epilogue == DenseEpilogue::kAccumulate)
    time *= k <= 8192 ? 1.0 / 1.1 : 1.02;
  else if (meta.persistent() && waves > 1)
    time *= k <= 4096 ? 1.0 / 1.2 : 1.05;
  int isPersistent =
      meta.persistent() ? 1 : 0; // equal estimates: the simpler grid
  // A kernel specialized for the call's N and K wins over the generic
  // one of its configuration, not over a better configuration: the
  // specialized set may hold configurations chosen for other M (at
  // 4096x32768x512 the 128x128 kernel made for M = 128 ran 145.6 us
  // against 134.6 for the generic 256x128 pairs; H200, docs/PERF.md).
  // A K-split kernel at a K too short to repay its shares' meeting comes
  // after every other.
  int shortSplit = meta.kSplit > 1 && k < kKSplitMinK ? 1 : 0;
  int streamKOff = meta.streamK() && !streamKFits ? 1 : 0;
  // 64x48 tiles at a few rows come after every other (kNarrowTileMinM).
  int narrowAtFewRows =
      meta.blockM == 64 && meta.blockN == 48 && m < kNarrowTileMinM ? 1 : 0;
  candidate.demotedBy =
      shortSplit        ? "K-split at a K too short to repay its shares"
      : streamKOff      ? "stream-K where its model was not measured"
      : narrowAtFewRows ? "64x48 below kNarrowTileMinM rows"
                        : nullptr;
  candidate.estimate = time;
  DenseCost cost{shortSplit + streamKOff + narrowAtFewRows,
                 wastedRows,
                 int64_t(time * 1000),
                 isPersistent,
                 -int64_t(meta.blockN),
                 meta.genericDims(),
                 -int64_t(meta.stages),
                 i};
  return std::pair{cost, candidate};
}

std::vector<DenseCandidate>
fgemm::rankDenseKernels(const std::vector<KernelMeta> &kernels, int64_t m,
                        int64_t n, int64_t k, int smCount,
                        DenseEpilogue epilogue) {
  const int64_t sms = std::max(smCount, 1);
  std::vector<std::pair<DenseCost, DenseCandidate>> ranked;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (auto entry = rankDenseKernel(kernels[i], i, m, n, k, sms, epilogue))
      ranked.push_back(*entry);
  std::sort(ranked.begin(), ranked.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<DenseCandidate> candidates;
  for (const auto &entry : ranked)
    candidates.push_back(entry.second);
  return candidates;
}

Expected<size_t>
fgemm::selectDenseKernel(const std::vector<KernelMeta> &kernels, int64_t m,
                         int64_t n, int64_t k, int smCount,
                         DenseEpilogue epilogue) {
  if (kernels.empty())
    return Status::error("no kernels loaded");
  const int64_t sms = std::max(smCount, 1);
  std::optional<std::pair<DenseCost, DenseCandidate>> best;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (auto entry = rankDenseKernel(kernels[i], i, m, n, k, sms, epilogue);
        entry && (!best || entry->first < best->first))
      best = entry;
  if (best)
    return best->second.index;
  std::string specialized;
  for (const KernelMeta &meta : kernels)
    specialized +=
        (specialized.empty() ? "" : ", ") + meta.kernel +
        " (N=" + (meta.fixedN ? std::to_string(meta.fixedN) : "any") +
        ", K=" + (meta.fixedK ? std::to_string(meta.fixedK) : "any") + ")";
  return Status::error("no loaded kernel accepts N = " + std::to_string(n) +
                       ", K = " + std::to_string(k) +
                       "; loaded: " + specialized);
}

//===----------------------------------------------------------------------===//
// The dense variant's contract
//===----------------------------------------------------------------------===//

/// A dense recipe's arguments as its description spells them (docs/ABI.md,
/// "The dense variants"), in order. DenseGemm's callers lay out their data
/// this way, so a kernel that describes them otherwise is refused.
struct DenseArgSpec {
  const char *name, *description;
};
static const std::vector<DenseArgSpec> &denseArgs(DenseRecipe recipe) {
  static const std::vector<DenseArgSpec> args1D2D = {
      {"A", "tensor e4m3 m,k"},
      {"B", "tensor e4m3 n,k"},
      {"SFA", "scales f32 m,k block=1x128 mn_major"},
      {"SFB", "scales f32 n,k block=128x128"},
      {"D", "tensor bf16 m,n"}};
  static const std::vector<DenseArgSpec> args1D1D = {
      {"A", "tensor e4m3 m,k"},
      {"B", "tensor e4m3 n,k"},
      {"SFA", "scales f32 m,k block=1x128 mn_major"},
      {"SFB", "scales f32 n,k block=1x128 mn_major"},
      {"C", "tensor f32 m,n"},
      {"D", "tensor f32 m,n"}};
  static const std::vector<DenseArgSpec> argsBias = {
      {"A", "tensor e4m3 m,k"},
      {"B", "tensor e4m3 n,k"},
      {"SFA", "scales f32 m,k block=1x128 mn_major"},
      {"SFB", "scales f32 n,k block=128x128"},
      {"BIAS", "tensor bf16 n"},
      {"D", "tensor bf16 m,n"}};
  static const std::vector<DenseArgSpec> argsE5M2 = {
      {"A", "tensor e5m2 m,k"},
      {"B", "tensor e4m3 n,k"},
      {"SFA", "scales f32 m,k block=1x128 mn_major"},
      {"SFB", "scales f32 n,k block=128x128"},
      {"D", "tensor bf16 m,n"}};
  static const std::vector<DenseArgSpec> argsE5M2B = {
      {"A", "tensor e4m3 m,k"},
      {"B", "tensor e5m2 n,k"},
      {"SFA", "scales f32 m,k block=1x128 mn_major"},
      {"SFB", "scales f32 n,k block=128x128"},
      {"D", "tensor bf16 m,n"}};
  static const std::vector<DenseArgSpec> argsPerTensor = {
      {"A", "tensor e4m3 m,k"},
      {"B", "tensor e4m3 n,k"},
      {"SFA", "scales f32 m,k per_tensor"},
      {"SFB", "scales f32 n,k per_tensor"},
      {"D", "tensor bf16 m,n"}};
  switch (recipe) {
  case DenseRecipe::k1D2D:
    return args1D2D;
  case DenseRecipe::k1D1D:
    return args1D1D;
  case DenseRecipe::kBias1D2D:
    return argsBias;
  case DenseRecipe::kPerTensor:
    return argsPerTensor;
  case DenseRecipe::kE5M2xE4M3:
    return argsE5M2;
  case DenseRecipe::kE4M3xE5M2:
    return argsE5M2B;
  }
  return args1D2D;
}

Status fgemm::checkDenseKernel(const KernelMeta &meta, DenseRecipe recipe) {
  const std::string variant = denseVariant(recipe);
  if (meta.variant != variant)
    return Status::error("variant='" + meta.variant + "' is not a " + variant +
                         " kernel");
  const std::vector<DenseArgSpec> &specs = denseArgs(recipe);
  if (meta.args.size() != specs.size()) {
    std::string names;
    for (const DenseArgSpec &spec : specs)
      names += (names.empty() ? "" : ", ") + std::string(spec.name);
    return Status::error("a " + variant + " kernel has " +
                         std::to_string(specs.size()) + " arguments (" + names +
                         "), this one " + std::to_string(meta.args.size()));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string arg = formatKernelArg(meta.args[i]);
    if (arg != specs[i].description)
      return Status::error("arg." + std::to_string(i) + " (" + specs[i].name +
                           ") is '" + arg + "' but a " + variant +
                           " kernel's is '" + specs[i].description +
                           "' (docs/ABI.md)");
  }
  // Bound by name, so their order (that of the dim parameters) is free.
  std::vector<std::string> dims = meta.dims;
  std::sort(dims.begin(), dims.end());
  if (dims != std::vector<std::string>{"k", "m", "n"}) {
    std::string list;
    for (const std::string &dim : meta.dims)
      list += (list.empty() ? "" : ",") + dim;
    return Status::error("a dense kernel's dims are m, n and k; this one's "
                         "are " +
                         list);
  }
  return Status::success();
}

KernelBindings fgemm::denseBindings(const DenseGemmProblem &problem,
                                    DenseRecipe recipe) {
  KernelBindings bindings;
  bindings.args = {problem.a, problem.b, problem.sfa, problem.sfb};
  if (recipe == DenseRecipe::k1D1D)
    bindings.args.push_back(problem.c);
  if (recipe == DenseRecipe::kBias1D2D)
    bindings.args.push_back(problem.bias);
  bindings.args.push_back(problem.d);
  bindings.dims = {{"m", problem.m}, {"n", problem.n}, {"k", problem.k}};
  for (const DenseArgSpec &spec : denseArgs(recipe))
    bindings.argNames.push_back(spec.name);
  return bindings;
}

//===----------------------------------------------------------------------===//
// DenseGemm
//===----------------------------------------------------------------------===//

Expected<std::vector<std::string>>
fgemm::listKernelDirectory(const std::string &directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error)
    return Status::error("cannot list kernel directory '" + directory +
                         "': " + error.message());
  std::set<std::string> cubins, metas;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error)
      break;
    const fs::path &path = it->path();
    if (path.extension() == ".cubin")
      cubins.insert(path.stem().string());
    else if (path.extension() == ".meta")
      metas.insert(path.stem().string());
  }
  if (error)
    return Status::error("cannot list kernel directory '" + directory +
                         "': " + error.message());
  for (const std::string &stem : metas)
    if (!cubins.count(stem))
      return Status::error("'" + directory + "/" + stem + ".meta' has no " +
                           stem + ".cubin beside it");
  for (const std::string &stem : cubins)
    if (!metas.count(stem))
      return Status::error("'" + directory + "/" + stem + ".cubin' has no " +
                           stem +
                           ".meta beside it (fgemmc --emit=cubin "
                           "writes both; remove stray cubins)");
  if (cubins.empty())
    return Status::error("no compiled kernels (NAME.cubin + NAME.meta) in '" +
                         directory +
                         "'; scripts/compile-kernels.sh writes them to "
                         "OUT/<kernel>/");
  return std::vector<std::string>(cubins.begin(), cubins.end());
}

Expected<DenseKernelDescriptions>
fgemm::readDenseKernelDescriptions(const std::string &directory,
                                   DenseRecipe recipe) {
  Expected<std::vector<std::string>> stems = listKernelDirectory(directory);
  if (!stems.ok())
    return stems.takeStatus();
  DenseKernelDescriptions found;
  const std::string variant = denseVariant(recipe);
  for (const std::string &stem : *stems) {
    std::string file =
        (std::filesystem::path(directory) / (stem + ".meta")).string();
    Expected<KernelMeta> meta = readKernelMeta(file);
    if (!meta.ok())
      return meta.takeStatus();
    // A directory may hold other variants' kernels too; they are not ours.
    if (meta->variant != variant) {
      found.skippedFiles.push_back(file);
      continue;
    }
    Status dense = checkDenseKernel(*meta, recipe);
    if (!dense.ok())
      return std::move(dense).withContext(file);
    found.metas.push_back(std::move(*meta));
    found.stems.push_back(stem);
  }
  return found;
}

Expected<DenseGemm> DenseGemm::create(const std::string &directory,
                                      DenseRecipe recipe) {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  const Driver &cu = **driver;
  Expected<DeviceInfo> device = currentHopperDevice(cu);
  if (!device.ok())
    return device.takeStatus();

  Expected<DenseKernelDescriptions> found =
      readDenseKernelDescriptions(directory, recipe);
  if (!found.ok())
    return found.takeStatus();
  namespace fs = std::filesystem;

  DenseGemm gemm(std::move(*device), recipe);
  const std::string variant = denseVariant(recipe);
  gemm.skippedFiles = std::move(found->skippedFiles);
  for (size_t i = 0; i < found->metas.size(); ++i) {
    std::string base = (fs::path(directory) / found->stems[i]).string();
    Expected<Kernel> kernel =
        Kernel::load(cu, base + ".cubin", found->metas[i]);
    if (!kernel.ok())
      return kernel.takeStatus();
    gemm.metas.push_back(std::move(found->metas[i]));
    gemm.loaded.emplace_back(std::move(*kernel));
    gemm.stems.push_back(found->stems[i]);
  }
  if (gemm.loaded.empty())
    return Status::error("no " + variant + " kernels in '" + directory + "' (" +
                         std::to_string(gemm.skippedFiles.size()) +
                         " kernel(s) of other variants)");
  std::string tuningPath = (fs::path(directory) / kTuningFileName).string();
  Expected<TunedChoices> tuning = TunedChoices::read(tuningPath);
  if (!tuning.ok())
    return tuning.takeStatus();
  for (const auto &[key, kernel] : tuning->entries()) {
    const auto &[entryVariant, m, n, k] = key;
    if (entryVariant != variant)
      continue; // another kind of kernel's entry
    Status applied = gemm.setTunedKernel(m, n, k, kernel);
    if (!applied.ok())
      return std::move(applied).withContext(
          tuningPath + ": " + entryVariant + " " + std::to_string(m) + " " +
          std::to_string(n) + " " + std::to_string(k) + " " + kernel);
  }
  return gemm;
}

Status DenseGemm::setTunedKernel(int64_t m, int64_t n, int64_t k,
                                 const std::string &kernel) {
  auto shape = std::make_tuple(m, n, k);
  if (kernel.empty()) {
    tuned.erase(shape);
  } else {
    auto found = std::find(stems.begin(), stems.end(), kernel);
    if (found == stems.end())
      return Status::error(std::string("no loaded ") +
                           denseVariant(recipeServed) + " kernel is named '" +
                           kernel +
                           "' (a tuned choice names the NAME of a NAME.cubin "
                           "of the kernel directory)");
    size_t index = size_t(found - stems.begin());
    const KernelMeta &meta = metas[index];
    if (!meta.runsNK(n, k))
      return Status::error(
          "kernel '" + kernel +
          "' is compiled for N = " + std::to_string(meta.fixedN) +
          ", K = " + std::to_string(meta.fixedK) + " (0: any) and " +
          "cannot run N = " + std::to_string(n) + ", K = " + std::to_string(k));
    tuned[shape] = index;
  }
  // Launches prepared before were prepared for the old choice.
  std::lock_guard<std::mutex> guard(recent->mutex);
  recent->entries.clear();
  return Status::success();
}

Expected<DenseGemm>
DenseGemm::createOnDemand(std::vector<DenseConfiguration> configs,
                          KernelProvider provider, DenseRecipe recipe) {
  if (configs.empty())
    return Status::error("no configurations to choose from");
  if (!provider)
    return Status::error("no kernel provider");
  Expected<DeviceInfo> device = currentHopperDevice();
  if (!device.ok())
    return device.takeStatus();
  DenseGemm gemm(std::move(*device), recipe);
  for (const DenseConfiguration &config : configs) {
    gemm.metas.push_back(
        configurationStub(config.stem(), denseVariant(recipe), config));
    gemm.loaded.emplace_back();
    gemm.stems.push_back(config.stem());
  }
  gemm.onDemand = std::make_unique<OnDemand>();
  gemm.onDemand->configs = std::move(configs);
  gemm.onDemand->provider = std::move(provider);
  return gemm;
}

KernelMeta fgemm::configurationStub(std::string kernel, std::string variant,
                                    const DenseConfiguration &config) {
  KernelMeta stub;
  stub.kernel = std::move(kernel);
  stub.variant = std::move(variant);
  stub.blockM = config.blockM;
  stub.blockN = config.blockN;
  stub.blockK = 128;
  stub.schedule = config.streamK      ? "stream_k"
                  : config.persistent ? "persistent"
                                      : "plain";
  stub.cluster = config.cluster;
  stub.kSplit = config.kSplit;
  // Grid x is the index a cluster splits (docs/ABI.md).
  TileFactor rows{"m", config.blockM}, columns{"n", config.blockN};
  stub.tiles = config.cluster > 1 && config.multicastB
                   ? std::vector<TileFactor>{rows, columns}
                   : std::vector<TileFactor>{columns, rows};
  stub.fixedN = config.fixedN;
  stub.fixedK = config.fixedK;
  return stub;
}

Status fgemm::makeOnDemandKernel(
    std::optional<Kernel> &kernel, KernelMeta &meta, std::mutex &mutex,
    const std::function<Expected<std::string>()> &provide,
    const DenseConfiguration &config,
    const std::function<Status(const KernelMeta &)> &check,
    const std::string &what) {
  std::lock_guard<std::mutex> guard(mutex);
  if (kernel)
    return Status::success();
  Expected<std::string> base = provide();
  if (!base.ok())
    return std::move(base.takeStatus())
        .withContext("making the " + what + " kernel");
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  Expected<KernelMeta> made = readKernelMeta(*base + ".meta");
  if (!made.ok())
    return made.takeStatus();
  Status checked = check(*made);
  if (!checked.ok())
    return std::move(checked).withContext(*base + ".meta");
  // What the choice assumed must be what was made.
  if (made->blockM != config.blockM || made->blockN != config.blockN ||
      made->persistent() != config.persistent ||
      made->streamK() != config.streamK || made->cluster != config.cluster ||
      (config.cluster > 1 && made->clusterAlongM() != config.multicastB) ||
      made->fixedN != config.fixedN || made->fixedK != config.fixedK)
    return Status::error(*base + ".meta describes " + made->configName() +
                         ", not the requested " + what);
  Expected<Kernel> loaded = Kernel::load(**driver, *base + ".cubin", *made);
  if (!loaded.ok())
    return loaded.takeStatus();
  meta = std::move(*made);
  kernel.emplace(std::move(*loaded));
  return Status::success();
}

Status DenseGemm::ensureLoaded(size_t index) const {
  if (loaded[index])
    return Status::success();
  if (!onDemand)
    return Status::error("kernel " + std::to_string(index) + " is not loaded");
  const DenseConfiguration &config = onDemand->configs[index];
  return makeOnDemandKernel(
      loaded[index], metas[index], onDemand->mutex,
      [&] { return onDemand->provider(config); }, config,
      [&](const KernelMeta &meta) {
        return checkDenseKernel(meta, recipeServed);
      },
      config.stem());
}

namespace {
/// Background compiles still running, process-wide: at exit the process
/// waits for them (a context that is never destroyed, as in Python, would
/// otherwise leave a compiler thread running into static destructors).
struct BackgroundCompiles {
  std::mutex mutex;
  std::condition_variable done;
  int running = 0;

  static BackgroundCompiles &get() {
    static BackgroundCompiles *compiles = [] {
      // Registered after the compiler's statics exist, so it runs first.
      std::atexit([] {
        BackgroundCompiles &c = BackgroundCompiles::get();
        std::unique_lock<std::mutex> lock(c.mutex);
        c.done.wait_for(lock, std::chrono::seconds(60),
                        [&] { return c.running == 0; });
      });
      return new BackgroundCompiles; // never destroyed: used at exit
    }();
    return *compiles;
  }
  void start() {
    std::lock_guard<std::mutex> lock(mutex);
    ++running;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex);
    --running;
    done.notify_all();
  }
};
} // namespace

const Kernel *SpecializedKernels::get(
    size_t index, int64_t n, int64_t k, DenseConfiguration config,
    const std::string &variant, std::mutex &makeMutex,
    const std::function<Expected<std::string>(const DenseConfiguration &)>
        &provide,
    const std::function<Status(const KernelMeta &)> &check, bool *pending) {
  config.fixedN = uint32_t(n);
  config.fixedK = uint32_t(k);
  if (pending)
    *pending = false;
  Slot *slot;
  {
    std::lock_guard<std::mutex> guard(mutex);
    std::unique_ptr<Slot> &entry = slots[{index, n, k}];
    if (!entry) {
      entry = std::make_unique<Slot>();
      entry->meta = configurationStub(config.stem(), variant, config);
    }
    slot = entry.get();
  }
  if (const Kernel *made = slot->ready.load(std::memory_order_acquire))
    return made;
  if (slot->failed)
    return nullptr;
  std::function<Expected<std::string>()> answer = [&] {
    return provide(config);
  };
  if (background) {
    std::shared_future<Expected<std::string>> made;
    {
      std::lock_guard<std::mutex> guard(mutex);
      if (!slot->answer.valid()) {
        BackgroundCompiles &compiles = BackgroundCompiles::get();
        compiles.start();
        slot->answer =
            std::async(std::launch::async,
                       [provide, config, &compiles]() -> Expected<std::string> {
                         Expected<std::string> base = provide(config);
                         compiles.finish();
                         return base;
                       })
                .share();
      }
      made = slot->answer;
    }
    if (made.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      if (pending)
        *pending = true;
      return nullptr;
    }
    answer = [made] { return made.get(); };
  }
  // Made once (makeOnDemandKernel holds makeMutex).
  Status made =
      makeOnDemandKernel(slot->kernel, slot->meta, makeMutex, answer, config,
                         check, variant + " " + config.stem());
  if (!made.ok()) {
    slot->failed = true;
    return nullptr;
  }
  slot->ready.store(&*slot->kernel, std::memory_order_release);
  return &*slot->kernel;
}

Status SpecializedKernels::needsOnDemand(bool onDemand) {
  if (onDemand)
    return Status::success();
  return Status::error("specializing kernels for each N and K needs an "
                       "on-demand context (its kernels are made on first "
                       "use); this one loaded a kernel directory");
}

Status DenseGemm::specializeShapes(bool on, bool background) {
  FGEMM_RETURN_IF_ERROR(SpecializedKernels::needsOnDemand(onDemand != nullptr));
  onDemand->specialize = on;
  onDemand->specialized.setBackground(background);
  std::lock_guard<std::mutex> guard(recent->mutex);
  recent->entries.clear();
  return Status::success();
}

Expected<DenseGemm::Prepared>
DenseGemm::prepare(const DenseGemmProblem &problem) const {
  FGEMM_RETURN_IF_ERROR(
      validateDenseGemmShape(problem.m, problem.n, problem.k));
  const std::string variant = denseVariant(recipeServed);
  if (recipeServed != DenseRecipe::k1D1D && problem.c)
    return Status::error("C is given, but a " + variant +
                         " kernel has no C operand (D = C + A B^T needs the "
                         "1D1D recipe's FP32 output)");
  if (recipeServed != DenseRecipe::kBias1D2D && problem.bias)
    return Status::error("a bias is given, but a " + variant +
                         " kernel adds none (the bias recipe's does)");
  if (recipeServed == DenseRecipe::kBias1D2D && !problem.bias &&
      !isEmptyGemm(problem))
    return Status::error("the bias is null: a dense_bias kernel computes "
                         "D = A B^T + bias[n] (bf16, N elements)");
  if (recipeServed == DenseRecipe::k1D1D && !problem.c && !isEmptyGemm(problem))
    return Status::error("C is null: the 1D1D recipe computes D = C + A B^T "
                         "(pass D as C to accumulate in place; zero it first "
                         "for D = A B^T)");
  Prepared prepared;
  if (isEmptyGemm(problem)) {
    // No kernel needed: even one no loaded kernel accepts is fine.
    prepared.launch.empty = true;
    return prepared;
  }
  DenseEpilogue epilogue = denseEpilogue(recipeServed, problem.c == problem.d);
  auto tunedChoice =
      tuned.find(std::make_tuple(problem.m, problem.n, problem.k));
  Expected<size_t> index =
      tunedChoice != tuned.end()
          ? Expected<size_t>(tunedChoice->second)
          : selectDenseKernel(metas, problem.m, problem.n, problem.k, smCount(),
                              epilogue);
  if (!index.ok())
    return index.takeStatus();
  prepared.kernel = *index;
  const Kernel *kernel = nullptr;
  if (onDemand && onDemand->specialize && !metas[*index].fixedN &&
      !metas[*index].fixedK) {
    kernel = prepared.specialized = onDemand->specialized.get(
        *index, problem.n, problem.k, onDemand->configs[*index],
        denseVariant(recipeServed), onDemand->mutex, onDemand->provider,
        [&](const KernelMeta &meta) {
          return checkDenseKernel(meta, recipeServed);
        },
        &prepared.provisional);
  }
  if (!kernel) {
    FGEMM_RETURN_IF_ERROR(ensureLoaded(*index));
    kernel = &*loaded[*index];
  }
  KernelBindings bindings = denseBindings(problem, recipeServed);
  bindings.rasterGroup =
      rasterOverride ? rasterOverride
                     : chooseRasterGroup(kernel->meta(), problem.n, problem.k,
                                         /*groups=*/1, /*rowsPerGroup=*/0,
                                         deviceInfo.l2Bytes);
  Expected<PreparedLaunch> launch = kernel->prepare(bindings, smLimit);
  if (!launch.ok())
    return launch.takeStatus();
  prepared.launch = std::move(*launch);
  return prepared;
}

void DenseGemm::setRasterGroup(uint32_t group) {
  rasterOverride = group;
  std::lock_guard<std::mutex> guard(recent->mutex);
  recent->entries.clear();
}

Status DenseGemm::setSmLimit(int sms) {
  FGEMM_RETURN_IF_ERROR(checkSmLimit(sms, deviceInfo));
  smLimit = sms;
  // Launches prepared for another SM count plan other grids.
  std::lock_guard<std::mutex> guard(recent->mutex);
  recent->entries.clear();
  return Status::success();
}

Status fgemm::launchPrepared(const std::vector<std::optional<Kernel>> &kernels,
                             size_t index, const PreparedLaunch &launch,
                             CUstream stream) {
  if (launch.empty)
    return Status::success();
  if (index >= kernels.size())
    return Status::error("prepared launch names kernel " +
                         std::to_string(index) + " of " +
                         std::to_string(kernels.size()));
  if (!kernels[index])
    return Status::error("prepared launch names a kernel not loaded");
  return kernels[index]->launch(launch, stream);
}

Status DenseGemm::launch(const Prepared &prepared, CUstream stream) const {
  if (prepared.specialized && !prepared.launch.empty)
    return prepared.specialized->launch(prepared.launch, stream);
  return launchPrepared(loaded, prepared.kernel, prepared.launch, stream);
}

Status DenseGemm::run(CUdeviceptr a, CUdeviceptr sfa, CUdeviceptr b,
                      CUdeviceptr sfb, CUdeviceptr d, int64_t m, int64_t n,
                      int64_t k, CUstream stream) const {
  DenseGemmProblem problem;
  problem.a = a;
  problem.sfa = sfa;
  problem.b = b;
  problem.sfb = sfb;
  problem.d = d;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  return run(problem, stream);
}

Status DenseGemm::run(const DenseGemmProblem &problem, CUstream stream) const {
  {
    std::lock_guard<std::mutex> guard(recent->mutex);
    for (const auto &[seen, prepared] : recent->entries)
      if (seen == problem)
        return launch(prepared, stream);
  }
  Expected<Prepared> prepared = prepare(problem);
  if (!prepared.ok())
    return prepared.takeStatus();
  if (!prepared->provisional) {
    std::lock_guard<std::mutex> guard(recent->mutex);
    if (recent->entries.size() == RecentLaunches::kCapacity)
      recent->entries.erase(recent->entries.begin());
    recent->entries.emplace_back(problem, *prepared);
  }
  return launch(*prepared, stream);
}
