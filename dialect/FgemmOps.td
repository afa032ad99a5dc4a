//===- FgemmOps.td - fgemm operations ----------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_OPS_TD
#define FGEMM_OPS_TD

include "dialect/FgemmDialect.td"
include "dialect/FgemmTypes.td"
include "dialect/FgemmAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Fgemm_AnyTile : Type<CPred<"::llvm::isa<::mlir::fgemm::TileType>($_self)">, "fgemm tile">;

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Fgemm_KernelOp : Fgemm_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, Symbol, AutomaticAllocationScope]> {
  let summary = "a GEMM kernel: global tensors in, one tile program";
  let description = [{
    The unit fgemmc compiles to one GPU entry point. Arguments are global
    tensors (`!fgemm.tensor`) and their scales (`!fgemm.scales`); `dims` lists
    the dimension symbols the argument types use, in the order the runtime
    passes them as 32-bit kernel parameters. The body holds one
    `fgemm.tile_space` and ends with `fgemm.return`. `variant` names the kind
    of GEMM the runtime loads the kernel as (the description's `variant`,
    docs/ABI.md; default: the tile space's kind, e.g. `dense`). `config` is
    set by `fgemm-specialize` and `grid` by `fgemm-schedule-tiles`.

    Example:
    ```mlir
    fgemm.kernel @gemm(%a: !fgemm.tensor<[m, k], f8E4M3FN>, ...)
        attributes {dims = ["m", "n", "k"]} {
      fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> { ... }
      fgemm.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       StrArrayAttr:$dims,
                       OptionalAttr<StrAttr>:$variant,
                       OptionalAttr<Fgemm_ConfigAttr>:$config,
                       OptionalAttr<Fgemm_TileGridAttr>:$grid,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
}

def Fgemm_ReturnOp : Fgemm_Op<"return", [Pure, Terminator, HasParent<"KernelOp">]> {
  let summary = "ends a kernel";
  let description = "Terminates the body of `fgemm.kernel`. Kernels return nothing.";
  let assemblyFormat = "attr-dict";
}

def Fgemm_YieldOp : Fgemm_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["TileSpaceOp", "TileLoopOp", "KLoopOp", "WarpSpecializeOp"]>]> {
  let summary = "ends a tile-space, K-loop or warp-role region";
  let description = [{
    In `fgemm.k_loop` it carries the next values of the loop-carried tiles; in
    the other regions it carries nothing.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

def Fgemm_TileSpaceOp : Fgemm_Op<"tile_space", [RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "the set of output tiles; the body computes one of them";
  let description = [{
    Runs the body once for every tile of `output`, in no specified order.
    `fgemm-schedule-tiles` decides which CTA computes which tile.

    `dense`: one problem. The body takes the tile's block indices along the
    output's two dimensions: tile `(i, j)` covers rows `[i*bm, (i+1)*bm)` and
    columns `[j*bn, (j+1)*bn)`, clipped to the tensor.

    Grouped kinds (mixture-of-experts layouts) take a 1-D i32 tensor that
    says which group each tile belongs to, and the body takes
    `(%group, %tm, %tn, %rows_begin, %rows_end)`: the tile's group, its block
    indices along the output's last two dimensions, and the rows of the
    output's row dimension that belong to the group. A tile whose rows do not
    meet `[rows_begin, rows_end)` runs no K blocks (its k_loop yields its
    init), so padding costs neither loads nor math.
    - `grouped_contiguous(%m_indices)`: output `[m, n]`, groups stacked along
      m in blocks of bm rows; `m_indices[r]` is row r's group, -1 on padding
      rows. A tile's group is that of its first row; a first row of -1 (or a
      group outside `[0, g)`) makes a tile of no group (rows empty). The rows
      range is the tile's own rows.
    - `grouped_masked(%masked_m)`: output `[g, m, n]`; group g's valid rows
      are `[0, masked_m[g])`, clamped to `[0, m]` on the GPU so that a bad
      count cannot reach another group's rows.
    - `grouped_contiguous_psum(%group_ends)`: output `[m, n]`, DeepGEMM's
      psum form: `group_ends[g]` is the end row of group g, which starts at
      the previous group's end rounded up to 128 (group 0 at row 0). A
      tile's group is the one whose rows hold its first row (a binary
      search); a tile in the gap before a group's start has no group.
    - `grouped_contiguous_unpadded(%group_ends)`: the same ends, but group g
      starts right at `group_ends[g - 1]`: no padding rows. A bm-row block
      holding rows of several groups is computed once per group, and each
      row is written by its own group only. The tiles are (block, group)
      pieces: along the rows, piece = block + group (`fgemm.find_piece_group`);
      scheduled persistently only.
    Example:
    ```mlir
    fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
    ^bb0(%tm: index, %tn: index):
      ...
      fgemm.yield
    }
    fgemm.tile_space grouped_masked(%masked_m : !fgemm.tensor<[g], i32>)
        over %d : !fgemm.tensor<[g, m, n], bf16> {
    ^bb0(%grp: index, %tm: index, %tn: index, %rows_begin: index, %rows_end: index):
      ...
    }
    ```
  }];
  let arguments = (ins Fgemm_TileSpaceKindAttr:$kind, Optional<AnyType>:$groups,
                       AnyType:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind (`(` $groups^ `:` type($groups) `)`)? `over` $output attr-dict `:` type($output) custom<Body>($body)
  }];
  let hasVerifier = 1;
  // The "stores into the output" check reads nested stores, which must have
  // passed their own verification first (malformed operand segments).
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool isGrouped() { return getKind() != TileSpaceKind::Dense; }
  }];
}

def Fgemm_KLoopOp : Fgemm_Op<"k_loop", [RecursiveMemoryEffects, SingleBlock,
    AttrSizedOperandSegments]> {
  let summary = "a loop over the blocks of a reduction dimension";
  let description = [{
    Runs the body for `kb = 0 .. ceil(dim / bk) - 1` in order, carrying
    `init` through `fgemm.yield`. `blocks(%n)`, set by `fgemm-schedule-tiles`
    in grouped tile spaces, runs `kb = 0 .. n - 1` instead (0 for a tile with
    no rows of its group). `first(%f) blocks(%n)`, set by the stream-K
    schedule, runs `kb = f .. f + n - 1`: one piece of the tile's K range.
    `rows(%lo, %hi)`, set by `fgemm-schedule-tiles` where every store of a
    grouped tile is bounded by its group's rows, says that only the tile's
    rows `[lo, hi)`, counted from its first row, are ever stored: the
    results are unspecified outside them. On sm_90 a math warpgroup none of
    whose rows lie inside skips its wgmmas and promotion where the loop's
    barriers are each warpgroup's own (persistent, decoupled warpgroups) or
    there is one math warpgroup; it still waits for each K block's operands
    and releases their slot, so the ring stays in step.
    The entry block's arguments are `kb` (an
    index) and the carried values. The last block may be partial; loads of it
    are zero-filled past the end, so it adds nothing beyond `dim`.

    Example:
    ```mlir
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      ...
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    ```
  }];
  let arguments = (ins StrAttr:$dim, Optional<Index>:$first, Optional<Index>:$blocks,
                       Variadic<Index>:$rows, Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  // The body and the result types in one custom directive, so that a parse
  // error after the body cannot free it while an earlier op uses one of its
  // block arguments (FgemmOps.cpp, parseBodyAndResults).
  let assemblyFormat = [{
    $dim (`first` `(` $first^ `)`)? (`blocks` `(` $blocks^ `)`)? (`rows` `(` $rows^ `)`)? (`init` `(` $inits^ `:` type($inits) `)`)? attr-dict-with-keyword
    custom<BodyAndResults>($body, type($results))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Fgemm_LoadOp : Fgemm_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "loads one tile of a global tensor";
  let description = [{
    Loads the tile at block indices `(row, col)` of `source`: rows
    `[row*b0, (row+1)*b0)`, columns `[col*b1, (col+1)*b1)`, where `b0 x b1` is
    the result tile's shape. Columns past the tensor's end read as zero (a
    partial last K block adds nothing); rows past its end are unspecified:
    row i of a tile only ever reaches row i of the results, which stores
    clip (on sm_90 such a tile loads only its rows before the end). A
    3-D tensor `[g, rows, cols]` takes a leading group index (an element
    index, not a block index): `%b[%grp, %tn, %kb]`. On
    sm_90 this becomes a TMA load (`cp.async.bulk.tensor`) into shared memory
    with a 128-byte swizzle.

    `multicast` is set by `fgemm-schedule-tiles` on loads whose tile is the
    same for every CTA of a cluster: each CTA then loads 1/cluster of the
    tile's rows and TMA multicasts them into the whole cluster. Where the
    CTAs' tiles are the same only sometimes (B of M-grouped tiles sharing a
    column: the same only when their row tiles are in one group), the
    scheduler gives the condition, the same in every CTA of the cluster:
    `multicast_if(%same)`; when it is false each CTA loads the whole tile
    itself.

    Example: `%ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>`
  }];
  let arguments = (ins Fgemm_TensorType:$source, Variadic<Index>:$indices,
                       Optional<I1>:$multicastIf, UnitAttr:$multicast);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`multicast_if` `(` $multicastIf^ `)`)? attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getRow() { return getIndices()[getIndices().size() - 2]; }
    ::mlir::Value getCol() { return getIndices().back(); }
    /// The group index of a 3-D source, else null.
    ::mlir::Value getGroup() { return getIndices().size() == 3 ? getIndices()[0] : ::mlir::Value(); }
  }];
}

def Fgemm_LoadScalesOp : Fgemm_Op<"load_scales", [AttrSizedOperandSegments,
                                                  MemoryEffects<[MemRead]>]> {
  let summary = "loads the scales that apply to one tile's rows in one K block";
  let description = [{
    For the tile at block index `index` of the scaled operand's first
    dimension (`b0` rows, `b0` = the result's only dimension) and K block `kb`,
    yields one FP32 scale per row: the scale of the block that row and K block
    fall in. MN-major per-row scales (`block = [1, 128]`) are TMA-loaded with
    the operand tiles; per-block scales (`block = [128, 128]`) are a single
    value per tile when the tile lies in one 128-row block and are read from
    global memory by the math threads.

    Scales of a 3-D (grouped) operand take a leading group index.

    `multicast` is set by `fgemm-schedule-tiles` on TMA-loaded scales that are
    the same for every CTA of a cluster (those of the tile `fgemm.load`
    multicasts): each CTA loads 1/cluster of the rows' scales and TMA
    multicasts them into the whole cluster, as the operand tile's rows;
    `multicast_if(%same)` as on that `fgemm.load`.

    Example: `%sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>`
  }];
  let arguments = (ins Fgemm_ScalesType:$source, Variadic<Index>:$indices,
                       Optional<I1>:$multicastIf, UnitAttr:$multicast);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`multicast_if` `(` $multicastIf^ `)`)? attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getIndex() { return getIndices()[getIndices().size() - 2]; }
    ::mlir::Value getKb() { return getIndices().back(); }
    /// The group index of 3-D scales, else null.
    ::mlir::Value getGroup() { return getIndices().size() == 3 ? getIndices()[0] : ::mlir::Value(); }
  }];
}

def Fgemm_StoreOp : Fgemm_Op<"store", [MemoryEffects<[MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "converts an accumulator tile and stores it to a global tensor";
  let description = [{
    Rounds `value` (an f32 or bf16 tile) to the destination's element type
    (round to nearest even; exact for a bf16 tile) and writes it at block indices `(row, col)` (a 3-D destination takes a
    leading group index). Elements past the tensor's end are not written.
    `rows(%begin, %end)` writes only the rows `[begin, end)` of the row
    dimension and leaves the tile's other rows untouched. `if(%c)` stores
    only where `c` holds (the same on every thread of the CTA; set by
    `fgemm-schedule-tiles` for the one CTA of a split tile that owns it,
    see `fgemm.combine_k_pieces`). On sm_90:
    registers -> shared memory -> TMA store (a tile cut by `rows` in boxes
    of 32, 16 and 8 rows where whole, the rows at the cut copied out by the
    math threads).

    Example: `fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>`
  }];
  let arguments = (ins Fgemm_TileType:$value, Fgemm_TensorType:$dest, Variadic<Index>:$indices,
                       Optional<Index>:$rows_begin, Optional<Index>:$rows_end,
                       Optional<I1>:$when);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`rows` `(` $rows_begin^ `,` $rows_end `)`)? (`if` `(` $when^ `)`)? attr-dict `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getRow() { return getIndices()[getIndices().size() - 2]; }
    ::mlir::Value getCol() { return getIndices().back(); }
    ::mlir::Value getGroup() { return getIndices().size() == 3 ? getIndices()[0] : ::mlir::Value(); }
  }];
}

