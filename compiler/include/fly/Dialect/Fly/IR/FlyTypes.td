//===- FlyTypes.td - Types of the fly dialect --------------*- tablegen -*-===//
//
// The types of SPEC §2.2 whose parameters are algebra objects. Parsing and
// printing are hand-written (FlyTypes.cpp) on top of MLIR's AsmParser; the
// printed form is the algebra's canonical `toString`.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYTYPES_TD
#define FLY_DIALECT_FLY_IR_FLYTYPES_TD

include "fly/Dialect/Fly/IR/FlyDialect.td"
include "mlir/IR/AttrTypeBase.td"

// An algebra object as a type parameter. The only builder strips the
// emitter handles of dynamic leaves, so a type built from an algebra result
// is always the canonical one.
class Fly_AlgebraType<string name, string typeMnemonic, string cppParam>
    : TypeDef<Fly_Dialect, name> {
  let mnemonic = typeMnemonic;
  let parameters = (ins
    TypeParameter<cppParam, "algebra value", "const " # cppParam # " &">:$value
  );
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins "const " # cppParam # " &":$value), [{
      return $_get($_ctxt, ::mlir::fly::withoutHandles(value));
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  // Well-formedness (congruence, valid swizzle, ...); the parser and type
  // inference build types through getChecked.
  let genVerifyDecl = 1;
}

def Fly_IntTupleType
    : Fly_AlgebraType<"IntTuple", "int_tuple", "::fly::algebra::IntTuple"> {
  let summary = "an integer tuple: shape, stride or coordinate";
  let description = [{
    `!fly.int_tuple<(4,(8,?{div=8}))>`. Leaves are static integers, dynamic
    integers (`?`, `?{i64}`, `?{div=16}`, `?{i64 div=16}`), the none leaf `*`
    and scaled basis elements (`1E0`, `?E1`, `2E1E0`).
  }];
}

def Fly_LayoutType
    : Fly_AlgebraType<"Layout", "layout", "::fly::algebra::Layout"> {
  let summary = "a CuTe layout `shape:stride`";
  let description = [{ `!fly.layout<(4,8):(1,4)>`; shape and stride are
    congruent. }];
}

def Fly_SwizzleType
    : Fly_AlgebraType<"Swizzle", "swizzle", "::fly::algebra::Swizzle"> {
  let summary = "a CuTe bit swizzle `S<B,M,S>`";
  let description = [{ `!fly.swizzle<S<3,4,3>>`. }];
}

