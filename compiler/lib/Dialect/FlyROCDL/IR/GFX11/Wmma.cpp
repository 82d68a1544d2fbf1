//===- GFX11/Wmma.cpp - What the WMMA families share ----------------------===//
//
// See Wmma.h. The lowering turns the atom's register values into the forms
// the ROCDL ops take: 8- and 4-bit elements packed into i32 registers, bf16
// as i16 on the ops that predate bf16 in LLVM, and gfx11's 16-bit
// accumulator spread over the low halves of 16 elements (opsel 0).
//
//===----------------------------------------------------------------------===//

#include "Wmma.h"

using namespace mlir;
namespace algebra = ::fly::algebra;

namespace mlir::fly_rocdl::wmma {

bool isElem(Type type, Elem e) {
  switch (e) {
  case Elem::F32:
    return type.isF32();
  case Elem::F16:
    return type.isF16();
  case Elem::BF16:
    return type.isBF16();
  case Elem::IU8:
    return type.isInteger(8);
  case Elem::IU4:
    return type.isInteger(4);
  case Elem::FP8:
    return isa<Float8E4M3FNType>(type);
  case Elem::BF8:
    return isa<Float8E5M2Type>(type);
  case Elem::I32:
    return type.isInteger(32);
  }
  return false;
}

unsigned bitsOf(Elem e) {
  switch (e) {
  case Elem::F32:
  case Elem::I32:
    return 32;
  case Elem::F16:
  case Elem::BF16:
    return 16;
  case Elem::IU8:
  case Elem::FP8:
  case Elem::BF8:
    return 8;
  case Elem::IU4:
    return 4;
  }
  return 32;
}

static StringRef elemName(Elem e) {
  switch (e) {
  case Elem::F32:
    return "f32";
  case Elem::F16:
    return "f16";
  case Elem::BF16:
    return "bf16";
  case Elem::IU8:
    return "i8";
  case Elem::IU4:
    return "i4";
  case Elem::FP8:
    return "f8E4M3FN";
  case Elem::BF8:
    return "f8E5M2";
  case Elem::I32:
    return "i32";
  }
  return "?";
}

static bool isInteger(Elem e) { return e == Elem::IU8 || e == Elem::IU4; }

const Form *find(const Family &family, int32_t m, int32_t n, int32_t k,
                 Type a, Type b, Type acc) {
  for (const Form &f : family.forms)
    if (f.m == m && f.n == n && f.k == k && isElem(a, f.a) &&
        isElem(b, f.b) && isElem(acc, f.acc))
      return &f;
  return nullptr;
}

/// "16x16x16 (f16, f16) -> f32, ...": what the family has.
static std::string listForms(const Family &family) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const Form &f : family.forms)
    os << (text.empty() ? "" : ", ") << f.m << "x" << f.n << "x" << f.k
       << " (" << elemName(f.a) << ", " << elemName(f.b) << ") -> "
       << elemName(f.acc);
  return text;
}

LogicalResult verify(const Family &family,
                     function_ref<InFlightDiagnostic()> emitError, int32_t m,
                     int32_t n, int32_t k, Type a, Type b, Type acc,
                     bool signA, bool signB, bool clamp) {
  const Form *form = find(family, m, n, k, a, b, acc);
  if (!form)
    return emitError() << family.mnemonic << ": " << family.name
                       << " has no WMMA " << m << "x" << n << "x" << k << " ("
                       << a << ", " << b << ") -> " << acc
                       << "; the ones there are: " << listForms(family);
  if ((signA || signB || clamp) && !isInteger(form->a))
    return emitError() << family.mnemonic
                       << ": signA, signB and clamp are flags of the integer "
                          "(iu8, iu4) WMMA only, not of ("
                       << a << ", " << b << ") -> " << acc;
  return success();
}

