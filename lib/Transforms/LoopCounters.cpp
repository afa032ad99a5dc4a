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
// In a loop marked fgemm.aligned_trips (convert-fgemm-to-nvvm), the copies
// of an unrolled body (x + j for j in [0, s)) share one counter where s
// divides C and x is known to be a multiple of s in every iteration: then
// x mod C is a multiple of s, so (x + j) mod C = x mod C + j and
// (x + j) div C = x div C. Their stages are then one carried value plus
// constants (folded into addresses) and their phases one value
// (KernelConfig::hasAlignedKLoopTrips says where that measured faster).
//
// Assumes x does not wrap around (fgemm's indices are below 2^31).
//
//===----------------------------------------------------------------------===//

#include "dialect/FgemmDialect.h"
#include "dialect/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

#define DEBUG_TYPE "fgemm-loop-counters"

namespace mlir::fgemm {
#define GEN_PASS_DEF_FGEMMLOOPCOUNTERSPASS
#include "dialect/Passes.h.inc"
} // namespace mlir::fgemm

using namespace mlir;

namespace {

/// One counter: x = iv + terms + constant, divided by `divisor`. Each
/// remainder it replaces is the counter plus its addend (x + addend was
/// divided; see the file comment); each quotient is the counter's.
struct Counted {
  Type type;
  SmallVector<Value> terms; // loop-invariant, not constant; sorted
  int64_t constant;
  int64_t divisor;
  SmallVector<std::pair<arith::RemUIOp, int64_t>> rems;
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

/// `x` as the index plus loop-invariant terms and a constant.
struct IvPlusInvariant {
  SmallVector<Value> terms; // sorted, so that equal sums compare equal
  int64_t constant = 0;
};

/// The invariant terms when `x` is the index plus a sum of loop-invariant
/// terms in any association (after unrolling, the second copy's K block is
/// `inv + (iv + 1)`); failure otherwise.
FailureOr<IvPlusInvariant> matchIvPlusInvariant(scf::ForOp loop, Value x) {
  SmallVector<Value> leaves;
  int ivCount = 0;
  if (!collectAddLeaves(loop, x, leaves, ivCount) || ivCount != 1)
    return failure();
  IvPlusInvariant sum;
  for (Value leaf : leaves) {
    APInt value;
    if (matchPattern(leaf, m_ConstantInt(&value)) && value.getBitWidth() <= 64)
      sum.constant += value.getSExtValue();
    else
      sum.terms.push_back(leaf);
  }
  llvm::sort(sum.terms, [](Value l, Value r) {
    return l.getAsOpaquePointer() < r.getAsOpaquePointer();
  });
  return sum;
}

/// A number `v` is known to be a multiple of (0 where `v` is known to be
/// 0): from constants, products, sums and left shifts; 1 otherwise.
uint64_t knownMultiple(Value v, int depth = 0) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getBitWidth() <= 64 ? value.abs().getZExtValue() : 1;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return 1;
  auto of = [&](Value operand) { return knownMultiple(operand, depth + 1); };
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    uint64_t l = of(mul.getLhs()), r = of(mul.getRhs());
    return l == 0 || r == 0              ? 0
           : l > (uint64_t(1) << 30) / r ? 1 // too large to matter
                                         : l * r;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def))
    return std::gcd(of(add.getLhs()), of(add.getRhs()));
  if (auto shl = dyn_cast<arith::ShLIOp>(def)) {
    APInt shift;
    if (!matchPattern(shl.getRhs(), m_ConstantInt(&shift)) ||
        shift.getZExtValue() > 30)
      return 1;
    uint64_t l = of(shl.getLhs());
    return l > (uint64_t(1) << 30) >> shift.getZExtValue()
               ? 1
               : l << shift.getZExtValue();
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>(def))
    return of(def->getOperand(0));
  return 1;
}

