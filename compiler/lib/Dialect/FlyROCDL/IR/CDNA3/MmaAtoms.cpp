//===- CDNA3/MmaAtoms.cpp - CDNA3 MFMA ------------------------------------===//
//
// The dense single-block MFMAs of CDNA3 (gfx942; gfx950 keeps them) as the
// cdna3.mfma operation, and what it shares with CDNA4's (Mfma.h): the
// thread-value layouts (AMD's register layouts), the Python name and the
// lowering to the ROCDL ops in the operand forms they take.
//
//===----------------------------------------------------------------------===//

#include "Mfma.h"

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;
using mfma::Elem;

//===----------------------------------------------------------------------===//
// What cdna3.mfma and cdna4.mfma share
//===----------------------------------------------------------------------===//

namespace {

bool isFp8(Type t) { return isa<Float8E4M3FNUZType, Float8E4M3FNType>(t); }
bool isBf8(Type t) { return isa<Float8E5M2FNUZType, Float8E5M2Type>(t); }
bool isFnuz(Type t) { return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t); }

bool is(Type type, Elem e) {
  switch (e) {
  case Elem::F32:
    return type.isF32();
  case Elem::F16:
    return type.isF16();
  case Elem::BF16:
    return type.isBF16();
  case Elem::F64:
    return type.isF64();
  case Elem::I8:
    return type.isInteger(8);
  case Elem::Fp8:
    return isFp8(type);
  case Elem::Bf8:
    return isBf8(type);
  }
  return false;
}

bool isAccumulatorOf(Type acc, Elem e) {
  if (e == Elem::I8)
    return acc.isInteger(32);
  if (e == Elem::F64)
    return acc.isF64();
  return acc.isF32();
}

const char *name(Elem e) {
  switch (e) {
  case Elem::F32:
    return "f32";
  case Elem::F16:
    return "f16";
  case Elem::BF16:
    return "bf16";
  case Elem::F64:
    return "f64";
  case Elem::I8:
    return "i8";
  case Elem::Fp8:
    return "fp8";
  case Elem::Bf8:
    return "bf8";
  }
  return "?";
}

algebra::Layout layout(algebra::IntTuple shape, algebra::IntTuple stride) {
  return algebra::Layout{std::move(shape), std::move(stride)};
}

using algebra::IntTuple;

} // namespace

const mfma::Instr *mfma::find(ArrayRef<Instr> table, int32_t m, int32_t n,
                              int32_t k, Type a, Type b, Type acc) {
  // Two 8-bit floats of different encodings are no instruction's operands.
  bool floats8 = (isFp8(a) || isBf8(a)) && (isFp8(b) || isBf8(b));
  if (floats8 && isFnuz(a) != isFnuz(b))
    return nullptr;
  for (const Instr &f : table)
    if (f.m == m && f.n == n && f.k == k && is(a, f.a) && is(b, f.b) &&
        isAccumulatorOf(acc, f.a))
      return &f;
  return nullptr;
}

std::string mfma::describe(ArrayRef<Instr> table) {
  std::string text;
  for (const Instr &f : table) {
    text += (text.empty() ? "" : ", ") + std::to_string(f.m) + "x" +
            std::to_string(f.n) + "x" + std::to_string(f.k) + " " +
            name(f.a);
    if (f.b != f.a)
      text += std::string(" ") + name(f.b);
  }
  return text;
}

bool mfma::fp8EncodingIs(Type a, Type b, bool fnuz) {
  for (Type t : {a, b})
    if ((isFp8(t) || isBf8(t)) && isFnuz(t) != fnuz)
      return false;
  return true;
}

