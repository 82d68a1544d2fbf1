//===- RewriteFuncSignature.cpp - Fly values leave function signatures ----===//
//
// SPEC §3 stage A, pass 1. Every `func.func` and `gpu.func` whose signature
// holds Fly types gets a signature of LLVM-compatible types only: a static
// value disappears, a value with dynamic leaves becomes one
// `!llvm.struct<(...)>` of them, a pointer or memref an `!llvm.ptr<AS>`
// (followed, for a memref with a dynamic layout, by the struct of its
// leaves). The body starts by rebuilding every original argument in normal
// form; returns, `func.call`s and `gpu.launch_func`s pack their Fly operands
// the same way. The encoding is documented in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/Fly/Transforms/Leaves.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYREWRITEFUNCSIGNATURE
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;
using namespace mlir::fly;

namespace {

constexpr StringLiteral kOriginalTypeAttr = "fly.original_type";
constexpr StringLiteral kArgAbiAttr = "fly.abi";
constexpr StringLiteral kResultAbiAttr = "fly.result_abi";

bool isFlyType(Type type) {
  return type.getDialect().getNamespace() ==
         FlyDialect::getDialectNamespace();
}

bool hasFlyTypes(FunctionType type) {
  return llvm::any_of(type.getInputs(), isFlyType) ||
         llvm::any_of(type.getResults(), isFlyType);
}

/// A public func.func with a body at the top of the module: a host
/// function the front end calls through its `fly.abi`, which it needs even
/// when no argument is of a Fly type (only scalars and a stream).
bool isHostEntry(ModuleOp module, FunctionOpInterface func) {
  auto host = dyn_cast<func::FuncOp>(func.getOperation());
  return host && host->getParentOp() == module && host.isPublic() &&
         !host.isExternal();
}

/// What one original value becomes: the types that carry it, and what each
/// of them carries (`value`, `ptr` or `leaves`), plus the alignment of a
/// pointer.
struct Carriers {
  SmallVector<Type, 2> types;
  SmallVector<StringRef, 2> kinds;
  int64_t alignment = 0;
};

/// The struct of the dynamic leaves of `type`, or null when it has none.
LLVM::LLVMStructType leafStruct(Type type) {
  SmallVector<Type> leaves = getDynamicLeafTypes(type);
  if (leaves.empty())
    return {};
  return LLVM::LLVMStructType::getLiteral(type.getContext(), leaves);
}

/// The carriers of a value of `type`, or a reason why it cannot be passed.
/// `inKernel`: the value crosses the host/device boundary, where a pointer
/// into registers means nothing.
FailureOr<Carriers> getCarriers(Type type, bool inKernel, std::string &why) {
  Carriers c;
  MLIRContext *ctx = type.getContext();
  if (!isFlyType(type)) {
    c.types.push_back(type);
    c.kinds.push_back("value");
    return c;
  }
  auto pointerOf = [&](PointerType ptr) -> LogicalResult {
    std::optional<AddressSpace> as = ptr.getKnownAddressSpace();
    if (!as) {
      why = "a pointer in a dialect address space has no LLVM pointer form "
            "here";
      return failure();
    }
    if (inKernel && *as == AddressSpace::Register) {
      why = "register memory cannot be a kernel argument";
      return failure();
    }
    c.types.push_back(LLVM::LLVMPointerType::get(ctx, unsigned(*as)));
    c.kinds.push_back("ptr");
    c.alignment = ptr.getAlignment();
    return success();
  };
  if (auto ptr = dyn_cast<PointerType>(type)) {
    if (failed(pointerOf(ptr)))
      return failure();
    return c;
  }
  if (auto memref = dyn_cast<MemTensorType>(type)) {
    if (failed(pointerOf(memref.getPointer())))
      return failure();
    if (auto s = leafStruct(type)) {
      c.types.push_back(s);
      c.kinds.push_back("leaves");
    }
    return c;
  }
  if (isStatic(type))
    return c;
  if (isa<IntTupleType, LayoutType, ComposedLayoutType, CoordTensorType>(
          type)) {
    c.types.push_back(leafStruct(type));
    c.kinds.push_back("leaves");
    return c;
  }
  if (isa<TileType>(type))
    why = "a tile with dynamic leaves has no runtime form";
  else
    why = "this Fly type has no runtime form";
  return failure();
}

/// The carriers of each value of `types`; reports the first that cannot be
/// passed through `emitError`, naming it `what #i`.
FailureOr<SmallVector<Carriers>>
getAllCarriers(TypeRange types, bool inKernel, StringRef what,
               function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<Carriers> all;
  for (auto [i, type] : llvm::enumerate(types)) {
    std::string why;
    FailureOr<Carriers> c = getCarriers(type, inKernel, why);
    if (failed(c)) {
      emitError() << what << " #" << i << " of type " << type
                  << " cannot be passed: " << why;
      return failure();
    }
    all.push_back(std::move(*c));
  }
  return all;
}

/// Rewrites signatures, then the calls to them.
class Rewriter : public OpBuilder::Listener {
public:
  explicit Rewriter(MLIRContext *ctx) : builder(ctx) {
    builder.setListener(this);
  }

