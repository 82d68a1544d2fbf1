// RUN: fly-opt %s | fly-opt | FileCheck %s

// Extraction ops (SPEC §2.3) on int_tuples and layouts (same-kind results).

// get_scalar: i32, or i64 for a wide leaf or a static value beyond i32; an
// i32 value may be read as i64 when the type is written.
// CHECK-LABEL: func.func @get_scalar
// CHECK:         fly.get_scalar(%{{.*}}) : (!fly.int_tuple<?{div=4}>) -> i32
// CHECK:         fly.get_scalar(%{{.*}}) : (!fly.int_tuple<?{i64}>) -> i64
// CHECK:         fly.get_scalar(%{{.*}}) : (!fly.int_tuple<8>) -> i32
// CHECK:         fly.get_scalar(%{{.*}}) : (!fly.int_tuple<4294967296>) -> i64
// CHECK:         fly.get_scalar(%{{.*}}) : (!fly.int_tuple<8>) -> i64
func.func @get_scalar(%a: i32, %b: i64) {
  %d = fly.make_int_tuple(%a) : (i32) -> !fly.int_tuple<?{div=4}>
  %0 = fly.get_scalar(%d) : (!fly.int_tuple<?{div=4}>)
  %w = fly.make_int_tuple(%b) : (i64) -> !fly.int_tuple<?{i64}>
  %1 = fly.get_scalar(%w) : (!fly.int_tuple<?{i64}>)
  %s = fly.static : !fly.int_tuple<8>
  %2 = fly.get_scalar(%s) : (!fly.int_tuple<8>)
  %big = fly.static : !fly.int_tuple<4294967296>
  %3 = fly.get_scalar(%big) : (!fly.int_tuple<4294967296>)
  %4 = fly.get_scalar(%s) : (!fly.int_tuple<8>) -> i64
  return
}

// get_leaves: one scalar per dynamic leaf; shape leaves before stride
// leaves. Without dynamic leaves there are no results.
// CHECK-LABEL: func.func @get_leaves
// CHECK:         %{{.*}}:2 = fly.get_leaves(%arg0) : (!fly.layout<(?,8):(1,?{i64})>) -> (i32, i64)
// CHECK:         %{{.*}}:2 = fly.get_leaves(%arg1) : (!fly.int_tuple<(?{i64},(4,?E1))>) -> (i64, i32)
// CHECK:         fly.get_leaves(%{{.*}}) : (!fly.int_tuple<(4,8)>) -> ()
func.func @get_leaves(%l: !fly.layout<(?,8):(1,?{i64})>,
                      %t: !fly.int_tuple<(?{i64},(4,?E1))>) {
  %0:2 = fly.get_leaves(%l) : (!fly.layout<(?,8):(1,?{i64})>)
  %1:2 = fly.get_leaves(%t) : (!fly.int_tuple<(?{i64},(4,?E1))>)
  %s = fly.static : !fly.int_tuple<(4,8)>
  fly.get_leaves(%s) : (!fly.int_tuple<(4,8)>)
  return
}

// CHECK-LABEL: func.func @shape_and_stride
// CHECK:         fly.get_shape(%arg0) : (!fly.layout<(4,(?,2)):(1,(4,?))>) -> !fly.int_tuple<(4,(?,2))>
// CHECK:         fly.get_stride(%arg0) : (!fly.layout<(4,(?,2)):(1,(4,?))>) -> !fly.int_tuple<(1,(4,?))>
func.func @shape_and_stride(%l: !fly.layout<(4,(?,2)):(1,(4,?))>) {
  %0 = fly.get_shape(%l) : (!fly.layout<(4,(?,2)):(1,(4,?))>)
  %1 = fly.get_stride(%l) : (!fly.layout<(4,(?,2)):(1,(4,?))>)
  return
}

// get: the mode at a path (the empty path is the value itself).
// CHECK-LABEL: func.func @get
// CHECK:         {mode = array<i64: 1, 0>} : (!fly.int_tuple<(4,(8,2))>) -> !fly.int_tuple<8>
// CHECK:         {mode = array<i64: 1>} : (!fly.int_tuple<(4,(8,2))>) -> !fly.int_tuple<(8,2)>
// CHECK:         {mode = array<i64>} : (!fly.int_tuple<(4,(8,2))>) -> !fly.int_tuple<(4,(8,2))>
// CHECK:         {mode = array<i64: 1, 0>} : (!fly.layout<(4,(8,2)):(1,(4,32))>) -> !fly.layout<8:4>
// CHECK:         {mode = array<i64: 1>} : (!fly.int_tuple<(?,?{div=4})>) -> !fly.int_tuple<?{div=4}>
func.func @get(%d: !fly.int_tuple<(?,?{div=4})>) {
  %t = fly.static : !fly.int_tuple<(4,(8,2))>
  %l = fly.static : !fly.layout<(4,(8,2)):(1,(4,32))>
  %0 = fly.get(%t) {mode = array<i64: 1, 0>} : (!fly.int_tuple<(4,(8,2))>)
  %1 = fly.get(%t) {mode = array<i64: 1>} : (!fly.int_tuple<(4,(8,2))>)
  %2 = fly.get(%t) {mode = array<i64>} : (!fly.int_tuple<(4,(8,2))>)
  %3 = fly.get(%l) {mode = array<i64: 1, 0>} : (!fly.layout<(4,(8,2)):(1,(4,32))>)
  %4 = fly.get(%d) {mode = array<i64: 1>} : (!fly.int_tuple<(?,?{div=4})>)
  return
}

