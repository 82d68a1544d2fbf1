//===- Workgroup.cpp - A workgroup as fibers on one OS thread -------------===//
//
// Scheduling. All fibers start ready, in flat-id order. A fiber runs until
// it parks; parking switches straight to the next ready fiber (one switch,
// not two through a scheduler). The fiber whose arrival completes a barrier
// or a collective does not park: it makes the waiters ready and carries on.
// So a wave collective costs each lane about two switches (park, resume),
// and code between switch points runs at native speed. A returning
// work-item hands its stack to the next one that has not started yet, so
// a workgroup that never parks runs as a plain loop over its work-items.
//
//===----------------------------------------------------------------------===//

#include "Workgroup.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fly::emu {

// The context's layout is ABI: generated code loads these offsets.
static_assert(offsetof(FlyEmuContext, work_item_id) == 0, "ABI");
static_assert(offsetof(FlyEmuContext, workgroup_id) == 12, "ABI");
static_assert(offsetof(FlyEmuContext, workgroup_size) == 24, "ABI");
static_assert(offsetof(FlyEmuContext, grid_size) == 36, "ABI");
static_assert(offsetof(FlyEmuContext, flat_work_item_id) == 48, "ABI");
static_assert(offsetof(FlyEmuContext, lane_id) == 52, "ABI");
static_assert(offsetof(FlyEmuContext, wave_id) == 56, "ABI");
static_assert(offsetof(FlyEmuContext, wave_size) == 60, "ABI");
static_assert(offsetof(FlyEmuContext, lds) == 64, "ABI");
static_assert(offsetof(FlyEmuContext, runtime) == 72, "ABI");
static_assert(offsetof(FlyEmuContext, dispatch_packet) == 80, "ABI");
static_assert(sizeof(FlyEmuContext) == 88, "ABI");

void LaunchState::fail(std::string message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (error.empty())
    error = std::move(message);
  aborted.store(true, std::memory_order_relaxed);
}

void WorkgroupRunner::FreeDeleter::operator()(void *p) const { std::free(p); }

WorkgroupRunner &WorkgroupRunner::forThisThread() {
  static thread_local WorkgroupRunner runner;
  return runner;
}

void WorkgroupRunner::fiberMain(void *arg) {
  auto *fiber = static_cast<Fiber *>(arg);
  WorkgroupRunner &runner = *fiber->runner;
  const LaunchState &launch = *runner.launch;
  for (;;) {
    fiber->started = true;
    runner.inKernel = true; // a fault from here on is the kernel's
    if (runner.waveMode) {
      const uint32_t w = fiber->ctx.wave_id;
      launch.waveKernel(&runner.waveLanes[w], runner.waveExec[w], launch.args);
    } else {
      launch.kernel(&fiber->ctx, launch.args);
    }
    runner.inKernel = false;
    fiber = runner.exit(*fiber);
    runner.current = fiber;
  }
}

static size_t nextPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// Grows `buffer` (of `capacity` bytes, 64-byte aligned) to hold `want`
/// bytes; false, with `capacity` 0, when the allocation fails.
template <typename Buffer>
static bool reserveAligned(Buffer &buffer, size_t &capacity, size_t want) {
  if (capacity >= want)
    return true;
  size_t bytes = (want + 63) / 64 * 64;
  buffer.reset(static_cast<unsigned char *>(std::aligned_alloc(64, bytes)));
  capacity = buffer ? bytes : 0;
  return bool(buffer);
}

