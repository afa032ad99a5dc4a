//===- fgemm-sass.cpp - stand-alone post-ptxas SASS pass tool ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// fgemm-sass dump       [--kernel=NAME] in.cubin
// fgemm-sass stats      [--kernel=NAME] [--min-run=N] in.cubin
// fgemm-sass interleave --policy=off|deepgemm|deepgemm-full|every-n
//                       [--every-n=N] [--min-run=N] [--dry-run]
//                       in.cubin -o out.cubin
// fgemm-sass compare    before.cubin after.cubin
//
// Exit status: 0 success, 1 error (bad input file, refused cubin, I/O),
// 2 usage error. Output formats are described in docs/SASS-PASS.md; lit tests
// and test/Target/SASS/Inputs/crosscheck.py parse them, so keep them stable.
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/Cubin.h"
#include "Target/SASS/FfmaInterleave.h"
#include "Target/SASS/InstructionDecoder.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace fgemm::sass;
using namespace llvm;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

cl::SubCommand dumpCmd("dump", "Print every instruction of every kernel, "
                               "decoded (offset, class, registers, control)");
cl::SubCommand statsCmd("stats",
                        "Print FFMA runs with their yield/reuse counts");
cl::SubCommand
    interleaveCmd("interleave",
                  "Apply the FFMA yield/reuse interleave pass and report");
cl::SubCommand compareCmd("compare", "List the instruction words in which a "
                                     "patched cubin differs from its input");

cl::OptionCategory sassCategory("fgemm-sass options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<in.cubin>"),
                               cl::sub(dumpCmd), cl::sub(statsCmd),
                               cl::sub(interleaveCmd), cl::cat(sassCategory));
cl::list<std::string> compareFiles(cl::Positional,
                                   cl::desc("<before.cubin> <after.cubin>"),
                                   cl::sub(compareCmd), cl::cat(sassCategory));
cl::opt<std::string> kernelFilter("kernel",
                                  cl::desc("Only this kernel (section suffix)"),
                                  cl::sub(dumpCmd), cl::sub(statsCmd),
                                  cl::cat(sassCategory));
cl::opt<std::string>
    policyName("policy", cl::desc("off | deepgemm | deepgemm-full | every-n"),
               cl::sub(interleaveCmd), cl::cat(sassCategory));
cl::opt<unsigned> everyN("every-n",
                         cl::desc("every-n: at most one yield per N FFMAs"),
                         cl::init(4), cl::sub(interleaveCmd),
                         cl::cat(sassCategory));
cl::opt<unsigned> minRun("min-run",
                         cl::desc("Shortest FFMA run the pass considers"),
                         cl::init(8), cl::sub(interleaveCmd), cl::sub(statsCmd),
                         cl::cat(sassCategory));
cl::opt<bool> dryRun("dry-run", cl::desc("Report only; write nothing"),
                     cl::sub(interleaveCmd), cl::cat(sassCategory));
cl::opt<std::string> outputFile("o", cl::desc("Output cubin ('-' = stdout)"),
                                cl::value_desc("file"), cl::sub(interleaveCmd),
                                cl::cat(sassCategory));

int reportError(Error err) {
  handleAllErrors(std::move(err), [](const ErrorInfoBase &info) {
    WithColor::error(errs(), "fgemm-sass") << info.message() << "\n";
  });
  return kExitError;
}

int usageError(const Twine &message) {
  WithColor::error(errs(), "fgemm-sass") << message << "\n";
  return kExitUsage;
}

bool selected(const KernelCode &kernel) {
  return kernelFilter.empty() || kernel.name == kernelFilter;
}

void printHeader(raw_ostream &os, const Cubin &cubin) {
  os << "cubin " << cubin.bufferName() << ": sm_" << cubin.smVersion()
     << " abi=" << (cubin.abi() == CudaElfAbi::V1 ? "v1" : "v2")
     << " e_flags=" << format_hex(cubin.elfFlags(), 10)
     << " kernels=" << cubin.kernels().size() << "\n";
}

int runDump(const Cubin &cubin) {
  raw_ostream &os = outs();
  printHeader(os, cubin);
  for (const KernelCode &kernel : cubin.kernels()) {
    if (!selected(kernel))
      continue;
    os << "kernel " << kernel.name << " section=" << kernel.sectionName
       << " index=" << kernel.sectionIndex
       << " offset=" << format_hex(kernel.fileOffset, 2)
       << " size=" << format_hex(kernel.size, 2)
       << " instructions=" << kernel.numWords() << "\n";
    for (uint64_t i = 0, e = kernel.numWords(); i != e; ++i) {
      os << "  " << format_hex(i * kSassWordBytes, 6) << ' ';
      printInstruction(os, decodeInstruction(cubin.word(kernel, i)));
      if (kernel.isRelocated(i))
        os << " relocated";
      os << "\n";
    }
  }
  return kExitOk;
}

