//===- Passes.td - Conversion of ROCDL kernels to emulator code -*- tablegen -*-===//
//
// One entry per pass; each pass is one file in lib/Conversion/ROCDLToEmu.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_CONVERSION_ROCDLTOEMU_PASSES_TD
#define FLY_CONVERSION_ROCDLTOEMU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertROCDLToEmu : Pass<"convert-rocdl-to-emu", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Rewrite the ROCDL kernels of a gpu.module into host code "
                "for the CPU emulator";
  let description = [{
    Takes a gpu.module after stage A (llvm.func kernels marked `rocdl.kernel`,
    ROCDL ops, pointers in address spaces 1, 3, 5) and rewrites it in place
    into host code against the emulator's C ABI (runtime/include/fly/runtime/
    Emu.h, SPEC §9). The result is plain llvm dialect that
    `mlir-translate --mlir-to-llvmir` translates for the host.

    Kernels. Each `llvm.func @k(T0, ..., Tn) {rocdl.kernel}` becomes
      - `llvm.func internal @k_body(%ctx: !llvm.ptr, T0', ..., Tn')`, the
        old body, where `%ctx` is the work-item's `FlyEmuContext *`;
      - `llvm.func @k(%ctx: !llvm.ptr, %params: !llvm.ptr)`, the entry
        (`FlyEmuKernelFn`), marked `fly.emu.kernel`: `%params` is a `void **`
        array with one pointer per kernel argument, as mgpuLaunchKernel and
        hipModuleLaunchKernel take them; argument i is loaded from
        `*params[i]` and the entry calls the body.
      The body loses the `rocdl.*` and `gpu.*` function attributes; its
      `fly.*` ones move to the entry, which also gets `gpu.kernel` (a host
      gpu.launch_func of @k must still verify). The gpu.module loses its `llvm.data_layout`
      and `llvm.target_triple` (the host JIT supplies its own).

    Operations (in kernels), with `%ctx` loads at the ABI's byte offsets:
      - `rocdl.workitem.id.{x,y,z}`: i32 at 0/4/8; `rocdl.workgroup.id.*`:
        12/16/20; `rocdl.workgroup.dim.*` (gpu.block_dim): 24/28/32;
        `rocdl.grid.dim.*` (gpu.grid_dim, in workgroups): 36/40/44;
        `rocdl.wavefrontsize`: 60. A wider integer result is zero-extended.
      - `llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"`: the pointer at
        80, the runtime's HSA dispatch packet (block and grid sizes, Emu.h).
      - `rocdl.barrier`, `rocdl.s.barrier` and `rocdl.s.barrier.wait -1`
        become `llvm.call @fly_emu_barrier(%ctx)`; `rocdl.s.barrier.signal -1`
        is erased: a split barrier is one emulator barrier at its wait,
        since only after the wait may a work-item rely on the others having
        arrived (parking earlier would also be legal, parking at the wait
        keeps the code between signal and wait in its own phase).
      - Waits on memory counters (`rocdl.s.waitcnt`, `rocdl.s.wait.dscnt`,
        `.loadcnt`, `.storecnt`, `.expcnt`) and scheduling hints
        (`rocdl.sched.barrier`, `rocdl.s.setprio`, `rocdl.s.sleep`,
        `rocdl.s.nop`) are erased: a work-item's memory operations complete
        in program order on the host.
      - `rocdl.mbcnt.lo` / `.hi` are computed inline from the lane id at
        offset 52: base + popcount(mask & the lanes below this one), lanes
        0..31 for lo, 32..63 for hi.
      - Wave collectives call the runtime, per 32-bit word of the value
        (narrower values zero-extended, wider ones split):
        `rocdl.ds_bpermute` -> `fly_emu_ds_bpermute`, `rocdl.readlane` ->
        `fly_emu_readlane`, `rocdl.readfirstlane` -> `fly_emu_readfirstlane`,
        `rocdl.ballot` -> `fly_emu_ballot` (truncated for an i32 mask).
        `rocdl.update.dpp` and `llvm.call_intrinsic
        "llvm.amdgcn.update.dpp[.TYPE]"` (32-bit values, constant controls)
        -> `fly_emu_update_dpp` with the controls packed into one word.
      - Buffer resources: `rocdl.make.buffer.rsrc` becomes a
        FlyEmuBufferResource {base, num_records, stride, flags} in an alloca
        of the body's entry block (one per op), the resource its address;
        `rocdl.raw.ptr.buffer.load` / `.store` go through a frame slot to
        `fly_emu_buffer_load` / `fly_emu_buffer_store`, which range-check
        (Emu.h); `rocdl.raw.ptr.buffer.atomic.{fadd,fmax,smax,umin}` and
        `.cmpswap` become `llvm.atomicrmw` / `llvm.cmpxchg` (monotonic) at
        `fly_emu_buffer_atomic_address`. The cache-policy operand is
        dropped. `llvm.call_intrinsic "llvm.amdgcn.s.buffer.load[.TYPE]"`
        (1 to 16 dwords) loads the same way at offset & ~3, in pieces of
        16 bytes; its vector<4xi32> resource is the buffer resource
        pointer it was cast from (ptrtoint, bitcast) or else a hardware V#
        (base [47:0], stride [61:48], num_records, flags).
      - Matrix instructions: the CDNA3 dense `rocdl.mfma.*` (f32, f16,
        bf16 `.1k`, i8, f64, xf32, fp8/bf8 forms), CDNA4's new f16, bf16
        and i8 shapes, and the wave32 `rocdl.wmma.*`
        of gfx11 and gfx12 (f32/f16/bf16 D from f16/bf16, i32 from iu8/iu4,
        f32 from gfx12's fp8/bf8) store A, B and C to allocas of the entry
        block and call `fly_emu_matrix(%ctx, id, control, a, b, c, d)`, a
        wave collective of the runtime, then load D from its alloca. `id` is
        the instruction's FlyEmuMatrixOp (Emu.h), picked by the op name and,
        for WMMA, by the operand sizes (gfx11 and gfx12 share op names);
        `control` packs MFMA's constant cbsz/abid/blgp operands or WMMA's
        `opsel`, `signA`, `signB`, `clamp` flags. MFMA fp8/bf8 formats
        depend on the chip (gfx942: FNUZ; gfx950: OCP), taken from the
        `chip` option, else from the gpu.module's `#rocdl.target`.
        gfx950's `rocdl.mfma.scale.f32.{16x16x128,32x32x64}.f8f6f4` call
        `fly_emu_matrix_scale` with the lane's two scale words as well
        (zero-extended to i64), `control` packing the formats (cbsz, blgp)
        and the two opsels; so do gfx1250's
        `rocdl.wmma.scale{,16}.f32.16x16x128.f8f6f4`, from their fmtA,
        fmtB, scaleAType and scaleBType attributes (E8M0 scales, no modC),
        and `rocdl.wmma.scale{,16}.f32.32x16x128.f4` (formats fp4).
      - Packed conversions of 8- and 4-bit floats (`rocdl.cvt.f32.fp8/bf8`,
        `.pk.f32.fp8/bf8`, `.pk.fp8/bf8.f32`, `.scalef32.pk.{f32,bf16}.fp4`,
        `.scalef32.pk.fp4.f32`) call `fly_emu_convert(op, control, a, b, c,
        d)` on their operands' bits; `control` is the byte / word selector
        and, for fp8/bf8, the chip's encoding (as for MFMA).
      - LDS loads: `rocdl.raw.ptr.buffer.load.lds` and
        `rocdl.global.load.lds` (constant size and offset) read M0, the
        LDS pointer of the wave's first active lane (two
        `fly_emu_readfirstlane` words), and write the lane's bytes at
        M0 + offset + lane_id * size: from `fly_emu_buffer_load` at
        voffset + offset (range-checked) or an `llvm.intr.memcpy` from the
        global pointer + offset. `rocdl.ds.read.tr{4,8,16}.b64` and
        `.tr6.b96` call the wave collective `fly_emu_ds_read_tr(%ctx,
        addr, element_bits, bytes, slot)` and load the result from its
        frame slot; with `bounds`, each lane's bytes are checked as an LDS
        load's (fly_emu_check_access) first.
      - The tensor data mover (gfx1250): `rocdl.tensor.load.to.lds`,
        `rocdl.tensor.store.from.lds` and their `.d2` forms store their
        descriptor groups to a 20-dword frame slot (groups 2 and 3 zero for
        `.d2`) and call `fly_emu_tensor(%ctx, flags, slot)`, a wave
        collective that copies the tile at once (Emu.h), so
        `rocdl.s.wait.tensorcnt` is erased; `llvm.call_intrinsic
        "llvm.amdgcn.wave.id"` is the wave id at offset 56.
    In any function, `llvm.call_intrinsic "llvm.amdgcn.perm"`
    (v_perm_b32) becomes inline byte selects.
    Numerics, in any function (NumericIntrinsics.cpp): the chip's
    transcendental instructions, `rocdl.exp2`, `rocdl.log`, `rocdl.rcp`,
    `rocdl.sqrt`, `rocdl.sin`, `rocdl.cos`, `rocdl.tanh` and
    `llvm.call_intrinsic "llvm.amdgcn.{exp2,log,rcp,rsq,sqrt,sin,cos,
    tanh}[.TYPE]"`, become host ops computing what the ISA documents: the
    exact value rounded once to the type (within the ISA's 1 ULP), f32
    denormal inputs read and results written as zeros of their sign, and
    v_sin / v_cos in turns (sin(2 pi x); 0 beyond 256 turns).
    `llvm.sin` / `llvm.cos` of f16 and f32 become what the AMDGPU backend
    makes of them, v_sin / v_cos of x * (1 / 2pi), and `llvm.pow`
    `exp2(mul_legacy(y, log2(x)))` (mul_legacy: 0 when either operand is
    0), since the host's pow differs (x < 0 with an integral y). Other
    generic LLVM intrinsics keep their host implementations (same results
    up to accuracy). `rocdl.exp` (llvm.amdgcn.exp is the export
    instruction) and a form no chip has (v_exp_f64) are errors.
    The runtime functions used are declared as external llvm.funcs.

    LDS. Every llvm.mlir.global in address space 3 is laid out in one
    per-workgroup block at `ctx->lds` (loaded from offset 64): the static
    globals first, in module order, each at its alignment, then the
    external zero-sized dynamic ones (`__fly_dyn_shared`) all at the end of
    the static part rounded up to their alignment. `llvm.mlir.addressof` of
    one becomes an i8 getelementptr from `ctx->lds`; the globals are erased.
    The gpu.module gets `fly.emu.static_lds_bytes` (i32): where the
    dynamic part starts, the bytes a launch must add to its dynamic size.
    A static LDS global with an initializer other than undef is an error.

    Alignment (with `check-alignment`, the default). Every `llvm.load`,
    `llvm.store`, `llvm.atomicrmw` and `llvm.cmpxchg` of a kernel whose
    pointer is in address space 0, 1, 3 or 4 and whose declared alignment
    (its `alignment`, else its type's ABI alignment) is above 1 is preceded
    by a test of the address's low bits and a branch to a block that calls
    `fly_emu_trap_misaligned(%ctx, what, address, alignment)` (Emu.h),
    `what` being a string constant naming the memory, the access, its
    bytes and its source location (the first file:line:col of its
    location). The alignment is a promise the backend selects instructions
    by; the host would not notice it broken. Private memory (5) is the
    host frame and is not checked; buffer accesses are range-checked by
    the runtime instead.

    Checks (the `check` option; Emu.h, "Checked emulation"). With
    `bounds`, every access the alignment check covers (flat, global,
    constant, LDS), except those whose address derives from a private
    alloca or a module global that is not LDS, is preceded by
    `%p = llvm.call @fly_emu_check_access(%ctx, %address, bytes, site)`
    and made at `%p`. `site` is the address of a constant FlyEmuSite
    (`__fly_emu_site*`): the kernel's name, the access's first
    file:line, its kind (load, store, atomic), its memory (LDS when the
    address derives from an LDS global or is in address space 3, else
    global) and the kernel argument it derives from through GEPs,
    address space casts, bitcasts, selects and block arguments (-1 when
    that is not one pointer argument). With `barrier`, `s_barrier`
    becomes `fly_emu_barrier_checked(%ctx, site)`. With `bounds`, buffer
    loads, stores and atomics call the `_checked` forms of their runtime
    functions with the site (the V#'s tensor bounds the access; with
    `bounds=strict`, an access past num_records is also a warning), and a
    tensor data mover copy calls `fly_emu_tensor_checked`. With `init`,
    every LDS access marks or tests an inline shadow of the LDS (one byte
    per byte, from `fly_emu_check_shadow`); with `race`, every LDS access
    tells the runtime, which keeps a shadow per word. With any check, the
    module gets the external i32 constant `__fly_emu_checks` (the
    FLY_EMU_CHECK_* bits); without, nothing of this is emitted.

    Inline assembly (InlineAsmToEmu.cpp). Before anything else, every
    `llvm.inline_asm` becomes the operations its instructions are, which
    the pass then lowers and checks like any others. Its constraints
    (outputs `=v`, `=s`, `=a`; inputs `v`, `s`, `a`, `i`, `n`, a tied
    output's number; clobbers) bind each `$N` to registers of that file and
    of its type's width (v[254:255] for a 64-bit `v` operand), taken from
    the top of each file; the text so substituted is assembled by LLVM's
    AMDGPU assembler (the MC layer) for the chip (`chip`, else the
    gpu.module's #rocdl.target), which reads it as the GPU compile does
    (`;` starts a comment, a newline ends an instruction). Each instruction
    becomes: nothing for waits, s_nop, s_sleep, s_setprio and cache
    maintenance (buffer_inv, buffer_wbl2, ...); `rocdl.s.barrier` for
    s_barrier; `llvm.load` / `llvm.store` for DS, global and flat loads and
    stores (the offset field added, the cache bits ignored); the
    `rocdl.ds.read.tr*` op of a transposing read; `rocdl.raw.ptr.buffer.
    load`, `.store` and `.load.lds` (the LDS address in M0) for buffer
    accesses on a resource that is an operand of the asm; the matching
    `rocdl.mfma.*` for an MFMA (v_mfma_f32_*_f8f6f4: the scaled op with
    constant 0 scales; v_mfma_scale_*: op_sel and op_sel_hi of a scale as
    bits 0 and 1 of its opsel); `llvm.fptrunc` of the pair to bf16 for
    v_cvt_pk_bf16_f32 (neg / abs applied); `rocdl.ballot` for v_cmp_* on
    32-bit integers, the lane's bit of the mask (the lane id from mbcnt)
    for v_cndmask_b32; `rocdl.readfirstlane`, `.readlane`, `.ds_bpermute`;
    one LLVM op for s_mov, 32-bit scalar arithmetic (SCC as the hardware
    sets it), s_cmp_*, v_mov and 32-bit VALU arithmetic; blocks and
    branches for labels, s_branch and s_cbranch_{scc0,scc1,vccz,vccnz,
    execz,execnz}. A memory operand that is a pointer input stays that
    pointer (the checks trace it) until the asm writes its registers. The
    registers are SSA values in an asm without labels or branches, i32
    allocas (address space 5) of the function in one with them; the ones
    the text names itself (M0, VCC, s0, ...) live in such allocas across
    the function's asm statements. An asm the emulator cannot run is an
    error at the op naming the chip and, for an instruction, its text and
    line in the asm: one the assembler rejects for the chip or one with no
    semantics here, another constraint, a register the text names that
    overlaps an operand's, a write of exec, a branch to no label of the
    asm, a buffer resource that is not an operand.

    LDS integer addresses. An `llvm.inttoptr` of a kernel to address space
    3 (an asm's LDS addresses too) becomes the LDS block's address plus
    the difference of the integer's and the block address's low 32 bits:
    an emulated LDS address is a host address, and `ptrtoint` of an LDS
    pointer to i32 keeps its low 32 bits (the tensor data mover reads its
    LDS address field the same way).

    Address spaces. Every `!llvm.ptr<N>` anywhere in the module (values,
    block arguments, function types, nested in structs or vectors, type
    attributes) becomes `!llvm.ptr`; globals move to address space 0;
    `llvm.addrspacecast` becomes its operand. Private allocas stay allocas.

    Not handled yet, each an error naming the operation: any other ROCDL op
    (sparse and scaled MFMA/WMMA (smfmac, swmmac, f8f6f4), CDNA1/2-only
    MFMA shapes, gfx1250 WMMA, DPP and swizzle moves, named barriers), wave64 WMMA forms, MFMA with
    non-constant cbsz/abid/blgp, MFMA fp8/bf8 when the chip is unknown, an
    LDS DMA whose size or offset is not a constant, a
    readlane of a value that is not 32 bits or less or a
    whole number of words, buffer accesses wider than 16 bytes, a call of
    any other `llvm.amdgcn.*` intrinsic or of a `__ockl_`/`__ocml_`
    device-library function (but the printf ABI gpu.printf becomes,
    `__ockl_printf_begin`, `_append_string_n` and `_append_args`, which the
    emulator's launch table provides and leaves as calls), pointers in address spaces 7 or 9 (buffer
    fat and strided pointers), and ids, collectives, buffer ops or LDS
    addresses used outside a kernel (device functions would need the
    context threaded through their calls).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernels were compiled for (e.g. gfx950); when "
           "empty, the gpu.module's #rocdl.target, if any. MFMA fp8/bf8 "
           "formats depend on it, and inline asm is assembled for it.">,
    Option<"checkAlignment", "check-alignment", "bool", /*default=*/"true",
           "Check that every kernel access to flat, global, constant or LDS "
           "memory is as aligned as its code declares (see Alignment).">,
    Option<"emuCheck", "check", "std::string", /*default=*/"\"\"",
           "The emulator's checks to compile in (see Checks): a comma list "
           "of bounds (or bounds=strict), race, init, barrier, or all. Empty: "
           "none, the code is "
           "unchanged.">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FLY_CONVERSION_ROCDLTOEMU_PASSES_TD
