//===- bench_pipeline.cpp - Compile time of the pipeline stages ----------===//
//
// Compile time of the whole FlyDSL pipeline, stage by stage, for one chip.
//
//   bench-pipeline [--chip=gfx942] [--iterations=20]
//                  [--from=pre_binary|binary_prep] [kernel.mlir...]
//
// Kernels: without file arguments, the three reference kernels in Fly IR,
// examples/vector_add.mlir, examples/tiled_copy_lds.mlir and
// examples/fma_gemm.mlir, found through the source directory compiled in
// (FLY_SOURCE_DIR), so the tool runs from any working directory. Files given
// on the command line replace them.
//
// Where compiling starts is said, not detected: --from=pre_binary (the
// default) runs stages A, B and C, for Fly IR and also for gpu-dialect
// kernels without Fly ops such as test/lit/Target/add2d.mlir (stage A's Fly
// passes leave them alone; its convert-gpu-to-rocdl lowers them);
// --from=binary_prep runs B and C only, for ROCDL-level input such as the
// output of `fly-compile k.mlir --chip=... --stage=pre_binary` (made for the
// same chip), and the stage A column shows "-".
//
// One compile of a kernel, each step timed on the wall clock:
//   parse  the file's text (read once, before any timing) into a module, in
//          a context created for this compile: loading the dialects of the
//          input counts here, loading those a stage's passes depend on
//          counts in that stage;
//   A      stage A pre_binary   (Fly -> ROCDL),  `buildStage(Stage::PreBinary)`
//   B      stage B binary_prep  (ROCDL -> LLVM), `buildStage(Stage::BinaryPrep)`
//   C      stage C binary       (gpu.module -> gpu.binary with the code
//          object, linked by lld in process), `buildStage(Stage::Binary)`
//   total  parse + A + B + C of that compile.
// Each stage runs in its own pass manager, filled from fly/Pipeline (the
// one definition of the stages, as fly-compile uses); building the pass
// manager is outside the timed run, as are the context's creation and
// reading the code objects back. Every compile starts from a freshly parsed
// module, since the stages rewrite it.
//
// Per kernel the table shows "first / median": the first compile in this
// process (it also pays LLVM's target initialization and first-use costs,
// the first kernel most of all), then the median of the --iterations
// compiles that follow. The total's median is the median of the per-compile
// totals, not the sum of the medians. After the table: the in-process lld
// link alone (part of C) of the first kernel's code object, first / median
// over 1 + --iterations links of the same relocatable object.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Target/Compile.h"
#include "fly/Target/ROCDLTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
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
#include <optional>

using namespace mlir;
using namespace mlir::fly;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("bench-pipeline options");

cl::opt<std::string> chipName("chip", cl::desc("Target chip"),
                              cl::init("gfx942"), cl::cat(category));
cl::opt<unsigned> iterations("iterations",
                             cl::desc("Compiles per kernel after the first"),
                             cl::init(20), cl::cat(category));
cl::opt<std::string>
    fromStage("from",
              cl::desc("First stage to run: pre_binary (default; Fly IR or "
                       "gpu-dialect input) or binary_prep (ROCDL-level "
                       "input)"),
              cl::value_desc("stage"), cl::init("pre_binary"),
              cl::cat(category));
cl::list<std::string>
    kernelFiles(cl::Positional,
                cl::desc("[kernel.mlir...] (default: the three reference "
                         "kernels in examples/)"),
                cl::cat(category));

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

/// The times of one compile, in ms; stage A's is unset when it did not run.
struct StepTimes {
  double parse = 0;
  std::optional<double> preBinary;
  double binaryPrep = 0, binary = 0;
  double total() const {
    return parse + preBinary.value_or(0) + binaryPrep + binary;
  }
};

