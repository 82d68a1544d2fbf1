//===- FlyOps.td - Ops of the fly dialect ------------------*- tablegen -*-===//
//
// SPEC §2.3: construction, extraction, tuple arithmetic, queries and the
// layout algebra. Every op prints in the default assembly
//   %r = fly.NAME(%a, %b) {attrs} : (TA, TB) -> TR
// (FlyOps.cpp); ops determined by the algebra infer their result types, so
// `-> TR` may be left out when parsing, and a written type that differs from
// the inferred one is rejected by the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYOPS_TD
#define FLY_DIALECT_FLY_IR_FLYOPS_TD

include "fly/Dialect/Fly/IR/FlyTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The call-like assembly shared by the ops of this file (FlyOps.cpp).
defvar Fly_CallLikeAsm = [{
  ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                       ::mlir::OperationState &result) {
    return ::mlir::fly::detail::parseCallLikeOp<$cppClass>(parser, result);
  }
  void $cppClass::print(::mlir::OpAsmPrinter &printer) {
    ::mlir::fly::detail::printCallLikeOp(printer, getOperation());
  }
}];

// The ops of this file are pure functions of their operands (unless `pure`
// is 0), evaluated by the layout algebra: `evaluate` maps the algebra objects
// of the operands to those of the results (FlyAlgebraEval.h). Type inference
// runs it on the operand types, the layout lowering on values with dynamic
// leaves bound to SSA values.
class Fly_Op<string mnemonic, list<Trait> traits = [], bit pure = 1>
    : Op<Fly_Dialect, mnemonic, !listconcat(!if(pure, [Pure], []), traits)> {
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    static ::llvm::LogicalResult
    evaluate(::mlir::fly::detail::Evaluation &evaluation);
  }];
  let extraClassDefinition = Fly_CallLikeAsm;
}

// An op whose result types the algebra infers from the operand types.
// `scalarResults`: the results are i32/i64 scalars (the width of each leaf)
// rather than fly types.
class Fly_InferOp<string mnemonic, list<Trait> traits = [],
                  bit scalarResults = 0, bit pure = 1>
    : Fly_Op<mnemonic,
             !listconcat([DeclareOpInterfaceMethods<InferTypeOpInterface>],
                         traits), pure> {
  let extraClassDefinition = Fly_CallLikeAsm # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::mlir::fly::detail::inferResultTypes(
          getOperationName(), context, location, operands.getTypes(),
          attributes, }] # !if(scalarResults, "true", "false") # [{,
          inferredReturnTypes);
    }
  }];
}

// An op CuTe also defines on tensors: given a memref or coord_tensor as its
// first operand, it applies to the tensor's layout, and a layout result
// becomes a tensor with the same iterator (FlyAlgebraEval.cpp).
def Fly_OnTensorLayout : NativeOpTrait<"OnTensorLayout"> {
  let cppNamespace = "::mlir::OpTrait::fly";
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

def Fly_StaticOp : Fly_Op<"static"> {
  let summary = "materialise a fully static value";
  let description = [{
    `%r = fly.static : !fly.layout<(4,8):(1,4)>`. Every leaf of the type is
    static or `*`; the value carries no runtime data.
  }];
  let results = (outs Fly_AnyAlgebraType:$result);
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return ::mlir::fly::detail::parseStaticOp(parser, result);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &printer) {
      ::mlir::fly::detail::printStaticOp(printer, getOperation());
    }
  }];
}

def Fly_MakeIntTupleOp : Fly_Op<"make_int_tuple"> {
  let summary = "build an int_tuple from its dynamic leaves";
  let description = [{
    The operands are the dynamic leaves of the result type in depth-first
    order: i32 for `?`, i64 for `?{i64}`. The result type must be written.
  }];
  let arguments = (ins Variadic<Fly_Scalar>:$leaves);
  let results = (outs Fly_IntTuple:$result);
  let hasVerifier = 1;
}

