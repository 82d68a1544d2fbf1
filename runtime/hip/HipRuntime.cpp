//===- HipRuntime.cpp - The HIP module loader -----------------------------===//
//
// fly/runtime/Hip.h over a dlopen'ed libamdhip64 (HipAbi.h has the ABI).
// The library is looked for and initialized once per process, on first use;
// the outcome, success or the reason of a failure, is kept.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Hip.h"

#include "HipAbi.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

using namespace fly::runtime;
namespace abi = fly::runtime::hipabi;

namespace {

struct Api {
  abi::InitFn init = nullptr;
  abi::GetDeviceCountFn getDeviceCount = nullptr;
  abi::ModuleLoadDataFn moduleLoadData = nullptr;
  abi::ModuleUnloadFn moduleUnload = nullptr;
  abi::ModuleGetFunctionFn moduleGetFunction = nullptr;
  abi::ModuleLaunchKernelFn moduleLaunchKernel = nullptr;
  abi::DrvLaunchKernelExFn drvLaunchKernelEx = nullptr; // optional
  abi::StreamCreateFn streamCreate = nullptr;
  abi::StreamFn streamSynchronize = nullptr;
  abi::StreamFn streamDestroy = nullptr;
  abi::ErrorTextFn getErrorName = nullptr;
  abi::ErrorTextFn getErrorString = nullptr;
};

/// The outcome of looking for HIP. Never unloaded: HIP tears itself down at
/// exit.
struct Library {
  void *handle = nullptr;
  Api api;
  HipStatus status;
  HipError::Kind errorKind = HipError::Kind::NoRuntime;
};

std::string errorName(const Api &api, abi::Status status) {
  const char *name = api.getErrorName ? api.getErrorName(status) : nullptr;
  if (name && *name)
    return name;
  return "hipError " + std::to_string(status);
}

/// "hipErrorX" or "hipErrorX (description)" when HIP's description says more.
std::string describe(const Api &api, abi::Status status) {
  std::string name = errorName(api, status);
  const char *text = api.getErrorString ? api.getErrorString(status) : nullptr;
  if (text && *text && name != text)
    return name + " (" + text + ")";
  return name;
}

std::vector<std::string> candidates(bool &fromEnvironment) {
  const char *env = std::getenv("FLYDSL_HIP_LIBRARY");
  fromEnvironment = env && *env;
  if (fromEnvironment)
    return {env};
  std::vector<std::string> names = {"libamdhip64.so", "libamdhip64.so.7",
                                    "libamdhip64.so.6", "libamdhip64.so.5"};
  if (const char *rocm = std::getenv("ROCM_PATH"); rocm && *rocm)
    names.push_back(std::string(rocm) + "/lib/libamdhip64.so");
  names.push_back("/opt/rocm/lib/libamdhip64.so");
  return names;
}

template <typename F> bool resolve(void *handle, const char *name, F &out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  return out != nullptr;
}

Library load() {
  Library lib;
  HipStatus &s = lib.status;
  bool fromEnvironment = false;
  std::vector<std::string> names = candidates(fromEnvironment);
  for (const std::string &name : names) {
    ++s.dlopenCalls;
    lib.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle) {
      s.library = name;
      break;
    }
    const char *error = dlerror();
    std::string why = error ? error : "not loadable";
    if (why.rfind(name + ": ", 0) == 0)
      why.erase(0, name.size() + 2);
    s.tried.push_back(name + ": " + why);
  }
  if (!lib.handle) {
    std::string list;
    for (const std::string &t : s.tried)
      list += (list.empty() ? "" : "; ") + t;
    s.error = fromEnvironment
                  ? "no HIP runtime: $FLYDSL_HIP_LIBRARY cannot be loaded (" +
                        list + ")"
                  : "no HIP runtime: libamdhip64 was not found (tried " +
                        list + ")";
    return lib;
  }
  s.libraryFound = true;
  struct link_map *map = nullptr;
  if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    s.path = map->l_name;
  std::string where = s.library + (s.path.empty() || s.path == s.library
                                       ? std::string()
                                       : " (" + s.path + ")");

