// gfx1250's scaled WMMA through convert-rocdl-to-emu: A, B and C spilled to
// frame slots and one fly_emu_matrix_scale(ctx, op, control, a, b, c, d,
// scale_a, scale_b), the scales as i64 (block 32's zero-extended), control
// = fmtA | fmtB << 8 | scaleAType << 12 | scaleBType << 14 (Emu.h); op 102
// (wmma.scale) or 103 (wmma.scale16). A and B sizes follow their formats.
// The 32x16x128 f4 form: op 104 (wmma.scale) or 105 (wmma.scale16), the
// formats fp4 (4 | 4 << 8), A 16 registers, B 8, C and D 16.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' -verify-diagnostics | FileCheck %s

// fp8 A (16 registers), fp4 B (8), scaleAType 1: 0 | 4 << 8 | 1 << 12 = 5120.
// CHECK-LABEL: gpu.module @fp8_fp4
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: vector<16xi32>, %{{.*}}: vector<8xi32>, %{{.*}}: vector<8xf32>, %[[SA:.*]]: i32, %[[SB:.*]]: i32, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(102 : i32) : i32
// CHECK-DAG: %[[CTL:.*]] = llvm.mlir.constant(5120 : i32) : i32
// CHECK-DAG: %[[SA64:.*]] = llvm.zext %[[SA]] : i32 to i64
// CHECK-DAG: %[[SB64:.*]] = llvm.zext %[[SB]] : i32 to i64
// CHECK: llvm.call @fly_emu_matrix_scale(%[[CTX]], %[[OP]], %[[CTL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA64]], %[[SB64]]) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: rocdl.wmma
gpu.module @fp8_fp4 {
  llvm.func @k(%a: vector<16xi32>, %b: vector<8xi32>, %c: vector<8xf32>, %sa: i32, %sb: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %d = rocdl.wmma.scale.f32.16x16x128.f8f6f4 %a, %b, %c, %sa, %sb {fmtB = 4 : i32, scaleAType = 1 : i32} : (vector<16xi32>, vector<8xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// Block 16, bf6 A and fp6 B (12 registers each), scaleBType 1:
// 3 | 2 << 8 | 1 << 14 = 16899; the scales are already i64.
// CHECK-LABEL: gpu.module @bf6_fp6_block16
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: vector<12xi32>, %{{.*}}: vector<8xf32>, %[[SA:.*]]: i64, %[[SB:.*]]: i64, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(103 : i32) : i32
// CHECK-DAG: %[[CTL:.*]] = llvm.mlir.constant(16899 : i32) : i32
// CHECK: llvm.call @fly_emu_matrix_scale(%[[CTX]], %[[OP]], %[[CTL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA]], %[[SB]]) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
gpu.module @bf6_fp6_block16 {
  llvm.func @k(%a: vector<12xi32>, %c: vector<8xf32>, %sa: i64, %sb: i64, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %d = rocdl.wmma.scale16.f32.16x16x128.f8f6f4 %a, %a, %c, %sa, %sb {fmtA = 3 : i32, fmtB = 2 : i32, scaleBType = 1 : i32} : (vector<12xi32>, vector<12xi32>, vector<8xf32>, i64, i64) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// fp4 (fmtA 4) takes 8 registers, not 16.
gpu.module @wrong_size {
  llvm.func @k(%a: vector<16xi32>, %c: vector<8xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has A or B registers of a size its formats (fmtA, fmtB) do not take: 64 bytes for fp8/bf8, 48 for fp6/bf6, 32 for fp4}}
    %d = rocdl.wmma.scale.f32.16x16x128.f8f6f4 %a, %a, %c, %s, %s {fmtA = 4 : i32} : (vector<16xi32>, vector<16xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// Only E8M0 scales are emulated (fmtScaleA / fmtScaleB 0).
gpu.module @scale_format {
  llvm.func @k(%a: vector<16xi32>, %c: vector<8xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has scales of a format the emulator does not run (fmtScaleA, fmtScaleB: only 0, E8M0)}}
    %d = rocdl.wmma.scale.f32.16x16x128.f8f6f4 %a, %a, %c, %s, %s {fmtScaleB = 1 : i32} : (vector<16xi32>, vector<16xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// The C modifier is not emulated.
gpu.module @mod_c {
  llvm.func @k(%a: vector<16xi32>, %c: vector<8xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has a C modifier (modC), which the emulator does not run}}
    %d = rocdl.wmma.scale.f32.16x16x128.f8f6f4 %a, %a, %c, %s, %s {modC = 1 : i16} : (vector<16xi32>, vector<16xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

gpu.module @scale_selector {
  llvm.func @k(%a: vector<16xi32>, %c: vector<8xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has a scale selector (scaleAType, scaleBType) other than 0 (lanes 0-15) or 1 (lanes 16-31)}}
    %d = rocdl.wmma.scale.f32.16x16x128.f8f6f4 %a, %a, %c, %s, %s {scaleAType = 2 : i32} : (vector<16xi32>, vector<16xi32>, vector<8xf32>, i32, i32) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// The f4 form, scaleBType 1: 4 | 4 << 8 | 1 << 14 = 17412.
// CHECK-LABEL: gpu.module @f4_32x16
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: vector<16xi32>, %{{.*}}: vector<8xi32>, %{{.*}}: vector<16xf32>, %[[SA:.*]]: i32, %[[SB:.*]]: i32, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(104 : i32) : i32
// CHECK-DAG: %[[CTL:.*]] = llvm.mlir.constant(17412 : i32) : i32
// CHECK-DAG: %[[SA64:.*]] = llvm.zext %[[SA]] : i32 to i64
// CHECK-DAG: %[[SB64:.*]] = llvm.zext %[[SB]] : i32 to i64
// CHECK: llvm.call @fly_emu_matrix_scale(%[[CTX]], %[[OP]], %[[CTL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SA64]], %[[SB64]]) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: rocdl.wmma
gpu.module @f4_32x16 {
  llvm.func @k(%a: vector<16xi32>, %b: vector<8xi32>, %c: vector<16xf32>, %sa: i32, %sb: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %d = rocdl.wmma.scale.f32.32x16x128.f4 %a, %b, %c, %sa, %sb {scaleBType = 1 : i32} : (vector<16xi32>, vector<8xi32>, vector<16xf32>, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// Block 16: op 105, control 4 | 4 << 8 = 1028, the scales already i64.
// CHECK-LABEL: gpu.module @f4_32x16_block16
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(105 : i32) : i32
// CHECK-DAG: %[[CTL:.*]] = llvm.mlir.constant(1028 : i32) : i32
// CHECK: llvm.call @fly_emu_matrix_scale(%{{.*}}, %[[OP]], %[[CTL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
gpu.module @f4_32x16_block16 {
  llvm.func @k(%a: vector<16xi32>, %b: vector<8xi32>, %c: vector<16xf32>, %sa: i64, %sb: i64, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %d = rocdl.wmma.scale16.f32.32x16x128.f4 %a, %b, %c, %sa, %sb : (vector<16xi32>, vector<8xi32>, vector<16xf32>, i64, i64) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// The f4 form's A is 16 registers (128 fp4 values), B 8.
gpu.module @f4_wrong_size {
  llvm.func @k(%a: vector<8xi32>, %c: vector<16xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has A or B registers of a size it does not take: 64 bytes of A (128 fp4 values), 32 of B (64)}}
    %d = rocdl.wmma.scale.f32.32x16x128.f4 %a, %a, %c, %s, %s : (vector<8xi32>, vector<8xi32>, vector<16xf32>, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// Its A's 32 rows take the scales of all 32 lanes: scaleAType is 0.
gpu.module @f4_scale_a_selector {
  llvm.func @k(%a: vector<16xi32>, %b: vector<8xi32>, %c: vector<16xf32>, %s: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{has scaleAType 1: the scales of A's 32 rows fill the wave (row i in lane i), so it is 0}}
    %d = rocdl.wmma.scale.f32.32x16x128.f4 %a, %b, %c, %s, %s {scaleAType = 1 : i32} : (vector<16xi32>, vector<8xi32>, vector<16xf32>, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr
    llvm.return
  }
}
