//===- Workgroup.h - A workgroup as fibers on one OS thread -----*- C++ -*-===//
//
// A WorkgroupRunner belongs to one OS thread and runs the workgroups that
// thread takes from a launch, one at a time, each as one fiber per
// work-item. Fibers switch directly to the next ready fiber when they park
// (at a barrier or a wave collective); the runner's own stack ("the
// scheduler") is entered only when nothing is ready: the workgroup is done,
// aborted, or deadlocked.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_WORKGROUP_H
#define FLY_RUNTIME_EMU_WORKGROUP_H

#include "Fiber.h"
#include "WaveOps.h"

#include "fly/runtime/Emu.h"

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fly::emu {

// What every thread of a launch shares: the kernel, its geometry, the next
// workgroup to take, and the first error.
struct LaunchState {
  FlyEmuKernelFn kernel = nullptr;
  // The SIMD mode (Emu.h): the kernel's wave function, run once per wave
  // on a fiber of its own, or null: a fiber per work-item.
  FlyEmuWaveFn waveKernel = nullptr;
  void *args = nullptr;
  FlyEmuLaunchConfig config{}; // normalised: no zero defaults left
  uint64_t numWorkgroups = 0;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> aborted{false};
  std::mutex errorMutex;
  std::string error;

  // Records `message` unless an earlier error was recorded, and stops the
  // launch.
  void fail(std::string message);

  // Checked emulation (Emu.h): the checks the code object was compiled
  // with, the tensors of the launch, and the reports (the first
  // FLY_EMU_CHECK_MAX_SHOWN kept as text, all counted).
  uint32_t checks = 0;
  std::vector<FlyEmuTensorExtent> tensors; // names point into tensorNames
  std::vector<std::string> tensorNames;
  std::mutex reportMutex;
  std::vector<std::string> reports;
  uint64_t reportCount = 0;
  std::string reportKernel;
  // Records one report: `kind` at `site`'s location by the work-item of
  // `ctx`, then `detail`.
  void report(const FlyEmuSite &site, const FlyEmuContext &ctx,
              const std::string &kind, const std::string &detail);
  // The reports as the launch's error message (Emu.h), or "".
  std::string reportText();
  // Warnings (bounds=strict): one per (kind, site), the first's text and
  // how many there were.
  struct Warning {
    const FlyEmuSite *site;
    uint64_t bytes; // with the site's kind, the warning's kind
    std::string text;
    uint64_t count;
  };
  std::vector<Warning> warnings;
  // Counts a warning of an access of `bytes` at `site` when that (kind,
  // site) has one; false when it has none yet.
  bool countWarning(const FlyEmuSite &site, uint64_t bytes);
  // Records the first warning of an access of `bytes` at `site`: `kind`
  // by the work-item of `ctx`, then `detail`.
  void warn(const FlyEmuSite &site, uint64_t bytes, const FlyEmuContext &ctx,
            const std::string &kind, const std::string &detail);
};

class WorkgroupRunner;

struct Fiber {
  FlyEmuContext ctx; // ctx.runtime points back at this Fiber
  void *sp = nullptr;
  WorkgroupRunner *runner = nullptr;
  bool started = false; // has run; until then it has no state but its ids
  bool returned = false; // has returned from the kernel
  const FlyEmuSite *barrierSite = nullptr; // the checked barrier it waits at
};

// The lanes of one wave and the collective they are gathering for.
struct Wave {
  uint32_t firstFiber = 0; // flat id of lane 0
  uint32_t live = 0;       // lanes that have not returned
  uint32_t parked = 0;     // lanes parked at the pending collective
  uint32_t atBarrier = 0;  // lanes parked at a barrier
  WaveOp op = WaveOp::None;
  WaveLanes lanes;
};

class WorkgroupRunner {
public:
  // The calling OS thread's runner.
  static WorkgroupRunner &forThisThread();

  // Runs workgroup `id` of `launch` until all its work-items return, or the
  // launch is aborted.
  void run(LaunchState &launch, const uint32_t id[3]);

  // Called on a fiber, through the C ABI.
  void barrier(Fiber &self);
  uint64_t collective(Fiber &self, WaveOp op, uint64_t value, uint32_t aux);
  [[noreturn]] void trap(Fiber &self, const char *message);
  // The bookkeeping of a returned work-item; then either the next ready
  // work-item if it has not started (the caller runs it on the same stack)
  // or a switch away for good.
  Fiber *exit(Fiber &self);

  // fly_emu_barrier_checked: barrier() with the barrier check.
  void checkedBarrier(Fiber &self, const FlyEmuSite *site);
  // Whether `address` lies in fiber `f`'s stack.
  bool onStack(const Fiber &f, const void *address) const {
    const char *top = static_cast<const char *>(stacks.top(stackIndex(f)));
    const char *p = static_cast<const char *>(address);
    return p < top && p >= top - stacks.stackBytes();
  }
  LaunchState *launchState() const { return launch; }
  // With FLY_EMU_CHECK_INIT: the shadow of the workgroup's LDS, one byte
  // per LDS byte, 0xFF once a work-item of the workgroup wrote it (cleared
  // when a workgroup starts); null without the check.
  unsigned char *ldsShadow() const { return shadowOn ? shadow.get() : nullptr; }
  // Marks the bytes [address, address + bytes) written, those in the
  // workgroup's LDS (nothing without the init check).
  void markLdsWritten(const void *address, uint64_t bytes);
  // With FLY_EMU_CHECK_RACE: records an LDS access by `self` of `bytes`
  // at `address` and reports it when it races with an earlier one of this
  // barrier interval (Emu.h).
  void checkRace(Fiber &self, const void *address, uint64_t bytes,
                 const FlyEmuSite *site);

  // Resident bytes of this thread's fiber stacks.
  size_t committedStackBytes() const { return stacks.committedBytes(); }

  // The runner of the calling thread while it runs a workgroup, else null.
  static WorkgroupRunner *active();
  // Called by the SIGSEGV/SIGBUS handler (StackGuard.cpp) on this runner's
  // thread. A fault raised by the processor while a fiber runs is the
  // kernel's when it hits the fiber's guard zone (a stack overflow, even in
  // the runtime's code) or when the fiber is in kernel code (not in the
  // runtime's own functions): then the fiber is abandoned by resuming the
  // scheduler in `ucontext` and the launch fails naming the work-item.
  // False for any other fault, which is not the kernel's to report.
  bool catchFault(int sig, const siginfo_t *info, void *ucontext);

private:
  static void fiberMain(void *fiber);
  // Marks a call from kernel code into the runtime (barrier, collective):
  // while it lasts, a fault is the runtime's, not the kernel's. Parking
  // inside the call is fine: whichever fiber runs meanwhile sets the flag
  // for itself, and this one sets it again when its call returns.
  class RuntimeCall {
  public:
    explicit RuntimeCall(WorkgroupRunner &r) : runner(r) {
      runner.inKernel = false;
    }
    ~RuntimeCall() { runner.inKernel = true; }

  private:
    WorkgroupRunner &runner;
  };
  // The error message of the fault recorded by catchFault.
  std::string describeFault() const;
  // Lays out workgroup `id`: its waves' fibers when `asWaves` and the launch
  // has a wave function, else its work-items'.
  bool prepare(LaunchState &launch, const uint32_t id[3], bool asWaves);
  // Runs the prepared workgroup's fibers until none is ready (or the
  // launch stops; not for a `replay`, see run()).
  void schedule(LaunchState &launch, bool replay);
  void layOutContexts(const FlyEmuLaunchConfig &config);
  void park(Fiber &self);
  [[noreturn]] void leave(Fiber &self);
  // Switches to a ready fiber, laying out its stack first if it never ran.
  void switchTo(void **save, Fiber *next);
  void push(Fiber *f) { ready[tail++ & readyMask] = f; }
  Fiber *pop() { return head == tail ? nullptr : ready[head++ & readyMask]; }
  Wave &waveOf(const Fiber &f) { return waves[f.ctx.wave_id]; }
  // The stack a fiber runs on: its work-item's, or in the SIMD mode its
  // wave's.
  size_t stackIndex(const Fiber &f) const {
    return waveMode ? f.ctx.wave_id : f.ctx.flat_work_item_id;
  }
  void fire(Wave &wave, const Fiber *self);
  void releaseBarrier();
  // With FLY_EMU_CHECK_BARRIER: reports a divergent barrier about to be
  // released (see Emu.h).
  void checkBarrierRelease();

  LaunchState *launch = nullptr;
  StackArena stacks;
  std::vector<Fiber> fibers;
  std::vector<Wave> waves;
  // The SIMD mode: whether this workgroup runs its waves' wave functions
  // (a fiber per wave, lane 0's), each wave's lane contexts and live lanes.
  bool waveMode = false;
  bool replaying = false; // schedule()'s replay of a faulted wave
  std::vector<FlyEmuWave> waveLanes;
  std::vector<uint64_t> waveExec;
  std::vector<Fiber *> ready; // ring of a power-of-two size
  size_t readyMask = 0, head = 0, tail = 0;
  std::vector<Fiber *> barrierWaiters;
  void *schedulerSp = nullptr;
  uint32_t live = 0, atBarrier = 0;
  bool aborted = false;
  Fiber *current = nullptr; // the running fiber, for the fault handler
  // Whether `current` is in kernel code rather than in the runtime (set by
  // fiberMain around the kernel's call and by RuntimeCall). Volatile: the
  // fault handler reads it on this thread at any instruction.
  volatile bool inKernel = false;
  // What catchFault saw; reported by run() once back on the scheduler.
  struct Fault {
    Fiber *fiber = nullptr; // null: no fault
    int signal = 0;         // SIGSEGV or SIGBUS
    int code = 0;           // siginfo's si_code (SEGV_MAPERR, ...)
    const void *address = nullptr; // siginfo's si_addr
    bool stackOverflow = false;    // the address is in a guard zone
  } fault;
  bool altStackReady = false;
  // The contexts' dispatch_packet (Emu.h), written by layOutContexts.
  alignas(64) unsigned char dispatchPacket[64] = {};
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  std::unique_ptr<unsigned char, FreeDeleter> lds;
  size_t ldsCapacity = 0;
  std::unique_ptr<unsigned char, FreeDeleter> shadow; // see ldsShadow()
  size_t shadowCapacity = 0;
  bool shadowOn = false;
  // The race check's shadow: per 4-byte LDS word, its last writer and two
  // readers (the first, and the first of another wave than the first's)
  // in the current barrier interval, `epoch` (advanced when a workgroup
  // starts and at every barrier release; entries of older epochs are
  // empty).
  struct RaceAccess {
    uint32_t epoch = 0;
    uint32_t item = 0; // flat work-item id
    const FlyEmuSite *site = nullptr;
  };
  struct RaceWord {
    RaceAccess writer, reader, otherReader;
  };
  std::vector<RaceWord> raceWords;
  uint32_t epoch = 0;
  bool raceOn = false;
  // What the fibers' contexts were laid out for (layOutContexts).
  FlyEmuLaunchConfig geometry{};
  void *geometryLds = nullptr;
  bool geometryValid = false;
};

// StackGuard.cpp: turns the faults of kernel code (and overflows of fiber
// stacks) into launch errors. installFaultHandler installs the process's
// SIGSEGV and SIGBUS handler (once, chaining to the previous ones);
// ensureAltStack gives the calling thread a signal stack (a fiber that
// overflowed has no stack left to run a handler on).
void installFaultHandler();
bool ensureAltStack();

// Check.cpp: gives a checked launch the tensors fly_emu_set_tensor_extents
// gave the calling thread.
void takeTensorExtents(LaunchState &launch);
// Check.cpp: the checks of one element of a tensor data mover copy
// (Tensor.cpp) of `bytes` at LDS offset `ldsOffset` and, when the
// descriptor has it in range, at `global` (else null) of the descriptor
// whose global address is `base`: 0 to skip the element, 1 to treat it as
// out of range, 2 to copy it. `reported` (per instruction: bit 0 LDS,
// bit 1 global) keeps one report of each.
int checkTensorElement(FlyEmuContext &ctx, const FlyEmuSite &site, bool store,
                       uintptr_t base, const void *global, uint64_t ldsOffset,
                       uint64_t bytes, unsigned &reported);
// Check.cpp: keeps a finished launch's warnings for fly_emu_take_warnings.
void keepWarnings(LaunchState &launch);

// A part of a buffer access as the hardware range-checks it (Buffer.cpp):
// bytes [at, at + size) of the access, and whether the V# allows them.
struct BufferPart {
  uint32_t at, size;
  bool inRange;
};
// Check.cpp: the bounds check of a buffer access of `bytes` at byte offset
// `offset` of `rsrc` made of `parts`; the mask of the parts to make (bit
// i: part i). Reports and warns as Emu.h's fly_emu_buffer_load_checked.
uint32_t checkBuffer(FlyEmuContext &ctx, const FlyEmuBufferResource &rsrc,
                     uint64_t offset, uint32_t bytes, const BufferPart *parts,
                     unsigned count, const FlyEmuSite &site);

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_WORKGROUP_H
