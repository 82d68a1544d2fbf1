//===- fly-emu-run.cpp - A Fly IR kernel on the CPU emulator --------------===//
//
//   fly-emu-run examples/vector_add.mlir --chip=gfx942 --m=100 --n=200
//   fly-emu-run examples/tiled_copy_lds.mlir --kernel=tiled_copy --m=32 --n=128
//   fly-emu-run examples/fma_gemm.mlir --kernel=fma_gemm --m=128 --n=256 --k=32
//
// A Fly IR kernel on the CPU emulator without a host function, as a test
// driver: fly::Compiler in emulator mode (stage A, convert-rocdl-to-emu,
// host bitcode), loaded and launched through the emulator's launch table
// (fly_runtime_emu_table: what host entries call), one of the three
// reference kernels (arguments: per tensor a pointer and the struct of its
// dynamic leaves {rows, cols, row stride}) over its grid of 256-work-item
// workgroups, the result checked element by element against a host
// computation. Prints "PASS" or the first mismatch; exit status 1 on any
// error.
//
// With --arg, any kernel of the input (Fly IR, or a gpu.module of ROCDL-
// level llvm.funcs as stage A leaves them) runs once over --grid/--block
// with the arguments given, and every buffer argument is printed after the
// launch, one line each ("arg<i>: v0 v1 ..."), for the test to check:
//   --arg=i32:7                      a scalar (i32, i64, f32)
//   --arg=buf:f32:64:iota            a buffer of 64 f32: 0, 1, 2, ...
//   --arg=buf:i32:16:fill=-1         ... all -1
//   --arg=buf:i32:4:3,1,4,1          ... these values
//
// --check=bounds,race,init,barrier (or all) compiles the emulator's checks in (Emu.h,
// "Checked emulation"); the buffers are the launch's tensors, named arg<i>
// after their position (A, B, C in the reference mode).
// A buffer argument is passed as its pointer (`!llvm.ptr<1>`).
//
//===----------------------------------------------------------------------===//

#include "fly/Compiler.h"
#include "fly/Arch/Chip.h"
#include "fly/runtime/Emu.h"
#include "fly/runtime/EmuRuntime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cl = llvm::cl;

static cl::opt<std::string> input(cl::Positional, cl::desc("<kernel.mlir>"),
                                  cl::Required);
static cl::opt<std::string> chipName("chip", cl::init("gfx942"));
static cl::opt<int> rows("m", cl::init(100));
static cl::opt<int> cols("n", cl::init(200));
static cl::opt<int> depth("k", cl::desc("K of fma_gemm"), cl::init(64));
static cl::opt<std::string> kernelName(
    "kernel", cl::desc("vector_add, tiled_copy or fma_gemm (the kernel of the "
                       "input, one of examples/*.mlir)"),
    cl::init("vector_add"));

static cl::list<std::string> argSpecs(
    "arg", cl::desc("a kernel argument (generic mode, see the header)"));
static cl::opt<std::string> gridSpec("grid", cl::init("1,1,1"),
                                     cl::desc("generic mode: x,y,z"));
static cl::opt<std::string> blockSpec("block", cl::init("64,1,1"),
                                      cl::desc("generic mode: x,y,z"));
static cl::opt<std::string> checks(
    "check", cl::init(""),
    cl::desc("the emulator's checks: a comma list of bounds (or bounds=strict), race, "
             "init, barrier, or all"));
static cl::opt<unsigned> smemBytes("smem", cl::init(0),
                                   cl::desc("generic mode: dynamic LDS bytes"));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "fly-emu-run: " << message << "\n";
  return 1;
}

namespace {

/// One argument of the generic mode: its bytes (a scalar's value, or a
/// buffer's elements) and, for a buffer, the pointer the kernel gets.
struct Argument {
  std::string type; // i32, i64, f32
  bool buffer = false;
  std::vector<char> bytes;
  void *pointer = nullptr;

