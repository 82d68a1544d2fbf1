//===- FlyToROCDL.cpp - fly pointers and memory to the llvm dialect -------===//
//
// convert-fly-to-rocdl (Passes.td says what each op becomes). The pass
// first checks that every fly op left is one it converts, or a construction
// op that only feeds those, so that a missing lowering is an error naming
// the op rather than a failed legalization deep inside the conversion.
// Atom calls are lowered by their operations' type interfaces
// (FlyAtomInterfaces.td): the target-neutral ones (Fly/IR/UniversalAtoms.cpp)
// and the ROCm ones of fly_rocdl alike.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/FlyToROCDL/Passes.h"
#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/BufferPointer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::fly {
#define GEN_PASS_DEF_CONVERTFLYTOROCDL
#include "fly/Conversion/FlyToROCDL/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;
namespace alg = ::fly::algebra;

namespace {

/// The symbol of the dynamic shared memory in each gpu.module.
constexpr StringLiteral kDynSharedSymbol = "__fly_dyn_shared";

bool isFlyOp(Operation *op) {
  return op->getDialect() && isa<FlyDialect>(op->getDialect());
}

bool isFlyType(Type type) { return isa<FlyDialect>(type.getDialect()); }

/// The LLVM address space of a fly one; nullopt for a dialect attribute.
std::optional<unsigned> getLLVMAddressSpace(PointerType type) {
  if (std::optional<AddressSpace> space = type.getKnownAddressSpace())
    return unsigned(*space);
  return std::nullopt;
}

/// The width of an address in LLVM address space `space` on AMDGPU: LDS
/// (3) and scratch (5) addresses are 32-bit, the others 64-bit.
unsigned getAddressBits(unsigned space) {
  return space == unsigned(AddressSpace::Shared) ||
                 space == unsigned(AddressSpace::Register)
             ? 32
             : 64;
}

/// Whether `type` is a float LLVM IR has no type for (the 8-, 6- and
/// 4-bit floats and E8M0): in LLVM IR such a value is an integer of its
/// width, as LLVMTypeConverter makes it.
bool isStorageOnlyFloat(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && !LLVM::isCompatibleType(f);
}

/// Pointers and memrefs become LLVM pointers; floats LLVM IR lacks, and
/// vectors of them, become integers of their width (in every LLVM and
/// ROCDL op the patterns create, see LLVMOpTypeLegalization); every other
/// type stays (the algebra types only describe offsets and swizzles the
/// patterns read, and go away with their construction ops).
class FlyTypeConverter : public TypeConverter {
public:
  FlyTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](FloatType type) -> Type {
      if (!isStorageOnlyFloat(type))
        return type;
      return IntegerType::get(type.getContext(), type.getWidth());
    });
    addConversion([](VectorType type) -> Type {
      if (!isStorageOnlyFloat(type.getElementType()))
        return type;
      return type.clone(IntegerType::get(
          type.getContext(), type.getElementType().getIntOrFloatBitWidth()));
    });
    // Values of the unconverted ops (arith, vector) meet converted ones
    // through casts, which the LLVM lowering of those ops cancels.
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
    addConversion([](PointerType type) -> Type {
      if (fly_rocdl::isBufferPointer(type))
        return fly_rocdl::getBufferPointerLLVMType(type.getContext());
      std::optional<unsigned> space = getLLVMAddressSpace(type);
      if (!space)
        return Type();
      return LLVM::LLVMPointerType::get(type.getContext(), *space);
    });
    addConversion([this](MemTensorType type) -> Type {
      return convertType(type.getPointer());
    });
  }
};

//===----------------------------------------------------------------------===//
// Which ops the conversion handles
//===----------------------------------------------------------------------===//

/// Ops this pass converts.
bool isConverted(Operation *op) {
  if (isa<MakePtrOp, PtrToLLVMOp, ExtractAlignedPointerAsIndexOp, AddOffsetOp,
          ApplySwizzleOp, PtrLoadOp, PtrStoreOp, GetDynSharedOp, MemRefAllocaOp,
          CopyAtomCallOp, CopyAtomCallSSAOp, MmaAtomCallOp, MmaAtomCallSSAOp,
          PrintOp>(op))
    return true;
  if (auto view = dyn_cast<MakeViewOp>(op))
    return isa<MemTensorType>(view.getType());
  if (auto iter = dyn_cast<GetIterOp>(op))
    return isa<MemTensorType>(iter.getTensor().getType());
  return false;
}

