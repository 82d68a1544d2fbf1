// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// Atom and tiled-atom ops (SPEC §2.3): result types inferred by the layout
// algebra, written here as worked out from CuTe's semantics.

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!tc = !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
!tm = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
!g = !fly.memref<f32, global, (16,64):(64,1), align<16>>

// make_layout_tv(thr (16,16):(16,1), val (1,4):(4,1)): 16x16 threads in row
// order, each with 4 consecutive values of one row, so the tile is 16x64.
// Thread t = 16m + n holds row m = t/16, columns 4n..4n+3 with n = t%16;
// the column-major tile index of value v is m + 16*(4n + v)
// = t/16 + 64*(t%16) + 16v: ((16,16),4):((64,1),16) with t = (t%16, t/16).
// CHECK-LABEL: func.func @tiled_copy
// CHECK:         fly.make_copy_atom : !fly.copy_atom<!fly.universal_copy<128>, 32>
// CHECK:         fly.make_layout_tv
// CHECK-SAME:      -> (!fly.tile<[16|64]>, !fly.layout<((16,16),4):((64,1),16)>)
// CHECK:         fly.make_tiled_copy
// CHECK-SAME:      -> !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<128>, 32>, ((16,16),4):((64,1),16), [16|64]>
func.func @tiled_copy() -> !tc {
  %atom = fly.make_copy_atom : !atom
  %thr = fly.static : !fly.layout<(16,16):(16,1)>
  %val = fly.static : !fly.layout<(1,4):(4,1)>
  %tile, %tv = fly.make_layout_tv(%thr, %val)
      : (!fly.layout<(16,16):(16,1)>, !fly.layout<(1,4):(4,1)>)
  %tc = fly.make_tiled_copy(%atom, %tv, %tile)
      : (!atom, !fly.layout<((16,16),4):((64,1),16)>, !fly.tile<[16|64]>)
  return %tc : !tc
}

// Partitioning a 16x64 row-major tile of f32 in global memory (one 128-bit
// atom call covers it per thread): each thread copies ((AtomVal=4,
// RestVal=1), RestM=1, RestN=1) values, the 4 of its row at unit stride.
// Its offset is 4*(t%16) + 64*(t/16), a multiple of 4 elements (16 bytes),
// so the 16-byte alignment survives a dynamic thread index. Source and
// destination views agree for a universal copy. Thread 17 starts at
// element 4 + 64 = 68 (272 bytes, still 16-byte aligned).
// CHECK-LABEL: func.func @copy_partition
// CHECK:         fly.tiled_copy.partition_src
// CHECK-SAME:      -> !fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>
// CHECK:         fly.tiled_copy.partition_dst
// CHECK-SAME:      -> !fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>
// CHECK:         fly.tiled_copy.partition_src
// CHECK-SAME:      -> !fly.memref<f32, global, ((4,1),1,1):((1,0),0,0), align<16>>
func.func @copy_partition(%g: !g, %tid: i32) {
  %tc = fly.static : !tc
  %s = fly.tiled_copy.partition_src(%tc, %g, %tid) : (!tc, !g, i32)
  %d = fly.tiled_copy.partition_dst(%tc, %g, %tid) : (!tc, !g, i32)
  %t17 = fly.static : !fly.int_tuple<17>
  %s17 = fly.tiled_copy.partition_src(%tc, %g, %t17)
      : (!tc, !g, !fly.int_tuple<17>)
  return
}

// A coordinate tensor partitions alike: thread t starts at (t/16, 4*(t%16))
// and its 4 values step along mode 1. Behind a swizzle the thread's offset
// joins the composed layout's offset, in front of the swizzle.
// CHECK-LABEL: func.func @copy_partition_views
// CHECK:         fly.tiled_copy.partition_src
// CHECK-SAME:      -> !fly.coord_tensor<(?,?{div=4}), ((4,1),1,1):((1E1,0),0,0)>
// CHECK:         fly.tiled_copy.partition_dst
// CHECK-SAME:      -> !fly.memref<f32, shared, S<3,2,3> o ?{div=4} o ((4,1),1,1):((1,0),0,0)>
func.func @copy_partition_views(
    %tid: i32, %sw: !fly.memref<f32, shared, S<3,2,3> o 0 o (16,64):(64,1)>) {
  %tc = fly.static : !tc
  %id = fly.static : !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>
  %c = fly.tiled_copy.partition_src(%tc, %id, %tid)
      : (!tc, !fly.coord_tensor<(0,0), (16,64):(1E0,1E1)>, i32)
  %s = fly.tiled_copy.partition_dst(%tc, %sw, %tid)
      : (!tc, !fly.memref<f32, shared, S<3,2,3> o 0 o (16,64):(64,1)>, i32)
  return
}

