//===- GFX120X/MmaAtoms.td - RDNA4 WMMA --------------------*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX120X/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_WmmaGFX120X : FlyROCDL_MmaOp<"WmmaGFX120X", "gfx120x.wmma", ["getFields"]> {
  let summary = "a v_wmma_* of RDNA4 (gfx1200, gfx1201), wave32";
  let description = [{
    `!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f32>`: D = A * B + C
    on one wave32, 16 x 16 x 16 (16 x 16 x 32 for i4). The lane halves
    split K: lane l holds row (of A; column of B) l % 16, of 16-bit
    elements K = 0-3 and 8-11 in lanes 0-15 and K = 4-7 and 12-15 in lanes
    16-31, of 8- and 4-bit ones K / 2 consecutive values from
    (l / 16) * K / 2. Lane l holds column l % 16 of C and D, rows
    8 (l / 16) + v. fp8 and bf8 are the OCP formats (f8E4M3FN, f8E5M2);
    the integer forms take `, signA`, `, signB` and `, clamp`.
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

#endif // FLY_DIALECT_FLYROCDL_IR_GFX120X_MMAATOMS_TD
