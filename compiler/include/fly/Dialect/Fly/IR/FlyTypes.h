//===- FlyTypes.h - Types of the fly dialect --------------------*- C++ -*-===//
//
// The fly types hold algebra objects (`fly::algebra`). This header is the one
// place that converts between the two.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYTYPES_H
#define FLY_DIALECT_FLY_IR_FLYTYPES_H

#include "fly/Algebra/Atom.h"
#include "fly/Algebra/Layout.h"
#include "fly/Arch/Chip.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
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
::fly::algebra::CoordSwizzle
withoutHandles(const ::fly::algebra::CoordSwizzle &s);
::fly::algebra::ComposedLayout
withoutHandles(const ::fly::algebra::ComposedLayout &l);
::fly::algebra::Tile withoutHandles(const ::fly::algebra::Tile &t);

} // namespace mlir::fly

#include "fly/Dialect/Fly/IR/FlyAtomInterfaces.h.inc"
#include "fly/Dialect/Fly/IR/FlyEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "fly/Dialect/Fly/IR/FlyAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "fly/Dialect/Fly/IR/FlyTypes.h.inc"

namespace mlir::fly {

/// A pointer as the evaluation sees it. Its type gives the element type,
/// address space and alignment. The layout lowering also binds the SSA
/// pointer it starts from (`handle`, like a dynamic leaf's) and the elements
/// the algebra has added to it since (`offset`, an int_tuple leaf).
struct PointerValue {
  Type elementType;
  Attribute addressSpace;
  int64_t alignment = 1;
  ::fly::algebra::IntTuple offset = 0;
  uint32_t handle = 0;
};

/// A tensor as the evaluation sees it (CuTe's Tensor): an iterator, which is
/// a pointer for a memref and a base coordinate for a coord_tensor, and a
/// layout (a composed one only behind a pointer).
struct TensorValue {
  std::variant<PointerValue, ::fly::algebra::IntTuple> iterator;
  std::variant<::fly::algebra::Layout, ::fly::algebra::ComposedLayout> layout;

  bool isMemRef() const {
    return std::holds_alternative<PointerValue>(iterator);
  }
};

/// A copy or MMA operation, an atom or a tiled atom (FlyAtomTypes.td). They
/// are always static and have no leaves: the value is the type, whose
/// algebra records FlyAtomTypes.cpp builds.
struct AtomValue {
  Type type;
};

/// Any value a fly type can stand for: the algebra's objects, pointers,
/// tensors and atoms.
using AlgebraValue =
    std::variant<::fly::algebra::IntTuple, ::fly::algebra::Layout,
                 ::fly::algebra::Swizzle, ::fly::algebra::CoordSwizzle,
                 ::fly::algebra::ComposedLayout,
                 ::fly::algebra::Tile, PointerValue, TensorValue, AtomValue>;

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
template <> struct TypeFor<::fly::algebra::CoordSwizzle> {
  using type = CoordSwizzleType;
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

/// The value of any fly type (pointers and tensors included); nullopt for
/// other types.
std::optional<AlgebraValue> getAlgebraValue(Type type);

/// The fly type of a value, verified: on malformed input (say, a layout
/// whose shape and stride are not congruent) reports through `emitError` and
/// returns null. A pointer's offset and handle are not part of its type.
Type getCheckedType(function_ref<InFlightDiagnostic()> emitError,
                    MLIRContext *ctx, const AlgebraValue &value);

/// True for the types of the algebra's values (int_tuple, layout, swizzle,
/// composed_layout, tile, coord_tensor, atoms); false for pointers and
/// memrefs.
bool isAlgebraType(Type type);

/// A fly algebra type all of whose leaves are static or `*`: its value
/// carries no runtime data and `fly.static` can materialise it. False for
/// every other type (pointers and memrefs always carry a runtime pointer).
bool isStatic(Type type);

/// The scalar type of each dynamic leaf of a fly type, depth-first (i32 for
/// `?`, i64 for `?{i64}`). A layout lists its shape leaves before its stride
/// leaves; a composed layout its inner layout, offset, outer layout; a tile
/// its modes in order; a memref its layout (the pointer is not a leaf); a
/// coord_tensor its base, then its layout. `fly.get_leaves` and the layout
/// lowering use this order.
SmallVector<Type> getDynamicLeafTypes(Type type);

/// The leaves of a value, static ones included, in the order of
/// getDynamicLeafTypes.
std::vector<::fly::algebra::Int> getLeaves(const AlgebraValue &value);
/// Its dynamic leaves, in that order.
std::vector<::fly::algebra::Int> getDynamicLeaves(const AlgebraValue &value);
/// The value with the emitter handles of its dynamic leaves set, in that
/// order (one handle per dynamic leaf).
AlgebraValue bindDynamicLeaves(const AlgebraValue &value,
                               ArrayRef<uint32_t> handles);

/// The bytes one element of a pointer or memref of element type `type`
/// occupies: integer and float types, and 1-D vectors of them, whose size is
/// a whole number of bytes; `i1` counts as one byte. Nullopt for any other
/// type.
std::optional<int64_t> getElementByteSize(Type type);
/// The alignment of an element of `bytes` bytes at a naturally aligned
/// address: the largest power of two dividing `bytes`.
int64_t getNaturalAlignment(int64_t bytes);

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_IR_FLYTYPES_H
