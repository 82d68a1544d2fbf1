//===- Passes.h - Passes on the ROCDL side of FlyDSL ------------*- C++ -*-===//

#ifndef FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_H
#define FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fly {

#define GEN_PASS_DECL
#include "fly/Dialect/FlyROCDL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fly/Dialect/FlyROCDL/Transforms/Passes.h.inc"

} // namespace mlir::fly

#endif // FLY_DIALECT_FLYROCDL_TRANSFORMS_PASSES_H
