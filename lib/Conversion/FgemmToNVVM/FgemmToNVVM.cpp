//===- FgemmToNVVM.cpp - fgemm kernels to LLVM + NVVM ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// convert-fgemm-to-nvvm: lowers a pipelined, warp-specialized fgemm.kernel to
// an llvm.func kernel built from nvvm, llvm, scf and arith ops. The kernel is
// a whole-program structure (roles, ring, shared-memory plan), so this is an
// explicit walk that maps fgemm values to LLVM values, not 1:1 patterns.
//
//   thread 0: prefetch.tensormap; mbarrier.init; fence.mbarrier_init
//   tid / 128 == 0 (producer)            tid / 128 >= 1 (math warpgroup w)
//   setmaxnreg.dec 40                    setmaxnreg.inc 232
//   thread 0: for kb:                    for kb:
//     try_wait empty[s], p ^ 1             try_wait full[s], p
//     arrive.expect_tx full[s], bytes      per wave (1 or 2 m64 row blocks):
//     cp.async.bulk.tensor A, B, SFA         read 2 row scales; wgmma.fence;
//   (cluster: try_wait every empty[s]        4 x wgmma m64nNk32 e4m3; commit;
//    once more before exit)                  wait 0; (last wave) arrive
//                                            empty[s]; N/2 FFMA promotions
//                                            (FMUL in the first K block,
//                                            peeled: no zeroed accumulator)
//                                        cvt bf16x2, stmatrix,
//                                        fence.proxy.async bar.sync 1, 128*w;
//                                        TMA store
// Both K loops are unrolled by 2, 3 or 4 at the end of the pass.
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

#include "Conversion/FgemmToNVVM/KernelLowering.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

#define DEBUG_TYPE "convert-fgemm-to-nvvm"

namespace mlir::fgemm {
#define GEN_PASS_DEF_CONVERTFGEMMTONVVMPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;
using namespace mlir::fgemm;
using namespace mlir::fgemm::detail;

/// Marks a K loop for unrolling once the kernel is lowered.
static constexpr llvm::StringLiteral kUnrollAttrName = "fgemm.unroll_k_loop";
/// Marks an unrolled K loop whose remainder, where its trip count is known,
/// is unrolled fully as well: two-wave tiles (256x128), 0.2-1.8% faster at
/// M = 4096 on the H100; the smaller tiles measured up to 2.6% slower at
/// M <= 128 (docs/PERF.md, seventeenth session).
static constexpr llvm::StringLiteral kUnrollRemainderAttrName =
    "fgemm.unroll_k_remainder";
/// K blocks per trip of the K loops (KernelConfig::getKLoopUnroll).
static int64_t kLoopUnrollFactor(ConfigAttr config, int64_t stages) {
  KernelConfig knobs = config.getKnobs();
  knobs.stages = stages;
  return knobs.getKLoopUnroll();
}

/// With K compiled in and a stage count dividing the unroll factor, each
/// copy's ring stage folds to a constant (where a tile's K blocks are a
/// multiple of the stages, as at K = 7168): its blocks pin their address
/// bases (emitKBlock), and the blocks a loop of whole trips leaves over run
/// after the peeled one (buildKLoop).
static bool hasConstantStageCopies(ConfigAttr config, int64_t stages) {
  return config.getFixedK() && kLoopUnrollFactor(config, stages) % stages == 0;
}

/// KernelConfig::hasAlignedKLoopTrips at `stages`.
static bool hasAlignedTrips(ConfigAttr config, int64_t stages) {
  KernelConfig knobs = config.getKnobs();
  knobs.stages = stages;
  return knobs.hasAlignedKLoopTrips();
}

Value KernelLowering::barrierAt(bool empty, Value stage) {
  Value index = toI32(stage);
  if (empty)
    index = arith::AddIOp::create(b, loc, index, constI32(stages));
  return smemAt(
      arith::AddIOp::create(b, loc, constI32(barrierOffset), mulI32(index, 8)));
}

void KernelLowering::waitParity(Value barrier, Value parityI32) {
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parityI32,
                                        constI32(kTryWaitTicks));
}

Type KernelLowering::partialType() {
  // m64nN f32 of one column group: each of the warpgroup's 128 threads
  // holds N / 2 values.
  SmallVector<Type> fields(config.getGroupN() / 2, b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
}

Type KernelLowering::accumulatorType() {
  SmallVector<Type> fields(config.getWaves() * config.getBlockN() / 2,
                           b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
}

/// The fgemm.read_tile of `store`'s value when the store writes `x +
/// read_tile(C)` at the very tile it read (C a 2-D tensor of the
/// destination's dimensions, same indices, no `rows`): where C and D are
/// one buffer, the lowering stores x by TMA reduce-add instead of reading C.
static ReadTileOp getAccumulatedRead(StoreOp store) {
  auto add = store.getValue().getDefiningOp<AddOp>();
  if (!add || store.getRowsBegin() || !add->hasOneUse())
    return ReadTileOp();
  for (Value operand : {add.getRhs(), add.getLhs()}) {
    auto read = operand.getDefiningOp<ReadTileOp>();
    if (read && read->hasOneUse() &&
        read.getSource().getType() == store.getDest().getType() &&
        read.getIndices() == store.getIndices() &&
        read.getResult().getType() == add.getLhs().getType() &&
        add.getLhs().getType() == add.getRhs().getType())
      return read;
  }
  return ReadTileOp();
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
  // Outputs a store cuts by rows are also written by the threads directly.
  DenseSet<Value> directOutputs;
  // So are outputs a store may accumulate into (their address is compared
  // with the addend's).
  kernel.walk([&](StoreOp store) {
    if (store.getRowsBegin() || getAccumulatedRead(store))
      directOutputs.insert(store.getDest());
  });
  for (BlockArgument arg : entry.getArguments())
    if (!llvm::is_contained(tmaArgs, arg) || directOutputs.contains(arg))
      ptrArgs.push_back(arg);
  for (Value v : tmaArgs)
    if (!isa<BlockArgument>(v))
      return kernel.emitError("TMA source is not a kernel argument");

  // The parameter list, as the kernel description will state it.
  SmallVector<Attribute> paramDescs;
  auto argIndex = [](Value v) {
    return int64_t(cast<BlockArgument>(v).getArgNumber());
  };
  for (Value v : tmaArgs) {
    SmallVector<int64_t> box;
    int64_t swizzle = 0;
    kernel.walk([&](Operation *op) {
      if (!box.empty() || op->getNumOperands() == 0)
        return;
      if (auto load = dyn_cast<LoadOp>(op); load && load.getSource() == v) {
        // Tensor maps are {inner = columns, outer = rows}; a multicast load
        // brings 1/cluster of the rows per CTA.
        ArrayRef<StringAttr> d = load.getResult().getType().getDims();
        int64_t rows =
            extent(d[0]) / (load.getMulticast() ? config.getCluster() : 1);
        box = {extent(d[1]), rows};
        swizzle = 128;
      } else if (auto scales = dyn_cast<LoadScalesOp>(op);
                 scales && scales.getSource() == v) {
        // A multicast load brings 1/cluster of the rows' scales per CTA.
        int64_t rows = extent(scales.getResult().getType().getDims()[0]);
        box = {rows / (scales.getMulticast() ? config.getCluster() : 1), 1};
      } else if (auto store = dyn_cast<StoreOp>(op);
                 store && store.getDest() == v) {
        // One TMA copy per staged slab (OutputStaging) and wave.
        ArrayRef<StringAttr> d = store.getValue().getType().getDims();
        OutputStaging staging =
            getOutputStaging(extent(d[1]), outputElementBytes(store));
        box = {staging.columns, kWaveRows};
        swizzle = staging.swizzleBytes;
      }
    });
    paramDescs.push_back(
        TensorMapParamAttr::get(ctx, argIndex(v), box, swizzle));
  }
  // Outputs a store cuts by rows also get maps of shorter boxes: the whole
  // 8-row patterns of a cut wave go out by TMA too (storeCutRows).
  SmallVector<Value> cutArgs;
  kernel.walk([&](StoreOp store) {
    if (!store.getRowsBegin() || llvm::is_contained(cutArgs, store.getDest()))
      return;
    cutArgs.push_back(store.getDest());
    ArrayRef<StringAttr> d = store.getValue().getType().getDims();
    OutputStaging staging =
        getOutputStaging(extent(d[1]), outputElementBytes(store));
    for (int64_t rows : kCutBoxRows)
      paramDescs.push_back(TensorMapParamAttr::get(
          ctx, argIndex(store.getDest()),
          SmallVector<int64_t>{staging.columns, rows}, staging.swizzleBytes));
  });
  // Tiles the producer loads that may reach past their source's last row
  // also get maps of shorter boxes (lowerRingPut).
  SmallVector<std::pair<Value, int64_t>> rowBoxMaps;
  kernel.walk([&](RingPutOp put) {
    for (Value v : put.getValues()) {
      auto load = v.getDefiningOp<LoadOp>();
      if (!load || !mayEndInsideTile(load) ||
          llvm::any_of(rowBoxMaps, [&](auto &map) {
            return map.first == load.getSource();
          }))
        continue;
      for (int64_t rows : rowBoxHeights(load)) {
        rowBoxMaps.push_back({load.getSource(), rows});
        paramDescs.push_back(TensorMapParamAttr::get(
            ctx, argIndex(load.getSource()),
            SmallVector<int64_t>{
                extent(load.getResult().getType().getDims()[1]), rows},
            /*swizzle=*/128));
      }
    }
  });
  for (Value v : ptrArgs)
    paramDescs.push_back(PointerParamAttr::get(ctx, argIndex(v)));
  bool usesWorkspace =
      kernel.walk([](CombineKPiecesOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (usesWorkspace)
    paramDescs.push_back(WorkspaceParamAttr::get(ctx, workspaceBytesPerCta()));
  for (StringAttr dim : kernel.getDims().getAsRange<StringAttr>())
    paramDescs.push_back(DimParamAttr::get(ctx, dim));
  // launch_raster: the tile order's group comes with the launch.
  bool launchRaster =
      kernel.walk([](RasterGroupOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (launchRaster)
    paramDescs.push_back(RasterGroupParamAttr::get(
        ctx, std::max<int64_t>(config.getRasterGroup(), 1)));

  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> params;
  SmallVector<Attribute> paramAttrs;
  auto tensorMapType =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  size_t cutMaps = cutArgs.size() * std::size(kCutBoxRows);
  for (size_t i = 0; i < tmaArgs.size() + cutMaps + rowBoxMaps.size(); ++i) {
    params.push_back(genericPtr);
    paramAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(tensorMapType)),
         b.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(64)),
         b.getNamedAttr(NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr())}));
  }
  // A tensor the epilogue reads may be the output itself (C = D): no
  // noalias, which would let LLVM read it through the non-coherent cache.
  DenseSet<Value> mayAliasOutput;
  kernel.walk(
      [&](ReadTileOp read) { mayAliasOutput.insert(read.getSource()); });
  for (Value v : ptrArgs) {
    params.push_back(globalPtr);
    paramAttrs.push_back(
        mayAliasOutput.contains(v)
            ? b.getDictionaryAttr({})
            : b.getDictionaryAttr({b.getNamedAttr(
                  LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr())}));
  }
  if (usesWorkspace) {
    params.push_back(globalPtr);
    paramAttrs.push_back(b.getDictionaryAttr({b.getNamedAttr(
        LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr())}));
  }
  for (size_t i = 0; i < kernel.getDims().size() + (launchRaster ? 1 : 0);
       ++i) {
    params.push_back(b.getI32Type());
    paramAttrs.push_back(b.getDictionaryAttr({}));
  }

  b.setInsertionPointToEnd(module.getBody());
  if (!module.lookupSymbol(kSharedMemoryName)) {
    auto global = LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kSharedMemoryName,
        Attribute(), /*alignment=*/1024,
        /*addrSpace=*/3);
    (void)global;
  }
  if (config.getTimeline() && !module.lookupSymbol(kTimelineName)) {
    // Zero-initialized, visible: the reader finds both by name
    // (cuModuleGetGlobal).
    auto stamps = LLVM::GlobalOp::create(
        b, loc,
        LLVM::LLVMArrayType::get(
            b.getI64Type(), kTimelineCtas * kTimelineRoles * kTimelineSlots),
        /*isConstant=*/false, LLVM::Linkage::External, kTimelineName,
        Attribute(), /*alignment=*/8, /*addrSpace=*/1);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&stamps.getInitializerRegion().emplaceBlock());
    LLVM::ReturnOp::create(
        b, loc, LLVM::ZeroOp::create(b, loc, stamps.getGlobalType()));
    b.setInsertionPointAfter(stamps);
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI32Type(), 3),
        /*isConstant=*/true, LLVM::Linkage::External, kTimelineShapeName,
        DenseIntElementsAttr::get(RankedTensorType::get({3}, b.getI32Type()),
                                  ArrayRef<int32_t>{int32_t(kTimelineCtas),
                                                    int32_t(kTimelineRoles),
                                                    int32_t(kTimelineSlots)}),
        /*alignment=*/4, /*addrSpace=*/1);
  }
  func = LLVM::LLVMFuncOp::create(
      b, loc, kernel.getSymName(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
  func.setArgAttrsAttr(b.getArrayAttr(paramAttrs));
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                b.getDenseI32ArrayAttr(
                    {static_cast<int32_t>(config.getNumThreads()), 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                b.getI32IntegerAttr(entryMaxRegisters(config.getNumThreads())));
  if (config.getCluster() > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr(
                      {static_cast<int32_t>(config.getCluster()), 1, 1}));
  // What the kernel description needs (Compiler/KernelDescription.cpp).
  func->setAttr("fgemm.config", config);
  if (TileGridAttr grid = kernel.getGridAttr())
    func->setAttr("fgemm.grid", grid);
  func->setAttr("fgemm.dims", kernel.getDims());
  if (auto variant = kernel.getVariantAttr())
    func->setAttr("fgemm.variant", variant);
  func->setAttr("fgemm.args",
                b.getArrayAttr(llvm::map_to_vector(
                    kernel.getArgumentTypes(),
                    [](Type t) -> Attribute { return TypeAttr::get(t); })));
  func->setAttr("fgemm.params", b.getArrayAttr(paramDescs));
  Block *body = func.addEntryBlock(b);
  b.setInsertionPointToStart(body);

  unsigned next = 0;
  for (Value v : tmaArgs) {
    argParams[v] = body->getArgument(next++);
    tensorMapParams.push_back(argParams[v]);
  }
  for (Value v : cutArgs)
    for (size_t i = 0; i < std::size(kCutBoxRows); ++i) {
      cutBoxParams[v].push_back(body->getArgument(next++));
      tensorMapParams.push_back(cutBoxParams[v].back());
    }
  // (Not prefetched: only a tile at the end of its source uses them.)
  for (auto [v, rows] : rowBoxMaps)
    rowBoxParams[v].push_back({rows, body->getArgument(next++)});
  for (Value v : ptrArgs)
    argPointers[v] = body->getArgument(next++);
  if (usesWorkspace)
    workspace = body->getArgument(next++);
  for (auto [i, name] :
       llvm::enumerate(kernel.getDims().getAsValueRange<StringAttr>())) {
    Value value = body->getArgument(next++);
    // Shapes folded at specialization become constants (so that, e.g., the
    // K loop's trip count is known to the unroller).
    int64_t fixed = fixedDim(name);
    dims[name] = fixed ? constIndex(fixed) : toIndex(value);
  }
  if (launchRaster)
    rasterGroup = toIndex(body->getArgument(next++));
  smemBase = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 3), kSharedMemoryName);
  Value baseAddress =
      LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), smemBase);
  descriptorBase = arith::OrIOp::create(
      b, loc,
      arith::ShRUIOp::create(
          b, loc, arith::AndIOp::create(b, loc, baseAddress, constI32(0x3FFFF)),
          constI32(4)),
      constI32(1 << 16));
  return success();
}