  size_t elementBytes() const { return type == "i64" ? 8 : 4; }
  size_t count() const { return bytes.size() / elementBytes(); }
  /// Element i from its text: an integer (decimal, 0x hex; all 64 bits
  /// of an i64, wrapping to 32 for an i32) or, for f32, a number. False
  /// when the text is not one.
  bool set(size_t i, llvm::StringRef text) {
    text = text.trim();
    char *at = bytes.data() + i * elementBytes();
    if (type == "f32") {
      double value;
      if (text.getAsDouble(value))
        return false;
      float v = float(value);
      std::memcpy(at, &v, 4);
      return true;
    }
    int64_t value;
    if (text.getAsInteger(0, value)) {
      uint64_t unsignedValue; // 0xffffffffffffffff and the like
      if (text.getAsInteger(0, unsignedValue))
        return false;
      value = int64_t(unsignedValue);
    }
    if (type == "i32") {
      int32_t v = int32_t(value);
      std::memcpy(at, &v, 4);
    } else {
      std::memcpy(at, &value, 8);
    }
    return true;
  }
  std::string str(size_t i) const {
    const char *at = bytes.data() + i * elementBytes();
    char text[64];
    if (type == "i32") {
      int32_t v;
      std::memcpy(&v, at, 4);
      std::snprintf(text, sizeof text, "%d", v);
    } else if (type == "i64") {
      int64_t v;
      std::memcpy(&v, at, 8);
      std::snprintf(text, sizeof text, "%lld", (long long)v);
    } else {
      float v;
      std::memcpy(&v, at, 4);
      std::snprintf(text, sizeof text, "%.9g", v);
    }
    return text;
  }
};

llvm::Expected<Argument> parseArgument(llvm::StringRef spec) {
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError("--arg=" + spec + ": " + why);
  };
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, ':');
  Argument arg;
  arg.buffer = parts.front() == "buf";
  if (arg.buffer ? parts.size() != 4 : parts.size() != 2)
    return bad("expected type:value or buf:type:count:init");
  arg.type = parts[arg.buffer ? 1 : 0].str();
  if (arg.type != "i32" && arg.type != "i64" && arg.type != "f32")
    return bad("the type must be i32, i64 or f32");
  if (!arg.buffer) {
    arg.bytes.resize(arg.elementBytes());
    if (!arg.set(0, parts[1]))
      return bad(arg.type == "f32" ? "not a number" : "not an integer");
    return arg;
  }
  unsigned count;
  if (parts[2].getAsInteger(10, count))
    return bad("the count is not a number");
  arg.bytes.resize(count * arg.elementBytes());
  llvm::StringRef init = parts[3];
  if (init == "iota") {
    for (size_t i = 0; i < count; ++i)
      arg.set(i, std::to_string(i));
  } else if (init.consume_front("fill=")) {
    for (size_t i = 0; i < count; ++i)
      if (!arg.set(i, init))
        return bad("the fill value '" + init + "' is not " +
                   (arg.type == "f32" ? "a number" : "an integer"));
  } else {
    llvm::SmallVector<llvm::StringRef> values;
    init.split(values, ',');
    if (values.size() != count)
      return bad("expected " + llvm::Twine(count) + " values");
    for (size_t i = 0; i < count; ++i)
      if (!arg.set(i, values[i]))
        return bad("'" + values[i] + "' is not " +
                   (arg.type == "f32" ? "a number" : "an integer"));
  }
  arg.pointer = arg.bytes.data();
  return arg;
}