// take [begin, end) (a tuple even of one mode, as in CuTe), select, group.
// CHECK-LABEL: func.func @take_select_group
// CHECK:         -> !fly.int_tuple<(4,8)>
// CHECK:         -> !fly.layout<(8,2):(4,32)>
// CHECK:         -> !fly.int_tuple<(8)>
// CHECK:         -> !fly.int_tuple<(2,4)>
// CHECK:         -> !fly.layout<(2,4):(32,1)>
// CHECK:         -> !fly.int_tuple<(4,(8,2),3)>
// CHECK:         -> !fly.layout<(4,(8,2),3):(1,(4,32),64)>
func.func @take_select_group() {
  %t3 = fly.static : !fly.int_tuple<(4,8,2)>
  %l3 = fly.static : !fly.layout<(4,8,2):(1,4,32)>
  %t4 = fly.static : !fly.int_tuple<(4,8,2,3)>
  %l4 = fly.static : !fly.layout<(4,8,2,3):(1,4,32,64)>
  %0 = fly.take(%t3) {begin = 0 : i64, end = 2 : i64} : (!fly.int_tuple<(4,8,2)>)
  %1 = fly.take(%l3) {begin = 1 : i64, end = 3 : i64} : (!fly.layout<(4,8,2):(1,4,32)>)
  %2 = fly.take(%t3) {begin = 1 : i64, end = 2 : i64} : (!fly.int_tuple<(4,8,2)>)
  %3 = fly.select(%t3) {modes = array<i64: 2, 0>} : (!fly.int_tuple<(4,8,2)>)
  %4 = fly.select(%l3) {modes = array<i64: 2, 0>} : (!fly.layout<(4,8,2):(1,4,32)>)
  %5 = fly.group(%t4) {begin = 1 : i64, end = 3 : i64} : (!fly.int_tuple<(4,8,2,3)>)
  %6 = fly.group(%l4) {begin = 1 : i64, end = 3 : i64} : (!fly.layout<(4,8,2,3):(1,4,32,64)>)
  return
}

// CHECK-LABEL: func.func @append_prepend
// CHECK:         -> !fly.int_tuple<(4,8,2)>
// CHECK:         -> !fly.int_tuple<(2,4,8)>
// CHECK:         -> !fly.int_tuple<(4,2)>
// CHECK:         -> !fly.layout<(4,8,2):(1,4,32)>
// CHECK:         -> !fly.layout<(2,4,8):(32,1,4)>
func.func @append_prepend() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  %two = fly.static : !fly.int_tuple<2>
  %four = fly.static : !fly.int_tuple<4>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %m = fly.static : !fly.layout<2:32>
  %0 = fly.append(%t, %two) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<2>)
  %1 = fly.prepend(%t, %two) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<2>)
  %2 = fly.append(%four, %two) : (!fly.int_tuple<4>, !fly.int_tuple<2>)
  %3 = fly.append(%l, %m) : (!fly.layout<(4,8):(1,4)>, !fly.layout<2:32>)
  %4 = fly.prepend(%l, %m) : (!fly.layout<(4,8):(1,4)>, !fly.layout<2:32>)
  return
}

