//===- fly-emu-run.cpp - A Fly IR kernel on the CPU emulator --------------===//
//
//   fly-emu-run examples/vector_add.mlir --chip=gfx942 --m=100 --n=200
//
// The first end-to-end path of the emulator, as a test driver: stage A for
// the chip, convert-rocdl-to-emu on each gpu.module, the module's body
// translated to LLVM IR for this host and JIT-compiled (ORC), then the
// reference vector add (C = A + B on an M x N f32 matrix: arguments a
// pointer and the struct of its dynamic leaves (M, N, row stride) per
// tensor) launched with fly_emu_launch over ceil(N/64) x ceil(M/16)
// workgroups of 256 work-items, and C checked element by element. Prints
// "PASS" or the first mismatch; exit status 1 on any error.
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
  if (failed(parsePassPipeline("gpu.module(convert-rocdl-to-emu)", pm)))
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

  // JIT it; the emulator's functions are this process's.
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail(llvm::toString(jit.takeError()));
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return fail(llvm::toString(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(ir), std::move(llvmContext))))
    return fail(llvm::toString(std::move(err)));
  auto entry = (*jit)->lookup("vector_add");
  if (!entry)
    return fail(llvm::toString(entry.takeError()));
  auto kernel = entry->toPtr<FlyEmuKernelFn>();

  // The arguments: per tensor its pointer and the struct {M, N, stride}.
  int m = rows, n = cols;
  std::vector<float> a(size_t(m) * n), b(a.size()), c(a.size(), -1.0f);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i % 97) * 0.5f;
    b[i] = float(i % 89) * 0.25f + 1.0f;
  }
  struct Leaves {
    int32_t m, n, stride;
  } leaves = {m, n, n};
  float *pa = a.data(), *pb = b.data(), *pc = c.data();
  void *params[] = {&pa, &leaves, &pb, &leaves, &pc, &leaves};
  FlyEmuLaunchConfig config = {};
  config.grid[0] = (n + 63) / 64;
  config.grid[1] = (m + 15) / 16;
  config.grid[2] = 1;
  config.block[0] = 256;
  config.block[1] = config.block[2] = 1;
  config.wave_size = chip->waveSize;
  if (const char *message = fly_emu_launch(kernel, params, &config))
    return fail(message);

  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      size_t k = size_t(i) * n + j;
      if (c[k] != a[k] + b[k]) {
        std::printf("FAIL at (%d, %d): %g != %g + %g\n", i, j, c[k], a[k], b[k]);
        return 1;
      }
    }
  std::printf("PASS %dx%d on %s (wave%u)\n", m, n, chipName.c_str(), chip->waveSize);
  return 0;
}
