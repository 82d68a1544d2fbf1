// RUN: fly-opt %s -split-input-file -fly-layout-lowering | FileCheck %s

// fly-layout-lowering on memory accesses: a memref access is a pointer
// access at the tensor's pointer moved by the layout's index of the
// coordinate (fly.add_offset; a static 0 is the pointer itself), with the
// alignment add_offset infers; load_vec/store_vec take the elements in runs
// of consecutive ones: a layout that coalesces to N:1 is one vector access,
// a first coalesced mode of stride 1 gives one vector access per run, any
// other layout one access per element; make_fragment_like is a
// memref.alloca.

// CHECK-LABEL: func.func @load_store
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32, %[[I:.*]]: i32, %[[J:.*]]: i32, %[[X:.*]]: f32)
// CHECK:         %[[P:.*]] = fly.make_ptr(%[[G]])
// CHECK:         %[[C4:.*]] = arith.constant 4 : i32
// CHECK:         %[[JS:.*]] = arith.muli %[[J]], %[[C4]] : i32
// CHECK:         %[[IDX:.*]] = arith.addi %[[I]], %[[JS]] : i32
// CHECK:         %[[IDXT:.*]] = fly.make_int_tuple(%[[IDX]]) : (i32) -> !fly.int_tuple<?>
// CHECK:         %[[E:.*]] = fly.add_offset(%[[P]], %[[IDXT]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?>) -> !fly.ptr<f32, global>
// CHECK:         %[[V:.*]] = fly.ptr.load(%[[E]]) : (!fly.ptr<f32, global>) -> f32
// CHECK:         fly.ptr.store(%[[X]], %[[P]]) : (f32, !fly.ptr<f32, global, align<16>>)
// CHECK:         %[[C5:.*]] = fly.static : !fly.int_tuple<5>
// CHECK:         %[[E5:.*]] = fly.add_offset(%[[P]], %[[C5]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<5>) -> !fly.ptr<f32, global>
// CHECK:         fly.ptr.store(%[[X]], %[[E5]]) : (f32, !fly.ptr<f32, global>)
// CHECK-NOT:     fly.memref
// CHECK:         return %[[V]]
func.func @load_store(%g: !llvm.ptr<1>, %n: i32, %i: i32, %j: i32, %x: f32) -> f32 {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %sh = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(4,?)>
  %l = fly.make_layout(%sh) : (!fly.int_tuple<(4,?)>)
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4,?):(1,4)>)
  %c = fly.make_int_tuple(%i, %j) : (i32, i32) -> !fly.int_tuple<(?,?)>
  %v = fly.memref.load(%m, %c) : (!fly.memref<f32, global, (4,?):(1,4), align<16>>, !fly.int_tuple<(?,?)>)
  %c0 = fly.static : !fly.int_tuple<(0,0)>
  fly.memref.store(%x, %m, %c0) : (f32, !fly.memref<f32, global, (4,?):(1,4), align<16>>, !fly.int_tuple<(0,0)>)
  %c5 = fly.static : !fly.int_tuple<(1,1)>
  fly.memref.store(%x, %m, %c5) : (f32, !fly.memref<f32, global, (4,?):(1,4), align<16>>, !fly.int_tuple<(1,1)>)
  return %v : f32
}

// -----

// A 1-D index is split colexicographically over the shape: i at
// (i mod 4, i div 4) of (4,8):(8,1).
// CHECK-LABEL: func.func @scalar_index
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<3>, %[[I:.*]]: i32)
// CHECK:         %[[R:.*]] = arith.remsi %[[I]], %{{.*}} : i32
// CHECK:         %[[RS:.*]] = arith.muli %[[R]], %{{.*}} : i32
// CHECK:         %[[Q:.*]] = arith.divsi %[[I]], %{{.*}} : i32
// CHECK:         %[[IDX:.*]] = arith.addi %[[RS]], %[[Q]] : i32
// CHECK:         %[[IDXT:.*]] = fly.make_int_tuple(%[[IDX]])
// CHECK:         %[[E:.*]] = fly.add_offset(%{{.*}}, %[[IDXT]])
// CHECK:         fly.ptr.load(%[[E]]) : (!fly.ptr<f16, shared>) -> f16
func.func @scalar_index(%g: !llvm.ptr<3>, %i: i32) -> f16 {
  %p = fly.make_ptr(%g) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared>
  %l = fly.static : !fly.layout<(4,8):(8,1)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f16, shared>, !fly.layout<(4,8):(8,1)>)
  %v = fly.memref.load(%m, %i) : (!fly.memref<f16, shared, (4,8):(8,1)>, i32)
  return %v : f16
}

