//===- fly-emu-selftest.cpp - Hand-written kernels on the emulator --------===//
//
// Each subcommand launches kernels written against fly/runtime/Emu.h the way
// generated code uses it (ids from the context, LDS from its base pointer,
// barriers and wave operations as calls) and prints `key: value` lines. The
// pytest driver (test/python/test_emu_runtime.py) recomputes the expected
// values itself and compares.
//
//   fly-emu-selftest barrier [--skip-barrier]
//   fly-emu-selftest exited
//   fly-emu-selftest lds-isolation
//   fly-emu-selftest reduce --wave 64|32
//   fly-emu-selftest lanes --wave 64|32
//   fly-emu-selftest ballot --wave 64|32
//   fly-emu-selftest divergent
//   fly-emu-selftest big
//   fly-emu-selftest trap
//   fly-emu-selftest bad
//   fly-emu-selftest overflow
//   fly-emu-selftest fault read-protected|read-unmapped|write-readonly|bus|pool
//   fly-emu-selftest fault-chain
//   fly-emu-selftest fault-outside    (dies of SIGSEGV, as it should)
//   fly-emu-selftest fault-runtime    (dies of SIGSEGV, as it should)
//   fly-emu-selftest fuzz [cases]
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Emu.h"

#include "Workgroup.h" // committed stack bytes of the calling thread

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

FlyEmuLaunchConfig makeConfig(uint32_t grid, uint32_t block, uint32_t waveSize,
                              uint32_t ldsBytes, uint32_t threads) {
  FlyEmuLaunchConfig c{};
  c.grid[0] = grid;
  c.grid[1] = c.grid[2] = 1;
  c.block[0] = block;
  c.block[1] = c.block[2] = 1;
  c.wave_size = waveSize;
  c.lds_bytes = ldsBytes;
  c.num_threads = threads;
  return c;
}

bool launchOrReport(FlyEmuKernelFn kernel, void *args,
                    const FlyEmuLaunchConfig &config) {
  if (const char *error = fly_emu_launch(kernel, args, &config)) {
    std::printf("error: %s\n", error);
    return false;
  }
  return true;
}

template <typename T> void printList(const char *key, const std::vector<T> &v) {
  std::printf("%s:", key);
  for (const T &x : v)
    std::printf(" %lld", static_cast<long long>(x));
  std::printf("\n");
}

uint32_t *ldsWords(FlyEmuContext *ctx) {
  return static_cast<uint32_t *>(fly_emu_lds_base(ctx));
}

// ---- (a) barrier: write LDS, barrier, read the neighbour's slot -----------

struct BarrierArgs {
  uint32_t *out;
  int skipBarrier;
};

void barrierKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<BarrierArgs *>(argp);
  uint32_t n = ctx->workgroup_size[0], tid = ctx->work_item_id[0];
  uint32_t wg = ctx->workgroup_id[0];
  uint32_t *lds = ldsWords(ctx);
  lds[tid] = wg * 1000 + tid + 1;
  if (!args->skipBarrier)
    fly_emu_barrier(ctx);
  args->out[wg * n + tid] = lds[(tid + 1) % n];
}

int runBarrier(bool skip) {
  const uint32_t grid = 4, block = 128;
  // LDS is uninitialised: fill it with a value no kernel writes, so the
  // skipped-barrier run cannot read a stale right answer.
  FlyEmuLaunchConfig poison = makeConfig(1, block, 64, block * 4, 1);
  auto poisonKernel = [](FlyEmuContext *ctx, void *) {
    ldsWords(ctx)[ctx->work_item_id[0]] = 0xdeadbeef;
  };
  if (!launchOrReport(poisonKernel, nullptr, poison))
    return 1;
  std::vector<uint32_t> out(grid * block, 0);
  BarrierArgs args{out.data(), skip ? 1 : 0};
  // One thread: the poisoned LDS buffer is the one the kernel gets.
  if (!launchOrReport(barrierKernel, &args,
                      makeConfig(grid, block, 64, block * 4, 1)))
    return 1;
  printList("out", out);
  return 0;
}

// ---- work-items that return early do not block barriers or collectives ---

struct ExitedArgs {
  uint32_t *out;
  uint64_t *masks;
};

void exitedKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<ExitedArgs *>(argp);
  uint32_t n = ctx->workgroup_size[0], tid = ctx->work_item_id[0];
  if (tid % 3 == 0)
    return;
  uint32_t *lds = ldsWords(ctx);
  lds[tid] = tid * 2 + 1;
  fly_emu_barrier(ctx);
  uint32_t partner = n - 1 - tid;
  args->out[tid] = lds[partner % 3 == 0 ? tid : partner];
  fly_emu_barrier(ctx);
  uint64_t mask = fly_emu_ballot(ctx, 1);
  if (ctx->lane_id == 1)
    args->masks[ctx->wave_id] = mask;
}