/// Ops that only build the static description of what a converted op
/// reads from its type or a constant (an offset, a swizzle, a layout, an
/// atom).
bool isConstruction(Operation *op) {
  return isa<StaticOp, MakeIntTupleOp, MakeLayoutOp, MakeComposedLayoutOp,
             MakeTileOp, MakeCopyAtomOp, MakeMmaAtomOp, MakeLayoutTVOp,
             MakeTiledCopyOp, MakeTiledMmaOp, AtomSetValueOp>(op);
}

/// The atom calls among the converted ops.
bool isAtomCall(Operation *op) {
  return isa<CopyAtomCallOp, CopyAtomCallSSAOp, MmaAtomCallOp,
             MmaAtomCallSSAOp>(op);
}

/// The pointer type inside a fly type, if any.
PointerType getPointerType(Type type) {
  if (auto memref = dyn_cast<MemTensorType>(type))
    return memref.getPointer();
  return dyn_cast<PointerType>(type);
}

/// The converted ops that take buffer pointers (a resource and an offset):
/// views, offsets, swizzles and atom calls; the buffer copy atoms read and
/// write them.
bool takesBufferPointers(Operation *op) {
  return isa<AddOffsetOp, ApplySwizzleOp, MakeViewOp, GetIterOp>(op) ||
         isAtomCall(op);
}

/// A converted op's pointers must have an LLVM address space, or be
/// buffer pointers where the op takes them.
LogicalResult checkAddressSpaces(Operation *op) {
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes())) {
    PointerType pointer = getPointerType(type);
    if (pointer && fly_rocdl::isBufferPointer(pointer)) {
      if (takesBufferPointers(op))
        continue;
      return op->emitOpError("uses the buffer pointer type ")
             << pointer
             << ", which has no LLVM address: buffer memory is read and "
                "written by buffer copy atoms (fx.rocdl.BufferCopy*)";
    }
    if (pointer && !getLLVMAddressSpace(pointer))
      return op->emitOpError("uses a pointer in the address space ")
             << pointer.getAddressSpace()
             << ", which convert-fly-to-rocdl does not lower (generic, "
                "global, shared and register pointers only)";
  }
  return success();
}

/// An MMA atom call must be of universal_fma, the MMA operation lowered
/// here. The memref operands of an atom call are lowered as the address of
/// their value 0, which is the view's pointer only for a plain layout (a
/// swizzled one is rebuilt by fly-layout-lowering as a view at its first
/// element); their integer elements must be signless, as LLVM's are.
LogicalResult checkAtomCallOperands(Operation *op,
                                    const ::fly::arch::ChipInfo *chip) {
  if (chip) {
    std::string missing = checkAvailable(op->getOperand(0).getType(), *chip);
    if (!missing.empty())
      return op->emitOpError() << missing;
  }
  for (Type type : op->getOperandTypes()) {
    auto memref = dyn_cast<MemTensorType>(type);
    if (!memref)
      continue;
    if (!isa<LayoutType>(memref.getLayout()))
      return op->emitOpError("has the memref operand ")
             << type
             << " whose layout is not a plain layout: convert-fly-to-rocdl "
                "reads an atom's values at the memref's pointer, so "
                "fly-layout-lowering must have rebuilt it as a view at its "
                "first element";
  }
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes())) {
    auto memref = dyn_cast<MemTensorType>(type);
    auto integer = dyn_cast<IntegerType>(
        memref ? memref.getElementType() : getElementTypeOrSelf(type));
    if (integer && !integer.isSignless())
      return op->emitOpError("has the operand or result type ")
             << type
             << " of signed or unsigned integers: convert-fly-to-rocdl "
                "lowers atom calls on signless integers only";
  }
  return success();
}

