//===- fgemmc.cpp - the fgemm compiler driver ---------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemmc kernel.mlir --emit=fgemm|gpu|llvm|ptx|cubin -o out [knobs...]
//
// A driver over the compile library (lib/Compiler): the configuration flags
// are generated from dialect/KernelConfig.def; `cubin` also writes
// `<out>.meta`, the kernel description lib/Runtime launches from
// (docs/ABI.md). Exit codes: 0 success, 1 compilation error, 2 bad command
// line or input.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "dialect/KnobOptions.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::fgemm;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory driverFlags("fgemmc options");
cl::OptionCategory
    configFlags("Kernel configuration (dialect/KernelConfig.def)");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel.mlir>"),
                               cl::Required, cl::cat(driverFlags));
cl::opt<std::string>
    outputFile("o", cl::desc("Output file ('-' = stdout; cubin needs a file)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(driverFlags));
cl::opt<CompileStage> emit(
    "emit", cl::desc("Stage to stop after"), cl::init(CompileStage::Cubin),
    cl::values(clEnumValN(CompileStage::Fgemm, "fgemm", "pipelined fgemm IR"),
               clEnumValN(CompileStage::Gpu, "gpu", "NVVM + LLVM + SCF IR"),
               clEnumValN(CompileStage::Llvm, "llvm", "LLVM dialect"),
               clEnumValN(CompileStage::Ptx, "ptx", "PTX for sm_90a"),
               clEnumValN(CompileStage::Cubin, "cubin", "cubin + .meta")),
    cl::cat(driverFlags));
cl::opt<bool> printIRAfterAll("print-ir-after-all",
                              cl::desc("Print the IR after every pass"),
                              cl::cat(driverFlags));
cl::opt<bool>
    printPipeline("print-pipeline",
                  cl::desc("Print the pass pipeline (replayable in fgemm-opt)"),
                  cl::cat(driverFlags));
cl::opt<std::string> dumpDir("dump-dir",
                             cl::desc("Write every stage's output into DIR"),
                             cl::value_desc("DIR"), cl::cat(driverFlags));
cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to use"),
                               cl::cat(driverFlags));
cl::opt<bool>
    verbose("v", cl::desc("Print ptxas's resource report and the SASS pass's"),
            cl::cat(driverFlags));

/// A knob as an fgemmc flag.
template <typename T>
struct KnobFlag : cl::opt<T> {
  KnobFlag(llvm::StringRef flag, llvm::StringRef help, T init)
      : cl::opt<T>(flag, cl::desc(help), cl::init(init), cl::cat(configFlags)) {
    addKnobValueNames<T>(*this);
  }
};
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  KnobFlag<TYPE> NAME##Flag(FLAG, HELP, DEFAULT);
#include "dialect/KernelConfig.def"
} // namespace

static int fail(const llvm::Twine &message, int code = 1) {
  llvm::errs() << "fgemmc: error: " << message << "\n";
  return code;
}

static bool writeFile(llvm::StringRef path, llvm::StringRef contents) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out)
    return fail(error), false;
  out->os() << contents;
  out->keep();
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&driverFlags, &configFlags});
  cl::ParseCommandLineOptions(argc, argv,
                              "fgemm compiler: fgemm DSL -> PTX -> cubin\n");

  CompileOptions options;
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  options.config.NAME = NAME##Flag;
#include "dialect/KernelConfig.def"
  // $FGEMM_SASS_POLICY: the one documented alias of --sass-policy.
  if (const char *env = std::getenv("FGEMM_SASS_POLICY");
      env && *env && !sassPolicyFlag.getNumOccurrences()) {
    std::optional<SassPolicy> policy = parseKnobValue<SassPolicy>(env);
    if (!policy)
      return fail(
          "FGEMM_SASS_POLICY=" + llvm::Twine(env) +
              " is not a SASS policy; allowed: " + listKnobValues<SassPolicy>(),
          2);
    options.config.sassPolicy = *policy;
  }
  options.stopAfter = emit;
  options.ptxasPath = ptxasPath;
  options.printIRAfterAll = printIRAfterAll;
  options.keepIR = !dumpDir.empty();
  if (emit == CompileStage::Cubin && outputFile == "-")
    return fail(
        "--emit=cubin needs -o FILE.cubin (a .meta file is written beside it)",
        2);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error, 2);
  llvm::Expected<CompileResult> result =
      compileKernel(input->getBuffer(), inputFile, options);
  if (!result) {
    // The located diagnostics, then the library's one-line verdict.
    std::string message = llvm::toString(result.takeError());
    auto [diagnostics, verdict] = llvm::StringRef(message).rsplit('\n');
    if (verdict.empty())
      std::swap(diagnostics, verdict);
    else
      llvm::errs() << diagnostics << "\n";
    return fail(verdict, verdict.starts_with("cannot parse") ? 2 : 1);
  }
  llvm::errs() << result->diagnostics;
  if (printPipeline)
    llvm::outs() << result->pipeline << "\n";
  if (verbose)
    llvm::outs() << result->ptxasLog << result->sassReport;

  if (!dumpDir.empty()) {
    llvm::sys::fs::create_directories(dumpDir);
    llvm::StringRef stem = llvm::sys::path::stem(inputFile);
    const char *irStage = emit == CompileStage::Fgemm ? "fgemm.mlir"
                          : emit == CompileStage::Gpu ? "gpu.mlir"
                                                      : "llvm.mlir";
    for (auto [suffix, text] :
         {std::pair<llvm::StringRef, const std::string &>{irStage, result->ir},
          {"ll", result->llvmIR},
          {"ptx", result->ptx},
          {"ptxas.log", result->ptxasLog},
          {"meta", result->description}}) {
      llvm::SmallString<256> path(dumpDir.getValue());
      llvm::sys::path::append(path, (stem + "." + suffix).str());
      if (!text.empty() && !writeFile(path, text))
        return 2;
    }
  }

  switch (emit) {
  case CompileStage::Fgemm:
  case CompileStage::Gpu:
  case CompileStage::Llvm:
    return writeFile(outputFile, result->ir) ? 0 : 2;
  case CompileStage::Ptx:
    return writeFile(outputFile, result->ptx) ? 0 : 2;
  case CompileStage::Cubin: {
    llvm::SmallString<256> metaPath(outputFile.getValue());
    llvm::sys::path::replace_extension(metaPath, "meta");
    return writeFile(outputFile, result->cubin) &&
                   writeFile(metaPath, result->description)
               ? 0
               : 2;
  }
  }
  return 0;
}
