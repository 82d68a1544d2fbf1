// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx950 -verify-diagnostics > /dev/null
// RUN: sed -e 's/on gfx950;/on gfx1201;/' %s | fly-opt -split-input-file --convert-fly-to-rocdl=chip=gfx1201 -verify-diagnostics > /dev/null
// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s --check-prefix=GFX1250

// gfx1250.wmma_scale is gfx1250's alone: on gfx950 (which has the scaled
// MFMA) and on gfx1201 (the second run) it is an error naming gfx1250.

// GFX1250: rocdl.wmma.scale.f32.16x16x128.f8f6f4
func.func @fp8_bf8(%a: vector<64xf8E4M3FN>, %b: vector<64xf8E5M2>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E5M2) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>
  // expected-error @+1 {{WMMAScale(16, 16, 128, f8E4M3FN, f8E5M2, block_size=32) is not available on gfx950; the chips that have it: gfx1250}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E5M2) -> f32, opselA = 0, opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>>, vector<64xf8E4M3FN>, vector<64xf8E5M2>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}