int runStats(const Cubin &cubin) {
  raw_ostream &os = outs();
  printHeader(os, cubin);
  for (const KernelCode &kernel : cubin.kernels()) {
    if (!selected(kernel))
      continue;
    std::vector<DecodedInstruction> code;
    for (const SassWord &w : cubin.words(kernel))
      code.push_back(decodeInstruction(w));
    std::vector<FfmaRun> runs = findFfmaRuns(code);
    uint64_t numFfma =
        count_if(code, [](const DecodedInstruction &d) { return d.isFfma(); });
    uint64_t longRuns =
        count_if(runs, [](const FfmaRun &r) { return r.length >= minRun; });
    os << "kernel " << kernel.name << ": instructions=" << code.size()
       << " ffma=" << numFfma << " runs=" << runs.size() << " runs>=" << minRun
       << "=" << longRuns << "\n";
    for (const FfmaRun &run : runs) {
      if (run.length < minRun)
        continue;
      unsigned yield = 0, reuseA = 0, reuseB = 0, reuseC = 0, none = 0;
      std::string pattern;
      for (uint64_t i = 0; i < run.length; ++i) {
        const ControlInfo &c = code[run.firstWord + i].control;
        pattern.push_back(c.patternChar());
        yield += c.yield;
        reuseA += c.reuseA;
        reuseB += c.reuseB;
        reuseC += c.reuseC;
        none += !c.yield && !c.reuseA && !c.reuseB && !c.reuseC;
      }
      os << "  run at " << format_hex(run.firstWord * kSassWordBytes, 6)
         << " length=" << run.length << " yield=" << yield
         << " reuse-a=" << reuseA << " reuse-b=" << reuseB
         << " reuse-c=" << reuseC << " neither=" << none
         << " pattern=" << pattern << "\n";
    }
  }
  return kExitOk;
}

/// Validates the interleave options (before any file is read, so that a bad
/// command line is always exit code 2).
std::optional<InterleaveOptions> interleaveOptions(int &exitCode) {
  exitCode = kExitUsage;
  std::optional<InterleavePolicy> policy = parseInterleavePolicy(policyName);
  if (!policy) {
    usageError("--policy must be one of off, deepgemm, deepgemm-full, "
               "every-n (got '" +
               policyName + "')");
    return std::nullopt;
  }
  if (everyN == 0) {
    usageError("--every-n must be at least 1");
    return std::nullopt;
  }
  if (minRun == 0) {
    usageError("--min-run must be at least 1");
    return std::nullopt;
  }
  if (outputFile.empty() && !dryRun) {
    usageError("interleave needs -o <out.cubin> (or --dry-run)");
    return std::nullopt;
  }
  InterleaveOptions options;
  options.policy = *policy;
  options.everyN = everyN;
  options.minRunLength = minRun;
  return options;
}

int runInterleave(Cubin &cubin, const InterleaveOptions &options) {
  // The report goes to stderr when the cubin itself goes to stdout.
  raw_ostream &os = outputFile == "-" ? errs() : outs();
  for (const KernelInterleaveReport &report :
       interleaveCubin(cubin, options, dryRun))
    printInterleaveReport(os, report, options);
  if (dryRun)
    return kExitOk;
  if (Error err = cubin.writeFile(outputFile))
    return reportError(std::move(err));
  return kExitOk;
}

int runCompare() {
  if (compareFiles.size() != 2)
    return usageError("compare needs exactly two cubins: before after");
  Expected<Cubin> before = Cubin::readFile(compareFiles[0]);
  if (!before)
    return reportError(before.takeError());
  Expected<Cubin> after = Cubin::readFile(compareFiles[1]);
  if (!after)
    return reportError(after.takeError());
  Expected<CubinDifference> diff = compareCubins(*before, *after);
  if (!diff)
    return reportError(diff.takeError());
  raw_ostream &os = outs();
  uint64_t flips = 0, others = 0;
  for (const WordDifference &d : diff->words) {
    DecodedInstruction inst = decodeInstruction(d.before);
    // The only change the pass may make: an FFMA's hi ^= reuse-b | yield.
    bool isFlip = inst.isFfma() && d.before.lo == d.after.lo &&
                  (d.before.hi ^ d.after.hi) == interleaveHiMask();
    (isFlip ? flips : others) += 1;
    os << "  " << d.kernel << ' ' << format_hex(d.offsetInSection, 6) << ' '
       << opClassName(inst.opClass) << (isFlip ? " ffma-flip" : " OTHER-CHANGE")
       << " lo " << format_hex(d.before.lo, 18) << " -> "
       << format_hex(d.after.lo, 18) << " hi " << format_hex(d.before.hi, 18)
       << " -> " << format_hex(d.after.hi, 18) << " "
       << decodeInstruction(d.before).control.patternChar() << "->"
       << decodeInstruction(d.after).control.patternChar() << "\n";
  }
  os << "compare: words=" << diff->words.size() << " ffma-flips=" << flips
     << " other-words=" << others
     << " bytes-outside-code=" << diff->bytesOutsideCode << "\n";
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(sassCategory);
  std::string parseErrors;
  raw_string_ostream parseErrorStream(parseErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "fgemm-sass: decode sm_90 cubins and apply the FFMA interleave "
          "pass\n",
          &parseErrorStream)) {
    errs() << parseErrors;
    return kExitUsage;
  }

  if (compareCmd)
    return runCompare();
  if (!dumpCmd && !statsCmd && !interleaveCmd) {
    errs() << "usage: fgemm-sass dump|stats|interleave|compare [options] "
              "<files>  (see --help)\n";
    return kExitUsage;
  }
  if (inputFile.empty())
    return usageError("missing input cubin");
  std::optional<InterleaveOptions> options;
  if (interleaveCmd) {
    int exitCode = kExitOk;
    options = interleaveOptions(exitCode);
    if (!options)
      return exitCode;
  }

  Expected<Cubin> cubin = Cubin::readFile(inputFile);
  if (!cubin)
    return reportError(cubin.takeError());
  if (dumpCmd)
    return runDump(*cubin);
  if (statsCmd)
    return runStats(*cubin);
  return runInterleave(*cubin, *options);
}
