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
// M tile. Loads whose tile does not depend on the x index get `multicast`,
// TMA-loaded (mn_major) scales too, so a pair does not load a shared tile's
// scales twice (1 KB per K block for 256 rows).
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
//   so consecutive CTAs share a B tile. Clusters sharing A (multicast = a)
//   walk the transpose, groups of G columns of units row by row, so that
//   consecutive clusters share the A tile, as consecutive B-sharing
//   clusters share B: the L2's request coalescer then merges their
//   identical reads of the multicast operand (H200, 256x128 pairs at
//   4096 x 4096 x 7168: 8% fewer L2 sector lookups, docs/PERF.md).
//   launch_raster: G = clamp(fgemm.raster_group, 1, lines), a kernel
//     parameter, so the runtime picks the order per launch (G = 1 walks
//     line by line: row-major for groups of rows); on a plain grid too.
//
// With a cluster of C the loop runs over C x (units) indices: t / C goes
// through the order above over tiles_m x ceil(tiles_n / C) units (or
// ceil(tiles_m / C) x tiles_n with multicast = b) and the split index is
// unit * C + t mod C, so the C CTAs of a cluster (consecutive t) share the
// other index and run the same number of tiles.
//
// Stream-K (schedule = stream_k; dense and grouped_masked, whose loop's tile
// count is the GPU's, so every draw of masked_m runs whole rounds plus one
// shared by all clusters: no wave quantization): the persistent loop gets
// `split_k(K blocks per tile)` and runs pieces of tiles (the tail wave of
// R = units mod clusters units is shared by all clusters along K, then
// whole units; fgemm.tile_loop gives the rule; a unit is one tile without
// a cluster). The K loop runs the piece:
// `first(piece's first block) blocks(its blocks)`, and
// fgemm.combine_k_pieces after it adds up a split tile's pieces on the CTA
// that owns the tile, the only one whose stores run (`if(%owner)`). The
// tail wave costs R x K blocks / CTAs blocks per CTA instead of a tile's.
//
// K-split clusters (k_split = S > 1; dense, plain grid, cluster 1): grid x
// runs over S CTAs per tile, x / S the tile index and x mod S the CTA's rank
// in its cluster. Rank r's K loop runs `first(min(r * share, blocks))
// blocks(its share)` with share = ceil(blocks / S), and fgemm.combine_k_split
// after it adds the shares up on rank 0, the only CTA whose stores run.
//
// Grouped tile spaces add what a tile knows about its group, computed on the
// GPU from the layout tensor:
//
//   grouped_masked(%masked_m), output [g, m, n]: grid z is the group; the
//     persistent loop runs only over the row tiles that hold rows, group by
//     group (fgemm.count_row_tiles, fgemm.find_row_tile_group), so a capacity
//     m far above the rows costs no empty tiles;
//     rows = [0, clamp(masked_m[grp], 0, m))
//   grouped_contiguous(%m_indices), output [m, n]: grp = m_indices[tm * bm];
//     a value outside [0, g) makes a tile of no group (grp 0 for in-bounds
//     addresses, rows empty); else rows = the tile's rows
//   grouped_contiguous_psum(%group_ends), output [m, n]: grp = the first
//     group whose end is past tm * bm (fgemm.find_group); rows =
//     [align(group_ends[grp - 1], 128), group_ends[grp]), none in a gap
//   grouped_contiguous_unpadded(%group_ends), output [m, n], persistent only:
//     the loop runs over (block, group) pieces, piece = block + group, at
//     most tiles_m + g - 1 per column of tiles; fgemm.find_piece_group gives
//     the piece's group, rows = [group_ends[grp - 1], group_ends[grp])
//
// and the K loop runs `blocks(select(tile meets rows, ceil(k / bk), 0))`, so
// tiles of no group (padding blocks) issue neither loads nor wgmmas. Where
// every store keeps to the group's rows (masked, psum, unpadded), the K loop
// also gets `rows(lo, hi)`, the tile's rows inside the group's counted from
// its first row: a math warpgroup with none of them skips its math. On a
// plain grid a masked tile past its group's rows ends its CTA at once
// (fgemm.skip_tile_if), before any pipeline set-up. The persistent loop of a
// grouped tile space has a third argument, the K blocks the CTA's earlier
// tiles ran: the ring position (fgemm-pipeline-tma). With a cluster (multicast
// = a) the CTAs of a cluster share the M tile and so the group.
//
// The kernel records `grid = #fgemm.tile_grid<kind, [x dim, y dim(, z)]>`,
// from which the runtime sizes the launch (docs/ABI.md).
//
// Pairs of row tiles of the grouped_contiguous(_psum) and grouped_masked
// tile spaces may share B (cluster 2, multicast = b): B is the same for both
// only when they are in one group, so the B loads multicast under that
// condition (fgemm.load ... multicast_if) and each CTA loads its own B
// otherwise; the pair runs every K block when either tile has rows, as both
// CTAs' rings must stay in step (a masked tile without rows ends its CTA
// only when its pair's other tile has none either). The masked persistent
// loop pairs each group's row tiles inside the group (counted on the GPU in
// units: fgemm.count_row_tiles pairs(...)); a group's odd last row tile is
// split along N instead, columns 2j and 2j + 1 per pair, without multicast.
//
// Limitations: the unpadded grouped tile space multicasts A only
// (multicast = a).
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
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

/// Makes a multicast load (a tile or its scales) shared only when `shared`
/// holds.
static void setMulticastIf(Operation *load, Value shared) {
  if (auto tile = dyn_cast<LoadOp>(load))
    tile.getMulticastIfMutable().assign(shared);
  else
    cast<LoadScalesOp>(load).getMulticastIfMutable().assign(shared);
}

