//===- Compiler.cpp - The FlyDSL compiler as a library --------------------===//

#include "fly/Compiler.h"
#include "fly/HostEntry.h"

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"
#include "fly/Target/Compile.h"
#include "fly/Target/ROCDLTarget.h"
#include "fly/runtime/Emu.h"
#include "fly/Conversion/ROCDLToEmu/WaveVectorizer.h"

#include "mlir/AsmParser/AsmParser.h"
#include "fly/Arch/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <mutex>
#include <unordered_map>
#include <variant>

using namespace mlir;
using namespace mlir::fly;

namespace fly {

namespace {

/// `file:line:col` of a location, looking through names, call sites (the
/// callee's place: where the user's code is) and fusions.
void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  if (auto name = dyn_cast<NameLoc>(loc))
    return printLocation(os, name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return printLocation(os, call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    return printLocation(os, fused.getLocations().front());
  os << "<unknown>";
}

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// Collects the diagnostics emitted on a context while it lives, as text
/// lines `file:line:col: error: message`, notes after their diagnostic.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          append(diag);
          for (Diagnostic &note : diag.getNotes())
            append(note);
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            errors = true;
          return success();
        }) {}

  bool hadErrors() const { return errors; }

  /// An Error with every diagnostic so far, or `fallback` if there was none.
  llvm::Error takeError(llvm::StringRef fallback) {
    std::string message = text.empty() ? fallback.str() : text;
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    text.clear();
    errors = false;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }

private:
  void append(Diagnostic &diag) {
    llvm::raw_string_ostream os(text);
    printLocation(os, diag.getLocation());
    os << ": " << severityName(diag.getSeverity()) << ": " << diag.str()
       << "\n";
  }

  ScopedDiagnosticHandler handler;
  std::string text;
  bool errors = false;
};

/// A pass instrumentation writing the module after every pass into a
/// directory, numbered in order.
class DumpAfterEachPass : public PassInstrumentation {
public:
  DumpAfterEachPass(std::string dir, unsigned &counter)
      : dir(std::move(dir)), counter(counter) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    // The adaptor running a nested pipeline has no argument: what it
    // leaves is what its last pass left, already written.
    if (pass->getArgument().empty())
      return;
    // Nested pass managers run on gpu.modules: dump the whole module.
    while (Operation *parent = op->getParentOp())
      op = parent;
    write(llvm::formatv("{0:2}-{1}.mlir", counter++, pass->getArgument()).str(),
          [&](llvm::raw_ostream &os) { op->print(os); });
  }

  /// The next numbered file after the stages, FlyDSL's way:
  /// "NN_<what>" (NN_<module>_final_isa.s, NN_<module>_llvm_ir.ll).
  void writeNext(const std::string &what,
                 llvm::function_ref<void(llvm::raw_ostream &)> print) {
    write(llvm::formatv("{0:2}_{1}", counter++, what).str(), print);
  }

  void write(const std::string &name,
             llvm::function_ref<void(llvm::raw_ostream &)> print) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      print(os);
  }

private:
  std::string dir;
  unsigned &counter;
};

/// Each gpu.module's LLVM IR as code generation will get it (before the
/// device libraries and optimization), as text by module name. Best effort:
/// a module that does not translate is left out (the compile itself will
/// report it).
std::map<std::string, std::string> deviceLLVMIR(ModuleOp module) {
  std::map<std::string, std::string> texts;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    if (failed(checkTranslatableTypes(gpuModule)))
      return;
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> ir =
        translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getSymName());
    if (!ir)
      return;
    llvm::raw_string_ostream os(texts[gpuModule.getSymName().str()]);
    ir->print(os, nullptr);
  });
  return texts;
}

/// The SIMD mode's wave function beside each kernel entry of `ir`, the host
/// code of `gpuModule` (fly/Conversion/ROCDLToEmu/WaveVectorizer.h). A
/// module compiled with checks keeps its kernels as fibers only: the checks'
/// runtime calls find their work-item through a fiber.
void addWaveFunctions(llvm::Module &ir, gpu::GPUModuleOp gpuModule,
                      unsigned waveSize) {
  std::vector<std::string> kernels;
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>())
    if (func->hasAttr("fly.emu.kernel"))
      kernels.push_back(func.getSymName().str());
  auto *checks = ir.getNamedGlobal(FLY_EMU_CHECKS_GLOBAL);
  if (checks && !llvm::cast<llvm::Constant>(checks->getInitializer())->isNullValue()) {
    for (const std::string &kernel : kernels) {
      auto *text = llvm::ConstantDataArray::getString(
          ir.getContext(), "checked emulation (FLYDSL_EMU_CHECK) runs as fibers");
      new llvm::GlobalVariable(ir, text->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, text,
                               FLY_EMU_WAVE_FALLBACK_PREFIX + kernel);
    }
    return;
  }
  ::fly::emu::addWaveFunctions(ir, kernels, waveSize);
}

