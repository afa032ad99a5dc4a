//===- Specialize.cpp - bind a kernel's configuration ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-specialize: attaches #fgemm.config (block sizes, stages, warp roles,
// shapes known at JIT time) and rejects what the hardware cannot run:
//   - block_m 64 or 128: one math warpgroup per 64 rows (WGMMA's M is 64);
//   - block_n a WGMMA N (multiple of 8) of at most 192, so that the partial
//     and promoted accumulators fit in registers; a tile that straddles
//     128-column B-scale blocks uses each fragment's own block scale;
//   - shared memory (stages x TMA tiles + epilogue tile + barriers) <= 227 KiB;
//   - fixed N a multiple of 8, fixed K a multiple of 16 (TMA's 16-byte strides).
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/Passes.h"

#define DEBUG_TYPE "fgemm-specialize"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMSPECIALIZEPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

/// The block K every scaled kernel uses: the scales' K granularity.
static constexpr int64_t kBlockK = 128;
/// Widest tile whose accumulators fit in registers (see the check below).
static constexpr int64_t kMaxBlockN = 192;
/// Deepest pipeline considered; beyond it more stages stop paying off.
static constexpr int64_t kMaxStages = 16;

LogicalResult mlir::fgemm::specializeKernel(KernelOp kernel, const SpecializeOptions &o) {
  if (o.blockM != 64 && o.blockM != 128)
    return kernel.emitError("block-m must be 64 or 128 (64 rows per math warpgroup, "
                            "WGMMA's M), got ")
           << o.blockM;
  if (o.blockN < 8 || o.blockN > 256 || o.blockN % 8 != 0)
    return kernel.emitError("block-n must be a multiple of 8 in [8, 256] (WGMMA's N), got ")
           << o.blockN;
  // Each math thread holds block_n / 2 partial and block_n / 2 promoted FP32
  // values; beyond 192 they no longer fit next to the addressing registers
  // under setmaxnreg 232 and ptxas spills.
  if (o.blockN > kMaxBlockN)
    return kernel.emitError("block-n must be at most ")
           << kMaxBlockN << " (the accumulators of a larger tile do not fit in the math "
           << "warpgroups' registers), got " << o.blockN;
  if (o.stages < 0 || o.stages > kMaxStages)
    return kernel.emitError("stages must be in [1, 16], or 0 for as many as fit; got ")
           << o.stages;
  if (o.cluster != 1 && o.cluster != 2)
    return kernel.emitError("cluster must be 1 or 2 (CTAs sharing their A tile by TMA "
                            "multicast), got ")
           << o.cluster;
  if (o.fixedN < 0 || o.fixedN % 8 != 0)
    return kernel.emitError("fixed N must be a positive multiple of 8 (BF16 rows of D "
                            "need 16-byte strides for TMA), got ")
           << o.fixedN;
  if (o.fixedK < 0 || o.fixedK % 16 != 0)
    return kernel.emitError("fixed K must be a positive multiple of 16 (FP8 rows of A "
                            "and B need 16-byte strides for TMA), got ")
           << o.fixedK;

  // Resource check: the same plan fgemm-pipeline-tma will make.
  SmallVector<TileType> slots;
  kernel.walk([&](Operation *op) {
    if (isTmaLoad(op))
      slots.push_back(cast<TileType>(op->getResult(0).getType()));
  });
  StoreOp store;
  kernel.walk([&](StoreOp s) { store = s; });
  if (!store)
    return kernel.emitError("kernel stores no output tile (no fgemm.store)");
  MLIRContext *ctx = kernel.getContext();
  auto makeConfig = [&](int64_t stages) {
    return ConfigAttr::get(ctx, o.blockM, o.blockN, kBlockK, stages,
                           /*mathWarpgroups=*/o.blockM / 64, o.cluster, o.fixedN, o.fixedK);
  };
  auto smemBytes = [&](ConfigAttr config) {
    return planSharedMemory(slots, store.getValue().getType(),
                            store.getDest().getType().getElementType(), config)
        .totalBytes;
  };
  // stages = 0: the deepest pipeline that fits (more K blocks in flight).
  int64_t stages = o.stages;
  if (stages == 0)
    for (stages = kMaxStages; stages > 1 && smemBytes(makeConfig(stages)) > kMaxSharedMemoryBytes;)
      --stages;
  ConfigAttr config = makeConfig(stages);
  if (int64_t bytes = smemBytes(config); bytes > kMaxSharedMemoryBytes)
    return kernel.emitError("configuration needs ")
           << bytes << " bytes of shared memory (" << stages << " stages); sm_90 allows "
           << kMaxSharedMemoryBytes << " (227 KiB): use fewer stages or smaller blocks";
  if (ConfigAttr old = kernel.getConfig(); old && old != config)
    return kernel.emitError("kernel is already specialized with ") << old;

  kernel->setAttr("fgemm.config", config);
  return success();
}

namespace {
struct FgemmSpecializePass : fgemm::impl::FgemmSpecializePassBase<FgemmSpecializePass> {
  using FgemmSpecializePassBase::FgemmSpecializePassBase;

  void runOnOperation() override {
    SpecializeOptions options{blockM, blockN, stages, cluster, fixedN, fixedK};
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(specializeKernel(kernel, options)))
        return signalPassFailure();
  }
};
} // namespace
