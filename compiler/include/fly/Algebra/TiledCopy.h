//===- TiledCopy.h - CuTe's TiledCopy as layout algebra ---------*- C++ -*-===//
//
// A copy atom repeated over a thread-value layout of a tile (CuTe's
// TiledCopy): which elements of a source or destination tensor each thread
// copies, and how a register fragment is seen in the copy's value order.
// Thread indices may be dynamic; all arithmetic goes through the Arith.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_TILEDCOPY_H
#define FLY_ALGEBRA_TILEDCOPY_H

#include "fly/Algebra/TiledMma.h"

namespace fly::algebra {

struct TiledCopy {
  CopyAtom atom;
  Layout layoutTV; // (thread index, value) -> index in the tile
  Tile tiler;      // the tile (M,N,...) that layoutTV indexes, by mode
};

/// CuTe's make_tiled_copy_impl (the CuTe DSL's make_tiled_copy): an atom
/// with a (thread, value) -> tile layout and the tile. The tiler's modes must
/// be layouts; the tiled thread and value counts must be multiples of the
/// atom's, and the layout's image (its cosize) must lie inside the tile.
TiledCopy makeTiledCopy(Arith &ar, const CopyAtom &atom,
                        const Layout &layoutTV, const Tile &tiler);
/// CuTe's make_tiled_copy(atom, thr, val) (the CuTe DSL's
/// make_tiled_copy_tv): the thread-value layout of makeLayoutTV.
TiledCopy makeTiledCopyTV(Arith &ar, const CopyAtom &atom, const Layout &thr,
                          const Layout &val);
/// CuTe's make_tiled_copy_A/B/C: the tiled MMA's thread-value layout of the
/// operand over its (tile_size_mnk) tile.
TiledCopy makeTiledCopyFor(Arith &ar, const CopyAtom &atom,
                           const TiledMma &mma, MmaOperand op);

/// Number of threads: size<0>(layoutTV).
Int tiledCopySize(Arith &ar, const TiledCopy &copy);

/// Which side of the copy a tensor is on.
enum class CopySide : uint8_t { Src, Dst };

/// CuTe's tidfrg_S / tidfrg_D: a tensor (layout) of shape (M,N,...) as
///   (Thr, (AtomVal,RestVal), (RestM,RestN,...))
/// (zipped_divide by the tiler, the tile seen through the thread-value
/// layout in the side's own (thread, value) order).
Layout tidfrg(Arith &ar, const TiledCopy &copy, CopySide side,
              const Layout &tensor);

/// CuTe's TiledCopy::get_layoutS_TV / get_layoutD_TV: (thread, (AtomVal,
/// RestVal)) -> index in the tile (compact, column-major), the thread and
/// value order of the side (the atom's source or destination layout).
Layout tiledLayoutTV(Arith &ar, const TiledCopy &copy, CopySide side);

/// CuTe's ThrCopy::partition_S / partition_D: the part of `tensor` thread
/// `thrIdx` copies, ((AtomVal,RestVal), RestM, RestN, ...), at the
/// thread's offset.
OffsetLayout partition(Arith &ar, const TiledCopy &copy, CopySide side,
                       const Layout &tensor, const Int &thrIdx);

/// CuTe's TiledCopy::retile (ThrCopy::retile_S/_D): a register fragment of
/// shape (V, X, Y, ...) whose first V values are the first values of a
/// thread in layoutTV, regrouped as ((AtomVal,RestVal), RestX, RestY, ...)
/// to match the partitions of this copy.
Layout retile(Arith &ar, const TiledCopy &copy, const Layout &fragment);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_TILEDCOPY_H
