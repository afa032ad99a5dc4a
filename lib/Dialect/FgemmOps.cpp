//===- FgemmOps.cpp - fgemm op syntax and verifiers -------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The verifiers enforce the shape algebra of the tile program: a tile of a
// tensor with dimensions [m, k] has dimensions [bm, bk] ("b" + the tensor's
// symbol), a scaled dot multiplies [X, K] by [Y, K] into [X, Y], and so on.
//
//===----------------------------------------------------------------------===//

#include "dialect/FgemmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fgemm;

/// Moves the blocks of `regions` into a region that is deliberately never
/// freed, and fails. On a parse error after a region was parsed, an op parsed
/// before it may already use one of the region's block arguments (a forward
/// reference resolved inside it); freeing the block would leave that use
/// dangling until the enclosing block is destroyed (fuzz-repros 02).
static ParseResult parkRegionsAndFail(ArrayRef<Region *> regions) {
  auto *parked = new Region();
  for (Region *region : regions)
    parked->getBlocks().splice(parked->end(), region->getBlocks());
  return failure();
}

/// `producer {...} consumer {...}`
static ParseResult parseWarpRoles(OpAsmParser &parser, Region &producer,
                                  Region &consumer) {
  if (parser.parseKeyword("producer") || parser.parseRegion(producer))
    return parkRegionsAndFail({&producer});
  if (parser.parseKeyword("consumer") || parser.parseRegion(consumer))
    return parkRegionsAndFail({&producer, &consumer});
  return success();
}

/// `{...}`: a region that a parse error cannot free (parkRegionsAndFail).
static ParseResult parseBody(OpAsmParser &parser, Region &body) {
  if (parser.parseRegion(body))
    return parkRegionsAndFail({&body});
  return success();
}

static void printBody(OpAsmPrinter &printer, Operation *, Region &body) {
  printer.printRegion(body);
}

/// `{...} (-> types)?`
static ParseResult parseBodyAndResults(OpAsmParser &parser, Region &body,
                                       SmallVectorImpl<Type> &results) {
  if (parser.parseRegion(body))
    return parkRegionsAndFail({&body});
  if (succeeded(parser.parseOptionalArrow()) && parser.parseTypeList(results))
    return parkRegionsAndFail({&body});
  return success();
}

static void printBodyAndResults(OpAsmPrinter &printer, Operation *,
                                Region &body, TypeRange results) {
  printer.printRegion(body);
  if (!results.empty())
    printer << " -> " << results;
}

static void printWarpRoles(OpAsmPrinter &printer, Operation *, Region &producer,
                           Region &consumer) {
  printer << "producer ";
  printer.printRegion(producer);
  printer << " consumer ";
  printer.printRegion(consumer);
}

#define GET_OP_CLASSES
#include "dialect/FgemmOps.cpp.inc"

/// The tile symbol that blocks the tensor symbol `dim`: m -> bm.
static std::string blockSymbol(StringAttr dim) {
  return ("b" + dim.getValue()).str();
}

/// Prints a symbol list as `[a, b]` for diagnostics.
static std::string formatDims(ArrayRef<StringAttr> dims) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(dims, os, [&](StringAttr d) { os << d.getValue(); });
  os << "]";
  return s;
}

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  if (succeeded(function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildFuncType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name))))
    return success();
  // The body, as parseBody's: an op parsed before the kernel may use one of
  // its block arguments.
  SmallVector<Region *> regions = llvm::map_to_vector(
      result.regions, [](std::unique_ptr<Region> &r) { return r.get(); });
  return parkRegionsAndFail(regions);
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernels write their outputs through tensor arguments "
                       "and return "
                       "nothing; got ")
           << getFunctionType().getNumResults() << " results";
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  // The name becomes the PTX entry symbol (and the description's `kernel`):
  // LLVM's NVPTX printer aborts on other characters.
  StringRef name = getSymName();
  if (name.empty() || llvm::isDigit(name.front()) ||
      !llvm::all_of(name, isWordChar))
    return emitOpError("name '")
           << name
           << "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*): it is the "
              "kernel's PTX entry symbol";
  if (std::optional<StringRef> variant = getVariant()) {
    if (variant->empty() || llvm::isDigit(variant->front()) ||
        !llvm::all_of(*variant, isWordChar))
      return emitOpError("variant '")
             << *variant
             << "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*): the "
                "runtime loads kernels by it";
  }
  llvm::StringSet<> declared;
  for (Attribute a : getDims())
    if (!declared.insert(cast<StringAttr>(a).getValue()).second)
      return emitOpError("dimension symbol '")
             << cast<StringAttr>(a).getValue() << "' is listed twice in `dims`";
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    ArrayRef<StringAttr> dims;
    if (auto t = dyn_cast<GlobalTensorType>(type))
      dims = t.getDims();
    else if (auto s = dyn_cast<ScalesType>(type))
      dims = s.getDims();
    else
      return emitOpError("argument #")
             << i << " must be !fgemm.tensor or !fgemm.scales, got " << type;
    for (StringAttr d : dims)
      if (!declared.contains(d.getValue()))
        return emitOpError("argument #")
               << i << " uses dimension '" << d.getValue()
               << "', which is not in `dims` " << getDims();
  }
  Block &body = getBody().front();
  if (body.getNumArguments() != getArgumentTypes().size())
    return emitOpError("body must take the kernel's arguments");
  return success();
}

