//===- ScheduleTiles.cpp - map output tiles onto CTAs ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-schedule-tiles: decides which CTA computes which output tile, and
// writes the decision as IR the lowering translates one to one.
//
// Plain: one CTA per output tile.
//
//   fgemm.tile_space dense over %d {        %tn = fgemm.program_id x
//   ^bb0(%tm, %tn):                  ==>    %tm = fgemm.program_id y
//     body                                  body
//   }
//
// With raster_group = G the CTA's linear index y * tiles_n + x goes through
// the same tile order as the persistent loop's (below), so the CTAs the
// hardware runs together cover a G-row block of tiles and share its A and B
// tiles in L2; a cluster's CTAs are ordered as one unit.
//
// Grid x runs over the tiles a cluster does not share: with multicast = a
// (the default) x is the N tile, so CTAs launched together share the A tile
// in L2 and, in a cluster, through TMA multicast; with multicast = b x is the
// M tile. Loads whose tile does not depend on the x index get `multicast`.
//
// Persistent: at most one CTA per SM, each looping over linear tile indices
// p, p + P, ... (fgemm.tile_loop), so the producer prefetches a CTA's next
// tile while its math warpgroups run the epilogue of this one. The tile order
// is index arithmetic at the top of the loop body:
//
//   raster_group = 0: tm = t / tiles_n, tn = t mod tiles_n (row-major)
//   raster_group = G: groups of G tile rows, walked column by column:
//     group = t / (G * tiles_n), rows = min(tiles_m - G * group, G)
//     tm = G * group + (t mod (G * tiles_n)) mod rows
//     tn = (t mod (G * tiles_n)) / rows
//
// The kernel records `grid = #fgemm.tile_grid<kind, [x dim, y dim]>`, from
// which the runtime sizes the launch (docs/ABI.md).
//
// Limitations: dense tile spaces only; clusters only with the plain grid
// (fgemm-specialize refuses the rest).
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

/// Whether `value` is `index` or computed from it (by ops in the kernel).
static bool dependsOn(Value value, Value index) {
  if (value == index)
    return true;
  Operation *def = value.getDefiningOp();
  return def && llvm::any_of(def->getOperands(), [&](Value operand) {
           return dependsOn(operand, index);
         });
}

/// The persistent loop: linear tile index -> (tm, tn) in the configured order.
static std::pair<Value, Value> emitTileOrder(RewriterBase &rewriter,
                                             Location loc, Value tile,
                                             Value tilesM, Value tilesN,
                                             int64_t group) {
  if (group == 0)
    return {arith::DivUIOp::create(rewriter, loc, tile, tilesN),
            arith::RemUIOp::create(rewriter, loc, tile, tilesN)};
  Value g = arith::ConstantIndexOp::create(rewriter, loc, group);
  Value groupTiles = arith::MulIOp::create(rewriter, loc, tilesN, g);
  Value groupIndex = arith::DivUIOp::create(rewriter, loc, tile, groupTiles);
  Value firstRow = arith::MulIOp::create(rewriter, loc, groupIndex, g);
  Value rows = arith::MinUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, tilesM, firstRow), g);
  Value inGroup = arith::RemUIOp::create(rewriter, loc, tile, groupTiles);
  Value tm = arith::AddIOp::create(
      rewriter, loc, firstRow,
      arith::RemUIOp::create(rewriter, loc, inGroup, rows));
  Value tn = arith::DivUIOp::create(rewriter, loc, inGroup, rows);
  return {tm, tn};
}

