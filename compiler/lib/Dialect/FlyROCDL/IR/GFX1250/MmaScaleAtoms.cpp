//===- GFX1250/MmaScaleAtoms.cpp - gfx1250's MX-scaled WMMA ---------------===//
//
// v_wmma_scale_f32_16x16x128_f8f6f4 and v_wmma_scale_f32_32x16x128_f4 (an
// E8M0 scale per 32 values of K) and their v_wmma_scale16_ forms (per 16):
// the formats of A and B as the instruction's matrix_a_fmt / matrix_b_fmt
// codes (the f4 form has none), the scales as run-time fields, and the
// register layouts of the f8f6f4 operands, which are not the dense WMMA's:
// a lane half holds runs of 128 bits of K (16 values of an 8-bit format,
// 32 of a 4-bit one; a 6-bit one as the 4-bit, in 192 bits).
//
// The 32x16x128 f4 layouts rest on two facts: its operand and accumulator
// sizes (LLVM's intrinsic takes A as 16 registers, B as 8, C and D as 16,
// the scales as one 32-bit (scale16: 64-bit) register each) and the MXFP4
// GEMM kernels written for gfx1250 hardware (FlyDSL's), which fill the
// 32-row operand's registers 0-7 with rows 0-15 and 8-15 with rows 16-31,
// each half in the 16-row operand's layout, read D's registers 0-7 as rows
// 0-15 and 8-15 as rows 16-31 of two 16x16 accumulators of the dense
// WMMA's layout, and give lanes 0-15 the scales of rows 0-15 and lanes
// 16-31 those of rows 16-31 (scale selector 0). MLIR's amdgpu.scaled_wmma
// says the same of the scales: 32 rows' scales fill the wave, so their
// first lane is 0.
//
//===----------------------------------------------------------------------===//

#include "../CDNA4/ScaleFormats.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"


using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using algebra::IntTuple;

namespace {

IntTuple tup(std::initializer_list<IntTuple> elems) {
  return IntTuple::tuple(elems);
}

/// (thr, val) -> m + 16 k of a 16-row A (n + 16 k of B) for the 64 values
/// of K a lane holds: lane l has row l % 16; its values come in runs of
/// `run` consecutive K, lanes 0-15 the even runs, lanes 16-31 the odd ones.
/// The 32-row A of the f4 form (m + 32 k): two of those, rows 16-31 in
/// values 64-127.
algebra::Layout operandLayout(Type elem, int64_t rows) {
  int64_t run = elem.getIntOrFloatBitWidth() == 8 ? 16 : 32;
  if (rows == 32)
    return algebra::Layout{
        tup({tup({16, 2}), tup({run, 64 / run, 2})}),
        tup({tup({1, 32 * run}), tup({32, 64 * run, 16})})};
  return algebra::Layout{
      tup({tup({16, 2}), tup({run, 64 / run})}),
      tup({tup({1, 16 * run}), tup({16, 32 * run})})};
}

/// (thr, val) -> m + 16 n: lane l holds column l % 16, rows 8 (l / 16) + v.
/// 32 rows (m + 32 n): values 8-15 hold rows 16 + 8 (l / 16) + v.
algebra::Layout accumulatorLayout(int64_t rows) {
  if (rows == 32)
    return algebra::Layout{tup({tup({16, 2}), tup({8, 2})}),
                           tup({tup({32, 8}), tup({1, 16})})};
  return algebra::Layout{tup({tup({16, 2}), 8}), tup({tup({16, 8}), 1})};
}

/// The f4-only form: 32x16x128, A and B f4E2M1FN.
bool isF4Form(int32_t m) { return m == 32; }

} // namespace

LogicalResult WmmaScaleGFX1250Type::verify(
    function_ref<InFlightDiagnostic()> emitError, int32_t m, int32_t n,
    int32_t k, Type a, Type b, Type acc, int32_t opselA, int32_t opselB,
    int32_t modC, bool reuseA, bool reuseB, int32_t blockSize) {
  bool f8f6f4 = m == 16 && n == 16 && k == 128 &&
                f8f6f4FormatCode(a) >= 0 && f8f6f4FormatCode(b) >= 0;
  bool f4 = m == 32 && n == 16 && k == 128 && isa<Float4E2M1FNType>(a) &&
            isa<Float4E2M1FNType>(b);
  if (!(f8f6f4 || f4) || !acc.isF32())
    return emitError() << "gfx1250.wmma_scale: no scaled WMMA is " << m << "x"
                       << n << "x" << k << " (" << a << ", " << b << ") -> "
                       << acc
                       << "; the ones there are: 16x16x128, A and B each "
                          "f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN or f4E2M1FN, "
                          "and 32x16x128, A and B f4E2M1FN, into f32";
  if (blockSize != 16 && blockSize != 32)
    return emitError() << "gfx1250.wmma_scale: block_size is the number of "
                          "values of K one E8M0 scale covers, 32 or 16, not "
                       << blockSize;
  if (opselA < 0 || opselA > 1 || opselB < 0 || opselB > 1)
    return emitError() << "gfx1250.wmma_scale: opsel_a and opsel_b pick the "
                          "lanes holding the scales (0: lanes 0-15, 1: lanes "
                          "16-31), got "
                       << opselA << " and " << opselB;
  if (isF4Form(m) && opselA != 0)
    return emitError() << "gfx1250.wmma_scale: the scales of 32x16x128's 32 "
                          "rows of A fill the wave (row i in lane i), so "
                          "opsel_a is 0, not "
                       << opselA;
  if (modC < 0 || modC > 0xFFFF)
    return emitError() << "gfx1250.wmma_scale: mod_c is the instruction's "
                          "16-bit C modifier (0..65535), got "
                       << modC;
  return success();
}

