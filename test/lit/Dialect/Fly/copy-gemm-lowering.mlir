// RUN: fly-opt %s -split-input-file | fly-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: fly-opt %s -split-input-file --fly-layout-lowering --canonicalize --cse | FileCheck %s
// RUN: fly-opt %s -split-input-file --fly-layout-lowering --canonicalize --fly-convert-atom-call-to-ssa-form --canonicalize --cse | FileCheck %s --check-prefix=SSA

// fly.copy and fly.gemm print and parse back, expand in fly-layout-lowering
// into the atom calls of CuTe's copy/gemm loops, and those calls take their
// register sides as values in fly-convert-atom-call-to-ssa-form.

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2,2):((1,0),64,1024), align<16>>
!r = !fly.memref<f32, register, ((4,1),2,2):((1,0),4,8)>
!p = !fly.memref<i1, register, (2,2):(1,2)>

// ROUND-LABEL: func.func @copy_if
// ROUND:         fly.copy(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, ((4,1),2,2):((1,0),64,1024), align<16>>, !fly.memref<f32, register, ((4,1),2,2):((1,0),4,8)>, !fly.memref<i1, register, (2,2):(1,2)>)

// Four slices, column-major over the rest modes (2,2): global offsets 0,
// 64, 1024, 1088, register offsets 0, 4, 8, 12, each under its flag.
// CHECK-LABEL: func.func @copy_if
// CHECK-SAME:    (%[[G:.*]]: !fly.memref<{{.*}}>, %[[R:.*]]: !fly.memref<{{.*}}>, %[[P:.*]]: !fly.memref<i1, {{.*}}>)
// CHECK-DAG:     %[[PP:.*]] = fly.get_iter(%[[P]])
// CHECK-DAG:     %[[GP:.*]] = fly.get_iter(%[[G]])
// CHECK-DAG:     %[[RP:.*]] = fly.get_iter(%[[R]])
// CHECK:         %[[F0:.*]] = fly.ptr.load(%[[PP]]) : (!fly.ptr<i1, register>) -> i1
// CHECK:         scf.if %[[F0]] {
// CHECK:           %[[S0:.*]] = fly.make_view(%[[GP]], %{{.*}}) {{.*}} -> !fly.memref<f32, global, ((4,1)):((1,0)), align<16>>
// CHECK:           %[[D0:.*]] = fly.make_view(%[[RP]], %{{.*}}) {{.*}} -> !fly.memref<f32, register, ((4,1)):((1,0))>
// CHECK:           fly.copy_atom_call(%{{.*}}, %[[S0]], %[[D0]])
// CHECK:         }
// CHECK:         %[[F1:.*]] = fly.ptr.load(%{{.*}}) : (!fly.ptr<i1, register>) -> i1
// CHECK:         scf.if %[[F1]] {
// CHECK:           fly.static : !fly.int_tuple<64>
// CHECK:           fly.static : !fly.int_tuple<4>
// CHECK:           fly.copy_atom_call
// CHECK:         scf.if
// CHECK:           fly.static : !fly.int_tuple<1024>
// CHECK:           fly.static : !fly.int_tuple<8>
// CHECK:           fly.copy_atom_call
// CHECK:         scf.if
// CHECK:           fly.static : !fly.int_tuple<1088>
// CHECK:           fly.static : !fly.int_tuple<12>
// CHECK:           fly.copy_atom_call
// CHECK-NOT:     fly.copy(

// The register destination becomes a vector store of the loaded values.
// SSA-LABEL: func.func @copy_if
// SSA:         scf.if
// SSA:           %[[V:.*]] = fly.copy_atom_call_ssa(%{{.*}}, %{{.*}}) : ({{.*}}, !fly.memref<f32, global, ((4,1)):((1,0)), align<16>>) -> vector<4xf32>
// SSA:           fly.ptr.store(%[[V]], %{{.*}}) : (vector<4xf32>, !fly.ptr<f32, register>)
// SSA-NOT:     fly.copy_atom_call(
func.func @copy_if(%g: !g, %r: !r, %p: !p) {
  %a = fly.static : !atom
  fly.copy(%a, %g, %r, %p) : (!atom, !g, !r, !p)
  return
}

