//===- FlyMemoryOps.td - Pointer, memory and tensor ops ----*- tablegen -*-===//
//
// SPEC §2.3, "pointers and memory", and the tensor views: make_view,
// get_iter, get_layout, make_fragment_like. Included by FlyOps.td; the ops
// use the same call-like assembly. The algebra ops that also accept tensors
// (slice, composition, the divides, ...) are in FlyOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYMEMORYOPS_TD
#define FLY_DIALECT_FLY_IR_FLYMEMORYOPS_TD

// An op outside the layout algebra (a memory access, an allocation, a
// pointer from outside): no `evaluate`; FlyMemoryOps.cpp verifies it and,
// where the result type is determined, infers it.
class Fly_MemoryOp<string mnemonic, list<Trait> traits = []>
    : Fly_Op<mnemonic, traits, /*pure=*/0> {
  let extraClassDeclaration = "";
}

// `%r = fly.NAME {attrs} : T` for the ops whose only input is their type.
defvar Fly_TypeOnlyAsm = [{
  ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                       ::mlir::OperationState &result) {
    return ::mlir::fly::detail::parseStaticOp(parser, result);
  }
  void $cppClass::print(::mlir::OpAsmPrinter &printer) {
    ::mlir::fly::detail::printStaticOp(printer, getOperation());
  }
}];

// Fresh register storage, freed with the enclosing function.
defvar Fly_AllocatesRegisters =
    MemoryEffects<[MemAlloc<AutomaticAllocationScopeResource>]>;

def Fly_LLVMPointer
    : Type<CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
           "LLVM pointer", "::mlir::LLVM::LLVMPointerType">;
def Fly_Iterator : AnyTypeOf<[Fly_Pointer, Fly_IntTuple],
                             "fly ptr or int_tuple">;

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

def Fly_MakePtrOp : Fly_MemoryOp<"make_ptr", [Pure]> {
  let summary = "a fly pointer from an LLVM pointer";
  let description = [{
    ```
    %p = fly.make_ptr(%raw) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
    ```
    The result type is written: its element type and alignment are what
    the producer asserts about the address. The LLVM address space must be
    the number of the fly one (generic 0, global 1, shared 3, register 5);
    pointers in a dialect's address space have constructors of their own.
  }];
  let arguments = (ins Fly_LLVMPointer:$pointer);
  let results = (outs Fly_Pointer:$result);
  let hasVerifier = 1;
}

def Fly_PtrToLLVMOp
    : Fly_MemoryOp<"ptr.to_llvm",
                   [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the LLVM pointer of a fly pointer";
  let description = [{
    `fly.ptr.to_llvm(%p) : (!fly.ptr<f32, shared>) -> !llvm.ptr<3>`: the
    inverse of `fly.make_ptr`, for code that leaves the fly dialect.
  }];
  let arguments = (ins Fly_Pointer:$ptr);
  let results = (outs Fly_LLVMPointer:$result);
}

def Fly_ExtractAlignedPointerAsIndexOp
    : Fly_MemoryOp<"extract_aligned_pointer_as_index", [Pure]> {
  let summary = "the LLVM pointer of a memref, in the address space asked for";
  let description = [{
    ```
    %p = fly.extract_aligned_pointer_as_index(%t)
        : (!fly.memref<f32, global, 64:1>) -> !llvm.ptr
    ```
    FlyDSL's way from a memref to an LLVM pointer (its kernel library's
    buffer-descriptor and global-pointer helpers build on it; FlyDSL marks
    it deprecated): `fly.ptr.to_llvm(fly.get_iter(%t))`, cast to the
    result's address space when that differs. The casts allowed are those
    through the generic space 0: to it (as the buffer-descriptor helper
    asks), or from a generic memref to a specific space. Generic, global
    and shared memrefs only: a register fragment has no address past
    fly-promote-regmem-to-vectorssa.
  }];
  let arguments = (ins Fly_MemRef:$source);
  let results = (outs Fly_LLVMPointer:$result);
  let hasVerifier = 1;
}

