//===- MathLowering.cpp - the math warpgroups' K loop -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Part of convert-fgemm-to-nvvm: fgemm.scaled_dot becomes wgmma.mma_async
// m64nNk32 on shared-memory descriptors built here (K-major, 128-byte
// swizzle, +32 bytes per k32 step for A and B: MLIR-NVGPU.md trap 1), then
// FFMA promotion with scale_a * scale_b; per-block B scales are read by the
// math threads; optionally the next K block's wgmmas overlap the promotion.
//
//===----------------------------------------------------------------------===//

#include "Conversion/FgemmToNVVM/KernelLowering.h"

using namespace mlir;
using namespace mlir::fgemm;
using namespace mlir::fgemm::detail;

/// The math loop, software-pipelined by one K block and unrolled by two so
/// that the two in-flight partial sums keep their registers (a loop-carried
/// copy of an in-flight wgmma accumulator would make ptxas serialize):
///
///   A = issue(0)
///   for j = 0, 2, ... while j + 2 < n:        carries acc, A (block j, in
///   flight)
///     B = issue(j+1)                          wgmma on the tensor cores...
///     wait(1): A done; acc = promote(A)       ...while the FFMAs run here
///     A = issue(j+2)
///     wait(1): B done; acc = promote(B)
///   tail: one or two blocks left, the same steps with wait(0) at the end
///
/// issue(kb) = the body's ops before the dot (stage/phase, ring.get = wait for
/// the slot) + wgmma.fence, 4 wgmmas, commit; promote(kb) = the remaining
/// scale loads, the row scales from the slot, release of the slot, FFMAs.
LogicalResult KernelLowering::lowerOverlappedDotLoop(KLoopOp op,
                                                     ScaledDotOp dot) {
  Block &body = op.getBody().front();
  if (op.getInits().size() != 1 || dot.getAcc() != body.getArgument(1))
    return op.emitError(
        "the math loop must carry exactly the dot's accumulator");
  auto release = dyn_cast_or_null<RingReleaseOp>(dot->getNextNode());
  SmallVector<Operation *> issueOps, promoteOps;
  for (Operation &inner : body) {
    if (&inner == dot.getOperation())
      break;
    bool late = isa<LoadScalesOp>(inner) && !isTmaLoad(&inner);
    (late ? promoteOps : issueOps).push_back(&inner);
  }
  Value kbArg = body.getArgument(0);
  // Blocks are counted from the loop's first (a stream-K piece's).
  Value firstBlock = op.getFirst() ? lookup(op.getFirst()) : Value();
  auto absolute = [&](Value j) -> Value {
    return firstBlock ? arith::AddIOp::create(b, loc, j, firstBlock) : j;
  };

  auto issue = [&](Value kb) -> FailureOr<Value> {
    mapping[kbArg] = absolute(kb);
    for (Operation *inner : issueOps)
      if (failed(lowerOp(*inner)))
        return failure();
    return issueDot(dot, /*wave=*/0, /*group=*/0, /*previous=*/Value());
  };
  auto promote = [&](Value kb, Value partial, Value acc) -> FailureOr<Value> {
    mapping[kbArg] = absolute(kb);
    reuseRingEntry = true; // re-derive the slots, do not wait again
    for (Operation *inner : issueOps)
      if (failed(lowerOp(*inner)))
        return failure();
    reuseRingEntry = false;
    for (Operation *inner : promoteOps)
      if (failed(lowerOp(*inner)))
        return failure();
    return promoteDot(dot, partial, acc, release, /*wave=*/0, /*group=*/0);
  };
  auto waitGroups = [&](int64_t pending) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  };

  FailureOr<Value> numBlocksOr = kLoopBlocks(op);
  if (failed(numBlocksOr))
    return failure();
  Value numBlocks = *numBlocksOr;
  FailureOr<Value> first = issue(constIndex(0));
  if (failed(first))
    return failure();
  // Main loop: pairs (j + 1, j + 2) while both exist, so every wait is
  // unconditional and ptxas can see which group each promotion waited for
  // (a wait inside a branch makes it serialize all wgmmas, C7514).
  Value two = constIndex(2);
  Value hasPairs =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, numBlocks, two);
  Value upper = arith::SelectOp::create(
      b, loc, hasPairs, arith::SubIOp::create(b, loc, numBlocks, two),
      constIndex(0));
  auto forOp = scf::ForOp::create(b, loc, constIndex(0), upper, two,
                                  ValueRange{lookup(op.getInits()[0]), *first});
  {
    OpBuilder::InsertionGuard guard(b);
    openLoopBody(forOp);
    Value j = forOp.getInductionVar();
    Value acc = forOp.getRegionIterArgs()[0],
          pendingA = forOp.getRegionIterArgs()[1];
    Value j1 = arith::AddIOp::create(b, loc, j, constIndex(1));
    Value j2 = arith::AddIOp::create(b, loc, j, two);
    FailureOr<Value> pendingB = issue(j1);
    if (failed(pendingB))
      return failure();
    waitGroups(1);
    FailureOr<Value> accA = promote(j, pendingA, acc);
    if (failed(accA))
      return failure();
    FailureOr<Value> nextA = issue(j2);
    if (failed(nextA))
      return failure();
    waitGroups(1);
    FailureOr<Value> accB = promote(j1, *pendingB, *accA);
    if (failed(accB))
      return failure();
    scf::YieldOp::create(b, loc, ValueRange{*accB, *nextA});
  }
  // Tail: block `last` is in flight; one more block may follow it.
  Value acc = forOp.getResult(0), pendingA = forOp.getResult(1);
  Value last = arith::MulIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, upper, two), two);
  Value next = arith::AddIOp::create(b, loc, last, constIndex(1));
  Value hasNext =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next, numBlocks);
  auto tail = scf::IfOp::create(b, loc, TypeRange{acc.getType()}, hasNext,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&tail.getThenRegion().front());
    FailureOr<Value> pendingB = issue(next);
    if (failed(pendingB))
      return failure();
    waitGroups(1);
    FailureOr<Value> accA = promote(last, pendingA, acc);
    if (failed(accA))
      return failure();
    waitGroups(0);
    FailureOr<Value> accB = promote(next, *pendingB, *accA);
    if (failed(accB))
      return failure();
    scf::YieldOp::create(b, loc, *accB);
    b.setInsertionPointToStart(&tail.getElseRegion().front());
    waitGroups(0);
    FailureOr<Value> accA2 = promote(last, pendingA, acc);
    if (failed(accA2))
      return failure();
    scf::YieldOp::create(b, loc, *accA2);
  }
  mapping[op.getResult(0)] = tail.getResult(0);
  return success();
}

