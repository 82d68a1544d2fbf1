//===- Launch.cpp - The installed launch table ----------------------------===//
//
// The process's one slot for a runtime's launch table (fly/runtime/Launch.h).
// It lives in the runtime, not in the compiler: a runtime installs its table
// without linking MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Launch.h"

#include <atomic>

namespace {
std::atomic<const FlyLaunchTable *> installed{nullptr};
} // namespace

extern "C" int fly_runtime_install_launch_table(const FlyLaunchTable *table) {
  if (table && table->size != sizeof(FlyLaunchTable))
    return 1;
  installed.store(table, std::memory_order_release);
  return 0;
}

extern "C" const FlyLaunchTable *fly_runtime_launch_table(void) {
  return installed.load(std::memory_order_acquire);
}
