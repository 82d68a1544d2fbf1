//===- Pipeline.h - The one definition of the FlyDSL pipeline ---*- C++ -*-===//
//
// The three stages of SPEC §3, and the emulator's stage that takes the place
// of B and C for the CPU emulator (SPEC §9), as functions that fill a pass
// manager for a chip and options. fly-opt (`--fly-pipeline=...`),
// fly-compile, the Python package and libFlyCompiler all build their
// pipelines here.
//
//   A pre_binary   Fly -> ROCDL     (fly-check-launches, the Fly passes, then
//                                    convert-gpu-to-rocdl)
//   B binary_prep  ROCDL -> LLVM    (rocdl-attach-target, conversions to llvm)
//   C binary       gpu.module -> gpu.binary holding the code object
//   emulator       ROCDL -> host    (convert-rocdl-to-emu and the vector and
//                                    arith conversions, in each gpu.module)
//
// The stages form two paths: pre_binary, binary_prep, binary for a chip, and
// pre_binary, emulator for the emulator. A range of stages lies on one of
// them. (When emulating, libFlyCompiler then translates each converted
// gpu.module to host LLVM bitcode, which is no pass, and runs binary_prep
// on what is left: the host code.)
//
// Every pass is named as SPEC §3 names it and looked up in the pass registry;
// building a stage fails, naming them, when some of its passes are not
// registered.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_PIPELINE_PIPELINE_H
#define FLY_PIPELINE_PIPELINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::fly {

enum class Stage { PreBinary, Emulator, BinaryPrep, Binary };

/// "pre_binary", "emulator", "binary_prep", "binary".
llvm::StringRef stageName(Stage stage);

/// The stage called `name`, if any.
std::optional<Stage> parseStage(llvm::StringRef name);

/// Math relaxations, as rocdl-attach-target spells them. They select the
/// ROCm device-library variants (oclc_* control variables) a kernel links.
struct FastMathFlags {
  bool fast = false;       // fast relaxed math
  bool daz = false;        // denormals are zero
  bool finiteOnly = false; // no infinities or NaNs
  bool unsafeMath = false; // unsafe math optimizations
};

struct PipelineOptions {
  /// The target chip; must be one of `fly::arch::supportedChips()`.
  std::string chip;
  /// LLVM optimization level of the device code, 0 to 3.
  unsigned optLevel = 2;
  /// Debug info in the code object (adds ensure-debug-info-scope-on-llvm-func).
  bool debugInfo = false;
  FastMathFlags fastMath;
  /// Minimum waves per execution unit each kernel should allow (the
  /// occupancy target, LLVM's "amdgpu-waves-per-eu"); 0 leaves it to LLVM.
  unsigned wavesPerEU = 0;
  /// Most vector registers a lane of a kernel may use: VGPRs, plus AGPRs
  /// on chips where both share one register file (CDNA3/4). Becomes LLVM's
  /// "amdgpu-num-vgpr" in that attribute's unit. 0: no limit.
  unsigned maxNumVGPRs = 0;
  /// The emulator's checks (stage emulator only): convert-rocdl-to-emu's
  /// `check` option, a comma list of bounds, race, init, barrier or all. "": none.
  std::string emuCheck;
};

/// Appends the passes of `stage` to `pm`, which must be anchored on
/// `builtin.module`. Fails, without touching `pm`, on an unknown chip, an
/// option out of range, or passes missing from the registry.
llvm::Error buildStage(OpPassManager &pm, Stage stage,
                       const PipelineOptions &options);

/// Appends stages `first` through `last` of the path holding both, in
/// order. Fails, without touching `pm`, when `last` comes before `first` or
/// no path holds both (emulator with binary_prep or binary).
llvm::Error buildStages(OpPassManager &pm, Stage first, Stage last,
                        const PipelineOptions &options);

/// Registers, once per process:
///  - the `fly-pipeline` pass pipeline, spelled
///      fly-opt in.mlir --fly-pipeline="stage=all chip=gfx942 O=3"
///      fly-opt in.mlir --pass-pipeline="builtin.module(fly-pipeline{stage=binary_prep chip=gfx1201})"
///      fly-opt in.mlir --fly-pipeline="stage=pre_binary..emulator chip=gfx950"
///    with options stage (pre_binary | emulator | binary_prep | binary, a
///    range first..last of them, or all = pre_binary..binary, the default),
///    chip, O, debug-info, fast, daz, finite-only, unsafe-math,
///    waves-per-eu, maxnreg and emu-check (the fields of PipelineOptions);
///  - every pass the stages name: the Fly and FlyROCDL passes,
///    convert-rocdl-to-emu, the passes of this library
///    (fly-check-launches, fly-rocdl-kernel-attrs) and the upstream ones.
void registerFlyPipelines();

} // namespace mlir::fly

#endif // FLY_PIPELINE_PIPELINE_H
