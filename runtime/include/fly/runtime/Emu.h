/*===- Emu.h - The CPU emulator's C ABI ----------------------------*- C -*-===*
 *
 * The emulator runs a kernel compiled for an AMD chip on the CPU
 * (SPEC.md §9, DESIGN-NOTES.md §3). A compiler pass rewrites the kernel's
 * stage-A output into host code that calls this header's functions; this
 * header is the whole contract between that generated code and the runtime
 * in runtime/emu/. It is plain C: no MLIR, no LLVM, no C++ types.
 *
 * Execution model
 *   - Every work-item is a fiber with its own small stack. The kernel entry
 *     is called once per work-item:  void kernel(FlyEmuContext *, void *args)
 *     where `args` is passed through untouched from the launch: the
 *     launch's parameter array (`void **`, one pointer per kernel argument,
 *     as hipModuleLaunchKernel and the launch table take it), which the
 *     entries that convert-rocdl-to-emu generates read their arguments from.
 *   - A workgroup's fibers all run on one OS thread, switching only at
 *     barriers, wave collectives, and exit. Straight-line code between those
 *     points runs as native host code, one work-item after the other.
 *   - Workgroups of a grid run in parallel on a thread pool.
 *
 * Barrier semantics (s_barrier)
 *   The hardware barrier counts waves, and a wave that has ended (s_endpgm)
 *   no longer counts. The emulator counts work-items the same way: a barrier
 *   releases when every work-item of the workgroup that has not returned
 *   from the kernel is parked at a barrier. A work-item that returned never
 *   blocks a barrier. Barriers are counted, not named: a barrier reached in
 *   divergent control flow (undefined on the GPU) releases with whatever
 *   barrier the other work-items are parked at.
 *
 * Wave collectives (readlane, ds_bpermute, ballot, ...)
 *   Work-items form waves of `wave_size` by flat work-item id (x fastest),
 *   as the hardware does. A collective parks its lane until every live lane
 *   of the wave is parked (at this collective or at a barrier); then it is
 *   computed once with EXEC = the lanes parked at the collective, and those
 *   lanes resume with their results. Lanes that returned from the kernel,
 *   lanes parked at a barrier (they took another path) and the missing lanes
 *   of a partial last wave are inactive (EXEC bit 0). Lanes of one wave
 *   parked at two *different* kinds of collective is a kernel error (trap).
 *
 * Errors
 *   Generated code calls fly_emu_trap for a fault it detects (say an
 *   out-of-bounds buffer access). The launch stops (no new workgroups start,
 *   running ones stop at their next switch point) and fly_emu_launch returns
 *   the message; the process lives on. A work-item that runs off its fiber
 *   stack hits a guard zone and is reported the same way, as a stack
 *   overflow.
 *
 *   Invalid memory accesses of kernel code are reported the same way too:
 *   a SIGSEGV or SIGBUS raised by the processor while a work-item runs
 *   kernel code (including C library functions such as memcpy that the
 *   kernel calls, and the runtime's buffer accesses made for it; not the
 *   runtime's barrier and wave code) stops the launch with
 *     kernel fault in workgroup (x,y,z), work-item (x,y,z): invalid memory
 *     access (SIGSEGV) at address 0x...: nothing is mapped there
 *   The address is the one the processor reports (si_addr): the address of
 *   the access, or of its first inaccessible byte when it straddles pages.
 *   What is detected is an access that hits
 *   unmapped memory (an index far out of bounds, a null or garbage
 *   pointer) or memory whose protection forbids it (a store to read-only
 *   data, any access to a guard page). A general-protection fault, such as
 *   an address beyond the 47-bit user address space, is reported without
 *   an address (the processor gives none). What cannot be detected: an
 *   out-of-bounds access that lands in memory the process has mapped
 *   (the next array, the heap, another work-item's stack) reads or writes
 *   it silently, exactly as the host code would. An integer division by
 *   zero, or of the most negative value by -1 (undefined in LLVM IR; the
 *   GPU gives an unspecified value, x86-64 raises SIGFPE), is reported as
 *     kernel fault in workgroup (x,y,z), work-item (x,y,z): integer
 *     division by zero, or of the most negative value by -1 (SIGFPE): ...
 *   The handlers (SIGSEGV, SIGBUS and SIGFPE, installed at the first
 *   launch, on a per-thread alternate signal stack) pass every other fault, a fault of the runtime's own code or of
 *   a thread that runs no work-item, to the handler installed before them
 *   (Python's faulthandler, say) or to the default action.
 *
 *   A trapped or faulting work-item's stack is abandoned, not unwound, and
 *   so is its workgroup: host code must not hold locks or resources across
 *   these calls, and a fault inside a C library function that holds a lock
 *   (malloc, stdio) leaves it held.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FLY_RUNTIME_EMU_H
#define FLY_RUNTIME_EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The per-work-item context. Generated code reads the id fields with plain
 * loads: the byte offsets below are part of the ABI (checked by
 * static_asserts in the runtime), as is the 88-byte size on LP64. The
 * `runtime` pointer is private to the runtime. The context lives as long
 * as its work-item; it is not shared between work-items.
 *
 * `dispatch_packet` is what llvm.amdgcn.dispatch.ptr gives a kernel: the
 * 64 bytes of an HSA kernel dispatch packet (hsa_kernel_dispatch_packet_t)
 * with the fields a kernel reads filled in -- workgroup_size_{x,y,z} (u16
 * at 4, 6, 8), grid_size_{x,y,z} in work-items (u32 at 12, 16, 20: the
 * grid in workgroups times the block) and group_segment_size (u32 at 28:
 * the launch's LDS bytes); the rest is zero. The compiler reads the block
 * and grid dimensions from it (the device library's way, without the
 * device library). */
typedef struct FlyEmuContext {
  uint32_t work_item_id[3];   /*  0: workitem.id.{x,y,z}                   */
  uint32_t workgroup_id[3];   /* 12: workgroup.id.{x,y,z}                  */
  uint32_t workgroup_size[3]; /* 24: block dims                            */
  uint32_t grid_size[3];      /* 36: grid dims, in workgroups              */
  uint32_t flat_work_item_id; /* 48: x + y*bx + z*bx*by                    */
  uint32_t lane_id;           /* 52: flat_work_item_id % wave_size (mbcnt) */
  uint32_t wave_id;           /* 56: flat_work_item_id / wave_size         */
  uint32_t wave_size;         /* 60: 32 or 64                              */
  void *lds;                  /* 64: this workgroup's LDS (addrspace 3)    */
  void *runtime;              /* 72: private                               */
  const void *dispatch_packet; /* 80: see above                           */
} FlyEmuContext;

/* A kernel as the compiler-side pass emits it. */
typedef void (*FlyEmuKernelFn)(FlyEmuContext *ctx, void *args);

/* ---- Called by generated code ------------------------------------------ */

/* Ids as calls, for code that prefers them to loads from the context.
 * `dim` is 0, 1 or 2. */
