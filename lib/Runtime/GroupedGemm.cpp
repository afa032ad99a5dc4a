//===- GroupedGemm.cpp - M-grouped FP8 GEMMs (MoE) --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/GroupedGemm.h"

#include "Runtime/Gemm.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

using namespace fgemm;

const char *fgemm::groupedVariant(GroupedLayout layout) {
  switch (layout) {
  case GroupedLayout::Contiguous:
    return "grouped_contiguous";
  case GroupedLayout::ContiguousPsum:
    return "grouped_contiguous_psum";
  case GroupedLayout::ContiguousUnpadded:
    return "grouped_contiguous_unpadded";
  case GroupedLayout::Masked:
    break;
  }
  return "grouped_masked";
}

static std::string number(int64_t v) { return std::to_string(v); }

const std::vector<DenseConfiguration> &
fgemm::groupedConfigurationSet(GroupedLayout layout) {
  // Measured one by one on the H100 (docs/PERF.md, "Grouped"): contiguous
  // tiles of at most 128 rows (a tile stays in one group's 128-row block);
  // plain 128-row grids in raster groups of 16 tile rows; 128x192
  // persistent in clusters of two row tiles sharing B (when they are in one
  // group), in raster groups of 8 pairs (16 tile rows), as DeepGEMM runs
  // them; 64-row tiles for a few rows per group. 128x256 pairs (two
  // 128-column wgmma groups sharing A) ran the contiguous shapes in
  // 0.978-0.998x the 128x192 pairs' time, the psum form in 0.971-0.983x
  // (H100, docs/PERF.md, thirty-third session); the model takes them where
  // they need fewer whole waves. Compiled for a K of at least
  // kCoupledPairsSharingBMinK they couple their math warpgroups
  // (DenseConfiguration::couplesMathWarpgroups).
  static const std::vector<DenseConfiguration> contiguous = {
      {128, 256, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 192, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 128, true, 0},
      {128, 128, false, 16},
      {128, 96, false, 16},
      {128, 64, false, 16},
      {64, 128, false, 0}};
  // Masked: 128x192 persistent in pairs of row tiles sharing B as well
  // (DeepGEMM's tile at N = 7168), the fastest or within 5% of the fastest
  // on every masked shape measured (H100, docs/PERF.md, 2026-11-25); 128x160,
  // 128x128 and 128x96 pairs where they run no more whole waves (7-26%
  // faster then; H100, docs/PERF.md, 2026-11-26). The pairs' tile order is
  // chosen per launch (chooseRasterGroup): raster groups of 8 pairs by
  // default, row-major for one group whose B fits and for more groups' pairs
  // than one band holds. 64-row tiles for a few rows per group, on a
  // persistent grid where the capacity is far above the rows (decoding
  // buffers): a plain grid's CTAs past masked_m cost 1.5-2x the time at 20
  // rows per group in a 4096-row capacity (H100, docs/PERF.md, 2026-11-27);
  // persistent 64x96 where it runs no more waves than 64x128 (0.91-0.99x the
  // time there, same page).
  static const std::vector<DenseConfiguration> masked = {
      {128, 192, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 160, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 128, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 96, true, 8, /*fixedN=*/0, /*fixedK=*/0, /*cluster=*/2,
       /*multicastB=*/true, /*kSplit=*/1, /*launchRaster=*/true},
      {128, 192, false, 16},
      {128, 192, true, 0},
      {128, 128, false, 16},
      {128, 128, true, 0},
      {128, 96, false, 16},
      {64, 128, false, 0},
      {64, 128, true, 0},
      {64, 96, true, 0},
      {64, 64, false, 0}};
  // Unpadded: persistent only (its tile count is known on the GPU only).
  static const std::vector<DenseConfiguration> unpadded = {{128, 192, true, 0},
                                                           {128, 128, true, 0},
                                                           {128, 96, true, 0},
                                                           {64, 128, true, 0}};
  if (layout == GroupedLayout::ContiguousUnpadded)
    return unpadded;
  return layout == GroupedLayout::Masked ? masked : contiguous;
}

