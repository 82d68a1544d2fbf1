// RUN: fly-opt %s | fly-opt | FileCheck %s

// Queries (SPEC §2.3); values from CuTe / pycute.

// size of an int_tuple is the product of its leaves; of a composed layout,
// the size of its domain (the outer layout).
// CHECK-LABEL: func.func @size
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<64>
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<32>
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<512>
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<?{div=8}>
func.func @size(%dl: !fly.layout<(?,8):(1,?)>) {
  %t = fly.static : !fly.int_tuple<(4,(8,2))>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %c = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %0 = fly.size(%t) : (!fly.int_tuple<(4,(8,2))>)
  %1 = fly.size(%l) : (!fly.layout<(4,8):(1,4)>)
  %2 = fly.size(%c) : (!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>)
  %3 = fly.size(%dl) : (!fly.layout<(?,8):(1,?)>)
  return
}

// cosize = layout(size - 1) + 1: 3 + 7*5 + 1 = 39, 3*2 + 1 + 2*16 + 1 = 40.
// coshape is an integer for integer strides, a coordinate for basis ones.
// CHECK-LABEL: func.func @cosize_coshape
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<39>
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<40>
// CHECK:         fly.coshape{{.*}} -> !fly.int_tuple<32>
// CHECK:         fly.coshape{{.*}} -> !fly.int_tuple<(4,8)>
func.func @cosize_coshape() {
  %a = fly.static : !fly.layout<(4,8):(1,5)>
  %0 = fly.cosize(%a) : (!fly.layout<(4,8):(1,5)>)
  %b = fly.static : !fly.layout<(4,(2,3)):(2,(1,16))>
  %1 = fly.cosize(%b) : (!fly.layout<(4,(2,3)):(2,(1,16))>)
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %2 = fly.coshape(%l) : (!fly.layout<(4,8):(1,4)>)
  %id = fly.static : !fly.layout<(4,8):(1E0,1E1)>
  %3 = fly.coshape(%id) : (!fly.layout<(4,8):(1E0,1E1)>)
  return
}

// cosize of a composed layout: one past the largest index of the whole
// function. S<1,2,1> xors bit 3 into bit 2: 3:4 reaches 0, 4, 8 -> 12, so
// 13 (the outer layout alone: 9); from offset 1: 1, 5, 9 -> 13, so 14. A
// swizzle inside a tile it permutes: 16 x 64 row-major -> 1024. A layout
// inside: (8,2):(2,1) over 0..7 reaches 14, so 15.
// CHECK-LABEL: func.func @cosize_composed
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<13>
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<14>
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<1024>
// CHECK:         fly.cosize{{.*}} -> !fly.int_tuple<15>
func.func @cosize_composed() {
  %a = fly.static : !fly.composed_layout<S<1,2,1> o 0 o 3:4>
  %0 = fly.cosize(%a) : (!fly.composed_layout<S<1,2,1> o 0 o 3:4>)
  %b = fly.static : !fly.composed_layout<S<1,2,1> o 1 o 3:4>
  %1 = fly.cosize(%b) : (!fly.composed_layout<S<1,2,1> o 1 o 3:4>)
  %c = fly.static : !fly.composed_layout<S<3,2,4> o 0 o (16,64):(64,1)>
  %2 = fly.cosize(%c) : (!fly.composed_layout<S<3,2,4> o 0 o (16,64):(64,1)>)
  %d = fly.static : !fly.composed_layout<(8,2):(2,1) o 0 o 8:1>
  %3 = fly.cosize(%d) : (!fly.composed_layout<(8,2):(2,1) o 0 o 8:1>)
  return
}

// CHECK-LABEL: func.func @rank_depth
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<2>
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<3>
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<1>
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<2>
// CHECK:         fly.depth{{.*}} -> !fly.int_tuple<2>
// CHECK:         fly.depth{{.*}} -> !fly.int_tuple<0>
// CHECK:         fly.depth{{.*}} -> !fly.int_tuple<1>
func.func @rank_depth() {
  %t = fly.static : !fly.int_tuple<(4,(8,2))>
  %l3 = fly.static : !fly.layout<(4,8,2):(1,4,32)>
  %four = fly.static : !fly.int_tuple<4>
  %c = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %0 = fly.rank(%t) : (!fly.int_tuple<(4,(8,2))>)
  %1 = fly.rank(%l3) : (!fly.layout<(4,8,2):(1,4,32)>)
  %2 = fly.rank(%four) : (!fly.int_tuple<4>)
  %3 = fly.rank(%c) : (!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>)
  %4 = fly.depth(%t) : (!fly.int_tuple<(4,(8,2))>)
  %5 = fly.depth(%four) : (!fly.int_tuple<4>)
  %6 = fly.depth(%l) : (!fly.layout<(4,8):(1,4)>)
  return
}