bool WorkgroupRunner::prepare(LaunchState &l, const uint32_t id[3], bool asWaves) {
  const FlyEmuLaunchConfig &c = l.config;
  const uint32_t n = c.block[0] * c.block[1] * c.block[2];
  const uint32_t waveSize = c.wave_size;
  launch = &l;
  const uint32_t numWaves = (n + waveSize - 1) / waveSize;
  waveMode = asWaves && l.waveKernel != nullptr;
  // A wave's frame holds each of its values for every lane: its stack is
  // a quarter of its lanes' stacks (virtual memory, committed as touched).
  const size_t stacksWanted = waveMode ? numWaves : n;
  const size_t stackBytes =
      waveMode ? size_t(c.stack_bytes) * waveSize / 4 : c.stack_bytes;
  if (!stacks.reserve(stacksWanted, stackBytes)) {
    l.fail("emulator: cannot map " + std::to_string(stacksWanted) +
           " fiber stacks of " + std::to_string(stackBytes) + " bytes");
    return false;
  }
  size_t ldsWant = c.lds_bytes ? c.lds_bytes : 64;
  if (!reserveAligned(lds, ldsCapacity, ldsWant)) {
    l.fail("emulator: cannot allocate " + std::to_string(ldsWant) +
           " bytes of LDS");
    return false;
  }
  shadowOn = (l.checks & FLY_EMU_CHECK_INIT) != 0;
  if (shadowOn) {
    if (!reserveAligned(shadow, shadowCapacity, ldsWant)) {
      l.fail("emulator: cannot allocate " + std::to_string(ldsWant) +
             " bytes of LDS shadow for the init check");
      return false;
    }
    std::memset(shadow.get(), 0, c.lds_bytes); // nothing written yet
  }
  raceOn = (l.checks & FLY_EMU_CHECK_RACE) != 0;
  if (raceOn) {
    size_t words = (size_t(c.lds_bytes) + 3) / 4;
    if (raceWords.size() < words)
      raceWords.resize(words);
    if (++epoch == 0) { // wrapped: forget every entry
      std::fill(raceWords.begin(), raceWords.end(), RaceWord{});
      epoch = 1;
    }
  }
  if (fibers.size() < n) {
    fibers.resize(n);
    geometryValid = false; // the contexts moved
  }
  if (waves.size() < numWaves)
    waves.resize(numWaves);
  size_t ring = nextPowerOfTwo(n);
  if (ready.size() < ring)
    ready.resize(ring);
  readyMask = ready.size() - 1;
  head = tail = 0;
  barrierWaiters.clear();
  barrierWaiters.reserve(n);

  for (uint32_t w = 0; w < numWaves; ++w) {
    Wave &wave = waves[w];
    wave.firstFiber = w * waveSize;
    wave.live = std::min(waveSize, n - w * waveSize);
    wave.parked = wave.atBarrier = 0;
    wave.op = WaveOp::None;
    wave.lanes.size = waveSize;
    wave.lanes.exec = 0;
  }
  // The contexts' geometry (ids, sizes, LDS) is the same for every
  // workgroup of a launch: lay it out only when it changes.
  const bool sameGeometry =
      geometryValid && std::memcmp(geometry.block, c.block, sizeof c.block) == 0 &&
      std::memcmp(geometry.grid, c.grid, sizeof c.grid) == 0 &&
      geometry.wave_size == waveSize && geometry.lds_bytes == c.lds_bytes &&
      geometryLds == lds.get();
  if (!sameGeometry)
    layOutContexts(c);
  for (uint32_t flat = 0; flat < n; ++flat) {
    Fiber &f = fibers[flat];
    f.ctx.workgroup_id[0] = id[0];
    f.ctx.workgroup_id[1] = id[1];
    f.ctx.workgroup_id[2] = id[2];
    f.started = false;
    f.returned = false;
    f.barrierSite = nullptr;
    f.sp = nullptr; // its stack is laid out if it is ever switched to
    if (!waveMode || flat % waveSize == 0)
      push(&f);
  }
  live = n;
  if (waveMode) {
    // One fiber per wave: lane 0's, standing for the whole wave.
    live = numWaves;
    for (uint32_t w = 0; w < numWaves; ++w)
      waves[w].live = 1;
  }
  atBarrier = 0;
  aborted = false;
  return true;
}