Status fgemm::validateGroupedGemmShape(const GroupedGemmProblem &p) {
  bool masked = p.layout == GroupedLayout::Masked;
  const std::pair<const char *, int64_t> sizes[] = {
      {masked ? "M (rows per group)" : "M", p.m},
      {"N", p.n},
      {"K", p.k},
      {"G (groups)", p.groups}};
  for (const auto &[name, value] : sizes) {
    if (value < 0)
      return Status::error(std::string(name) + " = " + number(value) +
                           " is negative (sizes must be >= 0)");
    if (value > kMaxGemmDim)
      return Status::error(std::string(name) + " = " + number(value) +
                           " is too large (at most 2^31-1: TMA coordinates "
                           "are 32-bit)");
  }
  if (p.groups == 0 && p.m > 0)
    return Status::error("G = 0 groups but M = " + number(p.m) +
                         " rows (allowed: G >= 1)");
  if (p.n % 8 != 0)
    return Status::error("N = " + number(p.n) +
                         " is not a multiple of 8 (D's bf16 rows must be a "
                         "multiple of 16 bytes; allowed: N % 8 == 0)");
  if (p.k == 0 || p.k % 16 != 0)
    return Status::error("K = " + number(p.k) +
                         " is not a positive multiple of 16 (A's and B's "
                         "e4m3 rows must be a multiple of 16 bytes)");
  if (p.layout == GroupedLayout::Contiguous &&
      p.m % kContiguousGroupAlignment != 0)
    return Status::error(
        "M = " + number(p.m) + " is not a multiple of " +
        number(kContiguousGroupAlignment) +
        ": the contiguous layout pads every group to 128 rows "
        "(allowed: M % 128 == 0, padding rows marked -1 in m_indices)");
  if (masked && p.expectedM <= 0)
    return Status::error("expected_m = " + number(p.expectedM) +
                         " must be > 0 (the expected rows per group, a "
                         "configuration hint)");
  // G x M x N elements of D and G x M x K of A are addressed in 64 bits,
  // but the masked layout's 3-D tensor maps need every extent below 2^32.
  return Status::success();
}

/// The grouped variants' arguments as their descriptions spell them.
static const char *const kGroupedArgNames[6] = {"A",   "B",          "SFA",
                                                "SFB", "group rows", "D"};
static const char *const kContiguousArgs[6] = {
    "tensor e4m3 m,k",
    "tensor e4m3 g,n,k",
    "scales f32 m,k block=1x128 mn_major",
    "scales f32 g,n,k block=128x128",
    "tensor i32 m",
    "tensor bf16 m,n"};
static const char *const kContiguousPsumArgs[6] = {
    "tensor e4m3 m,k",
    "tensor e4m3 g,n,k",
    "scales f32 m,k block=1x128 mn_major",
    "scales f32 g,n,k block=128x128",
    "tensor i32 g",
    "tensor bf16 m,n"};
static const char *const kMaskedArgs[6] = {
    "tensor e4m3 g,m,k",
    "tensor e4m3 g,n,k",
    "scales f32 g,m,k block=1x128 mn_major",
    "scales f32 g,n,k block=128x128",
    "tensor i32 g",
    "tensor bf16 g,m,n"};

Status fgemm::checkGroupedKernel(const KernelMeta &meta, GroupedLayout layout) {
  std::string variant = groupedVariant(layout);
  if (meta.variant != variant)
    return Status::error("variant='" + meta.variant + "' is not " + variant);
  const char *const *expected = layout == GroupedLayout::Masked ? kMaskedArgs
                                : layout == GroupedLayout::Contiguous
                                    ? kContiguousArgs
                                    : kContiguousPsumArgs;
  if (meta.args.size() != 6)
    return Status::error("a " + variant +
                         " kernel has 6 arguments (A, B, SFA, SFB, group "
                         "rows, D), this one " +
                         number(int64_t(meta.args.size())));
  for (size_t i = 0; i < 6; ++i) {
    std::string arg = formatKernelArg(meta.args[i]);
    if (arg != expected[i])
      return Status::error("arg." + std::to_string(i) + " (" +
                           kGroupedArgNames[i] + ") is '" + arg + "' but a " +
                           variant + " kernel's is '" + expected[i] +
                           "' (docs/ABI.md)");
  }
  std::vector<std::string> dims = meta.dims;
  std::sort(dims.begin(), dims.end());
  if (dims != std::vector<std::string>{"g", "k", "m", "n"})
    return Status::error("a " + variant + " kernel's dims are m, n, k, g");
  if (layout != GroupedLayout::Masked &&
      meta.blockM > kContiguousGroupAlignment)
    return Status::error("block_m = " + number(meta.blockM) +
                         ": a contiguous kernel's tiles must not span two "
                         "128-row group blocks (block_m <= 128)");
  return Status::success();
}

/// The masked layout's row tiles of one draw of rows: all groups' row
/// tiles, and how many groups hold an odd number of them.
struct MaskedDraw {
  int64_t rowTiles = 0, oddGroups = 0;
};

