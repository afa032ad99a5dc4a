//===- FgemmToNVVM.cpp - fgemm kernels to LLVM + NVVM ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// convert-fgemm-to-nvvm: lowers a pipelined, warp-specialized fgemm.kernel to
// an llvm.func kernel built from nvvm, llvm, scf and arith ops. The kernel is
// a whole-program structure (roles, ring, shared-memory plan), so this is an
// explicit walk that maps fgemm values to LLVM values, not 1:1 patterns.
//
//   tid / 128 == 0 (producer)            tid / 128 >= 1 (math warpgroup w)
//   setmaxnreg.dec 40                    setmaxnreg.inc 232
//   thread 0: for kb:                    for kb:
//     try_wait empty[s], p ^ 1             try_wait full[s], p
//     arrive.expect_tx full[s], bytes      wgmma.fence; 4 x wgmma m64nNk32 e4m3
//     cp.async.bulk.tensor A, B, SFA       commit; wait 0; read 2 row scales
//                                          arrive empty[s]; 64 FFMA promotions
//                                        cvt bf16x2, st.shared, fence.proxy.async
//                                        bar.sync 1, 128*w; TMA store
//
// Shared-memory descriptors for wgmma are built here, not by nvgpu (whose
// lowering mis-steps FP8 B operands, MLIR-NVGPU.md trap 1): K-major, 128-byte
// swizzle, stride byte offset 1024 (8 rows of 128 bytes), start address
// advanced by 32 bytes per k32 step for both A and B. The dynamic shared
// memory is one external 1024-byte-aligned array (trap 2), and TMA
// descriptors are by-value `nvvm.grid_constant` parameters (trap 4).
//
// Limitations: bf16 output only; one math K block is 128 (4 k32 steps).
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"
#include "dialect/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-fgemm-to-nvvm"

namespace mlir::fgemm {
#define GEN_PASS_DEF_CONVERTFGEMMTONVVMPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;

/// Name of the dynamic shared-memory array every kernel of a module uses.
static constexpr StringLiteral kSharedMemoryName = "fgemm_smem";
/// Size of a CUtensorMap (cuda.h: 128 bytes, 64-byte aligned).
static constexpr int64_t kTensorMapBytes = 128;
/// Registers per thread at kernel entry: setmaxnreg needs a cap to move from
/// (65536 / 384 rounded down to a multiple of 8, DeepGEMM's launch bounds).
static constexpr int64_t kEntryMaxRegisters = 168;
/// Suspend-time hint of mbarrier.try_wait, in nanoseconds (CUTLASS's value).
static constexpr int64_t kTryWaitTicks = 0x989680;
/// Named barrier the math warpgroups use among themselves (0 is __syncthreads).
static constexpr int64_t kMathBarrierId = 1;
/// Registers the overlapped math loop needs besides its accumulators.
static constexpr int64_t kOverlapRegisterReserve = 88;
/// WGMMA's K for 8-bit operands, in elements (= bytes).
static constexpr int64_t kWgmmaK = 32;

namespace {

/// Lowers one kernel. Values of the fgemm kernel are mapped as follows:
/// index scalars -> index; operand/scale tiles from the ring -> !llvm.ptr<3>
/// of their slot; per-block scale tiles -> f32; accumulator tiles -> the
/// wgmma accumulator struct (block_n / 2 f32 per thread).
class KernelLowering {
public:
  KernelLowering(KernelOp kernel, ModuleOp module, bool overlapPromotion)
      : kernel(kernel), module(module), config(kernel.getConfig()), b(kernel.getContext()),
        loc(kernel.getLoc()), overlapPromotion(overlapPromotion) {}

  LogicalResult run();

private:
  // Small builders.
  Value constI32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value constIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value toI32(Value v) {
    return v.getType().isIndex() ? arith::IndexCastOp::create(b, loc, b.getI32Type(), v)
                                 : v;
  }
  Value toIndex(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  Value mulI32(Value x, int64_t c) { return arith::MulIOp::create(b, loc, x, constI32(c)); }
  /// A byte address in the dynamic shared memory.
  Value smemAt(Value byteOffsetI32) {
    return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                               b.getI8Type(), smemBase, ValueRange{byteOffsetI32});
  }
  Value smemAt(int64_t byteOffset) { return smemAt(constI32(byteOffset)); }
  /// full[stage] or empty[stage].
  Value barrierAt(bool empty, Value stage);
  void waitParity(Value barrier, Value parityI32);
  Type accumulatorType();
  void clusterSync() {
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  /// Whether the put value is the same tile for every CTA of a cluster (the
  /// cluster runs along grid x, so tiles whose row index is not x's).
  bool isSharedByCluster(Operation *load);

  LogicalResult buildFunction();
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation &op);
  LogicalResult lowerRingCreate(RingCreateOp op);
  LogicalResult lowerWarpSpecialize(WarpSpecializeOp op);
  LogicalResult lowerKLoop(KLoopOp op);
  LogicalResult lowerTileLoop(TileLoopOp op);
  LogicalResult lowerRingPut(RingPutOp op);
  LogicalResult lowerRingGet(RingGetOp op);
  LogicalResult lowerRingRelease(Value stage);
  LogicalResult lowerLoadScales(LoadScalesOp op);
  LogicalResult lowerScaledDot(ScaledDotOp op, RingReleaseOp fusedRelease);
  FailureOr<Value> issueDot(ScaledDotOp op);
  FailureOr<Value> promoteDot(ScaledDotOp op, Value partial, Value acc, RingReleaseOp release);
  LogicalResult lowerOverlappedDotLoop(KLoopOp op, ScaledDotOp dot);
  LogicalResult lowerStore(StoreOp op);

  Value lookup(Value v) { return mapping.lookup(v); }
  int64_t extent(StringAttr symbol) { return getTileDimExtent(symbol.getValue(), config); }