uint32_t fly_emu_work_item_id(const FlyEmuContext *ctx, uint32_t dim);
uint32_t fly_emu_workgroup_id(const FlyEmuContext *ctx, uint32_t dim);
uint32_t fly_emu_workgroup_size(const FlyEmuContext *ctx, uint32_t dim);
uint32_t fly_emu_grid_size(const FlyEmuContext *ctx, uint32_t dim);
/* The base of the workgroup's LDS: an LDS global at offset `o` (address
 * space 3) becomes `(char *)fly_emu_lds_base(ctx) + o`. 64-byte aligned,
 * uninitialised as on the hardware. */
void *fly_emu_lds_base(const FlyEmuContext *ctx);

/* s_barrier: see "Barrier semantics" above. */
void fly_emu_barrier(FlyEmuContext *ctx);

/* Wave collectives: see "Wave collectives" above. 32-bit values travel as
 * their bits (generated code bitcasts floats). */
/* v_readlane_b32: the value of lane `lane` (the lane select's low
 * log2(wave_size) bits). An inactive source lane gives 0 (hardware: its
 * stale VGPR). */
uint32_t fly_emu_readlane(FlyEmuContext *ctx, uint32_t value, uint32_t lane);
/* v_readfirstlane_b32: the value of the lowest active lane. */
uint32_t fly_emu_readfirstlane(FlyEmuContext *ctx, uint32_t value);
/* ds_bpermute_b32 (llvm.amdgcn.ds.bpermute): a lane pulls `value` from lane
 * ((addr >> 2) mod wave_size): the byte address is divided by 4 and its high
 * bits are ignored, so indices past the wave wrap around. An inactive source
 * lane gives 0 (EXEC applies to the source reads). */
uint32_t fly_emu_ds_bpermute(FlyEmuContext *ctx, uint32_t addr, uint32_t value);
/* ds_swizzle_b32 (llvm.amdgcn.ds.swizzle): a lane pulls `value` from the lane
 * the offset field picks: a permute within each quad (offset[15:8] = 0x80)
 * or and/or/xor masks on the lane number within each 32 lanes (offset[15] =
 * 0). The rotate and FFT encodings trap (not emulated). An inactive source
 * lane gives 0. */
uint32_t fly_emu_ds_swizzle(FlyEmuContext *ctx, uint32_t value, uint32_t offset);
/* llvm.amdgcn.ballot (v_cmp writing an SGPR mask): bit i is set when lane i
 * is active and its `predicate` is nonzero. Wave32 leaves bits 32..63 zero. */
uint64_t fly_emu_ballot(FlyEmuContext *ctx, uint32_t predicate);
/* llvm.amdgcn.update.dpp on a 32-bit value (V_MOV_B32 with DPP): each lane
 * reads `src` of the lane the DPP control selects (runtime/emu/WaveOps.cpp
 * lists them); `control` is dpp_ctrl [8:0] | row_mask [12:9] | bank_mask
 * [16:13] | bound_ctrl [17]. A lane masked off by row_mask/bank_mask keeps
 * `old`; an out-of-range or inactive source gives 0 with bound_ctrl, else
 * `old`. A dpp_ctrl that is no control traps. */
uint32_t fly_emu_update_dpp(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                            uint32_t control);
/* The fields of fly_emu_update_dpp's `control`. */
#define FLY_EMU_DPP_CTRL(x) ((uint32_t)(x) & 0x1FFu)                 /* [8:0]   */
#define FLY_EMU_DPP_ROW_MASK_SHIFT 9                                /* [12:9]  */
#define FLY_EMU_DPP_BANK_MASK_SHIFT 13                              /* [16:13] */
#define FLY_EMU_DPP_ROW_MASK(x) (((uint32_t)(x) & 0xFu) << FLY_EMU_DPP_ROW_MASK_SHIFT)
#define FLY_EMU_DPP_BANK_MASK(x) (((uint32_t)(x) & 0xFu) << FLY_EMU_DPP_BANK_MASK_SHIFT)
#define FLY_EMU_DPP_BOUND_CTRL 0x20000u                             /* [17]    */
/* llvm.amdgcn.permlanex16 (gfx10+): lane i reads `src` of lane sel of the
 * other 16-lane row of its 32 lanes, sel = nibble (i mod 16) of
 * sel_hi:sel_lo; `flags` = fi [0] | bound_ctrl [1]. An inactive source gives
 * 0 with bound_ctrl, else `old`. */
uint32_t fly_emu_permlanex16(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                             uint32_t sel_lo, uint32_t sel_hi, uint32_t flags);
/* The `flags` bits of the permlane functions. */
#define FLY_EMU_PERMLANE_FI 0x1u         /* fetch inactive                 */
#define FLY_EMU_PERMLANE_BOUND_CTRL 0x2u /* an invalid source gives 0      */
#define FLY_EMU_PERMLANE_SWAP_32 0x4u    /* permlane_swap: 32-lane blocks  */
/* llvm.amdgcn.permlane16.swap / permlane32.swap (gfx950): the odd 16-lane
 * (32-lane with flags bit 2) blocks of `old` (the destination) and the even
 * blocks of `src` trade places; returns new old | new src << 32. `flags` =
 * fi [0] | bound_ctrl [1] | 32-lane blocks [2]. */
uint64_t fly_emu_permlane_swap(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                               uint32_t flags);

/* ---- Buffer resources (V#) ------------------------------------------------
 *
 * A buffer resource (llvm.amdgcn.make.buffer.rsrc, a `ptr addrspace(8)` in
 * the kernel) becomes a pointer to this descriptor, which generated code
 * builds in the work-item's stack frame. Raw buffer accesses
 * (llvm.amdgcn.raw.ptr.buffer.*) address base + voffset + soffset (byte
 * offsets, unsigned) and are range-checked against num_records, in bytes:
 *   - an access of 4 bytes or more is checked per dword: dword i is in range
 *     when its 4 bytes lie below num_records;
 *   - a narrower access is in range when all of its bytes lie below
 *     num_records.
 * Out-of-range dwords read as 0 and are not written: that is what makes
 * buffer accesses usable for predication-free borders (SPEC §4). The raw
 * ops take no index, so only raw resources (stride 0) are emulated; a
 * nonzero stride traps. The flags word (data format, OOB select,
 * cache policy) is kept but has no effect on the host. */
typedef struct FlyEmuBufferResource {
  void *base;           /*  0 */
  uint64_t num_records; /*  8: bytes                                       */
  uint32_t stride;      /* 16: bytes per record; only 0 is emulated        */
  uint32_t flags;       /* 20                                              */
} FlyEmuBufferResource; /* 24 bytes on LP64 (ABI, like FlyEmuContext)      */

/* Loads `bytes` (1..16) at the resource's voffset + soffset into `dst`,
 * zero for the out-of-range part. */
void fly_emu_buffer_load(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                         uint32_t voffset, uint32_t soffset, uint32_t bytes,
                         void *dst);
/* Stores the in-range part of `bytes` (1..16) from `src`. */
void fly_emu_buffer_store(FlyEmuContext *ctx, const FlyEmuBufferResource *rsrc,
                          uint32_t voffset, uint32_t soffset, uint32_t bytes,
                          const void *src);
/* The address a buffer atomic of `bytes` operates on: the element's when it
 * is wholly in range, else a zeroed scratch slot of the calling OS thread
 * (so an out-of-range atomic returns 0 and changes no memory). */
