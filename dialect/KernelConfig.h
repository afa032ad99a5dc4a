//===- KernelConfig.h - a kernel's configuration knobs -----------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// KernelConfig holds one value per knob of dialect/KernelConfig.def. It is
// the C++ face of #fgemm.config, what fgemmc's flags and the pass options fill
// in, and what the compile library takes. checkKernelConfig is the one place
// that knows the allowed ranges.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_KERNELCONFIG_H
#define FGEMM_DIALECT_KERNELCONFIG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace mlir::fgemm {

/// Which operand tile the CTAs of a cluster share by TMA multicast.
enum class Multicast { A, B };
/// How output tiles map onto CTAs.
enum class Schedule { Plain, Persistent, StreamK };
/// The post-ptxas FFMA interleave (lib/Target/SASS).
enum class SassPolicy { Off, DeepGemm, DeepGemmFull, EveryN };

/// Names of an enum knob's values, as flags and #fgemm.config spell them.
template <typename E>
struct KnobValues;
template <>
struct KnobValues<Multicast> {
  static constexpr std::pair<Multicast, const char *> list[] = {
      {Multicast::A, "a"}, {Multicast::B, "b"}};
};
template <>
struct KnobValues<Schedule> {
  static constexpr std::pair<Schedule, const char *> list[] = {
      {Schedule::Plain, "plain"},
      {Schedule::Persistent, "persistent"},
      {Schedule::StreamK, "stream_k"}};
};
template <>
struct KnobValues<SassPolicy> {
  static constexpr std::pair<SassPolicy, const char *> list[] = {
      {SassPolicy::Off, "off"},
      {SassPolicy::DeepGemm, "deepgemm"},
      {SassPolicy::DeepGemmFull, "deepgemm-full"},
      {SassPolicy::EveryN, "every-n"}};
};

template <typename E>
llvm::StringRef getKnobValueName(E value) {
  for (const auto &[v, name] : KnobValues<E>::list)
    if (v == value)
      return name;
  return "?";
}
template <typename E>
std::optional<E> parseKnobValue(llvm::StringRef name) {
  for (const auto &[v, n] : KnobValues<E>::list)
    if (name == n)
      return v;
  return std::nullopt;
}
/// "a, b" for messages.
template <typename E>
std::string listKnobValues() {
  std::string s;
  for (const auto &[v, name] : KnobValues<E>::list)
    s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

/// Widest tile whose accumulators fit in the math warpgroups' registers as
/// one WGMMA group per wave.
inline constexpr int64_t kMaxBlockN = 192;
/// Columns of each WGMMA group of a wider wave (block_n 256 as two groups
/// sharing the wave's A rows: as fast as 256x128 tiles at long K and up to
/// 5% faster at short K; in scripts/wgmma_operand_reuse.cu, without TMA,
/// such groups kept the tensor pipe 98% busy against 75% for two m64 waves
/// sharing B; H100, docs/PERF.md, thirty-third session).
inline constexpr int64_t kColumnGroupN = 128;
/// Widest tile: two column groups of one m64 wave per math warpgroup.
inline constexpr int64_t kMaxBlockNGrouped = 2 * kColumnGroupN;

/// One value per knob of KernelConfig.def; the defaults are the flags'.
struct KernelConfig {
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  TYPE NAME = DEFAULT;
#include "dialect/KernelConfig.def"

  bool operator==(const KernelConfig &other) const;
  bool operator!=(const KernelConfig &other) const { return !(*this == other); }

  /// Rows each math warpgroup owns (block_m / math_warpgroups).
  int64_t getRowsPerWarpgroup() const {
    return mathWarpgroups > 0 ? blockM / mathWarpgroups : 0;
  }
  /// m64 WGMMA waves per math warpgroup (its rows / 64): each wave has its
  /// own promoted accumulator and reuses one partial sum.
  int64_t getWaves() const { return getRowsPerWarpgroup() / 64; }
  /// WGMMA groups per wave along N: a wave wider than kMaxBlockN (one
  /// m64 wave per warpgroup only) issues its columns as groups of
  /// kColumnGroupN that share the wave's A rows, each with its own wait and
  /// promotion through one partial sum of kColumnGroupN / 2 registers.
  int64_t getColumnGroups() const {
    return blockN > kMaxBlockN ? blockN / kColumnGroupN : 1;
  }
  /// Columns of one WGMMA group (block_n, or kColumnGroupN when split).
  int64_t getGroupN() const { return blockN / getColumnGroups(); }
  /// Threads per CTA: one producer warpgroup plus the math warpgroups.
  int64_t getNumThreads() const { return 128 * (1 + mathWarpgroups); }
  /// K blocks per trip of the unrolled K loops (convert-fgemm-to-nvvm).
  int64_t getKLoopUnroll() const;
  /// Whether, with K compiled in, a trip of the K loops that starts at a
  /// multiple of the unroll factor sees its ring stages in order without
  /// wrapping (the factor a multiple or a divisor of the stages).
  bool hasAlignedKLoopTrips() const;
};

llvm::hash_code hash_value(const KernelConfig &config);

/// Deepest pipeline fgemm-specialize considers.
inline constexpr int64_t kMaxStages = 16;
/// Widest tile with two m64 waves per math warpgroup.
inline constexpr int64_t kMaxBlockNTwoWaves = 128;
/// setmaxnreg counts of the producer and the math warpgroups: 40 + 2 x 232
/// per thread (384 threads), or 32 + 3 x 160 with three math warpgroups
/// (512 threads: the whole register file; at 24 the producer's loads of
/// tiles past their source's last row spilled); fgemm-warp-specialize
/// applies them, the verifier sizes the accumulators by them.
inline constexpr int64_t kProducerRegs = 40, kConsumerRegs = 232,
                         kProducerRegsThreeWarpgroups = 32,
                         kConsumerRegsThreeWarpgroups = 160;
/// Widest tile with three math warpgroups (kConsumerRegsThreeWarpgroups
/// registers per thread).
inline constexpr int64_t kMaxBlockNThreeWarpgroups = 128;
/// Largest raster group (tile rows walked together).
inline constexpr int64_t kMaxRasterGroup = 64;

/// Checks every knob against what the compiler implements; returns "" when
/// the configuration is valid, else a message that says what is allowed.
/// With `resolved`, the "choose for me" values (stages = 0,
/// math_warpgroups = 0) are errors: #fgemm.config always holds the choice.
std::string checkKernelConfig(const KernelConfig &config, bool resolved);

} // namespace mlir::fgemm

#endif // FGEMM_DIALECT_KERNELCONFIG_H
