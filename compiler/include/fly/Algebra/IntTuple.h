//===- IntTuple.h - Integer tuples of the Fly layout algebra ----*- C++ -*-===//
//
// The value domain of the layout algebra: hierarchical tuples whose leaves are
// static integers, dynamic integers (with a known divisor), the "none" leaf
// `*`, or scaled basis elements. All arithmetic goes through an `Arith`
// object: static operands fold, dynamic ones are handed to an optional
// `DynamicEmitter` (the lowering emits `arith` ops, type inference only keeps
// the divisibility). This is the only implementation of the algebra; it has
// no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_INTTUPLE_H
#define FLY_ALGEBRA_INTTUPLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fly::algebra {

/// A path of mode indices, the direction of a scaled basis element
/// (`2E1E0` is 2 along mode 1, sub-mode 0).
class BasisPath {
public:
  static constexpr unsigned kMaxDepth = 6;
  BasisPath() = default;
  explicit BasisPath(llvm::ArrayRef<int> modes);

  bool empty() const { return size_ == 0; }
  unsigned size() const { return size_; }
  int operator[](unsigned i) const { return modes_[i]; }
  llvm::ArrayRef<int8_t> modes() const { return {modes_.data(), size_}; }
  BasisPath appended(int mode) const;
  BasisPath prepended(int mode) const;

  bool operator==(const BasisPath &o) const {
    return modes() == o.modes();
  }
  bool operator!=(const BasisPath &o) const { return !(*this == o); }
  bool operator<(const BasisPath &o) const;

private:
  std::array<int8_t, kMaxDepth> modes_{};
  uint8_t size_ = 0;
};

/// A leaf of an integer tuple.
class Int {
public:
  enum class Kind : uint8_t { Static, Dynamic, None };

  Int() = default;
  /*implicit*/ Int(int64_t v) : value_(v) {}
  static Int dynamic(int64_t divisibility = 1, bool wide = false,
                     uint32_t handle = 0);
  static Int none();

  Kind kind() const { return kind_; }
  bool isStatic() const { return kind_ == Kind::Static; }
  bool isDynamic() const { return kind_ == Kind::Dynamic; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isStaticValue(int64_t v) const {
    return isStatic() && basis_.empty() && value_ == v;
  }

  /// The static value (only for static leaves).
  int64_t value() const { return value_; }
  /// A known divisor: |value| for a static leaf (0 divides nothing, so it
  /// reports 0), the recorded divisor for a dynamic one.
  int64_t divisibility() const;
  /// Dynamic leaves: i64 rather than i32.
  bool isWide() const { return wide_; }
  /// Dynamic leaves: an opaque id given by the DynamicEmitter (0 = none).
  uint32_t handle() const { return handle_; }
  Int withHandle(uint32_t h) const;
  Int withoutHandle() const { return withHandle(0); }

  /// Scaled basis: the direction this value is scaled along (empty for a
  /// plain integer).
  const BasisPath &basis() const { return basis_; }
  bool isBasis() const { return !basis_.empty(); }
  Int withBasis(BasisPath p) const;

  /// Structural equality of the leaf as it appears in a type (handles are
  /// not part of the type).
  bool sameType(const Int &o) const;
  bool operator==(const Int &o) const {
    return sameType(o) && handle_ == o.handle_;
  }
  bool operator!=(const Int &o) const { return !(*this == o); }

private:
  int64_t value_ = 0;
  int64_t div_ = 1;
  uint32_t handle_ = 0;
  Kind kind_ = Kind::Static;
  bool wide_ = false;
  BasisPath basis_;
};

/// A hierarchical tuple of `Int` leaves.
class IntTuple {
public:
  IntTuple() : IntTuple(Int(0)) {}
  /*implicit*/ IntTuple(Int leaf) : leaf_(leaf) {}
  /*implicit*/ IntTuple(int64_t v) : leaf_(Int(v)) {}
  /*implicit*/ IntTuple(int v) : leaf_(Int(int64_t(v))) {}
  static IntTuple tuple(std::vector<IntTuple> elems);
  static IntTuple tuple(std::initializer_list<IntTuple> elems) {
    return tuple(std::vector<IntTuple>(elems));
  }

