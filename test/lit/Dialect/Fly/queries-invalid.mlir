// RUN: fly-opt %s -split-input-file -verify-diagnostics

func.func @crd2idx_rank_mismatch() {
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %x = fly.static : !fly.int_tuple<(3,2,1)>
  // expected-error @+1 {{'fly.crd2idx' op coordinate (3,2,1) is not compatible with shape (4,8)}}
  %0 = fly.crd2idx(%x, %l) : (!fly.int_tuple<(3,2,1)>, !fly.layout<(4,8):(1,4)>)
  return
}

// -----

func.func @idx2crd_rank_mismatch() {
  %i = fly.static : !fly.int_tuple<(1,2)>
  %s = fly.static : !fly.int_tuple<(4,8,2)>
  // expected-error @+1 {{'fly.idx2crd' op index (1,2) is not compatible with shape (4,8,2)}}
  %0 = fly.idx2crd(%i, %s) : (!fly.int_tuple<(1,2)>, !fly.int_tuple<(4,8,2)>)
  return
}

// -----

func.func @size_of_swizzle() {
  %s = fly.static : !fly.swizzle<S<3,4,3>>
  // expected-error @+1 {{'fly.size' op does not accept operands (swizzle)}}
  %0 = fly.size(%s) : (!fly.swizzle<S<3,4,3>>)
  return
}

// -----

func.func @size_wrong_result() {
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  // expected-error @+2 {{'fly.size' op inferred type(s) '!fly.int_tuple<32>' are incompatible with return type(s) of operation '!fly.int_tuple<16>'}}
  // expected-error @+1 {{'fly.size' op failed to infer returned types}}
  %0 = fly.size(%l) : (!fly.layout<(4,8):(1,4)>) -> !fly.int_tuple<16>
  return
}

// -----

// Operand kinds are checked by inference when the result type is left out,
// by the verifier when it is written.
func.func @cosize_of_dynamic_composed(%n: i32) {
  %sw = fly.static : !fly.swizzle<S<1,2,1>>
  %zero = fly.static : !fly.int_tuple<0>
  %s = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<?>
  %outer = fly.make_layout(%s) : (!fly.int_tuple<?>) -> !fly.layout<?:1>
  %c = fly.make_composed_layout(%sw, %zero, %outer) : (!fly.swizzle<S<1,2,1>>, !fly.int_tuple<0>, !fly.layout<?:1>)
  // expected-error @+1 {{cosize of S<1,2,1> o 0 o ?:1 needs a static composed layout with an integer offset}}
  %0 = fly.cosize(%c) : (!fly.composed_layout<S<1,2,1> o 0 o ?:1>)
  return
}

// -----

func.func @cosize_of_tuple() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.cosize' op does not accept operands (int_tuple)}}
  %0 = fly.cosize(%t) : (!fly.int_tuple<(4,8)>)
  return
}

// -----

func.func @cosize_of_tuple_verifier() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.cosize' op operand #0 must be fly layout or composed_layout, but got '!fly.int_tuple<(4,8)>'}}
  %0 = fly.cosize(%t) : (!fly.int_tuple<(4,8)>) -> !fly.int_tuple<32>
  return
}