void *fly_emu_buffer_atomic_address(FlyEmuContext *ctx,
                                    const FlyEmuBufferResource *rsrc,
                                    uint32_t voffset, uint32_t soffset,
                                    uint32_t bytes);

/* ---- LDS loads --------------------------------------------------------------
 *
 * The loads to LDS (rocdl.raw.ptr.buffer.load.lds, rocdl.global.load.lds)
 * need nothing of their own: generated code reads M0 (the destination
 * pointer of the wave's first active lane, fly_emu_readfirstlane) and has
 * each lane write LDS at M0 + offset + lane_id * size, from a range-checked
 * fly_emu_buffer_load (out-of-range dwords write 0) or a copy of global
 * memory.
 *
 * ds_read_b64_tr_b4/_b8/_b16 and ds_read_b96_tr_b6 (gfx950) are wave
 * collectives (see "Wave collectives"): each lane reads `bytes` (8, or 12
 * with 6-bit elements) at `addr`; within each row of 16 lanes, lane t
 * receives elements t, t + 16, ... of the row's `element_bits`-bit elements
 * taken lane after lane (runtime/emu/LdsLoads.cpp), written to `dst`. Lanes
 * of one wave that pass different forms trap. */
void fly_emu_ds_read_tr(FlyEmuContext *ctx, const void *addr,
                        uint32_t element_bits, uint32_t bytes, void *dst);

/* ---- Matrix instructions (MFMA, WMMA) --------------------------------------
 *
 * v_mfma_* and v_wmma_* are wave collectives (see "Wave collectives"): each
 * lane passes its own A, B and C registers and receives its D registers;
 * D = A * B + C is computed once per wave, from the ISA's register layouts
 * (which lane and register hold which matrix element, written as formulas
 * in runtime/emu/Matrix.cpp), when every live lane of the wave has arrived.
 * The operands are the registers' bytes in memory as the LLVM vectors hold
 * them (element 0 in the lowest bits of the first dword; 4-bit elements
 * two to a byte, low nibble first): `a`, `b`, `c` and `d` point to buffers
 * of the instruction's operand sizes in the calling lane's frame; `d` may
 * be `c`.
 *
 * Every lane of the wave must take part: a lane that returned, waits at a
 * barrier, or is missing from a partial last wave makes the instruction
 * undefined on the hardware, and the emulator traps. So do lanes of one
 * wave that pass different instructions or controls, an instruction run
 * with the wrong wave size (MFMA needs wave64, the WMMA forms here wave32),
 * nonzero cbsz/abid/blgp (broadcast and lane-group controls, not emulated),
 * and, for gfx11 WMMA, A or B registers that differ between the two halves
 * of the wave (the ISA requires them replicated).
 *
 * Arithmetic: D = A * B + C is formed as if exactly (double products and a
 * compensated sum, Matrix.cpp) and rounded once, to nearest even, to D's
 * type; f32 for f16, bf16, xf32 and fp8/bf8 inputs, f64 for f64, i32 for
 * i8/iu8/iu4 (wrapping, or saturating with the WMMA clamp bit). xf32 inputs
 * are f32 values truncated to 10 mantissa bits (TF32, rounded toward zero,
 * as CDNA3 hardware does) before the products. The hardware's own order
 * and precision of the additions are not documented; test_emu_matrix.py
 * says what it assumes and allows. */
