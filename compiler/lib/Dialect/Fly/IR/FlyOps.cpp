//===- FlyOps.cpp - Assembly, construction and extraction ops -------------===//
//
// The assembly format shared by every fly op, and the construction and
// extraction ops of SPEC §2.3.
//
//===----------------------------------------------------------------------===//

#include "FlyEvaluation.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Arith;
using algebra::Int;
using algebra::IntTuple;
using algebra::Layout;

//===----------------------------------------------------------------------===//
// Assembly: %r = fly.NAME(%a, %b) {attrs} : (TA, TB) -> TR
//===----------------------------------------------------------------------===//

namespace mlir::fly::detail {

/// The name of the segment sizes of an op with operand groups.
static constexpr llvm::StringLiteral kSegmentSizes = "operandSegmentSizes";

/// Parses the call-like form. Without `-> TR`, an op that infers its result
/// types gets them from its operand types and attributes; an op without
/// results needs none. An op with operand segments (an `operandSegmentSizes`
/// attribute) writes each segment that is not one operand in brackets,
/// `[%a, %s]`; its types stay in line.
template <typename OpTy>
ParseResult parseCallLikeOp(OpAsmParser &parser, OperationState &result) {
  bool grouped = llvm::is_contained(OpTy::getAttributeNames(), kSegmentSizes);
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<int32_t> segments;
  SmallVector<Type> operandTypes;
  SMLoc operandsLoc = parser.getCurrentLocation();
  auto parseElement = [&]() -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalLSquare())) {
      if (!grouped)
        return parser.emitError(at)
               << "'" << OpTy::getOperationName()
               << "' takes no operand groups ('[...]')";
      size_t before = operands.size();
      if (failed(parser.parseOptionalRSquare()) &&
          (parser.parseOperandList(operands) || parser.parseRSquare()))
        return failure();
      segments.push_back(int32_t(operands.size() - before));
      return success();
    }
    segments.push_back(1);
    return parser.parseOperand(operands.emplace_back());
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                     parseElement) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&] {
        return parser.parseType(operandTypes.emplace_back());
      }))
    return failure();
  if (parser.resolveOperands(operands, operandTypes, operandsLoc,
                             result.operands))
    return failure();
  if (grouped)
    result.addAttribute(kSegmentSizes,
                        parser.getBuilder().getDenseI32ArrayAttr(segments));

  if (succeeded(parser.parseOptionalArrow())) {
    if (succeeded(parser.parseOptionalLParen())) {
      if (succeeded(parser.parseOptionalRParen()))
        return success();
      if (parser.parseTypeList(result.types) || parser.parseRParen())
        return failure();
      return success();
    }
    return parser.parseType(result.types.emplace_back());
  }

  if constexpr (OpTy::template hasTrait<OpTrait::ZeroResults>()) {
    return success();
  } else if constexpr (OpTy::template hasTrait<
                           InferTypeOpInterface::Trait>()) {
    MLIRContext *ctx = parser.getContext();
    return OpTy::inferReturnTypes(ctx, result.location, result.operands,
                                  result.attributes.getDictionary(ctx),
                                  result.getRawProperties(), result.regions,
                                  result.types);
  } else {
    return parser.emitError(parser.getNameLoc())
           << "expected '->' and the result type of '"
           << OpTy::getOperationName() << "'";
  }
}

/// Prints the call-like form, with the result types unless the op never has
/// results, and the operand groups of an op with operand segments.
void printCallLikeOp(OpAsmPrinter &p, Operation *op) {
  p << '(';
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>(kSegmentSizes);
  int64_t total = 0;
  if (segments)
    for (int32_t n : segments.asArrayRef())
      total += n < 0 ? op->getNumOperands() + 1 : n;
  if (segments && total == int64_t(op->getNumOperands())) {
    OperandRange rest = op->getOperands();
    llvm::interleaveComma(segments.asArrayRef(), p, [&](int32_t n) {
      OperandRange group = rest.take_front(n);
      rest = rest.drop_front(n);
      if (n == 1) {
        p.printOperand(group.front());
        return;
      }
      p << '[';
      p.printOperands(group);
      p << ']';
    });
  } else {
    p.printOperands(op->getOperands());
  }
  p << ')';
  p.printOptionalAttrDict(op->getAttrs(), {kSegmentSizes});
  p << " : (";
  llvm::interleaveComma(op->getOperandTypes(), p);
  p << ')';
  if (!op->hasTrait<OpTrait::ZeroResults>())
    p.printArrowTypeList(op->getResultTypes());
}