/// Reports every fly op that would survive the conversion, and every
/// fly-typed function argument. A construction op survives only through its
/// users, so it is reported only when a non-fly op uses it (a leftover fly
/// user is reported itself).
LogicalResult checkLeftovers(Operation *root,
                             const ::fly::arch::ChipInfo *chip) {
  bool ok = true;
  root->walk([&](Operation *op) {
    if (!isFlyOp(op))
      return;
    if (isConverted(op)) {
      ok &= succeeded(checkAddressSpaces(op));
      if (isAtomCall(op))
        ok &= succeeded(checkAtomCallOperands(op, chip));
      return;
    }
    if (isConstruction(op) &&
        llvm::all_of(op->getUsers(),
                     [](Operation *user) { return isFlyOp(user); }))
      return;
    op->emitOpError("is left for convert-fly-to-rocdl, which lowers only "
                    "pointers, memory accesses and atom calls: "
                    "fly-layout-lowering must have removed it");
    ok = false;
  });
  // A buffer resource's 4th word depends on the chip.
  root->walk([&](fly_rocdl::MakeBufferPtrOp op) {
    if (chip)
      return;
    op->emitOpError("needs the chip (convert-fly-to-rocdl chip=...): the "
                    "flags word of a buffer resource differs between CDNA "
                    "and RDNA");
    ok = false;
  });
  root->walk([&](FunctionOpInterface function) {
    if (function.isExternal())
      return;
    for (BlockArgument arg : function.getFunctionBody().getArguments()) {
      if (!isFlyType(arg.getType()))
        continue;
      function->emitOpError("has argument #")
          << arg.getArgNumber() << " of fly type " << arg.getType()
          << ", which convert-fly-to-rocdl does not lower: kernel arguments "
             "go through fly-rewrite-func-signature";
      ok = false;
    }
  });
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// An op that is its (converted) first operand.
template <typename Op>
struct ForwardOperand : public OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperands().front());
    return success();
  }
};

/// fly.extract_aligned_pointer_as_index: the memref's converted pointer,
/// cast to the result's address space.
struct ExtractAlignedPointerLowering
    : public OpConversionPattern<ExtractAlignedPointerAsIndexOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExtractAlignedPointerAsIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value pointer = adaptor.getSource();
    if (pointer.getType() != op.getType())
      pointer = LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(),
                                              op.getType(), pointer);
    rewriter.replaceOp(op, pointer);
    return success();
  }
};

/// The offset of an add_offset as a static number or an integer value.
std::variant<int64_t, Value> getOffset(Value offset) {
  if (isa<IntegerType>(offset.getType()))
    return offset;
  auto type = cast<IntTupleType>(offset.getType());
  const alg::IntTuple &t = type.getValue();
  if (t.isLeaf() && t.leaf().isStatic())
    return t.leaf().value();
  auto make = offset.getDefiningOp<MakeIntTupleOp>();
  if (make && make->getNumOperands() == 1)
    return make->getOperand(0);
  return Value();
}

struct AddOffsetLowering : public OpConversionPattern<AddOffsetOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddOffsetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elementType = op.getPtr().getType().getElementType();
    Type resultType = getTypeConverter()->convertType(op.getType());
    std::variant<int64_t, Value> offset = getOffset(op.getOffset());
    if (fly_rocdl::isBufferPointer(op.getPtr().getType()))
      return lowerOnBuffer(op, adaptor, rewriter, offset);
    if (const int64_t *c = std::get_if<int64_t>(&offset)) {
      if (*c == 0) {
        rewriter.replaceOp(op, adaptor.getPtr());
        return success();
      }
      // A constant index of the GEP itself when it fits its 32 bits.
      if (*c == int64_t(int32_t(*c))) {
        rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
            op, resultType, elementType, adaptor.getPtr(),
            ArrayRef<LLVM::GEPArg>{int32_t(*c)},
            LLVM::GEPNoWrapFlags::inbounds);
        return success();
      }
      Value index = LLVM::ConstantOp::create(
          rewriter, op.getLoc(), rewriter.getI64Type(),
          rewriter.getI64IntegerAttr(*c));
      rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
          op, resultType, elementType, adaptor.getPtr(), ValueRange{index},
          LLVM::GEPNoWrapFlags::inbounds);
      return success();
    }
    Value index = std::get<Value>(offset);
    if (!index)
      return rewriter.notifyMatchFailure(
          op, "the offset is neither static nor fly.make_int_tuple");
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, resultType, elementType,
                                             adaptor.getPtr(),
                                             ValueRange{index},
                                             LLVM::GEPNoWrapFlags::inbounds);
    return success();
  }

  /// A buffer pointer's element offset moves (32 bits, wrapping).
  LogicalResult lowerOnBuffer(AddOffsetOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter,
                              std::variant<int64_t, Value> offset) const {
    Location loc = op.getLoc();
    Value delta;
    if (const int64_t *c = std::get_if<int64_t>(&offset)) {
      if (*c == 0) {
        rewriter.replaceOp(op, adaptor.getPtr());
        return success();
      }
      delta = arith::ConstantIntOp::create(rewriter, loc, int32_t(*c), 32);
    } else if (!(delta = std::get<Value>(offset))) {
      return rewriter.notifyMatchFailure(
          op, "the offset is neither static nor fly.make_int_tuple");
    }
    rewriter.replaceOp(op, fly_rocdl::addBufferOffset(rewriter, loc,
                                                      adaptor.getPtr(), delta));
    return success();
  }
};