// -----

// A value mode of 8 elements is two 128-bit calls (CuTe peels the value
// mode); a register source is read as a vector and stored by the atom.
!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!r = !fly.memref<f32, register, ((4,2)):((1,4))>
!s = !fly.memref<f32, shared, ((4,2)):((1,32)), align<16>>

// CHECK-LABEL: func.func @peel
// CHECK-COUNT-2: fly.copy_atom_call(
// CHECK-NOT:     fly.copy_atom_call(
// SSA-LABEL: func.func @peel
// SSA:         %[[V0:.*]] = fly.ptr.load(%{{.*}}) : (!fly.ptr<f32, register>) -> vector<4xf32>
// SSA:         fly.copy_atom_call_ssa(%{{.*}}, %[[V0]], %{{.*}}) : ({{.*}}, vector<4xf32>, !fly.memref<f32, shared, (4):(1), align<16>>) -> ()
// SSA:         fly.static : !fly.int_tuple<32>
// SSA:         %[[V1:.*]] = fly.ptr.load(%{{.*}}) : (!fly.ptr<f32, register>) -> vector<4xf32>
// SSA:         fly.copy_atom_call_ssa(%{{.*}}, %[[V1]], %{{.*}})
func.func @peel(%r: !r, %s: !s) {
  %a = fly.static : !atom
  fly.copy(%a, %r, %s) : (!atom, !r, !s)
  return
}

// -----

// Behind a swizzle, each call's operand becomes a plain view at the
// swizzled address of its first element: S<3,2,3> xors bits 5-7 of the
// index into bits 2-4, so the slices at 32, 64 and 96 start at 36, 72 and
// 108 (the register side stays at 4, 8, 12).
!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!s = !fly.memref<f32, shared, S<3,2,3> o 0 o ((4,2),2):((1,32),64), align<16>>
!r = !fly.memref<f32, register, ((4,2),2):((1,4),8)>

// CHECK-LABEL: func.func @swizzled
// CHECK:         fly.copy_atom_call(%{{.*}}, %{{.*}}, %{{.*}}) : ({{.*}}, !fly.memref<f32, shared, (4):(1), align<16>>, !fly.memref<f32, register, (4):(1)>)
// CHECK:         fly.static : !fly.int_tuple<36>
// CHECK:         fly.copy_atom_call(
// CHECK:         fly.static : !fly.int_tuple<72>
// CHECK:         fly.copy_atom_call(
// CHECK:         fly.static : !fly.int_tuple<108>
// CHECK:         fly.copy_atom_call(
func.func @swizzled(%s: !s, %r: !r) {
  %a = fly.static : !atom
  fly.copy(%a, %s, %r) : (!atom, !s, !r)
  return
}

// -----

// gemm (V,M) x (V,N) => (V,M,N) with the universal FMA: 2x2 calls in
// row-major serpentine order (m, n) = (0,0) (0,1) (1,1) (1,0); C at
// m + 2n.
!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!c = !fly.memref<f32, register, (1,2,2):(0,1,2)>
!ab = !fly.memref<f32, register, (1,2):(0,1)>

