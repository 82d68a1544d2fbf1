//===- NumericIntrinsics.cpp - AMDGPU numerics on the host ----------------===//
//
// The chip's transcendental instructions, as host LLVM ops computing what
// the ISA documents them to compute. The ISA gives each a precision (1 ULP
// for v_exp_f32, v_log_f32, v_rcp_f32, v_rsq_f32, v_sqrt_f32), not the
// exact bits, so the model computes the exact value rounded to the type
// (in f64, then rounded once), which is within the documented precision;
// a kernel that depends on the bits of these instructions is not portable
// across AMD chips either. What the models do follow exactly:
//
//   - f32 denormals: the f32 transcendental unit ignores the denormal
//     mode. Denormal inputs are read as zero of the same sign and denormal
//     results written as zero of the same sign (the AMDGPU backend scales
//     around both when it expands llvm.exp2, llvm.log2, llvm.sqrt and
//     division with this in mind). f16, bf16 and f64 keep their denormals.
//   - special values (the ISA's examples): exp2(-inf) = 0, exp2(+inf) =
//     +inf; log(+-0) = -inf, log(x < 0) = NaN; rcp(+-0) = +-inf,
//     rcp(+-inf) = +-0; rsq(+-0) = +-inf, rsq(x < 0) = NaN, rsq(+inf) = 0;
//     sqrt(-0) = -0; NaN in, NaN out.
//   - v_sin / v_cos take turns, not radians: sin(2 pi x), whose argument
//     the chip reduces exactly (x - round(x)); |x| > 256 (outside the
//     documented domain [-256, 256]) gives 0, +-inf gives NaN, and
//     sin(+-0) = +-0.
//   - v_tanh (gfx1250): tanh(x), with the f32 denormal rule.
//
// Per instruction and type:
//   exp2 (v_exp):  2^x;          f16, f32, bf16
//   log (v_log):   log2(x);      f16, f32, bf16
//   rcp (v_rcp):   1 / x;        f16, f32, f64, bf16
//   rsq (v_rsq):   1 / sqrt(x);  f16, f32, f64, bf16
//   sqrt (v_sqrt): sqrt(x);      f16, f32, f64, bf16
//   sin, cos:      in turns;     f16, f32, bf16
//   tanh:          tanh(x);      f16, f32, bf16
// Which chips have which form is the compiler's check (fly-lower-math);
// the emulator runs each form on any chip.
//
// Generic LLVM intrinsics keep the host's implementation, but those the
// AMDGPU backend expands to something else: llvm.sin / llvm.cos of f16 and
// f32 are v_sin / v_cos of x * (1 / 2pi) (so a large argument loses
// accuracy, and beyond 256 turns gives 0, as on the chip), and llvm.pow is
// exp2(mul_legacy(y, log2(x))), mul_legacy giving 0 when either operand is
// 0 (so pow(1, inf) = pow(x, 0) = 1, and x < 0 gives NaN where the host's
// pow gives x^y for an integral y).
//
//===----------------------------------------------------------------------===//

#include "NumericIntrinsics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"

#include <cfloat>
#include <cmath>
#include <limits>

using namespace mlir;