  Api &api = lib.api;
  std::string missing;
  auto need = [&](const char *name, auto &fn) {
    if (!resolve(lib.handle, name, fn))
      missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need("hipInit", api.init);
  need("hipGetDeviceCount", api.getDeviceCount);
  need("hipModuleLoadData", api.moduleLoadData);
  need("hipModuleUnload", api.moduleUnload);
  need("hipModuleGetFunction", api.moduleGetFunction);
  need("hipModuleLaunchKernel", api.moduleLaunchKernel);
  need("hipStreamCreate", api.streamCreate);
  need("hipStreamSynchronize", api.streamSynchronize);
  need("hipStreamDestroy", api.streamDestroy);
  need("hipGetErrorName", api.getErrorName);
  need("hipGetErrorString", api.getErrorString);
  s.clusterLaunch = resolve(lib.handle, "hipDrvLaunchKernelEx",
                            api.drvLaunchKernelEx);
  if (!missing.empty()) {
    s.error = "no HIP runtime: " + where + " lacks " + missing;
    return lib;
  }

  s.initStatus = api.init(0);
  int count = 0;
  s.deviceCountStatus = api.getDeviceCount(&count);
  s.deviceCount = s.deviceCountStatus == abi::kSuccess ? count : 0;
  if (s.deviceCountStatus != abi::kSuccess || count <= 0) {
    lib.errorKind = HipError::Kind::NoDevice;
    s.error = "no HIP device: " + where + " loaded, but hipGetDeviceCount " +
              (s.deviceCountStatus != abi::kSuccess
                   ? "failed with " + errorName(api, s.deviceCountStatus)
                   : "reports " + std::to_string(count) + " devices") +
              (s.initStatus != abi::kSuccess
                   ? " (hipInit failed with " +
                         errorName(api, s.initStatus) + ")"
                   : "");
    return lib;
  }
  if (s.initStatus != abi::kSuccess) {
    // Devices, yet no usable runtime: an error of HIP itself.
    lib.errorKind = HipError::Kind::Api;
    s.error = "HIP cannot start: hipInit of " + where + " failed with " +
              describe(api, s.initStatus);
  }
  return lib;
}

const Library &loaded() {
  static const Library lib = load();
  return lib;
}

const Api &api() { return loaded().api; }

void check(abi::Status status, const std::string &what) {
  if (status == abi::kSuccess)
    return;
  throw HipError(HipError::Kind::Api,
                 what + " failed: " + describe(api(), status), status,
                 errorName(api(), status));
}

struct Functions {
  std::mutex mutex;
  struct Entry {
    void *module;
    std::string name;
  };
  std::unordered_map<void *, Entry> byHandle;
};

Functions &functions() {
  static Functions f;
  return f;
}

// --- The launch table -------------------------------------------------------

thread_local std::string lastError;

template <typename F> int guarded(F &&body) {
  try {
    body();
    return 0;
  } catch (const HipError &e) {
    lastError = e.what();
    return e.status() != 0 ? e.status() : -1;
  } catch (const std::exception &e) {
    lastError = e.what();
    return -1;
  }
}

HipRuntime &runtimeOf(void *context) {
  return *static_cast<HipRuntime *>(context);
}

int tableModuleLoad(void *context, const void *data, size_t size,
                    void **module) {
  return guarded([&] { *module = runtimeOf(context).loadModule(data, size); });
}

int tableModuleUnload(void *context, void *module) {
  return guarded([&] { runtimeOf(context).unloadModule(module); });
}

int tableGetFunction(void *context, void *module, const char *name,
                     void **function) {
  return guarded(
      [&] { *function = runtimeOf(context).getFunction(module, name); });
}

int tableLaunch(void *context, void *function, const FlyLaunchConfig *config,
                void **params, size_t) {
  return guarded([&] { runtimeOf(context).launch(function, *config, params); });
}

int tableStreamCreate(void *context, void **stream) {
  return guarded([&] { *stream = runtimeOf(context).createStream(); });
}

int tableStreamSynchronize(void *context, void *stream) {
  return guarded([&] { runtimeOf(context).synchronizeStream(stream); });
}

int tableStreamDestroy(void *context, void *stream) {
  return guarded([&] { runtimeOf(context).destroyStream(stream); });
}

const char *tableLastError(void *) { return lastError.c_str(); }

} // namespace

// --- HipStatus, HipRuntime --------------------------------------------------

HipStatus fly::runtime::hipStatus() { return loaded().status; }

HipRuntime &HipRuntime::get() {
  const Library &lib = loaded();
  if (!lib.status.error.empty())
    throw HipError(lib.errorKind, lib.status.error,
                   lib.errorKind == HipError::Kind::Api ? lib.status.initStatus
                                                        : 0,
                   lib.errorKind == HipError::Kind::Api
                       ? errorName(lib.api, lib.status.initStatus)
                       : std::string());
  static HipRuntime runtime;
  return runtime;
}

const std::string &HipRuntime::library() const {
  return loaded().status.library;
}

int HipRuntime::deviceCount() const { return loaded().status.deviceCount; }

bool HipRuntime::hasClusterLaunch() const {
  return loaded().status.clusterLaunch;
}

