// RUN: fly-opt %s | fly-opt | FileCheck %s

// The layout algebra (SPEC §2.4). Every expected type is pycute's result
// (CuTe's reference implementation) for the same static inputs.

// CHECK-LABEL: func.func @coalesce
// CHECK:         -> !fly.layout<12:1>
// CHECK:         -> !fly.layout<32:1>
// CHECK:         -> !fly.layout<(2,6):(1,2)>
func.func @coalesce() {
  %a = fly.static : !fly.layout<(2,(1,6)):(1,(6,2))>
  %0 = fly.coalesce(%a) : (!fly.layout<(2,(1,6)):(1,(6,2))>)
  %b = fly.static : !fly.layout<(4,8):(1,4)>
  %1 = fly.coalesce(%b) : (!fly.layout<(4,8):(1,4)>)
  // With a profile each mode coalesces separately.
  %p = fly.static : !fly.int_tuple<(1,1)>
  %2 = fly.coalesce(%a, %p) : (!fly.layout<(2,(1,6)):(1,(6,2))>, !fly.int_tuple<(1,1)>)
  return
}

// CHECK-LABEL: func.func @composition
// CHECK:         -> !fly.layout<((2,2),3):((24,2),8)>
// CHECK:         -> !fly.layout<8:2>
// CHECK:         -> !fly.layout<(5,4):(8,2)>
// CHECK:         -> !fly.layout<(3,(2,4)):(236,(26,1))>
// CHECK:         -> !fly.composed_layout<S<3,4,3> o 0 o (8,8):(64,1)>
func.func @composition() {
  %a = fly.static : !fly.layout<(6,2):(8,2)>
  %b = fly.static : !fly.layout<(4,3):(3,1)>
  %0 = fly.composition(%a, %b) : (!fly.layout<(6,2):(8,2)>, !fly.layout<(4,3):(3,1)>)
  %c = fly.static : !fly.layout<(4,8):(1,4)>
  %d = fly.static : !fly.layout<8:2>
  %1 = fly.composition(%c, %d) : (!fly.layout<(4,8):(1,4)>, !fly.layout<8:2>)
  %e = fly.static : !fly.layout<20:2>
  %f = fly.static : !fly.layout<(5,4):(4,1)>
  %2 = fly.composition(%e, %f) : (!fly.layout<20:2>, !fly.layout<(5,4):(4,1)>)
  // A tile composes by mode.
  %g = fly.static : !fly.layout<(12,(4,8)):(59,(13,1))>
  %t = fly.static : !fly.tile<[3:4|8:2]>
  %3 = fly.composition(%g, %t) : (!fly.layout<(12,(4,8)):(59,(13,1))>, !fly.tile<[3:4|8:2]>)
  // A composed layout composes its outer layout.
  %s = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %h = fly.static : !fly.layout<(8,8):(1,8)>
  %4 = fly.composition(%s, %h) : (!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>, !fly.layout<(8,8):(1,8)>)
  return
}

// CHECK-LABEL: func.func @complement
// CHECK:         -> !fly.layout<(2,3):(1,8)>
// CHECK:         -> !fly.layout<3:2>
// CHECK:         -> !fly.layout<1:0>
// CHECK:         -> !fly.layout<2:32>
func.func @complement() {
  %a = fly.static : !fly.layout<4:2>
  %n24 = fly.static : !fly.int_tuple<24>
  %0 = fly.complement(%a, %n24) : (!fly.layout<4:2>, !fly.int_tuple<24>)
  %b = fly.static : !fly.layout<(2,2):(1,6)>
  %1 = fly.complement(%b) : (!fly.layout<(2,2):(1,6)>)
  %c = fly.static : !fly.layout<4:1>
  %2 = fly.complement(%c) : (!fly.layout<4:1>)
  %d = fly.static : !fly.layout<(4,8):(1,4)>
  %n64 = fly.static : !fly.int_tuple<64>
  %3 = fly.complement(%d, %n64) : (!fly.layout<(4,8):(1,4)>, !fly.int_tuple<64>)
  return
}

