// The bounds check of buffer-resource (V#) accesses (convert-rocdl-to-emu
// with check=bounds, or bounds=strict): raw buffer loads, stores and
// atomics, and the buffer form of the LDS DMA, call the _checked forms of
// the runtime's buffer functions with the access's site appended (kind
// load 0, store 1, atomic 2; memory 2, a buffer; no argument). bounds=strict
// compiles the same code and sets bit 0x10 of __fly_emu_checks. Unchecked:
// the plain calls, no site.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds}))' | FileCheck %s
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds=strict,race}))' | FileCheck %s --check-prefix=STRICT
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' | FileCheck %s --check-prefix=OFF
// RUN: not fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds=lenient}))' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: gpu.module @buffers
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[VOFF:.*]]: i32, %[[X:.*]]: f32)
// CHECK-DAG: %[[STORESLOT:.*]] = llvm.alloca %{{.*}} x vector<2xf32>
// CHECK-DAG: %[[LOADSLOT:.*]] = llvm.alloca %{{.*}} x vector<4xi32>
// CHECK-DAG: %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64, i32, i32)>
// CHECK: %[[B16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-NEXT: %[[LSITE:.*]] = llvm.mlir.addressof @[[LOAD_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_buffer_load_checked(%[[CTX]], %[[DESC]], %[[VOFF]], %{{.*}}, %[[B16]], %[[LOADSLOT]], %[[LSITE]])
// CHECK: llvm.load %[[LOADSLOT]] : !llvm.ptr -> vector<4xi32>
// CHECK: %[[SSITE:.*]] = llvm.mlir.addressof @[[STORE_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_buffer_store_checked(%[[CTX]], %[[DESC]], %[[VOFF]], %{{.*}}, %{{.*}}, %[[STORESLOT]], %[[SSITE]])
// CHECK: %[[ASITE:.*]] = llvm.mlir.addressof @[[ATOMIC_SITE:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[AT:.*]] = llvm.call @fly_emu_buffer_atomic_address_checked(%[[CTX]], %[[DESC]], %[[VOFF]], %{{.*}}, %{{.*}}, %[[ASITE]])
// CHECK-NEXT: llvm.atomicrmw fadd %[[AT]], %[[X]] monotonic : !llvm.ptr, f32
// CHECK-NOT: @fly_emu_buffer_load(
// CHECK-NOT: @fly_emu_buffer_store(
// CHECK-NOT: @fly_emu_buffer_atomic_address(
// The sites: kernel, "buf.py:<line>", kind, memory 2 (buffer), argument -1.
// CHECK: llvm.mlir.global internal constant @[[LOAD_SITE]]()
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[LOAD_TEXT:__fly_emu_text_[0-9]+]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK: llvm.mlir.global internal constant @[[STORE_SITE]]()
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK: llvm.mlir.global internal constant @[[ATOMIC_SITE]]()
// CHECK-NEXT: llvm.mlir.undef
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK: llvm.mlir.global external constant @__fly_emu_checks(1 : i32)
// STRICT-LABEL: gpu.module @buffers
// STRICT: llvm.call @fly_emu_buffer_load_checked(
// STRICT: llvm.call @fly_emu_buffer_store_checked(
// STRICT: llvm.call @fly_emu_buffer_atomic_address_checked(
// STRICT: llvm.mlir.global external constant @__fly_emu_checks(19 : i32)
// OFF-LABEL: gpu.module @buffers
// OFF-NOT: _checked
// OFF-NOT: __fly_emu_site
// OFF: llvm.call @fly_emu_buffer_load(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}}) : (
// OFF: llvm.call @fly_emu_buffer_store(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}}) : (
// OFF: llvm.call @fly_emu_buffer_atomic_address(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,)]*}}) : (
// OFF-NOT: __fly_emu_checks
// BAD: unknown check 'bounds=lenient'
gpu.module @buffers {
  llvm.func @k(%base: !llvm.ptr<1>, %n: i64, %off: i32, %x: f32) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %s = llvm.mlir.constant(0 : i16) : i16
    %r = rocdl.make.buffer.rsrc %base, %s, %n, %c0 : !llvm.ptr<1> to !llvm.ptr<8>
    %v = rocdl.raw.ptr.buffer.load %r, %off, %c0, %c0 : vector<4xi32> loc("buf.py":3:5)
    %f = llvm.bitcast %v : vector<4xi32> to vector<4xf32>
    %h = llvm.shufflevector %f, %f [0, 1] : vector<4xf32>
    rocdl.raw.ptr.buffer.store %h, %r, %off, %c0, %c0 : vector<2xf32> loc("buf.py":6:5)
    rocdl.raw.ptr.buffer.atomic.fadd %x, %r, %off, %c0, %c0 : f32 loc("buf.py":7:5)
    llvm.return
  }
}
