// RUN: fly-opt %s -split-input-file -fly-layout-lowering | FileCheck %s
// RUN: fly-opt %s -split-input-file -fly-canonicalize | FileCheck %s --check-prefix=FOLD

// fly-layout-lowering on tensors: the layout part is lowered like any
// layout, the iterator moves by pointer arithmetic (fly.add_offset) or by a
// new base coordinate, and the result is rebuilt as fly.make_view. Memory
// accesses go through the moved pointer (more in
// Transforms/fly-layout-lowering-memory.mlir). A memref that is a block argument is opened with
// fly.get_iter and fly.get_leaves (its layout's leaves: shape, then stride).

// CHECK-LABEL: func.func @slice_argument
// CHECK-SAME:    (%[[M:.*]]: !fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-DAG:     %[[P:.*]] = fly.get_iter(%[[M]]) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>) -> !fly.ptr<f32, global, align<16>>
// CHECK-DAG:     %[[L:.*]]:3 = fly.get_leaves(%[[M]]) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>) -> (i32, i32, i32)
// CHECK-DAG:     %[[OFF:.*]] = arith.muli %[[I]], %[[L]]#2 : i32
// CHECK-DAG:     %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]]) : (i32) -> !fly.int_tuple<?{div=8}>
// CHECK:         %[[Q:.*]] = fly.add_offset(%[[P]], %[[OFFT]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?{div=8}>) -> !fly.ptr<f32, global, align<16>>
// CHECK:         %[[JT:.*]] = fly.make_int_tuple(%[[J]]) : (i32) -> !fly.int_tuple<?>
// CHECK:         %[[E:.*]] = fly.add_offset(%[[Q]], %[[JT]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?>) -> !fly.ptr<f32, global>
// CHECK:         %[[X:.*]] = fly.ptr.load(%[[E]]) : (!fly.ptr<f32, global>) -> f32
// CHECK:         return %[[X]]
func.func @slice_argument(%m: !fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, %i: i32, %j: i32) -> f32 {
  %crd = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %row = fly.slice(%m, %crd) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, !fly.int_tuple<(?,*)>)
  %x = fly.memref.load(%row, %j) : (!fly.memref<f32, global, ?:1, align<16>>, i32)
  return %x : f32
}

// -----

// A view built here keeps its pointer operand; get_iter of it is the
// advanced pointer.
// CHECK-LABEL: func.func @slice_view
// CHECK-SAME:    (%[[P:.*]]: !fly.ptr<f16, shared, align<16>>, %{{.*}}: i32, %[[I:.*]]: i32)
// CHECK:         %[[C8:.*]] = arith.constant 8 : i32
// CHECK:         %[[OFF:.*]] = arith.muli %[[I]], %[[C8]] : i32
// CHECK:         %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]]) : (i32) -> !fly.int_tuple<?{div=8}>
// CHECK:         %[[Q:.*]] = fly.add_offset(%[[P]], %[[OFFT]]) : (!fly.ptr<f16, shared, align<16>>, !fly.int_tuple<?{div=8}>) -> !fly.ptr<f16, shared, align<16>>
// CHECK:         %[[X:.*]] = fly.ptr.load(%[[Q]]) : (!fly.ptr<f16, shared, align<16>>) -> vector<8xf16>
// CHECK:         return %[[X]]
func.func @slice_view(%p: !fly.ptr<f16, shared, align<16>>, %n: i32, %i: i32) -> vector<8xf16> {
  %sh = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(8,?)>
  %l = fly.make_layout(%sh) : (!fly.int_tuple<(8,?)>)
  %v = fly.make_view(%p, %l) : (!fly.ptr<f16, shared, align<16>>, !fly.layout<(8,?):(1,8)>)
  %crd = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(*,?)>
  %col = fly.slice(%v, %crd) : (!fly.memref<f16, shared, (8,?):(1,8), align<16>>, !fly.int_tuple<(*,?)>)
  %q = fly.get_iter(%col) : (!fly.memref<f16, shared, 8:1, align<16>>)
  %x = fly.ptr.load(%q) : (!fly.ptr<f16, shared, align<16>>) -> vector<8xf16>
  return %x : vector<8xf16>
}

// -----

