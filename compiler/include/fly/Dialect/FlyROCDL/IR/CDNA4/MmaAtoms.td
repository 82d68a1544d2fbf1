//===- CDNA4/MmaAtoms.td - gfx950 MFMA and scaled MFMA -----*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/CDNA4/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA4_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA4_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_MfmaCDNA4 : FlyROCDL_MmaOp<"MfmaCDNA4", "cdna4.mfma", ["getFields"]> {
  let summary = "a dense v_mfma_* gfx950 added (twice the K of CDNA3's)";
  let description = [{
    `!fly_rocdl.cdna4.mfma<16x16x32, (f16, f16) -> f32>`: the dense
    single-block MFMAs only gfx950 has (16x16x32 and 32x32x16 f16 and
    bf16, 16x16x64 and 32x32x32 i8 into i32), D = A * B + C on one wave64.
    Their register layouts follow CDNA3's: a lane holds a run of K of one
    row of A and one column of B (now 8 or 16 values), and strips of rows
    of one column of C and D.
  }];
  let parameters = (ins "int32_t":$m, "int32_t":$n, "int32_t":$k,
                        "::mlir::Type":$elemA, "::mlir::Type":$elemB,
                        "::mlir::Type":$elemAcc);
  let assemblyFormat = [{
    `<` custom<MNK>($m, $n, $k) `,` `(` $elemA `,` $elemB `)` `->` $elemAcc `>`
  }];
}

def FlyROCDL_MfmaScaleCDNA4 : FlyROCDL_MmaOp<"MfmaScaleCDNA4", "cdna4.mfma_scale",
                                            ["getFields", "getAuxiliaryField"]> {
  let summary = "gfx950's scaled v_mfma_scale_f32_*_f8f6f4";
  let description = [{
    `!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32,
    opsel = (0, 0)>`: D = (A scaled) * (B scaled) + C on one wave64, at
    16x16x128 or 32x32x64, A and B each of the OCP 8-, 6- or 4-bit floats
    (f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN). The run-time fields
    `scale_a` and `scale_b` (i32) hold each lane's E8M0 scales, four to a
    register; opsel picks the byte of each that applies (0..3). A lane holds
    a run of 32 values of K of one row of A and one column of B. In an
    operand group `[a, scale_a]` / `[b, scale_b]` of a gemm or atom call,
    the extra operand sets the field for that call.
  }];
  let parameters = (ins "int32_t":$m, "int32_t":$n, "int32_t":$k,
                        "::mlir::Type":$elemA, "::mlir::Type":$elemB,
                        "::mlir::Type":$elemAcc, "int32_t":$opselA,
                        "int32_t":$opselB);
  let assemblyFormat = [{
    `<` custom<MNK>($m, $n, $k) `,` `(` $elemA `,` $elemB `)` `->` $elemAcc
    `,` `opsel` `=` `(` $opselA `,` $opselB `)` `>`
  }];
}

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA4_MMAATOMS_TD
