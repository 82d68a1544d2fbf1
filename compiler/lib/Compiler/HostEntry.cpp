//===- HostEntry.cpp - A @flyc.jit body as native host code ---------------===//
//
// ORC's LLJIT compiles the host module in process. Its calls into MLIR's GPU
// runtime-wrapper ABI (what gpu-to-llvm and the #gpu.select_object
// offloading handler emit) resolve to the shims below, which forward to the
// runtime's launch table (fly/runtime/Launch.h).
//
// What upstream's translation emits, and what the shims make of it:
// - a global constructor per code object calls mgpuModuleLoad(data, size)
//   once: the shim registers the code object with the HostEntry being
//   created and returns a handle, loading nothing (no runtime need be
//   installed yet);
// - every launch calls mgpuModuleGetFunction(handle, name): the first one
//   loads the code object into the installed runtime (again if another
//   table was installed since), and functions are cached per name;
// - then mgpuStreamCreate, mgpuLaunchKernel (or mgpuLaunchClusterKernel),
//   mgpuStreamSynchronize, mgpuStreamDestroy -- or the caller's stream;
// - a global destructor calls mgpuModuleUnload.
//
//===----------------------------------------------------------------------===//

#include "fly/HostEntry.h"
#include "fly/Cache/HostObject.h"
#include "fly/runtime/Launch.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>
#include <vector>

using namespace llvm;

