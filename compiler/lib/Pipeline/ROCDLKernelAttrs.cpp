//===- ROCDLKernelAttrs.cpp - Occupancy and VGPR budget of kernels -------===//

#include "fly/Pipeline/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYROCDLKERNELATTRS
#include "fly/Pipeline/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

constexpr StringLiteral kNumVGPRAttr = "amdgpu-num-vgpr";

/// True when `passthrough` already sets the LLVM function attribute `name`
/// (as `"name"` or `["name", "value"]`).
bool hasPassthrough(ArrayAttr passthrough, StringRef name) {
  if (!passthrough)
    return false;
  return llvm::any_of(passthrough, [&](Attribute entry) {
    if (auto str = dyn_cast<StringAttr>(entry))
      return str.getValue() == name;
    auto pair = dyn_cast<ArrayAttr>(entry);
    auto key = pair && !pair.empty() ? dyn_cast<StringAttr>(pair[0]) : nullptr;
    return key && key.getValue() == name;
  });
}

struct FlyROCDLKernelAttrs
    : public mlir::fly::impl::FlyROCDLKernelAttrsBase<FlyROCDLKernelAttrs> {
  using FlyROCDLKernelAttrsBase::FlyROCDLKernelAttrsBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto *rocdl = context->getLoadedDialect<ROCDL::ROCDLDialect>();
    auto isKernel = rocdl->getKernelAttrHelper();
    auto wavesPerEUAttr = rocdl->getWavesPerEuAttrHelper();
    Builder builder(context);

    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (!isKernel.isAttrPresent(func))
        return;
      if (wavesPerEU && !wavesPerEUAttr.isAttrPresent(func))
        wavesPerEUAttr.setAttr(func, builder.getI32IntegerAttr(wavesPerEU));
      ArrayAttr passthrough = func.getPassthroughAttr();
      if (numVGPR && !hasPassthrough(passthrough, kNumVGPRAttr)) {
        SmallVector<Attribute> entries;
        if (passthrough)
          llvm::append_range(entries, passthrough.getValue());
        entries.push_back(builder.getStrArrayAttr(
            {kNumVGPRAttr, std::to_string(numVGPR)}));
        func.setPassthroughAttr(builder.getArrayAttr(entries));
      }
    });
  }
};

} // namespace
