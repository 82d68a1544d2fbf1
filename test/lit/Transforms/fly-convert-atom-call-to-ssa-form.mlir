// RUN: fly-opt %s -split-input-file --fly-convert-atom-call-to-ssa-form | FileCheck %s

// Atom calls on views after fly-layout-lowering: the register side of a
// copy becomes values read or written with fly.ptr.load/store at the view's
// pointer, the other side stays with the atom; MMA calls take all their
// operands as values.

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, (4):(1), align<16>>
!r = !fly.memref<f32, register, (4):(1)>
!s = !fly.memref<f32, shared, (4):(1), align<16>>

// CHECK-LABEL: func.func @load_form
// CHECK-SAME:    (%[[G:.*]]: !fly.ptr<f32, global, align<16>>, %[[R:.*]]: !fly.ptr<f32, register>)
// CHECK:         %[[GV:.*]] = fly.make_view(%[[G]], %{{.*}})
// CHECK:         %[[V:.*]] = fly.copy_atom_call_ssa(%{{.*}}, %[[GV]]) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, (4):(1), align<16>>) -> vector<4xf32>
// CHECK:         fly.ptr.store(%[[V]], %[[R]]) : (vector<4xf32>, !fly.ptr<f32, register>)
// CHECK-NOT:     fly.copy_atom_call(
func.func @load_form(%pg: !fly.ptr<f32, global, align<16>>, %pr: !fly.ptr<f32, register>) {
  %a = fly.static : !atom
  %l = fly.static : !fly.layout<(4):(1)>
  %g = fly.make_view(%pg, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4):(1)>) -> !g
  %r = fly.make_view(%pr, %l) : (!fly.ptr<f32, register>, !fly.layout<(4):(1)>) -> !r
  fly.copy_atom_call(%a, %g, %r) : (!atom, !g, !r)
  return
}

// CHECK-LABEL: func.func @store_form
// CHECK-SAME:    (%[[R:.*]]: !fly.ptr<f32, register>, %[[S:.*]]: !fly.ptr<f32, shared, align<16>>)
// CHECK:         %[[SV:.*]] = fly.make_view(%[[S]], %{{.*}})
// CHECK:         %[[V:.*]] = fly.ptr.load(%[[R]]) : (!fly.ptr<f32, register>) -> vector<4xf32>
// CHECK:         fly.copy_atom_call_ssa(%{{.*}}, %[[V]], %[[SV]]) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, vector<4xf32>, !fly.memref<f32, shared, (4):(1), align<16>>) -> ()
func.func @store_form(%pr: !fly.ptr<f32, register>, %ps: !fly.ptr<f32, shared, align<16>>) {
  %a = fly.static : !atom
  %l = fly.static : !fly.layout<(4):(1)>
  %r = fly.make_view(%pr, %l) : (!fly.ptr<f32, register>, !fly.layout<(4):(1)>) -> !r
  %s = fly.make_view(%ps, %l) : (!fly.ptr<f32, shared, align<16>>, !fly.layout<(4):(1)>) -> !s
  fly.copy_atom_call(%a, %r, %s) : (!atom, !r, !s)
  return
}

// Memory to memory keeps its form; register to register is a plain move.
// CHECK-LABEL: func.func @both_sides
// CHECK-SAME:    (%{{.*}}: !fly.ptr<f32, global, align<16>>, %{{.*}}: !fly.ptr<f32, shared, align<16>>, %[[R1:.*]]: !fly.ptr<f32, register>, %[[R2:.*]]: !fly.ptr<f32, register>)
// CHECK:         fly.copy_atom_call(%{{.*}}, %{{.*}}, %{{.*}}) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, (4):(1), align<16>>, !fly.memref<f32, shared, (4):(1), align<16>>)
// CHECK:         %[[V:.*]] = fly.ptr.load(%[[R1]]) : (!fly.ptr<f32, register>) -> vector<4xf32>
// CHECK-NEXT:    fly.ptr.store(%[[V]], %[[R2]])
// CHECK-NOT:     fly.copy_atom_call
func.func @both_sides(%pg: !fly.ptr<f32, global, align<16>>, %ps: !fly.ptr<f32, shared, align<16>>, %pr1: !fly.ptr<f32, register>, %pr2: !fly.ptr<f32, register>) {
  %a = fly.static : !atom
  %l = fly.static : !fly.layout<(4):(1)>
  %g = fly.make_view(%pg, %l) : (!fly.ptr<f32, global, align<16>>, !fly.layout<(4):(1)>) -> !g
  %s = fly.make_view(%ps, %l) : (!fly.ptr<f32, shared, align<16>>, !fly.layout<(4):(1)>) -> !s
  %r1 = fly.make_view(%pr1, %l) : (!fly.ptr<f32, register>, !fly.layout<(4):(1)>) -> !r
  %r2 = fly.make_view(%pr2, %l) : (!fly.ptr<f32, register>, !fly.layout<(4):(1)>) -> !r
  fly.copy_atom_call(%a, %g, %s) : (!atom, !g, !s)
  fly.copy_atom_call(%a, %r1, %r2) : (!atom, !r, !r)
  return
}

// -----

// An MMA call reads a, b and c (from registers or memory) and writes d.
!mma = !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
!h = !fly.memref<f16, shared, 1:0>
!c = !fly.memref<f32, register, 1:0>
// CHECK-LABEL: func.func @mma
// CHECK-SAME:    (%[[A:.*]]: !fly.ptr<f16, shared>, %[[B:.*]]: !fly.ptr<f16, shared>, %[[C:.*]]: !fly.ptr<f32, register>)
// CHECK:         %[[VA:.*]] = fly.ptr.load(%[[A]]) : (!fly.ptr<f16, shared>) -> vector<1xf16>
// CHECK:         %[[VB:.*]] = fly.ptr.load(%[[B]]) : (!fly.ptr<f16, shared>) -> vector<1xf16>
// CHECK:         %[[VC:.*]] = fly.ptr.load(%[[C]]) : (!fly.ptr<f32, register>) -> vector<1xf32>
// CHECK:         %[[D:.*]] = fly.mma_atom_call_ssa(%{{.*}}, %[[VA]], %[[VB]], %[[VC]]) : (!fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>, vector<1xf16>, vector<1xf16>, vector<1xf32>) -> vector<1xf32>
// CHECK:         fly.ptr.store(%[[D]], %[[C]]) : (vector<1xf32>, !fly.ptr<f32, register>)
func.func @mma(%pa: !fly.ptr<f16, shared>, %pb: !fly.ptr<f16, shared>, %pc: !fly.ptr<f32, register>) {
  %m = fly.static : !mma
  %l = fly.static : !fly.layout<1:0>
  %a = fly.make_view(%pa, %l) : (!fly.ptr<f16, shared>, !fly.layout<1:0>) -> !h
  %b = fly.make_view(%pb, %l) : (!fly.ptr<f16, shared>, !fly.layout<1:0>) -> !h
  %c = fly.make_view(%pc, %l) : (!fly.ptr<f32, register>, !fly.layout<1:0>) -> !c
  fly.mma_atom_call(%m, %c, %a, %b, %c) : (!mma, !c, !h, !h, !c)
  return
}