/// The raster group of the tile order over `lines` lines of units (rows, or
/// columns where the groups run across columns): the configuration's
/// constant, or with launch_raster the launch's value (fgemm.raster_group)
/// clamped to [1, lines], so any value the parameter holds walks every tile
/// once. Null: row-major.
static Value emitRasterGroup(RewriterBase &rewriter, Location loc,
                             ConfigAttr config, Value lines) {
  if (!config.getLaunchRaster())
    return config.getRasterGroup() > 0
               ? arith::ConstantIndexOp::create(rewriter, loc,
                                                config.getRasterGroup())
               : Value();
  Value group = RasterGroupOp::create(rewriter, loc, rewriter.getIndexType());
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value atLeastOne = arith::MaxUIOp::create(rewriter, loc, group, one);
  Value linesOrOne = arith::MaxUIOp::create(rewriter, loc, lines, one);
  return arith::MinUIOp::create(rewriter, loc, atLeastOne, linesOrOne);
}

/// Linear index -> (line, position along it) for groups of `group` lines
/// walked across: the group's lines alternate fastest.
static std::pair<Value, Value> emitGroupedOrder(RewriterBase &rewriter,
                                                Location loc, Value tile,
                                                Value lines, Value lineLength,
                                                Value group) {
  Value groupTiles = arith::MulIOp::create(rewriter, loc, lineLength, group);
  Value groupIndex = arith::DivUIOp::create(rewriter, loc, tile, groupTiles);
  Value firstLine = arith::MulIOp::create(rewriter, loc, groupIndex, group);
  Value groupLines = arith::MinUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, lines, firstLine),
      group);
  Value inGroup = arith::RemUIOp::create(rewriter, loc, tile, groupTiles);
  Value line = arith::AddIOp::create(
      rewriter, loc, firstLine,
      arith::RemUIOp::create(rewriter, loc, inGroup, groupLines));
  Value along = arith::DivUIOp::create(rewriter, loc, inGroup, groupLines);
  return {line, along};
}

/// The tile of CTA `rank` of a cluster whose unit is `unit`: the tile order
/// (see the file comment) runs over rowUnits x colUnits units, each
/// `clusterSize` tiles along the split index (rows with clusterAlongM, else
/// columns), and the CTA takes tile `rank` of its unit. Without a cluster
/// (null clusterSize) units are tiles.
static std::pair<Value, Value>
emitClusterTileOrder(RewriterBase &rewriter, Location loc, ConfigAttr config,
                     Value unit, Value rank, Value rowUnits, Value colUnits,
                     Value clusterSize, bool clusterAlongM) {
  // Clusters sharing A: groups of columns, so consecutive units share A.
  bool acrossColumns = clusterSize && !clusterAlongM;
  Value group = emitRasterGroup(rewriter, loc, config,
                                acrossColumns ? colUnits : rowUnits);
  Value tm, tn;
  if (!group) {
    tm = arith::DivUIOp::create(rewriter, loc, unit, colUnits);
    tn = arith::RemUIOp::create(rewriter, loc, unit, colUnits);
  } else if (acrossColumns) {
    std::tie(tn, tm) =
        emitGroupedOrder(rewriter, loc, unit, colUnits, rowUnits, group);
  } else {
    std::tie(tm, tn) =
        emitGroupedOrder(rewriter, loc, unit, rowUnits, colUnits, group);
  }
  if (clusterSize) {
    Value &split = clusterAlongM ? tm : tn;
    split = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, split, clusterSize),
        rank);
  }
  return {tm, tn};
}

/// The row tile of the other CTA of a pair (cluster 2) sharing B: the pair
/// holds row tiles tm - rank and tm - rank + 1.
static Value emitPairPeer(RewriterBase &rewriter, Location loc, Value tm,
                          Value rank) {
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value first = arith::SubIOp::create(rewriter, loc, tm, rank);
  return arith::AddIOp::create(rewriter, loc, first,
                               arith::SubIOp::create(rewriter, loc, one, rank));
}

/// Where the tile of CTA `rank` of tail unit `unit` (numbered after the
/// `bodyUnits` units of the tile order) lies along its line of tiles:
/// (unit - bodyUnits) x clusterSize + rank.
static Value emitTailTileAlongLine(RewriterBase &rewriter, Location loc,
                                   Value unit, Value bodyUnits,
                                   Value clusterSize, Value rank) {
  return arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, unit, bodyUnits),
          clusterSize),
      rank);
}

namespace {
/// A masked pair's tile (emitMaskedPairTile): its group and the group's
/// rows, its row and column tiles, the other CTA's row tile, and whether the
/// unit is a tail.
struct MaskedPairTile {
  Value group, rows, tm, tn, peerTm, inTail;
};
} // namespace

/// The tile of CTA `rank` of the masked pair (`clusterSize` 2) whose unit
/// is `unit`, units counted group by group (fgemm.count_row_tiles
/// pairs(tiles_n, halfRow)): a group of T row tiles holds T / 2 pair rows
/// of tiles_n units, walked in the tile order inside the group, then, when
/// T is odd, a tail of halfRow units whose CTAs take columns 2j and 2j + 1
/// of its last row tile.
static MaskedPairTile emitMaskedPairTile(RewriterBase &rewriter,
                                         TileSpaceOp space, ConfigAttr config,
                                         Value unit, Value rank,
                                         Value clusterSize, Value tilesN,
                                         Value halfRow, Value rowLimit) {
  Location loc = space.getLoc();
  Type index = rewriter.getIndexType();
  auto found = FindRowTileGroupOp::create(
      rewriter, loc, index, index, index, space.getGroups(), unit, rowLimit,
      tilesN, halfRow, rewriter.getI64IntegerAttr(config.getBlockM()));
  MaskedPairTile pair;
  pair.group = found.getGroup();
  pair.rows = found.getGroupRows();
  Value inGroup = found.getTileInGroup();
  // The group's T row tiles (its rows as the lookup found them, masked_m
  // clamped to [0, m]): T / 2 pair rows of tiles_n units, then the tail.
  Value rowTiles = arith::CeilDivUIOp::create(
      rewriter, loc, pair.rows,
      arith::ConstantIndexOp::create(rewriter, loc, config.getBlockM()));
  Value pairRows = arith::DivUIOp::create(rewriter, loc, rowTiles, clusterSize);
  Value bodyUnits = arith::MulIOp::create(rewriter, loc, pairRows, tilesN);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  pair.inTail = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                                      inGroup, bodyUnits);
  // The order runs over the group's pair rows (at least one, so that its
  // arithmetic stays defined); a tail unit is mapped apart.
  Value orderUnit =
      arith::SelectOp::create(rewriter, loc, pair.inTail, zero, inGroup);
  Value orderRows = arith::MaxUIOp::create(rewriter, loc, pairRows, one);
  auto [tm, tn] = emitClusterTileOrder(rewriter, loc, config, orderUnit, rank,
                                       orderRows, tilesN, clusterSize,
                                       /*clusterAlongM=*/true);
  Value peerTm = emitPairPeer(rewriter, loc, tm, rank);
  // Tail unit j: the last row tile, columns 2j + rank.
  Value lastRow = arith::SubIOp::create(rewriter, loc, rowTiles, one);
  Value tailColumn = emitTailTileAlongLine(rewriter, loc, inGroup, bodyUnits,
                                           clusterSize, rank);
  pair.tm = arith::SelectOp::create(rewriter, loc, pair.inTail, lastRow, tm);
  pair.tn = arith::SelectOp::create(rewriter, loc, pair.inTail, tailColumn, tn);
  pair.peerTm =
      arith::SelectOp::create(rewriter, loc, pair.inTail, lastRow, peerTm);
  return pair;
}

