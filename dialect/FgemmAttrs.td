//===- FgemmAttrs.td - fgemm attributes --------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_ATTRS_TD
#define FGEMM_ATTRS_TD

include "dialect/FgemmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fgemm_TileSpaceKind : I32EnumAttr<"TileSpaceKind", "how output tiles map to groups", [
    I32EnumAttrCase<"Dense", 0, "dense">,
    I32EnumAttrCase<"GroupedContiguous", 1, "grouped_contiguous">,
    I32EnumAttrCase<"GroupedMasked", 2, "grouped_masked">,
    I32EnumAttrCase<"GroupedContiguousPsum", 3, "grouped_contiguous_psum">,
    I32EnumAttrCase<"GroupedContiguousUnpadded", 4, "grouped_contiguous_unpadded">
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
    One value per knob of `dialect/KernelConfig.def` (block sizes, pipeline
    depth, warp roles, cluster and multicast operand, tile schedule and
    raster order, shapes folded at JIT time, promotion overlap, SASS policy).
    Set by `fgemm-specialize`, never written by hand in a kernel; every later
    pass reads its decisions from here. The verifier enforces the ranges the
    compiler implements (`checkKernelConfig`): e.g. `block_m` = 64 or 128
    rows per math warpgroup x `math_warpgroups` (one or two m64 waves each),
    `block_n` a multiple of 8 in [8, 192] (at most 128 with two waves),
    `block_k` = 128, `stages` in [1, 16]. Fields may be given in any order; a missing field
    takes its flag's default.

    Example: `#fgemm.config<block_m = 128, block_n = 128, block_k = 128,
    stages = 4, math_warpgroups = 2, cluster = 1, multicast = a,
    schedule = plain, raster_group = 0, fixed_n = 0, fixed_k = 0,
    overlap_promotion = false, sass_policy = off, sass_every_n = 4>`
  }];
  let parameters = (ins "::mlir::fgemm::KernelConfig":$knobs);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP) \
    TYPE get##ACCESSOR() const { return getKnobs().NAME; }
#include "dialect/KernelConfig.def"
    /// Threads per CTA: one producer warpgroup plus the math warpgroups.
    int64_t getNumThreads() const { return getKnobs().getNumThreads(); }
    /// m64 WGMMA waves per math warpgroup (1 or 2).
    int64_t getWaves() const { return getKnobs().getWaves(); }
    /// WGMMA groups per wave along N (2 at block_n 256) and their width.
    int64_t getColumnGroups() const { return getKnobs().getColumnGroups(); }
    int64_t getGroupN() const { return getKnobs().getGroupN(); }
    /// One CTA per SM looping over tiles (stream_k: and pieces of tiles).
    bool isPersistent() const { return getSchedule() != Schedule::Plain; }
    bool isStreamK() const { return getSchedule() == Schedule::StreamK; }
  }];
}