void *HipRuntime::loadModule(const void *image, size_t size) {
  void *module = nullptr;
  check(api().moduleLoadData(&module, image),
        "hipModuleLoadData of a " + std::to_string(size) + "-byte code object");
  return module;
}

void HipRuntime::unloadModule(void *module) {
  {
    Functions &f = functions();
    std::lock_guard<std::mutex> lock(f.mutex);
    for (auto it = f.byHandle.begin(); it != f.byHandle.end();)
      it = it->second.module == module ? f.byHandle.erase(it) : std::next(it);
  }
  check(api().moduleUnload(module), "hipModuleUnload");
}

void *HipRuntime::getFunction(void *module, const std::string &name) {
  void *function = nullptr;
  check(api().moduleGetFunction(&function, module, name.c_str()),
        "hipModuleGetFunction of kernel '" + name + "'");
  Functions &f = functions();
  std::lock_guard<std::mutex> lock(f.mutex);
  f.byHandle[function] = {module, name};
  return function;
}

std::string HipRuntime::kernelName(void *function) const {
  Functions &f = functions();
  std::lock_guard<std::mutex> lock(f.mutex);
  auto it = f.byHandle.find(function);
  return it == f.byHandle.end() ? "?" : it->second.name;
}

void HipRuntime::launch(void *function, const FlyLaunchConfig &config,
                        void **params) {
  const uint32_t *c = config.cluster;
  std::string geometry =
      "grid " + std::to_string(config.grid[0]) + "x" +
      std::to_string(config.grid[1]) + "x" + std::to_string(config.grid[2]) +
      ", block " + std::to_string(config.block[0]) + "x" +
      std::to_string(config.block[1]) + "x" + std::to_string(config.block[2]);
  if (c[0] == 0 && c[1] == 0 && c[2] == 0) {
    check(api().moduleLaunchKernel(
              function, config.grid[0], config.grid[1], config.grid[2],
              config.block[0], config.block[1], config.block[2],
              config.shared_memory_bytes, config.stream, params, nullptr),
          "hipModuleLaunchKernel of kernel '" + kernelName(function) + "' (" +
              geometry + ")");
    return;
  }
  // A cluster launch: a zero cluster dimension counts as 1.
  unsigned cx = c[0] ? c[0] : 1, cy = c[1] ? c[1] : 1, cz = c[2] ? c[2] : 1;
  std::string what = "cluster launch of kernel '" + kernelName(function) +
                     "' (" + geometry + ", cluster " + std::to_string(cx) +
                     "x" + std::to_string(cy) + "x" + std::to_string(cz) + ")";
  if (!api().drvLaunchKernelEx)
    throw HipError(HipError::Kind::Unsupported,
                   what + ": " + library() +
                       " has no hipDrvLaunchKernelEx, so it cannot launch "
                       "clusters");
  abi::LaunchAttribute attribute{};
  attribute.id = abi::kLaunchAttributeClusterDimension;
  attribute.value.clusterDim.x = cx;
  attribute.value.clusterDim.y = cy;
  attribute.value.clusterDim.z = cz;
  abi::DrvLaunchConfig launch{};
  launch.gridDimX = config.grid[0];
  launch.gridDimY = config.grid[1];
  launch.gridDimZ = config.grid[2];
  launch.blockDimX = config.block[0];
  launch.blockDimY = config.block[1];
  launch.blockDimZ = config.block[2];
  launch.sharedMemBytes = config.shared_memory_bytes;
  launch.hStream = config.stream;
  launch.attrs = &attribute;
  launch.numAttrs = 1;
  check(api().drvLaunchKernelEx(&launch, function, params, nullptr),
        "hipDrvLaunchKernelEx: " + what);
}

void *HipRuntime::createStream() {
  void *stream = nullptr;
  check(api().streamCreate(&stream), "hipStreamCreate");
  return stream;
}

void HipRuntime::synchronizeStream(void *stream) {
  check(api().streamSynchronize(stream), "hipStreamSynchronize");
}

void HipRuntime::destroyStream(void *stream) {
  check(api().streamDestroy(stream), "hipStreamDestroy");
}

const FlyLaunchTable *HipRuntime::launchTable() const {
  static const FlyLaunchTable table = {
      sizeof(FlyLaunchTable),
      const_cast<HipRuntime *>(this),
      tableModuleLoad,
      tableModuleUnload,
      tableGetFunction,
      tableLaunch,
      tableStreamCreate,
      tableStreamSynchronize,
      tableStreamDestroy,
      tableLastError};
  return &table;
}

extern "C" const FlyLaunchTable *fly_runtime_hip_table(const char **error) {
  try {
    return HipRuntime::get().launchTable();
  } catch (const HipError &) {
    if (error)
      *error = loaded().status.error.c_str();
    return nullptr;
  }
}
