// RUN: fly-opt %s | fly-opt | FileCheck %s

// Construction ops (SPEC §2.3). The result types are CuTe's: compact layouts
// are column-major (LayoutLeft), identity layouts have basis strides.

// make_int_tuple takes the dynamic leaves, depth-first; static leaves are in
// the type.
// CHECK-LABEL: func.func @make_int_tuple
// CHECK:         fly.make_int_tuple(%arg0, %arg1) : (i32, i64) -> !fly.int_tuple<(?,(4,?{i64}))>
// CHECK:         fly.make_int_tuple() : () -> !fly.int_tuple<(4,8)>
// CHECK:         fly.make_int_tuple(%arg0) : (i32) -> !fly.int_tuple<?{div=16}E1>
func.func @make_int_tuple(%a: i32, %b: i64) {
  %0 = fly.make_int_tuple(%a, %b) : (i32, i64) -> !fly.int_tuple<(?,(4,?{i64}))>
  %1 = fly.make_int_tuple() : () -> !fly.int_tuple<(4,8)>
  %2 = fly.make_int_tuple(%a) : (i32) -> !fly.int_tuple<?{div=16}E1>
  return
}

// make_shape / make_stride / make_coord: the tuple of the operands; a scalar
// is a dynamic leaf of its width; one operand is itself.
// CHECK-LABEL: func.func @make_tuples
// CHECK:         fly.make_shape(%arg0, %{{.*}}, %arg1) : (i32, !fly.int_tuple<(4,8)>, i64) -> !fly.int_tuple<(?,(4,8),?{i64})>
// CHECK:         fly.make_stride(%{{.*}}) : (!fly.int_tuple<(4,8)>) -> !fly.int_tuple<(4,8)>
// CHECK:         fly.make_coord(%arg0) : (i32) -> !fly.int_tuple<?>
// CHECK:         fly.make_coord(%{{.*}}, %{{.*}}) : (!fly.int_tuple<*>, !fly.int_tuple<(4,8)>) -> !fly.int_tuple<(*,(4,8))>
func.func @make_tuples(%a: i32, %b: i64) {
  %t = fly.static : !fly.int_tuple<(4,8)>
  %s = fly.static : !fly.int_tuple<*>
  %0 = fly.make_shape(%a, %t, %b) : (i32, !fly.int_tuple<(4,8)>, i64)
  %1 = fly.make_stride(%t) : (!fly.int_tuple<(4,8)>)
  %2 = fly.make_coord(%a) : (i32)
  %3 = fly.make_coord(%s, %t) : (!fly.int_tuple<*>, !fly.int_tuple<(4,8)>)
  return
}

// CHECK-LABEL: func.func @make_layout
// CHECK:         -> !fly.layout<(4,8):(1,4)>
// CHECK:         -> !fly.layout<(4,(2,3)):(1,(4,8))>
// CHECK:         -> !fly.layout<(?,8):(1,?)>
// CHECK:         -> !fly.layout<(4,8):(8,1)>
// CHECK:         -> !fly.layout<(4,8):(8,1)>
func.func @make_layout(%m: i32) {
  %s0 = fly.static : !fly.int_tuple<(4,8)>
  %0 = fly.make_layout(%s0) : (!fly.int_tuple<(4,8)>)
  %s1 = fly.static : !fly.int_tuple<(4,(2,3))>
  %1 = fly.make_layout(%s1) : (!fly.int_tuple<(4,(2,3))>)
  %s2 = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<(?,8)>
  %2 = fly.make_layout(%s2) : (!fly.int_tuple<(?,8)>)
  %d = fly.static : !fly.int_tuple<(8,1)>
  %3 = fly.make_layout(%s0, %d) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(8,1)>)
  // The written result type is checked against the inferred one.
  %4 = fly.make_layout(%s0, %d) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(8,1)>) -> !fly.layout<(4,8):(8,1)>
  return
}

