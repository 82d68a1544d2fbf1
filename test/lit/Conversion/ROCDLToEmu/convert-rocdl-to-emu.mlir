// convert-rocdl-to-emu on small stage-A-like gpu.modules: each rewrite on
// its own, then vector_add through fly-compile and the pass, translated to
// LLVM IR for the host.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s

// vector_add after stage A for gfx942, then the pass: the gpu.module's body
// (cut out with sed into a builtin module, as the host side will translate
// it) has no ROCDL op and no pointer outside address space 0 left, and
// mlir-translate turns it into LLVM IR (--allow-unregistered-dialect: the
// entry keeps the fly.original_type attribute, whose fly types upstream
// mlir-translate cannot parse otherwise).
// RUN: fly-compile %S/../../../../examples/vector_add.mlir --chip=gfx942 --stage=pre_binary \
// RUN:   | fly-opt --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=VADD-MOD
// RUN: sed -n '/^  gpu.module/,/^  }/p' %t.mlir | sed -e '1s/.*/module {/' > %t.body.mlir
// RUN: FileCheck %s --input-file=%t.body.mlir --check-prefix=VADD \
// RUN:   --implicit-check-not=rocdl. --implicit-check-not='!llvm.ptr<'
// RUN: mlir-translate --allow-unregistered-dialect --mlir-to-llvmir %t.body.mlir \
// RUN:   | FileCheck %s --check-prefix=VADD-IR

// The same for tiled_copy_lds on gfx1250: dynamic LDS and a barrier.
// RUN: fly-compile %S/../../../../examples/tiled_copy_lds.mlir --chip=gfx1250 --stage=pre_binary \
// RUN:   | fly-opt --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' > %t.lds.mlir
// RUN: sed -n '/^  gpu.module/,/^  }/p' %t.lds.mlir | sed -e '1s/.*/module {/' > %t.lds.body.mlir
// RUN: FileCheck %s --input-file=%t.lds.body.mlir --check-prefix=TC \
// RUN:   --implicit-check-not=rocdl. --implicit-check-not='!llvm.ptr<' --implicit-check-not=__fly_dyn_shared
// RUN: mlir-translate --allow-unregistered-dialect --mlir-to-llvmir %t.lds.body.mlir \
// RUN:   | FileCheck %s --check-prefix=TC-IR

// TC: llvm.func @fly_emu_barrier(!llvm.ptr)
// TC: llvm.func internal @tiled_copy_body(%[[CTX:.*]]: !llvm.ptr,
// TC-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %[[CTX]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// TC-NEXT: llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// TC: llvm.call @fly_emu_barrier(%[[CTX]])
// TC-IR: call void @fly_emu_barrier(ptr %0)

// VADD-MOD: gpu.module @vector_add_module attributes {fly.emu.static_lds_bytes = 0 : i32} {
// VADD: llvm.func internal @vector_add_body(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noundef}, %{{.*}}: !llvm.struct<(i32, i32, i32)> {llvm.noundef},
// VADD: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// VADD: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// VADD: llvm.func @vector_add(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {{{.*}}fly.emu.kernel{{.*}}gpu.kernel}
// VADD: llvm.call @vector_add_body(
// VADD-IR: define internal void @vector_add_body(ptr %0, ptr noundef align 16 %1, { i32, i32, i32 } noundef %2,
// VADD-IR: load i32, ptr %0, align 4
// VADD-IR: define void @vector_add(ptr %0, ptr %1)
// VADD-IR: call void @vector_add_body(ptr %0,

// Ids and dims are i32 loads from the context at the ABI's offsets (a wider
// result is zero-extended); the kernel becomes @k_body with %ctx first, and
// @k the entry that loads each argument through params[i].

