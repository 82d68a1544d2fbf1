//===- FlyAtomTypes.td - Atoms and tiled atoms of fly ------*- tablegen -*-===//
//
// SPEC §2.2 and §4: the target-neutral copy and MMA operations, the atoms
// over them and their tiled forms. All are static values (materialised with
// `fly.static` or the make_* ops); their algebra records are built from the
// types by FlyAtomTypes.cpp with the functions of fly/Algebra/Atom.h,
// TiledCopy.h and TiledMma.h.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYATOMTYPES_TD
#define FLY_DIALECT_FLY_IR_FLYATOMTYPES_TD

include "fly/Dialect/Fly/IR/FlyAtomInterfaces.td"
include "fly/Dialect/Fly/IR/FlyDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Fly_AtomTypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Fly_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Target-neutral operations
//===----------------------------------------------------------------------===//

def Fly_UniversalCopyType : Fly_AtomTypeDef<"UniversalCopy", "universal_copy",
    [DeclareTypeInterfaceMethods<Fly_CopyOpTypeInterface>]> {
  let summary = "CuTe's UniversalCopy: one thread moves BITS contiguous bits";
  let description = [{ `!fly.universal_copy<128>`; BITS is 8, 16, 32, 64 or
    128. }];
  let parameters = (ins "int64_t":$bits);
}

def Fly_UniversalFmaType : Fly_AtomTypeDef<"UniversalFma", "universal_fma",
    [DeclareTypeInterfaceMethods<Fly_MmaOpTypeInterface, ["getFields"]>]> {
  let summary = "CuTe's UniversalFMA: d = a * b + c by one thread";
  let description = [{
    `!fly.universal_fma<f32>` (all four operands of one type) or
    `!fly.universal_fma<D, A, B, C>` (the element types of d, a, b and c, in
    that order). Element types are integer or float types. The short form
    is printed whenever the four types agree.
  }];
  let parameters = (ins "::mlir::Type":$d, "::mlir::Type":$a,
                        "::mlir::Type":$b, "::mlir::Type":$c);
}

def Fly_UniversalAtomicType
    : Fly_AtomTypeDef<"UniversalAtomic", "universal_atomic",
        [DeclareTypeInterfaceMethods<Fly_CopyOpTypeInterface,
                                     ["isAtomic", "checkSource", "checkDestination"]>]> {
  let summary = "an atomic read-modify-write of one element by one thread";
  let description = [{
    `!fly.universal_atomic<add, f32>`: OP is `add`, `max` or `min`, T an
    integer or float type of 8 to 128 bits. As a copy operation it moves
    one element of T (the source is read, the destination updated).
    `!fly.universal_atomic<add, f32, "agent">` names the LLVM sync scope
    of the atomic (for AMDGPU "agent", "workgroup", "wavefront",
    "singlethread" and their "-one-as" forms); without one it is the
    system scope (LLVM's default, the empty string).
  }];
  let parameters = (ins StringRefParameter<"the operation">:$op,
                        "::mlir::Type":$valueType,
                        StringRefParameter<"the LLVM sync scope", [{""}]>:$syncscope);
}

//===----------------------------------------------------------------------===//
// Atoms
//===----------------------------------------------------------------------===//

def Fly_CopyAtomType : Fly_AtomTypeDef<"CopyAtom", "copy_atom"> {
  let summary = "a copy operation over values of BITS bits (Copy_Atom)";
  let description = [{
    `!fly.copy_atom<!fly.universal_copy<128>, 32>`: OP is a copy operation
    type; its bit layouts must recast to whole BITS-bit values.
  }];
  let parameters = (ins "::mlir::Type":$op, "int64_t":$valueBits);
}

def Fly_MmaAtomType : Fly_AtomTypeDef<"MmaAtom", "mma_atom"> {
  let summary = "an MMA operation as an atom (MMA_Atom)";
  let description = [{ `!fly.mma_atom<!fly.universal_fma<f32>>`. }];
  let parameters = (ins "::mlir::Type":$op);
}

//===----------------------------------------------------------------------===//
// Tiled atoms
//===----------------------------------------------------------------------===//

def Fly_TiledCopyType : Fly_AtomTypeDef<"TiledCopy", "tiled_copy"> {
  let summary = "a copy atom tiled over a thread-value layout (TiledCopy)";
  let description = [{
    `!fly.tiled_copy<ATOM, LAYOUT_TV, TILE>`, e.g.
    `!fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>,
    ((16,16),4):((64,1),16), [16|64]>`: LAYOUT_TV maps (thread, value) to the
    column-major index of an element of the tile TILE (a tiler whose modes
    are all layouts); its image must lie inside the tile, and its thread and
    value counts must be multiples of the atom's.
  }];
  let parameters = (ins "::mlir::Type":$atom, "LayoutType":$layoutTV,
                        "TileType":$tile);
}

def Fly_TiledMmaType : Fly_AtomTypeDef<"TiledMma", "tiled_mma"> {
  let summary = "an MMA atom tiled over a layout of atoms (TiledMMA)";
  let description = [{
    `!fly.tiled_mma<ATOM, ATOM_LAYOUT_MNK[, PERM]>`, e.g.
    `!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,0)>`:
    the layout maps the (M,N,K) position of an atom to its index (rank at
    most 3, padded with 1:0); PERM is an optional tiler of at most 3 modes
    (`*` keeps a mode). Both are kept as written.
  }];
  let parameters = (ins "::mlir::Type":$atom, "LayoutType":$atomLayout,
                        "TileType":$permutation);
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Fly_CopyOpType
    : Type<CPred<"::llvm::isa<::mlir::fly::CopyOpTypeInterface>($_self)">,
           "fly copy operation">;
def Fly_MmaOpType
    : Type<CPred<"::llvm::isa<::mlir::fly::MmaOpTypeInterface>($_self)">,
           "fly mma operation">;
def Fly_CopyAtom
    : Type<CPred<"::llvm::isa<::mlir::fly::CopyAtomType>($_self)">,
           "fly copy_atom", "::mlir::fly::CopyAtomType">;
def Fly_MmaAtom
    : Type<CPred<"::llvm::isa<::mlir::fly::MmaAtomType>($_self)">,
           "fly mma_atom", "::mlir::fly::MmaAtomType">;
def Fly_TiledCopy
    : Type<CPred<"::llvm::isa<::mlir::fly::TiledCopyType>($_self)">,
           "fly tiled_copy", "::mlir::fly::TiledCopyType">;
def Fly_TiledMma
    : Type<CPred<"::llvm::isa<::mlir::fly::TiledMmaType>($_self)">,
           "fly tiled_mma", "::mlir::fly::TiledMmaType">;
def Fly_AnyAtom : AnyTypeOf<[Fly_CopyOpType, Fly_MmaOpType, Fly_CopyAtom,
                             Fly_MmaAtom, Fly_TiledCopy, Fly_TiledMma],
                            "fly atom type">;

#endif // FLY_DIALECT_FLY_IR_FLYATOMTYPES_TD
