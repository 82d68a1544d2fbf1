// RUN: fly-opt %s -split-input-file -verify-diagnostics

func.func @static_needs_static_leaves() {
  // expected-error @+1 {{'fly.static' op result type '!fly.int_tuple<(4,?)>' has dynamic leaves}}
  %0 = fly.static : !fly.int_tuple<(4,?)>
  return
}

// -----

func.func @static_needs_an_algebra_type() {
  // expected-error @+1 {{'fly.static' op result #0 must be fly algebra type}}
  %0 = fly.static : i32
  return
}

// -----

func.func @make_int_tuple_count(%a: i32) {
  // expected-error @+1 {{'fly.make_int_tuple' op expects one operand per dynamic leaf of '!fly.int_tuple<(?,?)>' (2), got 1}}
  %0 = fly.make_int_tuple(%a) : (i32) -> !fly.int_tuple<(?,?)>
  return
}

// -----

func.func @make_int_tuple_width(%a: i32) {
  // expected-error @+1 {{'fly.make_int_tuple' op operand #0 is the dynamic leaf #0 of '!fly.int_tuple<(4,?{i64})>' and must be 'i64', got 'i32'}}
  %0 = fly.make_int_tuple(%a) : (i32) -> !fly.int_tuple<(4,?{i64})>
  return
}

// -----

func.func @make_int_tuple_needs_result_type(%a: i32) {
  // expected-error @+1 {{expected '->' and the result type of 'fly.make_int_tuple'}}
  %0 = fly.make_int_tuple(%a) : (i32)
  return
}

// -----

func.func @make_shape_operand_kind(%a: f32) {
  // expected-error @+1 {{'fly.make_shape' op operand #0 has type 'f32', not a fly type or i32/i64}}
  %0 = fly.make_shape(%a) : (f32)
  return
}

// -----

func.func @make_layout_congruence() {
  %s = fly.static : !fly.int_tuple<(4,8)>
  %d = fly.static : !fly.int_tuple<(1,(4,2))>
  // expected-error @+1 {{layout shape (4,8) and stride (1,(4,2)) are not congruent}}
  %0 = fly.make_layout(%s, %d) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(1,(4,2))>)
  return
}

// -----

func.func @make_layout_wrong_result_type() {
  %s = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+2 {{'fly.make_layout' op inferred type(s) '!fly.layout<(4,8):(1,4)>' are incompatible with return type(s) of operation '!fly.layout<(4,8):(8,1)>'}}
  // expected-error @+1 {{'fly.make_layout' op failed to infer returned types}}
  %0 = fly.make_layout(%s) : (!fly.int_tuple<(4,8)>) -> !fly.layout<(4,8):(8,1)>
  return
}

// -----

func.func @make_layout_operand_kind() {
  %l = fly.static : !fly.layout<4:1>
  // expected-error @+1 {{'fly.make_layout' op does not accept operands (layout)}}
  %0 = fly.make_layout(%l) : (!fly.layout<4:1>)
  return
}

// -----

func.func @make_tile_mode() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.make_tile' op operand #0 must be a layout, a tile or an int_tuple leaf (integer, '?' or '*')}}
  %0 = fly.make_tile(%t) : (!fly.int_tuple<(4,8)>)
  return
}

// -----

func.func @fragment_layout_of_a_dynamic_layout(%n: i32) {
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(4,?)>
  %l = fly.make_layout(%s) : (!fly.int_tuple<(4,?)>)
  // expected-error @+1 {{a fragment layout needs a static layout, got (4,?):(1,4)}}
  %f = fly.make_fragment_layout_like(%l) : (!fly.layout<(4,?):(1,4)>)
  return
}
