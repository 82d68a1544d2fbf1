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

#include "fly/Dialect/Fly/IR/FlyTypes.h"

#include "mlir/IR/Operation.h"

namespace mlir::fly {

/// The algebra value of an operand type: a fly type's value, or a dynamic
/// leaf for an i32/i64 scalar.
AlgebraValue toAlgebraValue(Type type);

/// True for the ops that `evaluateAlgebraOp` knows; memory accesses,
/// allocations and pointers from outside are not among them.
bool isEvaluatedByAlgebra(StringRef opName);

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