namespace {
/// What a tile of a grouped tile space knows about its group (index values).
struct GroupedTile {
  Value group, rowsBegin, rowsEnd;
};
} // namespace

/// The group dimension of a grouped tile space: the leading dimension of the
/// tensors the body indexes with the tile's group.
static FailureOr<StringAttr> getGroupDimension(TileSpaceOp space) {
  Value groupArg = space.getBody().front().getArgument(0);
  StringAttr dim;
  space.walk([&](Operation *op) {
    Value group, source;
    if (auto load = dyn_cast<LoadOp>(op))
      group = load.getGroup(), source = load.getSource();
    else if (auto scales = dyn_cast<LoadScalesOp>(op))
      group = scales.getGroup(), source = scales.getSource();
    if (!dim && group == groupArg && groupArg)
      dim = isa<GlobalTensorType>(source.getType())
                ? cast<GlobalTensorType>(source.getType()).getDims()[0]
                : cast<ScalesType>(source.getType()).getDims()[0];
  });
  if (!dim)
    return space.emitError("no load of the ")
           << stringifyTileSpaceKind(space.getKind())
           << " tile space uses the tile's group (the first body argument): "
              "index a 3-D operand [g, n, k] with it";
  return dim;
}

/// The group and the group's rows of the tile in row block `tm`, read from
/// the tile space's layout tensor; `knownGroup` is the group where the tile
/// order already found it (masked: grid z or fgemm.find_row_tile_group;
/// unpadded contiguous: the piece's group), `knownRows` the masked group's
/// rows where the lookup found them too. With `mayBePastEnd` (a pair of
/// row tiles sharing B, whose second can lie past the last) a tile past
/// the rows reads no layout entry and has no group.
static FailureOr<GroupedTile> emitGroupedTile(RewriterBase &rewriter,
                                              TileSpaceOp space, Value tm,
                                              Value knownGroup, Value knownRows,
                                              bool mayBePastEnd = false) {
  Location loc = space.getLoc();
  Type index = rewriter.getIndexType(), i32 = rewriter.getI32Type();
  auto out = cast<GlobalTensorType>(space.getOutput().getType());
  StringAttr dimM = out.getDims().take_back(2)[0];
  Value rowsM = DimOp::create(rewriter, loc, index, dimM);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  auto toIndex = [&](Value v) {
    return arith::IndexCastOp::create(rewriter, loc, index, v);
  };
  Value layout = space.getGroups();
  // layout[g] (a row count or an end row), clamped to [0, rows] on the GPU
  // so a bad value cannot reach rows of another group or past the output.
  auto clampedRow = [&](Value g) -> Value {
    Value raw = ReadOp::create(rewriter, loc, i32, layout, g);
    Value nonNegative = arith::MaxSIOp::create(
        rewriter, loc, raw, arith::ConstantIntOp::create(rewriter, loc, 0, 32));
    return arith::MinUIOp::create(rewriter, loc, toIndex(nonNegative), rowsM);
  };
  // The previous group's end row (clamped), 0 for group 0.
  auto previousEnd = [&](Value g) -> Value {
    Value hasPrevious = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ugt, g, zero);
    Value previous = arith::SelectOp::create(
        rewriter, loc, hasPrevious,
        arith::SubIOp::create(rewriter, loc, g,
                              arith::ConstantIndexOp::create(rewriter, loc, 1)),
        zero);
    return arith::SelectOp::create(rewriter, loc, hasPrevious,
                                   clampedRow(previous), zero);
  };
  if (space.getKind() == TileSpaceKind::GroupedMasked)
    return GroupedTile{knownGroup, zero,
                       knownRows ? knownRows : clampedRow(knownGroup)};
  if (space.getKind() == TileSpaceKind::GroupedContiguousUnpadded) {
    // Group g's rows: [ends[g - 1], ends[g]) (group 0 from row 0); the
    // store writes the piece's rows of its block only.
    return GroupedTile{knownGroup, previousEnd(knownGroup),
                       clampedRow(knownGroup)};
  }
  FailureOr<StringAttr> dimG = getGroupDimension(space);
  if (failed(dimG))
    return failure();
  Value blockM = arith::ConstantIndexOp::create(
      rewriter, loc,
      space->getParentOfType<KernelOp>().getConfigAttr().getBlockM());
  Value first = arith::MulIOp::create(rewriter, loc, tm, blockM);
  Value groups = arith::IndexCastOp::create(
      rewriter, loc, i32, DimOp::create(rewriter, loc, index, *dimG));
  if (space.getKind() == TileSpaceKind::GroupedContiguousPsum) {
    // The group whose end row is past the tile's first row; it starts at
    // the previous group's end rounded up to 128, and a tile before that
    // (in the gap) has no group.
    Value found = FindGroupOp::create(rewriter, loc, i32, layout, first);
    Value inRange = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, found, groups);
    Value group =
        arith::SelectOp::create(rewriter, loc, inRange, toIndex(found), zero);
    Value alignment = arith::ConstantIndexOp::create(rewriter, loc, 128);
    Value start =
        arith::MulIOp::create(rewriter, loc,
                              arith::CeilDivUIOp::create(
                                  rewriter, loc, previousEnd(group), alignment),
                              alignment);
    Value valid = arith::AndIOp::create(
        rewriter, loc, inRange,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule, start,
                              first));
    Value rowsBegin =
        arith::SelectOp::create(rewriter, loc, valid, start, first);
    Value rowsEnd =
        arith::SelectOp::create(rewriter, loc, valid, clampedRow(group), first);
    return GroupedTile{group, rowsBegin, rowsEnd};
  }
  Value exists;
  Value readRow = first;
  if (mayBePastEnd) {
    exists = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                   first, rowsM);
    readRow = arith::SelectOp::create(rewriter, loc, exists, first, zero);
  }
  Value raw = ReadOp::create(rewriter, loc, i32, layout, readRow);
  // 0 <= raw < g as one unsigned compare (-1 wraps to the top).
  Value valid = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                      raw, groups);
  if (exists)
    valid = arith::AndIOp::create(rewriter, loc, valid, exists);
  Value group =
      arith::SelectOp::create(rewriter, loc, valid, toIndex(raw), zero);
  Value tileEnd = arith::MinUIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, first, blockM),
      rowsM);
  Value rowsEnd = arith::SelectOp::create(rewriter, loc, valid, tileEnd, first);
  return GroupedTile{group, first, rowsEnd};
}