  LogicalResult rewriteFunction(FunctionOpInterface func);
  LogicalResult rewriteCall(func::CallOp call);
  LogicalResult rewriteLaunch(gpu::LaunchFuncOp launch);
  /// Erases the ops this pass created that ended up unused.
  void eraseDeadCreatedOps();

  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    created.push_back(op);
  }

private:
  /// The original value of type `type` from its carriers, at the insertion
  /// point. Null (after an error at `loc`) when it cannot be rebuilt.
  Value unpack(Location loc, Type type, ValueRange carried);
  /// The carriers of `v`, at the insertion point; appended to `out`.
  LogicalResult pack(Location loc, Value v, const Carriers &c,
                     SmallVectorImpl<Value> &out);
  /// An LLVM pointer for a fly pointer.
  Value toLLVMPointer(Location loc, Value flyPointer);
  /// The struct of `leaves` of type `type`.
  Value packStruct(Location loc, LLVM::LLVMStructType type,
                   ArrayRef<Value> leaves);

  OpBuilder builder;
  SmallVector<Operation *> created;
};

Value Rewriter::unpack(Location loc, Type type, ValueRange carried) {
  if (!isFlyType(type))
    return carried.front();
  Value pointer;
  ValueRange rest = carried;
  if (auto memref = dyn_cast<MemTensorType>(type)) {
    pointer = MakePtrOp::create(builder, loc, memref.getPointer(),
                                carried.front());
    rest = carried.drop_front();
  } else if (auto ptr = dyn_cast<PointerType>(type)) {
    return MakePtrOp::create(builder, loc, ptr, carried.front());
  }
  SmallVector<Value> leaves;
  if (!rest.empty()) {
    auto s = cast<LLVM::LLVMStructType>(rest.front().getType());
    for (int64_t k = 0, e = s.getBody().size(); k < e; ++k)
      leaves.push_back(
          LLVM::ExtractValueOp::create(builder, loc, rest.front(), k));
  }
  Value v = buildFromLeaves(builder, loc, type, leaves, pointer);
  if (!v)
    emitError(loc) << "cannot rebuild a value of type " << type;
  return v;
}

Value Rewriter::toLLVMPointer(Location loc, Value flyPointer) {
  // The inverse of make_ptr needs no op.
  if (auto make = flyPointer.getDefiningOp<MakePtrOp>())
    return make.getPointer();
  return PtrToLLVMOp::create(builder, loc, flyPointer);
}

Value Rewriter::packStruct(Location loc, LLVM::LLVMStructType type,
                           ArrayRef<Value> leaves) {
  // Leaves extracted in order from a struct of this very type: pass it on.
  if (auto first = leaves.front().getDefiningOp<LLVM::ExtractValueOp>()) {
    Value source = first.getContainer();
    bool forwarded = source.getType() == type;
    for (auto [k, leaf] : llvm::enumerate(leaves)) {
      auto extract = leaf.getDefiningOp<LLVM::ExtractValueOp>();
      forwarded = forwarded && extract && extract.getContainer() == source &&
                  extract.getPosition() == ArrayRef<int64_t>{int64_t(k)};
    }
    if (forwarded)
      return source;
  }
  Value s = LLVM::UndefOp::create(builder, loc, type);
  for (auto [k, leaf] : llvm::enumerate(leaves))
    s = LLVM::InsertValueOp::create(builder, loc, s, leaf, int64_t(k));
  return s;
}

LogicalResult Rewriter::pack(Location loc, Value v, const Carriers &c,
                             SmallVectorImpl<Value> &out) {
  Type type = v.getType();
  if (!isFlyType(type)) {
    out.push_back(v);
    return success();
  }
  if (isa<PointerType>(type)) {
    out.push_back(toLLVMPointer(loc, v));
    return success();
  }
  if (isa<MemTensorType>(type))
    out.push_back(toLLVMPointer(loc, getPointerValue(builder, v)));
  auto s = leafStruct(type);
  if (!s)
    return success();
  SmallVector<Value> leaves = getLeafValues(builder, v);
  ArrayRef<Type> want = s.getBody();
  if (leaves.size() != want.size() ||
      !llvm::equal(ValueRange(leaves).getTypes(), want))
    return emitError(loc) << "the leaves of a value of type " << type
                          << " do not match its type";
  out.push_back(packStruct(loc, s, leaves));
  return success();
}

