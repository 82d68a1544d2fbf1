//===- Passes.td - Passes of the pipeline library ----------*- tablegen -*-===//
//
// Passes that carry PipelineOptions into the IR or check it against them,
// and the preparation of math for the chip that the upstream passes of the
// stages lack; each is one file in lib/Pipeline.
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

def FlyLowerMath : Pass<"fly-lower-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower math ops to LLVM intrinsics the AMDGPU backend "
                "expands inline, and check AMDGPU math against the chip";
  let description = [{
    Code objects are linked without the ROCm device libraries, and
    `convert-gpu-to-rocdl` turns most `math` ops into calls of them
    (`__ocml_exp2_f32`, ...), which would not link. Stage A runs this pass
    on each gpu.module before it, so that no such call is made:

      - Every math op, LLVM math intrinsic (`llvm.intr.*` or
        `llvm.call_intrinsic "llvm.*"`) and AMDGPU transcendental
        instruction (`rocdl.exp2`, `rocdl.log`, `rocdl.rcp`, `rocdl.sqrt`,
        `rocdl.sin`, `rocdl.cos`, `rocdl.tanh`, or `llvm.call_intrinsic` of
        `llvm.amdgcn.{exp2,log,rcp,rsq,sqrt,sin,cos,tanh}[.TYPE]`) is
        checked first; each that cannot be compiled for the chip is an
        error at its location naming it and the chip: a transcendental
        math op on f64 (the backend has none inline), `math.ipowi`, an LLVM
        intrinsic the backend would send to the device library (`tan`,
        `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`, `tanh`; `exp`,
        `log`, `sin`, `pow`, ... on f64), `rocdl.exp` (its intrinsic is the
        export instruction), an instruction on a type no chip has it for
        (v_exp_f64), or one the chip lacks according to LLVM's AMDGPU
        target (`tanh-insts`: v_tanh_*; `bf16-trans-insts`: the bf16
        forms; both gfx1250's).
      - The math ops without an LLVM intrinsic the backend expands inline
        are rewritten with MLIR's patterns: `tanh`, `erf`, `erfc`, `atan`,
        `atan2`, `asin`, `acos`, `expm1`, `log1p`, `cbrt` by its polynomial
        approximations (f32; f16 and bf16 computed in f32), `sinh`, `cosh`,
        `tan`, `asinh`, `acosh`, `atanh`, `clampf` by its expansions into
        exp, log, sqrt, sin, cos, min and max; `isinf` and `isnormal`
        become comparisons of |x|.
      - The math ops are converted to LLVM intrinsics by MLIR's
        math-to-llvm patterns (`rsqrt` as 1 / sqrt).
      - The LLVM intrinsic ops `convert-gpu-to-rocdl` marks illegal
        (`llvm.intr.exp`, `exp2`, `log`, `log2`, `log10`, `sin`, `cos`,
        `pow`, `floor`, `ceil`) become `llvm.call_intrinsic` of the same
        intrinsic with the same fast-math flags: the same LLVM IR, which
        the AMDGPU backend expands inline (v_exp_f32 and v_log_f32 with
        denormal scaling, v_sin_f32 of x / 2pi, ...).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the gpu.module is compiled for">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // FLY_PIPELINE_PASSES_TD
