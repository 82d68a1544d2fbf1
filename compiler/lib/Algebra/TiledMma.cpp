//===- TiledMma.cpp - CuTe's TiledMMA as layout algebra -------------------===//
//
// Follows CuTe's TiledMMA (CUTLASS documentation, "CuTe TiledMMA" and the
// GEMM tutorial): thr_layout_vmnk = tiled_product(ThrID, AtomLayoutMNK),
// thrfrg_A/B/C, ThrMMA::partition_A/B/C, make_fragment_A/B/C (as FlyDSL
// defines them: from the whole tile) and get_layoutA/B/C_TV.
//
//===----------------------------------------------------------------------===//

#include "fly/Algebra/TiledMma.h"

namespace fly::algebra {

namespace {
Tile::Mode keepMode() { return Tile::Mode(); }

Tile::Mode layoutMode(Layout l) {
  Tile::Mode m;
  m.kind = Tile::Mode::Kind::Layout;
  m.layout = std::move(l);
  return m;
}

Tile::Mode nestedMode(std::vector<Tile::Mode> modes) {
  Tile::Mode m;
  m.kind = Tile::Mode::Kind::Nested;
  m.nested = std::move(modes);
  return m;
}

/// The number of elements a tiler mode covers (`*` has none: nullopt).
std::optional<Int> modeSize(Arith &ar, const Tile::Mode &m) {
  switch (m.kind) {
  case Tile::Mode::Kind::Keep:
    return std::nullopt;
  case Tile::Mode::Kind::Layout:
    return size(ar, m.layout);
  case Tile::Mode::Kind::Nested: {
    Int n(1);
    for (const Tile::Mode &sub : m.nested) {
      std::optional<Int> s = modeSize(ar, sub);
      if (!s)
        return std::nullopt;
      n = ar.mul(n, *s);
    }
    return n;
  }
  }
  return std::nullopt;
}

/// A tiled MMA made by makeTiledMma (a failed one is rejected here, before
/// its empty fields are indexed).
bool checkTiledMma(Arith &ar, const TiledMma &mma) {
  if (ar.failed())
    return false;
  if (mma.permutationMNK.modes.size() != 3 ||
      mma.thrLayoutVMNK.shape.isLeaf() || mma.thrLayoutVMNK.rank() != 4 ||
      mma.atom.shapeMNK.isLeaf() || mma.atom.shapeMNK.rank() != 3)
    return ar.fail("not a tiled MMA made by make_tiled_mma");
  return true;
}

bool checkTensor(Arith &ar, const Layout &tensor, const char *what) {
  if (!verifyLayout(ar, tensor, std::string(what) + ":"))
    return false;
  if (tensor.shape.isLeaf() || tensor.rank() < 2)
    return ar.fail(std::string(what) + ": " + toString(tensor) +
                   " needs at least two modes");
  return true;
}
} // namespace

TiledMma makeTiledMma(Arith &ar, const MmaAtom &atom,
                      const Layout &atomLayoutMNK, const Tile *permutation) {
  if (ar.failed())
    return {};
  const Layout &l = atomLayoutMNK;
  if (!verifyIndexLayout(ar, l, "make_tiled_mma: the atom layout"))
    return {};
  if (l.rank() > 3) {
    ar.fail("make_tiled_mma: the atom layout " + toString(l) +
            " has more than three modes (M,N,K)");
    return {};
  }
  std::vector<Layout> mnk;
  for (unsigned i = 0; i < l.rank(); ++i)
    mnk.push_back(l[i]);
  while (mnk.size() < 3)
    mnk.push_back(Layout(1, 0));

  Tile perm;
  if (permutation)
    perm = *permutation;
  if (perm.modes.size() > 3) {
    ar.fail("make_tiled_mma: the permutation " + toString(perm) +
            " has more than three modes (M,N,K)");
    return {};
  }
  if (!verifyTileModes(ar, perm.modes, "make_tiled_mma: the permutation"))
    return {};
  perm.modes.resize(3, keepMode());

  TiledMma mma{atom, makeLayout(mnk), perm, Layout()};
  mma.thrLayoutVMNK = tiledProduct(ar, atom.thrID, mma.atomLayoutMNK);
  return mma;
}

Int tiledMmaSize(Arith &ar, const TiledMma &mma) {
  if (!checkTiledMma(ar, mma))
    return Int(0);
  return size(ar, mma.thrLayoutVMNK);
}

Int tileSizeMNK(Arith &ar, const TiledMma &mma, int i) {
  if (!checkTiledMma(ar, mma))
    return Int(0);
  if (i < 0 || i > 2)
    return ar.fail("tile_size_mnk: mode " + std::to_string(i) +
                   " of a tiled MMA that has modes 0..2"),
           Int(0);
  Int core = ar.mul(mma.atom.shapeMNK[i].leaf(),
                    size(ar, mma.thrLayoutVMNK[i + 1]));
  std::optional<Int> perm = modeSize(ar, mma.permutationMNK.modes[i]);
  return perm ? ar.max(core, *perm) : core;
}

Layout thrfrg(Arith &ar, const TiledMma &mma, MmaOperand op,
              const Layout &tensor) {
  if (!checkTiledMma(ar, mma) ||
      !checkTensor(ar, tensor, "tiled MMA partition"))
    return Layout();
  auto [x, y] = operandModes(op);
  // Permute: (PermX, PermY, ...).
  Tile perm{{mma.permutationMNK.modes[x], mma.permutationMNK.modes[y]}};
  Layout permuted = logicalDivide(ar, tensor, perm);
  // Atom tiles: ((AtomX,AtomY), (RestX,RestY,...)).
  Tile atomTile{{layoutMode(Layout(mma.atom.shapeMNK[x], 1)),
                 layoutMode(Layout(mma.atom.shapeMNK[y], 1))}};
  Layout tiles = zippedDivide(ar, permuted, atomTile);
  if (ar.failed())
    return Layout();
  // Each atom tile through the atom's thread-value layout: (ThrV, FrgV).
  Layout tv = composition(ar, tiles[0], atomLayoutTV(mma.atom, op));
  // The tile grid over the atom layout's threads:
  // ((ThrX,ThrY), (RestX,RestY,...)).
  Tile thrTile{{layoutMode(Layout(size(ar, mma.thrLayoutVMNK[x + 1]), 1)),
                layoutMode(Layout(size(ar, mma.thrLayoutVMNK[y + 1]), 1))}};
  Layout grid = zippedDivide(ar, tiles[1], thrTile);
  if (ar.failed())
    return Layout();
  return makeLayout({makeLayout({tv[0], grid[0]}),
                     makeLayout({tv[1], grid[1]})});
}

IntTuple threadCoordVMNK(Arith &ar, const TiledMma &mma, const Int &thrIdx) {
  if (!checkTiledMma(ar, mma))
    return IntTuple(0);
  const Layout &l = mma.thrLayoutVMNK;
  std::vector<IntTuple> out;
  for (unsigned i = 0; i < l.rank(); ++i) {
    // The hierarchical coordinate (idx / stride) % shape of each leaf,
    // folded into one column-major integer per mode.
    std::vector<Int> shape = leaves(l.shape[i]), stride = leaves(l.stride[i]);
    Int crd(0), scale(1);
    for (size_t j = 0; j < shape.size(); ++j) {
      if (!shape[j].isStaticValue(1)) {
        if (stride[j].isStaticValue(0))
          return ar.fail("the thread layout " + toString(l) +
                         " gives several coordinates the same thread"),
                 IntTuple(0);
        Int c = ar.mod(ar.div(thrIdx, stride[j]), shape[j]);
        crd = ar.add(crd, ar.mul(c, scale));
      }
      scale = ar.mul(scale, shape[j]);
    }
    out.emplace_back(crd);
  }
  return IntTuple::tuple(std::move(out));
}

OffsetLayout partition(Arith &ar, const TiledMma &mma, MmaOperand op,
                       const Layout &tensor, const Int &thrIdx) {
  Layout frg = thrfrg(ar, mma, op, tensor);
  IntTuple vmnk = threadCoordVMNK(ar, mma, thrIdx);
  if (ar.failed())
    return {};
  auto [x, y] = operandModes(op);
  // ((v,(x,y)), (*,(*,*,...))) -> (FrgV, RestX, RestY, ...)
  IntTuple thrCrd =
      IntTuple::tuple({vmnk[0], IntTuple::tuple({vmnk[x + 1], vmnk[y + 1]})});
  IntTuple valCrd =
      IntTuple::tuple({Int::none(), starsLike(frg.shape[1][1])});
  OffsetLayout r;
  r.layout = slice(ar, IntTuple::tuple({thrCrd, valCrd}), frg, &r.offset);
  return r;
}

Layout makeFragment(Arith &ar, const TiledMma &mma, MmaOperand op,
                    const Layout &tile, std::optional<int64_t> stages) {
  if (!checkTiledMma(ar, mma) || !verifyLayout(ar, tile, "make_fragment:"))
    return Layout();
  if (tile.shape.isLeaf() || tile.rank() < 2)
    return ar.fail("make_fragment: the tile " + toString(tile) +
                   " needs at least two modes ((M,K), (N,K) or (M,N))"),
           Layout();
  Layout input = tile;
  if (stages) {
    if (*stages <= 0)
      return ar.fail("make_fragment: stages must be positive, got " +
                     std::to_string(*stages)),
             Layout();
    // The tile's first two modes and a stage mode whose stride is unknown:
    // ordered after every static stride, the stages come outermost.
    Layout stageMode(IntTuple(Int(*stages)), IntTuple(Int::dynamic()));
    input = makeLayout({tile[0], tile[1], stageMode});
  }
  // The fragment depends on the tile's shape and the order of its strides
  // only, never on run-time values: a shape-only Arith keeps an emitting
  // one from materialising the partition's arithmetic.
  Arith shapes;
  OffsetLayout part = partition(shapes, mma, op, input, Int(0));
  Layout fragment =
      shapes.failed() ? Layout() : makeFragmentLike(shapes, part.layout);
  if (shapes.failed())
    return ar.fail(shapes.error()), Layout();
  return fragment;
}

Layout tiledLayoutTV(Arith &ar, const TiledMma &mma, MmaOperand op) {
  if (!checkTiledMma(ar, mma))
    return Layout();
  auto [x, y] = operandModes(op);
  Layout ref = makeLayout(ar, IntTuple::tuple({tileSizeMNK(ar, mma, x),
                                               tileSizeMNK(ar, mma, y)}));
  // ((ThrV,(ThrX,ThrY)), (FrgV,(RestX,RestY))) -> tile index
  Layout frg = thrfrg(ar, mma, op, ref);
  if (ar.failed())
    return Layout();
  Layout thr = frg[0];
  if (op != MmaOperand::C) {
    // (ThrV,(ThrX,ThrK)) -> (ThrV,((ThrM,ThrN),ThrK)): A is the same for
    // every N thread, B for every M thread.
    Int m = size(ar, mma.thrLayoutVMNK[1]), n = size(ar, mma.thrLayoutVMNK[2]);
    Layout spread = op == MmaOperand::A
                        ? Layout(IntTuple::tuple({m, n}), IntTuple::tuple({1, 0}))
                        : Layout(IntTuple::tuple({m, n}), IntTuple::tuple({0, 1}));
    Tile t{{keepMode(), nestedMode({layoutMode(spread), keepMode()})}};
    thr = composition(ar, thr, t);
  }
  // thread index -> (ThrV,ThrM,ThrN,ThrK)
  Layout thrIdxToThrID = rightInverse(ar, mma.thrLayoutVMNK);
  return makeLayout({composition(ar, thr, thrIdxToThrID), frg[1]});
}

} // namespace fly::algebra
