// convert-rocdl-to-emu's numerics (NumericIntrinsics.cpp): the chip's
// transcendental instructions become host ops computing the exact value in
// f64, rounded once to the type; f32 denormal inputs are read and f32
// denormal results written as zeros of their sign (FLT_MIN is
// 1.17549435E-38); v_sin / v_cos take turns (sin(2 pi (x - rint(x))), 0
// beyond 256 turns); generic llvm.sin / llvm.cos are the instruction of
// x * (1 / 2pi), as the AMDGPU backend expands them; other generic
// intrinsics stay the host's. Outside kernels too (no context needed).
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s

// v_exp_f32 in a helper function: flushed input, exp2 in f64, rounded,
// flushed result.
// CHECK-LABEL: llvm.func @helper(
// CHECK-SAME: %[[X:.*]]: f32) -> f32
// CHECK: %[[ABS:.*]] = llvm.intr.fabs(%[[X]]) : (f32) -> f32
// CHECK: %[[MIN:.*]] = llvm.mlir.constant(1.17549435E-38 : f32) : f32
// CHECK: %[[TINY:.*]] = llvm.fcmp "olt" %[[ABS]], %[[MIN]] : f32
// CHECK: %[[ZERO:.*]] = llvm.intr.copysign(%{{.*}}, %[[X]]) : (f32, f32) -> f32
// CHECK: %[[IN:.*]] = llvm.select %[[TINY]], %[[ZERO]], %[[X]] : i1, f32
// CHECK: %[[WIDE:.*]] = llvm.fpext %[[IN]] : f32 to f64
// CHECK: %[[EXP:.*]] = llvm.intr.exp2(%[[WIDE]]) : (f64) -> f64
// CHECK: %[[R:.*]] = llvm.fptrunc %[[EXP]] : f64 to f32
// CHECK: llvm.intr.fabs(%[[R]]) : (f32) -> f32
// CHECK: %[[OUT:.*]] = llvm.select %{{.*}}, %{{.*}}, %[[R]] : i1, f32
// CHECK: llvm.return %[[OUT]] : f32

// f16 keeps its denormals (no flush); f64 rcp is a division; rsq is
// 1 / sqrt in f64; v_sin in turns; llvm.cos scaled to turns first.
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[F:.*]]: f32, %[[H:.*]]: f16, %[[D:.*]]: f64)
// CHECK: %[[HW:.*]] = llvm.fpext %[[H]] : f16 to f64
// CHECK: %[[LOG:.*]] = llvm.intr.log2(%[[HW]]) : (f64) -> f64
// CHECK: %[[LOGH:.*]] = llvm.fptrunc %[[LOG]] : f64 to f16
// CHECK-NEXT: llvm.store %[[LOGH]], %[[P]] : f16, !llvm.ptr
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
// CHECK: %[[RCP:.*]] = llvm.fdiv %[[ONE]], %[[D]] : f64
// CHECK-NEXT: llvm.store %[[RCP]], %[[P]] : f64, !llvm.ptr
// CHECK: %[[SQ:.*]] = llvm.intr.sqrt(%{{.*}}) : (f64) -> f64
// CHECK: %[[RSQ:.*]] = llvm.fdiv %{{.*}}, %[[SQ]] : f64
// CHECK: llvm.fptrunc %[[RSQ]] : f64 to f32
// CHECK: %[[TW:.*]] = llvm.fpext %{{.*}} : f32 to f64
// CHECK: %[[WHOLE:.*]] = llvm.intr.rint(%[[TW]]) : (f64) -> f64
// CHECK: %[[FRAC:.*]] = llvm.fsub %[[TW]], %[[WHOLE]] : f64
// CHECK: %[[ISZERO:.*]] = llvm.fcmp "oeq" %[[TW]], %{{.*}} : f64
// CHECK: %[[TURN:.*]] = llvm.select %[[ISZERO]], %[[TW]], %[[FRAC]] : i1, f64
// CHECK: %[[TWOPI:.*]] = llvm.mlir.constant(6.2831853071795862 : f64) : f64
// CHECK: %[[ANGLE:.*]] = llvm.fmul %[[TURN]], %[[TWOPI]] : f64
// CHECK: %[[SIN:.*]] = llvm.intr.sin(%[[ANGLE]]) : (f64) -> f64
// CHECK: %[[SINF:.*]] = llvm.fptrunc %[[SIN]] : f64 to f32
// CHECK: %[[LIMIT:.*]] = llvm.mlir.constant(2.560000e+02 : f32) : f32
// CHECK: %[[LARGE:.*]] = llvm.fcmp "ogt" %{{.*}}, %[[LIMIT]] : f32
// CHECK: %[[FINITE:.*]] = llvm.fcmp "one" %{{.*}}, %{{.*}} : f32
// CHECK: %[[OUTSIDE:.*]] = llvm.and %[[LARGE]], %[[FINITE]] : i1
// CHECK: llvm.select %[[OUTSIDE]], %{{.*}}, %[[SINF]] : i1, f32
// CHECK: %[[INV2PI:.*]] = llvm.mlir.constant(0.159154937 : f32) : f32
// CHECK: %[[TURNS:.*]] = llvm.fmul %[[F]], %[[INV2PI]] : f32
// CHECK: llvm.intr.cos(%{{.*}}) : (f64) -> f64
// CHECK: llvm.call_intrinsic "llvm.exp2"(%[[F]]) : (f32) -> f32
// CHECK: llvm.intr.tanh(%{{.*}}) : (f64) -> f64
// CHECK-NOT: rocdl.
// CHECK-NOT: llvm.amdgcn
gpu.module @numerics {
  llvm.func @helper(%x: f32) -> f32 {
    %r = rocdl.exp2 %x f32 -> f32
    llvm.return %r : f32
  }
  llvm.func @k(%p: !llvm.ptr<1>, %x: f32, %h: f16, %d: f64) attributes {rocdl.kernel} {
    %a = rocdl.log %h f16 -> f16
    llvm.store %a, %p : f16, !llvm.ptr<1>
    %b = rocdl.rcp %d f64 -> f64
    llvm.store %b, %p : f64, !llvm.ptr<1>
    %c = llvm.call_intrinsic "llvm.amdgcn.rsq.f32"(%x) : (f32) -> f32
    llvm.store %c, %p : f32, !llvm.ptr<1>
    %e = rocdl.sin %x f32 -> f32
    llvm.store %e, %p : f32, !llvm.ptr<1>
    %f = llvm.call_intrinsic "llvm.cos"(%x) : (f32) -> f32
    llvm.store %f, %p : f32, !llvm.ptr<1>
    %g = llvm.call_intrinsic "llvm.exp2"(%x) : (f32) -> f32
    llvm.store %g, %p : f32, !llvm.ptr<1>
    %t = llvm.call_intrinsic "llvm.amdgcn.tanh"(%x) : (f32) -> f32
    llvm.store %t, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}
