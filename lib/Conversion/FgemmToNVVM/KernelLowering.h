//===- KernelLowering.h - state of one fgemm kernel's lowering --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Private to convert-fgemm-to-nvvm: FgemmToNVVM.cpp lowers the kernel's
// structure (function, roles, ring, producer, epilogue); MathLowering.cpp the
// math warpgroups' K loop (wgmma, promotion, per-block scales).
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_CONVERSION_FGEMMTONVVM_KERNELLOWERING_H
#define FGEMM_CONVERSION_FGEMMTONVVM_KERNELLOWERING_H

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <functional>

namespace mlir::fgemm::detail {

/// How the epilogue stages a block_m x block_n output tile for TMA: in slabs
/// of `columns` columns, each stored by one TMA copy whose box is
/// {columns, block_m} and whose swizzle spans `swizzleBytes` (0: none), the
/// slab's row width. Swizzled, the math threads' 4-byte stores (lanes 4r..4r+3
/// write 16 bytes of row r, eight rows per instruction) hit 32 different
/// banks; a row-major tile block_n x 2 bytes wide put all eight rows on the
/// same four banks (8-way conflicts).
struct OutputStaging {
  int64_t columns = 0;
  int64_t swizzleBytes = 0;
};
inline OutputStaging getOutputStaging(int64_t blockN, int64_t elementBytes) {
  // The widest power-of-two slab of at most 128 bytes (TMA's widest swizzle)
  // that tiles block_n.
  int64_t rowBytes = blockN * elementBytes;
  int64_t slabBytes = std::min<int64_t>(128, rowBytes & -rowBytes);
  OutputStaging staging;
  staging.columns = slabBytes / elementBytes;
  staging.swizzleBytes = slabBytes >= 32 ? slabBytes : 0;
  return staging;
}

/// Name of the dynamic shared-memory array every kernel of a module uses.
inline constexpr StringLiteral kSharedMemoryName = "fgemm_smem";
/// The timeline knob's stamps (docs/TIMELINE.md): u64 %globaltimer values,
/// kTimelineSlots per role (entry, exit, then start, ready, first wgmmas and
/// end of tiles 0 .. kTimelineTiles - 1), kTimelineRoles roles per CTA, CTAs
/// 0 .. kTimelineCtas - 1, in the global kTimelineName; kTimelineShapeName
/// holds {CTAs, roles, slots} as i32 for the reader.
inline constexpr StringLiteral kTimelineName = "fgemm_timeline";
inline constexpr StringLiteral kTimelineShapeName = "fgemm_timeline_shape";
inline constexpr int64_t kTimelineCtas = 1024, kTimelineRoles = 4,
                         kTimelineTiles = 15,
                         kTimelineSlots = 2 + 4 * kTimelineTiles;
/// Size of a CUtensorMap (cuda.h: 128 bytes, 64-byte aligned).
inline constexpr int64_t kTensorMapBytes = 128;
/// Registers per thread at kernel entry: setmaxnreg needs a cap to move from.
/// The register file shared by the CTA's threads, rounded down to a multiple
/// of 8 and at most 248 (what DeepGEMM's launch bounds give: 168 for 384
/// threads, 248 for 256). A cap of 168 for 256 threads made ptxas put a
/// yield on every other promotion FFMA of the one-warpgroup kernels, which
/// DeepGEMM's 64-row kernels do not have (docs/PERF.md, twelfth session).
inline int64_t entryMaxRegisters(int64_t threads) {
  return std::min<int64_t>(248, 65536 / threads / 8 * 8);
}
/// Suspend-time hint of mbarrier.try_wait, in nanoseconds (CUTLASS's value).
inline constexpr int64_t kTryWaitTicks = 0x989680;
/// Named barrier the math warpgroups use among themselves (0 is __syncthreads).
inline constexpr int64_t kMathBarrierId = 1;
/// Named barrier of math warpgroup g alone: kMathBarrierId + 1 + g.
inline constexpr int64_t kWarpgroupBarrierBase = kMathBarrierId + 1;
/// Rows of a wave: one wgmma m64 accumulator, and the rows of one TMA store
/// of the epilogue (each math warpgroup stores its own waves' rows).
inline constexpr int64_t kWaveRows = 64;
/// Rows of the TMA boxes a wave the rows cut (a store with `rows`) goes out
/// in, tallest first: each a multiple of one swizzle pattern of the staged
/// slab (8 rows), so that every box starts on a whole pattern, as the
/// wave's box does; together they cover any multiple of 8 below kWaveRows.
inline constexpr int64_t kCutBoxRows[] = {32, 16, 8};
/// The rows of such a box's pattern: a cut wave's rows outside whole
/// patterns go out by the threads.
inline constexpr int64_t kCutPatternRows = 8;
/// Steps of a cut wave's copy by the threads whose staged pieces are read
/// before their stores are issued (copyOutRows).
inline constexpr int64_t kCopyBatch = 4;
/// The most copies of the K loop emitted for tiles that straddle scale
/// blocks, one per offset of the tile inside a block (lowerKLoop). At
/// block_n 192 two copies and one loop with shared selects ran alike; at 176
/// eight copies (150 KB of code) ran 2.5% slower than one loop (H100,
/// docs/PERF.md, thirty-second session).
inline constexpr int64_t kMaxStraddleCopies = 4;
/// Rows of the shortest TMA box a tile load that reaches past its source's
/// last row comes in (lowerRingPut): one 128-byte swizzle pattern of
/// 128-byte rows, so that each box lands where the whole tile's box puts its
/// rows.
inline constexpr int64_t kMinRowBoxRows = 8;
/// The most rows past its source's end a tile still loads with its whole
/// box, zero fill and all: each box costs about as much as 8-16 filled rows
/// (H200, per kernel against binary boxes from 8 rows past: 128x32 0.76-1.0,
/// 128x128 0.97-1.0 at 96-240 rows; 128x64 0.92-1.02, but 1.05-1.12 at
/// 112-120 x 7168 x 16384; docs/PERF.md, fortieth session).
inline constexpr int64_t kWholeBoxFillRows = 16;
/// Threads of a warp: fgemm.count_row_tiles sums this many groups per step.
inline constexpr int64_t kWarpSize = 32;
/// Registers the overlapped math loop needs besides its accumulators.
inline constexpr int64_t kOverlapRegisterReserve = 88;
/// WGMMA's K for 8-bit operands, in elements (= bytes).
inline constexpr int64_t kWgmmaK = 32;

/// Lowers one kernel. Values of the fgemm kernel are mapped as follows:
/// index scalars -> index; operand/scale tiles from the ring -> !llvm.ptr<3>
/// of their slot; per-block scale tiles -> f32; accumulator tiles -> the
/// wgmma accumulator struct (block_n / 2 f32 per thread).
class KernelLowering {
public:
  KernelLowering(KernelOp kernel, ModuleOp module)
      : kernel(kernel), module(module), config(kernel.getConfigAttr()),
        b(kernel.getContext()), loc(kernel.getLoc()) {}

