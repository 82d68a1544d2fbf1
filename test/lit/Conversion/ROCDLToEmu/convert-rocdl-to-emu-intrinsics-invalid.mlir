// The intrinsic forms of DPP moves, scalar buffer loads and v_perm_b32
// that convert-rocdl-to-emu does not lower are errors naming the
// intrinsic and why.
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))'

gpu.module @dpp_forms {
  llvm.func @k(%a: i64, %b: i32, %ctrl: i32) attributes {rocdl.kernel} {
    %c = llvm.mlir.constant(273 : i32) : i32
    %m = llvm.mlir.constant(15 : i32) : i32
    %t = llvm.mlir.constant(true) : i1
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.update.dpp.i64, which moves a value that is not 32 bits (or old, src and the result differ in type): convert-rocdl-to-emu does not handle it}}
    %x = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i64"(%a, %a, %c, %m, %m, %t) : (i64, i64, i32, i32, i32, i1) -> i64
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.update.dpp.i32, which has a dpp_ctrl, row_mask, bank_mask or bound_ctrl that is not a constant: convert-rocdl-to-emu does not handle it}}
    %y = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i32"(%b, %b, %ctrl, %m, %m, %t) : (i32, i32, i32, i32, i32, i1) -> i32
    %big = llvm.mlir.constant(512 : i32) : i32
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.update.dpp.i32, which has a dpp_ctrl past 9 bits or a row_mask or bank_mask past 4 bits}}
    %w = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i32"(%b, %b, %big, %m, %m, %t) : (i32, i32, i32, i32, i32, i1) -> i32
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.update.dpp.i32, which has a dpp_ctrl past 9 bits or a row_mask or bank_mask past 4 bits}}
    %v = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i32"(%b, %b, %c, %c, %m, %t) : (i32, i32, i32, i32, i32, i1) -> i32
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.update.dpp.i32, which does not have update.dpp's operands}}
    %z = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i32"(%b, %b, %c) : (i32, i32, i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @scalar_load_forms {
  llvm.func @k(%w: vector<4xi32>, %p: vector<2xi64>, %off: i32) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.s.buffer.load.v32i32, which loads a value that is not 1 to 16 dwords: convert-rocdl-to-emu does not handle it}}
    %a = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.v32i32"(%w, %off, %z) : (vector<4xi32>, i32, i32) -> vector<32xi32>
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.s.buffer.load.i16, which loads a value that is not 1 to 16 dwords}}
    %b = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.i16"(%w, %off, %z) : (vector<4xi32>, i32, i32) -> i16
    // expected-error @+1 {{'llvm.call_intrinsic' op calls llvm.amdgcn.s.buffer.load.i32, which has a resource that is neither vector<4xi32> nor a buffer resource pointer}}
    %c = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.i32"(%p, %off, %z) : (vector<2xi64>, i32, i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @scalar_load_outside_kernel {
  llvm.func @helper(%w: vector<4xi32>, %off: i32) -> i32 {
    %z = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{'llvm.call_intrinsic' op outside a kernel needs the emulator context}}
    %a = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.i32"(%w, %off, %z) : (vector<4xi32>, i32, i32) -> i32
    llvm.return %a : i32
  }
}

// -----

gpu.module @perm_forms {
  llvm.func @k(%a: i64, %b: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{'llvm.call_intrinsic' op calls the AMDGPU intrinsic llvm.amdgcn.perm, which convert-rocdl-to-emu does not handle}}
    %x = llvm.call_intrinsic "llvm.amdgcn.perm"(%a, %b, %b) : (i64, i32, i32) -> i32
    llvm.return
  }
}