/// CuTe's Swizzle<B,M,S> on a byte address x: the B bits at M + max(0,S)
/// are xored into the B bits at M - min(0,S), i.e.
/// x ^ ((x & readMask) >> S) (a left shift by -S for S < 0).
struct ApplySwizzleLowering : public OpConversionPattern<ApplySwizzleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ApplySwizzleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const alg::Swizzle &s =
        cast<SwizzleType>(op.getSwizzle().getType()).getValue();
    Value ptr = adaptor.getPtr();
    if (s.bits == 0) {
      rewriter.replaceOp(op, ptr);
      return success();
    }
    Location loc = op.getLoc();
    auto ptrType = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
    Type intType = rewriter.getIntegerType(
        ptrType ? getAddressBits(ptrType.getAddressSpace()) : 32);
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(intType, v));
    };
    int64_t readMask = ((int64_t(1) << s.bits) - 1)
                       << (s.base + std::max(0, s.shift));
    // A buffer pointer's byte offset is swizzled (the resource's base is
    // at least as aligned as the swizzle's period), then turned back into
    // elements.
    int64_t elementBytes = op.getPtr().getType().getElementByteSize();
    bool buffer = !ptrType;
    Value address =
        buffer ? fly_rocdl::getBufferByteOffset(rewriter, loc, ptr, elementBytes)
               : Value(LLVM::PtrToIntOp::create(rewriter, loc, intType, ptr));
    Value read = arith::AndIOp::create(rewriter, loc, address,
                                       constant(readMask));
    Value moved =
        s.shift >= 0
            ? Value(arith::ShRUIOp::create(rewriter, loc, read,
                                           constant(s.shift)))
            : Value(arith::ShLIOp::create(rewriter, loc, read,
                                          constant(-s.shift)));
    Value swizzled = arith::XOrIOp::create(rewriter, loc, address, moved);
    if (buffer) {
      Value elements = elementBytes == 1
                           ? swizzled
                           : Value(arith::DivUIOp::create(
                                 rewriter, loc, swizzled,
                                 constant(elementBytes)));
      rewriter.replaceOp(op, fly_rocdl::packBufferPointer(
                                 rewriter, loc,
                                 fly_rocdl::getBufferRsrc(rewriter, loc, ptr),
                                 elements));
      return success();
    }
    Value delta = arith::SubIOp::create(rewriter, loc, swizzled, address);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, ptrType, rewriter.getI8Type(), ptr, ValueRange{delta});
    return success();
  }
};

struct PtrLoadLowering : public OpConversionPattern<PtrLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PtrLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(
        op, op.getType(), adaptor.getPtr(),
        op.getPtr().getType().getAlignment());
    return success();
  }
};

struct PtrStoreLowering : public OpConversionPattern<PtrStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PtrStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValue(), adaptor.getPtr(),
        op.getPtr().getType().getAlignment());
    return success();
  }
};

struct GetDynSharedLowering : public OpConversionPattern<GetDynSharedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GetDynSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(
        op, getTypeConverter()->convertType(op.getType()), kDynSharedSymbol);
    return success();
  }
};

/// fly.print: gpu.printf of its scalars, each static fly value's text put
/// into the format in place of its `%s` (with `%` doubled).
struct PrintLowering : public OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef format = op.getFormat();
    std::string out;
    SmallVector<Value> args;
    size_t copied = 0; // the format up to here is in `out`
    auto copy = [&](size_t end) {
      // Literal text, `%%` included, passes through as written.
      out += format.slice(copied, end).str();
      copied = end;
    };
    for (auto [operand, span] : llvm::enumerate(op.getConversions())) {
      auto [begin, end] = span;
      copy(begin);
      copied = std::min(end + 1, format.size());
      Value original = op.getValues()[operand];
      Value value = adaptor.getValues()[operand];
      if (isAlgebraType(original.getType())) {
        out += printedValue(original.getType());
        continue;
      }
      out += format.slice(begin, copied).str();
      if (value.getType().isIndex()) // printf has no index: i64
        value = arith::IndexCastOp::create(rewriter, op.getLoc(),
                                           rewriter.getI64Type(), value);
      args.push_back(value);
    }
    copy(format.size());
    rewriter.replaceOpWithNewOp<gpu::PrintfOp>(op, out, args);
    return success();
  }

  /// `(4,8):(1,4)` of `!fly.layout<(4,8):(1,4)>`, with `%` doubled.
  static std::string printedValue(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    size_t open = text.find('<'), close = text.rfind('>');
    std::string value = open == std::string::npos || close <= open
                            ? text
                            : text.substr(open + 1, close - open - 1);
    std::string escaped;
    for (char c : value)
      escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
  }
};

