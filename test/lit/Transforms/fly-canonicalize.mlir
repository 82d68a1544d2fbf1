// RUN: fly-opt %s --fly-canonicalize --split-input-file | FileCheck %s

// A chain of static algebra folds to one fly.static of the result; the
// inputs, now unused, are erased.
// CHECK-LABEL: func.func @static_chain
// CHECK-NEXT:    %[[R:.*]] = fly.static : !fly.layout<((2,2),3):((24,2),8)>
// CHECK-NEXT:    return %[[R]]
func.func @static_chain() -> !fly.layout<((2,2),3):((24,2),8)> {
  %a = fly.static : !fly.layout<(6,2):(8,2)>
  %b = fly.static : !fly.layout<(4,3):(3,1)>
  %r = fly.composition(%a, %b) : (!fly.layout<(6,2):(8,2)>, !fly.layout<(4,3):(3,1)>) -> !fly.layout<((2,2),3):((24,2),8)>
  return %r : !fly.layout<((2,2),3):((24,2),8)>
}

// -----

// get_scalar of a static leaf becomes a constant of the result width.
// CHECK-LABEL: func.func @static_scalar
// CHECK-NEXT:    %[[C:.*]] = arith.constant 32 : i64
// CHECK-NEXT:    return %[[C]]
func.func @static_scalar() -> i64 {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  %s = fly.size(%a) : (!fly.layout<(4,8):(1,4)>) -> !fly.int_tuple<32>
  %v = fly.get_scalar(%s) : (!fly.int_tuple<32>) -> i64
  return %v : i64
}

// -----

// A dynamic result stays; its divisibility comes from the static factor.
// CHECK-LABEL: func.func @dynamic_stays
// CHECK:         %[[T:.*]] = fly.make_int_tuple(%arg0) : (i32) -> !fly.int_tuple<(?,4)>
// CHECK:         fly.size(%[[T]]) : (!fly.int_tuple<(?,4)>) -> !fly.int_tuple<?{div=4}>
func.func @dynamic_stays(%m: i32) -> !fly.int_tuple<?{div=4}> {
  %t = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<(?,4)>
  %z = fly.size(%t) : (!fly.int_tuple<(?,4)>) -> !fly.int_tuple<?{div=4}>
  return %z : !fly.int_tuple<?{div=4}>
}

// -----

// A static result of a dynamic operand folds too: the rank and the stride
// of a compact layout do not depend on the dynamic extent.
// CHECK-LABEL: func.func @static_from_dynamic
// CHECK-DAG:     %[[R:.*]] = fly.static : !fly.int_tuple<2>
// CHECK-DAG:     %[[D:.*]] = fly.static : !fly.int_tuple<(1,8)>
// CHECK-NOT:     fly.make_layout
// CHECK:         return %[[R]], %[[D]]
func.func @static_from_dynamic(%m: i32) -> (!fly.int_tuple<2>, !fly.int_tuple<(1,8)>) {
  %t = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<(8,?)>
  %l = fly.make_layout(%t) : (!fly.int_tuple<(8,?)>) -> !fly.layout<(8,?):(1,8)>
  %r = fly.rank(%l) : (!fly.layout<(8,?):(1,8)>) -> !fly.int_tuple<2>
  %d = fly.get_stride(%l) : (!fly.layout<(8,?):(1,8)>) -> !fly.int_tuple<(1,8)>
  return %r, %d : !fly.int_tuple<2>, !fly.int_tuple<(1,8)>
}
