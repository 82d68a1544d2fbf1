//===- Atom.cpp - Copy and MMA atoms as thread-value records --------------===//
//
// The records follow CuTe's Copy_Traits/Copy_Atom and MMA_Traits/MMA_Atom
// (CUTLASS documentation, "CuTe MMA atoms", "TiledCopy").
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/Atom.h"

namespace fly::algebra {

namespace {
/// Size of a static shape (atoms are checked static when they are made).
int64_t staticSize(const IntTuple &shape) {
  int64_t n = 1;
  for (const Int &s : leaves(shape))
    n *= s.value();
  return n;
}

/// A (thread, value) layout of an atom: an index map with two modes.
bool checkAtomTV(Arith &ar, const Layout &l, const std::string &what) {
  if (!verifyIndexLayout(ar, l, what))
    return false;
  if (l.shape.isLeaf() || l.rank() != 2)
    return ar.fail(what + " " + toString(l) +
                   " must have two modes, (thread, value)");
  return true;
}

bool checkThreads(Arith &ar, const Layout &tv, const Layout &thrID,
                  const std::string &what) {
  if (staticSize(tv.shape[0]) != staticSize(thrID.shape))
    return ar.fail(what + " " + toString(tv) + " has " +
                   std::to_string(staticSize(tv.shape[0])) +
                   " threads, the atom's thread id layout " +
                   toString(thrID) + " has " +
                   std::to_string(staticSize(thrID.shape)));
  return true;
}

bool checkThrID(Arith &ar, const Layout &thrID) {
  return verifyIndexLayout(ar, thrID, "atom thread id layout");
}
} // namespace

bool verifyLayout(Arith &ar, const Layout &l, const std::string &what,
                  bool mustBeStatic) {
  if (ar.failed())
    return false;
  if (!congruent(l.shape, l.stride))
    return ar.fail(what + " " + toString(l) +
                   ": shape and stride are not congruent");
  for (const Int &s : leaves(l.shape))
    if (s.isNone() || s.isBasis() || (s.isStatic() && s.value() <= 0))
      return ar.fail(what + " " + toString(l) +
                     " needs positive integer sizes");
  for (const Int &d : leaves(l.stride))
    if (d.isNone())
      return ar.fail(what + " " + toString(l) + " has a '*' stride");
  if (mustBeStatic && (!isStatic(l.shape) || !isStatic(l.stride)))
    return ar.fail(what + " " + toString(l) + " must be static");
  size(ar, l); // reports a size that overflows
  return !ar.failed();
}

bool verifyIndexLayout(Arith &ar, const Layout &l, const std::string &what) {
  if (!verifyLayout(ar, l, what, /*mustBeStatic=*/true))
    return false;
  for (const Int &d : leaves(l.stride))
    if (d.isBasis() || d.value() < 0)
      return ar.fail(what + " " + toString(l) +
                     " must have non-negative integer strides");
  // Thread, value and tile counts are small; bounding them keeps every
  // product of the partitioning algebra far from int64 overflow.
  constexpr int64_t kMaxIndex = int64_t(1) << 24;
  Int co = cosize(ar, l);
  if (size(ar, l).value() > kMaxIndex || co.value() > kMaxIndex)
    return ar.fail(what + " " + toString(l) + " spans more than 2^24 "
                   "indices");
  return true;
}

bool verifyTileModes(Arith &ar, const std::vector<Tile::Mode> &modes,
                     const std::string &what) {
  for (const Tile::Mode &m : modes) {
    if (m.kind == Tile::Mode::Kind::Layout &&
        !verifyIndexLayout(ar, m.layout, what))
      return false;
    if (m.kind == Tile::Mode::Kind::Nested &&
        !verifyTileModes(ar, m.nested, what))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Copy atoms
//===----------------------------------------------------------------------===//

Int CopyAtom::numThreadsOf(const Layout &tv) {
  return tv.shape.isTuple() ? Int(staticSize(tv.shape[0])) : Int(0);
}
Int CopyAtom::numValuesOf(const Layout &tv) {
  return tv.shape.isTuple() && tv.rank() > 1 ? Int(staticSize(tv.shape[1]))
                                             : Int(0);
}

CopyTraits universalCopyTraits(Arith &ar, int64_t bits) {
  if (bits <= 0) {
    ar.fail("UniversalCopy needs a positive bit width, not " +
            std::to_string(bits));
    return {};
  }
  Layout tv = makeLayout(ar, IntTuple::tuple({1, bits}));
  return {Layout(1, 0), tv, tv, tv};
}

CopyAtom makeCopyAtom(Arith &ar, const CopyTraits &traits, int64_t valueBits) {
  if (ar.failed())
    return {};
  if (valueBits <= 0) {
    ar.fail("copy atom: element width must be positive, not " +
            std::to_string(valueBits) + " bits");
    return {};
  }
  if (!checkThrID(ar, traits.thrID))
    return {};
  CopyAtom atom;
  atom.traits = traits;
  atom.valueBits = valueBits;
  struct Side {
    const Layout &bits;
    Layout &values;
    const char *name;
  };
  for (Side s : {Side{traits.srcBits, atom.valSrc, "source"},
                 Side{traits.dstBits, atom.valDst, "destination"},
                 Side{traits.refBits, atom.valRef, "reference"}}) {
    std::string what = std::string("copy atom ") + s.name + " layout";
    if (!checkAtomTV(ar, s.bits, what) ||
        !checkThreads(ar, s.bits, traits.thrID, what))
      return {};
    s.values = recastLayout(ar, s.bits, 1, valueBits);
    if (ar.failed())
      return {};
    if (staticSize(s.values.shape) * valueBits != staticSize(s.bits.shape)) {
      ar.fail(what + " " + toString(s.bits) + " does not hold whole " +
              std::to_string(valueBits) + "-bit values");
      return {};
    }
  }
  return atom;
}

//===----------------------------------------------------------------------===//
// MMA atoms
//===----------------------------------------------------------------------===//

std::array<int, 2> operandModes(MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return {0, 2};
  case MmaOperand::B:
    return {1, 2};
  case MmaOperand::C:
    return {0, 1};
  }
  return {0, 1};
}

const Layout &atomLayoutTV(const MmaAtom &atom, MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return atom.layoutA;
  case MmaOperand::B:
    return atom.layoutB;
  case MmaOperand::C:
    break;
  }
  return atom.layoutC;
}

MmaAtom makeMmaAtom(Arith &ar, IntTuple shapeMNK, Layout thrID, Layout layoutA,
                    Layout layoutB, Layout layoutC) {
  if (ar.failed())
    return {};
  if (shapeMNK.isLeaf() || shapeMNK.rank() != 3 || !isStatic(shapeMNK) ||
      hasNone(shapeMNK) || depth(shapeMNK) != 1) {
    ar.fail("MMA atom shape " + toString(shapeMNK) +
            " must be three static integers (M,N,K)");
    return {};
  }
  for (const Int &s : leaves(shapeMNK))
    if (s.isBasis() || s.value() <= 0) {
      ar.fail("MMA atom shape " + toString(shapeMNK) +
              " must be positive integers");
      return {};
    }
  if (!checkThrID(ar, thrID))
    return {};
  MmaAtom atom{std::move(shapeMNK), std::move(thrID), std::move(layoutA),
               std::move(layoutB), std::move(layoutC)};
  for (MmaOperand op : {MmaOperand::A, MmaOperand::B, MmaOperand::C}) {
    const Layout &tv = atomLayoutTV(atom, op);
    std::string what = std::string("MMA atom ") +
                       "ABC"[static_cast<int>(op)] + " layout";
    if (!checkAtomTV(ar, tv, what) || !checkThreads(ar, tv, atom.thrID, what))
      return {};
    auto [x, y] = operandModes(op);
    int64_t tile = atom.shapeMNK[x].leaf().value() *
                   atom.shapeMNK[y].leaf().value();
    Int co = cosize(ar, tv);
    if (ar.failed())
      return {};
    if (co.value() > tile) {
      ar.fail(what + " " + toString(tv) + " reaches index " +
              std::to_string(co.value() - 1) + ", outside its " +
              std::to_string(tile) + "-element tile");
      return {};
    }
  }
  return atom;
}

MmaAtom universalFMA(Arith &ar) {
  Layout one = makeLayout(ar, IntTuple::tuple({1, 1}));
  return makeMmaAtom(ar, IntTuple::tuple({1, 1, 1}), Layout(1, 0), one, one,
                     one);
}

//===----------------------------------------------------------------------===//
// Helpers of partitioning
//===----------------------------------------------------------------------===//

LayoutTV makeLayoutTV(Arith &ar, const Layout &thr, const Layout &val) {
  if (!verifyIndexLayout(ar, thr, "thread layout") ||
      !verifyIndexLayout(ar, val, "value layout"))
    return {};
  // (m, n) -> (thread, value) index, threads innermost.
  Layout layoutMN = rakedProduct(ar, thr, val);
  if (ar.failed())
    return {};
  // (thread, value) -> (m, n) index.
  Layout tvShape = makeLayout(
      ar, IntTuple::tuple({IntTuple(size(ar, thr)), IntTuple(size(ar, val))}));
  Layout layoutTV =
      composition(ar, rightInverse(ar, layoutMN), tvShape);
  return {productEach(ar, layoutMN.shape), layoutTV};
}

IntTuple starsLike(const IntTuple &shape) {
  if (shape.isLeaf())
    return Int::none();
  return IntTuple::tuple(std::vector<IntTuple>(shape.rank(), Int::none()));
}

static std::vector<Tile::Mode> tileModesOf(const IntTuple &shape) {
  std::vector<Tile::Mode> modes;
  for (unsigned i = 0; i < shape.rank(); ++i) {
    Tile::Mode m;
    if (shape[i].isTuple()) {
      m.kind = Tile::Mode::Kind::Nested;
      m.nested = tileModesOf(shape[i]);
    } else {
      m.kind = Tile::Mode::Kind::Layout;
      m.layout = Layout(shape[i], 1);
    }
    modes.push_back(std::move(m));
  }
  return modes;
}

Tile tileOfShape(const IntTuple &shape) { return Tile{tileModesOf(shape)}; }

static bool shapeOfModes(Arith &ar, const std::vector<Tile::Mode> &modes,
                         std::vector<IntTuple> &out) {
  for (const Tile::Mode &m : modes) {
    switch (m.kind) {
    case Tile::Mode::Kind::Keep:
      return ar.fail("a tiler with a '*' mode covers no fixed shape");
    case Tile::Mode::Kind::Layout:
      out.push_back(m.layout.shape);
      break;
    case Tile::Mode::Kind::Nested: {
      std::vector<IntTuple> nested;
      if (!shapeOfModes(ar, m.nested, nested))
        return false;
      out.push_back(IntTuple::tuple(std::move(nested)));
      break;
    }
    }
  }
  return true;
}

IntTuple shapeOfTile(Arith &ar, const Tile &tile) {
  std::vector<IntTuple> out;
  if (!shapeOfModes(ar, tile.modes, out))
    return IntTuple(0);
  return IntTuple::tuple(std::move(out));
}

Layout makeFragmentLike(Arith &ar, const Layout &l) {
  if (!verifyLayout(ar, l, "make_fragment_like:"))
    return Layout();
  unsigned r = l.rank();
  if (r > 1 && l.shape.isTuple() && isStatic(l.shape)) {
    Layout first = makeLayout(ar, l.shape[0]);
    Layout rest = makeOrderedLayout(ar, take(ar, l.shape, 1, r),
                                    take(ar, l.stride, 1, r));
    return tiledProduct(ar, first, rest);
  }
  return makeLayout(ar, l.shape);
}

} // namespace fly::algebra