  KernelOp kernel;
  ModuleOp module;
  ConfigAttr config;
  OpBuilder b;
  Location loc;
  LLVM::LLVMFuncOp func;
  bool overlapPromotion;
  DenseMap<Value, Value> mapping;
  /// Kernel argument -> its TMA descriptor (generic pointer to the param) or,
  /// for arguments read directly, its global pointer.
  DenseMap<Value, Value> argParams;
  /// Dimension symbol -> its runtime value (index).
  llvm::StringMap<Value> dims;
  Value smemBase;
  // Shared-memory plan, read from fgemm.ring.create.
  int64_t stages = 0, barrierOffset = 0, outputOffset = 0, smemBytes = 0;
  SmallVector<int64_t> slotOffsets, slotStrides, slotBytes;
  // Thread coordinates inside the math warpgroups (i32), set by warp_specialize.
  Value mathTid, mathWg, warpInWg, lane;
  Operation *skipOp = nullptr; // a ring.release fused into the preceding dot
  /// Set while re-deriving a ring entry's slots whose full barrier was
  /// already waited on (the overlapped dot loop's promotion half).
  bool reuseRingEntry = false;
  /// setmaxnreg of the math warpgroups (from fgemm.warp_specialize).
  int64_t consumerRegs = 0;
  /// Per-block scales of a tile: the values of the blocks it spans.
  struct BlockScales {
    Value firstRow;            // i32: first row (column of D) of the tile
    SmallVector<Value> values; // f32, one per 128-row block spanned
  };
  DenseMap<Value, BlockScales> blockScales;
  Value fragmentScale(const BlockScales &scales, int64_t i);
};

} // namespace

Value KernelLowering::barrierAt(bool empty, Value stage) {
  Value index = toI32(stage);
  if (empty)
    index = arith::AddIOp::create(b, loc, index, constI32(stages));
  return smemAt(arith::AddIOp::create(b, loc, constI32(barrierOffset), mulI32(index, 8)));
}

void KernelLowering::waitParity(Value barrier, Value parityI32) {
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parityI32, constI32(kTryWaitTicks));
}

Type KernelLowering::accumulatorType() {
  // m64nN f32: each of the warpgroup's 128 threads holds N / 2 values.
  SmallVector<Type> fields(config.getBlockN() / 2, b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
}

/// Builds the llvm.func, its parameters in docs/ABI.md order (TMA descriptors
/// by value, direct pointers, then dimensions), and the shared-memory global.
LogicalResult KernelLowering::buildFunction() {
  MLIRContext *ctx = kernel.getContext();
  Block &entry = kernel.getBody().front();

  // TMA-accessed tensors: the producer's loads in ring order, then outputs.
  SmallVector<Value> tmaArgs, ptrArgs;
  auto addUnique = [](SmallVectorImpl<Value> &list, Value v) {
    if (!llvm::is_contained(list, v))
      list.push_back(v);
  };
  kernel.walk([&](RingPutOp put) {
    for (Value v : put.getValues())
      addUnique(tmaArgs, v.getDefiningOp()->getOperand(0));
  });
  kernel.walk([&](StoreOp store) { addUnique(tmaArgs, store.getDest()); });
  for (BlockArgument arg : entry.getArguments())
    if (!llvm::is_contained(tmaArgs, arg))
      ptrArgs.push_back(arg);
  for (Value v : tmaArgs)
    if (!isa<BlockArgument>(v))
      return kernel.emitError("TMA source is not a kernel argument");

  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> params;
  SmallVector<Attribute> paramAttrs;
  auto tensorMapType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  for (size_t i = 0; i < tmaArgs.size(); ++i) {
    params.push_back(genericPtr);
    paramAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(tensorMapType)),
         b.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64)),
         b.getNamedAttr(NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr())}));
  }
  for (size_t i = 0; i < ptrArgs.size(); ++i) {
    params.push_back(globalPtr);
    paramAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr())}));
  }
  for (size_t i = 0; i < kernel.getDims().size(); ++i) {
    params.push_back(b.getI32Type());
    paramAttrs.push_back(b.getDictionaryAttr({}));
  }

  b.setInsertionPointToEnd(module.getBody());
  if (!module.lookupSymbol(kSharedMemoryName)) {
    auto global = LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
        LLVM::Linkage::External, kSharedMemoryName, Attribute(), /*alignment=*/1024,
        /*addrSpace=*/3);
    (void)global;
  }
  func = LLVM::LLVMFuncOp::create(b, loc, kernel.getSymName(),
                                  LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                                              params));
  func.setArgAttrsAttr(b.getArrayAttr(paramAttrs));
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                b.getDenseI32ArrayAttr({static_cast<int32_t>(config.getNumThreads()), 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                b.getI32IntegerAttr(kEntryMaxRegisters));
  if (config.getCluster() > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({static_cast<int32_t>(config.getCluster()), 1, 1}));
  // What the runtime needs to launch it (fgemmc writes these to the .meta file).
  func->setAttr("fgemm.config", config);
  for (StringRef name : {"fgemm.grid", "fgemm.schedule"})
    if (Attribute attr = kernel->getAttr(name))
      func->setAttr(name, attr);
  Block *body = func.addEntryBlock(b);
  b.setInsertionPointToStart(body);

  unsigned next = 0;
  for (Value v : tmaArgs)
    argParams[v] = body->getArgument(next++);
  for (Value v : ptrArgs)
    argParams[v] = body->getArgument(next++);
  for (auto [i, name] : llvm::enumerate(kernel.getDims().getAsValueRange<StringAttr>())) {
    Value value = body->getArgument(next++);
    // Shapes folded at specialization become constants.
    if (name == "n" && config.getFixedN())
      value = constI32(config.getFixedN());
    if (name == "k" && config.getFixedK())
      value = constI32(config.getFixedK());
    dims[name] = toIndex(value);
  }
  smemBase = LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3),
                                       kSharedMemoryName);
  return success();
}