void WorkgroupRunner::layOutContexts(const FlyEmuLaunchConfig &c) {
  // The dispatch packet (Emu.h): the fields kernels read.
  std::memset(dispatchPacket, 0, sizeof dispatchPacket);
  for (int d = 0; d < 3; ++d) {
    uint16_t block = uint16_t(c.block[d]);
    uint32_t items = c.grid[d] * c.block[d];
    std::memcpy(dispatchPacket + 4 + 2 * d, &block, sizeof block);
    std::memcpy(dispatchPacket + 12 + 4 * d, &items, sizeof items);
  }
  std::memcpy(dispatchPacket + 28, &c.lds_bytes, sizeof c.lds_bytes);
  // Ids without divisions: x fastest, then y, then z.
  const uint32_t waveSize = c.wave_size;
  uint32_t flat = 0;
  for (uint32_t z = 0; z < c.block[2]; ++z)
    for (uint32_t y = 0; y < c.block[1]; ++y)
      for (uint32_t x = 0; x < c.block[0]; ++x, ++flat) {
        Fiber &f = fibers[flat];
        FlyEmuContext &ctx = f.ctx;
        ctx.work_item_id[0] = x;
        ctx.work_item_id[1] = y;
        ctx.work_item_id[2] = z;
        for (int d = 0; d < 3; ++d) {
          ctx.workgroup_size[d] = c.block[d];
          ctx.grid_size[d] = c.grid[d];
        }
        ctx.flat_work_item_id = flat;
        ctx.lane_id = flat & (waveSize - 1);
        ctx.wave_id = flat / waveSize; // a shift: waveSize is 32 or 64
        ctx.wave_size = waveSize;
        ctx.lds = lds.get();
        ctx.runtime = &f;
        ctx.dispatch_packet = dispatchPacket;
        f.runner = this;
      }
  const uint32_t n = flat;
  const uint32_t numWaves = (n + waveSize - 1) / waveSize;
  waveLanes.resize(numWaves);
  waveExec.resize(numWaves);
  for (uint32_t w = 0; w < numWaves; ++w) {
    const uint32_t lanes = std::min(waveSize, n - w * waveSize);
    for (uint32_t lane = 0; lane < waveSize; ++lane)
      waveLanes[w].lane[lane] = &fibers[w * waveSize + std::min(lane, lanes - 1)].ctx;
    waveExec[w] = lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
  }
  geometry = c;
  geometryLds = lds.get();
  geometryValid = true;
}

void WorkgroupRunner::markLdsWritten(const void *address, uint64_t bytes) {
  if (!shadowOn || !launch)
    return;
  const uintptr_t base = reinterpret_cast<uintptr_t>(lds.get());
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const uint64_t size = launch->config.lds_bytes;
  // The part of [a, a + bytes) in the LDS.
  const uintptr_t first = a < base ? base : a;
  const uintptr_t last = a + bytes < a ? UINTPTR_MAX : a + bytes;
  const uintptr_t end = last > base + size ? base + size : last;
  if (first < end)
    std::memset(shadow.get() + (first - base), 0xFF, end - first);
}

