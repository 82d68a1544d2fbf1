// RUN: fly-opt %s | FileCheck %s
// RUN: fly-opt %s | fly-opt | FileCheck %s

// fly.mma.make_fragment takes the whole, unpartitioned tile of an operand,
// as FlyDSL's mma_make_fragment does. The expected types were recorded from
// FlyDSL 0.4.2: the same make_fragment_A/B/C(tile, stages=...) calls on
// thr_slice(0) of the same tiled MMAs of fx.UniversalFMA(fx.Float32), in a
// kernel traced with COMPILE_ONLY=1 ARCH=gfx942, their printed result types.

!fma = !fly.mma_atom<!fly.universal_fma<f32>>
!t221 = !fly.tiled_mma<!fma, (2,2,1):(1,2,0)>

// A row-major 16x16 tile over 2x2 atoms: A and B (1,8,16), C (1,8,8), each
// ordered like the tile's strides (the column mode innermost), C too.
// CHECK-LABEL: func.func @row_major
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,8,16):(0,16,1)>
// CHECK:         {operand = "B"} {{.*}} -> !fly.memref<f32, register, (1,8,16):(0,16,1)>
// CHECK:         {operand = "C"} {{.*}} -> !fly.memref<f32, register, (1,8,8):(0,8,1)>
// CHECK:         {operand = "C", stages = 2 : i64} {{.*}} -> !fly.memref<f32, register, (1,8,8,2):(0,8,1,64)>
// CHECK:         {operand = "A", stages = 3 : i64} {{.*}} -> !fly.memref<f32, register, (1,8,16,3):(0,16,1,128)>
func.func @row_major(%t: !fly.memref<f32, shared, (16,16):(16,1)>) {
  %tm = fly.static : !t221
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!t221, !fly.memref<f32, shared, (16,16):(16,1)>)
  %b = fly.mma.make_fragment(%tm, %t) {operand = "B"} : (!t221, !fly.memref<f32, shared, (16,16):(16,1)>)
  %c = fly.mma.make_fragment(%tm, %t) {operand = "C"} : (!t221, !fly.memref<f32, shared, (16,16):(16,1)>)
  %c2 = fly.mma.make_fragment(%tm, %t) {operand = "C", stages = 2 : i64} : (!t221, !fly.memref<f32, shared, (16,16):(16,1)>)
  %a3 = fly.mma.make_fragment(%tm, %t) {operand = "A", stages = 3 : i64} : (!t221, !fly.memref<f32, shared, (16,16):(16,1)>)
  return
}

// A tile that the atom layout does not divide (6x5 over 2x2): rounded up.
// CHECK-LABEL: func.func @ragged
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,3,5):(0,1,3)>
// CHECK:         {operand = "C"} {{.*}} -> !fly.memref<f32, register, (1,3,3):(0,1,3)>
// CHECK:         {operand = "C", stages = 2 : i64} {{.*}} -> !fly.memref<f32, register, (1,3,3,2):(0,1,3,9)>
func.func @ragged(%t: !fly.memref<f32, global, (6,5):(1,6)>) {
  %tm = fly.static : !t221
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!t221, !fly.memref<f32, global, (6,5):(1,6)>)
  %c = fly.mma.make_fragment(%tm, %t) {operand = "C"} : (!t221, !fly.memref<f32, global, (6,5):(1,6)>)
  %c2 = fly.mma.make_fragment(%tm, %t) {operand = "C", stages = 2 : i64} : (!t221, !fly.memref<f32, global, (6,5):(1,6)>)
  return
}

// Dynamic strides only order the modes (static ones first), as for a block
// tile of a row-major kernel argument.
// CHECK-LABEL: func.func @dynamic_stride
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,8,8):(0,8,1)>
// CHECK:         {operand = "A", stages = 2 : i64} {{.*}} -> !fly.memref<f32, register, (1,8,8,2):(0,8,1,64)>
func.func @dynamic_stride(%t: !fly.memref<f32, global, (16,8):(?,1)>) {
  %tm = fly.static : !t221
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!t221, !fly.memref<f32, global, (16,8):(?,1)>)
  %a2 = fly.mma.make_fragment(%tm, %t) {operand = "A", stages = 2 : i64} : (!t221, !fly.memref<f32, global, (16,8):(?,1)>)
  return
}

