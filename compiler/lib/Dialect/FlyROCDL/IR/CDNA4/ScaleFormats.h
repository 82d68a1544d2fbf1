//===- CDNA4/ScaleFormats.h - The f8f6f4 operand formats -------*- C++ -*-===//
//
// The scaled matrix instructions (gfx950's v_mfma_scale_*, gfx1250's
// v_wmma_scale*) name the format of A and B with one code (cbsz / blgp on
// the MFMA, matrix_a_fmt / matrix_b_fmt on the WMMA) and take the operands'
// values packed into 32-bit registers.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLYROCDL_IR_CDNA4_SCALEFORMATS_H
#define FLY_LIB_DIALECT_FLYROCDL_IR_CDNA4_SCALEFORMATS_H

#include "fly/Algebra/Atom.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::fly_rocdl {

/// The code of an OCP 8-, 6- or 4-bit float (0 f8E4M3FN, 1 f8E5M2, 2
/// f6E2M3FN, 3 f6E3M2FN, 4 f4E2M1FN), or -1 for a type they do not take.
inline int32_t f8f6f4FormatCode(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return 0;
  if (isa<Float8E5M2Type>(t))
    return 1;
  if (isa<Float6E2M3FNType>(t))
    return 2;
  if (isa<Float6E3M2FNType>(t))
    return 3;
  if (isa<Float4E2M1FNType>(t))
    return 4;
  return -1;
}

/// The field an operand group's extra operand sets on a scaled matrix
/// atom (`[a, scale_a]`, `[b, scale_b]`): the lane's scales for the call.
inline StringRef scaleFieldOf(::fly::algebra::MmaOperand operand,
                              unsigned index) {
  if (index != 0)
    return {};
  return operand == ::fly::algebra::MmaOperand::A ? "scale_a" : "scale_b";
}

/// A vector of 8-, 6- or 4-bit values as the vector of i32 of its bits.
inline Value packedIntoI32(OpBuilder &b, Location loc, Value v) {
  auto vector = cast<VectorType>(v.getType());
  int64_t bits = vector.getNumElements() *
                 vector.getElementType().getIntOrFloatBitWidth();
  return LLVM::BitcastOp::create(
      b, loc, VectorType::get({bits / 32}, b.getI32Type()), v);
}

} // namespace mlir::fly_rocdl

#endif // FLY_LIB_DIALECT_FLYROCDL_IR_CDNA4_SCALEFORMATS_H
