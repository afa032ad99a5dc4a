//===- LoopCounters.cpp - carry div/rem of a loop index ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// fgemm-loop-counters: in an scf.for with a constant step s, the unsigned
// quotient and remainder of (iv + invariant) by a constant C that is not a
// power of two become two counters carried by the loop:
//
//   r0 = x0 mod C, q0 = x0 div C            (x0: the value at the lower bound)
//   r' = r + s mod C; wrap = r' >= C; r' -= wrap ? C : 0
//   q' = q + s div C + wrap
//
// The ring's stage and phase (fgemm-pipeline-tma: kb mod S, kb div S) are
// such values; computed from the K block they cost ptxas a multiply-high,
// shifts and three multiplies at the top of every K block, on the path from
// the last promotion to the next barrier wait and wgmma (docs/PERF.md). The
// counters are ready one iteration early. Powers of two are left alone (a
// shift or a mask is as cheap as the counter update) except in loops of
// constant bounds (counterDivisor says why).
//
// Assumes x does not wrap around (fgemm's indices are below 2^31).
//
//===----------------------------------------------------------------------===//

#include "dialect/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "fgemm-loop-counters"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMLOOPCOUNTERSPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;

namespace {

/// x = iv + the offset terms, divided by `divisor`.
struct CounterKey {
  Value x;
  int64_t divisor;
  bool operator==(const CounterKey &o) const {
    return x == o.x && divisor == o.divisor;
  }
};

struct Counted {
  CounterKey key;
  SmallVector<Value> offset; // loop-invariant terms (none: x = iv)
  SmallVector<arith::RemUIOp> rems;
  SmallVector<arith::DivUIOp> divs;
};

/// Whether `v` has the same value in every iteration of `loop`: defined
/// outside it, or computed in it by side-effect-free ops from such values
/// (the lowering leaves e.g. a persistent tile's first ring position,
/// iteration x K blocks, inside the K loop).
bool isLoopInvariant(scf::ForOp loop, Value v, int depth = 0) {
  if (loop.isDefinedOutsideOfLoop(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8 || def->getNumRegions() != 0 || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isLoopInvariant(loop, operand, depth + 1);
  });
}

/// `v` (isLoopInvariant) at the insertion point before `loop`: itself when
/// defined outside, else a clone of its computation.
Value cloneBeforeLoop(OpBuilder &b, scf::ForOp loop, Value v) {
  if (loop.isDefinedOutsideOfLoop(v))
    return v;
  Operation *def = v.getDefiningOp();
  IRMapping mapping;
  for (Value operand : def->getOperands())
    mapping.map(operand, cloneBeforeLoop(b, loop, operand));
  return b.clone(*def, mapping)->getResult(cast<OpResult>(v).getResultNumber());
}

/// Adds the leaves of the addition tree `x` to `leaves`; false when a
/// leaf is neither the index nor loop-invariant. `ivCount` counts the
/// index's occurrences.
bool collectAddLeaves(scf::ForOp loop, Value x, SmallVectorImpl<Value> &leaves,
                      int &ivCount) {
  if (x == loop.getInductionVar()) {
    ++ivCount;
    return true;
  }
  if (isLoopInvariant(loop, x)) {
    leaves.push_back(x);
    return true;
  }
  auto add = x.getDefiningOp<arith::AddIOp>();
  return add && collectAddLeaves(loop, add.getLhs(), leaves, ivCount) &&
         collectAddLeaves(loop, add.getRhs(), leaves, ivCount);
}

/// The invariant terms when `x` is the index plus a sum of loop-invariant
/// terms in any association (after unrolling, the second copy's K block is
/// `inv + (iv + 1)`); failure otherwise.
FailureOr<SmallVector<Value>> matchIvPlusInvariant(scf::ForOp loop, Value x) {
  SmallVector<Value> leaves;
  int ivCount = 0;
  if (!collectAddLeaves(loop, x, leaves, ivCount) || ivCount != 1)
    return failure();
  return leaves;
}

/// The constant divisor of a div/rem when it is worth a counter: not a power
/// of two, except in a loop of constant bounds (`constantTrips`). There
/// LLVM unrolls and folds a power-of-two stage into masks such as
/// (i + 1) & 5, and kernels with K compiled in, a peeled first block and the
/// loop unrolled by 4 faulted on the H100 at their first wgmma (an
/// out-of-range shared address) while the PTX was right; with the stage
/// carried as a counter they passed (docs/PERF.md, 2026-11-24).
std::optional<int64_t> counterDivisor(Value divisor, bool constantTrips) {
  APInt value;
  if (!matchPattern(divisor, m_ConstantInt(&value)) || value.getBitWidth() > 64)
    return std::nullopt;
  uint64_t c = value.getZExtValue();
  if (c < 2 || (llvm::isPowerOf2_64(c) && !constantTrips) ||
      c > (uint64_t(1) << 30))
    return std::nullopt;
  return int64_t(c);
}

/// The sum of the invariant terms, built before the loop (what is computed
/// in it is cloned); null for none.
Value offsetBeforeLoop(OpBuilder &b, scf::ForOp loop, ArrayRef<Value> terms) {
  Value sum;
  for (Value term : terms) {
    term = cloneBeforeLoop(b, loop, term);
    sum = sum ? arith::AddIOp::create(b, loop.getLoc(), sum, term).getResult()
              : term;
  }
  return sum;
}

void countLoop(scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return;
  SmallVector<Counted> counted;
  auto entry = [&](Value x, int64_t divisor,
                   ArrayRef<Value> offset) -> Counted & {
    CounterKey key{x, divisor};
    for (Counted &c : counted)
      if (c.key == key)
        return c;
    counted.push_back(Counted{key, llvm::to_vector(offset), {}, {}});
    return counted.back();
  };
  bool constantTrips = matchPattern(loop.getLowerBound(), m_Constant()) &&
                       matchPattern(loop.getUpperBound(), m_Constant());
  // Only this loop's own index (nested loops are visited on their own).
  loop.getBody()->walk([&](Operation *op) {
    if (op->getParentOfType<scf::ForOp>() != loop)
      return;
    Value x, divisor;
    if (auto rem = dyn_cast<arith::RemUIOp>(op))
      x = rem.getLhs(), divisor = rem.getRhs();
    else if (auto div = dyn_cast<arith::DivUIOp>(op))
      x = div.getLhs(), divisor = div.getRhs();
    else
      return;
    std::optional<int64_t> c = counterDivisor(divisor, constantTrips);
    FailureOr<SmallVector<Value>> offset = matchIvPlusInvariant(loop, x);
    if (!c || failed(offset))
      return;
    Counted &entryFor = entry(x, *c, *offset);
    if (auto rem = dyn_cast<arith::RemUIOp>(op))
      entryFor.rems.push_back(rem);
    else
      entryFor.divs.push_back(cast<arith::DivUIOp>(op));
  });
  if (counted.empty())
    return;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (Counted &c : counted) {
    Type type = c.key.x.getType();
    Value x0 = loop.getLowerBound();
    if (Value offset = offsetBeforeLoop(b, loop, c.offset))
      x0 = arith::AddIOp::create(b, loc, x0, offset);
    Value divisor = arith::ConstantOp::create(
        b, loc, type, b.getIntegerAttr(type, c.key.divisor));
    inits.push_back(arith::RemUIOp::create(b, loc, x0, divisor));
    inits.push_back(arith::DivUIOp::create(b, loc, x0, divisor));
  }
  IRRewriter rewriter(b);
  auto yieldNext = [&](OpBuilder &yb, Location yloc,
                       ArrayRef<BlockArgument> args) {
    SmallVector<Value> next;
    for (auto [i, c] : llvm::enumerate(counted)) {
      Type type = c.key.x.getType();
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(yb, yloc, type,
                                         yb.getIntegerAttr(type, v));
      };
      Value r = args[2 * i], q = args[2 * i + 1];
      Value bumped =
          arith::AddIOp::create(yb, yloc, r, constant(*step % c.key.divisor));
      Value wrap = arith::CmpIOp::create(yb, yloc, arith::CmpIPredicate::uge,
                                         bumped, constant(c.key.divisor));
      next.push_back(arith::SelectOp::create(
          yb, yloc, wrap,
          arith::SubIOp::create(yb, yloc, bumped, constant(c.key.divisor)),
          bumped));
      Value carry =
          arith::SelectOp::create(yb, yloc, wrap, constant(1), constant(0));
      next.push_back(arith::AddIOp::create(
          yb, yloc, q,
          arith::AddIOp::create(yb, yloc, carry,
                                constant(*step / c.key.divisor))));
    }
    return next;
  };
  FailureOr<LoopLikeOpInterface> grown =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(rewriter, inits,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       yieldNext);
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  ArrayRef<BlockArgument> args =
      newLoop.getRegionIterArgs().take_back(2 * counted.size());
  for (auto [i, c] : llvm::enumerate(counted)) {
    for (arith::RemUIOp rem : c.rems)
      rewriter.replaceOp(rem, args[2 * i]);
    for (arith::DivUIOp div : c.divs)
      rewriter.replaceOp(div, args[2 * i + 1]);
  }
}

struct FgemmLoopCountersPass
    : public fgemm::impl::FgemmLoopCountersPassBase<FgemmLoopCountersPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      countLoop(loop);
  }
};

} // namespace