/// Whether every store of grouped tile space `space` writes only its tile's
/// group rows (`rows(%rows_begin, %rows_end)` with the body's arguments), and
/// nothing else writes memory: then a K loop's results matter only in the
/// tile's rows inside the group's.
static bool storesOnlyGroupRows(TileSpaceOp space) {
  Block &body = space.getBody().front();
  Value begin = body.getArgument(3), end = body.getArgument(4);
  bool stores = false;
  WalkResult walk = space.walk([&](Operation *op) {
    auto store = dyn_cast<StoreOp>(op);
    if (!store) {
      // An op of unknown effects may write: no rows then.
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      bool writes = effects
                        ? effects.hasEffect<MemoryEffects::Write>()
                        : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
      return writes ? WalkResult::interrupt() : WalkResult::advance();
    }
    stores = true;
    return store.getRowsBegin() == begin && store.getRowsEnd() == end
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return stores && !walk.wasInterrupted();
}

/// The body arguments of a grouped tile space's tile (tm, tn): its group and
/// rows, and every K loop's block count (none for a tile without rows). On a
/// plain grid a masked tile without rows ends its CTA (fgemm.skip_tile_if);
/// in a persistent loop it stores nothing.
///
/// With `peerTm`, the tile is one of a cluster's pair of row tiles sharing
/// their B tile (tm and peerTm, in the same column): both CTAs must run the
/// same K blocks, since the multicast fills the same ring slot in each, so
/// the pair runs every K block when either tile has rows; `sameGroup` is
/// set to whether both have rows of one group, when B is theirs to share.
/// Where the order knows the tile's group (masked), it is the peer's too.
static FailureOr<SmallVector<Value>>
emitGroupedTileValues(RewriterBase &rewriter, TileSpaceOp space, Value tm,
                      Value tn, Value knownGroup, Value knownRows,
                      bool plainGrid, Value peerTm = Value(),
                      Value *sameGroup = nullptr) {
  Location loc = space.getLoc();
  int64_t blockSize =
      space->getParentOfType<KernelOp>().getConfigAttr().getBlockM();
  Value blockM = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  // Whether the tile in row block `row` of group `tile` has rows.
  auto hasRowsOf = [&](Value row, const GroupedTile &tile) -> Value {
    Value first = arith::MulIOp::create(rewriter, loc, row, blockM);
    Value last = arith::AddIOp::create(rewriter, loc, first, blockM);
    Value lo = arith::MaxUIOp::create(rewriter, loc, first, tile.rowsBegin);
    Value hi = arith::MinUIOp::create(rewriter, loc, last, tile.rowsEnd);
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, lo,
                                 hi);
  };
  bool pair = static_cast<bool>(peerTm);
  FailureOr<GroupedTile> grouped =
      emitGroupedTile(rewriter, space, tm, knownGroup, knownRows, pair);
  if (failed(grouped))
    return failure();
  Value hasRows = hasRowsOf(tm, *grouped);
  Value runsBlocks = hasRows;
  if (pair) {
    FailureOr<GroupedTile> peer =
        emitGroupedTile(rewriter, space, peerTm, knownGroup, knownRows, pair);
    if (failed(peer))
      return failure();
    Value peerHasRows = hasRowsOf(peerTm, *peer);
    runsBlocks = arith::OrIOp::create(rewriter, loc, hasRows, peerHasRows);
    *sameGroup = arith::AndIOp::create(
        rewriter, loc,
        arith::AndIOp::create(rewriter, loc, hasRows, peerHasRows),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              grouped->group, peer->group));
  }
  // A masked tile past its group's rows writes nothing: on a plain grid its
  // CTA ends at once, unless the other tile of its pair has rows: the pair
  // runs its K blocks together. (A contiguous padding tile still stores its
  // zeros.)
  if (plainGrid && space.getKind() == TileSpaceKind::GroupedMasked)
    SkipTileIfOp::create(rewriter, loc,
                         arith::XOrIOp::create(rewriter, loc, runsBlocks,
                                               arith::ConstantIntOp::create(
                                                   rewriter, loc, 1, 1)));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Where only the group's rows are stored, the K loops learn which of the
  // tile's rows those are, [lo, hi) from its first row (empty for a tile
  // of a pair that has none): math warpgroups without any skip their math
  // (DeepGEMM's masked kernel does the same).
  SmallVector<Value> tileRows;
  if (storesOnlyGroupRows(space)) {
    Value first = arith::MulIOp::create(rewriter, loc, tm, blockM);
    auto fromFirst = [&](Value row) -> Value {
      Value past = rewriter.createOrFold<arith::SubIOp>(
          loc, rewriter.createOrFold<arith::MaxUIOp>(loc, row, first), first);
      return rewriter.createOrFold<arith::MinUIOp>(loc, past, blockM);
    };
    tileRows = {fromFirst(grouped->rowsBegin), fromFirst(grouped->rowsEnd)};
  }
  space.walk([&](KLoopOp loop) {
    Value all =
        NumBlocksOp::create(rewriter, loc, rewriter.getIndexType(),
                            loop.getDimAttr(), rewriter.getStringAttr("bk"));
    Value blocks =
        arith::SelectOp::create(rewriter, loc, runsBlocks, all, zero);
    rewriter.modifyOpInPlace(loop, [&] {
      loop.getBlocksMutable().assign(blocks);
      loop.getRowsMutable().assign(tileRows);
    });
  });
  return SmallVector<Value>{grouped->group, tm, tn, grouped->rowsBegin,
                            grouped->rowsEnd};
}

