// Inline asm the emulator cannot run is an error at the op naming the chip
// and, for an instruction, its text and its line in the asm.
// RUN: fly-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-rocdl-to-emu))'

gpu.module @not_on_this_chip [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%x: f32) attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: the emulator cannot run 'v_cvt_pk_bf16_f32 $0, $1, $1' (line 2 of the asm): LLVM's AMDGPU assembler rejects it: instruction not supported on this GPU}}
    %r = llvm.inline_asm "s_nop 0\0A  v_cvt_pk_bf16_f32 $0, $1, $1", "=v,v" %x : (f32) -> i32
    llvm.return
  }
}

// -----

gpu.module @no_semantics [#rocdl.target<chip = "gfx950">] {
  llvm.func @k(%x: f32) attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx950: the emulator cannot run 'v_sin_f32 $0, $1' (line 1 of the asm): the emulator has no semantics for it}}
    %r = llvm.inline_asm "v_sin_f32 $0, $1", "=v,v" %x : (f32) -> f32
    llvm.return
  }
}

// -----

gpu.module @no_chip {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm: the emulator assembles it for the kernel's chip; give the pass chip=... or the gpu.module a #rocdl.target}}
    llvm.inline_asm has_side_effects "s_nop 0", "" : () -> ()
    llvm.return
  }
}

// -----

gpu.module @constraint [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%x: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: the constraint '=r' is not an output the emulator binds (=v, =s, =a)}}
    %r = llvm.inline_asm "v_mov_b32 $0, $1", "=r,v" %x : (i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @operand_number [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%x: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: the asm names $2, but has 2 operands}}
    %r = llvm.inline_asm "v_mov_b32 $0, $2", "=v,v" %x : (i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @unknown_label [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{the emulator cannot run 's_cbranch_scc0 elsewhere' (line 1 of the asm): it branches to no label of the asm}}
    llvm.inline_asm has_side_effects "s_cbranch_scc0 elsewhere", "" : () -> ()
    llvm.return
  }
}

// -----

gpu.module @exec [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: an instruction writes exec, whose lanes the emulator does not switch}}
    llvm.inline_asm has_side_effects "s_mov_b64 exec, 0", "" : () -> ()
    llvm.return
  }
}

// -----

gpu.module @own_resource [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%v: i32) attributes {rocdl.kernel} {
    // expected-error @+1 {{'buffer_load_dword $0, $1, s[0:3], 0 offen' (line 1 of the asm): its buffer resource is not an operand of the asm}}
    %r = llvm.inline_asm has_side_effects "buffer_load_dword $0, $1, s[0:3], 0 offen", "=v,v" %v : (i32) -> i32
    llvm.return
  }
}

// -----

gpu.module @overlap [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    // The 64-bit output is v[254:255], from the top of the file.
    // expected-error @+1 {{'v_mov_b32 v255, 0' (line 1 of the asm): it names VGPR255, which overlaps v[254:255], the emulator's registers of $0}}
    %r = llvm.inline_asm "v_mov_b32 v255, 0", "=v" : () -> i64
    llvm.return
  }
}

// -----

gpu.module @buffer_resource_in_vgprs [#rocdl.target<chip = "gfx942">] {
  llvm.func @k(%r: !llvm.ptr<8>) attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: operand $0 is a buffer resource in vector registers}}
    llvm.inline_asm has_side_effects "s_nop 0", "v" %r : (!llvm.ptr<8>) -> ()
    llvm.return
  }
}

// -----

// A !llvm.void result is no value: nothing may use it.
gpu.module @void_used [#rocdl.target<chip = "gfx942">] {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{inline asm for gfx942: its !llvm.void result is used}}
    %0 = llvm.inline_asm has_side_effects "s_nop 0", "" : () -> !llvm.void
    %1 = builtin.unrealized_conversion_cast %0 : !llvm.void to i32
    llvm.return
  }
}
