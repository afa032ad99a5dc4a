//===- SharedMemoryPlan.h - tile sizes and shared-memory layout --*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H
#define FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H

#include "dialect/Transforms.h"

namespace mlir::fgemm {

/// Whether `op` is a load the TMA engine does: an FP8 operand tile, or the
/// MN-major per-row scales that travel with it.
bool isTmaLoad(Operation *op);

/// Whether `op` is a load of per-block scales (128 x 128 blocks: a few words
/// per tile) for its K loop's own block, at indices fixed before the loop:
/// the producer copies them into the ring slot with the operand tiles, so
/// the math threads never wait on global memory for them. (The math
/// threads' load_scales `from` the slot is not one.)
bool isRingScaleLoad(Operation *op);

/// The loads the producer puts into the ring, in slot order: the K loop
/// body's TMA loads, then its ring scale loads.
SmallVector<Operation *> getRingLoads(Block &kLoopBody);

/// The 128-row scale blocks a tile of `rows` rows can span: one when `rows`
/// divides 128, else ceil(rows / 128) + 1 (tiles straddle blocks).
int64_t getScaleBlocksSpanned(int64_t rows);

/// Bytes of `read`'s staging in shared memory: a 1-D fgemm.read_tile (an
/// epilogue vector, copied in during the main loop; see
/// docs/DSL.md, "Epilogues") takes its tile's elements rounded up to 16
/// bytes; other reads take none.
int64_t getEpilogueVectorBytes(ReadTileOp read, ConfigAttr config);
/// The sum of getEpilogueVectorBytes over `kernel`'s reads.
int64_t getEpilogueVectorBytes(Operation *kernel, ConfigAttr config);

/// Lays out `stages` slots for every load in `slotLoads` (getRingLoads),
/// then the epilogue tile of `outputTile`'s shape in `outputElement`, then
/// the mbarriers, then `vectorBytes` of staged epilogue vectors (16-byte
/// aligned; the ring plan attribute records them past its (empty) scale
/// area).
SharedMemoryPlan planSharedMemory(ArrayRef<Operation *> slotLoads,
                                  TileType outputTile, Type outputElement,
                                  int64_t vectorBytes, ConfigAttr config);

} // namespace mlir::fgemm

#endif // FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H
