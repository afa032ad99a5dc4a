//===- FgemmDialect.td - fgemm dialect definition ----------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_TD
#define FGEMM_DIALECT_TD

include "mlir/IR/OpBase.td"

def Fgemm_Dialect : Dialect {
  let name = "fgemm";
  let cppNamespace = "::mlir::fgemm";
  let summary = "Tile programs for fine-grained-scaled FP8 GEMMs on Hopper";
  let description = [{
    A kernel in the fgemm dialect says what one output tile computes and which
    tiles exist. It names no threads, warps, barriers, shared-memory addresses,
    swizzles, TMA descriptors or WGMMA shapes: the fgemm passes derive those
    (specialize -> schedule tiles -> warp-specialize -> pipeline -> lower to NVVM).

    Shapes are symbolic: a global tensor is `!fgemm.tensor<[m, k], f8E4M3FN>`,
    where `m` and `k` are the kernel's dimension symbols (runtime scalars). A
    tile is `!fgemm.tile<[bm, bk], f8E4M3FN>`, where `bm`, `bn`, `bk` are the
    block sizes chosen by configuration (`#fgemm.config`), never by the author.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Fgemm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fgemm_Dialect, mnemonic, traits>;

#endif // FGEMM_DIALECT_TD
