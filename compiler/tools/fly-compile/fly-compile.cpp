//===- fly-compile.cpp - Compile a module to AMD code objects ------------===//
//
// Runs stages of the FlyDSL pipeline on an .mlir file for one chip and
// writes what the last stage made: MLIR text, or code objects with their
// kernels' resources and ISA.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Arch/Chip.h"
#include "fly/Target/CodeObject.h"
#include "fly/Target/Compile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::fly;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("fly-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile(
    "o",
    cl::desc("Output: the code object when the last stage is binary (one "
             "gpu.module: exactly this file; several: <stem>.<module><ext>), "
             "else the MLIR module (default: stdout)"),
    cl::value_desc("file"), cl::cat(category));
// cl::desc keeps a StringRef: the text must outlive the option.
const std::string chipHelp =
    "Target chip: " + ::fly::arch::supportedChipList();
cl::opt<std::string> chipName(
    "chip", cl::desc(chipHelp),
    cl::value_desc("gfx"), cl::cat(category));

const char *kStageValues = "pre_binary, binary_prep, binary or emulator";
cl::opt<std::string> onlyStage(
    "stage",
    cl::desc("Run this stage only (pre_binary, binary_prep, binary or emulator)"),
    cl::value_desc("stage"), cl::cat(category));
cl::opt<std::string>
    fromStage("from",
              cl::desc("First stage to run (default pre_binary: the input is "
                       "Fly IR; binary_prep: it is ROCDL-level IR)"),
              cl::value_desc("stage"), cl::cat(category));
cl::opt<std::string> toStage("to",
                             cl::desc("Last stage to run (default binary)"),
                             cl::value_desc("stage"), cl::cat(category));

cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level 0-3 (-O2)"),
                           cl::Prefix, cl::init(2), cl::cat(category));
cl::opt<bool> debugInfo("debug-info",
                        cl::desc("Emit debug info in the code object"),
                        cl::cat(category));
cl::opt<bool> fastMath("fast", cl::desc("Fast relaxed math"),
                       cl::cat(category));
cl::opt<bool> daz("daz", cl::desc("Denormals are zero"), cl::cat(category));
cl::opt<bool> finiteOnly("finite-only",
                         cl::desc("Assume no infinities or NaNs"),
                         cl::cat(category));
cl::opt<bool> unsafeMath("unsafe-math",
                         cl::desc("Unsafe math optimizations"),
                         cl::cat(category));
cl::opt<unsigned> wavesPerEU(
    "waves-per-eu",
    cl::desc("Minimum waves per execution unit of every kernel (0: LLVM "
             "decides)"),
    cl::init(0), cl::cat(category));
cl::opt<unsigned>
    maxNumVGPRs("maxnreg",
                cl::desc("Most vector registers per lane of a kernel: VGPRs, "
                         "plus AGPRs on CDNA (0: no limit)"),
                cl::init(0), cl::cat(category));

cl::opt<bool> printResources(
    "print-resources",
    cl::desc("Print each kernel's registers, spills, LDS, scratch, wave size "
             "and max workgroup size (the default output of stage binary "
             "when neither -o nor --isa is given)"),
    cl::cat(category));
cl::opt<bool> printISA("isa",
                       cl::desc("Print the ISA of each code object "
                                "(disassembled)"),
                       cl::cat(category));
cl::opt<bool> printPipeline(
    "print-pipeline",
    cl::desc("Print the pass pipeline of the selected stages and exit"),
    cl::cat(category));

/// Errors of the command line itself, in the tool's usual "error:" form.
int usageError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fly-compile") << message << "\n";
  return 1;
}

/// Resolves --stage, --from and --to into the range of stages to run.
llvm::Expected<std::pair<Stage, Stage>> selectedStages() {
  auto parse = [](llvm::StringRef option,
                  llvm::StringRef value) -> llvm::Expected<Stage> {
    if (std::optional<Stage> stage = parseStage(value))
      return *stage;
    return llvm::createStringError("--" + option + "=" + value +
                                   ": not a stage; stages: " + kStageValues);
  };
  Stage first = Stage::PreBinary, last = Stage::Binary;
  if (!onlyStage.empty()) {
    if (!fromStage.empty() || !toStage.empty())
      return llvm::createStringError(
          "--stage names one stage; it cannot be combined with --from/--to");
    auto stage = parse("stage", onlyStage);
    if (!stage)
      return stage.takeError();
    return std::pair{*stage, *stage};
  }
  if (!fromStage.empty()) {
    auto stage = parse("from", fromStage);
    if (!stage)
      return stage.takeError();
    first = *stage;
  }
  if (!toStage.empty()) {
    auto stage = parse("to", toStage);
    if (!stage)
      return stage.takeError();
    last = *stage;
  }
  // The order (and which stages run together) is the pipeline's to check.
  return std::pair{first, last};
}