  bool isLeaf() const { return !isTuple_; }
  bool isTuple() const { return isTuple_; }
  const Int &leaf() const { return leaf_; }
  /// Number of top-level modes (1 for a leaf).
  unsigned rank() const { return isTuple_ ? unsigned(elems_.size()) : 1; }
  /// Mode i; for a leaf, mode 0 is the leaf itself.
  const IntTuple &operator[](unsigned i) const;
  const std::vector<IntTuple> &elems() const { return elems_; }
  std::vector<IntTuple> &elems() { return elems_; }

  bool sameType(const IntTuple &o) const;
  bool operator==(const IntTuple &o) const;
  bool operator!=(const IntTuple &o) const { return !(*this == o); }

private:
  Int leaf_;
  std::vector<IntTuple> elems_;
  bool isTuple_ = false;
};

llvm::hash_code hash_value(const BasisPath &p);
llvm::hash_code hash_value(const Int &i);
llvm::hash_code hash_value(const IntTuple &t);

/// Textual forms of SPEC §2.1 (`?{i64 div=16}`, `2E1E0`, `(4,(8,?))`).
std::string toString(const Int &i);
std::string toString(const IntTuple &t);

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

enum class DynOp : uint8_t {
  Add, Sub, Mul, Div, Mod, CeilDiv, Min, Max,
  Eq, Ne, Lt, Le,  // results are 0/1 integers
  Select,          // Select(c, a, b) = c != 0 ? a : b
  And, Or, Xor, ShrU, Shl,
};

/// Receives the arithmetic on dynamic values. `result` already carries the
/// result's width and divisibility; the emitter returns the handle of the
/// value it materialised. Operands may be static (materialise a constant).
class DynamicEmitter {
public:
  virtual ~DynamicEmitter();
  virtual uint32_t emit(DynOp op, llvm::ArrayRef<Int> operands,
                        const Int &result) = 0;
};

/// Integer arithmetic on leaves, folding what is static. Errors (division by
/// a non-divisor, a dynamic value where a static one is required) are
/// recorded, not thrown: after the first error every call returns a benign
/// value, and `failed()` tells the caller to report `error()`.
class Arith {
public:
  explicit Arith(DynamicEmitter *emitter = nullptr) : emitter_(emitter) {}

  Int add(const Int &a, const Int &b);
  Int sub(const Int &a, const Int &b);
  Int mul(const Int &a, const Int &b);
  /// Floor division (operands of the algebra are non-negative, except
  /// strides, for which C-style truncation is what CuTe uses).
  Int div(const Int &a, const Int &b);
  Int mod(const Int &a, const Int &b);
  Int ceilDiv(const Int &a, const Int &b);
  Int min(const Int &a, const Int &b);
  Int max(const Int &a, const Int &b);
  Int eq(const Int &a, const Int &b);
  Int lt(const Int &a, const Int &b);
  Int select(const Int &cond, const Int &a, const Int &b);
  Int bitAnd(const Int &a, const Int &b);
  Int bitXor(const Int &a, const Int &b);
  /// Shift right for s > 0, left for s < 0 (CuTe's shiftr).
  Int shiftRight(const Int &a, int s);

  /// Equality known without running anything (static values only).
  static std::optional<bool> knownEqual(const Int &a, const Int &b);

  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }
  /// Records the first error; returns false so callers can `return fail(..)`.
  bool fail(const std::string &message);

private:
  Int dynamicResult(DynOp op, llvm::ArrayRef<Int> operands, int64_t div,
                    bool wide);

  DynamicEmitter *emitter_;
  std::string error_;
};

//===----------------------------------------------------------------------===//
// Tuple functions (CuTe `int_tuple.hpp`)
//===----------------------------------------------------------------------===//

/// Leaves in depth-first order.
std::vector<Int> leaves(const IntTuple &t);
/// The flat tuple of leaves (a leaf stays a leaf).
IntTuple flatten(const IntTuple &t);
unsigned depth(const IntTuple &t);
bool hasNone(const IntTuple &t);
bool isStatic(const IntTuple &t);
/// Same tree structure.
bool congruent(const IntTuple &a, const IntTuple &b);
/// `a` is a coarsening of `b`: every leaf of a corresponds to a sub-tree of b.
bool weaklyCongruent(const IntTuple &a, const IntTuple &b);

