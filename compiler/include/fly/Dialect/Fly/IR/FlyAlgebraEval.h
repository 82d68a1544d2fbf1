//===- FlyAlgebraEval.h - Fly ops evaluated by the algebra ------*- C++ -*-===//
//
// The one mapping from Fly ops to algebra functions. Type inference calls it
// with the operands' types (dynamic leaves without values); the layout
// lowering calls it with the dynamic leaves bound to SSA values through an
// emitting `Arith`. Both therefore agree on every result.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYALGEBRAEVAL_H
#define FLY_DIALECT_FLY_IR_FLYALGEBRAEVAL_H

#include "fly/Algebra/Layout.h"

#include "mlir/IR/Operation.h"

#include <variant>

namespace mlir::fly {

/// An operand or result of a Fly op as the algebra sees it. Integer (i32 /
/// i64) values are IntTuple leaves.
using AlgebraValue =
    std::variant<::fly::algebra::IntTuple, ::fly::algebra::Layout,
                 ::fly::algebra::Swizzle, ::fly::algebra::ComposedLayout,
                 ::fly::algebra::Tile>;

/// The algebra value of a Fly type (an i32/i64 type is a dynamic leaf).
AlgebraValue toAlgebraValue(Type type);
/// The type of an algebra value (handles dropped).
Type toType(MLIRContext *ctx, const AlgebraValue &value);
/// Every leaf of the type is static (or `*`): the value needs no runtime data.
bool isStaticType(Type type);

/// Evaluate the op named `opName` with attributes `attrs` on `operands`.
/// Errors of the algebra are left in `ar`; a failure without an algebra
/// error means the operands do not fit the op (reported through `loc`).
LogicalResult evaluateAlgebraOp(StringRef opName, DictionaryAttr attrs,
                                ArrayRef<AlgebraValue> operands,
                                ArrayRef<Type> resultTypes,
                                ::fly::algebra::Arith &ar,
                                SmallVectorImpl<AlgebraValue> &results,
                                std::optional<Location> loc);

/// Convenience for an existing op.
LogicalResult evaluateAlgebraOp(Operation *op, ArrayRef<AlgebraValue> operands,
                                ::fly::algebra::Arith &ar,
                                SmallVectorImpl<AlgebraValue> &results);

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_IR_FLYALGEBRAEVAL_H