  LogicalResult run();

private:
  // Small builders.
  Value constI32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value constIndex(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value toI32(Value v) {
    return v.getType().isIndex()
               ? arith::IndexCastOp::create(b, loc, b.getI32Type(), v)
               : v;
  }
  Value toIndex(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  Value mulI32(Value x, int64_t c) {
    return arith::MulIOp::create(b, loc, x, constI32(c));
  }
  /// A byte address in the dynamic shared memory.
  Value smemAt(Value byteOffsetI32) {
    return LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI8Type(),
        smemBase, ValueRange{byteOffsetI32});
  }
  Value smemAt(int64_t byteOffset) { return smemAt(constI32(byteOffset)); }
  /// full[stage] or empty[stage].
  Value barrierAt(bool empty, Value stage);
  void waitParity(Value barrier, Value parityI32);
  /// The tile's promoted accumulator: waves x block_n / 2 f32 per thread,
  /// wave w's fragment j at field w * block_n / 2 + j.
  Type accumulatorType();
  /// One wgmma m64nN partial sum of a column group: group_n / 2 f32 per
  /// thread.
  Type partialType();
  /// The accumulator's first field of wave `wave`'s column group `group`
  /// (the wave's fields in the m64n(block_n) layout, group_n / 2 a group).
  int64_t groupFirstField(int64_t wave, int64_t group) {
    return (wave * config.getColumnGroups() + group) * config.getGroupN() / 2;
  }
  /// The 64-row block of the tile that wave `wave` of this thread's math
  /// warpgroup owns: wave w of warpgroup g owns block w x math warpgroups +
  /// g (i32).
  Value waveBlock(int64_t wave) {
    return arith::AddIOp::create(b, loc, mathWg,
                                 constI32(wave * config.getMathWarpgroups()));
  }
  /// First of this thread's two rows of wave `wave` in the tile (the other
  /// is 8 below): wgmma's m64 accumulator layout puts lane l of warp q at row
  /// 16 q + l / 4 of the wave's 64-row block.
  Value accumulatorRow0(int64_t wave) {
    return arith::AddIOp::create(
        b, loc, warpRow0(wave),
        arith::DivUIOp::create(b, loc, lane, constI32(4)));
  }
  /// This thread's row `half` (0: accumulatorRow0, 1: 8 below it) of wave
  /// `wave` in the tile.
  Value accumulatorRow(int64_t wave, int64_t half) {
    return arith::AddIOp::create(b, loc, accumulatorRow0(wave),
                                 constI32(8 * half));
  }
  /// First row of this warp's 16 in wave `wave`: 16 q of the wave's 64-row
  /// block.
  Value warpRow0(int64_t wave) {
    // The row block first: this op order gives the PTX the H100 checked.
    Value rows = mulI32(waveBlock(wave), 64);
    return arith::AddIOp::create(b, loc, rows, mulI32(warpInWg, 16));
  }
  /// Empties a new scf.for body (the builder adds a yield only without
  /// iter_args) and points the builder at it; the caller adds the yield.
  void openLoopBody(scf::ForOp forOp) {
    Block *body = forOp.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      body->back().erase();
    b.setInsertionPointToEnd(body);
  }
  /// A copy of `v` that LLVM cannot hoist or sink (a side-effecting
  /// `mov`): values derived from it stay where they are computed.
  Value pinned(Value v);
  /// The staged output tile: block_n / w slabs of w columns, slab s at
  /// s x block_m x w elements, each row-major with TMA's swizzle of its row
  /// width (outputStaging). Byte offset of element (row, col) of a tile of
  /// `elementBytes`-byte elements, i32 values.
  Value stagedOffset(Value row, Value col, int64_t elementBytes);
  /// After the barrier inits and their fence.mbarrier_init.release.cluster:
  /// a relaxed cluster arrive suffices (the PTX ISA's pattern for publishing
  /// mbarrier inits; DeepGEMM's too). The release arrive made ptxas add a
  /// MEMBAR.ALL.GPU and an ERRBAR at every CTA's start: 3% of the warp
  /// samples of a 25-us masked kernel (H100, docs/PERF.md).
  void clusterSyncAfterBarrierInit() {
    NVVM::ClusterArriveRelaxedOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }

  LogicalResult buildFunction();
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation &op);
  LogicalResult lowerRingCreate(RingCreateOp op);
  LogicalResult lowerWarpSpecialize(WarpSpecializeOp op);
  LogicalResult lowerKLoop(KLoopOp op);
  /// L2 prefetches of the tiles the epilogue after math loop `op` reads.
  void prefetchEpilogueReads(KLoopOp op);
  /// Epilogue vectors staged in shared memory (stageEpilogueVectors): their
  /// byte offsets; whether this tile's copies are still to be waited for.
  DenseMap<Operation *, int64_t> stagedVectors;
  bool vectorsPending = false;
  int64_t vectorOffset = 0;
  /// The producer's last wait for every slot of a cluster's ring, after
  /// `numBlocks` puts.
  void drainClusterRing(Value numBlocks);
  /// Whether the lowered tile loop `op` is a cluster producer's, which
  /// drains the ring after it (drainClusterRing).
  bool drainsAfter(TileLoopOp op) {
    return config.getCluster() > 1 &&
           op.getBody()
               .walk([](RingPutOp) { return WalkResult::interrupt(); })
               .wasInterrupted();
  }
  /// The K loop as one scf.for, the per-block scales `staged` staged in
  /// shared memory chunk by chunk; returns the values of the op's results.
  FailureOr<SmallVector<Value>> buildKLoop(KLoopOp op, Value numBlocks,
                                           ArrayRef<LoadScalesOp> staged);
  /// buildKLoop for a math loop; where the loop's `rows` can leave a math
  /// warpgroup none of its stored rows, that warpgroup runs a copy of the
  /// loop that only drains the ring (drainsOnly) and yields undefined
  /// values.
  FailureOr<SmallVector<Value>> buildMathLoop(KLoopOp op, Value numBlocks,
                                              ArrayRef<LoadScalesOp> staged);
  /// Set while the drain copy of a math loop is emitted: each K block waits
  /// for its operands, runs the first block's hooks and the scale staging
  /// (the other warpgroups' barriers count on them) and releases the slot,
  /// but issues no wgmma and promotes nothing (lowerScaledDot).
  bool drainsOnly = false;
  /// Set while either copy of such a loop is emitted; a barrier of all math
  /// warpgroups emitted meanwhile sets sharedBarrierInCopies, which
  /// buildMathLoop refuses (bar.sync is .aligned: its threads must all run
  /// the same instruction, and the warpgroups run different copies).
  bool inWarpgroupCopies = false, sharedBarrierInCopies = false;
  /// One K block `kb` of the loop's body with its arguments `args`; the
  /// values it yields. `inLoop` is kb less the loop's first block (the
  /// scale staging counts chunks from there).
  FailureOr<SmallVector<Value>> emitKBlock(KLoopOp op, Value kb, Value inLoop,
                                           ValueRange args,
                                           ArrayRef<LoadScalesOp> staged);
  LogicalResult lowerTileLoop(TileLoopOp op);
  /// The store a persistent math tile loop defers by one tile
  /// (overlap_epilogue), or null.
  StoreOp getDeferredStore(TileLoopOp op);
  /// Values of `store`'s operands a deferred store carries to the next tile
  /// (the accumulator, then its indices and row bounds).
  static SmallVector<Value> getDeferredOperands(StoreOp store);
  /// Emits deferred `store` on `carried` (getDeferredOperands' values, then
  /// the flag "a tile is pending") under that flag.
  LogicalResult emitDeferredStore(StoreOp store, ValueRange carried);
  /// Emitted after tile loop `op` (at the insertion point): the math role's
  /// last TMA store must have read its staging tile before the CTA exits.
  void waitForLastStore(TileLoopOp op);
  /// A `split_k` tile loop (StreamKLowering.cpp).
  LogicalResult lowerSplitTileLoop(TileLoopOp op);
  LogicalResult lowerCombineKPieces(CombineKPiecesOp op);
  /// A CTA's workspace slot: a flag word, then its published partial tile.
  int64_t workspaceBytesPerCta();
  /// Byte `offset` of the slot of the CTA of this CTA's rank in cluster
  /// `cluster` (index; a CTA without a cluster), a global pointer.
  Value workspaceSlot(Value cluster, int64_t offset);
  /// fgemm.combine_k_split (KSplitLowering.cpp) and the two barriers a
  /// K-split cluster's shares meet at (ready on rank 0, done on the others).
  LogicalResult lowerCombineKSplit(CombineKSplitOp op);
  Value kSplitBarrier(bool done);
  void initKSplitBarriers();
  void waitClusterBarrier(Value barrier);
  /// Fields 4v .. 4v + 3 of accumulator struct `acc` as a vector<4xf32>
  /// (a 16-byte store of a thread's fragments), and `acc` with such a
  /// vector added to them (StreamKLowering.cpp).
  Value fragmentVector(Value acc, int64_t v);
  Value addFragmentVector(Value acc, int64_t v, Value vec);
  /// Inline PTX without results.
  void emitAsm(StringRef text, StringRef constraints, ValueRange operands);
  /// The split tile loop being lowered (index values): the CTA, the grid,
  /// the units of the split tiles, K blocks per tile, and the current
  /// piece's tile, first K block and number of K blocks.
  struct SplitSchedule {
    /// `cta` / `ctas` count clusters; `rank` is the CTA's in its cluster
    /// (null without one); `tile` is the cluster's unit.
    Value cta, rank, ctas, units, kBlocks, tile, first, blocks;
  };
  SplitSchedule split;
  /// The launch's workspace (global pointer; kernels that combine pieces).
  Value workspace;
  /// The launch's raster group (index; launch_raster kernels).
  Value rasterGroup;
  LogicalResult lowerRingPut(RingPutOp op);
  /// The element coordinates of `tile`'s whole box in its tensor map
  /// ({column, row} and the group, i32).
  SmallVector<Value> tileCoords(LoadOp tile);
  /// TMA copies of tile `tile` into the slot at `dst`, completing on `full`:
  /// its whole box, or this CTA's part multicast to the cluster.
  void loadTile(LoadOp tile, Value dst, Value full);
  /// One TMA copy of `desc`'s box at element coordinates `at` to `to`,
  /// completing on `full`; with `mask`, multicast to those CTAs.
  void loadBox(Value to, Value desc, ArrayRef<Value> at, Value full,
               Value mask);
  /// Bytes of one row of `load`'s tile.
  int64_t tileRowBytes(LoadOp load) {
    TileType tile = load.getResult().getType();
    return extent(tile.getDims()[1]) *
           tile.getElementType().getIntOrFloatBitWidth() / 8;
  }
  /// TMA copies of the MN-major scales `scales` into the slot at `dst`, as
  /// loadTile: their whole box, or this CTA's part multicast.
  void loadScales(LoadScalesOp scales, Value dst, Value full);
  /// The multicast copies of a box shared by the cluster, `rows` rows long
  /// (coordinate `rowCoord` of `coords`) of `rowBytes` each, into the slot
  /// at `dst`: this CTA's 1/cluster of the rows into every CTA, or where
  /// `multicastIf` does not hold every part into this CTA (loadParts).
  void loadSharedRows(Value dst, Value desc, ArrayRef<Value> coords,
                      unsigned rowCoord, int64_t rows, int64_t rowBytes,
                      Value full, Value multicastIf);
  /// `loadPart(j, mask)` for the parts of a tile the CTAs of a cluster
  /// share: this CTA's (j = its rank) into every CTA (`mask`); where
  /// `multicastIf` (the load's multicast_if, if any) does not hold, every
  /// part into this CTA only.
  void loadParts(Value multicastIf, function_ref<void(Value, Value)> loadPart);
  /// The first `patterns` kMinRowBoxRows-row patterns of `tile` (i32),
  /// likewise, in boxes of rowBoxHeights' rows (rowBoxParams' maps): one box
  /// per binary digit of the count.
  void loadRowBoxes(LoadOp tile, Value dst, Value full, Value patterns);
  /// The boxes of [rowBase, rowBase + patterns x kMinRowBoxRows) of `tile`,
  /// into this CTA's slot or, with `mask`, every CTA's (i32 values).
  void loadRowBoxRange(LoadOp tile, Value dst, Value full, Value rowBase,
                       Value patterns, Value mask);
  LogicalResult lowerRingGet(RingGetOp op);
  LogicalResult lowerRingRelease(Value stage);
  LogicalResult lowerLoadScales(LoadScalesOp op);
  /// Loads `op`'s per-tensor scales before the loop (marked preloaded).
  LogicalResult preloadTensorScales(KLoopOp op);
  /// Where a tile's per-block scales are in global memory (lowerLoadScales).
  struct BlockScaleSource {
    Value kBlocks, groupBase, lastBlock, firstRow, firstBlock; // i32
    int64_t numBlocks = 0;         // blocks the tile spans
    std::optional<int64_t> offset; // firstRow % 128 when known
    int64_t offsetStep = 128;      // firstRow % 128 is a multiple of it
  };
  FailureOr<BlockScaleSource> blockScaleSource(LoadScalesOp op);
  Value loadBlockScale(LoadScalesOp op, const BlockScaleSource &source,
                       Value relativeBlock, Value kb);
  /// The math threads copy the scales of K blocks [chunkStart, chunkStart +
  /// kScaleChunkBlocks) of `op`'s tile to staged words [word, word +
  /// blocks spanned).
  void stageBlockScales(LoadScalesOp op, Value chunkStart, int64_t word);
  /// Math threads taking part in a staging.
  int64_t stagers() const;
  /// The entries a prefetch of `op`'s first chunk covers (every staged word
  /// of the tile's largest span).
  int64_t prefetchedEntries(LoadScalesOp op);
  /// Calls `forEntry` for each of the first `entries` staged entries of the
  /// chunk at `chunkStart` this thread copies, in order: whether it copies
  /// it (inside the K blocks and a stager), its relative block j, its block
  /// c in the chunk and its K block.
  void forEachStagedEntry(
      int64_t entries, Value chunkStart, Value kBlocks,
      function_ref<void(Value inside, Value j, Value c, Value kb)> forEntry);
  /// The values stageBlockScales would copy for the chunk at `chunkStart`
  /// (every staged word of the tile's largest span; 0 where it copies none),
  /// loaded now: the next tile's, prefetched (prefetchTile).
  SmallVector<Value> loadStagedScales(LoadScalesOp op, Value chunkStart);
  /// Shared-memory address of staged word `word`'s relative block j, chunk
  /// block c.
  Value stagedScaleAddress(Value j, Value c, int64_t word);
  /// stageBlockScales with the values loadStagedScales gave.
  void storeStagedScales(LoadScalesOp op, Value chunkStart, int64_t word,
                         ArrayRef<Value> values);
  /// The per-block scales `op`'s math threads stage (not TMA loads, not per
  /// tensor, indexed by the loop's K block).
  SmallVector<LoadScalesOp> stagedScales(KLoopOp op);
  /// prefetch_scales: what a persistent math tile loop computes for the next
  /// tile during the current one.
  struct PrefetchedTile {
    /// The body's tile order (its top-level index arithmetic and layout
    /// lookups from the loop's tile and iteration).
    llvm::SetVector<Operation *> order;
    /// The order's values the rest of the body uses.
    SmallVector<Value> carried;
    /// The staged scales whose first chunk is loaded ahead, and the values
    /// each thread loads of each.
    SmallVector<LoadScalesOp> scales;
    SmallVector<size_t> scaleCounts;
  };
  /// The prefetch of `staged`'s tile loop; an error where the staged scales'
  /// tile indices come from more than the tile order.
  FailureOr<PrefetchedTile> planPrefetchedTile(TileLoopOp op,
                                               ArrayRef<LoadScalesOp> staged);
  /// The carried order values, then the first-chunk staged scales, of the
  /// tile loop's tile `tile` (iteration `iteration`), computed and loaded
  /// here by the math threads; zeros past the loop's tiles.
  FailureOr<SmallVector<Value>> prefetchTile(TileLoopOp op,
                                             const PrefetchedTile &prefetch,
                                             Value iteration, Value tile);
  /// A stack slot (newStackSlot) for a value of `type` (index as i32), and
  /// its store and load.
  Value newStackSlotFor(Type type);
  void storeToSlot(Value value, Value slot);
  Value loadFromSlot(Type type, Value slot);
  /// `op`'s scales of the chunk's block `chunkBlock`, read from the staging.
  void readStagedScales(LoadScalesOp op, Value chunkBlock, int64_t word);
  bool isFirstStagingOrdered(KLoopOp op);
  /// bar.sync of the math warpgroups.
  void mathBarrier() {
    if (inWarpgroupCopies && config.getMathWarpgroups() > 1)
      sharedBarrierInCopies = true;
    NVVM::BarrierOp::create(b, loc, Type(), constI32(kMathBarrierId),
                            constI32(128 * config.getMathWarpgroups()), nullptr,
                            Value());
  }
  /// The staged scales this thread reads (shared-memory offset, i32): the
  /// math warpgroups' one copy, or with decoupledWarpgroups its own.
  Value warpgroupScales();
  /// bar.sync of this thread's math warpgroup only. With two warpgroups
  /// the id is in a register (ptxas then reserves all 16 named barriers,
  /// which a persistent CTA, alone on its SM, can spare): a branch per
  /// warpgroup with constant ids had made ptxas spill the 256x128 pairs
  /// specialized for N and K.
  void warpgroupBarrier();
  /// This thread's index in its math warpgroup (i32, 0-127).
  Value threadInWarpgroup() {
    return arith::AddIOp::create(b, loc, mulI32(warpInWg, 32), lane);
  }
  /// Whether this thread is its math warpgroup's first (i1): the one that
  /// issues, and waits for, the warpgroup's TMA stores.
  Value isWarpgroupLeader() {
    return arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpInWg,
                              constI32(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                              constI32(0)));
  }
  LogicalResult lowerScaledDot(ScaledDotOp op, RingReleaseOp fusedRelease);
  FailureOr<Value> issueDot(ScaledDotOp op, int64_t wave, int64_t group,
                            Value previous);
  FailureOr<std::pair<Value, Value>> loadRowScales(ScaledDotOp op,
                                                   int64_t wave);
  FailureOr<Value>
  promoteDot(ScaledDotOp op, Value partial, Value acc, RingReleaseOp release,
             int64_t wave, int64_t group,
             std::optional<std::pair<Value, Value>> rowScales = std::nullopt);
  LogicalResult lowerOverlappedDotLoop(KLoopOp op, ScaledDotOp dot);
  Value fenceFields(Value value, int64_t first, int64_t count);
  LogicalResult lowerStore(StoreOp op);
  int64_t outputElementBytes(StoreOp op);
  /// Write the accumulator `acc` to the staging in shared memory, in slabs
  /// of w columns.
  void stageBf16Tile(Value acc, int64_t w);
  void stageF32Tile(Value acc, int64_t w);
  /// fgemm.read_tile: this thread's elements of the tile or vector (zeros
  /// where the store accumulates into the tile's own buffer).
  LogicalResult lowerReadTile(ReadTileOp op);
  LogicalResult loadReadTile(ReadTileOp op);
  Value packFields(ArrayRef<Value> fields);
  void stageEpilogueVectors(KLoopOp op);
  LogicalResult readStagedVector(ReadTileOp op, int64_t offset);
  LogicalResult lowerCast(CastOp op);
  /// fgemm.add / fgemm.mul, field by field (a vector rhs broadcast).
  LogicalResult lowerElementwise(Operation *op, Value lhs, Value rhs,
                                 bool multiply);
  /// One TMA copy (or reduce-add) per staged slab of the output rows from
  /// `outputRow` on, in `map`'s boxes (the whole wave's or a cut wave's),
  /// read at `rowBytes` + `extraBytes` into each slab.
  void storeStagedRows(StoreOp op, Value map, Value coordN, Value outputRow,
                       Value rowBytes, int64_t extraBytes, bool reduce);
  /// Each math warpgroup's leader waits until TMA has read the rows its last
  /// stores took from the staged output tile.
  void waitForOutputRead();
  /// Stores this warpgroup's waves of a staged output tile that the rows
  /// [rowsBegin, rowsEnd) cut: a wave wholly inside them in its usual boxes,
  /// the whole 8-row patterns of a cut one in kCutBoxRows' boxes (the
  /// leader, cutBoxParams' maps), the few rows left at its ends by the
  /// threads (copyOutRows).
  void storeCutRows(StoreOp op, Value rowsBegin, Value rowsEnd);
  /// Wave `wave`'s rows of this warpgroup inside [rowsBegin, rowsEnd), as
  /// [lo, hi) from the wave's first row; their whole kCutPatternRows-row
  /// patterns likewise, [boxLo, boxHi) (empty where boxLo >= boxHi); and
  /// whether the wave is wholly inside.
  struct CutWave {
    Value lo, hi, boxLo, boxHi, whole;
  };
  CutWave cutWave(StoreOp op, int64_t wave, Value rowsBegin, Value rowsEnd);
  /// Copies the rows of this warpgroup's waves of the staged output tile
  /// that are inside [rowsBegin, rowsEnd) but outside [boxLo, boxHi)
  /// (cutWave) to global memory, 16 bytes per thread and step.
  void copyOutRows(StoreOp op, Value rowsBegin, Value rowsEnd);
  LogicalResult lowerZeroRows(ZeroRowsOp op);
  /// The index entries of the thread's rows of `op` per (wave, half).
  SmallVector<Value> loadZeroRowEntries(ZeroRowsOp op);
  /// Loads, before math loop `op`, the entries of every fgemm.zero_rows
  /// after it (preloadedRowEntries).
  void preloadZeroRowEntries(KLoopOp op);
  /// zero_rows op -> its index entries per (wave, half), loaded before the
  /// math loop so that the epilogue does not wait for them.
  DenseMap<Operation *, SmallVector<Value>> preloadedRowEntries;
  LogicalResult lowerFindGroup(FindGroupOp op);
  LogicalResult lowerFindPieceGroup(FindPieceGroupOp op);
  LogicalResult lowerCountRowTiles(CountRowTilesOp op);
  LogicalResult lowerFindRowTileGroup(FindRowTileGroupOp op);
  /// find_row_tile_group's cache (i32 stack slots): the group found last,
  /// its first row tile, its end and its rows.
  struct RowTileCache {
    Value group, start, end, rows;
  };
  RowTileCache rowTileCacheFor(FindRowTileGroupOp op);
  /// Keyed by the counts, limit, block and pair and tail units (null: row
  /// tiles).
  SmallVector<std::tuple<Value, Value, uint64_t, Value, Value, RowTileCache>>
      rowTileCaches;
  /// A stack slot of `type` at the kernel's entry: a value set on one path
  /// and read on another, which LLVM turns into registers (mem2reg).
  Value newStackSlot(Type type);
  /// clamp(sizes[g], 0, limit) (i32 values).
  Value groupRowsOf(Value sizes, Value g, Value limit);
  /// ceil(clamp(sizes[g], 0, limit) / block) (i32 values).
  Value rowTilesOf(Value sizes, Value g, Value limit, int64_t block);
  template <typename RowTileOp>
  Value groupUnitsOf(RowTileOp op, Value g, Value limit);
  /// The first i in [lo, hi) where `past(i)` holds (hi if none), for a
  /// predicate that holds from some i on (i32 values; a binary search).
  Value binarySearch(Value lo, Value hi, function_ref<Value(Value)> past);
  /// Entry i of a 1-D i32 tensor passed as a pointer.
  Value loadEntry(Value tensor, Value i);
  /// The K loop's trip count: its `blocks` operand, else ceil(dim / bk).
  FailureOr<Value> kLoopBlocks(KLoopOp op);

