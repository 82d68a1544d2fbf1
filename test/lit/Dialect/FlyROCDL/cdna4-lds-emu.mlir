// The LDS loads through convert-rocdl-to-emu: an LDS DMA reads M0 (the LDS
// pointer of the wave's first active lane, as two readfirstlane words) and
// has the lane write at M0 + offset + lane_id * size, from
// fly_emu_buffer_load at voffset + offset (buffer form) or a copy of global
// memory at the pointer + offset (global form); a transposing read is the
// collective fly_emu_ds_read_tr (element bits, bytes) into a frame slot.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' | FileCheck %s

// CHECK-LABEL: gpu.module @buffer_dma
// CHECK-NOT: rocdl.
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[R:.*]]: !llvm.ptr, %[[LDS:.*]]: !llvm.ptr, %[[V:.*]]: i32, %[[S:.*]]: i32)
// CHECK: llvm.ptrtoint %[[LDS]] : !llvm.ptr to i64
// CHECK-COUNT-2: llvm.call @fly_emu_readfirstlane
// CHECK: %[[M0:.*]] = llvm.inttoptr
// CHECK: %[[LID:.*]] = llvm.getelementptr inbounds %[[CTX]][52] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: %[[LANE:.*]] = llvm.load %[[LID]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-DAG: %[[SZ:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[OFF:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[MUL:.*]] = llvm.mul %[[LANE]], %[[SZ]]
// CHECK: %[[AT:.*]] = llvm.add %[[MUL]], %[[OFF]]
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[M0]][%[[AT]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK: %[[VO:.*]] = llvm.add %[[V]], %{{.*}} : i32
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[R]], %[[VO]], %[[S]], %{{.*}}, %[[DST]])
gpu.module @buffer_dma {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %lds: !llvm.ptr<3>, %v: i32, %s: i32) attributes {rocdl.kernel} {
    %size = llvm.mlir.constant(16 : i32) : i32
    %off = llvm.mlir.constant(32 : i32) : i32
    %aux = llvm.mlir.constant(0 : i32) : i32
    rocdl.raw.ptr.buffer.load.lds %rsrc, %lds, %size, %v, %s, %off, %aux
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @global_dma
// CHECK-NOT: rocdl.
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[G:.*]]: !llvm.ptr, %[[LDS:.*]]: !llvm.ptr)
// CHECK-COUNT-2: llvm.call @fly_emu_readfirstlane
// CHECK: %[[M0:.*]] = llvm.inttoptr
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[M0]]
// CHECK: %[[SRC:.*]] = llvm.getelementptr %[[G]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: "llvm.intr.memcpy"(%[[DST]], %[[SRC]], %{{.*}}) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i32) -> ()
gpu.module @global_dma {
  llvm.func @k(%g: !llvm.ptr<1>, %lds: !llvm.ptr<3>) attributes {rocdl.kernel} {
    rocdl.global.load.lds %g, %lds, 12, 0, 0
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @transpose
// CHECK-NOT: rocdl.
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[LDS:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// CHECK-DAG: %[[W:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[B:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: llvm.call @fly_emu_ds_read_tr(%[[CTX]], %[[LDS]], %[[W]], %[[B]], %[[SLOT:.*]]) : (!llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr) -> ()
// CHECK: llvm.load %[[SLOT]] : !llvm.ptr -> vector<4xi16>
// CHECK-DAG: %[[W6:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-DAG: %[[B12:.*]] = llvm.mlir.constant(12 : i32) : i32
// CHECK: llvm.call @fly_emu_ds_read_tr(%[[CTX]], %[[LDS]], %[[W6]], %[[B12]], %{{.*}})
gpu.module @transpose {
  llvm.func @k(%lds: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %t = rocdl.ds.read.tr16.b64 %lds : !llvm.ptr<3> -> vector<4xi16>
    llvm.store %t, %out : vector<4xi16>, !llvm.ptr<1>
    %u = rocdl.ds.read.tr6.b96 %lds : !llvm.ptr<3> -> vector<3xi32>
    llvm.store %u, %out : vector<3xi32>, !llvm.ptr<1>
    llvm.return
  }
}

