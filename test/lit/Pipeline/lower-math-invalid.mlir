// fly-lower-math: what the chip and the backend cannot compile without a
// device library is an error at the op, naming it and the chip; every such
// op of the gpu.module is reported.
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(fly-lower-math{chip=gfx942}))'
// An unknown chip is an error naming the supported ones.
// RUN: not fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(fly-lower-math{chip=gfx9000}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// CHIP: error: fly-lower-math: unknown chip 'gfx9000'; supported chips: gfx942, gfx950, gfx1100,

gpu.module @f64_math {
  llvm.func @k(%p: !llvm.ptr, %d: f64, %i: i32) {
    // expected-error @+1 {{'math.exp' op on f64 cannot be compiled for gfx942: AMDGPU has no inline exp of that type (only the device library's, which FlyDSL does not link); compute it in f32}}
    %a = math.exp %d : f64
    llvm.store %a, %p : f64, !llvm.ptr
    // expected-error @+1 {{'math.tanh' op on f64 cannot be compiled for gfx942}}
    %b = math.tanh %d : f64
    llvm.store %b, %p : f64, !llvm.ptr
    // expected-error @+1 {{'math.fpowi' op on f64 cannot be compiled for gfx942}}
    %c = math.fpowi %d, %i : f64, i32
    llvm.store %c, %p : f64, !llvm.ptr
    // expected-error @+1 {{'math.ipowi' op has no lowering for gfx942 without the ROCm device library, which FlyDSL does not link}}
    %e = math.ipowi %i, %i : i32
    llvm.store %e, %p : i32, !llvm.ptr
    llvm.return
  }
}

// -----

gpu.module @library_intrinsics {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %d: f64) {
    // expected-error @+1 {{'llvm.intr.tanh' op has no AMDGPU instruction sequence for gfx942: the backend would call the device library's tanh, which FlyDSL does not link; use math.tanh (fly-lower-math expands it inline)}}
    %a = llvm.intr.tanh(%x) : (f32) -> f32
    llvm.store %a, %p : f32, !llvm.ptr
    // expected-error @+1 {{'llvm.call_intrinsic' op has no AMDGPU instruction sequence for gfx942: the backend would call the device library's atan2}}
    %b = llvm.call_intrinsic "llvm.atan2.f32"(%x, %x) : (f32, f32) -> f32
    llvm.store %b, %p : f32, !llvm.ptr
    // expected-error @+1 {{'llvm.intr.exp2' op on f64 has no AMDGPU instruction sequence for gfx942: the backend would call the device library, which FlyDSL does not link; compute it in f32}}
    %c = llvm.intr.exp2(%d) : (f64) -> f64
    llvm.store %c, %p : f64, !llvm.ptr
    // expected-error @+1 {{'llvm.call_intrinsic' op on f64 has no AMDGPU instruction sequence for gfx942}}
    %e = llvm.call_intrinsic "llvm.sin"(%d) : (f64) -> f64
    llvm.store %e, %p : f64, !llvm.ptr
    llvm.return
  }
}

// -----

gpu.module @instructions {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %d: f64, %b: bf16, %v: vector<2xf32>,
               %hv: f16) {
    // expected-error @+1 {{'rocdl.tanh' op v_tanh_f32 is not an instruction of gfx942 (chips that have it: gfx1250)}}
    %a = rocdl.tanh %x f32 -> f32
    llvm.store %a, %p : f32, !llvm.ptr
    // expected-error @+1 {{'rocdl.exp2' op v_exp_bf16 is not an instruction of gfx942 (chips that have it: gfx1250)}}
    %c = rocdl.exp2 %b bf16 -> bf16
    llvm.store %c, %p : bf16, !llvm.ptr
    // expected-error @+1 {{'rocdl.log' op on f64: AMDGPU has no v_log_f64 instruction on any chip}}
    %e = rocdl.log %d f64 -> f64
    llvm.store %e, %p : f64, !llvm.ptr
    // expected-error @+1 {{'rocdl.exp' op has no AMDGPU instruction: its intrinsic, llvm.amdgcn.exp, is the export instruction, not e^x; use rocdl.exp2 of x * log2(e) (v_exp_f32) or math.exp}}
    %f = rocdl.exp %x f32 -> f32
    llvm.store %f, %p : f32, !llvm.ptr
    // expected-error @+1 {{'llvm.call_intrinsic' op v_tanh_f16 is not an instruction of gfx942 (chips that have it: gfx1250)}}
    %h = llvm.call_intrinsic "llvm.amdgcn.tanh.f16"(%hv) : (f16) -> f16
    llvm.store %h, %p : f16, !llvm.ptr
    // expected-error @+1 {{'llvm.call_intrinsic' op takes one scalar float and returns one of the same type (the instruction works on one value; apply it per element)}}
    %g = llvm.call_intrinsic "llvm.amdgcn.exp2"(%v) : (vector<2xf32>) -> vector<2xf32>
    llvm.store %g, %p : vector<2xf32>, !llvm.ptr
    llvm.return
  }
}

