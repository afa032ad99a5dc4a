//===- ScheduleTiles.cpp - map output tiles onto CTAs ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-schedule-tiles: decides which CTA computes which output tile.
//
// Plain: one CTA per output tile.
//
//   fgemm.tile_space dense over %d {        %tn = fgemm.program_id x
//   ^bb0(%tm, %tn):                  ==>    %tm = fgemm.program_id y
//     body                                  body
//   }
//
// CTA x runs over the output's columns so that CTAs launched together share
// the A tile in L2. The kernel records `fgemm.grid = [cols, rows]`: the
// dimension symbols whose tile counts size the grid.
//
// Persistent: at most one CTA per SM, each looping over tiles p, p + P, ...
// (fgemm.tile_loop), so the producer prefetches a CTA's next tile while its
// math warpgroups run the epilogue of this one. The kernel records
// `fgemm.schedule = "persistent"`; the runtime sizes the grid.
//
// Limitations: no rasterization, clusters or grouped layouts yet.
//
//===----------------------------------------------------------------------===//

#include "dialect/Passes.h"
#include "dialect/Transforms.h"

#define DEBUG_TYPE "fgemm-schedule-tiles"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMSCHEDULETILESPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

LogicalResult mlir::fgemm::scheduleTiles(RewriterBase &rewriter, KernelOp kernel,
                                         bool persistent) {
  SmallVector<TileSpaceOp> spaces(kernel.getOps<TileSpaceOp>());
  if (spaces.empty()) {
    kernel.emitWarning("fgemm-schedule-tiles: not applied: no fgemm.tile_space in the kernel");
    return success();
  }
  if (spaces.size() > 1)
    return spaces[1].emitError("a kernel has one tile space; found ") << spaces.size();
  TileSpaceOp space = spaces.front();
  if (space.getKind() != TileSpaceKind::Dense)
    return space.emitError("only the dense tile space can be scheduled");

  rewriter.setInsertionPoint(space);
  Location loc = space.getLoc();
  if (persistent) {
    auto loop = TileLoopOp::create(rewriter, loc, space.getOutput());
    Type index = rewriter.getIndexType();
    Block *body = rewriter.createBlock(&loop.getBody(), {}, {index, index, index},
                                       {loc, loc, loc});
    rewriter.mergeBlocks(&space.getBody().front(), body,
                         {body->getArgument(1), body->getArgument(2)});
    kernel->setAttr("fgemm.schedule", rewriter.getStringAttr("persistent"));
    rewriter.eraseOp(space);
    return success();
  }
  Value tn = ProgramIdOp::create(rewriter, loc, rewriter.getIndexType(), DimAttr::get(rewriter.getContext(), Dim::X));
  Value tm = ProgramIdOp::create(rewriter, loc, rewriter.getIndexType(), DimAttr::get(rewriter.getContext(), Dim::Y));
  Block &body = space.getBody().front();
  Operation *yield = body.getTerminator();
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, space, ValueRange{tm, tn});
  auto out = cast<GlobalTensorType>(space.getOutput().getType());
  kernel->setAttr("fgemm.grid", rewriter.getStrArrayAttr({out.getDims()[1].getValue(),
                                                           out.getDims()[0].getValue()}));
  rewriter.eraseOp(space);
  return success();
}

namespace {
struct FgemmScheduleTilesPass : fgemm::impl::FgemmScheduleTilesPassBase<FgemmScheduleTilesPass> {
  using FgemmScheduleTilesPassBase::FgemmScheduleTilesPassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(scheduleTiles(rewriter, kernel, persistent)))
        return signalPassFailure();
  }
};
} // namespace
