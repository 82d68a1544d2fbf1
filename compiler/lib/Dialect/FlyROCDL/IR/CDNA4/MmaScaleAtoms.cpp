//===- CDNA4/MmaScaleAtoms.cpp - gfx950's scaled MFMA ---------------------===//
//
// v_mfma_scale_f32_16x16x128_f8f6f4 and _32x32x64_: the dense layouts of
// CDNA3/Mfma.h with 32 values of K per lane, the formats of A and B as the
// instruction's cbsz / blgp codes, and the E8M0 scales as run-time fields.
//
//===----------------------------------------------------------------------===//

#include "../CDNA3/Mfma.h"
#include "ScaleFormats.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;

LogicalResult
MfmaScaleCDNA4Type::verify(function_ref<InFlightDiagnostic()> emitError,
                           int32_t m, int32_t n, int32_t k, Type a, Type b,
                           Type acc, int32_t opselA, int32_t opselB) {
  bool shape = (m == 16 && n == 16 && k == 128) || (m == 32 && n == 32 && k == 64);
  if (!shape || f8f6f4FormatCode(a) < 0 || f8f6f4FormatCode(b) < 0 ||
      !acc.isF32())
    return emitError() << "cdna4.mfma_scale: no scaled MFMA is " << m << "x"
                       << n << "x" << k << " (" << a << ", " << b << ") -> "
                       << acc
                       << "; the ones there are: 16x16x128 and 32x32x64, A "
                          "and B each f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN "
                          "or f4E2M1FN, into f32";
  if (opselA < 0 || opselA > 3 || opselB < 0 || opselB > 3)
    return emitError() << "cdna4.mfma_scale: opsel_a and opsel_b pick a byte "
                          "of the scale register (0..3), got "
                       << opselA << " and " << opselB;
  return success();
}

algebra::MmaAtom MfmaScaleCDNA4Type::getMmaTraits(algebra::Arith &ar) const {
  return mfma::traits(ar, getM(), getN(), getK(), getElemAcc());
}

std::array<Type, 4> MfmaScaleCDNA4Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string MfmaScaleCDNA4Type::getApiName() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "MFMA_Scale(" << getM() << ", " << getN() << ", " << getK() << ", "
     << getElemA() << ", " << getElemB() << ")";
  return text;
}

bool MfmaScaleCDNA4Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::CDNA4MFMA;
}

/// A and B (32 values a lane) as vectors of i32: 8 of them for 8-bit
/// floats, 6 for 6-bit, 4 for 4-bit; then the operands of the ROCDL op:
/// cbsz and blgp (the formats), opsel and scale of A, of B.
Value MfmaScaleCDNA4Type::emitMma(OpBuilder &b, Location loc, Value atom,
                                  Value a, Value bv, Value c) const {
  auto i32 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                    b.getI32IntegerAttr(v));
  };
  auto scale = [&](StringRef field) -> Value {
    Value v = fly::getAtomFieldValue(atom, field);
    return v ? v : i32(0);
  };
  StringRef op = getM() == 16 ? "rocdl.mfma.scale.f32.16x16x128.f8f6f4"
                              : "rocdl.mfma.scale.f32.32x32x64.f8f6f4";
  OperationState state(loc, op);
  state.addOperands({packedIntoI32(b, loc, a), packedIntoI32(b, loc, bv),
                     fly::accumulatorOf(b, loc, atom, c),
                     i32(f8f6f4FormatCode(getElemA())),
                     i32(f8f6f4FormatCode(getElemB())),
                     i32(getOpselA()), scale("scale_a"), i32(getOpselB()),
                     scale("scale_b")});
  state.addTypes(c.getType());
  return b.create(state)->getResult(0);
}

SmallVector<std::pair<StringRef, Type>> MfmaScaleCDNA4Type::getFields() const {
  Type i32 = IntegerType::get(getContext(), 32);
  return {{"accumulate", IntegerType::get(getContext(), 1)},
          {"scale_a", i32},
          {"scale_b", i32}};
}

/// `[a, scale_a]`, `[b, scale_b]`: the lane's scales for the call.
StringRef
MfmaScaleCDNA4Type::getAuxiliaryField(algebra::MmaOperand operand,
                                      unsigned index) const {
  return scaleFieldOf(operand, index);
}
