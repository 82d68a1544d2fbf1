// llvm.inline_asm through convert-rocdl-to-emu: the text, its $N bound to
// registers by the constraints, is assembled with LLVM's AMDGPU assembler
// for the gpu.module's chip and each instruction becomes the ROCDL or LLVM
// ops of its semantics, which the pass then lowers like any others.
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check-alignment=false}))' | FileCheck %s
// RUN: fly-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu{check=bounds check-alignment=false}))' | FileCheck %s --check-prefix=BOUNDS

// Waits, scheduling and cache maintenance are nothing; s_barrier is the
// emulator's barrier.
// CHECK-LABEL: gpu.module @waits
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr)
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]])
// CHECK-NEXT: llvm.return
gpu.module @waits [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    llvm.inline_asm has_side_effects "s_nop 7", "" : () -> ()
    llvm.inline_asm has_side_effects "s_waitcnt vmcnt(0) lgkmcnt(0)\0As_barrier\0Abuffer_inv sc1 ; a comment", "" : () -> ()
    llvm.return
  }
}

// -----

// An asm without outputs whose result is !llvm.void (as FlyDSL's kernels
// build `s_nop` and barrier asm) is the same as one without a result.
// CHECK-LABEL: gpu.module @void_result
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr)
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]])
// CHECK-NEXT: llvm.return
gpu.module @void_result [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    %0 = llvm.inline_asm has_side_effects "s_nop 7", "" : () -> !llvm.void
    %1 = llvm.inline_asm has_side_effects "s_waitcnt lgkmcnt(0)\0As_barrier", "" : () -> !llvm.void
    llvm.return
  }
}

// -----