void WorkgroupRunner::checkRace(Fiber &self, const void *address,
                                uint64_t bytes, const FlyEmuSite *site) {
  if (!raceOn || bytes == 0)
    return;
  const uintptr_t base = reinterpret_cast<uintptr_t>(lds.get());
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const uint64_t size = launch->config.lds_bytes;
  if (a < base || a - base > size || bytes > size - (a - base))
    return; // not in the LDS: the bounds check's
  const uint32_t me = self.ctx.flat_work_item_id;
  const uint32_t waveSize = launch->config.wave_size;
  const uint32_t myWave = me / waveSize;
  auto waveOfItem = [&](uint32_t item) { return item / waveSize; };
  const bool write = site->kind != FLY_EMU_ACCESS_LOAD;
  const bool atomic = site->kind == FLY_EMU_ACCESS_ATOMIC;
  const uint64_t first = (a - base) / 4, last = (a - base + bytes - 1) / 4;
  for (uint64_t w = first; w <= last; ++w) {
    RaceWord &word = raceWords[w];
    const RaceAccess *other = nullptr;
    if (word.writer.epoch == epoch && waveOfItem(word.writer.item) != myWave &&
        !(atomic && word.writer.site->kind == FLY_EMU_ACCESS_ATOMIC))
      other = &word.writer;
    if (!other && write) {
      if (word.reader.epoch == epoch && waveOfItem(word.reader.item) != myWave)
        other = &word.reader;
      else if (word.otherReader.epoch == epoch &&
               waveOfItem(word.otherReader.item) != myWave)
        other = &word.otherReader;
    }
    // (A copy: the record it points at may be this access's next.)
    const RaceAccess earlier = other ? *other : RaceAccess{};
    if (write) {
      word.writer = {epoch, me, site};
    } else if (word.reader.epoch != epoch) {
      word.reader = {epoch, me, site};
    } else if (word.otherReader.epoch != epoch &&
               waveOfItem(word.reader.item) != myWave) {
      word.otherReader = {epoch, me, site};
    }
    if (!other)
      continue;
    other = &earlier;
    const FlyEmuContext &them = fibers[other->item].ctx;
    const uint32_t kind = other->site->kind;
    char detail[512];
    std::snprintf(
        detail, sizeof detail,
        "LDS offset %llu, the workgroup's LDS is %llu bytes; the LDS word at "
        "offset %llu was %s at %s by work-item (%u,%u,%u) (wave %u; this is "
        "wave %u) with no barrier between",
        static_cast<unsigned long long>(a - base),
        static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(w * 4),
        kind == FLY_EMU_ACCESS_LOAD    ? "loaded"
        : kind == FLY_EMU_ACCESS_STORE ? "stored"
                                       : "atomically updated",
        other->site->location && *other->site->location ? other->site->location
                                                        : "an unknown line",
        them.work_item_id[0], them.work_item_id[1], them.work_item_id[2],
        waveOfItem(other->item), myWave);
    launch->report(*site, self.ctx,
                   std::string("LDS race: ") +
                       (site->kind == FLY_EMU_ACCESS_LOAD    ? "load"
                        : site->kind == FLY_EMU_ACCESS_STORE ? "store"
                                                             : "atomic") +
                       " of " + std::to_string(bytes) + " bytes",
                   detail);
    return; // one report per access
  }
}

static thread_local WorkgroupRunner *activeRunner = nullptr;

WorkgroupRunner *WorkgroupRunner::active() { return activeRunner; }

void WorkgroupRunner::run(LaunchState &l, const uint32_t id[3]) {
  if (!altStackReady)
    altStackReady = ensureAltStack();
  if (!prepare(l, id, /*waves=*/true))
    return;
  schedule(l, /*replay=*/false);
  if (fault.fiber && waveMode) {
    // A wave's fault names no lane (a vector access, a lane loop): run the
    // workgroup again as work-items, which fault where the wave did and
    // name the work-item. (The launch fails either way; what the wave
    // wrote before it faulted is written again.)
    std::string waveFault = describeFault();
    fault = Fault();
    if (prepare(l, id, /*waves=*/false))
      schedule(l, /*replay=*/true);
    if (!fault.fiber && l.error.empty())
      l.fail(waveFault);
  }
  if (fault.fiber) {
    // Back on the scheduler's stack with the signal mask restored: safe to
    // build the message and take the launch's lock.
    l.fail(describeFault());
    fault = Fault();
    launch = nullptr;
    return;
  }
  if (!aborted && live != 0 && !l.aborted.load(std::memory_order_relaxed))
    l.fail("emulator: workgroup (" + std::to_string(id[0]) + "," +
           std::to_string(id[1]) + "," + std::to_string(id[2]) +
           ") deadlocked: " + std::to_string(live) +
           " work-items wait for each other");
  launch = nullptr;
}

void WorkgroupRunner::schedule(LaunchState &l, bool replay) {
  activeRunner = this;
  replaying = replay;
  // Control comes back here only when no fiber is ready (see park/leave),
  // or from the fault handler (catchFault) after a kernel fault. A replay
  // runs in a launch already stopped.
  while (!aborted && (replay || !l.aborted.load(std::memory_order_relaxed)))
    if (Fiber *f = pop())
      switchTo(&schedulerSp, f);
    else
      break;
  activeRunner = nullptr;
  current = nullptr;
  inKernel = false;
  replaying = false;
}

void WorkgroupRunner::park(Fiber &self) {
  // Another workgroup's trap stops this one at its next switch point (but
  // not the replay of a faulted wave, which runs in a stopped launch).
  if (!replaying && launch->aborted.load(std::memory_order_relaxed))
    aborted = true;
  Fiber *next = aborted ? nullptr : pop();
  if (next) {
    switchTo(&self.sp, next);
  } else {
    current = nullptr;
    fly_emu_switch(&self.sp, schedulerSp);
  }
}

