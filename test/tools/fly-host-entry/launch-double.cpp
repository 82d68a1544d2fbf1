//===- launch-double.cpp - A test double of the driver boundary -----------===//
//
// A launch table (fly/runtime/Launch.h) that launches nothing: it records
// every module load and unload and every launch -- geometry, stream and the
// bytes of each kernel parameter (the sizes are set by the test, from the
// kernel's ABI) -- for test/python/test_host_entry.py, which loads this
// library with ctypes and installs fly_double_table() through
// flydsl._fly.set_launch_table. An entry can be made to fail.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Launch.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Launch {
  std::string kernel;
  FlyLaunchConfig config;
  size_t numParams;
  std::string params; // the parameters' bytes, concatenated
};

struct Recorder {
  std::mutex mutex;
  std::vector<size_t> paramSizes;
  std::deque<std::string> modules;   // a loaded module: its code object
  std::deque<std::string> functions; // a function: its kernel's name
  std::vector<Launch> launches;
  unsigned loads = 0, unloads = 0, streams = 0, liveStreams = 0, syncs = 0;
  std::string failing; // the name of an entry to fail
  std::string error;
} recorder;

int failIf(const char *entry) {
  if (recorder.failing != entry)
    return 0;
  recorder.error = std::string("the double was told to fail ") + entry;
  return 7;
}

int moduleLoad(void *, const void *data, size_t size, void **module) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("module_load"))
    return status;
  ++recorder.loads;
  recorder.modules.emplace_back(static_cast<const char *>(data), size);
  *module = &recorder.modules.back();
  return 0;
}

int moduleUnload(void *, void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.unloads;
  return 0;
}

int getFunction(void *, void *, const char *name, void **function) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("get_function"))
    return status;
  recorder.functions.emplace_back(name);
  *function = &recorder.functions.back();
  return 0;
}

int launch(void *, void *function, const FlyLaunchConfig *config, void **params,
           size_t numParams) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  if (int status = failIf("launch"))
    return status;
  Launch record{*static_cast<std::string *>(function), *config, numParams, {}};
  if (numParams == recorder.paramSizes.size())
    for (size_t i = 0; i < numParams; ++i)
      record.params.append(static_cast<const char *>(params[i]),
                           recorder.paramSizes[i]);
  recorder.launches.push_back(std::move(record));
  return 0;
}

int streamCreate(void *, void **stream) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.streams;
  ++recorder.liveStreams;
  *stream = reinterpret_cast<void *>(uintptr_t(0x5000 + recorder.streams));
  return 0;
}

int streamSynchronize(void *, void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  ++recorder.syncs;
  return 0;
}

int streamDestroy(void *, void *) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  --recorder.liveStreams;
  return 0;
}

const char *lastError(void *) { return recorder.error.c_str(); }

const FlyLaunchTable table = {sizeof(FlyLaunchTable),
                              nullptr,
                              moduleLoad,
                              moduleUnload,
                              getFunction,
                              launch,
                              streamCreate,
                              streamSynchronize,
                              streamDestroy,
                              lastError};

} // namespace

extern "C" {

const FlyLaunchTable *fly_double_table(void) { return &table; }

/// Forgets everything recorded; `sizes` are the kernel's parameter sizes.
void fly_double_reset(const size_t *sizes, size_t count) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.paramSizes.assign(sizes, sizes + count);
  recorder.modules.clear();
  recorder.functions.clear();
  recorder.launches.clear();
  recorder.loads = recorder.unloads = recorder.streams = 0;
  recorder.liveStreams = recorder.syncs = 0;
  recorder.failing.clear();
}

/// Makes entry `name` ("module_load", "get_function", "launch") fail.
void fly_double_fail(const char *name) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  recorder.failing = name ? name : "";
}

/// counts[0..5] = loads, unloads, launches, streams created, streams alive,
/// stream synchronizations.
void fly_double_counts(unsigned *counts) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  unsigned values[] = {recorder.loads,
                       recorder.unloads,
                       unsigned(recorder.launches.size()),
                       recorder.streams,
                       recorder.liveStreams,
                       recorder.syncs};
  std::memcpy(counts, values, sizeof(values));
}

/// The first `capacity` bytes of loaded module `index`'s code object; its
/// size.
size_t fly_double_module(unsigned index, char *bytes, size_t capacity) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  const std::string &m = recorder.modules.at(index);
  std::memcpy(bytes, m.data(), std::min(capacity, m.size()));
  return m.size();
}

/// Launch `index`: geometry[0..9] = grid xyz, block xyz, cluster xyz,
/// dynamic LDS bytes; the kernel's name and the parameters' bytes into the
/// buffers; returns the number of parameters the launch passed.
size_t fly_double_launch(unsigned index, unsigned *geometry, char *name,
                         size_t nameCapacity, char *params,
                         size_t paramsCapacity, void **stream) {
  std::lock_guard<std::mutex> lock(recorder.mutex);
  const Launch &l = recorder.launches.at(index);
  for (int i = 0; i < 3; ++i) {
    geometry[i] = l.config.grid[i];
    geometry[3 + i] = l.config.block[i];
    geometry[6 + i] = l.config.cluster[i];
  }
  geometry[9] = l.config.shared_memory_bytes;
  std::snprintf(name, nameCapacity, "%s", l.kernel.c_str());
  std::memcpy(params, l.params.data(),
              std::min(paramsCapacity, l.params.size()));
  *stream = l.config.stream;
  return l.numParams;
}

} // extern "C"