/// The scale of the tile's block `relativeBlock` (clamped to the last block)
/// at K block `kb`, from global memory (i32 values).
Value KernelLowering::loadBlockScale(LoadScalesOp op,
                                     const BlockScaleSource &source,
                                     Value relativeBlock, Value kb) {
  Value block = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, source.firstBlock, relativeBlock),
      source.lastBlock);
  Value element = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, source.groupBase,
          arith::MulIOp::create(b, loc, block, source.kBlocks)),
      kb);
  Value ptr = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), b.getF32Type(),
      argPointers.lookup(op.getSource()), ValueRange{element});
  return LLVM::LoadOp::create(b, loc, b.getF32Type(), ptr,
                              /*alignment=*/4, /*isVolatile=*/false,
                              /*isNonTemporal=*/false, /*isInvariant=*/true);
}

/// Per-block scales of a [128, 128]-blocked operand, read from the row-major
/// [ceil(rows/128), ceil(K/128)] array by every math thread. A tile of `b`
/// rows starting at row r0 spans the 128-row blocks r0/128 .. (r0+b-1)/128:
/// one when b divides 128, else up to ceil(b/128) + 1 (DeepGEMM's unaligned
/// BLOCK_N). Loads past the last block are clamped to it; no fragment uses
/// them.
FailureOr<KernelLowering::BlockScaleSource>
KernelLowering::blockScaleSource(LoadScalesOp op) {
  ScalesType type = op.getSource().getType();
  int64_t rows = extent(op.getResult().getType().getDims()[0]);
  if (type.getBlock()[0] != 128)
    return op.emitError(
        "per-row scales must be MN-major so that TMA can load them");
  ArrayRef<StringAttr> operandDims = type.getDims().take_back(2);
  BlockScaleSource source;
  source.kBlocks = arith::CeilDivUIOp::create(
      b, loc, toI32(dims.lookup(operandDims[1])), constI32(128));
  Value rowBlocks = arith::CeilDivUIOp::create(
      b, loc, toI32(dims.lookup(operandDims[0])), constI32(128));
  // A group's scales follow the previous group's: [g, rowBlocks, kBlocks].
  source.groupBase = constI32(0);
  if (Value group = op.getGroup())
    source.groupBase = arith::MulIOp::create(
        b, loc, toI32(lookup(group)),
        arith::MulIOp::create(b, loc, rowBlocks, source.kBlocks));
  source.lastBlock = arith::SubIOp::create(b, loc, rowBlocks, constI32(1));
  source.firstRow = mulI32(toI32(lookup(op.getIndex())), rows);
  source.firstBlock =
      arith::DivUIOp::create(b, loc, source.firstRow, constI32(128));
  source.numBlocks = getScaleBlocksSpanned(rows);
  source.offsetStep = getScaleOffsetStep(rows);
  // A known offset r of the tile inside its first block: it spans exactly
  // the blocks of rows r .. r + rows - 1.
  auto known = knownScaleOffsets.find(op.getResult());
  if (known != knownScaleOffsets.end()) {
    source.offset = known->second;
    source.numBlocks = (known->second + rows - 1) / 128 + 1;
  }
  return source;
}

