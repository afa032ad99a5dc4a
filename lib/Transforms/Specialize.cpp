//===- Specialize.cpp - bind a kernel's configuration ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-specialize: attaches #fgemm.config (every knob of
// dialect/KernelConfig.def, with stages = 0 and math_warpgroups = 0 resolved)
// and rejects what the hardware cannot run (checkKernelConfig), e.g.:
//   - block_m 64 or 128: one math warpgroup per 64 rows (WGMMA's M is 64);
//   - block_n a WGMMA N (multiple of 8) of at most 192, so that the partial
//     and promoted accumulators fit in registers; a tile that straddles
//     128-column B-scale blocks uses each fragment's own block scale;
//   - shared memory (stages x TMA tiles + epilogue tile + barriers) <= 227 KiB;
//   - fixed N a multiple of 8, fixed K a multiple of 16 (TMA's 16-byte
//   strides).
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/KnobOptions.h"
#include "dialect/Passes.h"

#define DEBUG_TYPE "fgemm-specialize"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMSPECIALIZEPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

LogicalResult mlir::fgemm::specializeKernel(KernelOp kernel,
                                            const KernelConfig &requested) {
  // Range checks first (the "choose for me" values are allowed here).
  if (std::string problem = checkKernelConfig(requested, /*resolved=*/false);
      !problem.empty())
    return kernel.emitError(problem);

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
  KernelConfig knobs = requested;
  if (knobs.mathWarpgroups == 0)
    knobs.mathWarpgroups =
        knobs.blockM == 192 ? 3 : std::min<int64_t>(2, knobs.blockM / 64);
  auto withStages = [&](int64_t stages) {
    KernelConfig c = knobs;
    c.stages = stages;
    return ConfigAttr::get(ctx, c);
  };
  auto plan = [&](ConfigAttr config) {
    return planSharedMemory(slots, store.getValue().getType(),
                            store.getDest().getType().getElementType(),
                            getStagedScaleWords(kernel, config),
                            getEpilogueVectorBytes(kernel, config),
                            decouplesMathWarpgroups(kernel, config), config);
  };
  auto smemBytes = [&](ConfigAttr config) { return plan(config).totalBytes; };
  // stages = 0: the deepest pipeline that fits (more K blocks in flight).
  int64_t stages = knobs.stages;
  if (stages == 0)
    for (stages = kMaxStages;
         stages > 1 && smemBytes(withStages(stages)) > kMaxSharedMemoryBytes;)
      --stages;
  // With K compiled in, one stage fewer where that aligns the K loop's
  // trips with the ring (KernelConfig::hasAlignedKLoopTrips) and a deep
  // ring remains: 64x64 tiles with 12 stages ran 2.7-3.7% faster than with
  // 13 at M = 64, N = 7168, K = 2048 and 16384 (H200, docs/PERF.md,
  // thirty-eighth session). Not measured for shallower rings.
  constexpr int64_t kMinStagesToAlign = 8;
  if (knobs.stages == 0 && knobs.fixedK && stages - 1 >= kMinStagesToAlign) {
    KernelConfig deepest = knobs, fewer = knobs;
    deepest.stages = stages;
    fewer.stages = stages - 1;
    if (!deepest.hasAlignedKLoopTrips() && fewer.hasAlignedKLoopTrips())
      stages = fewer.stages;
  }
  knobs.stages = stages;
  if (std::string problem = checkKernelConfig(knobs, /*resolved=*/true);
      !problem.empty())
    return kernel.emitError(problem);
  ConfigAttr config = ConfigAttr::get(ctx, knobs);
  if (int64_t bytes = smemBytes(config); bytes > kMaxSharedMemoryBytes)
    return kernel.emitError("configuration needs ")
           << bytes << " bytes of shared memory (" << stages
           << " stages); sm_90 allows " << kMaxSharedMemoryBytes
           << " (227 KiB): use fewer stages or smaller blocks";
  // A K-split CTA other than rank 0 leaves its f32 share in its idle ring
  // (fgemm.combine_k_split), which must hold it.
  if (knobs.kSplit > 1) {
    int64_t ringBytes = plan(config).outputOffset;
    int64_t shareBytes = knobs.blockM * knobs.blockN * 4;
    if (shareBytes > ringBytes)
      return kernel.emitError("k-split ")
             << knobs.kSplit << ": a CTA's f32 share of the " << knobs.blockM
             << "x" << knobs.blockN << " tile (" << shareBytes
             << " bytes) waits in its ring, which has " << ringBytes
             << " bytes at " << stages << " stages: use more stages";
  }
  // The deferred store runs in the next tile's first K block, after that
  // tile's epilogue vectors were staged (their shared memory is reused per
  // tile), and a conditional store would leave that block without the
  // store's barriers.
  if (knobs.overlapEpilogue) {
    if (kernel.walk([](ReadTileOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return kernel.emitError(
          "overlap-epilogue is not supported for kernels that read tiles or "
          "vectors in the epilogue (fgemm.read_tile): their staging is reused "
          "by the next tile before the deferred store");
    if (store.getWhen())
      return kernel.emitError("overlap-epilogue needs an unconditional "
                              "fgemm.store (the store has `if`)");
  }
  if (ConfigAttr old = kernel.getConfigAttr(); old && old != config)
    return kernel.emitError("kernel is already specialized with ") << old;

  kernel.setConfigAttr(config);
  return success();
}

namespace {
/// The pass's options are the knobs of dialect/KernelConfig.def.
struct FgemmSpecializePass
    : fgemm::impl::FgemmSpecializePassBase<FgemmSpecializePass> {
  FgemmSpecializePass() = default;
  FgemmSpecializePass(const FgemmSpecializePass &other)
      : FgemmSpecializePassBase(other) {}
  explicit FgemmSpecializePass(const KernelConfig &config) {
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  NAME = config.NAME;
#include "dialect/KernelConfig.def"
  }

  void runOnOperation() override {
    KernelConfig config;
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  config.NAME = NAME;
#include "dialect/KernelConfig.def"
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(specializeKernel(kernel, config)))
        return signalPassFailure();
  }

#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  KnobOption<TYPE> NAME{*this, FLAG, HELP, DEFAULT};
#include "dialect/KernelConfig.def"
};
} // namespace

std::unique_ptr<Pass>
mlir::fgemm::createFgemmSpecializePass(const KernelConfig &config) {
  return std::make_unique<FgemmSpecializePass>(config);
}
