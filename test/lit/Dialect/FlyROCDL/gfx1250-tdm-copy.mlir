// RUN: fly-opt %s --fly-layout-lowering | FileCheck %s

// fly.copy with a whole-tile atom (TDM) is one atom call on the whole
// tensors: fly-layout-lowering neither splits nor coalesces the tile.

// CHECK-LABEL: func.func @whole_tile
// CHECK:         fly.copy_atom_call
// CHECK-SAME:      !fly.memref<f16, global, (2,8,64):(4096,512,1)>
// CHECK-SAME:      !fly.memref<f16, shared, (2,8,64):(512,64,1)>
// CHECK-NOT:     fly.copy_atom_call
func.func @whole_tile(%g: !fly.memref<f16, global, (2,8,64):(4096,512,1)>, %s: !fly.memref<f16, shared, (2,8,64):(512,64,1)>) {
  %a = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 3, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 16>
  fly.copy(%a, %g, %s) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 3, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 16>, !fly.memref<f16, global, (2,8,64):(4096,512,1)>, !fly.memref<f16, shared, (2,8,64):(512,64,1)>) -> ()
  return
}
