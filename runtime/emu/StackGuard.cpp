//===- StackGuard.cpp - Fiber stack overflows become launch errors --------===//
//
// A fiber that runs off its stack touches its guard zone and gets SIGSEGV.
// The handler runs on the thread's alternate signal stack; if the fault
// address is in a guard zone of that thread's runner, it rewrites the
// interrupted context to resume the runner's scheduler (rsp = the scheduler's
// saved stack pointer, rip = the pop-and-return half of fly_emu_switch), so
// returning from the handler abandons the fiber and its workgroup, and the
// launch reports the overflow. Any other fault goes to the handler that was
// installed before ours (Python's faulthandler, say) or to the default
// action.
//
// The abandoned workgroup's runtime state is reset by the next workgroup's
// prepare. A fiber that overflows inside a libc call holding a lock (malloc)
// would leave that lock held; kernels call no such functions.
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <mutex>

namespace fly::emu {
namespace {

struct sigaction previousAction;

void onSegv(int sig, siginfo_t *info, void *context) {
  if (WorkgroupRunner *runner = WorkgroupRunner::active())
    if (runner->catchStackOverflow(info->si_addr, context))
      return;
  if (previousAction.sa_flags & SA_SIGINFO) {
    previousAction.sa_sigaction(sig, info, context);
    return;
  }
  if (previousAction.sa_handler == SIG_DFL ||
      previousAction.sa_handler == SIG_IGN) {
    // Returning re-runs the faulting instruction, which now gets the
    // default action (a SIGSEGV cannot be ignored).
    signal(sig, SIG_DFL);
    return;
  }
  previousAction.sa_handler(sig);
}

} // namespace

void installStackGuard() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = onSegv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previousAction);
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

bool WorkgroupRunner::catchStackOverflow(const void *address, void *context) {
  if (!current || !stacks.isGuard(address))
    return false;
  overflowed = current;
  current = nullptr;
  aborted = true;
  auto *uc = static_cast<ucontext_t *>(context);
  uc->uc_mcontext.gregs[REG_RSP] = reinterpret_cast<greg_t>(schedulerSp);
  uc->uc_mcontext.gregs[REG_RIP] =
      reinterpret_cast<greg_t>(&fly_emu_switch_resume);
  return true;
}

} // namespace fly::emu