/// Options.emulator, after the emulator stage: every gpu.module, now host
/// code, translated to LLVM bitcode for this host and replaced by a
/// gpu.binary holding that bitcode (the object the host entry embeds and
/// hands to the emulator's module_load).
llvm::Error emulateGPUModules(ModuleOp module, const CompileOptions &options,
                              Artifact &artifact, DumpAfterEachPass *dump) {
  MLIRContext *ctx = module.getContext();
  const ::fly::arch::ChipInfo *chip =
      ::fly::arch::lookupChip(options.pipeline.chip);
  if (!chip)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown chip " + options.pipeline.chip);
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    OwningOpRef<ModuleOp> host = ModuleOp::create(gpuModule.getLoc());
    for (Operation &op : gpuModule.getBody()->getOperations())
      host->getBody()->push_back(op.clone());
    if (failed(checkTranslatableTypes(*host)))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the emulator's host code of " + gpuModule.getSymName().str() +
              " has a type with no LLVM IR equivalent");
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> ir =
        translateModuleToLLVMIR(*host, llvmContext, gpuModule.getSymName());
    if (!ir)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "a converted kernel does not translate");
    if (llvm::Error err = setHostTarget(*ir))
      return err;
    addWaveFunctions(*ir, gpuModule, chip->waveSize);
    uint64_t staticLDS = 0;
    if (auto attr = gpuModule->getAttrOfType<IntegerAttr>(
            "fly.emu.static_lds_bytes"))
      staticLDS = attr.getValue().getZExtValue();
    auto *i32 = llvm::Type::getInt32Ty(llvmContext);
    for (auto [name, value] :
         {std::pair<const char *, uint64_t>{FLY_EMU_WAVE_SIZE_GLOBAL,
                                            chip->waveSize},
          {FLY_EMU_STATIC_LDS_GLOBAL, staticLDS},
          {FLY_EMU_LDS_LIMIT_GLOBAL, chip->ldsBytesPerWorkgroup}})
      new llvm::GlobalVariable(*ir, i32, /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage,
                               llvm::ConstantInt::get(i32, value), name);
    if (dump) // the host code, with the wave functions
      dump->writeNext(gpuModule.getSymName().str() + "_emulator_llvm_ir.ll",
                      [&](llvm::raw_ostream &out) { out << *ir; });
    std::string bitcode;
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*ir, os);
    os.flush();
    OpBuilder builder(gpuModule);
    auto object = gpu::ObjectAttr::get(
        ctx, ROCDL::ROCDLTargetAttr::get(ctx), gpu::CompilationTarget::Binary,
        builder.getStringAttr(bitcode), nullptr, nullptr);
    gpu::BinaryOp::create(builder, gpuModule.getLoc(), gpuModule.getSymName(),
                          nullptr, builder.getArrayAttr({object}));
    artifact.codeObjects.push_back({gpuModule.getSymName().str(),
                                    "emu-" + options.pipeline.chip, bitcode});
    if (options.emitLLVMIR)
      llvm::raw_string_ostream(artifact.codeObjects.back().llvmIR) << *ir;
    gpuModule.erase();
  }
  return llvm::Error::success();
}

/// The kernels of the gpu.modules after stage A, with their ABI.
std::vector<KernelInfo> collectKernels(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr("rocdl.kernel"))
        continue;
      KernelInfo info;
      info.module = gpuModule.getSymName().str();
      info.name = func.getSymName().str();
      if (auto abi = func->getAttrOfType<ArrayAttr>("fly.abi"))
        for (Attribute entry : abi)
          if (auto text = dyn_cast<StringAttr>(entry))
            info.abi.push_back(text.getValue().str());
      if (auto type = func->getAttrOfType<TypeAttr>("fly.original_type")) {
        llvm::raw_string_ostream os(info.originalType);
        type.getValue().print(os);
      }
      kernels.push_back(std::move(info));
    }
  });
  return kernels;
}

