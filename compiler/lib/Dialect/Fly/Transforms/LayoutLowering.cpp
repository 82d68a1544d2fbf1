//===- LayoutLowering.cpp - The algebra on dynamic leaves to arith --------===//
//
// Each Fly op is evaluated by the algebra code that infers its type
// (`evaluateAlgebraOp`), with an `arith`-emitting DynamicEmitter and the
// dynamic leaves of its operands bound to SSA values. The result is rebuilt
// in normal form from the leaves the algebra produced.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
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

/// Emits `arith` ops for the algebra's dynamic arithmetic. Handles index
/// `values` (0 is "no value").
class ArithEmitter : public alg::DynamicEmitter {
public:
  ArithEmitter(OpBuilder &b, Location loc) : b(b), loc(loc) {
    values.push_back(Value());
  }

  uint32_t bind(Value v) {
    values.push_back(v);
    return uint32_t(values.size() - 1);
  }

  /// The SSA value of a leaf, as an integer of type `ty`.
  Value materialize(const alg::Int &leaf, Type ty) {
    if (leaf.isStatic())
      return arith::ConstantIntOp::create(b, loc, ty, leaf.value());
    Value v = values[leaf.handle()];
    unsigned have = v.getType().getIntOrFloatBitWidth();
    unsigned want = ty.getIntOrFloatBitWidth();
    if (have < want)
      return arith::ExtSIOp::create(b, loc, ty, v);
    if (have > want)
      return arith::TruncIOp::create(b, loc, ty, v);
    return v;
  }

  uint32_t emit(alg::DynOp op, ArrayRef<alg::Int> operands,
                const alg::Int &result) override {
    bool wide = result.isWide();
    for (const alg::Int &o : operands)
      wide |= o.isDynamic() && o.isWide();
    Type ty = wide ? b.getI64Type() : b.getI32Type();
    SmallVector<Value, 3> v;
    for (const alg::Int &o : operands)
      v.push_back(materialize(o, ty));
    Value r;
    switch (op) {
    case alg::DynOp::Add:
      r = arith::AddIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Sub:
      r = arith::SubIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Mul:
      r = arith::MulIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Div:
      r = arith::DivSIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Mod:
      r = arith::RemSIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::CeilDiv:
      r = arith::CeilDivSIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Min:
      r = arith::MinSIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Max:
      r = arith::MaxSIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Eq:
    case alg::DynOp::Ne:
    case alg::DynOp::Lt:
    case alg::DynOp::Le: {
      arith::CmpIPredicate pred =
          op == alg::DynOp::Eq   ? arith::CmpIPredicate::eq
          : op == alg::DynOp::Ne ? arith::CmpIPredicate::ne
          : op == alg::DynOp::Lt ? arith::CmpIPredicate::slt
                                 : arith::CmpIPredicate::sle;
      Value c = arith::CmpIOp::create(b, loc, pred, v[0], v[1]);
      r = arith::ExtUIOp::create(b, loc, b.getI32Type(), c);
      break;
    }
    case alg::DynOp::Select: {
      Value zero = arith::ConstantIntOp::create(b, loc, ty, 0);
      Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v[0],
                                      zero);
      r = arith::SelectOp::create(b, loc, c, v[1], v[2]);
      break;
    }
    case alg::DynOp::And:
      r = arith::AndIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Or:
      r = arith::OrIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Xor:
      r = arith::XOrIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::ShrU:
      r = arith::ShRUIOp::create(b, loc, v[0], v[1]);
      break;
    case alg::DynOp::Shl:
      r = arith::ShLIOp::create(b, loc, v[0], v[1]);
      break;
    }
    // The algebra decides the result width; comparisons give i32.
    Type want = result.isWide() ? b.getI64Type() : b.getI32Type();
    if (r.getType() != want)
      r = result.isWide() ? Value(arith::ExtSIOp::create(b, loc, want, r))
                          : Value(arith::TruncIOp::create(b, loc, want, r));
    return bind(r);
  }

private:
  OpBuilder &b;
  Location loc;
  SmallVector<Value> values;
};

/// Dynamic leaves of an algebra value in the order of `fly.get_leaves`.
void dynamicLeaves(const AlgebraValue &v, SmallVectorImpl<alg::Int> &out);

