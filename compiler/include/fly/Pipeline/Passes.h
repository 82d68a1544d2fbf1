//===- Passes.h - Passes of the pipeline library ----------------*- C++ -*-===//

#ifndef FLY_PIPELINE_PASSES_H
#define FLY_PIPELINE_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fly {

#define GEN_PASS_DECL
#include "fly/Pipeline/Passes.h.inc"

/// registerFlyPipelinePasses(): registers every pass of Passes.td.
#define GEN_PASS_REGISTRATION
#include "fly/Pipeline/Passes.h.inc"

} // namespace mlir::fly

#endif // FLY_PIPELINE_PASSES_H
