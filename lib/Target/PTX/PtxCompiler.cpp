//===- PtxCompiler.cpp - LLVM dialect -> PTX -> cubin -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN.md section 3, steps 6-7: the LLVM dialect becomes LLVM IR, the IR is
// optimized at O3 and compiled by the NVPTX backend in this process (no
// mlir-opt `gpu.binary` string to un-escape, MLIR-NVGPU.md trap 6); ptxas
// turns the PTX into a cubin. Failures are classified: a ptxas that cannot be
// run, a ptxas that rejects the PTX (compiler bug), and register spills.
//
//===----------------------------------------------------------------------===//

#include "Target/PTX/PtxCompiler.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::fgemm;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

/// Unsigned divisions narrower than 32 bits back to 32: LLVM narrows an
/// i32 udiv / urem whose operands it knows fit in 16 bits (the tile order's
/// raster arithmetic once N is a constant), and ptxas calls a subroutine
/// for PTX's div.u16 / rem.u16 where a 32-bit division is inline.
static void widenNarrowDivisions(llvm::Module &module) {
  llvm::SmallVector<llvm::BinaryOperator *> narrow;
  for (llvm::Function &function : module)
    for (llvm::Instruction &inst : llvm::instructions(function))
      if (auto *op = llvm::dyn_cast<llvm::BinaryOperator>(&inst))
        if ((op->getOpcode() == llvm::Instruction::UDiv ||
             op->getOpcode() == llvm::Instruction::URem) &&
            op->getType()->isIntegerTy() &&
            op->getType()->getIntegerBitWidth() < 32)
          narrow.push_back(op);
  for (llvm::BinaryOperator *op : narrow) {
    llvm::IRBuilder<> builder(op);
    llvm::Type *i32 = builder.getInt32Ty();
    llvm::Value *wide = builder.CreateBinOp(
        op->getOpcode(), builder.CreateZExt(op->getOperand(0), i32),
        builder.CreateZExt(op->getOperand(1), i32));
    op->replaceAllUsesWith(builder.CreateTrunc(wide, op->getType()));
    op->eraseFromParent();
  }
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::string>
mlir::fgemm::translateToPtx(ModuleOp module, const PtxOptions &options,
                            std::string *llvmIR) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory pointers, which only LLVM's nvptx-short-ptr
    // option selects: a ring stage's barrier and scale addresses are then
    // base + constant folded into the instruction ([UR + imm]) instead of a
    // 64-bit add and a truncation each (two instructions fewer per K block
    // in the 64x32 .. 128x64 loops). An explicit fgemmc flag wins.
    auto &flags = llvm::cl::getRegisteredOptions();
    if (auto it = flags.find("nvptx-short-ptr");
        it != flags.end() && it->second->getNumOccurrences() == 0)
      (void)it->second->addOccurrence(0, "nvptx-short-ptr", "true");
    return true;
  }();
  (void)initialized;

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "fgemm");
  if (!llvmModule)
    return makeError(
        "translation of the LLVM dialect to LLVM IR failed (see diagnostics)");

  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("NVPTX target unavailable in this LLVM: " + error);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.chip, options.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("cannot create an NVPTX target machine for " +
                     options.chip);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  if (options.optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level =
        options.optLevel >= 3   ? llvm::OptimizationLevel::O3
        : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                : llvm::OptimizationLevel::O1;
    pb.buildPerModuleDefaultPipeline(level).run(*llvmModule, mam);
    widenNarrowDivisions(*llvmModule);
  }
  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return makeError("the NVPTX backend cannot emit assembly");
  codegen.run(*llvmModule);
  return std::string(ptx.str());
}

/// $FGEMM_PTXAS, then ptxas on PATH, then the CUDA toolkit's default place.
static llvm::Expected<std::string> findPtxas(llvm::StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  if (const char *env = std::getenv("FGEMM_PTXAS"))
    return std::string(env);
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return makeError(
      "ptxas not found: put the CUDA 13 toolkit's bin/ on PATH, set "
      "FGEMM_PTXAS, or pass --ptxas=PATH");
}

llvm::Expected<std::string>
mlir::fgemm::ptxasVersion(llvm::StringRef ptxasPath) {
  llvm::Expected<std::string> ptxas = findPtxas(ptxasPath);
  if (!ptxas)
    return ptxas.takeError();
  llvm::SmallString<128> logFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("fgemm", "version", logFile))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove(logFile); });
  llvm::StringRef args[] = {*ptxas, "--version"};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logFile), llvm::StringRef(logFile)};
  std::string execError;
  int rc =
      llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects,
                                /*timeout=*/60, /*memoryLimit=*/0, &execError);
  auto buffer = llvm::MemoryBuffer::getFile(logFile);
  if (rc != 0 || !buffer)
    return makeError("could not run " + *ptxas + " --version: " + execError);
  llvm::StringRef text = (*buffer)->getBuffer().trim();
  return text.rsplit('\n').second.empty() ? text.str()
                                          : text.rsplit('\n').second.str();
}

llvm::Expected<CubinResult>
mlir::fgemm::assembleCubin(llvm::StringRef ptx, llvm::StringRef chip,
                           llvm::StringRef ptxasPath) {
  llvm::Expected<std::string> ptxas = findPtxas(ptxasPath);
  if (!ptxas)
    return ptxas.takeError();

  llvm::SmallString<128> ptxFile, cubinFile, logFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("fgemm", "ptx", ptxFile))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::sys::fs::createTemporaryFile("fgemm", "cubin", cubinFile);
  llvm::sys::fs::createTemporaryFile("fgemm", "log", logFile);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(ptxFile);
    llvm::sys::fs::remove(cubinFile);
    llvm::sys::fs::remove(logFile);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile, ec);
    if (ec)
      return makeError("cannot write " + ptxFile + ": " + ec.message());
    os << ptx;
  }

  std::string arch = ("-arch=" + chip).str();
  llvm::SmallVector<llvm::StringRef> args = {*ptxas,
                                             arch,
                                             "-v",
                                             "--warn-on-spills",
                                             "--warn-on-local-memory-usage",
                                             "-o",
                                             cubinFile,
                                             ptxFile};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logFile), llvm::StringRef(logFile)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects,
                                     /*timeout=*/300,
                                     /*memoryLimit=*/0, &execError);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logFile))
    log = (*buffer)->getBuffer().str();
  if (rc < 0)
    return makeError("could not run " + *ptxas + ": " + execError);
  if (rc != 0)
    return makeError(
        "ptxas rejected the PTX fgemm generated (a compiler bug; exit " +
        llvm::Twine(rc) + "):\n" + log);
  if (llvm::StringRef(log).contains("spill") &&
      !llvm::StringRef(log).contains(
          " 0 bytes spill stores, 0 bytes spill loads"))
    return makeError(
        "ptxas spilled registers (the accumulators must stay in registers):\n" +
        log);
  if (llvm::StringRef(log).contains("Local memory used"))
    return makeError("ptxas placed data in local memory:\n" + log);
  auto cubin = llvm::MemoryBuffer::getFile(cubinFile, /*IsText=*/false);
  if (!cubin)
    return makeError("ptxas produced no cubin: " + cubin.getError().message());
  return CubinResult{(*cubin)->getBuffer().str(), log};
}