/// Per-tensor scales are one value for every K block (per group of a grouped
/// operand): each math thread loads it once, before the K loop, and the
/// promotion multiplies by it like by a per-block scale that spans the tile.
LogicalResult KernelLowering::preloadTensorScales(KLoopOp op) {
  for (auto scales : op.getBody().getOps<LoadScalesOp>()) {
    if (!scales.getSource().getType().isPerTensor())
      continue;
    Value group = scales.getGroup();
    if (group && op->isAncestor(group.getParentRegion()->getParentOp()))
      return scales.emitError("a per-tensor scale's group index must be "
                              "known before the K loop");
    Value pointer = argPointers.lookup(scales.getSource());
    if (!pointer)
      return scales.emitError("per-tensor scales must be passed as a pointer");
    Value element = group ? toI32(lookup(group)) : constI32(0);
    Value ptr = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), b.getF32Type(),
        pointer, ValueRange{element});
    Value value = LLVM::LoadOp::create(b, loc, b.getF32Type(), ptr,
                                       /*alignment=*/4, /*isVolatile=*/false,
                                       /*isNonTemporal=*/false,
                                       /*isInvariant=*/true);
    mapping[scales] = value;
    blockScales[scales.getResult()] = BlockScales{constI32(0), {value}, 0};
    preloaded.insert(scales);
  }
  return success();
}

/// Per-block scales of a [128, 128]-blocked operand, read from the row-major
/// [ceil(rows/128), ceil(K/128)] array by every math thread. A tile of `b`
/// rows starting at row r0 spans the 128-row blocks r0/128 .. (r0+b-1)/128
/// (getScaleBlocksSpanned). Loads past the last block are clamped to it; no
/// fragment uses them.
LogicalResult KernelLowering::lowerLoadScales(LoadScalesOp op) {
  FailureOr<BlockScaleSource> source = blockScaleSource(op);
  if (failed(source))
    return failure();
  BlockScales scales{source->firstRow, {}, source->offset, source->offsetStep};
  for (int64_t j = 0; j < source->numBlocks; ++j)
    scales.values.push_back(
        loadBlockScale(op, *source, constI32(j), toI32(lookup(op.getKb()))));
  mapping[op] = scales.values.front();
  blockScales[op.getResult()] = scales;
  return success();
}

/// Staged word w, chunk block c at warpgroupScales() + (w x chunk + c) x 4.
/// Each stager copies every stagers()-th entry: every math thread into one
/// copy, or with decoupledWarpgroups each warpgroup's threads into its own
/// (a store warp's 32 threads take no part where stagingSkipsStoreWarp);
/// entries past the tensor's K blocks are left as they are (no K block reads
/// them).
int64_t KernelLowering::stagers() const {
  int64_t threads =
      decoupledWarpgroups ? 128 : 128 * config.getMathWarpgroups();
  return threads - (stagingSkipsStoreWarp ? 32 : 0);
}

int64_t KernelLowering::prefetchedEntries(LoadScalesOp op) {
  return getScaleBlocksSpanned(extent(op.getResult().getType().getDims()[0])) *
         kScaleChunkBlocks;
}

