// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null
// RUN: sed -e 's/on gfx942;/on gfx1201;/' %s | fly-opt -split-input-file --convert-fly-to-rocdl=chip=gfx1201 -verify-diagnostics > /dev/null

// A cdna4.mfma is gfx950's alone: on gfx942 (and on an RDNA chip, the
// second run) it is an error naming gfx950.

func.func @f16(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (f16, f16) -> f32>>
  // expected-error @+1 {{MFMA(16, 16, 32, f16) is not available on gfx942; the chips that have it: gfx950}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<16x16x32, (f16, f16) -> f32>>, vector<8xf16>, vector<8xf16>, vector<4xf32>) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @i8(%a: vector<16xi8>, %b: vector<16xi8>, %c: vector<16xi32>) -> vector<16xi32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x32, (i8, i8) -> i32>>
  // expected-error @+1 {{MFMA(32, 32, 32, i8, i32) is not available on gfx942; the chips that have it: gfx950}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.cdna4.mfma<32x32x32, (i8, i8) -> i32>>, vector<16xi8>, vector<16xi8>, vector<16xi32>) -> vector<16xi32>
  return %d : vector<16xi32>
}