// ROUND-LABEL: func.func @gemm
// ROUND:         fly.gemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!fly.mma_atom<!fly.universal_fma<f32>>, !fly.memref<f32, register, (1,2,2):(0,1,2)>, !fly.memref<f32, register, (1,2):(0,1)>, !fly.memref<f32, register, (1,2):(0,1)>, !fly.memref<f32, register, (1,2,2):(0,1,2)>)
// CHECK-LABEL: func.func @gemm
// CHECK-COUNT-4: fly.mma_atom_call(
// SSA-LABEL: func.func @gemm
// SSA-SAME:    (%[[C:.*]]: !fly.memref<{{.*}}>, %[[A:.*]]: !fly.memref<{{.*}}>, %[[B:.*]]: !fly.memref<{{.*}}>)
// SSA-DAG:     %[[CP:.*]] = fly.get_iter(%[[C]])
// SSA-DAG:     %[[AP:.*]] = fly.get_iter(%[[A]])
// SSA-DAG:     %[[BP:.*]] = fly.get_iter(%[[B]])
// SSA:         %[[A0:.*]] = fly.ptr.load(%[[AP]]) : (!fly.ptr<f32, register>) -> vector<1xf32>
// SSA:         %[[B0:.*]] = fly.ptr.load(%[[BP]]) : (!fly.ptr<f32, register>) -> vector<1xf32>
// SSA:         %[[C0:.*]] = fly.ptr.load(%[[CP]]) : (!fly.ptr<f32, register>) -> vector<1xf32>
// SSA:         %[[D0:.*]] = fly.mma_atom_call_ssa(%{{.*}}, %[[A0]], %[[B0]], %[[C0]])
// SSA:         fly.ptr.store(%[[D0]], %[[CP]])
// SSA:         %[[TWO:.*]] = fly.static : !fly.int_tuple<2>
// SSA:         %[[C1P:.*]] = fly.add_offset(%[[CP]], %[[TWO]])
// SSA:         fly.mma_atom_call_ssa
// SSA:         fly.ptr.store(%{{.*}}, %[[C1P]])
// SSA:         %[[THREE:.*]] = fly.static : !fly.int_tuple<3>
// SSA:         %[[C3P:.*]] = fly.add_offset(%[[CP]], %[[THREE]])
// SSA:         fly.mma_atom_call_ssa
// SSA:         fly.ptr.store(%{{.*}}, %[[C3P]])
// SSA:         %[[C2P:.*]] = fly.add_offset(%[[CP]], %{{.*}}) : (!fly.ptr<f32, register>, !fly.int_tuple<1>)
// SSA:         fly.mma_atom_call_ssa
// SSA:         fly.ptr.store(%{{.*}}, %[[C2P]])
// SSA-NOT:     fly.mma_atom_call(
func.func @gemm(%c: !c, %a: !ab, %b: !ab) {
  %m = fly.static : !mma
  fly.gemm(%m, %c, %a, %b, %c) : (!mma, !c, !ab, !ab, !c)
  return
}

// -----

// An MMA operand whose values are not adjacent is gathered element by
// element and scattered back the same way.
!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!f = !fly.memref<f32, register, 1:0>
// SSA-LABEL: func.func @mma_call
// SSA:         fly.mma_atom_call_ssa
// SSA-SAME:      (!fly.mma_atom<!fly.universal_fma<f32>>, vector<1xf32>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
func.func @mma_call(%d: !f, %a: !fly.memref<f32, shared, 1:0>, %b: !f) {
  %m = fly.static : !mma
  fly.mma_atom_call(%m, %d, %a, %b, %d) : (!mma, !f, !fly.memref<f32, shared, 1:0>, !f, !f)
  return
}

// -----

// gemm with a traversal: the (m, n, k) tiles (1,1,0) (0,0,0) (1,1,0) of a
// (V,M)x(V,N)=>(V,M,N) gemm whose D is not C: one call per listed tile, in
// that order (tile (0,1) is not listed: no call); the first call on a tile
// reads C's tile, the later one D's. Tile (m, n) is at m + 2n.
!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!c = !fly.memref<f32, register, (1,2,2):(0,1,2)>
!ab = !fly.memref<f32, register, (1,2):(0,1)>