void KernelLowering::forEachStagedEntry(
    int64_t entries, Value chunkStart, Value kBlocks,
    function_ref<void(Value inside, Value j, Value c, Value kb)> forEntry) {
  int64_t skipped = stagingSkipsStoreWarp ? 32 : 0;
  Value thread = decoupledWarpgroups ? threadInWarpgroup() : mathTid;
  Value stager = arith::SubIOp::create(b, loc, thread, constI32(skipped));
  Value takesPart = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          thread, constI32(skipped));
  // Unrolled, so that the loads of one thread are in flight together.
  for (int64_t first = 0; first < entries; first += stagers()) {
    Value entry = arith::AddIOp::create(b, loc, stager, constI32(first));
    Value j =
        arith::DivUIOp::create(b, loc, entry, constI32(kScaleChunkBlocks));
    Value c =
        arith::RemUIOp::create(b, loc, entry, constI32(kScaleChunkBlocks));
    Value kb = arith::AddIOp::create(b, loc, chunkStart, c);
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, entry,
                              constI32(entries)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kb, kBlocks));
    if (skipped)
      inside = arith::AndIOp::create(b, loc, inside, takesPart);
    forEntry(inside, j, c, kb);
  }
}

/// The staged slot of relative block j, chunk block c, in word `word`.
Value KernelLowering::stagedScaleAddress(Value j, Value c, int64_t word) {
  Value slot = arith::AddIOp::create(
      b, loc, mulI32(j, kScaleChunkBlocks),
      arith::AddIOp::create(b, loc, c, constI32(word * kScaleChunkBlocks)));
  return smemAt(
      arith::AddIOp::create(b, loc, warpgroupScales(), mulI32(slot, 4)));
}

Value KernelLowering::warpgroupScales() {
  if (!decoupledWarpgroups)
    return constI32(scaleOffset);
  return arith::AddIOp::create(b, loc, constI32(scaleOffset),
                               mulI32(mathWg, warpgroupScaleBytes));
}

void KernelLowering::stageBlockScales(LoadScalesOp op, Value chunkStart,
                                      int64_t word) {
  FailureOr<BlockScaleSource> source = blockScaleSource(op);
  if (failed(source))
    return;
  forEachStagedEntry(
      source->numBlocks * kScaleChunkBlocks, chunkStart, source->kBlocks,
      [&](Value inside, Value j, Value c, Value kb) {
        auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value value = loadBlockScale(op, *source, j, kb);
        LLVM::StoreOp::create(b, loc, value, stagedScaleAddress(j, c, word),
                              /*alignment=*/4);
      });
}

SmallVector<Value> KernelLowering::loadStagedScales(LoadScalesOp op,
                                                    Value chunkStart) {
  SmallVector<Value> values;
  FailureOr<BlockScaleSource> source = blockScaleSource(op);
  if (failed(source))
    return values;
  forEachStagedEntry(
      prefetchedEntries(op), chunkStart, source->kBlocks,
      [&](Value inside, Value j, Value, Value kb) {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getF32Type()}, inside,
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        scf::YieldOp::create(b, loc, loadBlockScale(op, *source, j, kb));
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(
            b, loc,
            ValueRange{LLVM::ConstantOp::create(b, loc, b.getF32Type(),
                                                b.getF32FloatAttr(0))});
        values.push_back(ifOp.getResult(0));
      });
  return values;
}

void KernelLowering::storeStagedScales(LoadScalesOp op, Value chunkStart,
                                       int64_t word, ArrayRef<Value> values) {
  FailureOr<BlockScaleSource> source = blockScaleSource(op);
  if (failed(source))
    return;
  size_t next = 0;
  forEachStagedEntry(
      prefetchedEntries(op), chunkStart, source->kBlocks,
      [&](Value inside, Value j, Value c, Value) {
        Value value = values[next++];
        auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        LLVM::StoreOp::create(b, loc, value, stagedScaleAddress(j, c, word),
                              /*alignment=*/4);
      });
}