/// %r = fly.static {attrs} : T
ParseResult parseStaticOp(OpAsmParser &parser, OperationState &result) {
  return failure(parser.parseOptionalAttrDict(result.attributes) ||
                 parser.parseColonType(result.types.emplace_back()));
}

void printStaticOp(OpAsmPrinter &p, Operation *op) {
  p.printOptionalAttrDict(op->getAttrs());
  p << " : " << op->getResult(0).getType();
}

} // namespace mlir::fly::detail

#define GET_OP_CLASSES
#include "fly/Dialect/Fly/IR/FlyOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

LogicalResult StaticOp::verify() {
  if (!isStatic(getType()))
    return emitOpError("result type ")
           << getType() << " has dynamic leaves; fly.static needs a static "
           << "value";
  return success();
}

/// The value is the result type.
LogicalResult StaticOp::evaluate(Evaluation &e) {
  if (e.getResultTypes().size() != 1 || !e.getOperands().empty())
    return e.fail("needs its result type and no operands");
  std::optional<AlgebraValue> value = getAlgebraValue(e.getResultTypes()[0]);
  if (!value)
    return e.fail("needs a fly algebra result type");
  return e.addResult(*value);
}

LogicalResult MakeIntTupleOp::verify() {
  SmallVector<Type> leafTypes = getDynamicLeafTypes(getType());
  if (leafTypes.size() != getLeaves().size())
    return emitOpError("expects one operand per dynamic leaf of ")
           << getType() << " (" << leafTypes.size() << "), got "
           << getLeaves().size();
  for (auto [i, leaf, type] : llvm::enumerate(getLeaves(), leafTypes))
    if (leaf.getType() != type)
      return emitOpError("operand #")
             << i << " is the dynamic leaf #" << i << " of " << getType()
             << " and must be " << type << ", got " << leaf.getType();
  return success();
}

/// The result type with its dynamic leaves, in order, replaced by the
/// operands (which carry the emitter's handles in the lowering).
LogicalResult MakeIntTupleOp::evaluate(Evaluation &e) {
  std::optional<IntTuple> type =
      e.getResultTypes().size() == 1
          ? getAlgebraValueAs<IntTuple>(e.getResultTypes()[0])
          : std::nullopt;
  if (!type)
    return e.fail("needs its int_tuple result type");
  std::vector<Int> leaves;
  for (const AlgebraValue &operand : e.getOperands()) {
    const auto *leaf = std::get_if<IntTuple>(&operand);
    if (!leaf || !leaf->isLeaf())
      return e.fail("expects scalar operands");
    leaves.push_back(leaf->leaf());
  }
  if (leaves.size() != getDynamicLeafTypes(e.getResultTypes()[0]).size())
    return e.fail("expects one operand per dynamic leaf");
  auto next = leaves.begin();
  IntTuple value = algebra::transformLeaves(*type, [&](const Int &leaf) {
    if (!leaf.isDynamic())
      return leaf;
    const Int &operand = *next++;
    return operand.isDynamic() ? leaf.withHandle(operand.handle()) : operand;
  });
  return e.addResult(value);
}

/// make_shape / make_stride / make_coord: the tuple of the operands (a
/// scalar operand is a dynamic leaf already); a single operand is itself.
static LogicalResult evaluateMakeTuple(Evaluation &e) {
  std::vector<IntTuple> elems;
  for (auto [i, operand] : llvm::enumerate(e.getOperands())) {
    const auto *tuple = std::get_if<IntTuple>(&operand);
    if (!tuple)
      return e.fail("operand #" + Twine(i) +
                    " must be an int_tuple or an i32/i64 scalar");
    elems.push_back(*tuple);
  }
  if (elems.size() == 1)
    return e.addResult(elems.front());
  return e.addResult(IntTuple::tuple(std::move(elems)));
}

LogicalResult MakeShapeOp::evaluate(Evaluation &e) {
  return evaluateMakeTuple(e);
}
LogicalResult MakeStrideOp::evaluate(Evaluation &e) {
  return evaluateMakeTuple(e);
}
LogicalResult MakeCoordOp::evaluate(Evaluation &e) {
  return evaluateMakeTuple(e);
}

LogicalResult MakeLayoutOp::evaluate(Evaluation &e) {
  // The layout type checks that shape and stride are congruent.
  return e([](Arith &ar,
              const IntTuple &shape) { return algebra::makeLayout(ar, shape); },
           [](Arith &, const IntTuple &shape, const IntTuple &stride) {
             return Layout(shape, stride);
           });
}

LogicalResult MakeOrderedLayoutOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const IntTuple &shape, const IntTuple &order) {
    return algebra::makeOrderedLayout(ar, shape, order);
  });
}

