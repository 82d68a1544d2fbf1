//===- StackGuard.cpp - Kernel faults become launch errors ----------------===//
//
// A kernel that touches memory it may not (an out-of-bounds pointer into an
// unmapped page, a store to read-only memory, a fiber running off its stack
// into its guard zone) gets SIGSEGV, or SIGBUS for some mapped-file and
// alignment faults; one that divides an integer by zero (or the most
// negative value by -1: undefined in LLVM IR, an unspecified value on the
// GPU, a #DE exception on x86-64) gets SIGFPE. The handler runs on the thread's alternate signal
// stack. If the thread's runner has a fiber running and the fault is the
// kernel's (WorkgroupRunner::catchFault), it records the fault and rewrites
// the interrupted context to resume the runner's scheduler (rsp = the
// scheduler's saved stack pointer, rip = the pop-and-return half of
// fly_emu_switch). Returning from the handler then abandons the fiber and
// its workgroup, and the launch reports the fault. Returning, rather than
// jumping to the scheduler from the handler, matters: sigreturn restores
// the signal mask of the interrupted code, so SIGSEGV is unblocked again
// for the next fault.
//
// Any other fault (on a thread that runs no workgroup, in the runtime's own
// code, or a signal sent by kill rather than raised by the processor) goes
// to the handler that was installed before ours (Python's faulthandler,
// say) or to the default action.
//
// The abandoned workgroup's runtime state is reset by the next workgroup's
// prepare. A fiber that faults inside a libc call holding a lock (malloc,
// stdio) would leave that lock held; kernels call no such functions.
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cinttypes>
#include <cstdio>
#include <mutex>

namespace fly::emu {
namespace {

struct sigaction previousSegv, previousBus, previousFpe;

void onFault(int sig, siginfo_t *info, void *context) {
  if (WorkgroupRunner *runner = WorkgroupRunner::active())
    if (runner->catchFault(sig, info, context))
      return;
  const struct sigaction &previous = sig == SIGBUS   ? previousBus
                                     : sig == SIGFPE ? previousFpe
                                                     : previousSegv;
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    // Returning re-runs the faulting instruction, which now gets the
    // default action (a fault cannot be ignored).
    signal(sig, SIG_DFL);
    return;
  }
  previous.sa_handler(sig);
}

} // namespace

void installFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    // A fault of the other kind inside the handler is a bug of the handler:
    // blocked, it gets the default action at once.
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGSEGV);
    sigaddset(&action.sa_mask, SIGBUS);
    sigaddset(&action.sa_mask, SIGFPE);
    sigaction(SIGSEGV, &action, &previousSegv);
    sigaction(SIGBUS, &action, &previousBus);
    sigaction(SIGFPE, &action, &previousFpe);
  });
}

bool ensureAltStack() {
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE))
    return true; // the thread has one already (faulthandler's, say)
  const size_t bytes = 64 * 1024;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return false;
  stack_t stack = {};
  stack.ss_sp = p;
  stack.ss_size = bytes;
  // Kept for the thread's lifetime: runner threads live as long as the
  // process (the pool) or own the launch that uses them.
  return sigaltstack(&stack, nullptr) == 0;
}

bool WorkgroupRunner::catchFault(int sig, const siginfo_t *info,
                                 void *context) {
  // si_code <= 0: sent by kill/raise/sigqueue, not raised by an access.
  if (!current || info->si_code <= 0)
    return false;
  const bool overflow = sig == SIGSEGV && stacks.isGuard(info->si_addr);
  if (!overflow && !inKernel)
    return false; // a fault of the runtime's own code: a bug, not reported
  fault.fiber = current;
  fault.signal = sig;
  fault.code = info->si_code;
  fault.address = info->si_addr;
  fault.stackOverflow = overflow;
  current = nullptr;
  inKernel = false;
  aborted = true;
  // Other threads stop at their next switch point, as after a trap; the
  // message is recorded by run() (a lock and an allocation: not here).
  static_assert(std::atomic<bool>::is_always_lock_free,
                "a signal handler may only store lock-free atomics");
  launch->aborted.store(true, std::memory_order_relaxed);
  auto *uc = static_cast<ucontext_t *>(context);
  uc->uc_mcontext.gregs[REG_RSP] = reinterpret_cast<greg_t>(schedulerSp);
  uc->uc_mcontext.gregs[REG_RIP] =
      reinterpret_cast<greg_t>(&fly_emu_switch_resume);
  return true;
}

std::string WorkgroupRunner::describeFault() const {
  const FlyEmuContext &c = fault.fiber->ctx;
  char where[128];
  std::snprintf(where, sizeof where,
                "in workgroup (%u,%u,%u), work-item (%u,%u,%u): ",
                c.workgroup_id[0], c.workgroup_id[1], c.workgroup_id[2],
                c.work_item_id[0], c.work_item_id[1], c.work_item_id[2]);
  char what[320];
  if (fault.stackOverflow) {
    std::snprintf(what, sizeof what,
                  "its fiber stack of %zu bytes is too small "
                  "(FlyEmuLaunchConfig.stack_bytes)",
                  stacks.stackBytes());
    return std::string("kernel stack overflow ") + where + what;
  }
  if (fault.signal == SIGFPE) {
    // x86-64 raises #DE (FPE_INTDIV) for both; floating-point exceptions
    // are masked, as on the GPU.
    std::snprintf(what, sizeof what,
                  "integer division by zero, or of the most negative value "
                  "by -1 (SIGFPE): undefined in LLVM IR, an unspecified "
                  "value on the GPU");
    return std::string("kernel fault ") + where + what;
  }
  const char *name = fault.signal == SIGBUS ? "SIGBUS" : "SIGSEGV";
  const auto address = reinterpret_cast<uintptr_t>(fault.address);
  if (fault.signal == SIGSEGV && fault.code == SI_KERNEL) {
    // A general-protection fault: the processor reports no address.
    std::snprintf(what, sizeof what,
                  "invalid memory access (%s) at an address the processor "
                  "does not report (a general-protection fault: typically a "
                  "non-canonical address, far outside the 47-bit user "
                  "address space, or a misaligned vector access)",
                  name);
    return std::string("kernel fault ") + where + what;
  }
  const char *why = "";
  if (fault.signal == SIGSEGV && fault.code == SEGV_MAPERR)
    why = ": nothing is mapped there";
  else if (fault.signal == SIGSEGV && fault.code == SEGV_ACCERR)
    why = ": the page does not allow this access (a write to read-only "
          "memory, or any access to a protected page)";
  else if (fault.signal == SIGBUS && fault.code == BUS_ADRALN)
    why = ": the address is misaligned";
  else if (fault.signal == SIGBUS && fault.code == BUS_ADRERR)
    why = ": no storage backs the page (a mapped file shorter than its "
          "mapping, say)";
  std::snprintf(what, sizeof what,
                "invalid memory access (%s) at address 0x%" PRIxPTR "%s", name,
                address, why);
  return std::string("kernel fault ") + where + what;
}

} // namespace fly::emu
