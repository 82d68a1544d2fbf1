//===- RuntimeModule.cpp - flydsl._fly_runtime, what a call needs ----------===//
//
// The extension that runs compiled functions: the disk cache, the host
// entries (fly/HostEntry.h), the native packer and dispatcher, the HIP and
// emulator runtimes, and the chip table. It links LLVM but not MLIR, so the
// package loads it at import and a call whose artifact is in the disk cache
// costs no more than this; the compiler, flydsl._fly_compiler
// (CompilerModule.cpp), is loaded on first use (flydsl/_fly.py). Errors of
// both are this module's Error.
//
//===----------------------------------------------------------------------===//

#include "fly/Arch/Chip.h"
#include "fly/runtime/Emu.h"
#include "fly/runtime/EmuRuntime.h"
#include "fly/runtime/Launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

void registerDiskCache(nb::module_ &m);
void registerHostEntry(nb::module_ &m);
void registerArgumentPacker(nb::module_ &m);
void registerHipRuntime(nb::module_ &m);

namespace {

nb::object errorType;

[[noreturn]] void raiseError(const char *message) {
  PyErr_SetString(errorType.ptr(), message);
  throw nb::python_error();
}

} // namespace

NB_MODULE(_fly_runtime, m) {
  m.doc() = "FlyDSL's runtime: disk cache, host entries, packer, runtimes";
  errorType = nb::borrow(PyErr_NewException("flydsl._fly_runtime.Error",
                                            PyExc_Exception, nullptr));
  m.attr("Error") = errorType;

  registerDiskCache(m);
  registerHostEntry(m);
  registerArgumentPacker(m);
  registerHipRuntime(m);

  m.def(
      "install_emu_runtime",
      [] {
        // The CPU emulator as the launch table (modules: host bitcode made
        // by compile(..., emulator=True)).
        if (fly_runtime_install_launch_table(fly_runtime_emu_table()) != 0)
          raiseError("the emulator's launch table was refused");
      },
      "Installs the CPU emulator as the runtime");

  m.def(
      "emu_set_tensor_extents",
      [](const std::vector<std::tuple<uintptr_t, uint64_t, std::string>> &tensors) {
        // Checked emulation (Emu.h): the tensors of this thread's next
        // launches, [base, base + bytes) and the argument's name.
        std::vector<FlyEmuTensorExtent> extents;
        for (const auto &[base, bytes, name] : tensors)
          extents.push_back({reinterpret_cast<const void *>(base), bytes,
                             name.c_str()});
        fly_emu_set_tensor_extents(extents.data(), uint32_t(extents.size()));
      },
      "tensors"_a,
      "The (address, bytes, name) of each tensor the calling thread's next "
      "checked emulator launches access; [] forgets them");

  m.def(
      "emu_take_warnings",
      [] { return std::string(fly_emu_take_warnings()); },
      "The warnings (bounds=strict) of the calling thread's checked emulator "
      "launches since the last call, one a line (Emu.h, \"Checked "
      "emulation\"); \"\" when there were none");

  m.def(
      "data_address",
      [](nb::handle array) -> uintptr_t {
        // The first element's address of anything with the buffer
        // protocol (numpy arrays, strided views too): what a call packs for
        // a tensor, without building __array_interface__'s dictionary.
        Py_buffer view;
        if (PyObject_GetBuffer(array.ptr(), &view, PyBUF_STRIDES) != 0)
          throw nb::python_error();
        uintptr_t address = reinterpret_cast<uintptr_t>(view.buf);
        PyBuffer_Release(&view);
        return address;
      },
      "array"_a, "The address of a buffer's first element");

  m.def("supported_chips", [] {
    std::vector<std::string> names;
    for (const fly::arch::ChipInfo &chip : fly::arch::supportedChips())
      names.push_back(chip.name.str());
    return names;
  });
  // The compiler's chip table entry (fly/Arch/Chip.h), for the checks the
  // front end makes while tracing.
  m.def("chip_info", [](const std::string &name) {
    const fly::arch::ChipInfo *chip = fly::arch::lookupChip(name);
    if (!chip)
      throw nb::value_error(("unknown chip " + name + "; supported chips: " +
                             fly::arch::supportedChipList())
                                .c_str());
    nb::dict info;
    info["name"] = chip->name.str();
    info["family"] = fly::arch::familyName(chip->family).str();
    info["wave_size"] = chip->waveSize;
    info["lds_bytes_per_workgroup"] = chip->ldsBytesPerWorkgroup;
    info["max_workgroup_size"] = chip->maxWorkgroupSize;
    info["has_mfma"] = chip->hasMFMA();
    info["has_wmma"] = chip->hasWMMA();
    info["has_clusters"] = chip->hasClusters;
    info["product"] = chip->product.str();
    info["compute_units"] = chip->computeUnits;
    info["l2_bytes"] = chip->l2Bytes;
    info["fp8_format"] =
        chip->fp8 == fly::arch::Fp8Format::FNUZ ? "fnuz" : "ocp";
    nb::list dma;
    for (unsigned bits : {8u, 16u, 32u, 96u, 128u})
      if (chip->hasLdsDma(bits))
        dma.append(bits);
    info["lds_dma_bits"] = dma;
    // S_WAITCNT: per counter (shift, width, high shift, high width).
    if (auto waitcnt = chip->waitcnt()) {
      nb::dict fields;
      auto field = [](const fly::arch::WaitcntField &f) {
        return nb::make_tuple(f.shift, f.width, f.highShift, f.highWidth);
      };
      fields["vmcnt"] = field(waitcnt->vmcnt);
      fields["lgkmcnt"] = field(waitcnt->lgkmcnt);
      fields["expcnt"] = field(waitcnt->expcnt);
      info["waitcnt"] = fields;
    } else {
      info["waitcnt"] = nb::none();
    }
    return info;
  });
}