void dynamicLeaves(const alg::IntTuple &t, SmallVectorImpl<alg::Int> &out) {
  for (const alg::Int &l : alg::leaves(t))
    if (l.isDynamic())
      out.push_back(l);
}
void dynamicLeaves(const alg::Layout &l, SmallVectorImpl<alg::Int> &out) {
  dynamicLeaves(l.shape, out);
  dynamicLeaves(l.stride, out);
}
void dynamicLeaves(const std::vector<alg::Tile::Mode> &modes,
                   SmallVectorImpl<alg::Int> &out) {
  for (const alg::Tile::Mode &m : modes) {
    if (m.kind == alg::Tile::Mode::Kind::Layout)
      dynamicLeaves(m.layout, out);
    else if (m.kind == alg::Tile::Mode::Kind::Nested)
      dynamicLeaves(m.nested, out);
  }
}
void dynamicLeaves(const AlgebraValue &v, SmallVectorImpl<alg::Int> &out) {
  std::visit(
      [&](const auto &x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, alg::IntTuple> ||
                      std::is_same_v<T, alg::Layout>)
          dynamicLeaves(x, out);
        else if constexpr (std::is_same_v<T, alg::ComposedLayout>) {
          if (const auto *inner = std::get_if<alg::Layout>(&x.inner))
            dynamicLeaves(*inner, out);
          dynamicLeaves(x.offset, out);
          dynamicLeaves(x.outer, out);
        } else if constexpr (std::is_same_v<T, alg::Tile>)
          dynamicLeaves(x.modes, out);
      },
      v);
}

/// Give the dynamic leaves handles, in `fly.get_leaves` order.
AlgebraValue bindLeaves(const AlgebraValue &v, ArrayRef<uint32_t> handles) {
  size_t next = 0;
  auto bindTuple = [&](const alg::IntTuple &t) {
    return alg::transformLeaves(t, [&](const alg::Int &l) {
      return l.isDynamic() ? l.withHandle(handles[next++]) : l;
    });
  };
  auto bindLayout = [&](const alg::Layout &l) {
    alg::IntTuple shape = bindTuple(l.shape);
    return alg::Layout(shape, bindTuple(l.stride));
  };
  std::function<void(std::vector<alg::Tile::Mode> &)> bindModes =
      [&](std::vector<alg::Tile::Mode> &modes) {
        for (alg::Tile::Mode &m : modes) {
          if (m.kind == alg::Tile::Mode::Kind::Layout)
            m.layout = bindLayout(m.layout);
          else if (m.kind == alg::Tile::Mode::Kind::Nested)
            bindModes(m.nested);
        }
      };
  return std::visit(
      [&](const auto &x) -> AlgebraValue {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, alg::IntTuple>)
          return bindTuple(x);
        else if constexpr (std::is_same_v<T, alg::Layout>)
          return bindLayout(x);
        else if constexpr (std::is_same_v<T, alg::ComposedLayout>) {
          alg::ComposedLayout c = x;
          if (auto *inner = std::get_if<alg::Layout>(&c.inner))
            *inner = bindLayout(*inner);
          c.offset = bindTuple(c.offset);
          c.outer = bindLayout(c.outer);
          return c;
        } else if constexpr (std::is_same_v<T, alg::Tile>) {
          alg::Tile t = x;
          bindModes(t.modes);
          return t;
        } else {
          return x;
        }
      },
      v);
}

bool isFlyOp(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() == FlyDialect::getDialectNamespace();
}

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
  /// The SSA values of the dynamic leaves of a Fly value (or the scalar
  /// itself for an integer operand).
  SmallVector<Value> leafValues(Value v);
  /// Build `v` in normal form from the leaves bound in `emitter`.
  Value rebuild(const AlgebraValue &v, Type type, ArithEmitter &emitter,
                Location loc);

  OpBuilder builder;
};

