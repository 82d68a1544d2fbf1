//===- UniversalAtoms.cpp - The target-neutral atoms' interfaces ----------===//
//
// universal_copy, universal_atomic and universal_fma as copy and MMA
// operations (FlyAtomInterfaces.td): CuTe's UniversalCopy, an atomic
// read-modify-write of one element, and UniversalFMA; every chip has them.
// A universal copy is a vector load and a vector store at the LLVM pointers
// of its operands (with the alignment their pointer types prove), an atomic
// an `llvm.atomicrmw`, an FMA `llvm.intr.fma` (or an integer multiply-add).
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::fly;
namespace algebra = ::fly::algebra;

//===----------------------------------------------------------------------===//
// Helpers shared by the atoms' lowerings (FlyAtoms.h)
//===----------------------------------------------------------------------===//

Value mlir::fly::emitVectorLoad(OpBuilder &b, Location loc, Value ptr,
                                MemTensorType type, int64_t count) {
  auto vector = VectorType::get({count}, type.getElementType());
  return LLVM::LoadOp::create(b, loc, vector, ptr, type.getAlignment());
}

void mlir::fly::emitVectorStore(OpBuilder &b, Location loc, Value values,
                                Value ptr, MemTensorType type) {
  auto vector = cast<VectorType>(values.getType());
  if (vector.getElementType() != type.getElementType())
    values = LLVM::BitcastOp::create(
        b, loc, vector.clone(type.getElementType()), values);
  LLVM::StoreOp::create(b, loc, values, ptr, type.getAlignment());
}

Value mlir::fly::convertElements(OpBuilder &b, Location loc, Value value,
                                 Type to) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == to)
    return value;
  auto like = [&](Type element) -> Type {
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      return vector.clone(element);
    return element;
  };
  Type type = like(to);
  unsigned fromBits = from.getIntOrFloatBitWidth();
  unsigned toBits = to.getIntOrFloatBitWidth();
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    if (fromBits < toBits)
      return arith::ExtFOp::create(b, loc, type, value);
    if (fromBits > toBits)
      return arith::TruncFOp::create(b, loc, type, value);
    Value wide = arith::ExtFOp::create(b, loc, like(b.getF32Type()), value);
    return arith::TruncFOp::create(b, loc, type, wide);
  }
  if (isa<FloatType>(to))
    return arith::SIToFPOp::create(b, loc, type, value);
  if (isa<FloatType>(from))
    return arith::FPToSIOp::create(b, loc, type, value);
  if (fromBits < toBits)
    return arith::ExtSIOp::create(b, loc, type, value);
  return arith::TruncIOp::create(b, loc, type, value);
}

Value mlir::fly::accumulatorOf(OpBuilder &b, Location loc, Value atom,
                               Value c) {
  Value accumulate = getAtomFieldValue(atom, "accumulate");
  if (!accumulate)
    return c;
  Value zero = arith::ConstantOp::create(b, loc, c.getType(),
                                         b.getZeroAttr(c.getType()));
  return arith::SelectOp::create(b, loc, accumulate, c, zero);
}

//===----------------------------------------------------------------------===//
// universal_copy
//===----------------------------------------------------------------------===//

algebra::CopyTraits UniversalCopyType::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar, getBits());
}

std::string UniversalCopyType::getApiName() const {
  return "UniversalCopy" + std::to_string(getBits()) + "b";
}

Value UniversalCopyType::emitRead(OpBuilder &b, Location loc, Value, Value src,
                                  Type srcType, int64_t count) const {
  return emitVectorLoad(b, loc, src, cast<MemTensorType>(srcType), count);
}

LogicalResult UniversalCopyType::emitWrite(OpBuilder &b, Location loc, Value,
                                           Value values, Value dst,
                                           Type dstType) const {
  emitVectorStore(b, loc, values, dst, cast<MemTensorType>(dstType));
  return success();
}

//===----------------------------------------------------------------------===//
// universal_atomic
//===----------------------------------------------------------------------===//

algebra::CopyTraits
UniversalAtomicType::getCopyTraits(algebra::Arith &ar) const {
  return algebra::universalCopyTraits(ar,
                                      getValueType().getIntOrFloatBitWidth());
}

