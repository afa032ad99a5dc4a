//===- fgemmc.cpp - the fgemm compiler driver ---------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemmc kernel.mlir --emit=fgemm|gpu|llvm|ptx|cubin -o out
//
// Stages (DESIGN.md section 3): `fgemm` = after fgemm-pipeline-tma (the
// specialized, warp-specialized, pipelined tile program); `gpu` = after
// convert-fgemm-to-nvvm (nvvm + llvm + scf + arith); `llvm` = the LLVM
// dialect; `ptx` = NVPTX output; `cubin` = ptxas output plus `<out>.meta`,
// the launch description lib/Runtime reads (docs/ABI.md).
// Exit codes: 0 success, 1 compilation error, 2 bad command line or input.
//
//===----------------------------------------------------------------------===//

#include "Pipelines/Pipelines.h"
#include "Target/PTX/PtxCompiler.h"
#include "Target/SASS/Cubin.h"
#include "Target/SASS/FfmaInterleave.h"
#include "dialect/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::fgemm;
namespace cl = llvm::cl;

namespace {
enum class Emit { Fgemm, Gpu, Llvm, Ptx, Cubin };

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel.mlir>"), cl::Required);
cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' = stdout; cubin needs a file)"),
                                cl::value_desc("file"), cl::init("-"));
cl::opt<Emit> emit("emit", cl::desc("Stage to stop after"), cl::init(Emit::Cubin),
                   cl::values(clEnumValN(Emit::Fgemm, "fgemm", "pipelined fgemm IR"),
                              clEnumValN(Emit::Gpu, "gpu", "NVVM + LLVM + SCF IR"),
                              clEnumValN(Emit::Llvm, "llvm", "LLVM dialect"),
                              clEnumValN(Emit::Ptx, "ptx", "PTX for sm_90a"),
                              clEnumValN(Emit::Cubin, "cubin", "cubin + .meta")));
cl::opt<int64_t> blockM("block-m", cl::desc("Output tile rows (64 or 128)"), cl::init(128));
cl::opt<int64_t> blockN("block-n", cl::desc("Output tile columns (divides 128)"), cl::init(128));
cl::opt<int64_t> stages("stages", cl::desc("Shared-memory pipeline depth (0 = as many as fit)"), cl::init(4));
cl::opt<bool> persistent("persistent",
                         cl::desc("Persistent schedule: one CTA per SM looping over tiles"),
                         cl::init(false));
cl::opt<bool> overlapPromotion(
    "overlap-promotion",
    cl::desc("Run the next K block's wgmmas during this block's promotion "
             "(measured neutral on the H100, so off by default; docs/PERF.md)"),
    cl::init(false));
cl::opt<int64_t> cluster("cluster",
                         cl::desc("CTAs per cluster: 2 = pairs along N share A by TMA multicast"),
                         cl::init(1));
cl::opt<int64_t> fixedN("fixed-n", cl::desc("Compile for this N only (0 = any)"), cl::init(0));
cl::opt<int64_t> fixedK("fixed-k", cl::desc("Compile for this K only (0 = any)"), cl::init(0));
cl::opt<bool> printIRAfterAll("print-ir-after-all", cl::desc("Print the IR after every pass"),
                              cl::init(false));
cl::opt<bool> printPipeline("print-pipeline",
                            cl::desc("Print the pass pipeline (replayable in fgemm-opt)"),
                            cl::init(false));
cl::opt<std::string> dumpDir("dump-dir", cl::desc("Write every stage's output into DIR"),
                             cl::value_desc("DIR"), cl::init(""));
cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to use"), cl::init(""));
cl::opt<std::string> sassPolicy(
    "sass-policy",
    cl::desc("FFMA interleave after ptxas: off|deepgemm|deepgemm-full|every-n "
             "(default: $FGEMM_SASS_POLICY, else off; docs/PERF.md has the measurements)"),
    cl::init(""));
