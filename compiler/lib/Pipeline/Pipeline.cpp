//===- Pipeline.cpp - Stages A, B, C of SPEC §3 and the emulator's -------===//
//
// Each stage is a list of (nesting, pass name, options) written as SPEC §3
// writes it; the passes are found by name in the pass registry, so a stage
// that names a pass no library registered yet fails with that name instead
// of silently running without it.
//
//===----------------------------------------------------------------------===//

#include "fly/Pipeline/Pipeline.h"
#include "fly/Arch/Chip.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fly;
using llvm::Error;

namespace {

/// One pass of a stage: `nest(name{options})`, or `name{options}` at the
/// top-level module when `nest` is empty.
struct PassSpec {
  llvm::StringRef nest;
  llvm::StringRef name;
  std::string options;
};

Error pipelineError(Stage stage, const llvm::Twine &message) {
  return llvm::createStringError("pipeline stage " + stageName(stage) + ": " +
                                 message);
}

const char *boolText(bool value) { return value ? "true" : "false"; }

/// A. pre_binary: Fly -> ROCDL. The launches are checked against the chip
/// first, on the input as it came. The canonicalizations fold and erase
/// ops but leave the regions' blocks alone: the IR is still structured
/// (scf), so region simplification would find no blocks to merge or drop,
/// and its walk was half of canonicalize's time on a GEMM; LLVM's passes
/// remove what dead code is left. The math ops become LLVM intrinsics the
/// backend expands inline before convert-gpu-to-rocdl would make device
/// library calls of them (no device library is linked).
std::vector<PassSpec> preBinaryPasses(const ::fly::arch::ChipInfo &chip,
                                      const PipelineOptions &) {
  return {
      {"", "fly-check-launches", llvm::formatv("chip={0}", chip.name)},
      {"", "fly-rewrite-func-signature", ""},
      {"", "fly-canonicalize", ""},
      {"", "fly-layout-lowering", ""},
      {"", "fly-int-swizzle-simplify", ""},
      {"", "canonicalize", "region-simplify=disabled"},
      {"", "fly-convert-atom-call-to-ssa-form", ""},
      {"", "fly-promote-regmem-to-vectorssa", ""},
      {"", "convert-fly-to-rocdl", llvm::formatv("chip={0}", chip.name)},
      {"", "canonicalize", "region-simplify=disabled"},
      {"gpu.module", "fly-lower-math", llvm::formatv("chip={0}", chip.name)},
      {"gpu.module", "convert-scf-to-cf", ""},
      {"gpu.module", "cse", ""},
      {"gpu.module", "convert-gpu-to-rocdl",
       llvm::formatv("chipset={0} index-bitwidth=0 runtime=HIP "
                     "use-bare-ptr-memref-call-conv=true",
                     chip.name)},
      {"gpu.module", "fly-rocdl-cluster-attr",
       llvm::formatv("chip={0}", chip.name)},
  };
}

/// B. binary_prep: ROCDL -> LLVM, with the target attached.
std::vector<PassSpec> binaryPrepPasses(const ::fly::arch::ChipInfo &chip,
                                       const PipelineOptions &options) {
  std::vector<PassSpec> passes;
  if (options.wavesPerEU || options.maxNumVGPRs) {
    // LLVM doubles "amdgpu-num-vgpr" where AGPRs share the VGPR file, into
    // a budget for both: halve it there, so that maxnreg always bounds the
    // vector registers a lane uses.
    unsigned numVGPR = chip.hasAGPRs ? (options.maxNumVGPRs + 1) / 2
                                     : options.maxNumVGPRs;
    passes.push_back({"gpu.module", "fly-rocdl-kernel-attrs",
                      llvm::formatv("waves-per-eu={0} num-vgpr={1}",
                                    options.wavesPerEU, numVGPR)});
  }

  // The target: chip, O level, the chip's wave size (it selects the
  // wave64 variants of the device libraries), features, math flags.
  std::string target =
      llvm::formatv("chip={0} O={1} wave64={2}", chip.name, options.optLevel,
                    boolText(chip.waveSize == 64));
  if (!chip.features.empty())
    target += (" features=" + chip.features).str();
  const FastMathFlags &math = options.fastMath;
  for (auto [flag, name] : {std::pair{math.fast, "fast"},
                            std::pair{math.daz, "daz"},
                            std::pair{math.finiteOnly, "finite-only"},
                            std::pair{math.unsafeMath, "unsafe-math"}})
    if (flag)
      target += std::string(" ") + name + "=true";
  passes.push_back({"", "rocdl-attach-target", target});

  passes.push_back({"", "convert-scf-to-cf", ""});
  passes.push_back({"", "convert-cf-to-llvm", ""});
  passes.push_back({"", "gpu-to-llvm",
                    "use-bare-pointers-for-host=true "
                    "use-bare-pointers-for-kernels=true"});
  passes.push_back({"", "convert-vector-to-llvm", ""});
  passes.push_back({"", "convert-arith-to-llvm", ""});
  passes.push_back({"", "convert-func-to-llvm", ""});
  passes.push_back({"", "reconcile-unrealized-casts", ""});
  if (options.debugInfo)
    passes.push_back({"", "ensure-debug-info-scope-on-llvm-func", ""});
  return passes;
}

/// C. binary: each gpu.module becomes a gpu.binary holding its code object.
std::vector<PassSpec> binaryPasses(const ::fly::arch::ChipInfo &,
                                   const PipelineOptions &) {
  return {{"", "gpu-module-to-binary", "format=fatbin"}};
}

/// emulator, in place of B and C: each gpu.module's kernels become host code
/// against the emulator's C ABI, and the vector and arith ops B would have
/// converted are converted here, inside the gpu.modules (B, run later on
/// the host part, no longer sees them). The chip decides the fp8 formats.
std::vector<PassSpec> emulatorPasses(const ::fly::arch::ChipInfo &chip,
                                     const PipelineOptions &options) {
  std::string convert = llvm::formatv("chip={0}", chip.name);
  if (!options.emuCheck.empty())
    convert += " check=" + options.emuCheck;
  return {
      {"gpu.module", "convert-rocdl-to-emu", convert},
      {"gpu.module", "convert-vector-to-llvm", ""},
      {"gpu.module", "convert-arith-to-llvm", ""},
      {"gpu.module", "reconcile-unrealized-casts", ""},
  };
}

/// The two orders stages run in: for a chip, and for the emulator.
constexpr Stage kBinaryPath[] = {Stage::PreBinary, Stage::BinaryPrep,
                                 Stage::Binary};
constexpr Stage kEmulatorPath[] = {Stage::PreBinary, Stage::Emulator};
constexpr Stage kAllStages[] = {Stage::PreBinary, Stage::Emulator,
                                Stage::BinaryPrep, Stage::Binary};

/// Stages `first` to `last` of the path that holds both.
llvm::Expected<llvm::ArrayRef<Stage>> stageRange(Stage first, Stage last) {
  for (llvm::ArrayRef<Stage> path : {llvm::ArrayRef<Stage>(kBinaryPath),
                                     llvm::ArrayRef<Stage>(kEmulatorPath)}) {
    const Stage *from = llvm::find(path, first), *to = llvm::find(path, last);
    if (from == path.end() || to == path.end())
      continue;
    if (from > to)
      return llvm::createStringError("pipeline: stage " + stageName(first) +
                                     " comes after " + stageName(last));
    return path.slice(from - path.begin(), to - from + 1);
  }
  return llvm::createStringError(
      "pipeline: stages " + stageName(first) + " and " + stageName(last) +
      " do not run together: emulator takes the place of binary_prep and "
      "binary (a chip's stages are pre_binary, binary_prep, binary; the "
      "emulator's pre_binary, emulator)");
}

const PassRegistryEntry *lookupPass(llvm::StringRef name) {
  if (const PassInfo *pass = PassInfo::lookup(name))
    return pass;
  return PassPipelineInfo::lookup(name);
}

/// Adds `passes` to `pm`; consecutive passes with the same nesting share one
/// nested pass manager, as in `gpu.module(a, b, c)`.
Error addPasses(OpPassManager &pm, Stage stage,
                llvm::ArrayRef<PassSpec> passes) {
  llvm::SmallVector<llvm::StringRef> missing;
  for (const PassSpec &pass : passes)
    if (!lookupPass(pass.name) && !llvm::is_contained(missing, pass.name))
      missing.push_back(pass.name);
  if (!missing.empty())
    return pipelineError(stage, "passes not registered: " +
                                    llvm::join(missing, ", "));

  // Build into a copy: `pm` stays unchanged when an option is rejected.
  OpPassManager staged = pm;
  OpPassManager *nested = nullptr;
  llvm::StringRef nestedName;
  std::string optionError;
  auto onError = [&](const llvm::Twine &message) {
    optionError = message.str();
    return failure();
  };
  for (const PassSpec &pass : passes) {
    OpPassManager *target = &staged;
    if (!pass.nest.empty()) {
      if (!nested || nestedName != pass.nest) {
        nested = &staged.nest(pass.nest);
        nestedName = pass.nest;
      }
      target = nested;
    } else {
      nested = nullptr;
    }
    if (failed(lookupPass(pass.name)->addToPipeline(*target, pass.options,
                                                    onError)))
      return pipelineError(stage, llvm::formatv("{0}{{{1}}: {2}", pass.name,
                                                pass.options, optionError));
  }
  pm = std::move(staged);
  return Error::success();
}

} // namespace

