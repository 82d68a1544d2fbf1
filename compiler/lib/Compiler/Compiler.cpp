//===- Compiler.cpp - The FlyDSL compiler as a library --------------------===//

#include "fly/Compiler.h"

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Target/Compile.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

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
    // Nested pass managers run on gpu.modules: dump the whole module.
    while (Operation *parent = op->getParentOp())
      op = parent;
    write(llvm::formatv("{0:2}-{1}.mlir", counter++, pass->getArgument()).str(),
          [&](llvm::raw_ostream &os) { op->print(os); });
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
    registerFlyTargetInterfaces(registry); // before upstream's ROCDL target
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registry.insert<FlyDialect>();
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
      SmallVector<Type> results;
      if (succeeded(iface->inferReturnTypes(ctx, loc, block.getArguments(),
                                            dict, OpaqueProperties(nullptr),
                                            RegionRange(), results)) &&
          !diagnostics.hadErrors())
        entry = std::vector<Type>(results.begin(), results.end());
      else
        entry = llvm::toString(diagnostics.takeError(
            "'" + opName.str() + "' rejects its operands"));
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

llvm::Expected<Artifact> Compiler::compile(llvm::StringRef moduleText,
                                           const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
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

  unsigned dumpCounter = 0;
  std::unique_ptr<DumpAfterEachPass> dump;
  if (!options.dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(options.dumpDir))
      return llvm::createStringError(ec, "cannot create the dump directory " +
                                             options.dumpDir + ": " +
                                             ec.message());
    dump = std::make_unique<DumpAfterEachPass>(options.dumpDir, dumpCounter);
    dump->write("00-input.mlir",
                [&](llvm::raw_ostream &os) { module->print(os); });
    ++dumpCounter;
  }

  // Stage A, then the kernels' argument blocks (gone once stage C turns the
  // gpu.modules into binaries), then B and C.
  auto runStage = [&](Stage stage) -> llvm::Error {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.enableVerifier(options.verifyEachPass);
    if (llvm::Error err = buildStage(pm, stage, options.pipeline))
      return err;
    if (dump)
      pm.addInstrumentation(
          std::make_unique<DumpAfterEachPass>(options.dumpDir, dumpCounter));
    if (failed(pm.run(*module)))
      return diagnostics.takeError("pipeline stage " + stageName(stage).str() +
                                   " failed");
    return llvm::Error::success();
  };
  if (llvm::Error err = runStage(Stage::PreBinary))
    return std::move(err);
  Artifact artifact;
  artifact.kernels = collectKernels(*module);
  if (llvm::Error err = runStage(Stage::BinaryPrep))
    return std::move(err);
  if (llvm::Error err = runStage(Stage::Binary))
    return std::move(err);

  FailureOr<SmallVector<CodeObject>> objects = collectCodeObjects(*module);
  if (failed(objects))
    return diagnostics.takeError("no code object");
  for (CodeObject &object : *objects) {
    for (KernelInfo &kernel : artifact.kernels)
      if (kernel.module == object.moduleName)
        for (const ::fly::target::KernelResources &r : object.kernels)
          if (r.name == kernel.name)
            kernel.resources = r;
    if (dump)
      if (auto isa = ::fly::target::disassembleCodeObject(object.elf))
        dump->write(object.moduleName + "." + object.chip + ".s",
                    [&](llvm::raw_ostream &os) { os << *isa; });
      else
        llvm::consumeError(isa.takeError());
    artifact.codeObjects.push_back(
        {object.moduleName, object.chip, std::move(object.elf)});
  }
  return artifact;
}

} // namespace fly