// CHECK-LABEL: func.func @inverses
// CHECK:         fly.right_inverse{{.*}} -> !fly.layout<(8,4):(4,1)>
// CHECK:         fly.left_inverse{{.*}} -> !fly.layout<(8,4):(4,1)>
// CHECK:         fly.right_inverse{{.*}} -> !fly.layout<32:1>
// CHECK:         fly.right_inverse{{.*}} -> !fly.layout<2:1>
// A broadcast layout has no left inverse; CuTe's construction (followed
// here, unlike pycute's, which stops at the stride-0 mode) still inverts
// the unit-stride mode.
// CHECK:         fly.left_inverse{{.*}} -> !fly.layout<2:1>
func.func @inverses() {
  %a = fly.static : !fly.layout<(4,8):(8,1)>
  %0 = fly.right_inverse(%a) : (!fly.layout<(4,8):(8,1)>)
  %1 = fly.left_inverse(%a) : (!fly.layout<(4,8):(8,1)>)
  %b = fly.static : !fly.layout<(4,8):(1,4)>
  %2 = fly.right_inverse(%b) : (!fly.layout<(4,8):(1,4)>)
  %c = fly.static : !fly.layout<(2,4):(1,4)>
  %3 = fly.right_inverse(%c) : (!fly.layout<(2,4):(1,4)>)
  %z = fly.static : !fly.layout<(2,2):(1,0)>
  %4 = fly.left_inverse(%z) : (!fly.layout<(2,2):(1,0)>)
  return
}

// CHECK-LABEL: func.func @divides
// CHECK:         fly.logical_divide{{.*}} -> !fly.layout<((2,2),(2,3)):((4,1),(2,8))>
// CHECK:         fly.logical_divide{{.*}} -> !fly.layout<((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))>
// CHECK:         fly.zipped_divide{{.*}} -> !fly.layout<((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))>
// CHECK:         fly.tiled_divide{{.*}} -> !fly.layout<((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))>
// CHECK:         fly.flat_divide{{.*}} -> !fly.layout<(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))>
// CHECK:         fly.logical_divide{{.*}} -> !fly.layout<((32,4),(16,4)):((1,32),(128,2048))>
// CHECK:         fly.zipped_divide{{.*}} -> !fly.layout<((32,16),(4,4)):((1,128),(32,2048))>
func.func @divides() {
  %a = fly.static : !fly.layout<(4,2,3):(2,1,8)>
  %b = fly.static : !fly.layout<4:2>
  %0 = fly.logical_divide(%a, %b) : (!fly.layout<(4,2,3):(2,1,8)>, !fly.layout<4:2>)
  %c = fly.static : !fly.layout<(9,(4,8)):(59,(13,1))>
  %t = fly.static : !fly.tile<[3:3|(2,4):(1,8)]>
  %1 = fly.logical_divide(%c, %t) : (!fly.layout<(9,(4,8)):(59,(13,1))>, !fly.tile<[3:3|(2,4):(1,8)]>)
  %2 = fly.zipped_divide(%c, %t) : (!fly.layout<(9,(4,8)):(59,(13,1))>, !fly.tile<[3:3|(2,4):(1,8)]>)
  %3 = fly.tiled_divide(%c, %t) : (!fly.layout<(9,(4,8)):(59,(13,1))>, !fly.tile<[3:3|(2,4):(1,8)]>)
  %4 = fly.flat_divide(%c, %t) : (!fly.layout<(9,(4,8)):(59,(13,1))>, !fly.tile<[3:3|(2,4):(1,8)]>)
  %m = fly.static : !fly.layout<(128,64):(1,128)>
  %tile = fly.static : !fly.tile<[32|16]>
  %5 = fly.logical_divide(%m, %tile) : (!fly.layout<(128,64):(1,128)>, !fly.tile<[32|16]>)
  %6 = fly.zipped_divide(%m, %tile) : (!fly.layout<(128,64):(1,128)>, !fly.tile<[32|16]>)
  return
}

// A dynamic extent divided by a static tile: the tile stays static, the
// number of tiles is dynamic.
// CHECK-LABEL: func.func @divide_dynamic
// CHECK:         fly.logical_divide{{.*}} -> !fly.layout<((4,?)):((1,4))>
func.func @divide_dynamic(%l: !fly.layout<?:1>) {
  %t = fly.static : !fly.tile<[4]>
  %0 = fly.logical_divide(%l, %t) : (!fly.layout<?:1>, !fly.tile<[4]>)
  return
}

