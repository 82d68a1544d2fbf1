//===- Passes.h - Passes of the fly dialect ---------------------*- C++ -*-===//

#ifndef FLY_DIALECT_FLY_TRANSFORMS_PASSES_H
#define FLY_DIALECT_FLY_TRANSFORMS_PASSES_H

#include "fly/Dialect/Fly/IR/FlyOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fly {

#define GEN_PASS_DECL
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"

/// registerFlyPasses(): registers every pass of Passes.td.
#define GEN_PASS_REGISTRATION
#include "fly/Dialect/Fly/Transforms/Passes.h.inc"

} // namespace mlir::fly

#endif // FLY_DIALECT_FLY_TRANSFORMS_PASSES_H