/// The K loop a stream-K schedule or a K-split cluster (`how`) splits: the
/// tile's one K loop, which carries one f32 accumulator tile; the tile space
/// dense, or with `splitsMasked` (stream-K) grouped_masked, whose persistent
/// loop runs only tiles with rows, each over every K block (the contiguous
/// layouts' loops also run tiles of no group, with none). A stream-K schedule
/// splits a cluster's unit of tiles sharing an operand as one (its CTAs run the
/// same pieces); a K-split cluster is the split itself and shares no operand
/// (the configuration's check).
static FailureOr<KLoopOp> getSplitKLoop(TileSpaceOp space, ConfigAttr config,
                                        StringRef how, bool splitsMasked) {
  if (space.isGrouped() &&
      (!splitsMasked || space.getKind() != TileSpaceKind::GroupedMasked))
    return space.emitError()
           << how << " splits the tiles of a dense tile space"
           << (splitsMasked ? " or a grouped_masked one" : "") << " only, not "
           << stringifyTileSpaceKind(space.getKind());
  SmallVector<KLoopOp> loops(space.getBody().front().getOps<KLoopOp>());
  if (loops.size() != 1)
    return space.emitError()
           << how << " splits the tile's one K loop; the tile has "
           << loops.size();
  KLoopOp loop = loops.front();
  auto tile = loop.getNumResults() == 1
                  ? dyn_cast<TileType>(loop.getResult(0).getType())
                  : TileType();
  if (!tile || !tile.getElementType().isF32())
    return loop.emitError()
           << how
           << " adds up shares of one f32 accumulator tile: the K loop must "
              "carry exactly that";
  return loop;
}

/// Lets only the CTAs whose `owner` is set run `scope`'s stores.
static void storeOnlyIfOwner(RewriterBase &rewriter, Operation *scope,
                             Value owner) {
  scope->walk([&](StoreOp store) {
    rewriter.modifyOpInPlace(store,
                             [&] { store.getWhenMutable().assign(owner); });
  });
}

/// A K-split cluster's CTA `rank` of `splits` runs its share of `mathLoop`'s
/// K blocks (ceil(blocks / splits) each, the last ones fewer or none), and
/// fgemm.combine_k_split adds the shares up on rank 0, the only CTA whose
/// stores run.
static void splitAlongK(RewriterBase &rewriter, KLoopOp mathLoop, Value rank,
                        int64_t splits, Operation *scope) {
  Location loc = mathLoop.getLoc();
  rewriter.setInsertionPoint(mathLoop);
  Value all =
      NumBlocksOp::create(rewriter, loc, rewriter.getIndexType(),
                          mathLoop.getDimAttr(), rewriter.getStringAttr("bk"));
  Value share = arith::CeilDivUIOp::create(
      rewriter, loc, all,
      arith::ConstantIndexOp::create(rewriter, loc, splits));
  Value first = arith::MinUIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, rank, share), all);
  Value blocks = arith::MinUIOp::create(
      rewriter, loc, share, arith::SubIOp::create(rewriter, loc, all, first));
  rewriter.modifyOpInPlace(mathLoop, [&] {
    mathLoop.getFirstMutable().assign(first);
    mathLoop.getBlocksMutable().assign(blocks);
  });
  rewriter.setInsertionPointAfter(mathLoop);
  Value partial = mathLoop.getResult(0);
  auto combine = CombineKSplitOp::create(rewriter, loc, partial.getType(),
                                         rewriter.getI1Type(), partial);
  rewriter.replaceAllUsesExcept(partial, combine.getSum(), combine);
  storeOnlyIfOwner(rewriter, scope, combine.getOwner());
}