bool parseDims(llvm::StringRef text, uint32_t dims[3]) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  if (parts.size() != 3)
    return false;
  for (int i = 0; i < 3; ++i)
    if (parts[i].trim().getAsInteger(10, dims[i]))
      return false;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "fly-emu-run\n");
  const ::fly::arch::ChipInfo *chip = ::fly::arch::lookupChip(chipName);
  if (!chip)
    return fail("unknown chip " + chipName);
  auto text = llvm::MemoryBuffer::getFile(input);
  if (!text)
    return fail(input + ": " + text.getError().message());

  // The compiler's emulator mode: stage A, convert-rocdl-to-emu, each
  // gpu.module as host bitcode -- the "code object" the emulator's launch
  // table loads.
  ::fly::Compiler compiler;
  ::fly::CompileOptions options;
  options.pipeline.chip = chipName;
  options.emulator = true;
  options.pipeline.emuCheck = checks;
  llvm::Expected<::fly::Artifact> artifact =
      compiler.compile((*text)->getBuffer(), options);
  if (!artifact)
    return fail(llvm::toString(artifact.takeError()));
  if (artifact->codeObjects.empty())
    return fail("no gpu.module");
  const std::string &bitcode = artifact->codeObjects.front().elf;

  const FlyLaunchTable *table = fly_runtime_emu_table();
  void *module = nullptr, *kernel = nullptr;
  if (table->module_load(table->context, bitcode.data(), bitcode.size(), &module) ||
      table->get_function(table->context, module, kernelName.c_str(), &kernel))
    return fail(table->last_error(table->context));
  auto launch = [&](void **params, size_t count, uint32_t gx, uint32_t gy,
                    uint32_t smem) -> bool {
    FlyLaunchConfig config = {};
    config.grid[0] = gx;
    config.grid[1] = gy;
    config.grid[2] = 1;
    config.block[0] = 256;
    config.block[1] = config.block[2] = 1;
    config.shared_memory_bytes = smem;
    if (table->launch(table->context, kernel, &config, params, count) == 0)
      return true;
    fail(table->last_error(table->context));
    return false;
  };

  if (!argSpecs.empty()) {
    std::vector<Argument> args;
    for (const std::string &spec : argSpecs) {
      llvm::Expected<Argument> arg = parseArgument(spec);
      if (!arg)
        return fail(llvm::toString(arg.takeError()));
      args.push_back(std::move(*arg));
    }
    std::vector<void *> params;
    for (Argument &arg : args)
      params.push_back(arg.buffer ? (void *)&arg.pointer : (void *)arg.bytes.data());
    std::vector<std::string> names;
    std::vector<FlyEmuTensorExtent> extents;
    for (size_t i = 0; i < args.size(); ++i)
      names.push_back("arg" + std::to_string(i));
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].buffer)
        extents.push_back({args[i].pointer, args[i].bytes.size(), names[i].c_str()});
    fly_emu_set_tensor_extents(extents.data(), uint32_t(extents.size()));
    FlyLaunchConfig config = {};
    if (!parseDims(gridSpec, config.grid) || !parseDims(blockSpec, config.block))
      return fail("--grid and --block take x,y,z");
    config.shared_memory_bytes = smemBytes;
    if (table->launch(table->context, kernel, &config, params.data(),
                      params.size()))
      return fail(table->last_error(table->context));
    // bounds=strict's warnings: the launch succeeded.
    if (const char *warnings = fly_emu_take_warnings(); *warnings)
      std::fprintf(stderr, "%s", warnings);
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].buffer)
        continue;
      std::printf("arg%zu:", i);
      for (size_t j = 0; j < args[i].count(); ++j)
        std::printf(" %s", args[i].str(j).c_str());
      std::printf("\n");
    }
    return 0;
  }

  // Every reference kernel takes, per tensor, its pointer and the struct of
  // its dynamic leaves {rows, cols, row stride} (row-major f32 matrices).
  struct Leaves {
    int32_t rows, cols, stride;
  };
  int m = rows, n = cols, k = depth;
  auto value = [](size_t i, int salt) { return float((i * 7 + salt) % 97) * 0.25f - 3.0f; };
  auto check = [&](const std::vector<float> &got, const std::vector<float> &want,
                   int width, float tolerance) {
    for (size_t i = 0; i < want.size(); ++i)
      if (std::fabs(got[i] - want[i]) > tolerance) {
        std::printf("FAIL at (%zu, %zu): %g != %g\n", i / width, i % width, got[i], want[i]);
        return false;
      }
    return true;
  };
  bool ok = false;
  if (kernelName == "vector_add" || kernelName == "tiled_copy") {
    std::vector<float> a(size_t(m) * n), b(a.size()), c(a.size(), -1.0f);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = value(i, 1);
      b[i] = value(i, 2);
    }
    Leaves leaves = {m, n, n};
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    std::vector<void *> params = {&pa, &leaves, &pb, &leaves, &pc, &leaves};
    FlyEmuTensorExtent extents[] = {{pa, a.size() * 4, "A"},
                                    {pb, b.size() * 4, "B"},
                                    {pc, c.size() * 4, "C"}};
    fly_emu_set_tensor_extents(extents, kernelName == "tiled_copy" ? 2 : 3);
    uint32_t smem = 0;
    if (kernelName == "tiled_copy") {
      params.resize(4); // (A, B): B = A through the 16 x 64 LDS tile
      b.assign(b.size(), -1.0f);
      smem = 16 * 64 * 4;
    }
    if (!launch(params.data(), params.size(), (n + 63) / 64, (m + 15) / 16, smem))
      return 1;
    if (kernelName == "tiled_copy") {
      ok = check(b, a, n, 0.0f);
    } else {
      std::vector<float> want(a.size());
      for (size_t i = 0; i < a.size(); ++i)
        want[i] = a[i] + b[i];
      ok = check(c, want, n, 0.0f);
    }
  } else if (kernelName == "fma_gemm") {
    // C (M x N) = A (M x K) * B (N x K)^T, 128 x 128 tiles.
    std::vector<float> a(size_t(m) * k), b(size_t(n) * k), c(size_t(m) * n, -1.0f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = value(i, 3) * 0.125f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = value(i, 4) * 0.125f;
    Leaves la = {m, k, k}, lb = {n, k, k}, lc = {m, n, n};
    float *pa = a.data(), *pb = b.data(), *pc = c.data();
    void *params[] = {&pa, &la, &pb, &lb, &pc, &lc};
    FlyEmuTensorExtent extents[] = {{pa, a.size() * 4, "A"},
                                    {pb, b.size() * 4, "B"},
                                    {pc, c.size() * 4, "C"}};
    fly_emu_set_tensor_extents(extents, 3);
    if (!launch(params, 6, n / 128, m / 128, 0))
      return 1;
    std::vector<float> want(c.size());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int kk = 0; kk < k; ++kk)
          sum += double(a[size_t(i) * k + kk]) * b[size_t(j) * k + kk];
        want[size_t(i) * n + j] = float(sum);
      }
    ok = check(c, want, n, 1e-3f * k);
  } else {
    return fail("unknown kernel " + kernelName);
  }
  if (!ok)
    return 1;
  std::printf("PASS %s %dx%d on %s (wave%u)\n", kernelName.c_str(), m, n,
              chipName.c_str(), chip->waveSize);
  return 0;
}
