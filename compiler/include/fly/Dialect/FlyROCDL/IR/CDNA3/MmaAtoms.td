//===- CDNA3/MmaAtoms.td - CDNA3 MFMA ----------------------*- tablegen -*-===//
//
// Types of FlyROCDLDialect.td's FlyROCDL_CopyOp / FlyROCDL_MmaOp classes;
// implemented in lib/Dialect/FlyROCDL/IR/CDNA3/.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_DIALECT_FLYROCDL_IR_CDNA3_MMAATOMS_TD
#define FLY_DIALECT_FLYROCDL_IR_CDNA3_MMAATOMS_TD

include "fly/Dialect/FlyROCDL/IR/FlyROCDLDialect.td"

def FlyROCDL_MfmaCDNA3 : FlyROCDL_MmaOp<"MfmaCDNA3", "cdna3.mfma", ["getFields"]> {
  let summary = "a dense single-block v_mfma_* of CDNA3 (gfx942; gfx950 keeps them)";
  let description = [{
    `!fly_rocdl.cdna3.mfma<16x16x4, (f32, f32) -> f32>`: D (M x N, of the
    accumulator type) = A (M x K) * B (K x N) + C on one wave64, one block:
    f32 16x16x4 and 32x32x2, f16 and bf16 16x16x16 and 32x32x8, f64
    16x16x4 (into f64), i8 16x16x32 and 32x32x16 (into i32), and the fp8 /
    bf8 pairs at 16x16x32 and 32x32x16, whose element types are the chip's
    encoding (f8E4M3FNUZ / f8E5M2FNUZ on gfx942, f8E4M3FN / f8E5M2 on
    gfx950). The thread-value layouts are AMD's register layouts of the
    instruction (a lane holds a run of K of one row of A and one column of
    B, and strips of rows of one column of C and D).
  }];
  let parameters = (ins "int32_t":$m, "int32_t":$n, "int32_t":$k,
                        "::mlir::Type":$elemA, "::mlir::Type":$elemB,
                        "::mlir::Type":$elemAcc);
  let assemblyFormat = [{
    `<` custom<MNK>($m, $n, $k) `,` `(` $elemA `,` $elemB `)` `->` $elemAcc `>`
  }];
}

#endif // FLY_DIALECT_FLYROCDL_IR_CDNA3_MMAATOMS_TD