struct MemRefAllocaLowering : public OpConversionPattern<MemRefAllocaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MemRefAllocaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemTensorType type = op.getType();
    auto layout = getAlgebraValueAs<alg::Layout>(type.getLayout());
    if (!layout)
      return rewriter.notifyMatchFailure(op, "a fragment has a plain layout");
    alg::Arith ar;
    alg::Int cosize = alg::cosize(ar, *layout);
    if (ar.failed() || !cosize.isStatic())
      return rewriter.notifyMatchFailure(op, "the cosize is not static");
    auto function = op->getParentOfType<FunctionOpInterface>();
    if (!function || function.isExternal())
      return rewriter.notifyMatchFailure(op, "not inside a function body");
    // Entry-block allocas are the ones LLVM promotes to registers.
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&function.getFunctionBody().front());
    Location loc = op.getLoc();
    Value count = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI32Type(),
        rewriter.getI32IntegerAttr(std::max<int64_t>(cosize.value(), 1)));
    Value alloca = LLVM::AllocaOp::create(
        rewriter, loc, getTypeConverter()->convertType(type),
        type.getElementType(), count, type.getAlignment());
    rewriter.replaceOp(op, alloca);
    return success();
  }
};

/// fly_rocdl.make_buffer_ptr: rocdl.make.buffer.rsrc of the base, stride
/// 0, num_records and the chip's word 3 (fly::arch), at offset 0.
struct MakeBufferPtrLowering
    : public OpConversionPattern<fly_rocdl::MakeBufferPtrOp> {
  MakeBufferPtrLowering(const TypeConverter &converter, MLIRContext *ctx,
                        const ::fly::arch::ChipInfo *chip)
      : OpConversionPattern(converter, ctx), chip(chip) {}

  LogicalResult
  matchAndRewrite(fly_rocdl::MakeBufferPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!chip)
      return rewriter.notifyMatchFailure(op, "no chip");
    Location loc = op.getLoc();
    Value stride = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI16Type(),
                                            rewriter.getI16IntegerAttr(0));
    Value flags = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI32Type(),
        rewriter.getI32IntegerAttr(int32_t(chip->rawBufferWord3())));
    Value rsrc = ROCDL::MakeBufferRsrcOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 8),
        adaptor.getPtr(), stride, adaptor.getNumRecords(), flags);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, 0, 32);
    rewriter.replaceOp(op,
                       fly_rocdl::packBufferPointer(rewriter, loc, rsrc, zero));
    return success();
  }

  const ::fly::arch::ChipInfo *chip;
};

struct GetBufferRsrcLowering
    : public OpConversionPattern<fly_rocdl::GetBufferRsrcOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fly_rocdl::GetBufferRsrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, fly_rocdl::getBufferRsrc(rewriter, op.getLoc(),
                                                    adaptor.getPtr()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Atom calls
//===----------------------------------------------------------------------===//
//
// The memref operands of an atom call are views with a plain layout over
// contiguous values (checkAtomCallOperands, the ops' verifiers), so the
// address of value 0 is the converted memref, an LLVM pointer, and the
// values are one vector access there, with the alignment the memref's
// pointer type proves.

/// `fly.copy_atom_call`: one whole call of the atom's copy operation.
struct CopyAtomCallLowering : public OpConversionPattern<CopyAtomCallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CopyAtomCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type atomLike = op.getAtom().getType();
    alg::Arith ar;
    alg::CopyAtom atom = getCopyAtom(ar, getCopyAtomType(atomLike));
    if (ar.failed() || !atom.numValSrc().isStatic())
      return rewriter.notifyMatchFailure(op, "the atom has no static count");
    if (failed(getCopyOperation(atomLike).emitCopy(
            rewriter, op.getLoc(), op.getAtom(), adaptor.getSrc(),
            op.getSrc().getType(), adaptor.getDst(), op.getDst().getType(),
            atom.numValSrc().value())))
      return rewriter.notifyMatchFailure(op, "the operation has no lowering");
    rewriter.eraseOp(op);
    return success();
  }
};