llvm::StringRef mlir::fly::stageName(Stage stage) {
  switch (stage) {
  case Stage::PreBinary:
    return "pre_binary";
  case Stage::Emulator:
    return "emulator";
  case Stage::BinaryPrep:
    return "binary_prep";
  case Stage::Binary:
    return "binary";
  }
  llvm_unreachable("unknown stage");
}

std::optional<Stage> mlir::fly::parseStage(llvm::StringRef name) {
  for (Stage stage : kAllStages)
    if (stageName(stage) == name)
      return stage;
  return std::nullopt;
}

Error mlir::fly::buildStage(OpPassManager &pm, Stage stage,
                            const PipelineOptions &options) {
  if (options.chip.empty())
    return pipelineError(stage, "no chip given; supported chips: " +
                                    ::fly::arch::supportedChipList());
  auto chip = ::fly::arch::getChip(options.chip);
  if (!chip)
    return pipelineError(stage, llvm::toString(chip.takeError()));
  if (options.optLevel > 3)
    return pipelineError(stage, "optimization level " +
                                    llvm::Twine(options.optLevel) +
                                    " is not in 0..3");

  std::vector<PassSpec> passes;
  switch (stage) {
  case Stage::PreBinary:
    passes = preBinaryPasses(*chip, options);
    break;
  case Stage::Emulator:
    passes = emulatorPasses(*chip, options);
    break;
  case Stage::BinaryPrep:
    passes = binaryPrepPasses(*chip, options);
    break;
  case Stage::Binary:
    passes = binaryPasses(*chip, options);
    break;
  }
  return addPasses(pm, stage, passes);
}

Error mlir::fly::buildStages(OpPassManager &pm, Stage first, Stage last,
                             const PipelineOptions &options) {
  llvm::Expected<llvm::ArrayRef<Stage>> stages = stageRange(first, last);
  if (!stages)
    return stages.takeError();
  OpPassManager staged = pm;
  for (Stage stage : *stages)
    if (Error err = buildStage(staged, stage, options))
      return err;
  pm = std::move(staged);
  return Error::success();
}
