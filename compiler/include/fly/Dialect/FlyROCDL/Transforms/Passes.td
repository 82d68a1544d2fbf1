//===- Passes.td - Passes on the ROCDL side of FlyDSL ------*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Dialect/FlyROCDL/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_TD
#define FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlyROCDLClusterAttr
    : Pass<"fly-rocdl-cluster-attr", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Turn a kernel's workgroup-cluster shape into the ROCDL "
                "function attribute";
  let description = [{
    A kernel launched in clusters of workgroups carries
    `fly.cluster_dims = array<i32: x, y, z>`. After `convert-gpu-to-rocdl`
    this pass turns it into LLVM's `"amdgpu-cluster-dims"="x,y,z"` in the
    kernel's `passthrough` list, which makes the code generator assume
    (and the runtime launch) that shape. Only chips with workgroup clusters
    (gfx1250) accept it; on any other chip, and for a shape that is not
    three positive sizes, the kernel gets an error.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the module is compiled for">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_TD
