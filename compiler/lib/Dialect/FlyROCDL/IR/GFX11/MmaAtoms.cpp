//===- GFX11/MmaAtoms.cpp - RDNA3 WMMA -----------------------------------===//
//
// The WMMA instructions of RDNA3 (gfx1100/1101/1102) on one wave32: their
// table, their thread-value layouts (AMD's register layouts) and the
// operand forms of their ROCDL ops; the mechanics shared with the later
// families are in Wmma.cpp.
//
//===----------------------------------------------------------------------===//

#include "Wmma.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using algebra::IntTuple;
using wmma::Elem;

namespace {

/// RDNA3's WMMA instructions (all 16x16x16).
constexpr wmma::Form kForms[] = {
    {16, 16, 16, Elem::F16, Elem::F16, Elem::F32, "rocdl.wmma.f32.16x16x16.f16"},
    {16, 16, 16, Elem::BF16, Elem::BF16, Elem::F32, "rocdl.wmma.f32.16x16x16.bf16"},
    {16, 16, 16, Elem::F16, Elem::F16, Elem::F16, "rocdl.wmma.f16.16x16x16.f16"},
    {16, 16, 16, Elem::BF16, Elem::BF16, Elem::BF16, "rocdl.wmma.bf16.16x16x16.bf16"},
    {16, 16, 16, Elem::IU8, Elem::IU8, Elem::I32, "rocdl.wmma.i32.16x16x16.iu8"},
    {16, 16, 16, Elem::IU4, Elem::IU4, Elem::I32, "rocdl.wmma.i32.16x16x16.iu4"},
};

/// The ops take A and B as 16 elements (bf16 as i16, i8 and i4 packed into
/// i32) and a 16-bit C as 16 halves of which opsel 0 uses the even ones.
const wmma::Family kFamily = {"gfx11.wmma", "RDNA3 (gfx11)", kForms,
                                  /*bf16AsI16=*/true, /*acc16InHalves=*/true};

algebra::Layout layout(IntTuple shape, IntTuple stride) {
  return algebra::Layout{std::move(shape), std::move(stride)};
}

IntTuple tup(std::initializer_list<IntTuple> elems) {
  return IntTuple::tuple(elems);
}

/// (thr, val) -> m + 16 k of A (n + 16 k of B): lane l holds row l % 16
/// and every K; lanes 16-31 repeat lanes 0-15 (stride 0).
algebra::Layout operandLayout(int32_t k, Type) {
  return layout(tup({tup({16, 2}), k}), tup({tup({1, 0}), 16}));
}

/// (thr, val) -> m + 16 n: lane l holds column l % 16, rows 2 v + l / 16
/// (one value per register, also for a 16-bit accumulator).
algebra::Layout accumulatorLayout() {
  return layout(tup({tup({16, 2}), 8}), tup({tup({16, 1}), 2}));
}

} // namespace

LogicalResult WmmaGFX11Type::verify(function_ref<InFlightDiagnostic()> emitError,
                          int32_t m, int32_t n, int32_t k, Type a, Type b,
                          Type acc, bool signA, bool signB, bool clamp) {
  return wmma::verify(kFamily, emitError, m, n, k, a, b, acc, signA, signB,
                      clamp);
}

ParseResult WmmaGFX11Type::parseWmmaAcc(AsmParser &p, Type &acc, bool &signA,
                              bool &signB, bool &clamp) {
  return wmma::parseAccumulator(p, acc, signA, signB, clamp);
}

void WmmaGFX11Type::printWmmaAcc(AsmPrinter &p, Type acc, bool signA, bool signB,
                       bool clamp) {
  wmma::printAccumulator(p, acc, signA, signB, clamp);
}

algebra::MmaAtom WmmaGFX11Type::getMmaTraits(algebra::Arith &ar) const {
  return algebra::makeMmaAtom(ar, IntTuple::tuple({getM(), getN(), getK()}),
                              wmma::lanes32(), operandLayout(getK(), getElemA()),
                              operandLayout(getK(), getElemB()),
                              accumulatorLayout());
}

std::array<Type, 4> WmmaGFX11Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string WmmaGFX11Type::getApiName() const {
  return wmma::apiName(getM(), getN(), getK(), getElemA(), getElemAcc());
}

bool WmmaGFX11Type::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::GFX11WMMA;
}

Value WmmaGFX11Type::emitMma(OpBuilder &b, Location loc, Value atom, Value a, Value bv,
                   Value c) const {
  const wmma::Form *form = wmma::find(kFamily, getM(), getN(), getK(),
                                      getElemA(), getElemB(), getElemAcc());
  return wmma::emit(b, loc, kFamily, *form, atom, a, bv, c, getSignA(),
                    getSignB(), getClamp());
}

SmallVector<std::pair<StringRef, Type>> WmmaGFX11Type::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
