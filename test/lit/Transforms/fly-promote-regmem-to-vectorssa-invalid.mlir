// RUN: fly-opt %s --fly-promote-regmem-to-vectorssa -split-input-file -verify-diagnostics

// A fragment is promoted only when its pointer is only moved, viewed,
// loaded from and stored to, in the block of its allocation or in the
// scf.for / scf.if / scf.while nested in it. Anything else is an error at
// the op that lets the pointer escape, with a note at the allocation.

func.func private @use(!fly.ptr<f32, register>)

func.func @passed_to_call(%x: f32) {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  // expected-error @+1 {{register fragment cannot be promoted: its pointer is used by 'func.call'}}
  func.call @use(%p) : (!fly.ptr<f32, register>) -> ()
  return
}

// -----

// The memref itself, not only its pointer.
func.func private @take(!fly.memref<f32, register, 4:1>)

func.func @memref_to_call() {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  // expected-error @+1 {{register fragment cannot be promoted: its memref is used by 'func.call'}}
  func.call @take(%f) : (!fly.memref<f32, register, 4:1>) -> ()
  return
}

// -----

// An LLVM pointer into the fragment could be stored anywhere.
func.func @to_llvm() -> !llvm.ptr<5> {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  %c1 = fly.static : !fly.int_tuple<1>
  %q = fly.add_offset(%p, %c1) : (!fly.ptr<f32, register>, !fly.int_tuple<1>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: its pointer is used by 'fly.ptr.to_llvm'}}
  %r = fly.ptr.to_llvm(%q) : (!fly.ptr<f32, register>) -> !llvm.ptr<5>
  return %r : !llvm.ptr<5>
}

// -----

// A pointer carried by a loop is not followed.
func.func @loop_carried_pointer(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: its pointer is used by 'scf.for'}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%q = %p) -> (!fly.ptr<f32, register>) {
    fly.ptr.store(%x, %q) : (f32, !fly.ptr<f32, register>)
    scf.yield %q : !fly.ptr<f32, register>
  }
  return
}

// -----

// A swizzled pointer has a run-time address the pass does not follow.
func.func @swizzled_pointer() -> f16 {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f16, register, 8:1>
  %p = fly.get_iter(%f) : (!fly.memref<f16, register, 8:1>) -> !fly.ptr<f16, register>
  %s = fly.static : !fly.swizzle<S<1,1,1>>
  // expected-error @+1 {{register fragment cannot be promoted: its pointer is used by 'fly.apply_swizzle'}}
  %q = fly.apply_swizzle(%p, %s) : (!fly.ptr<f16, register>, !fly.swizzle<S<1,1,1>>) -> !fly.ptr<f16, register>
  %v = fly.ptr.load(%q) : (!fly.ptr<f16, register>) -> f16
  return %v : f16
}

// -----

// A store inside a region op the pass does not know: it cannot carry the
// value out.
func.func @written_in_execute_region(%x: f32) -> f32 {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: it is written inside 'scf.execute_region'}}
  scf.execute_region {
    fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
    scf.yield
  }
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r : f32
}

// -----

func.func @written_in_launch(%x: f32) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: it is written inside 'gpu.launch'}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
    gpu.terminator
  }
  return
}

// -----

// The iterations of an scf.forall have no order to thread a value through.
func.func @written_in_forall(%x: f32) {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: it is written inside 'scf.forall'}}
  scf.forall (%i) in (4) {
    fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  }
  return
}

// -----

// Unstructured control flow: the blocks after a branch have no program
// order the pass could follow.
func.func @other_block(%c: i1, %x: f32) -> f32 {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, 4:1>) -> !fly.ptr<f32, register>
  fly.ptr.store(%x, %p) : (f32, !fly.ptr<f32, register>)
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-error @+1 {{register fragment cannot be promoted: it is accessed outside the block of its allocation (unstructured control flow)}}
  %r = fly.ptr.load(%p) : (!fly.ptr<f32, register>) -> f32
  return %r : f32
^bb2:
  return %x : f32
}

// -----

// A static access past the end of the storage.
func.func @out_of_bounds() -> vector<4xf32> {
  // expected-note @+1 {{the fragment is allocated here}}
  %f = fly.memref.alloca : !fly.memref<f32, register, (2,2):(1,2)>
  %p = fly.get_iter(%f) : (!fly.memref<f32, register, (2,2):(1,2)>) -> !fly.ptr<f32, register>
  %c2 = fly.static : !fly.int_tuple<2>
  %q = fly.add_offset(%p, %c2) : (!fly.ptr<f32, register>, !fly.int_tuple<2>) -> !fly.ptr<f32, register>
  // expected-error @+1 {{register fragment cannot be promoted: the access to 4 element(s) at offset 2 is outside its 4 elements}}
  %v = fly.ptr.load(%q) : (!fly.ptr<f32, register>) -> vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// A swizzled fragment layout has no plain cosize to size the vector with.
func.func @swizzled_layout() -> f16 {
  // expected-error @+1 {{register fragment cannot be promoted: its layout '!fly.composed_layout<S<1,1,1> o 0 o 4:1>' is not a plain layout}}
  %f = fly.memref.alloca : !fly.memref<f16, register, S<1,1,1> o 0 o 4:1>
  %p = fly.get_iter(%f) : (!fly.memref<f16, register, S<1,1,1> o 0 o 4:1>) -> !fly.ptr<f16, register>
  %v = fly.ptr.load(%p) : (!fly.ptr<f16, register>) -> f16
  return %v : f16
}