void WorkgroupRunner::leave(Fiber &self) {
  Fiber *next = aborted ? nullptr : pop();
  if (next) {
    switchTo(&self.sp, next);
  } else {
    current = nullptr;
    fly_emu_switch(&self.sp, schedulerSp);
  }
  __builtin_unreachable(); // nothing resumes a fiber that left
}

void WorkgroupRunner::switchTo(void **save, Fiber *next) {
  if (!next->sp)
    next->sp = prepareStack(stacks.top(stackIndex(*next)),
                            fiberMain, next);
  current = next;
  fly_emu_switch(save, next->sp);
}

void WorkgroupRunner::releaseBarrier() {
  if (raceOn && ++epoch == 0) {
    std::fill(raceWords.begin(), raceWords.end(), RaceWord{});
    epoch = 1;
  }
  for (Fiber *f : barrierWaiters) {
    f->barrierSite = nullptr;
    waveOf(*f).atBarrier = 0;
    push(f);
  }
  barrierWaiters.clear();
  atBarrier = 0;
}

void WorkgroupRunner::fire(Wave &wave, const Fiber *self) {
  computeWaveOp(wave.op, wave.lanes);
  uint64_t exec = wave.lanes.exec;
  while (exec) {
    uint32_t lane = uint32_t(__builtin_ctzll(exec));
    exec &= exec - 1;
    Fiber *f = &fibers[wave.firstFiber + lane];
    if (f != self)
      push(f);
  }
  wave.parked = 0;
  wave.lanes.exec = 0;
  wave.op = WaveOp::None;
}

void WorkgroupRunner::barrier(Fiber &self) {
  RuntimeCall call(*this);
  Wave &wave = waveOf(self);
  ++atBarrier;
  if (atBarrier == live) {
    // Last arrival: everyone else waits here, so no collective is pending.
    if (launch->checks & FLY_EMU_CHECK_BARRIER) {
      barrierWaiters.push_back(&self);
      checkBarrierRelease();
      barrierWaiters.pop_back();
    }
    self.barrierSite = nullptr;
    releaseBarrier();
    return;
  }
  ++wave.atBarrier;
  // Lanes of this wave waiting at a collective were waiting for this lane;
  // it went another way, so they run the collective without it.
  if (wave.parked && wave.parked + wave.atBarrier == wave.live)
    fire(wave, nullptr);
  barrierWaiters.push_back(&self);
  park(self);
}

uint64_t WorkgroupRunner::collective(Fiber &self, WaveOp op, uint64_t value,
                                     uint32_t aux) {
  RuntimeCall call(*this);
  Wave &wave = waveOf(self);
  const uint32_t lane = self.ctx.lane_id;
  if (wave.parked && wave.op != op) {
    // A buffer, not a std::string: trap never returns to free it.
    char message[128];
    std::snprintf(message, sizeof message,
                  "lanes of wave %u diverged across different wave operations "
                  "(%s and %s)",
                  self.ctx.wave_id, waveOpName(wave.op), waveOpName(op));
    trap(self, message);
  }
  wave.op = op;
  wave.lanes.in[lane] = value;
  wave.lanes.aux[lane] = aux;
  wave.lanes.exec |= uint64_t(1) << lane;
  if (++wave.parked + wave.atBarrier == wave.live)
    fire(wave, &self);
  else
    park(self);
  return wave.lanes.out[lane];
}

Fiber *WorkgroupRunner::exit(Fiber &self) {
  Wave &wave = waveOf(self);
  --live;
  --wave.live;
  self.returned = true;
  if (wave.parked && wave.parked + wave.atBarrier == wave.live)
    fire(wave, nullptr);
  if (atBarrier && atBarrier == live) {
    if (launch->checks & FLY_EMU_CHECK_BARRIER)
      checkBarrierRelease();
    releaseBarrier();
  }
  // This stack is free now, and a work-item that has not started needs
  // nothing but a stack: run it here, without a switch. A kernel without
  // barriers or collectives so runs its whole workgroup on one stack.
  if (!aborted && head != tail && !ready[head & readyMask]->started)
    return pop();
  leave(self);
}

