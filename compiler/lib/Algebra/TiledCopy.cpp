//===- TiledCopy.cpp - CuTe's TiledCopy as layout algebra -----------------===//
//
// Follows CuTe's TiledCopy (CUTLASS documentation, "CuTe TiledCopy"):
// make_tiled_copy, tidfrg_S/D through tile2thrfrg, ThrCopy::partition_S/D,
// retile, make_tiled_copy_A/B/C.
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/TiledCopy.h"

namespace fly::algebra {

namespace {
bool hasKeepMode(const std::vector<Tile::Mode> &modes) {
  for (const Tile::Mode &m : modes)
    if (m.kind == Tile::Mode::Kind::Keep ||
        (m.kind == Tile::Mode::Kind::Nested && hasKeepMode(m.nested)))
      return true;
  return false;
}

/// A tiled copy made by makeTiledCopy (a failed one is rejected here,
/// before its empty fields are indexed).
bool checkTiledCopy(Arith &ar, const TiledCopy &copy) {
  if (ar.failed())
    return false;
  if (copy.tiler.modes.empty() || copy.layoutTV.shape.isLeaf() ||
      copy.layoutTV.rank() != 2 || copy.atom.valRef.shape.isLeaf())
    return ar.fail("not a tiled copy made by make_tiled_copy");
  return true;
}

/// `n` divides `total` (both static), else a diagnostic naming `what`.
bool checkMultiple(Arith &ar, const Int &total, const Int &n,
                   const std::string &what) {
  if (!total.isStatic() || !n.isStatic() || n.value() <= 0)
    return ar.fail(what + ": the counts must be static and positive");
  if (total.value() % n.value() != 0)
    return ar.fail(what + ": " + toString(total) + " is not a multiple of " +
                   toString(n));
  return true;
}
} // namespace

TiledCopy makeTiledCopy(Arith &ar, const CopyAtom &atom,
                        const Layout &layoutTV, const Tile &tiler) {
  if (!verifyIndexLayout(ar, layoutTV,
                         "make_tiled_copy: the thread-value layout"))
    return {};
  if (layoutTV.shape.isLeaf() || layoutTV.rank() != 2) {
    ar.fail("make_tiled_copy: the thread-value layout " + toString(layoutTV) +
            " must have two modes, (thread, value)");
    return {};
  }
  if (atom.valRef.shape.isLeaf()) {
    ar.fail("make_tiled_copy: not a copy atom made by make_copy_atom");
    return {};
  }
  if (tiler.modes.empty() || hasKeepMode(tiler.modes)) {
    ar.fail("make_tiled_copy: the tiler " + toString(tiler) +
            " must give a layout for every mode");
    return {};
  }
  if (!verifyTileModes(ar, tiler.modes, "make_tiled_copy: the tiler"))
    return {};
  Int thr = size(ar, layoutTV[0]), val = size(ar, layoutTV[1]);
  if (!checkMultiple(ar, thr, atom.numThreads(),
                     "make_tiled_copy: threads of " + toString(layoutTV) +
                         " for the atom's threads") ||
      !checkMultiple(ar, val, atom.numValues(),
                     "make_tiled_copy: values of " + toString(layoutTV) +
                         " for the atom's values"))
    return {};
  // The layout indexes the tile: its image must lie inside it.
  IntTuple shape = shapeOfTile(ar, tiler);
  if (ar.failed())
    return {};
  Int tileSize = size(ar, makeLayout(ar, shape));
  Int image = cosize(ar, layoutTV);
  if (ar.failed())
    return {};
  if (!tileSize.isStatic() || !image.isStatic() ||
      image.value() > tileSize.value()) {
    ar.fail("make_tiled_copy: the thread-value layout " + toString(layoutTV) +
            " (cosize " + toString(image) + ") does not fit the tile " +
            toString(tiler) + " (size " + toString(tileSize) + ")");
    return {};
  }
  return {atom, layoutTV, tiler};
}

TiledCopy makeTiledCopyTV(Arith &ar, const CopyAtom &atom, const Layout &thr,
                          const Layout &val) {
  LayoutTV tv = makeLayoutTV(ar, thr, val);
  if (ar.failed())
    return {};
  return makeTiledCopy(ar, atom, tv.layoutTV, tileOfShape(tv.tiler));
}

TiledCopy makeTiledCopyFor(Arith &ar, const CopyAtom &atom,
                           const TiledMma &mma, MmaOperand op) {
  auto [x, y] = operandModes(op);
  Layout tv = tiledLayoutTV(ar, mma, op);
  IntTuple tile = IntTuple::tuple(
      {tileSizeMNK(ar, mma, x), tileSizeMNK(ar, mma, y)});
  if (ar.failed())
    return {};
  return makeTiledCopy(ar, atom, tv, tileOfShape(tile));
}

Int tiledCopySize(Arith &ar, const TiledCopy &copy) {
  if (!checkTiledCopy(ar, copy))
    return Int(0);
  return size(ar, copy.layoutTV[0]);
}

Layout tidfrg(Arith &ar, const TiledCopy &copy, CopySide side,
              const Layout &tensor) {
  if (!checkTiledCopy(ar, copy) ||
      !verifyLayout(ar, tensor, "tiled copy partition:"))
    return Layout();
  if (tensor.rank() < copy.tiler.modes.size()) {
    ar.fail("tiled copy partition: " + toString(tensor) + " has fewer modes "
            "than the tiler " + toString(copy.tiler));
    return Layout();
  }
  const CopyAtom &atom = copy.atom;
  // (side thread, side value) -> (ref thread, ref value) of the atom.
  const Layout &sideTV = side == CopySide::Src ? atom.valSrc : atom.valDst;
  Layout refToSide =
      composition(ar, rightInverse(ar, atom.valRef), sideTV);
  // ((atom_tid,atom_val),(rest_tid,rest_val)) -> tile index; the atom's
  // threads are the first ones of each group of the tiled threads.
  Tile atomShape = tileOfShape(
      IntTuple::tuple({atom.numThreads(), atom.numValues()}));
  Layout atomTV = zippedDivide(ar, copy.layoutTV, atomShape);
  if (ar.failed())
    return Layout();
  Layout sideAtom = composition(ar, atomTV[0], refToSide);
  Layout rest = atomTV[1];
  // ((side_tid,rest_tid),(side_val,rest_val)) -> tile index, the thread
  // mode merged into one, the value modes kept apart.
  Layout zipped = makeLayout({makeLayout({sideAtom[0], rest[0]}),
                              makeLayout({sideAtom[1], rest[1]})});
  Layout thrValToTile = coalesce(
      ar, zipped, IntTuple::tuple({1, IntTuple::tuple({1, 1})}));
  // ((TileM,TileN,...),(RestM,RestN,...))
  Layout divided = zippedDivide(ar, tensor, copy.tiler);
  if (ar.failed())
    return Layout();
  Layout tv = composition(ar, divided[0], thrValToTile);
  return makeLayout({tv[0], tv[1], divided[1]});
}

Layout tiledLayoutTV(Arith &ar, const TiledCopy &copy, CopySide side) {
  if (!checkTiledCopy(ar, copy))
    return Layout();
  // The tile itself as the tensor: its rest modes are all of size 1.
  Layout frg = tidfrg(ar, copy, side,
                      makeLayout(ar, shapeOfTile(ar, copy.tiler)));
  if (ar.failed())
    return Layout();
  return take(ar, frg, 0, 2);
}

OffsetLayout partition(Arith &ar, const TiledCopy &copy, CopySide side,
                       const Layout &tensor, const Int &thrIdx) {
  Layout frg = tidfrg(ar, copy, side, tensor);
  if (ar.failed())
    return {};
  IntTuple crd =
      IntTuple::tuple({thrIdx, Int::none(), starsLike(frg.shape[2])});
  OffsetLayout r;
  r.layout = slice(ar, crd, frg, &r.offset);
  return r;
}

Layout retile(Arith &ar, const TiledCopy &copy, const Layout &fragment) {
  if (!checkTiledCopy(ar, copy) || !verifyLayout(ar, fragment, "retile:"))
    return Layout();
  unsigned rank = fragment.rank();
  if (fragment.shape.isLeaf() || rank < copy.tiler.modes.size() + 1) {
    ar.fail("retile: " + toString(fragment) + " needs a value mode and one "
            "mode per mode of the tiler " + toString(copy.tiler));
    return Layout();
  }
  Int v = size(ar, fragment[0]);
  Int thr = size(ar, copy.layoutTV[0]);
  if (!v.isStatic() || !thr.isStatic()) {
    ar.fail("retile: the value mode of " + toString(fragment) +
            " must have a static size");
    return Layout();
  }
  // (m,n) -> index in the (thread, value) domain of the tiled copy.
  Layout tileToTV =
      composition(ar, rightInverse(ar, copy.layoutTV),
                  makeLayout(ar, shapeOfTile(ar, copy.tiler)));
  // (m,n) -> value block: the shape and order of a thread's values in
  // units of V (CuTe's upcast<NumThr * V>).
  Layout frgMN = recastLayout(ar, tileToTV, 1, thr.value() * v.value());
  // (atom_vals, rest_vals) -> (v,m,n)
  Layout frgV = logicalDivide(
      ar,
      logicalProduct(ar, makeLayout(ar, v),
                     rightInverse(ar, frgMN)),
      Layout(copy.atom.numValues(), 1));
  if (ar.failed())
    return Layout();
  // ((V,TileM,TileN,...),(1,RestM,RestN,...))
  IntTuple tileShape = prepend(productEach(ar, frgMN.shape), v);
  Layout tiled = zippedDivide(ar, fragment, tileOfShape(tileShape));
  if (ar.failed())
    return Layout();
  Layout values = composition(ar, tiled[0], frgV);
  // ((atom_vals,rest_vals), RestM, RestN, ...)
  std::vector<IntTuple> restCrd(tiled.shape[1].rank(), Int::none());
  restCrd[0] = Int(0);
  return slice(ar,
               IntTuple::tuple({Int::none(), IntTuple::tuple(restCrd)}),
               makeLayout({values, tiled[1]}));
}

} // namespace fly::algebra
