//===- Transforms.h - fgemm transformations as library calls -----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every pass is a thin wrapper over one of these entry points, so the JIT and
// tests can call the transformations directly.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_TRANSFORMS_H
#define FGEMM_DIALECT_TRANSFORMS_H

#include "dialect/FgemmOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fgemm {

/// Shared memory a CTA may use on sm_90 (227 KiB).
constexpr int64_t kMaxSharedMemoryBytes = 232448;

/// Checks `config` against the hardware rules, resolves its "choose for me"
/// values (stages = 0, math_warpgroups = 0) and attaches `#fgemm.config`.
LogicalResult specializeKernel(KernelOp kernel, const KernelConfig &config);

/// Replaces the kernel's tile space by the schedule its configuration names:
/// one CTA per tile (program ids), or a persistent fgemm.tile_loop with the
/// tile order (raster groups) as index arithmetic; marks the loads a cluster
/// shares for multicast and records the launch grid (`grid`).
LogicalResult scheduleTiles(RewriterBase &rewriter, KernelOp kernel);

/// Splits the kernel's K loop into a TMA producer and math consumers.
/// Returns failure() after a "not applied" warning, or an error.
FailureOr<WarpSpecializeOp> warpSpecialize(RewriterBase &rewriter,
                                           KernelOp kernel,
                                           int64_t producerRegs,
                                           int64_t consumerRegs);

/// Plans the shared-memory ring of `kernel` and assigns stages and phases.
LogicalResult pipelineTma(RewriterBase &rewriter, KernelOp kernel);

/// Shared-memory layout of a specialized kernel (offsets in bytes).
struct SharedMemoryPlan {
  SmallVector<int64_t> slotOffsets; // per ring value, stage 0
  SmallVector<int64_t> slotStrides; // per ring value, bytes between stages
  SmallVector<int64_t> slotBytes;   // per ring value, bytes TMA writes
  int64_t outputOffset = 0;         // epilogue tile
  int64_t barrierOffset = 0;        // full[stages] then empty[stages]
  int64_t scaleOffset = 0;          // staged per-block scales
  int64_t scaleBytes = 0;
  int64_t vectorOffset = 0; // staged epilogue vectors
  int64_t vectorBytes = 0;
  int64_t totalBytes = 0;
};

/// Bytes of one tile of `type` under `config` (e.g. [bm, bk] f8 -> bm*bk).
int64_t getTileBytes(TileType type, ConfigAttr config);

/// Static extent of a configuration symbol (`bm`, `bn`, `bk`), or -1.
int64_t getTileDimExtent(StringRef symbol, ConfigAttr config);

} // namespace mlir::fgemm

#endif // FGEMM_DIALECT_TRANSFORMS_H
