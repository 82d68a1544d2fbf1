// gfx1250's own transcendentals (LLVM's tanh-insts and bf16-trans-insts
// features): fly-lower-math keeps them on gfx1250 and rejects them on a
// chip without them; gfx1250's ISA has them.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(fly-lower-math{chip=gfx1250}))' | FileCheck %s --check-prefix=IR
// IR: rocdl.tanh %{{.*}} f32 -> f32
// IR: rocdl.exp2 %{{.*}} bf16 -> bf16
// IR: llvm.call_intrinsic "llvm.amdgcn.tanh.f16"
// RUN: fly-compile %s --chip=gfx1250 --isa | FileCheck %s --check-prefix=ISA
// ISA-LABEL: gfx1250_numerics:
// ISA-DAG: v_tanh_f32
// ISA-DAG: v_exp_bf16
// ISA-DAG: v_tanh_f16
// ISA: s_endpgm
// RUN: not fly-compile %s --chip=gfx950 2>&1 | FileCheck %s --check-prefix=GFX950
// GFX950: error: 'rocdl.tanh' op v_tanh_f32 is not an instruction of gfx950 (chips that have it: gfx1250)
// GFX950: error: 'rocdl.exp2' op v_exp_bf16 is not an instruction of gfx950 (chips that have it: gfx1250)
// GFX950: error: 'llvm.call_intrinsic' op v_tanh_f16 is not an instruction of gfx950 (chips that have it: gfx1250)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gfx1250_numerics(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i64
      %src = llvm.getelementptr %in[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %x = llvm.load %src : !llvm.ptr<1> -> f32
      %c3 = arith.constant 3 : i64
      %slot = arith.muli %i, %c3 : i64
      %t = rocdl.tanh %x f32 -> f32
      %d0 = llvm.getelementptr %out[%slot] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %t, %d0 : f32, !llvm.ptr<1>
      %b = llvm.fptrunc %x : f32 to bf16
      %e = rocdl.exp2 %b bf16 -> bf16
      %ew = llvm.fpext %e : bf16 to f32
      %d1 = llvm.getelementptr %d0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %ew, %d1 : f32, !llvm.ptr<1>
      %h = llvm.fptrunc %x : f32 to f16
      %th = llvm.call_intrinsic "llvm.amdgcn.tanh.f16"(%h) : (f16) -> f16
      %thw = llvm.fpext %th : f16 to f32
      %d2 = llvm.getelementptr %d0[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %thw, %d2 : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
