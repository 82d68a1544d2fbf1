//===- HostAbi.cpp - A host function's argument block, described ----------===//

#include "fly/HostAbi.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
namespace alg = ::fly::algebra;

namespace fly {

/// The block type of a scalar MLIR type, if it is one.
static std::optional<AbiScalar> scalarOf(Type type) {
  if (type.isIndex())
    return AbiScalar::I64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return abiIntegerScalar(integer.getWidth());
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
