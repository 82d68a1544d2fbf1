// The bounds check of the LDS DMA's own accesses (convert-rocdl-to-emu
// with check=bounds): the lane's LDS destination and, for the global form,
// its global source go through fly_emu_check_access (an LDS site, and a
// global one naming the kernel argument the source derives from, so it is
// checked against that tensor only) before the copy; the buffer form's source
// goes through fly_emu_buffer_load_checked (the V#'s range checking and
// the bounds check of the tensor the V# was made from). Unchecked: plain
// as before.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds}))' | FileCheck %s
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.module @global_dma
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[G:.*]]: !llvm.ptr, %[[LDS:.*]]: !llvm.ptr)
// CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK-NEXT: %[[DSITE:.*]] = llvm.mlir.addressof @[[LDS_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[TWELVE:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK-NEXT: %[[DST2:.*]] = llvm.call @fly_emu_check_access(%[[CTX]], %[[DST]], %[[TWELVE]], %[[DSITE]])
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %[[G]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[SSITE:.*]] = llvm.mlir.addressof @[[G_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[TWELVE2:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK-NEXT: %[[SRC2:.*]] = llvm.call @fly_emu_check_access(%[[CTX]], %[[SRC]], %[[TWELVE2]], %[[SSITE]])
// CHECK: "llvm.intr.memcpy"(%[[DST2]], %[[SRC2]], %{{.*}})
// The sites: store to LDS (kind 1, space 1, no argument), load from
// global (0, 0) of argument 0, the pointer the source derives from.
// CHECK: @[[LDS_SITE]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK: @[[G_SITE]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// OFF-LABEL: gpu.module @global_dma
// OFF-NOT: fly_emu_check_access
// OFF: "llvm.intr.memcpy"
gpu.module @global_dma {
  llvm.func @k(%g: !llvm.ptr<1>, %lds: !llvm.ptr<3>) attributes {rocdl.kernel} {
    rocdl.global.load.lds %g, %lds, 12, 0, 0 loc("dma.py":4:5)
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @buffer_dma
// CHECK: %[[DST:.*]] = llvm.call @fly_emu_check_access
// CHECK-NOT: fly_emu_check_access
// CHECK: %[[BSITE:.*]] = llvm.mlir.addressof @__fly_emu_site_
// CHECK-NEXT: llvm.call @fly_emu_buffer_load_checked(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DST]], %[[BSITE]])
// OFF-LABEL: gpu.module @buffer_dma
// OFF-NOT: fly_emu_check_access
// OFF-NOT: _checked
// OFF: fly_emu_buffer_load(
gpu.module @buffer_dma {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %lds: !llvm.ptr<3>, %v: i32, %s: i32) attributes {rocdl.kernel} {
    %size = llvm.mlir.constant(16 : i32) : i32
    %off = llvm.mlir.constant(32 : i32) : i32
    %aux = llvm.mlir.constant(0 : i32) : i32
    rocdl.raw.ptr.buffer.load.lds %rsrc, %lds, %size, %v, %s, %off, %aux
    llvm.return
  }
}
