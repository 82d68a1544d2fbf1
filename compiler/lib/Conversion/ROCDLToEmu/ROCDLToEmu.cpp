//===- ROCDLToEmu.cpp - ROCDL kernels to host code for the emulator -------===//
//
// convert-rocdl-to-emu (Passes.td says what each construct becomes). The
// pass first checks the whole gpu.module and reports every construct it
// cannot lower, before it changes anything; then it
//   1. lays out the LDS globals (address space 3) in one block,
//   2. moves every pointer type to address space 0 (one AttrTypeReplacer
//      sweep over values, block arguments and attributes),
//   3. gives each kernel the context argument, rewrites the ROCDL ops and
//      LDS addresses of its body in place, and builds its entry wrapper.
// The rewrites are local one-op replacements in known positions (no
// legality question, no type conversion across op boundaries left after
// the sweep), so they are done with a builder rather than a pattern driver.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/ROCDLToEmu/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::fly {
#define GEN_PASS_DEF_CONVERTROCDLTOEMU
#include "fly/Conversion/ROCDLToEmu/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

/// FlyEmuContext byte offsets (runtime/include/fly/runtime/Emu.h).
constexpr int32_t kCtxLdsOffset = 64;
constexpr unsigned kSharedAddressSpace = 3;

constexpr StringLiteral kKernelAttr = "rocdl.kernel";
constexpr StringLiteral kEmuKernelAttr = "fly.emu.kernel";
constexpr StringLiteral kStaticLdsAttr = "fly.emu.static_lds_bytes";
constexpr StringLiteral kBarrierFn = "fly_emu_barrier";

/// What becomes of one ROCDL op.
enum class Lowering { CtxField, Barrier, Erase, Unsupported };

struct Plan {
  Lowering kind;
  int32_t offset = 0; // CtxField: byte offset of the u32 in FlyEmuContext.
};

/// The barrier id of `rocdl.s.barrier.signal` / `.wait`: -1 is the
/// workgroup barrier, anything else a named barrier.
bool isWorkgroupBarrierId(Operation *op) {
  auto id = op->getAttrOfType<IntegerAttr>("id");
  return id && id.getValue().isAllOnes();
}

Plan classify(Operation *op) {
  static const llvm::StringMap<int32_t> fields = {
      {"rocdl.workitem.id.x", 0},   {"rocdl.workitem.id.y", 4},
      {"rocdl.workitem.id.z", 8},   {"rocdl.workgroup.id.x", 12},
      {"rocdl.workgroup.id.y", 16}, {"rocdl.workgroup.id.z", 20},
      {"rocdl.workgroup.dim.x", 24}, {"rocdl.workgroup.dim.y", 28},
      {"rocdl.workgroup.dim.z", 32}, {"rocdl.grid.dim.x", 36},
      {"rocdl.grid.dim.y", 40},     {"rocdl.grid.dim.z", 44},
      {"rocdl.wavefrontsize", 60},
  };
  StringRef name = op->getName().getStringRef();
  if (auto it = fields.find(name); it != fields.end())
    return {Lowering::CtxField, it->second};
  if (name == "rocdl.barrier" || name == "rocdl.s.barrier")
    return {Lowering::Barrier};
  if (name == "rocdl.s.barrier.wait")
    return {isWorkgroupBarrierId(op) ? Lowering::Barrier
                                     : Lowering::Unsupported};
  if (name == "rocdl.s.barrier.signal")
    return {isWorkgroupBarrierId(op) ? Lowering::Erase
                                     : Lowering::Unsupported};
  if (llvm::is_contained(
          {"rocdl.s.waitcnt", "rocdl.s.wait.dscnt", "rocdl.s.wait.loadcnt",
           "rocdl.s.wait.storecnt", "rocdl.s.wait.expcnt",
           "rocdl.sched.barrier", "rocdl.s.setprio", "rocdl.s.sleep",
           "rocdl.s.nop"},
          name))
    return {Lowering::Erase};
  return {Lowering::Unsupported};
}

bool isRocdlOp(Operation *op) {
  return op->getName().getDialectNamespace() == "rocdl";
}

bool isKernel(LLVM::LLVMFuncOp func) {
  return func->hasAttr(kKernelAttr) && !func.isExternal();
}