//===----------------------------------------------------------------------===//
// Structured regions
//===----------------------------------------------------------------------===//

/// The row count a grouped tile space's layout tensor is indexed by: the
/// output's row dimension (m_indices, one entry per row) or its group
/// dimension (masked_m, one per group).
static StringAttr groupsDimension(TileSpaceKind kind,
                                  ArrayRef<StringAttr> outDims) {
  switch (kind) {
  case TileSpaceKind::GroupedContiguous:
    return outDims.size() == 2 ? outDims[0] : StringAttr();
  case TileSpaceKind::GroupedMasked:
    return outDims.size() == 3 ? outDims[0] : StringAttr();
  case TileSpaceKind::GroupedContiguousPsum: // by group: the caller decides
  case TileSpaceKind::GroupedContiguousUnpadded:
  case TileSpaceKind::Dense:
    break;
  }
  return StringAttr();
}

LogicalResult TileSpaceOp::verify() {
  auto out = dyn_cast<GlobalTensorType>(getOutput().getType());
  if (!out)
    return emitOpError("iterates over the tiles of an !fgemm.tensor output");
  Block &body = getBody().front();
  bool allIndex =
      llvm::all_of(body.getArgumentTypes(), [](Type t) { return t.isIndex(); });
  if (!isGrouped()) {
    if (getGroups())
      return emitOpError("a dense tile space takes no groups tensor");
    if (out.getDims().size() != 2)
      return emitOpError("a dense tile space covers a 2-D output [m, n]; got ")
             << formatDims(out.getDims());
    if (body.getNumArguments() != 2 || !allIndex)
      return emitOpError(
          "body takes two index arguments: the tile's row and column block "
          "indices");
  } else {
    StringRef kind = stringifyTileSpaceKind(getKind());
    size_t rank = getKind() == TileSpaceKind::GroupedMasked ? 3 : 2;
    if (out.getDims().size() != rank)
      return emitOpError("a ")
             << kind << " tile space covers a "
             << (rank == 3 ? "3-D output [g, m, n]" : "2-D output [m, n]")
             << "; got " << formatDims(out.getDims());
    auto groups = dyn_cast_or_null<GlobalTensorType>(
        getGroups() ? getGroups().getType() : Type());
    StringAttr expected = groupsDimension(getKind(), out.getDims());
    // The psum form's tensor has one entry per group: its dimension is the
    // group symbol, which the output does not have.
    bool psum = getKind() == TileSpaceKind::GroupedContiguousPsum ||
                getKind() == TileSpaceKind::GroupedContiguousUnpadded;
    if (psum && groups && groups.getDims().size() == 1 &&
        !llvm::is_contained(out.getDims(), groups.getDims()[0]))
      expected = groups.getDims()[0];
    StringRef what = getKind() == TileSpaceKind::GroupedMasked
                         ? "valid rows per group (masked_m)"
                     : psum ? "group end rows (group_ends)"
                            : "row groups (m_indices)";
    StringRef symbol = expected ? expected.getValue() : StringRef("g");
    if (!groups || !groups.getElementType().isInteger(32) ||
        groups.getDims().size() != 1 || groups.getDims()[0] != expected)
      return emitOpError("a ")
             << kind << " tile space takes a 1-D i32 tensor [" << symbol
             << "] of " << what << ": `" << kind << "(%t : !fgemm.tensor<["
             << symbol << "], i32>)`";
    if (body.getNumArguments() != 5 || !allIndex)
      return emitOpError("body of a grouped tile space takes five index "
                         "arguments: the tile's group, its row and column "
                         "block indices, and the group's first and end row");
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || !yield.getValues().empty())
    return emitOpError("body must end with an `fgemm.yield` without values");
  return success();
}

