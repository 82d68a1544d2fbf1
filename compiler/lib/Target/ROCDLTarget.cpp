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

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;

namespace {

std::string targetMachineKey(llvm::StringRef triple, llvm::StringRef chip,
                             llvm::StringRef features) {
  return (triple + " " + chip + " " + features).str();
}

/// A legacy code-generation pass manager built for one target machine at
/// one optimization level, and the buffer its object file goes to. It runs
/// once. Building it (adding the passes and asking each for its analysis
/// usage) does not depend on the module, and costs about a tenth of a small
/// kernel's compile: the warm-up builds it while the compile parses and runs
/// the MLIR stages.
struct CodegenPipeline {
  explicit CodegenPipeline(llvm::CodeGenOptLevel level)
      : level(level), os(object) {}
  CodegenPipeline(const CodegenPipeline &) = delete;
  CodegenPipeline &operator=(const CodegenPipeline &) = delete;

  /// The pipeline at `machine`'s level; null when the target cannot emit
  /// object files.
  static std::unique_ptr<CodegenPipeline> build(llvm::TargetMachine &machine) {
    auto pipeline = std::make_unique<CodegenPipeline>(machine.getOptLevel());
    if (machine.addPassesToEmitFile(pipeline->passes, pipeline->os, nullptr,
                                    llvm::CodeGenFileType::ObjectFile))
      return nullptr;
    return pipeline;
  }

  const llvm::CodeGenOptLevel level;
  SmallVector<char, 0> object;
  llvm::raw_svector_ostream os; // into `object`
  llvm::legacy::PassManager passes;
};

/// A target machine and, when one was built ahead, the code-generation
/// pipeline for its next compile. The pipeline refers to the machine, so it
/// goes first: declared after it (destroyed before it), and replaced before
/// it on assignment.
struct PooledMachine {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<CodegenPipeline> codegen;

  PooledMachine() = default;
  explicit PooledMachine(std::unique_ptr<llvm::TargetMachine> machine)
      : machine(std::move(machine)) {}
  PooledMachine(PooledMachine &&) = default;
  PooledMachine &operator=(PooledMachine &&other) {
    codegen = std::move(other.codegen);
    machine = std::move(other.machine);
    return *this;
  }

  bool readyFor(llvm::CodeGenOptLevel level) const {
    return codegen && codegen->level == level;
  }
};

/// AMDGPU target machines kept for the life of the process, by triple, chip
/// and features. A target machine's first compile builds tables the next
/// one for the same chip reuses: the subtarget with its lowering info, and
/// the register alias lists LLVM computes on demand (about a fifth of a
/// small kernel's compile on a fresh target machine). A compile leases one
/// for its whole duration, so concurrent compiles never share one.
class TargetMachinePool {
public:
  static TargetMachinePool &get() {
    // Never destroyed: target machines must not outlive LLVM's statics.
    static auto *pool = new TargetMachinePool;
    return *pool;
  }

  /// An idle target machine for the target, one with a pipeline for
  /// `level` if there is one, waiting for one being warmed up (warmUp)
  /// rather than building a second; else a new one.
  FailureOr<PooledMachine> acquire(llvm::StringRef triple,
                                   llvm::StringRef chip,
                                   llvm::StringRef features,
                                   llvm::CodeGenOptLevel level) {
    std::string key = targetMachineKey(triple, chip, features);
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock,
                   [&] { return hasIdle(key) || warming.lookup(key) == 0; });
      if (hasIdle(key)) {
        auto &machines = idle[key];
        auto ready = llvm::find_if(machines, [&](const PooledMachine &machine) {
          return machine.readyFor(level);
        });
        if (ready != machines.end())
          std::swap(*ready, machines.back());
        return machines.pop_back_val();
      }
    }
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        create(triple, chip, features);
    if (failed(machine))
      return failure();
    return PooledMachine(std::move(*machine));
  }

  void release(llvm::StringRef triple, llvm::StringRef chip,
               llvm::StringRef features, PooledMachine machine) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto &machines = idle[targetMachineKey(triple, chip, features)];
      // As many as compiles ran at once, within reason.
      if (machines.size() < 8)
        machines.push_back(std::move(machine));
    }
    changed.notify_all();
  }

  /// Builds, on a thread of its own, what the next compile for the chip at
  /// `level` would build on its critical path: the code-generation pipeline
  /// and, the first time, the target machine, its default subtarget and the
  /// alias lists of the registers a kernel's resource count asks about (the
  /// 32-bit SGPRs, VGPRs and AGPRs it scans from the top). Nothing when an
  /// idle machine for `key` has that pipeline already or a warm-up is under
  /// way. The returned thread (if any) must be joined.
  std::thread warmUp(std::string triple, std::string chip,
                     std::string features, llvm::CodeGenOptLevel level) {
    std::string key = targetMachineKey(triple, chip, features);
    PooledMachine taken;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (warming.lookup(key))
        return {};
      auto it = idle.find(key);
      if (it != idle.end()) {
        auto &machines = it->second;
        if (llvm::any_of(machines, [&](const PooledMachine &machine) {
              return machine.readyFor(level);
            }))
          return {};
        taken = machines.pop_back_val();
      }
      ++warming[key];
    }
    return std::thread([this, key = std::move(key), triple = std::move(triple),
                        chip = std::move(chip), features = std::move(features),
                        level, taken = std::move(taken)]() mutable {
      if (!taken.machine) {
        ROCDL::SerializeGPUModuleBase::init();
        FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
            create(triple, chip, features);
        if (succeeded(machine)) {
          warmRegisterAliases(**machine);
          taken.machine = std::move(*machine);
        }
      }
      if (taken.machine) {
        taken.codegen.reset();
        taken.machine->setOptLevel(level);
        taken.codegen = CodegenPipeline::build(*taken.machine);
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        --warming[key];
        if (taken.machine)
          idle[key].push_back(std::move(taken));
      }
      changed.notify_all();
    });
  }

