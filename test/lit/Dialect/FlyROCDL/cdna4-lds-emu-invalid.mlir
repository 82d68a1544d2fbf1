// RUN: fly-opt %s --split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' > /dev/null

// A size that is not a constant has no emulation.
gpu.module @dynamic_size {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %lds: !llvm.ptr<3>, %n: i32) attributes {rocdl.kernel} {
    %aux = llvm.mlir.constant(0 : i32) : i32
    // expected-error @below {{moves a size per lane that is not a constant 1, 2, 4, 12 or 16 bytes, which convert-rocdl-to-emu does not handle}}
    rocdl.raw.ptr.buffer.load.lds %rsrc, %lds, %n, %aux, %aux, %aux, %aux
    llvm.return
  }
}

// -----

// Nor an offset that is not a constant.
gpu.module @dynamic_offset {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %lds: !llvm.ptr<3>, %n: i32) attributes {rocdl.kernel} {
    %four = llvm.mlir.constant(4 : i32) : i32
    %aux = llvm.mlir.constant(0 : i32) : i32
    // expected-error @below {{has an offset that is not a constant, which convert-rocdl-to-emu does not handle}}
    rocdl.raw.ptr.buffer.load.lds %rsrc, %lds, %four, %aux, %aux, %n, %aux
    llvm.return
  }
}
