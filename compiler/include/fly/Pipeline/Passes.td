//===- Passes.td - Passes of the pipeline library ----------*- tablegen -*-===//
//
// Passes that carry PipelineOptions into the IR or check it against them;
// each is one file in lib/Pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_PIPELINE_PASSES_TD
#define FLY_PIPELINE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlyCheckLaunches : Pass<"fly-check-launches", "::mlir::ModuleOp"> {
  let summary = "Check the static sizes of each gpu.launch_func against the "
                "chip and the kernel";
  let description = [{
    Every `gpu.launch_func` whose sizes are constants is checked against
    the chip's limits (fly/Arch/Chip.h) and what the launched kernel
    declares; a size that is not a constant is left to the runtime. In
    order, the first failure of a launch is reported, as an error at the
    launch's location:

      - each grid and block dimension is at least 1 and at most 4294967295
        (the launch's 32-bit limit);
      - a fully static block has at most the chip's maximum workgroup size
        of work-items;
      - a static block dimension equals the kernel's known block size
        (`known_block_size` of a `gpu.func`, `gpu.known_block_size` of
        another function) where the kernel has one;
      - the dynamic LDS size is not negative;
      - the kernel's static LDS plus a constant dynamic LDS size fit the
        chip's LDS per workgroup. The static LDS is the bytes of the
        workgroup (address space 3) `llvm.mlir.global`s the kernel refers
        to, directly or through the functions it calls, plus the
        workgroup attributions of a `gpu.func`; padding between them is
        not counted, so that no launch that fits is rejected.

    The messages start with `launch of kernel NAME: `, NAME being the
    name of the kernel function's location when it is a name location
    (`loc("name"(...))`) and its symbol otherwise. Every launch is checked;
    the pass fails when any of them failed. It changes nothing.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip whose limits apply">,
  ];
}

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