bool isShared(LLVM::GlobalOp global) {
  return global.getAddrSpace() == kSharedAddressSpace;
}

/// Buffer fat pointers and resources have no flat host equivalent.
bool hasBufferPointer(Type type) {
  bool found = false;
  type.walk([&](LLVM::LLVMPointerType ptr) {
    unsigned as = ptr.getAddressSpace();
    found |= as == 7 || as == 8 || as == 9;
  });
  return found;
}

/// A device function the host cannot link.
bool isDeviceOnlyCallee(StringRef callee) {
  return callee.starts_with("llvm.amdgcn.") ||
         callee.starts_with("__ockl_") || callee.starts_with("__ocml_");
}

/// LDS is uninitialised: only undef or poison initialisers are meaningful.
bool hasRealInitializer(LLVM::GlobalOp global) {
  if (global.getValueAttr())
    return true;
  Block *init = global.getInitializerBlock();
  if (!init)
    return false;
  return !llvm::all_of(*init, [](Operation &op) {
    return isa<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ReturnOp>(op);
  });
}

struct ConvertROCDLToEmu
    : public mlir::fly::impl::ConvertROCDLToEmuBase<ConvertROCDLToEmu> {
  void runOnOperation() override;

private:
  LogicalResult check(gpu::GPUModuleOp module);
  void rewriteKernel(LLVM::LLVMFuncOp kernel,
                     const llvm::DenseMap<StringAttr, int64_t> &ldsOffsets);
  LLVM::LLVMFuncOp getOrDeclare(StringRef name, LLVM::LLVMFunctionType type);

  gpu::GPUModuleOp module;
};

//===----------------------------------------------------------------------===//
// Checks: every construct the pass cannot lower, before any change
//===----------------------------------------------------------------------===//

LogicalResult ConvertROCDLToEmu::check(gpu::GPUModuleOp module) {
  SymbolTable symbols(module);
  bool ok = true;
  auto fail = [&](Operation *op) {
    ok = false;
    return op->emitOpError();
  };

  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (isShared(global) && hasRealInitializer(global))
      fail(global) << "is an LDS global with an initializer; the emulator, "
                      "like the hardware, leaves LDS uninitialised";

  module.walk([&](Operation *op) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    bool inKernel = func && isKernel(func);

    for (Type type : op->getResultTypes())
      if (hasBufferPointer(type)) {
        fail(op) << "has a buffer pointer result (address space 7, 8 or 9), "
                    "which convert-rocdl-to-emu does not handle yet";
        return;
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (hasBufferPointer(arg.getType())) {
            fail(op) << "has a buffer pointer argument (address space 7, 8 "
                        "or 9), which convert-rocdl-to-emu does not handle "
                        "yet";
            return;
          }

    if (isRocdlOp(op)) {
      Plan plan = classify(op);
      if (plan.kind == Lowering::Unsupported) {
        fail(op) << "has no emulator lowering in convert-rocdl-to-emu yet";
        return;
      }
      if (plan.kind != Lowering::Erase && !inKernel)
        fail(op) << "outside a kernel needs the emulator context, which "
                    "convert-rocdl-to-emu only threads into kernels yet";
      return;
    }
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      if (auto callee = call.getCallee(); callee && isDeviceOnlyCallee(*callee))
        fail(op) << "calls the device-only function @" << *callee
                 << ", which convert-rocdl-to-emu does not handle";
      return;
    }
    if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      if (intr.getIntrin().starts_with("llvm.amdgcn."))
        fail(op) << "calls the AMDGPU intrinsic " << intr.getIntrin()
                 << ", which convert-rocdl-to-emu does not handle";
      return;
    }
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          symbols.lookup(addr.getGlobalName()));
      if (global && isShared(global) && !inKernel)
        fail(op) << "takes the address of the LDS global @"
                 << addr.getGlobalName()
                 << " outside a kernel, which convert-rocdl-to-emu does not "
                    "handle yet";
    }
  });
  return success(ok);
}

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