  Value lookup(Value v) { return mapping.lookup(v); }
  int64_t extent(StringAttr symbol) {
    return getTileDimExtent(symbol.getValue(), config);
  }
  /// The value a dimension symbol is compiled in with (fgemm-specialize), 0
  /// where it comes with the launch.
  int64_t fixedDim(StringRef name) {
    return name == "n"   ? config.getFixedN()
           : name == "k" ? config.getFixedK()
                         : 0;
  }
  /// Whether a tile load may reach past its source's last row (a row count
  /// that comes with the launch, or a compiled-in one the tile's rows do not
  /// divide) and its rows are whole swizzle patterns of kMinRowBoxRows rows:
  /// then such a tile comes in boxes up to that row (rowBoxHeights).
  bool mayEndInsideTile(LoadOp load);
  /// The rows of the boxes such a tile comes in, tallest first: the powers
  /// of two from kMinRowBoxRows below its rows (or up to the rows each CTA
  /// of a cluster multicasts), so that any whole number of patterns is one
  /// box per binary digit.
  SmallVector<int64_t> rowBoxHeights(LoadOp load);

  KernelOp kernel;
  ModuleOp module;
  ConfigAttr config;
  OpBuilder b;
  Location loc;
  LLVM::LLVMFuncOp func;
  DenseMap<Value, Value> mapping;
  /// Kernel argument -> its TMA descriptor (generic pointer to the param).
  DenseMap<Value, Value> argParams;
  /// The TMA descriptor parameters the kernel prefetches, in parameter
  /// order.
  SmallVector<Value> tensorMapParams;
  /// Output a store cuts by rows -> its TMA descriptors of kCutBoxRows'
  /// boxes, in that order (storeCutRows).
  DenseMap<Value, SmallVector<Value>> cutBoxParams;
  /// Tile source that may end inside a tile -> (rows, TMA descriptor) of
  /// rowBoxHeights' boxes, in that order (lowerRingPut).
  DenseMap<Value, SmallVector<std::pair<int64_t, Value>>> rowBoxParams;
  /// Kernel argument -> its global pointer, for arguments the threads read
  /// or write directly.
  DenseMap<Value, Value> argPointers;
  /// Dimension symbol -> its runtime value (index).
  llvm::StringMap<Value> dims;
  Value smemBase;
  /// Low word of a wgmma descriptor of the shared-memory base (start address
  /// field (base & 0x3FFFF) >> 4, leading byte offset 1); a tile at byte
  /// offset o adds o >> 4.
  Value descriptorBase;
  /// Ring slot pointer (from ring.get) -> its descriptor low word, computed
  /// before the slot's barrier wait so that only an add is left after it.
  DenseMap<Value, Value> slotDescriptors;
  // Shared-memory plan, read from fgemm.ring.create.
  int64_t stages = 0, barrierOffset = 0, outputOffset = 0, scaleOffset = 0,
          smemBytes = 0;
  SmallVector<int64_t> slotOffsets, slotStrides, slotBytes;
  // Thread coordinates inside the math warpgroups (i32), set by
  // warp_specialize.
  Value mathTid, mathWg, warpInWg, lane;
  Operation *skipOp = nullptr; // a ring.release fused into the preceding dot
  /// prefetch_scales: the body's tile-order ops, whose values come from the
  /// previous tile (prefetchTile) instead.
  DenseSet<Operation *> carriedOrderOps;
  /// The scf.if the kernel's remaining work runs in (fgemm.skip_tile_if).
  Operation *skippedTile = nullptr;
  /// Per-block scale loads lowered by the K loop (read from the staging).
  llvm::SmallPtrSet<Operation *, 4> preloaded;
  /// Set while re-deriving a ring entry's slots whose full barrier was
  /// already waited on (the overlapped dot loop's promotion half).
  bool reuseRingEntry = false;
  /// Set while the math loop's first K block is emitted: its promotion
  /// writes the accumulator instead of adding to it.
  bool firstKBlock = false;
  /// The math loop's last finished wgmma partial sum: the next K block's
  /// first wgmma takes it as its (ignored, scale-d 0) input, so that every
  /// block's partial sum is tied to one set of registers (buildKLoop carries
  /// it around the loop); null: a fresh one.
  Value lastPartial;
  /// Set for a math loop whose tile's first scale staging needs no barrier
  /// before it (isFirstStagingOrdered).
  bool firstStagingOrdered = false;
  /// Persistent math tile loops: the current tile's first-chunk staged
  /// scales, loaded during the previous tile (prefetchTile), per
  /// staged op; empty: the first staging loads them.
  SmallVector<SmallVector<Value>> carriedTileScales;
  /// Set in tile loops: the scale staging leaves out the warp that issues
  /// TMA stores (math threads 0-31; with decoupledWarpgroups each
  /// warpgroup's own), whose loads would otherwise start after the previous
  /// tile's stores (DeepGEMM leaves it out too).
  bool stagingSkipsStoreWarp = false;
  /// Set by the loads of a tile loop's first staging (under the tile's
  /// first wgmmas): stores them to shared memory and reads this block's
  /// scales; promoteDot runs it once the wgmmas are done, after releasing
  /// the slot.
  std::function<void()> beforeFirstPromotion;
  /// Runs beforeFirstPromotion, if set, once.
  void runBeforeFirstPromotion() {
    if (!beforeFirstPromotion)
      return;
    std::function<void()> stageScales = std::move(beforeFirstPromotion);
    beforeFirstPromotion = nullptr;
    stageScales();
  }
  /// Set while a persistent math tile loop's body is lowered where the ring
  /// plan decouples the math warpgroups (planDecoupledWarpgroups): the scale
  /// staging and the epilogue then use each warpgroup's own barrier and
  /// scale copy, and a warpgroup runs into its next tile while the other
  /// still finishes this one (the ring bounds how far).
  bool decoupledWarpgroups = false;
  /// The ring plan's decoupled_warpgroups: fgemm-pipeline-tma's decision
  /// (decouplesMathWarpgroups: nothing else the math warpgroups share per
  /// tile), which also sized the staged scales for it.
  bool planDecoupledWarpgroups = false;
  /// Bytes of one math warpgroup's copy of the staged scales.
  int64_t warpgroupScaleBytes = 0;
  /// The barrier that orders the scale staging and the epilogue: the math
  /// warpgroups' (mathBarrier), or this warpgroup's (decoupledWarpgroups).
  void stagingBarrier() {
    if (decoupledWarpgroups)
      warpgroupBarrier();
    else
      mathBarrier();
  }
  /// overlap_epilogue: while a persistent math tile loop's body is lowered,
  /// emits the previous tile's store (and then the first block's scale
  /// staging, which the store's barriers order after the previous tile's
  /// reads) once the first K block's first wgmmas are issued. Run on every
  /// path through that block (lowerScaledDot; a tile of no K blocks).
  std::function<LogicalResult()> firstBlockHook;
  /// The tile loop's store, which firstBlockHook emits one tile late.
  StoreOp deferredStore;
  int64_t firstBlockHookRuns = 0;
  /// prefetch_scales: while a persistent math tile loop's body is lowered,
  /// loads the next tile's first staged scales, on the same paths, after
  /// firstBlockHook.
  std::function<LogicalResult()> nextTileHook;
  int64_t nextTileHookRuns = 0;
  /// The timeline knob's events (docs/TIMELINE.md). TileReady: the tile's
  /// order and first scale staging done, before its first ring wait (math:
  /// the full barrier; producer: its K loop's start).
  enum class TimelineEvent {
    Entry,
    Exit,
    TileStart,
    TileReady,
    TileFirstWgmma,
    TileEnd
  };
  /// The role's row of a CTA's stamps (0 the producer, 1 + w math
  /// warpgroup w; i32), the CTA's linear index (i32, computed once per
  /// role) and, while a tile loop's body is lowered, its iteration (index).
  Value timelineRole, timelineCta, timelineTile;
  bool timelineMathRole = false;
  /// Lowers one warp role's block between its timeline's entry and exit.
  LogicalResult lowerRole(Block &role);
  /// Writes %globaltimer to the event's slot: the producer's one thread or
  /// a math warpgroup's first thread, of CTAs 0 .. kTimelineCtas - 1, tiles
  /// 0 .. kTimelineTiles - 1. Nothing without the knob.
  void stampTimeline(TimelineEvent event);
  /// Runs firstBlockHook and nextTileHook where set (and counts the runs).
  LogicalResult runFirstBlockHook() {
    stampTimeline(TimelineEvent::TileFirstWgmma);
    if (firstBlockHook) {
      ++firstBlockHookRuns;
      if (failed(firstBlockHook()))
        return failure();
    }
    if (!nextTileHook)
      return success();
    ++nextTileHookRuns;
    return nextTileHook();
  }
  /// setmaxnreg of the math warpgroups (from fgemm.warp_specialize).
  int64_t consumerRegs = 0;
  /// Per-block scales of a tile: the values of the blocks it spans.
  struct BlockScales {
    Value firstRow;            // i32: first row (column of D) of the tile
    SmallVector<Value> values; // f32, one per 128-row block spanned
    /// firstRow % 128 when known at compile time (values then holds exactly
    /// the blocks spanned).
    std::optional<int64_t> offset;
    /// firstRow % 128 is a multiple of this (tiles start at multiples of
    /// their rows).
    int64_t offsetStep = 128;
  };
  DenseMap<Value, BlockScales> blockScales;
  /// Stores of `x + read_tile(C)` -> whether C is the destination's buffer
  /// (i1): then the addend read as zeros and the tile goes out by TMA
  /// reduce-add.
  DenseMap<Operation *, Value> accumulatingStores;
  /// Per-block scales whose tile's offset inside a 128-row scale block is
  /// known where they are lowered (the K loop copy for that offset).
  DenseMap<Value, int64_t> knownScaleOffsets;
  Value fragmentScale(const BlockScales &scales, int64_t i);
};

} // namespace mlir::fgemm::detail

#endif // FGEMM_CONVERSION_FGEMMTONVVM_KERNELLOWERING_H
