//===- FlyToROCDL.cpp - fly pointers and memory to the llvm dialect -------===//
//
// convert-fly-to-rocdl (Passes.td says what each op becomes). The pass
// first checks that every fly op left is one it converts, or a construction
// op that only feeds those, so that a missing lowering is an error naming
// the op rather than a failed legalization deep inside the conversion.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/FlyToROCDL/Passes.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// Pointers and memrefs become LLVM pointers; every other type stays (the
/// algebra types only describe offsets and swizzles the patterns read, and
/// go away with their construction ops).
class FlyTypeConverter : public TypeConverter {
public:
  FlyTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](PointerType type) -> Type {
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
  if (isa<MakePtrOp, PtrToLLVMOp, AddOffsetOp, ApplySwizzleOp, PtrLoadOp,
          PtrStoreOp, GetDynSharedOp, MemRefAllocaOp>(op))
    return true;
  if (auto view = dyn_cast<MakeViewOp>(op))
    return isa<MemTensorType>(view.getType());
  if (auto iter = dyn_cast<GetIterOp>(op))
    return isa<MemTensorType>(iter.getTensor().getType());
  return false;
}

/// Ops that only build the static description of what a converted op
/// reads from its type or a constant (an offset, a swizzle, a layout).
bool isConstruction(Operation *op) {
  return isa<StaticOp, MakeIntTupleOp, MakeLayoutOp, MakeComposedLayoutOp>(
      op);
}

/// The pointer type inside a fly type, if any.
PointerType getPointerType(Type type) {
  if (auto memref = dyn_cast<MemTensorType>(type))
    return memref.getPointer();
  return dyn_cast<PointerType>(type);
}

/// A converted op's pointers must have an LLVM address space.
LogicalResult checkAddressSpaces(Operation *op) {
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes())) {
    PointerType pointer = getPointerType(type);
    if (pointer && !getLLVMAddressSpace(pointer))
      return op->emitOpError("uses a pointer in the address space ")
             << pointer.getAddressSpace()
             << ", which convert-fly-to-rocdl does not lower (generic, "
                "global, shared and register pointers only)";
  }
  return success();
}

/// Reports every fly op that would survive the conversion, and every
/// fly-typed function argument. A construction op survives only through its
/// users, so it is reported only when a non-fly op uses it (a leftover fly
/// user is reported itself).
LogicalResult checkLeftovers(Operation *root) {
  bool ok = true;
  root->walk([&](Operation *op) {
    if (!isFlyOp(op))
      return;
    if (isConverted(op)) {
      ok &= succeeded(checkAddressSpaces(op));
      return;
    }
    if (isConstruction(op) &&
        llvm::all_of(op->getUsers(),
                     [](Operation *user) { return isFlyOp(user); }))
      return;
    op->emitOpError("is left for convert-fly-to-rocdl, which lowers only "
                    "pointers and memory accesses: fly-layout-lowering must "
                    "have removed it");
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
    auto ptrType = cast<LLVM::LLVMPointerType>(ptr.getType());
    Type intType =
        rewriter.getIntegerType(getAddressBits(ptrType.getAddressSpace()));
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(intType, v));
    };
    int64_t readMask = ((int64_t(1) << s.bits) - 1)
                       << (s.base + std::max(0, s.shift));
    Value address = LLVM::PtrToIntOp::create(rewriter, loc, intType, ptr);
    Value read = arith::AndIOp::create(rewriter, loc, address,
                                       constant(readMask));
    Value moved =
        s.shift >= 0
            ? Value(arith::ShRUIOp::create(rewriter, loc, read,
                                           constant(s.shift)))
            : Value(arith::ShLIOp::create(rewriter, loc, read,
                                          constant(-s.shift)));
    Value swizzled = arith::XOrIOp::create(rewriter, loc, address, moved);
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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertFlyToROCDL
    : public mlir::fly::impl::ConvertFlyToROCDLBase<ConvertFlyToROCDL> {
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

void ConvertFlyToROCDL::runOnOperation() {
  Operation *root = getOperation();
  MLIRContext *ctx = &getContext();
  if (failed(checkLeftovers(root)) || failed(declareDynShared(root)))
    return signalPassFailure();

  FlyTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *op) {
    return !isFlyOp(op) || !isConverted(op);
  });
  RewritePatternSet patterns(ctx);
  patterns.add<ForwardOperand<MakePtrOp>, ForwardOperand<PtrToLLVMOp>,
               ForwardOperand<MakeViewOp>, ForwardOperand<GetIterOp>,
               AddOffsetLowering, ApplySwizzleLowering, PtrLoadLowering,
               PtrStoreLowering, GetDynSharedLowering, MemRefAllocaLowering>(
      converter, ctx);
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