void KernelLowering::readStagedScales(LoadScalesOp op, Value chunkBlock,
                                      int64_t word) {
  FailureOr<BlockScaleSource> source = blockScaleSource(op);
  if (failed(source))
    return;
  BlockScales scales{source->firstRow, {}, source->offset, source->offsetStep};
  for (int64_t j = 0; j < source->numBlocks; ++j) {
    Value slot = arith::AddIOp::create(
        b, loc, chunkBlock, constI32((word + j) * kScaleChunkBlocks));
    scales.values.push_back(
        LLVM::LoadOp::create(b, loc, b.getF32Type(),
                             smemAt(arith::AddIOp::create(
                                 b, loc, warpgroupScales(), mulI32(slot, 4))),
                             /*alignment=*/4));
  }
  mapping[op] = scales.values.front();
  blockScales[op.getResult()] = scales;
}

/// The B scale of accumulator fragment `i` (columns 8i .. 8i+7 of the tile;
/// 128-column blocks start at multiples of 8, so a fragment never straddles).
Value KernelLowering::fragmentScale(const BlockScales &scales, int64_t i) {
  if (scales.values.size() == 1)
    return scales.values.front();
  if (scales.offset)
    return scales.values[(*scales.offset + 8 * i) / 128];
  // The tile's offset r inside its first block is a multiple of the step;
  // fragment i lies in block (r + 8i) / 128 of the tile's, block j once
  // r >= 128 j - 8 i. Each threshold is rounded up to an offset that occurs,
  // so fragments whose block changes at the same offsets get the same
  // compares and selects, which LLVM merges: at block_n 192 (offsets 0 and
  // 64) the middle 64 columns share one select per K block.
  int64_t step = scales.offsetStep;
  int64_t lo = 8 * i / 128, hi = (128 - step + 8 * i) / 128;
  Value offset = arith::RemUIOp::create(b, loc, scales.firstRow, constI32(128));
  Value scale = scales.values[lo];
  for (int64_t j = lo + 1; j <= hi; ++j) {
    Value past =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, offset,
                              constI32(llvm::alignTo(128 * j - 8 * i, step)));
    scale = arith::SelectOp::create(b, loc, past, scales.values[j], scale);
  }
  return scale;
}

