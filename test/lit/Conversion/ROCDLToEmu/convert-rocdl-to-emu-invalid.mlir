// What convert-rocdl-to-emu does not lower is an error naming the op; the
// pass checks the whole gpu.module before changing anything.
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))'

gpu.module @collective {
  llvm.func @k(%v: i32, %l: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{'rocdl.readlane' op has no emulator lowering in convert-rocdl-to-emu yet}}
    %r = rocdl.readlane %v, %l : (i32, i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @named_barrier {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{'rocdl.s.barrier.signal' op has no emulator lowering in convert-rocdl-to-emu yet}}
    rocdl.s.barrier.signal id = 1
    // expected-error @+1 {{'rocdl.s.barrier.wait' op has no emulator lowering in convert-rocdl-to-emu yet}}
    rocdl.s.barrier.wait id = 1
    llvm.return
  }
}

// -----

gpu.module @intrinsic {
  llvm.func @k(%v: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{'llvm.call_intrinsic' op calls the AMDGPU intrinsic llvm.amdgcn.s.getpc, which convert-rocdl-to-emu does not handle}}
    %pc = llvm.call_intrinsic "llvm.amdgcn.s.getpc"() : () -> i64
    llvm.return
  }
}

// -----

gpu.module @device_library {
  llvm.func @__ocml_exp_f32(f32) -> f32
  llvm.func @k(%x: f32) attributes {rocdl.kernel} {
    // expected-error @+1 {{'llvm.call' op calls the device-only function @__ocml_exp_f32, which convert-rocdl-to-emu does not handle}}
    %y = llvm.call @__ocml_exp_f32(%x) : (f32) -> f32
    llvm.return
  }
}

// -----

gpu.module @buffer_pointer {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i16) : i16
    %c1 = llvm.mlir.constant(0 : i64) : i64
    %c2 = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{has a buffer pointer result (address space 7, 8 or 9), which convert-rocdl-to-emu does not handle yet}}
    %r = rocdl.make.buffer.rsrc %p, %c0, %c1, %c2 : !llvm.ptr<1> to !llvm.ptr<8>
    llvm.return
  }
}

// -----

gpu.module @id_outside_kernel {
  llvm.func @helper() -> i32 {
    // expected-error @+1 {{'rocdl.workitem.id.x' op outside a kernel needs the emulator context, which convert-rocdl-to-emu only threads into kernels yet}}
    %t = rocdl.workitem.id.x : i32
    llvm.return %t : i32
  }
}

// -----

gpu.module @lds_outside_kernel {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<4 x f32>
  llvm.func @helper() -> !llvm.ptr<3> {
    // expected-error @+1 {{'llvm.mlir.addressof' op takes the address of the LDS global @tile outside a kernel, which convert-rocdl-to-emu does not handle yet}}
    %p = llvm.mlir.addressof @tile : !llvm.ptr<3>
    llvm.return %p : !llvm.ptr<3>
  }
}

// -----

gpu.module @lds_initializer {
  // expected-error @+1 {{'llvm.mlir.global' op is an LDS global with an initializer; the emulator, like the hardware, leaves LDS uninitialised}}
  llvm.mlir.global internal @tile(dense<1.0> : tensor<4xf32>) {addr_space = 3 : i32} : !llvm.array<4 x f32>
}
