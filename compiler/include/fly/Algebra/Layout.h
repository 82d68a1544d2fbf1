//===- Layout.h - Layouts, swizzles, tilers and their algebra ---*- C++ -*-===//
//
// CuTe's layout algebra (SPEC §2.4) over `IntTuple`s. Every function takes the
// `Arith` that folds static values and emits dynamic ones, so the same code
// serves type inference and lowering. Errors are recorded in the `Arith`.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_LAYOUT_H
#define FLY_ALGEBRA_LAYOUT_H

#include "fly/Algebra/IntTuple.h"

#include <variant>

namespace fly::algebra {

/// A CuTe layout: a map from coordinates of `shape` to indices through
/// `stride` (congruent to `shape`).
struct Layout {
  IntTuple shape;
  IntTuple stride;

  Layout() : shape(1), stride(0) {}
  Layout(IntTuple shape, IntTuple stride)
      : shape(std::move(shape)), stride(std::move(stride)) {}

  unsigned rank() const { return shape.rank(); }
  Layout operator[](unsigned i) const { return {shape[i], stride[i]}; }
  bool sameType(const Layout &o) const {
    return shape.sameType(o.shape) && stride.sameType(o.stride);
  }
  bool operator==(const Layout &o) const {
    return shape == o.shape && stride == o.stride;
  }
  bool operator!=(const Layout &o) const { return !(*this == o); }
};

/// CuTe `Swizzle<B, M, S>`: x ^ ((x & (mask << (M + max(0,S)))) >> S).
struct Swizzle {
  int bits = 0, base = 0, shift = 0;
  bool operator==(const Swizzle &o) const {
    return bits == o.bits && base == o.base && shift == o.shift;
  }
  bool operator!=(const Swizzle &o) const { return !(*this == o); }
  bool isValid() const;
  int64_t apply(int64_t x) const;
  Int apply(Arith &ar, const Int &x) const;
};

/// FlyDSL's coordinate swizzle `CS<B, R, [row], C, [col]>`: in a coordinate,
/// the leaf at mode path `col` is XORed with bits R..R+B-1 of the leaf at
/// path `row`, moved to bit C. The identity when B is 0.
struct CoordSwizzle {
  int bits = 0, baseRow = 0, baseCol = 0;
  std::vector<int64_t> rowMode, colMode;
  bool operator==(const CoordSwizzle &o) const {
    return bits == o.bits && baseRow == o.baseRow && baseCol == o.baseCol &&
           rowMode == o.rowMode && colMode == o.colMode;
  }
  bool operator!=(const CoordSwizzle &o) const { return !(*this == o); }
  bool isValid() const;
  IntTuple apply(Arith &ar, const IntTuple &crd) const;
};

/// A function of a composed layout: a swizzle, a layout or a coordinate
/// swizzle.
using ComposedFunction = std::variant<Swizzle, Layout, CoordSwizzle>;

/// inner(offset + outer(c)), or, with a chain of further functions,
/// inner(offset + f0(o0 + f1(o1 + ... outer(c)))): composing composed
/// layouts (either side) flattens them into one chain, printed
/// `inner o offset o f0 o o0 o ... o outer`.
struct ComposedLayout {
  struct Stage {
    ComposedFunction function;
    IntTuple offset; // added to the argument of `function`
    bool operator==(const Stage &o) const {
      return function == o.function && offset == o.offset;
    }
  };
  ComposedFunction inner;
  IntTuple offset;
  std::vector<Stage> chain;
  Layout outer;
  bool operator==(const ComposedLayout &o) const {
    return inner == o.inner && offset == o.offset && chain == o.chain &&
           outer == o.outer;
  }
  /// The offset added to the outer layout's index (where a slice of the
  /// domain adds its offset).
  IntTuple &domainOffset() { return chain.empty() ? offset : chain.back().offset; }
  const IntTuple &domainOffset() const {
    return chain.empty() ? offset : chain.back().offset;
  }
};

/// `inner o offset o outer` with composed layouts on either side flattened
/// into one chain.
ComposedLayout compose(const ComposedFunction &inner, const IntTuple &offset,
                       const Layout &outer);
ComposedLayout compose(const ComposedLayout &inner, const IntTuple &offset,
                       const Layout &outer);
ComposedLayout compose(const ComposedFunction &inner, const IntTuple &offset,
                       const ComposedLayout &outer);
ComposedLayout compose(const ComposedLayout &inner, const IntTuple &offset,
                       const ComposedLayout &outer);

/// A by-mode tiler: each mode is `*` (keep), a layout (`N` is `N:1`), or a
/// nested tiler.
struct Tile {
  struct Mode {
    enum class Kind : uint8_t { Keep, Layout, Nested };
    Kind kind = Kind::Keep;
    algebra::Layout layout;     // Kind::Layout
    std::vector<Mode> nested;   // Kind::Nested
    bool operator==(const Mode &o) const;
  };
  std::vector<Mode> modes;
  bool operator==(const Tile &o) const { return modes == o.modes; }
};

llvm::hash_code hash_value(const Layout &l);
llvm::hash_code hash_value(const Swizzle &s);
llvm::hash_code hash_value(const CoordSwizzle &s);
llvm::hash_code hash_value(const ComposedLayout &l);
llvm::hash_code hash_value(const Tile &t);
llvm::hash_code hash_value(const Tile::Mode &m);

/// Textual forms of SPEC §2.2 (the inside of the `<...>` of each type).
std::string toString(const Layout &l);
std::string toString(const Swizzle &s);
std::string toString(const CoordSwizzle &s);
std::string toString(const ComposedLayout &l);
std::string toString(const Tile &t);

//===----------------------------------------------------------------------===//
// Construction and queries
//===----------------------------------------------------------------------===//

/// Compact column-major (LayoutLeft) layout of a shape.
Layout makeLayout(Arith &ar, const IntTuple &shape);
/// Layout whose modes are the given layouts.
Layout makeLayout(llvm::ArrayRef<Layout> modes);
/// Compact layout whose strides increase in the order given by `order`
/// (congruent to shape; the mode with the smallest order is unit-stride).
Layout makeOrderedLayout(Arith &ar, const IntTuple &shape,
                         const IntTuple &order);
/// shape : (E0, E1, ...) — maps a coordinate to itself.
Layout makeIdentityLayout(const IntTuple &shape);
/// A compact layout of the same shape with the stride order of `l`.
Layout makeLayoutLike(Arith &ar, const Layout &l);

Int size(Arith &ar, const Layout &l);
Int cosize(Arith &ar, const Layout &l);
/// One past the largest index a static composed layout reaches (every
/// element is visited: a swizzle can move the last element below others).
Int cosize(Arith &ar, const ComposedLayout &l);
IntTuple coshape(Arith &ar, const Layout &l);
IntTuple crd2idx(Arith &ar, const IntTuple &crd, const Layout &l);
IntTuple crd2idx(Arith &ar, const IntTuple &crd, const ComposedLayout &l);
/// The coordinate swizzled (a coordinate swizzle maps coordinates).
IntTuple crd2idx(Arith &ar, const IntTuple &crd, const CoordSwizzle &s);
IntTuple idx2crd(Arith &ar, const IntTuple &idx, const Layout &l);

/// Mode selection on both shape and stride.
Layout getMode(Arith &ar, const Layout &l, llvm::ArrayRef<int64_t> path);
Layout take(Arith &ar, const Layout &l, int64_t begin, int64_t end);
Layout select(Arith &ar, const Layout &l, llvm::ArrayRef<int64_t> modes);
Layout group(Arith &ar, const Layout &l, int64_t begin, int64_t end);
Layout append(const Layout &l, const Layout &x);
Layout prepend(const Layout &l, const Layout &x);
/// The sub-layout of the `*` modes of `crd`; `offset` (optional) receives
/// crd2idx of the fixed part.
Layout slice(Arith &ar, const IntTuple &crd, const Layout &l,
             IntTuple *offset = nullptr);
Layout dice(Arith &ar, const IntTuple &crd, const Layout &l);
/// Shape and stride unwrapped alike (they are congruent).
Layout unwrap(const Layout &l);

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

Layout coalesce(Arith &ar, const Layout &l);
/// Coalesce each mode given by `profile` separately (a leaf of the profile
/// coalesces that whole mode).
Layout coalesce(Arith &ar, const Layout &l, const IntTuple &profile);
/// Remove stride-0 and size-1 modes, then coalesce.
Layout filter(Arith &ar, const Layout &l);

Layout composition(Arith &ar, const Layout &a, const Layout &b);
Layout composition(Arith &ar, const Layout &a, const Tile &b);
ComposedLayout composition(Arith &ar, const ComposedLayout &a,
                           const Layout &b);
ComposedLayout composition(Arith &ar, const ComposedLayout &a, const Tile &b);

/// Complement of `l` in [0, cotarget).
Layout complement(Arith &ar, const Layout &l, const Int &cotarget);
Layout complement(Arith &ar, const Layout &l);
/// CuTe's right_inverse: follows the strides of the coalesced layout from 1,
/// skipping modes that do not continue the chain (e.g. broadcasts).
Layout rightInverse(Arith &ar, const Layout &l);
Layout leftInverse(Arith &ar, const Layout &l);

/// The divides and products. A layout `b` is one tiler for the whole of `a`;
/// a Tile applies by mode.
Layout logicalDivide(Arith &ar, const Layout &a, const Layout &b);
Layout logicalDivide(Arith &ar, const Layout &a, const Tile &b);
Layout zippedDivide(Arith &ar, const Layout &a, const Layout &b);
Layout zippedDivide(Arith &ar, const Layout &a, const Tile &b);
Layout tiledDivide(Arith &ar, const Layout &a, const Layout &b);
Layout tiledDivide(Arith &ar, const Layout &a, const Tile &b);
Layout flatDivide(Arith &ar, const Layout &a, const Layout &b);
Layout flatDivide(Arith &ar, const Layout &a, const Tile &b);

Layout logicalProduct(Arith &ar, const Layout &a, const Layout &b);
Layout logicalProduct(Arith &ar, const Layout &a, const Tile &b);
Layout zippedProduct(Arith &ar, const Layout &a, const Layout &b);
Layout zippedProduct(Arith &ar, const Layout &a, const Tile &b);
Layout tiledProduct(Arith &ar, const Layout &a, const Layout &b);
Layout tiledProduct(Arith &ar, const Layout &a, const Tile &b);
Layout flatProduct(Arith &ar, const Layout &a, const Layout &b);
Layout flatProduct(Arith &ar, const Layout &a, const Tile &b);
Layout blockedProduct(Arith &ar, const Layout &a, const Layout &b);
Layout rakedProduct(Arith &ar, const Layout &a, const Layout &b);

/// The layout of the same memory seen as elements of `newBits` instead of
/// `oldBits` (CuTe recast_layout).
Layout recastLayout(Arith &ar, const Layout &l, int64_t oldBits,
                    int64_t newBits);
/// Repeat `block` to cover `shape` (each mode a multiple), the repetitions
/// ordered by `order` (column-major when empty).
Layout tileToShape(Arith &ar, const Layout &block, const IntTuple &shape,
                   const IntTuple *order = nullptr);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_LAYOUT_H
