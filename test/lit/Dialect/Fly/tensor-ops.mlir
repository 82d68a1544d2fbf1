// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// Tensor views and the algebra on tensors (SPEC §2.3): an algebra op that
// CuTe also defines on tensors applies to the tensor's layout and keeps its
// iterator; `slice` also moves the iterator to the fixed coordinates.

// make_view: a pointer and a layout give a memref with the pointer's
// element type, address space and alignment; an int_tuple base and a layout
// give a coord_tensor. get_iter and get_layout take them apart.
// CHECK-LABEL: func.func @views
// CHECK:         fly.make_view(%arg0, %{{.*}}) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4,8):(8,1)>) -> !fly.memref<f32, global, (4,8):(8,1), align<16>>
// CHECK:         fly.make_view(%arg1, %{{.*}}) : (!fly.ptr<f16, shared, align<16>>, !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>) -> !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>
// CHECK:         fly.make_view(%{{.*}}, %{{.*}}) : (!fly.int_tuple<(0,0)>, !fly.layout<(16,64):(1E0,1E1)>) -> !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>
// CHECK:         fly.get_iter(%{{.*}}) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>) -> !fly.ptr<f32, global, align<16>>
// CHECK:         fly.get_layout(%{{.*}}) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>) -> !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
// CHECK:         fly.get_iter(%{{.*}}) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>) -> !fly.int_tuple<(0,0)>
// CHECK:         fly.get_layout(%{{.*}}) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>) -> !fly.layout<(16,64):(1E0,1E1)>
func.func @views(%p: !fly.ptr<f32, global, align<16>>, %q: !fly.ptr<f16, shared, align<16>>) {
  %l = fly.static : !fly.layout<(4,8):(8,1)>
  %m = fly.make_view(%p, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4,8):(8,1)>)
  %sl = fly.static : !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>
  %s = fly.make_view(%q, %sl) : (!fly.ptr<f16, shared, align<16>>, !fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>)
  %z = fly.static : !fly.int_tuple<(0,0)>
  %shape = fly.static : !fly.int_tuple<(16,64)>
  %id = fly.make_identity_layout(%shape) : (!fly.int_tuple<(16,64)>)
  %c = fly.make_view(%z, %id) : (!fly.int_tuple<(0,0)>, !fly.layout<(16,64):(1E0,1E1)>)
  %0 = fly.get_iter(%m) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>)
  %1 = fly.get_layout(%s) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>)
  %2 = fly.get_iter(%c) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>)
  %3 = fly.get_layout(%c) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>)
  return
}

// slice: the pointer advances by crd2idx of the fixed coordinates and keeps
// what that offset leaves of its alignment.
// CHECK-LABEL: func.func @slice_memref
// Row 2 of (4,8):(8,1) starts 16 f32 = 64 bytes in: align 16 stays.
// CHECK:         -> !fly.memref<f32, global, 8:1, align<16>>
// Column 1 starts 4 bytes in.
// CHECK:         -> !fly.memref<f32, global, 4:8>{{$}}
// A dynamic row ? of stride ?{div=8}: a multiple of 32 bytes.
// CHECK:         -> !fly.memref<f32, global, ?:1, align<16>>
// A dynamic column of stride 1: any element.
// CHECK:         -> !fly.memref<f32, global, ?:?{div=8}>{{$}}
// Nothing left: a 0-d view of one element.
// CHECK:         -> !fly.memref<f32, global, ():(), align<8>>
func.func @slice_memref(%m: !fly.memref<f32, global, (4,8):(8,1), align<16>>,
                        %d: !fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, %i: i32) {
  %r2 = fly.static : !fly.int_tuple<(2,*)>
  %c1 = fly.static : !fly.int_tuple<(*,1)>
  %ri = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %ci = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(*,?)>
  %e = fly.static : !fly.int_tuple<(1,2)>
  %0 = fly.slice(%m, %r2) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.int_tuple<(2,*)>)
  %1 = fly.slice(%m, %c1) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.int_tuple<(*,1)>)
  %2 = fly.slice(%d, %ri) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, !fly.int_tuple<(?,*)>)
  %3 = fly.slice(%d, %ci) : (!fly.memref<f32, global, (?,?):(?{div=8},1), align<16>>, !fly.int_tuple<(*,?)>)
  %4 = fly.slice(%m, %e) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.int_tuple<(1,2)>)
  return
}

