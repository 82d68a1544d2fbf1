//===- hip-double.cpp - A test double of HIP's driver boundary ------------===//
//
// A shared library named libamdhip64.so that exports the HIP entry points
// the module loader (runtime/hip) resolves, with HIP's C signatures, and
// records every call instead of talking to a GPU: module loads (the code
// object's bytes), kernel lookups (names), launches (grid, block, dynamic
// LDS, stream, cluster, and the bytes each kernelParams entry points at,
// for sizes the test sets), streams. test/python/test_hip_runtime.py points
// the loader at it with $FLYDSL_HIP_LIBRARY and reads the records through
// the fake_hip_* functions with ctypes. Any entry can be made to fail with
// a given hipError_t, and the device count can be set. Built twice: with
// hipDrvLaunchKernelEx (cluster launch) and without, as older HIPs are.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace {

// HIP's codes that the double uses (hip/hip_runtime_api.h).
constexpr int hipSuccess = 0, hipErrorInvalidValue = 1,
              hipErrorNoDevice = 100, hipErrorInvalidImage = 200,
              hipErrorNotFound = 500;

struct Launch {
  std::string kernel;
  unsigned geometry[10]; // grid xyz, block xyz, cluster xyz, LDS bytes
  void *stream;
  bool extraIsNull;
  std::string params; // the parameters' bytes, concatenated
};

struct Recorder {
  std::mutex mutex;
  int deviceCount = 1;
  std::vector<size_t> paramSizes;
  std::deque<std::string> modules;   // a module: its code object
  std::deque<std::string> functions; // a function: its kernel's name
  std::vector<std::string> lookups;  // every hipModuleGetFunction name
  std::vector<Launch> launches;
  unsigned inits = 0, countQueries = 0, unloads = 0, streams = 0,
           liveStreams = 0, syncs = 0;
  std::string failing; // the entry to fail
  int failStatus = 0;
} recorder;

int failIf(const char *entry) {
  return recorder.failing == entry ? recorder.failStatus : hipSuccess;
}

/// The size of an ELF64 object from its headers (HIP gets no size either).
size_t elfSize(const unsigned char *p) {
  if (std::memcmp(p, "\x7f"
                     "ELF",
                  4) != 0 ||
      p[4] != 2)
    return 0;
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  std::memcpy(&phoff, p + 0x20, 8);
  std::memcpy(&shoff, p + 0x28, 8);
  std::memcpy(&phentsize, p + 0x36, 2);
  std::memcpy(&phnum, p + 0x38, 2);
  std::memcpy(&shentsize, p + 0x3a, 2);
  std::memcpy(&shnum, p + 0x3c, 2);
  return std::max<uint64_t>({64, phoff + uint64_t(phentsize) * phnum,
                             shoff + uint64_t(shentsize) * shnum});
}

void record(void *function, const unsigned geometry[10], void *stream,
            void **params, void **extra) {
  Launch l{*static_cast<std::string *>(function), {}, stream, extra == nullptr,
           {}};
  std::memcpy(l.geometry, geometry, sizeof(l.geometry));
  if (params)
    for (size_t i = 0; i < recorder.paramSizes.size(); ++i)
      l.params.append(static_cast<const char *>(params[i]),
                      recorder.paramSizes[i]);
  recorder.launches.push_back(std::move(l));
}

// HIP_LAUNCH_CONFIG and hipLaunchAttribute, as hip_runtime_api.h has them.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    void *align;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct DrvLaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

} // namespace

extern "C" {

// --- HIP's entry points -----------------------------------------------------

int hipInit(unsigned flags) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.inits;
  return flags == 0 ? hipSuccess : hipErrorInvalidValue;
}

int hipGetDeviceCount(int *count) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.countQueries;
  *count = recorder.deviceCount;
  return recorder.deviceCount > 0 ? hipSuccess : hipErrorNoDevice;
}

int hipModuleLoadData(void **module, const void *image) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("hipModuleLoadData"))
    return status;
  size_t size = elfSize(static_cast<const unsigned char *>(image));
  if (size == 0)
    return hipErrorInvalidImage;
  recorder.modules.emplace_back(static_cast<const char *>(image), size);
  *module = &recorder.modules.back();
  return hipSuccess;
}

int hipModuleUnload(void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.unloads;
  return failIf("hipModuleUnload");
}

int hipModuleGetFunction(void **function, void *, const char *name) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.lookups.emplace_back(name);
  if (int status = failIf("hipModuleGetFunction"))
    return status;
  if (recorder.failing == "unknown-kernel")
    return hipErrorNotFound;
  recorder.functions.emplace_back(name);
  *function = &recorder.functions.back();
  return hipSuccess;
}

int hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy,
                          unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned smem, void *stream, void **params,
                          void **extra) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("hipModuleLaunchKernel"))
    return status;
  const unsigned geometry[10] = {gx, gy, gz, bx, by, bz, 0, 0, 0, smem};
  record(function, geometry, stream, params, extra);
  return hipSuccess;
}

#ifndef FLY_HIP_DOUBLE_NO_CLUSTER // an older HIP: no cluster launch
int hipDrvLaunchKernelEx(const DrvLaunchConfig *config, void *function,
                         void **params, void **extra) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("hipDrvLaunchKernelEx"))
    return status;
  unsigned cluster[3] = {0, 0, 0};
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == 4) { // hipLaunchAttributeClusterDimension
      cluster[0] = config->attrs[i].value.clusterDim.x;
      cluster[1] = config->attrs[i].value.clusterDim.y;
      cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  const unsigned geometry[10] = {
      config->gridDimX,  config->gridDimY,  config->gridDimZ,
      config->blockDimX, config->blockDimY, config->blockDimZ,
      cluster[0],        cluster[1],        cluster[2],
      config->sharedMemBytes};
  record(function, geometry, config->hStream, params, extra);
  return hipSuccess;
}
#endif

int hipStreamCreate(void **stream) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("hipStreamCreate"))
    return status;
  ++recorder.streams;
  ++recorder.liveStreams;
  *stream = reinterpret_cast<void *>(uintptr_t(0x7000 + recorder.streams));
  return hipSuccess;
}

int hipStreamSynchronize(void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.syncs;
  return failIf("hipStreamSynchronize");
}

int hipStreamDestroy(void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  --recorder.liveStreams;
  return hipSuccess;
}

const char *hipGetErrorName(int status) {
  switch (status) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  default:
    return "hipErrorUnknown";
  }
}

const char *hipGetErrorString(int status) {
  return status == hipErrorInvalidValue ? "invalid argument (from the double)"
                                        : hipGetErrorName(status);
}

// --- The test's view --------------------------------------------------------

/// Forgets the records; `sizes` are the kernel's parameter sizes.
void fake_hip_reset(const size_t *sizes, size_t count) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.paramSizes.assign(sizes, sizes + count);
  recorder.modules.clear();
  recorder.functions.clear();
  recorder.lookups.clear();
  recorder.launches.clear();
  recorder.unloads = recorder.streams = recorder.liveStreams = 0;
  recorder.syncs = 0;
  recorder.failing.clear();
}

void fake_hip_set_device_count(int count) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.deviceCount = count;
}

/// Makes HIP entry `name` return `status` ("unknown-kernel": lookups give
/// hipErrorNotFound).
void fake_hip_fail(const char *name, int status) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.failing = name ? name : "";
  recorder.failStatus = status;
}

/// counts[0..8] = hipInit calls, hipGetDeviceCount calls, modules loaded,
/// unloads, lookups, launches, streams created, streams alive, syncs.
void fake_hip_counts(unsigned *counts) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  unsigned values[] = {recorder.inits,
                       recorder.countQueries,
                       unsigned(recorder.modules.size()),
                       recorder.unloads,
                       unsigned(recorder.lookups.size()),
                       unsigned(recorder.launches.size()),
                       recorder.streams,
                       recorder.liveStreams,
                       recorder.syncs};
  std::memcpy(counts, values, sizeof(values));
}

/// Module `index`'s code object into `bytes` (up to `capacity`); its size.
size_t fake_hip_module(unsigned index, char *bytes, size_t capacity) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  const std::string &m = recorder.modules.at(index);
  std::memcpy(bytes, m.data(), std::min(capacity, m.size()));
  return m.size();
}

/// The name of lookup `index`.
void fake_hip_lookup(unsigned index, char *name, size_t capacity) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  std::snprintf(name, capacity, "%s", recorder.lookups.at(index).c_str());
}

/// Launch `index`: geometry[0..9], the kernel's name, the parameters'
/// bytes, the stream; returns 1 if `extra` was NULL.
int fake_hip_launch(unsigned index, unsigned *geometry, char *name,
                    size_t nameCapacity, char *params, size_t paramsCapacity,
                    void **stream) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  const Launch &l = recorder.launches.at(index);
  std::memcpy(geometry, l.geometry, sizeof(l.geometry));
  std::snprintf(name, nameCapacity, "%s", l.kernel.c_str());
  std::memcpy(params, l.params.data(),
              std::min(paramsCapacity, l.params.size()));
  *stream = l.stream;
  return l.extraIsNull ? 1 : 0;
}

} // extern "C"
