//===- HostAbi.cpp - A host function's argument block, described ----------===//

#include "fly/HostAbi.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
namespace alg = ::fly::algebra;

namespace fly {

llvm::StringRef abiScalarName(AbiScalar type) {
  switch (type) {
  case AbiScalar::Ptr: return "ptr";
  case AbiScalar::I1: return "i1";
  case AbiScalar::I8: return "i8";
  case AbiScalar::I16: return "i16";
  case AbiScalar::I32: return "i32";
  case AbiScalar::I64: return "i64";
  case AbiScalar::F16: return "f16";
  case AbiScalar::BF16: return "bf16";
  case AbiScalar::F32: return "f32";
  case AbiScalar::F64: return "f64";
  }
  return "?";
}

std::optional<AbiScalar> parseAbiScalar(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<AbiScalar>>(name)
      .Case("ptr", AbiScalar::Ptr)
      .Case("i1", AbiScalar::I1)
      .Case("i8", AbiScalar::I8)
      .Case("i16", AbiScalar::I16)
      .Case("i32", AbiScalar::I32)
      .Case("i64", AbiScalar::I64)
      .Case("f16", AbiScalar::F16)
      .Case("bf16", AbiScalar::BF16)
      .Case("f32", AbiScalar::F32)
      .Case("f64", AbiScalar::F64)
      .Default(std::nullopt);
}

unsigned abiScalarBytes(AbiScalar type) {
  switch (type) {
  case AbiScalar::I1:
  case AbiScalar::I8:
    return 1;
  case AbiScalar::I16:
  case AbiScalar::F16:
  case AbiScalar::BF16:
    return 2;
  case AbiScalar::I32:
  case AbiScalar::F32:
    return 4;
  case AbiScalar::Ptr:
  case AbiScalar::I64:
  case AbiScalar::F64:
    return 8;
  }
  return 0;
}

/// The block type of an integer of `bits` bits, if it has one.
static std::optional<AbiScalar> integerScalar(unsigned bits) {
  switch (bits) {
  case 1: return AbiScalar::I1;
  case 8: return AbiScalar::I8;
  case 16: return AbiScalar::I16;
  case 32: return AbiScalar::I32;
  case 64: return AbiScalar::I64;
  default: return std::nullopt;
  }
}

/// The block type of a scalar MLIR type, if it is one.
static std::optional<AbiScalar> scalarOf(Type type) {
  if (type.isIndex())
    return AbiScalar::I64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integerScalar(integer.getWidth());
  if (type.isF16())
    return AbiScalar::F16;
  if (type.isBF16())
    return AbiScalar::BF16;
  if (type.isF32())
    return AbiScalar::F32;
  if (type.isF64())
    return AbiScalar::F64;
  return std::nullopt;
}

std::optional<AbiScalar> abiScalarOf(llvm::Type *type) {
  if (type->isPointerTy())
    return AbiScalar::Ptr;
  if (type->isIntegerTy())
    return integerScalar(type->getIntegerBitWidth());
  if (type->isHalfTy())
    return AbiScalar::F16;
  if (type->isBFloatTy())
    return AbiScalar::BF16;
  if (type->isFloatTy())
    return AbiScalar::F32;
  if (type->isDoubleTy())
    return AbiScalar::F64;
  return std::nullopt;
}

static std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

AbiParameter describeHostParameter(Type type) {
  AbiParameter p;
  p.type = printed(type);
  if (std::optional<AbiScalar> scalar = scalarOf(type)) {
    p.kind = AbiParameter::Kind::Scalar;
    p.scalar = *scalar;
    return p;
  }
  if (isa<LLVM::LLVMPointerType>(type)) {
    p.kind = AbiParameter::Kind::Handle;
    p.scalar = AbiScalar::Ptr;
    return p;
  }
  if (auto pointer = dyn_cast<mlir::fly::PointerType>(type)) {
    p.kind = AbiParameter::Kind::Pointer;
    p.element = printed(pointer.getElementType());
    p.alignment = uint64_t(pointer.getAlignment());
    p.scalar = AbiScalar::Ptr;
    return p;
  }
  auto memref = dyn_cast<mlir::fly::MemTensorType>(type);
  if (!memref)
    return p;
  std::optional<alg::Layout> layout =
      mlir::fly::getAlgebraValueAs<alg::Layout>(memref.getLayout());
  if (!layout)
    return p; // a composed layout: Other
  p.kind = AbiParameter::Kind::Tensor;
  p.element = printed(memref.getPointer().getElementType());
  p.alignment = uint64_t(memref.getPointer().getAlignment());
  p.scalar = AbiScalar::Ptr;
  for (bool stride : {false, true}) {
    unsigned dim = 0;
    std::function<void(const alg::IntTuple &)> walk =
        [&](const alg::IntTuple &t) {
          if (t.isTuple()) {
            for (const alg::IntTuple &e : t.elems())
              walk(e);
            return;
          }
          const alg::Int &leaf = t.leaf();
          AbiLeaf out;
          out.stride = stride;
          out.dim = dim++;
          if (leaf.isDynamic()) {
            out.divisibility = leaf.divisibility();
            out.wide = leaf.isWide();
          } else {
            out.value = leaf.value();
          }
          p.leaves.push_back(out);
        };
    walk(stride ? layout->stride : layout->shape);
    if (!stride)
      p.rank = dim;
  }
  return p;
}

} // namespace fly
