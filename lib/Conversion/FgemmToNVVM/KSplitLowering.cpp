//===- KSplitLowering.cpp - K shares added in the cluster ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Part of convert-fgemm-to-nvvm: fgemm.combine_k_split, the end of a K-split
// cluster's tile (k_split = S CTAs, rank r ran its share of the K blocks).
// The shares meet in distributed shared memory, never in global memory:
//
//   rank r > 0 (its ring is idle: every     rank 0
//   K block it loaded was consumed)
//     bar.sync (math: every warpgroup's       try_wait.acquire.cluster ready
//       wgmmas have read the ring)
//     st.shared fragments -> own ring
//     bar.sync (math)                         for r = 1 .. S-1 (rank order):
//     thread 0: mbarrier.arrive.release.        acc += ld.shared::cluster
//       cluster ready@rank 0                           fragments@rank r
//     try_wait done (its shared memory        bar.sync (math)
//       must outlive rank 0's reads)          thread 0: arrive done@rank r
//                                             store the tile
//
// Each math thread's fragments are 16-byte vectors at (vector x threads +
// thread) x 16, so every warp instruction moves 512 contiguous bytes. The
// barriers (ready: S - 1 arrivals, done: 1) are the two past the ring's
// (planSharedMemory), used once: a plain grid's CTA runs one tile.
//
//===----------------------------------------------------------------------===//

#include "Conversion/FgemmToNVVM/KernelLowering.h"

using namespace mlir;
using namespace mlir::fgemm;
using namespace mlir::fgemm::detail;

/// 16-byte loads of another rank's share in flight per math thread.
static constexpr int64_t kSplitLoadsInFlight = 8;

Value KernelLowering::kSplitBarrier(bool done) {
  return smemAt(barrierOffset + 16 * stages + (done ? 8 : 0));
}

void KernelLowering::initKSplitBarriers() {
  NVVM::MBarrierInitOp::create(b, loc, kSplitBarrier(/*done=*/false),
                               constI32(config.getKSplit() - 1), Value());
  NVVM::MBarrierInitOp::create(b, loc, kSplitBarrier(/*done=*/true),
                               constI32(1), Value());
}

/// Waits for phase 0 of `barrier` with cluster-scope acquire: what the
/// arriving CTAs wrote before their release is visible after it.
void KernelLowering::waitClusterBarrier(Value barrier) {
  emitAsm("{\n"
          ".reg .pred done;\n"
          "wait:\n"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, "
          "[$0], 0;\n"
          "@!done bra wait;\n"
          "}",
          "l", ValueRange{barrier});
}

LogicalResult KernelLowering::lowerCombineKSplit(CombineKSplitOp op) {
  Value partial = lookup(op.getPartial());
  Type accType = partial.getType();
  int64_t fields = config.getWaves() * config.getBlockN() / 2;
  int64_t threads = 128 * config.getMathWarpgroups();
  int64_t splits = config.getKSplit();
  // The shares wait in their CTAs' rings, which start at byte 0.
  if (fields * threads * 4 > outputOffset)
    return op.emitError("k_split: a share of the ")
           << config.getBlockM() << "x" << config.getBlockN() << " f32 tile ("
           << fields * threads * 4 << " bytes) does not fit in the ring's "
           << outputOffset << " bytes of shared memory; use more stages";
  auto vecType = VectorType::get({4}, b.getF32Type());
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  // Arrivals on another CTA's barrier order this CTA's work at cluster scope.
  auto clusterScope =
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CLUSTER);
  auto vectorAt = [&](int64_t v) {
    return smemAt(mulI32(
        arith::AddIOp::create(b, loc, mathTid, constI32(v * threads)), 16));
  };
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  Value isThread0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          mathTid, constI32(0));
  Value owner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rank,
                                      constI32(0));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{accType}, owner,
                                /*withElseRegion=*/true);
  {
    // Rank 0: add the other ranks' shares in rank order.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    waitClusterBarrier(kSplitBarrier(/*done=*/false));
    Value acc = partial;
    // A chunk of vectors in flight at a time: all of a 128-column share's
    // at once spilled under the two-warpgroup register cap.
    for (int64_t r = 1; r < splits; ++r)
      for (int64_t v0 = 0; v0 < fields / 4; v0 += kSplitLoadsInFlight) {
        int64_t v1 = std::min(fields / 4, v0 + kSplitLoadsInFlight);
        SmallVector<Value> loaded;
        for (int64_t v = v0; v < v1; ++v) {
          Value remote = NVVM::MapaOp::create(b, loc, clusterPtr, vectorAt(v),
                                              constI32(r));
          loaded.push_back(
              LLVM::LoadOp::create(b, loc, vecType, remote, /*alignment=*/16));
        }
        for (int64_t v = v0; v < v1; ++v)
          acc = addFragmentVector(acc, v, loaded[v - v0]);
      }
    // Every math thread has read the shares: the other ranks may end.
    mathBarrier();
    auto release = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
    b.setInsertionPointToStart(release.thenBlock());
    for (int64_t r = 1; r < splits; ++r) {
      Value remote = NVVM::MapaOp::create(
          b, loc, clusterPtr, kSplitBarrier(/*done=*/true), constI32(r));
      NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value(),
                                     clusterScope);
    }
    b.setInsertionPointAfter(release);
    scf::YieldOp::create(b, loc, acc);
  }
  {
    // Ranks 1 .. S - 1: leave the share in the own ring, tell rank 0, and
    // stay until rank 0 has read it.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    // Each math warpgroup waited for its own last wgmmas only: the other's
    // may still read a ring stage the share overwrites (a 128x256 share
    // covers nearly the whole ring; compute-sanitizer's slower runs gave
    // wrong results without this barrier), so all arrive first.
    mathBarrier();
    for (int64_t v = 0; v < fields / 4; ++v)
      LLVM::StoreOp::create(b, loc, fragmentVector(partial, v), vectorAt(v),
                            /*alignment=*/16);
    // bar.sync orders every math thread's stores before thread 0's
    // cluster-scope release (cumulativity).
    mathBarrier();
    auto signal = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
    b.setInsertionPointToStart(signal.thenBlock());
    Value ready = NVVM::MapaOp::create(
        b, loc, clusterPtr, kSplitBarrier(/*done=*/false), constI32(0));
    NVVM::MBarrierArriveOp::create(b, loc, Type(), ready, Value(),
                                   clusterScope);
    b.setInsertionPointAfter(signal);
    waitParity(kSplitBarrier(/*done=*/true), constI32(0));
    scf::YieldOp::create(b, loc, partial);
  }
  mapping[op.getSum()] = ifOp.getResult(0);
  mapping[op.getOwner()] = owner;
  return success();
}