/// A (B): lane l holds row (column) l % M and the run of K / (64 / M)
/// values of K from (l / M) * K / (64 / M); (thr, val) -> m + M * k.
/// C and D: lane l holds column l % N; with a 32-bit accumulator the rows
/// 8 * j + 4 * (l / 32) + i (i, j in 0..3) for M = 32 and 4 * (l / 16) + i
/// for M = 16; f64's 16x16 instead holds rows l / 16 + 4 * i.
/// (thr, val) -> m + M * n.
algebra::MmaAtom mfma::traits(algebra::Arith &ar, int32_t m, int32_t n,
                              int32_t k, Type acc) {
  int32_t groups = 64 / m; // lanes that share one row of A
  int32_t kv = k / groups; // values of K per lane
  auto operand = [&](int32_t rows) {
    return layout(IntTuple::tuple({IntTuple::tuple({rows, groups}), kv}),
                  IntTuple::tuple({IntTuple::tuple({1, rows * kv}), rows}));
  };
  algebra::Layout c =
      acc.isF64() ? layout(IntTuple::tuple({IntTuple::tuple({16, 4}), 4}),
                           IntTuple::tuple({IntTuple::tuple({16, 1}), 4}))
      : m == 16   ? layout(IntTuple::tuple({IntTuple::tuple({16, 4}), 4}),
                           IntTuple::tuple({IntTuple::tuple({16, 4}), 1}))
                  : layout(IntTuple::tuple({IntTuple::tuple({32, 2}),
                                            IntTuple::tuple({4, 4})}),
                           IntTuple::tuple({IntTuple::tuple({32, 4}),
                                            IntTuple::tuple({1, 8})}));
  return algebra::makeMmaAtom(ar, IntTuple::tuple({m, n, k}),
                              layout(IntTuple(64), IntTuple(1)), operand(m),
                              operand(n), c);
}

std::string mfma::apiName(int32_t m, int32_t n, int32_t k, Type a, Type b,
                          Type acc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "MFMA(" << m << ", " << n << ", " << k << ", " << a;
  if (b != a)
    os << ", " << b;
  if (!acc.isF32())
    os << ", " << acc;
  os << ")";
  return text;
}

/// f32 and f64 A and B are scalars; f16 vectors of f16; bf16 vectors of
/// i16 for the .1k ops (which predate bf16 in LLVM) and of bf16 for
/// CDNA4's; 8-bit ones (i8, fp8, bf8) packed into an i64 (8 values) or a
/// vector of i32. C is a vector of the accumulator type; cbsz, abid and
/// blgp are 0.
Value mfma::emit(OpBuilder &b, Location loc, const Instr &instr, Value atom,
                 Value a, Value bv, Value c) {
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                        b.getI32IntegerAttr(0));
  auto form = [&](Value v) -> Value {
    auto vector = cast<VectorType>(v.getType());
    Type elem = vector.getElementType();
    int64_t count = vector.getNumElements();
    if (count == 1)
      return LLVM::ExtractElementOp::create(b, loc, v, zero);
    if (elem.isBF16() && instr.op.ends_with(".1k"))
      return LLVM::BitcastOp::create(b, loc, vector.clone(b.getI16Type()), v);
    if (elem.getIntOrFloatBitWidth() == 8) {
      Type packed = count == 8 ? Type(b.getI64Type())
                               : Type(VectorType::get({count / 4},
                                                      b.getI32Type()));
      return LLVM::BitcastOp::create(b, loc, packed, v);
    }
    return v;
  };
  OperationState state(loc, instr.op);
  state.addOperands({form(a), form(bv), fly::accumulatorOf(b, loc, atom, c),
                     zero, zero, zero});
  state.addTypes(c.getType());
  return b.create(state)->getResult(0);
}

//===----------------------------------------------------------------------===//
// cdna3.mfma
//===----------------------------------------------------------------------===//