void WorkgroupRunner::checkedBarrier(Fiber &self, const FlyEmuSite *site) {
  self.barrierSite = site;
  barrier(self);
}

static std::string workItem(const FlyEmuContext &c) {
  return "(" + std::to_string(c.work_item_id[0]) + "," +
         std::to_string(c.work_item_id[1]) + "," +
         std::to_string(c.work_item_id[2]) + ")";
}

static std::string siteWhere(const FlyEmuSite *site) {
  return site && site->location && *site->location ? site->location
                                                    : "an unknown line";
}

void WorkgroupRunner::checkBarrierRelease() {
  // Every work-item that has not returned is in barrierWaiters now.
  if (barrierWaiters.empty())
    return;
  static const FlyEmuSite unknown = {"", "", FLY_EMU_ACCESS_BARRIER,
                                     FLY_EMU_SPACE_GLOBAL, -1, 0};
  auto siteOf = [&](const Fiber *f) {
    return f->barrierSite ? f->barrierSite : &unknown;
  };
  const Fiber *first = barrierWaiters.front();
  for (const Fiber *f : barrierWaiters)
    if (siteOf(f) != siteOf(first)) {
      launch->report(*siteOf(first), first->ctx, "barrier divergence",
                     "it waits at this barrier while work-item " +
                         workItem(f->ctx) + " waits at the barrier at " +
                         siteWhere(siteOf(f)) +
                         " (work-items of a workgroup reach different "
                         "barriers)");
      return;
    }
  const FlyEmuLaunchConfig &c = launch->config;
  const uint32_t n = c.block[0] * c.block[1] * c.block[2];
  uint32_t lastWave = UINT32_MAX;
  for (const Fiber *f : barrierWaiters) {
    uint32_t w = f->ctx.wave_id;
    if (w == lastWave)
      continue;
    lastWave = w;
    const Wave &wave = waves[w];
    uint32_t lanes = std::min(c.wave_size, n - wave.firstFiber);
    if (wave.live == lanes)
      continue;
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      const Fiber &other = fibers[wave.firstFiber + lane];
      if (!other.returned)
        continue;
      launch->report(*siteOf(f), f->ctx, "barrier divergence",
                     "it waits at this barrier while work-item " +
                         workItem(other.ctx) + " of its wave (wave " +
                         std::to_string(w) +
                         ") returned without reaching it (a barrier under a "
                         "lane-dependent condition)");
      return;
    }
  }
}

void WorkgroupRunner::trap(Fiber &self, const char *message) {
  inKernel = false; // never goes back to the kernel
  const FlyEmuContext &c = self.ctx;
  char where[160];
  std::snprintf(where, sizeof where,
                "kernel trap in workgroup (%u,%u,%u), work-item (%u,%u,%u): ",
                c.workgroup_id[0], c.workgroup_id[1], c.workgroup_id[2],
                c.work_item_id[0], c.work_item_id[1], c.work_item_id[2]);
  launch->fail(std::string(where) + (message ? message : "(no message)"));
  aborted = true;
  leave(self);
}

} // namespace fly::emu

// ---- The C ABI called by generated code -----------------------------------

using fly::emu::Fiber;
using fly::emu::WaveOp;

static inline Fiber &fiberOf(FlyEmuContext *ctx) {
  return *static_cast<Fiber *>(ctx->runtime);
}

