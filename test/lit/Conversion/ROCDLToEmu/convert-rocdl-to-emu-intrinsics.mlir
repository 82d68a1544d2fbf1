// AMDGPU intrinsics that kernels call through llvm.call_intrinsic rather
// than as ROCDL ops, through convert-rocdl-to-emu: update.dpp becomes
// fly_emu_update_dpp like rocdl.update.dpp, s.buffer.load range-checked
// buffer loads of the resource its vector<4xi32> stands for, perm inline
// byte selects.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s

// dpp_ctrl 0x111 (row_shr:1), row_mask 0xf, bank_mask 0xc, bound_ctrl:
// 0x111 | 0xf << 9 | 0xc << 13 | 1 << 17 = 237329. A float travels as its
// bits.
// CHECK-LABEL: gpu.module @dpp
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[OLD:.*]]: i32, %[[SRC:.*]]: i32, %[[F:.*]]: f32, %[[OUT:.*]]: !llvm.ptr)
// CHECK: %[[C:.*]] = llvm.mlir.constant(237329 : i32) : i32
// CHECK: %[[R:.*]] = llvm.call @fly_emu_update_dpp(%[[CTX]], %[[OLD]], %[[SRC]], %[[C]]) : (!llvm.ptr, i32, i32, i32) -> i32
// CHECK: llvm.store %[[R]], %[[OUT]]
// CHECK: %[[FO:.*]] = llvm.bitcast %[[F]] : f32 to i32
// CHECK: %[[FS:.*]] = llvm.bitcast %[[F]] : f32 to i32
// 0x1b (quad_perm [3,2,1,0]) | 0xf << 9 | 0xf << 13 = 130587, no bound_ctrl.
// CHECK: %[[C2:.*]] = llvm.mlir.constant(130587 : i32) : i32
// CHECK: %[[FR:.*]] = llvm.call @fly_emu_update_dpp(%[[CTX]], %[[FO]], %[[FS]], %[[C2]])
// CHECK: llvm.bitcast %[[FR]] : i32 to f32
// CHECK-NOT: llvm.amdgcn.update.dpp
gpu.module @dpp {
  llvm.func @k(%old: i32, %src: i32, %f: f32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %ctrl = llvm.mlir.constant(273 : i32) : i32
    %rows = llvm.mlir.constant(15 : i32) : i32
    %banks = llvm.mlir.constant(12 : i32) : i32
    %all = llvm.mlir.constant(15 : i32) : i32
    %bound = llvm.mlir.constant(true) : i1
    %nobound = llvm.mlir.constant(false) : i1
    %quad = llvm.mlir.constant(27 : i32) : i32
    %r = llvm.call_intrinsic "llvm.amdgcn.update.dpp.i32"(%old, %src, %ctrl, %rows, %banks, %bound) : (i32, i32, i32, i32, i32, i1) -> i32
    llvm.store %r, %out : i32, !llvm.ptr
    %fr = llvm.call_intrinsic "llvm.amdgcn.update.dpp.f32"(%f, %f, %quad, %all, %all, %nobound) : (f32, f32, i32, i32, i32, i1) -> f32
    llvm.store %fr, %out : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// A resource passed as the bits of a buffer resource pointer (ptrtoint to
// i128, bitcast to vector<4xi32>) is that pointer's descriptor; the offset
// loses its two low bits; a load of 8 dwords is two runtime loads of 16
// bytes, the second at soffset 16 into the slot's second half.
// CHECK-LABEL: gpu.module @sload
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr, %[[OFF:.*]]: i32, %[[OUT:.*]]: !llvm.ptr)
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x vector<8xi32>
// CHECK: %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64, i32, i32)>
// CHECK: %[[M:.*]] = llvm.mlir.constant(-4 : i32) : i32
// CHECK: %[[AL:.*]] = llvm.and %[[OFF]], %[[M]] : i32
// CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[B16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[DESC]], %[[AL]], %[[Z]], %[[B16]], %[[SLOT]])
// CHECK: %[[HI:.*]] = llvm.getelementptr inbounds %[[SLOT]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[DESC]], %[[AL]], %{{.*}}, %{{.*}}, %[[HI]])
// CHECK: %[[V:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> vector<8xi32>
// CHECK: llvm.store %[[V]], %[[OUT]]
// CHECK-NOT: llvm.amdgcn.s.buffer.load
gpu.module @sload {
  llvm.func @k(%base: !llvm.ptr<1>, %off: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %s = llvm.mlir.constant(0 : i16) : i16
    %n = llvm.mlir.constant(256 : i64) : i64
    %f = llvm.mlir.constant(0 : i32) : i32
    %r = rocdl.make.buffer.rsrc %base, %s, %n, %f : !llvm.ptr<1> to !llvm.ptr<8>
    %bits = llvm.ptrtoint %r : !llvm.ptr<8> to i128
    %words = llvm.bitcast %bits : i128 to vector<4xi32>
    %v = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.v8i32"(%words, %off, %f) : (vector<4xi32>, i32, i32) -> vector<8xi32>
    llvm.store %v, %out : vector<8xi32>, !llvm.ptr
    llvm.return
  }
}

// -----

// Four words that are not a resource pointer's bits are a V#: base
// [47:0], stride [61:48], num_records, flags, stored into a descriptor of
// the frame.
// CHECK-LABEL: gpu.module @vsharp
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[W:.*]]: vector<4xi32>, %[[OFF:.*]]: i32, %[[OUT:.*]]: !llvm.ptr)
// CHECK: %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64, i32, i32)>
// CHECK: %[[W1:.*]] = llvm.extractelement %[[W]][%{{.*}} : i32] : vector<4xi32>
// CHECK: %[[LO16:.*]] = llvm.and %[[W1]], %{{.*}} : i32
// CHECK: llvm.shl
// CHECK: %[[W0:.*]] = llvm.extractelement %[[W]][%{{.*}} : i32] : vector<4xi32>
// CHECK: %[[BASE:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: llvm.lshr %[[W1]]
// CHECK: llvm.store %[[BASE]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[DESC]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i32
gpu.module @vsharp {
  llvm.func @k(%w: vector<4xi32>, %off: i32, %out: !llvm.ptr) attributes {rocdl.kernel} {
    %f = llvm.mlir.constant(0 : i32) : i32
    %v = llvm.call_intrinsic "llvm.amdgcn.s.buffer.load.i32"(%w, %off, %f) : (vector<4xi32>, i32, i32) -> i32
    llvm.store %v, %out : i32, !llvm.ptr
    llvm.return
  }
}

