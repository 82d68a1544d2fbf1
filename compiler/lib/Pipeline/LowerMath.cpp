//===- LowerMath.cpp - Math ops to what the AMDGPU backend expands --------===//
//
// fly-lower-math (Passes.td). Code objects are linked without the ROCm
// device libraries, so no math op may become an `__ocml_*` call, which is
// what convert-gpu-to-rocdl makes of most of them. Before it runs, this pass
//   1. checks every math op, LLVM math intrinsic and AMDGPU transcendental
//      (ROCDL op or llvm.amdgcn.* call) of the gpu.module against what the
//      chip and the backend can compile, reporting each that cannot be, at
//      its location, naming it and the chip;
//   2. expands the math ops without an LLVM intrinsic the backend expands
//      inline, with MLIR's own patterns (polynomial approximations in f32,
//      f16 and bf16 through f32; expansions into exp, log, sqrt, ...);
//   3. converts the math ops to LLVM intrinsics (MLIR's math-to-llvm);
//   4. and turns the LLVM intrinsic ops convert-gpu-to-rocdl rejects
//      (it marks llvm.intr.exp2, sin, floor, ... illegal, from the time it
//      sent them to the device library, and has no pattern left for them)
//      into `llvm.call_intrinsic` of the same intrinsic, which it leaves
//      alone and which translates to the same LLVM IR.
//
//===----------------------------------------------------------------------===//

#include "fly/Arch/Chip.h"
#include "fly/Pipeline/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm-c/Target.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