// A composed (swizzled) layout does not commute with the pointer: the offset
// goes into the composed layout, the pointer stays.
// CHECK-LABEL: func.func @slice_composed
// CHECK:         -> !fly.memref<f16, shared, S<3,4,3> o 192 o 64:1, align<16>>
// CHECK:         -> !fly.memref<f16, shared, S<3,4,3> o ?{div=64} o 64:1, align<16>>
func.func @slice_composed(%s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, %i: i32) {
  %r3 = fly.static : !fly.int_tuple<(3,*)>
  %ri = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %0 = fly.slice(%s, %r3) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, !fly.int_tuple<(3,*)>)
  %1 = fly.slice(%s, %ri) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, !fly.int_tuple<(?,*)>)
  return
}

// A coord_tensor's base advances by the coordinate the identity layout
// gives, mode by mode.
// CHECK-LABEL: func.func @slice_coord
// CHECK:         -> !fly.coord_tensor<(5,0), 64:1E1>
// CHECK:         -> !fly.coord_tensor<(?,?), 64:1E1>
// CHECK:         -> !fly.coord_tensor<(?,3), ():()>
func.func @slice_coord(%c: !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>,
                       %b: !fly.coord_tensor<(?,?), (16,64):(1E0,1E1)>, %i: i32) {
  %r5 = fly.static : !fly.int_tuple<(5,*)>
  %ri = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,*)>
  %0 = fly.slice(%c, %r5) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>, !fly.int_tuple<(5,*)>)
  %1 = fly.slice(%b, %r5) : (!fly.coord_tensor<(?,?), (16,64):(1E0,1E1)>, !fly.int_tuple<(5,*)>)
  %ij = fly.make_int_tuple(%i) : (i32) -> !fly.int_tuple<(?,3)>
  %2 = fly.slice(%c, %ij) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>, !fly.int_tuple<(?,3)>)
  return
}

// The divides tile a tensor's layout; the iterator stays.
// CHECK-LABEL: func.func @divides
// CHECK:         fly.logical_divide{{.*}} -> !fly.memref<f32, global, ((2,2),(4,2)):((8,16),(1,4)), align<16>>
// CHECK:         fly.zipped_divide{{.*}} -> !fly.memref<f32, global, ((2,4),(2,2)):((8,1),(16,4)), align<16>>
// CHECK:         fly.tiled_divide{{.*}} -> !fly.memref<f32, global, ((2,4),2,2):((8,1),16,4), align<16>>
// CHECK:         fly.flat_divide{{.*}} -> !fly.memref<f32, global, (2,4,2,2):(8,1,16,4), align<16>>
// CHECK:         fly.zipped_divide{{.*}} -> !fly.coord_tensor<(0,0), ((2,4),(8,16)):((1E0,1E1),(2E0,4E1))>
// CHECK:         fly.logical_divide{{.*}} -> !fly.memref<f32, global, (4,8):(1,4)>
func.func @divides(%m: !fly.memref<f32, global, (4,8):(8,1), align<16>>,
                   %c: !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>,
                   %v: !fly.memref<f32, global, 32:1>) {
  %t = fly.static : !fly.tile<[2|4]>
  %0 = fly.logical_divide(%m, %t) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.tile<[2|4]>)
  %1 = fly.zipped_divide(%m, %t) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.tile<[2|4]>)
  %2 = fly.tiled_divide(%m, %t) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.tile<[2|4]>)
  %3 = fly.flat_divide(%m, %t) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.tile<[2|4]>)
  %4 = fly.zipped_divide(%c, %t) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>, !fly.tile<[2|4]>)
  %l = fly.static : !fly.layout<4:1>
  %5 = fly.logical_divide(%v, %l) : (!fly.memref<f32, global, 32:1>, !fly.layout<4:1>)
  return
}

