//===- Fiber.h - Fiber stacks and the user-space context switch -*- C++ -*-===//
//
// The emulator's execution vehicle: one fiber per work-item. A fiber is a
// stack plus a saved stack pointer; the switch saves the callee-saved
// registers of the SysV x86-64 ABI on the old stack, swaps stack pointers and
// pops them from the new one (Fiber.cpp). Everything the caller may expect
// to survive a call lives in those registers, so a switch costs one function
// call worth of pushes and pops.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_EMU_FIBER_H
#define FLY_RUNTIME_EMU_FIBER_H

#include <cstddef>
#include <cstdint>

namespace fly::emu {

extern "C" {
// Saves the running context's registers on its stack, stores its stack
// pointer in *save, and continues the context whose stack pointer is `next`
// (saved by an earlier switch, or prepared by prepareStack).
void fly_emu_switch(void **save, void *next);
// The second half of fly_emu_switch: with rsp at a stack pointer saved by
// fly_emu_switch, jumping here resumes that context. A signal handler uses
// it to abandon a fiber (see StackGuard.cpp).
void fly_emu_switch_resume();
}

// The function a fresh stack starts in. It must never return: a fiber ends by
// switching away for good.
using FiberEntry = void (*)(void *arg);

// Lays out a fresh stack whose top (exclusive) is `top` so that switching to
// the returned stack pointer calls entry(arg).
void *prepareStack(void *top, FiberEntry entry, void *arg);

// `count` stacks of `stackBytes` each in one mapping, each with an
// inaccessible guard zone (16 KiB) below it, so that an overflow faults
// instead of corrupting the neighbouring fiber. Pages are committed by the kernel only
// when touched; a reused arena keeps what earlier workgroups touched.
class StackArena {
public:
  StackArena() = default;
  StackArena(const StackArena &) = delete;
  StackArena &operator=(const StackArena &) = delete;
  ~StackArena();

  // Makes room for `count` stacks of at least `stackBytes` (rounded up to
  // pages); keeps the current mapping when it is big enough. False when
  // the memory cannot be mapped.
  bool reserve(size_t count, size_t stackBytes);
  // The top (highest address, exclusive) of stack `i`.
  void *top(size_t i) const { return base + (i + 1) * stride; }
  // Bytes of the mapping that are resident (committed), per mincore.
  size_t committedBytes() const;
  // Whether `address` is in one of the guard zones.
  bool isGuard(const void *address) const;
  size_t stackBytes() const { return stride - guardBytes; }

private:
  void release();
  char *base = nullptr;
  size_t stride = 0;   // guard zone + stack
  size_t guardBytes = 0;
  size_t capacity = 0; // stacks
  size_t mappedBytes = 0;
};

} // namespace fly::emu

#endif // FLY_RUNTIME_EMU_FIBER_H
