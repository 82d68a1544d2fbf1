// RUN: fly-opt %s -split-input-file -verify-diagnostics

// Operand groups that do not fit the atom: an auxiliary operand on an
// atom that takes none, more than it takes, of the wrong type or shape.

!mma = !fly.mma_atom<!fly_rocdl.cdna3.mfma<16x16x32, (f8E4M3FN, f8E4M3FN) -> f32>>
!ab = !fly.memref<f8E4M3FN, register, 8:1>
!s = !fly.memref<i32, register, 1:1>
!c = !fly.memref<f32, register, 4:1>
func.func @not_scaled(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.mma_atom_call' op the A group has 1 auxiliary operand(s); MFMA(16, 16, 32, f8E4M3FN) takes none}}
  fly.mma_atom_call(%m, %c, [%a, %s], %a, %c) : (!mma, !c, !ab, !s, !ab, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!r = !fly.memref<f32, register, 1:1>
func.func @universal_fma(%m: !mma, %r: !r) {
  // expected-error @+1 {{'fly.gemm' op the B group has 1 auxiliary operand(s); UniversalFMA takes none}}
  fly.gemm(%m, %r, %r, [%r, %r], %r) : (!mma, !r, !r, !r, !r, !r)
  return
}

// -----

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,1):(1,0,0)>
!s = !fly.memref<i32, register, (1,1,1):(0,0,0)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>
func.func @too_many(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.gemm' op the A group has 2 auxiliary operand(s); MFMA_Scale(16, 16, 128, f8E4M3FN, f8E4M3FN) takes at most 1 (scale_a)}}
  fly.gemm(%m, %c, [%a, %s, %s], [%a, %s], %c) : (!mma, !c, !ab, !s, !s, !ab, !s, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,1):(1,0,0)>
!s = !fly.memref<f32, register, (1,1,1):(0,0,0)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>
func.func @scale_type(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.gemm' op auxiliary operand 0 of B sets field 'scale_b' ('i32'); its elements must be 'i32' or a narrower integer, not 'f32'}}
  fly.gemm(%m, %c, %a, [%a, %s], %c) : (!mma, !c, !ab, !ab, !s, !c)
  return
}

// -----

// A (V,M,K) operand's scale fragment is (1,M,K), not (1,M).
!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>
!s = !fly.memref<i32, register, (1,1):(0,0)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>
func.func @scale_rank(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.gemm' op gemm: the auxiliary operand (1,1):(0,0) of A has rank 2, its operand (32,1,2):(1,0,32) rank 3}}
  fly.gemm(%m, %c, [%a, %s], %a, %c) : (!mma, !c, !ab, !s, !ab, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>
!s = !fly.memref<i32, register, (1,1,3):(0,0,1)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>
func.func @scale_tiles(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.gemm' op gemm: mode 2 of the auxiliary operand (1,1,3):(0,0,1) of A has 3 elements, of (32,1,2):(1,0,32) 2}}
  fly.gemm(%m, %c, [%a, %s], %a, %c) : (!mma, !c, !ab, !s, !ab, !c)
  return
}

// -----

// One scale per call: a value mode of 2 is two.
!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, (32,1,2):(1,0,32)>
!s = !fly.memref<i32, register, (2,1,2):(1,0,2)>
!c = !fly.memref<f32, register, (4,1,1):(1,0,0)>
func.func @scale_values(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.gemm' op an auxiliary operand of B has 2:1 in a call, 2 values; a call takes one}}
  fly.gemm(%m, %c, %a, [%a, %s], %c) : (!mma, !c, !ab, !ab, !s, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, 32:1>
!s = !fly.memref<i32, register, 2:1>
!c = !fly.memref<f32, register, 4:1>
func.func @call_scale_values(%m: !mma, %a: !ab, %s: !s, %c: !c) {
  // expected-error @+1 {{'fly.mma_atom_call' op an auxiliary operand of A has 2:1 in a call, 2 values; a call takes one}}
  fly.mma_atom_call(%m, %c, [%a, %s], %a, %c) : (!mma, !c, !ab, !s, !ab, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (0, 0)>>
!ab = !fly.memref<f8E4M3FN, register, 32:1>
!c = !fly.memref<f32, register, 4:1>
func.func @empty_group(%m: !mma, %a: !ab, %c: !c) {
  // expected-error @+1 {{'fly.mma_atom_call' op the A group is empty; it starts with the operand}}
  fly.mma_atom_call(%m, %c, [], %a, %c) : (!mma, !c, !ab, !c)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<32>, 32>
!r = !fly.memref<f32, register, 1:1>
func.func @copy_has_no_groups(%a: !atom, %r: !r) {
  // expected-error @+1 {{'fly.copy' takes no operand groups ('[...]')}}
  fly.copy(%a, [%r, %r], %r) : (!atom, !r, !r, !r)
  return
}
