//===- FfmaInterleave.cpp - FFMA yield/reuse interleave pass ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Restates DeepGEMM's `interleave_ffma.py` (and DeeperGEMM's every-N variant)
// on decoded instruction words instead of cuobjdump text (SASS.md §5.2-§5.4):
//
//   for each maximal run of n >= 8 consecutive FFMAs:
//     window m = floor(9n/16) (deepgemm) or n (deepgemm-full, every-n)
//     seen = {}, lastReused = false, lastKey = none, since = 0
//     for the first m FFMAs:
//       key    = DeepGEMM's "dst_reg": the second-to-last plain register
//                operand (in practice the reused Rb, e.g. the scale register)
//       reused = reuse-b bit (123) set
//       every-n: since = 0 if the FFMA neither reuses b nor yields, else +1
//       if reused and (key not in seen or (lastReused and key == lastKey))
//                 and (every-n: since >= N):
//         flip (clear reuse b, set yield), reused = false, since = 0
//       seen += key, lastReused = reused, lastKey = key
//
// Example, ptxas chain of 64 FFMAs sharing Rb:
//   before         bbbbbbbb...bbbbbbbY
//   deepgemm-full  YbYbYbYb...YbYbYbbY
//   every-n (4)    bbbYbbbY...bbbYbbbY
//
// Differences from the Python originals, on purpose:
//   * strict: a selected FFMA whose flip would not be a valid encoding (reuse
//     on a or c too, already yielding, no b register) is counted as
//     "refused" and keeps its reuse (SASS.md §5.5); DeepGEMM flips it anyway.
//     On every ptxas output seen so far the two agree.
//   * position-based: each run is patched where it is; DeepGEMM patches every
//     byte-identical copy of the window anywhere in the file (SASS.md §5.3).
//   * DeeperGEMM reads N from an environment variable as a string (a
//     TypeError in Python 3, so effectively 4); here N is an option.
//   * relocation targets are never patched.
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/FfmaInterleave.h"
#include "Target/SASS/Cubin.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <bitset>

using namespace fgemm::sass;
using namespace llvm;

namespace {

/// DeepGEMM windows: (2n * 9 // 16) // 2 * 2 listing lines, i.e. floor(9n/16)
/// FFMAs (SASS.md §5.2, fcd1dcd).
constexpr uint64_t kWindowNumerator = 9;
constexpr uint64_t kWindowDenominator = 16;

/// "No key register" (DeepGEMM would raise IndexError here).
constexpr int kNoKey = -1;

/// DeepGEMM's key: `parse_registers(line)[-2]`, the second-to-last operand
/// printed as a plain `R...` token. Negated/abs registers print as `-R`/`|R|`
/// and uniform registers as `UR`, so neither counts; RZ does (SASS.md §5.2).
int keyRegister(const DecodedInstruction &inst) {
  SmallVector<uint8_t, 4> regs;
  regs.push_back(inst.rd.reg);
  for (const Operand *op : {&inst.ra, &inst.rb, &inst.rc})
    if (op->isReg() && !op->neg && !op->abs)
      regs.push_back(op->reg);
  if (regs.size() < 2)
    return kNoKey;
  return regs[regs.size() - 2];
}

uint64_t windowSize(const InterleaveOptions &options, uint64_t n) {
  switch (options.policy) {
  case InterleavePolicy::Off:
    return 0;
  case InterleavePolicy::DeepGemm:
    return n * kWindowNumerator / kWindowDenominator;
  case InterleavePolicy::DeepGemmFull:
  case InterleavePolicy::EveryN:
    return n;
  }
  return 0;
}

std::string patternOf(ArrayRef<SassWord> words, const FfmaRun &run) {
  std::string s;
  for (uint64_t i = 0; i < run.length; ++i)
    s.push_back(
        decodeInstruction(words[run.firstWord + i]).control.patternChar());
  return s;
}

/// Applies the policy to one run, appending the changed word indices.
void interleaveRun(MutableArrayRef<SassWord> words, const FfmaRun &run,
                   const InterleaveOptions &options,
                   ArrayRef<uint64_t> lockedWords, FfmaRunReport &report,
                   std::vector<uint64_t> &changedWords) {
  report.window = windowSize(options, run.length);
  std::bitset<256> seen;
  bool lastReused = false;
  int lastKey = kNoKey;
  uint64_t sinceYield = 0;
  const bool everyN = options.policy == InterleavePolicy::EveryN;

  for (uint64_t i = 0; i < report.window; ++i) {
    uint64_t index = run.firstWord + i;
    DecodedInstruction inst = decodeInstruction(words[index]);
    int key = keyRegister(inst);
    // DeepGEMM tests the raw bit 123, whatever usched says (SASS.md §5.2).
    bool reused = inst.control.rawReuseBBit();
    if (everyN) {
      // DeeperGEMM: `yielding = (hi & 0x0800200000000000) == 0`, i.e. the
      // FFMA yields and has no reuse-b bit.
      bool yielding = (inst.word.hi & interleaveHiMask()) == 0;
      sinceYield = yielding ? 0 : sinceYield + 1;
    }
    if (reused && key != kNoKey) {
      bool selected = !seen.test(key) || (lastReused && key == lastKey);
      if (everyN)
        selected = selected && sinceYield >= options.everyN;
      if (selected) {
        if (canFlipReuseBToYield(inst) && !is_contained(lockedWords, index)) {
          words[index].hi = flipReuseBToYield(words[index].hi);
          reused = false;
          sinceYield = 0;
          ++report.changed;
          changedWords.push_back(index);
        } else {
          ++report.refused;
        }
      }
    }
    if (key != kNoKey)
      seen.set(key);
    lastReused = reused;
    lastKey = key;
  }
}

} // namespace

std::optional<InterleavePolicy>
fgemm::sass::parseInterleavePolicy(StringRef name) {
  return StringSwitch<std::optional<InterleavePolicy>>(name)
      .Case("off", InterleavePolicy::Off)
      .Case("deepgemm", InterleavePolicy::DeepGemm)
      .Case("deepgemm-full", InterleavePolicy::DeepGemmFull)
      .Case("every-n", InterleavePolicy::EveryN)
      .Default(std::nullopt);
}

StringRef fgemm::sass::interleavePolicyName(InterleavePolicy policy) {
  switch (policy) {
  case InterleavePolicy::Off:
    return "off";
  case InterleavePolicy::DeepGemm:
    return "deepgemm";
  case InterleavePolicy::DeepGemmFull:
    return "deepgemm-full";
  case InterleavePolicy::EveryN:
    return "every-n";
  }
  return "off";
}

std::vector<FfmaRun>
fgemm::sass::findFfmaRuns(ArrayRef<DecodedInstruction> code) {
  std::vector<FfmaRun> runs;
  for (uint64_t i = 0, e = code.size(); i < e;) {
    if (!code[i].isFfma()) {
      ++i;
      continue;
    }
    FfmaRun run;
    run.firstWord = i;
    while (i < e && code[i].isFfma())
      ++i;
    run.length = i - run.firstWord;
    runs.push_back(run);
  }
  return runs;
}

uint64_t KernelInterleaveReport::refused() const {
  uint64_t n = 0;
  for (const FfmaRunReport &r : runs)
    n += r.refused;
  return n;
}

KernelInterleaveReport
fgemm::sass::interleaveFfma(MutableArrayRef<SassWord> words,
                            const InterleaveOptions &options,
                            ArrayRef<uint64_t> lockedWords) {
  KernelInterleaveReport report;
  report.policy = options.policy;
  report.numInstructions = words.size();
  std::vector<DecodedInstruction> code;
  code.reserve(words.size());
  for (const SassWord &w : words) {
    code.push_back(decodeInstruction(w));
    report.numFfma += code.back().isFfma();
  }
  for (const FfmaRun &run : findFfmaRuns(code)) {
    if (run.length < options.minRunLength) {
      ++report.shortRuns;
      continue;
    }
    FfmaRunReport runReport;
    runReport.run = run;
    runReport.before = patternOf(words, run);
    interleaveRun(words, run, options, lockedWords, runReport,
                  report.changedWords);
    runReport.after = patternOf(words, run);
    report.runs.push_back(std::move(runReport));
  }
  return report;
}

std::vector<KernelInterleaveReport>
fgemm::sass::interleaveCubin(Cubin &cubin, const InterleaveOptions &options,
                             bool dryRun) {
  std::vector<KernelInterleaveReport> reports;
  for (const KernelCode &kernel : cubin.kernels()) {
    std::vector<SassWord> words = cubin.words(kernel);
    KernelInterleaveReport report =
        interleaveFfma(words, options, kernel.relocatedWords);
    report.kernel = kernel.name;
    if (!dryRun)
      for (uint64_t index : report.changedWords)
        cubin.setHi(kernel, index, words[index].hi);
    reports.push_back(std::move(report));
  }
  return reports;
}

void fgemm::sass::printInterleaveReport(raw_ostream &os,
                                        const KernelInterleaveReport &report,
                                        const InterleaveOptions &options) {
  os << "kernel " << report.kernel
     << ": policy=" << interleavePolicyName(report.policy);
  if (report.policy == InterleavePolicy::EveryN)
    os << " n=" << options.everyN;
  os << " instructions=" << report.numInstructions << " ffma=" << report.numFfma
     << " runs=" << report.runs.size() << " short-runs=" << report.shortRuns
     << " changed=" << report.changed() << " refused=" << report.refused()
     << "\n";
  for (const FfmaRunReport &r : report.runs) {
    os << "  run at " << format_hex(r.run.firstWord * kSassWordBytes, 6)
       << " length=" << r.run.length << " window=" << r.window
       << " changed=" << r.changed << " refused=" << r.refused << "\n"
       << "    before: " << r.before << "\n"
       << "    after:  " << r.after << "\n";
  }
}