typedef enum FlyEmuMatrixOp {
  /* CDNA3 MFMA (gfx942; gfx950 has them too), wave64. The LLVM names of the
   * multi-block forms omit the block count (mfma.f32.32x32x1f32 is
   * v_mfma_f32_32x32x1_2b_f32), and the bf16 ones are the `_1k` forms. */
  FLY_EMU_MFMA_F32_32X32X1_2B_F32 = 1,
  FLY_EMU_MFMA_F32_16X16X1_4B_F32 = 2,
  FLY_EMU_MFMA_F32_4X4X1_16B_F32 = 3,
  FLY_EMU_MFMA_F32_32X32X2_F32 = 4,
  FLY_EMU_MFMA_F32_16X16X4_F32 = 5,
  FLY_EMU_MFMA_F32_32X32X4_2B_F16 = 6,
  FLY_EMU_MFMA_F32_16X16X4_4B_F16 = 7,
  FLY_EMU_MFMA_F32_4X4X4_16B_F16 = 8,
  FLY_EMU_MFMA_F32_32X32X8_F16 = 9,
  FLY_EMU_MFMA_F32_16X16X16_F16 = 10,
  FLY_EMU_MFMA_F32_32X32X4_2B_BF16 = 11,
  FLY_EMU_MFMA_F32_16X16X4_4B_BF16 = 12,
  FLY_EMU_MFMA_F32_4X4X4_16B_BF16 = 13,
  FLY_EMU_MFMA_F32_32X32X8_BF16 = 14,
  FLY_EMU_MFMA_F32_16X16X16_BF16 = 15,
  FLY_EMU_MFMA_I32_32X32X4_2B_I8 = 16,
  FLY_EMU_MFMA_I32_16X16X4_4B_I8 = 17,
  FLY_EMU_MFMA_I32_4X4X4_16B_I8 = 18,
  FLY_EMU_MFMA_I32_32X32X16_I8 = 19,
  FLY_EMU_MFMA_I32_16X16X32_I8 = 20,
  FLY_EMU_MFMA_F64_16X16X4_F64 = 21,
  FLY_EMU_MFMA_F64_4X4X4_4B_F64 = 22,
  FLY_EMU_MFMA_F32_16X16X8_XF32 = 23,
  FLY_EMU_MFMA_F32_32X32X4_XF32 = 24,
  /* fp8/bf8: FNUZ (E4M3FNUZ, E5M2FNUZ) on gfx942, OCP (E4M3FN, E5M2) with
   * FLY_EMU_MATRIX_OCP_FP8 on gfx950. A_B: A's format, then B's. */
  FLY_EMU_MFMA_F32_16X16X32_FP8_FP8 = 25,
  FLY_EMU_MFMA_F32_16X16X32_FP8_BF8 = 26,
  FLY_EMU_MFMA_F32_16X16X32_BF8_FP8 = 27,
  FLY_EMU_MFMA_F32_16X16X32_BF8_BF8 = 28,
  FLY_EMU_MFMA_F32_32X32X16_FP8_FP8 = 29,
  FLY_EMU_MFMA_F32_32X32X16_FP8_BF8 = 30,
  FLY_EMU_MFMA_F32_32X32X16_BF8_FP8 = 31,
  FLY_EMU_MFMA_F32_32X32X16_BF8_BF8 = 32,
  /* CDNA4 (gfx950) only: CDNA3's layouts with twice the K per lane. */
  FLY_EMU_MFMA_F32_16X16X32_F16 = 33,
  FLY_EMU_MFMA_F32_32X32X16_F16 = 34,
  FLY_EMU_MFMA_F32_16X16X32_BF16 = 35,
  FLY_EMU_MFMA_F32_32X32X16_BF16 = 36,
  FLY_EMU_MFMA_I32_16X16X64_I8 = 37,
  FLY_EMU_MFMA_I32_32X32X32_I8 = 38,
  /* RDNA3 (gfx11) WMMA, wave32: A and B replicated in lanes 0-15 and
   * 16-31; a 16-bit D fills one half of each of 8 registers, the low one or
   * (FLY_EMU_MATRIX_OPSEL) the high one; the other half is C's. */
  FLY_EMU_WMMA11_F32_16X16X16_F16 = 40,
  FLY_EMU_WMMA11_F32_16X16X16_BF16 = 41,
  FLY_EMU_WMMA11_F16_16X16X16_F16 = 42,
  FLY_EMU_WMMA11_BF16_16X16X16_BF16 = 43,
  FLY_EMU_WMMA11_I32_16X16X16_IU8 = 44,
  FLY_EMU_WMMA11_I32_16X16X16_IU4 = 45,
  /* RDNA4 (gfx12) WMMA, wave32; fp8/bf8 are OCP (E4M3FN, E5M2). */
  FLY_EMU_WMMA12_F32_16X16X16_F16 = 50,
  FLY_EMU_WMMA12_F32_16X16X16_BF16 = 51,
  FLY_EMU_WMMA12_F16_16X16X16_F16 = 52,
  FLY_EMU_WMMA12_BF16_16X16X16_BF16 = 53,
  FLY_EMU_WMMA12_I32_16X16X16_IU8 = 54,
  FLY_EMU_WMMA12_I32_16X16X16_IU4 = 55,
  FLY_EMU_WMMA12_I32_16X16X32_IU4 = 56,
  FLY_EMU_WMMA12_F32_16X16X16_FP8_FP8 = 57,
  FLY_EMU_WMMA12_F32_16X16X16_FP8_BF8 = 58,
  FLY_EMU_WMMA12_F32_16X16X16_BF8_FP8 = 59,
  FLY_EMU_WMMA12_F32_16X16X16_BF8_BF8 = 60,
  /* gfx1250 WMMA, wave32: A and B split K between the lane halves in runs
   * of 8 elements (16x16x4 f32: runs of 2); C and D as RDNA4's; fp8/bf8
   * are OCP. */
  FLY_EMU_WMMA1250_F32_16X16X4_F32 = 70,
  FLY_EMU_WMMA1250_F32_16X16X32_F16 = 71,
  FLY_EMU_WMMA1250_F32_16X16X32_BF16 = 72,
  FLY_EMU_WMMA1250_F16_16X16X32_F16 = 73,
  FLY_EMU_WMMA1250_BF16_16X16X32_BF16 = 74,
  FLY_EMU_WMMA1250_I32_16X16X64_IU8 = 75,
  FLY_EMU_WMMA1250_F32_16X16X64_FP8_FP8 = 76,
  FLY_EMU_WMMA1250_F32_16X16X64_FP8_BF8 = 77,
  FLY_EMU_WMMA1250_F32_16X16X64_BF8_FP8 = 78,
  FLY_EMU_WMMA1250_F32_16X16X64_BF8_BF8 = 79,
  FLY_EMU_WMMA1250_F16_16X16X64_FP8_FP8 = 80,
  FLY_EMU_WMMA1250_F16_16X16X64_FP8_BF8 = 81,
  FLY_EMU_WMMA1250_F16_16X16X64_BF8_FP8 = 82,
  FLY_EMU_WMMA1250_F16_16X16X64_BF8_BF8 = 83,
  FLY_EMU_WMMA1250_F32_16X16X128_FP8_FP8 = 84,
  FLY_EMU_WMMA1250_F32_16X16X128_FP8_BF8 = 85,
  FLY_EMU_WMMA1250_F32_16X16X128_BF8_FP8 = 86,
  FLY_EMU_WMMA1250_F32_16X16X128_BF8_BF8 = 87,
  FLY_EMU_WMMA1250_F16_16X16X128_FP8_FP8 = 88,
  FLY_EMU_WMMA1250_F16_16X16X128_FP8_BF8 = 89,
  FLY_EMU_WMMA1250_F16_16X16X128_BF8_FP8 = 90,
  FLY_EMU_WMMA1250_F16_16X16X128_BF8_BF8 = 91,
  /* gfx950's scaled MFMA, through fly_emu_matrix_scale: A's and B's
   * formats are cbsz and blgp (FlyEmuMatrixFormat: 0 fp8 E4M3FN, 1 bf8 E5M2,
   * 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1; 32 values a lane packed at their
   * width), each value
   * times 2^(e - 127) of the E8M0 byte e of its lane's scale that opsel
   * picks (0xFF: NaN). */
  FLY_EMU_MFMA_SCALE_F32_16X16X128_F8F6F4 = 100,
  FLY_EMU_MFMA_SCALE_F32_32X32X64_F8F6F4 = 101,
  /* gfx1250's MX-scaled WMMA, through fly_emu_matrix_scale, wave32: the
   * formats as the MFMA's (matrix_a_fmt, matrix_b_fmt), 64 values a lane
   * in runs of 16 (8-bit) or 32 (6- and 4-bit) of K, lanes 0-15 the even
   * runs. A value of row (column) i in K block j is times the E8M0 byte j
   * of the scale of lane i (OPSEL_A/B 0) or 16 + i (1): blocks of 32
   * values, four bytes to a scale (the low 32 bits); SCALE16: of 16, eight
   * bytes to a scale. */
  FLY_EMU_WMMA1250_SCALE_F32_16X16X128_F8F6F4 = 102,
  FLY_EMU_WMMA1250_SCALE16_F32_16X16X128_F8F6F4 = 103,
  /* Its fp4-only 32x16x128 form (the formats must be fp4, 4): A is two
   * 16-row halves of 64 values a lane each (rows 16-31 in bytes 32-63),
   * each as above; C and D two 16x16 accumulators (rows 16-31 in elements
   * 8-15); the scales of A's 32 rows fill the wave (row i in lane i,
   * OPSEL_A 0), B's as above. */
  FLY_EMU_WMMA1250_SCALE_F32_32X16X128_F4 = 104,
  FLY_EMU_WMMA1250_SCALE16_F32_32X16X128_F4 = 105
} FlyEmuMatrixOp;

/* The `control` word: the instruction's modifiers. */
#define FLY_EMU_MATRIX_CBSZ(x) ((uint32_t)(x) & 0xFu)         /* MFMA cbsz */
#define FLY_EMU_MATRIX_ABID(x) (((uint32_t)(x) & 0xFu) << 4)  /* MFMA abid */
#define FLY_EMU_MATRIX_BLGP(x) (((uint32_t)(x) & 0xFu) << 8)  /* MFMA blgp */
#define FLY_EMU_MATRIX_OPSEL 0x10000u  /* gfx11 16-bit D: the high halves  */
#define FLY_EMU_MATRIX_SIGN_A 0x20000u /* iu8/iu4: A is signed             */
#define FLY_EMU_MATRIX_SIGN_B 0x40000u /* iu8/iu4: B is signed             */
#define FLY_EMU_MATRIX_CLAMP 0x80000u  /* iu8/iu4: saturate D to i32       */
#define FLY_EMU_MATRIX_OCP_FP8 0x100000u /* MFMA fp8/bf8 are OCP (gfx950) */
#define FLY_EMU_MATRIX_OPSEL_A(x) (((uint32_t)(x) & 3u) << 12) /* scaled MMA */
#define FLY_EMU_MATRIX_OPSEL_B(x) (((uint32_t)(x) & 3u) << 14) /* scaled MMA */