// CHECK-LABEL: gpu.module @ids
// CHECK-SAME: fly.emu.static_lds_bytes = 0 : i32
// CHECK-NOT: llvm.data_layout
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr {llvm.align = 16 : i64}, %[[N:.*]]: i32)
// CHECK-NOT: attributes
// CHECK: %[[TX:.*]] = llvm.load %[[CTX]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[P4:.*]] = llvm.getelementptr inbounds %[[CTX]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.load %[[P4]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.getelementptr inbounds %[[CTX]][8]
// CHECK: llvm.getelementptr inbounds %[[CTX]][12]
// CHECK: llvm.getelementptr inbounds %[[CTX]][16]
// CHECK: llvm.getelementptr inbounds %[[CTX]][20]
// CHECK: llvm.getelementptr inbounds %[[CTX]][24]
// CHECK: llvm.getelementptr inbounds %[[CTX]][28]
// CHECK: llvm.getelementptr inbounds %[[CTX]][32]
// CHECK: llvm.getelementptr inbounds %[[CTX]][36]
// CHECK: llvm.getelementptr inbounds %[[CTX]][40]
// CHECK: %[[GZ:.*]] = llvm.getelementptr inbounds %[[CTX]][44]
// CHECK: %[[GZV:.*]] = llvm.load %[[GZ]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.zext %[[GZV]] : i32 to i64
// CHECK: llvm.getelementptr inbounds %[[CTX]][60]
// CHECK-NOT: rocdl.
// CHECK: llvm.return
// CHECK: llvm.func @k(%[[ECTX:.*]]: !llvm.ptr, %[[PARAMS:.*]]: !llvm.ptr) attributes {fly.abi = ["ptr:0", "value:1"], fly.emu.kernel, gpu.kernel}
// CHECK-NEXT: %[[S0:.*]] = llvm.load %[[PARAMS]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[A0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[G1:.*]] = llvm.getelementptr inbounds %[[PARAMS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[S1:.*]] = llvm.load %[[G1]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[A1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> i32
// CHECK-NEXT: llvm.call @k_body(%[[ECTX]], %[[A0]], %[[A1]]) : (!llvm.ptr, !llvm.ptr, i32) -> ()
// CHECK-NEXT: llvm.return
gpu.module @ids attributes {llvm.data_layout = "e-p:64:64-p1:64:64-p3:32:32-p5:32:32-A5-G1"} {
  llvm.func @k(%out: !llvm.ptr<1> {llvm.align = 16 : i64}, %n: i32) attributes {fly.abi = ["ptr:0", "value:1"], gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>, rocdl.flat_work_group_size = "64,64", rocdl.kernel} {
    %tx = rocdl.workitem.id.x range <i32, 0, 64> : i32
    %ty = rocdl.workitem.id.y : i32
    %tz = rocdl.workitem.id.z : i32
    %bx = rocdl.workgroup.id.x : i32
    %by = rocdl.workgroup.id.y : i32
    %bz = rocdl.workgroup.id.z : i32
    %dx = rocdl.workgroup.dim.x : i32
    %dy = rocdl.workgroup.dim.y : i32
    %dz = rocdl.workgroup.dim.z : i32
    %gx = rocdl.grid.dim.x : i32
    %gy = rocdl.grid.dim.y : i32
    %gz = rocdl.grid.dim.z : i64
    %ws = rocdl.wavefrontsize : i32
    %a = llvm.add %tx, %ty : i32
    %b = llvm.add %a, %tz : i32
    %c = llvm.add %b, %bx : i32
    %d = llvm.add %c, %by : i32
    %e = llvm.add %d, %bz : i32
    %f = llvm.add %e, %dx : i32
    %g = llvm.add %f, %dy : i32
    %h = llvm.add %g, %dz : i32
    %i = llvm.add %h, %gx : i32
    %j = llvm.add %i, %gy : i32
    %k = llvm.add %j, %ws : i32
    %l = llvm.add %k, %n : i32
    %gz32 = llvm.trunc %gz : i64 to i32
    %m = llvm.add %l, %gz32 : i32
    %p = llvm.getelementptr %out[%tx] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %m, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// Barriers: rocdl.barrier, rocdl.s.barrier and the split pair (one call, at
// the wait) call the runtime; counter waits and scheduling hints vanish.

// CHECK-LABEL: gpu.module @barriers
// CHECK: llvm.func @fly_emu_barrier(!llvm.ptr)
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr)
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.fence syncscope("workgroup") release
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.fence syncscope("workgroup") acquire
// CHECK-NEXT: llvm.return
// CHECK: llvm.func @k(
gpu.module @barriers {
  llvm.func @k() attributes {gpu.kernel, rocdl.kernel} {
    rocdl.barrier
    rocdl.s.barrier
    llvm.fence syncscope("workgroup") release
    rocdl.s.barrier.signal id = -1
    rocdl.s.waitcnt 0
    rocdl.s.wait.dscnt 0
    rocdl.sched.barrier 0
    rocdl.s.barrier.wait id = -1
    llvm.fence syncscope("workgroup") acquire
    llvm.return
  }
}

// -----

// LDS globals: the static ones first (module order, each aligned), then the
// dynamic part at their end rounded up to its alignment; every addressof is
// ctx->lds plus the offset. The globals are gone.

// CHECK-LABEL: gpu.module @lds
// CHECK-SAME: fly.emu.static_lds_bytes = 1040 : i32
// CHECK-NOT: llvm.mlir.global
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr)
// CHECK-NEXT: %[[LDSP:.*]] = llvm.getelementptr inbounds %[[CTX]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[LDS:.*]] = llvm.load %[[LDSP]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant
// CHECK-NEXT: %[[DYN:.*]] = llvm.getelementptr inbounds %[[LDS]][1040] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[FLAG:.*]] = llvm.getelementptr inbounds %[[LDS]][1024] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.store %[[C]], %[[LDS]] : f32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C]], %[[DYN]] : f32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C]], %[[FLAG]] : f32, !llvm.ptr
// CHECK-NOT: addressof
// CHECK: llvm.return
gpu.module @lds {
  llvm.mlir.global external @__fly_dyn_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
  llvm.mlir.global internal @flag() {addr_space = 3 : i32} : i32
  llvm.func @k() attributes {rocdl.kernel} {
    %c = llvm.mlir.constant(1.0 : f32) : f32
    %dyn = llvm.mlir.addressof @__fly_dyn_shared : !llvm.ptr<3>
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %flag = llvm.mlir.addressof @flag : !llvm.ptr<3>
    llvm.store %c, %tile : f32, !llvm.ptr<3>
    llvm.store %c, %dyn : f32, !llvm.ptr<3>
    llvm.store %c, %flag : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// An external LDS global of a size (memref.global of workgroup memory,
// public) is static LDS like the others: only [0 x T] is the dynamic part.

// CHECK-LABEL: gpu.module @sized_external_lds
// CHECK-SAME: fly.emu.static_lds_bytes = 80 : i32
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[LDS:.*]] = llvm.load
// CHECK: %[[DYN:.*]] = llvm.getelementptr inbounds %[[LDS]][80] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %{{.*}}, %[[LDS]] : f32, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[DYN]] : f32, !llvm.ptr
gpu.module @sized_external_lds {
  llvm.mlir.global external @buffer() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<20 x f32>
  llvm.mlir.global external @__fly_dyn_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func @k() attributes {rocdl.kernel} {
    %c = llvm.mlir.constant(1.0 : f32) : f32
    %buffer = llvm.mlir.addressof @buffer : !llvm.ptr<3>
    %dyn = llvm.mlir.addressof @__fly_dyn_shared : !llvm.ptr<3>
    llvm.store %c, %buffer : f32, !llvm.ptr<3>
    llvm.store %c, %dyn : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Address spaces: every pointer type becomes !llvm.ptr, nested ones and
// block arguments included; addrspacecast is its operand; globals move to
// address space 0; allocas stay; functions that are not kernels keep their
// signature (with flat pointers) and lose their rocdl attributes.

// CHECK-LABEL: gpu.module @spaces
// CHECK: llvm.mlir.global internal constant @table(dense<[1, 2]> : tensor<2xi32>) {addr_space = 0 : i32} : !llvm.array<2 x i32>
// CHECK: llvm.func @helper(%{{.*}}: !llvm.ptr) -> !llvm.ptr {
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[S:.*]]: !llvm.struct<(ptr, i32)>, %[[C:.*]]: i1)
// CHECK: %[[A:.*]] = llvm.alloca %{{.*}} x f32 : (i32) -> !llvm.ptr
// CHECK: %[[G:.*]] = llvm.extractvalue %[[S]][0] : !llvm.struct<(ptr, i32)>
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @table : !llvm.ptr
// CHECK-NEXT: llvm.call @helper(%[[G]]) : (!llvm.ptr) -> !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[C]], ^bb1(%[[G]] : !llvm.ptr), ^bb1(%[[A]] : !llvm.ptr)
// CHECK-NEXT: ^bb1(%[[P:.*]]: !llvm.ptr):
// CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NOT: ptr<
// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, i32)>
gpu.module @spaces {
  llvm.mlir.global internal constant @table(dense<[1, 2]> : tensor<2xi32>) {addr_space = 4 : i32} : !llvm.array<2 x i32>
  llvm.func @helper(%p: !llvm.ptr<1>) -> !llvm.ptr<1> attributes {rocdl.uniform_work_group_size} {
    llvm.return %p : !llvm.ptr<1>
  }
  llvm.func @k(%s: !llvm.struct<(ptr<1>, i32)>, %c: i1) attributes {rocdl.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %a5 = llvm.alloca %one x f32 : (i32) -> !llvm.ptr<5>
    %a = llvm.addrspacecast %a5 : !llvm.ptr<5> to !llvm.ptr
    %g1 = llvm.extractvalue %s[0] : !llvm.struct<(ptr<1>, i32)>
    %g = llvm.addrspacecast %g1 : !llvm.ptr<1> to !llvm.ptr
    %t = llvm.mlir.addressof @table : !llvm.ptr<4>
    %h = llvm.call @helper(%g1) : (!llvm.ptr<1>) -> !llvm.ptr<1>
    llvm.cond_br %c, ^bb1(%g : !llvm.ptr), ^bb1(%a : !llvm.ptr)
  ^bb1(%p: !llvm.ptr):
    %v = llvm.load %p : !llvm.ptr -> f32
    llvm.return
  }
}

// -----

// Wave operations: mbcnt inline from the lane id (context offset 52), lo
// counting lanes 0..31 (umin 32), hi lanes 32..63 (usub.sat 32); the
// collectives call the runtime per 32-bit word (an i64 readlane twice), a
// ballot's i1 widened and its i64 mask truncated to the i32 asked for.

// CHECK-LABEL: gpu.module @wave
// CHECK-DAG: llvm.func @fly_emu_ballot(!llvm.ptr, i32) -> i64
// CHECK-DAG: llvm.func @fly_emu_readfirstlane(!llvm.ptr, i32) -> i32
// CHECK-DAG: llvm.func @fly_emu_readlane(!llvm.ptr, i32, i32) -> i32
// CHECK-DAG: llvm.func @fly_emu_ds_bpermute(!llvm.ptr, i32, i32) -> i32
// CHECK-DAG: llvm.func @fly_emu_ds_swizzle(!llvm.ptr, i32, i32) -> i32
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[V:.*]]: i32, %[[W:.*]]: i64, %[[L:.*]]: i32, %[[P:.*]]: i1, %[[M:.*]]: i32)
// CHECK: %[[LANEP:.*]] = llvm.getelementptr inbounds %[[CTX]][52]
// CHECK: %[[LANE:.*]] = llvm.load %[[LANEP]] {{.*}} -> i32
// CHECK: llvm.intr.umin(%[[LANE]], %{{.*}})
// CHECK: %[[LOBITS:.*]] = llvm.and
// CHECK: llvm.intr.ctpop(%[[LOBITS]]) : (i64) -> i64
// CHECK: %[[LO:.*]] = llvm.add %[[L]], %{{.*}} : i32
// CHECK: llvm.intr.usub.sat
// CHECK: llvm.add %[[LO]], %{{.*}} : i32
// CHECK: llvm.call @fly_emu_ds_bpermute(%[[CTX]], %[[L]], %[[V]])
// CHECK: llvm.call @fly_emu_ds_swizzle(%[[CTX]], %[[V]], %[[L]])
// CHECK: %[[WORDS:.*]] = llvm.bitcast %[[W]] : i64 to vector<2xi32>
// CHECK-COUNT-2: llvm.call @fly_emu_readlane(%[[CTX]], %{{.*}}, %[[L]])
// CHECK: llvm.bitcast %{{.*}} : vector<2xi32> to i64
// CHECK: llvm.call @fly_emu_readfirstlane(%[[CTX]], %[[V]])
// CHECK: %[[PW:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK: %[[MASK:.*]] = llvm.call @fly_emu_ballot(%[[CTX]], %[[PW]])
// CHECK: llvm.trunc %[[MASK]] : i64 to i32
gpu.module @wave {
  llvm.func @k(%v: i32, %w: i64, %l: i32, %p: i1, %m: i32) attributes {rocdl.kernel} {
    %lo = rocdl.mbcnt.lo %m, %l : (i32, i32) -> i32
    %hi = rocdl.mbcnt.hi %m, %lo : (i32, i32) -> i32
    %a = rocdl.ds_bpermute %l, %v : (i32, i32) -> i32
    %s = rocdl.ds_swizzle %v, %l : (i32, i32) -> i32
    %b = rocdl.readlane %w, %l : (i64, i32) -> i64
    %c = rocdl.readfirstlane %v : i32
    %d = rocdl.ballot %p : i32
    llvm.return
  }
}