namespace {

/// The instructions of the file header, by the name of their ROCDL op and
/// AMDGPU intrinsic; `f64`: whether the chip has an f64 form.
struct Instruction {
  StringLiteral name;
  bool f64;
};

constexpr Instruction kInstructions[] = {
    {"exp2", false}, {"log", false}, {"rcp", true},  {"rsq", true},
    {"sqrt", true},  {"sin", false}, {"cos", false}, {"tanh", false},
};

const Instruction *instruction(StringRef name) {
  for (const Instruction &entry : kInstructions)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

/// The instruction `op` is ("exp" for the op with no instruction), or "".
StringRef instructionName(Operation *op) {
  StringRef name;
  if (op->getName().getDialectNamespace() == "rocdl") {
    name = op->getName().stripDialect();
  } else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    name = call.getIntrin();
    if (!name.consume_front("llvm.amdgcn."))
      return "";
    auto [base, suffix] = name.split('.');
    if (!llvm::is_contained({"", "f16", "f32", "f64", "bf16"}, suffix))
      return ""; // rcp.legacy, rsq.clamp, ...: other instructions
    name = base;
  } else {
    return "";
  }
  return name == "exp" || instruction(name) ? name : "";
}

/// The generic intrinsic a call or intrinsic op is, by the name after
/// `llvm.` ("sin", "pow", ...), when the backend expands it otherwise
/// than the host; "".
StringRef genericName(Operation *op) {
  StringRef name;
  if (isa<LLVM::SinOp>(op))
    name = "sin";
  else if (isa<LLVM::CosOp>(op))
    name = "cos";
  else if (isa<LLVM::PowOp>(op))
    name = "pow";
  else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    name = call.getIntrin();
    if (!name.consume_front("llvm.") || name.starts_with("amdgcn."))
      return "";
    name = name.split('.').first;
  }
  if (!llvm::is_contained({"sin", "cos", "pow"}, name) ||
      op->getNumResults() != 1)
    return "";
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  bool expanded = name == "pow" ? op->getNumOperands() == 2
                                : op->getNumOperands() == 1 &&
                                      (element.isF16() || element.isF32());
  return expanded ? name : "";
}

//===----------------------------------------------------------------------===//
// Building the models
//===----------------------------------------------------------------------===//

/// Host ops on values of one float type (a scalar or a vector).
class Numerics {
public:
  Numerics(OpBuilder &b, Location loc, Type type)
      : b(b), loc(loc), type(type),
        element(cast<FloatType>(getElementTypeOrSelf(type))) {}

  /// A constant of type `t` (this type by default), a splat for vectors.
  Value constant(double value, Type t = {}) {
    t = t ? t : type;
    Attribute attr = b.getFloatAttr(getElementTypeOrSelf(t), value);
    if (auto vector = dyn_cast<VectorType>(t))
      attr = SplatElementsAttr::get(vector, attr);
    return LLVM::ConstantOp::create(b, loc, t, cast<TypedAttr>(attr));
  }

  Value compare(LLVM::FCmpPredicate predicate, Value x, Value y) {
    return LLVM::FCmpOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return LLVM::SelectOp::create(b, loc, condition, x, y);
  }
  Value abs(Value x) { return LLVM::FAbsOp::create(b, loc, x); }

  /// x with an f32 denormal replaced by a zero of its sign; other types
  /// as they are.
  Value flushF32(Value x) {
    if (!element.isF32())
      return x;
    Value magnitude = abs(x);
    Value tiny = compare(LLVM::FCmpPredicate::olt, magnitude,
                         constant(FLT_MIN, x.getType()));
    Value zero = LLVM::CopySignOp::create(b, loc, constant(0.0, x.getType()),
                                          x);
    return select(tiny, zero, x);
  }

  /// The f64 type of this shape, in which the models compute before one
  /// rounding to the type.
  Type wide() {
    Type f64 = b.getF64Type();
    if (auto vector = dyn_cast<VectorType>(type))
      return vector.clone(f64);
    return f64;
  }
  Value widen(Value x) {
    return element.isF64() ? x : LLVM::FPExtOp::create(b, loc, wide(), x);
  }
  Value narrow(Value x) {
    return element.isF64() ? x : LLVM::FPTruncOp::create(b, loc, type, x);
  }

  /// The instruction `name` of the file header on x.
  Value instruction(StringRef name, Value x) {
    x = flushF32(x);
    if (name == "sin" || name == "cos")
      return turns(name == "sin", x);
    Value w = widen(x), result;
    if (name == "exp2")
      result = LLVM::Exp2Op::create(b, loc, w);
    else if (name == "log")
      result = LLVM::Log2Op::create(b, loc, w);
    else if (name == "sqrt")
      result = LLVM::SqrtOp::create(b, loc, w);
    else if (name == "tanh")
      result = LLVM::TanhOp::create(b, loc, w);
    else {
      Value divisor = name == "rsq" ? Value(LLVM::SqrtOp::create(b, loc, w))
                                    : w; // rcp
      Value one = constant(1.0, wide());
      result = LLVM::FDivOp::create(b, loc, one, divisor);
    }
    result = narrow(result);
    // Only these can round to an f32 denormal.
    bool tinyResults = llvm::is_contained({"exp2", "rcp", "tanh"}, name);
    return tinyResults ? flushF32(result) : result;
  }