/// Runs the passes of `stage` on `module` in a pass manager of their own;
/// `ms` gets the time of the run alone. False on any error.
bool runStage(ModuleOp module, Stage stage, const PipelineOptions &options,
              double &ms) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  if (llvm::Error err = buildStage(pm, stage, options)) {
    std::fprintf(stderr, "%s\n", llvm::toString(std::move(err)).c_str());
    return false;
  }
  auto start = Clock::now();
  bool ok = succeeded(pm.run(module));
  ms = msSince(start);
  return ok;
}

/// A context for one compile, whose diagnostics quote the kernel's source
/// lines as fly-compile's do.
struct CompileContext {
  CompileContext(const DialectRegistry &registry, llvm::StringRef text,
                 llvm::StringRef file)
      : context(registry), diagnostics(sourceMgr, &context) {
    context.printOpOnDiagnostic(false);
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(text, file,
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
  }
  OwningOpRef<ModuleOp> parse() {
    return parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics;
};

/// One full compile, from `first` through stage C, in a fresh context.
bool compileOnce(const DialectRegistry &registry, llvm::StringRef text,
                 llvm::StringRef file, Stage first,
                 const PipelineOptions &options, StepTimes &times) {
  CompileContext cc(registry, text, file);
  auto start = Clock::now();
  OwningOpRef<ModuleOp> module = cc.parse();
  times.parse = msSince(start);
  if (!module)
    return false;
  if (first == Stage::PreBinary) {
    double ms;
    if (!runStage(*module, Stage::PreBinary, options, ms))
      return false;
    times.preBinary = ms;
  }
  return runStage(*module, Stage::BinaryPrep, options, times.binaryPrep) &&
         runStage(*module, Stage::Binary, options, times.binary) &&
         succeeded(collectCodeObjects(*module));
}

/// A relocatable object of the kernel, to time the link alone: the module
/// through stage B, then gpu-module-to-binary{format=isa} (stage C's own
/// serializer stopping at the ISA), assembled.
FailureOr<SmallVector<char, 0>>
relocatableObject(const DialectRegistry &registry, llvm::StringRef text,
                  llvm::StringRef file, Stage first,
                  const PipelineOptions &options) {
  CompileContext cc(registry, text, file);
  OwningOpRef<ModuleOp> module = cc.parse();
  double ignored;
  if (!module ||
      (first == Stage::PreBinary &&
       !runStage(*module, Stage::PreBinary, options, ignored)) ||
      !runStage(*module, Stage::BinaryPrep, options, ignored))
    return failure();
  PassManager pm(&cc.context, ModuleOp::getOperationName());
  if (failed(parsePassPipeline("gpu-module-to-binary{format=isa}", pm,
                               llvm::errs())) ||
      failed(pm.run(*module)))
    return failure();
  std::string isa;
  module->walk([&](gpu::BinaryOp binary) {
    if (isa.empty())
      isa = cast<gpu::ObjectAttr>(binary.getObjects()[0]).getObject().str();
  });
  if (isa.empty())
    return failure();
  return ROCDL::assembleIsa(isa, "amdgcn-amd-amdhsa", options.chip, "",
                            [&] { return module->emitError(); });
}

/// "first / median" in a fixed width; "-" for a step that did not run.
std::string cell(std::optional<double> first, std::optional<double> med) {
  if (!first)
    return "-";
  std::string medText =
      med ? llvm::formatv("{0,7:f2}", *med).str() : std::string("      -");
  return llvm::formatv("{0,8:f2} / {1}", *first, medText).str();
}

} // namespace

int main(int argc, char **argv) {
  registerFlyPipelines();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "Compile time of the FlyDSL pipeline stages\n");
  std::optional<Stage> first = parseStage(fromStage);
  if (!first || *first == Stage::Binary) {
    std::fprintf(stderr,
                 "--from=%s: the first stage is pre_binary or binary_prep\n",
                 fromStage.c_str());
    return 1;
  }
  std::vector<std::string> files(kernelFiles.begin(), kernelFiles.end());
  if (files.empty())
    for (const char *name :
         {"vector_add.mlir", "tiled_copy_lds.mlir", "fma_gemm.mlir"})
      files.push_back(std::string(FLY_SOURCE_DIR) + "/examples/" + name);