/// wgmma shared-memory descriptor of a K-major, 128-byte-swizzled tile
/// whose low word is `low` (PTX ISA "Matrix Descriptor Format": start
/// address >> 4 in bits 0-13, leading byte offset >> 4 in 16-29, unused with
/// this swizzle; 1), with the constant high word: stride byte offset >> 4 in
/// 32-45 (1024: 8 rows of 128 bytes), swizzle mode in 62-63 (1 = 128B). The
/// low word is stepped in 32 bits: shared addresses fit in 18 bits, so the
/// start field never carries into bit 14.
/// The two words are joined by `mov.b64 {lo, hi}`, which LLVM cannot see
/// through: as `zext(low) | high` LLVM folded the high word into 64-bit
/// induction variables across the unrolled K loop (`add.s64` of a constant
/// with both words set), and ptxas 13.0 dropped that constant's high word
/// in some of them (wgmmas on unswizzled garbage: masked 128x192 kernels
/// compiled for K = 512 / 1024 were wrong; docs/PERF.md, eighteenth
/// session). The pair is also what DeepGEMM hands ptxas.
static Value buildDescriptor(OpBuilder &b, Location loc, Value low) {
  int32_t high = int32_t(1024 >> 4) | int32_t(1) << 30;
  Value highWord = arith::ConstantIntOp::create(b, loc, high, 32);
  auto join = LLVM::InlineAsmOp::create(
      b, loc, b.getI64Type(), ValueRange{low, highWord},
      /*asm_string=*/"mov.b64 $0, {$1, $2};", /*constraints=*/"=l,r,r",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return join.getResult(0);
}

static NVVM::WGMMATypes getWgmmaType(Type type) {
  return isa<Float8E5M2Type>(type) ? NVVM::WGMMATypes::e5m2
                                   : NVVM::WGMMATypes::e4m3;
}

/// Issues the wgmmas of one wave's column group `group` for the K block into
/// a fresh partial sum and commits them as one group; the caller waits for
/// the group before reading the result.
FailureOr<Value> KernelLowering::issueDot(ScaledDotOp op, int64_t wave,
                                          int64_t group, Value previous) {
  Value aTile = lookup(op.getA()), bTile = lookup(op.getB());
  if (!aTile || !bTile || !isa<LLVM::LLVMPointerType>(aTile.getType()) ||
      !isa<LLVM::LLVMPointerType>(bTile.getType()))
    return op.emitError(
        "operands must come from the producer's ring (shared memory)");
  int64_t bk = config.getBlockK(), gn = config.getGroupN();
  MLIRContext *ctx = b.getContext();
  Type accType = partialType();

  Value aLow = slotDescriptors.lookup(aTile),
        bLow = slotDescriptors.lookup(bTile);
  if (!aLow || !bLow)
    return op.emitError("operands must be whole ring slots (1024-byte "
                        "aligned for the 128-byte swizzle)");
  // This wave's 64 rows of A; 64 rows of 128 bytes keep the 1024-byte
  // swizzle atom aligned.
  aLow = arith::AddIOp::create(b, loc, aLow,
                               mulI32(waveBlock(wave), 64 * bk / 16));
  // The group's rows of B (gn rows of 128 bytes: whole swizzle atoms).
  if (group)
    bLow = arith::AddIOp::create(b, loc, bLow, constI32(group * gn * bk / 16));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  // The first step ignores its input (scale-d 0). Feeding it the previous
  // wave's partial sum makes the wgmma rewrite that sum's registers, so
  // ptxas must finish the previous wave's FFMAs first (as DeepGEMM's one
  // `accum` array does) instead of overlapping them with this wave's
  // wgmmas in a second set of 64 registers, which spilled.
  // The fence keeps the previous sum's FFMAs before these wgmmas in LLVM's
  // order too, so the sums stay tied to one set of registers.
  Value partial = previous ? fenceFields(previous, 0, gn / 2)
                           : LLVM::UndefOp::create(b, loc, accType);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, gn, kWgmmaK);
  auto typeA = NVVM::WGMMATypesAttr::get(
      ctx, getWgmmaType(op.getA().getType().getElementType()));
  auto typeB = NVVM::WGMMATypesAttr::get(
      ctx, getWgmmaType(op.getB().getType().getElementType()));
  auto typeD = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  // Step k advances both start addresses by 32 bytes: +2 in the low word.
  for (int64_t k = 0; k < bk / kWgmmaK; ++k) {
    Value step = constI32(k * kWgmmaK / 16);
    Value descA = buildDescriptor(b, loc,
                                  arith::AddIOp::create(b, loc, aLow, step)),
          descB = buildDescriptor(b, loc,
                                  arith::AddIOp::create(b, loc, bLow, step));
    // A fresh partial sum per K block: the first step ignores the input.
    auto scaleD = NVVM::WGMMAScaleOutAttr::get(
        ctx, k == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one);
    partial = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, partial, descA, descB, shape, typeA, typeB, typeD,
        scaleD, one, one, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col),
        /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return partial;
}

/// This thread's two A row scales of wave `wave` (rows r0 and r0 + 8 of
/// that wave's m64 accumulator) from the ring slot.
FailureOr<std::pair<Value, Value>> KernelLowering::loadRowScales(ScaledDotOp op,
                                                                 int64_t wave) {
  Value scaleA = lookup(op.getScaleA());
  // A per-tensor scale applies to every row.
  if (scaleA && scaleA.getType().isF32() && blockScales.count(op.getScaleA()))
    return std::make_pair(scaleA, scaleA);
  if (!scaleA || !isa<LLVM::LLVMPointerType>(scaleA.getType()))
    return op.emitError("row scales must come from the producer's ring, or "
                        "be per tensor");
  Value row0 = accumulatorRow0(wave);
  auto loadScale = [&](Value row) -> Value {
    Value p = LLVM::GEPOp::create(b, loc, scaleA.getType(), b.getF32Type(),
                                  scaleA, ValueRange{row});
    return LLVM::LoadOp::create(b, loc, b.getF32Type(), p, /*alignment=*/4);
  };
  return std::make_pair(loadScale(row0), loadScale(arith::AddIOp::create(
                                             b, loc, row0, constI32(8))));
}

