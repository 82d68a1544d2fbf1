// convert-rocdl-to-emu's checks (the `check` option): with `bounds`, each
// kernel access to global or LDS memory is tested against the extent of
// the tensor its kernel argument points into (or of the LDS), and outside
// it -- or always, when the address derives from no argument -- goes
// through fly_emu_check_access with a constant site (kernel, file:line,
// kind, memory, argument); with `barrier`, barriers become
// fly_emu_barrier_checked. Without the option none of it is emitted.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds,barrier check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=all check-alignment=false}))' | FileCheck %s --check-prefix=ALL
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds check-alignment=false}))' | FileCheck %s --check-prefix=BOUNDS
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s --check-prefix=OFF
// RUN: fly-opt %s --fly-pipeline="stage=emulator chip=gfx942 emu-check=bounds,barrier" | FileCheck %s --check-prefix=PIPE
// RUN: fly-opt %s --fly-pipeline="stage=emulator chip=gfx942" | FileCheck %s --check-prefix=OFF
// RUN: not fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds,bogus}))' 2>&1 | FileCheck %s --check-prefix=BOGUS

// The site strings: the kernel's name and each access's file:line.
// CHECK-DAG: llvm.mlir.global internal constant @[[KERNEL:__fly_emu_text_[0-9]+]]("k\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L7:__fly_emu_text_[0-9]+]]("k.py:7\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L9:__fly_emu_text_[0-9]+]]("k.py:9\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L10:__fly_emu_text_[0-9]+]]("k.py:10\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L11:__fly_emu_text_[0-9]+]]("k.py:11\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[TILE_NAME:__fly_emu_text_[0-9]+]]("tile\00")
// CHECK-DAG: llvm.func @fly_emu_check_access(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.func @fly_emu_check_extent(!llvm.ptr, i32, !llvm.ptr)
// CHECK-DAG: llvm.func @fly_emu_barrier_checked(!llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %[[CTX:[^:]+]]: !llvm.ptr, %{{[^:]+}}: i32, %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr, %[[X:[^:]+]]: f32)
// At the top, once: the extents of the LDS (-1) and of the tensors
// arguments 1 and 2 point into, {first, one past the last}.
// CHECK: %[[LE:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT: %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.call @fly_emu_check_extent(%[[CTX]], %[[M1]], %[[LE]])
// CHECK-NEXT: %[[LEH:.*]] = llvm.getelementptr %[[LE]][1]
// CHECK-NEXT: %[[LDS_LO:.*]] = llvm.load %[[LE]]
// CHECK-NEXT: %[[LDS_HI:.*]] = llvm.load %[[LEH]]
// The extent of the LDS global @tile: from its offset (0) in the LDS, its
// 256 bytes.
// CHECK-NEXT: %[[TILE_BYTES:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[TILE_HI:.*]] = llvm.add %[[LDS_LO]], %[[TILE_BYTES]] : i64
// CHECK: llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.call @fly_emu_check_extent(%[[CTX]], %[[ONE]],
// CHECK: %[[QE:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.call @fly_emu_check_extent(%[[CTX]], %[[TWO]], %[[QE]])
// CHECK-NEXT: %[[QEH:.*]] = llvm.getelementptr %[[QE]][1]
// CHECK-NEXT: %[[Q_LO:.*]] = llvm.load %[[QE]]
// CHECK-NEXT: %[[Q_HI:.*]] = llvm.load %[[QEH]]
// A store through a GEP of argument 2: its 4 bytes tested against that
// extent; only outside it, the runtime's check (which reports and gives a
// scratch address); the store at the address the branch gives.
// CHECK: %[[G:.*]] = llvm.getelementptr %[[Q]]
// CHECK-NEXT: %[[GB:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr to i64
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[GE:.*]] = llvm.add %[[GB]], %[[FOUR]] : i64
// CHECK-NEXT: %[[BELOW:.*]] = llvm.icmp "ult" %[[GB]], %[[Q_LO]] : i64
// CHECK-NEXT: %[[ABOVE:.*]] = llvm.icmp "ugt" %[[GE]], %[[Q_HI]] : i64
// CHECK-NEXT: %[[OUT:.*]] = llvm.or %[[BELOW]], %[[ABOVE]] : i1
// CHECK-NEXT: llvm.cond_br %[[OUT]], ^[[SLOW:.*]], ^[[GO:[^(]*]](%[[G]] : !llvm.ptr)
// CHECK-NEXT: ^[[SLOW]]:
// CHECK-NEXT: %[[S1:.*]] = llvm.mlir.addressof @[[SITE1:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[A1:.*]] = llvm.call @fly_emu_check_access(%[[CTX]], %[[G]], %[[B1]], %[[S1]])
// CHECK-NEXT: llvm.br ^[[GO]](%[[A1]] : !llvm.ptr)
// CHECK-NEXT: ^[[GO]](%[[AT:.*]]: !llvm.ptr):
// CHECK-NEXT: llvm.store %[[X]], %[[AT]]
// The load of a pointer from argument 1, tested the same way; the 16-byte
// vector load through that pointer derives from no argument: the runtime
// checks it every time (argument -1).
// CHECK: llvm.ptrtoint %[[P]]
// CHECK: llvm.call @fly_emu_check_access(%[[CTX]], %[[P]]
// CHECK: llvm.mlir.addressof @[[SITE3:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[A3:.*]] = llvm.call @fly_emu_check_access
// CHECK-NEXT: llvm.load %[[A3]] {{.*}} -> vector<4xf32>
// An LDS store through @tile, tested against that allocation's extent.
// CHECK: llvm.icmp "ult" %{{.*}}, %[[LDS_LO]]
// CHECK-NEXT: llvm.icmp "ugt" %{{.*}}, %[[TILE_HI]]
// CHECK: llvm.mlir.addressof @[[SITE4:__fly_emu_site_[0-9]+]]
// CHECK: llvm.call @fly_emu_check_access
// CHECK: llvm.store
// The barrier, with its site.
// CHECK: %[[S5:.*]] = llvm.mlir.addressof @[[SITE5:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: llvm.call @fly_emu_barrier_checked(%[[CTX]], %[[S5]])
// The private store is not checked; the atomic is (kind 2, argument 2).
// CHECK: llvm.alloca
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.ptrtoint
// CHECK: llvm.mlir.addressof @[[SITE6:__fly_emu_site_[0-9]+]]
// CHECK: llvm.call @fly_emu_check_access
// CHECK: llvm.atomicrmw fadd
// CHECK: llvm.return
// The sites, in the order they were made (the barrier's while the kernel
// was rewritten): FlyEmuSite {kernel, location, kind, space, argument, 0,
// allocation, its offset, its bytes}.
// CHECK: @[[SITE5]]()
// CHECK: llvm.mlir.addressof @[[L11]]
// CHECK-NEXT: llvm.mlir.constant(3 : i32)
// CHECK: @[[SITE1]]()
// CHECK: llvm.mlir.addressof @[[KERNEL]]
// CHECK-NEXT: llvm.mlir.addressof @[[L7]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK: @[[SITE3]]()
// CHECK: llvm.mlir.addressof @[[KERNEL]]
// CHECK-NEXT: llvm.mlir.addressof @[[L9]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK: @[[SITE4]]()
// CHECK: llvm.mlir.addressof @[[L10]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.addressof @[[TILE_NAME]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(256 : i32)
// CHECK: llvm.mlir.global external constant @__fly_emu_checks(9 : i32)