def Fgemm_ReadTileOp : Fgemm_Op<"read_tile", [MemoryEffects<[MemRead]>]> {
  let summary = "reads a tile, or a per-row or per-column vector, of an f32 or bf16 tensor for the epilogue";
  let description = [{
    From a 2-D tensor `[d0, d1]` at block indices `(row, col)`: the
    `[b0, b1]` tile, as `fgemm.load` would give it. From a 1-D tensor `[d]`
    at block index `i`: the `[b]` vector of elements `[i*b, (i+1)*b)`, a
    value per tile row (`%tm`) or per tile column (`%tn`, e.g. a bias).
    The tile has the tensor's element type (f32 or bf16; `fgemm.cast` a bf16
    one to f32 for arithmetic).
    Elements past the tensor's end read as zero. Only after the K loop:
    each math thread reads the elements of its own accumulator fragments
    from global memory (no shared memory, no TMA), so the source may be the
    tensor the kernel stores into (`D = C + A B^T` in place).

    Example: `%ct = fgemm.read_tile %c[%tm, %tn] : !fgemm.tensor<[m, n], f32> -> !fgemm.tile<[bm, bn], f32>`
  }];
  let arguments = (ins Fgemm_TensorType:$source, Variadic<Index>:$indices);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = "$source `[` $indices `]` attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Fgemm_ReadOp : Fgemm_Op<"read", [MemoryEffects<[MemRead]>]> {
  let summary = "reads one element of a 1-D i32 index tensor";
  let description = [{
    Every thread that needs the value reads it from global memory (the
    group of a tile, a group's row count). The index must be in bounds: the
    scheduling passes only read rows of tiles that exist.
    Example: `%g = fgemm.read %m_indices[%row] : !fgemm.tensor<[m], i32> -> i32`
  }];
  let arguments = (ins Fgemm_TensorType:$source, Index:$index);
  let results = (outs I32:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Fgemm_FindGroupOp : Fgemm_Op<"find_group", [MemoryEffects<[MemRead]>]> {
  let summary = "the first group whose end row is past a row (binary search)";
  let description = [{
    `ends` holds ascending end rows, one per group; the result is the first
    g with `ends[g] > row`, or the number of groups if there is none. Every
    thread that needs it searches (log2(groups) reads). Ends out of order
    give some group, never an access outside `ends`.
    Example: `%g = fgemm.find_group %ends[%row] : !fgemm.tensor<[g], i32> -> i32`
  }];
  let arguments = (ins Fgemm_TensorType:$ends, Index:$row);
  let results = (outs I32:$result);
  let assemblyFormat = "$ends `[` $row `]` attr-dict `:` type($ends) `->` type($result)";
  let hasVerifier = 1;
}

def Fgemm_FindPieceGroupOp : Fgemm_Op<"find_piece_group", [MemoryEffects<[MemRead]>]> {
  let summary = "the group of a (block, group) piece of unpadded contiguous groups";
  let description = [{
    Group g (rows `[ends[g - 1], ends[g])`, group 0 from row 0) meets the
    `block`-row blocks `ends[g - 1] / block` onwards; walking the rows, the
    pieces (block b, group g) that hold rows of both come in the order
    `b + g`. The result is the group of piece `piece`: the last g with
    `ends[g - 1] / block + g <= piece` (a binary search; 0 if none). Ends out
    of order give some group, never an access outside `ends`.
    Example: `%g = fgemm.find_piece_group %ends[%piece] {block = 128} : !fgemm.tensor<[g], i32> -> i32`
  }];
  let arguments = (ins Fgemm_TensorType:$ends, Index:$piece, I64Attr:$block);
  let results = (outs I32:$result);
  let assemblyFormat = "$ends `[` $piece `]` attr-dict `:` type($ends) `->` type($result)";
  let hasVerifier = 1;
}

def Fgemm_CountRowTilesOp : Fgemm_Op<"count_row_tiles", [MemoryEffects<[MemRead]>,
    AttrSizedOperandSegments]> {
  let summary = "the row tiles of all groups, from per-group row counts";
  let description = [{
    The sum over the groups g of `ceil(clamp(sizes[g], 0, limit) / block)`:
    the `block`-row tiles that hold rows when group g has `sizes[g]` rows
    (masked_m), a bad count clamped so that it reaches no row past `limit`.
    With `pairs(%pair_units, %tail_units)` the sum counts units of a schedule
    that pairs each group's row tiles: a group of T row tiles holds
    `floor(T / 2)` pairs of `pair_units` units each and, when T is odd,
    `tail_units` units for its last row tile.
    Directly in the kernel's body: every thread of a CTA computes it (a
    warp's lanes load 32 groups at once and sum them across the warp).
    Example: `%n = fgemm.count_row_tiles %masked_m limit %m {block = 128} : !fgemm.tensor<[g], i32>`
  }];
  let arguments = (ins Fgemm_TensorType:$sizes, Index:$limit,
                       Optional<Index>:$pair_units, Optional<Index>:$tail_units,
                       I64Attr:$block);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $sizes `limit` $limit (`pairs` `(` $pair_units^ `,` $tail_units `)`)?
    attr-dict `:` type($sizes)
  }];
  let hasVerifier = 1;
}