// ROUND-LABEL: func.func @gemm_traversal
// ROUND:         fly.gemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {traversal = array<i32: 1, 1, 0, 0, 0, 0, 1, 1, 0>} : (
// CHECK-LABEL: func.func @gemm_traversal
// CHECK-COUNT-3: fly.mma_atom_call(
// CHECK-NOT:     fly.mma_atom_call(
// SSA-LABEL: func.func @gemm_traversal
// SSA-SAME:    (%[[D:[^:]*]]: !fly.memref<{{.*}}>, %[[C:[^:]*]]: !fly.memref<{{.*}}>, %[[A:[^:]*]]: !fly.memref<{{.*}}>, %[[B:[^:]*]]: !fly.memref<{{.*}}>)
// SSA-DAG:     %[[CP:.*]] = fly.get_iter(%[[C]])
// SSA-DAG:     %[[BP:.*]] = fly.get_iter(%[[B]])
// SSA-DAG:     %[[AP:.*]] = fly.get_iter(%[[A]])
// SSA-DAG:     %[[DP:.*]] = fly.get_iter(%[[D]])
// SSA-DAG:     %[[THREE:.*]] = fly.static : !fly.int_tuple<3>
// SSA-DAG:     %[[D3:.*]] = fly.add_offset(%[[DP]], %[[THREE]])
// SSA-DAG:     %[[A1:.*]] = fly.add_offset(%[[AP]], %{{.*}})
// SSA-DAG:     %[[B1:.*]] = fly.add_offset(%[[BP]], %{{.*}})
// SSA-DAG:     %[[C3:.*]] = fly.add_offset(%[[CP]], %[[THREE]])
// SSA:         fly.ptr.load(%[[A1]])
// SSA-NEXT:    fly.ptr.load(%[[B1]])
// SSA-NEXT:    fly.ptr.load(%[[C3]])
// SSA-NEXT:    %[[R0:.*]] = fly.mma_atom_call_ssa
// SSA-NEXT:    fly.ptr.store(%[[R0]], %[[D3]])
// SSA-NEXT:    fly.ptr.load(%[[AP]])
// SSA-NEXT:    fly.ptr.load(%[[BP]])
// SSA-NEXT:    fly.ptr.load(%[[CP]])
// SSA-NEXT:    %[[R1:.*]] = fly.mma_atom_call_ssa
// SSA-NEXT:    fly.ptr.store(%[[R1]], %[[DP]])
// SSA-NEXT:    fly.ptr.load(%[[A1]])
// SSA-NEXT:    fly.ptr.load(%[[B1]])
// SSA-NEXT:    fly.ptr.load(%[[D3]])
// SSA-NEXT:    %[[R2:.*]] = fly.mma_atom_call_ssa
// SSA-NEXT:    fly.ptr.store(%[[R2]], %[[D3]])
// SSA-NOT:     fly.mma_atom_call_ssa
func.func @gemm_traversal(%d: !c, %c: !c, %a: !ab, %b: !ab) {
  %m = fly.static : !mma
  fly.gemm(%m, %d, %a, %b, %c) {traversal = array<i32: 1, 1, 0, 0, 0, 0, 1, 1, 0>} : (!mma, !c, !ab, !ab, !c)
  return
}

// -----

// A static side decides the number of calls when the other is dynamic: one
// register value into a tensor of dynamic size is one 32-bit call, and a
// (4,8) fragment against (4,?) global columns is eight 128-bit calls.
!atom32 = !fly.copy_atom<!fly.universal_copy<32>, 32>
!atom128 = !fly.copy_atom<!fly.universal_copy<128>, 32>
// CHECK-LABEL: func.func @static_side_decides
// CHECK:         fly.copy_atom_call(%{{.*}}, %{{.*}}, %{{.*}}) : (!fly.copy_atom<!fly.universal_copy<32>, 32>, !fly.memref<f32, register, 1:1>, !fly.memref<f32, global, 1:0>)
// CHECK-NOT:     universal_copy<32>
// CHECK-COUNT-8: fly.copy_atom_call(%{{.*}}, %{{.*}}, %{{.*}}) : (!fly.copy_atom<!fly.universal_copy<128>, 32>, !fly.memref<f32, global, (4):(1)>, !fly.memref<f32, register, (4):(1)>)
// CHECK-NOT:     fly.copy_atom_call
// CHECK:         return
func.func @static_side_decides(%r1: !fly.memref<f32, register, 1:1>, %g1: !fly.memref<f32, global, ?:1>,
                               %g: !fly.memref<f32, global, (4,?):(1,?)>, %r: !fly.memref<f32, register, (4,8):(1,4)>) {
  %a32 = fly.static : !atom32
  fly.copy(%a32, %r1, %g1) : (!atom32, !fly.memref<f32, register, 1:1>, !fly.memref<f32, global, ?:1>)
  %a128 = fly.static : !atom128
  fly.copy(%a128, %g, %r) : (!atom128, !fly.memref<f32, global, (4,?):(1,?)>, !fly.memref<f32, register, (4,8):(1,4)>)
  return
}