def Fly_CoordSwizzleType
    : Fly_AlgebraType<"CoordSwizzle", "coord_swizzle",
                      "::fly::algebra::CoordSwizzle"> {
  let summary = "a swizzle of coordinates `CS<B,R,[row],C,[col]>`";
  let description = [{
    `!fly.coord_swizzle<CS<3,0,[1],0,[2]>>` (FlyDSL's): the coordinate leaf
    at mode path `col` XORed with bits R..R+B-1 of the leaf at path `row`,
    moved to bit C. The inner function of a composed layout whose outer
    layout yields coordinates (basis strides); `fly.crd2idx` applies it.
  }];
}

def Fly_ComposedLayoutType
    : Fly_AlgebraType<"ComposedLayout", "composed_layout",
                      "::fly::algebra::ComposedLayout"> {
  let summary = "inner(offset + outer(c))";
  let description = [{
    `!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>`: the inner function
    is a swizzle, a layout or a coordinate swizzle, the offset an integer
    tuple, the outer function a layout.
  }];
}

def Fly_TileType : Fly_AlgebraType<"Tile", "tile", "::fly::algebra::Tile"> {
  let summary = "a by-mode tiler";
  let description = [{
    `!fly.tile<[4|*|(2,2):(1,8)|[2|2]]>`: each mode is `N` (the layout
    `N:1`), `*` (keep the mode), a layout, or a nested tiler.
  }];
}

// Pointers, memrefs and coordinate tensors.
include "fly/Dialect/Fly/IR/FlyMemoryTypes.td"
// Copy and MMA operations, atoms and tiled atoms.
include "fly/Dialect/Fly/IR/FlyAtomTypes.td"

//===----------------------------------------------------------------------===//
// Type constraints used by the ops
//===----------------------------------------------------------------------===//

def Fly_IntTuple : Type<CPred<"::llvm::isa<::mlir::fly::IntTupleType>($_self)">,
                        "fly int_tuple", "::mlir::fly::IntTupleType">;
def Fly_Layout : Type<CPred<"::llvm::isa<::mlir::fly::LayoutType>($_self)">,
                      "fly layout", "::mlir::fly::LayoutType">;
def Fly_Swizzle : Type<CPred<"::llvm::isa<::mlir::fly::SwizzleType>($_self)">,
                       "fly swizzle", "::mlir::fly::SwizzleType">;
def Fly_CoordSwizzle
    : Type<CPred<"::llvm::isa<::mlir::fly::CoordSwizzleType>($_self)">,
           "fly coord_swizzle", "::mlir::fly::CoordSwizzleType">;
def Fly_ComposedLayout
    : Type<CPred<"::llvm::isa<::mlir::fly::ComposedLayoutType>($_self)">,
           "fly composed_layout", "::mlir::fly::ComposedLayoutType">;
def Fly_Tile : Type<CPred<"::llvm::isa<::mlir::fly::TileType>($_self)">,
                    "fly tile", "::mlir::fly::TileType">;

def Fly_Scalar : AnyTypeOf<[I32, I64], "i32 or i64 scalar">;
def Fly_IntTupleOrScalar : AnyTypeOf<[Fly_IntTuple, I32, I64],
                                     "fly int_tuple or i32/i64 scalar">;
def Fly_IntTupleOrLayout : AnyTypeOf<[Fly_IntTuple, Fly_Layout],
                                     "fly int_tuple or layout">;
def Fly_AnyLayout : AnyTypeOf<[Fly_Layout, Fly_ComposedLayout],
                              "fly layout or composed_layout">;
def Fly_Sizeable
    : AnyTypeOf<[Fly_IntTuple, Fly_Layout, Fly_ComposedLayout, Fly_Tensor],
                "fly int_tuple, layout, composed_layout or tensor">;
// The ops CuTe also defines on tensors (through their layouts).
def Fly_LayoutOrTensor : AnyTypeOf<[Fly_Layout, Fly_Tensor],
                                   "fly layout or tensor">;
def Fly_AnyLayoutOrTensor
    : AnyTypeOf<[Fly_Layout, Fly_ComposedLayout, Fly_Tensor],
                "fly layout, composed_layout or tensor">;
def Fly_IntTupleLayoutOrTensor
    : AnyTypeOf<[Fly_IntTuple, Fly_Layout, Fly_Tensor],
                "fly int_tuple, layout or tensor">;
// Everything that has leaves (fly.get_leaves).
def Fly_HasLeaves
    : AnyTypeOf<[Fly_IntTuple, Fly_Layout, Fly_ComposedLayout, Fly_Tile,
                 Fly_Tensor], "fly type with int_tuple leaves">;
def Fly_LayoutOrTile : AnyTypeOf<[Fly_Layout, Fly_Tile],
                                 "fly layout or tile">;
def Fly_TileMode : AnyTypeOf<[Fly_IntTuple, Fly_Layout, Fly_Tile],
                             "fly int_tuple leaf, layout or tile">;
def Fly_AnyAlgebraType
    : AnyTypeOf<[Fly_IntTuple, Fly_Layout, Fly_Swizzle, Fly_CoordSwizzle,
                 Fly_ComposedLayout, Fly_Tile, Fly_CoordTensor, Fly_AnyAtom],
                "fly algebra type">;

#endif // FLY_DIALECT_FLY_IR_FLYTYPES_TD