/// `fly.copy_atom_call_ssa`: the load form is the operation's read of the
/// source, the store form its write of the values.
struct CopyAtomCallSSALowering
    : public OpConversionPattern<CopyAtomCallSSAOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CopyAtomCallSSAOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    CopyOpTypeInterface copy = getCopyOperation(op.getAtom().getType());
    if (auto src = dyn_cast<MemTensorType>(op.getSrc().getType())) {
      auto type = cast<VectorType>(op.getResult().getType());
      Value values = copy.emitRead(rewriter, loc, op.getAtom(),
                                   adaptor.getSrc(), src,
                                   type.getNumElements());
      if (!values)
        return rewriter.notifyMatchFailure(op, "the operation has no read");
      rewriter.replaceOp(op, values);
      return success();
    }
    if (failed(copy.emitWrite(rewriter, loc, op.getAtom(),
                              adaptor.getSrc(), adaptor.getDst(),
                              op.getDst().getType())))
      return rewriter.notifyMatchFailure(op, "the operation has no write");
    rewriter.eraseOp(op);
    return success();
  }
};

/// `fly.mma_atom_call_ssa`: the operation's emitMma on the register values.
struct MmaAtomCallSSALowering : public OpConversionPattern<MmaAtomCallSSAOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MmaAtomCallSSAOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value d = getMmaOperation(op.getAtom().getType())
                  .emitMma(rewriter, op.getLoc(), op.getAtom(),
                           adaptor.getA(), adaptor.getB(), adaptor.getC());
    if (!d)
      return rewriter.notifyMatchFailure(op, "the operation has no lowering");
    rewriter.replaceOp(op, d);
    return success();
  }
};

/// `fly.mma_atom_call` on memory (fragments in registers or shared
/// memory): a, b and c loaded as vectors of the values the atom gives each
/// thread, the values of the auxiliary operands set as the atom's fields,
/// the operation's emitMma, d stored.
struct MmaAtomCallLowering : public OpConversionPattern<MmaAtomCallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MmaAtomCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type atomLike = op.getAtom().getType();
    alg::Arith ar;
    alg::MmaAtom traits = getMmaAtom(ar, getMmaAtomType(atomLike));
    if (ar.failed())
      return rewriter.notifyMatchFailure(op, "the atom has no traits");
    auto count = [&](alg::MmaOperand operand) -> int64_t {
      alg::Int n = alg::size(ar, alg::getMode(ar, alg::atomLayoutTV(traits, operand), {1}));
      return n.isStatic() ? n.value() : 0;
    };
    std::array<Type, 4> elements = getMmaElementTypes(getMmaAtomType(atomLike));
    auto element = [](Value memref) {
      return cast<MemTensorType>(memref.getType()).getElementType();
    };
    // A and B may hold the atom's values packed in integers.
    int64_t nA = mmaOperandCount(element(op.getAOperand()), elements[1],
                                 count(alg::MmaOperand::A)),
            nB = mmaOperandCount(element(op.getBOperand()), elements[2],
                                 count(alg::MmaOperand::B)),
            nC = count(alg::MmaOperand::C);
    if (ar.failed() || !nA || !nB || !nC)
      return rewriter.notifyMatchFailure(op, "the atom has no static counts");
    Location loc = op.getLoc();
    auto load = [&](Value converted, Value memref, int64_t n) {
      return emitVectorLoad(rewriter, loc, converted,
                            cast<MemTensorType>(memref.getType()), n);
    };
    // The converted A and B groups, split as the op's.
    ValueRange groupA = adaptor.getGroups().take_front(op.getA().size());
    ValueRange groupB = adaptor.getGroups().drop_front(op.getA().size());
    Value a = load(groupA.front(), op.getAOperand(), nA);
    Value b = load(groupB.front(), op.getBOperand(), nB);
    Value c = load(adaptor.getC(), op.getC(), nC);
    // The auxiliary operands' values (one each) set their fields.
    auto scalars = [&](ValueRange converted, ValueRange memrefs) {
      SmallVector<Value> values;
      for (auto [value, memref] : llvm::zip(converted, memrefs))
        values.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, load(value, memref, 1),
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                     rewriter.getI32IntegerAttr(0))));
      return values;
    };
    Value atom = withAuxiliaryValues(
        rewriter, loc, op.getAtom(),
        scalars(groupA.drop_front(), op.getAAuxiliary()),
        scalars(groupB.drop_front(), op.getBAuxiliary()));
    Value d = getMmaOperation(atomLike).emitMma(rewriter, loc, atom, a, b, c);
    if (!d)
      return rewriter.notifyMatchFailure(op, "the operation has no lowering");
    emitVectorStore(rewriter, loc, d, adaptor.getD(), op.getD().getType());
    rewriter.eraseOp(op);
    return success();
  }
};

