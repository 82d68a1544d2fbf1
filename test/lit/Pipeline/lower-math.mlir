// fly-lower-math: the math ops of a gpu.module become LLVM intrinsics the
// AMDGPU backend expands inline (never device-library calls), and
// convert-gpu-to-rocdl's rejected intrinsic ops become llvm.call_intrinsic.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(fly-lower-math{chip=gfx942}))' | FileCheck %s

// math-to-llvm's intrinsics: those convert-gpu-to-rocdl marks illegal
// (exp2, exp, log2, sin, pow, floor) as calls of the same intrinsic, with
// the op's fast-math flags, on any type and shape; the others (sqrt) as
// they are; rsqrt is 1 / sqrt. f64 floor and sqrt compile inline.
// CHECK-LABEL: gpu.module @intrinsics
// CHECK: llvm.func @k(%[[P:.*]]: !llvm.ptr, %[[X:.*]]: f32, %[[H:.*]]: f16, %[[V:.*]]: vector<4xf32>, %[[D:.*]]: f64)
// CHECK: llvm.call_intrinsic "llvm.exp2"(%[[X]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.exp"(%[[H]]) : (f16) -> f16
// CHECK: llvm.call_intrinsic "llvm.log2"(%[[V]]) : (vector<4xf32>) -> vector<4xf32>
// CHECK: llvm.call_intrinsic "llvm.sin"(%[[X]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.pow"(%[[X]], %[[X]]) : (f32, f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.floor"(%[[D]]) : (f64) -> f64
// CHECK: llvm.intr.sqrt(%[[D]]) : (f64) -> f64
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK: %[[ROOT:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK: llvm.fdiv %[[ONE]], %[[ROOT]] : f32
// CHECK-NOT: math.
gpu.module @intrinsics {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %h: f16, %v: vector<4xf32>, %d: f64) {
    %e2 = math.exp2 %x fastmath<afn> : f32
    llvm.store %e2, %p : f32, !llvm.ptr
    %e = math.exp %h : f16
    llvm.store %e, %p : f16, !llvm.ptr
    %l2 = math.log2 %v : vector<4xf32>
    llvm.store %l2, %p : vector<4xf32>, !llvm.ptr
    %s = math.sin %x : f32
    llvm.store %s, %p : f32, !llvm.ptr
    %pw = math.powf %x, %x : f32
    llvm.store %pw, %p : f32, !llvm.ptr
    %f = math.floor %d : f64
    llvm.store %f, %p : f64, !llvm.ptr
    %q = math.sqrt %d : f64
    llvm.store %q, %p : f64, !llvm.ptr
    %r = math.rsqrt %x : f32
    llvm.store %r, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// LLVM intrinsic ops written by hand get the same treatment (the raw
// builders' llvm.intr_exp2 ...), keeping their flags.
// CHECK-LABEL: gpu.module @llvm_intrinsics
// CHECK: llvm.call_intrinsic "llvm.exp2"(%{{.*}}) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.log10"(%{{.*}}) : (f16) -> f16
// CHECK: llvm.call_intrinsic "llvm.ceil"(%{{.*}}) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.cos"(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.fma
// CHECK-NOT: llvm.intr.exp2
gpu.module @llvm_intrinsics {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %h: f16) {
    %a = llvm.intr.exp2(%x) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
    llvm.store %a, %p : f32, !llvm.ptr
    %b = llvm.intr.log10(%h) : (f16) -> f16
    llvm.store %b, %p : f16, !llvm.ptr
    %c = llvm.intr.ceil(%x) : (f32) -> f32
    llvm.store %c, %p : f32, !llvm.ptr
    %d = llvm.intr.cos(%x) : (f32) -> f32
    llvm.store %d, %p : f32, !llvm.ptr
    %e = llvm.intr.fma(%x, %x, %x) : (f32, f32, f32) -> f32
    llvm.store %e, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// tanh, erf, atan, expm1, ...: MLIR's polynomial approximations, arithmetic
// and backend intrinsics only (f16 computed in f32); sinh, tan, acosh, ...:
// MLIR's expansions into exp, sin / cos, log, sqrt.
// CHECK-LABEL: gpu.module @approximations
// CHECK: llvm.func @tanh(
// CHECK-NOT: tanh
// CHECK: llvm.intr.fma
// CHECK: llvm.return
// CHECK: llvm.func @erf_f16(%{{.*}}: !llvm.ptr, %[[H:.*]]: f16)
// CHECK: arith.extf %[[H]] : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: llvm.func @sinh(
// CHECK: llvm.call_intrinsic "llvm.exp"
// CHECK: llvm.func @tan(
// CHECK-DAG: llvm.call_intrinsic "llvm.sin"
// CHECK-DAG: llvm.call_intrinsic "llvm.cos"
// CHECK: llvm.func @acosh(
// CHECK-DAG: llvm.intr.sqrt
// CHECK-DAG: llvm.call_intrinsic "llvm.log"
// CHECK-NOT: math.
gpu.module @approximations {
  llvm.func @tanh(%p: !llvm.ptr, %x: vector<2xf32>) {
    %r = math.tanh %x : vector<2xf32>
    llvm.store %r, %p : vector<2xf32>, !llvm.ptr
    llvm.return
  }
  llvm.func @erf_f16(%p: !llvm.ptr, %x: f16) {
    %r = math.erf %x : f16
    llvm.store %r, %p : f16, !llvm.ptr
    llvm.return
  }
  llvm.func @others(%p: !llvm.ptr, %x: f32) {
    %a = math.atan2 %x, %x : f32
    llvm.store %a, %p : f32, !llvm.ptr
    %b = math.expm1 %x : f32
    llvm.store %b, %p : f32, !llvm.ptr
    %c = math.acos %x : f32
    llvm.store %c, %p : f32, !llvm.ptr
    %d = math.cbrt %x : f32
    llvm.store %d, %p : f32, !llvm.ptr
    %e = math.erfc %x : f32
    llvm.store %e, %p : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @sinh(%p: !llvm.ptr, %x: f32) {
    %r = math.sinh %x : f32
    llvm.store %r, %p : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @tan(%p: !llvm.ptr, %x: f32) {
    %r = math.tan %x : f32
    llvm.store %r, %p : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @acosh(%p: !llvm.ptr, %x: f32) {
    %r = math.acosh %x : f32
    llvm.store %r, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// isinf and isnormal are comparisons of |x| (math-to-llvm has no pattern
// for them); isnan and isfinite are llvm.intr.is.fpclass.
// CHECK-LABEL: gpu.module @classes
// CHECK-DAG: %[[INF64:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK-DAG: %[[MIN:.*]] = arith.constant 2.2250738585072014E-308 : f64
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[ABS:.*]] = llvm.intr.fabs(%{{.*}}) : (f32) -> f32
// CHECK: arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK: %[[ABS64:.*]] = llvm.intr.fabs(%{{.*}}) : (f64) -> f64
// CHECK: %[[NORMAL:.*]] = arith.cmpf oge, %[[ABS64]], %[[MIN]] : f64
// CHECK: %[[FINITE:.*]] = arith.cmpf olt, %[[ABS64]], %[[INF64]] : f64
// CHECK: arith.andi %[[NORMAL]], %[[FINITE]] : i1
// CHECK: "llvm.intr.is.fpclass"(%{{.*}}) <{bit = 3 : i32}> : (f32) -> i1
gpu.module @classes {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %d: f64) {
    %a = math.isinf %x : f32
    llvm.store %a, %p : i1, !llvm.ptr
    %b = math.isnormal %d : f64
    llvm.store %b, %p : i1, !llvm.ptr
    %c = math.isnan %x : f32
    llvm.store %c, %p : i1, !llvm.ptr
    llvm.return
  }
}

// -----

// The chip's transcendental instructions stay as written where the chip has
// them (lower-math-gfx1250.mlir: gfx1250's own; lower-math-invalid.mlir:
// those the chip lacks).
// CHECK-LABEL: gpu.module @instructions
// CHECK: rocdl.exp2 %{{.*}} f32 -> f32
// CHECK: rocdl.rcp %{{.*}} f64 -> f64
// CHECK: llvm.call_intrinsic "llvm.amdgcn.rsq.f32"
// CHECK: rocdl.sin %{{.*}} f16 -> f16
gpu.module @instructions {
  llvm.func @k(%p: !llvm.ptr, %x: f32, %d: f64) {
    %a = rocdl.exp2 %x f32 -> f32
    llvm.store %a, %p : f32, !llvm.ptr
    %b = rocdl.rcp %d f64 -> f64
    llvm.store %b, %p : f64, !llvm.ptr
    %c = llvm.call_intrinsic "llvm.amdgcn.rsq.f32"(%x) : (f32) -> f32
    llvm.store %c, %p : f32, !llvm.ptr
    %h = llvm.fptrunc %x : f32 to f16
    %s = rocdl.sin %h f16 -> f16
    llvm.store %s, %p : f16, !llvm.ptr
    llvm.return
  }
}
