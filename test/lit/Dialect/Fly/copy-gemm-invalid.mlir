// RUN: fly-opt %s -split-input-file -verify-diagnostics
// Verifier errors of fly.copy, fly.gemm and the atom calls: a copy between
// tensors whose layouts do not fit the atom (values not contiguous, ranks,
// slice counts, element widths, a swizzle that splits a call), predicates,
// atomics into registers, gemm operands, and the value forms.

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2):((1,0),64), align<16>>

func.func @strided(%g: !g, %r: !fly.memref<f32, register, ((4,1),2):((2,0),1)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{the destination values ((4,1)):((2,0)) of an atom call are not 4 contiguous elements, as the atom needs}}
  fly.copy(%a, %g, %r) : (!atom, !g, !fly.memref<f32, register, ((4,1),2):((2,0),1)>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2):((1,0),64), align<16>>
func.func @ranks(%g: !g, %r: !fly.memref<f32, register, ((4,1),2,1):((1,0),4,0)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{copy: source ((4,1),2):((1,0),64) and destination ((4,1),2,1):((1,0),4,0) have different ranks}}
  fly.copy(%a, %g, %r) : (!atom, !g, !fly.memref<f32, register, ((4,1),2,1):((1,0),4,0)>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2):((1,0),64), align<16>>