// retile: a register fragment (V=8, X=2, Y=1) seen in the copy's value
// order, V split into the atom's 4 values and 2 more.
// CHECK-LABEL: func.func @retile
// CHECK:         fly.tiled_copy.retile
// CHECK-SAME:      -> !fly.memref<f32, register, ((4,2),2,1):((1,4),8,0)>
func.func @retile(%f: !fly.memref<f32, register, (8,2,1):(1,8,16)>) {
  %tc = fly.static : !tc
  %r = fly.tiled_copy.retile(%tc, %f)
      : (!tc, !fly.memref<f32, register, (8,2,1):(1,8,16)>)
  return
}

// A tiled MMA of 16x16x1 universal FMAs: a 16x16x1 tile, thread
// t = m + 16n at (m, n) = (t%16, t/16). On a 128x8 A (column-major), thread
// t owns rows m, m+16, ..., m+112 (8 tiles along M) for each of the 8 k:
// (FrgV=1, RestM=8, RestK=8):(0, 16, 128) from row m. B (128x8 as NxK)
// alike from row n. A 128x128 C: (1,8,8):(0,16,16*128) from m + 128n.
// Fragments, made from the whole tiles (FlyDSL's mma_make_fragment): thread
// 0's partition, compact in the order of its strides for A, B and C alike:
// (1,8,8):(0,1,8) in registers, of the FMA's types.
// CHECK-LABEL: func.func @tiled_mma
// CHECK:         fly.make_mma_atom : !fly.mma_atom<!fly.universal_fma<f32>>
// CHECK:         fly.make_tiled_mma
// CHECK-SAME:      -> !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32>>, (16,16,1):(1,16,256)>
// CHECK:         fly.tiled_mma.partition({{.*}}) {operand = "A"}
// CHECK-SAME:      -> !fly.memref<f32, shared, (1,8,8):(0,16,128)>
// CHECK:         fly.tiled_mma.partition({{.*}}) {operand = "B"}
// CHECK-SAME:      -> !fly.memref<f32, shared, (1,8,8):(0,16,128)>
// CHECK:         fly.tiled_mma.partition({{.*}}) {operand = "C"}
// CHECK-SAME:      -> !fly.memref<f32, global, (1,8,8):(0,16,2048)>
// CHECK:         fly.mma.make_fragment({{.*}}) {operand = "A"}
// CHECK-SAME:      -> !fly.memref<f32, register, (1,8,8):(0,1,8)>
// CHECK:         fly.mma.make_fragment({{.*}}) {operand = "B"}
// CHECK-SAME:      -> !fly.memref<f32, register, (1,8,8):(0,1,8)>
// CHECK:         fly.mma.make_fragment({{.*}}) {operand = "C"}
// CHECK-SAME:      -> !fly.memref<f32, register, (1,8,8):(0,1,8)>
func.func @tiled_mma(%a: !fly.memref<f32, shared, (128,8):(1,128)>,
                     %b: !fly.memref<f32, shared, (128,8):(1,128)>,
                     %c: !fly.memref<f32, global, (128,128):(1,128)>,
                     %tid: i32) {
  %atom = fly.make_mma_atom : !fly.mma_atom<!fly.universal_fma<f32>>
  %l = fly.static : !fly.layout<(16,16,1):(1,16,256)>
  %tm = fly.make_tiled_mma(%atom, %l)
      : (!fly.mma_atom<!fly.universal_fma<f32>>, !fly.layout<(16,16,1):(1,16,256)>)
  %pa = fly.tiled_mma.partition(%tm, %a, %tid) {operand = "A"}
      : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>, i32)
  %pb = fly.tiled_mma.partition(%tm, %b, %tid) {operand = "B"}
      : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>, i32)
  %pc = fly.tiled_mma.partition(%tm, %c, %tid) {operand = "C"}
      : (!tm, !fly.memref<f32, global, (128,128):(1,128)>, i32)
  %fa = fly.mma.make_fragment(%tm, %a) {operand = "A"}
      : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>)
  %fb = fly.mma.make_fragment(%tm, %b) {operand = "B"}
      : (!tm, !fly.memref<f32, shared, (128,8):(1,128)>)
  %fc = fly.mma.make_fragment(%tm, %c) {operand = "C"}
      : (!tm, !fly.memref<f32, global, (128,128):(1,128)>)
  return
}

