//===- NumericIntrinsics.h - AMDGPU numerics for the emulator ---*- C++ -*-===//
//
// The part of convert-rocdl-to-emu that computes what the chip's numeric
// instructions compute (Passes.td, "Numerics"; the file says what is
// modelled and how closely).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_NUMERICINTRINSICS_H
#define FLY_CONVERSION_ROCDLTOEMU_NUMERICINTRINSICS_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::fly {

/// Whether `op` is lowered by lowerNumericInstructions: a ROCDL
/// transcendental (`rocdl.exp2`, `log`, `rcp`, `sqrt`, `sin`, `cos`,
/// `tanh`, and `rocdl.exp`, which is always an error), an
/// `llvm.call_intrinsic` of `llvm.amdgcn.{exp2,log,rcp,rsq,sqrt,sin,cos,
/// tanh}[.TYPE]`, or a generic intrinsic the AMDGPU backend expands
/// differently from the host (`llvm.sin`, `llvm.cos`, `llvm.pow`).
bool isNumericInstruction(Operation *op);

/// The error message (after the op's name) of a numeric instruction the
/// emulator cannot run, or "".
std::string unsupportedNumericForm(Operation *op);

/// Replaces every numeric instruction under `root` (each one checked
/// first) by host LLVM ops computing its result; they need no emulator
/// context, so this works in any function.
void lowerNumericInstructions(Operation *root);

} // namespace mlir::fly

#endif // FLY_CONVERSION_ROCDLTOEMU_NUMERICINTRINSICS_H
