//===- FlyAtoms.h - Algebra records of the atom types -----------*- C++ -*-===//
//
// The one mapping from the atom types of the fly dialect (FlyAtomTypes.td)
// to the algebra's records (fly/Algebra/Atom.h, TiledCopy.h, TiledMma.h).
// The type verifiers, the atom ops' evaluation (type inference and the
// lowering) all go through it. Each function reports through the `Arith`.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYATOMS_H
#define FLY_DIALECT_FLY_IR_FLYATOMS_H

#include "fly/Algebra/TiledCopy.h"
#include "fly/Dialect/Fly/IR/FlyTypes.h"

namespace mlir::fly {

/// The traits of a copy operation type (universal_copy, universal_atomic).
::fly::algebra::CopyTraits getCopyTraits(::fly::algebra::Arith &ar, Type op);
/// The atom of a copy_atom type.
::fly::algebra::CopyAtom getCopyAtom(::fly::algebra::Arith &ar, Type atom);
/// The atom of an mma_atom type.
::fly::algebra::MmaAtom getMmaAtom(::fly::algebra::Arith &ar, Type atom);

/// The tiled copy of a copy_atom type, a thread-value layout and a tile:
/// make_tiled_copy's checks, and LAYOUT_TV's image inside the tile.
::fly::algebra::TiledCopy getTiledCopy(::fly::algebra::Arith &ar, Type atom,
                                       const ::fly::algebra::Layout &layoutTV,
                                       const ::fly::algebra::Tile &tile);
/// The tiled MMA of an mma_atom type, an atom layout and an optional
/// permutation.
::fly::algebra::TiledMma
getTiledMma(::fly::algebra::Arith &ar, Type atom,
            const ::fly::algebra::Layout &atomLayout,
            const ::fly::algebra::Tile *permutation);

/// The records of tiled_copy and tiled_mma types (any other type fails).
::fly::algebra::TiledCopy getTiledCopy(::fly::algebra::Arith &ar, Type type);
::fly::algebra::TiledMma getTiledMma(::fly::algebra::Arith &ar, Type type);

/// The element types (d, a, b, c) of the MMA operation of an mma_atom or
/// tiled_mma type; nulls for other types.
std::array<Type, 4> getMmaElementTypes(Type type);

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_IR_FLYATOMS_H