// make_ordered_layout: the mode of order 0 is unit-stride, then order 1, ...
// make_identity_layout: shape:(E0,E1,...), nested bases for nested modes.
// make_layout_like: compact, in the stride order of the source.
// make_fragment_layout_like: compact, mode 0 innermost, the other modes in
// the source's stride order.
// CHECK-LABEL: func.func @derived_layouts
// CHECK:         -> !fly.layout<(4,8,2):(16,1,8)>
// CHECK:         -> !fly.layout<(4,8):(1E0,1E1)>
// CHECK:         -> !fly.layout<(2,(3,4)):(1E0,(1E1E0,1E1E1))>
// CHECK:         -> !fly.layout<(4,8):(8,1)>
// CHECK:         -> !fly.layout<(4,8):(1,4)>
// CHECK:         -> !fly.layout<(2,4,2):(1,4,2)>
func.func @derived_layouts() {
  %s = fly.static : !fly.int_tuple<(4,8,2)>
  %o = fly.static : !fly.int_tuple<(2,0,1)>
  %0 = fly.make_ordered_layout(%s, %o) : (!fly.int_tuple<(4,8,2)>, !fly.int_tuple<(2,0,1)>)
  %s1 = fly.static : !fly.int_tuple<(4,8)>
  %1 = fly.make_identity_layout(%s1) : (!fly.int_tuple<(4,8)>)
  %s2 = fly.static : !fly.int_tuple<(2,(3,4))>
  %2 = fly.make_identity_layout(%s2) : (!fly.int_tuple<(2,(3,4))>)
  %l = fly.static : !fly.layout<(4,8):(16,2)>
  %3 = fly.make_layout_like(%l) : (!fly.layout<(4,8):(16,2)>)
  %4 = fly.make_fragment_layout_like(%l) : (!fly.layout<(4,8):(16,2)>)
  %l3 = fly.static : !fly.layout<(2,4,2):(4,16,2)>
  %5 = fly.make_fragment_layout_like(%l3) : (!fly.layout<(2,4,2):(4,16,2)>)
  return
}

// CHECK-LABEL: func.func @make_composed_layout
// CHECK:         -> !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
// CHECK:         -> !fly.composed_layout<(8,64):(64,1) o (0,?) o (8,8):(1,8)>
func.func @make_composed_layout(%k: i32) {
  %sw = fly.static : !fly.swizzle<S<3,4,3>>
  %zero = fly.static : !fly.int_tuple<0>
  %outer = fly.static : !fly.layout<(8,64):(64,1)>
  %0 = fly.make_composed_layout(%sw, %zero, %outer) : (!fly.swizzle<S<3,4,3>>, !fly.int_tuple<0>, !fly.layout<(8,64):(64,1)>)
  %off = fly.make_int_tuple(%k) : (i32) -> !fly.int_tuple<(0,?)>
  %inner = fly.static : !fly.layout<(8,8):(1,8)>
  %1 = fly.make_composed_layout(%outer, %off, %inner) : (!fly.layout<(8,64):(64,1)>, !fly.int_tuple<(0,?)>, !fly.layout<(8,8):(1,8)>)
  return
}

// make_tile: a static leaf N is N:1, `?` is ?:1, `*` keeps the mode, a
// layout is itself and a tile nests.
// CHECK-LABEL: func.func @make_tile
// CHECK:         -> !fly.tile<[32|*|(2,2):(1,4)|[2|*]]>
// CHECK:         -> !fly.tile<[?:1|16]>
func.func @make_tile(%m: i32) {
  %n = fly.static : !fly.int_tuple<32>
  %keep = fly.static : !fly.int_tuple<*>
  %l = fly.static : !fly.layout<(2,2):(1,4)>
  %t = fly.static : !fly.tile<[2|*]>
  %0 = fly.make_tile(%n, %keep, %l, %t) : (!fly.int_tuple<32>, !fly.int_tuple<*>, !fly.layout<(2,2):(1,4)>, !fly.tile<[2|*]>)
  %d = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<?>
  %s = fly.static : !fly.int_tuple<16>
  %1 = fly.make_tile(%d, %s) : (!fly.int_tuple<?>, !fly.int_tuple<16>)
  return
}