/// The slots of host argument `argument` (of LLVM type `type`, at `offset`
/// in the block) as `fly.abi` entry `abi` says: a parameter's data pointer
/// or value, or its dynamic leaves (the struct's fields, each matched with
/// the parameter's next dynamic leaf).
llvm::Error addSlots(llvm::StringRef abi, llvm::Type *type, uint64_t offset,
                     const llvm::DataLayout &layout,
                     llvm::ArrayRef<AbiParameter> parameters,
                     std::vector<AbiSlot> &slots) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "host argument '" + abi + "': " + why);
  };
  auto [kind, index] = abi.split(':');
  unsigned parameter = 0;
  if (index.getAsInteger(10, parameter) || parameter >= parameters.size())
    return fail("names no parameter of the traced signature");
  const AbiParameter &p = parameters[parameter];
  if (kind == "ptr" || kind == "value") {
    std::optional<AbiScalar> scalar = abiScalarOf(type);
    if (!scalar)
      return fail("its type is not a scalar");
    slots.push_back({offset, *scalar, parameter, -1});
    return llvm::Error::success();
  }
  if (kind != "leaves" || p.kind != AbiParameter::Kind::Tensor)
    return fail("is not the leaves of a tensor");
  auto *record = llvm::dyn_cast<llvm::StructType>(type);
  std::vector<int> dynamic;
  for (auto [i, leaf] : llvm::enumerate(p.leaves))
    if (!leaf.value)
      dynamic.push_back(int(i));
  if (!record || record->getNumElements() != dynamic.size())
    return fail("is not a struct of the tensor's " +
                llvm::Twine(dynamic.size()) + " dynamic leaves");
  const llvm::StructLayout *fields = layout.getStructLayout(record);
  for (unsigned i = 0, e = record->getNumElements(); i < e; ++i) {
    std::optional<AbiScalar> scalar = abiScalarOf(record->getElementType(i));
    bool wide = p.leaves[dynamic[i]].wide;
    if (scalar != (wide ? AbiScalar::I64 : AbiScalar::I32))
      return fail("field " + llvm::Twine(i) + " is not the " +
                  (wide ? "i64" : "i32") + " of its leaf");
    slots.push_back({offset + fields->getElementOffset(i), *scalar, parameter,
                     dynamic[i]});
  }
  return llvm::Error::success();
}

/// Adds `void __fly_entry_F(const void *block)` for host function `host`:
/// it loads the arguments from the block (an LLVM struct of them) and calls
/// `host`; and the block's size as `i64 __fly_block_size_F`. Fills `info`'s
/// layout of the block.
llvm::Error addHostEntry(llvm::Function &host, llvm::ArrayRef<std::string> abi,
                         HostFunctionInfo &info) {
  llvm::Module &module = *host.getParent();
  llvm::LLVMContext &context = module.getContext();
  const llvm::DataLayout &layout = module.getDataLayout();
  llvm::FunctionType *hostType = host.getFunctionType();
  auto *blockType = llvm::StructType::get(context, hostType->params());
  const llvm::StructLayout *fields = layout.getStructLayout(blockType);

  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                              {llvm::PointerType::get(context, 0)}, false),
      llvm::GlobalValue::ExternalLinkage, hostEntrySymbol(info.name), module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *block = entry->getArg(0);
  llvm::SmallVector<llvm::Value *> arguments;
  for (unsigned i = 0, e = hostType->getNumParams(); i < e; ++i) {
    llvm::Type *type = hostType->getParamType(i);
    llvm::Value *address = builder.CreateStructGEP(blockType, block, i);
    arguments.push_back(
        builder.CreateAlignedLoad(type, address, llvm::Align(1)));

    HostArgument argument;
    argument.abi = i < abi.size() ? abi[i] : std::string();
    llvm::raw_string_ostream(argument.type) << *type;
    argument.offset = fields->getElementOffset(i);
    argument.size = layout.getTypeAllocSize(type);
    if (llvm::Error err = addSlots(argument.abi, type, argument.offset, layout,
                                   info.parameters, info.slots))
      return err;
    info.arguments.push_back(std::move(argument));
  }
  info.blockSize = fields->getSizeInBytes();
  builder.CreateCall(&host, arguments);
  builder.CreateRetVoid();
  auto *i64 = llvm::Type::getInt64Ty(context);
  new llvm::GlobalVariable(module, i64, /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i64, info.blockSize),
                           hostBlockSizeSymbol(info.name));
  return llvm::Error::success();
}

