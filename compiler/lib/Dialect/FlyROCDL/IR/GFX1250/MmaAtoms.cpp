//===- GFX1250/MmaAtoms.cpp - gfx1250 WMMA -------------------------------===//
//
// The dense WMMA instructions of gfx1250 on one wave32: their table, their
// thread-value layouts (the register layouts of gfx1250's ISA, checked by
// a round trip through the emulator) and the operand forms of their ROCDL
// ops (the shared mechanics: GFX11/Wmma.cpp).
//
//===----------------------------------------------------------------------===//

#include "../GFX11/Wmma.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using algebra::IntTuple;
using wmma::Elem;

namespace {

/// gfx1250's dense WMMA instructions.
constexpr wmma::Form kForms[] = {
    {16, 16, 4, Elem::F32, Elem::F32, Elem::F32, "rocdl.wmma.f32.16x16x4.f32"},
    {16, 16, 32, Elem::F16, Elem::F16, Elem::F32, "rocdl.wmma.f32.16x16x32.f16"},
    {16, 16, 32, Elem::BF16, Elem::BF16, Elem::F32, "rocdl.wmma.f32.16x16x32.bf16"},
    {16, 16, 32, Elem::F16, Elem::F16, Elem::F16, "rocdl.wmma.f16.16x16x32.f16"},
    {16, 16, 32, Elem::BF16, Elem::BF16, Elem::BF16, "rocdl.wmma.bf16.16x16x32.bf16"},
    {16, 16, 64, Elem::FP8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x64.fp8_fp8"},
    {16, 16, 64, Elem::FP8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x64.fp8_bf8"},
    {16, 16, 64, Elem::BF8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x64.bf8_fp8"},
    {16, 16, 64, Elem::BF8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x64.bf8_bf8"},
    {16, 16, 64, Elem::FP8, Elem::FP8, Elem::F16, "rocdl.wmma.f16.16x16x64.fp8_fp8"},
    {16, 16, 64, Elem::FP8, Elem::BF8, Elem::F16, "rocdl.wmma.f16.16x16x64.fp8_bf8"},
    {16, 16, 64, Elem::BF8, Elem::FP8, Elem::F16, "rocdl.wmma.f16.16x16x64.bf8_fp8"},
    {16, 16, 64, Elem::BF8, Elem::BF8, Elem::F16, "rocdl.wmma.f16.16x16x64.bf8_bf8"},
    {16, 16, 128, Elem::FP8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x128.fp8_fp8"},
    {16, 16, 128, Elem::FP8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x128.fp8_bf8"},
    {16, 16, 128, Elem::BF8, Elem::FP8, Elem::F32, "rocdl.wmma.f32.16x16x128.bf8_fp8"},
    {16, 16, 128, Elem::BF8, Elem::BF8, Elem::F32, "rocdl.wmma.f32.16x16x128.bf8_bf8"},
    {16, 16, 128, Elem::FP8, Elem::FP8, Elem::F16, "rocdl.wmma.f16.16x16x128.fp8_fp8"},
    {16, 16, 128, Elem::FP8, Elem::BF8, Elem::F16, "rocdl.wmma.f16.16x16x128.fp8_bf8"},
    {16, 16, 128, Elem::BF8, Elem::FP8, Elem::F16, "rocdl.wmma.f16.16x16x128.bf8_fp8"},
    {16, 16, 128, Elem::BF8, Elem::BF8, Elem::F16, "rocdl.wmma.f16.16x16x128.bf8_bf8"},
    {16, 16, 64, Elem::IU8, Elem::IU8, Elem::I32, "rocdl.wmma.i32.16x16x64.iu8"},
};

/// The ops take A and B as K / 2 elements (bf16 as bf16, fp8, bf8 and i8
/// packed into i32) and C as 8; their neg, modC and reuse operands stay 0.
const wmma::Family kFamily = {"gfx1250.wmma", "gfx1250", kForms,
                                  /*bf16AsI16=*/false, /*acc16InHalves=*/false};

algebra::Layout layout(IntTuple shape, IntTuple stride) {
  return algebra::Layout{std::move(shape), std::move(stride)};
}

IntTuple tup(std::initializer_list<IntTuple> elems) {
  return IntTuple::tuple(elems);
}

/// (thr, val) -> m + 16 k of A (n + 16 k of B): lane l holds row l % 16;
/// f32 (16x16x4): K = 2 (l / 16) + v; narrower elements in runs of 8 of K,
/// lanes 0-15 the even runs, lanes 16-31 the odd ones.
algebra::Layout operandLayout(int32_t k, Type elem) {
  if (elem.getIntOrFloatBitWidth() == 32)
    return layout(tup({tup({16, 2}), 2}), tup({tup({1, 32}), 16}));
  return layout(tup({tup({16, 2}), tup({8, k / 16})}),
                tup({tup({1, 128}), tup({16, 256})}));
}

/// (thr, val) -> m + 16 n: lane l holds column l % 16, rows 8 (l / 16) + v.
algebra::Layout accumulatorLayout() {
  return layout(tup({tup({16, 2}), 8}), tup({tup({16, 8}), 1}));
}

} // namespace

LogicalResult WmmaGFX1250Type::verify(function_ref<InFlightDiagnostic()> emitError,
                          int32_t m, int32_t n, int32_t k, Type a, Type b,
                          Type acc, bool signA, bool signB, bool clamp) {
  return wmma::verify(kFamily, emitError, m, n, k, a, b, acc, signA, signB,
                      clamp);
}

ParseResult WmmaGFX1250Type::parseWmmaAcc(AsmParser &p, Type &acc, bool &signA,
                              bool &signB, bool &clamp) {
  return wmma::parseAccumulator(p, acc, signA, signB, clamp);
}

void WmmaGFX1250Type::printWmmaAcc(AsmPrinter &p, Type acc, bool signA, bool signB,
                       bool clamp) {
  wmma::printAccumulator(p, acc, signA, signB, clamp);
}

algebra::MmaAtom WmmaGFX1250Type::getMmaTraits(algebra::Arith &ar) const {
  return algebra::makeMmaAtom(ar, IntTuple::tuple({getM(), getN(), getK()}),
                              wmma::lanes32(), operandLayout(getK(), getElemA()),
                              operandLayout(getK(), getElemB()),
                              accumulatorLayout());
}

std::array<Type, 4> WmmaGFX1250Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string WmmaGFX1250Type::getApiName() const {
  return wmma::apiName(getM(), getN(), getK(), getElemA(), getElemAcc());
}

bool WmmaGFX1250Type::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::GFX1250WMMA;
}

Value WmmaGFX1250Type::emitMma(OpBuilder &b, Location loc, Value atom, Value a, Value bv,
                   Value c) const {
  const wmma::Form *form = wmma::find(kFamily, getM(), getN(), getK(),
                                      getElemA(), getElemB(), getElemAcc());
  return wmma::emit(b, loc, kFamily, *form, atom, a, bv, c, getSignA(),
                    getSignB(), getClamp());
}

SmallVector<std::pair<StringRef, Type>> WmmaGFX1250Type::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
