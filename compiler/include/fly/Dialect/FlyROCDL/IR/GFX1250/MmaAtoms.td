//===- GFX1250/MmaAtoms.td - gfx1250 WMMA and scaled WMMA ---*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/GFX1250/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_WmmaGFX1250 : FlyROCDL_MmaOp<"WmmaGFX1250", "gfx1250.wmma", ["getFields"]> {
  let summary = "a v_wmma_* of gfx1250, wave32";
  let description = [{
    `!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f32>`: D = A * B + C
    on one wave32: 16 x 16 x 4 f32, 16 x 16 x 32 f16 and bf16, 16 x 16 x 64
    and 16 x 16 x 128 fp8/bf8 (OCP), 16 x 16 x 64 iu8. Lane l holds row
    (of A; column of B) l % 16; the lane halves split K in runs of 8
    elements (lanes 0-15 the even runs, 16-31 the odd ones; f32: K = 0-1
    and 2-3). C and D as RDNA4's: column l % 16, rows 8 (l / 16) + v. The
    integer form takes `, signA`, `, signB` and `, clamp`.
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

#endif // FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD
