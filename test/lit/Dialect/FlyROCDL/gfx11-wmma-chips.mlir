// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1201 2>&1 | FileCheck %s --check-prefix=RDNA4
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1250 2>&1 | FileCheck %s --check-prefix=GFX1250
// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx1101 | FileCheck %s --check-prefix=GFX1101

// Which chips have a gfx11.wmma: gfx1100, gfx1101, gfx1102 only; not the
// CDNA chips, nor RDNA4 (whose WMMA has other layouts) or gfx1250.

// RDNA4: WMMA(16, 16, 16, f16, f32) is not available on gfx1201; the chips that have it: gfx1100, gfx1101, gfx1102
// GFX1250: WMMA(16, 16, 16, f16, f32) is not available on gfx1250; the chips that have it: gfx1100, gfx1101, gfx1102
// GFX1101: rocdl.wmma.f32.16x16x16.f16
func.func @f16(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32>>
  // expected-error @+1 {{WMMA(16, 16, 16, f16, f32) is not available on gfx942; the chips that have it: gfx1100, gfx1101, gfx1102}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx11.wmma<16x16x16, (f16, f16) -> f32>>, vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}