private:
  /// Under `mutex`.
  bool hasIdle(llvm::StringRef key) const {
    auto it = idle.find(key);
    return it != idle.end() && !it->second.empty();
  }

  static void warmRegisterAliases(llvm::TargetMachine &machine) {
    llvm::LLVMContext context;
    llvm::Module module("warm-up", context);
    llvm::Function *function = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
        llvm::GlobalValue::ExternalLinkage, "warm_up", module);
    const llvm::TargetRegisterInfo *registers =
        machine.getSubtargetImpl(*function)->getRegisterInfo();
    llvm::BitVector seen(registers->getNumRegs());
    for (const llvm::TargetRegisterClass *regClass : registers->regclasses()) {
      llvm::StringRef name = registers->getRegClassName(regClass);
      if (name != "SGPR_32" && name != "VGPR_32" && name != "AGPR_32")
        continue;
      // A kernel addresses at most 256 of each (the class may list more
      // than the chip has).
      for (llvm::MCPhysReg reg : regClass->getRegisters().take_front(256)) {
        if (seen.test(reg))
          continue;
        seen.set(reg);
        // The iterator fills the register's entry of the alias cache.
        for (llvm::MCRegAliasIterator alias(reg, registers, true);
             alias.isValid(); ++alias)
          ;
      }
    }
  }

  static FailureOr<std::unique_ptr<llvm::TargetMachine>>
  create(llvm::StringRef triple, llvm::StringRef chip,
         llvm::StringRef features) {
    std::string error;
    llvm::Triple parsed(triple);
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(parsed, error);
    if (!target)
      return failure();
    std::unique_ptr<llvm::TargetMachine> machine(
        target->createTargetMachine(parsed, chip, features, {}, {}));
    if (!machine)
      return failure();
    return machine;
  }

  std::mutex mutex;
  std::condition_variable changed;
  llvm::StringMap<SmallVector<PooledMachine, 1>> idle;
  llvm::StringMap<unsigned> warming;
};


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

/// Gives the code generator's straight-line strength reduction (SLSR) an
/// index base it can build on. A tensor's per-thread offset is typically one
/// sum of thread- and block-id terms (`base`) plus, per element, a multiple
/// of a stride. SLSR would rewrite each element's sum as an earlier one plus
/// a delta, but for each candidate and each earlier sum with the same base it
/// first proves that reusing the earlier sum adds no poison: a walk through
/// `base`'s operand graph, each node also scanning the instructions after it,
/// that fails at the `or disjoint` and wrapping flags InstCombine leaves in
/// `base`. With many elements that is quadratic in their number (64 stores
/// of a GEMM's C tile: 40% of code generation) and no rewrite happens. A
/// `freeze` of the shared base (always a legal refinement: it only pins what
/// a poison base would be) ends each walk at the freeze, and the rewrites go
/// through. Candidates: integer sums, ors, products and shifts with no
/// constant operand (a constant part must stay visible to the passes that
/// fold it into an instruction's offset), used by at least 16 additions;
/// with a handful of users the search is cheap and the rewrites the freeze
/// enables were not always shorter.
void freezeSharedIndexBases(llvm::Module &module) {
  constexpr unsigned kMinAddUsers = 16;
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::SmallVector<llvm::BinaryOperator *> bases;
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block) {
        auto *op = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
        if (!op || !op->getType()->isIntegerTy())
          continue;
        unsigned opcode = op->getOpcode();
        if (opcode != llvm::Instruction::Add &&
            opcode != llvm::Instruction::Or &&
            opcode != llvm::Instruction::Mul &&
            opcode != llvm::Instruction::Shl)
          continue;
        if (llvm::isa<llvm::Constant>(op->getOperand(0)) ||
            (opcode != llvm::Instruction::Shl &&
             llvm::isa<llvm::Constant>(op->getOperand(1))))
          continue;
        unsigned addUsers = 0;
        for (llvm::User *user : op->users())
          if (auto *add = llvm::dyn_cast<llvm::BinaryOperator>(user))
            if (add->getOpcode() == llvm::Instruction::Add &&
                ++addUsers >= kMinAddUsers)
              break;
        if (addUsers >= kMinAddUsers)
          bases.push_back(op);
      }
    for (llvm::BinaryOperator *base : bases) {
      llvm::IRBuilder<> builder(base->getNextNode());
      llvm::Value *frozen =
          builder.CreateFreeze(base, base->getName() + ".frozen");
      base->replaceUsesWithIf(frozen, [&](llvm::Use &use) {
        auto *add = llvm::dyn_cast<llvm::BinaryOperator>(use.getUser());
        return add && add != frozen &&
               add->getOpcode() == llvm::Instruction::Add;
      });
    }
  }
}

