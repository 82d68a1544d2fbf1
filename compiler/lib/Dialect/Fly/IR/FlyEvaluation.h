//===- FlyEvaluation.h - Evaluating fly ops with the algebra ----*- C++ -*-===//
//
// Each fly op defines `static LogicalResult evaluate(Evaluation &)`: it maps
// the algebra objects of its operands (and its attributes) to those of its
// results. An op lists the operand kinds it accepts as typed callables:
//
//   LogicalResult CoalesceOp::evaluate(Evaluation &e) {
//     return e([](Arith &ar, const Layout &l) {
//       return algebra::coalesce(ar, l);
//     });
//   }
//
// The first callable whose parameters match the operand count and kinds
// runs, with the evaluation's `Arith` (an emitting one in the lowering). Its
// result (an algebra object, an `Int` for a leaf, or a list of leaves) is
// appended to the results.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLY_IR_FLYEVALUATION_H
#define FLY_LIB_DIALECT_FLY_IR_FLYEVALUATION_H

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <tuple>
#include <utility>

namespace mlir::fly::detail {

namespace algebra = ::fly::algebra;

/// Adapts a generic callable `f(ar, xs...)` to the given parameter kinds, so
/// that one body serves several operand kinds:
///   auto f = [](Arith &ar, const auto &x) { return algebra::size(ar, x); };
///   e(typed<IntTuple>(f), typed<Layout>(f));
template <typename... Args, typename F> auto typed(F f) {
  return [f](algebra::Arith &ar, const Args &...xs) { return f(ar, xs...); };
}

class Evaluation {
public:
  Evaluation(StringRef opName, DictionaryAttr attrs,
             ArrayRef<AlgebraValue> operands, ArrayRef<Type> resultTypes,
             algebra::Arith &ar, SmallVectorImpl<AlgebraValue> &results,
             std::optional<Location> loc)
      : opName(opName), attrs(attrs), operands(operands),
        resultTypes(resultTypes), ar(ar), results(results), loc(loc) {}

  /// Runs the first candidate that accepts the operands. Fails with a
  /// located error if none does, and without one (the error is in the
  /// `Arith`) if the algebra fails.
  template <typename... Candidates>
  LogicalResult operator()(Candidates &&...candidates) {
    std::optional<LogicalResult> outcome;
    ((outcome = outcome ? outcome : tryCandidate(candidates)), ...);
    if (outcome)
      return *outcome;
    return fail("does not accept operands (" + describeOperands() + ")");
  }

  StringRef getOpName() const { return opName; }
  DictionaryAttr getAttrs() const { return attrs; }
  ArrayRef<AlgebraValue> getOperands() const { return operands; }
  /// The results added so far.
  SmallVectorImpl<AlgebraValue> &getResults() const { return results; }
  /// The result types when the op exists already (empty for inference).
  ArrayRef<Type> getResultTypes() const { return resultTypes; }
  algebra::Arith &getArith() const { return ar; }

  /// A located error "'fly.NAME' op <message>": the operands or attributes
  /// do not fit the op.
  LogicalResult fail(const Twine &message) const;

  /// Appends a result.
  LogicalResult addResult(const AlgebraValue &value) {
    results.push_back(value);
    return success();
  }
  LogicalResult addResult(const algebra::Int &leaf) {
    return addResult(algebra::IntTuple(leaf));
  }
  LogicalResult addResult(ArrayRef<algebra::Int> leaves) {
    for (const algebra::Int &leaf : leaves)
      results.push_back(algebra::IntTuple(leaf));
    return success();
  }

  /// The same evaluation on other operands (which must outlive it).
  Evaluation withOperands(ArrayRef<AlgebraValue> newOperands) const {
    return Evaluation(opName, attrs, newOperands, resultTypes, ar, results,
                      loc);
  }

  /// Required attributes; a located error if missing or of the wrong kind.
  FailureOr<int64_t> getI64Attr(StringRef name) const;
  FailureOr<ArrayRef<int64_t>> getI64ArrayAttr(StringRef name) const;

private:
  template <typename F> std::optional<LogicalResult> tryCandidate(F &f) {
    using Traits = llvm::function_traits<std::decay_t<F>>;
    constexpr size_t numOperands = Traits::num_args - 1;
    if (operands.size() != numOperands)
      return std::nullopt;
    return call(f, std::make_index_sequence<numOperands>());
  }

  template <typename F, size_t... I>
  std::optional<LogicalResult> call(F &f, std::index_sequence<I...>) {
    using Traits = llvm::function_traits<std::decay_t<F>>;
    std::tuple<const std::decay_t<typename Traits::template arg_t<I + 1>> *...>
        args{std::get_if<std::decay_t<typename Traits::template arg_t<I + 1>>>(
            &operands[I])...};
    if (!(std::get<I>(args) && ...))
      return std::nullopt;
    auto value = f(ar, *std::get<I>(args)...);
    if (ar.failed())
      return failure();
    return addResult(value);
  }

  std::string describeOperands() const;

  StringRef opName;
  DictionaryAttr attrs;
  ArrayRef<AlgebraValue> operands;
  ArrayRef<Type> resultTypes;
  algebra::Arith &ar;
  SmallVectorImpl<AlgebraValue> &results;
  std::optional<Location> loc;
};

/// `fly.slice` of a tensor: the layout is sliced and the iterator moves to
/// the element of the fixed coordinates (FlyMemoryOps.cpp).
TensorValue sliceTensor(algebra::Arith &ar, const TensorValue &tensor,
                        const algebra::IntTuple &coord);

/// A tensor seen through a new layout placed at `offset` (what a partition
/// gives): behind a plain layout the iterator moves by the offset; behind a
/// composed layout `layout` replaces the outer one and the offset joins the
/// composed offset, in front of the swizzle (FlyMemoryOps.cpp).
TensorValue placeTensor(algebra::Arith &ar, const TensorValue &tensor,
                        const algebra::Layout &layout,
                        const algebra::IntTuple &offset);

/// InferTypeOpInterface::inferReturnTypes of every algebra op: evaluate on
/// the operand types, then turn the results into verified types (i32/i64
/// scalars by leaf width if `scalarResults`).
LogicalResult inferResultTypes(StringRef opName, MLIRContext *ctx,
                               std::optional<Location> loc,
                               TypeRange operandTypes, DictionaryAttr attrs,
                               bool scalarResults,
                               SmallVectorImpl<Type> &results);

} // namespace mlir::fly::detail

#endif // FLY_LIB_DIALECT_FLY_IR_FLYEVALUATION_H