LogicalResult KernelLowering::run() {
  if (!config)
    return kernel.emitError("convert-fgemm-to-nvvm needs a specialized kernel");
  if (kernel.getOps<WarpSpecializeOp>().empty())
    return kernel.emitError("convert-fgemm-to-nvvm needs warp roles "
                            "(run fgemm-warp-specialize first)");
  SmallVector<RingCreateOp> rings;
  kernel.walk([&](RingCreateOp r) { rings.push_back(r); });
  if (rings.size() != 1 || !rings.front().getPlanAttr())
    return kernel.emitError("convert-fgemm-to-nvvm needs one pipelined ring "
                            "(run fgemm-pipeline-tma first)");
  if (!kernel.getGridAttr())
    return kernel.emitError("convert-fgemm-to-nvvm needs scheduled tiles "
                            "(run fgemm-schedule-tiles first)");
  if (failed(buildFunction()))
    return failure();
  if (failed(lowerBlock(kernel.getBody().front())))
    return failure();
  if (skippedTile)
    b.setInsertionPointAfter(skippedTile);
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
  if (&op == skipOp || carriedOrderOps.contains(&op))
    return success();
  // Index arithmetic made by the passes (stage/phase) lowers later with arith.
  if (isa_and_nonnull<arith::ArithDialect>(op.getDialect())) {
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
        Value id = p.getDim() == Dim::X
                       ? Value(NVVM::BlockIdXOp::create(b, loc, i32))
                   : p.getDim() == Dim::Y
                       ? Value(NVVM::BlockIdYOp::create(b, loc, i32))
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
        mapping[n] = b.createOrFold<arith::CeilDivUIOp>(loc, extentValue,
                                                        constIndex(block));
        return success();
      })
      .Case([&](RingPutOp p) { return lowerRingPut(p); })
      .Case([&](RingGetOp g) { return lowerRingGet(g); })
      .Case([&](RingReleaseOp r) {
        return lowerRingRelease(lookup(r.getStage()));
      })
      .Case([&](LoadOp l) -> LogicalResult {
        // Issued by the ring.put that consumes it.
        if (!llvm::all_of(l->getUsers(),
                          [](Operation *u) { return isa<RingPutOp>(u); }))
          return l.emitError("tile loads must feed the producer's ring "
                             "(run fgemm-warp-specialize first)");
        return success();
      })
      .Case([&](LoadScalesOp l) -> LogicalResult {
        if (isTmaLoad(l) || preloaded.contains(l))
          return success(); // issued by its ring.put, or staged by the K loop
        return lowerLoadScales(l);
      })
      .Case([&](ScaledDotOp d) {
        auto release = dyn_cast_or_null<RingReleaseOp>(d->getNextNode());
        if (release)
          skipOp = release;
        return lowerScaledDot(d, release);
      })
      .Case([&](StoreOp s) -> LogicalResult {
        if (s == deferredStore)
          return success(); // stored by the next tile (lowerTileLoop)
        if (!s.getWhen())
          return lowerStore(s);
        OpBuilder::InsertionGuard guard(b);
        auto ifOp = scf::IfOp::create(b, loc, lookup(s.getWhen()),
                                      /*withElseRegion=*/false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        return lowerStore(s);
      })
      .Case([&](CombineKPiecesOp c) { return lowerCombineKPieces(c); })
      .Case([&](CombineKSplitOp c) { return lowerCombineKSplit(c); })
      .Case([&](ReadOp r) {
        mapping[r] = loadEntry(r.getSource(), toI32(lookup(r.getIndex())));
        return success();
      })
      .Case([&](FindGroupOp f) { return lowerFindGroup(f); })
      .Case([&](FindPieceGroupOp f) { return lowerFindPieceGroup(f); })
      .Case([&](CountRowTilesOp c) { return lowerCountRowTiles(c); })
      .Case([&](FindRowTileGroupOp f) { return lowerFindRowTileGroup(f); })
      .Case([&](RasterGroupOp r) {
        mapping[r] = rasterGroup;
        return success();
      })
      .Case([&](DimOp d) -> LogicalResult {
        Value value = dims.lookup(d.getDim());
        if (!value)
          return d.emitError("unknown dimension '") << d.getDim() << "'";
        mapping[d] = value;
        return success();
      })
      .Case([&](ZeroRowsOp z) { return lowerZeroRows(z); })
      .Case([&](ReadTileOp r) { return lowerReadTile(r); })
      .Case([&](AddOp a) {
        return lowerElementwise(a, a.getLhs(), a.getRhs(), /*multiply=*/false);
      })
      .Case([&](CastOp c) { return lowerCast(c); })
      .Case([&](MulOp m) {
        return lowerElementwise(m, m.getLhs(), m.getRhs(), /*multiply=*/true);
      })
      .Case([&](SkipTileIfOp skip) -> LogicalResult {
        // The rest of the kernel runs inside `if (!condition)`.
        if (skippedTile)
          return skip.emitError("a kernel skips its tile at most once");
        Value run =
            arith::XOrIOp::create(b, loc, lookup(skip.getCondition()),
                                  arith::ConstantIntOp::create(b, loc, 1, 1));
        auto ifOp = scf::IfOp::create(b, loc, run, /*withElseRegion=*/false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        skippedTile = ifOp;
        return success();
      })
      .Case([&](YieldOp) { return success(); }) // handled by the region's owner
      .Case([&](ReturnOp) { return success(); })
      .Default([&](Operation *other) {
        return other->emitError("convert-fgemm-to-nvvm cannot lower this op");
      });
}

/// Thread 0 initializes the barriers; everyone waits for it.
LogicalResult KernelLowering::lowerRingCreate(RingCreateOp op) {
  RingPlanAttr plan = op.getPlanAttr();
  stages = plan.getStages();
  barrierOffset = plan.getBarriers();
  outputOffset = plan.getOutputOffset();
  scaleOffset = plan.getScales();
  planDecoupledWarpgroups = plan.getDecoupledWarpgroups();
  warpgroupScaleBytes =
      plan.getScaleBytes() /
      (planDecoupledWarpgroups ? config.getMathWarpgroups() : 1);
  smemBytes = plan.getSmemBytes();
  // Epilogue vectors are staged past the scales, where the plan left room
  // (planSharedMemory).
  vectorOffset = llvm::alignTo(scaleOffset + plan.getScaleBytes(), 16);
  slotOffsets.assign(plan.getOffsets().begin(), plan.getOffsets().end());
  slotStrides.assign(plan.getSlotStrides().begin(),
                     plan.getSlotStrides().end());
  slotBytes.assign(plan.getSlotBytes().begin(), plan.getSlotBytes().end());
  func->setAttr("fgemm.smem_bytes", b.getI64IntegerAttr(smemBytes));

  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    // Fetch the TMA descriptors now, during the barrier set-up, instead of
    // at the first copy (a global-memory round trip per CTA before its first
    // load, and before its store; DeepGEMM prefetches them too).
    for (Value param : tensorMapParams)
      NVVM::PrefetchOp::create(b, loc, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, param,
                               /*predicate=*/Value(),
                               /*tensormap=*/b.getUnitAttr(),
                               /*uniform=*/nullptr,
                               /*in_param_space=*/b.getUnitAttr());
    // The group sizes a row-tile count reads after the set-up (masked_m):
    // their first line comes from DRAM meanwhile (32 groups per line).
    kernel.walk([&](CountRowTilesOp count) {
      if (Value sizes = argPointers.lookup(count.getSizes()))
        NVVM::PrefetchOp::create(
            b, loc,
            NVVM::PrefetchCacheLevelAttr::get(b.getContext(),
                                              NVVM::PrefetchCacheLevel::L2),
            /*evictPriority=*/nullptr, sizes, /*predicate=*/Value(),
            /*tensormap=*/nullptr, /*uniform=*/nullptr,
            /*in_param_space=*/nullptr);
    });
    int64_t mathThreads = 128 * config.getMathWarpgroups();
    for (int64_t s = 0; s < stages; ++s) {
      // full: the producer's expect_tx arrival; empty: the math threads.
      NVVM::MBarrierInitOp::create(b, loc, smemAt(barrierOffset + 8 * s),
                                   constI32(1), Value());
      // Each math warp arrives once on the barrier of every CTA of its
      // cluster (lowerRingRelease).
      int64_t arrivals = mathThreads / 32 * config.getCluster();
      NVVM::MBarrierInitOp::create(b, loc,
                                   smemAt(barrierOffset + 8 * (stages + s)),
                                   constI32(arrivals), Value());
    }
    if (config.getKSplit() > 1)
      initKSplitBarriers();
    // Make the initialized barriers visible to the peer CTAs and to the TMA
    // unit: fence.mbarrier_init orders only the inits (CUTLASS's
    // fence_barrier_init); a full proxy fence had cost a MEMBAR.ALL.CTA.
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  if (config.getCluster() > 1 || config.getKSplit() > 1)
    // No peer multicasts into (or arrives on) barriers not yet initialized.
    clusterSyncAfterBarrierInit();
  else
    NVVM::Barrier0Op::create(b, loc);
  return success();
}

LogicalResult KernelLowering::lowerWarpSpecialize(WarpSpecializeOp op) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value warpgroup = arith::DivUIOp::create(b, loc, tid, constI32(128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);

  // Producer warpgroup: give registers away; one thread issues all TMA.
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, op.getProducerRegs(),
                                 NVVM::SetMaxRegisterAction::decrease);
  Value isElected =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constI32(0));
  auto electIf = scf::IfOp::create(b, loc, isElected, /*withElseRegion=*/false);
  b.setInsertionPointToStart(electIf.thenBlock());
  timelineRole = constI32(0);
  if (failed(lowerRole(op.getProducer().front())))
    return failure();

  // Math warpgroups: take the registers for accumulators.
  b.setInsertionPointToStart(ifOp.elseBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, op.getConsumerRegs(),
                                 NVVM::SetMaxRegisterAction::increase);
  consumerRegs = op.getConsumerRegs();
  mathTid = arith::SubIOp::create(b, loc, tid, constI32(128));
  // The warpgroup index through a shuffle from lane 0: ptxas then knows it
  // is warp-uniform and keeps the wgmma descriptors derived from it in
  // uniform registers (no R2UR per wgmma; DeepGEMM does the same).
  mathWg = NVVM::ShflOp::create(
      b, loc, b.getI32Type(), constI32(-1),
      arith::DivUIOp::create(b, loc, mathTid, constI32(128)), constI32(0),
      constI32(0x1f), NVVM::ShflKind::idx,
      /*return_value_and_is_valid=*/UnitAttr());
  Value inWg = arith::RemUIOp::create(b, loc, mathTid, constI32(128));
  warpInWg = arith::DivUIOp::create(b, loc, inWg, constI32(32));
  lane = arith::RemUIOp::create(b, loc, tid, constI32(32));
  timelineRole = arith::AddIOp::create(b, loc, mathWg, constI32(1));
  timelineMathRole = true;
  return lowerRole(op.getConsumer().front());
}

LogicalResult KernelLowering::lowerRole(Block &role) {
  if (config.getTimeline()) {
    // The CTA's linear index (a plain grid spans x, y and z).
    Type i32 = b.getI32Type();
    Value yz = arith::AddIOp::create(
        b, loc, NVVM::BlockIdYOp::create(b, loc, i32),
        arith::MulIOp::create(b, loc, NVVM::GridDimYOp::create(b, loc, i32),
                              NVVM::BlockIdZOp::create(b, loc, i32)));
    timelineCta = arith::AddIOp::create(
        b, loc, NVVM::BlockIdXOp::create(b, loc, i32),
        arith::MulIOp::create(b, loc, NVVM::GridDimXOp::create(b, loc, i32),
                              yz));
  }
  stampTimeline(TimelineEvent::Entry);
  // Without a tile loop (a plain grid: one tile per CTA) the role's body is
  // the CTA's tile 0, so its timeline has the tile's stamps too.
  bool oneTile = config.getTimeline() &&
                 !role.walk([](TileLoopOp) { return WalkResult::interrupt(); })
                      .wasInterrupted();
  Value outerTile = timelineTile;
  if (oneTile) {
    timelineTile = arith::ConstantIndexOp::create(b, loc, 0);
    stampTimeline(TimelineEvent::TileStart);
  }
  if (failed(lowerBlock(role)))
    return failure();
  if (oneTile) {
    stampTimeline(TimelineEvent::TileEnd);
    timelineTile = outerTile;
  }
  stampTimeline(TimelineEvent::Exit);
  return success();
}

void KernelLowering::stampTimeline(TimelineEvent event) {
  if (!config.getTimeline() || !timelineRole)
    return;
  bool perTile = event != TimelineEvent::Entry && event != TimelineEvent::Exit;
  if ((perTile && !timelineTile) ||
      (event == TimelineEvent::TileFirstWgmma && !timelineMathRole))
    return;
  Value cta = timelineCta;
  Value stamps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, cta,
                                       constI32(kTimelineCtas));
  auto both = [&](Value condition) {
    stamps = arith::AndIOp::create(b, loc, stamps, condition);
  };
  if (timelineMathRole)
    both(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, mathTid, constI32(128)), constI32(0)));
  Value slot = constI32(event == TimelineEvent::Exit ? 1 : 0);
  if (perTile) {
    Value tile =
        arith::IndexCastUIOp::create(b, loc, b.getI32Type(), timelineTile);
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile,
                               constI32(kTimelineTiles)));
    int64_t which = static_cast<int64_t>(event) -
                    static_cast<int64_t>(TimelineEvent::TileStart);
    slot = arith::AddIOp::create(b, loc, mulI32(tile, 4), constI32(2 + which));
  }
  auto ifOp = scf::IfOp::create(b, loc, stamps, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value row =
      arith::AddIOp::create(b, loc, mulI32(cta, kTimelineRoles), timelineRole);
  Value index = arith::ExtUIOp::create(
      b, loc, b.getI64Type(),
      arith::AddIOp::create(b, loc, mulI32(row, kTimelineSlots), slot));
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value base = LLVM::AddressOfOp::create(b, loc, globalPtr, kTimelineName);
  Value address = LLVM::GEPOp::create(b, loc, globalPtr, b.getI64Type(), base,
                                      ValueRange{index});
  LLVM::StoreOp::create(
      b, loc, NVVM::GlobalTimerOp::create(b, loc, b.getI64Type()), address);
}

/// How a tile of the epilogue is held by each math thread.
enum class FragmentLayout { kTile, kPerColumn, kPerRow, kOther };

/// [bm, bn]: the accumulator's fields; [bn]: the thread's columns 8i +
/// 2 (lane % 4) + k at field 2i + k; [bm]: its rows r0 + 8h of wave w at
/// field 2w + h.
static FragmentLayout getFragmentLayout(TileType tile) {
  ArrayRef<StringAttr> d = tile.getDims();
  if (d.size() == 2 && d[0].getValue() == "bm" && d[1].getValue() == "bn")
    return FragmentLayout::kTile;
  if (d.size() == 1 && d[0].getValue() == "bn")
    return FragmentLayout::kPerColumn;
  if (d.size() == 1 && d[0].getValue() == "bm")
    return FragmentLayout::kPerRow;
  return FragmentLayout::kOther;
}

/// The 2-D fgemm.read_tile ops after the math loop `op` (C of D = C +
/// A B^T) whose indices are known before it: each math thread brings the
/// lines of its rows of the tile into L2 now, so that the epilogue's loads
/// wait for L2 rather than DRAM when the main loop ends (128 x 128 tiles
/// at M = 4096, K <= 2048, H100: 10-20% faster, docs/PERF.md). Rows and
/// columns past the tensor prefetch its last element instead (a prefetch
/// has no bounds of its own).
void KernelLowering::prefetchEpilogueReads(KLoopOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto read = dyn_cast<ReadTileOp>(next);
    if (!read || read.getResult().getType().getDims().size() != 2 ||
        !argPointers.lookup(read.getSource()) ||
        getFragmentLayout(read.getResult().getType()) !=
            FragmentLayout::kTile ||
        !llvm::all_of(read.getIndices(), [&](Value v) { return lookup(v); }))
      continue;
    ArrayRef<StringAttr> srcDims = read.getSource().getType().getDims();
    Value rows = toI32(dims.lookup(srcDims[0]));
    Value cols = toI32(dims.lookup(srcDims[1]));
    Value lastRow = arith::SubIOp::create(b, loc, rows, constI32(1));
    Value lastCol = arith::SubIOp::create(b, loc, cols, constI32(1));
    Value firstRow = mulI32(toI32(lookup(read.getIndices()[0])),
                            extent(read.getResult().getType().getDims()[0]));
    int64_t bn = extent(read.getResult().getType().getDims()[1]);
    Value firstCol = mulI32(toI32(lookup(read.getIndices()[1])), bn);
    // A row of the tile spans bn x 4 bytes: its lines are prefetched at
    // every 32nd element and at its last (prefetch i at min(32 i, bn - 1)),
    // split among the 4 lanes that share the row.
    int64_t prefetches = llvm::divideCeil(bn, 32) + 1;
    Value quad = arith::RemUIOp::create(b, loc, lane, constI32(4));
    auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
    for (int64_t wave = 0; wave < config.getWaves(); ++wave)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = arith::MinUIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, firstRow,
                                  arith::AddIOp::create(b, loc,
                                                        accumulatorRow0(wave),
                                                        constI32(8 * half))),
            lastRow);
        for (int64_t j = 0; j < prefetches; j += 4) {
          // Lane q of the row's four takes prefetch j + q.
          Value offset = arith::MinUIOp::create(
              b, loc,
              mulI32(arith::AddIOp::create(b, loc, quad, constI32(j)), 32),
              constI32(bn - 1));
          Value col = arith::MinUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, firstCol, offset), lastCol);
          Value element = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(
                  b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), row),
                  arith::ExtUIOp::create(b, loc, b.getI64Type(), cols)),
              arith::ExtUIOp::create(b, loc, b.getI64Type(), col));
          Value ptr = LLVM::GEPOp::create(b, loc, globalPtr, b.getF32Type(),
                                          argPointers.lookup(read.getSource()),
                                          ValueRange{element});
          NVVM::PrefetchOp::create(
              b, loc,
              NVVM::PrefetchCacheLevelAttr::get(b.getContext(),
                                                NVVM::PrefetchCacheLevel::L2),
              /*evictPriority=*/nullptr, ptr, /*predicate=*/Value(),
              /*tensormap=*/nullptr, /*uniform=*/nullptr,
              /*in_param_space=*/nullptr);
        }
      }
  }
}

SmallVector<LoadScalesOp> KernelLowering::stagedScales(KLoopOp op) {
  Value kbArg = op.getBody().front().getArgument(0);
  SmallVector<LoadScalesOp> staged;
  for (auto scales : op.getBody().getOps<LoadScalesOp>())
    if (!isTmaLoad(scales) && !scales.getSource().getType().isPerTensor() &&
        scales.getKb() == kbArg &&
        !op->isAncestor(scales.getIndex().getParentRegion()->getParentOp()))
      staged.push_back(scales);
  return staged;
}

