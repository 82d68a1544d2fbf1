//===- Compile.cpp - Run the pipeline and collect the code objects -------===//

#include "fly/Target/Compile.h"
#include "fly/Target/ROCDLTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

using namespace mlir;
using namespace mlir::fly;

void mlir::fly::registerFlyTargetInterfaces(DialectRegistry &registry) {
  registerFlyROCDLTarget(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

FailureOr<SmallVector<CodeObject>>
mlir::fly::compileToCodeObjects(ModuleOp module, const PipelineOptions &options,
                                Stage first) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  if (llvm::Error err = buildStages(pm, first, Stage::Binary, options))
    return module.emitError() << llvm::toString(std::move(err));
  if (failed(pm.run(module)))
    return failure();
  return collectCodeObjects(module);
}

FailureOr<SmallVector<CodeObject>>
mlir::fly::collectCodeObjects(ModuleOp module) {
  SmallVector<CodeObject> result;
  bool ok = true;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Binary) {
        binary.emitError() << "holds " << attr
                           << ", not a code object (stage binary makes them "
                              "with format=fatbin or format=bin)";
        ok = false;
        continue;
      }
      CodeObject codeObject;
      codeObject.moduleName = binary.getSymName().str();
      codeObject.elf = object.getObject().getValue().str();
      auto chip = ::fly::target::readCodeObjectChip(codeObject.elf);
      if (!chip) {
        binary.emitError() << llvm::toString(chip.takeError());
        ok = false;
        continue;
      }
      auto kernels = ::fly::target::readKernelResources(codeObject.elf);
      if (!kernels) {
        binary.emitError() << llvm::toString(kernels.takeError());
        ok = false;
        continue;
      }
      codeObject.chip = std::move(*chip);
      codeObject.kernels = std::move(*kernels);
      result.push_back(std::move(codeObject));
    }
  });
  if (!ok)
    return failure();
  if (result.empty())
    return module.emitError()
           << "no code object: the module has no gpu.module to compile";
  return result;
}
