// RUN: fly-opt %s -split-input-file | fly-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: fly-opt %s -split-input-file --fly-layout-lowering --canonicalize --cse | FileCheck %s --check-prefix=CALLS
// RUN: fly-opt %s -split-input-file --fly-layout-lowering --canonicalize --fly-convert-atom-call-to-ssa-form --fly-promote-regmem-to-vectorssa --convert-fly-to-rocdl=chip=gfx950 --canonicalize --cse | FileCheck %s

// Operand groups of fly.gemm and fly.mma_atom_call on gfx950's scaled
// MFMA: `[a, scale_a]`, `[b, scale_b]` (the types in line). The gemm's
// layout lowering slices each scale fragment (1, M, K) at the tile of its
// operand; the SSA form sets the call's scale_a / scale_b to the slice's
// value, which reaches the instruction in place of the atom's field.

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>
!s = !fly.memref<i32, register, (1,1,2):(0,0,1)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>

// ROUND-LABEL: func.func @gemm_groups
// ROUND:         fly.gemm(%{{.*}}, %[[C:.*]], [%[[A:.*]], %[[SA:.*]]], [%[[B:.*]], %[[SB:.*]]], %[[C]]) : (!fly.mma_atom<{{.*}}>, !fly.memref<f32, register, (4,1,1):(1,0,0)>, !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>, !fly.memref<i32, register, (1,1,2):(0,0,1)>, !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>, !fly.memref<i32, register, (1,1,2):(0,0,1)>, !fly.memref<f32, register, (4,1,1):(1,0,0)>){{$}}

// Two calls, K = 0 and 1: A and B at offsets 0 and 32, their scales at 0
// and 1, one value each.
// CALLS-LABEL: func.func @gemm_groups
// CALLS:         fly.mma_atom_call(%{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], %{{.*}}) : (!fly.mma_atom<{{.*}}>, !fly.memref<f32, register, (4):(1)>, !fly.memref<f8E4M3FN, register, (32):(1)>, !fly.memref<i32, register, 1:0>, !fly.memref<f8E4M3FN, register, (32):(1)>, !fly.memref<i32, register, 1:0>, !fly.memref<f32, register, (4):(1)>)
// CALLS:         fly.static : !fly.int_tuple<32>
// CALLS:         fly.static : !fly.int_tuple<1>
// CALLS:         fly.mma_atom_call(%{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], %{{.*}})
// CALLS-NOT:     fly.mma_atom_call(
// CALLS:         return

// CHECK-LABEL: func.func @gemm_groups
// CHECK-SAME:    (%{{.*}}: vector<64xf8E4M3FN>, %{{.*}}: vector<64xf8E4M3FN>, %[[SA:.*]]: vector<2xi32>, %[[SB:.*]]: vector<2xi32>)
// CHECK-DAG:     %[[SA0:.*]] = vector.extract %[[SA]][0] : i32 from vector<2xi32>
// CHECK-DAG:     %[[SB0:.*]] = vector.extract %[[SB]][0] : i32 from vector<2xi32>
// CHECK:         %[[D0:.*]] = rocdl.mfma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA0]], %{{.*}}, %[[SB0]] :
// CHECK-DAG:     %[[SA1:.*]] = vector.extract %[[SA]][1] : i32 from vector<2xi32>
// CHECK-DAG:     %[[SB1:.*]] = vector.extract %[[SB]][1] : i32 from vector<2xi32>
// CHECK:         %[[D1:.*]] = rocdl.mfma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %[[D0]], %{{.*}}, %{{.*}}, %{{.*}}, %[[SA1]], %{{.*}}, %[[SB1]] :
// CHECK:         return %[[D1]]
func.func @gemm_groups(%va: vector<64xf8E4M3FN>, %vb: vector<64xf8E4M3FN>, %sa: vector<2xi32>, %sb: vector<2xi32>) -> vector<4xf32> {
  %a = fly.memref.alloca : !ab
  %b = fly.memref.alloca : !ab
  %xa = fly.memref.alloca : !s
  %xb = fly.memref.alloca : !s
  %c = fly.memref.alloca : !c
  fly.memref.store_vec(%va, %a) : (vector<64xf8E4M3FN>, !ab)
  fly.memref.store_vec(%vb, %b) : (vector<64xf8E4M3FN>, !ab)
  fly.memref.store_vec(%sa, %xa) : (vector<2xi32>, !s)
  fly.memref.store_vec(%sb, %xb) : (vector<2xi32>, !s)
  %zero = arith.constant dense<0.0> : vector<4xf32>
  fly.memref.store_vec(%zero, %c) : (vector<4xf32>, !c)
  %m = fly.static : !mma
  fly.gemm(%m, %c, [%a, %xa], [%b, %xb], %c) : (!mma, !c, !ab, !s, !ab, !s, !c)
  %r = fly.memref.load_vec(%c) : (!c) -> vector<4xf32>
  return %r : vector<4xf32>
}

// -----

// A group may leave out its scale: B's then comes from the atom's field
// (set here with fly.atom.set_value), A's from the group. The single
// operand prints without brackets.
!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,1):(1,0,0)>
!s = !fly.memref<i32, register, (1,1,1):(0,0,0)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>

// ROUND-LABEL: func.func @one_group
// ROUND:         fly.gemm(%{{.*}}, %[[C:.*]], [%{{.*}}, %{{.*}}], %{{.*}}, %[[C]]) :

// CHECK-LABEL: func.func @one_group
// CHECK-SAME:    (%{{.*}}: vector<32xf8E4M3FN>, %[[SA:.*]]: i32, %[[FIELD_B:.*]]: i32)
// CHECK:         rocdl.mfma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA]], %{{.*}}, %[[FIELD_B]] :
func.func @one_group(%v: vector<32xf8E4M3FN>, %sa: i32, %sb: i32) -> vector<4xf32> {
  %a = fly.memref.alloca : !ab
  %xa = fly.memref.alloca : !s
  %c = fly.memref.alloca : !c
  fly.memref.store_vec(%v, %a) : (vector<32xf8E4M3FN>, !ab)
  %va = vector.from_elements %sa : vector<1xi32>
  fly.memref.store_vec(%va, %xa) : (vector<1xi32>, !s)
  %zero = arith.constant dense<0.0> : vector<4xf32>
  fly.memref.store_vec(%zero, %c) : (vector<4xf32>, !c)
  %m0 = fly.static : !mma
  %m1 = fly.atom.set_value(%m0, %sb) {field = "scale_b"} : (!mma, i32) -> !mma
  fly.gemm(%m1, %c, [%a, %xa], %a, %c) : (!mma, !c, !ab, !s, !ab, !c)
  %r = fly.memref.load_vec(%c) : (!c) -> vector<4xf32>
  return %r : vector<4xf32>
}
