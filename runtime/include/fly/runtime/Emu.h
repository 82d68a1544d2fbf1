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
 *   it silently, exactly as the host code would. The handlers (SIGSEGV and
 *   SIGBUS, installed at the first launch, on a per-thread alternate signal
 *   stack) pass every other fault, a fault of the runtime's own code or of
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
 * static_asserts in the runtime), as is the 80-byte size on LP64. The
 * trailing `runtime` pointer is private to the runtime. The context lives
 * as long as its work-item; it is not shared between work-items. */
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
/* llvm.amdgcn.ballot (v_cmp writing an SGPR mask): bit i is set when lane i
 * is active and its `predicate` is nonzero. Wave32 leaves bits 32..63 zero. */
uint64_t fly_emu_ballot(FlyEmuContext *ctx, uint32_t predicate);

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

/* A fault detected by the kernel: stops the launch, which returns an error
 * naming the work-item and `message`. Never returns. */
#ifdef __GNUC__
__attribute__((noreturn))
#endif
void fly_emu_trap(FlyEmuContext *ctx, const char *message);

/* ---- Launch API ---------------------------------------------------------- */

typedef struct FlyEmuLaunchConfig {
  uint32_t grid[3];        /* workgroups per dimension, each >= 1          */
  uint32_t block[3];       /* work-items per dimension, product <= 1024    */
  uint32_t lds_bytes;      /* static + dynamic LDS of one workgroup        */
  uint32_t lds_limit;      /* the chip's LDS per workgroup; 0: 65536       */
  uint32_t wave_size;      /* the chip's: 32 or 64                         */
  uint32_t num_threads;    /* OS threads; 0: the machine's cores           */
  uint32_t stack_bytes;    /* per-fiber stack; 0: FLY_EMU_DEFAULT_STACK    */
} FlyEmuLaunchConfig;

/* 32 KiB: a 1024-work-item workgroup commits at most 32 MiB of stack even if
 * every fiber touches all of its stack (SPEC §12 budget: 64 MiB with LDS).
 * Every stack also has an unmapped guard page below it. */
#define FLY_EMU_DEFAULT_STACK 32768u
#define FLY_EMU_MAX_WORKGROUP_SIZE 1024u
#define FLY_EMU_DEFAULT_LDS_LIMIT 65536u

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