func.func @slices(%g: !g, %r: !fly.memref<f32, register, ((4,1),3):((1,0),4)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{have 2 and 3 slices}}
  fly.copy(%a, %g, %r) : (!atom, !g, !fly.memref<f32, register, ((4,1),3):((1,0),4)>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @width(%g: !fly.memref<f16, global, (8):(1)>, %r: !fly.memref<f16, register, (8):(1)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{element type 'f16' does not have the atom's value width of 32 bits}}
  fly.copy(%a, %g, %r) : (!atom, !fly.memref<f16, global, (8):(1)>, !fly.memref<f16, register, (8):(1)>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2):((1,0),64), align<16>>
!r = !fly.memref<f32, register, ((4,1),2):((1,0),4)>
func.func @pred_size(%g: !g, %r: !r, %p: !fly.memref<i1, register, 4:1>) {
  %a = fly.static : !atom
  // expected-error @+1 {{the predicate has 4 flags, the copy makes 2 atom calls (one flag each)}}
  fly.copy(%a, %g, %r, %p) : (!atom, !g, !r, !fly.memref<i1, register, 4:1>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!g = !fly.memref<f32, global, ((4,1),2):((1,0),64), align<16>>
!r = !fly.memref<f32, register, ((4,1),2):((1,0),4)>
func.func @pred_type(%g: !g, %r: !r, %p: !fly.memref<i8, register, 2:1>) {
  %a = fly.static : !atom
  // expected-error @+1 {{the predicate's elements must be i1, not 'i8'}}
  fly.copy(%a, %g, %r, %p) : (!atom, !g, !r, !fly.memref<i8, register, 2:1>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_atomic<add, f32>, 32>
func.func @atomic_reg(%g: !fly.memref<f32, global, 1:0>, %r: !fly.memref<f32, register, 1:0>) {
  %a = fly.static : !atom
  // expected-error @+1 {{an atomic copy's destination must be in memory, not registers}}
  fly.copy(%a, %g, %r) : (!atom, !fly.memref<f32, global, 1:0>, !fly.memref<f32, register, 1:0>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<64>, 16>
!s = !fly.memref<f16, shared, S<2,1,3> o 0 o (4,8):(1,4)>
func.func @swizzle(%s: !s, %r: !fly.memref<f16, register, (4,8):(1,4)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{the source values of an atom call are not contiguous behind the swizzle S<2,1,3>: 4 elements at offset 0 may cross a block of 2}}
  fly.copy(%a, %s, %r) : (!atom, !s, !fly.memref<f16, register, (4,8):(1,4)>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @dynamic_rest(%g: !fly.memref<f32, global, (4,?):(1,?)>, %h: !fly.memref<f32, global, (4,?):(1,?)>) {
  %a = fly.static : !atom
  // expected-error @+1 {{both have dynamic sizes; the atom calls are unrolled, so one of them must be static}}
  fly.copy(%a, %g, %h) : (!atom, !fly.memref<f32, global, (4,?):(1,?)>, !fly.memref<f32, global, (4,?):(1,?)>)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!f = !fly.memref<f32, register, (1,4):(0,1)>
func.func @gemm_type(%d: !fly.memref<f32, register, (1,4,4):(0,1,4)>, %a: !fly.memref<f16, register, (1,4):(0,1)>, %b: !f) {
  %m = fly.static : !mma
  // expected-error @+1 {{element type 'f16' of A differs from the atom's 'f32'}}
  fly.gemm(%m, %d, %a, %b, %d) : (!mma, !fly.memref<f32, register, (1,4,4):(0,1,4)>, !fly.memref<f16, register, (1,4):(0,1)>, !f, !fly.memref<f32, register, (1,4,4):(0,1,4)>)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!f = !fly.memref<f32, register, (1,4):(0,1)>
func.func @gemm_shape(%d: !fly.memref<f32, register, (1,4,2):(0,1,4)>, %a: !f, %b: !f) {
  %m = fly.static : !mma
  // expected-error @+1 {{gemm: the N mode of C 2:4 has 2 elements, expected 4}}
  fly.gemm(%m, %d, %a, %b, %d) : (!mma, !fly.memref<f32, register, (1,4,2):(0,1,4)>, !f, !f, !fly.memref<f32, register, (1,4,2):(0,1,4)>)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!f = !fly.memref<f32, register, (2):(1)>
func.func @gemm_values(%d: !f, %a: !f, %b: !f) {
  %m = fly.static : !mma
  // expected-error @+1 {{D (2):(1) has 2 values, the atom takes 1}}
  fly.gemm(%m, %d, %a, %b, %d) : (!mma, !f, !f, !f, !f)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @call_count(%g: !fly.memref<f32, global, 8:1>, %r: !fly.memref<f32, register, 8:1>) {
  %a = fly.static : !atom
  // expected-error @+1 {{the source 8:1 of an atom call has 8 values, the atom moves 4}}
  fly.copy_atom_call(%a, %g, %r) : (!atom, !fly.memref<f32, global, 8:1>, !fly.memref<f32, register, 8:1>)
  return
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @ssa_vector(%g: !fly.memref<f32, global, 4:1>) -> vector<8xf32> {
  %a = fly.static : !atom
  // expected-error @+1 {{the values must be a 'vector<4xf32>', not 'vector<8xf32>'}}
  %v = fly.copy_atom_call_ssa(%a, %g) : (!atom, !fly.memref<f32, global, 4:1>) -> vector<8xf32>
  return %v : vector<8xf32>
}

// -----

!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
func.func @ssa_form(%g: !fly.memref<f32, global, 4:1>, %r: !fly.memref<f32, register, 4:1>) {
  %a = fly.static : !atom
  // expected-error @+1 {{with a memref source, has no destination and returns the values}}
  fly.copy_atom_call_ssa(%a, %g, %r) : (!atom, !fly.memref<f32, global, 4:1>, !fly.memref<f32, register, 4:1>) -> ()
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32, f16, f16, f32>>
func.func @mma_ssa(%a: vector<1xf16>, %b: vector<1xf32>, %c: vector<1xf32>) -> vector<1xf32> {
  %m = fly.static : !mma
  // expected-error @+1 {{B must be a 'vector<1xf16>', not 'vector<1xf32>'}}
  %d = fly.mma_atom_call_ssa(%m, %a, %b, %c) : (!mma, vector<1xf16>, vector<1xf32>, vector<1xf32>) -> vector<1xf32>
  return %d : vector<1xf32>
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!c = !fly.memref<f32, register, (1,2,2):(0,1,2)>
!ab = !fly.memref<f32, register, (1,2,3):(0,1,2)>
func.func @gemm_traversal_outside(%c: !c, %a: !ab, %b: !ab) {
  %m = fly.static : !mma
  // expected-error @+1 {{gemm: the traversal's tile (1, 0, 3) is outside the 2 x 2 x 3 tiles (M, N, K)}}
  fly.gemm(%m, %c, %a, %b, %c) {traversal = array<i32: 0, 0, 0, 1, 0, 3>} : (!mma, !c, !ab, !ab, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!c = !fly.memref<f32, register, (1,2,2):(0,1,2)>
!ab = !fly.memref<f32, register, (1,2):(0,1)>
func.func @gemm_traversal_length(%c: !c, %a: !ab, %b: !ab) {
  %m = fly.static : !mma
  // expected-error @+1 {{traversal must list (m, n, k) tiles, three values each, of a rank-3 D; it has 4 values and D rank 3}}
  fly.gemm(%m, %c, %a, %b, %c) {traversal = array<i32: 0, 0, 0, 1>} : (!mma, !c, !ab, !ab, !c)
  return
}

// -----

!mma = !fly.mma_atom<!fly.universal_fma<f32>>
!f = !fly.memref<f32, register, 1:0>
func.func @gemm_traversal_rank1(%f: !f) {
  %m = fly.static : !mma
  // expected-error @+1 {{traversal must list (m, n, k) tiles, three values each, of a rank-3 D; it has 3 values and D rank 1}}
  fly.gemm(%m, %f, %f, %f, %f) {traversal = array<i32: 0, 0, 0>} : (!mma, !f, !f, !f, !f)
  return
}