// The empty asm of an optimisation barrier ("=v,0") is its operand.
// CHECK-LABEL: gpu.module @anchor
// CHECK: %[[V:.*]] = llvm.load %[[P:.*]] : !llvm.ptr -> vector<16xf32>
// CHECK-NOT: llvm.load
// CHECK: llvm.store %[[V]], %[[P]] : vector<16xf32>, !llvm.ptr
gpu.module @anchor [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %v = llvm.load %p : !llvm.ptr<1> -> vector<16xf32>
    %w = llvm.inline_asm has_side_effects "", "=v,0" %v : (vector<16xf32>) -> vector<16xf32>
    llvm.store %w, %p : vector<16xf32>, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// v_cvt_pk_bf16_f32 with a neg modifier: LLVM's fptrunc of the pair.
// CHECK-LABEL: gpu.module @cvt
// CHECK: llvm.func internal @k_body(%{{.*}}: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %{{.*}}: f32, %{{.*}}: f32)
// CHECK: %[[NEG:.*]] = llvm.fneg %{{.*}} : f32
// CHECK: %[[LO:.*]] = llvm.insertelement %[[NEG]], %{{.*}} : vector<2xf32>
// CHECK: %[[BOTH:.*]] = llvm.insertelement %{{.*}}, %[[LO]][%{{.*}} : i32] : vector<2xf32>
// CHECK: %[[BF:.*]] = llvm.fptrunc %[[BOTH]] : vector<2xf32> to vector<2xbf16>
// CHECK: %[[R:.*]] = llvm.bitcast %[[BF]] : vector<2xbf16> to i32
// CHECK: llvm.store %[[R]], %[[P]]
gpu.module @cvt [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%p: !llvm.ptr<1>, %x: f32, %y: f32) attributes {rocdl.kernel} {
    %r = llvm.inline_asm "v_cvt_pk_bf16_f32 $0, -$1, $2", "=v,v,v" %x, %y : (f32, f32) -> i32
    llvm.store %r, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// DS instructions on a 32-bit LDS address plus the offset field: the
// address holds the low 32 bits of an emulated LDS address, so the host
// address is the LDS base plus their difference from the base's low bits.
// The transposing read is the emulator's collective.
// CHECK-LABEL: gpu.module @lds
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[A:.*]]: i32, %[[X:.*]]: i32)
// CHECK: %[[LDS:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: %[[AT:.*]] = llvm.add %[[A]], %[[C8]] : i32
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[LDS]] : !llvm.ptr to i64
// CHECK: %[[LOW:.*]] = llvm.trunc %[[BASE]] : i64 to i32
// CHECK: %[[OFF:.*]] = llvm.sub %[[AT]], %[[LOW]] : i32
// CHECK: %[[WIDE:.*]] = llvm.zext %[[OFF]] : i32 to i64
// CHECK: %[[W:.*]] = llvm.getelementptr %[[LDS]][%[[WIDE]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.store %[[X]], %[[W]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: llvm.add %[[A]], %[[C64]] : i32
// CHECK: %[[R:.*]] = llvm.getelementptr %[[LDS]]
// CHECK-DAG: %[[BITS:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[BYTES:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: llvm.call @fly_emu_ds_read_tr(%[[CTX]], %[[R]], %[[BITS]], %[[BYTES]], %[[SLOT:[^)]+]])
// CHECK: %[[T:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> vector<2xi32>
// CHECK: llvm.store %[[T]], %[[P]]
// With the bounds check, the store and each lane's bytes of the transposing
// read are checked.
// BOUNDS-LABEL: gpu.module @lds
// BOUNDS: llvm.call @fly_emu_check_access
// BOUNDS: ^{{.*}}(%[[W:.*]]: !llvm.ptr):
// BOUNDS-NEXT: llvm.store %{{.*}}, %[[W]] {alignment = 4 : i64} : i32, !llvm.ptr
// BOUNDS: %[[R:.*]] = llvm.call @fly_emu_check_access
// BOUNDS: llvm.call @fly_emu_ds_read_tr(%{{.*}}, %[[R]],
gpu.module @lds [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%p: !llvm.ptr<1>, %a: i32, %x: i32) attributes {rocdl.kernel} {
    llvm.inline_asm has_side_effects "ds_write_b32 $0, $1 offset:8", "v,v" %a, %x : (i32, i32) -> ()
    %t = llvm.inline_asm has_side_effects "ds_read_b64_tr_b16 $0, $1 offset:64\0A", "=v,v,~{memory}" %a : (i32) -> vector<2xi32>
    llvm.store %t, %p : vector<2xi32>, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// Global accesses: through a 64-bit integer address (an inttoptr), or
// through a pointer operand, which stays that pointer (so the bounds check
// traces it to its kernel argument); cache bits mean nothing here.
// CHECK-LABEL: gpu.module @global
// CHECK: llvm.func internal @k_body(%{{.*}}: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[Q:.*]]: i64)
// CHECK: %[[QW:.*]] = llvm.bitcast %[[Q]] : i64 to vector<2xi32>
// CHECK: %[[M8:.*]] = llvm.mlir.constant(-8 : i64) : i64
// CHECK: %[[QI:.*]] = llvm.bitcast %[[QW]] : vector<2xi32> to i64
// CHECK: %[[QA:.*]] = llvm.add %[[QI]], %[[M8]] : i64
// CHECK: %[[QP:.*]] = llvm.inttoptr %[[QA]] : i64 to !llvm.ptr
// CHECK: %[[V:.*]] = llvm.load %[[QP]] {alignment = 4 : i64} : !llvm.ptr -> vector<2xi32>
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: %[[PA:.*]] = llvm.getelementptr %[[P]][%[[C16]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.store %[[V]], %[[PA]] {alignment = 4 : i64} : vector<2xi32>, !llvm.ptr
// BOUNDS-LABEL: gpu.module @global
// BOUNDS-DAG: llvm.mlir.global internal constant @[[SITE:__fly_emu_site_[0-9]+]]() {{.*}} : !llvm.struct
// BOUNDS-DAG: %[[ARG0:.*]] = llvm.mlir.constant(0 : i32) : i32
// BOUNDS: llvm.call @fly_emu_check_extent(%{{.*}}, %[[ARG0]], %{{.*}})
// BOUNDS: llvm.call @fly_emu_check_access
// BOUNDS: llvm.load
// BOUNDS: llvm.call @fly_emu_check_access
// BOUNDS: llvm.store
gpu.module @global [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr<1>, %q: i64) attributes {rocdl.kernel} {
    %v = llvm.inline_asm has_side_effects "global_load_dwordx2 $0, $1, off offset:-8 sc0", "=v,v" %q : (i64) -> vector<2xi32>
    llvm.inline_asm has_side_effects "global_store_dwordx2 $0, $1, off offset:16 sc0 sc1", "v,v" %p, %v : (!llvm.ptr<1>, vector<2xi32>) -> ()
    llvm.return
  }
}

// -----

// gfx950's f8f6f4 MFMA on AGPRs: the scaled MFMA with both scales 1 (E8M0
// 127), formats cbsz = blgp = 0 (fp8).
// CHECK-LABEL: gpu.module @mfma
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[A:.*]]: vector<8xi32>, %[[B:.*]]: vector<8xi32>, %[[C:.*]]: vector<4xf32>)
// CHECK: llvm.store %[[A]], %[[SA:.*]] : vector<8xi32>, !llvm.ptr
// CHECK: llvm.store %[[B]], %[[SB:.*]] : vector<8xi32>, !llvm.ptr
// CHECK: llvm.store %[[C]], %[[SC:.*]] : vector<4xf32>, !llvm.ptr
// CHECK-DAG: %[[CONTROL:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(127 : i64) : i64
// CHECK: llvm.call @fly_emu_matrix_scale(%[[CTX]], %{{.*}}, %[[CONTROL]], %[[SA]], %[[SB]], %[[SC]], %[[SD:[^,]+]], %[[ONE]], %{{.*}})
// CHECK: %[[D:.*]] = llvm.load %[[SD]] : !llvm.ptr -> vector<4xf32>
// CHECK: llvm.store %[[D]], %[[P]]
gpu.module @mfma [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%p: !llvm.ptr<1>, %a: vector<8xi32>, %b: vector<8xi32>, %c: vector<4xf32>) attributes {rocdl.kernel} {
    %d = llvm.inline_asm has_side_effects "v_mfma_f32_16x16x128_f8f6f4 $0, $1, $2, $0", "=a,v,v,0" %a, %b, %c : (vector<8xi32>, vector<8xi32>, vector<4xf32>) -> vector<4xf32>
    llvm.store %d, %p : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// A CDNA3 MFMA with its modifiers (cbsz, abid, blgp packed as the
// emulator's control word: 1 | 2 << 4 | 3 << 8).
// CHECK-LABEL: gpu.module @mfma_f16
// CHECK: %[[CONTROL:.*]] = llvm.mlir.constant(801 : i32) : i32
// CHECK: llvm.call @fly_emu_matrix(%{{.*}}, %{{.*}}, %[[CONTROL]],
gpu.module @mfma_f16 [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr<1>, %a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) attributes {rocdl.kernel} {
    %d = llvm.inline_asm has_side_effects "v_mfma_f32_16x16x16_f16 $0, $1, $2, $3 cbsz:1 abid:2 blgp:3", "=v,v,v,v" %a, %b, %c : (vector<4xf16>, vector<4xf16>, vector<4xf32>) -> vector<4xf32>
    llvm.store %d, %p : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// A branch inside one asm: its labels start blocks, its registers (here
// the `s` operand and SCC) live in i32 allocas of the function.
// CHECK-LABEL: gpu.module @branch
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[F:.*]]: i32)
// CHECK: %[[SCC:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[S:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.store %[[F]], %[[S]]
// CHECK: %[[FV:.*]] = llvm.load %[[S]]
// CHECK: %[[EQ:.*]] = llvm.icmp "eq" %[[FV]], %{{.*}} : i32
// CHECK: %[[BIT:.*]] = llvm.zext %[[EQ]] : i1 to i32
// CHECK: llvm.store %[[BIT]], %[[SCC]]
// CHECK: %[[SCCV:.*]] = llvm.load %[[SCC]]
// CHECK: %[[ZERO:.*]] = llvm.icmp "eq" %[[SCCV]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[ZERO]], ^[[LABEL:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK: ^[[LABEL]]:
// CHECK-NEXT: llvm.br ^[[AFTER:bb[0-9]+]]
// CHECK: ^[[NEXT]]:
// CHECK-NEXT: llvm.call @fly_emu_barrier(%[[CTX]])
// CHECK-NEXT: llvm.br ^[[LABEL]]
// CHECK: ^[[AFTER]]:
// CHECK-NEXT: llvm.return
gpu.module @branch [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%f: i32) attributes {rocdl.kernel} {
    llvm.inline_asm has_side_effects "s_cmp_eq_u32 $0, 0\0A\09s_cbranch_scc0 1f\0A\09s_barrier\0A\091:", "s" %f : (i32) -> ()
    llvm.return
  }
}

