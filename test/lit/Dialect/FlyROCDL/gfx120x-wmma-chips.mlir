// RUN: fly-opt %s -split-input-file --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=RDNA3
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1250 2>&1 | FileCheck %s --check-prefix=GFX1250
// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx1200 | FileCheck %s --check-prefix=GFX1200

// Which chips have a gfx120x.wmma: gfx1200 and gfx1201 only; not the
// CDNA chips, nor RDNA3 (whose WMMA has other layouts) or gfx1250.

// RDNA3: WMMA(16, 16, 16, f16, f32) is not available on gfx1100; the chips that have it: gfx1200, gfx1201
// GFX1250: WMMA(16, 16, 16, f16, f32) is not available on gfx1250; the chips that have it: gfx1200, gfx1201
// GFX1200: rocdl.wmma.f32.16x16x16.f16
func.func @f16(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = fly.static : !fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f32>>
  // expected-error @+1 {{WMMA(16, 16, 16, f16, f32) is not available on gfx942; the chips that have it: gfx1200, gfx1201}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!fly.mma_atom<!fly_rocdl.gfx120x.wmma<16x16x16, (f16, f16) -> f32>>, vector<8xf16>, vector<8xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}
