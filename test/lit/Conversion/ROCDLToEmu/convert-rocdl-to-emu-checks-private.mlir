// convert-rocdl-to-emu's bounds check of a work-item's own memory: an
// element of a register vector taken or replaced at a run-time index is
// preceded by `index uge length`, which branches to a call of
// fly_emu_check_access(ctx, index, length, site) (kind 4: a fragment read,
// 5: a write; space 3: private) giving 0 or the unchanged vector; an
// access through a pointer derived from an alloca of static size, by its
// byte offset from the alloca `ugt` the alloca's bytes minus its own, which
// branches to the call with that offset (the site names the alloca and its
// bytes). A constant index or offset inside needs no check; one outside
// calls the check unconditionally. The branches weigh the report as rare.
// Only with `bounds`.
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=init,race,barrier check-alignment=false}))' | FileCheck %s --check-prefix=NOBOUNDS
// RUN: fly-opt %s --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s --check-prefix=OFF

// CHECK-DAG: llvm.mlir.global internal constant @[[KERNEL:__fly_emu_text_[0-9]+]]("k\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L4:__fly_emu_text_[0-9]+]]("f.py:4\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L5:__fly_emu_text_[0-9]+]]("f.py:5\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[L9:__fly_emu_text_[0-9]+]]("f.py:9\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[PAD:__fly_emu_text_[0-9]+]]("alloca #1 at f.py:7\00")
// CHECK-LABEL: llvm.func internal @k_body(
// CHECK-SAME: %[[CTX:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[N:[^:]+]]: i32, %[[X:[^:]+]]: f32)
// CHECK: %[[V:.*]] = llvm.load %{{.*}} -> vector<8xf32>
// A constant index inside the vector: no check.
// CHECK-NEXT: %[[IN:.*]] = llvm.extractelement %[[V]][%{{.*}} : i64] : vector<8xf32>
// CHECK-NEXT: %[[J:.*]] = llvm.add %{{.*}}, %[[N]] : i32
// A run-time index: tested against the length in its own type; the read
// in a block of its own, else the report and 0.
// CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[OUT:.*]] = llvm.icmp "uge" %[[J]], %[[EIGHT]] : i32
// CHECK-NEXT: llvm.cond_br %[[OUT]] weights([1, 1048576]), ^[[REPORT:.*]], ^[[READ:[^ ]*]]
// CHECK-NEXT: ^[[READ]]:
// CHECK-NEXT: %[[E:.*]] = llvm.extractelement %[[V]][%[[J]] : i32] : vector<8xf32>
// CHECK-NEXT: llvm.br ^[[JOIN:[^(]*]](%[[E]] : f32)
// CHECK-NEXT: ^[[REPORT]]:
// CHECK-NEXT: %[[S1:.*]] = llvm.mlir.addressof @[[SITE1:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[WIDE:.*]] = llvm.sext %[[J]] : i32 to i64
// CHECK-NEXT: %[[LEN:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[IP:.*]] = llvm.inttoptr %[[WIDE]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @fly_emu_check_access(%[[CTX]], %[[IP]], %[[LEN]], %[[S1]])
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.zero : f32
// CHECK-NEXT: llvm.br ^[[JOIN]](%[[ZERO]] : f32)
// CHECK-NEXT: ^[[JOIN]](%[[READ_VALUE:.*]]: f32):
// The write: the new vector, or the old one when the index is outside.
// CHECK: %[[OUT2:.*]] = llvm.icmp "uge" %[[J]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OUT2]] weights([1, 1048576]), ^[[REPORT2:.*]], ^[[WRITE:[^ ]*]]
// CHECK-NEXT: ^[[WRITE]]:
// CHECK-NEXT: %[[W:.*]] = llvm.insertelement %[[X]], %[[V]][%[[J]] : i32] : vector<8xf32>
// CHECK-NEXT: llvm.br ^[[JOIN2:[^(]*]](%[[W]] : vector<8xf32>)
// CHECK-NEXT: ^[[REPORT2]]:
// CHECK-NEXT: llvm.mlir.addressof @[[SITE2:__fly_emu_site_[0-9]+]]
// CHECK: llvm.call @fly_emu_check_access
// CHECK-NEXT: llvm.br ^[[JOIN2]](%[[V]] : vector<8xf32>)
// CHECK-NEXT: ^[[JOIN2]](%[[NEWV:.*]]: vector<8xf32>):
// A constant index past the end (9 of 8): the report, unconditionally.
// CHECK-NEXT: llvm.mlir.addressof @{{__fly_emu_site_[0-9]+}}
// CHECK-NEXT: %[[LEN3:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[IP3:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @fly_emu_check_access(%[[CTX]], %[[IP3]], %[[LEN3]],
// CHECK-NEXT: llvm.mlir.zero : f32
// The alloca: its address once, after it.
// CHECK: %[[PADP:.*]] = llvm.alloca %{{.*}} x !llvm.array<4 x f32> : (i32) -> !llvm.ptr
// CHECK-NEXT: %[[BASE:.*]] = llvm.ptrtoint %[[PADP]] : !llvm.ptr to i64
// Its last element, a constant offset inside: no check.
// CHECK-NEXT: %[[LAST:.*]] = llvm.getelementptr %[[PADP]][0, 3]
// CHECK-NEXT: llvm.store %[[IN]], %[[LAST]] : f32, !llvm.ptr
// Element j: its byte offset against 16 - 4.
// CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr %[[PADP]][0, %[[J]]]
// CHECK-NEXT: %[[SB:.*]] = llvm.ptrtoint %[[SLOT]] : !llvm.ptr to i64
// CHECK-NEXT: %[[DIST:.*]] = llvm.sub %[[SB]], %[[BASE]] : i64
// CHECK-NEXT: %[[LIMIT:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK-NEXT: %[[PAST:.*]] = llvm.icmp "ugt" %[[DIST]], %[[LIMIT]] : i64
// CHECK-NEXT: llvm.cond_br %[[PAST]] weights([1, 1048576]), ^[[SLOW:.*]], ^[[GO:[^(]*]](%[[SLOT]] : !llvm.ptr)
// CHECK-NEXT: ^[[SLOW]]:
// CHECK-NEXT: %[[S4:.*]] = llvm.mlir.addressof @[[SITE4:__fly_emu_site_[0-9]+]]
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[OP:.*]] = llvm.inttoptr %[[DIST]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[SCRATCH:.*]] = llvm.call @fly_emu_check_access(%[[CTX]], %[[OP]], %[[FOUR]], %[[S4]])
// CHECK-NEXT: llvm.br ^[[GO]](%[[SCRATCH]] : !llvm.ptr)
// CHECK-NEXT: ^[[GO]](%[[AT:.*]]: !llvm.ptr):
// CHECK-NEXT: llvm.store %[[READ_VALUE]], %[[AT]] : f32, !llvm.ptr
// The 8-byte load through its flat cast: against 16 - 8.
// CHECK: llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: llvm.icmp "ugt"
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<2xf32>
// A whole array past the alloca (GEP [1]): offset 16, reported unconditionally.
// CHECK-NEXT: %[[NEXT:.*]] = llvm.getelementptr %[[PADP]][1]
// CHECK-NEXT: %[[NB:.*]] = llvm.ptrtoint %[[NEXT]] : !llvm.ptr to i64
// CHECK-NEXT: %[[NDIST:.*]] = llvm.sub %[[NB]], %[[BASE]] : i64
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.inttoptr %[[NDIST]]
// CHECK-NEXT: %[[NAT:.*]] = llvm.call @fly_emu_check_access
// CHECK-NEXT: llvm.load %[[NAT]] : !llvm.ptr -> f32
// CHECK: llvm.return
// The sites: FlyEmuSite {kernel, location, kind, space, argument, 0,
// allocation, its offset, its bytes}.
// CHECK: @[[SITE1]]()
// CHECK: llvm.mlir.addressof @[[KERNEL]]
// CHECK-NEXT: llvm.mlir.addressof @[[L4]]
// CHECK-NEXT: llvm.mlir.constant(4 : i32)
// CHECK-NEXT: llvm.mlir.constant(3 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.zero : !llvm.ptr
// CHECK: @[[SITE2]]()
// CHECK: llvm.mlir.addressof @[[L5]]
// CHECK-NEXT: llvm.mlir.constant(5 : i32)
// CHECK-NEXT: llvm.mlir.constant(3 : i32)
// CHECK: @[[SITE4]]()
// CHECK: llvm.mlir.addressof @[[L9]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.mlir.constant(3 : i32)
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.addressof @[[PAD]]
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.mlir.constant(16 : i32)
// CHECK: @__fly_emu_checks(1 : i32)

