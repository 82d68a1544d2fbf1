// RUN: fly-opt %s --fly-layout-lowering --split-input-file | FileCheck %s

// The size of a compact layout with two dynamic extents is their product;
// the unit stride and the stride m of mode 1 need no arithmetic.
// CHECK-LABEL: func.func @size_of_compact
// CHECK-SAME:    (%[[M:.*]]: i32, %[[N:.*]]: i32)
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[M]], %[[N]] : i32
// CHECK-NEXT:    return %[[P]] : i32
func.func @size_of_compact(%m: i32, %n: i32) -> i32 {
  %s = fly.make_int_tuple(%m, %n) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %l = fly.make_layout(%s) : (!fly.int_tuple<(?,?)>) -> !fly.layout<(?,?):(1,?)>
  %z = fly.size(%l) : (!fly.layout<(?,?):(1,?)>) -> !fly.int_tuple<?>
  %v = fly.get_scalar(%z) : (!fly.int_tuple<?>) -> i32
  return %v : i32
}

// -----

// crd2idx through a dynamic leading dimension keeps its divisibility.
// CHECK-LABEL: func.func @offset_keeps_divisibility
// CHECK-SAME:    (%[[LD:.*]]: i32, %[[J:.*]]: i32)
// CHECK:         %[[O:.*]] = arith.muli %[[J]], %[[LD]] : i32
// CHECK:         %[[T:.*]] = fly.make_int_tuple(%[[O]]) : (i32) -> !fly.int_tuple<?{div=16}>
// CHECK:         return %[[T]]
func.func @offset_keeps_divisibility(%ld: i32, %j: i32) -> !fly.int_tuple<?{div=16}> {
  %shape = fly.static : !fly.int_tuple<64>
  %stride = fly.make_int_tuple(%ld) : (i32) -> !fly.int_tuple<?{div=16}>
  %l = fly.make_layout(%shape, %stride) : (!fly.int_tuple<64>, !fly.int_tuple<?{div=16}>) -> !fly.layout<64:?{div=16}>
  %c = fly.make_int_tuple(%j) : (i32) -> !fly.int_tuple<?>
  %o = fly.crd2idx(%c, %l) : (!fly.int_tuple<?>, !fly.layout<64:?{div=16}>) -> !fly.int_tuple<?{div=16}>
  return %o : !fly.int_tuple<?{div=16}>
}

// -----

// A swizzled shared-memory layout: row-major (8,64) under S<3,4,3>; the
// swizzle is x ^ ((x & 0x380) >> 3).
// CHECK-LABEL: func.func @swizzled_offset
// CHECK-SAME:    (%[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK:         %[[C64:.*]] = arith.constant 64 : i32
// CHECK:         %[[ROW:.*]] = arith.muli %[[I]], %[[C64]] : i32
// CHECK:         %[[X:.*]] = arith.addi %[[ROW]], %[[J]] : i32
// CHECK:         %[[MASK:.*]] = arith.constant 896 : i32
// CHECK:         %[[Y:.*]] = arith.andi %[[X]], %[[MASK]] : i32
// CHECK:         %[[C3:.*]] = arith.constant 3 : i32
// CHECK:         %[[Z:.*]] = arith.shrui %[[Y]], %[[C3]] : i32
// CHECK:         %[[S:.*]] = arith.xori %[[X]], %[[Z]] : i32
// CHECK:         return %[[S]] : i32
func.func @swizzled_offset(%i: i32, %j: i32) -> i32 {
  %l = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %c = fly.make_int_tuple(%i, %j) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %o = fly.crd2idx(%c, %l) : (!fly.int_tuple<(?,?)>, !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>) -> !fly.int_tuple<?>
  %v = fly.get_scalar(%o) : (!fly.int_tuple<?>) -> i32
  return %v : i32
}

// -----

// A layout that arrives as an argument is opened with fly.get_leaves
// (shape leaves, then stride leaves); the lowered ops, now dead, are gone.
// CHECK-LABEL: func.func @argument_leaves
// CHECK-NOT:     fly.size
// CHECK-NOT:     fly.get_scalar
// CHECK:         %[[L:.*]]:2 = fly.get_leaves(%arg0) : (!fly.layout<(?,8):(1,?)>) -> (i32, i32)
// CHECK-NOT:     fly.
// CHECK:         %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NOT:     fly.
// CHECK:         %[[P:.*]] = arith.muli %[[L]]#0, %[[C8]] : i32
// CHECK-NEXT:    return %[[P]] : i32
func.func @argument_leaves(%l: !fly.layout<(?,8):(1,?)>) -> i32 {
  %z = fly.size(%l) : (!fly.layout<(?,8):(1,?)>) -> !fly.int_tuple<?{div=8}>
  %v = fly.get_scalar(%z) : (!fly.int_tuple<?{div=8}>) -> i32
  return %v : i32
}

// -----