/// The masked layout's row tiles of `blockM` rows for a spread of row
/// counts: its rows are known on the GPU only, expected_m is a hint, and
/// the benchmarks (DeepGEMM's and fgemm-bench) draw each group's rows from
/// 0.7-1.3x of it. The persistent grid walks the row tiles that hold rows,
/// group by group, so a launch runs ceil(row tiles x column tiles / SMs)
/// waves of equal tiles (maskedWaves; pairs: maskedWavesOf). The draws:
/// every group at 0.7x and at 1.3x, and kDraws between, each group at its
/// own offset of the golden-ratio sequence (groups vary independently).
static std::vector<MaskedDraw> maskedDraws(const GroupedGemmProblem &p,
                                           int64_t blockM) {
  constexpr int kDraws = 32;
  constexpr double kGoldenFraction = 0.6180339887498949;
  std::vector<MaskedDraw> draws;
  for (int draw = -1; draw <= kDraws; ++draw) {
    MaskedDraw d;
    for (int64_t g = 0; g < p.groups; ++g) {
      double u =
          draw < 0 ? 0.0
          : draw == kDraws
              ? 1.0
              : std::fmod((draw + 0.5) / kDraws + double(g) * kGoldenFraction,
                          1.0);
      auto rows = std::min<int64_t>(
          p.m, int64_t(double(p.expectedM) * groupRowsFactor(u)));
      int64_t tiles = ceilDiv(rows, blockM);
      d.rowTiles += tiles;
      d.oddGroups += tiles % 2;
    }
    draws.push_back(d);
  }
  return draws;
}

/// Whether `meta` is a kernel of `variant` that runs the problem's N and K.
static bool runsProblem(const KernelMeta &meta, const std::string &variant,
                        const GroupedGemmProblem &p) {
  return meta.variant == variant && meta.runsNK(p.n, p.k);
}

/// Persistent pairs of row tiles sharing B (cluster 2 along M).
static bool isRowPair(const KernelMeta &meta) {
  return meta.persistent() && meta.cluster == 2 && meta.clusterAlongM();
}

/// The whole waves of `sms` CTAs a masked launch of `meta` runs for one
/// draw of rows over `columnTiles` columns: masked pairs pair each group's
/// row tiles and split a group's odd last row tile along N, two columns per
/// pair (fgemm-schedule-tiles).
static int64_t maskedWavesOf(const KernelMeta &meta, const MaskedDraw &draw,
                             int64_t columnTiles, int64_t sms) {
  if (!isRowPair(meta))
    return ceilDiv(launchedTiles(meta, draw.rowTiles, columnTiles), sms);
  int64_t units = (draw.rowTiles - draw.oddGroups) / 2 * columnTiles +
                  draw.oddGroups * ceilDiv(columnTiles, int64_t(2));
  return ceilDiv(2 * units, sms);
}

/// `meta`'s whole waves for each draw of maskedDraws.
static std::vector<int64_t> maskedWaves(const KernelMeta &meta,
                                        const std::vector<MaskedDraw> &draws,
                                        const GroupedGemmProblem &p,
                                        int64_t sms) {
  const int64_t columnTiles = ceilDiv(std::max<int64_t>(p.n, 1), meta.blockN);
  std::vector<int64_t> waves;
  for (const MaskedDraw &draw : draws)
    waves.push_back(maskedWavesOf(meta, draw, columnTiles, sms));
  return waves;
}