LLVM::LLVMFuncOp ConvertROCDLToEmu::getOrDeclare(StringRef name,
                                                 LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// The u32 (or pointer) at `offset` in the work-item's FlyEmuContext.
Value loadCtx(OpBuilder &b, Location loc, Value ctx, int32_t offset,
              Type type) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = ctx;
  if (offset != 0)
    addr = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), ctx,
                               ArrayRef<LLVM::GEPArg>{offset},
                               LLVM::GEPNoWrapFlags::inbounds);
  unsigned align = isa<LLVM::LLVMPointerType>(type) ? 8 : 4;
  return LLVM::LoadOp::create(b, loc, type, addr, align);
}

void ConvertROCDLToEmu::rewriteKernel(
    LLVM::LLVMFuncOp kernel,
    const llvm::DenseMap<StringAttr, int64_t> &ldsOffsets) {
  MLIRContext *context = &getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);
  Location loc = kernel.getLoc();
  SymbolTable symbols(module);

  // The body: the kernel, renamed, with the context as argument 0.
  std::string entryName = kernel.getSymName().str();
  std::string bodyName = entryName + "_body";
  for (unsigned i = 0; symbols.lookup(bodyName); ++i)
    bodyName = entryName + "_body" + std::to_string(i);
  SmallVector<Type> argTypes(kernel.getFunctionType().getParams());
  // (LLVMFuncOp's insertArgument leaves the function type alone: by hand.)
  SmallVector<Type> bodyArgTypes = {ptrType};
  llvm::append_range(bodyArgTypes, argTypes);
  kernel.setFunctionType(LLVM::LLVMFunctionType::get(
      kernel.getFunctionType().getReturnType(), bodyArgTypes,
      kernel.getFunctionType().isVarArg()));
  kernel.getBody().front().insertArgument(0u, ptrType, loc);
  if (ArrayAttr argAttrs = kernel.getArgAttrsAttr()) {
    SmallVector<Attribute> shifted = {DictionaryAttr::get(context)};
    llvm::append_range(shifted, argAttrs);
    kernel.setArgAttrsAttr(ArrayAttr::get(context, shifted));
  }
  symbols.setSymbolName(kernel, bodyName);
  kernel.setLinkage(LLVM::Linkage::Internal);
  SmallVector<NamedAttribute> entryAttrs;
  for (NamedAttribute attr : kernel->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.starts_with("fly."))
      entryAttrs.push_back(attr);
  }
  for (NamedAttribute attr : llvm::to_vector(kernel->getDiscardableAttrs())) {
    StringRef name = attr.getName().getValue();
    if (name.starts_with("fly.") || name.starts_with("rocdl.") ||
        name.starts_with("gpu."))
      kernel->removeAttr(attr.getName());
  }
  Value ctx = kernel.getBody().front().getArgument(0);

  // The ROCDL ops and LDS addresses of the body.
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isRocdlOp(op) || isa<LLVM::AddressOfOp>(op))
      ops.push_back(op);
  });
  auto barrierType = LLVM::LLVMFunctionType::get(voidType, {ptrType});
  Value lds; // ctx->lds, loaded once at the top of the body.
  for (Operation *op : ops) {
    OpBuilder b(op);
    if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto it = ldsOffsets.find(addr.getGlobalNameAttr().getAttr());
      if (it == ldsOffsets.end())
        continue;
      if (!lds) {
        OpBuilder top = OpBuilder::atBlockBegin(&kernel.getBody().front());
        lds = loadCtx(top, loc, ctx, kCtxLdsOffset, ptrType);
      }
      Value replacement = lds;
      if (it->second != 0)
        replacement = LLVM::GEPOp::create(
            b, op->getLoc(), ptrType, b.getI8Type(), lds,
            ArrayRef<LLVM::GEPArg>{int32_t(it->second)},
            LLVM::GEPNoWrapFlags::inbounds);
      addr.replaceAllUsesWith(replacement);
      addr.erase();
      continue;
    }
    Plan plan = classify(op);
    switch (plan.kind) {
    case Lowering::CtxField: {
      Type type = op->getResult(0).getType();
      Value value = loadCtx(b, op->getLoc(), ctx, plan.offset, b.getI32Type());
      if (type != value.getType())
        value = LLVM::ZExtOp::create(b, op->getLoc(), type, value);
      op->getResult(0).replaceAllUsesWith(value);
      op->erase();
      break;
    }
    case Lowering::Barrier:
      LLVM::CallOp::create(b, op->getLoc(), getOrDeclare(kBarrierFn, barrierType),
                           ValueRange{ctx});
      op->erase();
      break;
    case Lowering::Erase:
      op->erase();
      break;
    case Lowering::Unsupported:
      llvm_unreachable("rejected by check()");
    }
  }

  // The entry: void k(FlyEmuContext *ctx, void **params).
  OpBuilder b(context);
  b.setInsertionPointAfter(kernel);
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, entryName,
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType}));
  for (NamedAttribute attr : entryAttrs)
    entry->setAttr(attr.getName(), attr.getValue());
  entry->setAttr(kEmuKernelAttr, b.getUnitAttr());
  entry->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  SmallVector<Value> callArgs = {block->getArgument(0)};
  Value params = block->getArgument(1);
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    Value slot = params;
    if (i != 0)
      slot = LLVM::GEPOp::create(b, loc, ptrType, ptrType, params,
                                 ArrayRef<LLVM::GEPArg>{int32_t(i)},
                                 LLVM::GEPNoWrapFlags::inbounds);
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrType, slot, 8);
    callArgs.push_back(LLVM::LoadOp::create(b, loc, type, valuePtr));
  }
  LLVM::CallOp::create(b, loc, kernel, callArgs);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