def Fly_AddOffsetOp : Fly_InferOp<"add_offset"> {
  let summary = "advance a pointer by a number of elements";
  let description = [{
    The offset is an int_tuple leaf or an i32/i64 scalar. The result's
    alignment is gcd(alignment, divisibility(offset) * element bytes): what
    the offset keeps of the old alignment (a static 0 keeps all of it).
  }];
  let arguments = (ins Fly_Pointer:$ptr, Fly_IntTupleOrScalar:$offset);
  let results = (outs Fly_Pointer:$result);
}

def Fly_ApplySwizzleOp : Fly_InferOp<"apply_swizzle"> {
  let summary = "swizzle the bits of a pointer's byte address";
  let description = [{
    `S<B,M,S>` xors address bits as CuTe's swizzle_ptr does (on the byte
    address, not the element index). The alignment is kept when it clears
    every bit the swizzle reads; otherwise only the bits below the lowest
    bit it writes are known, and the alignment drops to that power of two.
  }];
  let arguments = (ins Fly_Pointer:$ptr, Fly_Swizzle:$swizzle);
  let results = (outs Fly_Pointer:$result);
}

def Fly_PtrLoadOp
    : Fly_MemoryOp<"ptr.load",
                   [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "load an element, or a vector of elements, at a pointer";
  let description = [{
    The result is the element type (inferred when not written) or a 1-D
    vector of a scalar element type: a vectorised access of that many
    consecutive elements. The access has the pointer's alignment; a vector
    wider than it is not an error (the backend splits it as the target
    requires), so the alignment in the type is a performance promise, not a
    legality condition.
  }];
  let arguments = (ins Arg<Fly_Pointer, "the address", [MemRead]>:$ptr);
  let results = (outs AnyType:$value);
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual);
  }];
}

def Fly_PtrStoreOp : Fly_MemoryOp<"ptr.store"> {
  let summary = "store an element, or a vector of elements, at a pointer";
  let description = [{
    `fly.ptr.store(%v, %p) : (vector<4xf16>, !fly.ptr<f16, shared>)`: the
    value is the element type or a 1-D vector of a scalar element type, as
    for `fly.ptr.load`.
  }];
  let arguments = (ins AnyType:$value,
                       Arg<Fly_Pointer, "the address", [MemWrite]>:$ptr);
  let hasVerifier = 1;
}

def Fly_GetDynSharedOp : Fly_MemoryOp<"get_dyn_shared", [Pure]> {
  let summary = "the start of the dynamic shared memory";
  let description = [{
    `%p = fly.get_dyn_shared : !fly.ptr<f16, shared, align<16>>`. Any element
    type; the alignment written is what the kernel's dynamic shared memory
    will be aligned to.
  }];
  let results = (outs Fly_Pointer:$result);
  let hasVerifier = 1;
  let extraClassDefinition = Fly_TypeOnlyAsm;
}

//===----------------------------------------------------------------------===//
// Memrefs
//===----------------------------------------------------------------------===//

def Fly_MemRefAllocaOp
    : Fly_MemoryOp<"memref.alloca", [Fly_AllocatesRegisters]> {
  let summary = "a register fragment";
  let description = [{
    `%f = fly.memref.alloca : !fly.memref<f32, register, (4,2):(1,4)>`: fresh
    storage for cosize(layout) elements in the `register` address space. The
    layout must be static.
  }];
  let results = (outs Fly_MemRef:$result);
  let hasVerifier = 1;
  let extraClassDefinition = Fly_TypeOnlyAsm;
}

def Fly_MemRefLoadOp
    : Fly_MemoryOp<"memref.load",
                   [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "load the element at a coordinate";
  let description = [{
    The coordinate is an int_tuple for the layout's shape, or an i32/i64
    1-D index; the result is the element type.
  }];
  let arguments = (ins Arg<Fly_MemRef, "the tensor", [MemRead]>:$memref,
                       Fly_IntTupleOrScalar:$coord);
  let results = (outs AnyType:$value);
}

def Fly_MemRefStoreOp : Fly_MemoryOp<"memref.store"> {
  let summary = "store the element at a coordinate";
  let arguments = (ins AnyType:$value,
                       Arg<Fly_MemRef, "the tensor", [MemWrite]>:$memref,
                       Fly_IntTupleOrScalar:$coord);
  let hasVerifier = 1;
}

