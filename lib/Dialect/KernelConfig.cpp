//===- KernelConfig.cpp - configuration knobs and their ranges --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "dialect/KernelConfig.h"

using namespace mlir::fgemm;

bool KernelConfig::operator==(const KernelConfig &other) const {
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  if (NAME != other.NAME)                                                      \
    return false;
#include "dialect/KernelConfig.def"
  return true;
}

llvm::hash_code mlir::fgemm::hash_value(const KernelConfig &config) {
  llvm::hash_code hash = llvm::hash_value(0);
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  hash = llvm::hash_combine(hash, config.NAME);
#include "dialect/KernelConfig.def"
  return hash;
}

// K blocks per trip of an unrolled K loop: four where the math threads'
// partial and promoted sums take at most kSmallTileRegisters registers,
// else two (four made ptxas spill the grouped 128x96, 128x192 and 256x128
// kernels). Two warpgroups of at most 32 columns take two as well: 128x32
// ran 3-5% faster with two on the H200 (128x64 within noise, 64-row tiles
// as fast or faster with four; docs/PERF.md, twelfth session). With K
// compiled in, larger tiles take four too (the loop's trip count and ring
// stages fold, and the partial sums share one set of registers across the
// copies: no spill with ptxas 13.0; 1.5% faster than two at 256x128 on
// the H100, docs/PERF.md, seventeenth session). Where the stage count
// divides four, each copy sees a constant ring stage: its addresses and
// descriptors are constants, computed per block (emitKBlock pins their
// bases; hoisted out of the loop, every stage's set stayed live and the
// 128x192 kernels with four stages spilled). By three with three stages
// (the 256x128 pairs: constant stages, a third less code, no spill; as
// fast as by four, H100, docs/PERF.md, thirty-first session), and, as
// before, for 8, 12 or 16 stages (four copies would see two stages each;
// not measured).
int64_t KernelConfig::getKLoopUnroll() const {
  constexpr int64_t kSmallTileRegisters = 64;
  int64_t registers = (getWaves() * blockN + getGroupN()) / 2;
  if (mathWarpgroups == 2 && blockN <= 32)
    return 2;
  if (registers <= kSmallTileRegisters)
    return 4;
  if (!fixedK || stages <= 0) // stages 0: not resolved yet
    return 2;
  if (4 % stages == 0)
    return 4;
  return 3 % stages == 0 || stages % 4 == 0 ? 3 : 4;
}

// Such a trip's copies share one stage and phase counter
// (fgemm-loop-counters): their addresses are one carried value plus
// constants. The lowering runs the blocks a loop of whole trips leaves over
// right after the peeled first one, so the trips start at a multiple of the
// factor where it divides a tile's K blocks. A counter per copy had cost the
// 128x64 kernels (4 copies over 8 stages) about ten uniform instructions
// per K block: 80 -> 70, 0.970-0.988x the time at 512 x 2112 x 7168 and
// 128 / 512 x 7168 x 2048 (H200, docs/PERF.md, thirty-eighth session). Not
// for two copies (128x32): they ran 2.3% slower so, and 4.5% slower with
// the producer's loop alone sharing (not understood).
bool KernelConfig::hasAlignedKLoopTrips() const {
  if (!fixedK || stages <= 0)
    return false;
  int64_t factor = getKLoopUnroll();
  return factor >= 3 && (factor % stages == 0 || stages % factor == 0);
}