/// Promotes the finished partial sum of wave `wave`'s column group `group`
/// into its part of the accumulator on CUDA cores and, once the slot's
/// scales are read, releases the ring slot (`release`). `rowScales` are the
/// A scales when the caller read them already.
FailureOr<Value>
KernelLowering::promoteDot(ScaledDotOp op, Value partial, Value acc,
                           RingReleaseOp release, int64_t wave, int64_t group,
                           std::optional<std::pair<Value, Value>> rowScales) {
  if (!rowScales) {
    FailureOr<std::pair<Value, Value>> loaded = loadRowScales(op, wave);
    if (failed(loaded))
      return failure();
    rowScales = *loaded;
  }
  // A tile's first scales, loaded under its first wgmmas, go to shared
  // memory now; the slot is released first (the row scales are read), so
  // that the producer refills it meanwhile.
  if (beforeFirstPromotion) {
    if (release) {
      (void)lowerRingRelease(lookup(release.getStage()));
      release = nullptr;
    }
    runBeforeFirstPromotion();
  }
  Value scaleB = lookup(op.getScaleB());
  auto bScales = blockScales.find(op.getScaleB());
  // Per-column scales (1x128 blocks of B, the 1D1D recipe) come with the
  // operands in the ring slot; per-block ones were read by the math threads.
  bool perColumn = scaleB && isa<LLVM::LLVMPointerType>(scaleB.getType());
  if (!scaleB || (!perColumn && bScales == blockScales.end()))
    return op.emitError("column scales must be per-block scales read by the "
                        "math threads, or per-column scales from the "
                        "producer's ring");
  int64_t gn = config.getGroupN();
  // Group g holds the wave's columns g x gn .. in the accumulator's
  // m64n(block_n) layout: fragments g x gn / 8 on (fragment i holds columns
  // 8i .. 8i+7).
  int64_t firstFragment = group * gn / 8;
  auto [sa0, sa1] = *rowScales;
  // This thread's columns of fragment i are 8i + 2 (lane % 4) + {0, 1}: one
  // 8-byte load each, all read before the slot is released.
  SmallVector<std::pair<Value, Value>> columnScales;
  if (perColumn) {
    auto v2f32 = VectorType::get({2}, b.getF32Type());
    Value column0 =
        mulI32(arith::RemUIOp::create(b, loc, lane, constI32(4)), 2);
    for (int64_t i = firstFragment; i < firstFragment + gn / 8; ++i) {
      Value p = LLVM::GEPOp::create(
          b, loc, scaleB.getType(), b.getF32Type(), scaleB,
          ValueRange{arith::AddIOp::create(b, loc, column0, constI32(8 * i))});
      Value pair = LLVM::LoadOp::create(b, loc, v2f32, p, /*alignment=*/8);
      columnScales.emplace_back(
          LLVM::ExtractElementOp::create(b, loc, pair, constI32(0)),
          LLVM::ExtractElementOp::create(b, loc, pair, constI32(1)));
    }
  }
  // The slot is no longer read: let the producer refill it during promotion.
  if (release)
    (void)lowerRingRelease(lookup(release.getStage()));

  // Promotion on CUDA cores: acc += (sa * sb) * partial (acc = in the first
  // K block), fragment by fragment
  // (fragment i = d[4i..4i+3]: d[4i], d[4i+1] in row r0, d[4i+2], d[4i+3] in
  // row r0 + 8, all in columns 8i .. 8i+7).
  Value result = acc;
  int64_t first = groupFirstField(wave, group);
  for (int64_t i = 0; i < gn / 8; ++i) {
    // The scale of d[4i + q]: row r0 (q < 2) or r0 + 8, column pair half
    // q % 2.
    Value scales[4];
    if (perColumn) {
      auto [sb0, sb1] = columnScales[i];
      scales[0] = arith::MulFOp::create(b, loc, sa0, sb0);
      scales[1] = arith::MulFOp::create(b, loc, sa0, sb1);
      scales[2] = arith::MulFOp::create(b, loc, sa1, sb0);
      scales[3] = arith::MulFOp::create(b, loc, sa1, sb1);
    } else {
      Value sb = fragmentScale(bScales->second, firstFragment + i);
      scales[0] = scales[1] = arith::MulFOp::create(b, loc, sa0, sb);
      scales[2] = scales[3] = arith::MulFOp::create(b, loc, sa1, sb);
    }
    for (int64_t j = 4 * i; j < 4 * i + 4; ++j) {
      Value p = LLVM::ExtractValueOp::create(b, loc, partial, j);
      Value scale = scales[j % 4];
      Value promoted =
          firstKBlock
              ? Value(LLVM::FMulOp::create(b, loc, p, scale))
              : Value(LLVM::FMAOp::create(
                    b, loc, p, scale,
                    LLVM::ExtractValueOp::create(b, loc, result, first + j)));
      result = LLVM::InsertValueOp::create(b, loc, result, promoted, first + j);
    }
  }
  return result;
}