/// A narrower kernel of `chosen`'s kind (persistent, same block_m and
/// cluster) in place of it where it runs no more whole waves for any of the
/// row counts maskedWaves draws: then its narrower tiles make every wave
/// shorter. On the H100 128x160 pairs ran 7-10% faster than 128x192 ones at
/// equal waves, but 25-60% slower on draws where they needed one wave more,
/// which the expected time over the draws did not foresee well enough to
/// choose by it (docs/PERF.md, 2026-11-26); 64x96 tiles 0.91x the time of
/// 64x128 ones at 6 x 20 rows, N = 6144, K = 7168 (three waves each; H100,
/// docs/PERF.md, 2026-11-27). Among such kernels: the least mean time, then
/// the wider, deeper, specialized one.
static size_t narrowerWithNoMoreWaves(const std::vector<KernelMeta> &kernels,
                                      const GroupedGemmProblem &p, int64_t sms,
                                      size_t chosen) {
  const KernelMeta &wide = kernels[chosen];
  const std::vector<MaskedDraw> draws = maskedDraws(p, wide.blockM);
  std::vector<int64_t> wideWaves = maskedWaves(wide, draws, p, sms);
  using Cost = std::tuple<int64_t, int64_t, int, int64_t, size_t>;
  std::optional<Cost> best;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelMeta &meta = kernels[i];
    if (!runsProblem(meta, wide.variant, p) || !meta.persistent() ||
        isRowPair(meta) != isRowPair(wide) || meta.cluster != wide.cluster ||
        meta.blockM != wide.blockM || meta.blockN > wide.blockN)
      continue;
    std::vector<int64_t> waves = maskedWaves(meta, draws, p, sms);
    bool noMore = true;
    int64_t total = 0;
    for (size_t d = 0; d < waves.size(); ++d) {
      noMore = noMore && waves[d] <= wideWaves[d];
      total += waves[d];
    }
    if (!noMore)
      continue;
    double time = double(total) * meta.blockN /
                  estimateTileRate(meta.blockM, meta.blockN);
    Cost cost{int64_t(time * 1000), -int64_t(meta.blockN), meta.genericDims(),
              -int64_t(meta.stages), i};
    if (!best || cost < *best)
      best = cost;
  }
  return best ? std::get<4>(*best) : chosen;
}

/// Where a masked problem's tiles fit in one wave whatever its rows, a
/// launch takes one tile's time, less for smaller tiles, and a grid without
/// clusters skips their set-up: the kernel of the least tile area (then
/// more rows) among those without clusters that launch at most `sms` CTAs
/// for the most rows drawn (every group at 1.3x expected_m; a plain grid
/// launches CTAs for the whole capacity), if its tiles are no larger than
/// `chosen`'s. H100 (docs/PERF.md, 2026-11-26), rows of 1024 / 4 x 256 /
/// 2 x 512 and N = 512-1024: 64x128 or 128x96 plain grids 0.64-0.69x the
/// time of 128x192 pairs, against 0.78-0.81x for 128x96 pairs.
static size_t smallerTilesInOneWave(const std::vector<KernelMeta> &kernels,
                                    const GroupedGemmProblem &p, int64_t sms,
                                    size_t chosen) {
  const int64_t mostRows =
      std::min<int64_t>(p.m, int64_t(double(p.expectedM) * kGroupRowsHigh));
  const KernelMeta &current = kernels[chosen];
  auto fitsOneWave = [&](const KernelMeta &meta) {
    int64_t rowTiles =
        p.groups * ceilDiv(meta.persistent() ? mostRows : p.m, meta.blockM);
    return rowTiles * ceilDiv(std::max<int64_t>(p.n, 1), meta.blockN) <= sms;
  };
  // A plain grid that fits keeps persistent ones of its block_m out: they
  // pay the tile loop and the group walk for nothing there (64x96
  // persistent in place of a fitting plain 64x128 grid: 1.02-1.08x the time
  // at 1 x 20 and 1 x 256 rows; H100, docs/PERF.md, 2026-11-27).
  std::set<uint32_t> plainFits; // block_m
  for (const KernelMeta &meta : kernels)
    if (runsProblem(meta, current.variant, p) && meta.cluster == 1 &&
        meta.kSplit == 1 && !meta.persistent() && fitsOneWave(meta))
      plainFits.insert(meta.blockM);
  using Cost = std::tuple<int64_t, int64_t, int, int, size_t>;
  std::optional<Cost> best;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelMeta &meta = kernels[i];
    if (!runsProblem(meta, current.variant, p) || meta.cluster != 1 ||
        meta.kSplit != 1 || !fitsOneWave(meta) ||
        (meta.persistent() && plainFits.count(meta.blockM)))
      continue;
    Cost cost{int64_t(meta.blockM) * meta.blockN, -int64_t(meta.blockM),
              meta.persistent() ? 1 : 0, meta.genericDims(), i};
    if (!best || cost < *best)
      best = cost;
  }
  if (best && std::get<0>(*best) <= int64_t(current.blockM) * current.blockN)
    return std::get<4>(*best);
  return chosen;
}

