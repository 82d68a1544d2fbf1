//===- HostAbiScalar.cpp - The scalar types of an argument block ----------===//
//
// The part of fly/HostAbi.h that needs LLVM only (no MLIR): the runtime's
// Python extension packs argument blocks with it.
//
//===----------------------------------------------------------------------===//

#include "fly/HostAbi.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DerivedTypes.h"

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

std::optional<AbiScalar> abiIntegerScalar(unsigned bits) {
  switch (bits) {
  case 1: return AbiScalar::I1;
  case 8: return AbiScalar::I8;
  case 16: return AbiScalar::I16;
  case 32: return AbiScalar::I32;
  case 64: return AbiScalar::I64;
  default: return std::nullopt;
  }
}

std::optional<AbiScalar> abiScalarOf(llvm::Type *type) {
  if (type->isPointerTy())
    return AbiScalar::Ptr;
  if (type->isIntegerTy())
    return abiIntegerScalar(type->getIntegerBitWidth());
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

} // namespace fly
