//===- Hip.h - The HIP module loader ----------------------------*- C++ -*-===//
//
// The HIP runtime of FlyDSL (SPEC.md §9): code objects loaded with
// hipModuleLoadData, kernels looked up with hipModuleGetFunction and
// launched with hipModuleLaunchKernel (or, for a cluster launch,
// hipDrvLaunchKernelEx with a cluster-dimension attribute) on a HIP stream.
//
// libamdhip64 is not linked: it is dlopen'ed at first use, once per
// process, and its entry points are resolved with dlsym. The library tried
// is $FLYDSL_HIP_LIBRARY when set (a file name or a path: that one only),
// else libamdhip64.so, libamdhip64.so.7, .so.6, .so.5 through the dynamic
// loader's search, then $ROCM_PATH/lib and /opt/rocm/lib. The variable is
// read at first use only.
//
// Errors are exceptions (HipError): every failing HIP call becomes one that
// carries the HIP error's name (hipGetErrorName) and, for loads, lookups and
// launches, what was loaded or launched. "No HIP runtime" (no library could
// be loaded; the message lists the names tried) and "no HIP device"
// (hipGetDeviceCount gives 0 or an error) are errors of their own kinds.
//
// The launch table (fly/runtime/Launch.h) over this runtime is what a
// compiled host entry launches through; installing it is
// fly_runtime_install_launch_table(fly::runtime::HipRuntime::get().launchTable()).
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_HIP_H
#define FLY_RUNTIME_HIP_H

#include "fly/runtime/Launch.h"

#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
/// The HIP launch table, or NULL when HIP cannot launch here (no runtime,
/// no device); then `*error` (if `error` is not NULL) is the reason, valid
/// for the process's lifetime.
const FlyLaunchTable *fly_runtime_hip_table(const char **error);
}

namespace fly::runtime {

class HipError : public std::runtime_error {
public:
  enum class Kind {
    NoRuntime,   ///< no libamdhip64 could be loaded, or it lacks an entry
    NoDevice,    ///< the library loaded, but reports no device
    Api,         ///< a HIP call failed: status() and errorName() say how
    Unsupported, ///< this runtime cannot do what was asked (cluster launch)
  };
  HipError(Kind kind, const std::string &message, int status = 0,
           std::string errorName = {})
      : std::runtime_error(message), kind_(kind), status_(status),
        errorName_(std::move(errorName)) {}
  Kind kind() const { return kind_; }
  /// The hipError_t of a failed call (Kind::Api), else 0.
  int status() const { return status_; }
  /// hipGetErrorName of status() (Kind::Api), else empty.
  const std::string &errorName() const { return errorName_; }

private:
  Kind kind_;
  int status_;
  std::string errorName_;
};

/// What loading HIP gave, for diagnostics (never throws; loads HIP on first
/// use like everything else here).
struct HipStatus {
  bool libraryFound = false;
  std::string library;            ///< the name that loaded
  std::string path;               ///< the file it is
  std::vector<std::string> tried; ///< "name: dlerror" of each name that failed
  unsigned dlopenCalls = 0;       ///< in this process (one per name tried)
  bool clusterLaunch = false;     ///< hipDrvLaunchKernelEx is there
  int initStatus = 0;             ///< hipInit(0)
  int deviceCountStatus = 0;      ///< hipGetDeviceCount
  int deviceCount = 0;
  /// The error HipRuntime::get() throws, empty when HIP is ready to launch.
  std::string error;
};
HipStatus hipStatus();

/// The process's HIP runtime. Thread-safe.
class HipRuntime {
public:
  /// The runtime, loading HIP on first use; throws HipError (NoRuntime,
  /// NoDevice) when HIP cannot launch here, the same error every time.
  static HipRuntime &get();

  const std::string &library() const;
  int deviceCount() const;
  bool hasClusterLaunch() const;

  /// hipModuleLoadData of a code object (`size` is for messages: HIP reads
  /// the object's own headers).
  void *loadModule(const void *image, size_t size);
  void unloadModule(void *module);
  /// hipModuleGetFunction; the name is remembered for the errors of
  /// launches of the function.
  void *getFunction(void *module, const std::string &name);
  /// Launches with `params` as kernelParams: hipModuleLaunchKernel, or
  /// hipDrvLaunchKernelEx when config.cluster is not {0, 0, 0}.
  void launch(void *function, const FlyLaunchConfig &config, void **params);
  void *createStream();
  void synchronizeStream(void *stream);
  void destroyStream(void *stream);

  /// A FlyLaunchTable over this runtime. Its entries never throw: a failure
  /// returns nonzero (the hipError_t when HIP failed) and last_error gives
  /// the HipError's message.
  const FlyLaunchTable *launchTable() const;

  /// The kernel name of a function from getFunction ("?" if unknown).
  std::string kernelName(void *function) const;

private:
  HipRuntime() = default;
};

} // namespace fly::runtime

#endif // FLY_RUNTIME_HIP_H