def Fgemm_RingPlanAttr : AttrDef<Fgemm_Dialect, "RingPlan"> {
  let mnemonic = "ring_plan";
  let summary = "the shared-memory plan of a ring (set by fgemm-pipeline-tma)";
  let description = [{
    Byte offsets into the kernel's dynamic shared memory: `stages` slots for
    each value a `fgemm.ring.put` carries (slot s of value i at
    `offsets[i] + s * slot_strides[i]`, of which TMA writes `slot_bytes[i]`),
    the epilogue tile at `output_offset`, `2 x stages` mbarriers (full,
    then empty; with k_split > 1 two more after them, where a tile's K shares
    meet) at `barriers`, and at `scales` the per-block scales the math
    threads stage for a chunk of K blocks (`scale_bytes`, 0 where the kernel
    has none); past them (16-byte aligned) the epilogue vectors the math
    threads copy in during the main loop; `smem_bytes` is the whole
    allocation. With `decoupled_warpgroups = true` the math warpgroups never
    meet per tile (a persistent tile loop with nothing else they share):
    `scale_bytes` holds a copy of the staged scales per math warpgroup, and
    the staging and the epilogue use each warpgroup's own barrier. The
    verifier checks that
    the regions fit inside `smem_bytes` and that it fits in sm_90's 227 KiB.

    Example: `#fgemm.ring_plan<stages = 4, offsets = [0, 65536, 131072],
    slot_strides = [16384, 16384, 512], slot_bytes = [16384, 16384, 512],
    output_offset = 133120, barriers = 165888, scales = 165952,
    scale_bytes = 512, smem_bytes = 166464>`
  }];
  let parameters = (ins "int64_t":$stages, ArrayRefParameter<"int64_t">:$offsets,
                        ArrayRefParameter<"int64_t">:$slotStrides,
                        ArrayRefParameter<"int64_t">:$slotBytes, "int64_t":$outputOffset,
                        "int64_t":$barriers, "int64_t":$scales, "int64_t":$scaleBytes,
                        "int64_t":$smemBytes,
                        DefaultValuedParameter<"bool", "false">:$decoupledWarpgroups);
  let assemblyFormat = [{
    `<` `stages` `=` $stages `,` `offsets` `=` `[` $offsets `]` `,`
    `slot_strides` `=` `[` $slotStrides `]` `,` `slot_bytes` `=` `[` $slotBytes `]` `,`
    `output_offset` `=` $outputOffset `,` `barriers` `=` $barriers `,`
    `scales` `=` $scales `,` `scale_bytes` `=` $scaleBytes `,`
    `smem_bytes` `=` $smemBytes
    (`,` `decoupled_warpgroups` `=` $decoupledWarpgroups^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Fgemm_TileGridAttr : AttrDef<Fgemm_Dialect, "TileGrid"> {
  let mnemonic = "tile_grid";
  let summary = "how the launch grid covers the tile space (set by fgemm-schedule-tiles)";
  let description = [{
    `kind` is the tile space's kind (the kernel's variant); `dims` names the
    output dimensions whose tile counts `ceil(dim / b<dim>)` size the grid:
    grid x from the first, y from the second (schedule = plain, x rounded up
    to the cluster size), or their product is the tile count a persistent
    grid of min(tiles, SMs) CTAs loops over. The runtime sizes the launch from
    this, through the kernel description (docs/ABI.md).

    Example: `#fgemm.tile_grid<dense, ["n", "m"]>`
  }];
  let parameters = (ins "TileSpaceKind":$kind, ArrayRefParameter<"::mlir::StringAttr">:$dims);
  let assemblyFormat = "`<` $kind `,` `[` $dims `]` `>`";
}

def Fgemm_TensorMapParamAttr : AttrDef<Fgemm_Dialect, "TensorMapParam"> {
  let mnemonic = "tensor_map_param";
  let summary = "a kernel parameter: a TMA descriptor of a kernel argument";
  let description = [{
    Recorded by `convert-fgemm-to-nvvm` on the kernel function (`fgemm.params`)
    for the kernel description: a CUtensorMap passed by value over argument
    `arg`, box `box` (elements, innermost first), swizzle in bytes (0 = none).

    Example: `#fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>`
  }];
  let parameters = (ins "int64_t":$arg, ArrayRefParameter<"int64_t">:$box, "int64_t":$swizzle);
  let assemblyFormat = "`<` `arg` `=` $arg `,` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `>`";
}

def Fgemm_PointerParamAttr : AttrDef<Fgemm_Dialect, "PointerParam"> {
  let mnemonic = "pointer_param";
  let summary = "a kernel parameter: the global pointer of a kernel argument";
  let description = "Example: `#fgemm.pointer_param<arg = 3>`";
  let parameters = (ins "int64_t":$arg);
  let assemblyFormat = "`<` `arg` `=` $arg `>`";
}

def Fgemm_DimParamAttr : AttrDef<Fgemm_Dialect, "DimParam"> {
  let mnemonic = "dim_param";
  let summary = "a kernel parameter: a dimension symbol's value as u32";
  let description = "Example: `#fgemm.dim_param<\"m\">`";
  let parameters = (ins "::mlir::StringAttr":$dim);
  let assemblyFormat = "`<` $dim `>`";
}

def Fgemm_WorkspaceParamAttr : AttrDef<Fgemm_Dialect, "WorkspaceParam"> {
  let mnemonic = "workspace_param";
  let summary = "a kernel parameter: the launch's global scratch memory";
  let description = [{
    A global pointer to `bytes_per_cta` bytes per CTA of the grid, all zero
    before the kernel's first launch on a stream and left zero by every
    launch that completes, private to one stream (the stream-K pieces'
    partial sums and flags; docs/ABI.md).

    Example: `#fgemm.workspace_param<bytes_per_cta = 65664>`
  }];
  let parameters = (ins "int64_t":$bytes_per_cta);
  let assemblyFormat = "`<` `bytes_per_cta` `=` $bytes_per_cta `>`";
}

def Fgemm_RasterGroupParamAttr : AttrDef<Fgemm_Dialect, "RasterGroupParam"> {
  let mnemonic = "raster_group_param";
  let summary = "a kernel parameter: the tile order's raster group as u32";
  let description = [{
    The value of `fgemm.raster_group` (launch_raster kernels): groups of that
    many tile rows walked column by column, 1 = row-major. `default` is the
    configuration's raster_group (at least 1), what a launch passes when it
    has no better choice (docs/ABI.md).

    Example: `#fgemm.raster_group_param<default = 8>`
  }];
  let parameters = (ins "int64_t":$default_group);
  let assemblyFormat = "`<` `default` `=` $default_group `>`";
}

#endif // FGEMM_ATTRS_TD
