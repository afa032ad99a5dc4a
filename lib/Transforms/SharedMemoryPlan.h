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

/// Lays out `stages` slots of every type in `slotTypes`, then the epilogue
/// tile of `outputTile`'s shape in `outputElement`, then the mbarriers.
SharedMemoryPlan planSharedMemory(ArrayRef<TileType> slotTypes,
                                  TileType outputTile, Type outputElement,
                                  ConfigAttr config);

} // namespace mlir::fgemm

#endif // FGEMM_TRANSFORMS_SHAREDMEMORYPLAN_H
