//===- Passes.td - Passes of the pipeline library ----------*- tablegen -*-===//
//
// Passes that carry PipelineOptions into the IR; each is one file in
// lib/Pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_PIPELINE_PASSES_TD
#define FLY_PIPELINE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlyROCDLKernelAttrs
    : Pass<"fly-rocdl-kernel-attrs", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give the ROCDL kernels of a gpu.module an occupancy target "
                "and a VGPR budget";
  let description = [{
    Every `llvm.func` marked `rocdl.kernel` gets `rocdl.waves_per_eu`
    (LLVM's `"amdgpu-waves-per-eu"`: the minimum number of waves per
    execution unit the register allocation must leave room for) and the
    LLVM function attribute `"amdgpu-num-vgpr"` in its `passthrough` list.
    The latter is LLVM's unit: the VGPR limit, except on chips whose AGPRs
    share the VGPR file (gfx90a and later CDNA) where LLVM doubles it into
    a limit of VGPRs plus AGPRs. A kernel that already has either keeps its
    own value: the options are defaults for the whole module. An option
    left at 0 is not applied.
  }];
  let options = [
    Option<"wavesPerEU", "waves-per-eu", "unsigned", /*default=*/"0",
           "Minimum waves per execution unit (0: not set)">,
    Option<"numVGPR", "num-vgpr", "unsigned", /*default=*/"0",
           "Value of \"amdgpu-num-vgpr\" (0: not set)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

#endif // FLY_PIPELINE_PASSES_TD
