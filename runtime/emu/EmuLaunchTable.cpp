//===- EmuLaunchTable.cpp - The emulator as a launch table ----------------===//
//
// The CPU emulator behind the launch table host entries call
// (fly/runtime/Launch.h): a "code object" is the host LLVM bitcode that
// fly::Compiler makes in emulator mode (the kernels after
// convert-rocdl-to-emu, with the chip's figures as the globals
// that Emu.h names, FLY_EMU_*_GLOBAL);
// module_load compiles it for this host (once: the object is kept in the
// disk cache, fly/Cache/HostObject.h) and links it with LLVM ORC,
// the emulator's device functions defined by address; get_function looks a
// kernel entry up; launch runs the grid with fly_emu_launch, synchronously
// (streams are accepted and do nothing). LLVM, no MLIR.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/EmuRuntime.h"
#include "fly/runtime/Emu.h"

#include "HostBuiltins.h"
#include "Printf.h"

#include "fly/Cache/HostObject.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace {

/// One loaded module: its JIT and what the launches need of it.
struct EmuModule {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  uint32_t waveSize = 64;
  uint32_t staticLDS = 0;
  uint32_t ldsLimit = 0; // the chip's LDS per workgroup; 0: the default
  uint32_t checks = 0;   // FLY_EMU_CHECK_* the module was compiled with
  // The SIMD mode's wave functions are compiled at the first launch that
  // wants one (a fiber-mode process never pays for them): the module's
  // bitcode, and whether its wave functions are in the JIT yet.
  std::string bitcode;
  bool hasWaves = false;
  std::once_flag wavesOnce;
  std::string wavesError; // why they could not be compiled, or ""
};

/// A kernel entry of a loaded module.
struct EmuFunction {
  FlyEmuKernelFn entry;
  const EmuModule *module;
  bool hasWave = false;        // the module has its SIMD mode's wave function
  FlyEmuWaveFn wave = nullptr; // which, once compiled (waveFunction)
  std::string name;
  std::string fallback;        // why it has none (Emu.h)
  bool fallbackLogged = false;
};

/// The SIMD mode when FLYDSL_EMU_MODE=wave; fibers otherwise, until the
/// SIMD mode takes every kernel the fibers do (read at each launch: tests
/// switch it within one process).
bool waveModeWanted() {
  const char *mode = std::getenv("FLYDSL_EMU_MODE");
  return mode && std::strcmp(mode, "wave") == 0;
}

/// Whether FLYDSL_DEBUG_LOG_LEVEL asks for info (or debug) messages.
bool logInfo() {
  const char *level = std::getenv("FLYDSL_DEBUG_LOG_LEVEL");
  if (!level)
    return false;
  std::string l(level);
  for (char &ch : l)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return l == "info" || l == "debug";
}

thread_local std::string lastError;

int failWith(const std::string &message) {
  lastError = message;
  return 1;
}

llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> makeJit() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  llvm::orc::SymbolMap runtime;
  auto define = [&](const char *name, void *address) {
    runtime[(*jit)->mangleAndIntern(name)] =
        llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(address),
                                     llvm::JITSymbolFlags::Exported);
  };
  define("fly_emu_work_item_id", (void *)&fly_emu_work_item_id);
  define("fly_emu_workgroup_id", (void *)&fly_emu_workgroup_id);
  define("fly_emu_workgroup_size", (void *)&fly_emu_workgroup_size);
  define("fly_emu_grid_size", (void *)&fly_emu_grid_size);
  define("fly_emu_lds_base", (void *)&fly_emu_lds_base);
  define("fly_emu_barrier", (void *)&fly_emu_barrier);
  define("fly_emu_readlane", (void *)&fly_emu_readlane);
  define("fly_emu_readfirstlane", (void *)&fly_emu_readfirstlane);
  define("fly_emu_ds_bpermute", (void *)&fly_emu_ds_bpermute);
  define("fly_emu_ds_swizzle", (void *)&fly_emu_ds_swizzle);
  define("fly_emu_ballot", (void *)&fly_emu_ballot);
  define("fly_emu_update_dpp", (void *)&fly_emu_update_dpp);
  define("fly_emu_permlanex16", (void *)&fly_emu_permlanex16);
  define("fly_emu_permlane_swap", (void *)&fly_emu_permlane_swap);
  define("fly_emu_wave_ds_swizzle", (void *)&fly_emu_wave_ds_swizzle);
  define("fly_emu_wave_update_dpp", (void *)&fly_emu_wave_update_dpp);
  define("fly_emu_wave_permlanex16", (void *)&fly_emu_wave_permlanex16);
  define("fly_emu_wave_permlane_swap", (void *)&fly_emu_wave_permlane_swap);
  define("fly_emu_wave_matrix", (void *)&fly_emu_wave_matrix);
  define("fly_emu_buffer_load", (void *)&fly_emu_buffer_load);
  define("fly_emu_buffer_store", (void *)&fly_emu_buffer_store);
  define("fly_emu_buffer_atomic_address",
         (void *)&fly_emu_buffer_atomic_address);
  define("fly_emu_matrix", (void *)&fly_emu_matrix);
  define("fly_emu_matrix_scale", (void *)&fly_emu_matrix_scale);
  define("fly_emu_convert", (void *)&fly_emu_convert);
  define("fly_emu_tensor", (void *)&fly_emu_tensor);
  define("fly_emu_tensor_checked", (void *)&fly_emu_tensor_checked);
  define("fly_emu_ds_read_tr", (void *)&fly_emu_ds_read_tr);
  define("fly_emu_trap", (void *)&fly_emu_trap);
  define("fly_emu_trap_misaligned", (void *)&fly_emu_trap_misaligned);
  define("fly_emu_check_access", (void *)&fly_emu_check_access);
  define("fly_emu_check_extent", (void *)&fly_emu_check_extent);
  define("fly_emu_barrier_checked", (void *)&fly_emu_barrier_checked);
  define("fly_emu_check_shadow", (void *)&fly_emu_check_shadow);
  define("fly_emu_check_race", (void *)&fly_emu_check_race);
  define("fly_emu_check_uninit", (void *)&fly_emu_check_uninit);
  define("fly_emu_check_lds_written", (void *)&fly_emu_check_lds_written);
  define("fly_emu_buffer_load_checked", (void *)&fly_emu_buffer_load_checked);
  define("fly_emu_buffer_store_checked", (void *)&fly_emu_buffer_store_checked);
  define("fly_emu_buffer_atomic_address_checked",
         (void *)&fly_emu_buffer_atomic_address_checked);
  // The device library's printf ABI, on the host (Printf.cpp).
  define("__ockl_printf_begin", (void *)&fly_emu_printf_begin);
  define("__ockl_printf_append_string_n",
         (void *)&fly_emu_printf_append_string_n);
  define("__ockl_printf_append_args", (void *)&fly_emu_printf_append_args);
  // Compiler-runtime helpers older libgcc lacks (HostBuiltins.cpp).
  define("__truncsfbf2", (void *)&fly_emu_truncsfbf2);
  define("__truncdfbf2", (void *)&fly_emu_truncdfbf2);
  define("__truncdfhf2", (void *)&fly_emu_truncdfhf2);
  if (llvm::Error err = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(runtime))))
    return std::move(err);
  // The C library (memcpy, fma, ...) from the process.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  return std::move(*jit);
}

int moduleLoad(void *, const void *data, size_t size, void **module) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(static_cast<const char *>(data), size), "emulated",
      /*RequiresNullTerminator=*/false);
  auto context = std::make_unique<llvm::LLVMContext>();
  auto ir = llvm::parseBitcodeFile(buffer->getMemBufferRef(), *context);
  if (!ir)
    return failWith("the emulator cannot read its module (compile with the "
                    "emulator for FLYDSL_RUNTIME_KIND=emu): " +
                    llvm::toString(ir.takeError()));
  auto loaded = std::make_unique<EmuModule>();
  auto read = [&](const char *name, uint32_t &out) {
    if (auto *global = (*ir)->getNamedGlobal(name))
      if (auto *value = llvm::dyn_cast_or_null<llvm::ConstantInt>(
              global->getInitializer()))
        out = uint32_t(value->getZExtValue());
  };
  read(FLY_EMU_WAVE_SIZE_GLOBAL, loaded->waveSize);
  read(FLY_EMU_STATIC_LDS_GLOBAL, loaded->staticLDS);
  read(FLY_EMU_LDS_LIMIT_GLOBAL, loaded->ldsLimit);
  read(FLY_EMU_CHECKS_GLOBAL, loaded->checks);
  // The wave functions wait (compileWaves); the kernels' entries do not.
  std::vector<llvm::Function *> waves;
  for (llvm::Function &f : **ir)
    if (f.getName().ends_with(FLY_EMU_WAVE_SUFFIX))
      waves.push_back(&f);
  for (llvm::Function *f : waves) // (they call each other)
    f->dropAllReferences();
  for (llvm::Function *f : waves)
    f->eraseFromParent();
  loaded->hasWaves = !waves.empty();
  if (loaded->hasWaves)
    loaded->bitcode.assign(static_cast<const char *>(data), size);
  auto jit = makeJit();
  if (!jit)
    return failWith(llvm::toString(jit.takeError()));
  // Compiled once per host and kept in the disk cache beside the artifact.
  // Code generation at -O2 without LLVM's IR pipeline: the pipeline costs
  // the reference GEMM 150 ms of compile and gains it nothing at run time
  // (its loops are already unrolled and its fragments in registers).
  auto object = fly::cache::hostObject(
      **ir, llvm::StringRef(static_cast<const char *>(data), size),
      "emulated-kernels", llvm::CodeGenOptLevel::Default);
  if (!object)
    return failWith(llvm::toString(object.takeError()));
  if (llvm::Error err = (*jit)->addObjectFile(std::move(*object)))
    return failWith(llvm::toString(std::move(err)));
  loaded->jit = std::move(*jit);
  *module = loaded.release();
  return 0;
}