LogicalResult KernelLowering::lowerKLoop(KLoopOp op) {
  // Only where a CTA computes one tile: in a persistent loop the prefetches
  // measured slower (they compete with the next tile's loads).
  if (!op.getBody().getOps<ScaledDotOp>().empty() &&
      !op->getParentOfType<TileLoopOp>()) {
    prefetchEpilogueReads(op);
  }
  if (!op.getBody().getOps<ScaledDotOp>().empty()) {
    stageEpilogueVectors(op);
    preloadZeroRowEntries(op);
  }
  // The math loop overlaps the next K block's wgmmas with this block's
  // promotion; it needs a second stage to run ahead into.
  // Two partial sums and the accumulator (3 x block_n / 2 registers) must
  // leave room for addresses and scales under setmaxnreg: measured with
  // ptxas 13.0, block_n 96 fits in 232 registers and 112 spills.
  FailureOr<Value> numBlocksOr = kLoopBlocks(op);
  if (failed(numBlocksOr))
    return failure();
  Value numBlocks = *numBlocksOr;
  if (failed(preloadTensorScales(op)))
    return failure();
  int64_t accumulatorRegs = 3 * config.getBlockN() / 2;
  if (config.getOverlapPromotion() && config.getWaves() == 1 && stages >= 2 &&
      accumulatorRegs + kOverlapRegisterReserve <= consumerRegs)
    for (auto dot : op.getBody().getOps<ScaledDotOp>()) {
      if (!op.getBlocks())
        return lowerOverlappedDotLoop(op, dot);
      // The overlapped loop issues block 0 before its loop: a tile that runs
      // no K blocks skips it and keeps its init.
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        numBlocks, constIndex(0));
      Value init = lookup(op.getInits()[0]);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{init.getType()}, any,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        if (failed(lowerOverlappedDotLoop(op, dot)))
          return failure();
        scf::YieldOp::create(b, loc, lookup(op.getResult(0)));
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, init);
      }
      mapping[op.getResult(0)] = ifOp.getResult(0);
      return success();
    }
  // Per-block scales the math threads read: staged in shared memory by
  // buildKLoop.
  SmallVector<LoadScalesOp> staged = stagedScales(op);
  // The math threads stage these scales for the blocks they compute; a K
  // loop without wgmmas (the producer's) has no math threads to do it.
  if (!staged.empty() && op.getBody().getOps<ScaledDotOp>().empty())
    return staged.front().emitError(
        "block-scaled scales read by the math threads (not a TMA load) in a "
        "K loop without fgemm.scaled_dot: load them in the math warpgroups' "
        "K loop, beside the dot that uses them");
  firstStagingOrdered = isFirstStagingOrdered(op);
  stagingSkipsStoreWarp = op->getParentOfType<TileLoopOp>() != nullptr;

  // A tile whose columns straddle 128-column scale blocks (block_n not
  // dividing 128) picks each fragment's scale by its column. Tiles start at
  // multiples of block_n, so their offset inside a scale block takes only
  // 128 / gcd(block_n, 128) values: with few, the loop is emitted once per
  // offset, each copy with its fragments' scales known (no select in the
  // loop); with more, one loop selects them (fragmentScale).
  std::optional<LoadScalesOp> straddling;
  for (LoadScalesOp scales : staged) {
    int64_t rows = extent(scales.getResult().getType().getDims()[0]);
    if (128 % rows != 0)
      straddling = straddling ? std::nullopt : std::optional(scales);
  }
  int64_t step = 0;
  if (straddling)
    step = getScaleOffsetStep(
        extent(straddling->getResult().getType().getDims()[0]));
  if (!straddling || 128 / step > kMaxStraddleCopies) {
    FailureOr<SmallVector<Value>> results =
        buildMathLoop(op, numBlocks, staged);
    if (failed(results))
      return failure();
    for (auto [from, to] : llvm::zip(op.getResults(), *results))
      mapping[from] = to;
    // (A persistent producer drains once, after its tile loop.)
    if (config.getCluster() > 1 && !op.getBody().getOps<RingPutOp>().empty() &&
        !op->getParentOfType<TileLoopOp>())
      drainClusterRing(numBlocks);
    return success();
  }
  int64_t rows = extent(straddling->getResult().getType().getDims()[0]);
  Value offset = arith::RemUIOp::create(
      b, loc, mulI32(toI32(lookup(straddling->getIndex())), rows),
      constI32(128));
  Value which = toIndex(arith::DivUIOp::create(b, loc, offset, constI32(step)));
  // Cases 0 .. n-2; the default is the last offset.
  int64_t copies = 128 / step;
  SmallVector<int64_t> cases =
      llvm::to_vector(llvm::seq<int64_t>(0, copies - 1));
  SmallVector<Type> resultTypes = llvm::map_to_vector(
      op.getInits(), [&](Value v) { return lookup(v).getType(); });
  auto switchOp = scf::IndexSwitchOp::create(b, loc, resultTypes, which, cases,
                                             cases.size());
  OpBuilder::InsertionGuard guard(b);
  for (int64_t c = 0; c < copies; ++c) {
    Region &region = c + 1 < copies ? switchOp.getCaseRegions()[c]
                                    : switchOp.getDefaultRegion();
    b.setInsertionPointToStart(&region.emplaceBlock());
    knownScaleOffsets[straddling->getResult()] = c * step;
    FailureOr<SmallVector<Value>> results =
        buildMathLoop(op, numBlocks, staged);
    if (failed(results))
      return failure();
    scf::YieldOp::create(b, loc, *results);
  }
  knownScaleOffsets.erase(straddling->getResult());
  for (auto [from, to] : llvm::zip(op.getResults(), switchOp.getResults()))
    mapping[from] = to;
  return success();
}

/// Whether no math thread can still read staged scales when the threads
/// stage the first chunk of `op`'s tile: `op` is the only math loop of its
/// tile, and the CTA runs one tile, or the tile's store follows the loop
/// (every lowered store ends with a staging barrier, on every path, which no
/// thread passes before all that read the same copy of the scales, the math
/// warpgroups' or with decoupledWarpgroups its warpgroup's, have finished
/// the tile's K loop).
bool KernelLowering::isFirstStagingOrdered(KLoopOp op) {
  Operation *tileLoop = op->getParentOfType<TileLoopOp>();
  Operation *scope = tileLoop ? tileLoop : op->getParentOfType<KernelOp>();
  int64_t mathLoops = 0;
  scope->walk([&](KLoopOp loop) {
    mathLoops += !loop.getBody().getOps<ScaledDotOp>().empty();
  });
  if (mathLoops != 1)
    return false;
  if (!tileLoop)
    return true;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (isa<StoreOp>(next))
      return true;
  return false;
}

FailureOr<SmallVector<Value>>
KernelLowering::emitKBlock(KLoopOp op, Value kb, Value inLoop, ValueRange args,
                           ArrayRef<LoadScalesOp> staged) {
  Block &body = op.getBody().front();
  mapping[body.getArgument(0)] = kb;
  // In a loop of constant-stage copies, this block's shared-memory
  // addresses and wgmma descriptors derive from bases pinned here: LLVM
  // would hoist every stage's constants out of the loop, and ptxas kept
  // them all in registers.
  llvm::SaveAndRestore savedSmem(smemBase), savedDescriptor(descriptorBase);
  if (hasConstantStageCopies(config, stages)) {
    auto shared = LLVM::LLVMPointerType::get(b.getContext(), 3);
    smemBase = LLVM::IntToPtrOp::create(
        b, loc, shared,
        pinned(LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), smemBase)));
    descriptorBase = pinned(descriptorBase);
  }
  for (auto [from, to] : llvm::zip(body.getArguments().drop_front(), args))
    mapping[from] = to;
  // While the first block's staging is deferred: the hook it joined.
  std::optional<std::function<LogicalResult()>> hookBefore;
  int64_t hookRunsBefore = firstBlockHookRuns;
  if (!staged.empty()) {
    // The per-block scales the math threads read come from shared memory:
    // at the first K block of each chunk the math threads copy the chunk's
    // scales there (a barrier first, so that no thread still reads the
    // previous chunk, and one after). A global load per K block, carried
    // into the next iteration, had stalled on its latency (ncu,
    // docs/PERF.md); DeepGEMM stages its B scales too. At a tile's first
    // block the previous tile's store has ordered its readers already
    // (isFirstStagingOrdered): with no barrier first, each thread's loads
    // start as it arrives, under the store warp's TMA stores.
    //
    // Chunks count from the loop's first block (a stream-K piece's): the
    // loop's own index decides, so that, as without a first block, LLVM
    // sees which unrolled copies cannot start a chunk, and the loop's
    // counters keep to the uniform datapath (with the piece's first block
    // in the test, ptxas moved the whole math loop off it: 116 R2UR).
    // The chunk's scales into shared memory (from `loaded`, one list per
    // staged op, where they are in registers already) and this block's
    // reads of them.
    auto stage = [this, kb, inLoop,
                  staged](ArrayRef<SmallVector<Value>> loaded) {
      Value chunkBlock = arith::RemUIOp::create(b, loc, toI32(inLoop),
                                                constI32(kScaleChunkBlocks));
      Value atChunk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            chunkBlock, constI32(0));
      auto ifOp = scf::IfOp::create(b, loc, atChunk, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        if (!(firstKBlock && firstStagingOrdered))
          stagingBarrier();
        Value chunkStart = arith::SubIOp::create(b, loc, toI32(kb), chunkBlock);
        int64_t word = 0;
        for (size_t i = 0; i < staged.size(); ++i) {
          LoadScalesOp scales = staged[i];
          if (!loaded.empty())
            storeStagedScales(scales, chunkStart, word, loaded[i]);
          else
            stageBlockScales(scales, chunkStart, word);
          word += getScaleBlocksSpanned(
              extent(scales.getResult().getType().getDims()[0]));
        }
        stagingBarrier();
      }
      int64_t word = 0;
      for (LoadScalesOp scales : staged) {
        readStagedScales(scales, chunkBlock, word);
        word += getScaleBlocksSpanned(
            extent(scales.getResult().getType().getDims()[0]));
      }
    };
    for (LoadScalesOp scales : staged)
      preloaded.insert(scales);
    // The tile's first chunk may have been loaded during the previous tile
    // (prefetchTile).
    bool carried = firstKBlock && carriedTileScales.size() == staged.size();
    // In a tile loop the first block loads its chunk of scales after its
    // first wgmmas are issued (and after a deferred store, whose barriers
    // order the previous tile's reads of the staging first), and stores
    // them to shared memory after the wgmmas' wait and the slot's release
    // (beforeFirstPromotion): the loads run under the wgmmas instead of
    // between two tiles (grouped rows at K = 2048 0-2% faster), and
    // the producer gets its slot back as soon as the wgmmas have read it
    // (the whole staging before the wait had cost 1.4% at contiguous
    // K = 7168). A plain grid's CTA stages first: its loads then overlap
    // the wait for its first operands, which arrive later (staging after
    // the wgmmas, 64xN tiles at M <= 128 ran 1.5-5% slower). H100,
    // docs/PERF.md, twenty-ninth session.
    bool inTileLoop = op->getParentOfType<TileLoopOp>() != nullptr;
    if (firstKBlock && (firstBlockHook || (inTileLoop && !carried))) {
      hookBefore = firstBlockHook;
      firstBlockHook = [this, before = firstBlockHook, stage, staged, kb,
                        carried]() {
        if (before && failed(before()))
          return failure();
        if (carried) {
          stage(carriedTileScales);
          return success();
        }
        SmallVector<SmallVector<Value>> loaded;
        for (LoadScalesOp scales : staged)
          loaded.push_back(loadStagedScales(scales, toI32(kb)));
        beforeFirstPromotion = [stage, loaded]() { stage(loaded); };
        return success();
      };
    } else if (carried) {
      stage(carriedTileScales);
    } else {
      stage({});
    }
  }
  LogicalResult lowered = lowerBlock(body);
  if (hookBefore) {
    firstBlockHook = *hookBefore;
    // The block's scales are read in the hooks: a first block that issues
    // or promotes no wgmma would read scales never staged.
    if (succeeded(lowered) &&
        (firstBlockHookRuns == hookRunsBefore || beforeFirstPromotion))
      return op.emitOpError("internal: the first K block's scale staging "
                            "waits for its first wgmmas and their "
                            "promotion, but it has none");
  }
  if (failed(lowered))
    return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  return llvm::map_to_vector(yield.getValues(),
                             [&](Value v) { return lookup(v); });
}

FailureOr<SmallVector<Value>>
KernelLowering::buildMathLoop(KLoopOp op, Value numBlocks,
                              ArrayRef<LoadScalesOp> staged) {
  // Warpgroups of one tile differ in their rows only with one wave each
  // (a warpgroup's 64 rows), and only where a tile has several warpgroups
  // or is one of a pair of row tiles that runs its peer's K blocks.
  bool rowPair =
      config.getCluster() > 1 && config.getMulticast() == Multicast::B;
  // The two copies meet the barriers inside the loop (the scale staging, a
  // deferred store) at different instructions, which bar.sync (.aligned)
  // allows only among threads that all take the same copy: a warpgroup's
  // own barrier (decoupled warpgroups) or one warpgroup's. Copies that met
  // the math warpgroups' shared barrier ran correctly, but compute-sanitizer
  // synccheck flagged them (H200, docs/PERF.md, forty-eighth session).
  bool ownBarriers = decoupledWarpgroups || config.getMathWarpgroups() == 1;
  if (op.getRows().empty() || op.getBody().getOps<ScaledDotOp>().empty() ||
      config.getWaves() != 1 || (config.getMathWarpgroups() == 1 && !rowPair) ||
      !ownBarriers)
    return buildKLoop(op, numBlocks, staged);
  // One branch per tile (DeepGEMM's masked kernel too): a branch per K
  // block around the wgmmas cost about 3% where every warpgroup has rows
  // (H200, docs/PERF.md, forty-seventh session).
  Value first = mulI32(waveBlock(0), kWaveRows);
  Value end = arith::AddIOp::create(b, loc, first, constI32(kWaveRows));
  Value lo =
      arith::MaxUIOp::create(b, loc, toI32(lookup(op.getRows()[0])), first);
  Value hi =
      arith::MinUIOp::create(b, loc, toI32(lookup(op.getRows()[1])), end);
  Value hasRows =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, hi);
  SmallVector<Type> types = llvm::map_to_vector(
      op.getInits(), [&](Value v) { return lookup(v).getType(); });
  auto ifOp = scf::IfOp::create(b, loc, types, hasRows,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  llvm::SaveAndRestore inCopies(inWarpgroupCopies, true);
  sharedBarrierInCopies = false;
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  FailureOr<SmallVector<Value>> results = buildKLoop(op, numBlocks, staged);
  if (failed(results))
    return failure();
  scf::YieldOp::create(b, loc, *results);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  drainsOnly = true;
  FailureOr<SmallVector<Value>> drained = buildKLoop(op, numBlocks, staged);
  drainsOnly = false;
  if (failed(drained))
    return failure();
  if (sharedBarrierInCopies)
    return op.emitOpError(
        "internal: a barrier of all math warpgroups inside the per-warpgroup "
        "copies of the K loop (bar.sync is .aligned: every thread it counts "
        "must run the same instruction)");
  // The rows this warpgroup holds are never stored.
  scf::YieldOp::create(b, loc,
                       llvm::map_to_vector(types, [&](Type type) -> Value {
                         return LLVM::UndefOp::create(b, loc, type);
                       }));
  return SmallVector<Value>(ifOp.getResults());
}

FailureOr<SmallVector<Value>>
KernelLowering::buildKLoop(KLoopOp op, Value numBlocks,
                           ArrayRef<LoadScalesOp> staged) {
  SmallVector<Value> inits =
      llvm::map_to_vector(op.getInits(), [&](Value v) { return lookup(v); });
  // K blocks [from, numBlocks). The loop's index starts at 0 (kb = index +
  // from): after unrolling by u, LLVM then knows the index is a multiple of
  // u and drops the chunk-start staging from the copies that cannot be at a
  // chunk start (from 1, each copy had kept it: 1.5% at K = 16384).
  // (Not for tiles whose offset inside a scale block takes more than two
  // values, block_n 96 or 160: their four K-loop copies, lowerKLoop, leave
  // less room in registers, and the index's extra register made ptxas
  // spill the grouped psum 128x96 kernel.)
  bool shifted = llvm::all_of(staged, [&](LoadScalesOp scales) {
    int64_t rows = extent(scales.getResult().getType().getDims()[0]);
    return getScaleBlocksSpanned(rows) == 1 || getScaleOffsetStep(rows) >= 64;
  });
  // A stream-K piece runs K blocks [first, first + numBlocks).
  Value first = op.getFirst() ? lookup(op.getFirst()) : Value();
  int64_t factor = kLoopUnrollFactor(config, stages);
  bool alignedTrips = hasAlignedTrips(config, stages);
  auto buildLoop = [&](int64_t from,
                       ValueRange loopInits) -> FailureOr<SmallVector<Value>> {
    Value lower = constIndex(shifted ? 0 : from), upper = numBlocks;
    // Folded where K is compiled in: the unrolled loop's remainder then has
    // a known trip count (and is unrolled fully).
    if (shifted && from)
      upper = b.createOrFold<arith::SubIOp>(loc, numBlocks, constIndex(from));
    // The math loop carries its last partial sum (lastPartial) as one more
    // value, so the unrolled copies' wgmmas share one set of registers.
    SmallVector<Value> carried(loopInits);
    bool carriesPartial = static_cast<bool>(lastPartial);
    if (carriesPartial)
      carried.push_back(lastPartial);
    auto forOp =
        scf::ForOp::create(b, loc, lower, upper, constIndex(1), carried);
    if (config.getWaves() * config.getColumnGroups() > 1)
      forOp->setAttr(kUnrollRemainderAttrName, b.getUnitAttr());
    forOp->setAttr(kUnrollAttrName, b.getI64IntegerAttr(factor));
    if (alignedTrips)
      forOp->setAttr(kAlignedTripsAttrName, b.getUnitAttr());
    OpBuilder::InsertionGuard guard(b);
    openLoopBody(forOp);
    Value inLoop = forOp.getInductionVar();
    if (shifted && from)
      inLoop = arith::AddIOp::create(b, loc, inLoop, constIndex(from));
    Value kb = first ? arith::AddIOp::create(b, loc, inLoop, first) : inLoop;
    ValueRange iterArgs = forOp.getRegionIterArgs();
    if (carriesPartial) {
      lastPartial = iterArgs.back();
      iterArgs = iterArgs.drop_back();
    }
    FailureOr<SmallVector<Value>> results =
        emitKBlock(op, kb, inLoop, iterArgs, staged);
    if (failed(results))
      return failure();
    if (carriesPartial)
      results->push_back(lastPartial);
    scf::YieldOp::create(b, loc, *results);
    SmallVector<Value> loopResults(forOp.getResults());
    if (carriesPartial)
      loopResults.pop_back();
    return loopResults;
  };
  // With K compiled in, fgemm-loop-counters carries power-of-two stages
  // too: without that, 128x64 kernels with 4 or 8 stages, this peeled block
  // and the loop unrolled by 4 faulted on the H100 (LoopCounters.cpp).
  if (op.getBody().getOps<ScaledDotOp>().empty()) {
    stampTimeline(TimelineEvent::TileReady);
    return buildLoop(0, inits);
  }

  // The math loop's first K block runs before the loop and promotes with
  // acc = scale * partial: the accumulator needs no zeros, which ptxas had
  // materialized with ~125 CS2R per warp at every tile's start (5% of the
  // warp samples at 4096x32768x512, ncu). A loop over the reduction
  // dimension has at least one block (the runtime refuses K = 0); one with
  // a trip count of its own (a grouped tile of no rows runs none) keeps its
  // inits when it runs none, and pays for their zeros (ptxas materializes
  // them before the branch).
  auto emitPeeled = [&]() -> FailureOr<SmallVector<Value>> {
    lastPartial = Value();
    firstKBlock = true;
    FailureOr<SmallVector<Value>> peeled = emitKBlock(
        op, first ? first : constIndex(0), constIndex(0), inits, staged);
    firstKBlock = false;
    if (failed(peeled))
      return failure();
    // Aligned trips (hasAlignedTrips): the blocks a loop of whole trips
    // leaves over run right after the peeled one, unrolled, so that no
    // remainder loop computes its stage and waits at its head for every
    // block (left after the loop, unrolled, they made ptxas spill the dense
    // 128x192 kernel).
    int64_t from = 1;
    if (std::optional<int64_t> blocks = getConstantIntValue(numBlocks);
        alignedTrips && blocks && !first) {
      for (; (*blocks - from) % factor != 0; ++from) {
        peeled =
            emitKBlock(op, constIndex(from), constIndex(from), *peeled, staged);
        if (failed(peeled))
          return failure();
      }
    }
    FailureOr<SmallVector<Value>> looped = buildLoop(from, *peeled);
    lastPartial = Value();
    return looped;
  };
  if (!op.getBlocks())
    return emitPeeled();
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                    numBlocks, constIndex(0));
  auto ifOp = scf::IfOp::create(b, loc, ValueRange(inits).getTypes(), any,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  // A tile of no K blocks still stores the previous one (overlap_epilogue).
  // Where its own store is bounded by rows, fgemm-schedule-tiles gave it no
  // blocks because it has no rows: that store writes nothing, and the loop
  // yields no zeros, which ptxas would keep in registers beside the
  // previous tile's accumulator and this one's partial sum (it spilled).
  SmallVector<Value> emptyResults = inits;
  if (failed(runFirstBlockHook()))
    return failure();
  if (deferredStore && deferredStore.getRowsBegin())
    for (Value &v : emptyResults)
      v = LLVM::UndefOp::create(b, loc, v.getType());
  scf::YieldOp::create(b, loc, emptyResults);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // Here the tile runs its blocks: a count of select(c, n, 0) is n, a
  // constant where K is compiled in, so that the blocks left over by the
  // constant-stage copies are known (emitPeeled).
  if (auto select = numBlocks.getDefiningOp<arith::SelectOp>();
      select && alignedTrips &&
      matchPattern(select.getFalseValue(), m_Zero()) &&
      matchPattern(select.getTrueValue(), m_Constant()))
    numBlocks = select.getTrueValue();
  FailureOr<SmallVector<Value>> results = emitPeeled();
  if (failed(results))
    return failure();
  scf::YieldOp::create(b, loc, *results);
  return SmallVector<Value>(ifOp.getResults());
}

