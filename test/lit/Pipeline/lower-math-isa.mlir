// The math ops and ROCDL transcendentals FlyDSL's kernels use, through the
// whole pipeline to each chip's ISA: the code object links (no device
// library call is left), and each function is the instruction it should be
// (v_exp_f32 for exp2, with the denormal scaling of llvm.exp2 for math's;
// v_log_f32; v_rcp_f32 and v_rsq_f32 bare for rocdl.rcp and amdgcn.rsq;
// v_sin_f32 for sin; math.tanh as the polynomial approximation, with
// v_rcp_f32 in its division; math.sqrt as v_sqrt_f32 with its correction).
// DEFINE: %{chip} =
// DEFINE: %{isa} = fly-compile %s --chip=%{chip} --isa | FileCheck %s --implicit-check-not=__ocml
// REDEFINE: %{chip} = gfx942
// RUN: %{isa}
// REDEFINE: %{chip} = gfx950
// RUN: %{isa}
// REDEFINE: %{chip} = gfx1100
// RUN: %{isa}
// REDEFINE: %{chip} = gfx1201
// RUN: %{isa}
// REDEFINE: %{chip} = gfx1250
// RUN: %{isa}
// CHECK-LABEL: numerics:
// CHECK-DAG: v_exp_f32
// CHECK-DAG: v_ldexp_f32
// CHECK-DAG: v_log_f32
// CHECK-DAG: v_rcp_f32
// CHECK-DAG: v_rsq_f32
// CHECK-DAG: v_sqrt_f32
// CHECK-DAG: v_sin_f32
// CHECK-DAG: v_cos_f32
// CHECK-DAG: v_fma_f32
// CHECK: s_endpgm

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @numerics(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i64
      %src = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %x = llvm.load %src : !llvm.ptr<1> -> f32
      %c16 = arith.constant 16 : i64
      %slot = arith.muli %i, %c16 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c2 = arith.constant 2 : i64
      %c3 = arith.constant 3 : i64
      %c4 = arith.constant 4 : i64
      %c5 = arith.constant 5 : i64
      %c6 = arith.constant 6 : i64
      %c7 = arith.constant 7 : i64
      %c8 = arith.constant 8 : i64
      %c9 = arith.constant 9 : i64
      %c10 = arith.constant 10 : i64
      %c11 = arith.constant 11 : i64
      %r0 = math.exp2 %x : f32
      %o0 = arith.addi %slot, %c0 : i64
      %d0 = llvm.getelementptr %out[%o0] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r0, %d0 : f32, !llvm.ptr<1>
      %r1 = math.log2 %x : f32
      %o1 = arith.addi %slot, %c1 : i64
      %d1 = llvm.getelementptr %out[%o1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r1, %d1 : f32, !llvm.ptr<1>
      %r2 = math.sqrt %x : f32
      %o2 = arith.addi %slot, %c2 : i64
      %d2 = llvm.getelementptr %out[%o2] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r2, %d2 : f32, !llvm.ptr<1>
      %r3 = math.sin %x : f32
      %o3 = arith.addi %slot, %c3 : i64
      %d3 = llvm.getelementptr %out[%o3] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r3, %d3 : f32, !llvm.ptr<1>
      %r4 = math.cos %x : f32
      %o4 = arith.addi %slot, %c4 : i64
      %d4 = llvm.getelementptr %out[%o4] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r4, %d4 : f32, !llvm.ptr<1>
      %r5 = math.tanh %x : f32
      %o5 = arith.addi %slot, %c5 : i64
      %d5 = llvm.getelementptr %out[%o5] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r5, %d5 : f32, !llvm.ptr<1>
      %r6 = math.exp %x : f32
      %o6 = arith.addi %slot, %c6 : i64
      %d6 = llvm.getelementptr %out[%o6] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r6, %d6 : f32, !llvm.ptr<1>
      %r7 = rocdl.exp2 %x f32 -> f32
      %o7 = arith.addi %slot, %c7 : i64
      %d7 = llvm.getelementptr %out[%o7] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r7, %d7 : f32, !llvm.ptr<1>
      %r8 = rocdl.rcp %x f32 -> f32
      %o8 = arith.addi %slot, %c8 : i64
      %d8 = llvm.getelementptr %out[%o8] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r8, %d8 : f32, !llvm.ptr<1>
      %r9 = rocdl.log %x f32 -> f32
      %o9 = arith.addi %slot, %c9 : i64
      %d9 = llvm.getelementptr %out[%o9] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r9, %d9 : f32, !llvm.ptr<1>
      %r10 = llvm.call_intrinsic "llvm.amdgcn.rsq.f32"(%x) : (f32) -> f32
      %o10 = arith.addi %slot, %c10 : i64
      %d10 = llvm.getelementptr %out[%o10] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r10, %d10 : f32, !llvm.ptr<1>
      %r11 = llvm.call_intrinsic "llvm.amdgcn.exp2.f32"(%x) : (f32) -> f32
      %o11 = arith.addi %slot, %c11 : i64
      %d11 = llvm.getelementptr %out[%o11] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %r11, %d11 : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