int runExited() {
  const uint32_t block = 128;
  std::vector<uint32_t> out(block, 0);
  std::vector<uint64_t> masks(2, 0);
  ExitedArgs args{out.data(), masks.data()};
  if (!launchOrReport(exitedKernel, &args, makeConfig(1, block, 64, 512, 1)))
    return 1;
  printList("out", out);
  std::printf("masks: %016" PRIx64 " %016" PRIx64 "\n", masks[0], masks[1]);
  return 0;
}

// ---- (b) LDS isolation between workgroups running at the same time --------

struct IsolationArgs {
  uint64_t *sums; // one per work-item of the grid
  std::atomic<int> *arrived;
  int *rendezvousFailed;
};

void isolationKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<IsolationArgs *>(argp);
  const uint32_t n = ctx->workgroup_size[0], tid = ctx->work_item_id[0];
  const uint32_t wg = ctx->workgroup_id[0];
  const uint32_t slots = 4096;
  uint32_t *lds = ldsWords(ctx);
  uint64_t sum = 0;
  for (uint32_t round = 0; round < 4; ++round) {
    for (uint32_t k = 0; k < slots / n; ++k) {
      uint32_t s = tid * (slots / n) + k;
      lds[s] = wg * 10007 + round * 101 + s % 97;
    }
    // Workgroups 0 and 1 meet here with their LDS written: both are live
    // on two OS threads at once, each about to read its own LDS.
    if (round == 0 && wg < 2 && tid == 0) {
      args->arrived->fetch_add(1);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (args->arrived->load() < 2)
        if (std::chrono::steady_clock::now() > deadline) {
          *args->rendezvousFailed = 1;
          break;
        }
    }
    fly_emu_barrier(ctx);
    for (uint32_t k = 0; k < slots / n; ++k)
      sum += lds[k * n + tid];
    fly_emu_barrier(ctx);
  }
  args->sums[wg * n + tid] = sum;
}

int runIsolation() {
  const uint32_t grid = 64, block = 64;
  std::vector<uint64_t> sums(grid * block, 0);
  std::atomic<int> arrived{0};
  int failed = 0;
  IsolationArgs args{sums.data(), &arrived, &failed};
  if (!launchOrReport(isolationKernel, &args,
                      makeConfig(grid, block, 64, 4096 * 4, 4)))
    return 1;
  std::vector<uint64_t> perGroup(grid, 0);
  for (uint32_t i = 0; i < grid * block; ++i)
    perGroup[i / block] += sums[i];
  printList("sums", perGroup);
  std::printf("rendezvous: %s\n", failed ? "failed" : "ok");
  return 0;
}

// ---- (c) reduction with ds_bpermute butterflies and readlane --------------

struct ReduceArgs {
  const uint32_t *in;
  uint64_t *out;
  uint32_t *disagreements;
};

void reduceKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<ReduceArgs *>(argp);
  const uint32_t n = ctx->workgroup_size[0], tid = ctx->work_item_id[0];
  const uint32_t wg = ctx->workgroup_id[0], ws = ctx->wave_size;
  const uint32_t lane = ctx->lane_id;
  uint32_t v = args->in[wg * n + tid];
  // Butterfly: lane i adds lane (i ^ offset), addressed in bytes.
  for (uint32_t offset = ws / 2; offset; offset /= 2)
    v += fly_emu_ds_bpermute(ctx, (lane ^ offset) * 4, v);
  // Every lane holds the wave's total now.
  uint32_t first = fly_emu_readfirstlane(ctx, v);
  uint32_t last = fly_emu_readlane(ctx, v, ws - 1);
  if (first != v || last != v)
    __atomic_fetch_add(args->disagreements, 1, __ATOMIC_RELAXED);
  uint32_t *lds = ldsWords(ctx);
  if (lane == 0)
    lds[ctx->wave_id] = first;
  fly_emu_barrier(ctx);
  if (tid == 0) {
    uint64_t total = 0;
    for (uint32_t w = 0; w < n / ws; ++w)
      total += lds[w];
    args->out[wg] = total;
  }
}

int runReduce(uint32_t ws) {
  const uint32_t grid = 3, block = 256;
  std::vector<uint32_t> in(grid * block);
  for (uint32_t g = 0; g < grid * block; ++g)
    in[g] = uint32_t(g * 2654435761u) % 1000;
  std::vector<uint64_t> out(grid, 0);
  uint32_t disagreements = 0;
  ReduceArgs args{in.data(), out.data(), &disagreements};
  if (!launchOrReport(reduceKernel, &args,
                      makeConfig(grid, block, ws, 64 * 4, 2)))
    return 1;
  printList("sums", out);
  std::printf("disagreements: %u\n", disagreements);
  return 0;
}