// composition: a layout or a tile on a tensor's layout; on a composed
// layout the outer layout is composed.
// CHECK-LABEL: func.func @composition
// CHECK:         -> !fly.memref<f32, global, (2,4):(8,1), align<16>>
// CHECK:         -> !fly.memref<f16, shared, S<3,4,3> o 0 o (8,8):(64,1), align<16>>
// CHECK:         -> !fly.coord_tensor<(0,0), (4,2):(1E1,1E0)>
func.func @composition(%m: !fly.memref<f32, global, (4,8):(8,1), align<16>>,
                       %s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>,
                       %c: !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>) {
  %t = fly.static : !fly.tile<[2|4]>
  %0 = fly.composition(%m, %t) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>, !fly.tile<[2|4]>)
  %t8 = fly.static : !fly.tile<[8|8]>
  %1 = fly.composition(%s, %t8) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>, !fly.tile<[8|8]>)
  %l = fly.static : !fly.layout<(4,2):(16,1)>
  %2 = fly.composition(%c, %l) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>, !fly.layout<(4,2):(16,1)>)
  return
}

// Mode selection and coalesce on tensors.
// CHECK-LABEL: func.func @modes
// CHECK:         fly.get{{.*}} -> !fly.memref<f32, global, (2,3):(1,2), align<16>>
// CHECK:         fly.take{{.*}} -> !fly.memref<f32, global, (4,(2,3)):(6,(1,2)), align<16>>
// CHECK:         fly.select{{.*}} -> !fly.memref<f32, global, (5,4):(24,6), align<16>>
// CHECK:         fly.group{{.*}} -> !fly.memref<f32, global, ((4,(2,3)),5):((6,(1,2)),24), align<16>>
// CHECK:         fly.coalesce{{.*}} -> !fly.memref<f32, global, (4,6,5):(6,1,24), align<16>>
// CHECK:         fly.get{{.*}} -> !fly.coord_tensor<(0,0), 64:1E1>
func.func @modes(%m: !fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>,
                 %c: !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>) {
  %0 = fly.get(%m) {mode = array<i64: 1>} : (!fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>)
  %1 = fly.take(%m) {begin = 0 : i64, end = 2 : i64} : (!fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>)
  %2 = fly.select(%m) {modes = array<i64: 2, 0>} : (!fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>)
  %3 = fly.group(%m) {begin = 0 : i64, end = 2 : i64} : (!fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>)
  %4 = fly.coalesce(%m) : (!fly.memref<f32, global, (4,(2,3),5):(6,(1,2),24), align<16>>)
  %5 = fly.get(%c) {mode = array<i64: 1>} : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>)
  return
}

// size, rank and depth are those of the layout (the outer one of a composed
// layout).
// CHECK-LABEL: func.func @queries
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<?{div=4}>
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<2>
// CHECK:         fly.depth{{.*}} -> !fly.int_tuple<1>
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<512>
// CHECK:         fly.size{{.*}} -> !fly.int_tuple<1024>
// CHECK:         fly.rank{{.*}} -> !fly.int_tuple<2>
func.func @queries(%m: !fly.memref<f32, global, (4,?):(1,?), align<16>>,
                   %s: !fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>,
                   %c: !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>) {
  %0 = fly.size(%m) : (!fly.memref<f32, global, (4,?):(1,?), align<16>>)
  %1 = fly.rank(%m) : (!fly.memref<f32, global, (4,?):(1,?), align<16>>)
  %2 = fly.depth(%m) : (!fly.memref<f32, global, (4,?):(1,?), align<16>>)
  %3 = fly.size(%s) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (8,64):(64,1), align<16>>)
  %4 = fly.size(%c) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>)
  %5 = fly.rank(%c) : (!fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>)
  return
}

