//===- Layout.cpp - The CuTe layout algebra -------------------------------===//
//
// The functions follow CuTe's definitions (CUTLASS documentation, "CuTe
// layout algebra"); pycute is the oracle the tests compare against.
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/Layout.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace fly::algebra {

//===----------------------------------------------------------------------===//
// Printing, hashing
//===----------------------------------------------------------------------===//

bool Tile::Mode::operator==(const Mode &o) const {
  return kind == o.kind && layout == o.layout && nested == o.nested;
}

llvm::hash_code hash_value(const Layout &l) {
  return llvm::hash_combine(hash_value(l.shape), hash_value(l.stride));
}
llvm::hash_code hash_value(const Swizzle &s) {
  return llvm::hash_combine(s.bits, s.base, s.shift);
}
llvm::hash_code hash_value(const CoordSwizzle &s) {
  return llvm::hash_combine(
      s.bits, s.baseRow, s.baseCol,
      llvm::hash_combine_range(s.rowMode.begin(), s.rowMode.end()),
      llvm::hash_combine_range(s.colMode.begin(), s.colMode.end()));
}
static llvm::hash_code hashFunction(const ComposedFunction &f) {
  return std::visit(
      [&](const auto &g) { return llvm::hash_combine(f.index(), g); }, f);
}
llvm::hash_code hash_value(const ComposedLayout &l) {
  llvm::hash_code h = llvm::hash_combine(hashFunction(l.inner),
                                         hash_value(l.offset));
  for (const ComposedLayout::Stage &s : l.chain)
    h = llvm::hash_combine(h, hashFunction(s.function), hash_value(s.offset));
  return llvm::hash_combine(h, hash_value(l.outer));
}
llvm::hash_code hash_value(const Tile::Mode &m) {
  llvm::hash_code h = llvm::hash_combine(uint8_t(m.kind), hash_value(m.layout));
  for (const Tile::Mode &n : m.nested)
    h = llvm::hash_combine(h, hash_value(n));
  return h;
}
llvm::hash_code hash_value(const Tile &t) {
  llvm::hash_code h = llvm::hash_value(t.modes.size());
  for (const Tile::Mode &m : t.modes)
    h = llvm::hash_combine(h, hash_value(m));
  return h;
}

std::string toString(const Layout &l) {
  return toString(l.shape) + ":" + toString(l.stride);
}
std::string toString(const Swizzle &s) {
  return "S<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," +
         std::to_string(s.shift) + ">";
}
std::string toString(const CoordSwizzle &s) {
  auto modes = [](const std::vector<int64_t> &path) {
    std::string text = "[";
    for (size_t i = 0; i < path.size(); ++i)
      text += (i ? ", " : "") + std::to_string(path[i]);
    return text + "]";
  };
  return "CS<" + std::to_string(s.bits) + "," + std::to_string(s.baseRow) +
         "," + modes(s.rowMode) + "," + std::to_string(s.baseCol) + "," +
         modes(s.colMode) + ">";
}
static std::string functionText(const ComposedFunction &f) {
  return std::visit([](const auto &g) { return toString(g); }, f);
}
std::string toString(const ComposedLayout &l) {
  std::string text = functionText(l.inner) + " o " + toString(l.offset);
  for (const ComposedLayout::Stage &s : l.chain)
    text += " o " + functionText(s.function) + " o " + toString(s.offset);
  return text + " o " + toString(l.outer);
}

ComposedLayout compose(const ComposedFunction &inner, const IntTuple &offset,
                       const Layout &outer) {
  return {inner, offset, {}, outer};
}
ComposedLayout compose(const ComposedLayout &inner, const IntTuple &offset,
                       const Layout &outer) {
  ComposedLayout out = inner;
  out.chain.push_back({inner.outer, offset});
  out.outer = outer;
  return out;
}
ComposedLayout compose(const ComposedFunction &inner, const IntTuple &offset,
                       const ComposedLayout &outer) {
  ComposedLayout out{inner, offset, {{outer.inner, outer.offset}}, outer.outer};
  llvm::append_range(out.chain, outer.chain);
  return out;
}
ComposedLayout compose(const ComposedLayout &inner, const IntTuple &offset,
                       const ComposedLayout &outer) {
  ComposedLayout out = compose(inner, offset, Layout());
  out.chain.push_back({outer.inner, outer.offset});
  llvm::append_range(out.chain, outer.chain);
  out.outer = outer.outer;
  return out;
}
static std::string toString(const std::vector<Tile::Mode> &modes) {
  std::string s = "[";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i)
      s += "|";
    const Tile::Mode &m = modes[i];
    switch (m.kind) {
    case Tile::Mode::Kind::Keep:
      s += "*";
      break;
    case Tile::Mode::Kind::Nested:
      s += toString(m.nested);
      break;
    case Tile::Mode::Kind::Layout:
      if (m.layout.shape.isLeaf() && m.layout.shape.leaf().isStatic() &&
          m.layout.stride.isLeaf() && m.layout.stride.leaf().isStaticValue(1))
        s += toString(m.layout.shape);
      else
        s += toString(m.layout);
      break;
    }
  }
  return s + "]";
}
std::string toString(const Tile &t) { return toString(t.modes); }

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

bool Swizzle::isValid() const {
  return bits >= 0 && base >= 0 && std::abs(shift) >= bits && bits < 32 &&
         base + std::abs(shift) + bits < 63;
}