// ---- lane operations at their edges: wrap, inactive lanes, first lane -----

struct LanesArgs {
  int64_t *bperm, *readl, *readlWrapped, *first;
};

void lanesKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<LanesArgs *>(argp);
  const uint32_t flat = ctx->flat_work_item_id, lane = ctx->lane_id;
  const uint32_t ws = ctx->wave_size;
  if (lane < 3) // lanes 0..2 of every wave are inactive from here on
    return;
  uint32_t v = 1000 + flat;
  // Past-the-wave lane number and a byte address that is not a multiple
  // of 4: both must fold to lane (lane + 1) mod ws.
  args->bperm[flat] = fly_emu_ds_bpermute(ctx, (lane + ws + 1) * 4 + 3, v);
  args->readl[flat] = fly_emu_readlane(ctx, v, 17);
  args->readlWrapped[flat] = fly_emu_readlane(ctx, v, 17 + ws);
  args->first[flat] = fly_emu_readfirstlane(ctx, v);
}

int runLanes(uint32_t ws) {
  const uint32_t block = 80; // a partial last wave in both wave sizes
  std::vector<int64_t> bperm(block, -1), readl(block, -1), wrapped(block, -1),
      first(block, -1);
  LanesArgs args{bperm.data(), readl.data(), wrapped.data(), first.data()};
  if (!launchOrReport(lanesKernel, &args, makeConfig(1, block, ws, 0, 1)))
    return 1;
  printList("bpermute", bperm);
  printList("readlane", readl);
  printList("readlane_wrapped", wrapped);
  printList("readfirstlane", first);
  return 0;
}

// ---- (d) ballot ----------------------------------------------------------

struct BallotArgs {
  uint64_t *masks; // per lane
};

void ballotKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<BallotArgs *>(argp);
  const uint32_t flat = ctx->flat_work_item_id, lane = ctx->lane_id;
  if (flat % 7 == 6)
    return;
  bool predicate = flat % 3 == 0 || lane == ctx->wave_size - 1;
  args->masks[flat] = fly_emu_ballot(ctx, predicate);
}

int runBallot(uint32_t ws) {
  const uint32_t block = 80;
  std::vector<uint64_t> masks(block, 0);
  BallotArgs args{masks.data()};
  FlyEmuLaunchConfig c = makeConfig(1, block, ws, 0, 1);
  if (!launchOrReport(ballotKernel, &args, c))
    return 1;
  std::printf("masks:");
  for (uint64_t m : masks)
    std::printf(" %016" PRIx64, m);
  std::printf("\n");
  return 0;
}

// ---- a collective in divergent control flow -------------------------------

struct DivergentArgs {
  uint64_t *masks;
  uint32_t *after;
};

void divergentKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<DivergentArgs *>(argp);
  const uint32_t lane = ctx->lane_id;
  if (lane < 16) // only these lanes are in EXEC for the ballot
    args->masks[ctx->flat_work_item_id] = fly_emu_ballot(ctx, lane % 2);
  fly_emu_barrier(ctx);
  args->after[ctx->flat_work_item_id] = 1;
}

void mixedKernel(FlyEmuContext *ctx, void *) {
  if (ctx->lane_id < 8)
    fly_emu_ballot(ctx, 1);
  else
    fly_emu_readfirstlane(ctx, 7);
}

int runDivergent() {
  const uint32_t block = 64;
  std::vector<uint64_t> masks(block, 0);
  std::vector<uint32_t> after(block, 0);
  DivergentArgs args{masks.data(), after.data()};
  if (!launchOrReport(divergentKernel, &args, makeConfig(1, block, 64, 0, 1)))
    return 1;
  std::printf("masks:");
  for (uint64_t m : masks)
    std::printf(" %016" PRIx64, m);
  std::printf("\n");
  printList("after", after);
  FlyEmuLaunchConfig one = makeConfig(1, 64, 64, 0, 1);
  const char *error = fly_emu_launch(mixedKernel, nullptr, &one);
  std::printf("mixed: %s\n", error ? error : "OK");
  return 0;
}

// ---- (e) a 1024-work-item workgroup, and what it commits ------------------

long rssAnonBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("RssAnon:", 0) == 0)
      return std::atol(line.c_str() + 8) * 1024;
  return -1;
}

struct BigArgs {
  uint64_t *out;
  uint32_t *badIds;
};

void bigKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<BigArgs *>(argp);
  const uint32_t x = ctx->work_item_id[0], y = ctx->work_item_id[1];
  const uint32_t flat = ctx->flat_work_item_id;
  if (flat != x + y * ctx->workgroup_size[0] ||
      ctx->wave_id != flat / ctx->wave_size)
    __atomic_fetch_add(args->badIds, 1, __ATOMIC_RELAXED);
  // Some private memory on the fiber's stack, as allocas would use.
  volatile uint32_t scratch[256];
  for (uint32_t i = 0; i < 256; ++i)
    scratch[i] = flat + i;
  uint32_t *lds = ldsWords(ctx); // 64 KiB: 16 words per work-item
  for (uint32_t k = 0; k < 16; ++k)
    lds[k * 1024 + flat] = flat * 16 + k + scratch[k] - flat - k;
  fly_emu_barrier(ctx);
  uint64_t sum = 0;
  for (uint32_t k = 0; k < 16; ++k)
    sum += lds[k * 1024 + (1023 - flat)];
  fly_emu_barrier(ctx);
  lds[flat] = uint32_t(sum);
  fly_emu_barrier(ctx);
  args->out[flat] = lds[(flat + 1) % 1024];
}

int runBig() {
  std::vector<uint64_t> out(1024, 0);
  uint32_t badIds = 0;
  BigArgs args{out.data(), &badIds};
  FlyEmuLaunchConfig c = makeConfig(1, 32, 64, 65536, 1);
  c.block[1] = 32; // 32 x 32
  long before = rssAnonBytes();
  if (!launchOrReport(bigKernel, &args, c))
    return 1;
  long after = rssAnonBytes();
  printList("out", out);
  std::printf("bad_ids: %u\n", badIds);
  std::printf("rss_delta_bytes: %ld\n", after - before);
  std::printf("committed_stack_bytes: %zu\n",
              fly::emu::WorkgroupRunner::forThisThread().committedStackBytes());
  std::printf("stack_bytes_per_fiber: %u\n", FLY_EMU_DEFAULT_STACK);
  return 0;
}

// ---- (f) a trap stops the launch with an error; the process goes on -------

struct TrapArgs {
  uint32_t *out;
};

void trapKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<TrapArgs *>(argp);
  const uint32_t tid = ctx->work_item_id[0], wg = ctx->workgroup_id[0];
  ldsWords(ctx)[tid] = tid;
  fly_emu_barrier(ctx);
  if (wg == 5 && tid == 37)
    fly_emu_trap(ctx, "buffer load at index 99 is out of bounds (size 64)");
  fly_emu_barrier(ctx);
  args->out[wg * ctx->workgroup_size[0] + tid] = 1;
}

int runTrap() {
  const uint32_t grid = 8, block = 64;
  std::vector<uint32_t> out(grid * block, 0);
  TrapArgs args{out.data()};
  FlyEmuLaunchConfig c = makeConfig(grid, block, 64, 256, 2);
  const char *error = fly_emu_launch(trapKernel, &args, &c);
  std::printf("error: %s\n", error ? error : "none");
  uint32_t wg5 = 0;
  for (uint32_t t = 0; t < block; ++t)
    wg5 += out[5 * block + t];
  std::printf("workgroup5_finished: %u\n", wg5);
  // The runtime is usable afterwards, on the same threads.
  std::vector<uint32_t> out2(4 * 128, 0);
  BarrierArgs again{out2.data(), 0};
  FlyEmuLaunchConfig good = makeConfig(4, 128, 64, 512, 2);
  const char *second = fly_emu_launch(barrierKernel, &again, &good);
  std::printf("after: %s\n", second ? second : "OK");
  printList("after_out", out2);
  return 0;
}

// ---- a fiber stack overflow is an error too ------------------------------

// ~600 bytes of stack a level: 100 levels need ~60 KiB, over the default.
__attribute__((noinline)) uint32_t deep(uint32_t depth) {
  volatile uint32_t frame[128];
  for (uint32_t i = 0; i < 128; ++i)
    frame[i] = depth + i;
  if (depth == 0)
    return frame[7];
  return deep(depth - 1) + frame[depth % 128];
}

struct DeepArgs {
  uint32_t *out;
};

void deepKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<DeepArgs *>(argp);
  const uint32_t tid = ctx->work_item_id[0], wg = ctx->workgroup_id[0];
  fly_emu_barrier(ctx); // every work-item has started: each owns a stack
  uint32_t depth = wg == 1 && tid == 3 ? 100 : 2;
  args->out[wg * ctx->workgroup_size[0] + tid] = deep(depth);
}