/// The host part of `module` after stage C (the host functions with
/// `fly.abi` and the gpu.binary ops they launch from) as LLVM bitcode with
/// an entry per host function. Nothing when there is no host function.
llvm::Error translateHost(ModuleOp module, Artifact &artifact,
                          DumpAfterEachPass *dump) {
  std::vector<std::vector<std::string>> abis;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    auto abi = func->getAttrOfType<ArrayAttr>("fly.abi");
    if (!abi || func.isExternal())
      continue;
    HostFunctionInfo info;
    info.name = func.getSymName().str();
    abis.emplace_back();
    for (Attribute entry : abi)
      if (auto text = dyn_cast<StringAttr>(entry))
        abis.back().push_back(text.getValue().str());
    if (auto type = func->getAttrOfType<TypeAttr>("fly.original_type")) {
      llvm::raw_string_ostream os(info.originalType);
      type.getValue().print(os);
      if (auto original = dyn_cast<FunctionType>(type.getValue()))
        for (Type input : original.getInputs())
          info.parameters.push_back(describeHostParameter(input));
    }
    // Fly's attributes mean nothing to LLVM IR.
    func->removeAttr("fly.abi");
    func->removeAttr("fly.original_type");
    artifact.hostFunctions.push_back(std::move(info));
  }
  if (artifact.hostFunctions.empty())
    return llvm::Error::success();

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> host =
      translateModuleToLLVMIR(module, context, "flydsl_host");
  if (!host)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the host functions do not translate to "
                                   "LLVM IR");
  if (llvm::Error err = setHostTarget(*host))
    return err;
  for (auto [info, abi] : llvm::zip(artifact.hostFunctions, abis))
    if (llvm::Error err = addHostEntry(*host->getFunction(info.name), abi, info))
      return err;
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(*host, &problemStream))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the host module is invalid: " + problems);
  if (dump)
    dump->writeNext("host_llvm_ir.ll",
                    [&](llvm::raw_ostream &os) { host->print(os, nullptr); });
  llvm::raw_string_ostream bitcode(artifact.hostModule);
  llvm::WriteBitcodeToFile(*host, bitcode);
  return llvm::Error::success();
}

llvm::Error
compileForChip(ModuleOp module, const CompileOptions &options,
               Artifact &artifact, DumpAfterEachPass *dump,
               llvm::function_ref<llvm::Error(Stage)> runStage,
               DiagnosticCollector &diagnostics);

/// Stages A, B and C on `module` (parsed or copied for this compile, so
/// the passes may change it), with the diagnostics of its context going to
/// `diagnostics`.
llvm::Expected<Artifact> compileModule(ModuleOp module,
                                       const CompileOptions &options,
                                       DiagnosticCollector &diagnostics) {
  MLIRContext &context = *module.getContext();
  unsigned dumpCounter = 0;
  std::unique_ptr<DumpAfterEachPass> dump;
  if (!options.dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(options.dumpDir))
      return llvm::createStringError(ec, "cannot create the dump directory " +
                                             options.dumpDir + ": " +
                                             ec.message());
    dump = std::make_unique<DumpAfterEachPass>(options.dumpDir, dumpCounter);
    dump->write("00-input.mlir",
                [&](llvm::raw_ostream &os) { module.print(os); });
    ++dumpCounter;
  }

  // Stage A, then the kernels' argument blocks (gone once stage C turns the
  // gpu.modules into binaries), then B and C; for the emulator, its stage
  // and the gpu.modules' host bitcode instead, then B for the host code.
  auto runStage = [&](Stage stage) -> llvm::Error {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.enableVerifier(options.verifyEachPass);
    if (llvm::Error err = buildStage(pm, stage, options.pipeline))
      return err;
    if (dump)
      pm.addInstrumentation(
          std::make_unique<DumpAfterEachPass>(options.dumpDir, dumpCounter));
    if (options.printAfterAll)
      pm.enableIRPrinting(
          /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
          /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
          /*printModuleScope=*/false, /*printAfterOnlyOnChange=*/false);
    if (failed(pm.run(module)))
      return diagnostics.takeError("pipeline stage " + stageName(stage).str() +
                                   " failed");
    return llvm::Error::success();
  };
  if (llvm::Error err = runStage(Stage::PreBinary))
    return std::move(err);
  Artifact artifact;
  artifact.kernels = collectKernels(module);
  if (options.emulator) {
    if (llvm::Error err = runStage(Stage::Emulator))
      return std::move(err);
    if (llvm::Error err = emulateGPUModules(module, options, artifact, dump.get())) {
      if (!diagnostics.hadErrors())
        return std::move(err);
      llvm::consumeError(std::move(err));
      return diagnostics.takeError("the kernels do not convert for the emulator");
    }
    if (llvm::Error err = runStage(Stage::BinaryPrep))
      return std::move(err);
  } else if (llvm::Error err = compileForChip(module, options, artifact,
                                              dump.get(), runStage,
                                              diagnostics)) {
    return std::move(err);
  }
  if (llvm::Error err = translateHost(module, artifact, dump.get())) {
    if (!diagnostics.hadErrors())
      return std::move(err);
    llvm::consumeError(std::move(err));
    return diagnostics.takeError("the host functions do not translate");
  }
  return artifact;
}

