//===- HostEntry.cpp - flydsl._fly.HostEntry ------------------------------===//
//
// The host entry of a compiled @flyc.jit body for Python (fly/HostEntry.h):
//
//   entry = _fly.HostEntry(host_module_bitcode, "name")
//   entry.call(_fly.ArgumentBlock(host_function).pack(values))  # one native call
//
// `call` takes the packed argument block: bytes (or any contiguous buffer)
// of exactly `entry.block_size` bytes, laid out as the compile's
// HostFunctionInfo describes it (its slots, fly/HostAbi.h: each value's
// offset and type; ArgumentPacker.cpp packs them). The GIL is released during the call: a
// runtime may wait for the kernel. Launch errors (no runtime installed, a
// runtime entry failing) raise flydsl._fly.Error.
//
// set_launch_table(address) installs a runtime's FlyLaunchTable
// (fly/runtime/Launch.h) given its address, 0 uninstalls; launch_table()
// is the installed one's address. For runtimes living in other shared
// objects, and for test doubles.
//
//===----------------------------------------------------------------------===//

#include "fly/HostEntry.h"
#include "fly/runtime/Launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <memory>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// flydsl._fly.Error (made by the module before this part is registered).
PyObject *errorType = PyExc_RuntimeError;

struct PyHostEntry {
  std::unique_ptr<fly::HostEntry> entry;
};

/// A view of a contiguous buffer for the length of a call.
class BlockView {
public:
  explicit BlockView(nb::handle object) {
    if (PyBytes_Check(object.ptr())) {
      data = PyBytes_AS_STRING(object.ptr());
      size = size_t(PyBytes_GET_SIZE(object.ptr()));
      return;
    }
    if (PyObject_GetBuffer(object.ptr(), &buffer, PyBUF_SIMPLE) != 0)
      throw nb::python_error();
    held = true;
    data = buffer.buf;
    size = size_t(buffer.len);
  }
  ~BlockView() {
    if (held)
      PyBuffer_Release(&buffer);
  }
  const void *data = nullptr;
  size_t size = 0;

private:
  Py_buffer buffer;
  bool held = false;
};

} // namespace

[[noreturn]] void raiseLaunchError(llvm::Error err) {
  std::string message = llvm::toString(std::move(err));
  PyErr_SetString(errorType, message.c_str());
  throw nb::python_error();
}

fly::HostEntry &hostEntryOf(nb::handle object) {
  return *nb::cast<PyHostEntry &>(object).entry;
}

void registerHostEntry(nb::module_ &m) {
  if (nb::hasattr(m, "Error"))
    errorType = nb::object(m.attr("Error")).release().ptr();

  nb::class_<PyHostEntry>(m, "HostEntry")
      .def(
          "__init__",
          [](PyHostEntry *self, nb::bytes bitcode, const std::string &name) {
            llvm::Expected<std::unique_ptr<fly::HostEntry>> entry = [&] {
              llvm::StringRef text(bitcode.c_str(), bitcode.size());
              nb::gil_scoped_release release;
              return fly::HostEntry::create(text, name);
            }();
            if (!entry)
              raiseLaunchError(entry.takeError());
            new (self) PyHostEntry{std::move(*entry)};
          },
          "bitcode"_a, "name"_a,
          "JIT-compiles the host module (Artifact::hostModule) and resolves "
          "the entry of host function `name`")
      .def_prop_ro("block_size",
                   [](const PyHostEntry &e) { return e.entry->blockSize(); })
      .def(
          "call",
          [](PyHostEntry &e, nb::handle block) {
            BlockView view(block);
            if (view.size != e.entry->blockSize()) {
              PyErr_Format(PyExc_ValueError,
                           "the argument block has %zu bytes, the host "
                           "function takes %zu",
                           view.size, size_t(e.entry->blockSize()));
              throw nb::python_error();
            }
            llvm::Error err = llvm::Error::success();
            {
              nb::gil_scoped_release release;
              err = e.entry->call(view.data);
            }
            if (err)
              raiseLaunchError(std::move(err));
          },
          "block"_a,
          "Runs the host function on the packed argument block (bytes or a "
          "buffer of block_size bytes)");

  m.def(
      "set_launch_table",
      [](uintptr_t address) {
        if (fly_runtime_install_launch_table(
                reinterpret_cast<const FlyLaunchTable *>(address)) != 0)
          throw nb::value_error("not a FlyLaunchTable of this build's size");
      },
      "address"_a,
      "Installs the FlyLaunchTable at `address` (0: none) for every host "
      "entry");
  m.def(
      "launch_table",
      [] { return reinterpret_cast<uintptr_t>(fly_runtime_launch_table()); },
      "The installed FlyLaunchTable's address, 0 if none");
}