FailureOr<Value> KernelLowering::kLoopBlocks(KLoopOp op) {
  if (Value blocks = op.getBlocks())
    return lookup(blocks);
  Value extentValue = dims.lookup(op.getDim());
  if (!extentValue)
    return op.emitError("unknown dimension '") << op.getDim() << "'";
  return b.createOrFold<arith::CeilDivUIOp>(loc, extentValue,
                                            constIndex(config.getBlockK()));
}

void KernelLowering::waitForLastStore(TileLoopOp op) {
  // Each store waits only for its predecessor's staging read.
  if (op.getBody()
          .walk([](StoreOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    waitForOutputRead();
}

/// Whether `v` is known from the tile loop's tile and iteration (not the
/// ring position) through `order`'s ops, or from before the loop.
static bool isFromTileOrder(TileLoopOp op,
                            const llvm::SetVector<Operation *> &order,
                            Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &op.getBody().front()
               ? arg.getArgNumber() < 2
               : !op->isAncestor(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  return !op->isAncestor(def) || order.contains(def);
}

/// The top-level ops of the tile loop's body that compute from the loop's
/// tile and iteration by index arithmetic and the layout tensors' lookups:
/// the tile order, in body order.
static llvm::SetVector<Operation *> getTileOrderOps(TileLoopOp op) {
  llvm::SetVector<Operation *> order;
  for (Operation &def : op.getBody().front()) {
    bool tileOrder =
        isa_and_nonnull<arith::ArithDialect>(def.getDialect()) ||
        isa<ReadOp, FindGroupOp, FindPieceGroupOp, FindRowTileGroupOp, DimOp,
            NumBlocksOp, RasterGroupOp>(def);
    if (tileOrder && llvm::all_of(def.getOperands(), [&](Value v) {
          return isFromTileOrder(op, order, v);
        }))
      order.insert(&def);
  }
  return order;
}

FailureOr<SmallVector<Value>>
KernelLowering::prefetchTile(TileLoopOp op, const PrefetchedTile &prefetch,
                             Value iteration, Value tile) {
  Block &body = op.getBody().front();
  bool skipsStoreWarp = stagingSkipsStoreWarp;
  stagingSkipsStoreWarp = true; // as the tile loop's staging
  SmallVector<Type> types = llvm::map_to_vector(
      prefetch.carried, [](Value v) { return v.getType(); });
  for (size_t count : prefetch.scaleCounts)
    types.append(count, b.getF32Type());
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile,
                                        lookup(op.getCount()));
  auto ifOp =
      scf::IfOp::create(b, loc, types, inRange, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  SmallVector<Value> zeros = llvm::map_to_vector(types, [&](Type type) {
    return isa<FloatType>(type)
               ? Value(LLVM::ConstantOp::create(b, loc, type,
                                                b.getFloatAttr(type, 0)))
               : Value(arith::ConstantOp::create(b, loc, type,
                                                 b.getZeroAttr(type)));
  });
  scf::YieldOp::create(b, loc, zeros);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // The order's values and the loop's arguments get back what they had:
  // nothing before the loop, the current tile's (or none) in its body.
  SmallVector<std::pair<Value, Value>> saved = {
      {body.getArgument(0), mapping.lookup(body.getArgument(0))},
      {body.getArgument(1), mapping.lookup(body.getArgument(1))}};
  for (Operation *def : prefetch.order)
    for (Value result : def->getResults()) {
      saved.emplace_back(result, mapping.lookup(result));
      mapping.erase(result);
    }
  mapping[body.getArgument(0)] = iteration;
  mapping[body.getArgument(1)] = tile;
  DenseSet<Operation *> skipped = std::exchange(carriedOrderOps, {});
  auto restore = [&]() {
    for (auto [value, previous] : saved) {
      if (previous)
        mapping[value] = previous;
      else
        mapping.erase(value);
    }
    carriedOrderOps = std::move(skipped);
    stagingSkipsStoreWarp = skipsStoreWarp;
  };
  SmallVector<Value> values;
  for (Operation *def : prefetch.order)
    if (failed(lowerOp(*def))) {
      restore();
      return failure();
    }
  for (Value v : prefetch.carried)
    values.push_back(lookup(v));
  for (LoadScalesOp scales : prefetch.scales)
    llvm::append_range(values, loadStagedScales(scales, constI32(0)));
  restore();
  if (!llvm::equal(ValueRange(values).getTypes(), types))
    return op.emitError("the prefetched tile does not match its staging");
  scf::YieldOp::create(b, loc, values);
  return SmallVector<Value>(ifOp.getResults());
}

FailureOr<KernelLowering::PrefetchedTile>
KernelLowering::planPrefetchedTile(TileLoopOp op,
                                   ArrayRef<LoadScalesOp> staged) {
  PrefetchedTile prefetch;
  prefetch.order = getTileOrderOps(op);
  prefetch.scales.assign(staged.begin(), staged.end());
  Block &body = op.getBody().front();
  auto fromOrder = [&](Value v) {
    return isFromTileOrder(op, prefetch.order, v);
  };
  for (LoadScalesOp scales : staged)
    if (!fromOrder(scales.getIndex()) ||
        (scales.getGroup() && !fromOrder(scales.getGroup())))
      return scales.emitError(
          "prefetch-scales: the scales' tile index or group comes from more "
          "than the tile loop's tile order (index arithmetic and the layout "
          "tensors' lookups at the top of its body), so the next tile's "
          "cannot be computed ahead");
  // The order's values the rest of the body uses (constants it lowers
  // itself).
  for (Operation *def : prefetch.order) {
    if (def->hasTrait<OpTrait::ConstantLike>())
      continue;
    for (Value result : def->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !prefetch.order.contains(body.findAncestorOpInBlock(*user));
          }))
        prefetch.carried.push_back(result);
  }

  for (LoadScalesOp scales : staged)
    prefetch.scaleCounts.push_back(
        llvm::divideCeil(prefetchedEntries(scales), stagers()));
  return prefetch;
}

// Index values of the tile order (tiles, rows, blocks) fit 32 bits: kept as
// i32 across the tile, half the registers of i64.
Value KernelLowering::newStackSlotFor(Type type) {
  return newStackSlot(type.isIndex() ? b.getI32Type() : type);
}

void KernelLowering::storeToSlot(Value value, Value slot) {
  if (value.getType().isIndex())
    value = toI32(value);
  LLVM::StoreOp::create(b, loc, value, slot);
}

Value KernelLowering::loadFromSlot(Type type, Value slot) {
  if (!type.isIndex())
    return LLVM::LoadOp::create(b, loc, type, slot);
  return toIndex(LLVM::LoadOp::create(b, loc, b.getI32Type(), slot));
}

/// Persistent schedule: CTA p of P runs the linear tiles p, p + P, ... <
/// count; the body (from fgemm-schedule-tiles) maps them to coordinates.
///
/// With overlap_epilogue the math role stores each tile one iteration late:
/// the loop carries the tile's accumulator and store coordinates, and the
/// next tile's first K block stores them once its first wgmmas are issued
/// (firstBlockHook), so the staging and the TMA store run while the tensor
/// cores work; the last tile is stored after the loop.
LogicalResult KernelLowering::lowerTileLoop(TileLoopOp op) {
  if (op.isSplit())
    return lowerSplitTileLoop(op);
  Value pid = toIndex(NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
  Value numPrograms = toIndex(NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
  Block &body = op.getBody().front();
  // With a third argument the loop carries the K blocks run so far; a
  // cluster's producer carries them too, for its drain after the loop.
  bool countsBlocks = body.getNumArguments() == 3;
  bool drains = drainsAfter(op);
  StoreOp deferred = getDeferredStore(op);
  // Decided by fgemm-pipeline-tma (the ring plan): the body's math role
  // needs no barrier of all math warpgroups.
  bool savedDecoupled = decoupledWarpgroups;
  decoupledWarpgroups = planDecoupledWarpgroups;
  SmallVector<Value> carried;
  if (countsBlocks || drains)
    carried.push_back(constIndex(0));
  // The CTA's tile count so far, carried (a division by the grid size per
  // tile before: a dozen dependent instructions on every tile's start).
  size_t iterationAt = carried.size();
  carried.push_back(constIndex(0));
  size_t pendingAt = carried.size();
  if (deferred) {
    carried.push_back(LLVM::UndefOp::create(b, loc, accumulatorType()));
    for (size_t i = 1; i < getDeferredOperands(deferred).size(); ++i)
      carried.push_back(constIndex(0));
    carried.push_back(arith::ConstantIntOp::create(b, loc, 0, 1));
  }
  // prefetch_scales: the math role loads each tile's first staged scales
  // during the tile before, once that tile's first wgmmas are issued
  // (nextTileHook; the first tile's before the loop): the next tile's order
  // and the loads' issue run while the tensor cores work, and the tile's
  // staging does not wait for global memory. The values pass through stack
  // slots, as the hook runs inside the K loop's regions. (At the top of the
  // tile, the recomputed order had sat on each tile's path: slower where
  // tiles were long, docs/PERF.md, fifteenth session. checkKernelConfig
  // refuses the knob with the deferred store and the overlapped promotion,
  // which stage otherwise.)
  SmallVector<LoadScalesOp> prefetched;
  if (config.getPrefetchScales()) {
    SmallVector<KLoopOp> mathLoops;
    for (KLoopOp loop : body.getOps<KLoopOp>())
      if (!loop.getBody().getOps<ScaledDotOp>().empty())
        mathLoops.push_back(loop);
    if (mathLoops.size() == 1 && !mathLoops.front().getFirst())
      prefetched = stagedScales(mathLoops.front());
  }
  PrefetchedTile prefetch;
  // The carried order values', then the scales', and their types.
  SmallVector<Value> slots;
  SmallVector<Type> slotTypes;
  auto storeSlots = [&](ValueRange values) {
    for (auto [value, slot] : llvm::zip_equal(values, slots))
      storeToSlot(value, slot);
  };
  if (!prefetched.empty()) {
    FailureOr<PrefetchedTile> planned = planPrefetchedTile(op, prefetched);
    if (failed(planned))
      return failure();
    prefetch = std::move(*planned);
    FailureOr<SmallVector<Value>> first =
        prefetchTile(op, prefetch, constIndex(0), pid);
    if (failed(first))
      return failure();
    for (Value value : *first) {
      slots.push_back(newStackSlotFor(value.getType()));
      slotTypes.push_back(value.getType());
    }
    storeSlots(*first);
  }
  auto forOp = scf::ForOp::create(b, loc, pid, lookup(op.getCount()),
                                  numPrograms, carried);
  waitForLastStore(op);
  OpBuilder::InsertionGuard guard(b);
  openLoopBody(forOp);
  Value tile = forOp.getInductionVar();
  Value iteration = forOp.getRegionIterArgs()[iterationAt];
  mapping[body.getArgument(0)] = iteration;
  mapping[body.getArgument(1)] = tile;
  Value savedTimelineTile = std::exchange(timelineTile, iteration);
  stampTimeline(TimelineEvent::TileStart);
  if (!prefetched.empty()) {
    // This tile's order and first scales, computed and loaded during the
    // previous tile; the next tile's once this one's first wgmmas are
    // issued.
    SmallVector<Value> mine;
    for (auto [slot, type] : llvm::zip_equal(slots, slotTypes))
      mine.push_back(loadFromSlot(type, slot));
    ArrayRef<Value> rest(mine);
    for (Value v : prefetch.carried) {
      mapping[v] = rest.front();
      rest = rest.drop_front();
    }
    carriedTileScales.clear();
    for (size_t count : prefetch.scaleCounts) {
      carriedTileScales.emplace_back(rest.take_front(count));
      rest = rest.drop_front(count);
    }
    for (Operation *def : prefetch.order)
      if (!def->hasTrait<OpTrait::ConstantLike>())
        carriedOrderOps.insert(def);
    nextTileHookRuns = 0;
    nextTileHook = [&, iteration, tile]() -> LogicalResult {
      FailureOr<SmallVector<Value>> next = prefetchTile(
          op, prefetch, arith::AddIOp::create(b, loc, iteration, constIndex(1)),
          arith::AddIOp::create(b, loc, tile, numPrograms));
      if (failed(next))
        return failure();
      storeSlots(*next);
      return success();
    };
  }
  if (countsBlocks)
    mapping[body.getArgument(2)] = forOp.getRegionIterArgs()[0];
  if (deferred) {
    ValueRange pending = forOp.getRegionIterArgs().drop_front(pendingAt);
    deferredStore = deferred;
    firstBlockHookRuns = 0;
    firstBlockHook = [this, deferred, pending]() {
      return emitDeferredStore(deferred, pending);
    };
  }
  LogicalResult lowered = lowerBlock(body);
  decoupledWarpgroups = savedDecoupled;
  firstBlockHook = nullptr;
  nextTileHook = nullptr;
  deferredStore = StoreOp();
  carriedTileScales.clear();
  carriedOrderOps.clear();
  if (failed(lowered))
    return failure();
  if (!prefetched.empty() && nextTileHookRuns == 0)
    return op.emitError("prefetch-scales: the tile's first K block did not "
                        "load the next tile's scales");
  if (deferred && firstBlockHookRuns == 0)
    return deferred.emitError(
        "overlap-epilogue: the tile's first K block did not issue the "
        "previous tile's store");
  SmallVector<Value> yielded;
  if (countsBlocks || drains) {
    // This role's K loop ran the tile's blocks (its trip count, lowered in
    // the body).
    SmallVector<KLoopOp> loops(body.getOps<KLoopOp>());
    if (loops.size() != 1)
      return op.emitError("a tile loop that counts K blocks holds one K loop");
    FailureOr<Value> blocks = kLoopBlocks(loops.front());
    if (failed(blocks))
      return failure();
    yielded.push_back(
        arith::AddIOp::create(b, loc, forOp.getRegionIterArgs()[0], *blocks));
  }
  yielded.push_back(arith::AddIOp::create(b, loc, iteration, constIndex(1)));
  if (deferred) {
    for (Value v : getDeferredOperands(deferred))
      yielded.push_back(lookup(v));
    yielded.push_back(arith::ConstantIntOp::create(b, loc, 1, 1));
  }
  stampTimeline(TimelineEvent::TileEnd);
  timelineTile = savedTimelineTile;
  scf::YieldOp::create(b, loc, yielded);
  b.setInsertionPointAfter(forOp);
  if (drains)
    drainClusterRing(forOp.getResult(0));
  // The last tile's store (before waitForLastStore, which follows the loop).
  if (deferred)
    return emitDeferredStore(deferred,
                             forOp.getResults().drop_front(pendingAt));
  return success();
}

StoreOp KernelLowering::getDeferredStore(TileLoopOp op) {
  if (!config.getOverlapEpilogue())
    return nullptr;
  auto stores = op.getBody().front().getOps<StoreOp>();
  if (stores.empty())
    return nullptr;
  return *stores.begin();
}

SmallVector<Value> KernelLowering::getDeferredOperands(StoreOp store) {
  SmallVector<Value> operands = {store.getValue()};
  llvm::append_range(operands, store.getIndices());
  if (store.getRowsBegin())
    operands.append({store.getRowsBegin(), store.getRowsEnd()});
  return operands;
}

LogicalResult KernelLowering::emitDeferredStore(StoreOp store,
                                                ValueRange carried) {
  OpBuilder::InsertionGuard guard(b);
  auto ifOp =
      scf::IfOp::create(b, loc, carried.back(), /*withElseRegion=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  // The store's operands stand for the carried values while it is lowered.
  SmallVector<Value> operands = getDeferredOperands(store);
  SmallVector<Value> current =
      llvm::map_to_vector(operands, [&](Value v) { return lookup(v); });
  for (auto [operand, value] : llvm::zip(operands, carried))
    mapping[operand] = value;
  LogicalResult lowered = lowerStore(store);
  for (auto [operand, value] : llvm::zip(operands, current))
    mapping[operand] = value;
  return lowered;
}

/// In a cluster the peer CTA's consumers arrive on this CTA's empty
/// barriers (and its producer multicasts into this CTA's slots) until its
/// last K block. After its last put (`numBlocks` puts in all, over every
/// tile of a persistent loop) the producer waits for every slot to be
/// released once more, as it would before `stages` further puts: then no
/// remote arrival or copy into this CTA is pending, and the CTA may exit
/// without a cluster-wide barrier (which had held both CTAs of every cluster
/// until the slower one's epilogue: 8% at 4096x7168x2048, ncu).
void KernelLowering::drainClusterRing(Value numBlocks) {
  for (int64_t i = 0; i < stages; ++i) {
    Value position =
        toI32(arith::AddIOp::create(b, loc, numBlocks, constIndex(i)));
    Value stage = arith::RemUIOp::create(b, loc, position, constI32(stages));
    Value parity = arith::AndIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, position, constI32(stages)),
        constI32(1));
    waitParity(barrierAt(/*empty=*/true, stage),
               arith::XOrIOp::create(b, loc, parity, constI32(1)));
  }
}

bool KernelLowering::mayEndInsideTile(LoadOp load) {
  ArrayRef<StringAttr> source = load.getSource().getType().getDims();
  int64_t rows = extent(load.getResult().getType().getDims()[0]);
  int64_t parts = load.getMulticast() ? config.getCluster() : 1;
  if (tileRowBytes(load) != 128 || rows % (kMinRowBoxRows * parts) != 0)
    return false;
  int64_t fixed = fixedDim(source[source.size() - 2].getValue());
  return fixed == 0 || fixed % rows != 0;
}

SmallVector<int64_t> KernelLowering::rowBoxHeights(LoadOp load) {
  int64_t rows = extent(load.getResult().getType().getDims()[0]);
  int64_t most = load.getMulticast() && config.getCluster() > 1
                     ? rows / config.getCluster()
                     : rows - 1;
  SmallVector<int64_t> heights;
  for (int64_t h = llvm::bit_floor(uint64_t(most)); h >= kMinRowBoxRows; h /= 2)
    heights.push_back(h);
  return heights;
}

void KernelLowering::loadBox(Value to, Value desc, ArrayRef<Value> at,
                             Value full, Value mask) {
  if (mask) {
    // A shared::cta address is the shared::cluster address of the same
    // bytes in this CTA (PTX ISA, state spaces), so the offset is reused as
    // it is: an addrspacecast goes through a generic address, which costs an
    // S2UR of the shared window's base and 64-bit arithmetic on every
    // multicast copy.
    Value offset = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), to);
    to = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), offset);
  }
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, to, desc, at, full, /*im2colOffsets=*/ValueRange(), mask,
      /*l2CacheHint=*/Value(),
      NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
      /*isCTAOnly=*/b.getBoolAttr(!mask), /*group=*/nullptr,
      /*predicate=*/Value());
}