// CHECK-LABEL: func.func @products
// CHECK:         fly.logical_product{{.*}} -> !fly.layout<((2,2),(2,3)):((4,1),(2,8))>
// CHECK:         fly.logical_product{{.*}} -> !fly.layout<((2,2),(4,2)):((4,1),(8,2))>
// CHECK:         fly.logical_product{{.*}} -> !fly.layout<((2,3),(5,4)):((5,10),(1,30))>
// CHECK:         fly.zipped_product{{.*}} -> !fly.layout<((2,5),(3,4)):((5,1),(10,30))>
// CHECK:         fly.tiled_product{{.*}} -> !fly.layout<((2,5),3,4):((5,1),10,30)>
// CHECK:         fly.flat_product{{.*}} -> !fly.layout<(2,5,3,4):(5,1,10,30)>
func.func @products() {
  %a = fly.static : !fly.layout<(2,2):(4,1)>
  %b = fly.static : !fly.layout<6:1>
  %0 = fly.logical_product(%a, %b) : (!fly.layout<(2,2):(4,1)>, !fly.layout<6:1>)
  %c = fly.static : !fly.layout<(4,2):(2,1)>
  %1 = fly.logical_product(%a, %c) : (!fly.layout<(2,2):(4,1)>, !fly.layout<(4,2):(2,1)>)
  %d = fly.static : !fly.layout<(2,5):(5,1)>
  %t = fly.static : !fly.tile<[3:5|4:6]>
  %2 = fly.logical_product(%d, %t) : (!fly.layout<(2,5):(5,1)>, !fly.tile<[3:5|4:6]>)
  %3 = fly.zipped_product(%d, %t) : (!fly.layout<(2,5):(5,1)>, !fly.tile<[3:5|4:6]>)
  %4 = fly.tiled_product(%d, %t) : (!fly.layout<(2,5):(5,1)>, !fly.tile<[3:5|4:6]>)
  %5 = fly.flat_product(%d, %t) : (!fly.layout<(2,5):(5,1)>, !fly.tile<[3:5|4:6]>)
  return
}

// blocked_product puts the block first in each mode, raked_product last.
// CHECK-LABEL: func.func @blocked_raked
// CHECK:         fly.blocked_product{{.*}} -> !fly.layout<((2,3),(2,4)):((1,4),(2,12))>
// CHECK:         fly.raked_product{{.*}} -> !fly.layout<((3,2),(4,2)):((4,1),(12,2))>
// CHECK:         fly.raked_product{{.*}} -> !fly.layout<((2,16),(4,4)):((64,1),(128,16))>
func.func @blocked_raked() {
  %a = fly.static : !fly.layout<(2,2):(1,2)>
  %b = fly.static : !fly.layout<(3,4):(1,3)>
  %0 = fly.blocked_product(%a, %b) : (!fly.layout<(2,2):(1,2)>, !fly.layout<(3,4):(1,3)>)
  %1 = fly.raked_product(%a, %b) : (!fly.layout<(2,2):(1,2)>, !fly.layout<(3,4):(1,3)>)
  %thr = fly.static : !fly.layout<(16,4):(1,16)>
  %val = fly.static : !fly.layout<(2,4):(1,2)>
  %2 = fly.raked_product(%thr, %val) : (!fly.layout<(16,4):(1,16)>, !fly.layout<(2,4):(1,2)>)
  return
}

// recast_layout 16 -> 32 bits halves the unit-stride mode and the other
// strides (CuTe upcast<2>).
// CHECK-LABEL: func.func @recast
// CHECK:         fly.recast_layout{{.*}} -> !fly.layout<(2,8):(1,2)>
func.func @recast() {
  %a = fly.static : !fly.layout<(4,8):(1,4)>
  %0 = fly.recast_layout(%a) {old_bits = 16 : i64, new_bits = 32 : i64} : (!fly.layout<(4,8):(1,4)>)
  return
}

// tile_to_shape repeats the block (2,2):(1,2) over (4,6): (2,3) repetitions,
// column-major, or row-major with the order (1,0) (then mode 1 coalesces).
// CHECK-LABEL: func.func @tile_to_shape
// CHECK:         fly.tile_to_shape{{.*}} -> !fly.layout<((2,2),(2,3)):((1,4),(2,8))>
// CHECK:         fly.tile_to_shape{{.*}} -> !fly.layout<((2,2),6):((1,12),2)>
func.func @tile_to_shape() {
  %b = fly.static : !fly.layout<(2,2):(1,2)>
  %s = fly.static : !fly.int_tuple<(4,6)>
  %0 = fly.tile_to_shape(%b, %s) : (!fly.layout<(2,2):(1,2)>, !fly.int_tuple<(4,6)>)
  %o = fly.static : !fly.int_tuple<(1,0)>
  %1 = fly.tile_to_shape(%b, %s, %o) : (!fly.layout<(2,2):(1,2)>, !fly.int_tuple<(4,6)>, !fly.int_tuple<(1,0)>)
  return
}
