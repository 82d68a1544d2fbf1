//===- Atom.h - Copy and MMA atoms as thread-value records ------*- C++ -*-===//
//
// CuTe's atoms as short declarative records (CuTe's Copy_Traits/Copy_Atom and
// MMA_Traits/MMA_Atom): which threads an instruction uses and, per
// (thread, value), which element it touches. The tiled forms
// (TiledCopy.h, TiledMma.h) and the expansion of `copy`/`gemm` into atom
// calls (AtomPlan.h) are built on them. Arch atoms (MFMA, WMMA) are tables of
// these records, one file per arch family; only the target-neutral ones live
// here.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_ATOM_H
#define FLY_ALGEBRA_ATOM_H

#include "fly/Algebra/Layout.h"

namespace fly::algebra {

//===----------------------------------------------------------------------===//
// Copy atoms
//===----------------------------------------------------------------------===//

/// What one copy instruction moves, in bits (CuTe's Copy_Traits). Each
/// thread-value layout maps (thread id, bit) to the bit it reads (`src`),
/// writes (`dst`), or the reference partitioning is expressed in (`ref`,
/// usually `src`).
struct CopyTraits {
  Layout thrID;   // atom thread id -> thread index
  Layout srcBits; // (thr, bit) -> bit offset
  Layout dstBits;
  Layout refBits;
};

/// CuTe's UniversalCopy<bits>: one thread moves `bits` contiguous bits.
CopyTraits universalCopyTraits(Arith &ar, int64_t bits);

/// A copy instruction over elements of `valueBits` bits (CuTe's
/// Copy_Atom<Op, T>): the traits' layouts recast from bits to values.
struct CopyAtom {
  CopyTraits traits;
  int64_t valueBits = 0;
  Layout valSrc; // (thr, val) -> element offset
  Layout valDst;
  Layout valRef;

  /// Threads and values per thread of one call (size<0>, size<1> of ref).
  Int numThreads() const { return numThreadsOf(valRef); }
  Int numValues() const { return numValuesOf(valRef); }
  Int numValSrc() const { return numValuesOf(valSrc); }
  Int numValDst() const { return numValuesOf(valDst); }

private:
  static Int numThreadsOf(const Layout &tv);
  static Int numValuesOf(const Layout &tv);
};

/// Checks the traits (static, rank-2 thread-value layouts over size(thrID)
/// threads) and that each bit layout recasts to whole values.
CopyAtom makeCopyAtom(Arith &ar, const CopyTraits &traits, int64_t valueBits);

//===----------------------------------------------------------------------===//
// MMA atoms
//===----------------------------------------------------------------------===//

/// One matrix instruction D = A * B + C on an M x N x K tile (CuTe's
/// MMA_Traits). The thread-value layouts map (thread id, value) to the
/// column-major index of the element in the atom's tile: m + M*k for A,
/// n + N*k for B, m + M*n for C and D. Layouts may repeat elements
/// (replicated operands, e.g. gfx11 WMMA's A and B across lane halves).
struct MmaAtom {
  IntTuple shapeMNK; // (M, N, K)
  Layout thrID;      // atom thread id -> thread index
  Layout layoutA;    // (thr, val) -> m + M*k
  Layout layoutB;    // (thr, val) -> n + N*k
  Layout layoutC;    // (thr, val) -> m + M*n
};

/// Checks an atom: a static rank-3 shape, static rank-2 thread-value
/// layouts over size(thrID) threads whose images lie inside their tiles.
MmaAtom makeMmaAtom(Arith &ar, IntTuple shapeMNK, Layout thrID, Layout layoutA,
                    Layout layoutB, Layout layoutC);

/// CuTe's UniversalFMA: one thread, one value each, a 1x1x1 tile.
MmaAtom universalFMA(Arith &ar);

/// The operands of an MMA and, for each, the tile modes (indices into MNK)
/// its tensors span.
enum class MmaOperand : uint8_t { A, B, C };
/// (M,K) for A, (N,K) for B, (M,N) for C.
std::array<int, 2> operandModes(MmaOperand op);
const Layout &atomLayoutTV(const MmaAtom &atom, MmaOperand op);

//===----------------------------------------------------------------------===//
// Helpers of partitioning
//===----------------------------------------------------------------------===//

/// A layout placed at an offset: the element at coordinate c is
/// offset + layout(c). The offset is an integer (or, for layouts with basis
/// strides, a coordinate) and may be dynamic.
struct OffsetLayout {
  Layout layout;
  IntTuple offset = 0;
};

/// `*` in every top-level mode of `shape` (a leaf: one `*`): the slice
/// coordinate that keeps all of them.
IntTuple starsLike(const IntTuple &shape);

/// CuTe's make_layout_tv(thr, val) (the CuTe DSL's name; C++ CuTe computes
/// it inside make_tiled_copy): the raked product of a thread and a value
/// layout as (thread, value) -> index in the tile, and that tile's shape.
struct LayoutTV {
  IntTuple tiler;  // product_each(shape(raked_product(thr, val)))
  Layout layoutTV; // (size(thr), size(val)) -> tile index
};
LayoutTV makeLayoutTV(Arith &ar, const Layout &thr, const Layout &val);

/// A layout the partitioning functions accept: congruent shape and stride,
/// no `*` leaves, positive integer sizes (where static), and, when asked,
/// static leaves only. Reports what is wrong, naming `what`.
bool verifyLayout(Arith &ar, const Layout &l, const std::string &what,
                  bool mustBeStatic = false);
/// A thread, value or thread-value layout (an index map): verifyLayout's
/// conditions, static, with non-negative integer strides.
bool verifyIndexLayout(Arith &ar, const Layout &l, const std::string &what);
/// Every layout of a tiler (permutations, copy tiles) is an index map.
bool verifyTileModes(Arith &ar, const std::vector<Tile::Mode> &modes,
                     const std::string &what);

/// The tiler of a shape: one `N:1` mode per top-level mode (nested tuples
/// give nested tilers), as CuTe uses a Shape as a Tile.
Tile tileOfShape(const IntTuple &shape);
/// The shape a tiler covers: one mode per tiler mode, each the shape of the
/// mode's layout. Fails on a `*` mode.
IntTuple shapeOfTile(Arith &ar, const Tile &tile);

/// CuTe's make_fragment_like(layout): a compact register layout of the same
/// shape, mode 0 column-major innermost and the other modes ordered like the
/// strides of `l` (plain column-major when the shape is dynamic or rank 1).
Layout makeFragmentLike(Arith &ar, const Layout &l);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_ATOM_H
