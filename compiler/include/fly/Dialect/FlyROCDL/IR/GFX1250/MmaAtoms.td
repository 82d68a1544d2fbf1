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

def FlyROCDL_WmmaScaleGFX1250 : FlyROCDL_MmaOp<"WmmaScaleGFX1250", "gfx1250.wmma_scale",
                                             ["getFields", "getAuxiliaryField"]> {
  let summary = "gfx1250's MX-scaled v_wmma_scale(16)_f32_{16x16x128_f8f6f4,32x16x128_f4}";
  let description = [{
    `!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32,
    opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false,
    blockSize = 32>`: D = (A scaled) * (B scaled) + C on one wave32, every
    blockSize (32 or 16) values of K of a row of A (column of B) multiplied
    by one E8M0 scale. 16x16x128: A and B each of the OCP 8-, 6- or 4-bit
    floats (f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN); 32x16x128: A
    and B f4E2M1FN. Lane l holds row (column) l % 16 of each 16 rows of an
    operand; its half l / 16 takes every other run of K: runs of 16 values
    of an 8-bit format, of 32 of a 6- or 4-bit one (128 or 192 bits). The
    32-row A of 32x16x128 is two such 16-row halves, rows 16-31 in the
    second half of the registers; C and D likewise (two of gfx1250's dense
    16x16 accumulators). The run-time fields `scale_a` and `scale_b` (i32
    for block 32: byte j scales K = 32 j .. 32 j + 31; i64 for block 16:
    byte j, K = 16 j ..) hold the scales of row (column) i in lane i
    (opsel 0) or lane 16 + i (opsel 1); the 32 rows of 32x16x128's A fill
    the wave (row i in lane i, opselA 0). modC (the C modifier) and
    reuseA / reuseB (register-reuse hints) go to the instruction.
    In an operand group `[a, scale_a]` / `[b, scale_b]` of a gemm or atom
    call, the extra operand sets the field for that call.
  }];
  let parameters = (ins "int32_t":$m, "int32_t":$n, "int32_t":$k,
                        "::mlir::Type":$elemA, "::mlir::Type":$elemB,
                        "::mlir::Type":$elemAcc, "int32_t":$opselA,
                        "int32_t":$opselB, "int32_t":$modC, "bool":$reuseA,
                        "bool":$reuseB, "int32_t":$blockSize);
  let assemblyFormat = [{
    `<` custom<MNK>($m, $n, $k) `,` `(` $elemA `,` $elemB `)` `->` $elemAcc
    `,` `opselA` `=` $opselA `,` `opselB` `=` $opselB `,` `modC` `=` $modC
    `,` `reuseA` `=` $reuseA `,` `reuseB` `=` $reuseB
    `,` `blockSize` `=` $blockSize `>`
  }];
}

#endif // FLY_DIALECT_FLYROCDL_IR_GFX1250_MMAATOMS_TD
