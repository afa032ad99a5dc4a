//===- FgemmSassFuzzer.cpp - libFuzzer target: reader, decoder, pass ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the cubin reader, and (whether or not they parse)
// to the decoder and every interleave policy as raw instruction words. Beyond
// "no crash, no sanitizer report", it checks the pass's contract on every
// input and aborts if it is broken:
//
//   * only `hi` words change, and each changed word differs by exactly the
//     reuse-b/yield flip, on an FFMA that the strict rule allows;
//   * the report's changed words are exactly the words that changed;
//   * a second run over the output changes nothing (idempotence);
//   * on a cubin that parses, compareCubins finds only those flips.
//
// Built by scripts/run-fuzz.sh (FGEMM_BUILD_FUZZERS=ON, clang).
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/Cubin.h"
#include "Target/SASS/FfmaInterleave.h"
#include "Target/SASS/InstructionDecoder.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace fgemm::sass;

namespace {

[[noreturn]] void violation(const char *what) {
  std::fprintf(stderr, "fgemm-sass-fuzz: contract violated: %s\n", what);
  std::abort();
}

std::vector<InterleaveOptions> allPolicies() {
  std::vector<InterleaveOptions> all;
  for (InterleavePolicy p :
       {InterleavePolicy::Off, InterleavePolicy::DeepGemm,
        InterleavePolicy::DeepGemmFull, InterleavePolicy::EveryN}) {
    InterleaveOptions o;
    o.policy = p;
    all.push_back(o);
  }
  // Short runs and small N reach more of the pass on small inputs.
  InterleaveOptions every2;
  every2.policy = InterleavePolicy::EveryN;
  every2.everyN = 2;
  every2.minRunLength = 2;
  all.push_back(every2);
  InterleaveOptions full1;
  full1.policy = InterleavePolicy::DeepGemmFull;
  full1.minRunLength = 1;
  all.push_back(full1);
  return all;
}

/// Runs one policy over `words` and checks the contract.
void checkPass(const std::vector<SassWord> &original,
               const InterleaveOptions &options) {
  std::vector<SassWord> words = original;
  KernelInterleaveReport report = interleaveFfma(words, options);
  uint64_t changed = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == original[i])
      continue;
    ++changed;
    if (words[i].lo != original[i].lo)
      violation("a lo word changed");
    if ((words[i].hi ^ original[i].hi) != interleaveHiMask())
      violation("a hi word changed by more than the flip");
    if (!canFlipReuseBToYield(decodeInstruction(original[i])))
      violation("a word was flipped that the strict rule forbids");
    if (!llvm::is_contained(report.changedWords, i))
      violation("a changed word is missing from the report");
  }
  if (changed != report.changed())
    violation("report count differs from the words changed");
  if (options.policy == InterleavePolicy::Off && changed != 0)
    violation("policy off changed something");

  std::vector<SassWord> again = words;
  if (interleaveFfma(again, options).changed() != 0 || again != words)
    violation("the pass is not idempotent");

  llvm::raw_null_ostream null;
  printInterleaveReport(null, report, options);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // 1. Raw words: the decoder and the pass must cope with any bit pattern.
  std::vector<SassWord> words;
  for (size_t off = 0; off + kSassWordBytes <= size; off += kSassWordBytes) {
    SassWord w;
    w.lo = llvm::support::endian::read64le(data + off);
    w.hi = llvm::support::endian::read64le(data + off + 8);
    words.push_back(w);
  }
  llvm::raw_null_ostream null;
  for (const SassWord &w : words)
    printInstruction(null, decodeInstruction(w));
  for (const InterleaveOptions &options : allPolicies())
    checkPass(words, options);

  // 2. The same bytes as a cubin: errors are fine, crashes are not.
  llvm::Expected<Cubin> cubin =
      Cubin::create(llvm::ArrayRef(data, size), "fuzz-input");
  if (!cubin) {
    llvm::consumeError(cubin.takeError());
    return 0;
  }
  for (const InterleaveOptions &options : allPolicies()) {
    llvm::Expected<Cubin> patched =
        Cubin::create(llvm::ArrayRef(data, size), "fuzz-input");
    if (!patched)
      violation("a cubin parsed once but not twice");
    std::vector<KernelInterleaveReport> reports =
        interleaveCubin(*patched, options, /*dryRun=*/false);
    uint64_t reported = 0;
    for (const KernelInterleaveReport &r : reports)
      reported += r.changed();
    llvm::Expected<CubinDifference> diff = compareCubins(*cubin, *patched);
    if (!diff)
      violation("compareCubins refused a patched copy");
    if (diff->bytesOutsideCode != 0)
      violation("bytes outside .text changed");
    // Overlapping .text sections could make one word count twice; the
    // difference list can only be shorter than the report, never longer.
    if (diff->words.size() > reported)
      violation("more words changed than reported");
    for (const WordDifference &d : diff->words)
      if (d.before.lo != d.after.lo ||
          (d.before.hi ^ d.after.hi) != interleaveHiMask())
        violation("a cubin word changed by more than the flip");
  }
  return 0;
}
