// RUN: fly-opt %s -split-input-file -verify-diagnostics

func.func @add_rank_mismatch() {
  %a = fly.static : !fly.int_tuple<(4,8)>
  %b = fly.static : !fly.int_tuple<(1,2,3)>
  // expected-error @+1 {{'fly.int_tuple_add' op tuples (4,8) and (1,2,3) have different ranks}}
  %0 = fly.int_tuple_add(%a, %b) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(1,2,3)>)
  return
}

// -----

func.func @div_by_zero() {
  %a = fly.static : !fly.int_tuple<(4,8)>
  %b = fly.static : !fly.int_tuple<(1,0)>
  // expected-error @+1 {{'fly.int_tuple_div' op division by zero}}
  %0 = fly.int_tuple_div(%a, %b) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(1,0)>)
  return
}

// -----

// CuTe's shape_div needs one operand to divide the other.
func.func @shape_div_divisibility() {
  %a = fly.static : !fly.int_tuple<6>
  %b = fly.static : !fly.int_tuple<4>
  // expected-error @+1 {{'fly.shape_div' op shape_div: neither of 6 and 4 divides the other}}
  %0 = fly.shape_div(%a, %b) : (!fly.int_tuple<6>, !fly.int_tuple<4>)
  return
}

// -----

func.func @product_of_none() {
  %a = fly.static : !fly.int_tuple<(4,*)>
  // expected-error @+1 {{'fly.int_tuple_product' op '*' is not a number}}
  %0 = fly.int_tuple_product(%a) : (!fly.int_tuple<(4,*)>)
  return
}

// -----

func.func @operand_kind() {
  %a = fly.static : !fly.int_tuple<(4,8)>
  %l = fly.static : !fly.layout<4:1>
  // expected-error @+1 {{'fly.int_tuple_add' op does not accept operands (int_tuple, layout)}}
  %0 = fly.int_tuple_add(%a, %l) : (!fly.int_tuple<(4,8)>, !fly.layout<4:1>)
  return
}

// -----

func.func @wrong_result_type() {
  %a = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+2 {{'fly.int_tuple_product' op inferred type(s) '!fly.int_tuple<32>' are incompatible with return type(s) of operation '!fly.int_tuple<16>'}}
  // expected-error @+1 {{'fly.int_tuple_product' op failed to infer returned types}}
  %0 = fly.int_tuple_product(%a) : (!fly.int_tuple<(4,8)>) -> !fly.int_tuple<16>
  return
}