// The fragments take the element types of the MMA operation: f16 for A
// and B, f32 for C, whatever the tile holds. A permutation is kept in the
// tiled MMA's type.
// CHECK-LABEL: func.func @mixed_types
// CHECK:         fly.make_tiled_mma
// CHECK-SAME:      -> !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, (2,2,1):(1,2,0), [4|*|*]>
// CHECK:         fly.mma.make_fragment({{.*}}) {operand = "A"}
// CHECK-SAME:      -> !fly.memref<f16, register,
// CHECK:         fly.mma.make_fragment({{.*}}) {operand = "C"}
// CHECK-SAME:      -> !fly.memref<f32, register,
func.func @mixed_types(%p: !fly.memref<f16, shared, (8,4):(1,8)>) {
  %atom = fly.static : !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
  %l = fly.static : !fly.layout<(2,2,1):(1,2,0)>
  %perm = fly.static : !fly.tile<[4|*|*]>
  %tm = fly.make_tiled_mma(%atom, %l, %perm)
      : (!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>,
         !fly.layout<(2,2,1):(1,2,0)>, !fly.tile<[4|*|*]>)
  %fa = fly.mma.make_fragment(%tm, %p) {operand = "A"}
      : (!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, (2,2,1):(1,2,0), [4|*|*]>,
         !fly.memref<f16, shared, (8,4):(1,8)>)
  %fc = fly.mma.make_fragment(%tm, %p) {operand = "C"}
      : (!fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, (2,2,1):(1,2,0), [4|*|*]>,
         !fly.memref<f16, shared, (8,4):(1,8)>)
  return
}

// make_tiled_copy_A/B/C: the copy takes the MMA operand's thread-value
// layout and tile. With 16 x 16 universal-FMA atoms, A's 16 x 1 tile is
// owned by t % 16 (the 16 thread columns share it, stride 0), C's 16 x 16
// tile by thread m + 16 n.
!atom32 = !fly.copy_atom<!fly.universal_copy<32>, 32>
// CHECK-LABEL: func.func @tiled_copy_for
// CHECK:         fly.make_tiled_copy_for({{.*}}) {operand = "A"}
// CHECK-SAME:      -> !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, ((16,16),(1,(1,1))):((1,0),(0,(0,0))), [16|1]>
// CHECK:         fly.make_tiled_copy_for({{.*}}) {operand = "B"}
// CHECK-SAME:      -> !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, ((16,16),(1,(1,1))):((0,1),(0,(0,0))), [16|1]>
// CHECK:         fly.make_tiled_copy_for({{.*}}) {operand = "C"}
// CHECK-SAME:      -> !fly.tiled_copy<!fly.copy_atom<!fly.universal_copy<32>, 32>, (256,(1,(1,1))):(1,(0,(0,0))), [16|16]>
func.func @tiled_copy_for() {
  %a = fly.static : !atom32
  %m = fly.static : !tm
  %ca = fly.make_tiled_copy_for(%a, %m) {operand = "A"} : (!atom32, !tm)
  %cb = fly.make_tiled_copy_for(%a, %m) {operand = "B"} : (!atom32, !tm)
  %cc = fly.make_tiled_copy_for(%a, %m) {operand = "C"} : (!atom32, !tm)
  return
}