int runOverflow() {
  const uint32_t grid = 2, block = 64;
  std::vector<uint32_t> out(grid * block, 0);
  DeepArgs args{out.data()};
  // Two threads: the overflow may happen on a pool worker.
  FlyEmuLaunchConfig c = makeConfig(grid, block, 64, 0, 2);
  const char *error = fly_emu_launch(deepKernel, &args, &c);
  std::printf("default_stack: %s\n", error ? error : "OK");
  c.stack_bytes = 256 * 1024;
  error = fly_emu_launch(deepKernel, &args, &c);
  std::printf("big_stack: %s\n", error ? error : "OK");
  printList("out", out);
  return 0;
}

// ---- random geometries: exits, barriers and ballots interleaved -----------

constexpr uint32_t kFuzzRounds = 4;

struct FuzzArgs {
  const uint32_t *life; // rounds each work-item runs before returning
  uint32_t *out;
};

void fuzzKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<FuzzArgs *>(argp);
  const uint32_t *b = ctx->workgroup_size;
  const uint32_t n = b[0] * b[1] * b[2];
  const uint32_t flat = ctx->work_item_id[0] +
                        b[0] * (ctx->work_item_id[1] + b[1] * ctx->work_item_id[2]);
  const uint32_t wg = ctx->workgroup_id[0] +
                      ctx->grid_size[0] *
                          (ctx->workgroup_id[1] + ctx->grid_size[1] * ctx->workgroup_id[2]);
  uint32_t *lds = ldsWords(ctx);
  uint32_t *out = args->out + wg * n;
  uint32_t acc = wg;
  lds[flat] = 50000 + flat;
  for (uint32_t r = 0; r < kFuzzRounds; ++r) {
    if (r == args->life[flat])
      break;
    fly_emu_barrier(ctx); // the previous round's reads are done
    lds[flat] = flat * 131 + r;
    fly_emu_barrier(ctx);
    acc += lds[(flat * 7 + r) % n];
    uint64_t mask = fly_emu_ballot(ctx, acc & 1);
    acc += uint32_t(__builtin_popcountll(mask));
  }
  out[flat] = acc;
}

int runFuzz(uint32_t cases) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&](uint32_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t((state >> 33) % bound);
  };
  for (uint32_t k = 0; k < cases; ++k) {
    FlyEmuLaunchConfig c{};
    do {
      c.block[0] = 1 + next(96);
      c.block[1] = 1 + next(12);
      c.block[2] = 1 + next(4);
    } while (c.block[0] * c.block[1] * c.block[2] > 1024);
    for (int d = 0; d < 3; ++d)
      c.grid[d] = 1 + next(d == 0 ? 3 : 2);
    c.wave_size = next(2) ? 64 : 32;
    c.num_threads = 1 + next(3);
    const uint32_t n = c.block[0] * c.block[1] * c.block[2];
    c.lds_bytes = n * 4;
    std::vector<uint32_t> life(n);
    for (uint32_t &l : life)
      l = next(2) ? kFuzzRounds : next(kFuzzRounds + 1);
    const uint32_t groups = c.grid[0] * c.grid[1] * c.grid[2];
    std::vector<uint32_t> out(groups * n, 0xffffffffu);
    FuzzArgs args{life.data(), out.data()};
    if (!launchOrReport(fuzzKernel, &args, c))
      return 1;
    std::printf("case%u: %u %u %u %u %u %u %u\n", k, c.block[0], c.block[1],
                c.block[2], c.grid[0], c.grid[1], c.grid[2], c.wave_size);
    std::printf("life%u:", k);
    for (uint32_t l : life)
      std::printf(" %u", l);
    std::printf("\n");
    std::printf("out%u:", k);
    for (uint32_t v : out)
      std::printf(" %u", v);
    std::printf("\n");
  }
  return 0;
}

// ---- (g) launches the emulator refuses ------------------------------------

void emptyKernel(FlyEmuContext *, void *) {}