LogicalResult KernelLowering::run() {
  if (!config)
    return kernel.emitError("convert-fgemm-to-nvvm needs a specialized kernel");
  if (kernel.getOps<WarpSpecializeOp>().empty())
    return kernel.emitError("convert-fgemm-to-nvvm needs warp roles "
                            "(run fgemm-warp-specialize first)");
  bool pipelined = false;
  kernel.walk([&](RingCreateOp r) { pipelined = r->hasAttr("stages"); });
  if (!pipelined)
    return kernel.emitError("convert-fgemm-to-nvvm needs a pipelined ring "
                            "(run fgemm-pipeline-tma first)");
  WalkResult plan = kernel.walk([&](RingCreateOp r) {
    for (StringRef name : {"stages", "barriers", "output_offset", "smem_bytes"})
      if (!r->getAttrOfType<IntegerAttr>(name))
        return WalkResult::interrupt();
    for (StringRef name : {"offsets", "slot_strides", "slot_bytes"})
      if (!r->getAttrOfType<DenseI64ArrayAttr>(name))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (plan.wasInterrupted())
    return kernel.emitError("the ring's shared-memory plan is incomplete (stages, offsets, "
                            "slot_strides, slot_bytes, output_offset, barriers, smem_bytes "
                            "come from fgemm-pipeline-tma)");
  if (failed(buildFunction()))
    return failure();
  bool persistent = false;
  kernel.walk([&](TileLoopOp) { persistent = true; });
  if (config.getCluster() > 1 && persistent)
    return kernel.emitError("clusters need the plain schedule (one CTA per tile)");
  if (failed(lowerBlock(kernel.getBody().front())))
    return failure();
  // The peer CTA multicasts into this CTA's shared memory and arrives on its
  // barriers until its last K block: no CTA of a cluster exits before all
  // are done.
  if (config.getCluster() > 1)
    clusterSync();
  LLVM::ReturnOp::create(b, loc, ValueRange());
  return success();
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(op)))
      return failure();
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation &op) {
  loc = op.getLoc();
  if (&op == skipOp)
    return success();
  // Index arithmetic made by the passes (stage/phase) lowers later with arith.
  if (isa<arith::ArithDialect>(op.getDialect())) {
    Operation *clone = b.clone(op);
    for (OpOperand &operand : clone->getOpOperands())
      if (Value mapped = lookup(operand.get()))
        operand.set(mapped);
    for (auto [from, to] : llvm::zip(op.getResults(), clone->getResults()))
      mapping[from] = to;
    return success();
  }
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](ProgramIdOp p) {
        Type i32 = b.getI32Type();
        Value id = p.getDim() == Dim::X   ? Value(NVVM::BlockIdXOp::create(b, loc, i32))
                   : p.getDim() == Dim::Y ? Value(NVVM::BlockIdYOp::create(b, loc, i32))
                                          : Value(NVVM::BlockIdZOp::create(b, loc, i32));
        mapping[p] = toIndex(id);
        return success();
      })
      .Case([&](ZerosOp z) {
        mapping[z] = LLVM::ZeroOp::create(b, loc, accumulatorType());
        return success();
      })
      .Case([&](RingCreateOp r) { return lowerRingCreate(r); })
      .Case([&](WarpSpecializeOp w) { return lowerWarpSpecialize(w); })
      .Case([&](KLoopOp l) { return lowerKLoop(l); })
      .Case([&](TileLoopOp l) { return lowerTileLoop(l); })
      .Case([&](NumBlocksOp n) -> LogicalResult {
        Value extentValue = dims.lookup(n.getDim());
        int64_t block = getTileDimExtent(n.getBlock(), config);
        if (!extentValue || block <= 0)
          return n.emitError("unknown dimension or block symbol");
        mapping[n] = arith::CeilDivUIOp::create(b, loc, extentValue, constIndex(block));
        return success();
      })
      .Case([&](RingPutOp p) { return lowerRingPut(p); })
      .Case([&](RingGetOp g) { return lowerRingGet(g); })
      .Case([&](RingReleaseOp r) { return lowerRingRelease(lookup(r.getStage())); })
      .Case([&](LoadOp l) -> LogicalResult {
        // Issued by the ring.put that consumes it.
        if (!llvm::all_of(l->getUsers(), [](Operation *u) { return isa<RingPutOp>(u); }))
          return l.emitError("tile loads must feed the producer's ring "
                             "(run fgemm-warp-specialize first)");
        return success();
      })
      .Case([&](LoadScalesOp l) -> LogicalResult {
        if (isTmaLoad(l))
          return success(); // issued by its ring.put
        return lowerLoadScales(l);
      })
      .Case([&](ScaledDotOp d) {
        auto release = dyn_cast_or_null<RingReleaseOp>(d->getNextNode());
        if (release)
          skipOp = release;
        return lowerScaledDot(d, release);
      })
      .Case([&](StoreOp s) { return lowerStore(s); })
      .Case([&](YieldOp) { return success(); }) // handled by the region's owner
      .Case([&](ReturnOp) { return success(); })
      .Default([&](Operation *other) {
        return other->emitError("convert-fgemm-to-nvvm cannot lower this op");
      });
}