class Fly_MakeTupleOp<string mnemonic, string what> : Fly_InferOp<mnemonic> {
  let summary = "build a " # what # " from int_tuples and scalars";
  let description = [{
    The result is the tuple of the operands; an i32/i64 operand becomes a
    dynamic leaf. A single operand gives that operand itself.
  }];
  let arguments = (ins Variadic<Fly_IntTupleOrScalar>:$elems);
  let results = (outs Fly_IntTuple:$result);
}
def Fly_MakeShapeOp : Fly_MakeTupleOp<"make_shape", "shape">;
def Fly_MakeStrideOp : Fly_MakeTupleOp<"make_stride", "stride">;
def Fly_MakeCoordOp : Fly_MakeTupleOp<"make_coord", "coordinate">;

def Fly_MakeLayoutOp : Fly_InferOp<"make_layout"> {
  let summary = "a layout from a shape and a stride";
  let description = [{
    Without a stride the layout is compact column-major. Shape and stride
    must be congruent.
  }];
  let arguments = (ins Fly_IntTuple:$shape, Optional<Fly_IntTuple>:$stride);
  let results = (outs Fly_Layout:$result);
}

def Fly_MakeOrderedLayoutOp : Fly_InferOp<"make_ordered_layout"> {
  let summary = "a compact layout with strides increasing in `order`";
  let arguments = (ins Fly_IntTuple:$shape, Fly_IntTuple:$order);
  let results = (outs Fly_Layout:$result);
}

def Fly_MakeIdentityLayoutOp : Fly_InferOp<"make_identity_layout"> {
  let summary = "shape:(E0,E1,...), mapping a coordinate to itself";
  let arguments = (ins Fly_IntTuple:$shape);
  let results = (outs Fly_Layout:$result);
}

def Fly_MakeLayoutLikeOp : Fly_InferOp<"make_layout_like"> {
  let summary = "a compact layout with the shape and stride order of another";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_Layout:$result);
}

def Fly_MakeFragmentLayoutLikeOp : Fly_InferOp<"make_fragment_layout_like"> {
  let summary = "the layout of a register fragment like a layout";
  let description = [{
    The layout `fly.make_fragment_like` gives a fragment of a memref with
    this layout (CuTe's `make_fragment_like`): same shape, compact, mode 0
    innermost and the other modes in the source's stride order. The layout
    must be static.
  }];
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_Layout:$result);
}

def Fly_MakeComposedLayoutOp : Fly_InferOp<"make_composed_layout"> {
  let summary = "inner(offset + outer(c))";
  let arguments = (ins AnyTypeOf<[Fly_Swizzle, Fly_Layout, Fly_CoordSwizzle,
                                  Fly_ComposedLayout]>:$inner,
                       Fly_IntTuple:$offset, Fly_AnyLayout:$outer);
  let results = (outs Fly_ComposedLayout:$result);
}

def Fly_MakeTileOp : Fly_InferOp<"make_tile"> {
  let summary = "a by-mode tiler";
  let description = [{
    One operand per mode: a layout; an int_tuple leaf (static `N` is `N:1`,
    dynamic `?` is `?:1`, `*` keeps the mode); or a tile, nested.
  }];
  let arguments = (ins Variadic<Fly_TileMode>:$modes);
  let results = (outs Fly_Tile:$result);
}

//===----------------------------------------------------------------------===//
// Extraction
//===----------------------------------------------------------------------===//

def Fly_GetScalarOp : Fly_InferOp<"get_scalar", [], /*scalarResults=*/1> {
  let summary = "the integer value of a single-leaf int_tuple";
  let description = [{
    The inferred result is i64 for a wide (`?{i64}`) leaf or a static value
    beyond i32, i32 otherwise; an i32 value may also be read as i64.
  }];
  let arguments = (ins Fly_IntTuple:$tuple);
  let results = (outs Fly_Scalar:$result);
  let extraClassDeclaration = [{
    static ::llvm::LogicalResult
    evaluate(::mlir::fly::detail::Evaluation &evaluation);
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual);
  }];
}

def Fly_GetLeavesOp : Fly_InferOp<"get_leaves", [], /*scalarResults=*/1> {
  let summary = "the dynamic leaves as scalars";
  let description = [{
    One i32/i64 result per dynamic leaf, in the order of
    `getDynamicLeafTypes` (FlyTypes.h): depth-first; a layout's shape leaves
    before its stride leaves; a memref's layout leaves (its pointer is not a
    leaf); a coord_tensor's base leaves, then its layout's.
  }];
  let arguments = (ins Fly_HasLeaves:$value);
  let results = (outs Variadic<Fly_Scalar>:$leaves);
}