int runBad() {
  auto report = [](const char *name, FlyEmuKernelFn kernel,
                   const FlyEmuLaunchConfig &c) {
    const char *error = fly_emu_launch(kernel, nullptr, &c);
    std::printf("%s: %s\n", name, error ? error : "OK");
  };
  FlyEmuLaunchConfig c = makeConfig(1, 64, 64, 0, 1);
  c.block[0] = 64;
  c.block[1] = 32;
  report("block_2048", emptyKernel, c);
  report("block_1025", emptyKernel, makeConfig(1, 1025, 64, 0, 1));
  report("block_1024", emptyKernel, makeConfig(1, 1024, 64, 0, 1));
  report("lds_over", emptyKernel, makeConfig(1, 64, 64, 65537, 1));
  c = makeConfig(1, 64, 64, 160 * 1024, 1);
  c.lds_limit = 160 * 1024; // gfx950's LDS
  report("lds_big_limit", emptyKernel, c);
  c.lds_bytes = 160 * 1024 + 4;
  report("lds_over_big_limit", emptyKernel, c);
  report("wave_48", emptyKernel, makeConfig(1, 64, 48, 0, 1));
  report("wave_16", emptyKernel, makeConfig(1, 64, 16, 0, 1));
  report("grid_0", emptyKernel, makeConfig(0, 64, 64, 0, 1));
  report("block_0", emptyKernel, makeConfig(1, 0, 64, 0, 1));
  report("no_kernel", nullptr, makeConfig(1, 64, 64, 0, 1));
  c = makeConfig(1, 64, 64, 0, 1);
  c.stack_bytes = 100;
  report("stack_tiny", emptyKernel, c);
  return 0;
}

// ---- an invalid memory access of a kernel is an error too -----------------

size_t pageBytes() { return size_t(sysconf(_SC_PAGESIZE)); }

// One page of anonymous memory with protection `prot`, filled with `fill`
// first when it can be written to.
char *mapPage(int prot, unsigned char fill) {
  void *p = mmap(nullptr, pageBytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  std::memset(p, fill, pageBytes());
  if (mprotect(p, pageBytes(), prot) != 0) {
    std::perror("mprotect");
    std::exit(1);
  }
  return static_cast<char *>(p);
}

struct FaultArgs {
  uint32_t faultGroup, faultItem; // the one work-item that faults
  volatile uint32_t *target;      // what it accesses
  int write;                      // a store, else a load
  uint32_t *finished;             // 1 per work-item that ran to the end
  uint32_t sink;
};

void faultKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<FaultArgs *>(argp);
  const uint32_t tid = ctx->work_item_id[0], wg = ctx->workgroup_id[0];
  fly_emu_barrier(ctx); // every work-item of the workgroup has started
  if (wg == args->faultGroup && tid == args->faultItem) {
    if (args->write)
      *args->target = 0x5eed;
    else
      args->sink = *args->target;
  }
  fly_emu_barrier(ctx);
  args->finished[wg * ctx->workgroup_size[0] + tid] = 1;
}

// Launches faultKernel with work-item `item` of workgroup `group` accessing
// `target`, prints the error, the address and what finished, then runs the
// barrier kernel in the same process (and threads) and prints its output.
int launchFault(const char *what, uint32_t grid, uint32_t threads,
                uint32_t group, uint32_t item, volatile uint32_t *target,
                bool write) {
  const uint32_t block = 64;
  std::vector<uint32_t> finished(grid * block, 0);
  FaultArgs args{group, item, target, write ? 1 : 0, finished.data(), 0};
  FlyEmuLaunchConfig c = makeConfig(grid, block, 64, 0, threads);
  const char *error = fly_emu_launch(faultKernel, &args, &c);
  std::printf("case: %s\n", what);
  std::printf("error: %s\n", error ? error : "none");
  std::printf("address: 0x%" PRIxPTR "\n", reinterpret_cast<uintptr_t>(target));
  std::vector<uint32_t> perGroup(grid, 0);
  for (uint32_t i = 0; i < grid * block; ++i)
    perGroup[i / block] += finished[i];
  printList("finished", perGroup);
  std::vector<uint32_t> out(4 * 128, 0);
  BarrierArgs again{out.data(), 0};
  FlyEmuLaunchConfig good = makeConfig(4, 128, 64, 512, threads);
  const char *second = fly_emu_launch(barrierKernel, &again, &good);
  std::printf("after: %s\n", second ? second : "OK");
  printList("after_out", out);
  return 0;
}

// On the thread pool: the first workgroup a pool worker takes faults, in
// work-item 9, while the calling thread's workgroups wait for that (so the
// fault is surely on a worker, not on the thread that launched).
struct PoolFaultArgs {
  std::thread::id launcher;
  std::atomic<int> claimed{0};
  std::atomic<uint32_t> faultedGroup{~0u};
  volatile uint32_t *target;
  uint32_t *finished;
  uint32_t sink;
};

void poolFaultKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<PoolFaultArgs *>(argp);
  const uint32_t tid = ctx->work_item_id[0], wg = ctx->workgroup_id[0];
  const bool onLauncher = std::this_thread::get_id() == args->launcher;
  fly_emu_barrier(ctx);
  if (onLauncher && tid == 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!args->claimed.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  if (!onLauncher && tid == 9 && args->claimed.exchange(1) == 0) {
    args->faultedGroup = wg;
    args->sink = *args->target;
  }
  fly_emu_barrier(ctx);
  args->finished[wg * ctx->workgroup_size[0] + tid] = 1;
}