/// Thread 0 initializes the barriers; everyone waits for it.
LogicalResult KernelLowering::lowerRingCreate(RingCreateOp op) {
  auto getI64 = [&](StringRef name) { return op->getAttrOfType<IntegerAttr>(name).getInt(); };
  auto getArray = [&](StringRef name) {
    return SmallVector<int64_t>(op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef());
  };
  stages = getI64("stages");
  barrierOffset = getI64("barriers");
  outputOffset = getI64("output_offset");
  smemBytes = getI64("smem_bytes");
  slotOffsets = getArray("offsets");
  slotStrides = getArray("slot_strides");
  slotBytes = getArray("slot_bytes");
  func->setAttr("fgemm.smem_bytes", b.getI64IntegerAttr(smemBytes));

  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    int64_t mathThreads = 128 * config.getMathWarpgroups();
    for (int64_t s = 0; s < stages; ++s) {
      // full: the producer's expect_tx arrival; empty: the math threads.
      NVVM::MBarrierInitOp::create(b, loc, smemAt(barrierOffset + 8 * s), constI32(1),
                                   Value());
      // In a cluster each math warp arrives once on every CTA's barrier.
      int64_t arrivals = config.getCluster() == 1 ? mathThreads
                                                  : mathThreads / 32 * config.getCluster();
      NVVM::MBarrierInitOp::create(b, loc, smemAt(barrierOffset + 8 * (stages + s)),
                                   constI32(arrivals), Value());
    }
    // Make the initialized barriers visible to the peer CTAs and to the TMA
    // unit (async proxy).
    if (config.getCluster() > 1)
      NVVM::FenceMbarrierInitOp::create(b, loc);
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  }
  if (config.getCluster() > 1)
    clusterSync(); // no peer multicasts into barriers not yet initialized
  else
    NVVM::Barrier0Op::create(b, loc);
  return success();
}

LogicalResult KernelLowering::lowerWarpSpecialize(WarpSpecializeOp op) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value warpgroup = arith::DivUIOp::create(b, loc, tid, constI32(128));
  Value isProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup, constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);

  // Producer warpgroup: give registers away; one thread issues all TMA.
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, op.getProducerRegs(),
                                 NVVM::SetMaxRegisterAction::decrease);
  Value isElected = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constI32(0));
  auto electIf = scf::IfOp::create(b, loc, isElected, /*withElseRegion=*/false);
  b.setInsertionPointToStart(electIf.thenBlock());
  if (failed(lowerBlock(op.getProducer().front())))
    return failure();

  // Math warpgroups: take the registers for accumulators.
  b.setInsertionPointToStart(ifOp.elseBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, op.getConsumerRegs(),
                                 NVVM::SetMaxRegisterAction::increase);
  consumerRegs = op.getConsumerRegs();
  mathTid = arith::SubIOp::create(b, loc, tid, constI32(128));
  mathWg = arith::DivUIOp::create(b, loc, mathTid, constI32(128));
  Value inWg = arith::RemUIOp::create(b, loc, mathTid, constI32(128));
  warpInWg = arith::DivUIOp::create(b, loc, inWg, constI32(32));
  lane = arith::RemUIOp::create(b, loc, tid, constI32(32));
  return lowerBlock(op.getConsumer().front());
}

