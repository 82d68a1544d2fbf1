// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 -verify-diagnostics -split-input-file > /dev/null
// RUN: sed -e 's/E4M3FNUZ/E4M3FN/g' -e 's/E5M2FNUZ/E5M2/g' -e 's/gfx950;/gfx942;/' -e 's/that have it: gfx942/that have it: gfx950/' %s | fly-opt -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null

// The 8-bit float MFMAs in the other encoding than the chip's: gfx942's
// FNUZ types on gfx950, and (the second run: the same file with the OCP
// types) gfx950's OCP types on gfx942.

func.func @fp8_fp8(%a: vector<8xf8E4M3FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>
  // expected-error @+1 {{MFMA(16, 16, 32, f8E4M3FNUZ) is not available on gfx950; the chips that have it: gfx942}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @bf8_fp8(%a: vector<8xf8E5M2FNUZ>, %b: vector<8xf8E4M3FNUZ>, %c: vector<16xf32>) -> vector<16xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>
  // expected-error @+1 {{MFMA(32, 32, 16, f8E5M2FNUZ, f8E4M3FNUZ) is not available on gfx950; the chips that have it: gfx942}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna3.mfma<32x32x16, (f8E5M2FNUZ, f8E4M3FNUZ) -> f32>>, vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
