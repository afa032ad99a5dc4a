//===- FfmaInterleave.h - FFMA yield/reuse interleave pass ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The post-ptxas FFMA interleave pass: in runs of consecutive FFMAs, turn
// "reuse operand b" into "yield" on selected FFMAs so that the warp scheduler
// can switch warps inside long promotion chains (DeepGEMM's trick, SASS.md
// §5). Policies:
//
//   off            change nothing (report only)
//   deepgemm       DeepGEMM fcd1dcd..bfe983c: the first floor(9n/16) FFMAs
//                  of a run, key-register rule (SASS.md §5.2)
//   deepgemm-full  DeepGEMM a6d97a1: the same rule on all n FFMAs of a run
//   every-n        DeeperGEMM 7df611f: all n FFMAs, the key-register rule plus
//                  at most one yield per N FFMAs (SASS.md §5.4)
//
// All policies are strict (SASS.md §5.5): an FFMA is flipped only if the
// result is a valid encoding; other candidates are counted as "refused" and
// keep their reuse. The pass is idempotent: running it on its own output
// changes nothing.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TARGET_SASS_FFMAINTERLEAVE_H
#define FGEMM_TARGET_SASS_FFMAINTERLEAVE_H

#include "Target/SASS/InstructionDecoder.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fgemm::sass {

class Cubin;

enum class InterleavePolicy : uint8_t { Off, DeepGemm, DeepGemmFull, EveryN };

/// Parses "off", "deepgemm", "deepgemm-full", "every-n".
std::optional<InterleavePolicy> parseInterleavePolicy(llvm::StringRef name);
llvm::StringRef interleavePolicyName(InterleavePolicy policy);

struct InterleaveOptions {
  InterleavePolicy policy = InterleavePolicy::Off;
  /// every-n: at most one yield per this many FFMAs (DeeperGEMM's N = 4).
  unsigned everyN = 4;
  /// Runs shorter than this are left alone (DeepGEMM: 16 listing lines = 8
  /// FFMAs).
  unsigned minRunLength = 8;
};

/// A maximal sequence of consecutive FFMA instructions.
struct FfmaRun {
  uint64_t firstWord = 0; ///< index of the first FFMA in the kernel
  uint64_t length = 0;
};

/// Finds all maximal FFMA runs (of any length) in a decoded kernel.
std::vector<FfmaRun> findFfmaRuns(llvm::ArrayRef<DecodedInstruction> code);

/// Per-run outcome.
struct FfmaRunReport {
  FfmaRun run;
  uint64_t window = 0;  ///< FFMAs the policy examined (from the run start)
  uint64_t changed = 0; ///< FFMAs flipped
  uint64_t refused = 0; ///< FFMAs the rule selected but strictness refused
  std::string before;   ///< pattern of the whole run before (see patternChar)
  std::string after;    ///< and after
};

/// Per-kernel outcome.
struct KernelInterleaveReport {
  std::string kernel;
  InterleavePolicy policy = InterleavePolicy::Off;
  uint64_t numInstructions = 0;
  uint64_t numFfma = 0;
  uint64_t shortRuns = 0;             ///< runs below minRunLength, untouched
  std::vector<FfmaRunReport> runs;    ///< runs of at least minRunLength
  std::vector<uint64_t> changedWords; ///< word indices whose `hi` changed

  uint64_t changed() const { return changedWords.size(); }
  uint64_t refused() const;
};

/// Runs the pass over one kernel's words in place. `lockedWords` (sorted or
/// not) are never changed: relocation targets.
KernelInterleaveReport
interleaveFfma(llvm::MutableArrayRef<SassWord> words,
               const InterleaveOptions &options,
               llvm::ArrayRef<uint64_t> lockedWords = {});

/// Runs the pass over every kernel of `cubin`; with `dryRun` the cubin is left
/// unchanged and the reports say what would change.
std::vector<KernelInterleaveReport>
interleaveCubin(Cubin &cubin, const InterleaveOptions &options, bool dryRun);

/// Prints the report in the format documented in docs/SASS-PASS.md.
void printInterleaveReport(llvm::raw_ostream &os,
                           const KernelInterleaveReport &report,
                           const InterleaveOptions &options);

} // namespace fgemm::sass

#endif // FGEMM_TARGET_SASS_FFMAINTERLEAVE_H
