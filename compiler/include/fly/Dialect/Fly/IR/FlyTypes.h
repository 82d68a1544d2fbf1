//===- FlyTypes.h - Types of the fly dialect --------------------*- C++ -*-===//
//
// The fly types hold algebra objects (`fly::algebra`). This header is the one
// place that converts between the two.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYTYPES_H
#define FLY_DIALECT_FLY_IR_FLYTYPES_H

#include "fly/Algebra/Layout.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include <optional>
#include <variant>

namespace mlir::fly {

/// The same object with the emitter handles of dynamic leaves cleared (a type
/// never carries handles).
::fly::algebra::IntTuple withoutHandles(const ::fly::algebra::IntTuple &t);
::fly::algebra::Layout withoutHandles(const ::fly::algebra::Layout &l);
::fly::algebra::Swizzle withoutHandles(const ::fly::algebra::Swizzle &s);
::fly::algebra::ComposedLayout
withoutHandles(const ::fly::algebra::ComposedLayout &l);
::fly::algebra::Tile withoutHandles(const ::fly::algebra::Tile &t);

} // namespace mlir::fly

#define GET_TYPEDEF_CLASSES
#include "fly/Dialect/Fly/IR/FlyTypes.h.inc"

namespace mlir::fly {

/// Any algebra object a fly type can stand for.
using AlgebraValue =
    std::variant<::fly::algebra::IntTuple, ::fly::algebra::Layout,
                 ::fly::algebra::Swizzle, ::fly::algebra::ComposedLayout,
                 ::fly::algebra::Tile>;

/// The fly type that holds an algebra object of C++ type `T`.
template <typename T> struct TypeFor;
template <> struct TypeFor<::fly::algebra::IntTuple> {
  using type = IntTupleType;
};
template <> struct TypeFor<::fly::algebra::Layout> {
  using type = LayoutType;
};
template <> struct TypeFor<::fly::algebra::Swizzle> {
  using type = SwizzleType;
};
template <> struct TypeFor<::fly::algebra::ComposedLayout> {
  using type = ComposedLayoutType;
};
template <> struct TypeFor<::fly::algebra::Tile> {
  using type = TileType;
};

/// The algebra object of `type` when it is a fly type of kind `T`.
template <typename T> std::optional<T> getAlgebraValueAs(Type type) {
  if (auto t = llvm::dyn_cast<typename TypeFor<T>::type>(type))
    return t.getValue();
  return std::nullopt;
}

/// The algebra object of any fly algebra type; nullopt for other types.
std::optional<AlgebraValue> getAlgebraValue(Type type);

/// The fly type of an algebra object, verified: on malformed input (say, a
/// layout whose shape and stride are not congruent) reports through
/// `emitError` and returns null.
Type getCheckedType(function_ref<InFlightDiagnostic()> emitError,
                    MLIRContext *ctx, const AlgebraValue &value);

/// True for the types of the algebra (int_tuple, layout, swizzle,
/// composed_layout, tile).
bool isAlgebraType(Type type);

/// A fly algebra type all of whose leaves are static or `*`: its value
/// carries no runtime data and `fly.static` can materialise it. False for
/// every other type.
bool isStatic(Type type);

/// The scalar type of each dynamic leaf of a fly algebra type, depth-first
/// (i32 for `?`, i64 for `?{i64}`). A layout lists its shape leaves before
/// its stride leaves; a composed layout its inner layout, offset, outer
/// layout; a tile its modes in order.
SmallVector<Type> getDynamicLeafTypes(Type type);

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_IR_FLYTYPES_H