LogicalResult MakeIdentityLayoutOp::evaluate(Evaluation &e) {
  return e([](Arith &, const IntTuple &shape) {
    return algebra::makeIdentityLayout(shape);
  });
}

LogicalResult MakeLayoutLikeOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &layout) {
    return algebra::makeLayoutLike(ar, layout);
  });
}

LogicalResult MakeFragmentLayoutLikeOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const Layout &layout) {
    Layout fragment = algebra::makeFragmentLike(ar, layout);
    if (!ar.failed() &&
        (!algebra::isStatic(fragment.shape) || !algebra::isStatic(fragment.stride)))
      ar.fail("a fragment layout needs a static layout, got " + toString(layout));
    return fragment;
  });
}

LogicalResult MakeComposedLayoutOp::evaluate(Evaluation &e) {
  // A composed layout on either side is flattened into one chain.
  auto compose = [](Arith &, const auto &inner, const IntTuple &offset,
                    const auto &outer) {
    using Inner = std::decay_t<decltype(inner)>;
    if constexpr (std::is_same_v<Inner, algebra::ComposedLayout>)
      return algebra::compose(inner, offset, outer);
    else
      return algebra::compose(algebra::ComposedFunction(inner), offset, outer);
  };
  using algebra::ComposedLayout;
  using algebra::CoordSwizzle;
  using algebra::Swizzle;
  return e(typed<Swizzle, IntTuple, Layout>(compose),
           typed<Layout, IntTuple, Layout>(compose),
           typed<CoordSwizzle, IntTuple, Layout>(compose),
           typed<ComposedLayout, IntTuple, Layout>(compose),
           typed<Swizzle, IntTuple, ComposedLayout>(compose),
           typed<Layout, IntTuple, ComposedLayout>(compose),
           typed<CoordSwizzle, IntTuple, ComposedLayout>(compose),
           typed<ComposedLayout, IntTuple, ComposedLayout>(compose));
}

/// A tile mode from an operand: a layout; an int_tuple leaf (`N` is `N:1`,
/// `?` is `?:1`, `*` keeps the mode); or a tile, nested.
static FailureOr<algebra::Tile::Mode> getTileMode(Evaluation &e, unsigned i,
                                                  const AlgebraValue &operand) {
  using Kind = algebra::Tile::Mode::Kind;
  algebra::Tile::Mode mode;
  if (const auto *layout = std::get_if<Layout>(&operand)) {
    mode.kind = Kind::Layout;
    mode.layout = *layout;
    return mode;
  }
  if (const auto *tile = std::get_if<algebra::Tile>(&operand)) {
    mode.kind = Kind::Nested;
    mode.nested = tile->modes;
    return mode;
  }
  const auto *tuple = std::get_if<IntTuple>(&operand);
  if (!tuple || !tuple->isLeaf() || tuple->leaf().isBasis())
    return e.fail("operand #" + Twine(i) +
                  " must be a layout, a tile or an int_tuple leaf "
                  "(integer, '?' or '*')");
  if (tuple->leaf().isNone()) {
    mode.kind = Kind::Keep;
    return mode;
  }
  mode.kind = Kind::Layout;
  mode.layout = Layout(*tuple, IntTuple(1));
  return mode;
}

LogicalResult MakeTileOp::evaluate(Evaluation &e) {
  if (e.getOperands().empty())
    return e.fail("expects at least one mode");
  algebra::Tile tile;
  for (auto [i, operand] : llvm::enumerate(e.getOperands())) {
    FailureOr<algebra::Tile::Mode> mode = getTileMode(e, i, operand);
    if (failed(mode))
      return failure();
    tile.modes.push_back(std::move(*mode));
  }
  return e.addResult(tile);
}

//===----------------------------------------------------------------------===//
// Extraction
//===----------------------------------------------------------------------===//

LogicalResult GetScalarOp::evaluate(Evaluation &e) {
  return e([](Arith &ar, const IntTuple &t) {
    if (!t.isLeaf() || t.leaf().isNone() || t.leaf().isBasis()) {
      ar.fail("expects a single integer leaf, got " + toString(t));
      return Int(0);
    }
    return t.leaf();
  });
}

/// An i32 value may be read as i64.
bool GetScalarOp::isCompatibleReturnTypes(TypeRange inferred,
                                          TypeRange actual) {
  return inferred == actual ||
         (inferred.size() == 1 && actual.size() == 1 &&
          inferred[0].isInteger(32) && actual[0].isInteger(64));
}