Expected<size_t>
fgemm::selectGroupedKernel(const std::vector<KernelMeta> &kernels,
                           const GroupedGemmProblem &p, int smCount) {
  const int64_t sms = std::max(smCount, 1);
  bool masked = p.layout == GroupedLayout::Masked;
  // Rows of one group's tiles that hold data: all of M for the contiguous
  // layout (one M range), expected_m per group for the masked one.
  int64_t rows = masked ? std::min(p.expectedM, std::max<int64_t>(p.m, 1))
                        : std::max<int64_t>(p.m, 1);
  int64_t groupsTiled = masked ? std::max<int64_t>(p.groups, 1) : 1;
  using Cost = std::tuple<int, int64_t, int, int64_t, int, int64_t, size_t>;
  std::optional<Cost> best;
  const std::string variant = groupedVariant(p.layout);
  // Masked pair kernels narrower than the widest are candidates only on
  // whole waves (narrowerWithNoMoreWaves): the model below, on
  // fractional waves, would take them where they need more waves (128x128
  // pairs 14-16% slower than 128x192 ones at 32x256 rows, N = 1024, H100,
  // docs/PERF.md, 2026-11-26).
  std::map<uint32_t, uint32_t> widestPair; // block_m -> block_n
  for (const KernelMeta &meta : kernels)
    if (masked && runsProblem(meta, variant, p) && isRowPair(meta))
      widestPair[meta.blockM] = std::max(widestPair[meta.blockM], meta.blockN);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelMeta &meta = kernels[i];
    if (!runsProblem(meta, variant, p))
      continue;
    if (masked && isRowPair(meta) && meta.blockN < widestPair[meta.blockM])
      continue;
    // As for dense GEMMs: a tile at least half empty streams B for nothing.
    int wastedRows = meta.blockM > 64 && 2 * rows <= meta.blockM ? 1 : 0;
    // Masked pairs pair each group's row tiles and split a group's odd last
    // row tile along N (fgemm-schedule-tiles), so no group pads its own:
    // about one CTA per row tile and column, as without pairs. (Padding
    // each group to whole pairs had priced 128x192 pairs 1.33x at 32 x 300
    // rows, where they ran 0.90-0.93x the time of the persistent 128x192
    // grid chosen instead; H100, docs/PERF.md, twenty-seventh session.)
    const int64_t rowTiles = ceilDiv(rows, meta.blockM);
    const int64_t columnTiles = ceilDiv(std::max<int64_t>(p.n, 1), meta.blockN);
    int64_t tiles =
        masked && isRowPair(meta)
            ? launchedTiles(meta, groupsTiled * rowTiles, columnTiles)
            : groupsTiled * launchedTiles(meta, rowTiles, columnTiles);
    // Masked groups hold 0.7-1.3x expected_m rows, so wave quantization
    // averages out: fractional waves (what the factors below are fitted to;
    // a pair's width is then checked on whole waves). The contiguous
    // layout's tiles are known: whole waves.
    double waves =
        masked ? double(tiles) / double(sms) : double(ceilDiv(tiles, sms));
    // The dense model (estimateTileRate), without its penalty for tiles
    // that straddle 128-column scale blocks: grouped 128x96 tiles won on a
    // masked shape with few rows per group (H100, docs/PERF.md, "Grouped").
    double rate = estimateTileRate(meta.blockM, meta.blockN) /
                  straddlePenalty(meta.blockN);
    double time = waves * meta.blockM * meta.blockN / rate;
    // A persistent CTA hides a tile's epilogue under the next tile's loads:
    // 1.06-1.11x on the contiguous shapes at K = 2048, slower at K = 7168;
    // in clusters of two (128x192 sharing A) 0.91-0.92x the plain grid's
    // time at K = 2048 and 0.955-0.965x at K = 7168 (H100, docs/PERF.md,
    // 2026-11-24).
    if (!masked && meta.persistent() && meta.cluster > 1 && waves > 1)
      time *= p.k <= 4096 ? 0.92 : 0.96;
    else if (!masked && meta.persistent() && waves > 1)
      time *= p.k <= 4096 ? 1.0 / 1.15 : 1.05;
    if (masked && meta.persistent() && meta.cluster > 1) {
      // Persistent pairs sharing B: 0.80-1.01x the best of the others'
      // time on the masked shapes, whatever the capacity (H100,
      // docs/PERF.md, 2026-11-25). A group's odd last row tile, split
      // along N, shares no B, as a CTA without a pair: with several groups
      // of r row tiles (their rows vary, so a group's count is odd about
      // half the time) the saving scales with 1 - 1 / r: none with one row
      // tile per group, where the grid without clusters wins the tie below.
      double unshared =
          groupsTiled > 1 ? 1.0 / double(std::max<int64_t>(rowTiles, 1)) : 0.0;
      time *= 1.0 - 0.1 * (1.0 - unshared);
    } else if (masked) {
      // A plain grid covers the capacity: a CTA for every row block of it,
      // those past masked_m exiting at once, which still costs their launch
      // (4x256 rows in a 4096-row capacity, 7168x2048: 58.6 us against 45.4
      // in a 384-row one). The persistent grid visits only the tiles with
      // rows; where the capacity holds at most twice the expected rows, the
      // plain grid was as fast or faster (0-7%; 64x128 at 20 rows per group
      // in a 128-row capacity, 1-7%). (H100, docs/PERF.md.)
      int64_t gridTiles = groupsTiled * ceilDiv(p.m, meta.blockM) *
                          ceilDiv(std::max<int64_t>(p.n, 1), meta.blockN);
      bool sparse = gridTiles > 2 * tiles;
      if (meta.persistent() != sparse)
        time *= 1.1;
    }
    // As for dense GEMMs, last: a kernel specialized for the call's N and K
    // wins over the generic one of its configuration, not over a better one.
    Cost cost{wastedRows,
              int64_t(time * 1000),
              isRowPair(meta) ? 1 : 0,
              -int64_t(meta.blockN),
              meta.genericDims(),
              -int64_t(meta.stages),
              i};
    if (!best || cost < *best)
      best = cost;
  }
  if (!best)
    return Status::error(std::string("no loaded ") + groupedVariant(p.layout) +
                         " kernel accepts N = " + number(p.n) +
                         ", K = " + number(p.k));
  size_t chosen = std::get<6>(*best);
  if (masked && kernels[chosen].persistent())
    chosen = narrowerWithNoMoreWaves(kernels, p, sms, chosen);
  if (masked) {
    // The one-wave choice may take a persistent kernel of another block_m:
    // then its narrower kind in turn.
    size_t oneWave = smallerTilesInOneWave(kernels, p, sms, chosen);
    if (oneWave != chosen && kernels[oneWave].persistent())
      oneWave = narrowerWithNoMoreWaves(kernels, p, sms, oneWave);
    chosen = oneWave;
  }
  return chosen;
}

