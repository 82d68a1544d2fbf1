//===- CDNA3/Mfma.h - What the MFMA types of CDNA3 and CDNA4 share -*- C++ -*-===//
//
// The dense single-block MFMAs of both generations follow one pattern (a
// lane holds a run of K of one row of A, of one column of B, and strips of
// rows of one column of C), so the two types, cdna3.mfma and cdna4.mfma,
// keep only their instruction tables and chips apart and share the rest.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_MFMA_H
#define FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_MFMA_H

#include "fly/Algebra/Atom.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::fly_rocdl::mfma {

/// An element type of an MFMA operand. Fp8 and Bf8 are E4M3 and E5M2 in
/// either encoding (FNUZ on gfx942, OCP on gfx950): the instruction is the
/// same, the chip decides.
enum class Elem { F32, F16, BF16, F64, I8, Fp8, Bf8 };

/// One instruction: its shape, the element types of A and B (the
/// accumulator's follows: i32 for i8, f64 for f64, f32 otherwise) and the
/// ROCDL op it lowers to.
struct Instr {
  int32_t m, n, k;
  Elem a, b;
  llvm::StringLiteral op;
};

/// The instruction of `table` with this shape and these types, or null.
const Instr *find(llvm::ArrayRef<Instr> table, int32_t m, int32_t n,
                  int32_t k, Type a, Type b, Type acc);

/// "16x16x4 f32, ..., 16x16x32 fp8 bf8": the entries of `table`.
std::string describe(llvm::ArrayRef<Instr> table);

/// Whether a and b are 8-bit floats of `fnuz`'s encoding, or not 8-bit
/// floats at all (what a chip with that fp8 encoding accepts).
bool fp8EncodingIs(Type a, Type b, bool fnuz);

/// The thread-value layouts of an instruction (acc: the accumulator type).
::fly::algebra::MmaAtom traits(::fly::algebra::Arith &ar, int32_t m,
                               int32_t n, int32_t k, Type acc);

/// "MFMA(16, 16, 32, f8E4M3FNUZ)": the Python call of an instruction (the
/// B type and the accumulator when they are not the defaults).
std::string apiName(int32_t m, int32_t n, int32_t k, Type a, Type b,
                    Type acc);

/// The ROCDL op of `instr` on A, B (vectors of their elements, as the
/// atom call holds them) and C, in the operand forms the op takes.
Value emit(OpBuilder &b, Location loc, const Instr &instr, Value atom,
           Value a, Value bv, Value c);

} // namespace mlir::fly_rocdl::mfma

#endif // FLY_LIB_DIALECT_FLYROCDL_IR_CDNA3_MFMA_H
