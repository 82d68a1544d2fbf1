// gfx950's scaled MFMA through convert-rocdl-to-emu: A, B and C spilled to
// frame slots and one fly_emu_matrix_scale(ctx, op, control, a, b, c, d,
// scale_a, scale_b) (the scales zero-extended to i64), control = cbsz |
// blgp << 8 | opsel_a << 12 | opsel_b << 14 (Emu.h). A and B sizes follow
// their formats.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' -verify-diagnostics | FileCheck %s

// fp8 A (8 registers), fp4 B (4): cbsz 0, blgp 4, opsel 2 and 3:
// 0 | 4 << 8 | 2 << 12 | 3 << 14 = 58368; op 100.
// CHECK-LABEL: gpu.module @fp8_fp4
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: vector<8xi32>, %{{.*}}: vector<4xi32>, %{{.*}}: vector<4xf32>, %[[SA:.*]]: i32, %[[SB:.*]]: i32, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(100 : i32) : i32
// CHECK-DAG: %[[CTL:.*]] = llvm.mlir.constant(58368 : i32) : i32
// CHECK-DAG: %[[SA64:.*]] = llvm.zext %[[SA]] : i32 to i64
// CHECK-DAG: %[[SB64:.*]] = llvm.zext %[[SB]] : i32 to i64
// CHECK: llvm.call @fly_emu_matrix_scale(%[[CTX]], %[[OP]], %[[CTL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA64]], %[[SB64]]) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: rocdl.mfma
gpu.module @fp8_fp4 {
  llvm.func @k(%a: vector<8xi32>, %b: vector<4xi32>, %c: vector<4xf32>, %sa: i32, %sb: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %f0 = llvm.mlir.constant(0 : i32) : i32
    %f4 = llvm.mlir.constant(4 : i32) : i32
    %o2 = llvm.mlir.constant(2 : i32) : i32
    %o3 = llvm.mlir.constant(3 : i32) : i32
    %d = rocdl.mfma.scale.f32.16x16x128.f8f6f4 %a, %b, %c, %f0, %f4, %o2, %sa, %o3, %sb : (vector<8xi32>, vector<4xi32>, vector<4xf32>, i32, i32, i32, i32, i32, i32) -> vector<4xf32>
    llvm.store %d, %out : vector<4xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// fp6 (cbsz 2) takes 6 registers, not 8.
gpu.module @wrong_size {
  llvm.func @k(%a: vector<8xi32>, %c: vector<16xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %f2 = llvm.mlir.constant(2 : i32) : i32
    %z = llvm.mlir.constant(0 : i32) : i32
    // expected-error @below {{has A or B registers of a size its formats (cbsz, blgp) do not take}}
    %d = rocdl.mfma.scale.f32.32x32x64.f8f6f4 %a, %a, %c, %f2, %z, %z, %s, %z, %s : (vector<8xi32>, vector<8xi32>, vector<16xf32>, i32, i32, i32, i32, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// The formats must be constants.
gpu.module @dynamic_format {
  llvm.func @k(%a: vector<8xi32>, %c: vector<16xf32>, %f: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    // expected-error @below {{has a format (cbsz, blgp) or opsel operand that is not a constant}}
    %d = rocdl.mfma.scale.f32.32x32x64.f8f6f4 %a, %a, %c, %f, %z, %z, %z, %z, %z : (vector<8xi32>, vector<8xi32>, vector<16xf32>, i32, i32, i32, i32, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}