Status fgemm::validateContiguousIndices(const std::vector<int32_t> &mIndices,
                                        int64_t groups) {
  const int64_t block = kContiguousGroupAlignment;
  for (int64_t start = 0; start < int64_t(mIndices.size()); start += block) {
    int64_t end = std::min<int64_t>(start + block, int64_t(mIndices.size()));
    int32_t group = mIndices[size_t(start)];
    bool padding = false;
    for (int64_t row = start; row < end; ++row) {
      int32_t value = mIndices[size_t(row)];
      std::string at = "m_indices[" + number(row) + "] = " + number(value);
      if (value < -1 || value >= groups)
        return Status::error(at +
                             " is not a group (allowed: -1 for padding, "
                             "or 0 <= g < G = " +
                             number(groups) + ")");
      if (value == -1) {
        padding = true;
      } else if (padding) {
        return Status::error(at + " follows a padding row (-1) of its "
                                  "128-row block: padding is allowed only at "
                                  "the end of a block");
      } else if (value != group) {
        return Status::error(at + " but row " + number(start) +
                             " of its 128-row block is group " + number(group) +
                             ": every block holds one group's rows");
      }
    }
  }
  return Status::success();
}

Expected<GroupedKernelDescriptions>
fgemm::readGroupedKernelDescriptions(const std::string &directory) {
  Expected<std::vector<std::string>> stems = listKernelDirectory(directory);
  if (!stems.ok())
    return stems.takeStatus();
  GroupedKernelDescriptions found;
  for (const std::string &stem : *stems) {
    std::string file =
        (std::filesystem::path(directory) / (stem + ".meta")).string();
    Expected<KernelMeta> meta = readKernelMeta(file);
    if (!meta.ok())
      return meta.takeStatus();
    std::optional<GroupedLayout> layout;
    for (GroupedLayout l :
         {GroupedLayout::Contiguous, GroupedLayout::ContiguousPsum,
          GroupedLayout::ContiguousUnpadded, GroupedLayout::Masked})
      if (meta->variant == groupedVariant(l))
        layout = l;
    if (!layout)
      continue; // another variant's kernel
    Status grouped = checkGroupedKernel(*meta, *layout);
    if (!grouped.ok())
      return std::move(grouped).withContext(file);
    found.metas.push_back(std::move(*meta));
    found.stems.push_back(stem);
  }
  if (found.metas.empty())
    return Status::error("no grouped kernels in '" + directory + "'");
  return found;
}

