//===- ROCDLTarget.cpp - FlyDSL's serializer of #rocdl.target ------------===//
//
// MLIR's ModuleToObject drives the work (translation to LLVM IR, device
// libraries when a kernel needs them, the LLVM optimization pipeline at the
// target's O level); this serializer only replaces its last step. Upstream
// prints the ISA, assembles it back and links with a child ld.lld; here the
// code generator writes the object directly and lld links it in process.
// The ISA text is printed only when asked for (format=isa, or an ISA
// callback of a C++ caller).
//
//===----------------------------------------------------------------------===//

#include "fly/Target/ROCDLTarget.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace {

/// Reports LLVM's diagnostics (resource limits, unsupported operations) as
/// MLIR diagnostics on the gpu.module instead of LLVM's default of printing
/// errors and exiting the process.
class ForwardToMLIR : public llvm::DiagnosticHandler {
public:
  ForwardToMLIR(Operation &module, bool &sawError)
      : module(module), sawError(sawError) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    // Without debug info LLVM can only say "<unknown>:0:0"; the gpu.module's
    // location says more.
    llvm::StringRef message(text);
    message.consume_front("<unknown>:0:0: ");
    switch (info.getSeverity()) {
    case llvm::DS_Error:
      sawError = true;
      module.emitError() << "LLVM: " << message;
      break;
    case llvm::DS_Warning:
      module.emitWarning() << "LLVM: " << message;
      break;
    case llvm::DS_Remark:
    case llvm::DS_Note:
      break;
    }
    return true;
  }

private:
  Operation &module;
  bool &sawError;
};

class InProcessSerializer : public ROCDL::SerializeGPUModuleBase {
public:
  InProcessSerializer(Operation &module, ROCDL::ROCDLTargetAttr target,
                      const gpu::TargetOptions &options)
      : SerializeGPUModuleBase(module, target, options), options(options) {}

protected:
  void handleModulePreLink(llvm::Module &llvmModule) override {
    llvmModule.getContext().setDiagnosticHandler(
        std::make_unique<ForwardToMLIR>(getOperation(), sawLLVMError));
    SerializeGPUModuleBase::handleModulePreLink(llvmModule);
  }

  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &llvmModule) override {
    gpu::CompilationTarget format = options.getCompilationTarget();
    if (format == gpu::CompilationTarget::Offload)
      return LLVM::ModuleToObject::moduleToObject(llvmModule);
    if (sawLLVMError)
      return failure();

    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "LLVM has no target machine for " << triple << " " << chip;
    auto emitError = [&] { return getOperation().emitError(); };

    SmallVector<char, 0> object;
    if (format == gpu::CompilationTarget::Assembly || isaCallback) {
      FailureOr<SmallString<0>> isa =
          translateModuleToISA(llvmModule, **machine, emitError);
      if (failed(isa) || sawLLVMError)
        return failure();
      if (isaCallback)
        isaCallback(*isa);
      if (format == gpu::CompilationTarget::Assembly)
        return SmallVector<char, 0>(isa->begin(), isa->end());
      FailureOr<SmallVector<char, 0>> assembled =
          ROCDL::assembleIsa(*isa, triple, chip, features, emitError);
      if (failed(assembled))
        return failure();
      object = std::move(*assembled);
    } else {
      llvm::raw_svector_ostream os(object);
      llvm::legacy::PassManager codegen;
      if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                          llvm::CodeGenFileType::ObjectFile))
        return emitError() << "LLVM cannot emit an object file for " << chip;
      codegen.run(llvmModule);
      if (sawLLVMError)
        return failure();
    }

    auto codeObject = fly::linkCodeObject(object);
    if (!codeObject)
      return emitError() << llvm::toString(codeObject.takeError());
    return std::move(*codeObject);
  }

private:
  gpu::TargetOptions options;
  bool sawLLVMError = false;
};

/// `gpu::TargetAttrInterface` of `#rocdl.target` with the serializer above.
struct FlyROCDLTargetModel
    : public gpu::TargetAttrInterface::FallbackModel<FlyROCDLTargetModel> {
  std::optional<SmallVector<char, 0>>
  serializeToObject(Attribute attribute, Operation *module,
                    const gpu::TargetOptions &options) const {
    if (!isa<gpu::GPUModuleOp>(module)) {
      module->emitError("only a gpu.module can be serialized for ROCDL");
      return std::nullopt;
    }
    if (failed(fly::checkTranslatableTypes(module)))
      return std::nullopt;
    InProcessSerializer serializer(
        *module, cast<ROCDL::ROCDLTargetAttr>(attribute), options);
    InProcessSerializer::init();
    return serializer.run();
  }

  /// A `#gpu.object`; a fat binary is a plain code object (there is one
  /// target per module) with the kernels' metadata as its kernel table.
  Attribute createObject(Attribute attribute, Operation *module,
                         const SmallVector<char, 0> &object,
                         const gpu::TargetOptions &options) const {
    gpu::CompilationTarget format = options.getCompilationTarget();
    gpu::KernelTableAttr kernels;
    if (format == gpu::CompilationTarget::Fatbin) {
      format = gpu::CompilationTarget::Binary;
      kernels = ROCDL::getKernelMetadata(module, object);
    }
    Builder builder(attribute.getContext());
    return builder.getAttr<gpu::ObjectAttr>(
        attribute, format,
        builder.getStringAttr(StringRef(object.data(), object.size())),
        DictionaryAttr(), kernels);
  }
};

} // namespace

LogicalResult mlir::fly::checkTranslatableTypes(Operation *root) {
  auto translatable = [](Type type) { return LLVM::isCompatibleType(type); };
  // The op to blame is the one no lowering took (an arith.extf of an 8-bit
  // float, say), not the casts the lowerings left around it: casts are
  // reported only when nothing else is.
  bool casts = false;
  auto walker = [&](Operation *op) -> WalkResult {
    if (isa<gpu::GPUModuleOp, ModuleOp>(op) ||
        (!casts && isa<UnrealizedConversionCastOp>(op)))
      return WalkResult::advance();
    auto report = [&](Type type) {
      op->emitError() << "the type " << type << " of this "
                      << op->getName()
                      << " has no LLVM IR equivalent (an element type the "
                         "lowering left as it is: 8-, 6- and 4-bit floats "
                         "must reach LLVM as integers of their width)";
      return WalkResult::interrupt();
    };
    for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                              op->getResultTypes()))
      if (!translatable(type))
        return report(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!translatable(arg.getType()))
            return report(arg.getType());
    for (NamedAttribute attr : op->getAttrs())
      if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
        if (!isa<FunctionType>(type.getValue()) &&
            !translatable(type.getValue()))
          return report(type.getValue());
    return WalkResult::advance();
  };
  if (root->walk(walker).wasInterrupted())
    return failure();
  casts = true;
  return failure(root->walk(walker).wasInterrupted());
}

void mlir::fly::registerFlyROCDLTarget(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, ROCDL::ROCDLDialect *) {
    ROCDL::ROCDLTargetAttr::attachInterface<FlyROCDLTargetModel>(*context);
  });
}