LogicalResult mlir::fgemm::scheduleTiles(RewriterBase &rewriter,
                                         KernelOp kernel) {
  ConfigAttr config = kernel.getConfigAttr();
  if (!config)
    return kernel.emitError("fgemm-schedule-tiles needs a specialized kernel "
                            "(run fgemm-specialize first)");
  SmallVector<TileSpaceOp> spaces(kernel.getOps<TileSpaceOp>());
  if (spaces.empty()) {
    kernel.emitWarning(
        "fgemm-schedule-tiles: not applied: no fgemm.tile_space in the kernel");
    return success();
  }
  if (spaces.size() > 1)
    return spaces[1].emitError("a kernel has one tile space; found ")
           << spaces.size();
  TileSpaceOp space = spaces.front();
  if (space.getKind() != TileSpaceKind::Dense)
    return space.emitError("only the dense tile space can be scheduled");
  auto out = cast<GlobalTensorType>(space.getOutput().getType());
  if (out.getDims().size() != 2)
    return space.emitError("the dense tile space covers a 2-D output");
  StringAttr dimM = out.getDims()[0], dimN = out.getDims()[1];
  for (StringAttr d : {dimM, dimN})
    if (getTileDimExtent(("b" + d.getValue()).str(), config) <= 0)
      return space.emitError("output dimension '")
             << d.getValue()
             << "' has no block size (the output must be [m, n])";

  Block &body = space.getBody().front();
  Value argM = body.getArgument(0), argN = body.getArgument(1);
  rewriter.setInsertionPoint(space);
  Location loc = space.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type index = rewriter.getIndexType();

  if (config.isPersistent()) {
    auto numBlocks = [&](StringAttr dim) {
      return NumBlocksOp::create(rewriter, loc, index, dim,
                                 rewriter.getStringAttr("b" + dim.getValue()));
    };
    Value tilesM = numBlocks(dimM), tilesN = numBlocks(dimN);
    Value total = arith::MulIOp::create(rewriter, loc, tilesM, tilesN);
    auto loop = TileLoopOp::create(rewriter, loc, total);
    Block *loopBody =
        rewriter.createBlock(&loop.getBody(), {}, {index, index}, {loc, loc});
    rewriter.setInsertionPointToStart(loopBody);
    auto [tm, tn] = emitTileOrder(rewriter, loc, loopBody->getArgument(1),
                                  tilesM, tilesN, config.getRasterGroup());
    rewriter.mergeBlocks(&body, loopBody, {tm, tn});
    kernel.setGridAttr(TileGridAttr::get(ctx, space.getKind(), {dimN, dimM}));
    rewriter.eraseOp(space);
    return success();
  }

  // Plain grid: x over the tiles a cluster does not share.
  bool clusterAlongM =
      config.getCluster() > 1 && config.getMulticast() == Multicast::B;
  Value x =
      ProgramIdOp::create(rewriter, loc, index, DimAttr::get(ctx, Dim::X));
  Value y =
      ProgramIdOp::create(rewriter, loc, index, DimAttr::get(ctx, Dim::Y));
  Value tm = clusterAlongM ? x : y, tn = clusterAlongM ? y : x;
  if (config.getRasterGroup() > 0) {
    // The CTA's linear index goes through the tile order. A cluster's CTAs
    // (consecutive along x) are ordered as one unit, so they keep sharing
    // their tile row (A multicast) or column (B multicast).
    auto numBlocks = [&](StringAttr dim) -> Value {
      return NumBlocksOp::create(rewriter, loc, index, dim,
                                 rewriter.getStringAttr("b" + dim.getValue()));
    };
    Value tilesM = numBlocks(dimM), tilesN = numBlocks(dimN);
    int64_t cluster = config.getCluster();
    Value unit = x, rank, clusterSize;
    if (cluster > 1) {
      clusterSize = arith::ConstantIndexOp::create(rewriter, loc, cluster);
      unit = arith::DivUIOp::create(rewriter, loc, x, clusterSize);
      rank = arith::RemUIOp::create(rewriter, loc, x, clusterSize);
      Value &split = clusterAlongM ? tilesM : tilesN;
      split = arith::CeilDivUIOp::create(rewriter, loc, split, clusterSize);
    }
    Value units = clusterAlongM ? tilesM : tilesN;
    Value linear = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, y, units), unit);
    std::tie(tm, tn) = emitTileOrder(rewriter, loc, linear, tilesM, tilesN,
                                     config.getRasterGroup());
    if (cluster > 1) {
      Value &split = clusterAlongM ? tm : tn;
      split = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, split, clusterSize), rank);
    }
  }
  if (config.getCluster() > 1) {
    Value varying = clusterAlongM ? argM : argN;
    bool any = false;
    space.walk([&](LoadOp load) {
      if (!dependsOn(load.getRow(), varying) &&
          !dependsOn(load.getCol(), varying)) {
        load.setMulticast(true);
        any = true;
      }
    });
    if (!any)
      return space.emitError("cluster ")
             << config.getCluster()
             << " with multicast = " << getKnobValueName(config.getMulticast())
             << ": no operand tile is the same for every CTA of the cluster";
  }
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, space, ValueRange{tm, tn});
  kernel.setGridAttr(TileGridAttr::get(ctx, space.getKind(),
                                       clusterAlongM
                                           ? ArrayRef<StringAttr>{dimM, dimN}
                                           : ArrayRef<StringAttr>{dimN, dimM}));
  rewriter.eraseOp(space);
  return success();
}

namespace {
struct FgemmScheduleTilesPass
    : fgemm::impl::FgemmScheduleTilesPassBase<FgemmScheduleTilesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(scheduleTiles(rewriter, kernel)))
        return signalPassFailure();
  }
};
} // namespace