LogicalResult KernelLowering::lowerKLoop(KLoopOp op) {
  // The math loop overlaps the next K block's wgmmas with this block's
  // promotion; it needs a second stage to run ahead into.
  // Two partial sums and the accumulator (3 x block_n / 2 registers) must
  // leave room for addresses and scales under setmaxnreg: measured with
  // ptxas 13.0, block_n 96 fits in 232 registers and 112 spills.
  int64_t accumulatorRegs = 3 * config.getBlockN() / 2;
  if (overlapPromotion && stages >= 2 &&
      accumulatorRegs + kOverlapRegisterReserve <= consumerRegs)
    for (auto dot : op.getBody().getOps<ScaledDotOp>())
      return lowerOverlappedDotLoop(op, dot);
  Value extentValue = dims.lookup(op.getDim());
  if (!extentValue)
    return op.emitError("unknown dimension '") << op.getDim() << "'";
  int64_t bk = config.getBlockK();
  Value numBlocks = arith::CeilDivUIOp::create(b, loc, extentValue, constIndex(bk));
  SmallVector<Value> inits = llvm::map_to_vector(op.getInits(), [&](Value v) {
    return lookup(v);
  });
  auto forOp = scf::ForOp::create(b, loc, constIndex(0), numBlocks, constIndex(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    Block &body = op.getBody().front();
    Block *forBody = forOp.getBody();
    for (auto [from, to] : llvm::zip(body.getArguments(), forBody->getArguments()))
      mapping[from] = to;
    b.setInsertionPointToStart(forBody);
    if (!forBody->empty())
      b.setInsertionPoint(forBody->getTerminator());
    if (failed(lowerBlock(body)))
      return failure();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> next = llvm::map_to_vector(yield.getValues(), [&](Value v) {
      return lookup(v);
    });
    if (!forBody->empty() && isa<scf::YieldOp>(forBody->back()))
      forBody->back().erase();
    b.setInsertionPointToEnd(forBody);
    scf::YieldOp::create(b, loc, next);
  }
  for (auto [from, to] : llvm::zip(op.getResults(), forOp.getResults()))
    mapping[from] = to;
  return success();
}

/// The math loop, software-pipelined by one K block and unrolled by two so
/// that the two in-flight partial sums keep their registers (a loop-carried
/// copy of an in-flight wgmma accumulator would make ptxas serialize):
///
///   A = issue(0)
///   for j = 0, 2, ... while j + 2 < n:        carries acc, A (block j, in flight)
///     B = issue(j+1)                          wgmma on the tensor cores...
///     wait(1): A done; acc = promote(A)       ...while the FFMAs run here
///     A = issue(j+2)
///     wait(1): B done; acc = promote(B)
///   tail: one or two blocks left, the same steps with wait(0) at the end
///
/// issue(kb) = the body's ops before the dot (stage/phase, ring.get = wait for
/// the slot) + wgmma.fence, 4 wgmmas, commit; promote(kb) = the remaining
/// scale loads, the row scales from the slot, release of the slot, FFMAs.
LogicalResult KernelLowering::lowerOverlappedDotLoop(KLoopOp op, ScaledDotOp dot) {
  Block &body = op.getBody().front();
  if (op.getInits().size() != 1 || dot.getAcc() != body.getArgument(1))
    return op.emitError("the math loop must carry exactly the dot's accumulator");
  auto release = dyn_cast_or_null<RingReleaseOp>(dot->getNextNode());
  SmallVector<Operation *> issueOps, promoteOps;
  for (Operation &inner : body) {
    if (&inner == dot.getOperation())
      break;
    bool late = isa<LoadScalesOp>(inner) && !isTmaLoad(&inner);
    (late ? promoteOps : issueOps).push_back(&inner);
  }
  Value kbArg = body.getArgument(0);

  auto issue = [&](Value kb) -> FailureOr<Value> {
    mapping[kbArg] = kb;
    for (Operation *inner : issueOps)
      if (failed(lowerOp(*inner)))
        return failure();
    return issueDot(dot);
  };
  auto promote = [&](Value kb, Value partial, Value acc) -> FailureOr<Value> {
    mapping[kbArg] = kb;
    reuseRingEntry = true; // re-derive the slots, do not wait again
    for (Operation *inner : issueOps)
      if (failed(lowerOp(*inner)))
        return failure();
    reuseRingEntry = false;
    for (Operation *inner : promoteOps)
      if (failed(lowerOp(*inner)))
        return failure();
    return promoteDot(dot, partial, acc, release);
  };
  auto waitGroups = [&](int64_t pending) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  };

  Value extentValue = dims.lookup(op.getDim());
  Value numBlocks =
      arith::CeilDivUIOp::create(b, loc, extentValue, constIndex(config.getBlockK()));
  FailureOr<Value> first = issue(constIndex(0));
  if (failed(first))
    return failure();
  // Main loop: pairs (j + 1, j + 2) while both exist, so every wait is
  // unconditional and ptxas can see which group each promotion waited for
  // (a wait inside a branch makes it serialize all wgmmas, C7514).
  Value two = constIndex(2);
  Value hasPairs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, numBlocks, two);
  Value upper = arith::SelectOp::create(
      b, loc, hasPairs, arith::SubIOp::create(b, loc, numBlocks, two), constIndex(0));
  auto forOp = scf::ForOp::create(b, loc, constIndex(0), upper, two,
                                  ValueRange{lookup(op.getInits()[0]), *first});
  {
    OpBuilder::InsertionGuard guard(b);
    // With iter_args the builder leaves the body without a terminator.
    Block *forBody = forOp.getBody();
    if (!forBody->empty() && forBody->back().hasTrait<OpTrait::IsTerminator>())
      forBody->back().erase();
    b.setInsertionPointToEnd(forBody);
    Value j = forOp.getInductionVar();
    Value acc = forOp.getRegionIterArgs()[0], pendingA = forOp.getRegionIterArgs()[1];
    Value j1 = arith::AddIOp::create(b, loc, j, constIndex(1));
    Value j2 = arith::AddIOp::create(b, loc, j, two);
    FailureOr<Value> pendingB = issue(j1);
    if (failed(pendingB))
      return failure();
    waitGroups(1);
    FailureOr<Value> accA = promote(j, pendingA, acc);
    if (failed(accA))
      return failure();
    FailureOr<Value> nextA = issue(j2);
    if (failed(nextA))
      return failure();
    waitGroups(1);
    FailureOr<Value> accB = promote(j1, *pendingB, *accA);
    if (failed(accB))
      return failure();
    scf::YieldOp::create(b, loc, ValueRange{*accB, *nextA});
  }
  // Tail: block `last` is in flight; one more block may follow it.
  Value acc = forOp.getResult(0), pendingA = forOp.getResult(1);
  Value last = arith::MulIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, upper, two), two);
  Value next = arith::AddIOp::create(b, loc, last, constIndex(1));
  Value hasNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next, numBlocks);
  auto tail = scf::IfOp::create(b, loc, TypeRange{acc.getType()}, hasNext,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&tail.getThenRegion().front());
    FailureOr<Value> pendingB = issue(next);
    if (failed(pendingB))
      return failure();
    waitGroups(1);
    FailureOr<Value> accA = promote(last, pendingA, acc);
    if (failed(accA))
      return failure();
    waitGroups(0);
    FailureOr<Value> accB = promote(next, *pendingB, *accA);
    if (failed(accB))
      return failure();
    scf::YieldOp::create(b, loc, *accB);
    b.setInsertionPointToStart(&tail.getElseRegion().front());
    waitGroups(0);
    FailureOr<Value> accA2 = promote(last, pendingA, acc);
    if (failed(accA2))
      return failure();
    scf::YieldOp::create(b, loc, *accA2);
  }
  mapping[op.getResult(0)] = tail.getResult(0);
  return success();
}

/// Persistent schedule: CTA p of P runs tiles p, p + P, ... in row-major
/// tile order.
LogicalResult KernelLowering::lowerTileLoop(TileLoopOp op) {
  ArrayRef<StringAttr> outDims = cast<GlobalTensorType>(op.getOutput().getType()).getDims();
  auto tilesAlong = [&](StringAttr dim) -> Value {
    int64_t block = getTileDimExtent(("b" + dim.getValue()).str(), config);
    return arith::CeilDivUIOp::create(b, loc, dims.lookup(dim.getValue()), constIndex(block));
  };
  Value tilesM = tilesAlong(outDims[0]), tilesN = tilesAlong(outDims[1]);
  Value total = arith::MulIOp::create(b, loc, tilesM, tilesN);
  Value pid = toIndex(NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
  Value numPrograms = toIndex(NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
  auto forOp = scf::ForOp::create(b, loc, pid, total, numPrograms);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forOp.getBody()->getTerminator());
  Value tile = forOp.getInductionVar();
  Block &body = op.getBody().front();
  mapping[body.getArgument(0)] = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tile, pid), numPrograms);
  mapping[body.getArgument(1)] = arith::DivUIOp::create(b, loc, tile, tilesN);
  mapping[body.getArgument(2)] = arith::RemUIOp::create(b, loc, tile, tilesN);
  return lowerBlock(body);
}