/// The dynamic leaves in the order of getDynamicLeafTypes.
LogicalResult GetLeavesOp::evaluate(Evaluation &e) {
  auto leaves = [](Arith &, const auto &x) { return getDynamicLeaves(x); };
  return e(typed<IntTuple>(leaves), typed<Layout>(leaves),
           typed<algebra::ComposedLayout>(leaves), typed<algebra::Tile>(leaves),
           typed<TensorValue>(leaves));
}

LogicalResult GetShapeOp::evaluate(Evaluation &e) {
  return e([](Arith &, const Layout &l) { return l.shape; });
}

LogicalResult GetStrideOp::evaluate(Evaluation &e) {
  return e([](Arith &, const Layout &l) { return l.stride; });
}

/// An algebra function defined alike on int_tuples and layouts (and, for
/// binary ones, a second operand of kind `Second`).
template <typename F>
static LogicalResult evaluateOnTupleOrLayout(Evaluation &e, F f) {
  return e(typed<IntTuple>(f), typed<Layout>(f));
}
template <typename Second, typename F>
static LogicalResult evaluateOnTupleOrLayoutAnd(Evaluation &e, F f) {
  return e(typed<IntTuple, IntTuple>(f), typed<Layout, Second>(f));
}

/// take / group: `f(ar, x, begin, end)` with the `begin` and `end`
/// attributes.
template <typename F>
static LogicalResult evaluateModeRange(Evaluation &e, F f) {
  FailureOr<int64_t> begin = e.getI64Attr("begin");
  if (failed(begin))
    return failure();
  FailureOr<int64_t> end = e.getI64Attr("end");
  if (failed(end))
    return failure();
  return evaluateOnTupleOrLayout(
      e, [&](Arith &ar, const auto &x) { return f(ar, x, *begin, *end); });
}

/// get / select: `f(ar, x, modes)` with the array attribute `name`.
template <typename F>
static LogicalResult evaluateModeList(Evaluation &e, StringRef name, F f) {
  FailureOr<ArrayRef<int64_t>> modes = e.getI64ArrayAttr(name);
  if (failed(modes))
    return failure();
  return evaluateOnTupleOrLayout(
      e, [&](Arith &ar, const auto &x) { return f(ar, x, *modes); });
}

LogicalResult GetOp::evaluate(Evaluation &e) {
  return evaluateModeList(e, "mode", [](Arith &ar, const auto &x, auto path) {
    return algebra::getMode(ar, x, path);
  });
}

LogicalResult SelectOp::evaluate(Evaluation &e) {
  return evaluateModeList(e, "modes", [](Arith &ar, const auto &x, auto modes) {
    return algebra::select(ar, x, modes);
  });
}

LogicalResult TakeOp::evaluate(Evaluation &e) {
  return evaluateModeRange(
      e, [](Arith &ar, const auto &x, int64_t begin, int64_t end) {
        return algebra::take(ar, x, begin, end);
      });
}

LogicalResult GroupOp::evaluate(Evaluation &e) {
  return evaluateModeRange(
      e, [](Arith &ar, const auto &x, int64_t begin, int64_t end) {
        return algebra::group(ar, x, begin, end);
      });
}

LogicalResult AppendOp::evaluate(Evaluation &e) {
  return evaluateOnTupleOrLayoutAnd<Layout>(
      e, [](Arith &, const auto &x, const auto &elem) {
        return algebra::append(x, elem);
      });
}

LogicalResult PrependOp::evaluate(Evaluation &e) {
  return evaluateOnTupleOrLayoutAnd<Layout>(
      e, [](Arith &, const auto &x, const auto &elem) {
        return algebra::prepend(x, elem);
      });
}

// FlyDSL's slice and dice ops unwrap their result: the one mode kept by
// (*,1) on ((16,8),4) is (16,8), not ((16,8)); a kept leaf is a leaf.
LogicalResult SliceOp::evaluate(Evaluation &e) {
  auto f = [](Arith &ar, const auto &x, const IntTuple &coord) {
    return algebra::unwrap(algebra::slice(ar, coord, x));
  };
  return e(typed<IntTuple, IntTuple>(f), typed<Layout, IntTuple>(f),
           [](Arith &ar, const TensorValue &tensor, const IntTuple &coord) {
             return sliceTensor(ar, tensor, coord);
           });
}

LogicalResult DiceOp::evaluate(Evaluation &e) {
  return evaluateOnTupleOrLayoutAnd<IntTuple>(
      e, [](Arith &ar, const auto &x, const IntTuple &coord) {
        return algebra::unwrap(algebra::dice(ar, coord, x));
      });
}