def Fly_PrintOp : Fly_MemoryOp<"print"> {
  let summary = "formatted printing from a kernel (device printf)";
  let description = [{
    `fly.print(%a, %b) {format = "x = %d, layout = %s\n"}`: a C printf
    format with one conversion per operand. A scalar operand (integer,
    float, index) is printed by its conversion at run time; an operand of a
    static fly algebra type (an int_tuple, a layout, a swizzle, a tile, ...)
    takes a `%s` and is printed as its value, `(4,8):(1,4)` -- known at
    compile time, it becomes part of the format. convert-fly-to-rocdl
    lowers the op to `gpu.printf`. Every work-item that runs it prints.
  }];
  let arguments = (ins StrAttr:$format, Variadic<AnyType>:$values);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The conversions of the format, in order (`%%` is not one): the
    /// offset of each `%` and of its conversion character (the format's
    /// end when it has none).
    ::llvm::SmallVector<std::pair<size_t, size_t>> getConversions();
  }];
}

def Fly_MemRefLoadVecOp
    : Fly_MemoryOp<"memref.load_vec",
                   [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "load the whole tensor as a vector";
  let description = [{
    The result is `vector<N x T>` with N the static size of the layout;
    vector element i is the tensor's element at the i-th coordinate in
    colexicographic order (the layout's 1-D index i). T must be a scalar.
  }];
  let arguments = (ins Arg<Fly_MemRef, "the tensor", [MemRead]>:$memref);
  let results = (outs AnyVectorOfNonZeroRank:$value);
}

def Fly_MemRefStoreVecOp : Fly_MemoryOp<"memref.store_vec"> {
  let summary = "store a vector as the whole tensor";
  let description = [{ The inverse of `fly.memref.load_vec`. }];
  let arguments = (ins AnyVectorOfNonZeroRank:$value,
                       Arg<Fly_MemRef, "the tensor", [MemWrite]>:$memref);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor views
//===----------------------------------------------------------------------===//

def Fly_MakeViewOp : Fly_InferOp<"make_view"> {
  let summary = "a tensor from an iterator and a layout";
  let description = [{
    A pointer and a layout or composed layout give a memref of the
    pointer's element type, address space and alignment. An int_tuple base
    and a layout give a coord_tensor; an identity tensor is
    `make_view(0-coordinate, make_identity_layout(shape))`:
    ```
    %z = fly.static : !fly.int_tuple<(0,0)>
    %l = fly.make_identity_layout(%shape) : (!fly.int_tuple<(16,64)>)
    %c = fly.make_view(%z, %l)
        : (!fly.int_tuple<(0,0)>, !fly.layout<(16,64):(1E0,1E1)>)
    ```
  }];
  let arguments = (ins Fly_Iterator:$iter, Fly_AnyLayout:$layout);
  let results = (outs Fly_Tensor:$result);
}

def Fly_GetIterOp : Fly_InferOp<"get_iter"> {
  let summary = "the pointer of a memref, the base of a coord_tensor";
  let arguments = (ins Fly_Tensor:$tensor);
  let results = (outs Fly_Iterator:$result);
  let hasFolder = 1;
}

def Fly_GetLayoutOp : Fly_InferOp<"get_layout"> {
  let summary = "the layout of a tensor";
  let arguments = (ins Fly_Tensor:$tensor);
  let results = (outs Fly_AnyLayout:$result);
  let hasFolder = 1;
}

def Fly_MakeFragmentLikeOp
    : Fly_InferOp<"make_fragment_like", [Fly_AllocatesRegisters],
                  /*scalarResults=*/0, /*pure=*/0> {
  let summary = "a register fragment shaped like a tensor";
  let description = [{
    Fresh `register` storage with CuTe's `make_fragment_like(layout)` (of
    the outer layout for a composed one): same shape, compact, mode 0
    innermost and the other modes in the source's stride order (a rank-1
    or dynamic shape: column-major); for a coord_tensor, the compact
    column-major layout of its shape. The element type is the memref's, or the
    `element_type` attribute (required for a coord_tensor). The layout must
    be static.
  }];
  let arguments = (ins Fly_Tensor:$tensor,
                       OptionalAttr<TypeAttr>:$element_type);
  let results = (outs Fly_MemRef:$result);
}

#endif // FLY_DIALECT_FLY_IR_FLYMEMORYOPS_TD