int64_t Swizzle::apply(int64_t x) const {
  int64_t mask = (int64_t(1) << bits) - 1;
  int64_t yyy = mask << (base + std::max(0, shift));
  int64_t moved = x & yyy;
  return x ^ (shift >= 0 ? moved >> shift : moved << -shift);
}

Int Swizzle::apply(Arith &ar, const Int &x) const {
  if (bits == 0)
    return x;
  int64_t mask = (int64_t(1) << bits) - 1;
  Int yyy(mask << (base + std::max(0, shift)));
  return ar.bitXor(x, ar.shiftRight(ar.bitAnd(x, yyy), shift));
}

bool CoordSwizzle::isValid() const {
  if (bits == 0)
    return true;
  return bits > 0 && bits < 32 && baseRow >= 0 && baseCol >= 0 &&
         baseRow + bits < 63 && baseCol + bits < 63 && !rowMode.empty() &&
         !colMode.empty() && rowMode != colMode &&
         llvm::all_of(rowMode, [](int64_t m) { return m >= 0; }) &&
         llvm::all_of(colMode, [](int64_t m) { return m >= 0; });
}

IntTuple CoordSwizzle::apply(Arith &ar, const IntTuple &crd) const {
  if (bits == 0)
    return crd;
  // The leaf at `path` of `t`; null when the path leaves the tuple or ends
  // on a tuple.
  auto at = [](const IntTuple &t, llvm::ArrayRef<int64_t> path) {
    const IntTuple *node = &t;
    for (int64_t m : path) {
      if (!node->isTuple() || m >= int64_t(node->rank()))
        return (const IntTuple *)nullptr;
      node = &(*node)[unsigned(m)];
    }
    return node->isLeaf() ? node : nullptr;
  };
  const IntTuple *row = at(crd, rowMode), *col = at(crd, colMode);
  if (!row || !col || row->leaf().isBasis() || col->leaf().isBasis())
    return ar.fail("the coordinate swizzle " + toString(*this) +
                   " needs integer leaves at its row and column modes, not " +
                   toString(crd)),
           crd;
  Int moved = ar.bitAnd(ar.shiftRight(row->leaf(), baseRow),
                        Int((int64_t(1) << bits) - 1));
  Int swizzled = ar.bitXor(col->leaf(), ar.shiftRight(moved, -baseCol));
  std::function<IntTuple(const IntTuple &, llvm::ArrayRef<int64_t>)> replace =
      [&](const IntTuple &t, llvm::ArrayRef<int64_t> path) -> IntTuple {
    if (path.empty())
      return IntTuple(swizzled);
    std::vector<IntTuple> elems = t.elems();
    elems[path.front()] = replace(elems[path.front()], path.drop_front());
    return IntTuple::tuple(std::move(elems));
  };
  return replace(crd, colMode);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
bool isStaticOne(const Int &i) { return i.isStaticValue(1); }
bool isStaticZero(const Int &i) { return i.isStatic() && i.value() == 0; }

/// Flat (shape, stride) pairs of a layout.
struct FlatModes {
  std::vector<Int> shape, stride;
};
FlatModes flatModes(const Layout &l) {
  return {leaves(l.shape), leaves(l.stride)};
}

/// A layout from flat modes: a single mode becomes a leaf layout.
Layout fromFlat(std::vector<Int> shape, std::vector<Int> stride) {
  if (shape.size() == 1)
    return Layout(shape[0], stride[0]);
  std::vector<IntTuple> s(shape.begin(), shape.end());
  std::vector<IntTuple> d(stride.begin(), stride.end());
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

bool checkLayout(Arith &ar, const Layout &l) {
  if (!congruent(l.shape, l.stride))
    return ar.fail("shape " + toString(l.shape) + " and stride " +
                   toString(l.stride) + " are not congruent");
  return true;
}

/// The layout of mode i (a leaf layout is its own mode 0).
bool checkRank(Arith &ar, const Layout &a, unsigned needed,
               const char *what) {
  if (a.rank() < needed)
    return ar.fail(std::string(what) + ": layout " + toString(a) +
                   " has rank " + std::to_string(a.rank()) +
                   ", fewer modes than the tiler's " + std::to_string(needed));
  return true;
}

/// CuTe's append<r>: the modes of `l` (a leaf layout is one mode) padded
/// with 1:0 to rank r; always a tuple layout.
Layout padTo(const Layout &l, unsigned r) {
  std::vector<Layout> modes;
  for (unsigned i = 0; i < l.rank(); ++i)
    modes.push_back(l[i]);
  while (modes.size() < r)
    modes.push_back(Layout(1, 0));
  return makeLayout(modes);
}

std::vector<Layout> modesOf(const Layout &l) {
  std::vector<Layout> modes;
  for (unsigned i = 0; i < l.rank(); ++i)
    modes.push_back(l[i]);
  return modes;
}
} // namespace

//===----------------------------------------------------------------------===//
// Construction and queries
//===----------------------------------------------------------------------===//

namespace {
/// CuTe's compact_major: column-major strides from `start`, and stride 0
/// for the modes of size 1.
IntTuple compactColMajor(Arith &ar, const IntTuple &shape, const Int &start) {
  IntTuple strides = prefixProduct(ar, shape, start);
  std::vector<Int> s = leaves(shape);
  size_t i = 0;
  return transformLeaves(strides, [&](const Int &d) {
    return isStaticOne(s[i++]) ? Int(0) : d;
  });
}
} // namespace

Layout makeLayout(Arith &ar, const IntTuple &shape) {
  return Layout(shape, compactColMajor(ar, shape, Int(1)));
}

Layout makeLayout(llvm::ArrayRef<Layout> modes) {
  std::vector<IntTuple> s, d;
  for (const Layout &m : modes) {
    s.push_back(m.shape);
    d.push_back(m.stride);
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

namespace {
/// CuTe's product_like: products of the sub-trees of `shape` that line up
/// with the leaves of `order`.
void productLike(Arith &ar, const IntTuple &shape, const IntTuple &order,
                 std::vector<Int> &out) {
  if (order.isLeaf()) {
    out.push_back(product(ar, shape));
    return;
  }
  for (unsigned i = 0; i < order.rank(); ++i)
    productLike(ar, shape[i], order[i], out);
}

IntTuple orderedStrides(Arith &ar, const IntTuple &shape,
                        const IntTuple &order,
                        const std::vector<Int> &refShape,
                        const std::vector<int64_t> &refOrder,
                        unsigned &leafIndex) {
  if (order.isTuple()) {
    std::vector<IntTuple> out;
    for (unsigned i = 0; i < order.rank(); ++i)
      out.push_back(orderedStrides(ar, shape[i], order[i], refShape, refOrder,
                                   leafIndex));
    return IntTuple::tuple(std::move(out));
  }
  int64_t mine = refOrder[leafIndex++];
  Int start(1);
  for (size_t j = 0; j < refShape.size(); ++j)
    if (refOrder[j] < mine)
      start = ar.mul(start, refShape[j]);
  return compactColMajor(ar, shape, start);
}
} // namespace

Layout makeOrderedLayout(Arith &ar, const IntTuple &shape,
                         const IntTuple &order) {
  if (!weaklyCongruent(order, shape)) {
    ar.fail("order " + toString(order) + " does not match shape " +
            toString(shape));
    return Layout();
  }
  std::vector<Int> refShape;
  productLike(ar, shape, order, refShape);
  // Dynamic order entries come after every static one, in sequence.
  std::vector<Int> flatOrder = leaves(order);
  int64_t maxOrder = 0;
  for (const Int &o : flatOrder) {
    if (o.isNone() || o.isBasis())
      return ar.fail("order " + toString(order) + " is not an integer tuple"),
             Layout();
    if (o.isStatic())
      maxOrder = std::max(maxOrder, o.value());
  }
  std::vector<int64_t> refOrder;
  for (size_t j = 0; j < flatOrder.size(); ++j)
    refOrder.push_back(flatOrder[j].isStatic() ? flatOrder[j].value()
                                               : maxOrder + 1 + int64_t(j));
  unsigned leafIndex = 0;
  return Layout(shape,
                orderedStrides(ar, shape, order, refShape, refOrder, leafIndex));
}

Layout makeIdentityLayout(const IntTuple &shape) {
  return Layout(shape, makeBasisLike(shape));
}

Layout makeLayoutLike(Arith &ar, const Layout &l) {
  if (!checkLayout(ar, l))
    return Layout();
  // Order the modes like the strides; a stride-0 (broadcast) mode counts as
  // size 1, so it takes no room and keeps stride 0.
  std::vector<Int> strides = leaves(l.stride);
  size_t i = 0;
  IntTuple occupied = transformLeaves(l.shape, [&](const Int &s) {
    return isStaticZero(strides[i++]) ? Int(1) : s;
  });
  Layout ordered = makeOrderedLayout(ar, occupied, l.stride);
  return Layout(l.shape, ordered.stride);
}

Int size(Arith &ar, const Layout &l) { return product(ar, l.shape); }

Int cosize(Arith &ar, const Layout &l) {
  // l(size - 1) + 1, taken at the last coordinate itself (each mode at its
  // extent - 1): the same index without the divisions of the 1-D index's
  // idx2crd when the shape is dynamic.
  IntTuple lastCrd =
      transformLeaves(l.shape, [&](const Int &s) { return ar.sub(s, 1); });
  IntTuple last = crd2idx(ar, lastCrd, l);
  if (last.isTuple())
    return ar.fail("cosize of " + toString(l) +
                   " is a coordinate, not an integer (use coshape)"),
           Int(0);
  return ar.add(last.leaf(), Int(1));
}

/// One function of a composed layout applied to `x`.
static IntTuple applyFunction(Arith &ar, const ComposedFunction &f,
                              const IntTuple &x) {
  if (const auto *sw = std::get_if<Swizzle>(&f)) {
    if (x.isTuple())
      return ar.fail("a swizzle applies to integers, not to " + toString(x)),
             IntTuple(0);
    return sw->apply(ar, x.leaf());
  }
  if (const auto *cs = std::get_if<CoordSwizzle>(&f))
    return cs->apply(ar, x);
  return crd2idx(ar, x, std::get<Layout>(f));
}

/// The functions of `l` after its outer layout, applied to `x` (an image
/// of the outer layout).
static IntTuple applyFunctions(Arith &ar, const ComposedLayout &l,
                               IntTuple x) {
  for (auto it = l.chain.rbegin(); it != l.chain.rend(); ++it)
    x = applyFunction(ar, it->function,
                      elementwise(ar, ElemOp::Add, it->offset, x));
  return applyFunction(ar, l.inner, elementwise(ar, ElemOp::Add, l.offset, x));
}

Int cosize(Arith &ar, const ComposedLayout &l) {
  // The largest index the composed function reaches, plus one: a swizzle
  // moves indices up as well as down, so the outer layout's last element
  // need not be the largest. Every element is visited (static layouts only;
  // what an LDS tile asks, not more than a few thousand elements).
  constexpr int64_t kMaxElements = int64_t(1) << 24;
  if (!isStatic(l.outer.shape) || !isStatic(l.outer.stride))
    return ar.fail("cosize of " + toString(l) +
                   " needs a static composed layout with an integer offset"),
           Int(0);
  Int count = size(ar, l.outer);
  if (count.value() > kMaxElements)
    return ar.fail("cosize of " + toString(l) + ": more than 2^24 elements"),
           Int(0);
  // The common case, a swizzle over an integer layout: a mixed-radix
  // counter keeps the index incrementally.
  const auto *swizzle = std::get_if<Swizzle>(&l.inner);
  std::vector<Int> shape = leaves(l.outer.shape), stride = leaves(l.outer.stride);
  auto isPlain = [](const Int &x) { return x.isStatic() && !x.isBasis(); };
  if (swizzle && l.chain.empty() && l.offset.isLeaf() &&
      isPlain(l.offset.leaf()) && llvm::all_of(stride, isPlain)) {
    std::vector<int64_t> digit(shape.size(), 0);
    int64_t index = l.offset.leaf().value(), largest = 0;
    for (int64_t n = 0; n < count.value(); ++n) {
      largest = std::max(largest, swizzle->apply(index));
      for (size_t d = 0; d < shape.size(); ++d) {
        index += stride[d].value();
        if (++digit[d] < shape[d].value())
          break;
        index -= stride[d].value() * digit[d];
        digit[d] = 0;
      }
    }
    return Int(largest + 1);
  }
  int64_t largest = 0;
  for (int64_t n = 0; n < count.value(); ++n) {
    IntTuple crd = idx2crd(ar, IntTuple(Int(n)), l.outer.shape);
    IntTuple at = applyFunctions(ar, l, crd2idx(ar, crd, l.outer));
    if (ar.failed())
      return Int(0);
    if (!at.isLeaf() || at.leaf().isBasis() || !at.leaf().isStatic()) {
      bool coordinate = !at.isLeaf() || at.leaf().isBasis();
      std::string why =
          coordinate ? "a coordinate, not an integer" : "not static";
      if (std::holds_alternative<CoordSwizzle>(l.inner))
        why += " (a coordinate swizzle maps coordinates)";
      else if (!coordinate)
        why += " (its offsets and inner functions must be static)";
      return ar.fail("cosize of " + toString(l) + " is " + why), Int(0);
    }
    largest = n == 0 ? at.leaf().value() : std::max(largest, at.leaf().value());
  }
  return Int(largest + 1);
}

IntTuple coshape(Arith &ar, const Layout &l) {
  IntTuple lastCrd =
      transformLeaves(l.shape, [&](const Int &s) { return ar.sub(s, 1); });
  IntTuple co = crd2idx(ar, lastCrd, l);
  return transformLeaves(co, [&](const Int &c) { return ar.add(c, 1); });
}

IntTuple crd2idx(Arith &ar, const IntTuple &crd, const Layout &l) {
  return crd2idx(ar, crd, l.shape, l.stride);
}

IntTuple crd2idx(Arith &ar, const IntTuple &crd, const ComposedLayout &l) {
  return applyFunctions(ar, l, crd2idx(ar, crd, l.outer));
}

IntTuple crd2idx(Arith &ar, const IntTuple &crd, const CoordSwizzle &s) {
  return s.apply(ar, crd);
}

IntTuple idx2crd(Arith &ar, const IntTuple &idx, const Layout &l) {
  return idx2crd(ar, idx, l.shape);
}

Layout getMode(Arith &ar, const Layout &l, llvm::ArrayRef<int64_t> path) {
  return Layout(getMode(ar, l.shape, path), getMode(ar, l.stride, path));
}
Layout take(Arith &ar, const Layout &l, int64_t begin, int64_t end) {
  return Layout(take(ar, l.shape, begin, end), take(ar, l.stride, begin, end));
}
Layout select(Arith &ar, const Layout &l, llvm::ArrayRef<int64_t> modes) {
  return Layout(select(ar, l.shape, modes), select(ar, l.stride, modes));
}
Layout group(Arith &ar, const Layout &l, int64_t begin, int64_t end) {
  return Layout(group(ar, l.shape, begin, end),
                group(ar, l.stride, begin, end));
}
Layout append(const Layout &l, const Layout &x) {
  return Layout(append(l.shape, x.shape), append(l.stride, x.stride));
}
Layout prepend(const Layout &l, const Layout &x) {
  return Layout(prepend(l.shape, x.shape), prepend(l.stride, x.stride));
}

Layout slice(Arith &ar, const IntTuple &crd, const Layout &l,
             IntTuple *offset) {
  if (offset)
    *offset = crd2idx(ar, crd, l);
  return Layout(slice(ar, crd, l.shape), slice(ar, crd, l.stride));
}

Layout dice(Arith &ar, const IntTuple &crd, const Layout &l) {
  return Layout(dice(ar, crd, l.shape), dice(ar, crd, l.stride));
}

Layout unwrap(const Layout &l) {
  return Layout(unwrap(l.shape), unwrap(l.stride));
}

//===----------------------------------------------------------------------===//
// coalesce, filter
//===----------------------------------------------------------------------===//

Layout coalesce(Arith &ar, const Layout &l) {
  if (!checkLayout(ar, l))
    return Layout();
  FlatModes f = flatModes(l);
  std::vector<Int> shape{Int(1)}, stride{Int(0)};
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const Int &s = f.shape[i], &d = f.stride[i];
    if (isStaticOne(s))
      continue;
    if (isStaticOne(shape.back())) {
      shape.back() = s;
      stride.back() = d;
      continue;
    }
    // Merge when the previous mode provably ends where this one starts.
    const Int &ps = shape.back(), &pd = stride.back();
    if (ps.isStatic() && pd.isStatic() && d.isStatic() &&
        pd.basis() == d.basis() && ps.value() * pd.value() == d.value()) {
      shape.back() = ar.mul(ps, s);
      continue;
    }
    shape.push_back(s);
    stride.push_back(d);
  }
  return fromFlat(std::move(shape), std::move(stride));
}

Layout coalesce(Arith &ar, const Layout &l, const IntTuple &profile) {
  if (profile.isLeaf())
    return coalesce(ar, l);
  if (!checkRank(ar, l, profile.rank(), "coalesce"))
    return Layout();
  std::vector<Layout> modes;
  for (unsigned i = 0; i < l.rank(); ++i)
    modes.push_back(i < profile.rank() ? coalesce(ar, l[i], profile[i]) : l[i]);
  return makeLayout(modes);
}

Layout filter(Arith &ar, const Layout &l) {
  FlatModes f = flatModes(l);
  std::vector<Int> shape, stride;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    if (isStaticOne(f.shape[i]) || isStaticZero(f.stride[i]))
      continue;
    shape.push_back(f.shape[i]);
    stride.push_back(f.stride[i]);
  }
  if (shape.empty())
    return Layout(1, 0);
  return coalesce(ar, fromFlat(std::move(shape), std::move(stride)));
}

//===----------------------------------------------------------------------===//
// composition
//===----------------------------------------------------------------------===//

Layout composition(Arith &ar, const Layout &a, const Layout &b) {
  if (!checkLayout(ar, a) || !checkLayout(ar, b))
    return Layout();
  if (b.shape.isTuple()) {
    std::vector<Layout> modes;
    for (unsigned i = 0; i < b.rank(); ++i)
      modes.push_back(composition(ar, a, b[i]));
    return makeLayout(modes);
  }
  const Int &bShape = b.shape.leaf(), &bStride = b.stride.leaf();
  if (bStride.isBasis())
    return ar.fail("composition: the right-hand layout " + toString(b) +
                   " must have integer strides"),
           Layout();
  if (isStaticZero(bStride))
    return Layout(bShape, 0);

  FlatModes fa = flatModes(coalesce(ar, a));
  std::vector<Int> shape, stride;
  Int restShape = bShape, restStride = bStride;
  for (size_t i = 0; i + 1 < fa.shape.size(); ++i) {
    const Int &cs = fa.shape[i], &cd = fa.stride[i];
    if (cs.isStatic() && cs.value() <= 0)
      return ar.fail("composition: " + toString(a) + " has a mode of size " +
                     toString(cs)),
             Layout();
    if (cs.isStatic() && restStride.isStatic() && restStride.value() != 0 &&
        cs.value() % restStride.value() != 0 &&
        restStride.value() % cs.value() != 0)
      return ar.fail("composition: stride " + toString(restStride) +
                     " of " + toString(b) + " and shape " + toString(cs) +
                     " of " + toString(a) + " do not divide each other"),
             Layout();
    Int newShape =
        ar.min(ar.max(Int(1), ar.div(cs, restStride)), restShape);
    if (ar.failed())
      return Layout();
    if (newShape.isStatic() && restShape.isStatic() &&
        (newShape.value() <= 0 || restShape.value() % newShape.value() != 0))
      return ar.fail("composition: shape " + toString(restShape) + " of " +
                     toString(b) + " is not divisible by " +
                     toString(newShape) + ", the part of " + toString(a) +
                     " it spans"),
             Layout();
    if (!isStaticOne(newShape)) {
      shape.push_back(newShape);
      stride.push_back(ar.mul(restStride, cd));
    }
    restShape = ar.div(restShape, newShape);
    restStride = ar.ceilDiv(restStride, cs);
  }
  if (!isStaticOne(restShape) || shape.empty()) {
    shape.push_back(restShape);
    stride.push_back(ar.mul(restStride, fa.stride.back()));
  }
  return fromFlat(std::move(shape), std::move(stride));
}

static Layout compositionByMode(Arith &ar, const Layout &a,
                                const std::vector<Tile::Mode> &modes) {
  if (!checkRank(ar, a, unsigned(modes.size()), "composition"))
    return Layout();
  std::vector<Layout> out;
  for (unsigned i = 0; i < a.rank(); ++i) {
    if (i >= modes.size() || modes[i].kind == Tile::Mode::Kind::Keep)
      out.push_back(a[i]);
    else if (modes[i].kind == Tile::Mode::Kind::Layout)
      out.push_back(composition(ar, a[i], modes[i].layout));
    else
      out.push_back(compositionByMode(ar, a[i], modes[i].nested));
  }
  return makeLayout(out);
}

Layout composition(Arith &ar, const Layout &a, const Tile &b) {
  return compositionByMode(ar, a, b.modes);
}

ComposedLayout composition(Arith &ar, const ComposedLayout &a,
                           const Layout &b) {
  ComposedLayout out = a;
  out.outer = composition(ar, a.outer, b);
  return out;
}

ComposedLayout composition(Arith &ar, const ComposedLayout &a, const Tile &b) {
  ComposedLayout out = a;
  out.outer = composition(ar, a.outer, b);
  return out;
}

//===----------------------------------------------------------------------===//
// complement, inverses
//===----------------------------------------------------------------------===//

Layout complement(Arith &ar, const Layout &l, const Int &cotarget) {
  if (!checkLayout(ar, l))
    return Layout();
  FlatModes f = flatModes(l);
  struct Mode {
    Int stride, shape;
  };
  std::vector<Mode> modes;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    const Int &d = f.stride[i];
    if (!d.isStatic() || d.isBasis())
      return ar.fail("complement of " + toString(l) +
                     " needs static integer strides"),
             Layout();
    if (d.value() == 0 || isStaticOne(f.shape[i]))
      continue;
    if (d.value() < 0)
      return ar.fail("complement of " + toString(l) +
                     " needs non-negative strides"),
             Layout();
    modes.push_back({d, f.shape[i]});
  }
  std::stable_sort(modes.begin(), modes.end(), [](const Mode &x, const Mode &y) {
    if (x.stride.value() != y.stride.value())
      return x.stride.value() < y.stride.value();
    return x.shape.isStatic() && y.shape.isStatic() &&
           x.shape.value() < y.shape.value();
  });
  std::vector<Int> shape, stride;
  Int current(1);
  for (const Mode &m : modes) {
    if (current.isStatic() && m.stride.value() < current.value())
      return ar.fail("complement: " + toString(l) +
                     " is not injective (stride " + toString(m.stride) +
                     " lies inside the modes below it)"),
             Layout();
    shape.push_back(ar.div(m.stride, current));
    stride.push_back(current);
    current = ar.mul(m.shape, m.stride);
  }
  shape.push_back(ar.ceilDiv(cotarget, current));
  stride.push_back(current);
  return coalesce(ar, fromFlat(std::move(shape), std::move(stride)));
}

