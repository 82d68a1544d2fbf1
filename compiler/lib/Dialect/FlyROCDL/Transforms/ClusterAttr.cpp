//===- ClusterAttr.cpp - Workgroup clusters as a ROCDL kernel attribute ---===//

#include "fly/Dialect/FlyROCDL/Transforms/Passes.h"
#include "fly/Arch/Chip.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fly {
#define GEN_PASS_DEF_FLYROCDLCLUSTERATTR
#include "fly/Dialect/FlyROCDL/Transforms/Passes.h.inc"
} // namespace mlir::fly

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kClusterDims = "fly.cluster_dims";
constexpr llvm::StringLiteral kLLVMClusterDims = "amdgpu-cluster-dims";

struct FlyROCDLClusterAttr
    : public mlir::fly::impl::FlyROCDLClusterAttrBase<FlyROCDLClusterAttr> {
  using FlyROCDLClusterAttrBase::FlyROCDLClusterAttrBase;

  void runOnOperation() override {
    const ::fly::arch::ChipInfo *info = ::fly::arch::lookupChip(chip);
    bool failedAny = false;
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      Attribute attr = func->getDiscardableAttr(kClusterDims);
      if (!attr)
        return;
      if (failed(lower(func, attr, info)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult lower(LLVM::LLVMFuncOp func, Attribute attr,
                      const ::fly::arch::ChipInfo *info) {
    if (!info)
      return func.emitError() << "fly-rocdl-cluster-attr: unknown chip '"
                              << chip << "'; supported: "
                              << ::fly::arch::supportedChipList();
    if (!info->hasClusters)
      return func.emitError()
             << "workgroup clusters (" << kClusterDims << ") need a chip with "
             << "clusters (gfx1250); this module is compiled for "
             << info->name;
    auto dims = dyn_cast<DenseI32ArrayAttr>(attr);
    if (!dims || dims.size() != 3 ||
        llvm::any_of(dims.asArrayRef(), [](int32_t d) { return d < 1; }))
      return func.emitError() << kClusterDims
                              << " must be array<i32: x, y, z> of positive "
                                 "sizes, got "
                              << attr;

    Builder b(func.getContext());
    std::string value = llvm::formatv("{0},{1},{2}", dims[0], dims[1], dims[2]);
    SmallVector<Attribute> passthrough;
    if (ArrayAttr old = func.getPassthroughAttr())
      for (Attribute entry : old) {
        auto pair = dyn_cast<ArrayAttr>(entry);
        bool isClusterEntry =
            pair && pair.size() == 2 && isa<StringAttr>(pair[0]) &&
            cast<StringAttr>(pair[0]).getValue() == kLLVMClusterDims;
        if (!isClusterEntry)
          passthrough.push_back(entry);
      }
    passthrough.push_back(b.getArrayAttr(
        {b.getStringAttr(kLLVMClusterDims), b.getStringAttr(value)}));
    func.setPassthroughAttr(b.getArrayAttr(passthrough));
    func->removeDiscardableAttr(kClusterDims);
    return success();
  }
};

} // namespace