Expected<GroupedGemm> GroupedGemm::create(const std::string &directory) {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  Expected<DeviceInfo> device = currentHopperDevice(**driver);
  if (!device.ok())
    return device.takeStatus();
  Expected<GroupedKernelDescriptions> found =
      readGroupedKernelDescriptions(directory);
  if (!found.ok())
    return found.takeStatus();
  GroupedGemm gemm(std::move(*device));
  for (size_t i = 0; i < found->metas.size(); ++i) {
    std::string cubin =
        (std::filesystem::path(directory) / (found->stems[i] + ".cubin"))
            .string();
    Expected<Kernel> kernel = Kernel::load(**driver, cubin, found->metas[i]);
    if (!kernel.ok())
      return kernel.takeStatus();
    gemm.metas.push_back(std::move(found->metas[i]));
    gemm.loaded.emplace_back(std::move(*kernel));
  }
  return gemm;
}

Expected<GroupedGemm> GroupedGemm::createOnDemand(KernelProvider provider) {
  if (!provider)
    return Status::error("no kernel provider");
  Expected<DeviceInfo> device = currentHopperDevice();
  if (!device.ok())
    return device.takeStatus();
  GroupedGemm gemm(std::move(*device));
  gemm.onDemand = std::make_unique<OnDemand>();
  for (GroupedLayout layout :
       {GroupedLayout::Contiguous, GroupedLayout::ContiguousPsum,
        GroupedLayout::ContiguousUnpadded, GroupedLayout::Masked}) {
    for (const DenseConfiguration &config : groupedConfigurationSet(layout)) {
      gemm.metas.push_back(configurationStub(
          std::string(groupedVariant(layout)) + "_" + config.stem(),
          groupedVariant(layout), config));
      gemm.loaded.emplace_back();
      gemm.onDemand->configs.emplace_back(layout, config);
    }
  }
  gemm.onDemand->provider = std::move(provider);
  return gemm;
}

Status GroupedGemm::ensureLoaded(size_t index) const {
  if (loaded[index])
    return Status::success();
  if (!onDemand)
    return Status::error("kernel " + std::to_string(index) + " is not loaded");
  const auto &[layout, config] = onDemand->configs[index];
  GroupedLayout which = layout;
  Status made = makeOnDemandKernel(
      loaded[index], metas[index], onDemand->mutex,
      [&] { return onDemand->provider(which, config); }, config,
      [which](const KernelMeta &meta) {
        return checkGroupedKernel(meta, which);
      },
      std::string(groupedVariant(which)) + " " + config.stem());
  // The made kernel's description replaced its stub: choose again.
  std::lock_guard<std::mutex> guard(choices->mutex);
  choices->index.clear();
  return made;
}

Expected<size_t> GroupedGemm::choose(const GroupedGemmProblem &p) const {
  auto key = std::make_tuple(p.layout, p.m, p.n, p.k, p.groups, p.expectedM);
  {
    std::lock_guard<std::mutex> guard(choices->mutex);
    if (auto found = choices->index.find(key); found != choices->index.end())
      return found->second;
  }
  Expected<size_t> index = selectGroupedKernel(metas, p, smCount());
  if (index.ok()) {
    std::lock_guard<std::mutex> guard(choices->mutex);
    if (choices->index.size() == Choices::kCapacity)
      choices->index.clear();
    choices->index[key] = *index;
  }
  return index;
}

