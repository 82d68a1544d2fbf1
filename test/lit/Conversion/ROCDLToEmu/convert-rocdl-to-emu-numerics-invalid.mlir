// convert-rocdl-to-emu: a transcendental with no AMDGPU instruction is an
// error naming it (the emulator checks what it is given; in the pipeline
// fly-lower-math rejects these before).
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))'

gpu.module @no_instruction {
  llvm.func @k(%p: !llvm.ptr<1>, %x: f32, %d: f64, %v: vector<2xf32>) attributes {rocdl.kernel} {
    // expected-error @+1 {{'rocdl.exp' op has no emulator lowering (llvm.amdgcn.exp is the export instruction, not e^x)}}
    %a = rocdl.exp %x f32 -> f32
    llvm.store %a, %p : f32, !llvm.ptr<1>
    // expected-error @+1 {{'rocdl.exp2' op has no emulator lowering on f64 (no chip has that form)}}
    %b = rocdl.exp2 %d f64 -> f64
    llvm.store %b, %p : f64, !llvm.ptr<1>
    // expected-error @+1 {{'llvm.call_intrinsic' op calls the AMDGPU intrinsic llvm.amdgcn.rcp.f32, which convert-rocdl-to-emu does not handle on vector<2xf32> (no chip has that form)}}
    %c = llvm.call_intrinsic "llvm.amdgcn.rcp.f32"(%v) : (vector<2xf32>) -> vector<2xf32>
    llvm.store %c, %p : vector<2xf32>, !llvm.ptr<1>
    // expected-error @+1 {{'llvm.call_intrinsic' op calls the AMDGPU intrinsic llvm.amdgcn.sin.f64, which convert-rocdl-to-emu does not handle on f64 (no chip has that form)}}
    %e = llvm.call_intrinsic "llvm.amdgcn.sin.f64"(%d) : (f64) -> f64
    llvm.store %e, %p : f64, !llvm.ptr<1>
    llvm.return
  }
}