// crd2idx: (3,2) -> 3 + 2*4 = 11; the 1-D coordinate 13 is (1,3) -> 13;
// ((1,2),3) -> 1 + 2*2 + 3*8 = 29. Through S<3,4,3> o 0 o (8,64):(64,1),
// (2,3) -> 131, swizzled 131 ^ ((131 & 0x380) >> 3) = 147. Through an
// identity layout a coordinate maps to itself.
// CHECK-LABEL: func.func @crd2idx
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<11>
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<13>
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<29>
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<147>
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<(2,3)>
// CHECK:         fly.crd2idx{{.*}} -> !fly.int_tuple<?>
func.func @crd2idx(%i: i32, %j: i32, %dl: !fly.layout<(?,8):(1,?)>) {
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %x = fly.static : !fly.int_tuple<(3,2)>
  %0 = fly.crd2idx(%x, %l) : (!fly.int_tuple<(3,2)>, !fly.layout<(4,8):(1,4)>)
  %i13 = fly.static : !fly.int_tuple<13>
  %1 = fly.crd2idx(%i13, %l) : (!fly.int_tuple<13>, !fly.layout<(4,8):(1,4)>)
  %hl = fly.static : !fly.layout<((2,4),8):((1,2),8)>
  %hc = fly.static : !fly.int_tuple<((1,2),3)>
  %2 = fly.crd2idx(%hc, %hl) : (!fly.int_tuple<((1,2),3)>, !fly.layout<((2,4),8):((1,2),8)>)
  %c = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %x23 = fly.static : !fly.int_tuple<(2,3)>
  %3 = fly.crd2idx(%x23, %c) : (!fly.int_tuple<(2,3)>, !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>)
  %id = fly.static : !fly.layout<(4,8):(1E0,1E1)>
  %4 = fly.crd2idx(%x23, %id) : (!fly.int_tuple<(2,3)>, !fly.layout<(4,8):(1E0,1E1)>)
  %dc = fly.make_int_tuple(%i, %j) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %5 = fly.crd2idx(%dc, %dl) : (!fly.int_tuple<(?,?)>, !fly.layout<(?,8):(1,?)>)
  return
}

// idx2crd: 13 in (4,8) is (1,3); 37 in ((2,4),8) is ((1,2),4).
// CHECK-LABEL: func.func @idx2crd
// CHECK:         fly.idx2crd{{.*}} -> !fly.int_tuple<(1,3)>
// CHECK:         fly.idx2crd{{.*}} -> !fly.int_tuple<((1,2),4)>
// CHECK:         fly.idx2crd{{.*}} -> !fly.int_tuple<(1,3)>
// CHECK:         fly.idx2crd{{.*}} -> !fly.int_tuple<(?,?)>
func.func @idx2crd(%m: i32) {
  %i13 = fly.static : !fly.int_tuple<13>
  %s = fly.static : !fly.int_tuple<(4,8)>
  %0 = fly.idx2crd(%i13, %s) : (!fly.int_tuple<13>, !fly.int_tuple<(4,8)>)
  %i37 = fly.static : !fly.int_tuple<37>
  %sh = fly.static : !fly.int_tuple<((2,4),8)>
  %1 = fly.idx2crd(%i37, %sh) : (!fly.int_tuple<37>, !fly.int_tuple<((2,4),8)>)
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %2 = fly.idx2crd(%i13, %l) : (!fly.int_tuple<13>, !fly.layout<(4,8):(1,4)>)
  %d = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<?>
  %3 = fly.idx2crd(%d, %s) : (!fly.int_tuple<?>, !fly.int_tuple<(4,8)>)
  return
}
