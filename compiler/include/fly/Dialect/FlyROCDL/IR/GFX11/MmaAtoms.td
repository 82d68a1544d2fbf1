//===- GFX11/MmaAtoms.td - RDNA3 WMMA ----------------------*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX11/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_WmmaGFX11 : FlyROCDL_MmaOp<"WmmaGFX11", "gfx11.wmma", ["getFields"]> {
  let summary = "a v_wmma_* of RDNA3 (gfx1100, gfx1101, gfx1102), wave32";
  let description = [{
    `!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32>`: D (16 x 16, of
    the accumulator type) = A (16 x 16) * B (16 x 16) + C on one wave32.
    Lanes 0-15 hold rows 0-15 of A (columns of B) with all of K and lanes
    16-31 hold the same again (the ISA requires A and B replicated across
    the lane halves: the layouts map both halves to the same elements).
    Lane l holds column l % 16 of C and D, rows 2 v + l / 16; a 16-bit
    accumulator sits in the low half of each 32-bit register (opsel 0).
    The integer forms (i8, i4 -> i32) take `, signA`, `, signB` (the
    operand is signed) and `, clamp` (saturate D).
  }];
  let parameters = (ins "int32_t":$m, "int32_t":$n, "int32_t":$k,
                        "::mlir::Type":$elemA, "::mlir::Type":$elemB,
                        "::mlir::Type":$elemAcc, "bool":$signA,
                        "bool":$signB, "bool":$clamp);
  let assemblyFormat = [{
    `<` custom<MNK>($m, $n, $k) `,` `(` $elemA `,` $elemB `)` `->`
    custom<WmmaAcc>($elemAcc, $signA, $signB, $clamp) `>`
  }];
  let extraClassDeclaration = [{
    // custom<WmmaAcc>: the accumulator type and the integer flags after it
    // (GFX11/Wmma.cpp).
    static ::mlir::ParseResult parseWmmaAcc(::mlir::AsmParser &p,
                                            ::mlir::Type &acc, bool &signA,
                                            bool &signB, bool &clamp);
    static void printWmmaAcc(::mlir::AsmPrinter &p, ::mlir::Type acc,
                             bool signA, bool signB, bool clamp);
  }];
}

#endif // FLY_DIALECT_FLYROCDL_IR_GFX11_MMAATOMS_TD