def Fly_GetShapeOp : Fly_InferOp<"get_shape"> {
  let summary = "the shape of a layout";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_GetStrideOp : Fly_InferOp<"get_stride"> {
  let summary = "the stride of a layout";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_GetOp : Fly_InferOp<"get", [Fly_OnTensorLayout]> {
  let summary = "the mode at a path";
  let arguments = (ins Fly_IntTupleLayoutOrTensor:$value,
                       DenseI64ArrayAttr:$mode);
  let results = (outs Fly_IntTupleLayoutOrTensor:$result);
}

def Fly_TakeOp : Fly_InferOp<"take", [Fly_OnTensorLayout]> {
  let summary = "modes [begin, end)";
  let arguments = (ins Fly_IntTupleLayoutOrTensor:$value, I64Attr:$begin,
                       I64Attr:$end);
  let results = (outs Fly_IntTupleLayoutOrTensor:$result);
}

def Fly_SelectOp : Fly_InferOp<"select", [Fly_OnTensorLayout]> {
  let summary = "the given modes, in the given order";
  let arguments = (ins Fly_IntTupleLayoutOrTensor:$value,
                       DenseI64ArrayAttr:$modes);
  let results = (outs Fly_IntTupleLayoutOrTensor:$result);
}

def Fly_GroupOp : Fly_InferOp<"group", [Fly_OnTensorLayout]> {
  let summary = "modes [begin, end) grouped into one mode";
  let arguments = (ins Fly_IntTupleLayoutOrTensor:$value, I64Attr:$begin,
                       I64Attr:$end);
  let results = (outs Fly_IntTupleLayoutOrTensor:$result);
}

def Fly_AppendOp : Fly_InferOp<"append"> {
  let summary = "append a mode";
  let arguments = (ins Fly_IntTupleOrLayout:$value,
                       Fly_IntTupleOrLayout:$elem);
  let results = (outs Fly_IntTupleOrLayout:$result);
}

def Fly_PrependOp : Fly_InferOp<"prepend"> {
  let summary = "prepend a mode";
  let arguments = (ins Fly_IntTupleOrLayout:$value,
                       Fly_IntTupleOrLayout:$elem);
  let results = (outs Fly_IntTupleOrLayout:$result);
}

def Fly_SliceOp : Fly_InferOp<"slice"> {
  let summary = "keep the modes where the coordinate is `*`";
  let description = [{
    The kept modes are flattened into one tuple, which is then unwrapped
    while it has a single mode (as FlyDSL's op does): `(*,1)` on
    `((16,8),4)` gives `(16,8)`, `(*,1)` on `(4,8)` the leaf `4`.

    On a tensor, the iterator moves to the element of the fixed part of the
    coordinate: a memref's pointer advances by its index (and its alignment
    drops to what that offset keeps), a coord_tensor's base by its
    coordinate. A memref with a composed layout keeps its pointer and
    advances the composed layout's offset instead.
  }];
  let arguments = (ins Fly_IntTupleLayoutOrTensor:$value, Fly_IntTuple:$coord);
  let results = (outs Fly_IntTupleLayoutOrTensor:$result);
}

def Fly_DiceOp : Fly_InferOp<"dice"> {
  let summary = "keep the modes where the coordinate is not `*`";
  let description = [{
    The kept modes, flattened and unwrapped as by `fly.slice`.
  }];
  let arguments = (ins Fly_IntTupleOrLayout:$value, Fly_IntTuple:$coord);
  let results = (outs Fly_IntTupleOrLayout:$result);
}

//===----------------------------------------------------------------------===//
// Tuple arithmetic
//===----------------------------------------------------------------------===//

class Fly_TupleBinaryOp<string mnemonic, string what>
    : Fly_InferOp<mnemonic> {
  let summary = what;
  let arguments = (ins Fly_IntTuple:$lhs, Fly_IntTuple:$rhs);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_IntTupleAddOp
    : Fly_TupleBinaryOp<"int_tuple_add", "elementwise sum (a leaf broadcasts)">;
def Fly_IntTupleSubOp
    : Fly_TupleBinaryOp<"int_tuple_sub", "elementwise difference">;
def Fly_IntTupleMulOp
    : Fly_TupleBinaryOp<"int_tuple_mul", "elementwise product">;
def Fly_IntTupleDivOp
    : Fly_TupleBinaryOp<"int_tuple_div", "elementwise floor division">;
def Fly_IntTupleModOp
    : Fly_TupleBinaryOp<"int_tuple_mod", "elementwise remainder">;
def Fly_ShapeDivOp
    : Fly_TupleBinaryOp<"shape_div", "CuTe shape_div (congruent to lhs)">;
def Fly_CeilDivOp : Fly_TupleBinaryOp<"ceil_div", "CuTe ceil_div">;
def Fly_ElemLessOp
    : Fly_TupleBinaryOp<"elem_less", "1 if lhs < rhs in every mode, else 0">;
def Fly_EqualOp
    : Fly_TupleBinaryOp<"equal", "1 if the tuples are equal, else 0">;

def Fly_IntTupleProductOp : Fly_InferOp<"int_tuple_product"> {
  let summary = "the product of all leaves";
  let arguments = (ins Fly_IntTuple:$value);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_IntTupleProductEachOp : Fly_InferOp<"int_tuple_product_each"> {
  let summary = "the product of each top-level mode";
  let arguments = (ins Fly_IntTuple:$value);
  let results = (outs Fly_IntTuple:$result);
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

def Fly_SizeOp : Fly_InferOp<"size", [Fly_OnTensorLayout]> {
  let summary = "the number of coordinates";
  let arguments = (ins Fly_Sizeable:$value);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_CosizeOp : Fly_InferOp<"cosize"> {
  let summary = "one past the largest index of a layout";
  let description = [{
    For a layout, CuTe's `L(size(L) - 1) + 1`. For a static composed layout
    (a swizzled shared tile, say), one past the largest index the whole
    function `inner(offset + outer(c))` reaches over its domain -- a swizzle
    can send the last coordinate below others, so every element is visited
    (up to 2^24 of them; a larger one, or one with dynamic leaves, is an
    error).
  }];
  let arguments = (ins Fly_AnyLayout:$layout);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_CoshapeOp : Fly_InferOp<"coshape"> {
  let summary = "the shape of the codomain of a layout";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_RankOp : Fly_InferOp<"rank", [Fly_OnTensorLayout]> {
  let summary = "the number of top-level modes";
  let arguments = (ins Fly_Sizeable:$value);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_DepthOp : Fly_InferOp<"depth", [Fly_OnTensorLayout]> {
  let summary = "the nesting depth";
  let arguments = (ins Fly_Sizeable:$value);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_Crd2IdxOp : Fly_InferOp<"crd2idx"> {
  let summary = "the index of a coordinate";
  let arguments = (ins Fly_IntTuple:$coord,
                       AnyTypeOf<[Fly_Layout, Fly_ComposedLayout,
                                  Fly_CoordSwizzle]>:$layout);
  let results = (outs Fly_IntTuple:$result);
}

def Fly_Idx2CrdOp : Fly_InferOp<"idx2crd"> {
  let summary = "the coordinate of an index, through a layout or a shape";
  let description = [{
    The natural (colexicographic) coordinate of the `index`-th element of
    the domain: `idx2crd(%i, %shape)`, and for a layout the same over its
    shape — the inverse of walking the layout's domain in order, which
    ignores the strides (CuTe's `idx2crd(i, shape(layout))`).
  }];
  let arguments = (ins Fly_IntTuple:$index, Fly_IntTupleOrLayout:$layout);
  let results = (outs Fly_IntTuple:$result);
}

//===----------------------------------------------------------------------===//
// Layout algebra
//===----------------------------------------------------------------------===//

def Fly_CoalesceOp : Fly_InferOp<"coalesce", [Fly_OnTensorLayout]> {
  let summary = "merge modes that are contiguous";
  let description = [{ With a profile, each mode of the profile coalesces
    separately. }];
  let arguments = (ins Fly_LayoutOrTensor:$layout,
                       Optional<Fly_IntTuple>:$profile);
  let results = (outs Fly_LayoutOrTensor:$result);
}

def Fly_CompositionOp : Fly_InferOp<"composition", [Fly_OnTensorLayout]> {
  let summary = "lhs ∘ rhs";
  let arguments = (ins Fly_AnyLayoutOrTensor:$lhs, Fly_LayoutOrTile:$rhs);
  let results = (outs Fly_AnyLayoutOrTensor:$result);
}

def Fly_ComplementOp : Fly_InferOp<"complement"> {
  let summary = "the complement in [0, cotarget)";
  let arguments = (ins Fly_Layout:$layout, Optional<Fly_IntTuple>:$cotarget);
  let results = (outs Fly_Layout:$result);
}

def Fly_RightInverseOp : Fly_InferOp<"right_inverse"> {
  let summary = "the right inverse of a layout";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_Layout:$result);
}

def Fly_LeftInverseOp : Fly_InferOp<"left_inverse"> {
  let summary = "the left inverse of a layout";
  let arguments = (ins Fly_Layout:$layout);
  let results = (outs Fly_Layout:$result);
}

// A divide or product of a layout by a layout or by-mode tile.
class Fly_TilerOp<string mnemonic, string what, Type operand = Fly_Layout,
                  list<Trait> traits = []>
    : Fly_InferOp<mnemonic, traits> {
  let summary = what;
  let arguments = (ins operand:$layout, Fly_LayoutOrTile:$tiler);
  let results = (outs operand:$result);
}
// The divides also tile tensors.
class Fly_DivideOp<string mnemonic>
    : Fly_TilerOp<mnemonic, "CuTe " # mnemonic, Fly_LayoutOrTensor,
                  [Fly_OnTensorLayout]>;
def Fly_LogicalDivideOp : Fly_DivideOp<"logical_divide">;
def Fly_ZippedDivideOp : Fly_DivideOp<"zipped_divide">;
def Fly_TiledDivideOp : Fly_DivideOp<"tiled_divide">;
def Fly_FlatDivideOp : Fly_DivideOp<"flat_divide">;
def Fly_LogicalProductOp
    : Fly_TilerOp<"logical_product", "CuTe logical_product">;
def Fly_ZippedProductOp
    : Fly_TilerOp<"zipped_product", "CuTe zipped_product">;
def Fly_TiledProductOp : Fly_TilerOp<"tiled_product", "CuTe tiled_product">;
def Fly_FlatProductOp : Fly_TilerOp<"flat_product", "CuTe flat_product">;

def Fly_BlockedProductOp : Fly_InferOp<"blocked_product"> {
  let summary = "CuTe blocked_product";
  let arguments = (ins Fly_Layout:$layout, Fly_Layout:$tiler);
  let results = (outs Fly_Layout:$result);
}

def Fly_RakedProductOp : Fly_InferOp<"raked_product"> {
  let summary = "CuTe raked_product";
  let arguments = (ins Fly_Layout:$layout, Fly_Layout:$tiler);
  let results = (outs Fly_Layout:$result);
}

def Fly_RecastLayoutOp : Fly_InferOp<"recast_layout"> {
  let summary = "the layout of the same memory in elements of new_bits";
  let arguments = (ins Fly_Layout:$layout, I64Attr:$old_bits,
                       I64Attr:$new_bits);
  let results = (outs Fly_Layout:$result);
}

def Fly_TileToShapeOp : Fly_InferOp<"tile_to_shape"> {
  let summary = "repeat a block to cover a shape";
  let description = [{ The repetitions are ordered by `order`
    (column-major without it). }];
  let arguments = (ins Fly_Layout:$block, Fly_IntTuple:$shape,
                       Optional<Fly_IntTuple>:$order);
  let results = (outs Fly_Layout:$result);
}

// Pointers, memory and tensors.
include "fly/Dialect/Fly/IR/FlyMemoryOps.td"
include "fly/Dialect/Fly/IR/FlyAtomOps.td"

#endif // FLY_DIALECT_FLY_IR_FLYOPS_TD