Layout complement(Arith &ar, const Layout &l) {
  return complement(ar, l, Int(1));
}

Layout rightInverse(Arith &ar, const Layout &l) {
  if (!checkLayout(ar, l))
    return Layout();
  // CuTe's right_inverse: on the coalesced layout, start at stride 1 and
  // keep taking the mode whose |stride| continues where the last one ended;
  // modes that never continue the chain (broadcasts, gaps) are skipped.
  FlatModes f = flatModes(coalesce(ar, l));
  for (size_t i = 0; i < f.shape.size(); ++i)
    if (!f.stride[i].isStatic() || f.stride[i].isBasis() ||
        !f.shape[i].isStatic())
      return ar.fail("right_inverse of " + toString(l) +
                     " needs a static layout with integer strides"),
             Layout();
  std::vector<int64_t> rstride(f.shape.size());
  int64_t prefix = 1;
  for (size_t i = 0; i < f.shape.size(); ++i) {
    rstride[i] = prefix;
    if (__builtin_mul_overflow(prefix, f.shape[i].value(), &prefix))
      return ar.fail("right_inverse of " + toString(l) + ": size overflows"),
             Layout();
  }
  std::vector<Int> shape, stride;
  std::vector<bool> taken(f.shape.size(), false);
  int64_t current = 1;
  for (bool found = true; found;) {
    found = false;
    for (size_t i = 0; i < f.shape.size(); ++i) {
      int64_t d = f.stride[i].value(), s = f.shape[i].value();
      if (taken[i] || s == 1 || std::abs(d) != current)
        continue;
      taken[i] = found = true;
      shape.push_back(Int(s));
      stride.push_back(Int(d < 0 ? -rstride[i] : rstride[i]));
      if (__builtin_mul_overflow(s, std::abs(d), &current))
        return ar.fail("right_inverse of " + toString(l) + ": size overflows"),
               Layout();
      break;
    }
  }
  if (shape.empty())
    return Layout(1, 0);
  return coalesce(ar, fromFlat(std::move(shape), std::move(stride)));
}