/// Stages B and C for the chip: the code objects (with their ISA and
/// device LLVM IR when asked for) and the kernels' resources.
llvm::Error
compileForChip(ModuleOp module, const CompileOptions &options,
               Artifact &artifact, DumpAfterEachPass *dump,
               llvm::function_ref<llvm::Error(Stage)> runStage,
               DiagnosticCollector &diagnostics) {
  if (llvm::Error err = runStage(Stage::BinaryPrep))
    return err;
  std::map<std::string, std::string> deviceIR;
  if (dump || options.emitLLVMIR)
    deviceIR = deviceLLVMIR(module);
  if (dump)
    for (const auto &[name, text] : deviceIR)
      dump->writeNext(name + "_llvm_ir.ll",
                      [&](llvm::raw_ostream &os) { os << text; });
  if (llvm::Error err = runStage(Stage::Binary))
    return err;

  FailureOr<SmallVector<CodeObject>> objects = collectCodeObjects(module);
  if (failed(objects))
    return diagnostics.takeError("no code object");
  for (CodeObject &object : *objects) {
    for (KernelInfo &kernel : artifact.kernels)
      if (kernel.module == object.moduleName)
        for (const ::fly::target::KernelResources &r : object.kernels)
          if (r.name == kernel.name)
            kernel.resources = r;
    CodeObjectBlob blob{object.moduleName, object.chip, std::move(object.elf)};
    if (dump || options.emitISA) {
      // The dump is best effort; an ISA asked for is not.
      llvm::Expected<std::string> isa =
          ::fly::target::disassembleCodeObject(blob.elf);
      if (!isa && options.emitISA)
        return isa.takeError();
      if (!isa)
        llvm::consumeError(isa.takeError());
      else if (dump)
        dump->writeNext(object.moduleName + "_final_isa.s",
                        [&](llvm::raw_ostream &os) { os << *isa; });
      if (isa && options.emitISA)
        blob.isa = std::move(*isa);
    }
    if (options.emitLLVMIR)
      blob.llvmIR = deviceIR[blob.module];
    artifact.codeObjects.push_back(std::move(blob));
  }
  return llvm::Error::success();
}

} // namespace

struct Compiler::Impl {
  Impl() : context(makeRegistry()) {
    // A diagnostic names the op and its location; the op's text would bury
    // it.
    context.printOpOnDiagnostic(false);
    context.getOrLoadDialect<FlyDialect>();
  }

  static DialectRegistry makeRegistry() {
    static std::once_flag once;
    std::call_once(once, [] { registerFlyPipelines(); });
    DialectRegistry registry;
    registerDialects(registry);
    return registry;
  }

  struct InferKey {
    const void *op;
    std::vector<const void *> operands;
    const void *attrs;
    bool operator==(const InferKey &o) const {
      return op == o.op && operands == o.operands && attrs == o.attrs;
    }
  };
  struct InferKeyHash {
    size_t operator()(const InferKey &k) const {
      return llvm::hash_combine(
          k.op, llvm::hash_combine_range(k.operands.begin(), k.operands.end()),
          k.attrs);
    }
  };

  MLIRContext context;
  std::mutex mutex; // one caller at a time: the context's diagnostics
  std::unordered_map<InferKey, std::variant<std::vector<Type>, std::string>,
                     InferKeyHash>
      inferred;
};

Compiler::Compiler() : impl(std::make_unique<Impl>()) {}
Compiler::~Compiler() = default;

MLIRContext &Compiler::getContext() { return impl->context; }

llvm::Expected<Type> Compiler::parseType(llvm::StringRef text) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  size_t read = 0;
  Type type = mlir::parseType(text, &impl->context, &read);
  if (!type || read != text.size())
    return diagnostics.takeError("'" + text.str() + "' is not a type");
  return type;
}

llvm::Expected<Attribute> Compiler::parseAttribute(llvm::StringRef text) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  DiagnosticCollector diagnostics(impl->context);
  size_t read = 0;
  Attribute attr = mlir::parseAttribute(text, &impl->context, Type(), &read);
  if (!attr || read != text.size())
    return diagnostics.takeError("'" + text.str() + "' is not an attribute");
  return attr;
}