namespace mlir::fly {
#define GEN_PASS_DEF_FLYLOWERMATH
#include "fly/Pipeline/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// What the backend compiles
//===----------------------------------------------------------------------===//

/// How a math op reaches the AMDGPU backend.
enum class MathLowering {
  /// math-to-llvm's LLVM intrinsic, which the backend expands inline.
  Intrinsic,
  /// MLIR's polynomial approximation, in f32 (f16 and bf16 through f32).
  Approximation,
  /// MLIR's expansion into other math and arith ops (or this file's).
  Expansion,
  /// None without the device library.
  Unsupported,
};

struct MathOpRule {
  StringLiteral name;
  MathLowering lowering;
  /// Whether f64 operands compile too: the backend expands the exact ops
  /// (and sqrt, division) in f64, but no transcendental function.
  bool f64;
};

constexpr MathOpRule kMathOps[] = {
    {"math.absf", MathLowering::Intrinsic, true},
    {"math.absi", MathLowering::Intrinsic, true},
    {"math.ceil", MathLowering::Intrinsic, true},
    {"math.floor", MathLowering::Intrinsic, true},
    {"math.trunc", MathLowering::Intrinsic, true},
    {"math.round", MathLowering::Intrinsic, true},
    {"math.roundeven", MathLowering::Intrinsic, true},
    {"math.copysign", MathLowering::Intrinsic, true},
    {"math.fma", MathLowering::Intrinsic, true},
    {"math.sqrt", MathLowering::Intrinsic, true},
    {"math.rsqrt", MathLowering::Intrinsic, true}, // 1 / sqrt(x)
    {"math.isnan", MathLowering::Intrinsic, true},
    {"math.isfinite", MathLowering::Intrinsic, true},
    {"math.ctlz", MathLowering::Intrinsic, true},
    {"math.cttz", MathLowering::Intrinsic, true},
    {"math.ctpop", MathLowering::Intrinsic, true},
    {"math.exp", MathLowering::Intrinsic, false},
    {"math.exp2", MathLowering::Intrinsic, false},
    {"math.log", MathLowering::Intrinsic, false},
    {"math.log2", MathLowering::Intrinsic, false},
    {"math.log10", MathLowering::Intrinsic, false},
    {"math.sin", MathLowering::Intrinsic, false},
    {"math.cos", MathLowering::Intrinsic, false},
    {"math.sincos", MathLowering::Intrinsic, false},
    {"math.powf", MathLowering::Intrinsic, false},
    {"math.fpowi", MathLowering::Intrinsic, false},
    {"math.tanh", MathLowering::Approximation, false},
    {"math.erf", MathLowering::Approximation, false},
    {"math.erfc", MathLowering::Approximation, false},
    {"math.atan", MathLowering::Approximation, false},
    {"math.atan2", MathLowering::Approximation, false},
    {"math.asin", MathLowering::Approximation, false},
    {"math.acos", MathLowering::Approximation, false},
    {"math.expm1", MathLowering::Approximation, false},
    {"math.log1p", MathLowering::Approximation, false},
    {"math.cbrt", MathLowering::Approximation, false},
    {"math.sinh", MathLowering::Expansion, false},
    {"math.cosh", MathLowering::Expansion, false},
    {"math.tan", MathLowering::Expansion, false},
    {"math.asinh", MathLowering::Expansion, false},
    {"math.acosh", MathLowering::Expansion, false},
    {"math.atanh", MathLowering::Expansion, false},
    {"math.clampf", MathLowering::Expansion, true},
    {"math.isinf", MathLowering::Expansion, true},
    {"math.isnormal", MathLowering::Expansion, true},
    {"math.ipowi", MathLowering::Unsupported, false},
};

const MathOpRule *mathOpRule(StringRef name) {
  for (const MathOpRule &rule : kMathOps)
    if (rule.name == name)
      return &rule;
  return nullptr;
}

bool isApproximated(StringRef name) {
  const MathOpRule *rule = mathOpRule(name);
  return rule && rule->lowering == MathLowering::Approximation;
}

/// The LLVM math intrinsics (by the name after `llvm.` and before any type
/// suffix) the backend has no expansion of: it would call the device
/// library (tanhf, ...), and fail to select the call.
constexpr StringLiteral kLibraryOnlyIntrinsics[] = {
    "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh"};
/// Those it expands for f16 and f32 but not for f64.
constexpr StringLiteral kNoF64Intrinsics[] = {
    "exp", "exp2", "exp10", "log", "log2", "log10",
    "sin", "cos", "sincos", "pow", "powi"};

/// One of the chip's transcendental instructions, as a ROCDL op
/// (`rocdl.exp2`) or an `llvm.call_intrinsic` of its AMDGPU intrinsic
/// (`llvm.amdgcn.exp2`, with or without a type suffix): the element types
/// every chip has it for. bf16 forms need LLVM's "bf16-trans-insts"
/// feature, all forms of `feature` when it is set.
struct TransInstruction {
  StringLiteral name;
  StringLiteral mnemonic; // v_<mnemonic>_<type>
  bool f16, f32, f64;
  StringLiteral feature;
};

constexpr TransInstruction kTransInstructions[] = {
    {"exp2", "exp", true, true, false, ""},
    {"log", "log", true, true, false, ""},
    {"sin", "sin", true, true, false, ""},
    {"cos", "cos", true, true, false, ""},
    {"rcp", "rcp", true, true, true, ""},
    {"rsq", "rsq", true, true, true, ""},
    {"sqrt", "sqrt", true, true, true, ""},
    {"tanh", "tanh", true, true, false, "tanh-insts"},
};
constexpr StringLiteral kBF16TransFeature = "bf16-trans-insts";

const TransInstruction *transInstruction(StringRef name) {
  for (const TransInstruction &trans : kTransInstructions)
    if (trans.name == name)
      return &trans;
  return nullptr;
}

/// The instruction an op stands for: a ROCDL math op, or a call of
/// llvm.amdgcn.NAME / llvm.amdgcn.NAME.TYPE; "" for another op.
StringRef transName(Operation *op) {
  StringRef name;
  if (op->getName().getDialectNamespace() == "rocdl")
    name = op->getName().stripDialect();
  else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
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
  return name == "exp" || transInstruction(name) ? name : "";
}

/// Whether LLVM's AMDGPU target gives `chip` the subtarget feature
/// `feature` (its own table of which chip has which instructions).
bool chipHasFeature(StringRef chip, StringRef feature) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
  });
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, chip, ""));
  return info && info->checkFeatures(("+" + feature).str());
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The element type of an op's first operand (its first result if none).
Type elementType(Operation *op) {
  if (op->getNumOperands())
    return getElementTypeOrSelf(op->getOperand(0).getType());
  return op->getNumResults() ? getElementTypeOrSelf(op->getResult(0).getType())
                             : Type();
}