// Without bounds (the other checks on) and unchecked: none of it.
// NOBOUNDS-NOT: llvm.icmp "uge"
// NOBOUNDS-NOT: llvm.call @fly_emu_check_access
// NOBOUNDS: llvm.alloca %{{.*}} x !llvm.array<4 x f32>
// NOBOUNDS-NOT: llvm.ptrtoint
// NOBOUNDS-NOT: llvm.icmp "ugt"
// NOBOUNDS-NOT: llvm.call @fly_emu_check_access
// NOBOUNDS: @__fly_emu_checks(14 : i32)
// OFF-NOT: llvm.icmp
// OFF-NOT: llvm.cond_br
// OFF-NOT: llvm.call @fly_emu_check_access
// OFF-NOT: __fly_emu_site

gpu.module @m {
  llvm.func @k(%p: !llvm.ptr<1>, %n: i32, %x: f32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %c2 = llvm.mlir.constant(2 : i64) : i64
    %c9 = llvm.mlir.constant(9 : i64) : i64
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf32>
    %in = llvm.extractelement %v[%c2 : i64] : vector<8xf32> loc("f.py":3:5)
    %j = llvm.add %i, %n : i32
    %e = llvm.extractelement %v[%j : i32] : vector<8xf32> loc("f.py":4:5)
    %w = llvm.insertelement %x, %v[%j : i32] : vector<8xf32> loc("f.py":5:5)
    %bad = llvm.extractelement %w[%c9 : i64] : vector<8xf32> loc("f.py":6:5)
    %one = llvm.mlir.constant(1 : i32) : i32
    %pad = llvm.alloca %one x !llvm.array<4 x f32> : (i32) -> !llvm.ptr<5> loc("f.py":7:5)
    %last = llvm.getelementptr %pad[0, 3] : (!llvm.ptr<5>) -> !llvm.ptr<5>, !llvm.array<4 x f32>
    llvm.store %in, %last : f32, !llvm.ptr<5> loc("f.py":8:5)
    %slot = llvm.getelementptr %pad[0, %j] : (!llvm.ptr<5>, i32) -> !llvm.ptr<5>, !llvm.array<4 x f32>
    llvm.store %e, %slot : f32, !llvm.ptr<5> loc("f.py":9:5)
    %flat = llvm.addrspacecast %slot : !llvm.ptr<5> to !llvm.ptr
    %r = llvm.load %flat : !llvm.ptr -> vector<2xf32> loc("f.py":10:5)
    %past = llvm.getelementptr %pad[1] : (!llvm.ptr<5>) -> !llvm.ptr<5>, !llvm.array<4 x f32>
    %q = llvm.load %past : !llvm.ptr<5> -> f32 loc("f.py":11:5)
    %s = llvm.fadd %q, %bad : f32
    %t = llvm.fadd %s, %x : f32
    %r0 = llvm.extractelement %r[%c2 : i64] : vector<2xf32>
    %z = llvm.fadd %t, %r0 : f32
    llvm.store %z, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}