algebra::MmaAtom WmmaScaleGFX1250Type::getMmaTraits(algebra::Arith &ar) const {
  return algebra::makeMmaAtom(
      ar, IntTuple::tuple({getM(), getN(), getK()}),
      algebra::Layout{IntTuple(32), IntTuple(1)},
      operandLayout(getElemA(), getM()), operandLayout(getElemB(), getN()),
      accumulatorLayout(getM()));
}

std::array<Type, 4> WmmaScaleGFX1250Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string WmmaScaleGFX1250Type::getApiName() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "WMMAScale(" << getM() << ", " << getN() << ", " << getK() << ", "
     << getElemA() << ", " << getElemB() << ", block_size=" << getBlockSize()
     << ")";
  return text;
}

bool WmmaScaleGFX1250Type::isAvailableOn(
    const ::fly::arch::ChipInfo &chip) const {
  return chip.matrix == ::fly::arch::MatrixUnit::GFX1250WMMA;
}

/// A and B (64 values a lane, 128 for the f4 form's A) as vectors of i32:
/// 16 of them for 8-bit floats, 12 for 6-bit, 8 for 4-bit (the f4 form's
/// A: 16); the scales from the fields (zero, i.e. 2^-127, when not set);
/// the formats (not the f4 form's), scale selectors, C modifier and reuse
/// hints as the op's attributes (the scales' format E8M0: 0).
Value WmmaScaleGFX1250Type::emitMma(OpBuilder &b, Location loc, Value atom,
                                    Value a, Value bv, Value c) const {
  Type scaleType = b.getIntegerType(getBlockSize() == 16 ? 64 : 32);
  auto scale = [&](StringRef field) -> Value {
    if (Value v = fly::getAtomFieldValue(atom, field))
      return v;
    return LLVM::ConstantOp::create(b, loc, scaleType,
                                    b.getIntegerAttr(scaleType, 0));
  };
  bool f4 = isF4Form(getM());
  StringRef op = getBlockSize() == 16
                     ? (f4 ? "rocdl.wmma.scale16.f32.32x16x128.f4"
                           : "rocdl.wmma.scale16.f32.16x16x128.f8f6f4")
                     : (f4 ? "rocdl.wmma.scale.f32.32x16x128.f4"
                           : "rocdl.wmma.scale.f32.16x16x128.f8f6f4");
  OperationState state(loc, op);
  state.addOperands({packedIntoI32(b, loc, a), packedIntoI32(b, loc, bv),
                     fly::accumulatorOf(b, loc, atom, c),
                     scale("scale_a"), scale("scale_b")});
  state.addTypes(c.getType());
  if (!f4) {
    state.addAttribute("fmtA",
                       b.getI32IntegerAttr(f8f6f4FormatCode(getElemA())));
    state.addAttribute("fmtB",
                       b.getI32IntegerAttr(f8f6f4FormatCode(getElemB())));
  }
  state.addAttribute("modC", b.getI16IntegerAttr(getModC()));
  state.addAttribute("scaleAType", b.getI32IntegerAttr(getOpselA()));
  state.addAttribute("fmtScaleA", b.getI32IntegerAttr(0));
  state.addAttribute("scaleBType", b.getI32IntegerAttr(getOpselB()));
  state.addAttribute("fmtScaleB", b.getI32IntegerAttr(0));
  state.addAttribute("reuseA", b.getBoolAttr(getReuseA()));
  state.addAttribute("reuseB", b.getBoolAttr(getReuseB()));
  return b.create(state)->getResult(0);
}

SmallVector<std::pair<StringRef, Type>>
WmmaScaleGFX1250Type::getFields() const {
  Type scale = IntegerType::get(getContext(), getBlockSize() == 16 ? 64 : 32);
  return {{"accumulate", IntegerType::get(getContext(), 1)},
          {"scale_a", scale},
          {"scale_b", scale}};
}

/// `[a, scale_a]`, `[b, scale_b]`: the lane's scales for the call.
StringRef
WmmaScaleGFX1250Type::getAuxiliaryField(algebra::MmaOperand operand,
                                        unsigned index) const {
  return scaleFieldOf(operand, index);
}
