// RUN: fly-opt %s -split-input-file -verify-diagnostics

// gfx1250.tdm's parameters, and the tiles one call may copy.

// expected-error @below {{gfx1250.tdm: the rank is 1 to 5, not 0}}
func.func private @rank0(!fly_rocdl.gfx1250.tdm<rank = 0, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>)

// -----

// expected-error @below {{gfx1250.tdm: the rank is 1 to 5, not 6}}
func.func private @rank6(!fly_rocdl.gfx1250.tdm<rank = 6, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>)

// -----

// expected-error @below {{gfx1250.tdm: the number of waves sharing a tile is a power of two from 1 to 32, not 3}}
func.func private @waves(!fly_rocdl.gfx1250.tdm<rank = 2, warps = 3, pad = 0, 0, cache = 0, barrier = false, timeout = false>)

// -----

// expected-error @below {{gfx1250.tdm: the padding (interval 64, amount 0) is two positive numbers of elements, or none}}
func.func private @pad(!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 64, 0, cache = 0, barrier = false, timeout = false>)

// -----

// expected-error @below {{gfx1250.tdm: the padding interval is a power of two number of elements, not 48}}
func.func private @pad2(!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 48, 4, cache = 0, barrier = false, timeout = false>)

// -----

// expected-error @below {{gfx1250.tdm: the cache policy is the instruction's 5 bits (0..31), not 32}}
func.func private @cache(!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 32, barrier = false, timeout = false>)

// -----

func.func @both_global(%a: !fly.memref<f32, global, (4,8):(8,1)>, %b: !fly.memref<f32, global, (4,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM copies global memory to LDS (tensor_load_to_lds) or LDS to global memory (tensor_store_from_lds): one side global, the other shared}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(8,1)>, !fly.memref<f32, global, (4,8):(8,1)>) -> ()
  return
}

// -----

func.func @registers(%a: !fly.memref<f32, global, (4,8):(8,1)>, %b: !fly.memref<f32, register, (4,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM copies between global memory and LDS (shared memory), not #fly.address_space<register> memory}}
  fly.copy(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(8,1)>, !fly.memref<f32, register, (4,8):(8,1)>) -> ()
  return
}

// -----

func.func @rank_mismatch(%a: !fly.memref<f32, global, (2,4,8):(32,8,1)>, %b: !fly.memref<f32, shared, (2,4,8):(32,8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM: the atom is of rank 2 but the global tile !fly.memref<f32, global, (2,4,8):(32,8,1)> has 3 modes}}
  fly.copy(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (2,4,8):(32,8,1)>, !fly.memref<f32, shared, (2,4,8):(32,8,1)>) -> ()
  return
}

// -----

func.func @not_contiguous(%a: !fly.memref<f32, global, (4,8):(1,4)>, %b: !fly.memref<f32, shared, (4,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{the innermost mode of the global tile !fly.memref<f32, global, (4,8):(1,4)> must have stride 1}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(1,4)>, !fly.memref<f32, shared, (4,8):(8,1)>) -> ()
  return
}

// -----

func.func @lds_layout(%a: !fly.memref<f32, global, (4,8):(100,1)>, %b: !fly.memref<f32, shared, (4,8):(1,4)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM: the LDS tile !fly.memref<f32, shared, (4,8):(1,4)> must have the global tile's shape with the strides (8, 1): packed, innermost mode first}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(100,1)>, !fly.memref<f32, shared, (4,8):(1,4)>) -> ()
  return
}

// -----

func.func @padded_lds(%a: !fly.memref<f32, global, (4,8):(100,1)>, %b: !fly.memref<f32, shared, (4,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 8, 2, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{must have the global tile's shape with the strides (10, 1): packed, innermost mode first, with the atom's padding}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 8, 2, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(100,1)>, !fly.memref<f32, shared, (4,8):(8,1)>) -> ()
  return
}

// -----

func.func @pad_not_a_row(%a: !fly.memref<f32, global, (4,8):(100,1)>, %b: !fly.memref<f32, shared, (4,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 4, 2, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM: the padding interval (4 elements) must be the size of the tile's innermost modes}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 1, pad = 4, 2, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (4,8):(100,1)>, !fly.memref<f32, shared, (4,8):(8,1)>) -> ()
  return
}

// -----

func.func @waves_do_not_divide(%a: !fly.memref<f32, global, (6,8):(8,1)>, %b: !fly.memref<f32, shared, (6,8):(8,1)>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 4, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>
  // expected-error @below {{TDM: the 4 waves split mode 0 of the tile (6) 4 ways, which does not divide it}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 2, warps = 4, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 32>, !fly.memref<f32, global, (6,8):(8,1)>, !fly.memref<f32, shared, (6,8):(8,1)>) -> ()
  return
}

// -----

func.func @too_long(%a: !fly.memref<i8, global, 131072:1>, %b: !fly.memref<i8, shared, 131072:1>) {
  %t = fly.static : !fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 1, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 8>
  // expected-error @below {{TDM: mode 0 of one wave's tile has 131072 elements, more than the 65535 a descriptor holds}}
  fly.copy_atom_call(%t, %a, %b) : (!fly.copy_atom<!fly_rocdl.gfx1250.tdm<rank = 1, warps = 1, pad = 0, 0, cache = 0, barrier = false, timeout = false>, 8>, !fly.memref<i8, global, 131072:1>, !fly.memref<i8, shared, 131072:1>) -> ()
  return
}