// BOUNDS: llvm.call @fly_emu_check_access
// BOUNDS-NOT: fly_emu_barrier_checked
// BOUNDS: llvm.call @fly_emu_barrier(
// BOUNDS: @__fly_emu_checks(1 : i32)

// OFF-NOT: fly_emu_check_access
// OFF-NOT: fly_emu_check_extent
// OFF-NOT: fly_emu_barrier_checked
// OFF-NOT: __fly_emu_site
// OFF-NOT: __fly_emu_checks
// OFF: llvm.call @fly_emu_barrier(
// OFF-NOT: fly_emu_check_access
// OFF-NOT: __fly_emu_checks

// The pipeline's emulator stage passes emu-check on.
// PIPE: llvm.call @fly_emu_check_access
// PIPE: llvm.call @fly_emu_barrier_checked
// PIPE: @__fly_emu_checks(9 : i32)

// BOGUS: unknown check 'bogus' in check=bounds,bogus (checks: bounds, bounds=strict, race, init, barrier, all)

// `all` is bounds, race, init and barrier (FLY_EMU_CHECK_* 1 | 2 | 4 | 8).
// ALL: llvm.call @fly_emu_check_shadow
// ALL: llvm.call @fly_emu_check_access
// ALL: llvm.call @fly_emu_check_race
// ALL: llvm.call @fly_emu_barrier_checked
// ALL: @__fly_emu_checks(15 : i32)

gpu.module @m {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.func @k(%n: i32, %p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %x: f32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %g = llvm.getelementptr %q[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %x, %g {alignment = 4 : i64} : f32, !llvm.ptr<1> loc("k.py":7:3)
    %pp = llvm.load %p {alignment = 8 : i64} : !llvm.ptr<1> -> !llvm.ptr<1> loc("k.py":8:3)
    %v = llvm.load %pp {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32> loc("k.py":9:3)
    %e = llvm.extractelement %v[%i : i32] : vector<4xf32>
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %tg = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %e, %tg : f32, !llvm.ptr<3> loc("k.py":10:3)
    rocdl.s.barrier loc("k.py":11:3)
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %c1 x f32 : (i32) -> !llvm.ptr<5>
    llvm.store %x, %slot : f32, !llvm.ptr<5>
    %old = llvm.atomicrmw fadd %g, %x monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32 loc("k.py":12:3)
    llvm.return
  }
}