/// Pins fields [first, first + count) of an f32 struct in registers at this
/// point of the program: an empty side-effecting inline asm that reads and
/// rewrites them (CUTLASS's warpgroup_fence_operand). LLVM cannot move the
/// computations of those fields below it, nor it below the next wgmma.fence,
/// so a wave's FFMAs finish before the next wave's wgmmas claim registers for
/// their partial sum; without it LLVM issued both waves' wgmmas first and
/// ptxas spilled the second partial sum. Emits no PTX instruction.
Value KernelLowering::fenceFields(Value value, int64_t first, int64_t count) {
  SmallVector<Value> fields;
  for (int64_t j = first; j < first + count; ++j)
    fields.push_back(LLVM::ExtractValueOp::create(b, loc, value, j));
  std::string constraints;
  for (int64_t j = 0; j < count; ++j)
    constraints += "=f,";
  for (int64_t j = 0; j < count; ++j)
    constraints += std::to_string(j) + (j + 1 < count ? "," : "");
  SmallVector<Type> types(count, b.getF32Type());
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), types), fields,
      /*asm_string=*/"", constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  for (int64_t j = 0; j < count; ++j)
    value = LLVM::InsertValueOp::create(
        b, loc, value,
        LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), j), first + j);
  return value;
}

/// One K block of the math loop. With two waves per math warpgroup (block_m
/// 256 on two warpgroups) or two column groups per wave (block_n 256), each
/// wave's group issues its wgmmas, waits and promotes in turn, reusing one
/// partial sum (DeepGEMM's order); the other warpgroup's wgmmas keep the
/// tensor cores busy meanwhile. A wave's groups share its A rows (in a
/// synthetic loop without TMA that kept the tensor pipe 98% busy against 75%
/// for waves of different rows on an H100, not on an H200; in the kernels
/// 128x256 ran as fast as 256x128 at long K and up to 5% faster at short K;
/// docs/PERF.md, thirty-third and thirty-fourth sessions). The slot is
/// released after the last group's wgmmas have read it.
LogicalResult KernelLowering::lowerScaledDot(ScaledDotOp op,
                                             RingReleaseOp fusedRelease) {
  Value acc = lookup(op.getAcc()), previous = lastPartial;
  if (drainsOnly) {
    // No rows of this warpgroup are stored: the block's hooks, and the
    // slot back to the producer once its operands are in (the ring's
    // phases stay in step), as the block with wgmmas runs them.
    if (firstKBlock && failed(runFirstBlockHook()))
      return failure();
    if (fusedRelease)
      (void)lowerRingRelease(lookup(fusedRelease.getStage()));
    runBeforeFirstPromotion();
    mapping[op] = acc;
    return success();
  }
  int64_t waves = config.getWaves(), groups = config.getColumnGroups();
  for (int64_t wave = 0; wave < waves; ++wave) {
    // The row scales are read before the wgmmas are issued, so their
    // shared-memory latency has passed when the promotion needs them.
    FailureOr<std::pair<Value, Value>> rowScales = loadRowScales(op, wave);
    if (failed(rowScales))
      return failure();
    for (int64_t group = 0; group < groups; ++group) {
      FailureOr<Value> partial = issueDot(op, wave, group, previous);
      if (failed(partial))
        return failure();
      previous = *partial;
      // The previous tile's deferred store, under this tile's first wgmmas.
      if (wave == 0 && group == 0 && firstKBlock && failed(runFirstBlockHook()))
        return failure();
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      bool last = wave + 1 == waves && group + 1 == groups;
      FailureOr<Value> result =
          promoteDot(op, *partial, acc, last ? fusedRelease : nullptr, wave,
                     group, *rowScales);
      if (failed(result))
        return failure();
      acc = *result;
      if (!last)
        acc = fenceFields(acc, groupFirstField(wave, group),
                          config.getGroupN() / 2);
    }
  }
  lastPartial = previous;
  mapping[op] = acc;
  return success();
}
