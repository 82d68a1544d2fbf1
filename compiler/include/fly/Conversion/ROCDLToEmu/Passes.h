//===- Passes.h - Conversion of ROCDL kernels to emulator code --*- C++ -*-===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_PASSES_H
#define FLY_CONVERSION_ROCDLTOEMU_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fly {

#define GEN_PASS_DECL
#include "fly/Conversion/ROCDLToEmu/Passes.h.inc"

/// registerROCDLToEmuPasses(): registers every pass of Passes.td.
#define GEN_PASS_REGISTRATION
#include "fly/Conversion/ROCDLToEmu/Passes.h.inc"

} // namespace mlir::fly

#endif // FLY_CONVERSION_ROCDLTOEMU_PASSES_H
