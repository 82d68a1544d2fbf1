//===- HipRuntime.cpp - flydsl._fly's HIP runtime entry points ------------===//
//
// The HIP module loader (fly/runtime/Hip.h) for Python:
//
//   _fly.hip_runtime_status()  -> dict: is libamdhip64 there (which name,
//       which file, the names that failed), hipInit / hipGetDeviceCount
//       results, device count, cluster launch, and the error that
//       install_hip_runtime would raise (None when HIP can launch)
//   _fly.install_hip_runtime() -> installs the HIP launch table for every
//       host entry and returns its address; raises flydsl._fly.Error saying
//       "no HIP runtime: ..." or "no HIP device: ..." when HIP cannot launch
//
// Both load HIP on first use (once per process, see Hip.h); the GIL is
// released meanwhile.
//
//===----------------------------------------------------------------------===//

#include "fly/runtime/Hip.h"
#include "fly/runtime/Launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace {
/// flydsl._fly.Error (made by the module before this part is registered).
PyObject *errorType = PyExc_RuntimeError;
} // namespace

void registerHipRuntime(nb::module_ &m) {
  if (nb::hasattr(m, "Error"))
    errorType = nb::object(m.attr("Error")).release().ptr();

  m.def(
      "hip_runtime_status",
      [] {
        fly::runtime::HipStatus s;
        {
          nb::gil_scoped_release release;
          s = fly::runtime::hipStatus();
        }
        nb::dict d;
        d["library_found"] = s.libraryFound;
        d["library"] = s.libraryFound ? nb::object(nb::str(s.library.c_str()))
                                      : nb::none();
        d["path"] = s.path.empty() ? nb::none()
                                   : nb::object(nb::str(s.path.c_str()));
        d["tried"] = s.tried;
        d["dlopen_calls"] = s.dlopenCalls;
        d["cluster_launch"] = s.clusterLaunch;
        d["init_status"] = s.initStatus;
        d["device_count_status"] = s.deviceCountStatus;
        d["device_count"] = s.deviceCount;
        d["error"] = s.error.empty() ? nb::none()
                                     : nb::object(nb::str(s.error.c_str()));
        return d;
      },
      "What loading HIP gave: library_found, library, path, tried, "
      "dlopen_calls, cluster_launch, init_status, device_count_status, "
      "device_count, error (None when HIP can launch)");

  m.def(
      "install_hip_runtime",
      [] {
        const FlyLaunchTable *table = nullptr;
        std::string error;
        {
          nb::gil_scoped_release release;
          try {
            table = fly::runtime::HipRuntime::get().launchTable();
          } catch (const fly::runtime::HipError &e) {
            error = e.what();
          }
        }
        if (!table) {
          PyErr_SetString(errorType, error.c_str());
          throw nb::python_error();
        }
        if (fly_runtime_install_launch_table(table) != 0)
          throw nb::value_error("the HIP launch table has another size");
        return reinterpret_cast<uintptr_t>(table);
      },
      "Installs the HIP launch table (libamdhip64, loaded on first use) for "
      "every host entry and returns its address; raises Error when there is "
      "no HIP runtime or no HIP device");
}
