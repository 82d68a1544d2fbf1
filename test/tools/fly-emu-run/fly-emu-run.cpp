//===- fly-emu-run.cpp - A Fly IR kernel on the CPU emulator --------------===//
//
//   fly-emu-run examples/vector_add.mlir --chip=gfx942 --m=100 --n=200
//   fly-emu-run examples/tiled_copy_lds.mlir --kernel=tiled_copy --m=32 --n=128
//   fly-emu-run examples/fma_gemm.mlir --kernel=fma_gemm --m=128 --n=256 --k=32
//
// The first end-to-end path of the emulator, as a test driver: stage A for
// the chip, convert-rocdl-to-emu on each gpu.module, the module's body
// translated to LLVM IR for this host and JIT-compiled (ORC), then one of
// the three reference kernels (arguments: per tensor a pointer and the
// struct of its dynamic leaves {rows, cols, row stride}) launched with
// fly_emu_launch over its grid of 256-work-item workgroups, and the result
// checked element by element against a host computation. Prints "PASS" or
// the first mismatch; exit status 1 on any error.
//
// Test scaffolding until the emulator is a launch table behind the host
// entry.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/HostEntry.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/Chip.h"
#include "fly/Target/Compile.h"
#include "fly/runtime/Emu.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> input(cl::Positional, cl::desc("<kernel.mlir>"),
                                  cl::Required);