def Fgemm_FindRowTileGroupOp : Fgemm_Op<"find_row_tile_group", [MemoryEffects<[MemRead]>,
    AttrSizedOperandSegments]> {
  let summary = "the group of a row tile counted by fgemm.count_row_tiles";
  let description = [{
    Row tiles numbered group by group (group g's
    `ceil(clamp(sizes[g], 0, limit) / block)` tiles after those of the
    groups before it): the group of tile `tile` and the tile's index inside
    its group (a linear scan over the groups; a tile past the last one gives
    the last group and an index past its tiles), and the group's rows
    `clamp(sizes[g], 0, limit)`, known from the scan, so that a tile needs
    no second read of them. With `pairs(...)` the numbering runs over the
    units fgemm.count_row_tiles counts with the same operands, and the
    second result is the unit's index inside its group.
    Example: `%g, %tm, %rows = fgemm.find_row_tile_group %masked_m[%t] limit %m {block = 128} : !fgemm.tensor<[g], i32>`
  }];
  let arguments = (ins Fgemm_TensorType:$sizes, Index:$tile, Index:$limit,
                       Optional<Index>:$pair_units, Optional<Index>:$tail_units,
                       I64Attr:$block);
  let results = (outs Index:$group, Index:$tile_in_group, Index:$group_rows);
  let assemblyFormat = [{
    $sizes `[` $tile `]` `limit` $limit
    (`pairs` `(` $pair_units^ `,` $tail_units `)`)? attr-dict `:` type($sizes)
  }];
  let hasVerifier = 1;
}

