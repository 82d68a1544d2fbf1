//===- GFX120X/MmaAtoms.cpp - RDNA4 WMMA ---------------------------------===//
//
// The WMMA instructions of RDNA4 (gfx1200/1201) on one wave32: their table,
// their thread-value layouts (AMD's register layouts) and the operand
// forms of their ROCDL ops (the shared mechanics: GFX11/Wmma.cpp).
//
//===----------------------------------------------------------------------===//

#include "../GFX11/Wmma.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using algebra::IntTuple;
using wmma::Elem;

namespace {

/// RDNA4's WMMA instructions.
constexpr wmma::Form kForms[] = {
    {16, 16, 16, Elem::F16, Elem::F16, Elem::F32, "rocdl.wmma.f32.16x16x16.f16"},
    {16, 16, 16, Elem::BF16, Elem::BF16, Elem::F32, "rocdl.wmma.f32.16x16x16.bf16"},
    {16, 16, 16, Elem::F16, Elem::F16, Elem::F16, "rocdl.wmma.f16.16x16x16.f16"},
    {16, 16, 16, Elem::BF16, Elem::BF16, Elem::BF16, "rocdl.wmma.bf16.16x16x16.bf16"},
    {16, 16, 16, Elem::IU8, Elem::IU8, Elem::I32, "rocdl.wmma.i32.16x16x16.iu8"},
    {16, 16, 16, Elem::IU4, Elem::IU4, Elem::I32, "rocdl.wmma.i32.16x16x16.iu4"},
    {16, 16, 32, Elem::IU4, Elem::IU4, Elem::I32, "rocdl.wmma.i32.16x16x32.iu4"},
    {16, 16, 16, Elem::FP8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x16.fp8_fp8"},
    {16, 16, 16, Elem::FP8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x16.fp8_bf8"},
    {16, 16, 16, Elem::BF8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x16.bf8_fp8"},
    {16, 16, 16, Elem::BF8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x16.bf8_bf8"},
};

/// The ops take A and B as K / 2 elements (bf16 as i16, 8- and 4-bit ones
/// packed into i32) and C as 8 (16-bit ones two to a register).
const wmma::Family kFamily = {"gfx120x.wmma", "RDNA4 (gfx120x)", kForms,
                                  /*bf16AsI16=*/true, /*acc16InHalves=*/false};

algebra::Layout layout(IntTuple shape, IntTuple stride) {
  return algebra::Layout{std::move(shape), std::move(stride)};
}

IntTuple tup(std::initializer_list<IntTuple> elems) {
  return IntTuple::tuple(elems);
}

/// (thr, val) -> m + 16 k of A (n + 16 k of B): lane l holds row l % 16;
/// 16-bit elements in runs of 4 of K, lanes 0-15 the even runs, 16-31 the
/// odd ones; narrower ones K / 2 consecutive values from (l / 16) K / 2.
algebra::Layout operandLayout(int32_t k, Type elem) {
  if (elem.getIntOrFloatBitWidth() == 16)
    return layout(tup({tup({16, 2}), tup({4, 2})}),
                  tup({tup({1, 64}), tup({16, 128})}));
  return layout(tup({tup({16, 2}), k / 2}), tup({tup({1, 8 * k}), 16}));
}

/// (thr, val) -> m + 16 n: lane l holds column l % 16, rows 8 (l / 16) + v.
algebra::Layout accumulatorLayout() {
  return layout(tup({tup({16, 2}), 8}), tup({tup({16, 8}), 1}));
}

} // namespace

LogicalResult WmmaGFX120XType::verify(function_ref<InFlightDiagnostic()> emitError,
                          int32_t m, int32_t n, int32_t k, Type a, Type b,
                          Type acc, bool signA, bool signB, bool clamp) {
  return wmma::verify(kFamily, emitError, m, n, k, a, b, acc, signA, signB,
                      clamp);
}

ParseResult WmmaGFX120XType::parseWmmaAcc(AsmParser &p, Type &acc, bool &signA,
                              bool &signB, bool &clamp) {
  return wmma::parseAccumulator(p, acc, signA, signB, clamp);
}

void WmmaGFX120XType::printWmmaAcc(AsmPrinter &p, Type acc, bool signA, bool signB,
                       bool clamp) {
  wmma::printAccumulator(p, acc, signA, signB, clamp);
}

algebra::MmaAtom WmmaGFX120XType::getMmaTraits(algebra::Arith &ar) const {
  return algebra::makeMmaAtom(ar, IntTuple::tuple({getM(), getN(), getK()}),
                              wmma::lanes32(), operandLayout(getK(), getElemA()),
                              operandLayout(getK(), getElemB()),
                              accumulatorLayout());
}

std::array<Type, 4> WmmaGFX120XType::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string WmmaGFX120XType::getApiName() const {
  return wmma::apiName(getM(), getN(), getK(), getElemA(), getElemAcc());
}

bool WmmaGFX120XType::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::GFX12WMMA;
}

Value WmmaGFX120XType::emitMma(OpBuilder &b, Location loc, Value atom, Value a, Value bv,
                   Value c) const {
  const wmma::Form *form = wmma::find(kFamily, getM(), getN(), getK(),
                                      getElemA(), getElemB(), getElemAcc());
  return wmma::emit(b, loc, kFamily, *form, atom, a, bv, c, getSignA(),
                    getSignB(), getClamp());
}

SmallVector<std::pair<StringRef, Type>> WmmaGFX120XType::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