LogicalResult TileSpaceOp::verifyRegions() {
  // The tiles are the output's: the body must store into it.
  bool stores = false;
  getBody().walk(
      [&](StoreOp store) { stores |= store.getDest() == getOutput(); });
  if (!stores)
    return emitOpError("iterates over the tiles of a tensor it never stores "
                       "into: the tile space must be over the kernel's "
                       "output (the fgemm.store destination)");
  return success();
}

LogicalResult TileLoopOp::verify() {
  Block &body = getBody().front();
  bool allIndex =
      llvm::all_of(body.getArgumentTypes(), [](Type t) { return t.isIndex(); });
  if (isSplit() && (body.getNumArguments() != 5 || !allIndex))
    return emitOpError(
        "with split_k the body takes five index arguments: the CTA's "
        "iteration, the linear tile index, the K blocks of the CTA's earlier "
        "pieces, the piece's first K block and its number of K blocks");
  if (!isSplit() &&
      ((body.getNumArguments() != 2 && body.getNumArguments() != 3) ||
       !allIndex))
    return emitOpError(
        "body takes two or three index arguments: the CTA's iteration, the "
        "linear tile index and, where tiles run different numbers of K "
        "blocks, the K blocks of the CTA's earlier tiles");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || !yield.getValues().empty())
    return emitOpError("body must end with an `fgemm.yield` without values");
  return success();
}

LogicalResult KLoopOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel && !llvm::is_contained(
                    kernel.getDims().getAsValueRange<StringAttr>(), getDim()))
    return emitOpError("loops over dimension '")
           << getDim() << "', which is not a kernel dimension";
  // The reduction runs over a dimension the output does not have.
  if (auto space = (*this)->getParentOfType<TileSpaceOp>())
    if (auto out = dyn_cast<GlobalTensorType>(space.getOutput().getType()))
      for (StringAttr d : out.getDims())
        if (d.getValue() == getDim())
          return emitOpError("reduces over '")
                 << getDim() << "', a dimension of the output "
                 << formatDims(out.getDims())
                 << " that fgemm.tile_space iterates over: a k_loop reduces "
                    "over a dimension the output does not have";
  if (getFirst() && !getBlocks())
    return emitOpError("first(...) needs blocks(...): a piece of the K range "
                       "has a first block and a number of blocks");
  // The ring counts a piece's blocks from its first only in a split loop
  // or a K-split cluster's one tile (fgemm-pipeline-tma); elsewhere a first
  // block would leave gaps in it.
  ConfigAttr config = kernel ? kernel.getConfigAttr() : ConfigAttr();
  bool kSplitTile = config && config.getKSplit() > 1 &&
                    !(*this)->getParentOfType<TileLoopOp>();
  if (auto loop = dyn_cast_or_null<TileLoopOp>((*this)->getParentOp());
      getFirst() && !(loop && loop.isSplit()) && !kSplitTile)
    return emitOpError("first(...) runs a piece of a tile split along K: it "
                       "belongs in the body of a `fgemm.tile_loop ... "
                       "split_k(...)` (fgemm-schedule-tiles with schedule = "
                       "stream_k) or in the one tile of a kernel with "
                       "k_split > 1");
  if (!getRows().empty() && getRows().size() != 2)
    return emitOpError("rows(...) takes two values, the first row of the tile "
                       "that is stored and the end of its stored rows (both "
                       "counted from the tile's first row), got ")
           << getRows().size();
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 + getInits().size() ||
      !body.getArgument(0).getType().isIndex())
    return emitOpError("body takes the K-block index followed by one argument "
                       "per `init` value");
  for (auto [arg, init] :
       llvm::zip(body.getArguments().drop_front(), getInits()))
    if (arg.getType() != init.getType())
      return emitOpError("carried argument type ")
             << arg.getType() << " differs from its init type "
             << init.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with `fgemm.yield`");
  if (yield.getValues().getTypes() != getInits().getTypes())
    return emitOpError("yields ")
           << yield.getValues().size() << " values but carries "
           << getInits().size();
  if (getResultTypes() != getInits().getTypes())
    return emitOpError("result types must match the `init` types");
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  if (getMathWarpgroups() < 1 || getMathWarpgroups() > 3)
    return emitOpError("math_warpgroups must be 1, 2 or 3, got ")
           << getMathWarpgroups();
  for (int64_t regs : {getProducerRegs(), getConsumerRegs()})
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitOpError(
                 "setmaxnreg counts must be multiples of 8 in [24, 256], got ")
             << regs;
  // 64K registers per SM are shared by the CTA's 128-thread warpgroups.
  int64_t total =
      128 * (getProducerRegs() + getMathWarpgroups() * getConsumerRegs());
  if (total > 65536)
    return emitOpError("register budget ")
           << total << " exceeds the 65536 registers of an SM";
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement and compute
//===----------------------------------------------------------------------===//

