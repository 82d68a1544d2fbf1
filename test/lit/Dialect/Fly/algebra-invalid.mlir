// RUN: fly-opt %s -split-input-file -verify-diagnostics

// complement needs static strides.
func.func @complement_dynamic_stride(%l: !fly.layout<4:?>) {
  // expected-error @+1 {{'fly.complement' op complement of 4:? needs static integer strides}}
  %0 = fly.complement(%l) : (!fly.layout<4:?>)
  return
}

// -----

func.func @complement_cotarget_leaf() {
  %a = fly.static : !fly.layout<4:2>
  %t = fly.static : !fly.int_tuple<(4,2)>
  // expected-error @+1 {{'fly.complement' op the cotarget must be an int_tuple leaf, got (4,2)}}
  %0 = fly.complement(%a, %t) : (!fly.layout<4:2>, !fly.int_tuple<(4,2)>)
  return
}

// -----

// CuTe needs the stride 3 of the right operand and the extent 4 of the
// left one to divide each other (pycute asserts on this input).
func.func @composition_divisibility() {
  %a = fly.static : !fly.layout<(4,3):(1,8)>
  %b = fly.static : !fly.layout<2:3>
  // expected-error @+1 {{'fly.composition' op composition: stride 3 of 2:3 and shape 4 of (4,3):(1,8) do not divide each other}}
  %0 = fly.composition(%a, %b) : (!fly.layout<(4,3):(1,8)>, !fly.layout<2:3>)
  return
}

// -----

func.func @divide_rank_mismatch() {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  %t = fly.static : !fly.tile<[2|2|2]>
  // expected-error @+1 {{'fly.logical_divide' op logical_divide: layout (4,8):(1,4) has rank 2, fewer modes than the tiler's 3}}
  %0 = fly.logical_divide(%a, %t) : (!fly.layout<(4,8):(1,4)>, !fly.tile<[2|2|2]>)
  return
}

// -----

// logical_divide of a layout by itself is ((4,8),1):((1,4),0), not the
// layout itself.
func.func @divide_wrong_result_type() {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  // expected-error @+2 {{'fly.logical_divide' op inferred type(s) '!fly.layout<((4,8),1):((1,4),0)>' are incompatible with return type(s) of operation '!fly.layout<(4,8):(1,4)>'}}
  // expected-error @+1 {{'fly.logical_divide' op failed to infer returned types}}
  %0 = fly.logical_divide(%a, %a) : (!fly.layout<(4,8):(1,4)>, !fly.layout<(4,8):(1,4)>) -> !fly.layout<(4,8):(1,4)>
  return
}

// -----

func.func @blocked_product_of_tile() {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  %t = fly.static : !fly.tile<[2|2]>
  // expected-error @+1 {{'fly.blocked_product' op does not accept operands (layout, tile)}}
  %0 = fly.blocked_product(%a, %t) : (!fly.layout<(4,8):(1,4)>, !fly.tile<[2|2]>)
  return
}

// -----

func.func @recast_bits() {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  // expected-error @+1 {{'fly.recast_layout' op old_bits and new_bits must be positive}}
  %0 = fly.recast_layout(%a) {old_bits = 0 : i64, new_bits = 32 : i64} : (!fly.layout<(4,8):(1,4)>)
  return
}

// -----

func.func @tile_to_shape_divisibility() {
  %a = fly.static : !fly.layout<(2,2):(1,2)>
  %s = fly.static : !fly.int_tuple<(3,6)>
  // expected-error @+1 {{'fly.tile_to_shape' op tile_to_shape: block shape (2,2) does not divide the target shape (3,6)}}
  %0 = fly.tile_to_shape(%a, %s) : (!fly.layout<(2,2):(1,2)>, !fly.int_tuple<(3,6)>)
  return
}