Layout leftInverse(Arith &ar, const Layout &l) {
  return rightInverse(ar, makeLayout({l, complement(ar, l)}));
}

//===----------------------------------------------------------------------===//
// Divides and products
//===----------------------------------------------------------------------===//

namespace {
using Splitter = Layout (*)(Arith &, const Layout &, const Layout &);

// Non-overloaded names, so they can be passed as a Splitter.
Layout logicalDivideLayout(Arith &ar, const Layout &a, const Layout &b) {
  return logicalDivide(ar, a, b);
}
Layout logicalProductLayout(Arith &ar, const Layout &a, const Layout &b) {
  return logicalProduct(ar, a, b);
}

Layout byMode(Arith &ar, Splitter f, const Layout &a,
              const std::vector<Tile::Mode> &modes, const char *what) {
  if (!checkRank(ar, a, unsigned(modes.size()), what))
    return Layout();
  std::vector<Layout> out;
  for (unsigned i = 0; i < a.rank(); ++i) {
    if (i >= modes.size() || modes[i].kind == Tile::Mode::Kind::Keep)
      out.push_back(a[i]);
    else if (modes[i].kind == Tile::Mode::Kind::Layout)
      out.push_back(f(ar, a[i], modes[i].layout));
    else
      out.push_back(byMode(ar, f, a[i], modes[i].nested, what));
  }
  return makeLayout(out);
}

/// Apply `f` by mode and gather the results as ((tiles...), (rests...)).
Layout hierUnzip(Arith &ar, Splitter f, const Layout &a,
                 const std::vector<Tile::Mode> &modes, const char *what) {
  if (!checkRank(ar, a, unsigned(modes.size()), what))
    return Layout();
  std::vector<Layout> firsts, seconds;
  for (unsigned i = 0; i < modes.size(); ++i) {
    Layout split;
    switch (modes[i].kind) {
    case Tile::Mode::Kind::Keep:
      split = makeLayout({Layout(1, 0), a[i]});
      break;
    case Tile::Mode::Kind::Layout:
      split = f(ar, a[i], modes[i].layout);
      break;
    case Tile::Mode::Kind::Nested:
      split = hierUnzip(ar, f, a[i], modes[i].nested, what);
      break;
    }
    if (ar.failed())
      return Layout();
    firsts.push_back(split[0]);
    seconds.push_back(split[1]);
  }
  for (unsigned i = unsigned(modes.size()); i < a.rank(); ++i)
    seconds.push_back(a[i]);
  return makeLayout({makeLayout(firsts), makeLayout(seconds)});
}

/// (T, R0, R1, ...) from a zipped (T, (R0, R1, ...)).
Layout tiledFromZipped(const Layout &z) {
  std::vector<Layout> out{z[0]};
  Layout rest = z[1];
  for (unsigned i = 0; i < rest.rank(); ++i)
    out.push_back(rest[i]);
  return makeLayout(out);
}

/// (T0, T1, ..., R0, R1, ...) from a zipped (T, R).
Layout flatFromZipped(const Layout &z) {
  std::vector<Layout> out = modesOf(z[0]);
  std::vector<Layout> rest = modesOf(z[1]);
  out.insert(out.end(), rest.begin(), rest.end());
  return makeLayout(out);
}
} // namespace

