//===- TiledMma.h - CuTe's TiledMMA as layout algebra -----------*- C++ -*-===//
//
// An MMA atom repeated over a layout of atoms (CuTe's TiledMMA): which
// elements of an A, B or C tensor each thread of the tiled MMA owns, and the
// register fragments that hold them. Thread indices may be dynamic; all
// arithmetic goes through the Arith.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_ALGEBRA_TILEDMMA_H
#define FLY_ALGEBRA_TILEDMMA_H

#include "fly/Algebra/Atom.h"

#include <optional>

namespace fly::algebra {

struct TiledMma {
  MmaAtom atom;
  Layout atomLayoutMNK;  // (M,N,K) -> atom index, padded to rank 3
  Tile permutationMNK;   // 3 modes; `*` keeps a mode in order
  Layout thrLayoutVMNK;  // tiled_product(thrID, atomLayoutMNK):
                         // (atom thread, M, N, K) -> thread index
};

/// CuTe's make_tiled_mma(atom, atom_layout_mnk, permutation_mnk): the
/// layout and the permutation are padded to rank 3 (with 1:0 and `*`).
/// `permutation` may be null (no permutation).
TiledMma makeTiledMma(Arith &ar, const MmaAtom &atom,
                      const Layout &atomLayoutMNK,
                      const Tile *permutation = nullptr);

/// Number of threads: size(thr_layout_vmnk).
Int tiledMmaSize(Arith &ar, const TiledMma &mma);
/// CuTe's tile_size_mnk<i>: atom size times atoms along mode i, or the
/// permutation's size along i when that is larger.
Int tileSizeMNK(Arith &ar, const TiledMma &mma, int i);

/// CuTe's thrfrg_A/B/C: a tensor (layout) of shape (M,K) / (N,K) / (M,N)
/// (extra modes are carried along) as
///   ((ThrV,(ThrX,ThrY)), (FrgV,(RestX,RestY,...)))
/// permuted by logical_divide, split into atom tiles, each tile seen
/// through the atom's thread-value layout, the tile grid split over the
/// threads of the atom layout.
Layout thrfrg(Arith &ar, const TiledMma &mma, MmaOperand op,
              const Layout &tensor);

/// The coordinate of a thread in thr_layout_vmnk, one integer per mode
/// (CuTe's get_flat_coord): a 4-tuple (v, m, n, k).
IntTuple threadCoordVMNK(Arith &ar, const TiledMma &mma, const Int &thrIdx);

/// CuTe's ThrMMA::partition_A/B/C: the part of `tensor` thread `thrIdx`
/// owns, (FrgV, RestX, RestY, ...), placed at the thread's offset.
OffsetLayout partition(Arith &ar, const TiledMma &mma, MmaOperand op,
                       const Layout &tensor, const Int &thrIdx);

/// The register fragment of an MMA operand (FlyDSL's mma_make_fragment):
/// `tile` is the whole, unpartitioned (M,K) / (N,K) / (M,N) tile (extra
/// modes are carried along); the result is make_fragment_like of thread 0's
/// partition of it, (FrgV, RestX, RestY, ...), for every operand. With
/// `stages`, the tile's first two modes and a trailing stage mode are
/// partitioned instead, so the stages come last and outermost.
Layout makeFragment(Arith &ar, const TiledMma &mma, MmaOperand op,
                    const Layout &tile,
                    std::optional<int64_t> stages = std::nullopt);

/// CuTe's get_layoutA/B/C_TV: (thread index, value) -> index in the
/// tile_size_mnk tile of the operand (column-major).
Layout tiledLayoutTV(Arith &ar, const TiledMma &mma, MmaOperand op);

} // namespace fly::algebra

#endif // FLY_ALGEBRA_TILEDMMA_H
