//===- GFX11/Wmma.h - What the WMMA families share ---------------*- C++ -*-===//
//
// The three WMMA generations (gfx11, gfx120x, gfx1250) differ in their
// instruction tables, their register layouts and the operand forms of
// their ROCDL ops; the rest is the same and lives here: the table records,
// finding an instruction, the verifier's messages, the integer flags of the
// assembly format, the Python name, and one lowering parameterised by the
// operand forms. Each family's MmaAtoms.cpp holds its table and layouts.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLYROCDL_IR_GFX11_WMMA_H
#define FLY_LIB_DIALECT_FLYROCDL_IR_GFX11_WMMA_H

#include "fly/Dialect/Fly/IR/FlyAtoms.h"
#include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.h"

#include "mlir/IR/DialectImplementation.h"

namespace mlir::fly_rocdl::wmma {

/// Element types of WMMA operands. IU8 and IU4 are 8- and 4-bit integers
/// whose signedness the instruction's signA / signB flags give; FP8 and BF8
/// are the OCP formats (f8E4M3FN, f8E5M2).
enum class Elem : uint8_t { F32, F16, BF16, IU8, IU4, FP8, BF8, I32 };

/// One instruction: its shape, operand element types and ROCDL op.
struct Form {
  int32_t m, n, k;
  Elem a, b, acc;
  llvm::StringLiteral op;
};

/// What a family's ROCDL ops take.
struct Family {
  llvm::StringLiteral mnemonic; // "gfx11.wmma"
  llvm::StringLiteral name;     // "RDNA3 (gfx11)", for messages
  llvm::ArrayRef<Form> forms;
  bool bf16AsI16;     // bf16 operands as vectors of i16 (the older ops)
  bool acc16InHalves; // a 16-bit C/D in the low half of each 32-bit register
};

bool isElem(Type type, Elem e);
unsigned bitsOf(Elem e);

/// The instruction of `family` with this shape and these types, or null.
const Form *find(const Family &family, int32_t m, int32_t n, int32_t k,
                 Type a, Type b, Type acc);

/// The verifier of a family's type: an instruction with these parameters
/// exists, and the integer flags only on the integer ones.
LogicalResult verify(const Family &family,
                     function_ref<InFlightDiagnostic()> emitError, int32_t m,
                     int32_t n, int32_t k, Type a, Type b, Type acc,
                     bool signA, bool signB, bool clamp);

/// The accumulator type, then `, signA`, `, signB`, `, clamp` (each
/// optional, in any order).
ParseResult parseAccumulator(AsmParser &p, Type &acc, bool &signA,
                             bool &signB, bool &clamp);
void printAccumulator(AsmPrinter &p, Type acc, bool signA, bool signB,
                      bool clamp);

/// "WMMA(16, 16, 16, f16, f32)".
std::string apiName(int32_t m, int32_t n, int32_t k, Type a, Type acc);

/// The thread layout of every WMMA: the 32 lanes of a wave32, in order.
::fly::algebra::Layout lanes32();

/// The ROCDL op of `form` on the register values a, b and c (vectors of the
/// element types, as many as the layouts give a lane), the accumulate field
/// applied to c; d as a vector of the accumulator type.
Value emit(OpBuilder &b, Location loc, const Family &family, const Form &form,
           Value atom, Value a, Value bv, Value c, bool signA, bool signB,
           bool clamp);

} // namespace mlir::fly_rocdl::wmma

#endif // FLY_LIB_DIALECT_FLYROCDL_IR_GFX11_WMMA_H