// -----

// Buffer resources: make.buffer.rsrc fills a {base, num_records, stride,
// flags} descriptor in an entry-block alloca; loads and stores go through a
// frame slot to the range-checking runtime; atomics operate at the address
// the runtime checks; rsq is 1 / sqrt, in f64 (the numerics and their f32
// denormal rule are convert-rocdl-to-emu-numerics.mlir's).

// CHECK-LABEL: gpu.module @buffers
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[OFF:.*]]: i32, %[[X:.*]]: f32)
// CHECK-DAG: %[[STORESLOT:.*]] = llvm.alloca %{{.*}} x vector<2xf32> {alignment = 8 : i64}
// CHECK-DAG: %[[LOADSLOT:.*]] = llvm.alloca %{{.*}} x vector<4xi32> {alignment = 16 : i64}
// CHECK-DAG: %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64, i32, i32)> {alignment = 8 : i64}
// CHECK: llvm.store %[[BASE]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK: %[[STRIDE:.*]] = llvm.zext %{{.*}} : i16 to i32
// CHECK: llvm.store %[[STRIDE]]
// CHECK: %[[B16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[DESC]], %[[OFF]], %{{.*}}, %[[B16]], %[[LOADSLOT]])
// CHECK: llvm.load %[[LOADSLOT]] : !llvm.ptr -> vector<4xi32>
// CHECK: llvm.store %{{.*}}, %[[STORESLOT]] : vector<2xf32>, !llvm.ptr
// CHECK: llvm.call @fly_emu_buffer_store(%[[CTX]], %[[DESC]], %[[OFF]], %{{.*}}, %{{.*}}, %[[STORESLOT]])
// CHECK: %[[AT:.*]] = llvm.call @fly_emu_buffer_atomic_address(%[[CTX]], %[[DESC]], %[[OFF]]
// CHECK: llvm.atomicrmw fadd %[[AT]], %[[X]] monotonic : !llvm.ptr, f32
// CHECK: %[[AT2:.*]] = llvm.call @fly_emu_buffer_atomic_address
// CHECK: %[[PAIR:.*]] = llvm.cmpxchg %[[AT2]], %[[OFF]], %{{.*}} monotonic monotonic : !llvm.ptr, i32
// CHECK: llvm.extractvalue %[[PAIR]][0]
// CHECK: %[[WIDE:.*]] = llvm.fpext %{{.*}} : f32 to f64
// CHECK: %[[ROOT:.*]] = llvm.intr.sqrt(%[[WIDE]]) : (f64) -> f64
// CHECK: %[[RSQ:.*]] = llvm.fdiv %{{.*}}, %[[ROOT]] : f64
// CHECK: llvm.fptrunc %[[RSQ]] : f64 to f32
// CHECK: %[[LOG:.*]] = llvm.intr.log2(%[[X]]) : (f32) -> f32
// CHECK: %[[Z1:.*]] = llvm.fcmp "oeq" %[[LOG]]
// CHECK: %[[Z2:.*]] = llvm.fcmp "oeq" %[[X]]
// CHECK: %[[EITHER:.*]] = llvm.or %[[Z1]], %[[Z2]] : i1
// CHECK: %[[MUL:.*]] = llvm.fmul %[[X]], %[[LOG]] : f32
// CHECK: %[[PROD:.*]] = llvm.select %[[EITHER]], %{{.*}}, %[[MUL]]
// CHECK: llvm.intr.exp2(%[[PROD]]) : (f32) -> f32
// CHECK-NOT: llvm.call_intrinsic
gpu.module @buffers {
  llvm.func @k(%base: !llvm.ptr<1>, %n: i64, %off: i32, %x: f32) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %s = llvm.mlir.constant(0 : i16) : i16
    %r = rocdl.make.buffer.rsrc %base, %s, %n, %c0 : !llvm.ptr<1> to !llvm.ptr<8>
    %v = rocdl.raw.ptr.buffer.load %r, %off, %c0, %c0 : vector<4xi32>
    %f = llvm.bitcast %v : vector<4xi32> to vector<4xf32>
    %h = llvm.shufflevector %f, %f [0, 1] : vector<4xf32>
    rocdl.raw.ptr.buffer.store %h, %r, %off, %c0, %c0 : vector<2xf32>
    rocdl.raw.ptr.buffer.atomic.fadd %x, %r, %off, %c0, %c0 : f32
    %old = rocdl.raw.ptr.buffer.atomic.cmpswap %c0, %off, %r, %off, %c0, %c0 : i32
    %y = llvm.call_intrinsic "llvm.amdgcn.rsq"(%x) : (f32) -> f32
    %z = llvm.call_intrinsic "llvm.pow"(%x, %x) : (f32, f32) -> f32
    llvm.return
  }
}

