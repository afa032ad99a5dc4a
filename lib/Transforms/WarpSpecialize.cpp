//===- WarpSpecialize.cpp - TMA producer and math consumers ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-warp-specialize: splits the K loop that feeds fgemm.scaled_dot into
//
//   producer warpgroup (1 elected thread)    math warpgroups (64 rows each)
//   for kb: TMA-load A, B, SFA tiles   -->   for kb: get tiles from the ring
//           put them in the ring               load SFB, wgmma + promotion
//                                              release the ring entry
//                                            epilogue (store)
//
// Loads that TMA does (FP8 tiles, MN-major per-row scales) move to the
// producer; everything else, including per-block scales that are a single
// word per tile, stays with the math warpgroups. The producer runs ahead of
// the math by as many K blocks as the pipeline has stages (fgemm-pipeline-tma).
//
// Limitations: one K loop per kernel; TMA load indices must be the loop's K
// block index or values defined before the loop (the producer recomputes
// nothing else).
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/Passes.h"

#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "fgemm-warp-specialize"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMWARPSPECIALIZEPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

/// Ops of a tile loop's body that compute the tile order (index arithmetic,
/// the group lookups of grouped tile spaces): the producer recomputes them.
static bool isTileOrderOp(Operation *op) {
  return isa_and_nonnull<arith::ArithDialect>(op->getDialect()) ||
         isa<ReadOp, FindGroupOp, FindPieceGroupOp, FindRowTileGroupOp, DimOp,
             NumBlocksOp, RasterGroupOp>(op);
}

/// Emits the pass's stable "not applied" warning.
static FailureOr<WarpSpecializeOp> notApplied(Operation *op,
                                              const Twine &reason) {
  op->emitWarning("fgemm-warp-specialize: not applied: ") << reason;
  return failure();
}