  // Read every file up front: a missing one fails before any timing.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      std::fprintf(stderr, "cannot read %s: %s\n", file.c_str(),
                   buffer.getError().message().c_str());
      return 1;
    }
    buffers.push_back(std::move(*buffer));
  }

  DialectRegistry registry;
  registerFlyTargetInterfaces(registry); // before upstream's ROCDL target
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // The ROCm atoms' types (a traced MMA kernel has them).
  registry.insert<FlyDialect, mlir::fly_rocdl::FlyROCDLDialect>();
  PipelineOptions options;
  options.chip = chipName;
  {
    // An unknown chip or a missing pass fails here, before the table.
    MLIRContext context(registry);
    PassManager pm(&context, ModuleOp::getOperationName());
    if (llvm::Error err = buildStages(pm, *first, Stage::Binary, options)) {
      std::fprintf(stderr, "%s\n", llvm::toString(std::move(err)).c_str());
      return 1;
    }
  }

  size_t nameWidth = 6; // "kernel"
  for (const std::string &file : files)
    nameWidth = std::max(nameWidth, llvm::sys::path::stem(file).size());
  const int cellWidth = 18; // "%8.2f / %7.2f"
  auto row = [&](llvm::StringRef name, llvm::ArrayRef<std::string> cells) {
    std::printf("%-*s", int(nameWidth), name.str().c_str());
    for (const std::string &c : cells)
      std::printf("  %*s", cellWidth, c.c_str());
    std::printf("\n");
  };

  std::printf("Compile time on %s, ms: first compile in this process / "
              "median of the next %u (--iterations)\n",
              options.chip.c_str(), unsigned(iterations));
  std::printf("from stage %s; total = parse + A + B + C of one compile\n\n",
              stageName(*first).str().c_str());
  row("kernel", {"parse", "A pre_binary", "B binary_prep", "C binary",
                 "total"});
  for (size_t k = 0; k < files.size(); ++k) {
    const std::string &file = files[k];
    llvm::StringRef text = buffers[k]->getBuffer();
    StepTimes firstTimes;
    std::vector<double> parse, preBinary, prep, binary, total;
    for (unsigned i = 0; i <= iterations; ++i) {
      StepTimes t;
      if (!compileOnce(registry, text, file, *first, options, t)) {
        std::fprintf(stderr, "compiling %s for %s from stage %s failed\n",
                     file.c_str(), options.chip.c_str(),
                     stageName(*first).str().c_str());
        if (*first == Stage::BinaryPrep)
          std::fprintf(stderr, "(--from=binary_prep takes ROCDL-level input; "
                               "Fly IR and gpu-dialect kernels need "
                               "--from=pre_binary)\n");
        return 1;
      }
      if (i == 0) {
        firstTimes = t;
        continue;
      }
      parse.push_back(t.parse);
      if (t.preBinary)
        preBinary.push_back(*t.preBinary);
      prep.push_back(t.binaryPrep);
      binary.push_back(t.binary);
      total.push_back(t.total());
    }
    auto med = [](const std::vector<double> &values) -> std::optional<double> {
      if (values.empty())
        return std::nullopt;
      return median(values);
    };
    row(llvm::sys::path::stem(file),
        {cell(firstTimes.parse, med(parse)),
         cell(firstTimes.preBinary, med(preBinary)),
         cell(firstTimes.binaryPrep, med(prep)),
         cell(firstTimes.binary, med(binary)),
         cell(firstTimes.total(), med(total))});
  }

  // The link step alone, as stage C runs it.
  auto object = relocatableObject(registry, buffers.front()->getBuffer(),
                                  files.front(), *first, options);
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
  std::printf("\nin-process lld link alone (part of C), %s's code object: "
              "%s\n",
              llvm::sys::path::stem(files.front()).str().c_str(),
              cell(firstLink, link.empty() ? std::nullopt
                                           : std::optional(median(link)))
                  .c_str());
  return 0;
}