/* The formats of a scaled MMA's A and B: its cbsz and blgp fields. */
typedef enum FlyEmuMatrixFormat {
  FLY_EMU_FORMAT_FP8 = 0, /* E4M3FN */
  FLY_EMU_FORMAT_BF8 = 1, /* E5M2   */
  FLY_EMU_FORMAT_FP6 = 2, /* E2M3   */
  FLY_EMU_FORMAT_BF6 = 3, /* E3M2   */
  FLY_EMU_FORMAT_FP4 = 4  /* E2M1   */
} FlyEmuMatrixFormat;

/* One matrix instruction `op` (a FlyEmuMatrixOp) for this lane. */
void fly_emu_matrix(FlyEmuContext *ctx, uint32_t op, uint32_t control,
                    const void *a, const void *b, const void *c, void *d);
/* A scaled MFMA or WMMA: the same with this lane's scales of A and B
 * (32-bit ones zero-extended). */
void fly_emu_matrix_scale(FlyEmuContext *ctx, uint32_t op, uint32_t control,
                          const void *a, const void *b, const void *c, void *d,
                          uint64_t scale_a, uint64_t scale_b);

/* ---- Tensor data mover (gfx1250) -------------------------------------------
 *
 * tensor_load_to_lds / tensor_store_from_lds (llvm.amdgcn.tensor.*, and
 * their .d2 forms) copy a tile of up to 5 dimensions between global memory
 * and LDS as the instruction's descriptor (D#) says: global address, LDS
 * address, element size, per dimension the tensor extent, the tile extent
 * and the stride (elements; dimension 0 is contiguous), LDS padding. The
 * tile is packed in LDS in element order (dimension 0 fastest); with
 * padding, pad-amount dwords are skipped after every pad-interval dwords.
 * An element at or past a tensor extent is out of range: a load writes 0
 * to its LDS place, a store skips it. A predicate field of 0 makes the
 * instruction do nothing. `groups` points to the 20 dwords of groups 0 to
 * 3 (groups 2 and 3 zero for the .d2 forms, FLY_EMU_TENSOR_D2, which use
 * two dimensions at most); a dimension whose tile extent is 0 is not used.
 * Gather/scatter, iterate mode, the atomic barrier and cluster multicast
 * trap (not emulated); so does an LDS address past the launch's LDS.
 * The LDS address field is read as the low 32 bits of an address in the
 * workgroup's LDS (an emulated LDS address is a host address).
 *
 * The instruction runs once per wave, with the descriptor of the wave's
 * lowest active lane (the hardware reads it from SGPRs), and completes
 * before any lane of the wave goes on: s_wait_tensorcnt has nothing to
 * wait for. Every active lane of the wave calls it (a wave collective). */
#define FLY_EMU_TENSOR_STORE 1u /* LDS -> global; else global -> LDS */
#define FLY_EMU_TENSOR_D2 2u    /* the two-group (.d2) form           */
#define FLY_EMU_TENSOR_GROUP_DWORDS 20u /* groups 0-3: 4 + 8 + 4 + 4   */
void fly_emu_tensor(FlyEmuContext *ctx, uint32_t flags, const uint32_t *groups);

/* A fault detected by the kernel: stops the launch, which returns an error
 * naming the work-item and `message`. Never returns. */
#ifdef __GNUC__
__attribute__((noreturn))
#endif
void fly_emu_trap(FlyEmuContext *ctx, const char *message);

/* A load, store or atomic in flat, global, constant or LDS memory whose
 * address is not a multiple of the alignment its code declares (the IR's
 * `align`, by which the backend chose the instruction: on the GPU a wrong
 * result or a fault, in LLVM IR undefined behaviour, and silently fine on
 * the host). convert-rocdl-to-emu checks every such access of a kernel and
 * calls this on a misaligned one: the launch stops as with fly_emu_trap,
 * with `what` (the access and its source location, from the compiler), the
 * address (for LDS: its offset in the workgroup's LDS) and `align`. Never
 * returns. */
#ifdef __GNUC__
__attribute__((noreturn))
#endif
void fly_emu_trap_misaligned(FlyEmuContext *ctx, const char *what,
                             const void *address, uint64_t align);