// A swizzled memref keeps its pointer; the offset is the composed layout's.
// CHECK-LABEL: func.func @slice_composed
// CHECK-SAME:    (%[[S:.*]]: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, %[[I:.*]]: i32)
// CHECK-DAG:     %[[P:.*]] = fly.get_iter(%[[S]])
// CHECK-DAG:     %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : i32
// CHECK-DAG:     %[[SW:.*]] = fly.static : !fly.swizzle<S<3,4,3>>
// CHECK-DAG:     %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]]) : (i32) -> !fly.int_tuple<?{div=64}>
// CHECK-DAG:     %[[OUTER:.*]] = fly.static : !fly.layout<64:1>
// CHECK:         %[[C:.*]] = fly.make_composed_layout(%[[SW]], %[[OFFT]], %[[OUTER]])
// CHECK:         %[[V:.*]] = fly.make_view(%[[P]], %[[C]]) : (!fly.ptr<f16, shared, align<16>>, !fly.composed_layout<S<3,4,3> o ?{div=64} o 64:1>) -> !fly.memref<f16, shared, S<3,4,3> o ?{div=64} o 64:1, align<16>>
// CHECK:         return %[[V]]
func.func @slice_composed(%s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, %i: i32)
    -> !fly.memref<f16, shared, S<3,4,3> o ?{div=64} o 64:1, align<16>> {
  %ri = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %0 = fly.slice(%s, %ri) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, !fly.int_tuple<(?,*)>)
  return %0 : !fly.memref<f16, shared, S<3,4,3> o ?{div=64} o 64:1, align<16>>
}

// -----

// A coordinate tensor's base becomes a new int_tuple.
// CHECK-LABEL: func.func @slice_coord
// CHECK-DAG:     %[[L:.*]] = fly.static : !fly.layout<4:1E1>
// CHECK-DAG:     %[[B:.*]] = fly.make_int_tuple(%{{.*}}) : (i32) -> !fly.int_tuple<(?,0)>
// CHECK:         %[[V:.*]] = fly.make_view(%[[B]], %[[L]]) : (!fly.int_tuple<(?,0)>, !fly.layout<4:1E1>) -> !fly.coord_tensor<(?,0), 4:1E1>
// CHECK:         return %[[V]]
func.func @slice_coord(%i: i32) -> !fly.coord_tensor<(?,0), 4:1E1> {
  %z = fly.static : !fly.int_tuple<(0,0)>
  %sh = fly.static : !fly.int_tuple<(16,4)>
  %il = fly.make_identity_layout(%sh) : (!fly.int_tuple<(16,4)>)
  %ct = fly.make_view(%z, %il) : (!fly.int_tuple<(0,0)>, !fly.layout<(16,4):(1E0,1E1)>)
  %crd = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %cs = fly.slice(%ct, %crd) : (!fly.coord_tensor<(0,0), (16,4):(1E0,1E1)>, !fly.int_tuple<(?,*)>)
  return %cs : !fly.coord_tensor<(?,0), 4:1E1>
}

// -----

// A block of zipped_divide, (*,?) as FlyDSL's examples write it: the one
// kept mode (16,8) is the result's layout (not ((16,8))), rebuilt from the
// dynamic row stride; the pointer moves to the block.
// CHECK-LABEL: func.func @slice_block
// CHECK-DAG:     %[[L:.*]]:3 = fly.get_leaves
// CHECK-DAG:     %[[SH:.*]] = fly.static : !fly.int_tuple<(16,8)>
// CHECK-DAG:     %[[ST:.*]] = fly.make_int_tuple(%[[L]]#2) : (i32) -> !fly.int_tuple<(?{div=8},1)>
// CHECK:         %[[LAY:.*]] = fly.make_layout(%[[SH]], %[[ST]]) : (!fly.int_tuple<(16,8)>, !fly.int_tuple<(?{div=8},1)>) -> !fly.layout<(16,8):(?{div=8},1)>
// CHECK:         %[[Q:.*]] = fly.add_offset
// CHECK:         fly.make_view(%[[Q]], %[[LAY]]) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(16,8):(?{div=8},1)>) -> !fly.memref<f32, global, (16,8):(?{div=8},1), align<16>>
func.func @slice_block(%m: !fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, %b: i32)
    -> !fly.memref<f32, global, (16,8):(?{div=8},1), align<16>> {
  %t = fly.static : !fly.tile<[16|8]>
  %z = fly.zipped_divide(%m, %t) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, !fly.tile<[16|8]>)
  %crd = fly.make_int_tuple(%b) : (i32) -> !fly.int_tuple<(*,?)>
  %blk = fly.slice(%z, %crd) : (!fly.memref<f32, global, ((16,8),(?,?)):((?{div=8},1),(?{div=128},8)), align<16>>, !fly.int_tuple<(*,?)>)
  return %blk : !fly.memref<f32, global, (16,8):(?{div=8},1), align<16>>
}

