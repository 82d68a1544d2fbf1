//===- Fiber.cpp - Fiber stacks and the x86-64 context switch -------------===//

#include "Fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#if !defined(__x86_64__)
#error "the emulator's context switch is written for x86-64 (SysV ABI) only"
#endif

// The switch. The SysV ABI lets a callee clobber every register except rbx,
// rbp, r12-r15 and rsp (plus the MXCSR/x87 control words, which kernels do
// not change: all fibers of a thread share one floating-point environment, as
// all lanes of a wave share one MODE register). So saving those six on the
// outgoing stack and swapping rsp is a complete switch: ~14 instructions, no
// system call, no signal mask (unlike swapcontext, which does a
// rt_sigprocmask syscall on every switch).
//
// fly_emu_fiber_start is where a fresh stack "returns" to: prepareStack puts
// the entry function in r13 and its argument in r12 of the initial frame.
asm(R"(
  .text
  .globl fly_emu_switch
  .hidden fly_emu_switch
  .type fly_emu_switch,@function
  .p2align 4
fly_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  .globl fly_emu_switch_resume
  .hidden fly_emu_switch_resume
fly_emu_switch_resume:
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size fly_emu_switch, .-fly_emu_switch

  .type fly_emu_fiber_start,@function
  .p2align 4
fly_emu_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size fly_emu_fiber_start, .-fly_emu_fiber_start
)");

extern "C" void fly_emu_fiber_start();

namespace fly::emu {

void *prepareStack(void *top, FiberEntry entry, void *arg) {
  // The initial frame, as fly_emu_switch pops it: r15 r14 r13 r12 rbx rbp,
  // then the return address. After the `ret`, rsp must be 16-byte aligned
  // so that the `call` in fly_emu_fiber_start meets the ABI's alignment.
  auto t = reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15);
  auto *frame = reinterpret_cast<uintptr_t *>(t - 72); // ret lands at t - 16
  frame[0] = 0;                                         // r15
  frame[1] = 0;                                         // r14
  frame[2] = reinterpret_cast<uintptr_t>(entry);        // r13
  frame[3] = reinterpret_cast<uintptr_t>(arg);          // r12
  frame[4] = 0;                                         // rbx
  frame[5] = 0;                                         // rbp
  frame[6] = reinterpret_cast<uintptr_t>(&fly_emu_fiber_start);
  return frame;
}

static size_t pageSize() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

StackArena::~StackArena() { release(); }

void StackArena::release() {
  if (base)
    munmap(base, mappedBytes);
  base = nullptr;
  stride = guardBytes = capacity = mappedBytes = 0;
}

// Big enough that a function with a frame of a few KiB cannot step over it
// into the next stack; costs address space only.
static constexpr size_t kGuardBytes = 16384;

bool StackArena::reserve(size_t count, size_t stackBytes) {
  size_t page = pageSize();
  size_t guard = (kGuardBytes + page - 1) / page * page;
  size_t wantStride = guard + (stackBytes + page - 1) / page * page;
  if (base && count <= capacity && wantStride == stride)
    return true;
  release();
  size_t bytes = count * wantStride;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return false;
  base = static_cast<char *>(p);
  mappedBytes = bytes;
  stride = wantStride;
  guardBytes = guard;
  capacity = count;
  // The guard zone sits at the low end of each slot: stacks grow down.
  for (size_t i = 0; i < count; ++i)
    if (mprotect(base + i * stride, guard, PROT_NONE) != 0) {
      release();
      return false;
    }
  return true;
}

bool StackArena::isGuard(const void *address) const {
  auto a = reinterpret_cast<uintptr_t>(address);
  auto b = reinterpret_cast<uintptr_t>(base);
  return base && a >= b && a < b + mappedBytes && (a - b) % stride < guardBytes;
}

size_t StackArena::committedBytes() const {
  if (!base)
    return 0;
  size_t page = pageSize();
  std::vector<unsigned char> resident(mappedBytes / page);
  if (mincore(base, mappedBytes, resident.data()) != 0)
    return 0;
  size_t pages = 0;
  for (unsigned char r : resident)
    pages += r & 1;
  return pages * page;
}

} // namespace fly::emu