class InProcessSerializer : public ROCDL::SerializeGPUModuleBase {
public:
  InProcessSerializer(Operation &module, ROCDL::ROCDLTargetAttr target,
                      const gpu::TargetOptions &options)
      : SerializeGPUModuleBase(module, target, options), options(options) {}

  ~InProcessSerializer() override {
    if (leased.machine)
      TargetMachinePool::get().release(triple, chip, features,
                                       std::move(leased));
  }

protected:
  // The three uses of a target machine in ModuleToObject::run, on a leased
  // one instead of a new one per compile.
  void setDataLayoutAndTriple(llvm::Module &llvmModule) override {
    FailureOr<llvm::TargetMachine *> tm = leasedMachine();
    if (failed(tm))
      return;
    llvmModule.setDataLayout((*tm)->createDataLayout());
    llvmModule.setTargetTriple((*tm)->getTargetTriple());
  }

  LogicalResult optimizeModule(llvm::Module &llvmModule,
                               int level) override {
    if (level < 0 || level > 3)
      return getOperation().emitError()
             << "optimization level " << level << " is not 0 to 3";
    FailureOr<llvm::TargetMachine *> tm = leasedMachine();
    if (failed(tm))
      return noMachine();
    (*tm)->setOptLevel(static_cast<llvm::CodeGenOptLevel>(level));
    llvm::Error error = makeOptimizingTransformer(level, /*sizeLevel=*/0,
                                                  *tm)(&llvmModule);
    if (error)
      return getOperation().emitError()
             << "LLVM's optimization failed: "
             << llvm::toString(std::move(error));
    if (level > 0)
      freezeSharedIndexBases(llvmModule);
    return success();
  }

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

    FailureOr<llvm::TargetMachine *> machine = leasedMachine();
    if (failed(machine))
      return noMachine();
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
      // The warm-up's pipeline if it was built at the level optimizeModule
      // set; it runs once.
      std::unique_ptr<CodegenPipeline> codegen = std::move(leased.codegen);
      if (!codegen || codegen->level != (*machine)->getOptLevel()) {
        codegen.reset();
        codegen = CodegenPipeline::build(**machine);
      }
      if (!codegen)
        return emitError() << "LLVM cannot emit an object file for " << chip;
      codegen->passes.run(llvmModule);
      if (sawLLVMError)
        return failure();
      object = std::move(codegen->object);
    }

    auto codeObject = fly::linkCodeObject(object);
    if (!codeObject)
      return emitError() << llvm::toString(codeObject.takeError());
    return std::move(*codeObject);
  }

private:
  FailureOr<llvm::TargetMachine *> leasedMachine() {
    if (!leased.machine) {
      FailureOr<PooledMachine> machine = TargetMachinePool::get().acquire(
          triple, chip, features,
          static_cast<llvm::CodeGenOptLevel>(std::clamp(optLevel, 0, 3)));
      if (failed(machine))
        return failure();
      leased = std::move(*machine);
    }
    return leased.machine.get();
  }

  InFlightDiagnostic noMachine() {
    return getOperation().emitError()
           << "LLVM has no target machine for " << triple << " " << chip;
  }

  gpu::TargetOptions options;
  bool sawLLVMError = false;
  PooledMachine leased;
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

mlir::fly::TargetMachineWarmUp::TargetMachineWarmUp(llvm::StringRef chip,
                                                    llvm::StringRef features,
                                                    unsigned optLevel) {
  // #rocdl.target's default triple, which the pipeline keeps.
  constexpr llvm::StringLiteral triple = "amdgcn-amd-amdhsa";
  thread = TargetMachinePool::get().warmUp(
      triple.str(), chip.str(), features.str(),
      static_cast<llvm::CodeGenOptLevel>(std::min(optLevel, 3u)));
}

mlir::fly::TargetMachineWarmUp::~TargetMachineWarmUp() {
  if (thread.joinable())
    thread.join();
}

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