/// Adds the wave functions of `module` to its JIT (once): the bitcode's
/// wave functions and what only they use, the rest declarations resolved
/// against the kernels' object.
void compileWaves(EmuModule &module) {
  std::call_once(module.wavesOnce, [&] {
    auto buffer = llvm::MemoryBuffer::getMemBuffer(module.bitcode, "emulated waves",
                                                   /*RequiresNullTerminator=*/false);
    auto context = std::make_unique<llvm::LLVMContext>();
    auto ir = llvm::parseBitcodeFile(buffer->getMemBufferRef(), *context);
    if (!ir) {
      module.wavesError = llvm::toString(ir.takeError());
      return;
    }
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> waves =
        llvm::CloneModule(**ir, map, [](const llvm::GlobalValue *gv) {
          return gv->getName().ends_with(FLY_EMU_WAVE_SUFFIX) || gv->hasLocalLinkage();
        });
    auto object = fly::cache::hostObject(*waves, module.bitcode, "emulated-waves",
                                         llvm::CodeGenOptLevel::Default);
    if (!object) {
      module.wavesError = llvm::toString(object.takeError());
      return;
    }
    if (llvm::Error err = module.jit->addObjectFile(std::move(*object)))
      module.wavesError = llvm::toString(std::move(err));
  });
}

/// The wave function of `kernel`, compiled on first use; null when it has
/// none (or it could not be compiled: then `kernel`'s fallback says why).
FlyEmuWaveFn waveFunction(EmuFunction &kernel) {
  if (kernel.wave || !kernel.hasWave)
    return kernel.wave;
  auto &module = const_cast<EmuModule &>(*kernel.module);
  compileWaves(module);
  if (module.wavesError.empty()) {
    if (auto wave = module.jit->lookup(kernel.name + FLY_EMU_WAVE_SUFFIX)) {
      kernel.wave = wave->toPtr<FlyEmuWaveFn>();
      return kernel.wave;
    } else {
      module.wavesError = llvm::toString(wave.takeError());
    }
  }
  kernel.hasWave = false;
  kernel.fallback = "its wave function did not compile: " + module.wavesError;
  return nullptr;
}

int moduleUnload(void *, void *module) {
  delete static_cast<EmuModule *>(module);
  return 0;
}

int getFunction(void *, void *module, const char *name, void **function) {
  auto *loaded = static_cast<EmuModule *>(module);
  auto entry = loaded->jit->lookup(name);
  if (!entry)
    return failWith(std::string("no kernel '") + name + "' in the emulated module: " +
                    llvm::toString(entry.takeError()));
  // Kernel handles live as long as the process (a few per kernel).
  auto *handle = new EmuFunction{entry->toPtr<FlyEmuKernelFn>(), loaded};
  handle->name = name;
  if (auto why = loaded->jit->lookup(std::string(FLY_EMU_WAVE_FALLBACK_PREFIX) + name))
    handle->fallback = why->toPtr<const char *>();
  else
    llvm::consumeError(why.takeError());
  handle->hasWave = loaded->hasWaves && handle->fallback.empty();
  *function = handle;
  return 0;
}

int launch(void *, void *function, const FlyLaunchConfig *config,
           void **params, size_t) {
  auto *kernel = static_cast<EmuFunction *>(function);
  FlyEmuLaunchConfig emu = {};
  for (int i = 0; i < 3; ++i) {
    emu.grid[i] = config->grid[i];
    emu.block[i] = config->block[i];
  }
  emu.lds_bytes = kernel->module->staticLDS + config->shared_memory_bytes;
  emu.wave_size = kernel->module->waveSize;
  emu.lds_limit = kernel->module->ldsLimit;
  emu.checks = kernel->module->checks;
  if (config->cluster[0] || config->cluster[1] || config->cluster[2])
    return failWith("the emulator does not run cluster launches yet");
  if (waveModeWanted()) {
    emu.wave_kernel = waveFunction(*kernel);
    if (!emu.wave_kernel && !kernel->fallbackLogged && logInfo()) {
      kernel->fallbackLogged = true;
      std::fprintf(stderr,
                   "[flydsl] INFO: the emulator runs kernel %s as fibers, one "
                   "per work-item: %s\n",
                   kernel->name.c_str(), kernel->fallback.c_str());
    }
  }
  if (const char *message = fly_emu_launch(kernel->entry, params, &emu))
    return failWith(message);
  return 0;
}

int streamCreate(void *, void **stream) {
  *stream = nullptr;
  return 0;
}
int streamNoop(void *, void *) { return 0; }
const char *lastErrorOf(void *) { return lastError.c_str(); }

} // namespace

extern "C" const FlyLaunchTable *fly_runtime_emu_table(void) {
  static const FlyLaunchTable table = {
      sizeof(FlyLaunchTable), nullptr,  moduleLoad,   moduleUnload,
      getFunction,            launch,   streamCreate, streamNoop,
      streamNoop,             lastErrorOf};
  return &table;
}