std::string mlir::fgemm::checkKernelConfig(const KernelConfig &c,
                                           bool resolved) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (c.blockM != 64 && c.blockM != 128 && c.blockM != 192 && c.blockM != 256)
    return "block-m must be 64, 128, 192 or 256 (64 or 128 rows per math "
           "warpgroup, in waves of WGMMA's M = 64), got " +
           str(c.blockM);
  if (c.blockN < 8 || c.blockN > kMaxBlockNGrouped || c.blockN % 8 != 0)
    return "block-n must be a multiple of 8 in [8, " + str(kMaxBlockN) +
           "] (WGMMA's N), or " + str(kMaxBlockNGrouped) + " (two groups of " +
           str(kColumnGroupN) + " columns), got " + str(c.blockN);
  // Each math thread holds block_n / 2 partial and block_n / 2 promoted FP32
  // values; beyond 192 they no longer fit next to the addressing registers
  // under setmaxnreg 232 and ptxas spills. 256 columns are issued as two
  // groups of 128 through one 64-register partial sum.
  if (c.blockN > kMaxBlockN && c.blockN != kMaxBlockNGrouped)
    return "block-n must be at most " + str(kMaxBlockN) + ", or " +
           str(kMaxBlockNGrouped) + " as two groups of " + str(kColumnGroupN) +
           " columns (the accumulators of another width do not fit in the "
           "math warpgroups' registers), got " +
           str(c.blockN);
  if (c.blockK != 128)
    return "block-k must be 128 (the K granularity of the scales), got " +
           str(c.blockK);
  if (c.stages < (resolved ? 1 : 0) || c.stages > kMaxStages)
    return std::string("stages must be in [1, 16]") +
           (resolved ? "" : ", or 0 for as many as fit") + "; got " +
           str(c.stages);
  if (c.mathWarpgroups < (resolved ? 1 : 0) || c.mathWarpgroups > 3)
    return std::string("math-warpgroups must be 1, 2 or 3") +
           (resolved ? ""
                     : ", or 0 for min(2, block-m / 64) (3 with block-m 192)") +
           "; got " + str(c.mathWarpgroups);
  if (c.mathWarpgroups && c.getRowsPerWarpgroup() != 64 &&
      c.getRowsPerWarpgroup() != 128)
    return "each math warpgroup owns 64 or 128 rows (one or two m64 waves); "
           "block-m " +
           str(c.blockM) + " with " + str(c.mathWarpgroups) +
           " math warpgroups would need " + str(c.getRowsPerWarpgroup()) +
           " rows each";
  // Two waves keep two promoted accumulators and one partial sum per thread
  // (3 x block_n / 2 FP32 registers): 128 columns is the widest that fits
  // under setmaxnreg 232 without spilling (ptxas 13.0).
  if (c.getWaves() > 1 && c.blockN > kMaxBlockNTwoWaves)
    return "block-n must be at most " + str(kMaxBlockNTwoWaves) +
           " with two m64 waves per math warpgroup (block-m " + str(c.blockM) +
           " on " + str(c.mathWarpgroups) +
           " math warpgroups): their accumulators would not fit in "
           "registers; got " +
           str(c.blockN);
  // Three math warpgroups (block-m 192, 512 threads) share the register file
  // as 3 x 160 + 32 registers per thread: a promoted accumulator and a
  // partial sum (block_n FP32 registers) fit beside the addressing up to 128
  // columns (ptxas 13.0 spills at 136).
  if (c.mathWarpgroups == 3 && c.blockN > kMaxBlockNThreeWarpgroups)
    return "block-n must be at most " + str(kMaxBlockNThreeWarpgroups) +
           " with three math warpgroups (" + str(kConsumerRegsThreeWarpgroups) +
           " registers per math thread): their accumulators would not fit in "
           "registers; got " +
           str(c.blockN);
  if (c.mathWarpgroups == 3 && c.overlapPromotion)
    return "overlap-promotion's second partial sum does not fit in the " +
           str(kConsumerRegsThreeWarpgroups) +
           " registers of three math warpgroups' threads: it needs 1 or 2 "
           "math warpgroups";
  if (c.getColumnGroups() > 1 && c.overlapPromotion)
    return "overlap-promotion keeps a second partial sum in flight: it does "
           "not combine with block-n " +
           str(c.blockN) + " (column groups)";
  if (c.getWaves() > 1 && c.overlapPromotion)
    return "overlap-promotion needs one m64 wave per math warpgroup (a "
           "second in-flight partial sum does not fit beside two "
           "accumulators); block-m " +
           str(c.blockM) + " on " + str(c.mathWarpgroups) +
           " math warpgroups has two";
  if (c.overlapEpilogue && c.schedule != Schedule::Persistent)
    return "overlap-epilogue defers each tile's store into the next tile's "
           "first K block: it needs schedule persistent, got " +
           getKnobValueName(c.schedule).str();
  if (c.prefetchScales && c.schedule != Schedule::Persistent)
    return "prefetch-scales loads each tile's first scales during the "
           "previous tile of a persistent CTA: it needs schedule persistent, "
           "got " +
           getKnobValueName(c.schedule).str();
  if (c.prefetchScales && (c.overlapEpilogue || c.overlapPromotion))
    return std::string("prefetch-scales cannot be combined with ") +
           (c.overlapEpilogue ? "overlap-epilogue" : "overlap-promotion") +
           " (their first K block stages the tile's scales itself)";
  if (c.overlapEpilogue && c.overlapPromotion)
    return "overlap-epilogue and overlap-promotion cannot be combined (the "
           "overlapped loop keeps a second partial sum in flight where the "
           "deferred store needs the registers)";
  if (c.cluster != 1 && c.cluster != 2)
    return "cluster must be 1 or 2 (CTAs sharing one operand tile by TMA "
           "multicast), got " +
           str(c.cluster);
  // Each CTA of a cluster TMA-loads 1/cluster of the shared tile's rows into
  // the 128-byte-swizzled slot, whose pattern repeats every 8 rows.
  int64_t sharedRows = c.multicast == Multicast::A ? c.blockM : c.blockN;
  if (c.cluster > 1 && (sharedRows / c.cluster) % 8 != 0)
    return "a cluster of " + str(c.cluster) + " sharing " +
           (c.multicast == Multicast::A ? "A" : "B") + " splits its " +
           str(sharedRows) + " rows into " + str(sharedRows / c.cluster) +
           "-row parts; each must be a multiple of 8 rows (the 128-byte "
           "swizzle's "
           "1024-byte atom)";
  if (c.kSplit != 1 && c.kSplit != 2 && c.kSplit != 4)
    return "k-split must be 1, 2 or 4 (CTAs of a cluster sharing one tile's "
           "K blocks), got " +
           str(c.kSplit);
  if (c.kSplit > 1 && c.cluster != 1)
    return "k-split " + str(c.kSplit) +
           " makes the cluster of the tile's K shares; it needs cluster = 1 "
           "(no operand multicast), got cluster " +
           str(c.cluster);
  if (c.kSplit > 1 && c.schedule != Schedule::Plain)
    return "k-split " + str(c.kSplit) +
           " needs schedule = plain (one cluster per output tile), got " +
           getKnobValueName(c.schedule).str();
  if (c.rasterGroup < 0 || c.rasterGroup > kMaxRasterGroup)
    return "raster-group must be in [0, " + str(kMaxRasterGroup) + "], got " +
           str(c.rasterGroup);
  if (c.fixedN < 0 || c.fixedN % 8 != 0 || c.fixedN > INT32_MAX)
    return "fixed N must be 0 (any) or a positive multiple of 8 (BF16 rows of "
           "D need "
           "16-byte strides for TMA), got " +
           str(c.fixedN);
  if (c.fixedK < 0 || c.fixedK % 16 != 0 || c.fixedK > INT32_MAX)
    return "fixed K must be 0 (any) or a positive multiple of 16 (FP8 rows of "
           "A and B need "
           "16-byte strides for TMA), got " +
           str(c.fixedK);
  if (c.sassEveryN < 1 || c.sassEveryN > 64)
    return "sass-every-n must be in [1, 64], got " + str(c.sassEveryN);
  return "";
}