def Fgemm_DimOp : Fgemm_Op<"dim", [Pure]> {
  let summary = "the launch value of a kernel dimension symbol";
  let description = "Example: `%m = fgemm.dim \"m\"`";
  let arguments = (ins StrAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Fgemm_ZerosOp : Fgemm_Op<"zeros", [Pure]> {
  let summary = "a tile of zeros";
  let description = "Example: `%z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>`";
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Fgemm_ZeroRowsOp : Fgemm_Op<"zero_rows", [MemoryEffects<[MemRead]>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "zeroes the rows of a tile whose index-tensor entry is negative";
  let description = [{
    Row `r` of the tile at row block `row` (tensor row `row * bm + r`)
    becomes zero where `indices[row * bm + r] < 0`, and where that row is
    past the index tensor's end. The contiguous grouped GEMM writes its
    padding rows (m_indices = -1) as zeros with it, whatever A holds there.
    Example: `%z = fgemm.zero_rows %acc, %m_indices[%tm] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m], i32>`
  }];
  let arguments = (ins Fgemm_TileType:$value, Fgemm_TensorType:$indices, Index:$row);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = [{
    $value `,` $indices `[` $row `]` attr-dict `:` type($value) `,` type($indices)
  }];
  let hasVerifier = 1;
}

class Fgemm_ElementwiseOp<string mnemonic, string what> : Fgemm_Op<mnemonic, [Pure,
    AllTypesMatch<["lhs", "result"]>]> {
  let summary = "elementwise " # what # " of f32 tiles, a vector operand broadcast";
  let description = [{
    `lhs` is a 2-D f32 tile `[b0, b1]`; `rhs` is a tile of the same shape,
    or a vector `[b1]` (one value per column, repeated down the rows: a
    bias) or `[b0]` (one value per row, repeated along the columns). The
    result has `lhs`'s type. On sm_90: one FP32 instruction per element of
    the thread's accumulator fragments.

    Example: `%r = fgemm.}] # mnemonic # [{ %acc, %bias : !fgemm.tile<[bm, bn], f32>, !fgemm.tile<[bn], f32>`
  }];
  let arguments = (ins Fgemm_TileType:$lhs, Fgemm_TileType:$rhs);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasVerifier = 1;
}

def Fgemm_AddOp : Fgemm_ElementwiseOp<"add", "sum">;
def Fgemm_MulOp : Fgemm_ElementwiseOp<"mul", "product">;

def Fgemm_CastOp : Fgemm_Op<"cast", [Pure]> {
  let summary = "converts an epilogue tile or vector between f32 and bf16";
  let description = [{
    f32 -> bf16 rounds each element to nearest even (as a bf16 store does);
    bf16 -> f32 is exact. The shape stays. Elementwise ops take f32, so a
    bf16 operand (a bias read from a bf16 tensor) is cast first; a cast to
    bf16 and back rounds an intermediate to bf16 precision. On sm_90 a
    bf16 value stays in an FP32 register: f32 -> bf16 is one `cvt.rn`
    pair per element, bf16 -> f32 is free.

    Example: `%b = fgemm.cast %bias : !fgemm.tile<[bn], bf16> -> !fgemm.tile<[bn], f32>`
  }];
  let arguments = (ins Fgemm_TileType:$value);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Fgemm_ScaledDotOp : Fgemm_Op<"scaled_dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + (scale_a x scale_b) * (a . b^T), one K block, promoted in FP32";
  let description = [{
    `a` is `[bm, bk]`, `b` is `[bn, bk]` (both K-major FP8), `acc` and the
    result `[bm, bn]` FP32; `scale_a` is `[bm]`, `scale_b` `[bn]`. The block
    product runs on the tensor cores with a fresh FP32 partial sum, which is
    then promoted into `acc` on CUDA cores as `acc += scale_a[i] * scale_b[j] *
    partial[i][j]` (DeepGEMM's promotion: the tensor cores' FP8 accumulation
    keeps only about 14 mantissa bits, so partial sums must not grow across K
    blocks). On sm_90: `wgmma.mma_async` m64nNk32 e4m3, then FFMAs.

    Example:
    ```mlir
    %r = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
        : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
          !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
    ```
  }];
  let arguments = (ins Fgemm_TileType:$a, Fgemm_TileType:$b, Fgemm_TileType:$scale_a,
                       Fgemm_TileType:$scale_b, Fgemm_TileType:$acc);
  let results = (outs Fgemm_TileType:$result);
  let assemblyFormat = [{
    $a `,` $b `scales` `(` $scale_a `,` $scale_b `)` `acc` `(` $acc `)` attr-dict `:`
    type($a) `,` type($b) `,` type($scale_a) `,` type($scale_b) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scheduling, warp roles and pipelining (created by the fgemm passes)
//===----------------------------------------------------------------------===//

def Fgemm_SkipTileIfOp : Fgemm_Op<"skip_tile_if", [HasParent<"KernelOp">]> {
  let summary = "the CTA's tile has nothing to compute or store: the CTA ends";
  let description = [{
    Created by `fgemm-schedule-tiles` for plain grids of grouped tile spaces
    whose empty tiles write nothing (masked rows past masked_m): where
    `condition` holds, the CTA ends before it sets up its pipeline, so a
    grid sized for the capacity costs little more than the rows it holds.
    Every CTA of a cluster computes the same condition (they share the M
    tile and the group).
    Example: `fgemm.skip_tile_if %empty`
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

def Fgemm_ProgramIdOp : Fgemm_Op<"program_id", [Pure]> {
  let summary = "the index of this CTA in the launch grid";
  let description = [{
    Created by `fgemm-schedule-tiles`. Lowers to `%ctaid.{x,y,z}`.

    Example: `%x = fgemm.program_id x`
  }];
  let arguments = (ins Fgemm_DimAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Fgemm_TileLoopOp : Fgemm_Op<"tile_loop", [RecursiveMemoryEffects, SingleBlock]> {
  let summary = "a persistent CTA's loop over the output tiles it owns";
  let description = [{
    Created by `fgemm-schedule-tiles` in persistent mode. The grid has at most
    one CTA per SM; CTA `p` of `P` runs the body for the linear tile indices
    `p, p + P, p + 2P, ... < count`. The entry block's arguments are the
    CTA's iteration count (0, 1, ...) and the linear tile index; the body
    maps the linear index to tile coordinates (the tile order is the
    scheduler's arithmetic, in the IR). Consecutive tiles of one CTA reuse the
    warm pipeline: the producer prefetches the next tile while the math
    warpgroups store this one. Where tiles run different numbers of K blocks
    (grouped tile spaces: `fgemm.k_loop blocks(...)`), a third argument is
    the number of K blocks the CTA's earlier tiles ran, the ring position of
    this tile's first K block.

    `split_k(%kb)` (the stream-K schedule; `%kb` K blocks per tile) runs
    pieces of tiles instead: of T tiles on P CTAs, the first R = T mod P
    tiles are cut into U = R x kb units of one K block, CTA p taking units
    [p U / P, (p + 1) U / P) (in tile order), then whole tiles R + p,
    R + p + P, ... A CTA's units span at most two tiles, so it runs at most
    two pieces of split tiles, of which only the first may start past a
    tile's first K block. (Where U < P every tile is whole.) The body's
    arguments are the iteration, the tile, the K blocks of the CTA's
    earlier pieces (the ring position), the piece's first K block and its
    number of K blocks. `fgemm.combine_k_pieces` adds up a tile's pieces.
    In a kernel with clusters of C > 1 CTAs the rule runs over clusters and
    units of C consecutive tile indices (`count` a multiple of C): cluster
    q's CTA of rank r gets the index unit x C + r of each of the cluster's
    pieces and units, so a cluster's CTAs run the same pieces of the tiles
    that share their operand.

    Example:
    ```mlir
    fgemm.tile_loop %tiles {
    ^bb0(%iter: index, %tile: index):
      %tm = arith.divui %tile, %tiles_n : index
      ...
      fgemm.yield
    }
    ```
  }];
  let arguments = (ins Index:$count, Optional<Index>:$k_blocks);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $count (`split_k` `(` $k_blocks^ `)`)? attr-dict-with-keyword custom<Body>($body)
  }];
  let extraClassDeclaration = [{
    /// Whether the loop runs pieces of tiles (split_k).
    bool isSplit() { return static_cast<bool>(getKBlocks()); }
    /// A split loop's piece: its first K block and its number of K blocks.
    ::mlir::Value getFirstBlockArg() { return getBody().front().getArgument(3); }
    ::mlir::Value getBlocksArg() { return getBody().front().getArgument(4); }
  }];
  let hasVerifier = 1;
}

def Fgemm_CombineKPiecesOp : Fgemm_Op<"combine_k_pieces", [
    MemoryEffects<[MemRead, MemWrite]>, AllTypesMatch<["partial", "sum"]>]> {
  let summary = "adds up the pieces of a tile split along K (stream-K)";
  let description = [{
    Created by `fgemm-schedule-tiles` after the math K loop of a `split_k`
    tile loop; `partial` is the sum over the CTA's piece of the tile. A
    piece that starts past the tile's first K block publishes `partial` to
    the CTA's slot of the launch's workspace and yields `owner` = false
    (the CTA stores nothing). The piece that starts at K block 0 owns the
    tile: it waits for every CTA whose units start inside the tile (CTAs
    p + 1, p + 2, ...: pieces are consecutive; with clusters, the CTAs of
    its own rank in clusters q + 1, q + 2, ...), adds their sums in CTA
    order (the result does not depend on timing) and yields the tile's sum
    with `owner` = true. A whole tile yields `partial` unchanged.

    A publishing piece is its CTA's first and waits for nothing, so the
    waits cannot deadlock while every CTA is resident (one per SM; the
    runtime launches no more clusters than can be resident at once). The
    owner resets the flags it consumed, ready for the next launch.

    Example:
    `%sum, %owner = fgemm.combine_k_pieces %acc : !fgemm.tile<[bm, bn], f32>`
  }];
  let arguments = (ins Fgemm_TileType:$partial);
  let results = (outs Fgemm_TileType:$sum, I1:$owner);
  let assemblyFormat = "$partial attr-dict `:` type($partial)";
  let hasVerifier = 1;
}

def Fgemm_CombineKSplitOp : Fgemm_Op<"combine_k_split", [
    MemoryEffects<[MemRead, MemWrite]>, AllTypesMatch<["partial", "sum"]>]> {
  let summary = "adds up the K shares of a tile computed by one cluster (k_split)";
  let description = [{
    Created by `fgemm-schedule-tiles` after the math K loop of a kernel
    configured with `k_split` = S > 1: the S CTAs of a cluster compute the
    same output tile, CTA r (its rank in the cluster) over its share of the
    K blocks, and `partial` is that share's sum. The CTAs of ranks 1 .. S - 1
    leave `partial` in their own shared memory and yield `owner` = false;
    rank 0 reads their sums through distributed shared memory, adds them in
    rank order (the result does not depend on timing) and yields the tile's
    sum with `owner` = true. No global workspace and no second kernel: the
    partial sums never leave the cluster.

    Example:
    `%sum, %owner = fgemm.combine_k_split %acc : !fgemm.tile<[bm, bn], f32>`
  }];
  let arguments = (ins Fgemm_TileType:$partial);
  let results = (outs Fgemm_TileType:$sum, I1:$owner);
  let assemblyFormat = "$partial attr-dict `:` type($partial)";
  let hasVerifier = 1;
}

def Fgemm_NumBlocksOp : Fgemm_Op<"num_blocks", [Pure]> {
  let summary = "the number of blocks of a dimension: ceil(dim / block)";
  let description = [{
    `dim` is a kernel dimension symbol and `block` a configuration symbol
    (`bm`, `bn`, `bk`). Created by the passes to count tiles and K blocks.

    Example: `%nk = fgemm.num_blocks "k" by "bk"`
  }];
  let arguments = (ins StrAttr:$dim, StrAttr:$block);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim `by` $block attr-dict";
}

def Fgemm_RasterGroupOp : Fgemm_Op<"raster_group", [Pure]> {
  let summary = "the tile order's raster group, chosen at launch";
  let description = [{
    Created by `fgemm-schedule-tiles` for `launch_raster = true`: the launch
    passes the group (a kernel parameter, `#fgemm.raster_group_param`), so
    one kernel walks its tiles in the order the runtime picks for the shape
    and the device's L2. The value is clamped to [1, row units] where used.

    Example: `%g = fgemm.raster_group`
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Fgemm_WarpSpecializeOp : Fgemm_Op<"warp_specialize", [RecursiveMemoryEffects]> {
  let summary = "splits a CTA into a producer warpgroup and math warpgroups";
  let description = [{
    Created by `fgemm-warp-specialize`. One warpgroup runs `producer` (one
    elected thread issues the TMA loads); `math_warpgroups` warpgroups run
    `consumer` together, each on 64 rows of the tile. Registers are
    rebalanced with `setmaxnreg`: the producer drops to `producer_regs`, the
    math warpgroups grow to `consumer_regs`.

    Example:
    ```mlir
    fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
    producer {
      ...
      fgemm.yield
    } consumer {
      ...
      fgemm.yield
    }
    ```
  }];
  let arguments = (ins I64Attr:$math_warpgroups, I64Attr:$producer_regs, I64Attr:$consumer_regs);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  // A custom directive so that a parse error in either region cannot free a
  // block whose arguments an earlier op already uses (FgemmOps.cpp).
  let assemblyFormat = "attr-dict custom<WarpRoles>($producer, $consumer)";
  let hasVerifier = 1;
}

def Fgemm_RingCreateOp : Fgemm_Op<"ring.create", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a producer/consumer channel of per-K-block tiles";
  let description = [{
    Created by `fgemm-warp-specialize`; `fgemm-pipeline-tma` sets `plan`, the
    shared-memory layout of its stages. The verifier checks that every access
    agrees: one put, whose values are the tiles of TMA loads (`fgemm.load`,
    or `fgemm.load_scales` of MN-major scales), gets that yield the same
    types, and, once planned, one slot per put value and a stage and phase
    on every access.

    Example: `%ring = fgemm.ring.create {plan = #fgemm.ring_plan<...>} : !fgemm.ring`
  }];
  let arguments = (ins OptionalAttr<Fgemm_RingPlanAttr>:$plan);
  let results = (outs Fgemm_RingType:$ring);
  let assemblyFormat = "attr-dict `:` type($ring)";
  let hasVerifier = 1;
}

def Fgemm_RingPutOp : Fgemm_Op<"ring.put", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "the producer fills the ring entry of K block `index`";
  let description = [{
    Every value must come from an `fgemm.load` or `fgemm.load_scales` in the
    same block; the lowering turns each into a TMA load into the entry's slot.
    After pipelining, `stage` and `phase` name the slot and its barrier parity.

    Example: `fgemm.ring.put %ring[%kb] (%ta, %tb, %sa) : !fgemm.tile<...>, ...`
  }];
  let arguments = (ins Fgemm_RingType:$ring, Index:$index, Optional<Index>:$stage,
                       Optional<Index>:$phase, Variadic<Fgemm_TileType>:$values);
  let assemblyFormat = [{
    $ring `[` $index `]` (`stage` `(` $stage^ `,` $phase `)`)? `(` $values `)` attr-dict `:` type($values)
  }];
  let hasVerifier = 1;
}

def Fgemm_RingGetOp : Fgemm_Op<"ring.get", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "a consumer waits for the ring entry of K block `index`";
  let description = [{
    Yields the tiles the producer put, in the same order.

    Example: `%ta, %tb, %sa = fgemm.ring.get %ring[%kb] : !fgemm.tile<...>, ...`
  }];
  let arguments = (ins Fgemm_RingType:$ring, Index:$index, Optional<Index>:$stage,
                       Optional<Index>:$phase);
  let results = (outs Variadic<Fgemm_TileType>:$values);
  let assemblyFormat = [{
    $ring `[` $index `]` (`stage` `(` $stage^ `,` $phase `)`)? attr-dict `:` type($values)
  }];
  let hasVerifier = 1;
}

def Fgemm_RingReleaseOp : Fgemm_Op<"ring.release", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "a consumer is done with the ring entry of K block `index`";
  let description = [{
    After it, the producer may overwrite the entry's slot.

    Example: `fgemm.ring.release %ring[%kb]`
  }];
  let arguments = (ins Fgemm_RingType:$ring, Index:$index, Optional<Index>:$stage,
                       Optional<Index>:$phase);
  let assemblyFormat = [{
    $ring `[` $index `]` (`stage` `(` $stage^ `,` $phase `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // FGEMM_OPS_TD