ParseResult parseAccumulator(AsmParser &p, Type &acc, bool &signA,
                             bool &signB, bool &clamp) {
  signA = signB = clamp = false;
  if (p.parseType(acc))
    return failure();
  while (succeeded(p.parseOptionalComma())) {
    SMLoc loc = p.getCurrentLocation();
    StringRef flag;
    if (p.parseKeyword(&flag))
      return failure();
    if (flag == "signA")
      signA = true;
    else if (flag == "signB")
      signB = true;
    else if (flag == "clamp")
      clamp = true;
    else
      return p.emitError(loc, "expected signA, signB or clamp, not ") << flag;
  }
  return success();
}

void printAccumulator(AsmPrinter &p, Type acc, bool signA, bool signB,
                      bool clamp) {
  p << acc;
  if (signA)
    p << ", signA";
  if (signB)
    p << ", signB";
  if (clamp)
    p << ", clamp";
}

std::string apiName(int32_t m, int32_t n, int32_t k, Type a, Type acc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "WMMA(" << m << ", " << n << ", " << k << ", " << a << ", " << acc
     << ")";
  return text;
}

algebra::Layout lanes32() {
  return algebra::Layout{algebra::IntTuple(32), algebra::IntTuple(1)};
}

/// `v` (a vector) with its elements reinterpreted as `element` of the same
/// total width: a vector of them, or a scalar when one is left.
static Value reinterpret(OpBuilder &b, Location loc, Value v, Type element) {
  auto vector = cast<VectorType>(v.getType());
  unsigned bits = vector.getNumElements() *
                  vector.getElementType().getIntOrFloatBitWidth();
  unsigned count = bits / element.getIntOrFloatBitWidth();
  Type to = count == 1 ? element : VectorType::get({count}, element);
  if (to == v.getType())
    return v;
  return LLVM::BitcastOp::create(b, loc, to, v);
}

/// A or B in the op's form.
static Value inputForm(OpBuilder &b, Location loc, const Family &family,
                       Elem e, Value v) {
  if (bitsOf(e) < 16)
    return reinterpret(b, loc, v, b.getI32Type());
  if (e == Elem::BF16 && family.bf16AsI16)
    return reinterpret(b, loc, v, b.getI16Type());
  return v;
}

/// Indices 0..n-1 each repeated twice, or every second one of 0..2n-1.
static SmallVector<int32_t> spread(int32_t n) {
  SmallVector<int32_t> mask;
  for (int32_t i = 0; i < n; ++i)
    mask.append({i, i});
  return mask;
}
static SmallVector<int32_t> gather(int32_t n) {
  SmallVector<int32_t> mask;
  for (int32_t i = 0; i < n; ++i)
    mask.push_back(2 * i);
  return mask;
}

Value emit(OpBuilder &b, Location loc, const Family &family, const Form &form,
           Value atom, Value a, Value bv, Value c, bool signA, bool signB,
           bool clamp) {
  Type accType = c.getType();
  int32_t accCount = cast<VectorType>(accType).getNumElements();
  bool halves = family.acc16InHalves && bitsOf(form.acc) == 16;
  Value acc = fly::accumulatorOf(b, loc, atom, c);
  if (halves)
    acc = LLVM::ShuffleVectorOp::create(b, loc, acc, acc, spread(accCount));
  if (form.acc == Elem::BF16 && family.bf16AsI16)
    acc = reinterpret(b, loc, acc, b.getI16Type());

  OperationState state(loc, form.op);
  state.addOperands({inputForm(b, loc, family, form.a, a),
                     inputForm(b, loc, family, form.b, bv), acc});
  state.addTypes(acc.getType());
  if (isInteger(form.a)) {
    state.addAttribute("signA", b.getBoolAttr(signA));
    state.addAttribute("signB", b.getBoolAttr(signB));
    state.addAttribute("clamp", b.getBoolAttr(clamp));
  }
  Value d = b.create(state)->getResult(0);

  if (form.acc == Elem::BF16 && family.bf16AsI16)
    d = LLVM::BitcastOp::create(
        b, loc, cast<VectorType>(d.getType()).clone(b.getBF16Type()), d);
  if (halves)
    d = LLVM::ShuffleVectorOp::create(b, loc, d, d, gather(accCount));
  return d;
}

} // namespace mlir::fly_rocdl::wmma
