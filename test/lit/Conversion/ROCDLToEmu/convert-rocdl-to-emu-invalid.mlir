// What convert-rocdl-to-emu does not lower is an error naming the op; the
// pass checks the whole gpu.module before changing anything.
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))'

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

gpu.module @fat_buffer_pointer {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
    // expected-error @+1 {{has a buffer pointer result (address space 7 or 9), which convert-rocdl-to-emu does not handle yet}}
    %f = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr<7>
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

// -----

gpu.module @odd_forms {
  llvm.func @k(%v: i48, %l: i32, %r: !llvm.ptr<8>, %f: f32, %i: i32) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{'rocdl.readlane' op exchanges a value that is neither 32 bits or less nor a whole number of 32-bit words, which convert-rocdl-to-emu does not handle}}
    %a = rocdl.readlane %v, %l : (i48, i32) -> i48
    // expected-error @+1 {{'rocdl.raw.ptr.buffer.load' op loads a value that is not 1 to 16 bytes, which convert-rocdl-to-emu does not handle}}
    %b = rocdl.raw.ptr.buffer.load %r, %c0, %c0, %c0 : vector<8xi32>
    // expected-error @+1 {{'rocdl.raw.ptr.buffer.atomic.fadd' op is a float atomic on a value that is not a scalar float, which convert-rocdl-to-emu does not handle}}
    rocdl.raw.ptr.buffer.atomic.fadd %i, %r, %c0, %c0, %c0 : i32
    // expected-error @+1 {{'rocdl.raw.ptr.buffer.atomic.cmpswap' op compares and swaps a value that is not an integer of at most 64 bits, which convert-rocdl-to-emu does not handle}}
    %d = rocdl.raw.ptr.buffer.atomic.cmpswap %f, %f, %r, %c0, %c0, %c0 : f32
    llvm.return
  }
}

// -----

gpu.module @collective_outside_kernel {
  llvm.func @helper(%v: i32) -> i32 {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{'rocdl.readfirstlane' op outside a kernel needs the emulator context, which convert-rocdl-to-emu only threads into kernels yet}}
    %r = rocdl.readfirstlane %v : i32
    llvm.return %r : i32
  }
}

// -----

gpu.module @other_intrinsic_forms {
  llvm.func @k(%v: i32) attributes {rocdl.kernel} {
    // rsq is emulated on floats only.
    // expected-error @+1 {{'llvm.call_intrinsic' op calls the AMDGPU intrinsic llvm.amdgcn.rsq, which convert-rocdl-to-emu does not handle}}
    %r = llvm.call_intrinsic "llvm.amdgcn.rsq"(%v) : (i32) -> i32
    llvm.return
  }
}

// -----

// Matrix instructions the emulator does not run.
gpu.module @matrix {
  llvm.func @k(%a: vector<16xf16>, %c: vector<4xf32>, %s: vector<8xf16>,
               %q: i64, %c4: vector<4xf32>, %h: vector<4xf16>, %cb: i32) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{'rocdl.smfmac.f32.16x16x32.f16' op has no emulator lowering in convert-rocdl-to-emu yet}}
    %0 = rocdl.smfmac.f32.16x16x32.f16 %s, %a, %c, %cb, %cb, %cb : (vector<8xf16>, vector<16xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
    // A gfx11 wave64 WMMA (4 accumulators a lane).
    // expected-error @+1 {{'rocdl.wmma.f32.16x16x16.f16' op has operand types of no form the emulator runs (MFMA: CDNA3's; WMMA: the wave32 forms of gfx11, gfx12 and gfx1250), which convert-rocdl-to-emu does not handle}}
    %1 = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c : (vector<16xf16>, vector<16xf16>, vector<4xf32>) -> vector<4xf32>
    // expected-error @+1 {{'rocdl.mfma.f32.16x16x32.fp8.fp8' op needs the chip to pick its fp8/bf8 formats (gfx942: FNUZ, gfx950: OCP): give the pass chip=... or the gpu.module a #rocdl.target, which convert-rocdl-to-emu does not handle}}
    %2 = rocdl.mfma.f32.16x16x32.fp8.fp8 %q, %q, %c4, %z, %z, %z : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
    // expected-error @+1 {{'rocdl.mfma.f32.16x16x16f16' op has a cbsz, abid or blgp operand that is not a constant, which convert-rocdl-to-emu does not handle}}
    %3 = rocdl.mfma.f32.16x16x16f16 %h, %h, %c4, %z, %cb, %z : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
    llvm.return
  }
}