Layout logicalDivide(Arith &ar, const Layout &a, const Layout &b) {
  if (!checkLayout(ar, a) || !checkLayout(ar, b))
    return Layout();
  Layout rest = complement(ar, b, size(ar, a));
  return composition(ar, a, makeLayout({b, rest}));
}
Layout logicalDivide(Arith &ar, const Layout &a, const Tile &b) {
  return byMode(ar, &logicalDivideLayout, a, b.modes, "logical_divide");
}


Layout zippedDivide(Arith &ar, const Layout &a, const Layout &b) {
  return logicalDivide(ar, a, b);
}
Layout zippedDivide(Arith &ar, const Layout &a, const Tile &b) {
  return hierUnzip(ar, &logicalDivideLayout, a, b.modes, "zipped_divide");
}
Layout tiledDivide(Arith &ar, const Layout &a, const Layout &b) {
  return tiledFromZipped(zippedDivide(ar, a, b));
}
Layout tiledDivide(Arith &ar, const Layout &a, const Tile &b) {
  return tiledFromZipped(zippedDivide(ar, a, b));
}
Layout flatDivide(Arith &ar, const Layout &a, const Layout &b) {
  return flatFromZipped(zippedDivide(ar, a, b));
}
Layout flatDivide(Arith &ar, const Layout &a, const Tile &b) {
  return flatFromZipped(zippedDivide(ar, a, b));
}