LogicalResult KernelLowering::lowerRingPut(RingPutOp op) {
  Value stage = lookup(op.getStage());
  Value parity = toI32(lookup(op.getPhase()));
  // Wait until the consumers released this slot's previous contents; a fresh
  // barrier counts parity 1 as complete, so the first round passes at once.
  Value flipped = arith::XOrIOp::create(b, loc, parity, constI32(1));
  waitParity(barrierAt(/*empty=*/true, stage), flipped);
  Value full = barrierAt(/*empty=*/false, stage);
  int64_t bytes = 0;
  for (int64_t n : slotBytes)
    bytes += n; // TMA counts whole boxes, zero-filled parts included
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, constI32(bytes),
                                         /*scope=*/nullptr, /*relaxed=*/nullptr, Value());
  Value stageI32 = toI32(stage);
  for (auto [i, value] : llvm::enumerate(op.getValues())) {
    Operation *load = value.getDefiningOp();
    Value dst = smemAt(arith::AddIOp::create(b, loc, constI32(slotOffsets[i]),
                                             mulI32(stageI32, slotStrides[i])));
    Value desc = argParams.lookup(load->getOperand(0));
    SmallVector<Value> coords;
    if (auto tile = dyn_cast<LoadOp>(load)) {
      // Tensor maps are {inner = columns, outer = rows}.
      ArrayRef<StringAttr> tdims = tile.getResult().getType().getDims();
      coords.push_back(mulI32(toI32(lookup(tile.getCol())), extent(tdims[1])));
      coords.push_back(mulI32(toI32(lookup(tile.getRow())), extent(tdims[0])));
      if (config.getCluster() > 1 && isSharedByCluster(load)) {
        // CTA r of the cluster loads rows [r, r + 1) * rows/cluster of the
        // shared tile into every CTA (TMA multicast); the tensor map's box
        // is rows/cluster tall (docs/ABI.md).
        int64_t part = extent(tdims[0]) / config.getCluster();
        int64_t rowBytes = extent(tdims[1]) * tile.getResult().getType().getElementType()
                                                  .getIntOrFloatBitWidth() / 8;
        Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
        coords[1] = arith::AddIOp::create(b, loc, coords[1], mulI32(rank, part));
        Value partDst = LLVM::GEPOp::create(b, loc, dst.getType(), b.getI8Type(), dst,
                                            ValueRange{mulI32(rank, part * rowBytes)});
        Value clusterDst = LLVM::AddrSpaceCastOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), partDst);
        Value mask = arith::ConstantIntOp::create(b, loc, (1 << config.getCluster()) - 1, 16);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, clusterDst, desc, coords, full, /*im2colOffsets=*/ValueRange(), mask,
            /*l2CacheHint=*/Value(),
            NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
            /*isCTAOnly=*/b.getBoolAttr(false), /*group=*/nullptr, /*predicate=*/Value());
        continue;
      }
    } else {
      // MN-major scales: {inner = rows of the operand, outer = K blocks}.
      auto scales = cast<LoadScalesOp>(load);
      int64_t rows = extent(scales.getResult().getType().getDims()[0]);
      coords.push_back(mulI32(toI32(lookup(scales.getIndex())), rows));
      coords.push_back(toI32(lookup(scales.getKb())));
    }
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, desc, coords, full, /*im2colOffsets=*/ValueRange(),
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
        /*isCTAOnly=*/b.getBoolAttr(true), /*group=*/nullptr, /*predicate=*/Value());
  }
  return success();
}

LogicalResult KernelLowering::lowerRingGet(RingGetOp op) {
  Value stage = lookup(op.getStage());
  if (!reuseRingEntry)
    waitParity(barrierAt(/*empty=*/false, stage), toI32(lookup(op.getPhase())));
  Value stageI32 = toI32(stage);
  for (auto [i, value] : llvm::enumerate(op.getValues()))
    mapping[value] = smemAt(arith::AddIOp::create(b, loc, constI32(slotOffsets[i]),
                                                  mulI32(stageI32, slotStrides[i])));
  return success();
}

LogicalResult KernelLowering::lowerRingRelease(Value stage) {
  Value empty = barrierAt(/*empty=*/true, stage);
  if (config.getCluster() == 1) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), empty, /*count=*/Value(), /*scope=*/nullptr);
    return success();
  }
  // Every CTA of the cluster multicasts into this slot: tell each of them,
  // once per warp (cluster-scope release arrivals are expensive): after the
  // warp's barrier, which orders its lanes' reads, lane r arrives on CTA r.
  NVVM::SyncWarpOp::create(b, loc, constI32(-1));
  Value arrives = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                        constI32(config.getCluster()));
  auto ifOp = scf::IfOp::create(b, loc, arrives, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value remote = NVVM::MapaOp::create(b, loc, clusterPtr, empty, lane);
  NVVM::MBarrierArriveOp::create(
      b, loc, Type(), remote, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CLUSTER));
  return success();
}

bool KernelLowering::isSharedByCluster(Operation *load) {
  auto tile = dyn_cast<LoadOp>(load);
  if (!tile)
    return false;
  // The producer's copy of the loop maps the row index to a program id of
  // the plain grid; x varies within a cluster, y does not.
  auto id = tile.getRow().getDefiningOp<ProgramIdOp>();
  return id && id.getDim() != Dim::X;
}