/// Checks that `tile` has the blocked dimensions of `dims`: [m, k] -> [bm, bk].
static LogicalResult verifyBlockedDims(Operation *op, ArrayRef<StringAttr> dims,
                                       TileType tile, StringRef what) {
  SmallVector<std::string> expected = llvm::map_to_vector(dims, blockSymbol);
  ArrayRef<StringAttr> got = tile.getDims();
  bool same = got.size() == expected.size();
  for (size_t i = 0; same && i < got.size(); ++i)
    same = got[i].getValue() == expected[i];
  if (!same)
    return op->emitOpError()
           << what << " of " << formatDims(dims) << " must have shape ["
           << llvm::join(expected, ", ") << "], got " << formatDims(got);
  return success();
}

/// What an index of a tensor access must be: the group index (the leading
/// dimension of a 3-D tensor) or a block index of a named dimension.
static constexpr StringLiteral kGroupRole = "<group>";

/// The role of a tile index where the program says so: the arguments of
/// fgemm.tile_space's body index its output's dimensions in order (in a
/// grouped space: the group, then the output's last two dimensions), the
/// first argument of fgemm.k_loop's body its dimension. Indices computed by
/// the scheduling passes (or a variant's own arithmetic) bind nothing and are
/// not checked here.
static std::optional<std::pair<StringRef, StringRef>>
getBoundDimension(Value index) {
  auto arg = dyn_cast<BlockArgument>(index);
  if (!arg)
    return std::nullopt;
  Operation *owner = arg.getOwner()->getParentOp();
  unsigned n = arg.getArgNumber();
  if (auto space = dyn_cast_or_null<TileSpaceOp>(owner)) {
    auto out = dyn_cast<GlobalTensorType>(space.getOutput().getType());
    if (!out)
      return std::nullopt;
    StringRef what = "fgemm.tile_space";
    ArrayRef<StringAttr> dims = out.getDims();
    if (!space.isGrouped())
      return n < dims.size()
                 ? std::make_optional(std::make_pair(dims[n].getValue(), what))
                 : std::nullopt;
    if (n == 0)
      return std::make_pair(StringRef(kGroupRole), what);
    if ((n == 1 || n == 2) && dims.size() >= 2)
      return std::make_pair(dims[dims.size() - 3 + n].getValue(), what);
    // The group's row range is rows, not block indices.
    return std::make_pair(StringRef("<rows>"), what);
  }
  if (auto loop = dyn_cast_or_null<KLoopOp>(owner); loop && n == 0)
    return std::make_pair(loop.getDim(), StringRef("fgemm.k_loop"));
  return std::nullopt;
}

/// Index discipline: index i of an access must be the tile index of the
/// accessed tensor's dimension i, and the group index for the leading
/// dimension of a 3-D tensor (B loaded with the M tile index, or a store at
/// [%tn, %tm], would compile to a silently wrong kernel).
static LogicalResult verifyIndices(Operation *op, Value tensor,
                                   ArrayRef<StringAttr> dims,
                                   ValueRange indices) {
  std::string tensorName = "the tensor";
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    tensorName = "kernel argument #" + std::to_string(arg.getArgNumber());
  if (indices.size() != dims.size())
    return op->emitOpError("takes ")
           << dims.size() << " indices for " << tensorName << " "
           << formatDims(dims)
           << (dims.size() == 3 ? " (the group, then two block indices)" : "")
           << "; got " << indices.size();
  for (auto [i, index] : llvm::enumerate(indices)) {
    bool groupIndex = dims.size() == 3 && i == 0;
    StringRef expected =
        groupIndex ? StringRef(kGroupRole) : dims[i].getValue();
    std::optional<std::pair<StringRef, StringRef>> bound =
        getBoundDimension(index);
    if (!bound || bound->first == expected)
      continue;
    auto describe = [](StringRef role) {
      return role == kGroupRole ? std::string("the group")
                                : "dimension '" + role.str() + "'";
    };
    auto diag = op->emitOpError("index ")
                << i << " is the " << bound->second << " index of "
                << describe(bound->first) << ", but ";
    if (groupIndex)
      return diag << "index 0 of " << tensorName << " " << formatDims(dims)
                  << " is its group: use the tile's group (the first "
                     "argument of a grouped fgemm.tile_space)";
    return diag << "dimension " << i << " of " << tensorName << " "
                << formatDims(dims) << " is '" << expected
                << "': use the index bound to '" << expected << "'";
  }
  return success();
}

