// RUN: fly-opt %s | fly-opt | FileCheck %s --check-prefix=ROUND
// RUN: fly-opt %s --fly-canonicalize | FileCheck %s --check-prefix=CANON
// RUN: fly-opt %s --fly-canonicalize --fly-layout-lowering --canonicalize --fly-convert-atom-call-to-ssa-form --fly-promote-regmem-to-vectorssa --convert-fly-to-rocdl --canonicalize | FileCheck %s --check-prefix=LOWER

// atom.set_value: universal_fma's run-time `accumulate` field. It prints
// and parses back, fly-canonicalize keeps it (its type is static, its
// field is not), and a gemm with the atom selects zero for C when the
// field is false: d = a * b + (accumulate ? c : 0).

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!tm = !fly.tiled_mma<!mma, (16,16,1):(1,16,256)>
!f = !fly.memref<f32, global, 1:0>

// ROUND-LABEL: func.func @first_k
// ROUND:         fly.atom.set_value(%{{.*}}, %{{.*}}) {field = "accumulate"} : (!fly.mma_atom<!fly.universal_fma<f32>>, i1) -> !fly.mma_atom<!fly.universal_fma<f32>>
// CANON-LABEL: func.func @first_k
// CANON:         %[[M:.*]] = fly.atom.set_value
// CANON:         fly.gemm(%[[M]],
// LOWER-LABEL: func.func @first_k
// LOWER-SAME:    (%[[D:.*]]: !llvm.ptr<1>, %[[A:.*]]: !llvm.ptr<1>, %[[B:.*]]: !llvm.ptr<1>, %[[ACC:.*]]: i1)
// LOWER-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1xf32>
// LOWER-DAG:     %[[VA:.*]] = llvm.load %[[A]]
// LOWER-DAG:     %[[VB:.*]] = llvm.load %[[B]]
// LOWER-DAG:     %[[VC:.*]] = llvm.load %[[D]]
// LOWER:         %[[C:.*]] = arith.select %[[ACC]], %[[VC]], %[[ZERO]] : vector<1xf32>
// LOWER:         %[[R:.*]] = llvm.intr.fma(%[[VA]], %[[VB]], %[[C]])
// LOWER:         llvm.store %[[R]], %[[D]]
// LOWER-NOT:     fly.
func.func @first_k(%pd: !llvm.ptr<1>, %pa: !llvm.ptr<1>, %pb: !llvm.ptr<1>, %acc: i1) {
  %l = fly.static : !fly.layout<1:0>
  %xd = fly.make_ptr(%pd) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %xa = fly.make_ptr(%pa) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %xb = fly.make_ptr(%pb) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %d = fly.make_view(%xd, %l) : (!fly.ptr<f32, global>, !fly.layout<1:0>) -> !f
  %a = fly.make_view(%xa, %l) : (!fly.ptr<f32, global>, !fly.layout<1:0>) -> !f
  %b = fly.make_view(%xb, %l) : (!fly.ptr<f32, global>, !fly.layout<1:0>) -> !f
  %m = fly.static : !mma
  %m2 = fly.atom.set_value(%m, %acc) {field = "accumulate"} : (!mma, i1) -> !mma
  fly.gemm(%m2, %d, %a, %b, %d) : (!mma, !f, !f, !f, !f)
  return
}

// The latest set_value of a field wins; a tiled MMA has its atom's fields.
// LOWER-LABEL: func.func @latest
// LOWER-SAME:    (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i1, %[[SECOND:.*]]: i1)
// LOWER:         arith.select %[[SECOND]]
func.func @latest(%p: !llvm.ptr<1>, %first: i1, %second: i1) {
  %l = fly.static : !fly.layout<1:0>
  %x = fly.make_ptr(%p) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
  %t = fly.make_view(%x, %l) : (!fly.ptr<f32, global>, !fly.layout<1:0>) -> !f
  %m = fly.static : !tm
  %m1 = fly.atom.set_value(%m, %first) {field = "accumulate"} : (!tm, i1) -> !tm
  %m2 = fly.atom.set_value(%m1, %second) {field = "accumulate"} : (!tm, i1)
  fly.gemm(%m2, %t, %t, %t, %t) : (!tm, !f, !f, !f, !f)
  return
}
