// RUN: fly-opt %s -split-input-file | FileCheck %s

// A chain prints flat; FlyDSL's bracketed composed outer parses into it.
// CHECK-LABEL: @chains
// CHECK-SAME: !fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>
// CHECK-SAME: !fly.composed_layout<32:2 o 0 o 32:1 o 0 o (4,8):(1,4)>
// CHECK-SAME: !fly.composed_layout<(32,8):(1,64) o 0 o S<1,4,4> o 0 o S<1,3,6> o 2 o 256:1>
func.func @chains(%a: !fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>,
                  %b: !fly.composed_layout<32:2 o 0 o [32:1 o 0 o (4,8):(1,4)]>,
                  %c: !fly.composed_layout<(32,8):(1,64) o 0 o [S<1,4,4> o 0 o [S<1,3,6> o 2 o 256:1]]>) {
  return
}

// -----

// make_composed_layout flattens a composed layout on either side;
// crd2idx applies the chain from the outer end: 1000 -> S<1,3,6> -> 1000,
// -> S<1,4,4> -> 1008.
// CHECK-LABEL: @compose
func.func @compose() -> !fly.int_tuple<1008> {
  %hi = fly.static : !fly.swizzle<S<1,4,4>>
  %lo = fly.static : !fly.swizzle<S<1,3,6>>
  %z = fly.static : !fly.int_tuple<0>
  %l = fly.static : !fly.layout<4096:1>
  // CHECK: -> !fly.composed_layout<S<1,3,6> o 0 o 4096:1>
  %c1 = fly.make_composed_layout(%lo, %z, %l) : (!fly.swizzle<S<1,3,6>>, !fly.int_tuple<0>, !fly.layout<4096:1>) -> !fly.composed_layout<S<1,3,6> o 0 o 4096:1>
  // CHECK: -> !fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>
  %c2 = fly.make_composed_layout(%hi, %z, %c1) : (!fly.swizzle<S<1,4,4>>, !fly.int_tuple<0>, !fly.composed_layout<S<1,3,6> o 0 o 4096:1>) -> !fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>
  %i = fly.static : !fly.int_tuple<1000>
  // CHECK: fly.crd2idx{{.*}} -> !fly.int_tuple<1008>
  %r = fly.crd2idx(%i, %c2) : (!fly.int_tuple<1000>, !fly.composed_layout<S<1,4,4> o 0 o S<1,3,6> o 0 o 4096:1>) -> !fly.int_tuple<1008>
  return %r : !fly.int_tuple<1008>
}