SmallVector<Value> KernelLowering::tileCoords(LoadOp tile) {
  // Tensor maps are {inner = columns, outer = rows}.
  ArrayRef<StringAttr> tdims = tile.getResult().getType().getDims();
  SmallVector<Value> coords;
  coords.push_back(mulI32(toI32(lookup(tile.getCol())), extent(tdims[1])));
  coords.push_back(mulI32(toI32(lookup(tile.getRow())), extent(tdims[0])));
  if (Value group = tile.getGroup())
    coords.push_back(toI32(lookup(group))); // one group per copy
  return coords;
}

void KernelLowering::loadTile(LoadOp tile, Value dst, Value full) {
  Value desc = argParams.lookup(tile.getSource());
  SmallVector<Value> coords = tileCoords(tile);
  if (config.getCluster() <= 1 || !tile.getMulticast()) {
    loadBox(dst, desc, coords, full, Value());
    return;
  }
  int64_t rows = extent(tile.getResult().getType().getDims()[0]);
  loadSharedRows(dst, desc, coords, /*rowCoord=*/1, rows, tileRowBytes(tile),
                 full, tile.getMulticastIf());
}

void KernelLowering::loadScales(LoadScalesOp scales, Value dst, Value full) {
  // MN-major scales: {inner = rows of the operand, outer = K blocks}.
  int64_t rows = extent(scales.getResult().getType().getDims()[0]);
  SmallVector<Value> coords;
  coords.push_back(mulI32(toI32(lookup(scales.getIndex())), rows));
  coords.push_back(toI32(lookup(scales.getKb())));
  if (Value group = scales.getGroup())
    coords.push_back(toI32(lookup(group)));
  Value desc = argParams.lookup(scales.getSource());
  if (config.getCluster() <= 1 || !scales.getMulticast()) {
    loadBox(dst, desc, coords, full, Value());
    return;
  }
  // A part is 128, 256, 384 or 512 bytes (block-m 64-256, cluster 2), so
  // each starts on TMA's 128-byte shared-memory alignment, as the
  // 128-byte-aligned slot does.
  loadSharedRows(dst, desc, coords, /*rowCoord=*/0, rows, /*rowBytes=*/4, full,
                 scales.getMulticastIf());
}

void KernelLowering::loadSharedRows(Value dst, Value desc,
                                    ArrayRef<Value> coords, unsigned rowCoord,
                                    int64_t rows, int64_t rowBytes, Value full,
                                    Value multicastIf) {
  // CTA r of the cluster loads rows [r, r + 1) * rows/cluster of the shared
  // box into every CTA (TMA multicast); the tensor map's box is
  // rows/cluster long (docs/ABI.md).
  int64_t part = rows / config.getCluster();
  // Rows [j, j + 1) * rows/cluster into this CTA's slot, or, with `mask`,
  // into every CTA's.
  auto loadPart = [&](Value j, Value mask) {
    SmallVector<Value> at(coords);
    at[rowCoord] = arith::AddIOp::create(b, loc, at[rowCoord], mulI32(j, part));
    loadBox(LLVM::GEPOp::create(b, loc, dst.getType(), b.getI8Type(), dst,
                                ValueRange{mulI32(j, part * rowBytes)}),
            desc, at, full, mask);
  };
  loadParts(multicastIf, loadPart);
}

void KernelLowering::loadParts(Value shared,
                               function_ref<void(Value, Value)> loadPart) {
  auto multicast = [&] {
    Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
    loadPart(rank, arith::ConstantIntOp::create(
                       b, loc, (1 << config.getCluster()) - 1, 16));
  };
  if (!shared) {
    multicast();
    return;
  }
  // Shared only when the condition holds (the same in every CTA of the
  // cluster); else this CTA loads every part itself, the same bytes into the
  // same slot.
  auto ifOp = scf::IfOp::create(b, loc, lookup(shared),
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  multicast();
  b.setInsertionPointToStart(ifOp.elseBlock());
  for (int64_t j = 0; j < config.getCluster(); ++j)
    loadPart(constI32(j), Value());
}

void KernelLowering::loadRowBoxRange(LoadOp tile, Value dst, Value full,
                                     Value rowBase, Value patterns,
                                     Value mask) {
  SmallVector<Value> origin = tileCoords(tile);
  for (auto [rows, desc] : rowBoxParams.lookup(tile.getSource())) {
    // The digit of `rows`: its box starts after the taller digits' boxes.
    int64_t digit = rows / kMinRowBoxRows;
    Value taken = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, patterns, constI32(digit)), constI32(0));
    auto ifOp = scf::IfOp::create(b, loc, taken, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value above =
        arith::AndIOp::create(b, loc, patterns, constI32(~(2 * digit - 1)));
    Value row =
        arith::AddIOp::create(b, loc, rowBase, mulI32(above, kMinRowBoxRows));
    SmallVector<Value> at = origin;
    at[1] = arith::AddIOp::create(b, loc, at[1], row);
    loadBox(LLVM::GEPOp::create(b, loc, dst.getType(), b.getI8Type(), dst,
                                ValueRange{mulI32(row, tileRowBytes(tile))}),
            desc, at, full, mask);
  }
}

void KernelLowering::loadRowBoxes(LoadOp tile, Value dst, Value full,
                                  Value patterns) {
  // Pinned here: the boxes' rows and addresses are computed on this path
  // only, not hoisted out of the K loop into registers that the producer,
  // under setmaxnreg, does not have (the 128x192 stream-K pairs spilled).
  patterns = pinned(patterns);
  int64_t rows = extent(tile.getResult().getType().getDims()[0]);
  if (config.getCluster() <= 1 || !tile.getMulticast()) {
    loadRowBoxRange(tile, dst, full, constI32(0), patterns, Value());
    return;
  }
  // Part j of the shared tile, as loadTile's parts: its patterns before the
  // last row.
  int64_t part = rows / config.getCluster();
  auto loadPart = [&](Value j, Value mask) {
    Value before = mulI32(j, part / kMinRowBoxRows);
    Value inPart = arith::MaxSIOp::create(
        b, loc,
        arith::MinSIOp::create(b, loc,
                               arith::SubIOp::create(b, loc, patterns, before),
                               constI32(part / kMinRowBoxRows)),
        constI32(0));
    loadRowBoxRange(tile, dst, full, mulI32(j, part), inPart, mask);
  };
  loadParts(tile.getMulticastIf(), loadPart);
}

LogicalResult KernelLowering::lowerRingPut(RingPutOp op) {
  Value stage = lookup(op.getStage());
  Value parity = toI32(lookup(op.getPhase()));
  // Wait until the consumers released this slot's previous contents; a fresh
  // barrier counts parity 1 as complete, so the first round passes at once.
  Value flipped = arith::XOrIOp::create(b, loc, parity, constI32(1));
  waitParity(barrierAt(/*empty=*/true, stage), flipped);
  Value full = barrierAt(/*empty=*/false, stage);
  // A tile that reaches past its source's last row comes in boxes up to
  // that row (loadRowBoxes), the rest of its slot left as it was (rows past
  // the end only reach output rows that are never stored): TMA fills the
  // rows of a box past the end with zeros at a cost of about 2-3 rows of
  // data each. 128x32 at 96 x 4096 x 7168: 19.5 us, against 13.9 for the
  // same rows with memory after them, as at M = 128 (H200, docs/PERF.md,
  // thirty-ninth session). `rowPatterns[i]`: the value's kMinRowBoxRows-row
  // patterns before the last row (null where its whole tile is loaded),
  // `wholeTile[i]`: whether its whole box is loaded.
  SmallVector<Value> rowPatterns(op.getValues().size()),
      wholeTile(op.getValues().size());
  int64_t bytes = 0;
  Value partBytes;
  for (auto [i, value] : llvm::enumerate(op.getValues())) {
    auto tile = value.getDefiningOp<LoadOp>();
    // (Maps were made for the first load of each source.)
    if (!tile || !mayEndInsideTile(tile) ||
        !llvm::equal(
            llvm::make_first_range(rowBoxParams.lookup(tile.getSource())),
            rowBoxHeights(tile))) {
      bytes += slotBytes[i]; // TMA counts whole boxes, zero fill included
      continue;
    }
    ArrayRef<StringAttr> source = tile.getSource().getType().getDims();
    int64_t rows = extent(tile.getResult().getType().getDims()[0]);
    Value left = arith::SubIOp::create(
        b, loc, toI32(dims.lookup(source[source.size() - 2].getValue())),
        mulI32(toI32(lookup(tile.getRow())), rows));
    // At most kWholeBoxFillRows rows past the end: the whole tile's box
    // (then the patterns before the end are fewer than rows /
    // kMinRowBoxRows - 1, one box per binary digit below that).
    wholeTile[i] =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, left,
                              constI32(rows - kWholeBoxFillRows));
    // The rows loaded: all of the whole tile's box (TMA counts its fill).
    Value kept = arith::SelectOp::create(
        b, loc, wholeTile[i], constI32(rows),
        arith::MaxSIOp::create(b, loc, left, constI32(0)));
    rowPatterns[i] = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, kept, constI32(kMinRowBoxRows - 1)),
        constI32(kMinRowBoxRows));
    // Whole boxes are counted, the zero fill of the last one's rows past
    // the end included.
    Value loaded =
        mulI32(rowPatterns[i], slotBytes[i] / (rows / kMinRowBoxRows));
    partBytes =
        partBytes ? arith::AddIOp::create(b, loc, partBytes, loaded) : loaded;
  }
  Value expected = constI32(bytes);
  if (partBytes)
    expected = arith::AddIOp::create(b, loc, expected, partBytes);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, expected,
                                         /*scope=*/nullptr, /*relaxed=*/nullptr,
                                         Value());
  Value stageI32 = toI32(stage);
  for (auto [i, value] : llvm::enumerate(op.getValues())) {
    Operation *load = value.getDefiningOp();
    Value dst = smemAt(arith::AddIOp::create(b, loc, constI32(slotOffsets[i]),
                                             mulI32(stageI32, slotStrides[i])));
    if (auto tile = dyn_cast<LoadOp>(load)) {
      if (!rowPatterns[i]) {
        loadTile(tile, dst, full);
        continue;
      }
      auto ifOp = scf::IfOp::create(b, loc, wholeTile[i],
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      loadTile(tile, dst, full);
      b.setInsertionPointToStart(ifOp.elseBlock());
      loadRowBoxes(tile, dst, full, rowPatterns[i]);
      continue;
    }
    loadScales(cast<LoadScalesOp>(load), dst, full);
  }
  return success();
}

LogicalResult KernelLowering::lowerRingGet(RingGetOp op) {
  Value stage = lookup(op.getStage());
  Value stageI32 = toI32(stage);
  // Addresses and wgmma descriptor words first: they do not depend on the
  // wait, and ptxas does not move work across its retry loop.
  for (auto [i, value] : llvm::enumerate(op.getValues())) {
    Value slot = smemAt(arith::AddIOp::create(
        b, loc, constI32(slotOffsets[i]), mulI32(stageI32, slotStrides[i])));
    mapping[value] = slot;
    if (slotOffsets[i] % 16 == 0 && slotStrides[i] % 16 == 0)
      slotDescriptors[slot] = arith::AddIOp::create(
          b, loc, descriptorBase,
          arith::AddIOp::create(b, loc, constI32(slotOffsets[i] / 16),
                                mulI32(stageI32, slotStrides[i] / 16)));
  }
  if (!reuseRingEntry) {
    if (firstKBlock)
      stampTimeline(TimelineEvent::TileReady);
    waitParity(barrierAt(/*empty=*/false, stage), toI32(lookup(op.getPhase())));
  }
  return success();
}

/// The consumers are done with a slot: one arrival per warp on the empty
/// barrier of every CTA that multicasts into it (only this CTA's without a
/// cluster). The warp's barrier first orders its lanes' reads of the slot.
LogicalResult KernelLowering::lowerRingRelease(Value stage) {
  Value empty = barrierAt(/*empty=*/true, stage);
  NVVM::SyncWarpOp::create(b, loc, constI32(-1));
  Value arrives = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                        constI32(config.getCluster()));
  auto ifOp = scf::IfOp::create(b, loc, arrives, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (config.getCluster() == 1) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), empty, /*count=*/Value(),
                                   /*scope=*/nullptr);
    return success();
  }
  // Lane r arrives on CTA r's barrier.
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value remote = NVVM::MapaOp::create(b, loc, clusterPtr, empty, lane);
  // CTA scope, as CUTLASS's ClusterBarrier::arrive: the slot's data is
  // already in registers, so nothing needs ordering at cluster scope, and a
  // cluster-scope release costs a memory barrier per arrival (ncu: the
  // cluster kernel stalled on membar and ran at half speed).
  NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, /*count=*/Value(),
                                 /*scope=*/nullptr);
  return success();
}

Value KernelLowering::pinned(Value v) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, v.getType(), v, /*asm_string=*/"mov.b32 $0, $1;", "=r,r",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

Value KernelLowering::stagedOffset(Value row, Value col, int64_t elementBytes) {
  OutputStaging staging = getOutputStaging(config.getBlockN(), elementBytes);
  int64_t w = staging.columns, e = elementBytes;
  Value slab = arith::DivUIOp::create(b, loc, col, constI32(w));
  Value inSlab = arith::RemUIOp::create(b, loc, col, constI32(w));
  Value offset = arith::AddIOp::create(
      b, loc, mulI32(slab, config.getBlockM() * w * e),
      arith::AddIOp::create(b, loc, mulI32(row, w * e), mulI32(inSlab, e)));
  if (staging.swizzleBytes == 0)
    return offset;
  // TMA's swizzle: the 16-byte unit (bits 4..) XOR the row of the 8-row
  // pattern (bits 7..), over log2(swizzle / 16) bits; the slabs and the
  // staging tile start on whole patterns.
  Value pattern = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, offset, constI32(7)),
      constI32(staging.swizzleBytes / 16 - 1));
  return arith::XOrIOp::create(
      b, loc, offset, arith::ShLIOp::create(b, loc, pattern, constI32(4)));
}