Layout logicalProduct(Arith &ar, const Layout &a, const Layout &b) {
  if (!checkLayout(ar, a) || !checkLayout(ar, b))
    return Layout();
  Int target = ar.mul(size(ar, a), cosize(ar, b));
  return makeLayout({a, composition(ar, complement(ar, a, target), b)});
}
Layout logicalProduct(Arith &ar, const Layout &a, const Tile &b) {
  return byMode(ar, &logicalProductLayout, a, b.modes, "logical_product");
}
Layout zippedProduct(Arith &ar, const Layout &a, const Layout &b) {
  return logicalProduct(ar, a, b);
}
Layout zippedProduct(Arith &ar, const Layout &a, const Tile &b) {
  return hierUnzip(ar, &logicalProductLayout, a, b.modes, "zipped_product");
}
Layout tiledProduct(Arith &ar, const Layout &a, const Layout &b) {
  return tiledFromZipped(zippedProduct(ar, a, b));
}
Layout tiledProduct(Arith &ar, const Layout &a, const Tile &b) {
  return tiledFromZipped(zippedProduct(ar, a, b));
}
Layout flatProduct(Arith &ar, const Layout &a, const Layout &b) {
  return flatFromZipped(zippedProduct(ar, a, b));
}
Layout flatProduct(Arith &ar, const Layout &a, const Tile &b) {
  return flatFromZipped(zippedProduct(ar, a, b));
}

