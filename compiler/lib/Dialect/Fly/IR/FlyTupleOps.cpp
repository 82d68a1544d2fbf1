//===- FlyTupleOps.cpp - Tuple arithmetic and query ops -------------------===//

#include "FlyEvaluation.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Arith;
using algebra::ComposedLayout;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;

//===----------------------------------------------------------------------===//
// Tuple arithmetic
//===----------------------------------------------------------------------===//

/// An op whose result is EXPR of two int_tuples `a` and `b`.
#define FLY_TUPLE_BINARY_OP(OP, EXPR)                                          \
  LogicalResult OP::evaluate(Evaluation &e) {                                  \
    return e(                                                                  \
        [](Arith &ar, const IntTuple &a, const IntTuple &b) { return EXPR; }); \
  }

using algebra::ElemOp;
FLY_TUPLE_BINARY_OP(IntTupleAddOp, algebra::elementwise(ar, ElemOp::Add, a, b))
FLY_TUPLE_BINARY_OP(IntTupleSubOp, algebra::elementwise(ar, ElemOp::Sub, a, b))
FLY_TUPLE_BINARY_OP(IntTupleMulOp, algebra::elementwise(ar, ElemOp::Mul, a, b))
FLY_TUPLE_BINARY_OP(IntTupleDivOp, algebra::elementwise(ar, ElemOp::Div, a, b))
FLY_TUPLE_BINARY_OP(IntTupleModOp, algebra::elementwise(ar, ElemOp::Mod, a, b))
FLY_TUPLE_BINARY_OP(ShapeDivOp, algebra::shapeDiv(ar, a, b))
FLY_TUPLE_BINARY_OP(CeilDivOp, algebra::ceilDiv(ar, a, b))
FLY_TUPLE_BINARY_OP(ElemLessOp, algebra::elemLess(ar, a, b))
FLY_TUPLE_BINARY_OP(EqualOp, algebra::equal(ar, a, b))
#undef FLY_TUPLE_BINARY_OP

LogicalResult IntTupleProductOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const IntTuple &t) { return algebra::product(ar, t); });
}

LogicalResult IntTupleProductEachOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const IntTuple &t) { return algebra::productEach(ar, t); });
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// size, rank and depth are defined on int_tuples, layouts and composed
/// layouts (through the outer layout, whose domain it is).
template <typename OnTuple, typename OnLayout>
static LogicalResult evaluateOnDomain(Evaluation &e, OnTuple onTuple,
                                      OnLayout onLayout) {
  return e([&](Arith &ar, const IntTuple &t) { return onTuple(ar, t); },
           [&](Arith &ar, const Layout &l) { return onLayout(ar, l); },
           [&](Arith &ar, const ComposedLayout &l) {
             return onLayout(ar, l.outer);
           });
}

LogicalResult SizeOp::evaluate(Evaluation &e) {
  return evaluateOnDomain(
      e, [](Arith &ar, const IntTuple &t) { return algebra::product(ar, t); },
      [](Arith &ar, const Layout &l) { return algebra::size(ar, l); });
}

LogicalResult RankOp::evaluate(Evaluation &e) {
  return evaluateOnDomain(
      e, [](Arith &, const IntTuple &t) { return Int(int64_t(t.rank())); },
      [](Arith &, const Layout &l) { return Int(int64_t(l.rank())); });
}

LogicalResult DepthOp::evaluate(Evaluation &e) {
  auto depth = [](Arith &, const IntTuple &t) {
    return Int(int64_t(algebra::depth(t)));
  };
  return evaluateOnDomain(
      e, depth, [&](Arith &ar, const Layout &l) { return depth(ar, l.shape); });
}

LogicalResult CosizeOp::evaluate(Evaluation &e) {
  auto f = [](Arith &ar, const auto &layout) {
    return algebra::cosize(ar, layout);
  };
  return e(typed<Layout>(f), typed<ComposedLayout>(f));
}

LogicalResult CoshapeOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &l) { return algebra::coshape(ar, l); });
}

LogicalResult Crd2IdxOp::evaluate(Evaluation &e) {
  auto f = [](Arith &ar, const IntTuple &coord, const auto &layout) {
    return algebra::crd2idx(ar, coord, layout);
  };
  return e(typed<IntTuple, Layout>(f), typed<IntTuple, ComposedLayout>(f),
           typed<IntTuple, algebra::CoordSwizzle>(f));
}

LogicalResult Idx2CrdOp::evaluate(Evaluation &e) {
  auto f = [](Arith &ar, const IntTuple &index, const auto &shapeOrLayout) {
    return algebra::idx2crd(ar, index, shapeOrLayout);
  };
  return e(typed<IntTuple, Layout>(f), typed<IntTuple, IntTuple>(f));
}