int runPoolFault() {
  const uint32_t grid = 8, block = 64, threads = 2;
  char *none = mapPage(PROT_NONE, 0);
  std::vector<uint32_t> finished(grid * block, 0);
  PoolFaultArgs args;
  args.launcher = std::this_thread::get_id();
  args.target = reinterpret_cast<volatile uint32_t *>(none + 0x3fc);
  args.finished = finished.data();
  FlyEmuLaunchConfig c = makeConfig(grid, block, 64, 0, threads);
  const char *error = fly_emu_launch(poolFaultKernel, &args, &c);
  std::printf("error: %s\n", error ? error : "none");
  std::printf("address: 0x%" PRIxPTR "\n",
              reinterpret_cast<uintptr_t>(args.target));
  std::printf("faulted_group: %u\n", args.faultedGroup.load());
  std::vector<uint32_t> perGroup(grid, 0);
  for (uint32_t i = 0; i < grid * block; ++i)
    perGroup[i / block] += finished[i];
  printList("finished", perGroup);
  // Twice on the same two threads: both run workgroups normally again.
  for (int round = 0; round < 2; ++round) {
    std::vector<uint32_t> out(4 * 128, 0);
    BarrierArgs again{out.data(), 0};
    FlyEmuLaunchConfig good = makeConfig(4, 128, 64, 512, threads);
    const char *second = fly_emu_launch(barrierKernel, &again, &good);
    std::printf("after%d: %s\n", round, second ? second : "OK");
    printList(round ? "after_out1" : "after_out0", out);
  }
  return 0;
}