// -----

// A swizzled shared layout: the index is S<3,3,3>(64*i + 8): the bits 6..8
// (mask 448) shifted down by 3 and xored in. The offset stays a multiple of
// 8 halves, so the access keeps its 16-byte alignment.
// CHECK-LABEL: func.func @swizzled
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<3>, %[[I:.*]]: i32)
// CHECK:         %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : i32
// CHECK:         %[[X:.*]] = arith.addi %[[ROW]], %{{.*}} : i32
// CHECK:         %[[M:.*]] = arith.constant 448 : i32
// CHECK:         %[[A:.*]] = arith.andi %[[X]], %[[M]] : i32
// CHECK:         %[[S:.*]] = arith.shrui %[[A]], %{{.*}} : i32
// CHECK:         %[[IDX:.*]] = arith.xori %[[X]], %[[S]] : i32
// CHECK:         %[[IDXT:.*]] = fly.make_int_tuple(%[[IDX]]) : (i32) -> !fly.int_tuple<?{div=8}>
// CHECK:         %[[E:.*]] = fly.add_offset(%{{.*}}, %[[IDXT]]) : (!fly.ptr<f16, shared, align<16>>, !fly.int_tuple<?{div=8}>) -> !fly.ptr<f16, shared, align<16>>
// CHECK:         fly.ptr.load(%[[E]]) : (!fly.ptr<f16, shared, align<16>>) -> f16
func.func @swizzled(%s: !llvm.ptr<3>, %i: i32) -> f16 {
  %p = fly.make_ptr(%s) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
  %l = fly.static : !fly.composed_layout<S<3,3,3> o 0 o (8,64):(64,1)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f16, shared, align<16>>, !fly.composed_layout<S<3,3,3> o 0 o (8,64):(64,1)>)
  %c = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,8)>
  %v = fly.memref.load(%m, %c) : (!fly.memref<f16, shared, S<3,3,3> o 0 o (8,64):(64,1), align<16>>, !fly.int_tuple<(?,8)>)
  return %v : f16
}

// -----