SmallVector<Value> Lowerer::leafValues(Value v) {
  if (isa<IntegerType>(v.getType()))
    return {v};
  Operation *def = v.getDefiningOp();
  if (def && isa<StaticOp>(def))
    return {};
  if (def && isa<MakeIntTupleOp>(def))
    return SmallVector<Value>(def->getOperands());
  if (def && (isa<MakeComposedLayoutOp, MakeTileOp>(def) ||
              (isa<MakeLayoutOp>(def) && def->getNumOperands() == 2))) {
    SmallVector<Value> out;
    for (Value operand : def->getOperands())
      llvm::append_range(out, leafValues(operand));
    return out;
  }
  // Anything else (a block argument): open it with fly.get_leaves.
  SmallVector<alg::Int> dyn;
  dynamicLeaves(toAlgebraValue(v.getType()), dyn);
  if (dyn.empty())
    return {};
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(v);
  SmallVector<Type> types;
  for (const alg::Int &l : dyn)
    types.push_back(l.isWide() ? builder.getI64Type() : builder.getI32Type());
  auto get = GetLeavesOp::create(builder, v.getLoc(), types, v);
  return SmallVector<Value>(get->getResults());
}

Value Lowerer::rebuild(const AlgebraValue &v, Type type,
                       ArithEmitter &emitter, Location loc) {
  if (auto intTy = dyn_cast<IntegerType>(type)) {
    const alg::IntTuple &t = std::get<alg::IntTuple>(v);
    return emitter.materialize(t.leaf(), intTy);
  }
  if (isStatic(type))
    return StaticOp::create(builder, loc, type);
  auto tupleOf = [&](const alg::IntTuple &t) -> Value {
    Type ty = IntTupleType::get(builder.getContext(), t);
    if (isStatic(ty))
      return StaticOp::create(builder, loc, ty);
    SmallVector<Value> leaves;
    for (const alg::Int &l : alg::leaves(t))
      if (l.isDynamic())
        leaves.push_back(emitter.materialize(
            l, l.isWide() ? builder.getI64Type() : builder.getI32Type()));
    return MakeIntTupleOp::create(builder, loc, ty, leaves);
  };
  auto layoutOf = [&](const alg::Layout &l) -> Value {
    Type ty = LayoutType::get(builder.getContext(), l);
    if (isStatic(ty))
      return StaticOp::create(builder, loc, ty);
    Value shape = tupleOf(l.shape), stride = tupleOf(l.stride);
    return MakeLayoutOp::create(builder, loc, ty, ValueRange{shape, stride});
  };
  if (const auto *t = std::get_if<alg::IntTuple>(&v))
    return tupleOf(*t);
  if (const auto *l = std::get_if<alg::Layout>(&v))
    return layoutOf(*l);
  if (const auto *c = std::get_if<alg::ComposedLayout>(&v)) {
    Value inner =
        std::holds_alternative<alg::Layout>(c->inner)
            ? layoutOf(std::get<alg::Layout>(c->inner))
            : Value(StaticOp::create(
                  builder, loc,
                  SwizzleType::get(builder.getContext(),
                                   std::get<alg::Swizzle>(c->inner))));
    Value offset = tupleOf(c->offset);
    Value outer = layoutOf(c->outer);
    return MakeComposedLayoutOp::create(builder, loc, type,
                                        ValueRange{inner, offset, outer});
  }
  if (const auto *t = std::get_if<alg::Tile>(&v)) {
    // Tiles with dynamic leaves only come from make_tile, which is kept.
    (void)t;
    return Value();
  }
  return Value();
}

LogicalResult Lowerer::lower(Operation *op) {
  // Normal-form producers stay as they are.
  if (isa<StaticOp, MakeIntTupleOp, MakeComposedLayoutOp, MakeTileOp>(op) ||
      (isa<MakeLayoutOp>(op) && op->getNumOperands() == 2))
    return success();
  // Leaves of a value built here are its operands; leaves of anything else
  // (a block argument) can only be read at run time.
  if (auto get = dyn_cast<GetLeavesOp>(op)) {
    Operation *def = get->getOperand(0).getDefiningOp();
    if (!def || !isa<StaticOp, MakeIntTupleOp, MakeLayoutOp,
                     MakeComposedLayoutOp, MakeTileOp>(def))
      return success();
    op->replaceAllUsesWith(leafValues(get->getOperand(0)));
    op->erase();
    return success();
  }

  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  ArithEmitter emitter(builder, loc);

  SmallVector<AlgebraValue, 2> operands;
  for (Value operand : op->getOperands()) {
    AlgebraValue av = toAlgebraValue(operand.getType());
    SmallVector<uint32_t> handles;
    for (Value leaf : leafValues(operand))
      handles.push_back(emitter.bind(leaf));
    operands.push_back(bindLeaves(av, handles));
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
