// RUN: fly-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{invalid coordinate swizzle CS<40,0,[1],0,[2]>}}
func.func @too_many_bits(%a: !fly.coord_swizzle<CS<40,0,[1],0,[2]>>) {
  return
}

// -----

// The row and the column must be different leaves.
// expected-error @+1 {{invalid coordinate swizzle CS<2,0,[1],3,[1]>}}
func.func @same_mode(%a: !fly.coord_swizzle<CS<2,0,[1],3,[1]>>) {
  return
}

// -----

// expected-error @+1 {{expected an integer}}
func.func @bad_path(%a: !fly.coord_swizzle<CS<2,0,[x],3,[1]>>) {
  return
}

// -----

// A memref's layout maps to element indices, not to coordinates.
// expected-error @+1 {{a memref's layout must map to element indices; '!fly.composed_layout<CS<2,0,[0],0,[1]> o (0,0) o (4,8):(1E0,1E1)>' maps to coordinates}}
func.func @memref(%a: !fly.memref<f32, global, CS<2,0,[0],0,[1]> o (0,0) o (4,8):(1E0,1E1)>) {
  return
}

// -----

// A path that is not a leaf of the coordinate.
func.func @path_outside(%c: !fly.int_tuple<(1,2)>) {
  %cs = fly.static : !fly.coord_swizzle<CS<1,0,[0],0,[3]>>
  // expected-error @+2 {{'fly.crd2idx' op failed to infer returned types}}
  // expected-error @+1 {{the coordinate swizzle CS<1,0,[0],0,[3]> needs integer leaves at its row and column modes, not (1,2)}}
  %r = fly.crd2idx(%c, %cs) : (!fly.int_tuple<(1,2)>, !fly.coord_swizzle<CS<1,0,[0],0,[3]>>) -> !fly.int_tuple<(1,2)>
  return
}
