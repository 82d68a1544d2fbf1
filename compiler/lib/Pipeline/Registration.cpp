//===- Registration.cpp - The fly-pipeline pass pipeline -----------------===//
//
// `fly-pipeline{stage=... chip=...}` is a pass pipeline with options, the
// way MLIR spells configurable pipelines (`--fly-pipeline="..."` on the
// command line, `fly-pipeline{...}` inside --pass-pipeline). It is
// registered through the raw registry function rather than
// PassPipelineRegistration so that an unknown chip or a missing pass is an
// error of the pipeline parser instead of a silently empty pipeline.
//
//===----------------------------------------------------------------------===//

#include "fly/Conversion/FlyToROCDL/Passes.h"
#include "fly/Conversion/ROCDLToEmu/Passes.h"
#include "fly/Dialect/Fly/Transforms/Passes.h"
#include "fly/Dialect/FlyROCDL/Transforms/Passes.h"
#include "fly/Pipeline/Passes.h"
#include "fly/Pipeline/Pipeline.h"
#include "fly/Arch/Chip.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;
using namespace mlir::fly;

namespace {

/// Option descriptions are kept as StringRefs: this text lives on.
const std::string &chipHelp() {
  static const std::string help =
      "Target chip: " + ::fly::arch::supportedChipList();
  return help;
}

/// The options of `fly-pipeline`: PipelineOptions plus the stage.
struct FlyPipelineOptions : public PassPipelineOptions<FlyPipelineOptions> {
  Option<std::string> stage{
      *this, "stage",
      llvm::cl::desc("Stages to run: one of pre_binary, emulator, "
                     "binary_prep, binary; a range first..last of them; or "
                     "all (pre_binary..binary)"),
      llvm::cl::init("all")};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc(chipHelp())};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("LLVM optimization level, 0-3"),
                            llvm::cl::init(2)};
  Option<bool> debugInfo{*this, "debug-info",
                         llvm::cl::desc("Emit debug info in the code object"),
                         llvm::cl::init(false)};
  Option<bool> fast{*this, "fast", llvm::cl::desc("Fast relaxed math"),
                    llvm::cl::init(false)};
  Option<bool> daz{*this, "daz", llvm::cl::desc("Denormals are zero"),
                   llvm::cl::init(false)};
  Option<bool> finiteOnly{*this, "finite-only",
                          llvm::cl::desc("Assume no infinities or NaNs"),
                          llvm::cl::init(false)};
  Option<bool> unsafeMath{*this, "unsafe-math",
                          llvm::cl::desc("Unsafe math optimizations"),
                          llvm::cl::init(false)};
  Option<unsigned> wavesPerEU{
      *this, "waves-per-eu",
      llvm::cl::desc("Minimum waves per execution unit (0: not set)"),
      llvm::cl::init(0)};
  Option<unsigned> maxNumVGPRs{
      *this, "maxnreg",
      llvm::cl::desc("Most vector registers per lane of a kernel: VGPRs, "
                     "plus AGPRs on CDNA (0: no limit)"),
      llvm::cl::init(0)};
  Option<std::string> emuCheck{
      *this, "emu-check",
      llvm::cl::desc("The emulator's checks (stage emulator): a comma list "
                     "of bounds, race, init, barrier, or all; empty: none")};

  PipelineOptions toPipelineOptions() const {
    PipelineOptions options;
    options.chip = chip;
    options.optLevel = optLevel;
    options.debugInfo = debugInfo;
    options.fastMath = {fast, daz, finiteOnly, unsafeMath};
    options.wavesPerEU = wavesPerEU;
    options.maxNumVGPRs = maxNumVGPRs;
    options.emuCheck = emuCheck;
    return options;
  }
};

LogicalResult
buildFlyPipeline(OpPassManager &pm, llvm::StringRef optionText,
                 function_ref<LogicalResult(const llvm::Twine &)> onError) {
  FlyPipelineOptions options;
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  if (failed(options.parseFromString(optionText, parseErrorStream)))
    return onError("fly-pipeline: " + llvm::StringRef(parseErrors).trim());

  Stage first = Stage::PreBinary, last = Stage::Binary;
  if (options.stage != "all") {
    llvm::StringRef text = options.stage;
    auto [firstName, lastName] = text.split("..");
    if (!text.contains(".."))
      lastName = firstName;
    for (auto [name, stage] : {std::pair{firstName, &first},
                               std::pair{lastName, &last}}) {
      std::optional<Stage> parsed = parseStage(name);
      if (!parsed)
        return onError("fly-pipeline: unknown stage '" + name +
                       "' in stage=" + options.stage +
                       "; stages: pre_binary, emulator, binary_prep, "
                       "binary, a range first..last, or all");
      *stage = *parsed;
    }
  }
  if (llvm::Error err =
          buildStages(pm, first, last, options.toPipelineOptions()))
    return onError("fly-pipeline: " + llvm::toString(std::move(err)));
  return success();
}

/// The upstream passes the stages name.
void registerUpstreamPasses() {
  registerCanonicalizerPass();
  registerCSEPass();
  registerSCFToControlFlowPass();
  registerConvertGpuOpsToROCDLOpsPass();
  registerGpuROCDLAttachTargetPass();
  registerConvertControlFlowToLLVMPass();
  registerGpuToLLVMConversionPass();
  registerConvertVectorToLLVMPass();
  registerArithToLLVMConversionPass();
  registerConvertFuncToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  LLVM::registerDIScopeForLLVMFuncOpPass();
  registerGpuModuleToBinaryPass();
}

} // namespace

void mlir::fly::registerFlyPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerUpstreamPasses();
    registerFlyPasses();
    registerFlyROCDLPasses();
    registerFlyToROCDLPasses();
    registerROCDLToEmuPasses();
    registerFlyPipelinePasses();
    registerPassPipeline(
        "fly-pipeline",
        "The FlyDSL pipeline (SPEC §3) or one of its stages for a chip",
        buildFlyPipeline,
        [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
          printOptions(FlyPipelineOptions());
        });
  });
}
