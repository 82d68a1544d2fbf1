//===- Launch.cpp - fly_emu_launch: validation and the thread pool --------===//
//
// A launch checks its configuration, then hands out workgroups by an atomic
// counter to the calling thread plus (threads - 1) pool workers. The pool is
// created at the first parallel launch, grows on demand and is never torn
// down (its threads sleep on a condition variable; process exit ends them).
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <algorithm>
#include <condition_variable>
#include <thread>

namespace fly::emu {
namespace {

// Takes workgroups of `launch` until none is left or the launch is aborted.
void takeWorkgroups(LaunchState &launch) {
  WorkgroupRunner &runner = WorkgroupRunner::forThisThread();
  const uint32_t gx = launch.config.grid[0], gy = launch.config.grid[1];
  while (!launch.aborted.load(std::memory_order_relaxed)) {
    uint64_t i = launch.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= launch.numWorkgroups)
      return;
    const uint32_t id[3] = {uint32_t(i % gx), uint32_t(i / gx % gy),
                            uint32_t(i / (uint64_t(gx) * gy))};
    runner.run(launch, id);
  }
}

class ThreadPool {
public:
  static ThreadPool &get() {
    static ThreadPool *pool = new ThreadPool; // never destroyed, see above
    return *pool;
  }

  // Runs `launch` on the calling thread and `helpers` workers.
  void run(LaunchState &launch, unsigned helpers) {
    std::lock_guard<std::mutex> one(launchMutex);
    {
      std::lock_guard<std::mutex> lock(mutex);
      while (workers.size() < helpers) {
        unsigned index = unsigned(workers.size());
        workers.emplace_back([this, index] { work(index); });
      }
      job = &launch;
      jobHelpers = helpers;
      pending = helpers;
      ++generation;
    }
    wake.notify_all();
    takeWorkgroups(launch);
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [this] { return pending == 0; });
    job = nullptr;
  }

private:
  void work(unsigned index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return generation != seen; });
      seen = generation;
      if (index >= jobHelpers)
        continue;
      LaunchState *launch = job;
      lock.unlock();
      takeWorkgroups(*launch);
      lock.lock();
      if (--pending == 0)
        done.notify_one();
    }
  }

  std::mutex launchMutex; // one launch at a time
  std::mutex mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  LaunchState *job = nullptr;
  uint64_t generation = 0;
  unsigned jobHelpers = 0, pending = 0;
};

std::string dims(const uint32_t d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

// The configuration with defaults filled in, or an error message.
std::string normalise(const FlyEmuLaunchConfig &in, FlyEmuLaunchConfig &c) {
  c = in;
  if (c.wave_size != 32 && c.wave_size != 64)
    return "wave size " + std::to_string(c.wave_size) +
           " is not supported: AMD chips run waves of 32 or 64 work-items";
  for (int d = 0; d < 3; ++d) {
    if (c.block[d] == 0)
      return "block " + dims(c.block) + " has an empty dimension";
    if (c.grid[d] == 0)
      return "grid " + dims(c.grid) + " has an empty dimension";
    // The dispatch packet's grid size is in work-items, 32 bits (as HIP's).
    if (uint64_t(c.grid[d]) * c.block[d] > UINT32_MAX)
      return "grid " + dims(c.grid) + " of blocks " + dims(c.block) +
             " has more than 2^32 - 1 work-items in dimension " +
             std::string(1, "xyz"[d]);
  }
  uint64_t items = uint64_t(c.block[0]) * c.block[1] * c.block[2];
  if (items > FLY_EMU_MAX_WORKGROUP_SIZE)
    return "a workgroup of " + std::to_string(items) + " work-items (block " +
           dims(c.block) + ") exceeds the limit of " +
           std::to_string(FLY_EMU_MAX_WORKGROUP_SIZE);
  if (c.lds_limit == 0)
    c.lds_limit = FLY_EMU_DEFAULT_LDS_LIMIT;
  if (c.lds_bytes > c.lds_limit)
    return "LDS of " + std::to_string(c.lds_bytes) +
           " bytes per workgroup exceeds the limit of " +
           std::to_string(c.lds_limit) + " bytes";
  if (c.stack_bytes == 0)
    c.stack_bytes = FLY_EMU_DEFAULT_STACK;
  if (c.stack_bytes < 4096 || c.stack_bytes > (64u << 20))
    return "fiber stack of " + std::to_string(c.stack_bytes) +
           " bytes is outside 4096 .. 64 MiB";
  if (c.num_threads == 0) {
    // Asked once: hardware_concurrency reads a /sys file on every call,
    // most of an empty launch's time.
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    c.num_threads = cores;
  }
  return {};
}

} // namespace
} // namespace fly::emu

extern "C" const char *fly_emu_launch(FlyEmuKernelFn kernel, void *args,
                                      const FlyEmuLaunchConfig *config) {
  using namespace fly::emu;
  static thread_local std::string lastError;
  lastError.clear();
  if (!kernel || !config) {
    lastError = "emulator: launch without a kernel or a configuration";
    return lastError.c_str();
  }
  if (WorkgroupRunner::active()) {
    lastError = "emulator: a kernel cannot launch another kernel";
    return lastError.c_str();
  }
  LaunchState launch;
  std::string invalid = normalise(*config, launch.config);
  if (!invalid.empty()) {
    lastError = "emulator: bad launch: " + invalid;
    return lastError.c_str();
  }
  const FlyEmuLaunchConfig &c = launch.config;
  launch.kernel = kernel;
  // The wave function takes a wave to be one run of x (Emu.h).
  if (c.block[0] % c.wave_size == 0)
    launch.waveKernel = c.wave_kernel;
  launch.args = args;
  launch.numWorkgroups = uint64_t(c.grid[0]) * c.grid[1] * c.grid[2];
  launch.checks = c.checks;
  if (c.checks & FLY_EMU_CHECK_BOUNDS)
    takeTensorExtents(launch);
  installFaultHandler();
  uint64_t threads = std::min<uint64_t>(c.num_threads, launch.numWorkgroups);
  if (threads <= 1)
    takeWorkgroups(launch); // no pool round trip for one thread
  else
    ThreadPool::get().run(launch, unsigned(threads - 1));
  keepWarnings(launch);
  if (std::string reports = launch.reportText(); !reports.empty())
    launch.error = launch.error.empty() ? std::move(reports)
                                        : launch.error + "\n" + reports;
  if (launch.error.empty())
    return nullptr;
  lastError = std::move(launch.error);
  return lastError.c_str();
}