/// x mod `step` in every iteration of `loop` (iv = lower + i x step) when
/// that is known and x's counter can serve x + j for j in [0, step) (the
/// divisor a multiple of the step); nullopt otherwise.
std::optional<int64_t> alignedResidue(scf::ForOp loop, int64_t step,
                                      const IvPlusInvariant &x,
                                      int64_t divisor) {
  if (step < 2 || divisor % step != 0)
    return std::nullopt;
  for (Value term : x.terms)
    if (knownMultiple(term) % step != 0)
      return std::nullopt;
  int64_t lower = 0;
  if (std::optional<int64_t> c = getConstantIntValue(loop.getLowerBound()))
    lower = *c;
  else if (knownMultiple(loop.getLowerBound()) % step != 0)
    return std::nullopt;
  int64_t residue = ((lower + x.constant) % step + step) % step;
  // The shared counter's value, x - residue, must not be negative.
  if (lower + x.constant - residue < 0)
    return std::nullopt;
  return residue;
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

/// The sum of the invariant terms and the constant, built before the loop
/// (what is computed in it is cloned); null for none.
Value offsetBeforeLoop(OpBuilder &b, scf::ForOp loop, const Counted &c) {
  Value sum;
  auto add = [&](Value term) {
    sum = sum ? arith::AddIOp::create(b, loop.getLoc(), sum, term).getResult()
              : term;
  };
  for (Value term : c.terms)
    add(cloneBeforeLoop(b, loop, term));
  if (c.constant != 0)
    add(arith::ConstantOp::create(b, loop.getLoc(), c.type,
                                  b.getIntegerAttr(c.type, c.constant)));
  return sum;
}

void countLoop(scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return;
  SmallVector<Counted> counted;
  auto entry = [&](Type type, ArrayRef<Value> terms, int64_t constant,
                   int64_t divisor) -> Counted & {
    for (Counted &c : counted)
      if (c.type == type && ArrayRef<Value>(c.terms) == terms &&
          c.constant == constant && c.divisor == divisor)
        return c;
    counted.push_back(
        Counted{type, llvm::to_vector(terms), constant, divisor, {}, {}});
    return counted.back();
  };
  bool constantTrips = matchPattern(loop.getLowerBound(), m_Constant()) &&
                       matchPattern(loop.getUpperBound(), m_Constant());
  bool aligned = loop->hasAttr(fgemm::kAlignedTripsAttrName);
  loop->removeAttr(fgemm::kAlignedTripsAttrName);
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
    FailureOr<IvPlusInvariant> sum = matchIvPlusInvariant(loop, x);
    if (!c || failed(sum))
      return;
    int64_t residue =
        aligned ? alignedResidue(loop, *step, *sum, *c).value_or(0) : 0;
    Counted &entryFor =
        entry(x.getType(), sum->terms, sum->constant - residue, *c);
    if (auto rem = dyn_cast<arith::RemUIOp>(op))
      entryFor.rems.push_back({rem, residue});
    else
      entryFor.divs.push_back(cast<arith::DivUIOp>(op));
  });
  if (counted.empty())
    return;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (Counted &c : counted) {
    Value x0 = loop.getLowerBound();
    if (Value offset = offsetBeforeLoop(b, loop, c))
      x0 = arith::AddIOp::create(b, loc, x0, offset);
    Value divisor = arith::ConstantOp::create(
        b, loc, c.type, b.getIntegerAttr(c.type, c.divisor));
    inits.push_back(arith::RemUIOp::create(b, loc, x0, divisor));
    inits.push_back(arith::DivUIOp::create(b, loc, x0, divisor));
  }
  IRRewriter rewriter(b);
  auto yieldNext = [&](OpBuilder &yb, Location yloc,
                       ArrayRef<BlockArgument> args) {
    SmallVector<Value> next;
    for (auto [i, c] : llvm::enumerate(counted)) {
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(yb, yloc, c.type,
                                         yb.getIntegerAttr(c.type, v));
      };
      Value r = args[2 * i], q = args[2 * i + 1];
      Value bumped =
          arith::AddIOp::create(yb, yloc, r, constant(*step % c.divisor));
      Value wrap = arith::CmpIOp::create(yb, yloc, arith::CmpIPredicate::uge,
                                         bumped, constant(c.divisor));
      next.push_back(arith::SelectOp::create(
          yb, yloc, wrap,
          arith::SubIOp::create(yb, yloc, bumped, constant(c.divisor)),
          bumped));
      Value carry =
          arith::SelectOp::create(yb, yloc, wrap, constant(1), constant(0));
      next.push_back(arith::AddIOp::create(
          yb, yloc, q,
          arith::AddIOp::create(yb, yloc, carry, constant(*step / c.divisor))));
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
    for (auto [rem, addend] : c.rems) {
      Value r = args[2 * i];
      if (addend != 0) {
        rewriter.setInsertionPoint(rem);
        r = arith::AddIOp::create(
            rewriter, rem.getLoc(), r,
            arith::ConstantOp::create(rewriter, rem.getLoc(), c.type,
                                      rewriter.getIntegerAttr(c.type, addend)));
      }
      rewriter.replaceOp(rem, r);
    }
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