/// The `fly.abi` strings of a list of carriers.
ArrayAttr abiAttr(Builder &b, ArrayRef<Carriers> all) {
  SmallVector<Attribute> entries;
  for (auto [i, c] : llvm::enumerate(all))
    for (StringRef kind : c.kinds)
      entries.push_back(b.getStringAttr(kind + ":" + Twine(i)));
  return b.getArrayAttr(entries);
}

LogicalResult Rewriter::rewriteFunction(FunctionOpInterface func) {
  auto oldType = cast<FunctionType>(func.getFunctionType());
  auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation());
  bool inKernel = gpuFunc && gpuFunc.isKernel();
  auto emitFuncError = [&]() { return func->emitOpError(); };
  FailureOr<SmallVector<Carriers>> args =
      getAllCarriers(oldType.getInputs(), inKernel, "argument", emitFuncError);
  if (failed(args))
    return failure();
  FailureOr<SmallVector<Carriers>> results =
      getAllCarriers(oldType.getResults(), inKernel, "result", emitFuncError);
  if (failed(results))
    return failure();

  // The new signature and its attributes.
  // A kernel's arguments are bytes the host wrote into the kernarg
  // segment, never undef or poison: saying so (noundef) spares LLVM's
  // poison analyses (SLSR's and SCEV's reuse checks walk expression trees
  // down to these leaves) without changing what they may assume otherwise.
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  for (auto [i, c] : llvm::enumerate(*args)) {
    for (auto [type, kind] : llvm::zip(c.types, c.kinds)) {
      argTypes.push_back(type);
      NamedAttrList attrs;
      if (kind == "value") {
        if (DictionaryAttr given = func.getArgAttrDict(i))
          attrs.append(given.getValue());
      } else if (kind == "ptr") {
        attrs.set(LLVM::LLVMDialect::getAlignAttrName(),
                  builder.getI64IntegerAttr(c.alignment));
      }
      if (inKernel)
        attrs.set(LLVM::LLVMDialect::getNoUndefAttrName(),
                  builder.getUnitAttr());
      argAttrs.push_back(attrs.getDictionary(builder.getContext()));
    }
  }
  for (auto [i, c] : llvm::enumerate(*results)) {
    for (auto [type, kind] : llvm::zip(c.types, c.kinds)) {
      resultTypes.push_back(type);
      resultAttrs.push_back(kind == "value" ? func.getResultAttrDict(i)
                                            : builder.getDictionaryAttr({}));
    }
  }

  if (!func.isExternal()) {
    // The entry block: the new arguments go before the original ones'
    // end (a gpu.func's attributions follow), the original values are
    // rebuilt from them, then the original arguments go.
    Block &entry = func.getFunctionBody().front();
    unsigned numOld = oldType.getNumInputs();
    unsigned pos = numOld;
    SmallVector<SmallVector<Value, 2>> carried;
    for (auto [i, c] : llvm::enumerate(*args)) {
      carried.emplace_back();
      Location loc = entry.getArgument(i).getLoc();
      for (Type type : c.types)
        carried.back().push_back(entry.insertArgument(pos++, type, loc));
    }
    builder.setInsertionPointToStart(&entry);
    for (auto [i, c] : llvm::enumerate(*args)) {
      BlockArgument old = entry.getArgument(i);
      if (!isFlyType(old.getType())) {
        old.replaceAllUsesWith(carried[i].front());
        continue;
      }
      Value v = unpack(old.getLoc(), old.getType(), carried[i]);
      if (!v)
        return failure();
      old.replaceAllUsesWith(v);
    }
    entry.eraseArguments(0, numOld);

    // Returns pack their operands.
    SmallVector<Operation *> returns;
    for (Block &block : func.getFunctionBody())
      if (block.mightHaveTerminator() &&
          block.getTerminator()->hasTrait<OpTrait::ReturnLike>())
        returns.push_back(block.getTerminator());
    for (Operation *ret : returns) {
      if (ret->getNumOperands() != results->size())
        return ret->emitOpError("does not return one value per result");
      builder.setInsertionPoint(ret);
      SmallVector<Value> operands;
      for (auto [v, c] : llvm::zip(ret->getOperands(), *results))
        if (failed(pack(ret->getLoc(), v, c, operands)))
          return failure();
      ret->setOperands(operands);
    }
  }

  func.setFunctionTypeAttr(
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resultAttrs);
  func->setAttr(kOriginalTypeAttr, TypeAttr::get(oldType));
  func->setAttr(kArgAbiAttr, abiAttr(builder, *args));
  if (!results->empty())
    func->setAttr(kResultAbiAttr, abiAttr(builder, *results));
  return success();
}

