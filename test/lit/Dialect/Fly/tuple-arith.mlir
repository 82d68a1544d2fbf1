// RUN: fly-opt %s | fly-opt | FileCheck %s

// Tuple arithmetic (SPEC §2.3): elementwise on congruent tuples, a leaf
// operand broadcasts; elem_less / equal give a 0/1 leaf.

// CHECK-LABEL: func.func @elementwise
// CHECK:         fly.int_tuple_add{{.*}} -> !fly.int_tuple<(5,(10,5))>
// CHECK:         fly.int_tuple_sub{{.*}} -> !fly.int_tuple<(3,(6,-1))>
// CHECK:         fly.int_tuple_mul{{.*}} -> !fly.int_tuple<(4,(16,6))>
// CHECK:         fly.int_tuple_div{{.*}} -> !fly.int_tuple<(4,(4,0))>
// CHECK:         fly.int_tuple_mod{{.*}} -> !fly.int_tuple<(0,(0,2))>
// CHECK:         fly.int_tuple_add{{.*}} -> !fly.int_tuple<(6,(10,4))>
func.func @elementwise() {
  %a = fly.static : !fly.int_tuple<(4,(8,2))>
  %b = fly.static : !fly.int_tuple<(1,(2,3))>
  %0 = fly.int_tuple_add(%a, %b) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<(1,(2,3))>)
  %1 = fly.int_tuple_sub(%a, %b) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<(1,(2,3))>)
  %2 = fly.int_tuple_mul(%a, %b) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<(1,(2,3))>)
  %3 = fly.int_tuple_div(%a, %b) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<(1,(2,3))>)
  %4 = fly.int_tuple_mod(%a, %b) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<(1,(2,3))>)
  %two = fly.static : !fly.int_tuple<2>
  %5 = fly.int_tuple_add(%a, %two) : (!fly.int_tuple<(4,(8,2))>, !fly.int_tuple<2>)
  return
}

// Divisibility of a dynamic x = 8k: x+12, x-12 and x mod 12 are multiples
// of gcd(8,12) = 4; 4x of 32; x/4 = 2k of 2.
// CHECK-LABEL: func.func @divisibility
// CHECK:         fly.int_tuple_add{{.*}} -> !fly.int_tuple<?{div=4}>
// CHECK:         fly.int_tuple_sub{{.*}} -> !fly.int_tuple<?{div=4}>
// CHECK:         fly.int_tuple_mod{{.*}} -> !fly.int_tuple<?{div=4}>
// CHECK:         fly.int_tuple_mul{{.*}} -> !fly.int_tuple<?{div=32}>
// CHECK:         fly.int_tuple_div{{.*}} -> !fly.int_tuple<?{div=2}>
// CHECK:         fly.int_tuple_mul{{.*}} -> !fly.int_tuple<?{i64 div=8}>
func.func @divisibility(%m: i32, %w: i64) {
  %x = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<?{div=8}>
  %c12 = fly.static : !fly.int_tuple<12>
  %c4 = fly.static : !fly.int_tuple<4>
  %0 = fly.int_tuple_add(%x, %c12) : (!fly.int_tuple<?{div=8}>, !fly.int_tuple<12>)
  %1 = fly.int_tuple_sub(%x, %c12) : (!fly.int_tuple<?{div=8}>, !fly.int_tuple<12>)
  %2 = fly.int_tuple_mod(%x, %c12) : (!fly.int_tuple<?{div=8}>, !fly.int_tuple<12>)
  %3 = fly.int_tuple_mul(%x, %c4) : (!fly.int_tuple<?{div=8}>, !fly.int_tuple<4>)
  %4 = fly.int_tuple_div(%x, %c4) : (!fly.int_tuple<?{div=8}>, !fly.int_tuple<4>)
  %y = fly.make_int_tuple(%w) : (i64) -> !fly.int_tuple<?{i64 div=2}>
  %5 = fly.int_tuple_mul(%y, %c4) : (!fly.int_tuple<?{i64 div=2}>, !fly.int_tuple<4>)
  return
}