/// An LLVM or ROCDL op (made by a pattern above, or already there) with a
/// float type LLVM IR lacks among its operands, results or type attributes
/// (llvm.load, llvm.store, llvm.alloca's and llvm.getelementptr's element
/// type, llvm.bitcast, vector element ops): the same op on the converted
/// types.
struct LLVMOpTypeLegalization : public ConversionPattern {
  LLVMOpTypeLegalization(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  static bool applies(Operation *op) {
    return op->getDialect() &&
           isa<LLVM::LLVMDialect, ROCDL::ROCDLDialect>(op->getDialect()) &&
           op->getNumRegions() == 0;
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!applies(op))
      return failure();
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    // A clone keeps the properties that are no attributes (a GEP's
    // inbounds flag).
    Operation *converted = rewriter.clone(*op);
    converted->setOperands(operands);
    for (auto [result, type] : llvm::zip(converted->getResults(), results))
      result.setType(type);
    for (NamedAttribute attr : op->getAttrDictionary())
      if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
        if (Type to = getTypeConverter()->convertType(type.getValue());
            to && to != type.getValue())
          converted->setAttr(attr.getName(), TypeAttr::get(to));
    rewriter.replaceOp(op, converted->getResults());
    return success();
  }

  /// Whether `op` needs the pattern.
  static bool isLegal(const TypeConverter &converter, Operation *op) {
    if (!applies(op))
      return true;
    if (!converter.isLegal(op))
      return false;
    return llvm::all_of(op->getAttrDictionary(), [&](NamedAttribute attr) {
      auto type = dyn_cast<TypeAttr>(attr.getValue());
      return !type || converter.isLegal(type.getValue());
    });
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertFlyToROCDL
    : public mlir::fly::impl::ConvertFlyToROCDLBase<ConvertFlyToROCDL> {
  using Base::Base;
  void runOnOperation() override;
};

/// One external zero-sized LDS global per symbol table that asks for the
/// dynamic shared memory, aligned to the largest alignment asked for.
LogicalResult declareDynShared(Operation *root) {
  llvm::MapVector<Operation *, int64_t> alignments;
  root->walk([&](GetDynSharedOp op) {
    Operation *table = SymbolTable::getNearestSymbolTable(op);
    int64_t &align = alignments[table];
    align = std::max(align, op.getType().getAlignment());
  });
  for (auto [table, align] : alignments) {
    Operation *existing = SymbolTable::lookupSymbolIn(table, kDynSharedSymbol);
    if (auto global = dyn_cast_or_null<LLVM::GlobalOp>(existing)) {
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(0), align));
      continue;
    }
    if (existing)
      return existing->emitOpError("uses the symbol ")
             << kDynSharedSymbol
             << ", which convert-fly-to-rocdl reserves for the dynamic "
                "shared memory";
    OpBuilder b = OpBuilder::atBlockBegin(&table->getRegion(0).front());
    auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    LLVM::GlobalOp::create(b, table->getLoc(), arrayType,
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kDynSharedSymbol, Attribute(), align,
                           unsigned(AddressSpace::Shared));
  }
  return success();
}