/// Per-block scales of a [128, 128]-blocked operand, read from the row-major
/// [ceil(rows/128), ceil(K/128)] array by every math thread. A tile of `b`
/// rows starting at row r0 spans the 128-row blocks r0/128 .. (r0+b-1)/128:
/// one when b divides 128, else up to ceil(b/128) + 1 (DeepGEMM's unaligned
/// BLOCK_N). Loads past the last block are clamped to it; no fragment uses them.
LogicalResult KernelLowering::lowerLoadScales(LoadScalesOp op) {
  ScalesType type = op.getSource().getType();
  int64_t rows = extent(op.getResult().getType().getDims()[0]);
  if (type.getBlock()[0] != 128)
    return op.emitError("per-row scales must be MN-major so that TMA can load them");
  Value kBlocks = arith::CeilDivUIOp::create(b, loc, toI32(dims.lookup(type.getDims()[1])),
                                             constI32(128));
  Value rowBlocks = arith::CeilDivUIOp::create(b, loc, toI32(dims.lookup(type.getDims()[0])),
                                               constI32(128));
  Value lastBlock = arith::SubIOp::create(b, loc, rowBlocks, constI32(1));
  Value firstRow = mulI32(toI32(lookup(op.getIndex())), rows);
  Value firstBlock = arith::DivUIOp::create(b, loc, firstRow, constI32(128));
  int64_t numBlocks = 128 % rows == 0 ? 1 : llvm::divideCeil(rows, 128) + 1;
  BlockScales scales{firstRow, {}};
  for (int64_t j = 0; j < numBlocks; ++j) {
    Value block = arith::MinUIOp::create(b, loc, arith::AddIOp::create(b, loc, firstBlock,
                                                                        constI32(j)),
                                         lastBlock);
    Value element = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, block, kBlocks),
                                          toI32(lookup(op.getKb())));
    Value ptr = LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1),
                                    b.getF32Type(), argParams.lookup(op.getSource()),
                                    ValueRange{element});
    scales.values.push_back(LLVM::LoadOp::create(b, loc, b.getF32Type(), ptr,
                                                 /*alignment=*/4, /*isVolatile=*/false,
                                                 /*isNonTemporal=*/false, /*isInvariant=*/true));
  }
  mapping[op] = scales.values.front();
  blockScales[op.getResult()] = scales;
  return success();
}

/// The B scale of accumulator fragment `i` (columns 8i .. 8i+7 of the tile;
/// 128-column blocks start at multiples of 8, so a fragment never straddles).
Value KernelLowering::fragmentScale(const BlockScales &scales, int64_t i) {
  if (scales.values.size() == 1)
    return scales.values.front();
  // Index of the fragment's block relative to the tile's first block.
  Value col = arith::AddIOp::create(b, loc, scales.firstRow, constI32(8 * i));
  Value firstBlock = arith::DivUIOp::create(b, loc, scales.firstRow, constI32(128));
  Value rel = arith::SubIOp::create(b, loc, arith::DivUIOp::create(b, loc, col, constI32(128)),
                                    firstBlock);
  Value scale = scales.values.front();
  for (size_t j = 1; j < scales.values.size(); ++j) {
    Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rel, constI32(j));
    scale = arith::SelectOp::create(b, loc, here, scales.values[j], scale);
  }
  return scale;
}

/// wgmma shared-memory descriptor of a K-major, 128-byte-swizzled tile at
/// `address` (PTX ISA "Matrix Descriptor Format"): start address >> 4 in bits
/// 0-13, leading byte offset >> 4 in 16-29 (unused with this swizzle; 1),
/// stride byte offset >> 4 in 32-45 (1024: 8 rows of 128 bytes), swizzle
/// mode in 62-63 (1 = 128B).
static Value buildDescriptor(OpBuilder &b, Location loc, Value address) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, arith::ConstantIntOp::create(b, loc, 0x3FFFF, 64)),
      arith::ConstantIntOp::create(b, loc, 4, 64));
  int64_t fixed = (int64_t(1) << 16) | (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, arith::ConstantIntOp::create(b, loc, fixed, 64));
}

static NVVM::WGMMATypes getWgmmaType(Type type) {
  return isa<Float8E5M2Type>(type) ? NVVM::WGMMATypes::e5m2 : NVVM::WGMMATypes::e4m3;
}

/// Issues the K block's wgmmas into a fresh partial sum and commits them as
/// one group; the caller waits for the group before reading the result.
FailureOr<Value> KernelLowering::issueDot(ScaledDotOp op) {
  Value aTile = lookup(op.getA()), bTile = lookup(op.getB());
  if (!aTile || !bTile || !isa<LLVM::LLVMPointerType>(aTile.getType()) ||
      !isa<LLVM::LLVMPointerType>(bTile.getType()))
    return op.emitError("operands must come from the producer's ring (shared memory)");
  int64_t bk = config.getBlockK(), bn = config.getBlockN();
  MLIRContext *ctx = b.getContext();
  Type accType = accumulatorType();

  // This math warpgroup's 64 rows of A.
  Value aBase = LLVM::GEPOp::create(b, loc, aTile.getType(), b.getI8Type(), aTile,
                                    ValueRange{mulI32(mathWg, 64 * bk)});
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Value partial = LLVM::UndefOp::create(b, loc, accType);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, bn, kWgmmaK);
  auto typeA = NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(op.getA().getType().getElementType()));
  auto typeB = NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(op.getB().getType().getElementType()));
  auto typeD = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  for (int64_t k = 0; k < bk / kWgmmaK; ++k) {
    auto step = [&](Value base) {
      return buildDescriptor(b, loc, LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(),
                                                         base, ValueRange{constI32(k * kWgmmaK)}));
    };
    // A fresh partial sum per K block: the first step ignores the input.
    auto scaleD = NVVM::WGMMAScaleOutAttr::get(
        ctx, k == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one);
    partial = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, partial, step(aBase), step(bTile), shape, typeA, typeB, typeD, scaleD,
        one, one, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return partial;
}