int runFault(const std::string &mode) {
  const size_t page = pageBytes();
  if (mode == "read-protected") {
    // A PROT_NONE page: mapped, but no access allowed.
    char *none = mapPage(PROT_NONE, 0);
    return launchFault("read-protected", 4, 1, 2, 17,
                       reinterpret_cast<volatile uint32_t *>(none + 0x124),
                       false);
  }
  if (mode == "read-unmapped") {
    // The middle page of three, unmapped again: a hole nothing maps.
    char *three = static_cast<char *>(
        mmap(nullptr, 3 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (three == MAP_FAILED || munmap(three + page, page) != 0)
      return 1;
    auto *hole = reinterpret_cast<volatile uint32_t *>(three + page + 0x40);
    return launchFault("read-unmapped", 4, 1, 2, 17, hole, false);
  }
  if (mode == "write-readonly") {
    char *ro = mapPage(PROT_READ, 0x11);
    auto *word = reinterpret_cast<volatile uint32_t *>(ro + 0x800);
    int rc = launchFault("write-readonly", 4, 1, 1, 63, word, true);
    // The store did not happen.
    std::printf("readonly_word: %08x\n", *word);
    return rc;
  }
  if (mode == "bus") {
    // A shared mapping of an empty file: the page has no storage, SIGBUS.
    int fd = memfd_create("fly-emu-selftest", 0);
    if (fd < 0)
      return 1;
    void *p = mmap(nullptr, page, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
      return 1;
    return launchFault("bus", 4, 1, 3, 0,
                       reinterpret_cast<volatile uint32_t *>(
                           static_cast<char *>(p) + 0x10),
                       false);
  }
  if (mode == "pool")
    return runPoolFault();
  std::fprintf(stderr, "unknown fault mode '%s'\n", mode.c_str());
  return 2;
}

// ---- faults that are not the kernel's go to the previous handler ----------

// The handler installed before the emulator's: it counts what reaches it
// and, for a fault on one of the "lazy" pages, makes the page accessible
// and returns, so the access is retried and succeeds.
std::atomic<int> chainedFaults{0};
std::atomic<int> chainedRaised{0};
char *lazyPages[2];

void previousHandler(int, siginfo_t *info, void *) {
  if (info->si_code <= 0) {
    chainedRaised.fetch_add(1);
    return;
  }
  for (char *p : lazyPages)
    if (static_cast<char *>(info->si_addr) >= p &&
        static_cast<char *>(info->si_addr) < p + pageBytes()) {
      mprotect(p, pageBytes(), PROT_READ | PROT_WRITE);
      chainedFaults.fetch_add(1);
      return;
    }
  // Anything else: a real crash.
  signal(SIGSEGV, SIG_DFL);
}

void raiseKernel(FlyEmuContext *ctx, void *argp) {
  if (ctx->work_item_id[0] == 5)
    raise(SIGSEGV); // sent, not raised by an access: not a kernel fault
  static_cast<uint32_t *>(argp)[ctx->work_item_id[0]] = 1;
}

int runFaultChain() {
  struct sigaction action = {};
  action.sa_sigaction = previousHandler;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
  lazyPages[0] = mapPage(PROT_NONE, 0);
  lazyPages[1] = mapPage(PROT_NONE, 0);
  char *kernelPage = mapPage(PROT_NONE, 0);

  // A first launch installs the emulator's handler over ours.
  std::vector<uint32_t> out(64, 0);
  FlyEmuLaunchConfig c = makeConfig(1, 64, 64, 0, 1);
  if (!launchOrReport(raiseKernel, out.data(), c))
    return 1;
  std::printf("raised_in_kernel: %d\n", chainedRaised.load());
  uint32_t ran = 0;
  for (uint32_t v : out)
    ran += v;
  std::printf("raise_kernel_finished: %u\n", ran);

  // Outside any launch, on this thread and on a thread that never ran one.
  lazyPages[0][8] = 7;
  std::printf("main_thread: chained=%d value=%d\n", chainedFaults.load(),
              lazyPages[0][8]);
  std::thread other([] { lazyPages[1][16] = 9; });
  other.join();
  std::printf("other_thread: chained=%d value=%d\n", chainedFaults.load(),
              lazyPages[1][16]);

  // A fault of kernel code is the emulator's, even with a handler before it.
  std::vector<uint32_t> finished(2 * 64, 0);
  FaultArgs args{1, 3, reinterpret_cast<volatile uint32_t *>(kernelPage), 0,
                 finished.data(), 0};
  FlyEmuLaunchConfig two = makeConfig(2, 64, 64, 0, 1);
  const char *error = fly_emu_launch(faultKernel, &args, &two);
  std::printf("kernel_fault: %s\n", error ? error : "none");
  std::printf("kernel_address: 0x%" PRIxPTR "\n",
              reinterpret_cast<uintptr_t>(kernelPage));
  std::printf("chained_after_kernel_fault: %d\n", chainedFaults.load());
  return 0;
}

// A fault outside a launch with no handler before the emulator's: the
// default action, the process dies of SIGSEGV.
int runFaultOutside() {
  std::vector<uint32_t> out(64, 0);
  if (!launchOrReport(emptyKernel, out.data(), makeConfig(1, 64, 64, 0, 1)))
    return 1;
  char *none = mapPage(PROT_NONE, 0);
  std::printf("launched: OK\n");
  std::fflush(stdout);
  return *reinterpret_cast<volatile char *>(none);
}

// A fault in the runtime's own code on a fiber (here: a wave collective
// reached with a context whose wave id the kernel scribbled over) is a
// runtime bug, not the kernel's fault: it goes to the default action too.
void corruptKernel(FlyEmuContext *ctx, void *) {
  ctx->wave_id = 0x7fffffff;
  fly_emu_ballot(ctx, 1);
}

int runFaultRuntime() {
  std::printf("launching\n");
  std::fflush(stdout);
  FlyEmuLaunchConfig c = makeConfig(1, 64, 64, 0, 1);
  const char *error = fly_emu_launch(corruptKernel, nullptr, &c);
  std::printf("returned: %s\n", error ? error : "OK");
  return 0;
}

uint32_t waveArg(int argc, char **argv) {
  for (int i = 2; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--wave") == 0)
      return uint32_t(std::atoi(argv[i + 1]));
  return 64;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <case> [options]\n", argv[0]);
    return 2;
  }
  std::string which = argv[1];
  bool skip = argc > 2 && std::strcmp(argv[2], "--skip-barrier") == 0;
  if (which == "barrier")
    return runBarrier(skip);
  if (which == "exited")
    return runExited();
  if (which == "lds-isolation")
    return runIsolation();
  if (which == "reduce")
    return runReduce(waveArg(argc, argv));
  if (which == "lanes")
    return runLanes(waveArg(argc, argv));
  if (which == "ballot")
    return runBallot(waveArg(argc, argv));
  if (which == "divergent")
    return runDivergent();
  if (which == "big")
    return runBig();
  if (which == "trap")
    return runTrap();
  if (which == "bad")
    return runBad();
  if (which == "overflow")
    return runOverflow();
  if (which == "fault")
    return runFault(argc > 2 ? argv[2] : "");
  if (which == "fault-chain")
    return runFaultChain();
  if (which == "fault-outside")
    return runFaultOutside();
  if (which == "fault-runtime")
    return runFaultRuntime();
  if (which == "fuzz")
    return runFuzz(argc > 2 ? uint32_t(std::atoi(argv[2])) : 40);
  std::fprintf(stderr, "unknown case '%s'\n", which.c_str());
  return 2;
}
