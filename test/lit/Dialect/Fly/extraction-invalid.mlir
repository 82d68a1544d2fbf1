// RUN: fly-opt %s -split-input-file -verify-diagnostics

func.func @get_out_of_range() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.get' op mode index 3 is out of range for (4,8) of rank 2}}
  %0 = fly.get(%t) {mode = array<i64: 3>} : (!fly.int_tuple<(4,8)>)
  return
}

// -----

// Without the attribute nothing can be inferred...
func.func @get_needs_mode() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.get' op requires an array<i64> attribute 'mode'}}
  %0 = fly.get(%t) : (!fly.int_tuple<(4,8)>)
  return
}

// -----

// ... and with the result type written the verifier reports it.
func.func @get_needs_mode_verifier() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.get' op requires attribute 'mode'}}
  %0 = fly.get(%t) : (!fly.int_tuple<(4,8)>) -> !fly.int_tuple<4>
  return
}

// -----

func.func @take_bad_range() {
  %t = fly.static : !fly.int_tuple<(4,8,2)>
  // expected-error @+1 {{'fly.take' op mode range [2, 1) is invalid for (4,8,2) of rank 3}}
  %0 = fly.take(%t) {begin = 2 : i64, end = 1 : i64} : (!fly.int_tuple<(4,8,2)>)
  return
}

// -----

func.func @take_attr_type() {
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  // expected-error @+1 {{'fly.take' op requires an i64 attribute 'begin'}}
  %0 = fly.take(%l) {begin = 0 : i32, end = 1 : i64} : (!fly.layout<(4,8):(1,4)>)
  return
}

// -----

func.func @select_out_of_range() {
  %t = fly.static : !fly.int_tuple<(4,8,2)>
  // expected-error @+1 {{'fly.select' op mode index 5 is out of range for (4,8,2) of rank 3}}
  %0 = fly.select(%t) {modes = array<i64: 5>} : (!fly.int_tuple<(4,8,2)>)
  return
}

// -----

func.func @get_scalar_of_tuple() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  // expected-error @+1 {{'fly.get_scalar' op expects a single integer leaf, got (4,8)}}
  %0 = fly.get_scalar(%t) : (!fly.int_tuple<(4,8)>)
  return
}

// -----

// An i64 leaf cannot be read as i32.
func.func @get_scalar_narrowing(%b: i64) {
  %w = fly.make_int_tuple(%b) : (i64) -> !fly.int_tuple<?{i64}>
  // expected-error @+2 {{'fly.get_scalar' op inferred type(s) 'i64' are incompatible with return type(s) of operation 'i32'}}
  // expected-error @+1 {{'fly.get_scalar' op failed to infer returned types}}
  %0 = fly.get_scalar(%w) : (!fly.int_tuple<?{i64}>) -> i32
  return
}

// -----

func.func @append_mixed_kinds() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  // expected-error @+1 {{'fly.append' op does not accept operands (int_tuple, layout)}}
  %0 = fly.append(%t, %l) : (!fly.int_tuple<(4,8)>, !fly.layout<(4,8):(1,4)>)
  return
}

// -----

func.func @slice_rank_mismatch() {
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %c = fly.static : !fly.int_tuple<(*,2,1)>
  // expected-error @+1 {{'fly.slice' op coordinate (*,2,1) does not match the modes of}}
  %0 = fly.slice(%l, %c) : (!fly.layout<(4,8):(1,4)>, !fly.int_tuple<(*,2,1)>)
  return
}

// -----

func.func @get_leaves_of_swizzle() {
  %s = fly.static : !fly.swizzle<S<3,4,3>>
  // expected-error @+1 {{'fly.get_leaves' op does not accept operands (swizzle)}}
  %0 = fly.get_leaves(%s) : (!fly.swizzle<S<3,4,3>>)
  return
}
