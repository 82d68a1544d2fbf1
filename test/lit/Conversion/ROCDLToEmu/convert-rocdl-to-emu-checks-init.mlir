// convert-rocdl-to-emu's init check (check=init): the shadow of the
// workgroup's LDS (fly_emu_check_shadow, one byte per LDS byte) and the
// LDS extent are read once at the top of the body; each LDS access inside
// the LDS then marks (store, atomic: all-ones of its width, per byte) or
// tests (load: an integer of its width against all ones, and only when it
// is not, fly_emu_check_uninit with the load's site) its shadow bytes. A
// load of a size with no integer (12 bytes) always calls the runtime.
// Global accesses are untouched, but one whose memory the compiler could
// not tell goes through fly_emu_check_access (which applies the check if
// it lands in the LDS). Only bounds: no shadow.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=init check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds check-alignment=false}))' | FileCheck %s --check-prefix=BOUNDS
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds,init check-alignment=false}))' | FileCheck %s --check-prefix=BOTH

// CHECK-DAG: llvm.mlir.global internal constant @[[L8:__fly_emu_text_[0-9]+]]("k.py:8\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L9:__fly_emu_text_[0-9]+]]("k.py:9\00")
// CHECK-DAG: llvm.func @fly_emu_check_shadow(!llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.func @fly_emu_check_uninit(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %[[CTX:[^:]+]]: !llvm.ptr, %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: f32, %[[H:[^:]+]]: i16)
// CHECK: %[[LE:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT: %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.call @fly_emu_check_extent(%[[CTX]], %[[M1]], %[[LE]])
// CHECK-NEXT: %[[LEH:.*]] = llvm.getelementptr %[[LE]][1]
// CHECK-NEXT: %[[LO:.*]] = llvm.load %[[LE]]
// CHECK-NEXT: %[[HI:.*]] = llvm.load %[[LEH]]
// CHECK-NEXT: %[[SH:.*]] = llvm.call @fly_emu_check_shadow(%[[CTX]]) : (!llvm.ptr) -> !llvm.ptr
// The 4-byte LDS store: in the LDS, its 4 shadow bytes set.
// CHECK: %[[T:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT: %[[TB:.*]] = llvm.ptrtoint %[[T]] : !llvm.ptr to i64
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[TE:.*]] = llvm.add %[[TB]], %[[FOUR]] : i64
// CHECK-NEXT: %[[GE:.*]] = llvm.icmp "uge" %[[TB]], %[[LO]] : i64
// CHECK-NEXT: %[[LE2:.*]] = llvm.icmp "ule" %[[TE]], %[[HI]] : i64
// CHECK-NEXT: %[[IN:.*]] = llvm.and %[[GE]], %[[LE2]] : i1
// CHECK-NEXT: llvm.cond_br %[[IN]], ^[[MARK:.*]], ^[[GO:[^ ]*]]
// CHECK-NEXT: ^[[MARK]]:
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: %[[OFF:.*]] = llvm.sub %[[TB]], %[[LO]] : i64
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr %[[SH]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: %[[ONES:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.store %[[ONES]], %[[S]] {alignment = 1 : i64} : i32, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[GO]]
// CHECK-NEXT: ^[[GO]]:
// CHECK-NEXT: llvm.store %[[X]], %[[T]] {alignment = 4 : i64} : f32, !llvm.ptr
// The 2-byte store marks 2 bytes (per byte: the other half of the word
// stays unwritten).
// CHECK: llvm.mlir.constant(-1 : i16) : i16
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i16, !llvm.ptr
// CHECK: llvm.store %[[H]], %[[T]] {alignment = 2 : i64} : i16, !llvm.ptr
// CHECK: llvm.call @fly_emu_barrier(%[[CTX]])
// The 4-byte load: its shadow loaded as an i32; not all ones: the report.
// CHECK: llvm.cond_br %{{.*}}, ^[[TEST:.*]], ^[[LOAD:[^ ]*]]
// CHECK-NEXT: ^[[TEST]]:
// CHECK-NEXT: %[[B4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.sub
// CHECK-NEXT: %[[S2:.*]] = llvm.getelementptr %[[SH]]
// CHECK-NEXT: %[[SITE8:.*]] = llvm.mlir.addressof @[[SITE_L8:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[SEEN:.*]] = llvm.load %[[S2]] {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[OK:.*]] = llvm.icmp "eq" %[[SEEN]], %[[ALL]] : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^[[LOAD]], ^[[REPORT:[^ ]*]]
// CHECK-NEXT: ^[[REPORT]]:
// CHECK-NEXT: llvm.call @fly_emu_check_uninit(%[[CTX]], %[[T]], %[[B4]], %[[SITE8]])
// CHECK-NEXT: llvm.br ^[[LOAD]]
// CHECK-NEXT: ^[[LOAD]]:
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[T]] {alignment = 4 : i64} : !llvm.ptr -> f32
// The 12-byte load (vector<3xf32>: 12 bytes, not the layout's 16): the
// runtime tests it.
// CHECK-NEXT: llvm.ptrtoint %[[T]]
// CHECK-NEXT: llvm.mlir.constant(12 : i64)
// CHECK: %[[B12:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK: %[[SITE9:.*]] = llvm.mlir.addressof @[[SITE_L9:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_check_uninit(%[[CTX]], %[[T]], %[[B12]], %[[SITE9]])
// CHECK: llvm.load %[[T]] {alignment = 4 : i64} : !llvm.ptr -> vector<3xf32>
// The atomic is a write.
// CHECK: llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.br
// CHECK-NEXT: ^{{.*}}:
// CHECK-NEXT: llvm.atomicrmw fadd %[[T]]
// The global store: nothing. The load of a pointer from global memory is
// global; the load through that pointer could be anywhere: the runtime.
// CHECK-NEXT: %[[G:.*]] = llvm.getelementptr %[[Q]]
// CHECK-NEXT: llvm.store %[[V]], %[[G]]
// CHECK-NEXT: %[[PP:.*]] = llvm.load %[[P]]
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: %[[AT:.*]] = llvm.call @fly_emu_check_access(%[[CTX]], %[[PP]],
// CHECK-NEXT: llvm.load %[[AT]]
// CHECK-NEXT: llvm.return
// The load sites: kind 0 (load), space 1 (LDS), argument -1.
// CHECK: @[[SITE_L8]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[L8]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK: @[[SITE_L9]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[L9]]
// CHECK: llvm.mlir.global external constant @__fly_emu_checks(4 : i32)

// BOUNDS-NOT: fly_emu_check_shadow
// BOUNDS-NOT: fly_emu_check_uninit
// BOUNDS: @__fly_emu_checks(1 : i32)

// With both, the shadow is used at the address the bounds check gave (a
// scratch buffer, outside the LDS, for an access it reported).
// BOTH: %[[SH:.*]] = llvm.call @fly_emu_check_shadow
// BOTH: %[[A:.*]] = llvm.call @fly_emu_check_access
// BOTH-NEXT: llvm.br ^[[GO:.*]](%[[A]] : !llvm.ptr)
// BOTH-NEXT: ^[[GO]](%[[AT:.*]]: !llvm.ptr):
// BOTH-NEXT: llvm.ptrtoint %[[AT]]
// BOTH: llvm.getelementptr %[[SH]]
// BOTH: llvm.store %{{.*}}, %[[AT]] {alignment = 4 : i64} : f32, !llvm.ptr
// BOTH: @__fly_emu_checks(5 : i32)

gpu.module @m {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.func @k(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %x: f32, %h: i16) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %tg = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %x, %tg {alignment = 4 : i64} : f32, !llvm.ptr<3> loc("k.py":5:3)
    llvm.store %h, %tg {alignment = 2 : i64} : i16, !llvm.ptr<3> loc("k.py":6:3)
    rocdl.s.barrier loc("k.py":7:3)
    %v = llvm.load %tg {alignment = 4 : i64} : !llvm.ptr<3> -> f32 loc("k.py":8:3)
    %w = llvm.load %tg {alignment = 4 : i64} : !llvm.ptr<3> -> vector<3xf32> loc("k.py":9:3)
    %old = llvm.atomicrmw fadd %tg, %x monotonic {alignment = 4 : i64} : !llvm.ptr<3>, f32 loc("k.py":10:3)
    %g = llvm.getelementptr %q[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %v, %g {alignment = 4 : i64} : f32, !llvm.ptr<1> loc("k.py":11:3)
    %pp = llvm.load %p {alignment = 8 : i64} : !llvm.ptr<1> -> !llvm.ptr loc("k.py":12:3)
    %u = llvm.load %pp {alignment = 4 : i64} : !llvm.ptr -> f32 loc("k.py":13:3)
    llvm.return
  }
}
