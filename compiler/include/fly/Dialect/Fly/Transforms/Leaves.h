//===- Leaves.h - Fly values to and from their dynamic leaves ---*- C++ -*-===//
//
// A Fly value is determined by its type and the SSA values of its dynamic
// leaves (plus, for a memref, its pointer). The passes that take values
// apart (fly-layout-lowering, fly-rewrite-func-signature) share these
// helpers: opening a value into its leaves, and rebuilding a value in normal
// form (`fly.static`, `fly.make_int_tuple`, `fly.make_layout`,
// `fly.make_composed_layout`, `fly.make_view`) from them. The leaf order is
// the dialect's one, `getDynamicLeafTypes` (FlyTypes.h).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_TRANSFORMS_LEAVES_H
#define FLY_DIALECT_FLY_TRANSFORMS_LEAVES_H

#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::fly {

/// Emits `arith` ops for the algebra's dynamic arithmetic. Handles index
/// bound SSA values (0 is "no value").
class ArithEmitter : public ::fly::algebra::DynamicEmitter {
public:
  ArithEmitter(OpBuilder &b, Location loc);

  /// A new handle for `v`.
  uint32_t bind(Value v);

  /// The value bound to a handle (null for 0).
  Value lookup(uint32_t handle) const { return values[handle]; }

  /// The SSA value of a leaf, as an integer of type `ty` (a constant for a
  /// static leaf, the bound value sign-extended or truncated otherwise).
  Value materialize(const ::fly::algebra::Int &leaf, Type ty);

  uint32_t emit(::fly::algebra::DynOp op,
                ArrayRef<::fly::algebra::Int> operands,
                const ::fly::algebra::Int &result) override;

private:
  /// `a * b`, with the constant factor of a stride `x * C` (a mode of a
  /// divided or blocked layout) applied to the other operand first:
  /// `(a * C) * x`. The terms of an offset then share their dynamic
  /// strides as written, so LLVM factors `c0*C*x + c1*x` into one multiply
  /// by `x` (`x * C` alone hides the common factor from it).
  Value emitMul(Value a, Value b);

  OpBuilder &b;
  Location loc;
  SmallVector<Value> values;
};

/// True for an op of the `fly` dialect.
bool isFlyOp(Operation *op);

/// The SSA values of the dynamic leaves of a Fly value, in the order of
/// getDynamicLeafTypes (or the scalar itself for an integer value). Taken
/// from the operands of the construction op that produced it; any other
/// value (a block argument, a call result) is opened with `fly.get_leaves`
/// right after its definition.
SmallVector<Value> getLeafValues(OpBuilder &b, Value v);

/// The fly pointer of a memref value: the one `fly.make_view` built it
/// from, or else `fly.get_iter` right after its definition.
Value getPointerValue(OpBuilder &b, Value memref);

/// `v`, of type `type`, in normal form from the leaves and pointers bound in
/// `emitter`: `fly.static` when nothing dynamic is left, else
/// `fly.make_int_tuple` of its dynamic leaves, `fly.make_layout` /
/// `fly.make_composed_layout` of such parts, `fly.make_view` of an iterator
/// (a bound pointer advanced by `fly.add_offset`, or a base tuple) and a
/// layout. Null when `v` cannot be rebuilt (a tile with dynamic leaves, a
/// memref without a bound pointer).
Value rebuildValue(OpBuilder &b, Location loc, const AlgebraValue &v,
                   Type type, ArithEmitter &emitter);

/// The value of Fly type `type` whose dynamic leaves are `leaves` (in the
/// order of getDynamicLeafTypes) and, for a memref or pointer, whose fly
/// pointer is `pointer`; built in normal form at the insertion point. Null
/// when the type cannot be rebuilt.
Value buildFromLeaves(OpBuilder &b, Location loc, Type type, ValueRange leaves,
                      Value pointer = Value());

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_TRANSFORMS_LEAVES_H