  /// v_sin / v_cos: sin or cos of 2 pi x, x in turns.
  Value turns(bool sine, Value x) {
    Value w = widen(x);
    // The fraction of a turn, exact in f64; +-0 keeps its sign (x - x
    // would be +0).
    Value whole = LLVM::RintOp::create(b, loc, w);
    Value fraction = LLVM::FSubOp::create(b, loc, w, whole);
    Value isZero = compare(LLVM::FCmpPredicate::oeq, w, constant(0.0, wide()));
    fraction = select(isZero, w, fraction);
    Value twoPi = constant(2 * M_PI, wide());
    Value angle = LLVM::FMulOp::create(b, loc, fraction, twoPi);
    Value value = sine ? Value(LLVM::SinOp::create(b, loc, angle))
                       : Value(LLVM::CosOp::create(b, loc, angle));
    value = narrow(value);
    // Beyond the domain a finite input gives 0 (inf - rint(inf) is
    // already NaN).
    Value magnitude = abs(x);
    Value large = compare(LLVM::FCmpPredicate::ogt, magnitude, constant(256.0));
    Value finite =
        compare(LLVM::FCmpPredicate::one, magnitude,
                constant(std::numeric_limits<double>::infinity()));
    Value outside = LLVM::AndOp::create(b, loc, large, finite);
    return select(outside, constant(0.0), value);
  }

  /// llvm.sin / llvm.cos as the backend expands them: the instruction of x
  /// turned from radians into turns by a multiplication in the type.
  Value radians(bool sine, Value x) {
    Value scaled = LLVM::FMulOp::create(b, loc, x, constant(0.5 * M_1_PI));
    return instruction(sine ? "sin" : "cos", scaled);
  }

  /// llvm.pow(x, y) as the backend expands it (file header).
  Value pow(Value x, Value y) {
    Value log = LLVM::Log2Op::create(b, loc, x);
    Value zero = constant(0.0);
    Value logIsZero = compare(LLVM::FCmpPredicate::oeq, log, zero);
    Value yIsZero = compare(LLVM::FCmpPredicate::oeq, y, zero);
    Value eitherZero = LLVM::OrOp::create(b, loc, logIsZero, yIsZero);
    Value product = LLVM::FMulOp::create(b, loc, y, log);
    return LLVM::Exp2Op::create(b, loc, select(eitherZero, zero, product));
  }

private:
  OpBuilder &b;
  Location loc;
  Type type;
  FloatType element;
};

} // namespace

bool mlir::fly::isNumericInstruction(Operation *op) {
  return !instructionName(op).empty() || !genericName(op).empty();
}

std::string mlir::fly::unsupportedNumericForm(Operation *op) {
  StringRef name = instructionName(op);
  if (name.empty())
    return "";
  std::string why;
  Type type = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
  if (name == "exp")
    why = "(llvm.amdgcn.exp is the export instruction, not e^x)";
  else if (op->getNumOperands() != 1 || !type ||
           op->getOperand(0).getType() != type)
    why = "in a form other than one value to one of its type";
  else if (!(type.isF16() || type.isBF16() || type.isF32() ||
             (type.isF64() && instruction(name)->f64))) {
    llvm::raw_string_ostream os(why);
    os << "on " << type << " (no chip has that form)";
  }
  if (why.empty())
    return "";
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
    return ("calls the AMDGPU intrinsic " + call.getIntrin() +
            ", which convert-rocdl-to-emu does not handle " + why)
        .str();
  return "has no emulator lowering " + why;
}

void mlir::fly::lowerNumericInstructions(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isNumericInstruction(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Numerics numerics(b, op->getLoc(), op->getResult(0).getType());
    Value result;
    if (StringRef name = instructionName(op); !name.empty())
      result = numerics.instruction(name, op->getOperand(0));
    else if (StringRef generic = genericName(op); generic == "pow")
      result = numerics.pow(op->getOperand(0), op->getOperand(1));
    else
      result = numerics.radians(generic == "sin", op->getOperand(0));
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}
