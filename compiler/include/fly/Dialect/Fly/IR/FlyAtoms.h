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
#include "fly/Algebra/TiledMma.h"
#include "fly/Dialect/Fly/IR/FlyDialect.h"
#include "fly/Dialect/Fly/IR/FlyTypes.h"

#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <mutex>

namespace mlir::fly {

/// The records built so far, by type (copy_atom, mma_atom, tiled_copy,
/// tiled_mma). Only records built without an error are kept, so a bad type
/// reports its error every time it is asked for. Passes over the nested
/// gpu.modules run on several threads: the maps are guarded.
struct FlyDialect::AtomRecords {
  std::mutex mutex;
  llvm::DenseMap<Type, ::fly::algebra::CopyAtom> copyAtoms;
  llvm::DenseMap<Type, ::fly::algebra::MmaAtom> mmaAtoms;
  llvm::DenseMap<Type, ::fly::algebra::TiledCopy> tiledCopies;
  llvm::DenseMap<Type, ::fly::algebra::TiledMma> tiledMmas;
};

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

/// The atom type of a copy_atom or tiled_copy type, of an mma_atom or
/// tiled_mma type (the type itself for an atom); null for other types.
Type getCopyAtomType(Type atomLike);
Type getMmaAtomType(Type atomLike);

/// The copy or MMA operation of an atom-like type (an operation, an atom,
/// or a tiled one); null for other types.
CopyOpTypeInterface getCopyOperation(Type atomLike);
MmaOpTypeInterface getMmaOperation(Type atomLike);

/// Whether `chip` has the operation of an atom-like type: empty, or the
/// error naming the operation, the chip and the chips that have it.
std::string checkAvailable(Type atomLike, const ::fly::arch::ChipInfo &chip);

/// Helpers of the atoms' lowerings (on LLVM-level values):
/// `count` values of `type`'s element type loaded from `ptr` as a vector,
/// with the alignment the memref type proves;
Value emitVectorLoad(OpBuilder &b, Location loc, Value ptr, MemTensorType type,
                     int64_t count);
/// a vector of values stored at `ptr` (bitcast to `type`'s element type of
/// the same width first when it differs);
void emitVectorStore(OpBuilder &b, Location loc, Value values, Value ptr,
                     MemTensorType type);
/// a scalar or vector with its elements converted to `to` (floats extend
/// or truncate, through f32 between two 16-bit types; integers sign-extend
/// or truncate; int <-> float as signed, rounding towards zero);
Value convertElements(OpBuilder &b, Location loc, Value value, Type to);
/// c, or zero when the atom's `accumulate` field is false at run time.
Value accumulatorOf(OpBuilder &b, Location loc, Value atom, Value c);

/// The run-time fields of an atom's operation (atom.set_value), with their
/// types; none for an operation without fields.
SmallVector<std::pair<StringRef, Type>> getAtomFields(Type atomLike);
/// The value `atom.set_value` gave field `field` on the way to `atom` (the
/// latest one), or null when none did (the field has its default).
Value getAtomFieldValue(Value atom, StringRef field);

/// Checks the operands of one copy atom call: the atom's source and
/// destination value counts, each side's values contiguous (coalescing to
/// N:1) and, behind a swizzle, a run the swizzle keeps together.
bool checkCopyCallOperands(::fly::algebra::Arith &ar,
                           const ::fly::algebra::CopyAtom &atom,
                           const TensorValue &src, const TensorValue &dst);

/// `fly.copy` on tensors: the atom calls of the algebra's copy plan, each
/// with its source and destination slices as tensors and its predicate
/// index (CopyCall::index), every call checked by checkCopyCallOperands.
/// `atom` is a copy_atom or tiled_copy type. Stops at the first failure.
struct TensorCopyCall {
  TensorValue src, dst;
  int64_t index = 0;
};
void forEachTensorCopyCall(
    ::fly::algebra::Arith &ar, Type atom, const TensorValue &src,
    const TensorValue &dst,
    const std::function<void(const TensorCopyCall &)> &onCall);

/// `fly.gemm` on tensors: the atom calls of the algebra's gemm plan, each
/// with the slices of D, A, B and C as tensors, and the slices of the
/// auxiliary operands of the A and B groups at the call's tile: an
/// auxiliary operand has its operand's rank, and is sliced at (*, m) or
/// (*, m, k) (B: n) as its operand is (whole for a rank-1 gemm). `atom` is
/// an mma_atom or tiled_mma type. `traversal` is fly.gemm's: (m, n, k)
/// triples, the tiles in call order (AtomPlan.h's forEachMmaCall order).
struct TensorMmaCall {
  TensorValue d, a, b, c;
  std::vector<TensorValue> aAuxiliary, bAuxiliary;
};
void forEachTensorMmaCall(
    ::fly::algebra::Arith &ar, Type atom, const TensorValue &d,
    const TensorValue &a, const TensorValue &b, const TensorValue &c,
    ArrayRef<TensorValue> aAuxiliary, ArrayRef<TensorValue> bAuxiliary,
    const std::function<void(const TensorMmaCall &)> &onCall,
    ArrayRef<int32_t> traversal = {});

/// The values an MMA call's operand of `element` holds for the atom's
/// `atomCount` values of `atomElement`: atomCount for the atom's own type;
/// for integers holding an 8-, 6- or 4-bit float format packed (FlyDSL's
/// Int32 fragments of fp8 / fp6 / fp4 values, A and B only), as many as
/// hold their bits; 0 when the operand cannot hold them.
int64_t mmaOperandCount(Type element, Type atomElement, int64_t atomCount);

/// The atom of one MMA call with auxiliary values: `atom` with each of
/// `aValues` (`bValues`), the scalar of the call's auxiliary operand i of
/// A (B), set as the field the operation names for it
/// (MmaOpTypeInterface::getAuxiliaryField) by `fly.atom.set_value`; an
/// integer narrower than the field is zero-extended. The operands must
/// have been verified (an atom call's verifier does).
Value withAuxiliaryValues(OpBuilder &b, Location loc, Value atom,
                          ValueRange aValues, ValueRange bValues);

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_IR_FLYATOMS_H
