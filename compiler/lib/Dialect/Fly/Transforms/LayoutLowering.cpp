//===- LayoutLowering.cpp - The algebra on dynamic leaves to arith --------===//
//
// Each Fly op is evaluated by the algebra code that infers its type
// (`evaluateAlgebraOp`), with an `arith`-emitting DynamicEmitter and the
// dynamic leaves of its operands bound to SSA values. The result is rebuilt
// in normal form from the leaves the algebra produced (Leaves.h).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYLAYOUTLOWERING
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

namespace {

struct LayoutLowering
    : public mlir::fly::impl::FlyLayoutLoweringBase<LayoutLowering> {
  void runOnOperation() override;
};

/// Rewrites one op at a time, in program order.
class Lowerer {
public:
  explicit Lowerer(Operation *op) : builder(op->getContext()) {}

  LogicalResult lower(Operation *op);

private:
  SmallVector<Value> leafValues(Value v) { return getLeafValues(builder, v); }
  Value pointerOf(Value memref) { return getPointerValue(builder, memref); }
  Value rebuild(const AlgebraValue &v, Type type, ArithEmitter &emitter,
                Location loc) {
    return rebuildValue(builder, loc, v, type, emitter);
  }

  OpBuilder builder;
};

LogicalResult Lowerer::lower(Operation *op) {
  // Normal-form producers stay as they are, pointer arithmetic included.
  if (isa<StaticOp, MakeIntTupleOp, MakeComposedLayoutOp, MakeTileOp,
          MakeViewOp, AddOffsetOp, ApplySwizzleOp>(op) ||
      (isa<MakeLayoutOp>(op) && op->getNumOperands() == 2))
    return success();
  // Memory accesses, allocations and pointers from outside keep their form.
  if (!isEvaluatedByAlgebra(op->getName().getStringRef()) ||
      !isMemoryEffectFree(op))
    return success();
  // Leaves of a value built here are its operands; leaves of anything else
  // (a block argument) can only be read at run time.
  if (auto get = dyn_cast<GetLeavesOp>(op)) {
    Operation *def = get->getOperand(0).getDefiningOp();
    if (!def || !isa<StaticOp, MakeIntTupleOp, MakeLayoutOp,
                     MakeComposedLayoutOp, MakeTileOp, MakeViewOp>(def))
      return success();
    op->replaceAllUsesWith(leafValues(get->getOperand(0)));
    op->erase();
    return success();
  }
  // Likewise the pointer of a memref.
  if (auto get = dyn_cast<GetIterOp>(op)) {
    auto view = get.getTensor().getDefiningOp<MakeViewOp>();
    if (!view)
      return success();
    get.replaceAllUsesWith(view.getIter());
    get->erase();
    return success();
  }

  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);

  SmallVector<AlgebraValue, 2> operands;
  for (Value operand : op->getOperands()) {
    SmallVector<uint32_t> handles;
    for (Value leaf : leafValues(operand))
      handles.push_back(emitter.bind(leaf));
    AlgebraValue av =
        bindDynamicLeaves(toAlgebraValue(operand.getType()), handles);
    // Pointers are bound like leaves, to be advanced by the algebra.
    if (auto *p = std::get_if<PointerValue>(&av))
      p->handle = emitter.bind(operand);
    if (auto *t = std::get_if<TensorValue>(&av))
      if (auto *p = std::get_if<PointerValue>(&t->iterator))
        p->handle = emitter.bind(pointerOf(operand));
    operands.push_back(std::move(av));
  }

  alg::Arith ar(&emitter);
  SmallVector<AlgebraValue, 2> results;
  if (failed(evaluateAlgebraOp(op, operands, ar, results)) || ar.failed())
    return op->emitOpError() << (ar.failed() ? ar.error()
                                             : "cannot be lowered");

  SmallVector<Value> replacements;
  for (auto [value, result] : llvm::zip(results, op->getResults())) {
    Value r = rebuild(value, result.getType(), emitter, loc);
    if (!r)
      return op->emitOpError("has a result that cannot be rebuilt");
    replacements.push_back(r);
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return success();
}

void LayoutLowering::runOnOperation() {
  SmallVector<Operation *> worklist;
  getOperation()->walk([&](Operation *op) {
    if (isFlyOp(op))
      worklist.push_back(op);
  });
  Lowerer lowerer(getOperation());
  for (Operation *op : worklist)
    if (failed(lowerer.lower(op)))
      return signalPassFailure();

  // The operands of the rewritten ops are often left without users.
  // Erase users before their producers: walk in reverse program order.
  SmallVector<Operation *> flyOps;
  getOperation()->walk([&](Operation *op) {
    if (isFlyOp(op))
      flyOps.push_back(op);
  });
  for (Operation *op : llvm::reverse(flyOps))
    if (isOpTriviallyDead(op))
      op->erase();
}

} // namespace