cl::opt<unsigned> sassEveryN("sass-every-n", cl::desc("N of --sass-policy=every-n"),
                             cl::init(4));
cl::opt<bool> verbose("v", cl::desc("Print ptxas's resource report"), cl::init(false));
} // namespace

static int fail(const llvm::Twine &message, int code = 1) {
  llvm::errs() << "fgemmc: error: " << message << "\n";
  return code;
}

static LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out) {
    llvm::errs() << "fgemmc: error: " << error << "\n";
    return failure();
  }
  out->os() << contents;
  out->keep();
  return success();
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// Writes `stage` into --dump-dir when it is set.
static void dumpStage(StringRef stem, StringRef suffix, StringRef text) {
  if (dumpDir.empty())
    return;
  llvm::sys::fs::create_directories(dumpDir);
  llvm::SmallString<256> path(dumpDir);
  llvm::sys::path::append(path, (stem + "." + suffix).str());
  (void)writeFile(path, text);
}

/// The SASS policy: --sass-policy, else $FGEMM_SASS_POLICY (its one
/// documented alias), else off.
static std::optional<::fgemm::sass::InterleavePolicy> chooseSassPolicy() {
  std::string name = sassPolicy;
  if (name.empty())
    if (const char *env = std::getenv("FGEMM_SASS_POLICY"))
      name = env;
  if (name.empty())
    name = "off";
  return ::fgemm::sass::parseInterleavePolicy(name);
}