/// Replace every leaf by `f(leaf)`.
template <typename F> IntTuple transformLeaves(const IntTuple &t, F &&f) {
  if (t.isLeaf())
    return IntTuple(f(t.leaf()));
  std::vector<IntTuple> out;
  out.reserve(t.rank());
  for (const IntTuple &e : t.elems())
    out.push_back(transformLeaves(e, f));
  return IntTuple::tuple(std::move(out));
}

/// Mode at a path (empty path: the tuple itself). Fails on a bad index.
IntTuple getMode(Arith &ar, const IntTuple &t, llvm::ArrayRef<int64_t> path);
IntTuple take(Arith &ar, const IntTuple &t, int64_t begin, int64_t end);
IntTuple select(Arith &ar, const IntTuple &t, llvm::ArrayRef<int64_t> modes);
/// Modes [begin, end) grouped into one mode.
IntTuple group(Arith &ar, const IntTuple &t, int64_t begin, int64_t end);
IntTuple append(const IntTuple &t, const IntTuple &x);
IntTuple prepend(const IntTuple &t, const IntTuple &x);
/// Keep the modes of `t` where `crd` is `*` (flattened like CuTe's slice).
IntTuple slice(Arith &ar, const IntTuple &crd, const IntTuple &t);
/// Keep the modes of `t` where `crd` is not `*`.
IntTuple dice(Arith &ar, const IntTuple &crd, const IntTuple &t);
/// `t` with every enclosing rank-1 tuple removed: ((4,8)) is (4,8), ((4))
/// is 4. FlyDSL's slice and dice ops return their result so; the algebra's
/// slice and dice (CuTe's) keep the tuple.
IntTuple unwrap(const IntTuple &t);

Int product(Arith &ar, const IntTuple &t);
IntTuple productEach(Arith &ar, const IntTuple &t);
Int sum(Arith &ar, const IntTuple &t);
/// Elementwise op of congruent tuples; a leaf operand broadcasts.
enum class ElemOp : uint8_t { Add, Sub, Mul, Div, Mod, Min, Max };
IntTuple elementwise(Arith &ar, ElemOp op, const IntTuple &a,
                     const IntTuple &b);
IntTuple ceilDiv(Arith &ar, const IntTuple &a, const IntTuple &b);
/// CuTe shape_div: the inclusive prefix ceil-division, congruent to `a`.
IntTuple shapeDiv(Arith &ar, const IntTuple &a, const IntTuple &b);
/// Exclusive prefix product, congruent to `a`.
IntTuple prefixProduct(Arith &ar, const IntTuple &a, const Int &init = 1);
/// a < b in every mode (0/1).
Int elemLess(Arith &ar, const IntTuple &a, const IntTuple &b);
/// Equal in every leaf (0/1); tuples of different structure are unequal.
Int equal(Arith &ar, const IntTuple &a, const IntTuple &b);

/// Coordinate ↔ index through a shape and stride. `crd` may be a tuple
/// congruent to (a coarsening of) `shape`, or an integer (a 1-D index into
/// the colexicographic order). `*` leaves count as 0. Basis strides give a
/// coordinate tuple.
IntTuple crd2idx(Arith &ar, const IntTuple &crd, const IntTuple &shape,
                 const IntTuple &stride);
/// Compact colexicographic strides are used when `stride` is not given.
IntTuple crd2idx(Arith &ar, const IntTuple &crd, const IntTuple &shape);
IntTuple idx2crd(Arith &ar, const IntTuple &idx, const IntTuple &shape);
IntTuple idx2crd(Arith &ar, const IntTuple &idx, const IntTuple &shape,
                 const IntTuple &stride);
/// The strides E0, E1, (E2E0, E2E1), ... congruent to `shape`.
IntTuple makeBasisLike(const IntTuple &shape);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_INTTUPLE_H
