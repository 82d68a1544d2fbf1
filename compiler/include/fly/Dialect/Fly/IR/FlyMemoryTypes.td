//===- FlyMemoryTypes.td - Pointers and tensors of fly -----*- tablegen -*-===//
//
// SPEC §2.2: pointers, tensors in memory (pointer + layout) and coordinate
// tensors (base + layout). Parsing, printing and verification are
// hand-written (FlyMemoryTypes.cpp); the layouts inside are the algebra
// types of FlyTypes.td.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLY_IR_FLYMEMORYTYPES_TD
#define FLY_DIALECT_FLY_IR_FLYMEMORYTYPES_TD

include "fly/Dialect/Fly/IR/FlyDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Address spaces
//===----------------------------------------------------------------------===//

// The values are the LLVM address spaces of AMDGPU (and NVPTX), which
// `fly.make_ptr` and `fly.ptr.to_llvm` translate to and from.
def Fly_AddressSpace : I32EnumAttr<"AddressSpace", "fly address space", [
    I32EnumAttrCase<"Generic", 0, "generic">,
    I32EnumAttrCase<"Global", 1, "global">,
    I32EnumAttrCase<"Shared", 3, "shared">,
    I32EnumAttrCase<"Register", 5, "register">
  ]> {
  let cppNamespace = "::mlir::fly";
  let genSpecializedAttr = 0;
}

def Fly_AddressSpaceAttr
    : EnumAttr<Fly_Dialect, Fly_AddressSpace, "address_space"> {
  let summary = "a target-neutral address space";
  let description = [{
    `#fly.address_space<shared>`. Inside a pointer or memref type it is
    written as the bare keyword: `!fly.ptr<f32, shared>`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Fly_PointerType : TypeDef<Fly_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "a pointer to elements of an MLIR type";
  let description = [{
    `!fly.ptr<T, AS[, align<N>]>`. `T` is an integer or float type or a
    vector of them whose size is a whole number of bytes (`i1` counts as one
    byte). `AS` is `generic`, `global`, `shared`, `register`, or an
    attribute of another dialect (a buffer resource, say). `N` is the known
    alignment of the address in bytes, a power of two; it defaults to the
    element's natural alignment (the largest power of two dividing its byte
    size) and is printed only when it differs.
  }];
  let parameters = (ins "::mlir::Type":$elementType,
                        "::mlir::Attribute":$addressSpace,
                        "int64_t":$alignment);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The keyword address space; nullopt for a dialect attribute.
    std::optional<AddressSpace> getKnownAddressSpace() const;
    /// The bytes of one element.
    int64_t getElementByteSize() const;
  }];
}

def Fly_MemTensorType : TypeDef<Fly_Dialect, "MemTensor"> {
  let mnemonic = "memref";
  let summary = "a tensor in memory: a pointer and a layout";
  let description = [{
    `!fly.memref<T, AS, LAYOUT[, align<N>]>`: element `(c)` is at
    `ptr + LAYOUT(c)` elements. `LAYOUT` is a layout `S:D` or a composed
    layout (`S<3,4,3> o 0 o (8,64):(64,1)`) with integer strides; `T`, `AS`
    and `N` are those of the pointer. A memref always carries its pointer at
    run time; its static part is the layout.
  }];
  let parameters = (ins "PointerType":$pointer, "::mlir::Type":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::mlir::Type getElementType() const {
      return getPointer().getElementType();
    }
    ::mlir::Attribute getAddressSpace() const {
      return getPointer().getAddressSpace();
    }
    int64_t getAlignment() const { return getPointer().getAlignment(); }
  }];
}

def Fly_CoordTensorType : TypeDef<Fly_Dialect, "CoordTensor"> {
  let mnemonic = "coord_tensor";
  let summary = "a counting tensor: BASE + LAYOUT(c)";
  let description = [{
    `!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>`: the value at `c` is the
    int tuple `BASE + LAYOUT(c)`; with the basis strides of an identity
    layout that is a coordinate. It holds no memory: a static coordinate
    tensor is materialised by `fly.static`.
  }];
  let parameters = (ins "IntTupleType":$base, "LayoutType":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Fly_Pointer : Type<CPred<"::llvm::isa<::mlir::fly::PointerType>($_self)">,
                       "fly ptr", "::mlir::fly::PointerType">;
def Fly_MemRef
    : Type<CPred<"::llvm::isa<::mlir::fly::MemTensorType>($_self)">,
           "fly memref", "::mlir::fly::MemTensorType">;
def Fly_CoordTensor
    : Type<CPred<"::llvm::isa<::mlir::fly::CoordTensorType>($_self)">,
           "fly coord_tensor", "::mlir::fly::CoordTensorType">;
def Fly_Tensor : AnyTypeOf<[Fly_MemRef, Fly_CoordTensor],
                           "fly memref or coord_tensor">;

#endif // FLY_DIALECT_FLY_IR_FLYMEMORYTYPES_TD