namespace fly {

std::string hostEntrySymbol(StringRef function) {
  return ("__fly_entry_" + function).str();
}

std::string hostBlockSizeSymbol(StringRef function) {
  return ("__fly_block_size_" + function).str();
}

namespace {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

} // namespace

Error setHostTarget(Module &module) {
  // The host's triple and data layout, asked once: the data layout comes
  // from a target machine built for the purpose.
  struct HostTarget {
    Triple triple;
    std::string layout;
    std::string error;
  };
  static const HostTarget host = [] {
    initializeNativeTarget();
    HostTarget target;
    Expected<orc::JITTargetMachineBuilder> builder =
        orc::JITTargetMachineBuilder::detectHost();
    if (!builder) {
      target.error = toString(builder.takeError());
      return target;
    }
    Expected<DataLayout> layout = builder->getDefaultDataLayoutForTarget();
    if (!layout) {
      target.error = toString(layout.takeError());
      return target;
    }
    target.triple = builder->getTargetTriple();
    target.layout = layout->getStringRepresentation();
    return target;
  }();
  if (!host.error.empty())
    return createStringError(host.error);
  module.setTargetTriple(host.triple);
  module.setDataLayout(host.layout);
  return Error::success();
}

namespace {

/// One embedded code object, loaded into a runtime on first use.
struct CodeObjectHandle {
  const void *data;
  size_t size;
  std::mutex mutex;
  const FlyLaunchTable *table = nullptr; // the table `module` was loaded by
  void *module = nullptr;
  /// Functions by the address of their name (a constant of the host module).
  std::vector<std::pair<const char *, void *>> functions;
  unsigned loads = 0;
};

/// The calling thread's launch error: the first failure of a call.
struct LaunchError {
  bool failed = false;
  std::string message;
};
thread_local LaunchError launchError;

/// The HostEntry whose module's constructors are running on this thread.
thread_local HostEntry::Impl *initializing = nullptr;

void fail(std::string message) {
  if (launchError.failed)
    return;
  launchError.failed = true;
  launchError.message = std::move(message);
}

/// The installed table, or null after recording "no runtime" for `what`.
const FlyLaunchTable *requireTable(const Twine &what) {
  const FlyLaunchTable *table = fly_runtime_launch_table();
  if (!table)
    fail(("no runtime: cannot " + what +
          ": no launch runtime (HIP or the emulator) is installed")
             .str());
  return table;
}

/// Records a failing runtime entry (`status` nonzero); true if it failed.
bool failed(const FlyLaunchTable *table, int status, const Twine &what) {
  if (status == 0)
    return false;
  const char *detail =
      table->last_error ? table->last_error(table->context) : nullptr;
  fail(("runtime: " + what + " failed (status " + Twine(status) + ")" +
        (detail && *detail ? Twine(": ") + detail : Twine()))
           .str());
  return true;
}

bool toDimension(int64_t value, uint32_t &out, const char *what) {
  if (value < 0 || value > int64_t(UINT32_MAX)) {
    fail(formatv("launch: {0} dimension {1} is out of range", what, value));
    return false;
  }
  out = uint32_t(value);
  return true;
}

void launch(void *function, const int64_t cluster[3], const int64_t grid[3],
            const int64_t block[3], int32_t smem, void *stream, void **params,
            size_t numParams) {
  if (launchError.failed)
    return;
  const FlyLaunchTable *table = requireTable("launch a kernel");
  if (!table)
    return;
  FlyLaunchConfig config;
  for (int i = 0; i < 3; ++i)
    if (!toDimension(grid[i], config.grid[i], "grid") ||
        !toDimension(block[i], config.block[i], "block") ||
        !toDimension(cluster[i], config.cluster[i], "cluster"))
      return;
  if (smem < 0)
    return fail(formatv("launch: dynamic shared memory of {0} bytes", smem));
  config.shared_memory_bytes = uint32_t(smem);
  config.stream = stream;
  failed(table,
         table->launch(table->context, function, &config, params, numParams),
         "launch");
}

} // namespace

// The shims of MLIR's GPU runtime-wrapper ABI, by the signatures upstream's
// lowering declares. They are not exported: the JIT resolves them to these
// addresses.
namespace shims {

void *mgpuModuleLoad(void *data, size_t size);

void *mgpuModuleGetFunction(void *handle, const char *name) {
  if (launchError.failed)
    return nullptr;
  const FlyLaunchTable *table =
      requireTable(Twine("load the code object of kernel '") + name + "'");
  if (!table)
    return nullptr;
  auto *object = static_cast<CodeObjectHandle *>(handle);
  std::lock_guard<std::mutex> lock(object->mutex);
  if (object->table != table) {
    // First use, or another runtime since: the old one's module is
    // forgotten (that runtime may be gone).
    void *module = nullptr;
    if (failed(table,
               table->module_load(table->context, object->data, object->size,
                                  &module),
               Twine("loading the code object of kernel '") + name + "'"))
      return nullptr;
    object->table = table;
    object->module = module;
    object->functions.clear();
    ++object->loads;
  }
  for (auto &[key, function] : object->functions)
    if (key == name)
      return function;
  void *function = nullptr;
  if (failed(
          table,
          table->get_function(table->context, object->module, name, &function),
          Twine("looking up kernel '") + name + "'"))
    return nullptr;
  object->functions.emplace_back(name, function);
  return function;
}

void mgpuModuleUnload(void *handle) {
  auto *object = static_cast<CodeObjectHandle *>(handle);
  if (!object)
    return;
  std::lock_guard<std::mutex> lock(object->mutex);
  const FlyLaunchTable *table = fly_runtime_launch_table();
  if (object->module && object->table == table)
    table->module_unload(table->context, object->module); // best effort
  object->table = nullptr;
  object->module = nullptr;
  object->functions.clear();
}

void *mgpuStreamCreate() {
  if (launchError.failed)
    return nullptr;
  const FlyLaunchTable *table = requireTable("create a stream");
  void *stream = nullptr;
  if (table && failed(table, table->stream_create(table->context, &stream),
                      "creating a stream"))
    return nullptr;
  return stream;
}

void mgpuStreamSynchronize(void *stream) {
  if (launchError.failed)
    return;
  if (const FlyLaunchTable *table = requireTable("synchronize a stream"))
    failed(table, table->stream_synchronize(table->context, stream),
           "synchronizing a stream");
}

void mgpuStreamDestroy(void *stream) {
  // Also after an error: the stream was created.
  const FlyLaunchTable *table = fly_runtime_launch_table();
  if (stream && table)
    failed(table, table->stream_destroy(table->context, stream),
           "destroying a stream");
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream, void **params,
                      void **extra, size_t paramsCount) {
  const int64_t none[3] = {0, 0, 0}, grid[3] = {gridX, gridY, gridZ},
                block[3] = {blockX, blockY, blockZ};
  launch(function, none, grid, block, smem, stream, params, paramsCount);
}

void mgpuLaunchClusterKernel(void *function, int64_t clusterX, int64_t clusterY,
                             int64_t clusterZ, int64_t gridX, int64_t gridY,
                             int64_t gridZ, int64_t blockX, int64_t blockY,
                             int64_t blockZ, int32_t smem, void *stream,
                             void **params, void **extra) {
  const int64_t cluster[3] = {clusterX, clusterY, clusterZ},
                grid[3] = {gridX, gridY, gridZ},
                block[3] = {blockX, blockY, blockZ};
  launch(function, cluster, grid, block, smem, stream, params,
         FLY_PARAM_COUNT_UNKNOWN);
}

} // namespace shims

struct HostEntry::Impl {
  std::unique_ptr<orc::LLJIT> jit;
  void (*entry)(const void *) = nullptr;
  uint64_t blockSize = 0;
  std::vector<std::unique_ptr<CodeObjectHandle>> codeObjects;
  std::vector<void (*)()> destructors; // in the order to run them
};

void *shims::mgpuModuleLoad(void *data, size_t size) {
  HostEntry::Impl *impl = initializing;
  if (!impl) {
    fail("mgpuModuleLoad called outside of a host entry's constructors");
    return nullptr;
  }
  auto object = std::make_unique<CodeObjectHandle>();
  object->data = data;
  object->size = size;
  impl->codeObjects.push_back(std::move(object));
  return impl->codeObjects.back().get();
}

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// The functions of `llvm.global_ctors` / `llvm.global_dtors` (`list`),
/// made external as `<prefix>0`, `<prefix>1`, ... in priority order, and
/// the list removed: the module's native object is linked as an object
/// file, whose init arrays ORC's default platform does not run, so the
/// entry calls them itself. Returns how many there are.
unsigned exposeStructors(Module &module, StringRef list, StringRef prefix) {
  GlobalVariable *global = module.getNamedGlobal(list);
  if (!global)
    return 0;
  std::vector<std::pair<int64_t, Function *>> functions;
  if (auto *array = dyn_cast_or_null<ConstantArray>(
          global->hasInitializer() ? global->getInitializer() : nullptr))
    for (Value *entry : array->operands()) {
      auto *fields = dyn_cast<ConstantStruct>(entry);
      if (!fields || fields->getNumOperands() < 2)
        continue;
      auto *priority = dyn_cast<ConstantInt>(fields->getOperand(0));
      auto *function =
          dyn_cast<Function>(fields->getOperand(1)->stripPointerCasts());
      if (priority && function)
        functions.push_back({priority->getSExtValue(), function});
    }
  std::stable_sort(functions.begin(), functions.end(),
                   [](auto &a, auto &b) { return a.first < b.first; });
  global->eraseFromParent();
  for (auto [index, item] : llvm::enumerate(functions)) {
    item.second->setLinkage(GlobalValue::ExternalLinkage);
    item.second->setVisibility(GlobalValue::DefaultVisibility);
    item.second->setName(prefix + Twine(index));
  }
  return functions.size();
}

/// The mgpu* symbols the shims implement, by name.
orc::SymbolMap shimSymbols(orc::LLJIT &jit) {
  orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[jit.mangleAndIntern(name)] = {orc::ExecutorAddr::fromPtr(function),
                                          JITSymbolFlags::Exported |
                                              JITSymbolFlags::Callable};
  };
  add("mgpuModuleLoad", &shims::mgpuModuleLoad);
  add("mgpuModuleUnload", &shims::mgpuModuleUnload);
  add("mgpuModuleGetFunction", &shims::mgpuModuleGetFunction);
  add("mgpuStreamCreate", &shims::mgpuStreamCreate);
  add("mgpuStreamSynchronize", &shims::mgpuStreamSynchronize);
  add("mgpuStreamDestroy", &shims::mgpuStreamDestroy);
  add("mgpuLaunchKernel", &shims::mgpuLaunchKernel);
  add("mgpuLaunchClusterKernel", &shims::mgpuLaunchClusterKernel);
  return symbols;
}

} // namespace