// -----

// v_perm_b32 inline (no runtime call, also outside kernels): a 16-byte
// table (src0:src1, four sign bytes, 0x00, 0xff...) indexed by each
// selector byte clamped to 13.
// CHECK-LABEL: gpu.module @perm
// CHECK-NOT: llvm.amdgcn.perm
// CHECK: llvm.func @helper(%[[A:.*]]: i32, %[[B:.*]]: i32, %[[S:.*]]: i32) -> i32
// CHECK-DAG: %[[LO:.*]] = llvm.zext %[[B]] : i32 to i64
// CHECK-DAG: %[[HI:.*]] = llvm.zext %[[A]] : i32 to i64
// CHECK: %[[HIS:.*]] = llvm.shl %[[HI]], %{{.*}} : i64
// CHECK: %[[DATA:.*]] = llvm.or %[[HIS]], %[[LO]] : i64
// The sign bits: data bits 15, 31, 47, 63.
// CHECK: llvm.mlir.constant(15 : i64)
// CHECK: llvm.mlir.constant(31 : i64)
// CHECK: llvm.mlir.constant(47 : i64)
// CHECK: llvm.mlir.constant(63 : i64)
// Byte 12 zero, 13-15 0xff: 0xffffff00_00000000.
// CHECK: llvm.mlir.constant(-1099511627776 : i64)
// CHECK: llvm.zext %[[DATA]] : i64 to i128
// CHECK-COUNT-4: llvm.intr.umin
// CHECK: llvm.return
gpu.module @perm {
  llvm.func @helper(%a: i32, %b: i32, %s: i32) -> i32 {
    %r = llvm.call_intrinsic "llvm.amdgcn.perm"(%a, %b, %s) : (i32, i32, i32) -> i32
    llvm.return %r : i32
  }
}
