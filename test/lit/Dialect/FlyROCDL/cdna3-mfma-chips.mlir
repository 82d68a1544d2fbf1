// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx1100 -verify-diagnostics > /dev/null

// Which chips have a cdna3.mfma: every MFMA chip (gfx942, gfx950), none of
// the RDNA ones; the fp8 / bf8 forms only where the chip's 8-bit floats
// have the operand types' encoding (FNUZ: gfx942;
// cdna3-mfma-fp8-chips.mlir has the other chips).

func.func @f16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>
  // expected-error @+1 {{MFMA(16, 16, 16, f16) is not available on gfx1100; the chips that have it: gfx942, gfx950}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x16, (f16, f16) -> f32>>, vector<4xf16>, vector<4xf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @i8(%a: vector<8xi8>, %b: vector<8xi8>, %c: vector<4xi32>) -> vector<4xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (i8, i8) -> i32>>
  // expected-error @+1 {{MFMA(16, 16, 32, i8, i32) is not available on gfx1100; the chips that have it: gfx942, gfx950}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (i8, i8) -> i32>>, vector<8xi8>, vector<8xi8>, vector<4xi32>) -> vector<4xi32>
  return %d : vector<4xi32>
}

// -----

func.func @fnuz(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E5M2FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>
  // expected-error @+1 {{MFMA(16, 16, 32, f8E4M3FNUZ, f8E5M2FNUZ) is not available on gfx1100; the chips that have it: gfx942}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E5M2FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}