/// blocked (a inner, b outer) and raked (b inner, a outer) products: the
/// logical product of the rank-padded operands, zipped mode by mode.
static Layout interleavedProduct(Arith &ar, const Layout &a, const Layout &b,
                                 bool blockFirst) {
  if (!checkLayout(ar, a) || !checkLayout(ar, b))
    return Layout();
  unsigned r = std::max(a.rank(), b.rank());
  Layout product = logicalProduct(ar, padTo(a, r), padTo(b, r));
  if (ar.failed())
    return Layout();
  Layout first = product[0], second = product[1];
  std::vector<Layout> modes;
  for (unsigned i = 0; i < r; ++i) {
    Layout zipped = blockFirst ? makeLayout({first[i], second[i]})
                               : makeLayout({second[i], first[i]});
    modes.push_back(coalesce(ar, zipped));
  }
  return makeLayout(modes);
}

Layout blockedProduct(Arith &ar, const Layout &a, const Layout &b) {
  return interleavedProduct(ar, a, b, /*blockFirst=*/true);
}

Layout rakedProduct(Arith &ar, const Layout &a, const Layout &b) {
  return interleavedProduct(ar, a, b, /*blockFirst=*/false);
}

//===----------------------------------------------------------------------===//
// recast_layout, tile_to_shape
//===----------------------------------------------------------------------===//