namespace {

/// Runs `fn`, an op's verifier or type inference, so that a crash of it
/// (a signal) makes it return false instead of ending the process: some of
/// MLIR's verifiers assume more of an op's types than its constraints
/// check (llvm.intr.vector.interleave2 casts its result's type, any LLVM
/// type by its constraint, to a vector type), so an op a user builds of
/// such types crashes them. LLVM's CrashRecoveryContext catches the signal
/// and jumps back here; what `fn` had allocated is leaked, the price of
/// going on.
bool runRecoveringFromCrash(llvm::function_ref<void()> fn) {
  llvm::CrashRecoveryContext::Enable();
  bool completed = llvm::CrashRecoveryContext().RunSafely(fn);
  llvm::CrashRecoveryContext::Disable();
  return completed;
}

std::string crashedMessage(llvm::StringRef opName, llvm::StringRef what) {
  return ("'" + opName + "' op: MLIR's " + what +
          " crashed on these operand, result or attribute types (it assumes "
          "more of them than the op's constraints check): the types are wrong")
      .str();
}

/// The first error of the verifier on an op of `name` with these operands
/// and attributes, `numResults` placeholder results (`none`) and
/// `numRegions` empty regions, verified alone; "" if it verifies.
std::string firstVerifierError(RegisteredOperationName name, ValueRange operands,
                               DictionaryAttr attrs, Location loc,
                               unsigned numResults, unsigned numRegions) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs.getValue());
  state.addTypes(SmallVector<Type>(numResults, NoneType::get(loc.getContext())));
  for (unsigned i = 0; i < numRegions; ++i)
    state.addRegion();
  Block block;
  block.push_back(Operation::create(state));
  std::string first;
  ScopedDiagnosticHandler handler(loc.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && first.empty())
      first = diag.str();
    return success();
  });
  LogicalResult verified = failure();
  if (!runRecoveringFromCrash([&] {
        verified = mlir::verify(&block.front(), /*verifyRecursively=*/false);
      }))
    return "the verifier crashed on the placeholder results"; // not the operands
  if (failed(verified) && first.empty())
    first = "the operation does not verify";
  return first;
}

/// Whether operands of these types and these attributes pass the checks of
/// the op's verifier: an op's type inference assumes they do (a vector op
/// casts its operand's type to the vector type its ODS operand is), so
/// operands of other types or counts would crash it (or, without LLVM's
/// assertions, make it infer a null type). The op is built of them with
/// placeholder results and empty regions and verified alone, with 0, 1, ...
/// regions and results until the counts are the op's (its traits check the
/// counts first, the regions' before the results'); as ODS
/// checks the attributes and the operands before the results, an error
/// about the results (their types, or the return types the op infers
/// compared with them) or the op's regions and parent (missing here)
/// means that the operands and attributes passed. Fails with the first
/// other error, emitted at `loc`.
LogicalResult verifyOperandsForInference(RegisteredOperationName name,
                                         ValueRange operands,
                                         DictionaryAttr attrs, Location loc) {
  // More fixed regions or results than these: the operands are not checked.
  constexpr unsigned kMaxRegions = 2, kMaxResults = 4;
  for (unsigned numRegions = 0; numRegions <= kMaxRegions; ++numRegions) {
    for (unsigned numResults = 0; numResults <= kMaxResults; ++numResults) {
      std::string first = firstVerifierError(name, operands, attrs, loc,
                                             numResults, numRegions);
      llvm::StringRef message(first);
      if (message.empty())
        return success();
      if (!message.contains("result") && !message.contains("return type") &&
          !message.contains("region") && !message.contains("parent"))
        return emitError(loc) << message;
    }
  }
  return success();
}

} // namespace