LogicalResult LoadOp::verify() {
  auto src = getSource().getType();
  auto tile = getResult().getType();
  if (src.getElementType() != tile.getElementType())
    return emitOpError("tile element type ")
           << tile.getElementType() << " differs from the tensor's "
           << src.getElementType();
  if (!isFp8(src.getElementType()))
    return emitOpError("loads FP8 operand tiles; got ") << src.getElementType();
  if (failed(verifyIndices(*this, getSource(), src.getDims(), getIndices())))
    return failure();
  if (getMulticastIf() && !getMulticast())
    return emitOpError("has multicast_if but is not a multicast load: the "
                       "condition says when a multicast tile is shared");
  return verifyBlockedDims(*this, src.getDims().take_back(2), tile, "a tile");
}

LogicalResult LoadScalesOp::verify() {
  auto src = getSource().getType();
  auto tile = getResult().getType();
  if (!tile.getElementType().isF32() || tile.getDims().size() != 1)
    return emitOpError("yields one f32 scale per tile row: !fgemm.tile<[b")
           << src.getDims().take_back(2)[0].getValue() << "], f32>";
  if (getMulticastIf() && !getMulticast())
    return emitOpError("has multicast_if but is not a multicast load: the "
                       "condition says when the multicast scales are shared");
  if (getMulticast() && !src.getMnMajor())
    return emitOpError("is multicast but its scales are not mn_major: only "
                       "TMA-loaded (mn_major) scales can be multicast");
  if (failed(verifyIndices(*this, getSource(), src.getDims(), getIndices())))
    return failure();
  return verifyBlockedDims(*this, src.getDims().take_back(2).take_front(), tile,
                           "the scales of rows");
}

LogicalResult StoreOp::verify() {
  auto dest = getDest().getType();
  auto tile = getValue().getType();
  if (!tile.getElementType().isF32() && !tile.getElementType().isBF16())
    return emitOpError("stores f32 or bf16 tiles; got ")
           << tile.getElementType();
  if (!dest.getElementType().isBF16() && !dest.getElementType().isF32())
    return emitOpError("stores to bf16 or f32 tensors; got ")
           << dest.getElementType();
  if ((*this)->getParentOfType<KLoopOp>())
    return emitOpError("is inside fgemm.k_loop, so it would store a partial "
                       "sum every K block: store the k_loop's result after "
                       "the loop");
  if (static_cast<bool>(getRowsBegin()) != static_cast<bool>(getRowsEnd()))
    return emitOpError("rows(...) needs both the first and the end row");
  if (failed(verifyIndices(*this, getDest(), dest.getDims(), getIndices())))
    return failure();
  return verifyBlockedDims(*this, dest.getDims().take_back(2), tile,
                           "an output tile");
}

LogicalResult CombineKPiecesOp::verify() {
  if (!getPartial().getType().getElementType().isF32())
    return emitOpError("adds f32 partial sums; got ")
           << getPartial().getType().getElementType();
  auto loop = dyn_cast_or_null<TileLoopOp>((*this)->getParentOp());
  if (!loop || !loop.isSplit())
    return emitOpError("combines the pieces of a `fgemm.tile_loop ... "
                       "split_k(...)`: it must be in such a loop's body");
  return success();
}

LogicalResult CombineKSplitOp::verify() {
  if (!getPartial().getType().getElementType().isF32())
    return emitOpError("adds f32 partial sums; got ")
           << getPartial().getType().getElementType();
  auto kernel = (*this)->getParentOfType<KernelOp>();
  ConfigAttr config = kernel ? kernel.getConfigAttr() : ConfigAttr();
  if (!config || config.getKSplit() < 2)
    return emitOpError("combines the K shares of a cluster: the kernel must "
                       "be specialized with k_split > 1");
  if ((*this)->getParentOfType<KLoopOp>() ||
      (*this)->getParentOfType<TileLoopOp>())
    return emitOpError("runs once per CTA after the math K loop (a plain "
                       "grid's tile), not inside a K loop or tile loop");
  return success();
}

LogicalResult ReadOp::verify() {
  auto src = getSource().getType();
  if (src.getDims().size() != 1 || !src.getElementType().isInteger(32))
    return emitOpError("reads 1-D i32 index tensors; got ") << src;
  return success();
}

