//===- KernelMeta.h - The .meta launch description of a cubin ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// fgemmc writes NAME.meta next to NAME.cubin (docs/ABI.md): one key=value
// per line, `#` starts a comment. The parser is strict because a silently
// ignored or defaulted key means a launch with the wrong grid, block or
// shared memory: unknown, duplicate and missing keys are all errors, and the
// values are checked against the ABI's rules. The one exception is
// `schedule`, added after the first kernels shipped: absent means "plain".
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_KERNELMETA_H
#define FGEMM_RUNTIME_KERNELMETA_H

#include "Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace fgemm {

/// The launch description of one compiled kernel.
struct KernelMeta {
  std::string kernel;  ///< entry symbol in the cubin
  std::string variant; ///< "dense" (the only variant the runtime launches)
  uint32_t blockM = 0;
  uint32_t blockN = 0;
  uint32_t blockK = 0;
  uint32_t stages = 0;
  uint32_t mathWarpgroups = 0;
  uint32_t threads = 0;
  uint32_t smemBytes = 0;
  uint32_t cluster = 0;
  /// "plain" (one CTA per tile) or "persistent" (at most one CTA per SM, each
  /// looping over tiles p, p + P, ...; the runtime sizes the grid).
  std::string schedule = "plain";
  uint32_t fixedN = 0; ///< 0 = any N; otherwise the only N the kernel runs
  uint32_t fixedK = 0; ///< 0 = any K; otherwise the only K the kernel runs

  bool persistent() const { return schedule == "persistent"; }

  /// "bm128_bn128_s5" style summary for messages and tables.
  std::string configName() const;
};

/// Hopper's largest opt-in dynamic shared memory per block (227 KiB).
constexpr uint32_t kMaxSharedMemoryBytes = 227 * 1024;

/// Parses the text of a .meta file; `source` names it in messages
/// ("DIR/NAME.meta:LINE: ...").
Expected<KernelMeta> parseKernelMeta(std::string_view text,
                                     const std::string &source);

/// Reads and parses the .meta file at `path`.
Expected<KernelMeta> readKernelMeta(const std::string &path);

/// Checks the parsed values against the ABI (also run by parseKernelMeta).
Status validateKernelMeta(const KernelMeta &meta);

} // namespace fgemm

#endif // FGEMM_RUNTIME_KERNELMETA_H
