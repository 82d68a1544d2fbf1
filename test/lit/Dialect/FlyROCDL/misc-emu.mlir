// The instruction-level ops of fx.rocdl (waits, scheduling hints, DPP,
// gfx950's stochastic-rounding conversion) through convert-rocdl-to-emu:
// the ordering-only ops vanish, update.dpp becomes fly_emu_update_dpp with
// its controls packed into one word, cvt.sr.bf16.f32 inline integer code.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' | FileCheck %s

// CHECK-LABEL: gpu.module @hints
// CHECK-NOT: rocdl.
// CHECK: llvm.func internal @k_body
// CHECK-NEXT: llvm.return
gpu.module @hints {
  llvm.func @k() attributes {rocdl.kernel} {
    rocdl.s.waitcnt 627
    rocdl.sched.group.barrier 8, 2, 0
    rocdl.sched.barrier 6
    rocdl.s.setprio 2
    rocdl.iglp.opt 1
    rocdl.s.wait.asynccnt 0
    llvm.return
  }
}

// -----

// dpp_ctrl 0x1b, row_mask 0xa, bank_mask 0x5, bound_ctrl: 0x1b | 0xa << 9 |
// 0x5 << 13 | 1 << 17 = 177179. A float travels as its bits.
// CHECK-LABEL: gpu.module @dpp
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[OLD:.*]]: f32, %[[SRC:.*]]: f32, %[[OUT:.*]]: !llvm.ptr)
// CHECK-DAG: %[[O:.*]] = llvm.bitcast %[[OLD]] : f32 to i32
// CHECK-DAG: %[[S:.*]] = llvm.bitcast %[[SRC]] : f32 to i32
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(177179 : i32) : i32
// CHECK: %[[R:.*]] = llvm.call @fly_emu_update_dpp(%[[CTX]], %[[O]], %[[S]], %[[C]]) : (!llvm.ptr, i32, i32, i32) -> i32
// CHECK: llvm.bitcast %[[R]] : i32 to f32
gpu.module @dpp {
  llvm.func @k(%old: f32, %src: f32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %r = rocdl.update.dpp %old, %src with 27, 10, 5, true : f32
    llvm.store %r, %out : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// V_CVT_SR_BF16_F32: bits(x) + (rand & 0xffff), the high half; a NaN's
// quieted high half; the bf16 inserted at element word_sel of old.
// CHECK-LABEL: gpu.module @cvt_sr
// CHECK-NOT: llvm.amdgcn.cvt.sr
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK: %[[LOW:.*]] = llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: %[[SUM:.*]] = llvm.add %[[BITS]], %[[LOW]] : i32
// CHECK: llvm.lshr %[[SUM]]
// CHECK: llvm.fcmp "uno"
// CHECK: llvm.select
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK: llvm.bitcast %{{.*}} : i16 to bf16
// CHECK: llvm.insertelement
gpu.module @cvt_sr {
  llvm.func @k(%x: f32, %rand: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %old = llvm.mlir.undef : vector<2xbf16>
    %sel = llvm.mlir.constant(false) : i1
    %r = llvm.call_intrinsic "llvm.amdgcn.cvt.sr.bf16.f32"(%old, %x, %rand, %sel) : (vector<2xbf16>, f32, i32, i1) -> vector<2xbf16>
    llvm.store %r, %out : vector<2xbf16>, !llvm.ptr
    llvm.return
  }
}

// -----

// permlanex16's flags: fi [0], bound_control [1]; the swaps' pair comes back
// as one i64 (new destination low, new source high), 32-lane blocks [2].
// CHECK-LABEL: gpu.module @permlane
// CHECK: %[[F1:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: llvm.call @fly_emu_permlanex16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F1]]) : (!llvm.ptr, i32, i32, i32, i32, i32) -> i32
// CHECK: %[[F2:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK: %[[BOTH:.*]] = llvm.call @fly_emu_permlane_swap(%{{.*}}, %{{.*}}, %{{.*}}, %[[F2]]) : (!llvm.ptr, i32, i32, i32) -> i64
// CHECK: llvm.trunc %[[BOTH]] : i64 to i32
// CHECK: llvm.lshr %[[BOTH]]
// CHECK: llvm.insertvalue
// CHECK: llvm.insertvalue
// CHECK-NOT: rocdl.permlane
gpu.module @permlane {
  llvm.func @k(%a: i32, %b: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %x = rocdl.permlanex16 %a, %b, %a, %b, false, true : i32, i32
    %p = rocdl.permlane32.swap %a, %x, true, false : (i32, i32) -> !llvm.struct<(i32, i32)>
    %e = llvm.extractvalue %p[1] : !llvm.struct<(i32, i32)>
    llvm.store %e, %out : i32, !llvm.ptr
    llvm.return
  }
}