/// gpu.block_dim and gpu.grid_dim of kernels, read from the HSA kernel
/// dispatch packet (llvm.amdgcn.dispatch.ptr): workgroup_size_{x,y,z} are
/// u16 at bytes 4, 6, 8; grid_size_{x,y,z}, in work-items, u32 at 12, 16,
/// 20; the grid in workgroups rounds up. convert-gpu-to-rocdl would leave
/// rocdl.workgroup.dim / rocdl.grid.dim, which the ROCDL translation turns
/// into calls of the device library (__ockl_get_local_size,
/// __ockl_get_num_groups), and code objects are linked without it. A
/// block_dim of a kernel with known_block_size is that constant.
void lowerLaunchDims(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<gpu::BlockDimOp, gpu::GridDimOp>(op) &&
        op->getParentOfType<gpu::GPUModuleOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type indexType = b.getIndexType();
    bool block = isa<gpu::BlockDimOp>(op);
    auto dim = unsigned(block ? cast<gpu::BlockDimOp>(op).getDimension()
                              : cast<gpu::GridDimOp>(op).getDimension());
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    if (block && func)
      if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize()) {
        Value size = arith::ConstantIndexOp::create(b, loc, (*known)[dim]);
        op->getResult(0).replaceAllUsesWith(size);
        op->erase();
        continue;
      }
    auto constantPtr = LLVM::LLVMPointerType::get(b.getContext(), 4);
    Value packet = LLVM::CallIntrinsicOp::create(
                       b, loc, constantPtr,
                       b.getStringAttr("llvm.amdgcn.dispatch.ptr"), ValueRange{})
                       .getResult(0);
    auto field = [&](int32_t offset, Type type) -> Value {
      Value at = LLVM::GEPOp::create(b, loc, constantPtr, b.getI8Type(), packet,
                                     ArrayRef<LLVM::GEPArg>{offset},
                                     LLVM::GEPNoWrapFlags::inbounds);
      Value value = LLVM::LoadOp::create(b, loc, type, at,
                                         type.getIntOrFloatBitWidth() / 8,
                                         /*isVolatile=*/false,
                                         /*isNonTemporal=*/false,
                                         /*isInvariant=*/true);
      return type.isInteger(32) ? value
                                : LLVM::ZExtOp::create(b, loc, b.getI32Type(),
                                                       value);
    };
    Value size = field(4 + 2 * dim, b.getI16Type());
    Value result = size;
    if (!block) { // ceil(work-items / workgroup size)
      Value items = field(12 + 4 * dim, b.getI32Type());
      Value whole = LLVM::UDivOp::create(b, loc, items, size);
      Value rest = LLVM::URemOp::create(b, loc, items, size);
      Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                            b.getI32IntegerAttr(0));
      Value partial = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                                           rest, zero);
      result = LLVM::AddOp::create(
          b, loc, whole, LLVM::ZExtOp::create(b, loc, b.getI32Type(), partial));
    }
    op->getResult(0).replaceAllUsesWith(
        arith::IndexCastUIOp::create(b, loc, indexType, result).getResult());
    op->erase();
  }
}

void ConvertFlyToROCDL::runOnOperation() {
  Operation *root = getOperation();
  MLIRContext *ctx = &getContext();
  const ::fly::arch::ChipInfo *chipInfo = nullptr;
  if (!chip.empty() && !(chipInfo = ::fly::arch::lookupChip(chip))) {
    root->emitError() << "convert-fly-to-rocdl: unknown chip '" << chip
                      << "'; supported chips: "
                      << ::fly::arch::supportedChipList();
    return signalPassFailure();
  }
  if (failed(checkLeftovers(root, chipInfo)) || failed(declareDynShared(root)))
    return signalPassFailure();
  lowerLaunchDims(root);

  FlyTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addLegalDialect<arith::ArithDialect>();
  target.addDynamicallyLegalDialect<LLVM::LLVMDialect, ROCDL::ROCDLDialect>(
      [&converter](Operation *op) {
        return LLVMOpTypeLegalization::isLegal(converter, op);
      });
  target.markUnknownOpDynamicallyLegal([](Operation *op) {
    return !isFlyOp(op) || !isConverted(op);
  });
  target.addIllegalOp<fly_rocdl::MakeBufferPtrOp, fly_rocdl::GetBufferRsrcOp>();
  RewritePatternSet patterns(ctx);
  patterns.add<ForwardOperand<MakePtrOp>, ForwardOperand<PtrToLLVMOp>,
               ForwardOperand<MakeViewOp>, ForwardOperand<GetIterOp>,
               ExtractAlignedPointerLowering, AddOffsetLowering,
               ApplySwizzleLowering, PtrLoadLowering, PtrStoreLowering,
               GetDynSharedLowering, MemRefAllocaLowering, PrintLowering,
               CopyAtomCallLowering, CopyAtomCallSSALowering,
               MmaAtomCallLowering, MmaAtomCallSSALowering,
               GetBufferRsrcLowering>(converter, ctx);
  patterns.add<MakeBufferPtrLowering>(converter, ctx, chipInfo);
  patterns.add<LLVMOpTypeLegalization>(converter, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(root, target, std::move(patterns))))
    return signalPassFailure();

  // The construction ops fed only converted ops: users first.
  SmallVector<Operation *> flyOps;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isFlyOp(op))
      flyOps.push_back(op);
  });
  bool ok = true;
  for (Operation *op : llvm::reverse(flyOps)) {
    if (op->use_empty() && isConstruction(op)) {
      op->erase();
      continue;
    }
    op->emitOpError("is still there after convert-fly-to-rocdl");
    ok = false;
  }
  if (!ok)
    signalPassFailure();
}

} // namespace
