//===- FlyAlgebraOps.cpp - Layout algebra ops -----------------------------===//

#include "FlyEvaluation.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Arith;
using algebra::ComposedLayout;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;
using algebra::Tile;

/// An int_tuple operand that must be a single leaf.
static Int getLeaf(Arith &ar, const IntTuple &t, StringRef what) {
  if (t.isLeaf())
    return t.leaf();
  ar.fail((what + " must be an int_tuple leaf, got " + toString(t)).str());
  return Int(1);
}

LogicalResult CoalesceOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &l) { return algebra::coalesce(ar, l); },
           [](Arith &ar, const Layout &l, const IntTuple &profile) {
             return algebra::coalesce(ar, l, profile);
           });
}

LogicalResult CompositionOp::evaluate(Evaluation &e) {
  auto f = [](Arith &ar, const auto &a, const auto &b) {
    return algebra::composition(ar, a, b);
  };
  return e(typed<Layout, Layout>(f), typed<Layout, Tile>(f),
           typed<ComposedLayout, Layout>(f), typed<ComposedLayout, Tile>(f));
}

LogicalResult ComplementOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const Layout &l) { return algebra::complement(ar, l); },
      [](Arith &ar, const Layout &l, const IntTuple &cotarget) {
        Int leaf = getLeaf(ar, cotarget, "the cotarget");
        return ar.failed() ? l : algebra::complement(ar, l, leaf);
      });
}

LogicalResult RightInverseOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const Layout &l) { return algebra::rightInverse(ar, l); });
}

LogicalResult LeftInverseOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const Layout &l) { return algebra::leftInverse(ar, l); });
}

/// The divides and products of a layout by a layout or by a by-mode tile
/// (FUNC is overloaded on both).
#define FLY_TILER_OP(OP, FUNC)                                                 \
  LogicalResult OP::evaluate(Evaluation &e) {                                  \
    auto f = [](Arith &ar, const Layout &a, const auto &b) {                   \
      return algebra::FUNC(ar, a, b);                                          \
    };                                                                         \
    return e(typed<Layout, Layout>(f), typed<Layout, Tile>(f));                \
  }

FLY_TILER_OP(LogicalDivideOp, logicalDivide)
FLY_TILER_OP(ZippedDivideOp, zippedDivide)
FLY_TILER_OP(TiledDivideOp, tiledDivide)
FLY_TILER_OP(FlatDivideOp, flatDivide)
FLY_TILER_OP(LogicalProductOp, logicalProduct)
FLY_TILER_OP(ZippedProductOp, zippedProduct)
FLY_TILER_OP(TiledProductOp, tiledProduct)
FLY_TILER_OP(FlatProductOp, flatProduct)
#undef FLY_TILER_OP

LogicalResult BlockedProductOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &a, const Layout &b) {
    return algebra::blockedProduct(ar, a, b);
  });
}

LogicalResult RakedProductOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &a, const Layout &b) {
    return algebra::rakedProduct(ar, a, b);
  });
}

LogicalResult RecastLayoutOp::evaluate(Evaluation &e) {
  FailureOr<int64_t> oldBits = e.getI64Attr("old_bits");
  if (failed(oldBits))
    return failure();
  FailureOr<int64_t> newBits = e.getI64Attr("new_bits");
  if (failed(newBits))
    return failure();
  if (*oldBits < 1 || *newBits < 1)
    return e.fail("old_bits and new_bits must be positive");
  return e([&](Arith &ar, const Layout &l) {
    return algebra::recastLayout(ar, l, *oldBits, *newBits);
  });
}

LogicalResult TileToShapeOp::evaluate(Evaluation &e) {
  return e(
      [](Arith &ar, const Layout &block, const IntTuple &shape) {
        return algebra::tileToShape(ar, block, shape);
      },
      [](Arith &ar, const Layout &block, const IntTuple &shape,
         const IntTuple &order) {
        return algebra::tileToShape(ar, block, shape, &order);
      });
}