// CHECK-LABEL: func.func @products
// CHECK:         fly.int_tuple_product{{.*}} -> !fly.int_tuple<64>
// CHECK:         fly.int_tuple_product_each{{.*}} -> !fly.int_tuple<(4,16)>
// CHECK:         fly.int_tuple_product{{.*}} -> !fly.int_tuple<?{div=4}>
func.func @products(%m: i32) {
  %a = fly.static : !fly.int_tuple<(4,(8,2))>
  %0 = fly.int_tuple_product(%a) : (!fly.int_tuple<(4,(8,2))>)
  %1 = fly.int_tuple_product_each(%a) : (!fly.int_tuple<(4,(8,2))>)
  %d = fly.make_int_tuple(%m, %m) : (i32, i32) -> !fly.int_tuple<(?,?{div=4})>
  %2 = fly.int_tuple_product(%d) : (!fly.int_tuple<(?,?{div=4})>)
  return
}

// shape_div divides along the modes (CuTe: shape_div((12,8),6) = (2,8));
// ceil_div of congruent tuples is elementwise.
// CHECK-LABEL: func.func @divides
// CHECK:         fly.shape_div{{.*}} -> !fly.int_tuple<(2,8)>
// CHECK:         fly.shape_div{{.*}} -> !fly.int_tuple<(3,4)>
// CHECK:         fly.ceil_div{{.*}} -> !fly.int_tuple<(4,3)>
func.func @divides() {
  %s = fly.static : !fly.int_tuple<(12,8)>
  %six = fly.static : !fly.int_tuple<6>
  %0 = fly.shape_div(%s, %six) : (!fly.int_tuple<(12,8)>, !fly.int_tuple<6>)
  %t = fly.static : !fly.int_tuple<(4,2)>
  %1 = fly.shape_div(%s, %t) : (!fly.int_tuple<(12,8)>, !fly.int_tuple<(4,2)>)
  %x = fly.static : !fly.int_tuple<(7,9)>
  %y = fly.static : !fly.int_tuple<(2,4)>
  %2 = fly.ceil_div(%x, %y) : (!fly.int_tuple<(7,9)>, !fly.int_tuple<(2,4)>)
  return
}

// CHECK-LABEL: func.func @comparisons
// CHECK:         fly.elem_less{{.*}} -> !fly.int_tuple<1>
// CHECK:         fly.elem_less{{.*}} -> !fly.int_tuple<0>
// CHECK:         fly.equal{{.*}} -> !fly.int_tuple<1>
// CHECK:         fly.equal{{.*}} -> !fly.int_tuple<0>
// CHECK:         fly.equal{{.*}} -> !fly.int_tuple<0>
// CHECK:         fly.elem_less{{.*}} -> !fly.int_tuple<?>
func.func @comparisons(%m: i32) {
  %p = fly.static : !fly.int_tuple<(3,4)>
  %q = fly.static : !fly.int_tuple<(4,5)>
  %r = fly.static : !fly.int_tuple<(3,5)>
  %n = fly.static : !fly.int_tuple<(4,(8,2))>
  %0 = fly.elem_less(%p, %q) : (!fly.int_tuple<(3,4)>, !fly.int_tuple<(4,5)>)
  %1 = fly.elem_less(%r, %q) : (!fly.int_tuple<(3,5)>, !fly.int_tuple<(4,5)>)
  %2 = fly.equal(%q, %q) : (!fly.int_tuple<(4,5)>, !fly.int_tuple<(4,5)>)
  %3 = fly.equal(%p, %q) : (!fly.int_tuple<(3,4)>, !fly.int_tuple<(4,5)>)
  // Tuples of different structure are unequal.
  %4 = fly.equal(%p, %n) : (!fly.int_tuple<(3,4)>, !fly.int_tuple<(4,(8,2))>)
  %d = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<(?,4)>
  %5 = fly.elem_less(%d, %q) : (!fly.int_tuple<(?,4)>, !fly.int_tuple<(4,5)>)
  return
}
