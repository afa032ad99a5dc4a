//===- SharedMemoryPlan.h - tile sizes and shared-memory layout --*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H
#define FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H

#include "dialect/Transforms.h"

namespace mlir::fgemm {

/// Whether `op` is a load the TMA engine does: an FP8 operand tile, or the
/// MN-major per-row scales that travel with it. Other loads (per-block scales)
/// are a few words the math threads read themselves.
bool isTmaLoad(Operation *op);

/// K blocks whose per-block scales the math threads stage in shared memory
/// at a time (the K loop re-stages every this many blocks).
inline constexpr int64_t kScaleChunkBlocks = 128;

/// The 128-row scale blocks a tile of `rows` rows can span: one when `rows`
/// divides 128, else ceil(rows / 128) + 1 (tiles straddle blocks).
int64_t getScaleBlocksSpanned(int64_t rows);

/// Tiles of `rows` rows start at multiples of `rows`, so their offset inside
/// a 128-row scale block is a multiple of gcd(rows, 128): 128 / this many
/// offsets occur.
int64_t getScaleOffsetStep(int64_t rows);

/// Scale words per K block the math threads of `kernel` stage: the blocks
/// each per-block scales load (not a TMA load) can span.
int64_t getStagedScaleWords(Operation *kernel, ConfigAttr config);

/// Bytes of `read`'s staging in shared memory: a 1-D fgemm.read_tile (an
/// epilogue vector, copied in during the main loop; see
/// docs/DSL.md, "Epilogues") takes its tile's elements rounded up to 16
/// bytes; other reads take none.
int64_t getEpilogueVectorBytes(ReadTileOp read, ConfigAttr config);
/// The sum of getEpilogueVectorBytes over `kernel`'s reads.
int64_t getEpilogueVectorBytes(Operation *kernel, ConfigAttr config);

/// Whether the math warpgroups of `kernel` never meet per tile: a
/// persistent tile loop (not stream-K) with two or more math warpgroups, no
/// k_split, no deferred store (overlap_epilogue) and no staged epilogue
/// vectors (fgemm.read_tile). Each then stages its own copy of the per-block
/// scales and the staging and the epilogue use each warpgroup's own barrier, so
/// one runs into its next tile while the other still finishes this one.
bool decouplesMathWarpgroups(Operation *kernel, ConfigAttr config);

/// Lays out `stages` slots of every type in `slotTypes`, then the epilogue
/// tile of `outputTile`'s shape in `outputElement`, then the mbarriers, then
/// kScaleChunkBlocks K blocks of `scaleWords` staged f32 scales (a copy per
/// math warpgroup where `decoupled`, decouplesMathWarpgroups), then
/// `vectorBytes` of staged epilogue vectors (16-byte aligned; the ring plan
/// attribute records them as the bytes past its scales).
SharedMemoryPlan planSharedMemory(ArrayRef<TileType> slotTypes,
                                  TileType outputTile, Type outputElement,
                                  int64_t scaleWords, int64_t vectorBytes,
                                  bool decoupled, ConfigAttr config);

} // namespace mlir::fgemm

#endif // FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H