llvm::Expected<std::vector<Type>>
Compiler::inferResultTypes(llvm::StringRef opName, llvm::ArrayRef<Type> operandTypes,
                           Attribute attrs) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  MLIRContext *ctx = &impl->context;
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, ctx);
  if (!name)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown op '" + opName + "'");
  auto dict = dyn_cast_or_null<DictionaryAttr>(attrs);
  if (!dict)
    dict = DictionaryAttr::get(ctx);

  Impl::InferKey key{name->getAsOpaquePointer(), {}, dict.getAsOpaquePointer()};
  for (Type t : operandTypes)
    key.operands.push_back(t.getAsOpaquePointer());
  auto found = impl->inferred.find(key);
  if (found == impl->inferred.end()) {
    auto *iface = name->getInterface<InferTypeOpInterface>();
    std::variant<std::vector<Type>, std::string> entry;
    if (!iface) {
      entry = "op '" + opName.str() + "' does not infer its result types";
    } else {
      // Placeholder operands of the given types: the arguments of a block
      // that belongs to nothing.
      Block block;
      Location loc = UnknownLoc::get(ctx);
      for (Type t : operandTypes)
        block.addArgument(t, loc);
      DiagnosticCollector diagnostics(*ctx);
      // An op that keeps its inherent attributes as properties reads them
      // from there when it infers (a predicate, a position): they are set
      // from the dictionary, as the parser does for the generic form.
      std::unique_ptr<char[]> storage;
      OpaqueProperties properties(nullptr);
      if (int size = name->getOpPropertyByteSize()) {
        storage = std::make_unique<char[]>(size);
        properties = OpaqueProperties(storage.get());
        name->initOpProperties(properties, OpaqueProperties(nullptr));
      }
      auto emitError = [&] { return mlir::emitError(loc); };
      SmallVector<Type> results;
      auto infer = [&]() -> LogicalResult {
        if (failed(verifyOperandsForInference(*name, block.getArguments(), dict,
                                              loc)) ||
            diagnostics.hadErrors())
          return failure();
        if (properties && failed(name->setOpPropertiesFromAttribute(
                              *name, properties, dict, emitError)))
          return failure();
        LogicalResult inferred = failure();
        if (!runRecoveringFromCrash([&] {
              inferred = iface->inferReturnTypes(ctx, loc, block.getArguments(),
                                                 dict, properties, RegionRange(),
                                                 results);
            }))
          return mlir::emitError(loc)
                 << crashedMessage(opName, "type inference");
        // A null type (an inference that trusted its operands too far)
        // cannot be a handle: it does not even print.
        return success(succeeded(inferred) && !diagnostics.hadErrors() &&
                       llvm::all_of(results, [](Type t) { return bool(t); }));
      };
      if (succeeded(infer()))
        entry = std::vector<Type>(results.begin(), results.end());
      else
        entry = llvm::toString(diagnostics.takeError(
            "'" + opName.str() + "' rejects its operands"));
      if (properties)
        name->destroyOpProperties(properties);
    }
    found = impl->inferred.emplace(std::move(key), std::move(entry)).first;
  }
  if (const auto *message = std::get_if<std::string>(&found->second)) {
    // Drop the placeholder location: the caller knows where the op is.
    llvm::StringRef text(*message);
    text.consume_front("<unknown>: error: ");
    return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
  }
  return std::get<std::vector<Type>>(found->second);
}

//===----------------------------------------------------------------------===//
// MLIR text services of the Python builders (flydsl._mlir)
//===----------------------------------------------------------------------===//

Compiler::OperationInfo Compiler::getOperationInfo(llvm::StringRef opName) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  OperationInfo info;
  // Looking the name up loads its dialect, as parsing it would.
  MLIRContext *ctx = &impl->context;
  ctx->getOrLoadDialect(opName.split('.').first);
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, ctx);
  if (!name)
    return info;
  info.registered = true;
  info.isTerminator = name->hasTrait<OpTrait::IsTerminator>();
  info.infersResultTypes = name->hasInterface<InferTypeOpInterface>();
  return info;
}

llvm::Error Compiler::verifyOperation(
    llvm::StringRef opText,
    llvm::ArrayRef<std::pair<std::string, Type>> operands) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  MLIRContext &context = impl->context;
  // The operation in a function whose entry block defines its operands,
  // in a module: the parents it has in a traced module (whose
  // gpu.container_module ops such as gpu.launch_func look for). Only the
  // operation is verified, not the ops around it.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "\"builtin.module\"() ({\n\"func.func\"() <{function_type = () -> (), "
        "sym_name = \"__fly_verify\"}> ({\n";
  if (!operands.empty()) {
    os << "^bb0(";
    llvm::interleaveComma(operands, os, [&](const auto &operand) {
      os << operand.first << ": " << operand.second;
    });
    os << "):\n";
  }
  os << opText << "\n\"func.return\"() : () -> ()\n}) : () -> ()\n}) "
                  "{gpu.container_module} : () -> ()\n";

  DiagnosticCollector diagnostics(context);
  Block block;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (failed(parseSourceString(text, &block, config, "<flydsl op>")))
    return diagnostics.takeError("the operation does not parse");
  Operation &func = block.front().getRegion(0).front().front();
  Operation &op = func.getRegion(0).front().front();
  if (op.getNumRegions() || op.getNumSuccessors() ||
      op.hasTrait<OpTrait::IsTerminator>())
    return llvm::Error::success();
  LogicalResult verified = failure();
  if (!runRecoveringFromCrash(
          [&] { verified = mlir::verify(&op, /*verifyRecursively=*/false); }))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        crashedMessage(op.getName().getStringRef(), "verifier"));
  if (succeeded(verified))
    return llvm::Error::success();
  llvm::Error err = diagnostics.takeError("the operation does not verify");
  // An operation that must sit in a particular parent (HasParent), or a
  // symbol that must sit in a symbol table (memref.global in a module
  // body), fails here only because of the function around it.
  std::string message = llvm::toString(std::move(err));
  if (llvm::StringRef(message).contains("expects parent op") ||
      llvm::StringRef(message).contains(
          "symbol's parent must have the SymbolTable trait"))
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::string>
Compiler::printOperations(llvm::StringRef text, const PrintOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  MLIRContext &context = impl->context;
  DiagnosticCollector diagnostics(context);
  Block block;
  ParserConfig config(&context, options.verify);
  if (failed(parseSourceString(text, &block, config, "<flydsl module>")))
    return diagnostics.takeError(options.verify ? "the IR does not verify"
                                                : "the IR does not parse");
  OpPrintingFlags flags;
  if (options.generic)
    flags.printGenericOpForm();
  if (options.debugInfo)
    flags.enableDebugInfo();
  // Operations in a block print without alias definitions: every type and
  // attribute is written out where it is used.
  std::string out;
  llvm::raw_string_ostream os(out);
  for (Operation &op : block) {
    op.print(os, flags);
    os << "\n";
  }
  return out;
}