/// Promotes a finished partial sum into the accumulator on CUDA cores and,
/// once the slot's scales are read, releases the ring slot (`release`).
FailureOr<Value> KernelLowering::promoteDot(ScaledDotOp op, Value partial, Value acc,
                                            RingReleaseOp release) {
  Value scaleA = lookup(op.getScaleA()), scaleB = lookup(op.getScaleB());
  if (!scaleA || !isa<LLVM::LLVMPointerType>(scaleA.getType()))
    return op.emitError("row scales must come from the producer's ring");
  auto bScales = blockScales.find(op.getScaleB());
  if (!scaleB || bScales == blockScales.end())
    return op.emitError("column scales must be per-block scales read by the math threads");
  int64_t bn = config.getBlockN();
  // Rows of this thread in the m64 accumulator: r0 and r0 + 8.
  Value row0 = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mulI32(mathWg, 64), mulI32(warpInWg, 16)),
      arith::DivUIOp::create(b, loc, lane, constI32(4)));
  auto loadScale = [&](Value row) {
    Value p = LLVM::GEPOp::create(b, loc, scaleA.getType(), b.getF32Type(), scaleA,
                                  ValueRange{row});
    return LLVM::LoadOp::create(b, loc, b.getF32Type(), p, /*alignment=*/4);
  };
  Value sa0 = loadScale(row0);
  Value sa1 = loadScale(arith::AddIOp::create(b, loc, row0, constI32(8)));
  // The slot is no longer read: let the producer refill it during promotion.
  if (release)
    (void)lowerRingRelease(lookup(release.getStage()));

  // Promotion on CUDA cores: acc += (sa * sb) * partial, fragment by fragment
  // (fragment i = d[4i..4i+3]: d[4i], d[4i+1] in row r0, d[4i+2], d[4i+3] in
  // row r0 + 8, all in columns 8i .. 8i+7).
  Value result = acc;
  for (int64_t i = 0; i < bn / 8; ++i) {
    Value sb = fragmentScale(bScales->second, i);
    Value rowScales[2] = {arith::MulFOp::create(b, loc, sa0, sb),
                          arith::MulFOp::create(b, loc, sa1, sb)};
    for (int64_t j = 4 * i; j < 4 * i + 4; ++j) {
      Value p = LLVM::ExtractValueOp::create(b, loc, partial, j);
      Value a = LLVM::ExtractValueOp::create(b, loc, result, j);
      Value fma = LLVM::FMAOp::create(b, loc, p, rowScales[(j % 4) / 2], a);
      result = LLVM::InsertValueOp::create(b, loc, result, fma, j);
    }
  }
  return result;
}

LogicalResult KernelLowering::lowerScaledDot(ScaledDotOp op, RingReleaseOp fusedRelease) {
  FailureOr<Value> partial = issueDot(op);
  if (failed(partial))
    return failure();
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  FailureOr<Value> result = promoteDot(op, *partial, lookup(op.getAcc()), fusedRelease);
  if (failed(result))
    return failure();
  mapping[op] = *result;
  return success();
}

/// Epilogue: round to bf16 pairs, stage the tile in shared memory, and let
/// one thread TMA-store it (TMA clips the parts past M and N).
LogicalResult KernelLowering::lowerStore(StoreOp op) {
  Value acc = lookup(op.getValue());
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  MLIRContext *ctx = b.getContext();
  Value row0 = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mulI32(mathWg, 64), mulI32(warpInWg, 16)),
      arith::DivUIOp::create(b, loc, lane, constI32(4)));
  Value col0 = mulI32(arith::RemUIOp::create(b, loc, lane, constI32(4)), 2);
  // In a persistent loop the staging tile is reused: wait until the thread
  // that stored the previous tile saw TMA finish reading it.
  if (op->getParentOfType<TileLoopOp>())
    NVVM::BarrierOp::create(b, loc, Type(), constI32(kMathBarrierId),
                            constI32(128 * config.getMathWarpgroups()), nullptr, Value());
  auto v2f32 = VectorType::get({2}, b.getF32Type());
  auto v2bf16 = VectorType::get({2}, b.getBF16Type());
  Value zeroIdx = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  Value oneIdx = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
  for (int64_t i = 0; i < bn / 8; ++i) {
    for (int64_t half = 0; half < 2; ++half) {
      Value lo = LLVM::ExtractValueOp::create(b, loc, acc, 4 * i + 2 * half);
      Value hi = LLVM::ExtractValueOp::create(b, loc, acc, 4 * i + 2 * half + 1);
      Value vec = LLVM::UndefOp::create(b, loc, v2f32);
      vec = LLVM::InsertElementOp::create(b, loc, vec, lo, zeroIdx);
      vec = LLVM::InsertElementOp::create(b, loc, vec, hi, oneIdx);
      Value packed = LLVM::BitcastOp::create(
          b, loc, b.getI32Type(), LLVM::FPTruncOp::create(b, loc, v2bf16, vec));
      Value row = arith::AddIOp::create(b, loc, row0, constI32(8 * half));
      Value col = arith::AddIOp::create(b, loc, col0, constI32(8 * i));
      Value element = arith::AddIOp::create(b, loc, mulI32(row, bn), col);
      Value addr = smemAt(arith::AddIOp::create(b, loc, constI32(outputOffset),
                                                mulI32(element, 2)));
      LLVM::StoreOp::create(b, loc, packed, addr, /*alignment=*/4);
    }
  }
  // Generic-proxy stores must be visible to the TMA engine before it reads.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  NVVM::BarrierOp::create(b, loc, Type(), constI32(kMathBarrierId),
                          constI32(128 * config.getMathWarpgroups()), nullptr, Value());
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mathTid, constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value coordN = mulI32(toI32(lookup(op.getCol())), bn);
  Value coordM = mulI32(toI32(lookup(op.getRow())), bm);
  NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
      b, loc, argParams.lookup(op.getDest()), smemAt(outputOffset), ValueRange{coordN, coordM},
      /*l2CacheHint=*/Value(), NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE),
      /*predicate=*/Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  // The shared-memory source must stay valid until TMA has read it.
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0), b.getUnitAttr());
  return success();
}

namespace {
struct ConvertFgemmToNVVMPass
    : fgemm::impl::ConvertFgemmToNVVMPassBase<ConvertFgemmToNVVMPass> {
  using ConvertFgemmToNVVMPassBase::ConvertFgemmToNVVMPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      KernelLowering lowering(kernel, module, overlapPromotion);
      if (failed(lowering.run()))
        return signalPassFailure();
      kernel.erase();
    }
  }
};
} // namespace