/// Epilogue: round to the output type (bf16 pairs, or f32 as is), stage the
/// tile in shared memory in swizzled slabs (OutputStaging), and let one
/// thread TMA-store them (TMA clips the parts past M and N).
LogicalResult KernelLowering::lowerStore(StoreOp op) {
  Value acc = lookup(op.getValue());
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  MLIRContext *ctx = b.getContext();
  OpBuilder::InsertionGuard outer(b);
  bool persistent = op->getParentOfType<TileLoopOp>() != nullptr;
  if (op.getRowsBegin()) {
    // A tile the rows miss entirely (a masked tile past its group's rows in
    // a persistent loop) stores nothing: the whole CTA skips the epilogue.
    Value first = mulI32(toI32(lookup(op.getRow())), bm);
    Value lo =
        arith::MaxUIOp::create(b, loc, first, toI32(lookup(op.getRowsBegin())));
    Value hi = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, constI32(bm)),
        toI32(lookup(op.getRowsEnd())));
    Value meets =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, hi);
    // In a tile loop the skip meets the staging barrier too: every store
    // ends with one, which orders this tile's reads of the staged scales
    // before the next tile stages its own (isFirstStagingOrdered).
    auto ifOp = scf::IfOp::create(b, loc, meets, /*withElseRegion=*/persistent);
    if (persistent) {
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      stagingBarrier();
    }
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  // Each math warpgroup stages, stores and (where rows cut the tile) copies
  // out the rows of its own waves. In a persistent loop the staging tile is
  // reused: the warpgroup's leader, which stored its rows of the previous
  // tile, waits until TMA has read them (here, not after the store, so the
  // copy overlaps the next tile's main loop), and the warpgroup's barrier
  // holds its other threads until it has. The warpgroups do not wait for
  // each other: the one whose last wgmmas finished first stages while the
  // other's still run (with one barrier of all math threads here, the
  // 128x192 pairs had run 1-3% slower, docs/PERF.md).
  if (persistent) {
    waitForOutputRead();
    warpgroupBarrier();
  }
  int64_t e = outputElementBytes(op);
  OutputStaging staging = getOutputStaging(bn, e);
  int64_t w = staging.columns;
  if (e == 4)
    stageF32Tile(acc, w);
  else
    stageBf16Tile(acc, w);
  // Generic-proxy stores must be visible to the TMA engine before it reads.
  // The barrier also orders this tile's reads of the staged scales before
  // the next tile stages its own: the math warpgroups' barrier, or with
  // decoupledWarpgroups (each its own copy of the scales) the warpgroup's.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  stagingBarrier();
  OpBuilder::InsertionGuard guard(b);
  Value coordN = mulI32(toI32(lookup(op.getCol())), bn);
  Value coordM = mulI32(toI32(lookup(op.getRow())), bm);
  if (op.getRowsBegin()) {
    // A tile wholly inside the rows goes out by TMA; one the rows cut goes
    // out in whole chunks of rows by TMA and its few rows at the cuts by
    // the math threads (storeCutRows).
    Value begin = toI32(lookup(op.getRowsBegin()));
    Value end = toI32(lookup(op.getRowsEnd()));
    Value whole = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, begin, coordM),
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule,
            arith::AddIOp::create(b, loc, coordM, constI32(bm)), end));
    auto cut = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
    b.setInsertionPointToStart(&cut.getElseRegion().front());
    storeCutRows(op, begin, end);
    b.setInsertionPointToStart(&cut.getThenRegion().front());
  }
  auto ifOp = scf::IfOp::create(b, loc, isWarpgroupLeader(),
                                /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // Wave by wave, slab by slab (kWaveRows x w each); accumulating into the
  // buffer C came from, by reduce-add.
  // The warpgroup's first row is pinned: hoisted out of a persistent tile
  // loop, the addresses derived from it stayed live across the main loop
  // (ptxas spilled the 256x128 kernels specialized for N and K).
  auto storeSlabs = [&](bool reduce) {
    Value firstRow = pinned(mulI32(mathWg, kWaveRows));
    Value rowBase = arith::AddIOp::create(b, loc, coordM, firstRow);
    Value byteBase = mulI32(firstRow, w * e);
    for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
      int64_t waveRow = wave * config.getMathWarpgroups() * kWaveRows;
      storeStagedRows(op, argParams.lookup(op.getDest()), coordN,
                      arith::AddIOp::create(b, loc, rowBase, constI32(waveRow)),
                      byteBase, waveRow * w * e, reduce);
    }
  };
  if (Value aliased = accumulatingStores.lookup(op)) {
    auto choice = scf::IfOp::create(b, loc, aliased, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&choice.getThenRegion().front());
    storeSlabs(/*reduce=*/true);
    b.setInsertionPointToStart(&choice.getElseRegion().front());
    storeSlabs(/*reduce=*/false);
  } else {
    storeSlabs(/*reduce=*/false);
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  // Without a tile loop the store is the CTA's last work: its shared-memory
  // source must stay valid until TMA has read it. (A tile loop waits before
  // the next tile's staging and after the loop.)
  if (!persistent)
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                         b.getUnitAttr());
  return success();
}

/// Bytes per element of `op`'s destination (2: bf16, 4: f32).
int64_t KernelLowering::outputElementBytes(StoreOp op) {
  return op.getDest().getType().getElementType().getIntOrFloatBitWidth() / 8;
}

/// bf16 staging (slabs of w columns).
void KernelLowering::stageBf16Tile(Value acc, int64_t w) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  MLIRContext *ctx = b.getContext();
  auto v2f32 = VectorType::get({2}, b.getF32Type());
  auto v2bf16 = VectorType::get({2}, b.getBF16Type());
  Value zeroIdx = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  Value oneIdx = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
  // stmatrix: a warp stores 8x8 bf16 matrices, lane l giving row l % 8 of
  // matrix l / 8 and holding, in register j, its accumulator pair of matrix
  // j (wgmma's layout: row l / 4, columns 2 (l % 4) + {0, 1}). Each call
  // stores fragment i (columns 8i..8i+7) in rows 0-7 and 8-15 of the warp's
  // 16, and, where slabs are at least 16 columns wide, fragment i + 1 the
  // same way (x4): a quarter of the instructions of one st.shared per pair.
  // The swizzle is an XOR of the 16-byte unit with the row's place in its
  // 8-row pattern, the same for all of this lane's rows (they are 8 apart),
  // so each store is one of w / 16 bases (w / 8 = 1 for narrow slabs) plus
  // a constant that folds into the instruction's immediate. The bases derive
  // from pinned values: hoisted out of a persistent tile loop, they would
  // stay live across the main loop (and ptxas spilled such addresses before).
  bool pairs = w >= 16;
  Value row = pinned(arith::AddIOp::create(
      b, loc, warpRow0(0),
      arith::AddIOp::create(
          b, loc,
          mulI32(arith::AndIOp::create(
                     b, loc, arith::DivUIOp::create(b, loc, lane, constI32(8)),
                     constI32(1)),
                 8),
          arith::RemUIOp::create(b, loc, lane, constI32(8)))));
  Value pairColumn =
      pinned(mulI32(arith::DivUIOp::create(b, loc, lane, constI32(16)), 8));
  SmallVector<Value> bases;
  for (int64_t unit = 0; unit < (pairs ? w / 16 : 1); ++unit)
    bases.push_back(smemAt(arith::AddIOp::create(
        b, loc, constI32(outputOffset),
        stagedOffset(row,
                     pairs ? arith::AddIOp::create(b, loc, pairColumn,
                                                   constI32(16 * unit))
                                 .getResult()
                           : constI32(0),
                     2))));
  auto packedPair = [&](int64_t field) -> Value {
    Value lo = LLVM::ExtractValueOp::create(b, loc, acc, field);
    Value hi = LLVM::ExtractValueOp::create(b, loc, acc, field + 1);
    Value vec = LLVM::UndefOp::create(b, loc, v2f32);
    vec = LLVM::InsertElementOp::create(b, loc, vec, lo, zeroIdx);
    vec = LLVM::InsertElementOp::create(b, loc, vec, hi, oneIdx);
    return LLVM::BitcastOp::create(
        b, loc, b.getI32Type(), LLVM::FPTruncOp::create(b, loc, v2bf16, vec));
  };
  auto layout = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto shape = NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
  auto eltType =
      NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16);
  int64_t step = pairs ? 2 : 1;
  for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
    int64_t waveRows = wave * config.getMathWarpgroups() * 64;
    int64_t first = wave * bn / 2; // this wave's fields of the accumulator
    for (int64_t i = 0; i < bn / 8; i += step) {
      SmallVector<Value> sources;
      for (int64_t f = i; f < i + step; ++f)
        for (int64_t half = 0; half < 2; ++half)
          sources.push_back(packedPair(first + 4 * f + 2 * half));
      // Slabs are whole swizzle patterns, and a pair never spans two.
      int64_t col = 8 * i;
      int64_t offset = (col / w) * bm * w * 2 + waveRows * w * 2;
      Value base = bases[pairs ? (col % w) / 16 : 0];
      Value addr =
          LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                              ArrayRef<LLVM::GEPArg>{int32_t(offset)});
      NVVM::StMatrixOp::create(b, loc, addr, sources, layout, shape, eltType);
    }
  }
}

/// f32 staging (slabs of w columns): stmatrix moves only 16-bit elements, so
/// each thread stores its pairs (row r0 or r0 + 8, columns 8i + 2 (lane % 4)
/// + {0, 1}) with one 8-byte st.shared each. A pair's swizzled address is
/// one of w / 8 bases (its fragment's place in the slab) plus constants for
/// the slab, the wave and the row half (8 rows keep the swizzle pattern).
void KernelLowering::stageF32Tile(Value acc, int64_t w) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  auto v2f32 = VectorType::get({2}, b.getF32Type());
  Value row = pinned(accumulatorRow0(0));
  Value column0 =
      pinned(mulI32(arith::RemUIOp::create(b, loc, lane, constI32(4)), 2));
  SmallVector<Value> bases;
  for (int64_t unit = 0; unit < std::max<int64_t>(w / 8, 1); ++unit)
    bases.push_back(smemAt(arith::AddIOp::create(
        b, loc, constI32(outputOffset),
        stagedOffset(row,
                     arith::AddIOp::create(b, loc, column0, constI32(8 * unit)),
                     4))));
  for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
    int64_t waveRows = wave * config.getMathWarpgroups() * 64;
    int64_t first = wave * bn / 2;
    for (int64_t i = 0; i < bn / 8; ++i) {
      int64_t col = 8 * i;
      for (int64_t half = 0; half < 2; ++half) {
        int64_t offset = (col / w) * bm * w * 4 + (waveRows + 8 * half) * w * 4;
        Value base = bases[(col % w) / 8];
        Value addr =
            LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                                ArrayRef<LLVM::GEPArg>{int32_t(offset)});
        Value pair = LLVM::UndefOp::create(b, loc, v2f32);
        for (int64_t k = 0; k < 2; ++k)
          pair = LLVM::InsertElementOp::create(
              b, loc, pair,
              LLVM::ExtractValueOp::create(b, loc, acc,
                                           first + 4 * i + 2 * half + k),
              constI32(k));
        LLVM::StoreOp::create(b, loc, pair, addr, /*alignment=*/8);
      }
    }
  }
}

void KernelLowering::warpgroupBarrier() {
  Value id = constI32(kWarpgroupBarrierBase);
  if (config.getMathWarpgroups() > 1)
    id = arith::AddIOp::create(b, loc, mathWg, id);
  NVVM::BarrierOp::create(b, loc, Type(), id, constI32(128), nullptr, Value());
}

void KernelLowering::storeStagedRows(StoreOp op, Value map, Value coordN,
                                     Value outputRow, Value rowBytes,
                                     int64_t extraBytes, bool reduce) {
  MLIRContext *ctx = b.getContext();
  int64_t bm = config.getBlockM(), e = outputElementBytes(op);
  int64_t w = getOutputStaging(config.getBlockN(), e).columns;
  auto mode = NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE);
  for (int64_t slab = 0; slab < config.getBlockN() / w; ++slab) {
    SmallVector<Value> coords = {
        arith::AddIOp::create(b, loc, coordN, constI32(slab * w)), outputRow};
    if (Value group = op.getGroup())
      coords.push_back(toI32(lookup(group)));
    Value source = smemAt(arith::AddIOp::create(
        b, loc, rowBytes,
        constI32(outputOffset + slab * bm * w * e + extraBytes)));
    if (reduce)
      NVVM::CpAsyncBulkTensorReduceOp::create(
          b, loc, map, source,
          NVVM::TMAReduxKindAttr::get(ctx, NVVM::TMAReduxKind::ADD), mode,
          coords, /*l2CacheHint=*/Value());
    else
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, map, source, coords, /*l2CacheHint=*/Value(), mode,
          /*predicate=*/Value());
  }
}

void KernelLowering::waitForOutputRead() {
  OpBuilder::InsertionGuard guard(b);
  auto ifOp =
      scf::IfOp::create(b, loc, isWarpgroupLeader(), /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                       b.getUnitAttr());
}

KernelLowering::CutWave KernelLowering::cutWave(StoreOp op, int64_t wave,
                                                Value rowsBegin,
                                                Value rowsEnd) {
  ArrayRef<StringAttr> destDims = op.getDest().getType().getDims();
  Value rowsM = toI32(dims.lookup(destDims.take_back(2)[0]));
  Value end = arith::MinUIOp::create(b, loc, rowsEnd, rowsM);
  Value first = arith::AddIOp::create(
      b, loc, mulI32(toI32(lookup(op.getRow())), config.getBlockM()),
      mulI32(waveBlock(wave), kWaveRows));
  // Rows from the wave's first, clamped to [0, kWaveRows].
  auto local = [&](Value row) -> Value {
    Value from = arith::SubIOp::create(
        b, loc, arith::MaxUIOp::create(b, loc, row, first), first);
    return arith::MinUIOp::create(b, loc, from, constI32(kWaveRows));
  };
  auto eq = [&](Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                                 constI32(y));
  };
  CutWave cut;
  cut.lo = local(rowsBegin);
  cut.hi = local(end);
  Value patternMask = constI32(~(kCutPatternRows - 1));
  cut.boxLo = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, cut.lo, constI32(kCutPatternRows - 1)),
      patternMask);
  cut.boxHi = arith::AndIOp::create(b, loc, cut.hi, patternMask);
  cut.whole =
      arith::AndIOp::create(b, loc, eq(cut.lo, 0), eq(cut.hi, kWaveRows));
  return cut;
}

/// A tile the rows cut goes out by TMA wave by wave where a wave is wholly
/// inside them, and otherwise in boxes of kCutBoxRows rows over its whole
/// 8-row patterns (further maps of the output; each box starts on a whole
/// swizzle pattern of its slab), at most one of each height; the threads
/// copy the rest, at most 7 rows at each end of a cut wave. On the H100 a
/// masked tile cut by its group's last row had taken ~1.4 us longer than a
/// whole one when the threads copied all of its rows out, and 8-row boxes
/// alone or a rolled copy loop kept most of that (128x192 pairs, N = 7168,
/// K = 2048; docs/PERF.md, twenty-seventh session).
void KernelLowering::storeCutRows(StoreOp op, Value rowsBegin, Value rowsEnd) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  int64_t e = outputElementBytes(op);
  int64_t w = getOutputStaging(bn, e).columns;
  SmallVector<Value> boxMaps = cutBoxParams.lookup(op.getDest());
  Value coordN = mulI32(toI32(lookup(op.getCol())), bn);
  Value coordM = mulI32(toI32(lookup(op.getRow())), bm);
  // The slabs of the rows from tile row `row` on, in `map`'s boxes.
  auto storeBoxes = [&](Value map, Value row) {
    storeStagedRows(op, map, coordN, arith::AddIOp::create(b, loc, coordM, row),
                    mulI32(row, w * e), 0, /*reduce=*/false);
  };
  {
    OpBuilder::InsertionGuard guard(b);
    auto leader = scf::IfOp::create(b, loc, isWarpgroupLeader(),
                                    /*withElseRegion=*/false);
    b.setInsertionPointToStart(leader.thenBlock());
    for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
      CutWave cut = cutWave(op, wave, rowsBegin, rowsEnd);
      Value waveRow = mulI32(waveBlock(wave), kWaveRows);
      OpBuilder::InsertionGuard waveGuard(b);
      auto whole =
          scf::IfOp::create(b, loc, cut.whole, /*withElseRegion=*/true);
      b.setInsertionPointToStart(&whole.getThenRegion().front());
      storeBoxes(argParams.lookup(op.getDest()), waveRow);
      // Greedily, tallest first: what is left stays a multiple of 8 below
      // 2 x the next height, so each height is taken at most once.
      b.setInsertionPointToStart(&whole.getElseRegion().front());
      Value at = cut.boxLo;
      for (auto [rows, map] : llvm::zip_equal(kCutBoxRows, boxMaps)) {
        Value fits = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sge,
            arith::SubIOp::create(b, loc, cut.boxHi, at), constI32(rows));
        auto box = scf::IfOp::create(b, loc, fits, /*withElseRegion=*/false);
        {
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(box.thenBlock());
          storeBoxes(map, arith::AddIOp::create(b, loc, waveRow, at));
        }
        at = arith::SelectOp::create(
            b, loc, fits, arith::AddIOp::create(b, loc, at, constI32(rows)),
            at);
      }
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    // As for a whole tile: without a tile loop the CTA's last work.
    if (!op->getParentOfType<TileLoopOp>())
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                           b.getUnitAttr());
  }
  copyOutRows(op, rowsBegin, rowsEnd);
}