LogicalResult Rewriter::rewriteCall(func::CallOp call) {
  if (!hasFlyTypes(call.getCalleeType()))
    return success();
  auto emitCallError = [&]() { return call->emitOpError(); };
  FailureOr<SmallVector<Carriers>> args = getAllCarriers(
      call.getOperandTypes(), /*inKernel=*/false, "operand", emitCallError);
  if (failed(args))
    return failure();
  FailureOr<SmallVector<Carriers>> results = getAllCarriers(
      call.getResultTypes(), /*inKernel=*/false, "result", emitCallError);
  if (failed(results))
    return failure();

  Location loc = call.getLoc();
  builder.setInsertionPoint(call);
  SmallVector<Value> operands;
  for (auto [v, c] : llvm::zip(call.getOperands(), *args))
    if (failed(pack(loc, v, c, operands)))
      return failure();
  SmallVector<Type> resultTypes;
  for (const Carriers &c : *results)
    llvm::append_range(resultTypes, c.types);
  auto newCall = func::CallOp::create(builder, loc, call.getCalleeAttr(),
                                      resultTypes, operands);

  builder.setInsertionPointAfter(newCall);
  unsigned next = 0;
  for (auto [old, c] : llvm::zip(call.getResults(), *results)) {
    ValueRange carried = newCall.getResults().slice(next, c.types.size());
    next += c.types.size();
    Value v = unpack(loc, old.getType(), carried);
    if (!v)
      return failure();
    old.replaceAllUsesWith(v);
  }
  call->erase();
  return success();
}

LogicalResult Rewriter::rewriteLaunch(gpu::LaunchFuncOp launch) {
  if (!llvm::any_of(launch.getKernelOperands().getTypes(), isFlyType))
    return success();
  auto emitLaunchError = [&]() { return launch->emitOpError(); };
  FailureOr<SmallVector<Carriers>> args =
      getAllCarriers(launch.getKernelOperands().getTypes(), /*inKernel=*/true,
                     "kernel operand", emitLaunchError);
  if (failed(args))
    return failure();
  builder.setInsertionPoint(launch);
  SmallVector<Value> operands;
  for (auto [v, c] : llvm::zip(launch.getKernelOperands(), *args))
    if (failed(pack(launch.getLoc(), v, c, operands)))
      return failure();
  launch.getKernelOperandsMutable().assign(operands);
  return success();
}

void Rewriter::eraseDeadCreatedOps() {
  llvm::SetVector<Operation *> unique(created.begin(), created.end());
  for (Operation *op : llvm::reverse(unique))
    if (isOpTriviallyDead(op))
      op->erase();
}

struct RewriteFuncSignature
    : public mlir::fly::impl::FlyRewriteFuncSignatureBase<
          RewriteFuncSignature> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Rewriter rewriter(&getContext());

    SmallVector<FunctionOpInterface> funcs;
    module.walk([&](FunctionOpInterface func) {
      if (isa<func::FuncOp, gpu::GPUFuncOp>(func.getOperation()) &&
          (hasFlyTypes(cast<FunctionType>(func.getFunctionType())) ||
           isHostEntry(module, func)))
        funcs.push_back(func);
    });
    bool failedAny = false;
    for (FunctionOpInterface func : funcs)
      failedAny |= failed(rewriter.rewriteFunction(func));

    // The call sites: their operand and result types are still the
    // original ones, which the callee's carriers follow.
    SmallVector<Operation *> calls;
    module.walk([&](Operation *op) {
      if (isa<func::CallOp, gpu::LaunchFuncOp>(op))
        calls.push_back(op);
    });
    for (Operation *op : calls) {
      if (auto call = dyn_cast<func::CallOp>(op))
        failedAny |= failed(rewriter.rewriteCall(call));
      else
        failedAny |=
            failed(rewriter.rewriteLaunch(cast<gpu::LaunchFuncOp>(op)));
    }
    if (failedAny)
      return signalPassFailure();
    rewriter.eraseDeadCreatedOps();
  }
};

} // namespace