// A (1,4) slice of a row-major matrix with a dynamic leading dimension:
// (1,4):(?,1) coalesces to 4:1, so load_vec is one 16-byte vector load at
// the slice's pointer. A fragment like it is a register alloca, and its
// load_vec/store_vec are vector accesses too.
// CHECK-LABEL: func.func @contiguous
// CHECK-SAME:    (%[[G:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32, %[[R:.*]]: i32)
// CHECK:         %[[P:.*]] = fly.make_ptr(%[[G]])
// CHECK:         %[[OFF:.*]] = arith.muli %[[R]], %[[N]] : i32
// CHECK:         %[[OFFT:.*]] = fly.make_int_tuple(%[[OFF]]) : (i32) -> !fly.int_tuple<?{div=4}>
// CHECK:         %[[Q:.*]] = fly.add_offset(%[[P]], %[[OFFT]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?{div=4}>) -> !fly.ptr<f32, global, align<16>>
// CHECK:         %[[V:.*]] = fly.ptr.load(%[[Q]]) : (!fly.ptr<f32, global, align<16>>) -> vector<4xf32>
// CHECK:         %[[TOFF:.*]] = arith.muli %[[R]], %[[N]] : i32
// CHECK:         %[[TOFFT:.*]] = fly.make_int_tuple(%[[TOFF]]) : (i32) -> !fly.int_tuple<?{div=4}>
// CHECK:         %[[T:.*]] = fly.add_offset(%[[P]], %[[TOFFT]]) : (!fly.ptr<f32, global, align<16>>, !fly.int_tuple<?{div=4}>) -> !fly.ptr<f32, global, align<16>>
// CHECK:         %[[F:.*]] = fly.memref.alloca : !fly.memref<f32, register, (1,4):(0,1)>
// CHECK:         fly.get_iter(%[[F]])
// CHECK:         fly.ptr.store(%[[V]], %{{.*}}) : (vector<4xf32>, !fly.ptr<f32, register>)
// CHECK:         %[[W:.*]] = fly.ptr.load(%{{.*}}) : (!fly.ptr<f32, register>) -> vector<4xf32>
// CHECK:         fly.ptr.store(%[[W]], %[[T]]) : (vector<4xf32>, !fly.ptr<f32, global, align<16>>)
// CHECK-NOT:     fly.memref.{{load|store}}
// CHECK-NOT:     fly.make_fragment_like
func.func @contiguous(%g: !llvm.ptr<1>, %n: i32, %r: i32) {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %sh = fly.static : !fly.int_tuple<(8,4)>
  %st = fly.make_int_tuple(%n) : (i32) -> !fly.int_tuple<(?{div=4},1)>
  %l = fly.make_layout(%sh, %st) : (!fly.int_tuple<(8,4)>, !fly.int_tuple<(?{div=4},1)>)
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(8,4):(?{div=4},1)>)
  %crd = fly.make_int_tuple(%r) : (i32) -> !fly.int_tuple<(?,*)>
  %row = fly.slice(%m, %crd) : (!fly.memref<f32, global, (8,4):(?{div=4},1), align<16>>, !fly.int_tuple<(?,*)>)
  %v = fly.memref.load_vec(%row) : (!fly.memref<f32, global, 4:1, align<16>>)
  %t = fly.static : !fly.tile<[1|4]>
  %tiles = fly.zipped_divide(%m, %t) : (!fly.memref<f32, global, (8,4):(?{div=4},1), align<16>>, !fly.tile<[1|4]>)
  %tcrd = fly.make_int_tuple(%r) : (i32) -> !fly.int_tuple<((*,*),(?,0))>
  %tile = fly.slice(%tiles, %tcrd) : (!fly.memref<f32, global, ((1,4),(8,1)):((?{div=4},1),(?{div=4},0)), align<16>>, !fly.int_tuple<((*,*),(?,0))>)
  %f = fly.make_fragment_like(%tile) : (!fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
  fly.memref.store_vec(%v, %f) : (vector<4xf32>, !fly.memref<f32, register, (1,4):(0,1)>)
  %w = fly.memref.load_vec(%f) : (!fly.memref<f32, register, (1,4):(0,1)>)
  fly.memref.store_vec(%w, %tile) : (vector<4xf32>, !fly.memref<f32, global, (1,4):(?{div=4},1), align<16>>)
  return
}

// -----