/// This warpgroup's waves of the staged tile (bm x bn at outputOffset,
/// OutputStaging) go out in 16-byte pieces (8 bf16 or 4 f32), each of its
/// threads taking every 128th piece of a wave: rows outside the wave's cut
/// or inside its boxes (cutWave), and columns past N, are skipped. (N is a
/// multiple of 8, which D's tensor map needs anyway, so a piece never
/// straddles the end of a row.) The steps are unrolled, every staged piece
/// read before the first store (only the stores are predicated): a rolled
/// loop had kept ~0.5 us of a cut tile's time with only its end rows to copy
/// (H100, docs/PERF.md, twenty-seventh session). The warpgroup reads only the
/// rows it staged: its own barrier orders the reads before its next staging.
void KernelLowering::copyOutRows(StoreOp op, Value rowsBegin, Value rowsEnd) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  ArrayRef<StringAttr> destDims = op.getDest().getType().getDims();
  Value rowsM = toI32(dims.lookup(destDims.take_back(2)[0]));
  Value colsN = toI32(dims.lookup(destDims.back()));
  Value firstRow = mulI32(toI32(lookup(op.getRow())), bm);
  Value firstCol = mulI32(toI32(lookup(op.getCol())), bn);
  // Rows of earlier groups come first in a 3-D destination.
  Value groupRows = constI32(0);
  if (Value group = op.getGroup())
    groupRows = arith::MulIOp::create(b, loc, toI32(lookup(group)), rowsM);
  int64_t e = outputElementBytes(op);
  int64_t pieceColumns = 16 / e, piecesPerRow = bn / pieceColumns;
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  auto within = [&](Value x, Value lo, Value hi) {
    return arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::ule, lo, x),
                                 cmp(arith::CmpIPredicate::ult, x, hi));
  };
  // Element offsets in 64 bits: G x M x N can pass 2^31.
  auto wide = [&](Value v) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  };
  auto v4i32 = VectorType::get({4}, b.getI32Type());
  Value isTrue = arith::ConstantIntOp::create(b, loc, 1, 1);
  int64_t pieces = kWaveRows * piecesPerRow;
  for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
    CutWave cut = cutWave(op, wave, rowsBegin, rowsEnd);
    Value waveRow = mulI32(waveBlock(wave), kWaveRows);
    // Batches of kCopyBatch steps: their reads, then their stores.
    int64_t steps = llvm::divideCeil(pieces, 128);
    // Pinned, as the stores' first row: hoisted out of a persistent tile
    // loop, the pieces' offsets stayed live across the main loop (ptxas
    // spilled the psum pairs specialized for N and K).
    Value thread = pinned(threadInWarpgroup());
    for (int64_t batch = 0; batch < steps; batch += kCopyBatch) {
      SmallVector<std::tuple<Value, Value, Value, Value>> copies;
      for (int64_t step = batch; step < std::min(steps, batch + kCopyBatch);
           ++step) {
        Value piece =
            arith::AddIOp::create(b, loc, thread, constI32(step * 128));
        Value inWave =
            arith::DivUIOp::create(b, loc, piece, constI32(piecesPerRow));
        Value row = arith::AddIOp::create(b, loc, waveRow, inWave);
        Value col = mulI32(
            arith::RemUIOp::create(b, loc, piece, constI32(piecesPerRow)),
            pieceColumns);
        Value globalCol = arith::AddIOp::create(b, loc, firstCol, col);
        Value outsideBoxes = arith::XOrIOp::create(
            b, loc, within(inWave, cut.boxLo, cut.boxHi), isTrue);
        Value inside = arith::AndIOp::create(
            b, loc,
            arith::AndIOp::create(b, loc, within(inWave, cut.lo, cut.hi),
                                  outsideBoxes),
            arith::AndIOp::create(
                b, loc, cmp(arith::CmpIPredicate::ult, piece, constI32(pieces)),
                cmp(arith::CmpIPredicate::ult, globalCol, colsN)));
        // A piece past the wave (pieces not a multiple of 128) reads inside
        // the staging tile anyway: row < bm.
        Value staged = smemAt(arith::AddIOp::create(
            b, loc, constI32(outputOffset),
            stagedOffset(arith::MinUIOp::create(b, loc, row, constI32(bm - 1)),
                         col, e)));
        Value data =
            LLVM::LoadOp::create(b, loc, v4i32, staged, /*alignment=*/16);
        copies.emplace_back(inside, data, row, globalCol);
      }
      for (auto [inside, data, row, globalCol] : copies) {
        OpBuilder::InsertionGuard guard(b);
        auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value globalRow = arith::AddIOp::create(b, loc, firstRow, row);
        Value element = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(
                b, loc,
                wide(arith::AddIOp::create(b, loc, groupRows, globalRow)),
                wide(colsN)),
            wide(globalCol));
        Value target = LLVM::GEPOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1),
            op.getDest().getType().getElementType(),
            argPointers.lookup(op.getDest()), ValueRange{element});
        LLVM::StoreOp::create(b, loc, data, target, /*alignment=*/16);
      }
    }
  }
}

/// The first i in [lo, hi) with `past(i)` (hi if none), for a `past` that
/// holds from some i on: a binary search, lowered to scf.while.
Value KernelLowering::binarySearch(Value lo, Value hi,
                                   function_ref<Value(Value)> past) {
  Type i32 = b.getI32Type();
  auto loop =
      scf::WhileOp::create(b, loc, TypeRange{i32, i32}, ValueRange{lo, hi});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {i32, i32}, {loc, loc});
  scf::ConditionOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                            before->getArgument(0), before->getArgument(1)),
      before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, {i32, i32}, {loc, loc});
  Value low = after->getArgument(0), high = after->getArgument(1);
  Value mid = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, low, high), constI32(1));
  Value isPast = past(mid);
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::SelectOp::create(
                     b, loc, isPast, low,
                     arith::AddIOp::create(b, loc, mid, constI32(1))),
                 arith::SelectOp::create(b, loc, isPast, mid, high)});
  b.setInsertionPointAfter(loop);
  return loop.getResult(0);
}

/// ends[i] (i32) of a 1-D index tensor passed as a pointer.
Value KernelLowering::loadEntry(Value tensor, Value i) {
  Value ptr = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), b.getI32Type(),
      argPointers.lookup(tensor), ValueRange{i});
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), ptr, /*alignment=*/4);
}

/// The first g with ends[g] > row.
LogicalResult KernelLowering::lowerFindGroup(FindGroupOp op) {
  Value groups = toI32(dims.lookup(op.getEnds().getType().getDims()[0]));
  Value row = toI32(lookup(op.getRow()));
  mapping[op] = binarySearch(constI32(0), groups, [&](Value mid) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                 loadEntry(op.getEnds(), mid), row);
  });
  return success();
}

/// The last g with max(ends[g - 1], 0) / block + g <= piece (0 if none):
/// one before the first g in [1, groups) past it.
LogicalResult KernelLowering::lowerFindPieceGroup(FindPieceGroupOp op) {
  Value groups = toI32(dims.lookup(op.getEnds().getType().getDims()[0]));
  Value piece = toI32(lookup(op.getPiece()));
  Value first = binarySearch(constI32(1), groups, [&](Value g) -> Value {
    Value start = arith::MaxSIOp::create(
        b, loc,
        loadEntry(op.getEnds(), arith::SubIOp::create(b, loc, g, constI32(1))),
        constI32(0));
    Value h = arith::AddIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, start, constI32(op.getBlock())),
        g);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, h, piece);
  });
  // The search starts at 1, so first >= 1 (one group: first = 1, group 0).
  mapping[op] = arith::SubIOp::create(b, loc, first, constI32(1));
  return success();
}

/// Group g's rows: clamp(sizes[g], 0, limit) (i32).
Value KernelLowering::groupRowsOf(Value sizes, Value g, Value limit) {
  return arith::MinUIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, loadEntry(sizes, g), constI32(0)),
      limit);
}

/// Group g's row tiles: ceil(clamp(sizes[g], 0, limit) / block) (i32).
Value KernelLowering::rowTilesOf(Value sizes, Value g, Value limit,
                                 int64_t block) {
  return arith::CeilDivUIOp::create(b, loc, groupRowsOf(sizes, g, limit),
                                    constI32(block));
}

/// What a count_row_tiles / find_row_tile_group op counts of group g (i32):
/// its row tiles, or with pairs(pair, tail) (T / 2) * pair + (T % 2) * tail
/// units for its T row tiles.
template <typename RowTileOp>
Value KernelLowering::groupUnitsOf(RowTileOp op, Value g, Value limit) {
  Value tiles = rowTilesOf(op.getSizes(), g, limit, op.getBlock());
  if (!op.getPairUnits())
    return tiles;
  Value pairs = arith::ShRUIOp::create(b, loc, tiles, constI32(1));
  Value odd = arith::AndIOp::create(b, loc, tiles, constI32(1));
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, pairs, toI32(lookup(op.getPairUnits()))),
      arith::MulIOp::create(b, loc, odd, toI32(lookup(op.getTailUnits()))));
}

/// The sum over the groups, 32 per step: lane l of every warp loads group
/// first + l (one coalesced load) and the warp adds the lanes' row tiles
/// (redux.sync), so that the count before the roles split is a few
/// instructions per 32 groups. (Eight groups a step, every lane loading and
/// adding all eight, were ~200 dependent uniform-datapath instructions per
/// warp before any role started: 180 ncu samples in the prologue against 62
/// for the dense kernel; twenty-third session.) The verifier keeps the op at
/// the kernel's top level, where every lane of every warp runs it.
LogicalResult KernelLowering::lowerCountRowTiles(CountRowTilesOp op) {
  Value groups = toI32(dims.lookup(op.getSizes().getType().getDims()[0]));
  Value limit = toI32(lookup(op.getLimit()));
  Value last = arith::SubIOp::create(b, loc, groups, constI32(1));
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  auto forOp =
      scf::ForOp::create(b, loc, constIndex(0), toIndex(groups),
                         constIndex(kWarpSize), ValueRange{constI32(0)});
  {
    OpBuilder::InsertionGuard guard(b);
    openLoopBody(forOp);
    Value g =
        arith::AddIOp::create(b, loc, toI32(forOp.getInductionVar()), lane);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, groups);
    Value tiles =
        groupUnitsOf(op, arith::MinUIOp::create(b, loc, g, last), limit);
    Value mine = arith::SelectOp::create(b, loc, inside, tiles, constI32(0));
    Value warpSum = NVVM::ReduxOp::create(b, loc, b.getI32Type(), mine,
                                          NVVM::ReduxKind::ADD, constI32(-1));
    scf::YieldOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, forOp.getRegionIterArgs()[0], warpSum)
            .getResult());
  }
  mapping[op] = toIndex(forOp.getResult(0));
  return success();
}

/// Walks the groups, counting their row tiles, until the one that holds
/// `tile` (the last group if none). Every lookup over the same counts
/// shares a cache of the group found last, its first tile, its end and its
/// rows (four stack slots that LLVM promotes to registers carried around the
/// tile loop): a tile inside that group needs no load at all (a persistent
/// CTA's consecutive tiles and a pair's two row tiles lie mostly in one group);
/// otherwise the walk starts there, first back while the tile lies before
/// it, then forward. (A walk from group 0 was up to 32 dependent loads per
/// tile and role with 32 groups; a walk per lookup, two per tile for a
/// pair's tiles, put two dependent loads on every masked tile's start: with
/// the tile order's divisions 0.45 us against DeepGEMM's 0.24, H100,
/// docs/TIMELINE.md.)
LogicalResult KernelLowering::lowerFindRowTileGroup(FindRowTileGroupOp op) {
  Type i32 = b.getI32Type();
  Value groups = toI32(dims.lookup(op.getSizes().getType().getDims()[0]));
  Value last = arith::SubIOp::create(b, loc, groups, constI32(1));
  Value limit = toI32(lookup(op.getLimit()));
  Value tile = toI32(lookup(op.getTile()));
  RowTileCache cache = rowTileCacheFor(op);
  Value cachedGroup = LLVM::LoadOp::create(b, loc, i32, cache.group);
  Value cachedStart = LLVM::LoadOp::create(b, loc, i32, cache.start);
  Value cachedEnd = LLVM::LoadOp::create(b, loc, i32, cache.end);
  Value cachedRows = LLVM::LoadOp::create(b, loc, i32, cache.rows);
  Value inCached = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, cachedStart,
                            tile),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile,
                            cachedEnd));
  auto found = scf::IfOp::create(b, loc, TypeRange{i32, i32, i32, i32},
                                 inCached, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(found.thenBlock());
    scf::YieldOp::create(
        b, loc, ValueRange{cachedGroup, cachedStart, cachedEnd, cachedRows});
    b.setInsertionPointToStart(found.elseBlock());
    // Back to the last group that starts at or before the tile (group 0
    // starts at tile 0).
    auto back = scf::WhileOp::create(b, loc, TypeRange{i32, i32},
                                     ValueRange{cachedGroup, cachedStart});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before =
          b.createBlock(&back.getBefore(), {}, {i32, i32}, {loc, loc});
      Value g = before->getArgument(0), start = before->getArgument(1);
      Value behind = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile, start),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, g,
                                constI32(0)));
      scf::ConditionOp::create(b, loc, behind, ValueRange{g, start});
      Block *after =
          b.createBlock(&back.getAfter(), {}, {i32, i32}, {loc, loc});
      Value previous =
          arith::SubIOp::create(b, loc, after->getArgument(0), constI32(1));
      scf::YieldOp::create(
          b, loc,
          ValueRange{previous,
                     arith::SubIOp::create(b, loc, after->getArgument(1),
                                           groupUnitsOf(op, previous, limit))});
    }
    // Forward: state (g, tiles of the groups before g); the condition also
    // forwards the tiles up to g's end, which the next step starts from.
    auto loop = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32},
                                     back.getResults());
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before =
          b.createBlock(&loop.getBefore(), {}, {i32, i32}, {loc, loc});
      Value g = before->getArgument(0), start = before->getArgument(1);
      Value end =
          arith::AddIOp::create(b, loc, start, groupUnitsOf(op, g, limit));
      Value onward = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, last),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, tile));
      scf::ConditionOp::create(b, loc, onward, ValueRange{g, start, end});
      Block *after =
          b.createBlock(&loop.getAfter(), {}, {i32, i32, i32}, {loc, loc, loc});
      scf::YieldOp::create(
          b, loc,
          ValueRange{
              arith::AddIOp::create(b, loc, after->getArgument(0), constI32(1)),
              after->getArgument(2)});
    }
    SmallVector<Value> walked(loop.getResults());
    walked.push_back(groupRowsOf(op.getSizes(), walked[0], limit));
    scf::YieldOp::create(b, loc, walked);
  }
  LLVM::StoreOp::create(b, loc, found.getResult(0), cache.group);
  LLVM::StoreOp::create(b, loc, found.getResult(1), cache.start);
  LLVM::StoreOp::create(b, loc, found.getResult(2), cache.end);
  LLVM::StoreOp::create(b, loc, found.getResult(3), cache.rows);
  mapping[op.getGroup()] = toIndex(found.getResult(0));
  mapping[op.getTileInGroup()] =
      toIndex(arith::SubIOp::create(b, loc, tile, found.getResult(1)));
  mapping[op.getGroupRows()] = toIndex(found.getResult(3));
  return success();
}

Value KernelLowering::newStackSlot(Type type) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  Value one =
      LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  return LLVM::AllocaOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()),
                                type, one, /*alignment=*/4);
}

/// The lookup cache of row tiles counted like `op`'s (the same counts,
/// limit and block), made on first use: four i32 stack slots, all 0 at the
/// kernel's entry (group 0 starts at tile 0; an empty range, so the first
/// lookup walks).
KernelLowering::RowTileCache
KernelLowering::rowTileCacheFor(FindRowTileGroupOp op) {
  for (auto &[sizes, limit, block, pairUnits, tailUnits, cache] : rowTileCaches)
    if (sizes == op.getSizes() && limit == op.getLimit() &&
        block == op.getBlock() && pairUnits == op.getPairUnits() &&
        tailUnits == op.getTailUnits())
      return cache;
  RowTileCache cache;
  // Each slot goes to the entry's start, its store after it.
  for (Value *slot : {&cache.rows, &cache.end, &cache.start, &cache.group}) {
    *slot = newStackSlot(b.getI32Type());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(slot->getDefiningOp());
    LLVM::StoreOp::create(b, loc,
                          LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                                   b.getI32IntegerAttr(0)),
                          *slot);
  }
  rowTileCaches.emplace_back(op.getSizes(), op.getLimit(), op.getBlock(),
                             op.getPairUnits(), op.getTailUnits(), cache);
  return cache;
}

/// The index entries of this thread's accumulator rows of zero_rows `op`,
/// one per (wave, half), loaded here (rows past the tensor read its last).
SmallVector<Value> KernelLowering::loadZeroRowEntries(ZeroRowsOp op) {
  Value length = toI32(dims.lookup(op.getIndices().getType().getDims()[0]));
  Value lastEntry = arith::SubIOp::create(b, loc, length, constI32(1));
  Value firstRow = mulI32(toI32(lookup(op.getRow())), config.getBlockM());
  SmallVector<Value> entries;
  for (int64_t wave = 0; wave < config.getWaves(); ++wave)
    for (int64_t half = 0; half < 2; ++half) {
      Value row =
          arith::AddIOp::create(b, loc, firstRow, accumulatorRow(wave, half));
      entries.push_back(loadEntry(
          op.getIndices(), arith::MinUIOp::create(b, loc, row, lastEntry)));
    }
  return entries;
}

/// A zero_rows op's entries are read where they are known before the math
/// loop: after it, their global-memory latency had been on the tile's
/// epilogue path (m_indices' lines are cold).
void KernelLowering::preloadZeroRowEntries(KLoopOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (auto zeroRows = dyn_cast<ZeroRowsOp>(next);
        zeroRows && lookup(zeroRows.getRow()) &&
        argPointers.lookup(zeroRows.getIndices()))
      preloadedRowEntries[zeroRows] = loadZeroRowEntries(zeroRows);
}

