//===- Compiler.cpp - DSL source + configuration -> PTX, cubin ----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN.md section 3, steps 1-8, as one call:
//   parse -> fgemm-sm90-pipeline (stop at fgemm | gpu | llvm) -> kernel
//   description -> NVPTX -> ptxas -> SASS pass (the configuration's policy).
// Diagnostics go to a string, not to stderr, so a JIT can report them.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "Pipelines/Pipelines.h"
#include "Target/PTX/PtxCompiler.h"
#include "Target/SASS/Cubin.h"
#include "Target/SASS/FfmaInterleave.h"
#include "dialect/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::fgemm;

static llvm::Error compileError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// The post-ptxas FFMA interleave (DESIGN.md step 8), in place on `cubin`.
static llvm::Error runSassPass(const KernelConfig &config,
                               CompileResult &result) {
  std::optional<::fgemm::sass::InterleavePolicy> policy =
      ::fgemm::sass::parseInterleavePolicy(getKnobValueName(config.sassPolicy));
  if (!policy)
    return compileError("the SASS pass does not know policy '" +
                        getKnobValueName(config.sassPolicy) + "'");
  if (*policy == ::fgemm::sass::InterleavePolicy::Off)
    return llvm::Error::success();
  llvm::ArrayRef<uint8_t> raw(
      reinterpret_cast<const uint8_t *>(result.cubin.data()),
      result.cubin.size());
  llvm::Expected<::fgemm::sass::Cubin> parsed =
      ::fgemm::sass::Cubin::create(raw, "ptxas output");
  if (!parsed)
    return compileError("SASS pass: " + llvm::toString(parsed.takeError()));
  ::fgemm::sass::InterleaveOptions options;
  options.policy = *policy;
  options.everyN = static_cast<unsigned>(config.sassEveryN);
  llvm::raw_string_ostream report(result.sassReport);
  for (const auto &kernel :
       ::fgemm::sass::interleaveCubin(*parsed, options, false))
    ::fgemm::sass::printInterleaveReport(report, kernel, options);
  llvm::ArrayRef<uint8_t> patched = parsed->bytes();
  result.cubin.assign(reinterpret_cast<const char *>(patched.data()),
                      patched.size());
  return llvm::Error::success();
}

llvm::Expected<CompileResult>
mlir::fgemm::compileKernel(llvm::StringRef source, llvm::StringRef sourceName,
                           const CompileOptions &options) {
  DialectRegistry registry;
  registry.insert<FgemmDialect, arith::ArithDialect, scf::SCFDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  CompileResult result;
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, sourceName), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagStream);
  // Errors say where they are; the op they are attached to would repeat the
  // whole kernel in generic form.
  context.printOpOnDiagnostic(false);

  // MLIR 22.1.8's parser dereferences null on a dense array of `index`
  // (llvm-project #179045, fixed after 22.1.8). No fgemm kernel has one, so
  // refuse such text before it reaches the parser: a JIT must not crash on
  // its input.
  if (llvm::Regex("array[[:space:]]*<[[:space:]]*index").match(source))
    return compileError(
        "cannot parse " + sourceName +
        ": dense arrays of `index` (array<index: ...>) are not valid "
        "fgemm input, and crash MLIR 22.1.8's parser (llvm-project #179045)");
  // Parse, then verify: a program that parses but breaks a rule of the
  // language is not a syntax error, and its verdict says so.
  ParserConfig parserConfig(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, parserConfig);
  if (!module)
    return compileError(diagnostics + "cannot parse " + sourceName);
  if (failed(verify(*module)))
    return compileError(diagnostics + sourceName +
                        " is not a valid fgemm program (errors above)");

  Sm90Stage stop = options.stopAfter == CompileStage::Fgemm ? Sm90Stage::Fgemm
                   : options.stopAfter == CompileStage::Gpu ? Sm90Stage::Gpu
                                                            : Sm90Stage::Llvm;
  PassManager pm(&context);
  buildSm90Pipeline(pm, options.config, stop);
  {
    llvm::raw_string_ostream os(result.pipeline);
    pm.printAsTextualPipeline(os);
  }
  if (options.printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  if (failed(pm.run(*module)))
    return compileError(diagnostics + "compilation of " + sourceName +
                        " failed");
  if (options.keepIR || options.stopAfter <= CompileStage::Llvm)
    result.ir = printModule(*module);
  if (options.stopAfter <= CompileStage::Llvm) {
    result.diagnostics = diagnostics;
    return result;
  }

  llvm::Expected<std::string> description = takeKernelDescription(*module);
  if (!description)
    return description.takeError();
  result.description = std::move(*description);
  llvm::Expected<std::string> ptx = translateToPtx(
      *module, PtxOptions(), options.keepIR ? &result.llvmIR : nullptr);
  if (!ptx)
    return ptx.takeError();
  result.ptx = std::move(*ptx);
  if (options.stopAfter == CompileStage::Ptx) {
    result.diagnostics = diagnostics;
    return result;
  }

  llvm::Expected<CubinResult> cubin =
      assembleCubin(result.ptx, PtxOptions().chip, options.ptxasPath);
  if (!cubin)
    return cubin.takeError();
  result.cubin = std::move(cubin->cubin);
  result.ptxasLog = std::move(cubin->log);
  // ptxas's "Potential Performance Loss" notes (e.g. C7514: serialized
  // wgmmas) mean the kernel runs far below what it was compiled for.
  for (llvm::StringRef line : llvm::split(result.ptxasLog, '\n'))
    if (line.contains("Potential Performance Loss"))
      diagStream << "warning: " << line.trim() << "\n";
  if (llvm::Error error = runSassPass(options.config, result))
    return std::move(error);
  result.diagnostics = diagnostics;
  return result;
}