// Extra modes are carried along; with stages only the first two modes are
// partitioned and the stage mode replaces the rest.
!t411 = !fly.tiled_mma<!fma, (4,1,1):(1,0,0)>
// CHECK-LABEL: func.func @extra_mode
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,2,4,3):(0,1,2,8)>
// CHECK:         {operand = "B", stages = 2 : i64} {{.*}} -> !fly.memref<f32, register, (1,8,4,2):(0,1,8,32)>
func.func @extra_mode(%t: !fly.memref<f32, shared, (8,4,3):(1,8,32)>) {
  %tm = fly.static : !t411
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!t411, !fly.memref<f32, shared, (8,4,3):(1,8,32)>)
  %b2 = fly.mma.make_fragment(%tm, %t) {operand = "B", stages = 2 : i64} : (!t411, !fly.memref<f32, shared, (8,4,3):(1,8,32)>)
  return
}

// An already partitioned tensor is a tile like any other: no special case.
// CHECK-LABEL: func.func @partition_as_tile
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,1,8,8):(0,0,1,8)>
// CHECK:         {operand = "C"} {{.*}} -> !fly.memref<f32, register, (1,1,4,8):(0,0,1,4)>
func.func @partition_as_tile(%t: !fly.memref<f32, register, (1,8,8):(0,1,8)>) {
  %tm = fly.static : !t221
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!t221, !fly.memref<f32, register, (1,8,8):(0,1,8)>)
  %c = fly.mma.make_fragment(%tm, %t) {operand = "C"} : (!t221, !fly.memref<f32, register, (1,8,8):(0,1,8)>)
  return
}

// Permutations: an M permutation (2,4):(4,1) nests the rest mode.
!tperm = !fly.tiled_mma<!fma, (2,2,1):(1,2,0), [(2,4):(4,1)|8|*]>
// CHECK-LABEL: func.func @permuted
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f32, register, (1,(4,2),8):(0,(1,4),8)>
// CHECK:         {operand = "B"} {{.*}} -> !fly.memref<f32, register, (1,8,8):(0,1,8)>
// CHECK:         {operand = "C", stages = 2 : i64} {{.*}} -> !fly.memref<f32, register, (1,(4,2),4,2):(0,(1,4),8,32)>
func.func @permuted(%t: !fly.memref<f32, shared, (16,8):(1,16)>) {
  %tm = fly.static : !tperm
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!tperm, !fly.memref<f32, shared, (16,8):(1,16)>)
  %b = fly.mma.make_fragment(%tm, %t) {operand = "B"} : (!tperm, !fly.memref<f32, shared, (16,8):(1,16)>)
  %c2 = fly.mma.make_fragment(%tm, %t) {operand = "C", stages = 2 : i64} : (!tperm, !fly.memref<f32, shared, (16,8):(1,16)>)
  return
}

// The element type is the MMA operation's, not the tile's (a mixed-type
// universal FMA, which FlyDSL's UniversalFMA cannot spell: not recorded).
!tmixed = !fly.tiled_mma<!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, (1,1,1):(0,0,0)>
// CHECK-LABEL: func.func @element_types
// CHECK:         {operand = "A"} {{.*}} -> !fly.memref<f16, register, (1,8,4):(0,1,8)>
// CHECK:         {operand = "C"} {{.*}} -> !fly.memref<f32, register, (1,8,4):(0,1,8)>
func.func @element_types(%t: !fly.memref<i8, global, (8,4):(1,8)>) {
  %tm = fly.static : !tmixed
  %a = fly.mma.make_fragment(%tm, %t) {operand = "A"} : (!tmixed, !fly.memref<i8, global, (8,4):(1,8)>)
  %c = fly.mma.make_fragment(%tm, %t) {operand = "C"} : (!tmixed, !fly.memref<i8, global, (8,4):(1,8)>)
  return
}