// -----

// get_leaves of a view built here are the leaves of its layout operand;
// queries on a memref argument read its leaves.
// CHECK-LABEL: func.func @leaves
// CHECK-SAME:    (%{{.*}}: !fly.ptr<f32, global>, %[[N:.*]]: i32, %[[M:.*]]: !fly.memref<f32, global, (4,?):(?,1)>)
// CHECK-DAG:     %[[L:.*]]:2 = fly.get_leaves(%[[M]]) : (!fly.memref<f32, global, (4,?):(?,1)>) -> (i32, i32)
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[SIZE:.*]] = arith.muli %[[C4]], %[[L]]#0 : i32
// CHECK-DAG:     %[[SIZET:.*]] = fly.make_int_tuple(%[[SIZE]]) : (i32) -> !fly.int_tuple<?{div=4}>
// CHECK:         return %[[N]], %[[SIZET]]
func.func @leaves(%p: !fly.ptr<f32, global>, %n: i32, %m: !fly.memref<f32, global, (4,?):(?,1)>) -> (i32, !fly.int_tuple<?{div=4}>) {
  %sh = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(?,4)>
  %l = fly.make_layout(%sh) : (!fly.int_tuple<(?,4)>)
  %v = fly.make_view(%p, %l) : (!fly.ptr<f32, global>, !fly.layout<(?,4):(1,?)>)
  %x:2 = fly.get_leaves(%v) : (!fly.memref<f32, global, (?,4):(1,?)>)
  %sz = fly.size(%m) : (!fly.memref<f32, global, (4,?):(?,1)>)
  return %x#1, %sz : i32, !fly.int_tuple<?{div=4}>
}

// -----

// fly-canonicalize: a static coordinate tensor and static queries on a
// memref fold to fly.static; get_iter and get_layout of a view fold to its
// operands.
// FOLD-LABEL: func.func @fold
// FOLD-SAME:    (%[[P:.*]]: !fly.ptr<f32, global>)
// FOLD-DAG:     %[[C:.*]] = fly.static : !fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>
// FOLD-DAG:     %[[L:.*]] = fly.static : !fly.layout<(4,8):(8,1)>
// FOLD-DAG:     %[[S:.*]] = fly.static : !fly.int_tuple<32>
// FOLD:         return %[[C]], %[[L]], %[[P]], %[[S]]
func.func @fold(%p: !fly.ptr<f32, global>)
    -> (!fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>, !fly.layout<(4,8):(8,1)>, !fly.ptr<f32, global>, !fly.int_tuple<32>) {
  %z = fly.static : !fly.int_tuple<(0,0)>
  %sh = fly.static : !fly.int_tuple<(4,8)>
  %il = fly.make_identity_layout(%sh) : (!fly.int_tuple<(4,8)>)
  %ct = fly.make_view(%z, %il) : (!fly.int_tuple<(0,0)>, !fly.layout<(4,8):(1E0,1E1)>)
  %l = fly.static : !fly.layout<(4,8):(8,1)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global>, !fly.layout<(4,8):(8,1)>)
  %ml = fly.get_layout(%m) : (!fly.memref<f32, global, (4,8):(8,1)>)
  %mp = fly.get_iter(%m) : (!fly.memref<f32, global, (4,8):(8,1)>)
  %sz = fly.size(%m) : (!fly.memref<f32, global, (4,8):(8,1)>)
  return %ct, %ml, %mp, %sz : !fly.coord_tensor<(0,0), (4,8):(1E0,1E1)>, !fly.layout<(4,8):(8,1)>, !fly.ptr<f32, global>, !fly.int_tuple<32>
}
