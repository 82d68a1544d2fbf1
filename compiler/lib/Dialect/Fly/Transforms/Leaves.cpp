//===- Leaves.cpp - Fly values to and from their dynamic leaves -----------===//
//
// Shared by fly-layout-lowering and fly-rewrite-func-signature (Leaves.h).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

//===----------------------------------------------------------------------===//
// ArithEmitter
//===----------------------------------------------------------------------===//

ArithEmitter::ArithEmitter(OpBuilder &b, Location loc) : b(b), loc(loc) {
  values.push_back(Value());
}

uint32_t ArithEmitter::bind(Value v) {
  values.push_back(v);
  return uint32_t(values.size() - 1);
}

Value ArithEmitter::materialize(const alg::Int &leaf, Type ty) {
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

/// The constant of an integer `arith.constant`, if `v` is one.
static std::optional<int64_t> constantOf(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIntOp>())
    return c.value();
  return std::nullopt;
}

Value ArithEmitter::emitMul(Value lhs, Value rhs) {
  if (!constantOf(lhs) && !constantOf(rhs)) {
    for (auto [crd, stride] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
      auto scaled = stride.getDefiningOp<arith::MulIOp>();
      if (!scaled)
        continue;
      Value x = scaled.getLhs(), c = scaled.getRhs();
      if (constantOf(x))
        std::swap(x, c);
      if (!constantOf(c) || constantOf(x))
        continue;
      Value crdTimesC = arith::MulIOp::create(b, loc, crd, c);
      return arith::MulIOp::create(b, loc, crdTimesC, x);
    }
  }
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

uint32_t ArithEmitter::emit(alg::DynOp op, ArrayRef<alg::Int> operands,
                            const alg::Int &result) {
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
    r = emitMul(v[0], v[1]);
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

//===----------------------------------------------------------------------===//
// Leaves of a value, values from leaves
//===----------------------------------------------------------------------===//

bool mlir::fly::isFlyOp(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() == FlyDialect::getDialectNamespace();
}

SmallVector<Value> mlir::fly::getLeafValues(OpBuilder &builder, Value v) {
  if (isa<IntegerType>(v.getType()))
    return {v};
  Operation *def = v.getDefiningOp();
  if (def && isa<StaticOp>(def))
    return {};
  if (def && isa<MakeIntTupleOp>(def))
    return SmallVector<Value>(def->getOperands());
  if (def && (isa<MakeComposedLayoutOp, MakeTileOp, MakeViewOp>(def) ||
              (isa<MakeLayoutOp>(def) && def->getNumOperands() == 2))) {
    SmallVector<Value> out;
    for (Value operand : def->getOperands())
      llvm::append_range(out, getLeafValues(builder, operand));
    return out;
  }
  // Anything else (a block argument): open it with fly.get_leaves.
  std::vector<alg::Int> dyn = getDynamicLeaves(toAlgebraValue(v.getType()));
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

Value mlir::fly::getPointerValue(OpBuilder &builder, Value memref) {
  if (auto view = memref.getDefiningOp<MakeViewOp>())
    return view.getIter();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(memref);
  return GetIterOp::create(builder, memref.getLoc(), memref);
}

Value mlir::fly::rebuildValue(OpBuilder &builder, Location loc,
                              const AlgebraValue &v, Type type,
                              ArithEmitter &emitter) {
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
  auto composedOf = [&](const alg::ComposedLayout &c) -> Value {
    Type ty = ComposedLayoutType::get(builder.getContext(), c);
    if (isStatic(ty))
      return StaticOp::create(builder, loc, ty);
    // A swizzle or coordinate swizzle is static: it has no leaves.
    auto functionOf = [&](const alg::ComposedFunction &function) {
      return std::visit(
          [&](const auto &f) -> Value {
            using T = std::decay_t<decltype(f)>;
            if constexpr (std::is_same_v<T, alg::Layout>)
              return layoutOf(f);
            else
              return StaticOp::create(
                  builder, loc, TypeFor<T>::type::get(builder.getContext(), f));
          },
          function);
    };
    // The chain from its outer end: each stage composed onto the rest.
    Value rest = layoutOf(c.outer);
    std::optional<alg::ComposedLayout> restValue;
    auto stage = [&](const alg::ComposedFunction &f, const alg::IntTuple &off) {
      alg::ComposedLayout value = restValue ? alg::compose(f, off, *restValue)
                                            : alg::compose(f, off, c.outer);
      Type type = ComposedLayoutType::get(builder.getContext(), value);
      rest = MakeComposedLayoutOp::create(
          builder, loc, type, ValueRange{functionOf(f), tupleOf(off), rest});
      restValue = std::move(value);
    };
    for (auto it = c.chain.rbegin(); it != c.chain.rend(); ++it)
      stage(it->function, it->offset);
    stage(c.inner, c.offset);
    return rest;
  };
  // The bound pointer, advanced by the elements the algebra added.
  auto advancedPointer = [&](const PointerValue &p, PointerType ty) -> Value {
    Value base = emitter.lookup(p.handle);
    if (!base || p.offset.leaf().isStaticValue(0))
      return base;
    return AddOffsetOp::create(builder, loc, ty, base, tupleOf(p.offset));
  };
  if (const auto *c = std::get_if<alg::ComposedLayout>(&v))
    return composedOf(*c);
  if (const auto *p = std::get_if<PointerValue>(&v))
    return advancedPointer(*p, cast<PointerType>(type));
  if (const auto *t = std::get_if<TensorValue>(&v)) {
    Value layout = std::holds_alternative<alg::Layout>(t->layout)
                       ? layoutOf(std::get<alg::Layout>(t->layout))
                       : composedOf(std::get<alg::ComposedLayout>(t->layout));
    Value iter =
        t->isMemRef()
            ? advancedPointer(std::get<PointerValue>(t->iterator),
                              cast<MemTensorType>(type).getPointer())
            : tupleOf(std::get<alg::IntTuple>(t->iterator));
    if (!iter)
      return Value();
    return MakeViewOp::create(builder, loc, type, ValueRange{iter, layout});
  }
  if (const auto *t = std::get_if<alg::Tile>(&v)) {
    // Tiles with dynamic leaves only come from make_tile, which is kept.
    (void)t;
    return Value();
  }
  return Value();
}

Value mlir::fly::buildFromLeaves(OpBuilder &b, Location loc, Type type,
                                 ValueRange leaves, Value pointer) {
  if (isa<PointerType>(type))
    return pointer;
  ArithEmitter emitter(b, loc);
  SmallVector<uint32_t> handles;
  for (Value leaf : leaves)
    handles.push_back(emitter.bind(leaf));
  AlgebraValue value = bindDynamicLeaves(toAlgebraValue(type), handles);
  if (auto *t = std::get_if<TensorValue>(&value))
    if (auto *p = std::get_if<PointerValue>(&t->iterator))
      p->handle = pointer ? emitter.bind(pointer) : 0;
  return rebuildValue(b, loc, value, type, emitter);
}