// (2,2):(8,1) has no two adjacent elements in 1-D index order: one access
// per element (offsets 0, 8, 1, 9), assembled into the vector and taken
// apart from it.
// CHECK-LABEL: func.func @strided
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<1>, %[[V:.*]]: vector<4xf32>)
// CHECK:         %[[P:.*]] = fly.make_ptr
// CHECK:         %[[E0:.*]] = fly.ptr.load(%[[P]]) : (!fly.ptr<f32, global, align<16>>) -> f32
// CHECK:         %[[C8:.*]] = fly.static : !fly.int_tuple<8>
// CHECK:         %[[P8:.*]] = fly.add_offset(%[[P]], %[[C8]])
// CHECK:         %[[E8:.*]] = fly.ptr.load(%[[P8]]) : (!fly.ptr<f32, global, align<16>>) -> f32
// CHECK:         %[[C1:.*]] = fly.static : !fly.int_tuple<1>
// CHECK:         %[[P1:.*]] = fly.add_offset(%[[P]], %[[C1]])
// CHECK:         %[[E1:.*]] = fly.ptr.load(%[[P1]]) : (!fly.ptr<f32, global>) -> f32
// CHECK:         %[[C9:.*]] = fly.static : !fly.int_tuple<9>
// CHECK:         %[[P9:.*]] = fly.add_offset(%[[P]], %[[C9]])
// CHECK:         %[[E9:.*]] = fly.ptr.load(%[[P9]]) : (!fly.ptr<f32, global>) -> f32
// CHECK:         %[[R:.*]] = vector.from_elements %[[E0]], %[[E8]], %[[E1]], %[[E9]] : vector<4xf32>
// CHECK:         %[[X0:.*]] = vector.extract %[[V]][0] : f32 from vector<4xf32>
// CHECK:         fly.ptr.store(%[[X0]], %[[P]])
// CHECK-COUNT-3: vector.extract %[[V]]
// CHECK:         return %[[R]]
func.func @strided(%g: !llvm.ptr<1>, %v: vector<4xf32>) -> vector<4xf32> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f32, global, align<16>>
  %l = fly.static : !fly.layout<(2,2):(8,1)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(2,2):(8,1)>)
  %r = fly.memref.load_vec(%m) : (!fly.memref<f32, global, (2,2):(8,1), align<16>>)
  fly.memref.store_vec(%v, %m) : (vector<4xf32>, !fly.memref<f32, global, (2,2):(8,1), align<16>>)
  return %r : vector<4xf32>
}

// -----

// (4,2):(1,64) is two runs of 4 consecutive halves: two 8-byte vector
// accesses (at 0 and 64, both 16-byte aligned), put together with
// insert_strided_slice and taken apart with extract_strided_slice.
// CHECK-LABEL: func.func @runs
// CHECK-SAME:    (%{{.*}}: !llvm.ptr<3>, %[[V:.*]]: vector<8xf16>)
// CHECK:         %[[P:.*]] = fly.make_ptr
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf16>
// CHECK:         %[[A:.*]] = fly.ptr.load(%[[P]]) : (!fly.ptr<f16, shared, align<16>>) -> vector<4xf16>
// CHECK:         %[[R0:.*]] = vector.insert_strided_slice %[[A]], %[[Z]] {offsets = [0], strides = [1]} : vector<4xf16> into vector<8xf16>
// CHECK:         %[[P64:.*]] = fly.add_offset(%[[P]], %{{.*}}) : (!fly.ptr<f16, shared, align<16>>, !fly.int_tuple<64>) -> !fly.ptr<f16, shared, align<16>>
// CHECK:         %[[B:.*]] = fly.ptr.load(%[[P64]]) : (!fly.ptr<f16, shared, align<16>>) -> vector<4xf16>
// CHECK:         %[[R:.*]] = vector.insert_strided_slice %[[B]], %[[R0]] {offsets = [4], strides = [1]} : vector<4xf16> into vector<8xf16>
// CHECK:         %[[S0:.*]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
// CHECK:         fly.ptr.store(%[[S0]], %[[P]]) : (vector<4xf16>, !fly.ptr<f16, shared, align<16>>)
// CHECK:         %[[Q64:.*]] = fly.add_offset(%[[P]], %{{.*}})
// CHECK:         %[[S1:.*]] = vector.extract_strided_slice %[[V]] {offsets = [4], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
// CHECK:         fly.ptr.store(%[[S1]], %[[Q64]]) : (vector<4xf16>, !fly.ptr<f16, shared, align<16>>)
// CHECK:         return %[[R]]
func.func @runs(%g: !llvm.ptr<3>, %v: vector<8xf16>) -> vector<8xf16> {
  %p = fly.make_ptr(%g) : (!llvm.ptr<3>) -> !fly.ptr<f16, shared, align<16>>
  %l = fly.static : !fly.layout<(4,2):(1,64)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f16, shared, align<16>>, !fly.layout<(4,2):(1,64)>)
  %r = fly.memref.load_vec(%m) : (!fly.memref<f16, shared, (4,2):(1,64), align<16>>)
  fly.memref.store_vec(%v, %m) : (vector<8xf16>, !fly.memref<f16, shared, (4,2):(1,64), align<16>>)
  return %r : vector<8xf16>
}
