// RUN: fly-opt %s --fly-int-swizzle-simplify --split-input-file | FileCheck %s
// RUN: fly-opt %s --fly-layout-lowering --fly-int-swizzle-simplify --split-input-file | FileCheck %s --check-prefix=LOWERED

// S<3,4,3> as integers: x ^ ((x & 0x380) >> 3) reads and writes bits 4..9,
// so its period is 1024. The tile offset k*2048 and the constant 1024 are
// multiples of it and move behind the swizzle; a stays inside.
// CHECK-LABEL: func.func @pull_multiples
// CHECK-SAME:    (%[[A:.*]]: i32, %[[K:.*]]: i32)
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : i32
// CHECK-DAG:     %[[C2048:.*]] = arith.constant 2048 : i32
// CHECK-DAG:     %[[M:.*]] = arith.constant 896 : i32
// CHECK-DAG:     %[[S:.*]] = arith.constant 3 : i32
// CHECK-DAG:     %[[OFF:.*]] = arith.muli %[[K]], %[[C2048]] : i32
// CHECK:         %[[Y:.*]] = arith.andi %[[A]], %[[M]] : i32
// CHECK:         %[[Z:.*]] = arith.shrui %[[Y]], %[[S]] : i32
// CHECK:         %[[SW:.*]] = arith.xori %[[A]], %[[Z]] : i32
// CHECK:         %[[HIGH:.*]] = arith.addi %[[OFF]], %[[C1024]] : i32
// CHECK:         %[[R:.*]] = arith.addi %[[SW]], %[[HIGH]] : i32
// CHECK:         return %[[R]] : i32
func.func @pull_multiples(%a: i32, %k: i32) -> i32 {
  %c1024 = arith.constant 1024 : i32
  %c2048 = arith.constant 2048 : i32
  %off = arith.muli %k, %c2048 : i32
  %x0 = arith.addi %a, %off : i32
  %x = arith.addi %x0, %c1024 : i32
  %m = arith.constant 896 : i32
  %s = arith.constant 3 : i32
  %y = arith.andi %x, %m : i32
  %z = arith.shrui %y, %s : i32
  %r = arith.xori %x, %z : i32
  return %r : i32
}

// -----

// 512 touches bit 9, which the swizzle reads: nothing moves.
// CHECK-LABEL: func.func @keep_non_multiples
// CHECK:         %[[X:.*]] = arith.addi %arg0, %{{.*}} : i32
// CHECK:         %[[Y:.*]] = arith.andi %[[X]], %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.shrui %[[Y]], %{{.*}} : i32
// CHECK:         %[[R:.*]] = arith.xori %[[X]], %[[Z]] : i32
// CHECK-NEXT:    return %[[R]] : i32
func.func @keep_non_multiples(%a: i32) -> i32 {
  %c512 = arith.constant 512 : i32
  %x = arith.addi %a, %c512 : i32
  %m = arith.constant 896 : i32
  %s = arith.constant 3 : i32
  %y = arith.andi %x, %m : i32
  %z = arith.shrui %y, %s : i32
  %r = arith.xori %x, %z : i32
  return %r : i32
}

// -----

// A left-shifting swizzle (S<2,3,-2>: bits 3..4 into bits 5..6) has period
// 128; k << 7 is a multiple of it.
// CHECK-LABEL: func.func @left_shift_swizzle
// CHECK:         %[[HIGH:.*]] = arith.shli %arg1, %{{.*}} : i32
// CHECK:         %[[Y:.*]] = arith.andi %arg0, %{{.*}} : i32
// CHECK:         %[[Z:.*]] = arith.shli %[[Y]], %{{.*}} : i32
// CHECK:         %[[SW:.*]] = arith.xori %arg0, %[[Z]] : i32
// CHECK:         arith.addi %[[SW]], %[[HIGH]] : i32
func.func @left_shift_swizzle(%a: i32, %k: i32) -> i32 {
  %c7 = arith.constant 7 : i32
  %high = arith.shli %k, %c7 : i32
  %x = arith.addi %a, %high : i32
  %m = arith.constant 24 : i32
  %s = arith.constant 2 : i32
  %y = arith.andi %x, %m : i32
  %z = arith.shli %y, %s : i32
  %r = arith.xori %x, %z : i32
  return %r : i32
}

// -----

// End to end (second RUN line): a swizzled 1-D layout lowered to integers;
// the index x + 1024 becomes swz(x) + 1024.
// LOWERED-LABEL: func.func @lowered_swizzle
// LOWERED:         %[[SW:.*]] = arith.xori %arg0, %{{.*}} : i32
// LOWERED:         %[[R:.*]] = arith.addi %[[SW]], %{{.*}} : i32
// LOWERED:         return %[[R]] : i32
func.func @lowered_swizzle(%x: i32) -> i32 {
  %c1024 = arith.constant 1024 : i32
  %y = arith.addi %x, %c1024 : i32
  %l = fly.static : !fly.composed_layout<S<3,4,3> o 0 o 4096:1>
  %c = fly.make_int_tuple(%y) : (i32) -> !fly.int_tuple<?>
  %o = fly.crd2idx(%c, %l) : (!fly.int_tuple<?>, !fly.composed_layout<S<3,4,3> o 0 o 4096:1>) -> !fly.int_tuple<?>
  %v = fly.get_scalar(%o) : (!fly.int_tuple<?>) -> i32
  return %v : i32
}
