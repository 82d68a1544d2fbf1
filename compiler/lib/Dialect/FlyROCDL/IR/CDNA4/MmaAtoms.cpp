//===- CDNA4/MmaAtoms.cpp - gfx950's dense MFMA ---------------------------===//
//
// The dense MFMAs gfx950 added, as the cdna4.mfma operation: their table
// and chip; the layouts and the lowering are CDNA3's (CDNA3/Mfma.h).
//
//===----------------------------------------------------------------------===//

#include "../CDNA3/Mfma.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using mfma::Elem;

namespace {

constexpr mfma::Instr kCdna4[] = {
    {16, 16, 32, Elem::F16, Elem::F16, "rocdl.mfma.f32.16x16x32.f16"},
    {32, 32, 16, Elem::F16, Elem::F16, "rocdl.mfma.f32.32x32x16.f16"},
    {16, 16, 32, Elem::BF16, Elem::BF16, "rocdl.mfma.f32.16x16x32.bf16"},
    {32, 32, 16, Elem::BF16, Elem::BF16, "rocdl.mfma.f32.32x32x16.bf16"},
    {16, 16, 64, Elem::I8, Elem::I8, "rocdl.mfma.i32.16x16x64.i8"},
    {32, 32, 32, Elem::I8, Elem::I8, "rocdl.mfma.i32.32x32x32.i8"},
};

} // namespace

LogicalResult MfmaCDNA4Type::verify(function_ref<InFlightDiagnostic()> emitError,
                                    int32_t m, int32_t n, int32_t k, Type a,
                                    Type b, Type acc) {
  if (!mfma::find(kCdna4, m, n, k, a, b, acc))
    return emitError() << "cdna4.mfma: no gfx950 MFMA is " << m << "x" << n
                       << "x" << k << " (" << a << ", " << b << ") -> " << acc
                       << "; the ones there are (accumulating i8 into i32, "
                          "the others into f32): "
                       << mfma::describe(kCdna4);
  return success();
}

algebra::MmaAtom MfmaCDNA4Type::getMmaTraits(algebra::Arith &ar) const {
  return mfma::traits(ar, getM(), getN(), getK(), getElemAcc());
}

std::array<Type, 4> MfmaCDNA4Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string MfmaCDNA4Type::getApiName() const {
  return mfma::apiName(getM(), getN(), getK(), getElemA(), getElemB(),
                       getElemAcc());
}

bool MfmaCDNA4Type::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::CDNA4MFMA;
}

Value MfmaCDNA4Type::emitMma(OpBuilder &b, Location loc, Value atom, Value a,
                             Value bv, Value c) const {
  return mfma::emit(b, loc,
                    *mfma::find(kCdna4, getM(), getN(), getK(), getElemA(),
                                getElemB(), getElemAcc()),
                    atom, a, bv, c);
}

SmallVector<std::pair<StringRef, Type>> MfmaCDNA4Type::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
