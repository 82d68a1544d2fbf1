//===- FlyAlgebraEval.cpp - Fly ops evaluated by the algebra --------------===//
//
// Dispatch from an op name to the op's `evaluate`, and type inference on top
// of it.
//
//===----------------------------------------------------------------------===//

#include "FlyEvaluation.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::fly;
using namespace mlir::fly::detail;
using algebra::Int;
using algebra::IntTuple;

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

LogicalResult Evaluation::fail(const Twine &message) const {
  return emitOptionalError(loc, "'", opName, "' op ", message);
}

FailureOr<int64_t> Evaluation::getI64Attr(StringRef name) const {
  auto attr = attrs ? dyn_cast_or_null<IntegerAttr>(attrs.get(name)) : nullptr;
  if (!attr || !attr.getType().isInteger(64))
    return fail("requires an i64 attribute '" + name + "'");
  return attr.getValue().getSExtValue();
}

FailureOr<ArrayRef<int64_t>> Evaluation::getI64ArrayAttr(StringRef name) const {
  auto attr =
      attrs ? dyn_cast_or_null<DenseI64ArrayAttr>(attrs.get(name)) : nullptr;
  if (!attr)
    return fail("requires an array<i64> attribute '" + name + "'");
  return attr.asArrayRef();
}

std::string Evaluation::describeOperands() const {
  static const char *const kKinds[] = {
      "int_tuple", "layout", "swizzle", "coord_swizzle", "composed_layout",
      "tile", "ptr",
      /*a tensor, by its iterator*/ "", /*an atom, by its type*/ ""};
  static_assert(std::size(kKinds) == std::variant_size_v<AlgebraValue>);
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(operands, os, [&](const AlgebraValue &v) {
    if (const auto *tensor = std::get_if<TensorValue>(&v))
      os << (tensor->isMemRef() ? "memref" : "coord_tensor");
    else if (const auto *atom = std::get_if<AtomValue>(&v))
      os << atom->type;
    else
      os << kKinds[v.index()];
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

AlgebraValue mlir::fly::toAlgebraValue(Type type) {
  if (std::optional<AlgebraValue> value = getAlgebraValue(type))
    return *value;
  if (auto intType = dyn_cast<IntegerType>(type))
    return IntTuple(Int::dynamic(1, intType.getWidth() > 32));
  // Only fly algebra types and integers are operands of algebra ops (callers
  // check); anything else is an empty tile.
  return algebra::Tile();
}

namespace {
using EvaluateFn = LogicalResult (*)(Evaluation &);

struct Evaluator {
  EvaluateFn evaluate;
  /// The op has the OnTensorLayout trait.
  bool onTensorLayout;
};

template <typename OpTy> using EvaluateMember = decltype(&OpTy::evaluate);
template <typename OpTy>
constexpr bool kOnTensorLayout =
    OpTy::template hasTrait<::mlir::OpTrait::fly::OnTensorLayout>();

/// Op name -> OpTy::evaluate for the ops that have one.
template <typename... Ops> llvm::StringMap<Evaluator> makeEvaluators() {
  llvm::StringMap<Evaluator> table;
  (
      [&] {
        if constexpr (llvm::is_detected<EvaluateMember, Ops>::value)
          table.try_emplace(Ops::getOperationName(),
                            Evaluator{&Ops::evaluate, kOnTensorLayout<Ops>});
      }(),
      ...);
  return table;
}
} // namespace

static const llvm::StringMap<Evaluator> &evaluators() {
  static const llvm::StringMap<Evaluator> table = makeEvaluators<
#define GET_OP_LIST
#include "fly/Dialect/Fly/IR/FlyOps.cpp.inc"
      >();
  return table;
}

bool mlir::fly::isEvaluatedByAlgebra(StringRef opName) {
  return evaluators().contains(opName);
}

/// An OnTensorLayout op on a tensor: evaluated on the tensor's layout, after
/// which each layout result becomes a tensor with the same iterator (CuTe's
/// `make_tensor(t.data(), f(t.layout()))`).
static LogicalResult evaluateOnTensorLayout(Evaluation &e,
                                            EvaluateFn evaluate) {
  const auto &tensor = std::get<TensorValue>(e.getOperands()[0]);
  SmallVector<AlgebraValue, 2> operands(e.getOperands());
  operands[0] = std::visit([](const auto &l) -> AlgebraValue { return l; },
                           tensor.layout);
  SmallVectorImpl<AlgebraValue> &results = e.getResults();
  size_t first = results.size();
  Evaluation onLayout = e.withOperands(operands);
  if (failed(evaluate(onLayout)))
    return failure();
  for (AlgebraValue &result : MutableArrayRef(results).drop_front(first)) {
    if (const auto *layout = std::get_if<algebra::Layout>(&result))
      result = TensorValue{tensor.iterator, *layout};
    else if (const auto *composed =
                 std::get_if<algebra::ComposedLayout>(&result))
      result = TensorValue{tensor.iterator, *composed};
  }
  return success();
}

LogicalResult mlir::fly::evaluateAlgebraOp(
    StringRef opName, DictionaryAttr attrs, ArrayRef<AlgebraValue> operands,
    ArrayRef<Type> resultTypes, algebra::Arith &ar,
    SmallVectorImpl<AlgebraValue> &results, std::optional<Location> loc) {
  auto it = evaluators().find(opName);
  if (it == evaluators().end())
    return emitOptionalError(loc, "'", opName,
                             "' is not an op of the layout algebra");
  Evaluation evaluation(opName, attrs, operands, resultTypes, ar, results, loc);
  const Evaluator &evaluator = it->second;
  if (evaluator.onTensorLayout && !operands.empty() &&
      std::holds_alternative<TensorValue>(operands[0]))
    return evaluateOnTensorLayout(evaluation, evaluator.evaluate);
  return evaluator.evaluate(evaluation);
}

LogicalResult
mlir::fly::evaluateAlgebraOp(Operation *op, ArrayRef<AlgebraValue> operands,
                             algebra::Arith &ar,
                             SmallVectorImpl<AlgebraValue> &results) {
  SmallVector<Type> resultTypes(op->getResultTypes());
  return evaluateAlgebraOp(op->getName().getStringRef(),
                           op->getAttrDictionary(), operands, resultTypes, ar,
                           results, op->getLoc());
}

//===----------------------------------------------------------------------===//
// Type inference
//===----------------------------------------------------------------------===//

/// The scalar type of a leaf: i64 for a wide dynamic leaf or a static value
/// beyond i32.
static FailureOr<Type> getScalarType(Builder &b, const AlgebraValue &value) {
  const auto *tuple = std::get_if<IntTuple>(&value);
  if (!tuple || !tuple->isLeaf())
    return failure();
  const Int &leaf = tuple->leaf();
  bool wide = leaf.isDynamic() ? leaf.isWide()
                               : leaf.value() != int64_t(int32_t(leaf.value()));
  return wide ? b.getI64Type() : b.getI32Type();
}

LogicalResult mlir::fly::detail::inferResultTypes(
    StringRef opName, MLIRContext *ctx, std::optional<Location> loc,
    TypeRange operandTypes, DictionaryAttr attrs, bool scalarResults,
    SmallVectorImpl<Type> &results) {
  SmallVector<AlgebraValue, 2> operands;
  for (auto [i, type] : llvm::enumerate(operandTypes)) {
    if (!getAlgebraValue(type) && !type.isInteger(32) && !type.isInteger(64))
      return emitOptionalError(loc, "'", opName, "' op operand #", i,
                               " has type ", type,
                               ", not a fly type or i32/i64");
    operands.push_back(toAlgebraValue(type));
  }

  algebra::Arith ar;
  SmallVector<AlgebraValue, 2> values;
  if (failed(evaluateAlgebraOp(opName, attrs, operands, {}, ar, values, loc)))
    return ar.failed()
               ? emitOptionalError(loc, "'", opName, "' op ", ar.error())
               : failure();

  Builder b(ctx);
  auto emitError = [&] {
    return mlir::emitError(loc.value_or(UnknownLoc::get(ctx)));
  };
  for (const AlgebraValue &value : values) {
    if (scalarResults) {
      FailureOr<Type> type = getScalarType(b, value);
      if (failed(type))
        return emitOptionalError(loc, "'", opName,
                                 "' op has a result that is not a leaf");
      results.push_back(*type);
      continue;
    }
    Type type = getCheckedType(emitError, ctx, value);
    if (!type)
      return failure();
    results.push_back(type);
  }
  return success();
}
