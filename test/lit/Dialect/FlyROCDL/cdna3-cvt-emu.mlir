// The packed 8- and 4-bit float conversions (fx.rocdl.cvt_*) through
// convert-rocdl-to-emu: each is one fly_emu_convert(op, control, a, b, c,
// d) of its operands' bits (zero-extended to i64, absent ones 0), the
// control its selector with 0x100 for gfx950's OCP fp8 formats; the
// result's bits come back truncated and bitcast to its type.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' -verify-diagnostics | FileCheck %s

// gfx942 (FNUZ): cvt.pk.fp8.f32 is op 5, word 1; cvt.pk.f32.bf8 op 4.
// CHECK-LABEL: gpu.module @pack_fnuz
// CHECK: llvm.func internal @k_body(%{{.*}}: !llvm.ptr, %[[A:.*]]: f32, %[[B:.*]]: f32, %[[OLD:.*]]: i32, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG: %[[SEL:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[AB:.*]] = llvm.bitcast %[[A]] : f32 to i32
// CHECK-DAG: %[[A64:.*]] = llvm.zext %[[AB]] : i32 to i64
// CHECK-DAG: %[[O64:.*]] = llvm.zext %[[OLD]] : i32 to i64
// CHECK: %[[R:.*]] = llvm.call @fly_emu_convert(%[[OP]], %[[SEL]], %[[A64]], %{{.*}}, %[[O64]], %{{.*}}) : (i32, i32, i64, i64, i64, i64) -> i64
// CHECK: llvm.trunc %[[R]] : i64 to i32
// CHECK: %[[U:.*]] = llvm.call @fly_emu_convert(%{{.*}}) : (i32, i32, i64, i64, i64, i64) -> i64
// CHECK: llvm.bitcast %[[U]] : i64 to vector<2xf32>
// CHECK-NOT: rocdl.cvt
gpu.module @pack_fnuz [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%a: f32, %b: f32, %old: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %w = rocdl.cvt.pk.fp8.f32 %a, %b -> %old[true] : i32
    %v = rocdl.cvt.pk.f32.bf8 %w[false] : vector<2xf32>
    llvm.store %v, %out : vector<2xf32>, !llvm.ptr
    llvm.return
  }
}

// -----

// gfx950 (OCP): control 0x100 | byte 3 = 259; the fp4 ones need no chip
// bit (cvt.scalef32.pk.fp4.f32: op 9, byte 2, four operands).
// CHECK-LABEL: gpu.module @ocp
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(259 : i32) : i32
// CHECK-DAG: %[[OP:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @fly_emu_convert(%[[OP]], %[[C]], %{{.*}}) : (i32, i32, i64, i64, i64, i64) -> i64
// CHECK-DAG: %[[OP9:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: llvm.call @fly_emu_convert(%[[OP9]], %[[C2]], %{{.*}}) : (i32, i32, i64, i64, i64, i64) -> i64
gpu.module @ocp [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%w: i32, %x: f32, %s: f32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %f = rocdl.cvt.f32.fp8 %w[3] : f32
    %p = rocdl.cvt.scalef32.pk.fp4.f32 %f, %x, %s -> %w[2] : i32
    llvm.store %p, %out : i32, !llvm.ptr
    llvm.return
  }
}

// -----

// Without a chip the fp8 formats are unknown.
gpu.module @nochip {
  llvm.func @k(%w: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    // expected-error @below {{needs the chip to pick its fp8/bf8 formats}}
    %f = rocdl.cvt.f32.bf8 %w[0] : f32
    llvm.store %f, %out : f32, !llvm.ptr
    llvm.return
  }
}
