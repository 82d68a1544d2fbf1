//===- bench_emulator.cpp - Speed of the emulator's execution core --------===//
//
// Prints one table (SPEC §12: >= 50 M emulated lane-instructions/s per core
// on simple kernels). The kernels are hand-written against fly/runtime/Emu.h
// as generated code would call it.
//
// Counting lane-instructions: a kernel's count is (work-items) x (the GPU
// instructions one work-item's code stands for), counted from the kernel's
// source the way the GPU would issue it: one VALU instruction per 32-bit
// arithmetic operation, one per global/LDS load or store, one for the
// global-id multiply-add, and one per barrier / wave operation. Id reads are
// free (they are registers on the GPU). So the number is what a GPU's lanes
// would have retired, and the rate is that over the wall time of the launch.
//
//   bench-emulator [--threads N]   (default: 1 thread = per-core numbers,
//                                   then N = all cores for the grid rows)
//
// bench_compiled.py, next to this file, measures kernels compiled by the real
// compiler from Python (fma_gemm, vector_add, empty launches) on the emulator.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Emu.h"

#include "Fiber.h"

#include <ucontext.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The best of `batches` timings of `body`: the machine is shared, and the
// best batch is the one least disturbed by other processes.
template <typename F> double bestOf(int batches, F body) {
  double best = 1e30;
  for (int b = 0; b < batches; ++b) {
    auto t0 = Clock::now();
    body();
    best = std::min(best, secondsSince(t0));
  }
  return best;
}

void row(const char *name, double value, const char *unit, const std::string &note) {
  std::printf("| %-44s | %12.2f | %-16s | %s\n", name, value, unit, note.c_str());
}

FlyEmuLaunchConfig config(uint32_t grid, uint32_t block, uint32_t lds,
                          uint32_t threads) {
  FlyEmuLaunchConfig c{};
  c.grid[0] = grid;
  c.grid[1] = c.grid[2] = 1;
  c.block[0] = block;
  c.block[1] = c.block[2] = 1;
  c.lds_bytes = lds;
  c.wave_size = 64;
  c.num_threads = threads;
  return c;
}

// Launches and returns the seconds taken (best of `reps`).
void launch(FlyEmuKernelFn kernel, void *args, const FlyEmuLaunchConfig &c) {
  if (const char *error = fly_emu_launch(kernel, args, &c)) {
    std::fprintf(stderr, "launch failed: %s\n", error);
    std::exit(1);
  }
}

double timeLaunch(FlyEmuKernelFn kernel, void *args, const FlyEmuLaunchConfig &c,
                  int reps = 5) {
  return bestOf(reps, [&] { launch(kernel, args, c); });
}

// ---- raw context switch ---------------------------------------------------

struct PingPong {
  void *mainSp, *fiberSp;
  long switches;
};

void pingPongFiber(void *arg) {
  auto *p = static_cast<PingPong *>(arg);
  for (;;)
    fly::emu::fly_emu_switch(&p->fiberSp, p->mainSp);
}

double switchNs() {
  size_t bytes = 64 * 1024;
  void *stack = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  PingPong p{nullptr, nullptr, 0};
  p.fiberSp = fly::emu::prepareStack(static_cast<char *>(stack) + bytes,
                                     pingPongFiber, &p);
  const long rounds = 2000000;
  double s = bestOf(7, [&] {
    for (long i = 0; i < rounds; ++i)
      fly::emu::fly_emu_switch(&p.mainSp, p.fiberSp); // two switches a round
  });
  munmap(stack, bytes);
  return s * 1e9 / (2.0 * rounds);
}

ucontext_t ucMain, ucFiber;
void ucFiberMain() {
  for (;;)
    swapcontext(&ucFiber, &ucMain);
}

double ucontextNs() {
  std::vector<char> stack(64 * 1024);
  getcontext(&ucFiber);
  ucFiber.uc_stack.ss_sp = stack.data();
  ucFiber.uc_stack.ss_size = stack.size();
  ucFiber.uc_link = nullptr;
  makecontext(&ucFiber, ucFiberMain, 0);
  const long rounds = 200000;
  double s = bestOf(5, [&] {
    for (long i = 0; i < rounds; ++i)
      swapcontext(&ucMain, &ucFiber);
  });
  return s * 1e9 / (2.0 * rounds);
}

// ---- kernels ----------------------------------------------------------------

struct ArithArgs {
  uint32_t *out;
};
constexpr uint32_t kArithIters = 64;
// Per work-item: 1 (global id) + 64 x 4 (mul, add, shift, xor) + 1 (store).
constexpr double kArithOps = 1 + kArithIters * 4 + 1;

void arithKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<ArithArgs *>(argp);
  uint32_t g = ctx->workgroup_id[0] * ctx->workgroup_size[0] + ctx->work_item_id[0];
  uint32_t x = g;
  for (uint32_t i = 0; i < kArithIters; ++i) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 13;
  }
  args->out[g] = x;
}

struct VaddArgs {
  const float *a, *b;
  float *c;
};
// Per work-item: global id, load a, load b, add, store.
constexpr double kVaddOps = 5;

void vaddKernel(FlyEmuContext *ctx, void *argp) {
  auto *args = static_cast<VaddArgs *>(argp);
  uint32_t g = ctx->workgroup_id[0] * ctx->workgroup_size[0] + ctx->work_item_id[0];
  args->c[g] = args->a[g] + args->b[g];
}

constexpr uint32_t kBarrierIters = 100;
// Per iteration: LDS store, barrier, LDS load, add, barrier.
constexpr double kBarrierOpsPerIter = 5;