/* ---- Checked emulation (the emulator as a sanitizer) ---------------------
 *
 * With checks compiled in (convert-rocdl-to-emu's `check` option, from
 * FLYDSL_EMU_CHECK or the `emu_check` compile hint), the code object's
 * FLY_EMU_CHECKS_GLOBAL holds the FLY_EMU_CHECK_* bits it was compiled with,
 * and the launch turns them on; without it (the default) the generated code
 * has no check and the runtime does none.
 *
 *   bounds   every load, store and atomic of a kernel in global (flat,
 *            global, constant) or LDS memory, and each lane's read of a
 *            transposing LDS read (fly_emu_ds_read_tr), is preceded by
 *            fly_emu_check_access. A global access is out of bounds when
 *            its bytes are not all inside the extent of the tensor its
 *            address derives from (the site's kernel argument, when the
 *            compiler could trace the address back to one), or, with no
 *            such argument, inside no tensor of the launch. The extents
 *            are the ones fly_emu_set_tensor_extents gave the calling
 *            thread; a kernel argument that points into none of them
 *            (memory the launch did not describe) is not checked, nor is
 *            any global access when none were given. The global source
 *            of an LDS DMA (global -> LDS) is traced like any address.
 *            An LDS access whose address the compiler traces to one LDS
 *            global is out of bounds when it leaves that allocation's
 *            extent (the site's allocation, allocation_offset and
 *            allocation_bytes; the dynamic LDS is one extent, from the end
 *            of the static globals to the end of the LDS), and the report
 *            names the global and the offset from its start; any other
 *            LDS access when it leaves the workgroup's LDS (static plus
 *            dynamic: FlyEmuLaunchConfig.lds_bytes). Buffer-resource (V#)
 *            accesses (loads, stores, atomics, the buffer form of the LDS
 *            DMA; fly_emu_buffer_*_checked) keep the hardware's range
 *            checking with the rule the emulator executes ("Buffer
 *            resources": the byte offset voffset + soffset, soffset
 *            counted, each dword of the access (or the whole access when
 *            narrower) against num_records): a part out of range reads 0
 *            or is dropped and is no error; with bounds=strict
 *            (FLY_EMU_CHECK_BOUNDS_STRICT) each such access is a warning
 *            (below). A part in the V#'s range but outside the tensor the
 *            V#'s base points into (a V# larger than its tensor, e.g. of
 *            4 GiB) is an out-of-bounds report, and is dropped as an
 *            out-of-range part is. A work-item's own memory
 *            (FLY_EMU_SPACE_PRIVATE): an element of a register vector
 *            taken or replaced at an index not below its length
 *            (FLY_EMU_ACCESS_FRAGMENT_*: "out-of-bounds register fragment
 *            read" or "write", detail "index <i>, the fragment has <n>
 *            elements"; a read gives 0, a write is dropped), and an access
 *            through a pointer the compiler traced to one alloca of static
 *            size that leaves its bytes ("out-of-bounds private load of
 *            <b> bytes", store, atomic; detail "private allocation
 *            '<alloca #k at file:line>' byte offset <o>, its extent is <n>
 *            bytes"). The generated code tests these inline and calls
 *            fly_emu_check_access only for an access out of range.
 *   barrier  a barrier releases with work-items of the workgroup parked at
 *            different barriers (different sites: barriers that share a
 *            source line, e.g. a helper's barrier called from two
 *            branches, are sites of their own, located "file:line
 *            (barrier #k of n on that line)" in the kernel's order), or
 *            with lanes of a wave
 *            parked at it while other lanes of that wave have returned
 *            without reaching it (a barrier under a lane-dependent
 *            condition). A wave whose lanes have all returned does not
 *            count, as on the hardware.
 *   init     a load of LDS bytes that no work-item of the workgroup has
 *            written since the workgroup started (per byte: a 2-byte store
 *            initialises those 2 bytes of its word, not the other 2). The
 *            runtime keeps a shadow of the workgroup's LDS, one byte per
 *            LDS byte, cleared when a workgroup starts; the generated code
 *            marks it on every LDS store and atomic (atomics count as
 *            writes, though they read) and tests it inline on every LDS
 *            load (fly_emu_check_shadow, fly_emu_check_uninit). The LDS
 *            writes of LDS-DMA loads (global/buffer load to LDS) and of the
 *            tensor data mover count as writes (fly_emu_check_lds_written).
 *            A flat access the compiler cannot place in LDS or global
 *            memory goes through fly_emu_check_access, which applies the
 *            init check when the address is in the LDS. Not seen: reads of
 *            LDS by the runtime itself (ds_read_tr's transposing reads,
 *            the tensor data mover's LDS -> global stores), LDS written by
 *            llvm.memset/memcpy, and uninitialised registers or private
 *            memory. A report does not change what the load reads.
 *   race     two accesses of one 4-byte LDS word in one barrier interval
 *            (between two releases of the workgroup's barrier) by
 *            work-items of different waves, at least one a store or
 *            atomic and not both atomics; reported at the second (in the
 *            emulator's order) with the first's work-item, line and wave.
 *            Per word: two waves storing different bytes of one word race.
 *            The runtime keeps, per word, the interval's last writer and
 *            two readers (the first, and the first of another wave), each
 *            with its interval, so a race is found whichever access ran
 *            first: the fibers' order does not matter. Accesses by lanes
 *            of one wave are never reported: AMD's wave executes its
 *            instructions in order for all its lanes, so two accesses from
 *            different instructions are ordered, and lanes of one
 *            instruction storing one word is a defined conflict (one
 *            value wins), not a race. (The emulator runs a wave's lanes one
 *            after the other between collectives: a same-wave exchange
 *            through LDS needs a wave collective between its store and load
 *            to give the hardware's values, race check or not.) Every LDS
 *            access calls fly_emu_check_race, and so does each LDS element
 *            of a tensor data mover op (below). Not seen: the LDS writes
 *            of LDS-DMA loads, the runtime's own
 *            LDS reads (ds_read_tr), synchronisation other than s_barrier
 *            (an LDS flag spun on by another wave is reported).
 *
 * A report does not stop the work-item: an out-of-bounds load reads zeros
 * and an out-of-bounds store or atomic goes to a scratch buffer, so the
 * launch runs to its end and the first FLY_EMU_CHECK_MAX_SHOWN reports are
 * returned as the launch's error (the rest counted), in the form
 *   check: <n> reports in kernel <name> (the first <k> shown)
 *   <kind> at <file:line> in workgroup (x,y,z), work-item (x,y,z): <detail>
 *   ...
 *   ... and <m> more
 * one report a line; <kind> is "out-of-bounds load of <b> bytes" (store,
 * atomic; "LDS load" ... for LDS), "uninitialised LDS read of <b> bytes",
 * "LDS race: load of <b> bytes" (store, atomic; the detail ends "the LDS
 * word at offset <w> was stored at <file:line> by work-item (x,y,z)
 * (wave <v>; this is wave <u>) with no barrier between") or "barrier
 * divergence"; a buffer access outside its tensor is "out-of-bounds buffer
 * load of <b> bytes" (store, atomic), its detail naming the tensor as a
 * global report does, then "; inside the range of the buffer resource of
 * tensor '<t>' (...): buffer byte offset <o>, num_records <r>". The detail
 * of an LDS report starts "LDS offset <o>, the workgroup's LDS is <n>
 * bytes", and for an access traced to an LDS global goes on "; LDS
 * allocation '<symbol>' byte offset <k>, its extent is <m> bytes" ("the
 * dynamic LDS, allocation '<symbol>'" for the dynamic LDS).
 *
 * Warnings (bounds=strict) do not fail the launch: one per (kind, site) of
 * a launch, the first access's, counted; after the launch the calling
 * thread's fly_emu_take_warnings gives them, one a line:
 *   kernel <name>: out-of-range buffer load of <b> bytes at <file:line> in
 *   workgroup (x,y,z), work-item (x,y,z): the buffer resource of tensor
 *   '<t>' (its base at the tensor's byte offset <k>) | with base 0x<hex>,
 *   byte offset <o>, num_records <r> (the out-of-range part reads 0 | is
 *   not written)[ (x<count>)]
 * where the byte offset is voffset + soffset (an LDS DMA's offset field
 * added to voffset).
 *
 * The tensor data mover (fly_emu_tensor_checked, with bounds or race):
 * each element's global bytes against the tensor the descriptor's global
 * address points into (bounds: "out-of-bounds tensor data mover load of
 * <b> bytes", store; the element is then out of range), its LDS bytes
 * against the workgroup's LDS (reported, not copied, instead of a trap:
 * "out-of-bounds tensor data mover LDS store", load), and, with race, each
 * LDS element an access of the issuing lane at the op's site (a load to
 * LDS stores there); one bounds report of each kind per instruction.
 *
 * Not seen by any check: private memory through a pointer not traced to
 * one alloca of static size,
 * the LDS writes of LDS-DMA loads (race), spin-wait synchronisation
 * through LDS flags (race reports it), two waves writing different bytes
 * of one word (race reports it: it is per word), and the runtime's own LDS
 * reads (ds_read_tr; the tensor data mover's reads of LDS for init). */
#define FLY_EMU_CHECK_BOUNDS 0x1u
#define FLY_EMU_CHECK_RACE 0x2u
#define FLY_EMU_CHECK_INIT 0x4u
#define FLY_EMU_CHECK_BARRIER 0x8u
/* With FLY_EMU_CHECK_BOUNDS: a buffer access outside its V#'s range is a
 * warning (bounds=strict). */
#define FLY_EMU_CHECK_BOUNDS_STRICT 0x10u
#define FLY_EMU_CHECK_MAX_SHOWN 10u
#define FLY_EMU_CHECKS_GLOBAL "__fly_emu_checks"

/* What a checked access does. */
typedef enum FlyEmuAccessKind {
  FLY_EMU_ACCESS_LOAD = 0,
  FLY_EMU_ACCESS_STORE = 1,
  FLY_EMU_ACCESS_ATOMIC = 2,
  FLY_EMU_ACCESS_BARRIER = 3,
  /* An element of a register vector (a FlyDSL fragment) read or written
   * at a run-time index (extractelement, insertelement): with bounds,
   * fly_emu_check_access(ctx, (void *)index, length, site) reports an
   * index (signed, as the kernel computed it) that is not below the
   * vector's length. Its site's space is FLY_EMU_SPACE_PRIVATE. */
  FLY_EMU_ACCESS_FRAGMENT_READ = 4,
  FLY_EMU_ACCESS_FRAGMENT_WRITE = 5
} FlyEmuAccessKind;