// -----

// FlyDSL's LDS DMA in asm: M0 (the LDS address) set by s_mov_b32, the
// buffer resource an operand; the emulator's LDS DMA with the offset field.
// M0 outlives the statement (an i32 alloca of the function).
// CHECK-LABEL: gpu.module @dma
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[R:.*]]: !llvm.ptr, %[[M:.*]]: i32, %[[V:.*]]: i32)
// CHECK: %[[M0:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.sub %[[M]], %{{.*}} : i32
// CHECK-COUNT-2: llvm.call @fly_emu_readfirstlane
// CHECK: %[[VO:.*]] = llvm.add %[[V]], %{{.*}} : i32
// CHECK: llvm.call @fly_emu_buffer_load(%[[CTX]], %[[R]], %[[VO]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: llvm.store %[[M]], %[[M0]]
gpu.module @dma [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%rsrc: !llvm.ptr<8>, %m: i32, %v: i32) attributes {rocdl.kernel} {
    llvm.inline_asm has_side_effects "s_mov_b32 m0, $0\0As_nop 0\0Abuffer_load_dword $1, $2, 0 offen offset:16 lds", "s,v,s" %m, %v, %rsrc : (i32, i32, !llvm.ptr<8>) -> ()
    llvm.return
  }
}

// -----