void barrierKernel(FlyEmuContext *ctx, void *argp) {
  auto *out = static_cast<uint32_t *>(argp);
  uint32_t tid = ctx->work_item_id[0], n = ctx->workgroup_size[0];
  auto *lds = static_cast<uint32_t *>(ctx->lds);
  uint32_t acc = tid;
  for (uint32_t i = 0; i < kBarrierIters; ++i) {
    lds[tid] = acc;
    fly_emu_barrier(ctx);
    acc += lds[(tid + 1) % n];
    fly_emu_barrier(ctx);
  }
  out[ctx->workgroup_id[0] * n + tid] = acc;
}

constexpr uint32_t kShuffleIters = 16;
// Per iteration: a 6-step butterfly of (xor, ds_bpermute, add) + readlane.
constexpr double kShuffleOpsPerIter = 6 * 3 + 1;
constexpr double kCollectivesPerIter = 7;

void shuffleKernel(FlyEmuContext *ctx, void *argp) {
  auto *out = static_cast<uint32_t *>(argp);
  uint32_t lane = ctx->lane_id, v = ctx->flat_work_item_id;
  for (uint32_t i = 0; i < kShuffleIters; ++i) {
    for (uint32_t offset = 32; offset; offset /= 2)
      v += fly_emu_ds_bpermute(ctx, (lane ^ offset) * 4, v);
    v = fly_emu_readlane(ctx, v, i) + 1;
  }
  out[ctx->workgroup_id[0] * ctx->workgroup_size[0] + ctx->flat_work_item_id] = v;
}

void emptyKernel(FlyEmuContext *, void *) {}

} // namespace

int main(int argc, char **argv) {
  unsigned allCores = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--threads") == 0)
      allCores = unsigned(std::atoi(argv[i + 1]));

  std::printf("| %-44s | %12s | %-16s | %s\n", "measurement", "value", "unit", "notes");
  std::printf("|%s|%s|%s|%s\n", std::string(46, '-').c_str(),
              std::string(14, '-').c_str(), std::string(18, '-').c_str(),
              "------");

  row("context switch (fly_emu_switch)", switchNs(), "ns/switch",
      "ping-pong of two fibers");
  row("context switch (glibc swapcontext)", ucontextNs(), "ns/switch",
      "for comparison: a sigprocmask syscall per switch");

  const uint32_t block = 256;
  {
    const uint32_t grid = 2048;
    std::vector<uint32_t> out(grid * block);
    ArithArgs args{out.data()};
    double lanes = double(grid) * block;
    for (unsigned threads : {1u, allCores}) {
      double s = timeLaunch(arithKernel, &args, config(grid, block, 0, threads));
      row(("straight-line, " + std::to_string(threads) + " thread(s)").c_str(),
          lanes * kArithOps / s / 1e6, "M lane-instr/s",
          "258 instr/work-item, 2048x256 work-items");
    }
  }
  {
    const uint32_t grid = 4096;
    size_t n = size_t(grid) * block;
    std::vector<float> a(n, 1.f), b(n, 2.f), c(n);
    VaddArgs args{a.data(), b.data(), c.data()};
    for (unsigned threads : {1u, allCores}) {
      double s = timeLaunch(vaddKernel, &args, config(grid, block, 0, threads));
      row(("vector add, " + std::to_string(threads) + " thread(s)").c_str(),
          double(n) * kVaddOps / s / 1e6, "M lane-instr/s",
          "5 instr/work-item; " + std::to_string(s * 1e9 / double(n)).substr(0, 5) +
              " ns per work-item, all overheads included");
    }
  }
  {
    const uint32_t grid = 64;
    std::vector<uint32_t> out(grid * block);
    double s = timeLaunch(barrierKernel, out.data(), config(grid, block, block * 4, 1));
    double lanes = double(grid) * block;
    double barriers = lanes * kBarrierIters * 2;
    row("barrier-heavy, 1 thread", lanes * kBarrierIters * kBarrierOpsPerIter / s / 1e6,
        "M lane-instr/s", "200 barriers per work-item, 64x256 work-items");
    row("  cost per work-item per barrier", s * 1e9 / barriers, "ns",
        "one park + one resume");
  }
  {
    const uint32_t grid = 64;
    std::vector<uint32_t> out(grid * block);
    double s = timeLaunch(shuffleKernel, out.data(), config(grid, block, 0, 1));
    double lanes = double(grid) * block;
    row("wave-shuffle-heavy (ds_bpermute), 1 thread",
        lanes * kShuffleIters * kShuffleOpsPerIter / s / 1e6, "M lane-instr/s",
        "112 wave collectives per work-item");
    row("  cost per lane per collective",
        s * 1e9 / (lanes * kShuffleIters * kCollectivesPerIter), "ns",
        "park + compute/64 + resume");
  }
  for (uint32_t b : {1u, 64u, 256u}) {
    FlyEmuLaunchConfig c = config(1, b, 0, allCores);
    const int reps = 2000;
    double s = bestOf(7, [&] {
      for (int i = 0; i < reps; ++i)
        launch(emptyKernel, nullptr, c);
    });
    row(("empty kernel launch, 1 workgroup of " + std::to_string(b)).c_str(),
        s * 1e6 / reps, "us/launch", "runs on the calling thread");
  }
  {
    FlyEmuLaunchConfig c = config(allCores, 1, 0, allCores);
    const int reps = 1000;
    double s = bestOf(7, [&] {
      for (int i = 0; i < reps; ++i)
        launch(emptyKernel, nullptr, c);
    });
    row(("empty kernel launch, " + std::to_string(allCores) +
         " workgroups on the pool").c_str(),
        s * 1e6 / reps, "us/launch", "wake + join of the workers");
  }
  return 0;
}
