// The init check and the LDS writes the lowering makes itself: an LDS-DMA
// load (global or buffer form) marks the lane's destination bytes written
// with fly_emu_check_lds_written after its copy (at the address the bounds
// check gave, when it is on). Without the init check: no such call.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=init}))' | FileCheck %s
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds,init}))' | FileCheck %s --check-prefix=BOTH
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds}))' | FileCheck %s --check-prefix=BOUNDS

// CHECK-LABEL: gpu.module @global_dma
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[G:.*]]: !llvm.ptr, %[[LDS:.*]]: !llvm.ptr)
// CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %[[G]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: "llvm.intr.memcpy"(%[[DST]], %[[SRC]], %{{.*}})
// CHECK-NEXT: %[[TWELVE:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK-NEXT: llvm.call @fly_emu_check_lds_written(%[[CTX]], %[[DST]], %[[TWELVE]])
// BOTH-LABEL: gpu.module @global_dma
// BOTH: %[[DST:.*]] = llvm.call @fly_emu_check_access
// BOTH: "llvm.intr.memcpy"(%[[DST]],
// BOTH-NEXT: llvm.mlir.constant(12 : i64)
// BOTH-NEXT: llvm.call @fly_emu_check_lds_written(%{{.*}}, %[[DST]],
// BOUNDS-LABEL: gpu.module @global_dma
// BOUNDS-NOT: fly_emu_check_lds_written
gpu.module @global_dma {
  llvm.func @k(%g: !llvm.ptr<1>, %lds: !llvm.ptr<3>) attributes {rocdl.kernel} {
    rocdl.global.load.lds %g, %lds, 12, 0, 0 loc("dma.py":4:5)
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @buffer_dma
// CHECK: llvm.call @fly_emu_buffer_load(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DST:[^)]*]])
// CHECK-NEXT: %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.call @fly_emu_check_lds_written(%{{.*}}, %[[DST]], %[[SIXTEEN]])
// BOUNDS-LABEL: gpu.module @buffer_dma
// BOUNDS-NOT: fly_emu_check_lds_written
gpu.module @buffer_dma {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %lds: !llvm.ptr<3>, %v: i32, %s: i32) attributes {rocdl.kernel} {
    %size = llvm.mlir.constant(16 : i32) : i32
    %off = llvm.mlir.constant(32 : i32) : i32
    %aux = llvm.mlir.constant(0 : i32) : i32
    rocdl.raw.ptr.buffer.load.lds %rsrc, %lds, %size, %v, %s, %off, %aux
    llvm.return
  }
}