Expected<GroupedGemm::Prepared>
GroupedGemm::prepare(const GroupedGemmProblem &p) const {
  FGEMM_RETURN_IF_ERROR(validateGroupedGemmShape(p));
  Prepared prepared;
  if (p.m == 0 || p.n == 0 || p.groups == 0) {
    prepared.launch.empty = true;
    return prepared;
  }
  Expected<size_t> index = choose(p);
  if (!index.ok())
    return index.takeStatus();
  prepared.kernel = *index;
  const Kernel *kernel = nullptr;
  if (onDemand && onDemand->specialize && !metas[*index].fixedN &&
      !metas[*index].fixedK && p.k > 0) {
    const auto &[layout, config] = onDemand->configs[*index];
    GroupedLayout which = layout;
    // By value: in the background the provider runs after this returns.
    kernel = prepared.specialized = onDemand->specialized.get(
        *index, p.n, p.k, config, groupedVariant(which), onDemand->mutex,
        [od = onDemand.get(), which](const DenseConfiguration &c) {
          return od->provider(which, c);
        },
        [which](const KernelMeta &meta) {
          return checkGroupedKernel(meta, which);
        });
  }
  if (!kernel) {
    FGEMM_RETURN_IF_ERROR(ensureLoaded(*index));
    kernel = &*loaded[*index];
  }
  KernelBindings bindings;
  bindings.args = {p.a, p.b, p.sfa, p.sfb, p.groupRows, p.d};
  bindings.dims = {{"m", p.m}, {"n", p.n}, {"k", p.k}, {"g", p.groups}};
  bindings.argNames.assign(std::begin(kGroupedArgNames),
                           std::end(kGroupedArgNames));
  bindings.argNames[4] = p.layout == GroupedLayout::Masked       ? "masked_m"
                         : p.layout == GroupedLayout::Contiguous ? "m_indices"
                                                                 : "group_ends";
  bindings.rasterGroup =
      rasterOverride ? rasterOverride
                     : chooseRasterGroup(kernel->meta(), p.n, p.k, p.groups,
                                         p.layout == GroupedLayout::Masked
                                             ? std::min(p.expectedM, p.m)
                                             : 0,
                                         deviceInfo.l2Bytes);
  Expected<PreparedLaunch> launch = kernel->prepare(bindings, smLimit);
  if (!launch.ok())
    return launch.takeStatus();
  prepared.launch = std::move(*launch);
  return prepared;
}

void GroupedGemm::setRasterGroup(uint32_t group) { rasterOverride = group; }

Status GroupedGemm::setSmLimit(int sms) {
  FGEMM_RETURN_IF_ERROR(checkSmLimit(sms, deviceInfo));
  smLimit = sms;
  std::lock_guard<std::mutex> guard(choices->mutex);
  choices->index.clear();
  return Status::success();
}

Status GroupedGemm::launch(const Prepared &prepared, CUstream stream) const {
  if (prepared.specialized && !prepared.launch.empty)
    return prepared.specialized->launch(prepared.launch, stream);
  return launchPrepared(loaded, prepared.kernel, prepared.launch, stream);
}

Status GroupedGemm::specializeShapes(bool on, bool background) {
  FGEMM_RETURN_IF_ERROR(SpecializedKernels::needsOnDemand(onDemand != nullptr));
  onDemand->specialize = on;
  onDemand->specialized.setBackground(background);
  return Status::success();
}

Status GroupedGemm::run(const GroupedGemmProblem &problem,
                        CUstream stream) const {
  Expected<Prepared> prepared = prepare(problem);
  if (!prepared.ok())
    return prepared.takeStatus();
  return launch(*prepared, stream);
}

Status fgemm::validateGroupEnds(const std::vector<int32_t> &ends, int64_t m,
                                int64_t alignment) {
  int64_t start = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    int64_t end = ends[g];
    std::string at = "group_ends[" + std::to_string(g) + "] = " + number(end);
    if (end < start)
      return Status::error(at + " is before the group's first row " +
                           number(start) + " (the previous end rounded up to " +
                           number(alignment) + "; equal for an empty group)");
    if (end > m)
      return Status::error(at + " is past M = " + number(m));
    start = (end + alignment - 1) / alignment * alignment;
  }
  return Status::success();
}

Status fgemm::validateGroupEndsOnDevice(CUdeviceptr ends, int64_t groups,
                                        int64_t m, int64_t alignment) {
  if (groups < 1 || m < 0)
    return Status::error("G = " + number(groups) + ", m = " + number(m) +
                         " (allowed: G >= 1, m >= 0)");
  if (!ends)
    return Status::error("group_ends is a null pointer");
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  std::vector<int32_t> host(static_cast<size_t>(groups));
  FGEMM_CU_CHECK((*driver)->cuMemcpyDtoH(host.data(), ends,
                                         host.size() * sizeof(int32_t)));
  return validateGroupEnds(host, m, alignment);
}

Status fgemm::validateContiguousIndicesOnDevice(CUdeviceptr mIndices, int64_t m,
                                                int64_t groups) {
  if (m < 0 || groups < 1)
    return Status::error("m = " + number(m) + ", G = " + number(groups) +
                         " (allowed: m >= 0, G >= 1)");
  if (m == 0)
    return Status::success();
  if (!mIndices)
    return Status::error("m_indices is a null pointer");
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  std::vector<int32_t> host(static_cast<size_t>(m));
  FGEMM_CU_CHECK((*driver)->cuMemcpyDtoH(host.data(), mIndices,
                                         host.size() * sizeof(int32_t)));
  return validateContiguousIndices(host, groups);
}
