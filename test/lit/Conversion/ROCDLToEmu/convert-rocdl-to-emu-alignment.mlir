// convert-rocdl-to-emu's alignment checks: each kernel access to flat,
// global, constant or LDS memory whose declared alignment is above 1 is
// preceded by a test of its address and a branch to a trap naming it.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))' | FileCheck %s
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s --check-prefix=OFF

// A global vector load with its declared 16: the low four bits of the
// address are tested; the message names the access and its source line.
// CHECK-LABEL: gpu.module @global_load
// CHECK: llvm.mlir.global internal constant @[[MSG:.*]]("global load of 16 bytes at k.py:7:3\00")
// CHECK: llvm.func @fly_emu_trap_misaligned(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr)
// CHECK-NEXT: %[[BITS:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(15 : i64) : i64
// CHECK-NEXT: %[[LOW:.*]] = llvm.and %[[BITS]], %[[MASK]] : i64
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[BAD:.*]] = llvm.icmp "ne" %[[LOW]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[BAD]], ^[[TRAP:.*]], ^[[GO:.*]]
// CHECK-NEXT: ^[[TRAP]]:
// CHECK-NEXT: %[[WHAT:.*]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT: %[[ALIGN:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.call @fly_emu_trap_misaligned(%[[CTX]], %[[WHAT]], %[[P]], %[[ALIGN]])
// CHECK-NEXT: llvm.unreachable
// CHECK-NEXT: ^[[GO]]:
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// OFF-LABEL: gpu.module @global_load
// OFF-NOT: fly_emu_trap_misaligned
// OFF: llvm.load
gpu.module @global_load {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32> loc("k.py":7:3)
    llvm.return
  }
}

// -----

// No alignment given: the type's natural alignment, as in the AMDGPU data
// layout (8 for an i64), for an LDS store; an atomic's own alignment. The
// message names the first file location of a fused one.
// CHECK-LABEL: gpu.module @lds_and_atomic
// CHECK-DAG: @[[ST:[^(]*]]("LDS store of 8 bytes at s.py:2:1\00")
// CHECK-DAG: @[[AT:[^(]*]]("global atomic of 4 bytes at a.py:3:1\00")
// CHECK: llvm.mlir.constant(7 : i64)
// CHECK: llvm.mlir.addressof @[[ST]]
// CHECK: llvm.mlir.constant(8 : i64)
// CHECK: llvm.store
// CHECK: llvm.mlir.constant(3 : i64)
// CHECK: llvm.mlir.addressof @[[AT]]
// CHECK: llvm.mlir.constant(4 : i64)
// CHECK: llvm.atomicrmw fadd
gpu.module @lds_and_atomic {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x i64>
  llvm.func @k(%acc: !llvm.ptr<1>, %v: i64, %x: f32) attributes {rocdl.kernel} {
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    llvm.store %v, %t : i64, !llvm.ptr<3> loc("s.py":2:1)
    %old = llvm.atomicrmw fadd %acc, %x monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32 loc(fused["a.py":3:1, "b.py":4:2])
    llvm.return
  }
}

// -----

// Not checked: byte accesses (alignment 1), private memory (the host
// frame), and functions that are not kernels.
// CHECK-LABEL: gpu.module @unchecked
// CHECK-NOT: fly_emu_trap_misaligned
// CHECK-NOT: llvm.cond_br
// CHECK: }
gpu.module @unchecked {
  llvm.func @helper(%p: !llvm.ptr<1>) -> i32 {
    %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> i32
    llvm.return %v : i32
  }
  llvm.func @k(%p: !llvm.ptr<1>, %b: i8) attributes {rocdl.kernel} {
    llvm.store %b, %p {alignment = 1 : i64} : i8, !llvm.ptr<1>
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %c1 x i64 : (i32) -> !llvm.ptr<5>
    %w = llvm.load %slot {alignment = 8 : i64} : !llvm.ptr<5> -> i64
    llvm.return
  }
}
