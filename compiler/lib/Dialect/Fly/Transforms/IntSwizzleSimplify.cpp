//===- IntSwizzleSimplify.cpp - Period multiples out of swizzles ----------===//
//
// swz(x) = x ^ ((x & m) >> s) only sees and changes the bits of x below P
// (a power of two above every bit of m and m >> s). For c a multiple of P,
// x + c has the same low bits as x, and the xor leaves the high bits alone,
// so swz(x + c) = swz(x) + c.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYINTSWIZZLESIMPLIFY
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

/// The constant value of `v`, if it has one.
std::optional<APInt> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c;
  return std::nullopt;
}

/// The swizzle `x ^ ((x & m) >> s)` (or `<< s`) computed by `xorOp`:
/// returns x and the period P (as a bit count log2 P).
struct SwizzleMatch {
  Value x;
  unsigned periodBits;
};

std::optional<SwizzleMatch> matchSwizzle(arith::XOrIOp xorOp) {
  for (unsigned i = 0; i < 2; ++i) {
    Value x = xorOp->getOperand(i), moved = xorOp->getOperand(1 - i);
    Operation *shift = moved.getDefiningOp();
    if (!shift || !isa<arith::ShRUIOp, arith::ShLIOp>(shift))
      continue;
    std::optional<APInt> amount = constantOf(shift->getOperand(1));
    auto andOp = shift->getOperand(0).getDefiningOp<arith::AndIOp>();
    if (!amount || !andOp)
      continue;
    for (unsigned j = 0; j < 2; ++j) {
      if (andOp->getOperand(j) != x)
        continue;
      std::optional<APInt> mask = constantOf(andOp->getOperand(1 - j));
      if (!mask || mask->isZero())
        continue;
      uint64_t s = amount->getZExtValue();
      if (s >= mask->getBitWidth())
        continue;
      APInt target = isa<arith::ShRUIOp>(shift) ? mask->lshr(s) : mask->shl(s);
      APInt footprint = *mask | target;
      return SwizzleMatch{x, footprint.getActiveBits()};
    }
  }
  return std::nullopt;
}

/// True if `v` is provably a multiple of 2^bits.
bool isMultipleOfPow2(Value v, unsigned bits) {
  if (std::optional<APInt> c = constantOf(v))
    return c->countTrailingZeros() >= bits;
  if (auto mul = v.getDefiningOp<arith::MulIOp>())
    return isMultipleOfPow2(mul.getLhs(), bits) ||
           isMultipleOfPow2(mul.getRhs(), bits);
  if (auto shl = v.getDefiningOp<arith::ShLIOp>())
    if (std::optional<APInt> k = constantOf(shl.getRhs()))
      return k->getZExtValue() >= bits ||
             isMultipleOfPow2(shl.getLhs(), bits - unsigned(k->getZExtValue()));
  return false;
}

/// The addends of an addi tree.
void collectAddends(Value v, SmallVectorImpl<Value> &out) {
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    collectAddends(add.getLhs(), out);
    collectAddends(add.getRhs(), out);
    return;
  }
  out.push_back(v);
}

struct PullPeriodMultiples : public OpRewritePattern<arith::XOrIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::XOrIOp xorOp,
                                PatternRewriter &rewriter) const override {
    std::optional<SwizzleMatch> sw = matchSwizzle(xorOp);
    if (!sw)
      return failure();
    SmallVector<Value> addends, multiples, rest;
    collectAddends(sw->x, addends);
    for (Value a : addends)
      (isMultipleOfPow2(a, sw->periodBits) ? multiples : rest).push_back(a);
    if (multiples.empty())
      return failure();

    Location loc = xorOp.getLoc();
    Type type = xorOp.getType();
    auto sum = [&](ArrayRef<Value> terms) -> Value {
      if (terms.empty())
        return arith::ConstantOp::create(rewriter, loc, type,
                                         rewriter.getIntegerAttr(type, 0));
      Value acc = terms.front();
      for (Value t : terms.drop_front())
        acc = arith::AddIOp::create(rewriter, loc, acc, t);
      return acc;
    };
    Value low = sum(rest);
    // Rebuild the swizzle on the low part with the same mask and shift.
    Value moved = xorOp->getOperand(0) == sw->x ? xorOp->getOperand(1)
                                                : xorOp->getOperand(0);
    Operation *shift = moved.getDefiningOp();
    auto andOp = shift->getOperand(0).getDefiningOp<arith::AndIOp>();
    Value mask = andOp.getLhs() == sw->x ? andOp.getRhs() : andOp.getLhs();
    Value masked = arith::AndIOp::create(rewriter, loc, low, mask);
    Value shifted =
        isa<arith::ShRUIOp>(shift)
            ? Value(arith::ShRUIOp::create(rewriter, loc, masked,
                                           shift->getOperand(1)))
            : Value(arith::ShLIOp::create(rewriter, loc, masked,
                                          shift->getOperand(1)));
    Value swizzled = arith::XOrIOp::create(rewriter, loc, low, shifted);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(xorOp, swizzled,
                                               sum(multiples));
    return success();
  }
};

/// Erases the ops of `roots` that nothing uses any more, and what only
/// they used; xors stay (the pass still has them to visit).
void eraseDeadInputs(SmallVector<Operation *> roots, RewriterBase &rewriter) {
  // An op can be reached twice (both operands of one user): once erased,
  // it must not be looked at again.
  llvm::SmallPtrSet<Operation *, 8> erased;
  while (!roots.empty()) {
    Operation *op = roots.pop_back_val();
    if (erased.contains(op) || isa<arith::XOrIOp>(op) ||
        !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        roots.push_back(def);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

struct FlyIntSwizzleSimplify
    : public mlir::fly::impl::FlyIntSwizzleSimplifyBase<FlyIntSwizzleSimplify> {
  void runOnOperation() override {
    // One pattern on the xors, each tried once, in program order: a
    // swizzle's operand is rewritten before any swizzle of its result is
    // looked at, so no fixpoint iteration is needed, and no walk of every
    // other op (most of a lowered GEMM) as the greedy driver's.
    SmallVector<arith::XOrIOp> xors;
    getOperation()->walk([&](arith::XOrIOp op) { xors.push_back(op); });
    PullPeriodMultiples pattern(&getContext());
    PatternRewriter rewriter(&getContext());
    for (arith::XOrIOp op : xors) {
      SmallVector<Operation *> inputs;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          inputs.push_back(def);
      rewriter.setInsertionPoint(op);
      if (succeeded(pattern.matchAndRewrite(op, rewriter)))
        eraseDeadInputs(std::move(inputs), rewriter);
    }
  }
};

} // namespace