// Dividing a dynamic extent by a static tile: the number of tiles is a
// ceiling division; the tile mode stays static.
// CHECK-LABEL: func.func @divide_dynamic_extent
// CHECK-SAME:    (%[[M:.*]]: i32)
// CHECK:         %[[C4:.*]] = arith.constant 4 : i32
// CHECK:         %[[N:.*]] = arith.ceildivsi %[[M]], %[[C4]] : i32
// CHECK:         %[[S:.*]] = fly.make_int_tuple(%[[N]]) : (i32) -> !fly.int_tuple<((4,?))>
// CHECK:         %[[D:.*]] = fly.static : !fly.int_tuple<((1,4))>
// CHECK:         fly.make_layout(%[[S]], %[[D]]) : (!fly.int_tuple<((4,?))>, !fly.int_tuple<((1,4))>) -> !fly.layout<((4,?)):((1,4))>
func.func @divide_dynamic_extent(%m: i32) -> !fly.layout<((4,?)):((1,4))> {
  %s = fly.make_int_tuple(%m) : (i32) -> !fly.int_tuple<?>
  %l = fly.make_layout(%s) : (!fly.int_tuple<?>) -> !fly.layout<?:1>
  %t = fly.static : !fly.tile<[4]>
  %d = fly.logical_divide(%l, %t) : (!fly.layout<?:1>, !fly.tile<[4]>) -> !fly.layout<((4,?)):((1,4))>
  return %d : !fly.layout<((4,?)):((1,4))>
}

// -----

// i64 leaves stay i64 through the arithmetic.
// CHECK-LABEL: func.func @wide_leaves
// CHECK-NOT:     fly.
// CHECK:         %[[P:.*]] = arith.muli %arg0, %arg1 : i64
// CHECK-NOT:     fly.
// CHECK:         return %[[P]] : i64
func.func @wide_leaves(%m: i64, %n: i64) -> i64 {
  %t = fly.make_int_tuple(%m, %n) : (i64, i64) -> !fly.int_tuple<(?{i64},?{i64})>
  %z = fly.int_tuple_product(%t) : (!fly.int_tuple<(?{i64},?{i64})>) -> !fly.int_tuple<?{i64}>
  %v = fly.get_scalar(%z) : (!fly.int_tuple<?{i64}>) -> i64
  return %v : i64
}

// -----

// The cosize of a layout with run-time extents is the last coordinate's
// index plus one: no division (the 1-D index's idx2crd would divide).
// CHECK-LABEL: @cosize_without_division
// CHECK-NOT: arith.divsi
// CHECK-NOT: arith.remsi
// CHECK: return
func.func @cosize_without_division(%m: i32, %n: i32, %s: i32) -> i32 {
  %shape = fly.make_int_tuple(%m, %n) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %stride = fly.make_int_tuple(%s) : (i32) -> !fly.int_tuple<(?,1)>
  %l = fly.make_layout(%shape, %stride) : (!fly.int_tuple<(?,?)>, !fly.int_tuple<(?,1)>) -> !fly.layout<(?,?):(?,1)>
  %c = fly.cosize(%l) : (!fly.layout<(?,?):(?,1)>) -> !fly.int_tuple<?>
  %v = fly.get_scalar(%c) : (!fly.int_tuple<?>) -> i32
  return %v : i32
}

// -----

// A stride that is a constant multiple of a dynamic one (a tile mode of a
// divided layout, 128 * s) scales the coordinate first: b * 128 * s, so
// that the terms i * s and (b * 128) * s share the factor s as written and
// LLVM folds the sum into one multiply, (i + b * 128) * s.
// CHECK-LABEL: func.func @tile_stride
// CHECK-SAME:    (%[[S:.*]]: i32, %[[I:.*]]: i32, %[[B:.*]]: i32)
// CHECK:         %[[C128:.*]] = arith.constant 128 : i32
// CHECK:         %[[ROW:.*]] = arith.muli %[[I]], %[[S]] : i32
// CHECK-NEXT:    %[[BC:.*]] = arith.muli %[[B]], %[[C128]] : i32
// CHECK-NEXT:    %[[TILE:.*]] = arith.muli %[[BC]], %[[S]] : i32
// CHECK-NEXT:    %[[O:.*]] = arith.addi %[[ROW]], %[[TILE]] : i32
// CHECK-NEXT:    return %[[O]] : i32
func.func @tile_stride(%s: i32, %i: i32, %b: i32) -> i32 {
  %c128 = arith.constant 128 : i32
  %s128 = arith.muli %s, %c128 : i32
  %shape = fly.static : !fly.int_tuple<(16,8)>
  %stride = fly.make_int_tuple(%s, %s128) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %l = fly.make_layout(%shape, %stride) : (!fly.int_tuple<(16,8)>, !fly.int_tuple<(?,?)>) -> !fly.layout<(16,8):(?,?)>
  %c = fly.make_int_tuple(%i, %b) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %o = fly.crd2idx(%c, %l) : (!fly.int_tuple<(?,?)>, !fly.layout<(16,8):(?,?)>) -> !fly.int_tuple<?>
  %v = fly.get_scalar(%o) : (!fly.int_tuple<?>) -> i32
  return %v : i32
}
