//===- StreamKLowering.cpp - pieces of tiles split along K -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Part of convert-fgemm-to-nvvm: the stream-K schedule's tile loop
// (`fgemm.tile_loop ... split_k`) and fgemm.combine_k_pieces.
//
//   cluster p of P (clusters of C CTAs; C = 1 without one); T cluster
//   units (C tiles sharing an operand) of KB K blocks; R = T mod P units
//   split, U = R x KB pieces' blocks when U >= P (else R = 0: all whole)
//   blocks [p U / P, (p + 1) U / P): one or two pieces, then units R + p,
//   R + p + P, ... (one scf.for over the cluster's pieces); the loop's
//   tile index is unit x C + the CTA's rank, so the CTAs of a cluster run
//   the same pieces of their own tiles and keep sharing the operand.
//
// The workspace (a kernel parameter) holds one slot per CTA (cluster x C +
// rank): a flag word (its own 128 bytes) and the CTA's published partial
// tile, each math thread's fragments as 16-byte vectors at (vector x
// threads + thread) x 16, so every store and load instruction of a warp is
// 512 contiguous bytes. A piece's partial goes to the CTA of the same rank
// in the cluster that owns the unit.
//
//   publishing piece (starts past K block 0):   owner (starts at K block 0):
//     st.global.v4 fragments -> slot[p, r]        thread 0: for c in p+1 ..:
//     bar.sync (math)                               ld.acquire.gpu flag[c, r]
//     thread 0: st.release.gpu flag[p, r] = 1       until set; flag = 0
//                                                 bar.sync (math)
//                                                 acc += ld.global slot[c, r]
//
// (CUTLASS's stream-K fixup uses the same release/acquire pattern.)
//
//===----------------------------------------------------------------------===//

#include "Conversion/FgemmToNVVM/KernelLowering.h"

using namespace mlir;
using namespace mlir::fgemm;
using namespace mlir::fgemm::detail;

/// The flag word's share of a workspace slot (a line of its own).
static constexpr int64_t kFlagBytes = 128;

int64_t KernelLowering::workspaceBytesPerCta() {
  return kFlagBytes + config.getBlockM() * config.getBlockN() * 4;
}

Value KernelLowering::workspaceSlot(Value cluster, int64_t offset) {
  // The slot of the CTA of this rank in `cluster`.
  Value cta = cluster;
  if (split.rank)
    cta = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, cluster, constIndex(config.getCluster())),
        split.rank);
  Value byte = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), cta),
          arith::ConstantIntOp::create(b, loc, workspaceBytesPerCta(), 64)),
      arith::ConstantIntOp::create(b, loc, offset, 64));
  return LLVM::GEPOp::create(b, loc,
                             LLVM::LLVMPointerType::get(b.getContext(), 1),
                             b.getI8Type(), workspace, ValueRange{byte});
}

void KernelLowering::emitAsm(StringRef text, StringRef constraints,
                             ValueRange operands) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange(), operands, text, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

Value KernelLowering::fragmentVector(Value acc, int64_t v) {
  Value vec =
      LLVM::UndefOp::create(b, loc, VectorType::get({4}, b.getF32Type()));
  for (int64_t j = 0; j < 4; ++j)
    vec = LLVM::InsertElementOp::create(
        b, loc, vec, LLVM::ExtractValueOp::create(b, loc, acc, 4 * v + j),
        constI32(j));
  return vec;
}

Value KernelLowering::addFragmentVector(Value acc, int64_t v, Value vec) {
  for (int64_t j = 0; j < 4; ++j) {
    Value field = LLVM::ExtractValueOp::create(b, loc, acc, 4 * v + j);
    Value other = LLVM::ExtractElementOp::create(b, loc, vec, constI32(j));
    acc = LLVM::InsertValueOp::create(
        b, loc, acc, LLVM::FAddOp::create(b, loc, field, other), 4 * v + j);
  }
  return acc;
}