namespace {
/// View `n` old elements as one new element.
Layout upcast(Arith &ar, const Layout &l, int64_t n) {
  if (l.shape.isTuple()) {
    std::vector<Layout> modes;
    for (unsigned i = 0; i < l.rank(); ++i)
      modes.push_back(upcast(ar, l[i], n));
    return makeLayout(modes);
  }
  const Int &s = l.shape.leaf(), &d = l.stride.leaf();
  if (isStaticZero(d))
    return l;
  if (d.isStatic()) {
    int64_t v = std::abs(d.value());
    if (v % n != 0 && n % v != 0)
      return ar.fail("recast_layout: stride " + toString(d) +
                     " and ratio " + std::to_string(n) +
                     " do not divide each other"),
             Layout();
    Int shape = ar.ceilDiv(s, ar.ceilDiv(Int(n), Int(v)));
    Int stride = ar.ceilDiv(Int(v), Int(n));
    if (d.value() < 0)
      stride = ar.sub(Int(0), stride);
    return Layout(shape, stride.withBasis(d.basis()));
  }
  // A dynamic stride is assumed to be a multiple of n.
  return Layout(s, ar.div(d, Int(n)));
}

/// View one old element as `n` new elements.
Layout downcast(Arith &ar, const Layout &l, int64_t n) {
  if (l.shape.isTuple()) {
    std::vector<Layout> modes;
    for (unsigned i = 0; i < l.rank(); ++i)
      modes.push_back(downcast(ar, l[i], n));
    return makeLayout(modes);
  }
  const Int &s = l.shape.leaf(), &d = l.stride.leaf();
  if (isStaticOne(d) || d.isStaticValue(-1))
    return Layout(ar.mul(s, Int(n)), d);
  return Layout(s, ar.mul(d, Int(n)));
}
} // namespace

Layout recastLayout(Arith &ar, const Layout &l, int64_t oldBits,
                    int64_t newBits) {
  if (oldBits <= 0 || newBits <= 0)
    return ar.fail("recast_layout: element widths must be positive"),
           Layout();
  if (!checkLayout(ar, l))
    return Layout();
  int64_t g = std::gcd(oldBits, newBits);
  int64_t up = newBits / g, down = oldBits / g;
  Layout r = l;
  if (up != 1)
    r = upcast(ar, r, up);
  if (down != 1) {
    std::vector<Int> strides = leaves(r.stride);
    if (llvm::none_of(strides, [](const Int &d) {
          return isStaticOne(d) || d.isStaticValue(-1);
        }))
      return ar.fail("recast_layout: " + toString(l) +
                     " has no unit-stride mode to split into narrower "
                     "elements"),
             Layout();
    r = downcast(ar, r, down);
  }
  return r;
}

Layout tileToShape(Arith &ar, const Layout &block, const IntTuple &shape,
                   const IntTuple *order) {
  if (!checkLayout(ar, block))
    return Layout();
  unsigned r = shape.rank();
  if (block.rank() > r)
    return ar.fail("tile_to_shape: block " + toString(block) +
                   " has more modes than shape " + toString(shape)),
           Layout();
  Layout padded = padTo(block, r);
  IntTuple blockShape = productEach(ar, padded.shape);
  IntTuple targetShape = productEach(ar, shape);
  if (r == 1 && shape.isLeaf()) {
    blockShape = IntTuple::tuple({IntTuple(product(ar, padded.shape))});
    targetShape = IntTuple::tuple({shape});
  }
  for (unsigned i = 0; i < r; ++i) {
    const Int &t = targetShape[i].leaf(), &b = blockShape[i].leaf();
    if (t.isStatic() && b.isStatic() && (b.value() == 0 || t.value() % b.value() != 0))
      return ar.fail("tile_to_shape: block shape " + toString(blockShape) +
                     " does not divide the target shape " +
                     toString(targetShape)),
             Layout();
  }
  IntTuple productShape = ceilDiv(ar, targetShape, blockShape);
  Layout repeat = order ? makeOrderedLayout(ar, productShape, *order)
                        : makeLayout(ar, productShape);
  Layout result = blockedProduct(ar, padded, repeat);
  return coalesce(ar, result, productShape);
}

} // namespace fly::algebra
