//===- PipelineTma.cpp - shared-memory stages for the ring -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-pipeline-tma: gives the producer/consumer ring a shared-memory plan
// and names, for every access, the stage and the mbarrier phase parity:
//
//   K block kb -> stage s = kb mod S, parity p = (kb div S) mod 2
//   (in a persistent tile loop kb counts on across tiles: iteration * K
//   blocks per tile + kb, or, where tiles run different numbers of K
//   blocks, the K blocks of the CTA's earlier tiles + kb, less the first
//   block of a stream-K piece; a K-split cluster's CTA counts from its
//   share's first block)
//
//   producer                          consumers
//   wait empty[s] (parity p ^ 1)      wait full[s] (parity p)
//   expect_tx full[s], bytes          wgmma on stage s ...
//   TMA -> stage s, completes full[s] arrive empty[s]
//
// The producer's first pass over the ring waits on parity 1 of a fresh
// barrier, which counts as complete, so it starts S blocks ahead. The plan is
// the typed #fgemm.ring_plan on fgemm.ring.create; the lowering reads it there.
// It also decides whether the math warpgroups are decoupled (a persistent
// tile loop with nothing else they share per tile: decouplesMathWarpgroups),
// which gives each its own copy of the staged scales.
//
// Limitations: one ring per kernel. (Multicast needs nothing here: every CTA
// of a cluster has the same plan, and the lowering arms each CTA's barrier
// for the bytes it receives.)
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/Passes.h"

#define DEBUG_TYPE "fgemm-pipeline-tma"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMPIPELINETMAPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

/// Computes (kb mod stages, (kb div stages) mod 2) once per K-block index,
/// right where `kb` is defined, so every access of that block shares it.
static std::pair<Value, Value>
getStageAndPhase(RewriterBase &rewriter, Value kb, int64_t stages,
                 DenseMap<Value, std::pair<Value, Value>> &cache) {
  if (auto it = cache.find(kb); it != cache.end())
    return it->second;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(kb);
  Location loc = kb.getLoc();
  // In a persistent tile loop the ring keeps turning across tiles: the
  // position is iteration * (K blocks per tile) + kb.
  Value position = kb;
  auto kLoop = dyn_cast_or_null<KLoopOp>(kb.getParentBlock()->getParentOp());
  auto tileLoop = kLoop ? kLoop->getParentOfType<TileLoopOp>() : TileLoopOp();
  if (tileLoop && tileLoop.getBody().front().getNumArguments() >= 3) {
    // Tiles run different numbers of K blocks: the loop counts them. A
    // piece of a split tile starts at its first block.
    Value before = tileLoop.getBody().front().getArgument(2);
    Value inPiece = kb;
    if (tileLoop.isSplit())
      inPiece =
          arith::SubIOp::create(rewriter, loc, kb, tileLoop.getFirstBlockArg());
    position = arith::AddIOp::create(rewriter, loc, before, inPiece);
  } else if (tileLoop) {
    Value iteration = tileLoop.getBody().front().getArgument(0);
    Value perTile =
        NumBlocksOp::create(rewriter, loc, rewriter.getIndexType(),
                            kLoop.getDimAttr(), rewriter.getStringAttr("bk"));
    position = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, iteration, perTile),
        kb);
  } else if (kLoop && kLoop.getFirst()) {
    // A K-split cluster's CTA runs one share of its one tile: the ring
    // starts at the share's first block.
    position = arith::SubIOp::create(rewriter, loc, kb, kLoop.getFirst());
  }
  Value numStages = arith::ConstantIndexOp::create(rewriter, loc, stages);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value stage = arith::RemUIOp::create(rewriter, loc, position, numStages);
  Value round = arith::DivUIOp::create(rewriter, loc, position, numStages);
  Value phase = arith::AndIOp::create(rewriter, loc, round, one);
  return cache[kb] = {stage, phase};
}

LogicalResult mlir::fgemm::pipelineTma(RewriterBase &rewriter,
                                       KernelOp kernel) {
  ConfigAttr config = kernel.getConfigAttr();
  if (!config)
    return kernel.emitError("fgemm-pipeline-tma needs a specialized kernel "
                            "(run fgemm-specialize first)");
  SmallVector<RingCreateOp> rings;
  kernel.walk([&](RingCreateOp r) { rings.push_back(r); });
  if (rings.empty()) {
    kernel.emitWarning("fgemm-pipeline-tma: not applied: no fgemm.ring (run "
                       "fgemm-warp-specialize first)");
    return success();
  }
  if (rings.size() > 1)
    return rings[1].emitError("one ring per kernel is supported; found ")
           << rings.size();
  RingCreateOp ring = rings.front();
  if (ring.getPlanAttr()) {
    ring.emitWarning(
        "fgemm-pipeline-tma: not applied: ring is already pipelined");
    return success();
  }

  SmallVector<RingPutOp> puts;
  SmallVector<Operation *> accesses;
  for (Operation *user : ring->getUsers()) {
    if (auto put = dyn_cast<RingPutOp>(user))
      puts.push_back(put);
    accesses.push_back(user);
  }
  if (puts.size() != 1)
    return ring.emitError("a ring needs exactly one producer put; found ")
           << puts.size();
  StoreOp store;
  kernel.walk([&](StoreOp s) { store = s; });
  if (!store)
    return kernel.emitError("kernel stores no output tile (no fgemm.store)");

  SmallVector<TileType> slotTypes =
      llvm::map_to_vector(puts.front().getValues().getTypes(),
                          [](Type t) { return cast<TileType>(t); });
  SharedMemoryPlan plan =
      planSharedMemory(slotTypes, store.getValue().getType(),
                       store.getDest().getType().getElementType(),
                       getStagedScaleWords(kernel, config),
                       getEpilogueVectorBytes(kernel, config),
                       decouplesMathWarpgroups(kernel, config), config);
  if (plan.totalBytes > kMaxSharedMemoryBytes)
    return ring.emitError("pipeline needs ")
           << plan.totalBytes << " bytes of shared memory; sm_90 allows "
           << kMaxSharedMemoryBytes;

  ring.setPlanAttr(RingPlanAttr::get(
      rewriter.getContext(), config.getStages(), plan.slotOffsets,
      plan.slotStrides, plan.slotBytes, plan.outputOffset, plan.barrierOffset,
      plan.scaleOffset, plan.scaleBytes, plan.totalBytes,
      decouplesMathWarpgroups(kernel, config)));

  DenseMap<Value, std::pair<Value, Value>> cache;
  for (Operation *access : accesses) {
    auto assign = [&](auto op) {
      auto [stage, phase] =
          getStageAndPhase(rewriter, op.getIndex(), config.getStages(), cache);
      rewriter.modifyOpInPlace(op, [&] {
        op.getStageMutable().assign(stage);
        op.getPhaseMutable().assign(phase);
      });
    };
    if (auto put = dyn_cast<RingPutOp>(access))
      assign(put);
    else if (auto get = dyn_cast<RingGetOp>(access))
      assign(get);
    else if (auto release = dyn_cast<RingReleaseOp>(access))
      assign(release);
    else
      return access->emitError("unexpected use of a ring");
  }
  return success();
}

namespace {
struct FgemmPipelineTmaPass
    : fgemm::impl::FgemmPipelineTmaPassBase<FgemmPipelineTmaPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(pipelineTma(rewriter, kernel)))
        return signalPassFailure();
  }
};
} // namespace