// -----

// Matrix instructions: A, B and C go to entry-block allocas, one
// fly_emu_matrix call names the instruction (FlyEmuMatrixOp of Emu.h) and
// its modifiers, and D is loaded back. The WMMA op names are shared by
// gfx11 and gfx12; the operand sizes pick the form. The fp8 MFMA takes its
// format from the module's #rocdl.target (gfx950: OCP, bit 0x100000).
// The pass's chip option overrides the target: gfx942's FNUZ formats.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{chip=gfx942 check-alignment=false}))' \
// RUN:   | FileCheck %s --check-prefix=CHIP
// CHIP-LABEL: gpu.module @matrix
// CHIP: llvm.mlir.constant(29 : i32)
// CHIP-NEXT: llvm.mlir.constant(0 : i32)
// CHIP-NEXT: llvm.call @fly_emu_matrix
// CHECK-LABEL: gpu.module @matrix
// CHECK: llvm.func @fly_emu_matrix(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[A:.*]]: vector<4xf16>, %[[C:.*]]: vector<16xf32>, %[[H:.*]]: vector<16xf16>, %[[H8:.*]]: vector<8xf16>, %[[Q:.*]]: i64, %[[OUT:.*]]: !llvm.ptr)
// CHECK-DAG: llvm.alloca %{{.*}} x vector<4xf16>
// CHECK-DAG: llvm.alloca %{{.*}} x vector<16xf32>
// CHECK: llvm.store %[[A]], %[[ASLOT:[0-9]+]] : vector<4xf16>, !llvm.ptr
// CHECK: llvm.store %[[A]], %[[BSLOT:[0-9]+]] : vector<4xf16>, !llvm.ptr
// CHECK: llvm.store %[[C]], %[[CSLOT:[0-9]+]] : vector<16xf32>, !llvm.ptr
// CHECK: %[[ID:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK: %[[CONTROL:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.call @fly_emu_matrix(%[[CTX]], %[[ID]], %[[CONTROL]], %[[ASLOT]], %[[BSLOT]], %[[CSLOT]], %[[DSLOT:[0-9]+]])
// CHECK: %[[D:.*]] = llvm.load %[[DSLOT]] : !llvm.ptr -> vector<16xf32>
// CHECK: llvm.store %[[D]], %[[OUT]]
// CHECK: llvm.mlir.constant(42 : i32)
// CHECK: llvm.mlir.constant(65536 : i32)
// CHECK: llvm.call @fly_emu_matrix
// CHECK: llvm.mlir.constant(52 : i32)
// CHECK: llvm.mlir.constant(0 : i32)
// CHECK: llvm.call @fly_emu_matrix
// CHECK: llvm.mlir.constant(29 : i32)
// CHECK: llvm.mlir.constant(1048576 : i32)
// CHECK: llvm.call @fly_emu_matrix
// CHECK-NOT: rocdl.
gpu.module @matrix [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%a: vector<4xf16>, %c: vector<16xf32>, %h: vector<16xf16>,
               %h8: vector<8xf16>, %q: i64, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    %d = rocdl.mfma.f32.32x32x8f16 %a, %a, %c, %z, %z, %z : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr<1>
    %e = rocdl.wmma.f16.16x16x16.f16 %h, %h, %h {opsel = true} : (vector<16xf16>, vector<16xf16>, vector<16xf16>) -> vector<16xf16>
    llvm.store %e, %out : vector<16xf16>, !llvm.ptr<1>
    %f = rocdl.wmma.f16.16x16x16.f16 %h8, %h8, %h8 : (vector<8xf16>, vector<8xf16>, vector<8xf16>) -> vector<8xf16>
    llvm.store %f, %out : vector<8xf16>, !llvm.ptr<1>
    %g = rocdl.mfma.f32.32x32x16.fp8.fp8 %q, %q, %d, %z, %z, %z : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
    llvm.store %g, %out : vector<16xf32>, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// The dispatch packet: the pointer at context offset 80.

// CHECK-LABEL: gpu.module @dispatch
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// CHECK: %[[AT:.*]] = llvm.getelementptr inbounds %[[CTX]][80]
// CHECK: %[[P:.*]] = llvm.load %[[AT]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[F:.*]] = llvm.getelementptr inbounds %[[P]][4]
// CHECK: llvm.load %[[F]] {{.*}}: !llvm.ptr -> i16
// CHECK-NOT: call_intrinsic
gpu.module @dispatch {
  llvm.func @k(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %p = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
    %f = llvm.getelementptr inbounds %p[4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
    %x = llvm.load %f invariant {alignment = 2 : i64} : !llvm.ptr<4> -> i16
    llvm.store %x, %out : i16, !llvm.ptr<1>
    llvm.return
  }
}
