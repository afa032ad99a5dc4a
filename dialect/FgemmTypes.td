//===- FgemmTypes.td - fgemm types -------------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TYPES_TD
#define FGEMM_TYPES_TD

include "dialect/FgemmDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Fgemm_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Fgemm_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Fgemm_TensorType : Fgemm_Type<"GlobalTensor", "tensor"> {
  let summary = "a row-major global-memory tensor with symbolic dimensions";
  let description = [{
    A tensor in global memory, row-major (the last dimension is contiguous):
    2-D operands and outputs, 3-D `[g, rows, cols]` ones of grouped GEMMs,
    1-D `i32` index tensors and 1-D `f32` epilogue vectors. Dimensions are
    the kernel's dimension symbols; their values are kernel parameters known
    at launch. Operands are FP8 (`f8E4M3FN`, `f8E5M2`); outputs are `bf16`
    or `f32`; epilogue operands (`fgemm.read_tile`) are `f32`. docs/DSL.md
    lists what a kernel may write.

    Example: `!fgemm.tensor<[m, k], f8E4M3FN>`
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$dims,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Fgemm_ScalesType : Fgemm_Type<"Scales", "scales"> {
  let summary = "FP32 scaling factors of an FP8 operand, per block";
  let description = [{
    The scales of an FP8 operand of logical shape `dims`: one FP32 value per
    `block[0] x block[1]` block. `[1, 128]` is DeepGEMM's per-token scaling of
    A, `[128, 128]` its per-block scaling of B. `mn_major` stores the scales
    transposed (the M dimension contiguous, padded to a multiple of 4 for TMA's
    16-byte rule), which is how A's scales are read by TMA; otherwise they are
    row-major `[ceil(d0/b0), ceil(d1/b1)]`. `per_tensor` (no block) is one
    scale for the whole operand (one per group of a grouped operand).

    Example: `!fgemm.scales<[m, k], f32, block = [1, 128], mn_major>`,
    `!fgemm.scales<[n, k], f32, per_tensor>`
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$dims,
                        "::mlir::Type":$elementType,
                        ArrayRefParameter<"int64_t">:$block,
                        "bool":$mnMajor);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// One scale for the whole operand (`per_tensor`: no block).
    bool isPerTensor() const { return getBlock().empty(); }
  }];
}

def Fgemm_TileType : Fgemm_Type<"Tile", "tile"> {
  let summary = "a block of values whose shape is set by configuration";
  let description = [{
    A tile of a tensor, of scales or of accumulators. Its dimensions are the
    configuration symbols `bm`, `bn`, `bk` (block M, N, K); the compiler binds
    them when it specializes the kernel. Where the tile lives (shared memory,
    registers) is the compiler's choice.

    Example: `!fgemm.tile<[bm, bn], f32>`
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$dims,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Fgemm_RingType : Fgemm_Type<"Ring", "ring"> {
  let summary = "a producer/consumer channel of tiles, one entry per K block";
  let description = [{
    Created by warp specialization: the producer puts the tiles of one K block,
    the consumers get them and release the entry when done. The pipeline pass
    turns it into a ring of shared-memory stages with full/empty mbarriers.
  }];
  let assemblyFormat = "";
}

#endif // FGEMM_TYPES_TD
