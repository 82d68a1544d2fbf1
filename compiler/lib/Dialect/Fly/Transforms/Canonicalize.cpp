//===- Canonicalize.cpp - Fold static Fly values to normal form ----------===//

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYCANONICALIZE
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;

namespace {

bool isFlyOp(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() == FlyDialect::getDialectNamespace();
}

/// Any pure Fly op whose results are all static becomes `fly.static` ops
/// (integer results become constants).
struct FoldStaticResults : public RewritePattern {
  explicit FoldStaticResults(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // atom.set_value's result is static by type, but carries its field.
    if (!isFlyOp(op) || isa<StaticOp, AtomSetValueOp>(op) ||
        op->getNumResults() == 0 ||
        !isMemoryEffectFree(op))
      return failure();
    for (Value r : op->getResults())
      if (isa<IntegerType>(r.getType()) ? false : !isStatic(r.getType()))
        return failure();

    // Integer results (get_scalar, get_leaves) are static only when the
    // algebra says so; evaluate without an emitter to find out.
    SmallVector<AlgebraValue, 2> operands;
    for (Value v : op->getOperands())
      operands.push_back(toAlgebraValue(v.getType()));
    bool hasIntResult = llvm::any_of(op->getResultTypes(), [](Type t) {
      return isa<IntegerType>(t);
    });
    SmallVector<AlgebraValue, 2> values;
    if (hasIntResult) {
      ::fly::algebra::Arith ar;
      if (failed(evaluateAlgebraOp(op, operands, ar, values)) || ar.failed())
        return failure();
    }

    SmallVector<Value> replacements;
    for (auto [i, r] : llvm::enumerate(op->getResults())) {
      if (auto intTy = dyn_cast<IntegerType>(r.getType())) {
        const auto *t = std::get_if<::fly::algebra::IntTuple>(&values[i]);
        if (!t || !t->isLeaf() || !t->leaf().isStatic() ||
            t->leaf().isBasis())
          return failure();
        replacements.push_back(arith::ConstantIntOp::create(
            rewriter, op->getLoc(), intTy, t->leaf().value()));
        continue;
      }
      replacements.push_back(
          StaticOp::create(rewriter, op->getLoc(), r.getType()));
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

struct FlyCanonicalize
    : public mlir::fly::impl::FlyCanonicalizeBase<FlyCanonicalize> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldStaticResults>(&getContext());
    // Folding ops to constants leaves the regions' blocks to canonicalize.
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setRegionSimplificationLevel(
                GreedySimplifyRegionLevel::Disabled)))) {
      getOperation()->emitError("fly-canonicalize did not reach a fixpoint");
      signalPassFailure();
    }
  }
};

} // namespace
