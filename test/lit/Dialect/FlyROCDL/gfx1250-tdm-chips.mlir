// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx942 -verify-diagnostics > /dev/null
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=RDNA3
// RUN: not fly-opt %s --convert-fly-to-rocdl=chip=gfx1201 2>&1 | FileCheck %s --check-prefix=RDNA4
// RUN: fly-opt %s --convert-fly-to-rocdl=chip=gfx1250 | FileCheck %s --check-prefix=GFX1250

// Which chips have the tensor data mover: gfx1250 only.

// RDNA3: TDM is not available on gfx1100; the chips that have it: gfx1250
// RDNA4: TDM is not available on gfx1201; the chips that have it: gfx1250
// GFX1250: rocdl.tensor.load.to.lds.d2
func.func @load(%gp: !llvm.ptr<1>, %sp: !llvm.ptr<3>) {
  %g = fly.make_ptr(%gp) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %s = fly.make_ptr(%sp) : (!llvm.ptr<3>) -> !fly.ptr<f32, shared>
  %l = fly.static : !fly.layout<(4,8):(8,1)>
  %gv = fly.make_view(%g, %l) : (!fly.ptr<f32, global>, !fly.layout<(4,8):(8,1)>) -> !fly.memref<f32, global, (4,8):(8,1)>
  %sv = fly.make_view(%s, %l) : (!fly.ptr<f32, shared>, !fly.layout<(4,8):(8,1)>) -> !fly.memref<f32, shared, (4,8):(8,1)>
  %a = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @+1 {{TDM is not available on gfx942; the chips that have it: gfx1250}}
  fly.copy_atom_call(%a, %gv, %sv) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(8,1)>, !fly.memref<f32, shared, (4,8):(8,1)>) -> ()
  return
}