//===----------------------------------------------------------------------===//
// Expansions MLIR does not have
//===----------------------------------------------------------------------===//

Value floatSplat(OpBuilder &b, Location loc, Type type, const APFloat &value) {
  auto attr = b.getFloatAttr(getElementTypeOrSelf(type), value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(shaped, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// isinf(x): |x| == inf.
struct ExpandIsInf : OpRewritePattern<math::IsInfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsInfOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getOperand().getType();
    auto &semantics =
        cast<FloatType>(getElementTypeOrSelf(type)).getFloatSemantics();
    Value magnitude = math::AbsFOp::create(rewriter, loc, op.getOperand());
    Value inf = floatSplat(rewriter, loc, type, APFloat::getInf(semantics));
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::OEQ,
                                               magnitude, inf);
    return success();
  }
};

/// isnormal(x): smallest normal <= |x| < inf (false for NaN).
struct ExpandIsNormal : OpRewritePattern<math::IsNormalOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsNormalOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getOperand().getType();
    auto &semantics =
        cast<FloatType>(getElementTypeOrSelf(type)).getFloatSemantics();
    Value magnitude = math::AbsFOp::create(rewriter, loc, op.getOperand());
    Value smallest = floatSplat(rewriter, loc, type,
                                APFloat::getSmallestNormalized(semantics));
    Value inf = floatSplat(rewriter, loc, type, APFloat::getInf(semantics));
    Value notSmall = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGE, magnitude, smallest);
    Value finite = arith::CmpFOp::create(rewriter, loc,
                                         arith::CmpFPredicate::OLT, magnitude,
                                         inf);
    rewriter.replaceOpWithNewOp<arith::AndIOp>(op, notSmall, finite);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct FlyLowerMath : public mlir::fly::impl::FlyLowerMathBase<FlyLowerMath> {
  using FlyLowerMathBase::FlyLowerMathBase;

  void runOnOperation() override {
    const ::fly::arch::ChipInfo *info = ::fly::arch::lookupChip(chip);
    if (!info) {
      getOperation().emitError()
          << "fly-lower-math: unknown chip '" << chip
          << "'; supported chips: " << ::fly::arch::supportedChipList();
      return signalPassFailure();
    }
    bool hasMathOps = false;
    if (failed(check(hasMathOps)))
      return signalPassFailure();
    // The rewrite drivers only where there is something to rewrite: a
    // module without math ops stays exactly as it is.
    if (hasMathOps && (failed(expand()) || failed(convert())))
      return signalPassFailure();
    hideRejectedIntrinsics();
  }

  /// Step 1: every op the chip and the backend cannot compile, reported;
  /// `hasMathOps`: whether there is any math op.
  LogicalResult check(bool &hasMathOps) {
    bool ok = true;
    getOperation().walk([&](Operation *op) {
      hasMathOps |= op->getName().getDialectNamespace() == "math";
      std::string why = unsupportedReason(op);
      if (!why.empty()) {
        op->emitOpError() << why;
        ok = false;
      }
    });
    return success(ok);
  }

  /// Why `op` cannot be compiled for the chip, or "".
  std::string unsupportedReason(Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (op->getName().getDialectNamespace() == "math")
      return mathOpReason(op, name);
    if (StringRef trans = transName(op); !trans.empty())
      return transReason(op, trans);
    StringRef intrinsic;
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
      intrinsic = call.getIntrin();
    else if (name.starts_with("llvm.intr."))
      intrinsic = name.drop_front(strlen("llvm.intr."));
    else
      return "";
    intrinsic.consume_front("llvm.");
    StringRef base = intrinsic.split('.').first;
    if (llvm::is_contained(kLibraryOnlyIntrinsics, base))
      return llvm::formatv(
          "has no AMDGPU instruction sequence for {0}: the backend would "
          "call the device library's {1}, which FlyDSL does not link; use "
          "math.{1} (fly-lower-math expands it inline)",
          chip, base);
    if (llvm::is_contained(kNoF64Intrinsics, base) && elementType(op) &&
        elementType(op).isF64())
      return llvm::formatv(
          "on f64 has no AMDGPU instruction sequence for {0}: the backend "
          "would call the device library, which FlyDSL does not link; "
          "compute it in f32",
          chip);
    return "";
  }

  std::string mathOpReason(Operation *op, StringRef name) {
    const MathOpRule *rule = mathOpRule(name);
    if (!rule || rule->lowering == MathLowering::Unsupported)
      return llvm::formatv("has no lowering for {0} without the ROCm device "
                           "library, which FlyDSL does not link",
                           chip);
    Type element = elementType(op);
    if (!rule->f64 && element && isa<FloatType>(element) &&
        !element.isF32() && !element.isF16() && !element.isBF16())
      return llvm::formatv(
          "on {0} cannot be compiled for {1}: AMDGPU has no inline {2} of "
          "that type (only the device library's, which FlyDSL does not "
          "link); compute it in f32",
          typeText(element), chip, name.drop_front(strlen("math.")));
    return "";
  }

  std::string transReason(Operation *op, StringRef name) {
    std::string what = isa<LLVM::CallIntrinsicOp>(op)
                           ? cast<LLVM::CallIntrinsicOp>(op).getIntrin().str()
                           : op->getName().getStringRef().str();
    if (name == "exp")
      return "has no AMDGPU instruction: its intrinsic, llvm.amdgcn.exp, is "
             "the export instruction, not e^x; use rocdl.exp2 of x * log2(e) "
             "(v_exp_f32) or math.exp";
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        op->getOperand(0).getType() != op->getResult(0).getType() ||
        !isa<FloatType>(op->getResult(0).getType()))
      return "takes one scalar float and returns one of the same type (the "
             "instruction works on one value; apply it per element)";
    const TransInstruction &trans = *transInstruction(name);
    Type type = op->getResult(0).getType();
    std::string suffix = typeText(type);
    std::string instruction = ("v_" + trans.mnemonic + "_" + suffix).str();
    bool anyChip = (type.isF16() && trans.f16) || (type.isF32() && trans.f32) ||
                   (type.isF64() && trans.f64) || type.isBF16();
    if (!anyChip)
      return "on " + suffix + ": AMDGPU has no " + instruction +
             " instruction on any chip";
    StringRef feature = type.isBF16() ? kBF16TransFeature : trans.feature;
    if (feature.empty() || chipHasFeature(chip, feature))
      return "";
    return instruction + " is not an instruction of " + chip +
           " (chips that have it: " +
           ::fly::arch::chipsWhere([&](const ::fly::arch::ChipInfo &c) {
             return chipHasFeature(c.name, feature);
           }) +
           ")";
  }

  /// Step 2: the math ops without a backend intrinsic, in terms of those
  /// with one.
  LogicalResult expand() {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    math::populateExpansionPatterns(
        patterns, {"sinh", "cosh", "tan", "asinh", "acosh", "atanh", "clampf"});
    patterns.add<ExpandIsInf, ExpandIsNormal>(context);
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// Step 3: math ops to LLVM intrinsics.
  LogicalResult convert() {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateMathToLLVMConversionPatterns(converter, patterns,
                                         /*approximateLog1p=*/true);
    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalDialect<math::MathDialect>();
    return applyPartialConversion(getOperation(), target, std::move(patterns));
  }

  /// Step 4: convert-gpu-to-rocdl's illegal LLVM intrinsic ops as calls.
  void hideRejectedIntrinsics() {
    getOperation().walk([](Operation *op) {
      if (!isa<LLVM::CosOp, LLVM::ExpOp, LLVM::Exp2Op, LLVM::FCeilOp,
               LLVM::FFloorOp, LLVM::LogOp, LLVM::Log10Op, LLVM::Log2Op,
               LLVM::PowOp, LLVM::SinOp>(op))
        return;
      OpBuilder b(op);
      auto flags = cast<LLVM::FastmathFlagsInterface>(op).getFastmathAttr();
      StringRef name = op->getName().getStringRef();
      name.consume_front("llvm.intr.");
      auto call = LLVM::CallIntrinsicOp::create(
          b, op->getLoc(), op->getResultTypes(),
          b.getStringAttr("llvm." + name), op->getOperands(), flags);
      op->replaceAllUsesWith(call->getResults());
      op->erase();
    });
  }
};

} // namespace