// get_leaves of a memref: its layout's leaves (shape, then stride); of a
// composed one: inner, offset, outer; of a coord_tensor: base, then layout.
// CHECK-LABEL: func.func @leaves
// CHECK:         fly.get_leaves(%arg0) : (!fly.memref<f32, global, (?,8):(1,?{i64}), align<16>>) -> (i32, i64)
// CHECK:         fly.get_leaves(%arg1) : (!fly.memref<f16, shared, S<3,4,3> o ? o (8,?):(?,1)>) -> (i32, i32, i32)
// CHECK:         fly.get_leaves(%arg2) : (!fly.coord_tensor<(?,?{i64}), (16,?):(1E0,1E1)>) -> (i32, i64, i32)
func.func @leaves(%m: !fly.memref<f32, global, (?,8):(1,?{i64}), align<16>>,
                  %s: !fly.memref<f16, shared, S<3,4,3> o ? o (8,?):(?,1)>,
                  %c: !fly.coord_tensor<(?,?{i64}), (16,?):(1E0,1E1)>) {
  %0:2 = fly.get_leaves(%m) : (!fly.memref<f32, global, (?,8):(1,?{i64}), align<16>>)
  %1:3 = fly.get_leaves(%s) : (!fly.memref<f16, shared, S<3,4,3> o ? o (8,?):(?,1)>)
  %2:3 = fly.get_leaves(%c) : (!fly.coord_tensor<(?,?{i64}), (16,?):(1E0,1E1)>)
  return
}

// make_fragment_like: register storage as CuTe's make_fragment_like (and
// FlyDSL's) lays it out: mode 0 compact and innermost, the other modes in
// the source's stride order (a row-major (4,8) is (4,8):(1,4); a broadcast
// mode gets storage of its own); the element type may be changed (and must
// be given for a coord_tensor).
// CHECK-LABEL: func.func @fragments
// CHECK:         fly.make_fragment_like(%arg0) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>) -> !fly.memref<f32, register, (4,8):(1,4)>
// CHECK:         fly.make_fragment_like(%arg0) {element_type = f16} : (!fly.memref<f32, global, (4,8):(8,1), align<16>>) -> !fly.memref<f16, register, (4,8):(1,4)>
// CHECK:         fly.make_fragment_like(%arg1) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (2,4):(4,1), align<16>>) -> !fly.memref<f16, register, (2,4):(1,2)>
// CHECK:         fly.make_fragment_like(%arg2) {element_type = i1} : (!fly.coord_tensor<(0,0), (4,2):(1E0,1E1)>) -> !fly.memref<i1, register, (4,2):(1,4)>
// CHECK:         fly.make_fragment_like(%arg3) : (!fly.memref<f32, global, (4,2):(1,0)>) -> !fly.memref<f32, register, (4,2):(1,4)>
func.func @fragments(%m: !fly.memref<f32, global, (4,8):(8,1), align<16>>,
                     %s: !fly.memref<f16, shared, S<3,4,3> o 0 o (2,4):(4,1), align<16>>,
                     %c: !fly.coord_tensor<(0,0), (4,2):(1E0,1E1)>,
                     %b: !fly.memref<f32, global, (4,2):(1,0)>) {
  %0 = fly.make_fragment_like(%m) : (!fly.memref<f32, global, (4,8):(8,1), align<16>>)
  %1 = fly.make_fragment_like(%m) {element_type = f16} : (!fly.memref<f32, global, (4,8):(8,1), align<16>>)
  %2 = fly.make_fragment_like(%s) : (!fly.memref<f16, shared, S<3,4,3> o 0 o (2,4):(4,1), align<16>>)
  %3 = fly.make_fragment_like(%c) {element_type = i1} : (!fly.coord_tensor<(0,0), (4,2):(1E0,1E1)>)
  %4 = fly.make_fragment_like(%b) : (!fly.memref<f32, global, (4,2):(1,0)>)
  return
}
