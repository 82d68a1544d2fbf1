//===- Passes.h - Conversion of fly to ROCDL --------------------*- C++ -*-===//

#ifndef FLY_CONVERSION_FLYTOROCDL_PASSES_H
#define FLY_CONVERSION_FLYTOROCDL_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fly {

#define GEN_PASS_DECL
#include "fly/Conversion/FlyToROCDL/Passes.h.inc"

/// registerFlyToROCDLPasses(): registers every pass of Passes.td.
#define GEN_PASS_REGISTRATION
#include "fly/Conversion/FlyToROCDL/Passes.h.inc"

} // namespace mlir::fly

#endif // FLY_CONVERSION_FLYTOROCDL_PASSES_H