// slice keeps the modes where the coordinate is `*`, dice the others; both
// flatten the kept modes into one tuple (CuTe's filter_tuple) and then, as
// FlyDSL's ops do, unwrap it while it has one mode: one kept leaf is a leaf,
// one kept tuple mode is that tuple.
// CHECK-LABEL: func.func @slice_dice
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<4>
// CHECK:         fly.slice{{.*}} -> !fly.layout<4:1>
// CHECK:         fly.dice{{.*}} -> !fly.int_tuple<8>
// CHECK:         fly.dice{{.*}} -> !fly.layout<8:4>
// CHECK:         fly.slice{{.*}} -> !fly.layout<(2,4):(1,6)>
// CHECK:         fly.dice{{.*}} -> !fly.layout<3:2>
func.func @slice_dice() {
  %t = fly.static : !fly.int_tuple<(4,8)>
  %l = fly.static : !fly.layout<(4,8):(1,4)>
  %c = fly.static : !fly.int_tuple<(*,2)>
  %0 = fly.slice(%t, %c) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(*,2)>)
  %1 = fly.slice(%l, %c) : (!fly.layout<(4,8):(1,4)>, !fly.int_tuple<(*,2)>)
  %2 = fly.dice(%t, %c) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(*,2)>)
  %3 = fly.dice(%l, %c) : (!fly.layout<(4,8):(1,4)>, !fly.int_tuple<(*,2)>)
  %n = fly.static : !fly.layout<((2,3),4):((1,2),6)>
  %cn = fly.static : !fly.int_tuple<((*,1),*)>
  %4 = fly.slice(%n, %cn) : (!fly.layout<((2,3),4):((1,2),6)>, !fly.int_tuple<((*,1),*)>)
  %5 = fly.dice(%n, %cn) : (!fly.layout<((2,3),4):((1,2),6)>, !fly.int_tuple<((*,1),*)>)
  return
}

// The unwrapping, case by case (FlyDSL 0.4.2 gives the same types): a kept
// tuple mode under a leaf `*` (a block of zipped_divide), with a dynamic
// coordinate and a dynamic stride; the same mode kept leaf by leaf; every
// enclosing one-mode tuple; a leaf inside a nested mode; two modes kept;
// dice keeping one tuple mode; all `*`; nothing kept (rank 0).
// CHECK-LABEL: func.func @slice_dice_unwrap
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<(16,8)>
// CHECK:         fly.slice{{.*}} -> !fly.layout<(16,8):(?,1)>
// CHECK:         fly.slice{{.*}} -> !fly.layout<(16,8):(?,1)>
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<(4,8)>
// CHECK:         fly.slice{{.*}} -> !fly.layout<8:1>
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<(16,3)>
// CHECK:         fly.dice{{.*}} -> !fly.layout<(2,3):(?,128)>
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<(4,8)>
// CHECK:         fly.slice{{.*}} -> !fly.int_tuple<()>
// CHECK:         fly.dice{{.*}} -> !fly.int_tuple<()>
func.func @slice_dice_unwrap(%s: i32, %b: i32) {
  %t = fly.static : !fly.int_tuple<((16,8),(2,3))>
  %cb = fly.make_int_tuple(%b) : (i32) -> !fly.int_tuple<(*,?)>
  %0 = fly.slice(%t, %cb) : (!fly.int_tuple<((16,8),(2,3))>, !fly.int_tuple<(*,?)>)
  %sh = fly.static : !fly.int_tuple<((16,8),(2,3))>
  %st = fly.make_int_tuple(%s, %s) : (i32, i32) -> !fly.int_tuple<((?,1),(?,128))>
  %l = fly.make_layout(%sh, %st) : (!fly.int_tuple<((16,8),(2,3))>, !fly.int_tuple<((?,1),(?,128))>)
  %1 = fly.slice(%l, %cb) : (!fly.layout<((16,8),(2,3)):((?,1),(?,128))>, !fly.int_tuple<(*,?)>)
  %cf = fly.make_int_tuple(%b) : (i32) -> !fly.int_tuple<((*,*),?)>
  %2 = fly.slice(%l, %cf) : (!fly.layout<((16,8),(2,3)):((?,1),(?,128))>, !fly.int_tuple<((*,*),?)>)
  %d = fly.static : !fly.int_tuple<(((4,8)),2)>
  %c1 = fly.static : !fly.int_tuple<(*,1)>
  %3 = fly.slice(%d, %c1) : (!fly.int_tuple<(((4,8)),2)>, !fly.int_tuple<(*,1)>)
  %cl = fly.static : !fly.int_tuple<((0,*),1)>
  %4 = fly.slice(%l, %cl) : (!fly.layout<((16,8),(2,3)):((?,1),(?,128))>, !fly.int_tuple<((0,*),1)>)
  %cm = fly.static : !fly.int_tuple<((*,0),(1,*))>
  %5 = fly.slice(%t, %cm) : (!fly.int_tuple<((16,8),(2,3))>, !fly.int_tuple<((*,0),(1,*))>)
  %6 = fly.dice(%l, %c1) : (!fly.layout<((16,8),(2,3)):((?,1),(?,128))>, !fly.int_tuple<(*,1)>)
  %p = fly.static : !fly.int_tuple<(4,8)>
  %ca = fly.static : !fly.int_tuple<(*,*)>
  %7 = fly.slice(%p, %ca) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(*,*)>)
  %cz = fly.static : !fly.int_tuple<(1,2)>
  %8 = fly.slice(%p, %cz) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(1,2)>)
  %9 = fly.dice(%p, %ca) : (!fly.int_tuple<(4,8)>, !fly.int_tuple<(*,*)>)
  return
}