LogicalResult FindGroupOp::verify() {
  auto ends = getEnds().getType();
  if (ends.getDims().size() != 1 || !ends.getElementType().isInteger(32))
    return emitOpError("searches a 1-D i32 tensor of end rows; got ") << ends;
  return success();
}

LogicalResult FindPieceGroupOp::verify() {
  auto ends = getEnds().getType();
  if (ends.getDims().size() != 1 || !ends.getElementType().isInteger(32))
    return emitOpError("searches a 1-D i32 tensor of end rows; got ") << ends;
  if (getBlock() <= 0)
    return emitOpError("block must be positive, got ") << getBlock();
  return success();
}

/// Per-group row counts: a 1-D i32 tensor, and a positive block; a pair
/// schedule's units come as both counts or neither.
static LogicalResult verifyRowCounts(Operation *op, GlobalTensorType sizes,
                                     int64_t block, Value pairUnits,
                                     Value tailUnits) {
  if (sizes.getDims().size() != 1 || !sizes.getElementType().isInteger(32))
    return op->emitOpError("reads per-group row counts from a 1-D i32 "
                           "tensor; got ")
           << sizes;
  if (block <= 0)
    return op->emitOpError("block must be positive, got ") << block;
  if (static_cast<bool>(pairUnits) != static_cast<bool>(tailUnits))
    return op->emitOpError("pairs(...) needs both the units of a pair of row "
                           "tiles and those of a group's odd last row tile");
  return success();
}

LogicalResult CountRowTilesOp::verify() {
  // Lowered to a warp-wide sum, which needs every thread of the CTA.
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be directly in the kernel's body (every thread "
                       "of a CTA runs it: it sums the groups across a warp)");
  return verifyRowCounts(*this, getSizes().getType(), getBlock(),
                         getPairUnits(), getTailUnits());
}

LogicalResult FindRowTileGroupOp::verify() {
  return verifyRowCounts(*this, getSizes().getType(), getBlock(),
                         getPairUnits(), getTailUnits());
}

LogicalResult DimOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel && !llvm::is_contained(
                    kernel.getDims().getAsValueRange<StringAttr>(), getDim()))
    return emitOpError("'") << getDim() << "' is not a kernel dimension";
  return success();
}

LogicalResult ReadTileOp::verify() {
  auto src = getSource().getType();
  TileType tile = getResult().getType();
  Type element = src.getElementType();
  if ((!element.isF32() && !element.isBF16()) ||
      tile.getElementType() != element)
    return emitOpError("reads f32 or bf16 tensors into tiles of the same "
                       "element type; got ")
           << element << " -> " << tile.getElementType();
  if (src.getDims().size() > 2)
    return emitOpError("reads 1-D or 2-D tensors; got ")
           << formatDims(src.getDims())
           << " (group-indexed epilogue operands are not supported yet)";
  if ((*this)->getParentOfType<KLoopOp>())
    return emitOpError("is inside fgemm.k_loop: epilogue operands are read "
                       "once per tile, after the loop");
  if (failed(verifyIndices(*this, getSource(), src.getDims(), getIndices())))
    return failure();
  return verifyBlockedDims(*this, src.getDims(), tile, "a tile");
}