HostEntry::HostEntry(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

HostEntry::~HostEntry() {
  for (void (*destructor)() : impl->destructors)
    destructor();
  // Whatever the destructors did not unload.
  for (auto &object : impl->codeObjects)
    shims::mgpuModuleUnload(object.get());
  impl->jit.reset();
}

Expected<std::unique_ptr<HostEntry>> HostEntry::create(StringRef bitcode,
                                                       StringRef function) {
  initializeNativeTarget();
  auto context = std::make_unique<LLVMContext>();
  Expected<std::unique_ptr<Module>> module = parseBitcodeFile(
      MemoryBufferRef(bitcode, "<flydsl host module>"), *context);
  if (!module)
    return module.takeError();
  std::string entryName = hostEntrySymbol(function);
  GlobalVariable *blockSizeGlobal =
      (*module)->getNamedGlobal(hostBlockSizeSymbol(function));
  auto *blockSize = dyn_cast_or_null<ConstantInt>(
      blockSizeGlobal && blockSizeGlobal->hasInitializer()
          ? blockSizeGlobal->getInitializer()
          : nullptr);
  if (!(*module)->getFunction(entryName) || !blockSize)
    return makeError("the host module has no host function '" + function + "'");
  auto impl = std::make_unique<Impl>();
  impl->blockSize = blockSize->getZExtValue();

  Expected<std::unique_ptr<orc::LLJIT>> jit = orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  orc::JITDylib &main = (*jit)->getMainJITDylib();
  orc::SymbolMap symbols = shimSymbols(**jit);
  // A runtime-wrapper function FlyDSL's launch entry does not provide
  // (mgpuMemAlloc, events, ...) is an error here, not a JIT link failure.
  for (const llvm::Function &declared : (*module)->functions()) {
    StringRef name = declared.getName();
    if (declared.isDeclaration() && name.starts_with("mgpu") &&
        !symbols.count((*jit)->mangleAndIntern(name)))
      return makeError("the host function '" + function + "' calls " + name +
                       ", which FlyDSL's launch entry does not provide");
  }
  if (Error err = main.define(orc::absoluteSymbols(std::move(symbols))))
    return std::move(err);
  unsigned numConstructors =
      exposeStructors(**module, "llvm.global_ctors", "__fly_constructor_");
  unsigned numDestructors =
      exposeStructors(**module, "llvm.global_dtors", "__fly_destructor_");
  // The host code is a few integer ops and calls: instruction selection
  // without optimization compiles it fastest; and a process that had the
  // same host module before links its object from the disk cache.
  Expected<std::unique_ptr<MemoryBuffer>> object =
      cache::hostObject(**module, bitcode, "host-entry", CodeGenOptLevel::None);
  if (!object)
    return object.takeError();
  if (Error err = (*jit)->addObjectFile(std::move(*object)))
    return std::move(err);

  impl->jit = std::move(*jit);
  auto lookup = [&](StringRef name) -> Expected<void *> {
    Expected<orc::ExecutorAddr> address = impl->jit->lookup(name);
    if (!address)
      return address.takeError();
    return address->toPtr<void *>();
  };
  Expected<void *> entry = lookup(entryName);
  if (!entry)
    return entry.takeError();
  impl->entry = reinterpret_cast<void (*)(const void *)>(*entry);
  std::vector<void (*)()> constructors;
  for (unsigned i = 0; i < numConstructors; ++i) {
    Expected<void *> f = lookup(("__fly_constructor_" + Twine(i)).str());
    if (!f)
      return f.takeError();
    constructors.push_back(reinterpret_cast<void (*)()>(*f));
  }
  for (unsigned i = numDestructors; i-- > 0;) {
    Expected<void *> f = lookup(("__fly_destructor_" + Twine(i)).str());
    if (!f)
      return f.takeError();
    impl->destructors.push_back(reinterpret_cast<void (*)()>(*f));
  }
  initializing = impl.get();
  for (void (*constructor)() : constructors)
    constructor();
  initializing = nullptr;
  return std::unique_ptr<HostEntry>(new HostEntry(std::move(impl)));
}

uint64_t HostEntry::blockSize() const { return impl->blockSize; }

Error HostEntry::call(const void *argumentBlock) {
  launchError.failed = false;
  impl->entry(argumentBlock);
  if (!launchError.failed)
    return Error::success();
  launchError.failed = false;
  return makeError(launchError.message);
}

} // namespace fly