/// The launch description of the (single) kernel, then strips the fgemm
/// attributes so the LLVM IR translation sees only LLVM/NVVM ones.
static FailureOr<std::string> takeMetadata(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> kernels;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f->hasAttr("fgemm.config"))
      kernels.push_back(f);
  });
  if (kernels.size() != 1) {
    module.emitError("a cubin holds exactly one fgemm kernel; found ") << kernels.size();
    return failure();
  }
  LLVM::LLVMFuncOp func = kernels.front();
  auto config = func->getAttrOfType<ConfigAttr>("fgemm.config");
  int64_t smem = func->getAttrOfType<IntegerAttr>("fgemm.smem_bytes").getInt();
  std::string meta;
  llvm::raw_string_ostream os(meta);
  os << "# fgemm kernel launch description (docs/ABI.md)\n"
     << "kernel=" << func.getSymName() << "\n"
     << "variant=dense\n"
     << "block_m=" << config.getBlockM() << "\nblock_n=" << config.getBlockN()
     << "\nblock_k=" << config.getBlockK() << "\nstages=" << config.getStages()
     << "\nmath_warpgroups=" << config.getMathWarpgroups()
     << "\nthreads=" << config.getNumThreads() << "\nsmem_bytes=" << smem
     << "\ncluster=" << config.getCluster() << "\nschedule="
     << (func->hasAttr("fgemm.schedule") ? "persistent" : "plain")
     << "\nfixed_n=" << config.getFixedN()
     << "\nfixed_k=" << config.getFixedK() << "\n";
  for (StringRef name : {"fgemm.config", "fgemm.smem_bytes", "fgemm.grid", "fgemm.schedule"})
    func->removeAttr(name);
  return meta;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "fgemm compiler: fgemm DSL -> PTX -> cubin\n");

  DialectRegistry registry;
  registry.insert<FgemmDialect, arith::ArithDialect, scf::SCFDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error, 2);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse " + inputFile, 2);
  if (emit == Emit::Cubin && outputFile == "-")
    return fail("--emit=cubin needs -o FILE.cubin (a .meta file is written beside it)", 2);
  std::optional<::fgemm::sass::InterleavePolicy> policy = chooseSassPolicy();
  if (!policy)
    return fail("unknown SASS policy; allowed: off, deepgemm, deepgemm-full, every-n", 2);
  if (sassEveryN == 0)
    return fail("--sass-every-n must be at least 1", 2);

  Sm90PipelineOptions options;
  options.blockM = blockM;
  options.blockN = blockN;
  options.stages = stages;
  options.fixedN = fixedN;
  options.cluster = cluster;
  options.persistent = persistent;
  options.overlapPromotion = overlapPromotion;
  options.fixedK = fixedK;
  Sm90Stage stop = emit == Emit::Fgemm ? Sm90Stage::Fgemm
                   : emit == Emit::Gpu ? Sm90Stage::Gpu
                                       : Sm90Stage::Llvm;
  PassManager pm(&context);
  buildSm90Pipeline(pm, options, stop);
  if (printPipeline) {
    pm.printAsTextualPipeline(llvm::outs());
    llvm::outs() << "\n";
  }
  if (printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting(/*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
                        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  if (failed(pm.run(*module)))
    return fail("compilation of " + inputFile + " failed");

  StringRef stem = llvm::sys::path::stem(inputFile);
  std::string ir = printModule(*module);
  dumpStage(stem, emit == Emit::Fgemm ? "fgemm.mlir" : emit == Emit::Gpu ? "gpu.mlir" : "llvm.mlir",
            ir);
  if (emit == Emit::Fgemm || emit == Emit::Gpu || emit == Emit::Llvm)
    return failed(writeFile(outputFile, ir)) ? 2 : 0;

  FailureOr<std::string> meta = takeMetadata(*module);
  if (failed(meta))
    return fail("cannot describe the kernel for the runtime");
  std::string llvmIR;
  llvm::Expected<std::string> ptx = translateToPtx(*module, PtxOptions(), &llvmIR);
  if (!ptx)
    return fail(llvm::toString(ptx.takeError()));
  dumpStage(stem, "ll", llvmIR);
  dumpStage(stem, "ptx", *ptx);
  if (emit == Emit::Ptx)
    return failed(writeFile(outputFile, *ptx)) ? 2 : 0;

  llvm::Expected<CubinResult> cubin = assembleCubin(*ptx, PtxOptions().chip, ptxasPath);
  if (!cubin)
    return fail(llvm::toString(cubin.takeError()));
  if (verbose)
    llvm::outs() << cubin->log;
  // ptxas's "Potential Performance Loss" notes (e.g. C7514: serialized
  // wgmmas) mean the kernel runs far below what it was compiled for.
  for (llvm::StringRef line : llvm::split(cubin->log, '\n'))
    if (line.contains("Potential Performance Loss"))
      llvm::errs() << "fgemmc: warning: " << line.trim() << "\n";

  // DESIGN.md section 3, step 8: the post-ptxas SASS pass, in place.
  if (*policy != ::fgemm::sass::InterleavePolicy::Off) {
    llvm::ArrayRef<uint8_t> raw(reinterpret_cast<const uint8_t *>(cubin->cubin.data()),
                                cubin->cubin.size());
    llvm::Expected<::fgemm::sass::Cubin> parsed = ::fgemm::sass::Cubin::create(raw, "ptxas output");
    if (!parsed)
      return fail("SASS pass: " + llvm::toString(parsed.takeError()));
    ::fgemm::sass::InterleaveOptions sassOptions;
    sassOptions.policy = *policy;
    sassOptions.everyN = sassEveryN;
    for (const auto &report : ::fgemm::sass::interleaveCubin(*parsed, sassOptions, false))
      if (verbose)
        ::fgemm::sass::printInterleaveReport(llvm::outs(), report, sassOptions);
    llvm::ArrayRef<uint8_t> patched = parsed->bytes();
    cubin->cubin.assign(reinterpret_cast<const char *>(patched.data()), patched.size());
  }
  llvm::SmallString<256> metaPath(outputFile.getValue());
  llvm::sys::path::replace_extension(metaPath, "meta");
  if (failed(writeFile(outputFile, cubin->cubin)) || failed(writeFile(metaPath, *meta)))
    return 2;
  dumpStage(stem, "ptxas.log", cubin->log);
  return 0;
}
