// RUN: fly-opt %s -split-input-file | FileCheck %s
// RUN: fly-opt %s -split-input-file --fly-layout-lowering | FileCheck %s --check-prefix=LOWER

// The type round-trips in FlyDSL's spelling (mode paths as `[0, 1]`).
// CHECK-LABEL: @types
// CHECK-SAME: !fly.coord_swizzle<CS<3,0,[1],0,[2]>>
// CHECK-SAME: !fly.coord_swizzle<CS<1,0,[0, 1],1,[1, 0]>>
// CHECK-SAME: !fly.coord_swizzle<CS<0,0,[],0,[]>>
// CHECK-SAME: !fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>
func.func @types(%a: !fly.coord_swizzle<CS<3, 0, [1], 0, [2]>>,
                 %b: !fly.coord_swizzle<CS<1,0,[0,1],1,[1,0]>>,
                 %c: !fly.coord_swizzle<CS<0,0,[],0,[]>>,
                 %d: !fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>) {
  return
}

// -----

// Type inference: make_composed_layout takes a coordinate swizzle as its
// inner function; crd2idx through it (or through the swizzle alone) folds
// static coordinates: col ^= ((row >> 0) & 7) << 0 with row = mode 1 and
// col = mode 2, so (1,5,3) -> (1,5,3^5).
// CHECK-LABEL: @infer
func.func @infer() -> (!fly.int_tuple<(1,5,6)>, !fly.int_tuple<(3,7,7)>) {
  %cs = fly.static : !fly.coord_swizzle<CS<3,0,[1],0,[2]>>
  %off = fly.static : !fly.int_tuple<(0,0,0)>
  %outer = fly.static : !fly.layout<(4,8,8):(1E0,1E1,1E2)>
  // CHECK: fly.make_composed_layout
  // CHECK-SAME: -> !fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>
  %cl = fly.make_composed_layout(%cs, %off, %outer)
      : (!fly.coord_swizzle<CS<3,0,[1],0,[2]>>, !fly.int_tuple<(0,0,0)>,
         !fly.layout<(4,8,8):(1E0,1E1,1E2)>)
      -> !fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>
  %c1 = fly.static : !fly.int_tuple<(1,5,3)>
  // CHECK: fly.crd2idx{{.*}} -> !fly.int_tuple<(1,5,6)>
  %r1 = fly.crd2idx(%c1, %cl)
      : (!fly.int_tuple<(1,5,3)>,
         !fly.composed_layout<CS<3,0,[1],0,[2]> o (0,0,0) o (4,8,8):(1E0,1E1,1E2)>)
      -> !fly.int_tuple<(1,5,6)>
  %c2 = fly.static : !fly.int_tuple<(3,7,0)>
  // CHECK: fly.crd2idx{{.*}} -> !fly.int_tuple<(3,7,7)>
  %r2 = fly.crd2idx(%c2, %cs)
      : (!fly.int_tuple<(3,7,0)>, !fly.coord_swizzle<CS<3,0,[1],0,[2]>>)
      -> !fly.int_tuple<(3,7,7)>
  return %r1, %r2 : !fly.int_tuple<(1,5,6)>, !fly.int_tuple<(3,7,7)>
}

// -----

// A dynamic row and column: the swizzle lowers to shift, and, xor on the
// column; the row passes through. CS<2,1,[0],2,[1]>: col ^ (((row >> 1) & 3) << 2).
// LOWER-LABEL: @dynamic
// LOWER-SAME: (%[[ROW:.*]]: i32, %[[COL:.*]]: i32)
// LOWER: %[[SH:.*]] = arith.shrui %[[ROW]], %{{.*}} : i32
// LOWER: %[[AND:.*]] = arith.andi %[[SH]], %{{.*}} : i32
// LOWER: %[[UP:.*]] = arith.shli %[[AND]], %{{.*}} : i32
// LOWER: %[[X:.*]] = arith.xori %[[COL]], %[[UP]] : i32
// LOWER: return %[[ROW]], %[[X]]
func.func @dynamic(%row: i32, %col: i32) -> (i32, i32) {
  %crd = fly.make_int_tuple(%row, %col) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %cs = fly.static : !fly.coord_swizzle<CS<2,1,[0],2,[1]>>
  %r = fly.crd2idx(%crd, %cs)
      : (!fly.int_tuple<(?,?)>, !fly.coord_swizzle<CS<2,1,[0],2,[1]>>)
      -> !fly.int_tuple<(?,?)>
  %l:2 = fly.get_leaves(%r) : (!fly.int_tuple<(?,?)>) -> (i32, i32)
  return %l#0, %l#1 : i32, i32
}