/// Runs `mathLoop` over the piece of the split tile loop `loop`, combines
/// the pieces after it and lets only the tile's owner store.
static void combinePieces(RewriterBase &rewriter, TileLoopOp loop,
                          KLoopOp mathLoop) {
  rewriter.modifyOpInPlace(mathLoop, [&] {
    mathLoop.getFirstMutable().assign(loop.getFirstBlockArg());
    mathLoop.getBlocksMutable().assign(loop.getBlocksArg());
  });
  rewriter.setInsertionPointAfter(mathLoop);
  Value partial = mathLoop.getResult(0);
  auto combine =
      CombineKPiecesOp::create(rewriter, mathLoop.getLoc(), partial.getType(),
                               rewriter.getI1Type(), partial);
  rewriter.replaceAllUsesExcept(partial, combine.getSum(), combine);
  storeOnlyIfOwner(rewriter, loop, combine.getOwner());
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
  auto out = cast<GlobalTensorType>(space.getOutput().getType());
  ArrayRef<StringAttr> outDims = out.getDims().take_back(2);
  StringAttr dimM = outDims[0], dimN = outDims[1];
  if (space.isGrouped()) {
    if (space.getKind() != TileSpaceKind::GroupedMasked &&
        config.getBlockM() > 128)
      return space.emitError("a ")
             << stringifyTileSpaceKind(space.getKind())
             << " tile space needs block_m <= 128, got " << config.getBlockM()
             << ": groups start on 128-row boundaries and a tile must not "
                "span two of them";
    if (space.getKind() == TileSpaceKind::GroupedContiguousUnpadded &&
        !config.isPersistent())
      return space.emitError("a grouped_contiguous_unpadded tile space is "
                             "scheduled persistently only (schedule = "
                             "persistent): its number of tiles is known on "
                             "the GPU only");
    bool pairsShareB =
        space.getKind() != TileSpaceKind::GroupedContiguousUnpadded &&
        config.getCluster() == 2;
    if (config.getCluster() > 1 && config.getMulticast() == Multicast::B &&
        !pairsShareB)
      return space.emitError("a ")
             << stringifyTileSpaceKind(space.getKind())
             << " tile space with cluster " << config.getCluster()
             << " multicasts A only (multicast = a): B is shared by pairs of "
                "row tiles (cluster 2) of the grouped_contiguous, "
                "grouped_contiguous_psum and grouped_masked tile spaces only";
  }
  for (StringAttr d : {dimM, dimN})
    if (getTileDimExtent(("b" + d.getValue()).str(), config) <= 0)
      return space.emitError("output dimension '")
             << d.getValue()
             << "' has no block size (the output must be [m, n])";

  Block &body = space.getBody().front();
  unsigned tileArg = space.isGrouped() ? 1 : 0;
  Value argM = body.getArgument(tileArg), argN = body.getArgument(tileArg + 1);
  rewriter.setInsertionPoint(space);
  Location loc = space.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type index = rewriter.getIndexType();

  // A cluster's CTAs differ in one tile index (x: N with multicast = a, M
  // with multicast = b); loads that do not depend on it are multicast.
  int64_t cluster = config.getCluster();
  bool clusterAlongM = cluster > 1 && config.getMulticast() == Multicast::B;
  // Grouped row tiles sharing B share it only when they are in one group:
  // those loads get the pair's condition (multicast_if) below.
  SmallVector<Operation *> sharedWithinGroup, multicastLoads;
  if (cluster > 1) {
    // What differs between the CTAs: the split tile index, and for grouped
    // row tiles sharing B also their rows (body arguments 3 and 4); their
    // group may differ too, which the condition covers.
    SmallVector<Value> varying = {clusterAlongM ? argM : argN};
    Value groupArg = space.isGrouped() ? body.getArgument(0) : Value();
    if (clusterAlongM && groupArg)
      varying.append({body.getArgument(3), body.getArgument(4)});
    bool any = false;
    // The TMA-loaded scales of a shared tile are shared with it.
    space.walk([&](Operation *load) {
      if (!isTmaLoad(load))
        return;
      auto tile = dyn_cast<LoadOp>(load);
      auto scales = dyn_cast<LoadScalesOp>(load);
      ValueRange indices = tile ? tile.getIndices() : scales.getIndices();
      if (llvm::any_of(indices, [&](Value index) {
            return llvm::any_of(varying,
                                [&](Value v) { return dependsOn(index, v); });
          }))
        return;
      if (tile)
        tile.setMulticast(true);
      else
        scales.setMulticast(true);
      multicastLoads.push_back(load);
      any = tile || any;
      if (clusterAlongM && groupArg && llvm::any_of(indices, [&](Value index) {
            return dependsOn(index, groupArg);
          }))
        sharedWithinGroup.push_back(load);
    });
    if (!any)
      return space.emitError("cluster ")
             << cluster
             << " with multicast = " << getKnobValueName(config.getMulticast())
             << ": no operand tile is the same for every CTA of the cluster";
  }

  if (config.isPersistent()) {
    auto numBlocks = [&](StringAttr dim) {
      return NumBlocksOp::create(rewriter, loc, index, dim,
                                 rewriter.getStringAttr("b" + dim.getValue()));
    };
    Value tilesM = numBlocks(dimM), tilesN = numBlocks(dimN);
    bool masked = space.getKind() == TileSpaceKind::GroupedMasked;
    bool unpadded = space.getKind() == TileSpaceKind::GroupedContiguousUnpadded;
    // x runs over the tile index a cluster splits: the runtime rounds its
    // count up to whole clusters.
    SmallVector<StringAttr> gridDims = {clusterAlongM ? dimM : dimN,
                                        clusterAlongM ? dimN : dimM};
    // The loop runs over rowPieces x tiles_n tiles, in the tile order.
    Value rowPieces = tilesM, rowLimit;
    IntegerAttr blockM = rewriter.getI64IntegerAttr(config.getBlockM());
    if (unpadded) {
      // (block, group) pieces: at most tiles_m + g - 1 of them.
      auto ends = cast<GlobalTensorType>(space.getGroups().getType());
      Value groups = DimOp::create(rewriter, loc, index, ends.getDims()[0]);
      rowPieces = arith::SubIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, tilesM, groups),
          arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    // Masked pairs of row tiles sharing B (cluster 2 along M) pair each
    // group's row tiles inside the group, and split a group's odd last row
    // tile along N (columns 2j and 2j + 1 per pair, no multicast), as
    // DeepGEMM does: no pair loads two groups' B, and the order's bands stay
    // inside a group, so a round of CTAs streams one group's B (pairs across
    // groups in one sequence of all groups' row tiles had bands spanning two
    // groups: 1.6% slower at 6 x 1024 rows, N = 6144, K = 7168, whose B
    // does not fit in L2; H100, docs/PERF.md, twenty-eighth session).
    bool groupPairs = masked && clusterAlongM && cluster == 2;
    Value clusterSize, halfRow;
    if (cluster > 1)
      clusterSize = arith::ConstantIndexOp::create(rewriter, loc, cluster);
    if (groupPairs)
      halfRow = arith::CeilDivUIOp::create(rewriter, loc, tilesN, clusterSize);
    if (masked) {
      rowLimit = DimOp::create(rewriter, loc, index, dimM);
      // The masked layout's tiles that hold rows, group by group: the
      // capacity m can be far above the rows (a loop over every row block
      // of it visited up to 16 empty tiles per tile with rows). Pairs count
      // units: a group's pairs of row tiles, tiles_n units each, and its
      // odd last row tile's ceil(tiles_n / 2).
      gridDims.push_back(out.getDims()[0]);
      rowPieces = CountRowTilesOp::create(
          rewriter, loc, index, space.getGroups(), rowLimit,
          groupPairs ? tilesN : Value(), halfRow, blockM);
    }
    // A cluster's CTAs take consecutive linear indices (the runtime launches
    // a multiple of the cluster size), which the order maps to one unit of
    // `cluster` tiles along the split index: the CTAs share the other index,
    // and so the multicast tile and the group. A grouped unit that reaches
    // past the tiles computes tiles wholly out of bounds, whose stores TMA
    // drops. Dense pairs instead leave an odd split count's last line of
    // tiles (the last tile column with multicast = a, the last row with b)
    // to tail units after the others, whose two CTAs take two tiles of that
    // line along the other index, each loading its own operands (as
    // DeepGEMM's scheduler does): no pair computes a tile past the output
    // but where the other count is odd too.
    bool denseTail = cluster > 1 && !space.isGrouped();
    Value rowUnits = rowPieces, colUnits = tilesN, splitTiles;
    if (cluster > 1 && !groupPairs) {
      Value &split = clusterAlongM ? rowUnits : colUnits;
      splitTiles = split;
      split =
          denseTail
              ? Value(arith::DivUIOp::create(rewriter, loc, split, clusterSize))
              : Value(arith::CeilDivUIOp::create(rewriter, loc, split,
                                                 clusterSize));
    }
    Value total =
        groupPairs
            ? rowPieces
            : Value(arith::MulIOp::create(rewriter, loc, rowUnits, colUnits));
    Value bodyUnits;
    if (denseTail) {
      bodyUnits = total;
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value oddSplit = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne,
          arith::RemUIOp::create(rewriter, loc, splitTiles, clusterSize), zero);
      Value tailUnits = arith::SelectOp::create(
          rewriter, loc, oddSplit,
          arith::CeilDivUIOp::create(
              rewriter, loc, clusterAlongM ? colUnits : rowUnits, clusterSize),
          zero);
      total = arith::AddIOp::create(rewriter, loc, bodyUnits, tailUnits);
      // The order runs over the body's units; with none (a split count of
      // 1) it still runs, on one line of units, for tail units' discarded
      // values: no division by zero.
      Value &split = clusterAlongM ? rowUnits : colUnits;
      split = arith::MaxUIOp::create(
          rewriter, loc, split,
          arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    if (cluster > 1)
      total = arith::MulIOp::create(rewriter, loc, total, clusterSize);
    // Stream-K: the loop runs pieces of tiles along the math K loop.
    KLoopOp mathLoop;
    Value kBlocks;
    if (config.isStreamK()) {
      FailureOr<KLoopOp> found =
          getSplitKLoop(space, config, "schedule = stream_k",
                        /*splitsMasked=*/true);
      if (failed(found))
        return failure();
      mathLoop = *found;
      kBlocks = NumBlocksOp::create(rewriter, loc, index, mathLoop.getDimAttr(),
                                    rewriter.getStringAttr("bk"));
    }
    auto loop = TileLoopOp::create(rewriter, loc, total, kBlocks);
    // Grouped tiles run different numbers of K blocks: the loop counts the
    // K blocks of the CTA's earlier tiles (the ring position); a piece of a
    // split tile also has its first K block and its number of blocks.
    SmallVector<Type> argTypes(mathLoop ? 5 : space.isGrouped() ? 3 : 2, index);
    SmallVector<Location> argLocs(argTypes.size(), loc);
    Block *loopBody =
        rewriter.createBlock(&loop.getBody(), {}, argTypes, argLocs);
    rewriter.setInsertionPointToStart(loopBody);
    Value tile = loopBody->getArgument(1), group, rank;
    if (cluster > 1) {
      rank = arith::RemUIOp::create(rewriter, loc, tile, clusterSize);
      tile = arith::DivUIOp::create(rewriter, loc, tile, clusterSize);
    }
    Value tm, tn, peerTm, groupRows, inTail;
    if (groupPairs) {
      MaskedPairTile pair =
          emitMaskedPairTile(rewriter, space, config, tile, rank, clusterSize,
                             tilesN, halfRow, rowLimit);
      group = pair.group;
      groupRows = pair.rows;
      tm = pair.tm, tn = pair.tn, peerTm = pair.peerTm, inTail = pair.inTail;
    } else {
      // (A tail unit walks the order as unit 0: its values are not used.)
      Value inDenseTail, orderUnit = tile;
      if (denseTail) {
        inDenseTail = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::uge, tile, bodyUnits);
        orderUnit = arith::SelectOp::create(
            rewriter, loc, inDenseTail,
            arith::ConstantIndexOp::create(rewriter, loc, 0), tile);
      }
      std::tie(tm, tn) =
          emitClusterTileOrder(rewriter, loc, config, orderUnit, rank, rowUnits,
                               colUnits, clusterSize, clusterAlongM);
      if (denseTail) {
        // Tail unit u: tiles 2u and 2u + 1 of the last line, one per CTA.
        Value along = emitTailTileAlongLine(rewriter, loc, tile, bodyUnits,
                                            clusterSize, rank);
        Value lastLine = arith::SubIOp::create(
            rewriter, loc, splitTiles,
            arith::ConstantIndexOp::create(rewriter, loc, 1));
        Value tailTm = clusterAlongM ? lastLine : along;
        Value tailTn = clusterAlongM ? along : lastLine;
        tm = arith::SelectOp::create(rewriter, loc, inDenseTail, tailTm, tm);
        tn = arith::SelectOp::create(rewriter, loc, inDenseTail, tailTn, tn);
        Value shared = arith::XOrIOp::create(
            rewriter, loc, inDenseTail,
            arith::ConstantIntOp::create(rewriter, loc, 1, 1));
        for (Operation *load : multicastLoads)
          setMulticastIf(load, shared);
      }
      if (clusterAlongM)
        peerTm = emitPairPeer(rewriter, loc, tm, rank);
    }
    if (masked && !groupPairs) {
      // The order runs over the row tiles of all groups.
      auto found = FindRowTileGroupOp::create(
          rewriter, loc, index, index, index, space.getGroups(), tm, rowLimit,
          Value(), Value(), blockM);
      group = found.getGroup();
      groupRows = found.getGroupRows();
      tm = found.getTileInGroup();
    }
    if (unpadded) {
      // The order runs over pieces; a piece's block is piece - group.
      Value found = FindPieceGroupOp::create(
          rewriter, loc, rewriter.getI32Type(), space.getGroups(), tm,
          rewriter.getI64IntegerAttr(config.getBlockM()));
      group = arith::IndexCastOp::create(rewriter, loc, index, found);
      tm = arith::SubIOp::create(rewriter, loc, tm, group);
    }
    SmallVector<Value> tileValues = {tm, tn};
    if (space.isGrouped()) {
      Value sameGroup;
      FailureOr<SmallVector<Value>> values =
          emitGroupedTileValues(rewriter, space, tm, tn, group, groupRows,
                                /*plainGrid=*/false, peerTm, &sameGroup);
      if (failed(values))
        return failure();
      tileValues = *values;
      // A tail pair's two tiles are in two columns: B is not theirs to share.
      if (inTail)
        sameGroup = arith::AndIOp::create(
            rewriter, loc, sameGroup,
            arith::XOrIOp::create(
                rewriter, loc, inTail,
                arith::ConstantIntOp::create(rewriter, loc, 1, 1)));
      for (Operation *load : sharedWithinGroup)
        setMulticastIf(load, sameGroup);
    }
    rewriter.mergeBlocks(&body, loopBody, tileValues);
    if (mathLoop)
      combinePieces(rewriter, loop, mathLoop);
    kernel.setGridAttr(TileGridAttr::get(ctx, space.getKind(), gridDims));
    rewriter.eraseOp(space);
    return success();
  }

  // Plain grid: x over the tiles a cluster does not share.
  Value x =
      ProgramIdOp::create(rewriter, loc, index, DimAttr::get(ctx, Dim::X));
  // A K-split cluster: k_split consecutive CTAs along x share one tile.
  KLoopOp splitLoop;
  Value splitRank;
  if (int64_t splits = config.getKSplit(); splits > 1) {
    FailureOr<KLoopOp> found =
        getSplitKLoop(space, config, ("k_split = " + Twine(splits)).str(),
                      /*splitsMasked=*/false);
    if (failed(found))
      return failure();
    splitLoop = *found;
    Value size = arith::ConstantIndexOp::create(rewriter, loc, splits);
    splitRank = arith::RemUIOp::create(rewriter, loc, x, size);
    x = arith::DivUIOp::create(rewriter, loc, x, size);
  }
  Value y =
      ProgramIdOp::create(rewriter, loc, index, DimAttr::get(ctx, Dim::Y));
  Value tm = clusterAlongM ? x : y, tn = clusterAlongM ? y : x;
  // The CTA's rank in its cluster: clusters are consecutive along x.
  Value rank;
  if (clusterAlongM)
    rank = arith::RemUIOp::create(
        rewriter, loc, x,
        arith::ConstantIndexOp::create(rewriter, loc, cluster));
  if (config.getRasterGroup() > 0 || config.getLaunchRaster()) {
    // The CTA's linear index goes through the tile order. A cluster's CTAs
    // (consecutive along x) are ordered as one unit, so they keep sharing
    // their tile row (A multicast) or column (B multicast).
    auto numBlocks = [&](StringAttr dim) -> Value {
      return NumBlocksOp::create(rewriter, loc, index, dim,
                                 rewriter.getStringAttr("b" + dim.getValue()));
    };
    Value tilesM = numBlocks(dimM), tilesN = numBlocks(dimN);
    Value unit = x, clusterSize;
    if (cluster > 1) {
      clusterSize = arith::ConstantIndexOp::create(rewriter, loc, cluster);
      unit = arith::DivUIOp::create(rewriter, loc, x, clusterSize);
      if (!rank) // (already computed for pairs along M)
        rank = arith::RemUIOp::create(rewriter, loc, x, clusterSize);
      Value &split = clusterAlongM ? tilesM : tilesN;
      split = arith::CeilDivUIOp::create(rewriter, loc, split, clusterSize);
    }
    Value units = clusterAlongM ? tilesM : tilesN;
    Value linear = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, y, units), unit);
    std::tie(tm, tn) =
        emitClusterTileOrder(rewriter, loc, config, linear, rank, tilesM,
                             tilesN, clusterSize, clusterAlongM);
  }
  SmallVector<StringAttr> gridDims = {clusterAlongM ? dimM : dimN,
                                      clusterAlongM ? dimN : dimM};
  SmallVector<Value> tileValues = {tm, tn};
  if (space.isGrouped()) {
    // Grid z runs over the masked layout's groups.
    Value group;
    if (space.getKind() == TileSpaceKind::GroupedMasked) {
      group =
          ProgramIdOp::create(rewriter, loc, index, DimAttr::get(ctx, Dim::Z));
      gridDims.push_back(out.getDims()[0]);
    }
    Value peerTm, sameGroup;
    if (clusterAlongM)
      peerTm = emitPairPeer(rewriter, loc, tm, rank);
    FailureOr<SmallVector<Value>> values =
        emitGroupedTileValues(rewriter, space, tm, tn, group, Value(),
                              /*plainGrid=*/true, peerTm, &sameGroup);
    if (failed(values))
      return failure();
    tileValues = *values;
    for (Operation *load : sharedWithinGroup)
      setMulticastIf(load, sameGroup);
  }
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, space, tileValues);
  if (splitLoop)
    splitAlongK(rewriter, splitLoop, splitRank, config.getKSplit(), kernel);
  kernel.setGridAttr(TileGridAttr::get(ctx, space.getKind(), gridDims));
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