/// `rhs` of an elementwise op: `lhs`'s shape, or one of its dimensions
/// (a vector broadcast along the other).
static LogicalResult verifyElementwise(Operation *op, TileType lhs,
                                       TileType rhs) {
  if (!lhs.getElementType().isF32() || !rhs.getElementType().isF32())
    return op->emitOpError("takes f32 tiles (fgemm.cast a bf16 one first); "
                           "got ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  if (lhs.getDims().size() != 2)
    return op->emitOpError("lhs must be a 2-D tile [b0, b1]; got ")
           << formatDims(lhs.getDims());
  ArrayRef<StringAttr> l = lhs.getDims(), r = rhs.getDims();
  if (r == l || (r.size() == 1 && (r[0] == l[0] || r[0] == l[1])))
    return success();
  return op->emitOpError("rhs must be ")
         << formatDims(l) << ", [" << l[1].getValue() << "] (per column) or ["
         << l[0].getValue() << "] (per row); got " << formatDims(r);
}

LogicalResult AddOp::verify() {
  return verifyElementwise(*this, getLhs().getType(), getRhs().getType());
}

LogicalResult MulOp::verify() {
  return verifyElementwise(*this, getLhs().getType(), getRhs().getType());
}

LogicalResult CastOp::verify() {
  TileType from = getValue().getType(), to = getResult().getType();
  auto epilogueType = [](Type t) { return t.isF32() || t.isBF16(); };
  if (!epilogueType(from.getElementType()) ||
      !epilogueType(to.getElementType()))
    return emitOpError("converts between f32 and bf16 tiles; got ")
           << from.getElementType() << " -> " << to.getElementType();
  if (from.getDims() != to.getDims())
    return emitOpError("keeps the shape: ")
           << formatDims(from.getDims()) << " -> " << formatDims(to.getDims());
  return success();
}

LogicalResult ZeroRowsOp::verify() {
  auto indices = getIndices().getType();
  TileType tile = getValue().getType();
  if (indices.getDims().size() != 1 || !indices.getElementType().isInteger(32))
    return emitOpError("takes a 1-D i32 index tensor; got ") << indices;
  if (tile.getDims().size() != 2 || !tile.getElementType().isF32())
    return emitOpError("zeroes rows of a 2-D f32 accumulator tile; got ")
           << tile;
  std::string rows = blockSymbol(indices.getDims()[0]);
  if (tile.getDims()[0].getValue() != rows)
    return emitOpError("the tile's rows ")
           << tile.getDims()[0].getValue() << " must block the index tensor's "
           << formatDims(indices.getDims()) << " (" << rows << ")";
  return verifyIndices(*this, getIndices(), indices.getDims(),
                       ValueRange{getRow()});
}

/// The scale layouts the compiler lowers, checked where a dot's scales come
/// straight from fgemm.load_scales (after warp specialization they come from
/// the ring): A per row (`[1, 128], mn_major`, TMA-loaded with the tile) or
/// per tensor; B the same, or per 128x128 block (row-major, read by the math
/// threads).
static LogicalResult verifyScaleRecipe(Operation *dot, Value scales, bool isA) {
  auto load = scales.getDefiningOp<LoadScalesOp>();
  if (!load)
    return success();
  ScalesType type = load.getSource().getType();
  if (type.isPerTensor())
    return success();
  ArrayRef<int64_t> block = type.getBlock();
  bool perRow = block[0] == 1 && type.getMnMajor();
  bool perBlock = block[0] == 128 && !type.getMnMajor();
  if (perRow || (perBlock && !isA))
    return success();
  auto diag = dot->emitOpError("scale ")
              << (isA ? "a" : "b") << " is " << type << ", which ";
  if (block[0] == 1)
    return diag << "is read by TMA with the operand tile, so it must be "
                   "stored M/N-major: add mn_major";
  if (type.getMnMajor())
    return diag << "the math threads read row-major: drop mn_major";
  return diag << "is not a layout for A: A's scales are per row "
                 "(block = [1, 128], mn_major) or per_tensor (B also takes "
                 "block = [128, 128])";
}

LogicalResult ScaledDotOp::verify() {
  TileType a = getA().getType(), b = getB().getType();
  TileType sa = getScaleA().getType(), sb = getScaleB().getType();
  TileType acc = getAcc().getType();
  if (!isFp8(a.getElementType()) || !isFp8(b.getElementType()))
    return emitOpError("operands must be FP8 tiles (f8E4M3FN or f8E5M2); got ")
           << a.getElementType() << " and " << b.getElementType();
  if (a.getDims().size() != 2 || b.getDims().size() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (a.getDims()[1] != b.getDims()[1])
    return emitOpError("operands must share their K dimension (both K-major): ")
           << formatDims(a.getDims()) << " vs " << formatDims(b.getDims());
  if (!acc.getElementType().isF32())
    return emitOpError("accumulates in f32; got ") << acc.getElementType();
  SmallVector<StringAttr> out = {a.getDims()[0], b.getDims()[0]};
  if (acc.getDims() != ArrayRef<StringAttr>(out))
    return emitOpError("accumulator must be ")
           << formatDims(out) << ", got " << formatDims(acc.getDims());
  if (sa.getDims() != a.getDims().take_front() ||
      sb.getDims() != b.getDims().take_front())
    return emitOpError("scales must have one value per row of each operand: ")
           << formatDims(a.getDims().take_front()) << " and "
           << formatDims(b.getDims().take_front());
  if (!sa.getElementType().isF32() || !sb.getElementType().isF32())
    return emitOpError("scales must be f32");
  if (failed(verifyScaleRecipe(*this, getScaleA(), /*isA=*/true)) ||
      failed(verifyScaleRecipe(*this, getScaleB(), /*isA=*/false)))
    return failure();
  if (getResult().use_empty())
    return emitOpError("result is never used: yield it from the fgemm.k_loop "
                       "(an unused dot would store zeros)");
  return success();
}

//===----------------------------------------------------------------------===//
// Ring
//===----------------------------------------------------------------------===//

/// Checks the optional stage/phase pair of a ring access: both or neither.
static LogicalResult verifyRingAccess(Operation *op, Value stage, Value phase) {
  if (static_cast<bool>(stage) != static_cast<bool>(phase))
    return op->emitOpError("needs both a stage and a phase, or neither");
  return success();
}

/// A ring is accessed by the warp roles: puts in fgemm.warp_specialize's
/// producer region, gets and releases in its consumer region.
static LogicalResult verifyRingRole(Operation *op, bool producer) {
  auto roles = op->getParentOfType<WarpSpecializeOp>();
  if (!roles || !(producer ? roles.getProducer() : roles.getConsumer())
                     .isAncestor(op->getParentRegion()))
    return op->emitOpError("must be inside the ")
           << (producer ? "producer" : "consumer")
           << " region of an fgemm.warp_specialize";
  return success();
}

LogicalResult RingPutOp::verify() {
  if (failed(verifyRingAccess(*this, getStage(), getPhase())))
    return failure();
  if (getValues().empty())
    return emitOpError("puts at least one tile");
  for (auto [i, value] : llvm::enumerate(getValues())) {
    Operation *def = value.getDefiningOp();
    bool tma = isa_and_nonnull<LoadOp>(def);
    if (auto scales = dyn_cast_or_null<LoadScalesOp>(def))
      tma = scales.getSource().getType().getMnMajor();
    if (!tma || def->getBlock() != (*this)->getBlock())
      return emitOpError("value #")
             << i
             << " must come from an fgemm.load (or fgemm.load_scales of "
                "MN-major scales) in the same block: the producer "
                "turns each into a TMA load";
  }
  if (failed(verifyRingRole(*this, /*producer=*/true)))
    return failure();
  return success();
}

LogicalResult RingGetOp::verify() {
  if (failed(verifyRingAccess(*this, getStage(), getPhase())))
    return failure();
  return verifyRingRole(*this, /*producer=*/false);
}

LogicalResult RingReleaseOp::verify() {
  if (failed(verifyRingAccess(*this, getStage(), getPhase())))
    return failure();
  return verifyRingRole(*this, /*producer=*/false);
}

LogicalResult RingCreateOp::verify() {
  SmallVector<RingPutOp> puts;
  SmallVector<Operation *> accesses;
  for (Operation *user : getRing().getUsers()) {
    // The users are verified after this op: check their own invariants
    // (e.g. operand segment sizes) before reading their operands.
    if (!isa<RingPutOp, RingGetOp, RingReleaseOp>(user))
      return user->emitOpError("uses a ring; only fgemm.ring.put, ring.get "
                               "and ring.release may");
    if (failed(user->getName().verifyInvariants(user)))
      return failure();
    if (auto put = dyn_cast<RingPutOp>(user))
      puts.push_back(put);
    accesses.push_back(user);
  }
  if (puts.size() > 1)
    return emitOpError("has ")
           << puts.size() << " producer puts; a ring has exactly one";
  TypeRange putTypes;
  if (!puts.empty())
    putTypes = puts.front().getValues().getTypes();
  for (Operation *access : accesses)
    if (auto get = dyn_cast<RingGetOp>(access);
        get && !puts.empty() && get.getValues().getTypes() != putTypes)
      return get.emitOpError("yields ")
             << get.getValues().getTypes() << " but the ring's put carries "
             << putTypes;
  RingPlanAttr plan = getPlanAttr();
  if (!plan)
    return success();
  if (!puts.empty() && plan.getOffsets().size() != putTypes.size())
    return emitOpError("plan has ") << plan.getOffsets().size()
                                    << " slots per stage but the put carries "
                                    << putTypes.size() << " values";
  for (Operation *access : accesses) {
    bool staged = TypeSwitch<Operation *, bool>(access)
                      .Case<RingPutOp, RingGetOp, RingReleaseOp>([](auto op) {
                        return static_cast<bool>(op.getStage());
                      })
                      .Default([](Operation *) { return false; });
    if (!staged)
      return access->emitOpError(
          "accesses a planned ring without a stage and phase");
  }
  if (auto kernel = (*this)->getParentOfType<KernelOp>())
    if (ConfigAttr config = kernel.getConfigAttr();
        config && config.getStages() != plan.getStages())
      return emitOpError("plan has ")
             << plan.getStages() << " stages but the kernel's "
             << "configuration has " << config.getStages();
  return success();
}