/// Where -o puts `object`, one of `count` code objects: the -o path itself
/// when there is one, else <stem>.<module><ext>.
std::string objectPath(const CodeObject &object, size_t count) {
  if (count == 1)
    return outputFile;
  llvm::SmallString<128> path(outputFile);
  std::string ext = llvm::sys::path::extension(path).str();
  llvm::sys::path::replace_extension(path, "");
  return (path + "." + object.moduleName + ext).str();
}

int writeCodeObjects(llvm::ArrayRef<CodeObject> objects) {
  bool showResources =
      printResources || (outputFile.empty() && !printISA);
  for (const CodeObject &object : objects) {
    if (!outputFile.empty()) {
      std::string path = objectPath(object, objects.size());
      std::string error;
      auto out = openOutputFile(path, &error);
      if (!out)
        return usageError(error);
      out->os() << object.elf;
      out->keep();
    }
    if (showResources) {
      llvm::outs() << "// gpu.module @" << object.moduleName << ": "
                   << object.chip << ", " << object.elf.size()
                   << " bytes\n";
      ::fly::target::printResourceTable(llvm::outs(), object.kernels);
    }
    if (printISA) {
      auto isa = ::fly::target::disassembleCodeObject(object.elf);
      if (!isa)
        return usageError(llvm::toString(isa.takeError()));
      llvm::outs() << "// ISA of gpu.module @" << object.moduleName << " ("
                   << object.chip << ")\n"
                   << *isa;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerFlyPipelines();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fly-compile: run the FlyDSL pipeline on an .mlir file for an AMD "
      "chip\n\n"
      "Stages (SPEC §3): pre_binary (Fly -> ROCDL), binary_prep (ROCDL -> "
      "LLVM),\nbinary (gpu.module -> code object); emulator (ROCDL -> host code "
      "for the CPU\nemulator, after pre_binary). Code objects are linked "
      "in process;\nno ROCm installation is needed. Exit status 1 on any "
      "error.\n\n"
      "  fly-compile k.mlir --chip=gfx942 -o k.hsaco --print-resources\n"
      "  fly-compile k.mlir --chip=gfx1201 --from=binary_prep --isa\n"
      "  fly-compile k.mlir --chip=gfx950 --stage=binary_prep -o k.llvm.mlir\n");

  if (chipName.empty())
    return usageError("--chip is required; supported chips: " +
                      ::fly::arch::supportedChipList());
  auto stages = selectedStages();
  if (!stages)
    return usageError(llvm::toString(stages.takeError()));
  auto [first, last] = *stages;

  PipelineOptions options;
  options.chip = chipName;
  options.optLevel = optLevel;
  options.debugInfo = debugInfo;
  options.fastMath = {fastMath, daz, finiteOnly, unsafeMath};
  options.wavesPerEU = wavesPerEU;
  options.maxNumVGPRs = maxNumVGPRs;

  DialectRegistry registry;
  registerFlyTargetInterfaces(registry); // before upstream's ROCDL target
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<FlyDialect, mlir::fly_rocdl::FlyROCDLDialect>();
  MLIRContext context(registry);
  // A diagnostic names the op and its location; the op's full text would
  // bury it.
  context.printOpOnDiagnostic(false);

  PassManager pm(&context, ModuleOp::getOperationName());
  if (llvm::Error err = buildStages(pm, first, last, options))
    return usageError(llvm::toString(std::move(err)));
  if (printPipeline) {
    pm.printAsTextualPipeline(llvm::outs(), /*pretty=*/true);
    llvm::outs() << "\n";
    return 0;
  }

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input)
    return usageError(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (failed(pm.run(*module)))
    return 1;

  if (last != Stage::Binary) {
    auto out = openOutputFile(outputFile.empty() ? std::string("-") : outputFile.getValue(), &error);
    if (!out)
      return usageError(error);
    module->print(out->os());
    out->os() << "\n";
    out->keep();
    return 0;
  }
  auto objects = collectCodeObjects(*module);
  if (failed(objects))
    return 1;
  return writeCodeObjects(*objects);
}