extern "C" {

uint32_t fly_emu_work_item_id(const FlyEmuContext *ctx, uint32_t dim) {
  return ctx->work_item_id[dim];
}
uint32_t fly_emu_workgroup_id(const FlyEmuContext *ctx, uint32_t dim) {
  return ctx->workgroup_id[dim];
}
uint32_t fly_emu_workgroup_size(const FlyEmuContext *ctx, uint32_t dim) {
  return ctx->workgroup_size[dim];
}
uint32_t fly_emu_grid_size(const FlyEmuContext *ctx, uint32_t dim) {
  return ctx->grid_size[dim];
}
void *fly_emu_lds_base(const FlyEmuContext *ctx) { return ctx->lds; }

void fly_emu_barrier(FlyEmuContext *ctx) {
  Fiber &f = fiberOf(ctx);
  f.runner->barrier(f);
}

void fly_emu_barrier_checked(FlyEmuContext *ctx, const FlyEmuSite *site) {
  Fiber &f = fiberOf(ctx);
  f.runner->checkedBarrier(f, site);
}

uint32_t fly_emu_readlane(FlyEmuContext *ctx, uint32_t value, uint32_t lane) {
  Fiber &f = fiberOf(ctx);
  return uint32_t(f.runner->collective(f, WaveOp::ReadLane, value, lane));
}

uint32_t fly_emu_readfirstlane(FlyEmuContext *ctx, uint32_t value) {
  Fiber &f = fiberOf(ctx);
  return uint32_t(f.runner->collective(f, WaveOp::ReadFirstLane, value, 0));
}

uint32_t fly_emu_ds_bpermute(FlyEmuContext *ctx, uint32_t addr,
                             uint32_t value) {
  Fiber &f = fiberOf(ctx);
  return uint32_t(f.runner->collective(f, WaveOp::BPermute, value, addr));
}

uint32_t fly_emu_ds_swizzle(FlyEmuContext *ctx, uint32_t value,
                            uint32_t offset) {
  Fiber &f = fiberOf(ctx);
  char message[160];
  if (!fly::emu::swizzleEmulated(offset, message, sizeof message))
    f.runner->trap(f, message);
  return uint32_t(f.runner->collective(f, WaveOp::Swizzle, value, offset));
}

uint32_t fly_emu_update_dpp(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                            uint32_t control) {
  Fiber &f = fiberOf(ctx);
  char message[96];
  if (!fly::emu::dppControlKnown(control, message, sizeof message))
    f.runner->trap(f, message);
  uint64_t both = (uint64_t(old) << 32) | src;
  return uint32_t(f.runner->collective(f, WaveOp::Dpp, both, control));
}

uint32_t fly_emu_permlanex16(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                             uint32_t sel_lo, uint32_t sel_hi, uint32_t flags) {
  Fiber &f = fiberOf(ctx);
  uint64_t both = (uint64_t(old) << 32) | src;
  return uint32_t(f.runner->collective(
      f, WaveOp::PermlaneX16, both,
      fly::emu::permlaneX16Aux(f.ctx.lane_id, sel_lo, sel_hi, flags)));
}

uint64_t fly_emu_permlane_swap(FlyEmuContext *ctx, uint32_t old, uint32_t src,
                               uint32_t flags) {
  Fiber &f = fiberOf(ctx);
  uint64_t both = (uint64_t(old) << 32) | src;
  return f.runner->collective(f, WaveOp::PermlaneSwap, both, flags);
}

uint64_t fly_emu_ballot(FlyEmuContext *ctx, uint32_t predicate) {
  Fiber &f = fiberOf(ctx);
  return f.runner->collective(f, WaveOp::Ballot, predicate != 0, 0);
}

void fly_emu_trap(FlyEmuContext *ctx, const char *message) {
  Fiber &f = fiberOf(ctx);
  f.runner->trap(f, message);
}

void fly_emu_trap_misaligned(FlyEmuContext *ctx, const char *what,
                             const void *address, uint64_t align) {
  // An LDS access names its offset in the workgroup's LDS (what the kernel
  // computed), anything else its address.
  auto at = reinterpret_cast<uintptr_t>(address);
  auto lds = reinterpret_cast<uintptr_t>(ctx->lds);
  bool inLds = std::strncmp(what, "LDS ", 4) == 0 && at >= lds;
  char message[512];
  std::snprintf(message, sizeof message,
                inLds ? "misaligned %s: LDS offset %llu is not a multiple of "
                        "%llu bytes, the alignment the code declares for it"
                      : "misaligned %s: address 0x%llx is not a multiple of "
                        "%llu bytes, the alignment the code declares for it",
                what, static_cast<unsigned long long>(inLds ? at - lds : at),
                static_cast<unsigned long long>(align));
  Fiber &f = fiberOf(ctx);
  f.runner->trap(f, message);
}

} // extern "C"