/* The memory a checked access is in. */
#define FLY_EMU_SPACE_GLOBAL 0u
#define FLY_EMU_SPACE_LDS 1u
#define FLY_EMU_SPACE_BUFFER 2u /* through a buffer resource (V#) */
/* A work-item's own memory: an alloca (the site's allocation names it,
 * allocation_bytes is its size; fly_emu_check_access then gets the byte
 * offset from its first byte as `address`), or a register vector
 * (FLY_EMU_ACCESS_FRAGMENT_*). */
#define FLY_EMU_SPACE_PRIVATE 3u

/* A checked site of a kernel, a constant the compiler emits per access. */
typedef struct FlyEmuSite {
  const char *kernel;   /*  0: the kernel's name                           */
  const char *location; /*  8: "file:line" of the access, or ""            */
  uint32_t kind;        /* 16: FlyEmuAccessKind                            */
  uint32_t space;       /* 20: FLY_EMU_SPACE_*                             */
  int32_t argument;     /* 24: the kernel parameter the address derives
                               from (a pointer), or -1                     */
  uint32_t reserved;    /* 28: 0                                           */
  const char *allocation; /* 32: the LDS global an LDS address derives
                               from (its symbol), or NULL                  */
  uint32_t allocation_offset; /* 40: its byte offset in the LDS           */
  uint32_t allocation_bytes;  /* 44: its size; UINT32_MAX: the dynamic LDS,
                               to the end of the workgroup's LDS           */
} FlyEmuSite;           /* 48 bytes on LP64 (ABI)                          */

/* Checks an access of `bytes` at `address`; returns the address to access:
 * `address` when it is in bounds, else a scratch buffer of the calling OS
 * thread (zeroed for a load) after recording the report. */
void *fly_emu_check_access(FlyEmuContext *ctx, void *address, uint64_t bytes,
                           const FlyEmuSite *site);
/* The extent the bounds check holds accesses to, for generated code that
 * tests the common case inline and calls fly_emu_check_access only when an
 * access leaves it: out[0] = first byte, out[1] = one past the last, of the
 * tensor kernel parameter `argument` (a pointer) points into, or of the
 * workgroup's LDS for argument -1; [0, UINT64_MAX) when the parameter
 * points into no tensor of the launch (nothing to check). */
void fly_emu_check_extent(FlyEmuContext *ctx, int32_t argument, uint64_t *out);
/* The init check's shadow of the workgroup's LDS: byte o is 0xFF once LDS
 * byte o was written in this workgroup, else 0; NULL without the check.
 * The same for every work-item of a workgroup (read once per work-item). */
void *fly_emu_check_shadow(FlyEmuContext *ctx);
/* Reports a load of `bytes` at `address` (in the LDS) of which some byte
 * was never written in this workgroup; nothing when all were, or when the
 * access is not inside the LDS. */
void fly_emu_check_uninit(FlyEmuContext *ctx, const void *address,
                          uint64_t bytes, const FlyEmuSite *site);
/* Marks the LDS bytes of [address, address + bytes) written (the part in
 * the workgroup's LDS; nothing without the init check). */
void fly_emu_check_lds_written(FlyEmuContext *ctx, const void *address,
                               uint64_t bytes);
/* The race check of an LDS access of `bytes` at `address` with `site`'s
 * kind: records it and reports a race with an earlier access of this
 * barrier interval (nothing for an address outside the LDS). */
void fly_emu_check_race(FlyEmuContext *ctx, const void *address,
                        uint64_t bytes, const FlyEmuSite *site);
/* The buffer accesses of code compiled with the bounds check: those of
 * fly_emu_buffer_load, _store and _atomic_address ("Buffer resources"),
 * with the range rule those execute, and the bounds check of `site`: a
 * part the V# allows outside the tensor the V#'s base points into is an
 * out-of-bounds report, and is then dropped as an out-of-range part is
 * (a load reads 0, a store writes nothing, an atomic gets the zeroed
 * slot); with FLY_EMU_CHECK_BOUNDS_STRICT, an access with a part out of the
 * V#'s range is also a warning. */
void fly_emu_buffer_load_checked(FlyEmuContext *ctx,
                                 const FlyEmuBufferResource *rsrc,
                                 uint32_t voffset, uint32_t soffset,
                                 uint32_t bytes, void *dst,
                                 const FlyEmuSite *site);
void fly_emu_buffer_store_checked(FlyEmuContext *ctx,
                                  const FlyEmuBufferResource *rsrc,
                                  uint32_t voffset, uint32_t soffset,
                                  uint32_t bytes, const void *src,
                                  const FlyEmuSite *site);
void *fly_emu_buffer_atomic_address_checked(FlyEmuContext *ctx,
                                            const FlyEmuBufferResource *rsrc,
                                            uint32_t voffset, uint32_t soffset,
                                            uint32_t bytes,
                                            const FlyEmuSite *site);
/* fly_emu_tensor of code compiled with the bounds or the race check:
 * `site` is the op's (its kind the LDS side's: a store for a load to LDS).
 * With bounds, an element whose global bytes the descriptor allows but
 * that leave the tensor its global address points into is reported and
 * treated as out of the descriptor's range (a load writes 0 to LDS, a
 * store writes nothing), and an element past the workgroup's LDS is
 * reported and not copied (unchecked, it traps); one report of each kind
 * per instruction. With race, each LDS element is an access of the
 * issuing lane at `site`. */
void fly_emu_tensor_checked(FlyEmuContext *ctx, uint32_t flags,
                            const uint32_t *groups, const FlyEmuSite *site);
/* The warnings of the calling thread's checked launches since the last
 * call, one a line (the form is in "Checked emulation"), "" when there were
 * none; the text stays valid until the thread's next call. */
const char *fly_emu_take_warnings(void);
/* s_barrier with the barrier check: fly_emu_barrier, remembering `site`. */
void fly_emu_barrier_checked(FlyEmuContext *ctx, const FlyEmuSite *site);

/* A tensor of a launch: its bytes [base, base + bytes) and its name. */
typedef struct FlyEmuTensorExtent {
  const void *base;
  uint64_t bytes;
  const char *name;
} FlyEmuTensorExtent;

/* The tensors the calling thread's next checked launches access (copied;
 * count 0 forgets them). */
void fly_emu_set_tensor_extents(const FlyEmuTensorExtent *tensors,
                                uint32_t count);

/* ---- Float conversions of 8- and 4-bit floats ---------------------------- */

/* The packed conversions (rocdl.cvt.*), per lane: their operands' bits
 * zero-extended to 64 in the ROCDL op's order, the result's bits returned.
 * The control word is the op's selector (byte, word or pair index) in its
 * low 8 bits, with FLY_EMU_CVT_OCP for the OCP fp8/bf8 formats (gfx950),
 * else FNUZ (gfx942). Rounding to nearest even, not saturating (fp8/bf8) or
 * saturating (fp4, which has no infinity or NaN). */
