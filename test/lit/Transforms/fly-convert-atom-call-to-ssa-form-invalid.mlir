// RUN: fly-opt %s -split-input-file -verify-diagnostics --fly-convert-atom-call-to-ssa-form

// A register operand still behind a swizzle: fly-layout-lowering has not
// run, so the pass does not know the address of its values.
!atom = !fly.copy_atom<!fly.universal_copy<128>, 32>
!s = !fly.memref<f32, shared, (4):(1), align<16>>
!r = !fly.memref<f32, register, S<3,2,3> o 0 o (4):(1)>
func.func @swizzled(%s: !s, %r: !r) {
  %a = fly.static : !atom
  // expected-error @+1 {{has an operand behind a composed layout '!fly.composed_layout<S<3,2,3> o 0 o (4):(1)>'; fly-layout-lowering must run before this pass}}
  fly.copy_atom_call(%a, %s, %r) : (!atom, !s, !r)
  return
}