namespace {

constexpr mfma::Instr kCdna3[] = {
    {16, 16, 4, Elem::F32, Elem::F32, "rocdl.mfma.f32.16x16x4f32"},
    {32, 32, 2, Elem::F32, Elem::F32, "rocdl.mfma.f32.32x32x2f32"},
    {16, 16, 16, Elem::F16, Elem::F16, "rocdl.mfma.f32.16x16x16f16"},
    {32, 32, 8, Elem::F16, Elem::F16, "rocdl.mfma.f32.32x32x8f16"},
    {16, 16, 16, Elem::BF16, Elem::BF16, "rocdl.mfma.f32.16x16x16bf16.1k"},
    {32, 32, 8, Elem::BF16, Elem::BF16, "rocdl.mfma.f32.32x32x8bf16.1k"},
    {16, 16, 32, Elem::I8, Elem::I8, "rocdl.mfma.i32.16x16x32.i8"},
    {32, 32, 16, Elem::I8, Elem::I8, "rocdl.mfma.i32.32x32x16.i8"},
    {16, 16, 4, Elem::F64, Elem::F64, "rocdl.mfma.f64.16x16x4f64"},
    {16, 16, 32, Elem::Fp8, Elem::Fp8, "rocdl.mfma.f32.16x16x32.fp8.fp8"},
    {16, 16, 32, Elem::Fp8, Elem::Bf8, "rocdl.mfma.f32.16x16x32.fp8.bf8"},
    {16, 16, 32, Elem::Bf8, Elem::Fp8, "rocdl.mfma.f32.16x16x32.bf8.fp8"},
    {16, 16, 32, Elem::Bf8, Elem::Bf8, "rocdl.mfma.f32.16x16x32.bf8.bf8"},
    {32, 32, 16, Elem::Fp8, Elem::Fp8, "rocdl.mfma.f32.32x32x16.fp8.fp8"},
    {32, 32, 16, Elem::Fp8, Elem::Bf8, "rocdl.mfma.f32.32x32x16.fp8.bf8"},
    {32, 32, 16, Elem::Bf8, Elem::Fp8, "rocdl.mfma.f32.32x32x16.bf8.fp8"},
    {32, 32, 16, Elem::Bf8, Elem::Bf8, "rocdl.mfma.f32.32x32x16.bf8.bf8"},
};

const mfma::Instr *findCdna3(MfmaCDNA3Type t) {
  return mfma::find(kCdna3, t.getM(), t.getN(), t.getK(), t.getElemA(),
                    t.getElemB(), t.getElemAcc());
}

} // namespace

LogicalResult MfmaCDNA3Type::verify(function_ref<InFlightDiagnostic()> emitError,
                                    int32_t m, int32_t n, int32_t k, Type a,
                                    Type b, Type acc) {
  if (!mfma::find(kCdna3, m, n, k, a, b, acc))
    return emitError() << "cdna3.mfma: no CDNA3 MFMA is " << m << "x" << n
                       << "x" << k << " (" << a << ", " << b << ") -> " << acc
                       << "; the ones there are (accumulating i8 into i32, "
                          "f64 into f64, the others into f32): "
                       << mfma::describe(kCdna3);
  return success();
}

algebra::MmaAtom MfmaCDNA3Type::getMmaTraits(algebra::Arith &ar) const {
  return mfma::traits(ar, getM(), getN(), getK(), getElemAcc());
}

std::array<Type, 4> MfmaCDNA3Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string MfmaCDNA3Type::getApiName() const {
  return mfma::apiName(getM(), getN(), getK(), getElemA(), getElemB(),
                       getElemAcc());
}

/// Every MFMA chip has these; the 8-bit floats only in the chip's encoding.
bool MfmaCDNA3Type::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.hasMFMA() &&
         mfma::fp8EncodingIs(getElemA(), getElemB(),
                             chip.fp8 == ::fly::arch::Fp8Format::FNUZ);
}

Value MfmaCDNA3Type::emitMma(OpBuilder &b, Location loc, Value atom, Value a,
                             Value bv, Value c) const {
  return mfma::emit(b, loc, *findCdna3(*this), atom, a, bv, c);
}

SmallVector<std::pair<StringRef, Type>> MfmaCDNA3Type::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
