// convert-rocdl-to-emu's race check (check=race): every LDS access (load,
// store, atomic) inside the workgroup's LDS calls
// fly_emu_check_race(ctx, address, bytes, site) before it is made; the
// site gives the runtime the access's kind and line. Global accesses are
// untouched. No init shadow without check=init.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=race check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=race,init check-alignment=false}))' | FileCheck %s --check-prefix=BOTH

// CHECK-DAG: llvm.mlir.global internal constant @[[L5:__fly_emu_text_[0-9]+]]("k.py:5\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L7:__fly_emu_text_[0-9]+]]("k.py:7\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L8:__fly_emu_text_[0-9]+]]("k.py:8\00")
// CHECK-DAG: llvm.func @fly_emu_check_race(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %[[CTX:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: f32)
// CHECK-NOT: fly_emu_check_shadow
// CHECK: %[[LO:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT: %[[HI:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// The store: in the LDS, the runtime sees it first.
// CHECK: %[[T:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT: %[[TB:.*]] = llvm.ptrtoint %[[T]] : !llvm.ptr to i64
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[TE:.*]] = llvm.add %[[TB]], %[[FOUR]] : i64
// CHECK-NEXT: %[[GE:.*]] = llvm.icmp "uge" %[[TB]], %[[LO]] : i64
// CHECK-NEXT: %[[LE:.*]] = llvm.icmp "ule" %[[TE]], %[[HI]] : i64
// CHECK-NEXT: %[[IN:.*]] = llvm.and %[[GE]], %[[LE]] : i1
// CHECK-NEXT: llvm.cond_br %[[IN]], ^[[RACE:.*]], ^[[GO:[^ ]*]]
// CHECK-NEXT: ^[[RACE]]:
// CHECK-NEXT: %[[B:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.addressof @[[SITE5:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_check_race(%[[CTX]], %[[T]], %[[B]], %[[S]])
// CHECK-NEXT: llvm.br ^[[GO]]
// CHECK-NEXT: ^[[GO]]:
// CHECK-NEXT: llvm.store %[[X]], %[[T]]
// CHECK: llvm.call @fly_emu_barrier(%[[CTX]])
// The load and the atomic, each with its site.
// CHECK: llvm.mlir.addressof @[[SITE7:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_check_race(%[[CTX]], %[[T]],
// CHECK: llvm.load %[[T]]
// CHECK: llvm.mlir.addressof @[[SITE8:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_check_race(%[[CTX]], %[[T]],
// CHECK: llvm.atomicrmw fadd %[[T]]
// The global store: no race check.
// CHECK-NEXT: %[[G:.*]] = llvm.getelementptr %[[Q]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[G]]
// CHECK-NEXT: llvm.return
// The sites' kinds: store 1, load 0, atomic 2; LDS (1).
// CHECK: @[[SITE5]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[L5]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: @[[SITE7]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[L7]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: @[[SITE8]]()
// CHECK: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.addressof @[[L8]]
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: @__fly_emu_checks(2 : i32)

// With init too: the race call, then the shadow's test.
// BOTH: %[[SH:.*]] = llvm.call @fly_emu_check_shadow
// BOTH: llvm.call @fly_emu_check_race
// BOTH-NEXT: llvm.sub
// BOTH-NEXT: llvm.getelementptr %[[SH]]
// BOTH: @__fly_emu_checks(6 : i32)

gpu.module @m {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.func @k(%q: !llvm.ptr<1>, %x: f32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %tg = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %x, %tg {alignment = 4 : i64} : f32, !llvm.ptr<3> loc("k.py":5:3)
    rocdl.s.barrier loc("k.py":6:3)
    %v = llvm.load %tg {alignment = 4 : i64} : !llvm.ptr<3> -> f32 loc("k.py":7:3)
    %old = llvm.atomicrmw fadd %tg, %x monotonic {alignment = 4 : i64} : !llvm.ptr<3>, f32 loc("k.py":8:3)
    %g = llvm.getelementptr %q[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %v, %g {alignment = 4 : i64} : f32, !llvm.ptr<1> loc("k.py":9:3)
    llvm.return
  }
}
