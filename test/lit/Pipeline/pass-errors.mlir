// A pass of stage A that fails reports the op and its location, fly-compile
// exits non-zero without a crash and writes nothing. Here the pointer of a
// register fragment escapes into a call, so fly-promote-regmem-to-vectorssa
// cannot turn the fragment into a vector.
// RUN: rm -f %t.hsaco
// RUN: not fly-compile %s --chip=gfx942 -o %t.hsaco 2>&1 | FileCheck %s
// RUN: not cat %t.hsaco
// CHECK: pass-errors.mlir:[[@LINE+15]]:12: error: register fragment cannot be promoted: its pointer is used by 'fly.ptr.to_llvm'
// CHECK: pass-errors.mlir:[[@LINE+11]]:12: note: the fragment is allocated here
// CHECK-NOT: error:
// CHECK-NOT: Stack dump

!frag = !fly.memref<f32, register, 4:1>
module attributes {gpu.container_module} {
  gpu.module @escape_module {
    llvm.func @sink(!llvm.ptr<5>)
    gpu.func @escape(%p: !llvm.ptr<1>) kernel {
      %x = fly.make_ptr(%p) : (!llvm.ptr<1>) -> !fly.ptr<f32, global>
      %v = fly.ptr.load(%x) : (!fly.ptr<f32, global>) -> f32
      %f = fly.memref.alloca : !frag
      %i = fly.get_iter(%f) : (!frag) -> !fly.ptr<f32, register>
      fly.ptr.store(%v, %i) : (f32, !fly.ptr<f32, register>)
      %r = fly.ptr.to_llvm(%i) : (!fly.ptr<f32, register>) -> !llvm.ptr<5>
      llvm.call @sink(%r) : (!llvm.ptr<5>) -> ()
      gpu.return
    }
  }
}