typedef enum FlyEmuConvertOp {
  FLY_EMU_CVT_F32_FP8 = 1,         /* byte sel of a -> f32               */
  FLY_EMU_CVT_F32_BF8 = 2,
  FLY_EMU_CVT_PK_F32_FP8 = 3,      /* word sel of a -> 2 x f32           */
  FLY_EMU_CVT_PK_F32_BF8 = 4,
  FLY_EMU_CVT_PK_FP8_F32 = 5,      /* f32 a, b -> word sel of c          */
  FLY_EMU_CVT_PK_BF8_F32 = 6,
  FLY_EMU_CVT_SCALEF32_PK_F32_FP4 = 7,  /* byte sel of a, scale b -> 2 x f32 */
  FLY_EMU_CVT_SCALEF32_PK_BF16_FP4 = 8, /* the same -> 2 x bf16          */
  FLY_EMU_CVT_SCALEF32_PK_FP4_F32 = 9   /* old a, f32 b, c, scale d -> byte sel */
} FlyEmuConvertOp;

#define FLY_EMU_CVT_SEL(x) ((uint32_t)(x) & 0xFFu) /* the op's selector */
#define FLY_EMU_CVT_OCP 0x100u

uint64_t fly_emu_convert(uint32_t op, uint32_t control, uint64_t a,
                         uint64_t b, uint64_t c, uint64_t d);

/* ---- Launch API ---------------------------------------------------------- */

typedef struct FlyEmuLaunchConfig {
  uint32_t grid[3];        /* workgroups per dimension, each >= 1          */
  uint32_t block[3];       /* work-items per dimension, product <= 1024    */
  uint32_t lds_bytes;      /* static + dynamic LDS of one workgroup        */
  uint32_t lds_limit;      /* the chip's LDS per workgroup; 0: 65536       */
  uint32_t wave_size;      /* the chip's: 32 or 64                         */
  uint32_t num_threads;    /* OS threads; 0: the machine's cores           */
  uint32_t stack_bytes;    /* per-fiber stack; 0: FLY_EMU_DEFAULT_STACK    */
  uint32_t checks;         /* FLY_EMU_CHECK_* bits; 0: unchecked            */
  /* The kernel's wave function (below), or NULL: run as fibers. */
  void (*wave_kernel)(struct FlyEmuWave *wave, uint64_t exec, void *args);
} FlyEmuLaunchConfig;

/* 32 KiB: a 1024-work-item workgroup commits at most 32 MiB of stack even if
 * every fiber touches all of its stack (SPEC §12 budget: 64 MiB with LDS).
 * Every stack also has an unmapped guard page below it. */
#define FLY_EMU_DEFAULT_STACK 32768u
#define FLY_EMU_MAX_WORKGROUP_SIZE 1024u
#define FLY_EMU_DEFAULT_LDS_LIMIT 65536u

/* The emulator's code object (a gpu.module compiled to host LLVM bitcode)
 * carries the facts a launch needs as i32 constants with these names: the
 * chip's wave size, the kernels' static LDS bytes and the chip's LDS per
 * workgroup. */
#define FLY_EMU_WAVE_SIZE_GLOBAL "__fly_emu_wave_size"
#define FLY_EMU_STATIC_LDS_GLOBAL "__fly_emu_static_lds_bytes"
#define FLY_EMU_LDS_LIMIT_GLOBAL "__fly_emu_lds_limit"

/* ---- The SIMD mode: waves as vectors --------------------------------------
 *
 * Beside a kernel entry `k`, the compiler may emit its wave function
 * `k.wave` (FLY_EMU_WAVE_SUFFIX): one call runs a whole wave, a per-lane
 * value is a vector of wave-size lanes and `exec` (bit i: lane i) the lanes
 * that run. `wave->lane[i]` is lane i's context, with the ids the fiber of
 * that work-item would have; lane 0's `runtime` is the wave's fiber, so
 * fly_emu_barrier(wave->lane[0]) parks the whole wave. A wave function
 * takes the lanes of a wave to be consecutive work-items of one row (x
 * consecutive, y and z shared): a launch whose block's x size is not a
 * multiple of the wave size runs the per-work-item entry instead. When a
 * kernel has no wave function, the module has the reason as a constant C
 * string named FLY_EMU_WAVE_FALLBACK_PREFIX + `k`, which the runtime logs
 * (FLYDSL_DEBUG_LOG_LEVEL=info) when it runs the kernel's fibers.
 *
 * FLYDSL_EMU_MODE picks the mode of launches through the launch table:
 * `wave` (SIMD where the kernel has a wave function and the block allows
 * it) or `fiber` (one fiber per work-item, always; the default while the
 * SIMD mode is being completed). */
typedef struct FlyEmuWave {
  FlyEmuContext *lane[64];
} FlyEmuWave;
typedef void (*FlyEmuWaveFn)(FlyEmuWave *wave, uint64_t exec, void *args);

/* The wave collectives of the SIMD mode: the per-lane functions above
 * (fly_emu_ds_swizzle, fly_emu_update_dpp, fly_emu_permlanex16,
 * fly_emu_permlane_swap, fly_emu_matrix[_scale]) for the whole wave at
 * once, with the same semantics and errors: an array holds each lane's
 * operand (lane i at index i), the operands every lane agrees on (an
 * instruction's immediates, SGPRs) are scalars, and the lanes in `exec`
 * take part. The matrix form takes each lane's operand pointers; its
 * scales may be NULL (an unscaled instruction). */
void fly_emu_wave_ds_swizzle(FlyEmuWave *wave, uint64_t exec,
                             const uint32_t *value, uint32_t offset,
                             uint32_t *out);
void fly_emu_wave_update_dpp(FlyEmuWave *wave, uint64_t exec,
                             const uint32_t *old, const uint32_t *src,
                             uint32_t control, uint32_t *out);
void fly_emu_wave_permlanex16(FlyEmuWave *wave, uint64_t exec,
                              const uint32_t *old, const uint32_t *src,
                              uint32_t sel_lo, uint32_t sel_hi, uint32_t flags,
                              uint32_t *out);
void fly_emu_wave_permlane_swap(FlyEmuWave *wave, uint64_t exec,
                                const uint32_t *old, const uint32_t *src,
                                uint32_t flags, uint64_t *out);
void fly_emu_wave_matrix(FlyEmuWave *wave, uint64_t exec, uint32_t op,
                         uint32_t control, const void *const *a,
                         const void *const *b, const void *const *c,
                         void *const *d, const uint64_t *scale_a,
                         const uint64_t *scale_b);
#define FLY_EMU_WAVE_SUFFIX ".wave"
#define FLY_EMU_WAVE_FALLBACK_PREFIX "__fly_emu_wave_fallback."

/* Runs the whole grid and returns when it is done: NULL on success, else a
 * message (a bad configuration, or the first trap or fault of a kernel,
 * see "Errors") owned by the runtime and valid until the calling thread's
 * next launch. Launches from several threads are serialised. */
const char *fly_emu_launch(FlyEmuKernelFn kernel, void *args,
                           const FlyEmuLaunchConfig *config);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FLY_RUNTIME_EMU_H */