/// Parses `text` as one builtin.module (a bare list of operations becomes
/// the body of one).
static OwningOpRef<ModuleOp> parseModuleText(MLIRContext &context,
                                             llvm::StringRef text, bool verify) {
  ParserConfig config(&context, verify);
  return parseSourceString<ModuleOp>(text, config, "<flydsl module>");
}

llvm::Error Compiler::readModule(llvm::StringRef text, bool verify,
                                 llvm::function_ref<void(ModuleOp)> read) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  MLIRContext &context = impl->context;
  DiagnosticCollector diagnostics(context);
  OwningOpRef<ModuleOp> module = parseModuleText(context, text, verify);
  if (!module)
    return diagnostics.takeError(verify ? "the module does not verify"
                                        : "the module does not parse");
  read(*module);
  return llvm::Error::success();
}

llvm::Expected<std::string>
Compiler::runPassPipeline(llvm::StringRef moduleText, llvm::StringRef pipeline) {
  registerPasses();
  std::lock_guard<std::mutex> lock(impl->mutex);
  MLIRContext &context = impl->context;
  DiagnosticCollector diagnostics(context);
  std::string pipelineErrors;
  llvm::raw_string_ostream errorStream(pipelineErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
  if (failed(parsed)) {
    // The parser's message, without its position in the pipeline's text
    // (which is not the caller's source).
    llvm::StringRef why(pipelineErrors);
    size_t at = why.find("error: ");
    if (at != llvm::StringRef::npos)
      why = why.drop_front(at + 7);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid pass pipeline '" + pipeline.str() +
                                       "': " + why.rtrim());
  }
  OwningOpRef<ModuleOp> module =
      parseModuleText(context, moduleText, /*verify=*/true);
  if (!module)
    return diagnostics.takeError("the module does not verify");
  PassManager pm(&context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    return diagnostics.takeError("the pass pipeline '" + pipeline.str() +
                                 "' failed");
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  return out;
}

/// The chip's target machine and code-generation pipeline, built while the
/// module is parsed and the MLIR stages run (none for the emulator, or a chip the pipeline rejects).
static std::unique_ptr<TargetMachineWarmUp>
warmUpTarget(const CompileOptions &options) {
  const ::fly::arch::ChipInfo *chip =
      ::fly::arch::lookupChip(options.pipeline.chip);
  if (!chip || options.emulator)
    return nullptr;
  return std::make_unique<TargetMachineWarmUp>(chip->name, chip->features,
                                               options.pipeline.optLevel);
}

llvm::Expected<Artifact> Compiler::compile(llvm::StringRef moduleText,
                                           const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  std::unique_ptr<TargetMachineWarmUp> warmUp = warmUpTarget(options);
  MLIRContext &context = impl->context;
  DiagnosticCollector diagnostics(context);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(moduleText, "<flydsl module>",
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return diagnostics.takeError("the module does not parse");

  return compileModule(*module, options, diagnostics);
}

llvm::Expected<Artifact> Compiler::compile(ModuleOp module,
                                           const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (!module)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no module to compile");
  std::unique_ptr<TargetMachineWarmUp> warmUp = warmUpTarget(options);
  DiagnosticCollector diagnostics(*module.getContext());
  if (failed(verify(module)))
    return diagnostics.takeError("the module does not verify");
  OwningOpRef<ModuleOp> copy(module.clone());
  return compileModule(*copy, options, diagnostics);
}

void registerDialects(DialectRegistry &registry) {
  registerFlyTargetInterfaces(registry); // before upstream's ROCDL target
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // #gpu.select_object: gpu.binary and gpu.launch_func to LLVM IR.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registry.insert<FlyDialect, fly_rocdl::FlyROCDLDialect>();
}

void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerFlyPipelines();
  });
}

} // namespace fly