LogicalResult KernelLowering::lowerSplitTileLoop(TileLoopOp op) {
  auto sel = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return arith::SubIOp::create(b, loc, x, y).getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y).getResult();
  };
  auto div = [&](Value x, Value y) {
    return arith::DivUIOp::create(b, loc, x, y).getResult();
  };
  auto rem = [&](Value x, Value y) {
    return arith::RemUIOp::create(b, loc, x, y).getResult();
  };
  // `cta` and `ctas` count clusters from here on: a cluster's CTAs run the
  // same pieces (the grid is whole clusters).
  Value cta = toIndex(NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
  Value ctas = toIndex(NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
  Value tiles = lookup(op.getCount()), kBlocks = lookup(op.getKBlocks());
  Value zero = constIndex(0), one = constIndex(1);
  Value rank, clusterSize;
  if (int64_t cluster = config.getCluster(); cluster > 1) {
    clusterSize = constIndex(cluster);
    rank = rem(cta, clusterSize);
    cta = div(cta, clusterSize);
    ctas = div(ctas, clusterSize);
    tiles = div(tiles, clusterSize);
  }
  // The tail's tiles are split when each CTA gets at least one unit.
  Value tail = rem(tiles, ctas);
  Value splits = cmp(arith::CmpIPredicate::uge, mul(tail, kBlocks), ctas);
  Value splitTiles = sel(splits, tail, zero);
  Value units = mul(splitTiles, kBlocks);
  Value begin = div(mul(cta, units), ctas);
  Value end = div(mul(add(cta, one), units), ctas);
  Value beginTile = div(begin, kBlocks);
  // (end - 1 wraps without a split; the select drops it.)
  Value endTile = div(sub(end, one), kBlocks);
  Value pieces = sel(splits,
                     sel(cmp(arith::CmpIPredicate::eq, beginTile, endTile), one,
                         constIndex(2)),
                     zero);
  Value wholeFrom = add(splitTiles, cta);
  Value wholeTiles = sel(
      cmp(arith::CmpIPredicate::ult, wholeFrom, tiles),
      arith::CeilDivUIOp::create(b, loc, sub(tiles, wholeFrom), ctas), zero);
  split = SplitSchedule{cta, rank, ctas, units, kBlocks, {}, {}, {}};

  auto forOp = scf::ForOp::create(b, loc, zero, add(pieces, wholeTiles), one,
                                  ValueRange{zero});
  waitForLastStore(op);
  // A cluster's producer drains the ring after its last put (the K blocks
  // of all its pieces and tiles), as after a persistent tile loop.
  if (drainsAfter(op))
    drainClusterRing(forOp.getResult(0));
  OpBuilder::InsertionGuard guard(b);
  openLoopBody(forOp);
  Value iter = forOp.getInductionVar(), before = forOp.getRegionIterArgs()[0];
  Value isPiece = cmp(arith::CmpIPredicate::ult, iter, pieces);
  // Piece 0 starts at the CTA's first unit, piece 1 at the next tile's.
  Value unit = sel(cmp(arith::CmpIPredicate::eq, iter, zero), begin,
                   mul(add(beginTile, one), kBlocks));
  Value pieceTile = div(unit, kBlocks);
  Value pieceEnd =
      arith::MinUIOp::create(b, loc, end, mul(add(pieceTile, one), kBlocks));
  Value wholeTile = add(wholeFrom, mul(sub(iter, pieces), ctas));
  Value tile = sel(isPiece, pieceTile, wholeTile);
  Value first = sel(isPiece, sub(unit, mul(pieceTile, kBlocks)), zero);
  Value blocks = sel(isPiece, sub(pieceEnd, unit), kBlocks);
  Block &body = op.getBody().front();
  mapping[body.getArgument(0)] = iter;
  mapping[body.getArgument(1)] =
      rank ? add(mul(tile, clusterSize), rank) : tile;
  mapping[body.getArgument(2)] = before;
  mapping[body.getArgument(3)] = first;
  mapping[body.getArgument(4)] = blocks;
  split.tile = tile;
  split.first = first;
  split.blocks = blocks;
  if (failed(lowerBlock(body)))
    return failure();
  scf::YieldOp::create(b, loc, ValueRange{add(before, blocks)});
  return success();
}

LogicalResult KernelLowering::lowerCombineKPieces(CombineKPiecesOp op) {
  if (!split.cta || !workspace)
    return op.emitError("fgemm.combine_k_pieces outside a lowered split "
                        "tile loop");
  Value partial = lookup(op.getPartial());
  Type accType = partial.getType();
  int64_t fields = config.getWaves() * config.getBlockN() / 2;
  int64_t threads = 128 * config.getMathWarpgroups();
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto vecType = VectorType::get({4}, f32);
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value zero = constIndex(0);
  // Byte offset of this thread's vector v in a slot's partial tile.
  auto vectorAt = [&](Value slotData, int64_t v) {
    Value offset = arith::ExtUIOp::create(
        b, loc, i64,
        mulI32(arith::AddIOp::create(b, loc, mathTid, constI32(v * threads)),
               16));
    return LLVM::GEPOp::create(b, loc, globalPtr, b.getI8Type(), slotData,
                               ValueRange{offset})
        .getResult();
  };
  Value isThread0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          mathTid, constI32(0));
  Value publishes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          split.first, zero);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{accType}, publishes,
                                /*withElseRegion=*/true);
  {
    // Publish: fragments to this CTA's slot, then its flag.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value data = workspaceSlot(split.cta, kFlagBytes);
    for (int64_t v = 0; v < fields / 4; ++v)
      LLVM::StoreOp::create(b, loc, fragmentVector(partial, v),
                            vectorAt(data, v), /*alignment=*/16);
    mathBarrier();
    auto signal = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
    b.setInsertionPointToStart(signal.thenBlock());
    emitAsm("st.release.gpu.global.b32 [$0], $1;", "l,r",
            ValueRange{workspaceSlot(split.cta, 0), constI32(1)});
    b.setInsertionPointAfter(signal);
    scf::YieldOp::create(b, loc, partial);
  }
  {
    // Own the tile: add the pieces of CTAs p + 1 .. last (none for a whole
    // tile). The last is the CTA of the tile's last unit u: the largest c
    // with c U / P <= u, (u + 1) P - 1 div U.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        split.blocks, split.kBlocks);
    Value one = constIndex(1);
    Value tileEnd = arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, split.tile, one), split.kBlocks);
    Value safeUnits = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, split.units,
                              zero),
        one, split.units);
    Value lastCta = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(
            b, loc, arith::MulIOp::create(b, loc, tileEnd, split.ctas), one),
        safeUnits);
    Value from = arith::AddIOp::create(b, loc, split.cta, one);
    Value to = arith::SelectOp::create(
        b, loc, whole, from, arith::AddIOp::create(b, loc, lastCta, one));
    auto waitAll = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(waitAll.thenBlock());
      auto each = scf::ForOp::create(b, loc, from, to, one);
      b.setInsertionPointToStart(each.getBody());
      Value flag = workspaceSlot(each.getInductionVar(), 0);
      auto spin = scf::WhileOp::create(b, loc, TypeRange(), ValueRange());
      Block *cond = b.createBlock(&spin.getBefore());
      b.setInsertionPointToStart(cond);
      auto load = LLVM::InlineAsmOp::create(
          b, loc, b.getI32Type(), ValueRange{flag},
          "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l",
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr());
      Value unset = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          load.getResult(0), constI32(0));
      scf::ConditionOp::create(b, loc, unset, ValueRange());
      Block *again = b.createBlock(&spin.getAfter());
      b.setInsertionPointToStart(again);
      scf::YieldOp::create(b, loc);
      b.setInsertionPointAfter(spin);
      // Consumed: zero again for the next launch on this workspace.
      emitAsm("st.relaxed.gpu.global.b32 [$0], $1;", "l,r",
              ValueRange{flag, constI32(0)});
    }
    mathBarrier();
    auto sum = scf::ForOp::create(b, loc, from, to, one, ValueRange{partial});
    {
      OpBuilder::InsertionGuard inner(b);
      openLoopBody(sum);
      Value acc = sum.getRegionIterArgs()[0];
      Value data = workspaceSlot(sum.getInductionVar(), kFlagBytes);
      // Plain loads: the acquire that saw the flag invalidated this SM's L1
      // (ptxas: CCTL.IVALL), and LLVM may issue them all before the adds
      // (as inline PTX with side effects they went out eight at a time).
      SmallVector<Value> loaded;
      for (int64_t v = 0; v < fields / 4; ++v)
        loaded.push_back(LLVM::LoadOp::create(b, loc, vecType,
                                              vectorAt(data, v),
                                              /*alignment=*/16));
      for (int64_t v = 0; v < fields / 4; ++v)
        acc = addFragmentVector(acc, v, loaded[v]);
      scf::YieldOp::create(b, loc, acc);
    }
    scf::YieldOp::create(b, loc, sum.getResult(0));
  }
  mapping[op.getSum()] = ifOp.getResult(0);
  mapping[op.getOwner()] = arith::XOrIOp::create(
      b, loc, publishes, arith::ConstantIntOp::create(b, loc, 1, 1));
  return success();
}