std::string UniversalAtomicType::getApiName() const {
  return "UniversalAtomic(" + getOp().str() + ")";
}

bool UniversalAtomicType::isAtomic() const { return true; }

/// An atomic reads and combines elements of its value type.
static std::string checkAtomicElement(Type element, Type valueType) {
  if (element == valueType)
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "element type " << element << " differs from the atomic operation's "
     << valueType;
  return text;
}

std::string UniversalAtomicType::checkSource(Type src) const {
  return checkAtomicElement(cast<MemTensorType>(src).getElementType(),
                            getValueType());
}

/// An atomic combines into memory: its destination is global or shared (or
/// generic) memory, never registers.
std::string UniversalAtomicType::checkDestination(Type dstType) const {
  auto dst = cast<MemTensorType>(dstType);
  std::string problem = checkAtomicElement(dst.getElementType(), getValueType());
  if (!problem.empty())
    return problem;
  auto space = dst.getPointer().getKnownAddressSpace();
  if (space && *space == AddressSpace::Register)
    return "an atomic copy's destination must be in memory, not registers";
  return {};
}

/// The LLVM binary operation of an atomic operation on `type`: add is
/// `fadd` or `add`; max and min are `fmax`/`fmin` for floats (maxnum and
/// minnum: a NaN operand gives the other one) and the signed `max`/`min`
/// for (signless) integers.
static LLVM::AtomicBinOp getAtomicBinOp(StringRef op, Type type) {
  bool isFloat = isa<FloatType>(type);
  if (op == "add")
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  if (op == "max")
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  assert(op == "min" && "universal_atomic verifies add, max or min");
  return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
}

/// The values an atomic combines into its destination.
Value UniversalAtomicType::emitRead(OpBuilder &b, Location loc, Value,
                                    Value src, Type srcType,
                                    int64_t count) const {
  return emitVectorLoad(b, loc, src, cast<MemTensorType>(srcType), count);
}

/// Element 0 combined into `dst`: a monotonic `llvm.atomicrmw` with the
/// atom's syncscope (LLVM's empty one, the system scope, unless it names
/// another).
LogicalResult UniversalAtomicType::emitWrite(OpBuilder &b, Location loc, Value,
                                             Value values, Value dst,
                                             Type dstType) const {
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                        b.getI32IntegerAttr(0));
  Value element = LLVM::ExtractElementOp::create(b, loc, values, zero);
  LLVM::AtomicRMWOp::create(
      b, loc, getAtomicBinOp(getOp(), getValueType()), dst, element,
      LLVM::AtomicOrdering::monotonic, getSyncscope(),
      cast<MemTensorType>(dstType).getAlignment());
  return success();
}

//===----------------------------------------------------------------------===//
// universal_fma
//===----------------------------------------------------------------------===//

algebra::MmaAtom UniversalFmaType::getMmaTraits(algebra::Arith &ar) const {
  return algebra::universalFMA(ar);
}

std::array<Type, 4> UniversalFmaType::getElementTypes() const {
  return {getD(), getA(), getB(), getC()};
}

std::string UniversalFmaType::getApiName() const { return "UniversalFMA"; }

SmallVector<std::pair<StringRef, Type>> UniversalFmaType::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}

/// d = a * b + c in D's element type: a, b and c converted to it first,
/// then `llvm.intr.fma` for a float D, a multiply and an add (wrapping) for
/// an integer one; zero for c when the `accumulate` field is false.
Value UniversalFmaType::emitMma(OpBuilder &b, Location loc, Value atom,
                                Value a, Value bv, Value c) const {
  Type d = getD();
  a = convertElements(b, loc, a, d);
  bv = convertElements(b, loc, bv, d);
  c = convertElements(b, loc, accumulatorOf(b, loc, atom, c), d);
  if (isa<FloatType>(d))
    return LLVM::FMAOp::create(b, loc, a, bv, c, LLVM::FastmathFlagsAttr());
  Value product = arith::MulIOp::create(b, loc, a, bv);
  return arith::AddIOp::create(b, loc, product, c);
}