// A lane mask: v_cmp (the wave's ballot), v_cndmask (this lane's bit, the
// lane id from mbcnt); several outputs are a struct.
// CHECK-LABEL: gpu.module @mask
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[X:.*]]: i32, %[[Y:.*]]: i32)
// CHECK: %[[LT:.*]] = llvm.icmp "slt" %[[X]], %{{.*}} : i32
// CHECK: %[[LTW:.*]] = llvm.zext %[[LT]] : i1 to i32
// CHECK: %[[MASK:.*]] = llvm.call @fly_emu_ballot(%[[CTX]], %[[LTW]]) : (!llvm.ptr, i32) -> i64
// CHECK: llvm.intr.ctpop
// CHECK: llvm.intr.ctpop
// CHECK: %[[LANE:.*]] = llvm.add
// CHECK: %[[SHIFT:.*]] = llvm.zext %[[LANE]] : i32 to i64
// CHECK: %[[BITS:.*]] = llvm.lshr %{{.*}}, %[[SHIFT]] : i64
// CHECK: %[[BIT:.*]] = llvm.trunc %[[BITS]] : i64 to i1
// CHECK: %[[SEL:.*]] = llvm.select %[[BIT]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[S0:.*]] = llvm.insertvalue %[[MASK]], %{{.*}}[0] : !llvm.struct<(i64, i32)>
// CHECK: llvm.insertvalue %[[SEL]], %[[S0]][1] : !llvm.struct<(i64, i32)>
gpu.module @mask [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%p: !llvm.ptr<1>, %x: i32, %y: i32) attributes {rocdl.kernel} {
    %r = llvm.inline_asm has_side_effects "v_cmp_lt_i32_e64 $0, $2, 5\0Av_cndmask_b32_e64 $1, $2, $3, $0", "=s,=v,v,v" %x, %y : (i32, i32) -> !llvm.struct<(i64, i32)>
    %v = llvm.extractvalue %r[1] : !llvm.struct<(i64, i32)>
    llvm.store %v, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// The same LDS address rule for any integer turned into an LDS pointer.
// CHECK-LABEL: gpu.module @inttoptr
// CHECK: llvm.func internal @k_body(%[[CTX:.*]]: !llvm.ptr, %[[A:.*]]: i32, %[[X:.*]]: f32)
// CHECK: %[[LDS:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[LDS]] : !llvm.ptr to i64
// CHECK: %[[LOW:.*]] = llvm.trunc %[[BASE]] : i64 to i32
// CHECK: %[[OFF:.*]] = llvm.sub %[[A]], %[[LOW]] : i32
// CHECK: %[[WIDE:.*]] = llvm.zext %[[OFF]] : i32 to i64
// CHECK: %[[Q:.*]] = llvm.getelementptr %[[LDS]][%[[WIDE]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.store %[[X]], %[[Q]] : f32, !llvm.ptr
gpu.module @inttoptr {
  llvm.func @k(%a: i32, %x: f32) attributes {rocdl.kernel} {
    %q = llvm.inttoptr %a : i32 to !llvm.ptr<3>
    llvm.store %x, %q : f32, !llvm.ptr<3>
    llvm.return
  }
}
