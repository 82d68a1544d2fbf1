//===- CDNA3/MmaAtoms.cpp - CDNA3 MFMA ------------------------------------===//
//
// The dense MFMA instructions of CDNA3 on one wave64 and one block, as MMA
// operations: their thread-value layouts (AMD's register layouts: lane l
// holds, of A, row l % M and a run of K / (64 / M) values of K starting at
// (l / M) * K / (64 / M); of B the same with column l % N; of C and D,
// column l % N and, for M = 16, rows 4 * (l / 16) + i; for M = 32, rows
// 8 * j + 4 * (l / 32) + i, i and j in 0..3), the ROCDL op of each shape
// and element type, and the operand forms those ops take.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fly_rocdl;
namespace algebra = ::fly::algebra;

namespace {

enum class Elem { F32, F16, BF16 };

/// One instruction: its shape, operand element types and ROCDL op.
struct Mfma {
  int32_t m, n, k;
  Elem a, acc;
  llvm::StringLiteral op;
};

constexpr Mfma kMfmas[] = {
    {16, 16, 4, Elem::F32, Elem::F32, "rocdl.mfma.f32.16x16x4f32"},
    {32, 32, 2, Elem::F32, Elem::F32, "rocdl.mfma.f32.32x32x2f32"},
    {16, 16, 16, Elem::F16, Elem::F32, "rocdl.mfma.f32.16x16x16f16"},
    {32, 32, 8, Elem::F16, Elem::F32, "rocdl.mfma.f32.32x32x8f16"},
    {16, 16, 16, Elem::BF16, Elem::F32, "rocdl.mfma.f32.16x16x16bf16.1k"},
    {32, 32, 8, Elem::BF16, Elem::F32, "rocdl.mfma.f32.32x32x8bf16.1k"},
};

bool is(Type type, Elem e) {
  switch (e) {
  case Elem::F32:
    return type.isF32();
  case Elem::F16:
    return type.isF16();
  case Elem::BF16:
    return type.isBF16();
  }
  return false;
}

const Mfma *find(int32_t m, int32_t n, int32_t k, Type a, Type b, Type acc) {
  for (const Mfma &f : kMfmas)
    if (f.m == m && f.n == n && f.k == k && a == b && is(a, f.a) &&
        is(acc, f.acc))
      return &f;
  return nullptr;
}

std::string shapes() {
  std::string text;
  for (const Mfma &f : kMfmas)
    text += (text.empty() ? "" : ", ") + std::to_string(f.m) + "x" +
            std::to_string(f.n) + "x" + std::to_string(f.k) + " " +
            (f.a == Elem::F32 ? "f32" : f.a == Elem::F16 ? "f16" : "bf16");
  return text;
}

algebra::Layout layout(algebra::IntTuple shape, algebra::IntTuple stride) {
  return algebra::Layout{std::move(shape), std::move(stride)};
}

using algebra::IntTuple;

} // namespace

LogicalResult MfmaCDNA3Type::verify(function_ref<InFlightDiagnostic()> emitError,
                                    int32_t m, int32_t n, int32_t k, Type a,
                                    Type b, Type acc) {
  if (!find(m, n, k, a, b, acc))
    return emitError() << "cdna3.mfma: no CDNA3 MFMA is " << m << "x" << n
                       << "x" << k << " (" << a << ", " << b << ") -> " << acc
                       << "; the ones there are: " << shapes();
  return success();
}

algebra::MmaAtom MfmaCDNA3Type::getMmaTraits(algebra::Arith &ar) const {
  int32_t m = getM(), n = getN(), k = getK();
  int32_t groups = 64 / m;     // lanes of one row (of A) or column (of B)
  int32_t kv = k / groups;     // values of K per lane
  // (thr, val) -> m + M*k for A; n + N*k for B.
  auto operand = [&](int32_t rows) {
    return layout(IntTuple::tuple({IntTuple::tuple({rows, groups}), kv}),
                  IntTuple::tuple({IntTuple::tuple({1, rows * kv}), rows}));
  };
  // (thr, val) -> m + M*n: lane l holds column l % N.
  algebra::Layout c =
      m == 16 ? layout(IntTuple::tuple({IntTuple::tuple({16, 4}), 4}),
                       IntTuple::tuple({IntTuple::tuple({16, 4}), 1}))
              : layout(IntTuple::tuple({IntTuple::tuple({32, 2}),
                                        IntTuple::tuple({4, 4})}),
                       IntTuple::tuple({IntTuple::tuple({32, 4}),
                                        IntTuple::tuple({1, 8})}));
  return algebra::makeMmaAtom(ar, IntTuple::tuple({m, n, k}),
                              layout(IntTuple(64), IntTuple(1)), operand(m),
                              operand(n), c);
}

std::array<Type, 4> MfmaCDNA3Type::getElementTypes() const {
  return {getElemAcc(), getElemA(), getElemB(), getElemAcc()};
}

std::string MfmaCDNA3Type::getApiName() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "MFMA(" << getM() << ", " << getN() << ", " << getK() << ", "
     << getElemA() << ")";
  return text;
}

bool MfmaCDNA3Type::isAvailableOn(const ::fly::arch::ChipInfo &chip) const {
  return chip.hasMFMA();
}

/// The ROCDL op on the operand forms it takes: f32 A and B are scalars,
/// bf16 ones vectors of i16 (the .1k ops predate bf16 in LLVM); C is a
/// vector of the accumulator type; cbsz, abid and blgp are 0.
Value MfmaCDNA3Type::emitMma(OpBuilder &b, Location loc, Value atom, Value a,
                             Value bv, Value c) const {
  const Mfma *f = find(getM(), getN(), getK(), getElemA(), getElemB(),
                       getElemAcc());
  auto form = [&](Value v) -> Value {
    auto vector = cast<VectorType>(v.getType());
    if (vector.getNumElements() == 1) {
      Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                            b.getI32IntegerAttr(0));
      return LLVM::ExtractElementOp::create(b, loc, v, zero);
    }
    if (vector.getElementType().isBF16())
      return LLVM::BitcastOp::create(b, loc, vector.clone(b.getI16Type()), v);
    return v;
  };
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                        b.getI32IntegerAttr(0));
  OperationState state(loc, f->op);
  state.addOperands({form(a), form(bv), fly::accumulatorOf(b, loc, atom, c),
                     zero, zero, zero});
  state.addTypes(c.getType());
  return b.create(state)->getResult(0);
}

SmallVector<std::pair<StringRef, Type>> MfmaCDNA3Type::getFields() const {
  return {{"accumulate", IntegerType::get(getContext(), 1)}};
}