void ConvertROCDLToEmu::runOnOperation() {
  module = getOperation();
  MLIRContext *context = &getContext();
  if (failed(check(module)))
    return signalPassFailure();

  // 1. The LDS globals, before their address space is gone.
  SmallVector<LLVM::GlobalOp> staticLds, dynamicLds;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!isShared(global))
      continue;
    bool dynamic = global.getLinkage() == LLVM::Linkage::External &&
                   !global.getValueAttr() && !global.getInitializerBlock();
    (dynamic ? dynamicLds : staticLds).push_back(global);
  }

  // 2. One address space.
  auto flatPtr = LLVM::LLVMPointerType::get(context);
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](LLVM::LLVMPointerType ptr) -> std::optional<Type> {
        if (ptr.getAddressSpace() == 0)
          return std::nullopt;
        return flatPtr;
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  for (auto global : module.getOps<LLVM::GlobalOp>())
    global.setAddrSpace(0);
  module.walk([](LLVM::AddrSpaceCastOp cast) {
    cast.replaceAllUsesWith(cast.getArg());
    cast.erase();
  });

  // The LDS layout: static globals, then the dynamic part.
  DataLayout layout = DataLayout::closest(module);
  llvm::DenseMap<StringAttr, int64_t> ldsOffsets;
  uint64_t offset = 0;
  for (LLVM::GlobalOp global : staticLds) {
    uint64_t align = global.getAlignment().value_or(0);
    if (align == 0)
      align = layout.getTypeABIAlignment(global.getGlobalType());
    offset = llvm::alignTo(offset, align);
    ldsOffsets[global.getSymNameAttr()] = offset;
    offset += layout.getTypeSize(global.getGlobalType());
  }
  uint64_t dynamicAlign = 1;
  for (LLVM::GlobalOp global : dynamicLds)
    dynamicAlign = std::max<uint64_t>(
        dynamicAlign, global.getAlignment().value_or(0) > 0
                          ? *global.getAlignment()
                          : layout.getTypeABIAlignment(global.getGlobalType()));
  uint64_t staticBytes = llvm::alignTo(offset, dynamicAlign);
  for (LLVM::GlobalOp global : dynamicLds)
    ldsOffsets[global.getSymNameAttr()] = staticBytes;

  // 3. The kernels.
  for (auto func : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
    if (isKernel(func))
      rewriteKernel(func, ldsOffsets);
    else
      for (NamedAttribute attr : llvm::to_vector(func->getDiscardableAttrs()))
        if (attr.getName().getValue().starts_with("rocdl."))
          func->removeAttr(attr.getName());
  }
  for (LLVM::GlobalOp global : staticLds)
    global.erase();
  for (LLVM::GlobalOp global : dynamicLds)
    global.erase();

  module->removeAttr("llvm.data_layout");
  module->removeAttr("llvm.target_triple");
  module->setAttr(kStaticLdsAttr, IntegerAttr::get(IntegerType::get(context, 32),
                                                   staticBytes));
}

} // namespace
