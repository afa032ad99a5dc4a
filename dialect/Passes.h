//===- Passes.h - fgemm pass declarations ------------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_PASSES_H
#define FGEMM_DIALECT_PASSES_H

#include "dialect/FgemmOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fgemm {

#define GEN_PASS_DECL
#include "dialect/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialect/Passes.h.inc"

/// fgemm-specialize with its options set from `config`.
std::unique_ptr<Pass> createFgemmSpecializePass(const KernelConfig &config);

} // namespace mlir::fgemm

#endif // FGEMM_DIALECT_PASSES_H