static cl::opt<std::string> chipName("chip", cl::init("gfx942"));
static cl::opt<int> rows("m", cl::init(100));
static cl::opt<int> cols("n", cl::init(200));
static cl::opt<int> depth("k", cl::desc("K of fma_gemm"), cl::init(64));
static cl::opt<std::string> kernelName(
    "kernel", cl::desc("vector_add, tiled_copy or fma_gemm (the kernel of the "
                       "input, one of examples/*.mlir)"),
    cl::init("vector_add"));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "fly-emu-run: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "fly-emu-run\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::fly::registerFlyPipelines();
  const ::fly::target::ChipInfo *chip = ::fly::target::lookupChip(chipName);
  if (!chip)
    return fail("unknown chip " + chipName);

  DialectRegistry registry;
  mlir::fly::registerFlyTargetInterfaces(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<mlir::fly::FlyDialect>();
  MLIRContext context(registry);
  llvm::SourceMgr sources;
  std::string error;
  auto file = openInputFile(input, &error);
  if (!file)
    return fail(error);
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;

  // Stage A, then the emulator's conversion of each gpu.module.
  mlir::fly::PipelineOptions options;
  options.chip = chipName;
  PassManager pm(&context, ModuleOp::getOperationName());
  if (llvm::Error err = mlir::fly::buildStage(pm, mlir::fly::Stage::PreBinary, options))
    return fail(llvm::toString(std::move(err)));
  // What stage B would convert on the GPU path (vector and arith ops that
  // stage A leaves in the gpu.module) is converted here for the host.
  if (failed(parsePassPipeline("gpu.module(convert-rocdl-to-emu,convert-vector-to-llvm,"
                               "convert-arith-to-llvm,reconcile-unrealized-casts)",
                               pm)))
    return fail("convert-rocdl-to-emu is not registered");
  if (failed(pm.run(*module)))
    return 1;

  // The first gpu.module's body as a host module.
  gpu::GPUModuleOp gpuModule;
  module->walk([&](gpu::GPUModuleOp m) {
    if (!gpuModule)
      gpuModule = m;
  });
  if (!gpuModule)
    return fail("no gpu.module");
  OwningOpRef<ModuleOp> host = ModuleOp::create(UnknownLoc::get(&context));
  for (Operation &op : gpuModule.getBody()->getOperations())
    host->getBody()->push_back(op.clone());
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> ir =
      translateModuleToLLVMIR(*host, *llvmContext, "emulated");
  if (!ir)
    return fail("the converted kernel does not translate to LLVM IR");
  if (llvm::Error err = ::fly::setHostTarget(*ir))
    return fail(llvm::toString(std::move(err)));

  // JIT it; the emulator's device functions are defined by address, and
  // the C library (memcpy, ...) comes from the process.
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail(llvm::toString(jit.takeError()));
  llvm::orc::SymbolMap runtime;
  auto define = [&](const char *name, void *address) {
    runtime[(*jit)->mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported);
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
  define("fly_emu_ballot", (void *)&fly_emu_ballot);
  define("fly_emu_trap", (void *)&fly_emu_trap);
  if (llvm::Error err = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(runtime))))
    return fail(llvm::toString(std::move(err)));
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return fail(llvm::toString(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(ir), std::move(llvmContext))))
    return fail(llvm::toString(std::move(err)));
  auto entry = (*jit)->lookup(kernelName);
  if (!entry)
    return fail(llvm::toString(entry.takeError()));
  auto kernel = entry->toPtr<FlyEmuKernelFn>();

  // Every reference kernel takes, per tensor, its pointer and the struct of
  // its dynamic leaves {rows, cols, row stride} (row-major f32 matrices).
  struct Leaves {
    int32_t rows, cols, stride;
  };
  int m = rows, n = cols, k = depth;
  FlyEmuLaunchConfig config = {};
  config.block[0] = 256;
  config.block[1] = config.block[2] = 1;
  config.grid[2] = 1;
  config.wave_size = chip->waveSize;
  auto value = [](size_t i, int salt) { return float((i * 7 + salt) % 97) * 0.25f - 3.0f; };
  auto check = [&](const std::vector<float> &got, const std::vector<float> &want,
                   int width, float tolerance) {
    for (size_t i = 0; i < want.size(); ++i)
      if (std::fabs(got[i] - want[i]) > tolerance) {
        std::printf("FAIL at (%zu, %zu): %g != %g\n", i / width, i % width, got[i], want[i]);
        return false;
      }
    return true;
  };
  bool ok = false;
  if (kernelName == "vector_add" || kernelName == "tiled_copy") {
    std::vector<float> a(size_t(m) * n), b(a.size()), c(a.size(), -1.0f);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = value(i, 1);
      b[i] = value(i, 2);
    }
    Leaves leaves = {m, n, n};
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    std::vector<void *> params = {&pa, &leaves, &pb, &leaves, &pc, &leaves};
    config.grid[0] = (n + 63) / 64;
    config.grid[1] = (m + 15) / 16;
    if (kernelName == "tiled_copy") {
      params.resize(4); // (A, B): B = A through the 16 x 64 LDS tile
      b.assign(b.size(), -1.0f);
      config.lds_bytes = 16 * 64 * 4;
    }
    if (const char *message = fly_emu_launch(kernel, params.data(), &config))
      return fail(message);
    if (kernelName == "tiled_copy") {
      ok = check(b, a, n, 0.0f);
    } else {
      std::vector<float> want(a.size());
      for (size_t i = 0; i < a.size(); ++i)
        want[i] = a[i] + b[i];
      ok = check(c, want, n, 0.0f);
    }
  } else if (kernelName == "fma_gemm") {
    // C (M x N) = A (M x K) * B (N x K)^T, 128 x 128 tiles.
    std::vector<float> a(size_t(m) * k), b(size_t(n) * k), c(size_t(m) * n, -1.0f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = value(i, 3) * 0.125f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = value(i, 4) * 0.125f;
    Leaves la = {m, k, k}, lb = {n, k, k}, lc = {m, n, n};
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    void *params[] = {&pa, &la, &pb, &lb, &pc, &lc};
    config.grid[0] = n / 128;
    config.grid[1] = m / 128;
    if (const char *message = fly_emu_launch(kernel, params, &config))
      return fail(message);
    std::vector<float> want(c.size());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int kk = 0; kk < k; ++kk)
          sum += double(a[size_t(i) * k + kk]) * b[size_t(j) * k + kk];
        want[size_t(i) * n + j] = float(sum);
      }
    ok = check(c, want, n, 1e-3f * k);
  } else {
    return fail("unknown kernel " + kernelName);
  }
  if (!ok)
    return 1;
  std::printf("PASS %s %dx%d on %s (wave%u)\n", kernelName.c_str(), m, n,
              chipName.c_str(), chip->waveSize);
  return 0;
}