/// Each thread reads the index entries of its accumulator rows (two per
/// wave; before the math loop where it can, preloadZeroRowEntries) and
/// zeroes the fragments of rows whose entry is negative or past the index
/// tensor. A warp whose rows are all kept skips the selects: only a
/// group's last row tile has padding rows, and the selects (block_n / 2
/// per thread) were on every tile's epilogue path.
LogicalResult KernelLowering::lowerZeroRows(ZeroRowsOp op) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  Value acc = lookup(op.getValue());
  Value length = toI32(dims.lookup(op.getIndices().getType().getDims()[0]));
  Value firstRow = mulI32(toI32(lookup(op.getRow())), bm);
  auto preloaded = preloadedRowEntries.find(op);
  SmallVector<Value> entries = preloaded != preloadedRowEntries.end()
                                   ? preloaded->second
                                   : loadZeroRowEntries(op);
  // keep[2 * wave + half]: this thread's row (wave, half) is written.
  SmallVector<Value> keep;
  Value keepAll = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (int64_t wave = 0; wave < config.getWaves(); ++wave)
    for (int64_t half = 0; half < 2; ++half) {
      Value row =
          arith::AddIOp::create(b, loc, firstRow, accumulatorRow(wave, half));
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, length);
      keep.push_back(arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                entries[keep.size()], constI32(0))));
      keepAll = arith::AndIOp::create(b, loc, keepAll, keep.back());
    }
  Value warpKeepsAll = NVVM::VoteSyncOp::create(
      b, loc, b.getI1Type(), constI32(-1), keepAll, NVVM::VoteSyncKind::all);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{acc.getType()}, warpKeepsAll,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, loc, acc);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  Value zero =
      LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0.0f));
  for (int64_t wave = 0; wave < config.getWaves(); ++wave) {
    int64_t first = wave * bn / 2;
    for (int64_t i = 0; i < bn / 8; ++i)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t j = 0; j < 2; ++j) {
          int64_t field = first + 4 * i + 2 * half + j;
          Value v = LLVM::ExtractValueOp::create(b, loc, acc, field);
          acc = LLVM::InsertValueOp::create(
              b, loc, acc,
              arith::SelectOp::create(b, loc, keep[size_t(2 * wave + half)], v,
                                      zero),
              field);
        }
  }
  scf::YieldOp::create(b, loc, acc);
  mapping[op] = ifOp.getResult(0);
  return success();
}

/// Each math thread loads the elements of its fragments; elements past the
/// tensor read as zero (their loads read element 0 instead). Column pairs
/// are 8-byte loads: the innermost dimension must be even.
LogicalResult KernelLowering::lowerReadTile(ReadTileOp op) {
  if (!llvm::all_of(op.getIndices(), [&](Value v) { return lookup(v); }))
    return op.emitError("indices must be computed before the epilogue");
  // An addend the store accumulates into the same buffer reads as zeros
  // there: the store adds the rest by TMA reduce-add.
  auto add =
      op->hasOneUse() ? dyn_cast<AddOp>(*op->getUsers().begin()) : AddOp();
  if (add && add->hasOneUse()) {
    auto store = dyn_cast<StoreOp>(*add->getUsers().begin());
    Value source = argPointers.lookup(op.getSource());
    Value dest = store ? argPointers.lookup(store.getDest()) : Value();
    if (store && source && dest && getAccumulatedRead(store) == op) {
      Value aliased =
          source == dest
              ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
              : LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, source,
                                     dest)
                    .getResult();
      accumulatingStores[store] = aliased;
      auto ifOp = scf::IfOp::create(b, loc, accumulatorType(), aliased,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(
          b, loc, LLVM::ZeroOp::create(b, loc, accumulatorType()).getResult());
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      if (failed(loadReadTile(op)))
        return failure();
      scf::YieldOp::create(b, loc, lookup(op.getResult()));
      mapping[op] = ifOp.getResult(0);
      return success();
    }
  }
  return loadReadTile(op);
}

LogicalResult KernelLowering::loadReadTile(ReadTileOp op) {
  auto staged = stagedVectors.find(op);
  if (staged != stagedVectors.end())
    return readStagedVector(op, staged->second);
  TileType tile = op.getResult().getType();
  FragmentLayout layout = getFragmentLayout(tile);
  if (layout == FragmentLayout::kOther)
    return op.emitError("reads [bm, bn] tiles and [bm] or [bn] vectors; got ")
           << tile;
  ArrayRef<StringAttr> srcDims = op.getSource().getType().getDims();
  Value pointer = argPointers.lookup(op.getSource());
  if (!pointer)
    return op.emitError("the source is not passed as a pointer");
  int64_t bn = config.getBlockN(), waves = config.getWaves();
  auto wide = [&](Value v) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  };
  auto cmpLt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  };
  // f32 or bf16 elements; a bf16 value is held widened to f32 (exact).
  Type element = op.getSource().getType().getElementType();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  auto pairType = VectorType::get({2}, element);
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Type f32 = b.getF32Type();
  Value zero = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0.0f));
  SmallVector<Value> fields;
  // `count` elements at `index` (i64) as f32 fields, or zeros where
  // `inside` is false.
  auto load = [&](Value index, Value inside, int64_t count) {
    Value at = arith::SelectOp::create(
        b, loc, inside, index, arith::ConstantIntOp::create(b, loc, 0, 64));
    Value ptr = LLVM::GEPOp::create(b, loc, globalPtr, element, pointer,
                                    ValueRange{at});
    Type type = count == 1 ? element : Type(pairType);
    Value value = LLVM::LoadOp::create(b, loc, type, ptr, count * elementBytes);
    for (int64_t k = 0; k < count; ++k) {
      Value v = count == 1 ? value
                           : Value(LLVM::ExtractElementOp::create(b, loc, value,
                                                                  constI32(k)));
      if (element != f32)
        v = arith::ExtFOp::create(b, loc, f32, v);
      fields.push_back(arith::SelectOp::create(b, loc, inside, v, zero));
    }
  };
  Value column0 = arith::AddIOp::create(
      b, loc,
      mulI32(toI32(lookup(op.getIndices().back())),
             extent(tile.getDims().back())),
      mulI32(arith::RemUIOp::create(b, loc, lane, constI32(4)), 2));
  Value firstRow = mulI32(toI32(lookup(op.getIndices().front())),
                          extent(tile.getDims().front()));
  if (layout == FragmentLayout::kPerColumn) {
    Value cols = toI32(dims.lookup(srcDims[0]));
    for (int64_t i = 0; i < bn / 8; ++i) {
      Value col = arith::AddIOp::create(b, loc, column0, constI32(8 * i));
      load(wide(col), cmpLt(col, cols), 2);
    }
  } else if (layout == FragmentLayout::kPerRow) {
    Value rows = toI32(dims.lookup(srcDims[0]));
    for (int64_t wave = 0; wave < waves; ++wave)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = arith::AddIOp::create(
            b, loc, firstRow,
            arith::AddIOp::create(b, loc, accumulatorRow0(wave),
                                  constI32(8 * half)));
        load(wide(row), cmpLt(row, rows), 1);
      }
  } else {
    // Pairs in field order: wave, fragment i (columns), row half.
    Value rows = toI32(dims.lookup(srcDims[0]));
    Value cols = toI32(dims.lookup(srcDims[1]));
    for (int64_t wave = 0; wave < waves; ++wave)
      for (int64_t i = 0; i < bn / 8; ++i)
        for (int64_t half = 0; half < 2; ++half) {
          Value row = arith::AddIOp::create(
              b, loc, firstRow,
              arith::AddIOp::create(b, loc, accumulatorRow0(wave),
                                    constI32(8 * half)));
          Value col = arith::AddIOp::create(b, loc, column0, constI32(8 * i));
          Value element = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, wide(row), wide(cols)),
              wide(col));
          Value inside =
              arith::AndIOp::create(b, loc, cmpLt(row, rows), cmpLt(col, cols));
          load(element, inside, 2);
        }
  }
  mapping[op] = packFields(fields);
  return success();
}

/// An LLVM struct of the f32 `fields` (an epilogue value).
Value KernelLowering::packFields(ArrayRef<Value> fields) {
  SmallVector<Type> types(fields.size(), b.getF32Type());
  Value result = LLVM::UndefOp::create(
      b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), types));
  for (auto [j, v] : llvm::enumerate(fields))
    result = LLVM::InsertValueOp::create(b, loc, result, v, j);
  return result;
}

/// The epilogue vectors read after the math loop `op` (a bias, a row scale)
/// whose indices are known before it are copied into shared memory now, by
/// cp.async (4 bytes per copy, zero-filled past the tensor): the copies land
/// while the loop runs, and the epilogue reads shared memory. Loaded by
/// each thread after the loop instead, a bf16 bias waited for memory once
/// per tile with the tensor cores idle (256 x 128 persistent tiles 39%
/// slower at 4096 x 32768 x 512, H100); loaded into registers before the
/// loop, the values held registers through it and a persistent tile's start
/// waited for them.
void KernelLowering::stageEpilogueVectors(KLoopOp op) {
  int64_t offset = vectorOffset;
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  int64_t threads = 128 * config.getMathWarpgroups();
  bool any = false;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto read = dyn_cast<ReadTileOp>(next);
    int64_t bytes = read ? getEpilogueVectorBytes(read, config) : 0;
    if (!bytes || offset + bytes > smemBytes ||
        !argPointers.lookup(read.getSource()) ||
        !llvm::all_of(read.getIndices(), [&](Value v) { return lookup(v); }))
      continue;
    TileType tile = read.getResult().getType();
    int64_t elementBytes =
        read.getSource().getType().getElementType().getIntOrFloatBitWidth() / 8;
    int64_t words = extent(tile.getDims()[0]) * elementBytes / 4;
    // Bytes [first, first + 4 words) of the tensor, of which `valid` exist.
    Value first = mulI32(toI32(lookup(read.getIndices()[0])), words * 4);
    Value valid =
        mulI32(toI32(dims.lookup(read.getSource().getType().getDims()[0])),
               elementBytes);
    for (int64_t w0 = 0; w0 < words; w0 += threads) {
      Value word = arith::AddIOp::create(b, loc, mathTid, constI32(w0));
      auto ifOp = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, word,
                                constI32(words)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value byte = arith::AddIOp::create(b, loc, first, mulI32(word, 4));
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, byte, valid);
      // Past the tensor: no bytes read (zero-filled), from its base. A word
      // of 2-byte elements may hold the last one and one past the end.
      Value inWord = constI32(4);
      if (elementBytes < 4)
        inWord = arith::MinUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, valid, byte), constI32(4));
      Value srcBytes =
          arith::SelectOp::create(b, loc, inside, inWord, constI32(0));
      Value at = arith::SelectOp::create(b, loc, inside, byte, constI32(0));
      Value src = LLVM::GEPOp::create(
          b, loc, globalPtr, b.getI8Type(),
          argPointers.lookup(read.getSource()),
          ValueRange{arith::ExtUIOp::create(b, loc, b.getI64Type(), at)});
      Value dst = smemAt(
          arith::AddIOp::create(b, loc, constI32(offset), mulI32(word, 4)));
      NVVM::CpAsyncOp::create(b, loc, dst, src, /*size=*/4,
                              NVVM::LoadCacheModifierKind::CA, srcBytes);
    }
    stagedVectors[read] = offset;
    offset += bytes;
    any = true;
  }
  if (any) {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    vectorsPending = true;
  }
}

/// `op`'s fields from its staging (stageEpilogueVectors): the first read of
/// a tile waits for this thread's copies and, at a barrier, for everyone's.
/// No thread overwrites the staging before all have read it: the next
/// tile's copies start after this tile's store, which has barriers of its
/// own.
LogicalResult KernelLowering::readStagedVector(ReadTileOp op, int64_t offset) {
  if (vectorsPending) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    mathBarrier();
    vectorsPending = false;
  }
  TileType tile = op.getResult().getType();
  FragmentLayout layout = getFragmentLayout(tile);
  Type element = op.getSource().getType().getElementType();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  Type f32 = b.getF32Type();
  SmallVector<Value> fields;
  auto read = [&](Value index, int64_t count) {
    Value at = arith::AddIOp::create(b, loc, constI32(offset),
                                     mulI32(index, elementBytes));
    Type type = count == 1 ? element : Type(VectorType::get({2}, element));
    Value value =
        LLVM::LoadOp::create(b, loc, type, smemAt(at), count * elementBytes);
    for (int64_t k = 0; k < count; ++k) {
      Value v = count == 1 ? value
                           : Value(LLVM::ExtractElementOp::create(b, loc, value,
                                                                  constI32(k)));
      fields.push_back(element == f32
                           ? v
                           : arith::ExtFOp::create(b, loc, f32, v).getResult());
    }
  };
  if (layout == FragmentLayout::kPerColumn) {
    Value column0 =
        mulI32(arith::RemUIOp::create(b, loc, lane, constI32(4)), 2);
    for (int64_t i = 0; i < config.getBlockN() / 8; ++i)
      read(arith::AddIOp::create(b, loc, column0, constI32(8 * i)), 2);
  } else {
    for (int64_t wave = 0; wave < config.getWaves(); ++wave)
      for (int64_t half = 0; half < 2; ++half)
        read(arith::AddIOp::create(b, loc, accumulatorRow0(wave),
                                   constI32(8 * half)),
             1);
  }
  mapping[op] = packFields(fields);
  return success();
}

LogicalResult KernelLowering::lowerElementwise(Operation *op, Value lhs,
                                               Value rhs, bool multiply) {
  auto lhsType = cast<TileType>(lhs.getType());
  auto rhsType = cast<TileType>(rhs.getType());
  FragmentLayout layout = getFragmentLayout(rhsType);
  if (getFragmentLayout(lhsType) != FragmentLayout::kTile ||
      layout == FragmentLayout::kOther)
    return op->emitError("lowers [bm, bn] tiles with a [bm, bn], [bn] or [bm] "
                         "operand; got ")
           << lhsType << " and " << rhsType;
  int64_t bn = config.getBlockN();
  Value x = lookup(lhs), y = lookup(rhs), result = x;
  // Each operand holds this thread's fragments (lowerReadTile's layouts).
  auto fields = [](Value v) -> size_t {
    auto type = v ? dyn_cast<LLVM::LLVMStructType>(v.getType()) : nullptr;
    return type ? type.getBody().size() : 0;
  };
  size_t tileFields = size_t(config.getWaves() * bn / 2);
  size_t rhsFields = layout == FragmentLayout::kTile ? tileFields
                     : layout == FragmentLayout::kPerColumn
                         ? size_t(bn / 4)
                         : size_t(2 * config.getWaves());
  if (fields(x) < tileFields || fields(y) < rhsFields)
    return op->emitError("operands must be epilogue values (the K loop's "
                         "result, fgemm.read_tile, fgemm.zeros or "
                         "elementwise results)");
  for (int64_t f = 0; f < config.getWaves() * bn / 2; ++f) {
    int64_t wave = f / (bn / 2), j = f % (bn / 2);
    int64_t i = j / 4, half = (j % 4) / 2, k = j % 2;
    int64_t other = layout == FragmentLayout::kTile        ? f
                    : layout == FragmentLayout::kPerColumn ? 2 * i + k
                                                           : 2 * wave + half;
    Value a = LLVM::ExtractValueOp::create(b, loc, x, f);
    Value c = LLVM::ExtractValueOp::create(b, loc, y, other);
    Value v = multiply ? Value(LLVM::FMulOp::create(b, loc, a, c))
                       : Value(LLVM::FAddOp::create(b, loc, a, c));
    result = LLVM::InsertValueOp::create(b, loc, result, v, f);
  }
  mapping[op->getResult(0)] = result;
  return success();
}

/// Epilogue values live in FP32 registers whatever their element type: a
/// cast to bf16 rounds each field to nearest even and widens it back (exact),
/// so a later bf16 store converts without a second rounding; a cast to f32
/// keeps the fields.
LogicalResult KernelLowering::lowerCast(CastOp op) {
  Value value = lookup(op.getValue());
  auto type = value ? dyn_cast<LLVM::LLVMStructType>(value.getType()) : nullptr;
  if (!type)
    return op.emitError("casts epilogue values (the K loop's result, "
                        "fgemm.read_tile or elementwise results)");
  Value result = value;
  if (op.getResult().getType().getElementType().isBF16() &&
      !op.getValue().getType().getElementType().isBF16())
    for (size_t j = 0; j < type.getBody().size(); ++j) {
      Value field = LLVM::ExtractValueOp::create(b, loc, value, j);
      Value rounded = arith::ExtFOp::create(
          b, loc, b.getF32Type(),
          arith::TruncFOp::create(b, loc, b.getBF16Type(), field).getResult());
      result = LLVM::InsertValueOp::create(b, loc, result, rounded, j);
    }
  mapping[op.getResult()] = result;
  return success();
}

namespace {
struct ConvertFgemmToNVVMPass
    : fgemm::impl::ConvertFgemmToNVVMPassBase<ConvertFgemmToNVVMPass> {

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      KernelLowering lowering(kernel, module);
      if (failed(lowering.run()))
        return signalPassFailure();
      kernel.erase();
    }
    // The K loops of both roles, unrolled (kLoopUnrollFactor) once the kernel
    // is built (so that the uses of their results are rewired to the remainder
    // loop): the next block's stage, phase and barrier-wait set-up then share
    // a basic block with this block's promotion (or TMA issue), and ptxas
    // overlaps them; it does not schedule across a loop's back edge.
    SmallVector<scf::ForOp> unrolled;
    module.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kUnrollAttrName))
        unrolled.push_back(loop);
    });
    // A marked remainder of known trip count (K compiled in) is unrolled
    // fully: its blocks then have no back edge either.
    for (scf::ForOp loop : unrolled) {
      auto factor = loop->getAttrOfType<IntegerAttr>(kUnrollAttrName);
      bool remainder = loop->hasAttr(kUnrollRemainderAttrName);
      loop->removeAttr(kUnrollAttrName);
      loop->removeAttr(kUnrollRemainderAttrName);
      FailureOr<UnrolledLoopInfo> info =
          loopUnrollByFactor(loop, factor.getInt());
      if (failed(info))
        return signalPassFailure();
      if (remainder && info->epilogueLoopOp &&
          info->epilogueLoopOp->getStaticTripCount() &&
          failed(loopUnrollFull(*info->epilogueLoopOp)))
        return signalPassFailure();
    }
  }
};
} // namespace
