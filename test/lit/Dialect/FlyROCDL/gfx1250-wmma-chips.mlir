// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=RDNA3
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1201 2>&1 | FileCheck %s --check-prefix=RDNA4
// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s --check-prefix=GFX1250OK

// Which chips have a gfx1250.wmma: gfx1250 only; not the CDNA chips, nor
// RDNA3 or RDNA4 (whose WMMA have other shapes and layouts).

// RDNA3: WMMA(16, 16, 32, f16, f32) is not available on gfx1100; the chips that have it: gfx1250
// RDNA4: WMMA(16, 16, 32, f16, f32) is not available on gfx1201; the chips that have it: gfx1250
// GFX1250OK: rocdl.wmma.f32.16x16x32.f16
func.func @f16(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f32>>
  // expected-error @+1 {{WMMA(16, 16, 32, f16, f32) is not available on gfx942; the chips that have it: gfx1250}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx1250.wmma<16x16x32, (f16, f16) -> f32>>, vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}
