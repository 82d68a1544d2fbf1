//===- bench_pipeline.cpp - Compile time of the pipeline stages ----------===//
//
// Compiles the code-object test kernels (test/lit/Target/*.mlir, written at
// the gpu-dialect level) for a chip and prints, per kernel, the time of each
// step: parsing into a fresh context, the upstream tail of stage A
// (convert-gpu-to-rocdl, standing in for stage A until the Fly passes
// exist), stage B binary_prep, stage C binary, and B + C. The first compile
// in the process (LLVM target initialization, dialect loading) and the
// median of the following ones are shown; then the in-process lld link of
// one code object on its own.
//
//   bench-pipeline [--chip=gfx942] [--iterations=20] [kernel.mlir...]
//
//===----------------------------------------------------------------------===//

#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/Compile.h"
#include "fly/Target/ROCDLTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace mlir;
using namespace mlir::fly;
namespace cl = llvm::cl;

namespace {

cl::opt<std::string> chipName("chip", cl::desc("Target chip"),
                              cl::init("gfx942"));
cl::opt<unsigned> iterations("iterations",
                             cl::desc("Compiles per kernel after the first"),
                             cl::init(20));
cl::list<std::string> kernelFiles(cl::Positional,
                                  cl::desc("[kernel.mlir...]"));

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

/// The times of one compile, in ms.
struct StepTimes {
  double parse = 0, stageATail = 0, binaryPrep = 0, binary = 0;
};

/// Runs a pass manager filled by `fill` on `module`; false on any error.
template <typename Fill>
bool runPasses(ModuleOp module, Fill fill, double &ms) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  if (!fill(pm))
    return false;
  auto start = Clock::now();
  bool ok = succeeded(pm.run(module));
  ms = msSince(start);
  return ok;
}

bool buildStageOrReport(OpPassManager &pm, Stage stage,
                        const PipelineOptions &options) {
  if (llvm::Error err = buildStage(pm, stage, options)) {
    std::fprintf(stderr, "%s\n", llvm::toString(std::move(err)).c_str());
    return false;
  }
  return true;
}

/// The upstream end of stage A, for kernels written with gpu.func.
std::string stageATail(llvm::StringRef chip) {
  return llvm::formatv(
      "gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{{chipset={0} "
      "index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true})",
      chip);
}

bool runTextualPipeline(ModuleOp module, llvm::StringRef pipeline,
                        double &ms) {
  return runPasses(
      module,
      [&](PassManager &pm) {
        return succeeded(parsePassPipeline(pipeline, pm, llvm::errs()));
      },
      ms);
}

/// One full compile in a fresh context.
bool compileOnce(const DialectRegistry &registry, llvm::StringRef text,
                 const PipelineOptions &options, StepTimes &times) {
  MLIRContext context(registry);
  auto start = Clock::now();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  times.parse = msSince(start);
  if (!module)
    return false;
  return runTextualPipeline(*module, stageATail(options.chip),
                            times.stageATail) &&
         runPasses(
             *module,
             [&](PassManager &pm) {
               return buildStageOrReport(pm, Stage::BinaryPrep, options);
             },
             times.binaryPrep) &&
         runPasses(
             *module,
             [&](PassManager &pm) {
               return buildStageOrReport(pm, Stage::Binary, options);
             },
             times.binary) &&
         succeeded(collectCodeObjects(*module));
}

/// A relocatable object of the kernel (ISA from stage C with format=isa,
/// assembled), to time the link alone.
FailureOr<SmallVector<char, 0>>
relocatableObject(const DialectRegistry &registry, llvm::StringRef text,
                  const PipelineOptions &options) {
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  double ignored;
  if (!module ||
      !runTextualPipeline(*module, stageATail(options.chip), ignored) ||
      !runPasses(
          *module,
          [&](PassManager &pm) {
            return buildStageOrReport(pm, Stage::BinaryPrep, options);
          },
          ignored) ||
      !runTextualPipeline(*module, "gpu-module-to-binary{format=isa}",
                          ignored))
    return failure();
  std::string isa;
  module->walk([&](gpu::BinaryOp binary) {
    isa = cast<gpu::ObjectAttr>(binary.getObjects()[0]).getObject().str();
  });
  return ROCDL::assembleIsa(isa, "amdgcn-amd-amdhsa", options.chip, "",
                            [&] { return module->emitError(); });
}

} // namespace

int main(int argc, char **argv) {
  registerFlyPipelines();
  cl::ParseCommandLineOptions(argc, argv,
                              "Compile time of the FlyDSL pipeline stages\n");
  std::vector<std::string> files(kernelFiles.begin(), kernelFiles.end());
  if (files.empty())
    for (const char *name : {"add2d.mlir", "lds-transpose.mlir"})
      files.push_back(std::string(FLY_SOURCE_DIR) + "/test/lit/Target/" +
                      name);

  DialectRegistry registry;
  registerFlyTargetInterfaces(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  PipelineOptions options;
  options.chip = chipName;

  std::printf("Compile time for %s, ms: first compile in this process / "
              "median of %u more\n",
              options.chip.c_str(), unsigned(iterations));
  std::printf("(A tail = upstream convert-gpu-to-rocdl; stage A's Fly passes "
              "are not in yet)\n\n");
  std::printf("%-18s %15s %15s %15s %15s %15s\n", "kernel", "parse",
              "A tail", "B binary_prep", "C binary", "B+C");
  std::string firstText;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    llvm::StringRef text = (*buffer)->getBuffer();
    if (firstText.empty())
      firstText = text.str();
    StepTimes first;
    std::vector<double> parse, tail, prep, binary, total;
    for (unsigned i = 0; i <= iterations; ++i) {
      StepTimes t;
      if (!compileOnce(registry, text, options, t)) {
        std::fprintf(stderr, "compiling %s failed\n", file.c_str());
        return 1;
      }
      if (i == 0) {
        first = t;
        continue;
      }
      parse.push_back(t.parse);
      tail.push_back(t.stageATail);
      prep.push_back(t.binaryPrep);
      binary.push_back(t.binary);
      total.push_back(t.binaryPrep + t.binary);
    }
    auto cell = [](double a, double b) {
      return llvm::formatv("{0,6:f2} / {1,5:f2}", a, b).str();
    };
    std::string name = llvm::sys::path::stem(file).str();
    std::printf("%-18s %15s %15s %15s %15s %15s\n", name.c_str(),
                cell(first.parse, median(parse)).c_str(),
                cell(first.stageATail, median(tail)).c_str(),
                cell(first.binaryPrep, median(prep)).c_str(),
                cell(first.binary, median(binary)).c_str(),
                cell(first.binaryPrep + first.binary, median(total)).c_str());
  }

  // The link step alone, as stage C runs it.
  auto object = relocatableObject(registry, firstText, options);
  if (failed(object)) {
    std::fprintf(stderr, "no relocatable object to link\n");
    return 1;
  }
  std::vector<double> link;
  for (unsigned i = 0; i <= iterations; ++i) {
    auto start = Clock::now();
    auto codeObject = linkCodeObject(*object);
    double ms = msSince(start);
    if (!codeObject) {
      std::fprintf(stderr, "%s\n",
                   llvm::toString(codeObject.takeError()).c_str());
      return 1;
    }
    link.push_back(ms);
  }
  double firstLink = link.front();
  link.erase(link.begin());
  std::printf("\nin-process lld link of %s's code object (part of C): "
              "%.2f / %.2f\n",
              llvm::sys::path::stem(files.front()).str().c_str(), firstLink,
              median(link));
  return 0;
}
