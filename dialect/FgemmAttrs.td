//===- FgemmAttrs.td - fgemm attributes --------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_ATTRS_TD
#define FGEMM_ATTRS_TD

include "dialect/FgemmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fgemm_TileSpaceKind : I32EnumAttr<"TileSpaceKind", "how output tiles map to groups", [
    I32EnumAttrCase<"Dense", 0, "dense">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fgemm";
}
def Fgemm_TileSpaceKindAttr : EnumAttr<Fgemm_Dialect, Fgemm_TileSpaceKind, "tile_space_kind">;

def Fgemm_Dim : I32EnumAttr<"Dim", "a grid dimension", [
    I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">, I32EnumAttrCase<"Z", 2, "z">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fgemm";
}
def Fgemm_DimAttr : EnumAttr<Fgemm_Dialect, Fgemm_Dim, "dim">;

def Fgemm_ConfigAttr : AttrDef<Fgemm_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "the configuration a kernel is specialized for";
  let description = [{
    Block sizes, pipeline depth and warp roles. Set by `fgemm-specialize` from
    the runtime's heuristics or the command line, never written by hand in a
    kernel. `block_m` must be 64 per math warpgroup (WGMMA's M); `block_n` a
    WGMMA N (a multiple of 8) of at most 192 so the accumulators fit in
    registers; `block_k` is 128, the scale granularity. `fixed_n` and
    `fixed_k` (0 = unknown) fold shapes known at JIT time.

    Example: `#fgemm.config<block_m = 128, block_n = 128, block_k = 128,
    stages = 4, math_warpgroups = 2, cluster = 1, fixed_n = 0, fixed_k = 0>`
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN, "int64_t":$blockK,
                        "int64_t":$stages, "int64_t":$mathWarpgroups,
                        "int64_t":$cluster, "int64_t":$fixedN, "int64_t":$fixedK);
  let assemblyFormat = [{
    `<` `block_m` `=` $blockM `,` `block_n` `=` $blockN `,` `block_k` `=` $blockK `,`
    `stages` `=` $stages `,` `math_warpgroups` `=` $mathWarpgroups `,`
    `cluster` `=` $cluster `,` `fixed_n` `=` $fixedN `,` `fixed_k` `=` $fixedK `>`
  }];
  let extraClassDeclaration = [{
    /// Threads per CTA: one producer warpgroup plus the math warpgroups.
    int64_t getNumThreads() const { return 128 * (1 + getMathWarpgroups()); }
  }];
}

#endif // FGEMM_ATTRS_TD