FailureOr<WarpSpecializeOp> mlir::fgemm::warpSpecialize(RewriterBase &rewriter,
                                                        KernelOp kernel,
                                                        int64_t producerRegs,
                                                        int64_t consumerRegs) {
  ConfigAttr config = kernel.getConfigAttr();
  if (!config)
    return kernel.emitError("fgemm-warp-specialize needs a specialized kernel "
                            "(run fgemm-specialize first)");
  if (!kernel.getOps<WarpSpecializeOp>().empty())
    return notApplied(kernel, "kernel already has warp roles");
  if (!kernel.getOps<TileSpaceOp>().empty())
    return kernel.emitError("fgemm-warp-specialize needs scheduled tiles "
                            "(run fgemm-schedule-tiles first)");

  // The register file's split between the roles (KernelConfig.h), unless the
  // pass options set it.
  bool threeMath = config.getMathWarpgroups() == 3;
  if (producerRegs == 0)
    producerRegs = threeMath ? kProducerRegsThreeWarpgroups : kProducerRegs;
  if (consumerRegs == 0)
    consumerRegs = threeMath ? kConsumerRegsThreeWarpgroups : kConsumerRegs;

  // With a persistent schedule both roles loop over the same tiles: the K
  // loop lives in the tile loop's body, which each role gets a copy of.
  TileLoopOp tileLoop;
  if (auto tileLoops = kernel.getOps<TileLoopOp>(); !tileLoops.empty())
    tileLoop = *tileLoops.begin();
  Block &scope =
      tileLoop ? tileLoop.getBody().front() : kernel.getBody().front();

  SmallVector<KLoopOp> loops;
  for (auto loop : scope.getOps<KLoopOp>())
    if (!loop.getBody().getOps<ScaledDotOp>().empty())
      loops.push_back(loop);
  if (loops.empty())
    return notApplied(
        kernel, "no fgemm.k_loop with a fgemm.scaled_dot at kernel level");
  if (loops.size() > 1)
    return notApplied(kernel, "more than one K loop");
  KLoopOp loop = loops.front();
  Block &loopBody = loop.getBody().front();
  Value kb = loopBody.getArgument(0);

  // (1) The loads the producer takes over.
  SmallVector<Operation *> tmaLoads;
  for (Operation &op : loopBody) {
    if (!isTmaLoad(&op))
      continue;
    for (Value index : op.getOperands().drop_front()) {
      // The tile loop's own indices and its tile-order arithmetic are
      // recomputed by the producer's copy of the loop.
      bool isTileIndex =
          tileLoop && index.getParentBlock() == &scope &&
          (isa<BlockArgument>(index) || isTileOrderOp(index.getDefiningOp()));
      Operation *owner = index.getParentRegion()->getParentOp();
      bool inLoop = loop->isAncestor(owner);
      bool inTileLoop = tileLoop && tileLoop->isAncestor(owner) && !isTileIndex;
      if (index != kb && (inLoop || inTileLoop))
        return notApplied(&op, "load index is computed inside the K loop");
    }
    tmaLoads.push_back(&op);
  }
  if (tmaLoads.empty())
    return notApplied(loop, "the K loop has no loads for TMA");

  Location loc = loop.getLoc();
  Operation *anchor = tileLoop ? tileLoop.getOperation() : loop.getOperation();
  // What stays before the anchor runs before the roles split, on no math
  // thread; epilogue work there has no accumulator fragments to work on.
  for (Operation &op : kernel.getBody().front()) {
    if (&op == anchor)
      break;
    if (isa<ReadTileOp, ZeroRowsOp, AddOp, MulOp, CastOp, StoreOp>(op))
      return op.emitError("'")
             << op.getName()
             << "' before the math K loop: it works on the math threads' "
                "accumulator fragments, so it must follow the loop (the "
                "tile's epilogue)";
  }

  // (2) The channel between the roles. A persistent CTA sets it up first:
  // what the schedule computes before its tile loop (the masked layout's
  // row-tile count reads masked_m) then follows the barrier set-up instead
  // of delaying it. A plain grid's CTA may end before it (a masked tile
  // without rows).
  if (tileLoop)
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
  else
    rewriter.setInsertionPoint(anchor);
  Value ring =
      RingCreateOp::create(rewriter, loc, RingType::get(rewriter.getContext()),
                           /*plan=*/RingPlanAttr());
  rewriter.setInsertionPoint(anchor);
  auto ws = WarpSpecializeOp::create(rewriter, loc, config.getMathWarpgroups(),
                                     producerRegs, consumerRegs);
  Block *producer = rewriter.createBlock(&ws.getProducer());
  Block *consumer = rewriter.createBlock(&ws.getConsumer());

  // (3) Producer: a K loop with only the TMA loads, putting into the ring
  // (inside its own copy of the tile loop when the schedule is persistent).
  rewriter.setInsertionPointToStart(producer);
  IRMapping mapping;
  if (tileLoop) {
    auto copy = TileLoopOp::create(rewriter, loc, tileLoop.getCount(),
                                   tileLoop.getKBlocks());
    SmallVector<Location> argLocs(scope.getNumArguments(), loc);
    Block *copyBody = rewriter.createBlock(&copy.getBody(), {},
                                           scope.getArgumentTypes(), argLocs);
    mapping.map(scope.getArguments(), copyBody->getArguments());
    YieldOp::create(rewriter, loc);
    rewriter.setInsertionPointToStart(copyBody);
    // The tile order (index arithmetic before the K loop, and the group
    // lookups of grouped tile spaces) in the producer.
    for (Operation &op : scope) {
      if (&op == loop.getOperation())
        break;
      if (isTileOrderOp(&op))
        rewriter.clone(op, mapping);
    }
  }
  auto mapped = [&](Value v) {
    return v ? mapping.lookupOrDefault(v) : Value();
  };
  // The producer fills every K block's slot; `rows` only lets math
  // warpgroups without stored rows skip their math.
  auto producerLoop = KLoopOp::create(
      rewriter, loc, TypeRange(), loop.getDimAttr(), mapped(loop.getFirst()),
      mapped(loop.getBlocks()), /*rows=*/ValueRange(), ValueRange());
  Block *pBody = rewriter.createBlock(&producerLoop.getBody(), {},
                                      rewriter.getIndexType(), loc);
  mapping.map(kb, pBody->getArgument(0));
  SmallVector<Value> put;
  for (Operation *load : tmaLoads)
    put.push_back(rewriter.clone(*load, mapping)->getResult(0));
  RingPutOp::create(rewriter, loc, ring, pBody->getArgument(0), Value(),
                    Value(), put);
  YieldOp::create(rewriter, loc);
  rewriter.setInsertionPointToEnd(producer);
  YieldOp::create(rewriter, loc);

  // (4) Consumer loop: take the tiles from the ring instead of loading them.
  rewriter.setInsertionPointToStart(&loopBody);
  auto get = RingGetOp::create(rewriter, loc, TypeRange(ValueRange(put)), ring,
                               kb, Value(), Value());
  for (auto [load, value] : llvm::zip(tmaLoads, get.getValues())) {
    rewriter.replaceAllUsesWith(load->getResult(0), value);
    rewriter.eraseOp(load);
  }
  // Release after the last use of the ring's tiles (the scaled dot).
  Operation *lastUse = get;
  for (Value v : get.getValues())
    for (Operation *user : v.getUsers())
      if (lastUse->isBeforeInBlock(user))
        lastUse = user;
  rewriter.setInsertionPointAfter(lastUse);
  RingReleaseOp::create(rewriter, loc, ring, kb, Value(), Value());

  // (5) The loop (or the tile loop around it) and everything after it up to
  // the kernel's end are the math warpgroups' work.
  Block *parent = anchor->getBlock();
  SmallVector<Operation *> toMove;
  for (Operation *op = anchor; op != parent->getTerminator();
       op = op->getNextNode())
    toMove.push_back(op);
  for (Operation *op : toMove)
    rewriter.moveOpBefore(op, consumer, consumer->end());
  rewriter.setInsertionPointToEnd(consumer);
  YieldOp::create(rewriter, loc);
  return ws;
}

namespace {
struct FgemmWarpSpecializePass
    : fgemm::impl::FgemmWarpSpecializePassBase<FgemmWarpSpecializePass> {
  using FgemmWarpSpecializePassBase::FgemmWarpSpecializePassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      // A "not applied" warning is not an error; an emitted error is.
      bool hadError = false;
      ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &diag) {
        hadError |= diag.getSeverity() == DiagnosticSeverity::Error;
        return failure(); // let the diagnostic through
      });
      if (failed(
              warpSpecialize(rewriter, kernel, producerRegs, consumerRegs)) &&
          hadError)
        return signalPassFailure();
    }
  }
};
} // namespace
