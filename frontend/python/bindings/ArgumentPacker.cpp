//===- ArgumentPacker.cpp - the native warm-call path ---------------------===//
//
// The warm-call path of a compiled function in native code (SPEC §12: a
// call costs a microsecond or two): it binds a call's arguments to the
// parameters, checks them against what the function was compiled for,
// packs the argument block (fly/HostEntry.h's ABI) on the stack and calls
// the host entry, without a Python object per value.
//
//   packer = _fly.ArgumentPacker(entry, params, slots, binding,
//                                TensorDescriptor, Stream,
//                                torch.Tensor or None, host_memory, errors)
//   packer.call(args, kwargs)   # True: called; False: not handled, nothing done
//
//   dispatcher = _fly.Dispatcher(binding, kinds, TensorDescriptor, Stream,
//                                torch.Tensor or None)
//   dispatcher.add(args, kwargs, packer)  # this call's key -> packer
//   dispatcher.call(args, kwargs)         # True: a packer of its key ran it
//
// The packer handles the common cases only: numpy arrays (and anything
// else with the buffer protocol), torch tensors (dtype, shape, stride(),
// data_ptr(); on the CPU when `host_memory`, i.e. for the emulator) and
// flyc.from_dlpack descriptors (their element, shape, strides and address
// attributes) for tensors, Python ints / floats / bools for scalars,
// fx.Stream / None / int handles for streams, and Constexpr values equal to
// the compiled ones. For anything else, or any argument that does not
// match, `call` returns False before doing anything, and the front end
// takes its Python path, which either handles the argument or raises the
// error naming it: the messages live in one place.
//
// binding: (names, defaults, required): the parameter names in order and
//   per parameter its default, or `required` when it has none. Arguments
//   bind as Python binds them to positional-or-keyword parameters:
//   positional ones first, then keywords by name, then the defaults; a call
//   that does not bind is the Python path's to explain.
// params: per parameter, one tuple
//   ("tensor", element, formats, itemsize, rank, static, dynamic, align,
//    torch_dtype)
//       formats: the buffer-protocol format characters accepted for the
//       element type ("f" for f32, "bB" for i8, ...); static: [(k, i, v)]
//       (k 0: shape, 1: strides, in elements); dynamic: [(k, i, div,
//       wide)], the leaves the block takes, in order; torch_dtype the
//       torch.dtype of the element (None: torch tensors take the Python path)
//   ("int",) / ("float",) / ("bool",)      a scalar
//   ("stream",)                            an fx.Stream, None or an int handle
//   ("constexpr", value)                   must equal value, of its type
// slots: per value of the block, (offset, format, param, leaf):
//   format "P": the tensor's address, or the stream's handle; "i"/"q": leaf
//   `leaf` of the tensor (i32/i64), or for a scalar parameter (leaf -1) its
//   value as b/h/i/q (ints), ? (bool), f/d (floats).
//
// The dispatcher is a @flyc.jit function's table from what the argument
// specs of a call depend on (its key) to the packer of the compiled function
// for them. kinds: per parameter "v" (a tensor or number: keyed by its
// Python type and, for tensors, element type, rank, strides and address
// modulo 16; shapes are the packer's to check), "s" (a stream: its value
// never changes the code) or "c" (Constexpr: keyed by its type and value).
// `_fly.invalidate_dispatch()` empties every dispatcher (the environment or
// the compile options changed).
//
// errors: None, or a weakref.WeakMethod of the compiled function's
//   message -> exception method: a failed launch raises what it returns
//   (the error naming the kernel and its launch line), as the Python path.
//
// The packer also remembers the launch table installed when it was made:
// if another one is installed (a compiled function of the other runtime
// ran in between), `call` returns False and the Python path installs the
// right one again.
//
//===----------------------------------------------------------------------===//

#include "fly/HostEntry.h"
#include "fly/runtime/Launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <limits>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

/// HostEntry.cpp: the C++ entry of a flydsl._fly.HostEntry, and the
/// launch-error conversion shared with HostEntry.call.
fly::HostEntry &hostEntryOf(nb::handle object);
[[noreturn]] void raiseLaunchError(llvm::Error err);

namespace {

constexpr int kMaxRank = 8;
constexpr size_t kMaxParams = 16; // more: always the Python path

/// An attribute or a no-argument method's result, by a name interned once
/// (the calls are on every warm call's path).
struct Name {
  explicit Name(const char *text) : object(PyUnicode_InternFromString(text)) {}
  PyObject *object; // immortal for the process
};
nb::object attribute(PyObject *owner, const Name &name) {
  return nb::steal(PyObject_GetAttr(owner, name.object));
}
nb::object callMethod(PyObject *owner, const Name &name) {
  return nb::steal(PyObject_CallMethodNoArgs(owner, name.object));
}
const Name &dtypeName() { static const Name n("dtype"); return n; }
const Name &isCpuName() { static const Name n("is_cpu"); return n; }
const Name &shapeName() { static const Name n("shape"); return n; }
const Name &strideName() { static const Name n("stride"); return n; }
const Name &stridesName() { static const Name n("strides"); return n; }
const Name &dataPtrName() { static const Name n("data_ptr"); return n; }
const Name &elementName() { static const Name n("element"); return n; }
const Name &addressName() { static const Name n("address"); return n; }
const Name &handleName() { static const Name n("handle"); return n; }
const Name &specName() { static const Name n("_spec"); return n; }
const Name &tensorSpecName() { static const Name n("tensor_spec"); return n; }

struct TensorParam {
  std::string element; // the MLIR element type, as descriptors name it
  nb::object torchDtype; // the torch.dtype of that element, or None
  std::string formats;
  int64_t itemsize = 0;
  int rank = 0;
  struct Static {
    int kind, index;
    int64_t value;
  };
  struct Dynamic {
    int kind, index;
    int64_t divisibility;
    bool wide;
  };
  std::vector<Static> statics;
  std::vector<Dynamic> dynamics;
  uint64_t align = 1;
};

enum class ParamKind { Tensor, Int, Float, Bool, Constexpr, Stream };

struct Param {
  ParamKind kind;
  TensorParam tensor;
  nb::object constant; // Constexpr
};

struct Slot {
  uint32_t offset;
  char format;
  int param;
  int leaf;
};

/// How a call's arguments reach the parameters (see the header).
class Binding {
public:
  Binding(nb::handle spec) {
    nb::tuple t = nb::borrow<nb::tuple>(spec);
    nb::object required = nb::borrow(t[2]);
    for (nb::handle name : t[0])
      names.push_back(nb::borrow(name));
    for (nb::handle value : t[1])
      defaults.push_back(value.is(required) ? nb::object() : nb::borrow(value));
    if (names.size() != defaults.size())
      throw nb::value_error("binding: as many defaults as names");
  }

  size_t size() const { return names.size(); }

  /// items[i]: the argument of parameter i (borrowed from the call or the
  /// defaults); false when the call does not bind.
  bool bind(PyObject *args, PyObject *kwargs, PyObject **items) const {
    if (!PyTuple_Check(args))
      return false;
    size_t n = size_t(PyTuple_GET_SIZE(args));
    if (n > names.size())
      return false;
    for (size_t i = 0; i < names.size(); ++i)
      items[i] = i < n ? PyTuple_GET_ITEM(args, i) : nullptr;
    if (kwargs && kwargs != Py_None) {
      if (!PyDict_Check(kwargs))
        return false;
      Py_ssize_t pos = 0;
      PyObject *key, *value;
      while (PyDict_Next(kwargs, &pos, &key, &value)) {
        size_t j = indexOf(key);
        if (j == names.size() || items[j])
          return false;
        items[j] = value;
      }
    }
    for (size_t i = n; i < names.size(); ++i)
      if (!items[i]) {
        if (!defaults[i])
          return false;
        items[i] = defaults[i].ptr();
      }
    return true;
  }

private:
  size_t indexOf(PyObject *key) const {
    for (size_t j = 0; j < names.size(); ++j) // identifiers are interned
      if (names[j].ptr() == key)
        return j;
    if (PyUnicode_Check(key))
      for (size_t j = 0; j < names.size(); ++j)
        if (PyUnicode_Compare(names[j].ptr(), key) == 0)
          return j;
    PyErr_Clear();
    return names.size();
  }

  std::vector<nb::object> names;
  std::vector<nb::object> defaults; // null: required
};

/// A tensor argument, read through the buffer protocol for the length of a
/// call.
struct TensorView {
  Py_buffer buffer;
  bool held = false;
  uintptr_t address = 0;
  int64_t leaves[2 * kMaxRank];
  ~TensorView() {
    if (held)
      PyBuffer_Release(&buffer);
  }
  /// Reads the buffer of `arg` (held until the view goes).
  bool acquire(PyObject *arg) {
    if (PyObject_GetBuffer(arg, &buffer, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      return false;
    }
    held = true;
    return true;
  }
};

/// Whether the buffer's format (an optional native/little-endian prefix,
/// one type character) is one of `accepted`.
bool formatMatches(const char *format, const std::string &accepted) {
  if (!format)
    format = "B";
  if (*format == '@' || *format == '=' || *format == '<')
    ++format;
  return format[0] != '\0' && format[1] == '\0' &&
         accepted.find(format[0]) != std::string::npos;
}

class ArgumentPacker {
public:
  ArgumentPacker(nb::object hostEntry, nb::list params, nb::list slots,
                 nb::tuple binding, nb::object descriptorType,
                 nb::object streamType, nb::object torchTensorType,
                 bool hostMemory, nb::object errors)
      : entryObject(std::move(hostEntry)), entry(hostEntryOf(entryObject)),
        table(fly_runtime_launch_table()), binding(binding),
        descriptorType(std::move(descriptorType)),
        streamType(std::move(streamType)),
        torchTensorType(std::move(torchTensorType)), hostMemory(hostMemory),
        errors(std::move(errors)) {
    for (nb::handle item : params) {
      nb::tuple p = nb::borrow<nb::tuple>(item);
      std::string kind = nb::cast<std::string>(p[0]);
      Param param;
      if (kind == "tensor") {
        param.kind = ParamKind::Tensor;
        TensorParam &t = param.tensor;
        t.element = nb::cast<std::string>(p[1]);
        t.formats = nb::cast<std::string>(p[2]);
        t.itemsize = nb::cast<int64_t>(p[3]);
        t.rank = nb::cast<int>(p[4]);
        if (t.rank > kMaxRank)
          throw nb::value_error("ArgumentPacker: tensor rank over 8");
        for (nb::handle s : nb::borrow<nb::list>(p[5])) {
          nb::tuple st = nb::borrow<nb::tuple>(s);
          t.statics.push_back({nb::cast<int>(st[0]), nb::cast<int>(st[1]),
                               nb::cast<int64_t>(st[2])});
        }
        for (nb::handle d : nb::borrow<nb::list>(p[6])) {
          nb::tuple dy = nb::borrow<nb::tuple>(d);
          t.dynamics.push_back({nb::cast<int>(dy[0]), nb::cast<int>(dy[1]),
                                nb::cast<int64_t>(dy[2]),
                                nb::cast<bool>(dy[3])});
        }
        t.align = nb::cast<uint64_t>(p[7]);
        t.torchDtype = nb::borrow(p[8]);
      } else if (kind == "int") {
        param.kind = ParamKind::Int;
      } else if (kind == "float") {
        param.kind = ParamKind::Float;
      } else if (kind == "bool") {
        param.kind = ParamKind::Bool;
      } else if (kind == "stream") {
        param.kind = ParamKind::Stream;
      } else if (kind == "constexpr") {
        param.kind = ParamKind::Constexpr;
        param.constant = nb::borrow(p[1]);
      } else {
        throw nb::value_error(("ArgumentPacker: unknown kind " + kind).c_str());
      }
      this->params.push_back(std::move(param));
    }
    for (nb::handle item : slots) {
      nb::tuple s = nb::borrow<nb::tuple>(item);
      std::string format = nb::cast<std::string>(s[1]);
      uint32_t offset = nb::cast<uint32_t>(s[0]);
      size_t bytes = format.size() == 1 ? slotBytes(format[0]) : 0;
      int param = nb::cast<int>(s[2]);
      if (bytes == 0 || offset + bytes > entry.blockSize() || param < 0 ||
          size_t(param) >= this->params.size())
        throw nb::value_error("ArgumentPacker: bad slot");
      this->slots.push_back({offset, format[0], param, nb::cast<int>(s[3])});
    }
    if (this->params.size() != this->binding.size())
      throw nb::value_error("ArgumentPacker: one param per bound name");
  }

  size_t arity() const { return params.size(); }

  bool current() const { return fly_runtime_launch_table() == table; }

  /// See the header: true when the call ran.
  bool call(nb::handle args, nb::handle kwargs) {
    PyObject *items[kMaxParams];
    TensorView views[kMaxParams];
    return params.size() <= kMaxParams &&
           binding.bind(args.ptr(), kwargs.ptr(), items) &&
           callBound(items, views);
  }

  /// The call of bound arguments (one per parameter, Binding::bind), with
  /// the buffers of those already read (the dispatcher's key read them).
  bool callBound(PyObject *const *items, TensorView *views) {
    if (params.size() > kMaxParams || fly_runtime_launch_table() != table)
      return false;
    for (size_t i = 0; i < params.size(); ++i) {
      PyObject *arg = items[i];
      const Param &param = params[i];
      switch (param.kind) {
      case ParamKind::Tensor:
        if (!readAny(arg, param.tensor, views[i]))
          return false;
        break;
      case ParamKind::Int:
        if (!PyLong_Check(arg)) // bool is an int too, as in the Python path
          return false;
        break;
      case ParamKind::Float:
        if (PyBool_Check(arg) || !(PyFloat_Check(arg) || PyLong_Check(arg)))
          return false;
        break;
      case ParamKind::Bool:
        if (!PyBool_Check(arg))
          return false;
        break;
      case ParamKind::Constexpr: {
        if (Py_TYPE(arg) != Py_TYPE(param.constant.ptr()))
          return false;
        int equal = PyObject_RichCompareBool(arg, param.constant.ptr(), Py_EQ);
        if (equal != 1) {
          PyErr_Clear();
          return false;
        }
        break;
      }
      case ParamKind::Stream:
        if (!readStream(arg, views[i].address))
          return false;
        break;
      }
    }

    uint64_t size = entry.blockSize();
    alignas(16) unsigned char small[512];
    std::vector<unsigned char> large;
    unsigned char *block = small;
    if (size > sizeof small) {
      large.resize(size);
      block = large.data();
    }
    std::memset(block, 0, size);
    for (const Slot &slot : slots)
      if (!writeSlot(block, slot, items[slot.param], views[slot.param]))
        return false;

    llvm::Error err = llvm::Error::success();
    {
      nb::gil_scoped_release release;
      err = entry.call(block);
    }
    if (err)
      raise(std::move(err));
    return true;
  }

private:
  /// A failed call's error: the exception `errors` makes of its message,
  /// else the extension's Error.
  [[noreturn]] void raise(llvm::Error err) const {
    if (!errors.is_none()) {
      nb::object method = errors();
      if (!method.is_none()) {
        nb::object exception = method(nb::str(llvm::toString(std::move(err)).c_str()));
        PyErr_SetObject((PyObject *)Py_TYPE(exception.ptr()), exception.ptr());
        throw nb::python_error();
      }
    }
    raiseLaunchError(std::move(err));
  }

  static size_t slotBytes(char format) {
    switch (format) {
    case '?':
    case 'b':
      return 1;
    case 'h':
      return 2;
    case 'i':
    case 'f':
      return 4;
    case 'q':
    case 'd':
    case 'P':
      return 8;
    default:
      return 0;
    }
  }

  /// An fx.Stream (its handle), None (the default stream) or an int
  /// handle: the value the block takes for a stream.
  bool readStream(PyObject *arg, uintptr_t &handle) const {
    if (arg == Py_None) {
      handle = 0;
      return true;
    }
    nb::object value;
    if (Py_TYPE(arg) == (PyTypeObject *)streamType.ptr()) {
      value = attribute(arg, handleName());
      arg = value.ptr();
      if (!arg) {
        PyErr_Clear();
        return false;
      }
    }
    if (!PyLong_Check(arg) || PyBool_Check(arg))
      return false;
    handle = uintptr_t(PyLong_AsUnsignedLongLong(arg));
    if (PyErr_Occurred()) { // negative or over 64 bits: the Python error
      PyErr_Clear();
      return false;
    }
    return true;
  }

  bool readAny(PyObject *arg, const TensorParam &t, TensorView &view) const {
    if (Py_TYPE(arg) == (PyTypeObject *)descriptorType.ptr())
      return readDescriptor(arg, t, view);
    if (PyObject_CheckBuffer(arg))
      return readTensor(arg, t, view);
    if (!torchTensorType.is_none() && !t.torchDtype.is_none() &&
        PyObject_TypeCheck(arg, (PyTypeObject *)torchTensorType.ptr()))
      return readTorch(arg, t, view);
    return false;
  }

  /// A torch tensor: its dtype (one of torch's dtype singletons), shape,
  /// stride(), data_ptr(); on the emulator it must be in host memory.
  bool readTorch(PyObject *arg, const TensorParam &t, TensorView &view) const {
    nb::object dtype = attribute(arg, dtypeName());
    if (!dtype || dtype.ptr() != t.torchDtype.ptr()) {
      PyErr_Clear();
      return false;
    }
    if (hostMemory) {
      nb::object cpu = attribute(arg, isCpuName());
      if (!cpu || cpu.ptr() != Py_True) {
        PyErr_Clear();
        return false;
      }
    }
    nb::object shape = attribute(arg, shapeName());
    nb::object strides = callMethod(arg, strideName());
    nb::object address = callMethod(arg, dataPtrName());
    if (!shape || !strides || !address || !PyTuple_Check(shape.ptr()) ||
        !PyTuple_Check(strides.ptr()) || !PyLong_Check(address.ptr()) ||
        PyTuple_GET_SIZE(shape.ptr()) != t.rank ||
        PyTuple_GET_SIZE(strides.ptr()) != t.rank) {
      PyErr_Clear();
      return false;
    }
    return readDims(t, shape.ptr(), strides.ptr(), address.ptr(), view);
  }

  /// Shape and strides as tuples of ints, the address as an int.
  static bool readDims(const TensorParam &t, PyObject *shape, PyObject *strides,
                       PyObject *address, TensorView &view) {
    int64_t dims[2][kMaxRank];
    for (int k = 0; k < 2; ++k)
      for (int d = 0; d < t.rank; ++d) {
        PyObject *x = PyTuple_GET_ITEM(k == 0 ? shape : strides, d);
        int overflow = 0;
        dims[k][d] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
      }
    uintptr_t at = uintptr_t(PyLong_AsUnsignedLongLong(address));
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    return checkLeaves(t, dims, at, view);
  }

  /// A numpy array (anything with the buffer protocol).
  static bool readTensor(PyObject *arg, const TensorParam &t, TensorView &view) {
    if (!view.held && !view.acquire(arg))
      return false;
    const Py_buffer &b = view.buffer;
    if (b.ndim != t.rank || b.itemsize != t.itemsize ||
        !formatMatches(b.format, t.formats))
      return false;
    int64_t dims[2][kMaxRank];
    for (int d = 0; d < t.rank; ++d) {
      dims[0][d] = b.shape[d];
      int64_t bytes = b.strides ? b.strides[d] : 0;
      if (bytes % t.itemsize)
        return false;
      dims[1][d] = bytes / t.itemsize;
    }
    return checkLeaves(t, dims, reinterpret_cast<uintptr_t>(b.buf), view);
  }

  /// A flyc.from_dlpack descriptor: its element, shape, strides (in
  /// elements) and address attributes.
  static bool readDescriptor(PyObject *arg, const TensorParam &t,
                             TensorView &view) {
    nb::object element = attribute(arg, elementName());
    nb::object shape = attribute(arg, shapeName());
    nb::object strides = attribute(arg, stridesName());
    nb::object address = attribute(arg, addressName());
    if (!element || !shape || !strides || !address ||
        !PyUnicode_Check(element.ptr()) || !PyTuple_Check(shape.ptr()) ||
        !PyTuple_Check(strides.ptr()) || !PyLong_Check(address.ptr())) {
      PyErr_Clear();
      return false;
    }
    if (t.element != PyUnicode_AsUTF8(element.ptr()) ||
        PyTuple_GET_SIZE(shape.ptr()) != t.rank ||
        PyTuple_GET_SIZE(strides.ptr()) != t.rank)
      return false;
    return readDims(t, shape.ptr(), strides.ptr(), address.ptr(), view);
  }

  /// The compiled static leaves, divisibility, widths and alignment;
  /// records the dynamic leaves and the address.
  static bool checkLeaves(const TensorParam &t, const int64_t dims[2][kMaxRank],
                          uintptr_t address, TensorView &view) {
    for (const TensorParam::Static &s : t.statics)
      if (dims[s.kind][s.index] != s.value)
        return false;
    size_t n = 0;
    for (const TensorParam::Dynamic &d : t.dynamics) {
      int64_t x = dims[d.kind][d.index];
      if ((d.divisibility > 1 && x % d.divisibility) ||
          (!d.wide && (x < INT32_MIN || x > INT32_MAX)))
        return false;
      view.leaves[n++] = x;
    }
    view.address = address;
    return view.address % t.align == 0;
  }

  static bool writeSlot(unsigned char *block, const Slot &slot, PyObject *arg,
                        const TensorView &view) {
    unsigned char *at = block + slot.offset;
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof value); };
    if (slot.format == 'P') { // a tensor's address or a stream's handle
      put(uint64_t(view.address));
      return true;
    }
    if (slot.leaf >= 0) { // a tensor leaf, range-checked by readTensor
      if (slot.format == 'i')
        put(int32_t(view.leaves[slot.leaf]));
      else
        put(int64_t(view.leaves[slot.leaf]));
      return true;
    }
    if (slot.format == 'f' || slot.format == 'd') {
      double value = PyFloat_AsDouble(arg); // ints convert, as float(x) does
      if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (slot.format == 'f')
        put(float(value));
      else
        put(value);
      return true;
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (overflow || (value == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    // Python's struct range for each format, or the Python path's error.
    auto putIfFits = [&](auto narrow) {
      using T = decltype(narrow);
      if (value < std::numeric_limits<T>::min() ||
          value > std::numeric_limits<T>::max())
        return false;
      put(T(value));
      return true;
    };
    switch (slot.format) {
    case '?':
      put(uint8_t(value != 0));
      return true;
    case 'b':
      return putIfFits(int8_t());
    case 'h':
      return putIfFits(int16_t());
    case 'i':
      return putIfFits(int32_t());
    case 'q':
      return putIfFits(int64_t());
    default:
      return false;
    }
  }

  nb::object entryObject; // keeps the host entry alive
  fly::HostEntry &entry;
  const FlyLaunchTable *table;
  Binding binding;
  nb::object descriptorType;  // flyc's TensorDescriptor class
  nb::object streamType;      // fx.Stream
  nb::object torchTensorType; // torch.Tensor, or None without torch
  bool hostMemory;            // the emulator: tensors must be on the CPU
  nb::object errors;          // None or a WeakMethod: message -> exception
  std::vector<Param> params;
  std::vector<Slot> slots;
};

/// Bumped by _fly.invalidate_dispatch(): a dispatcher made its entries
/// under an older generation forgets them.
uint64_t dispatchGeneration = 0;

/// A @flyc.jit function's table from call keys to packers (see the header).
class Dispatcher {
public:
  Dispatcher(nb::tuple binding, std::string kinds, nb::object descriptorType,
             nb::object streamType, nb::object torchTensorType)
      : binding(binding), kinds(std::move(kinds)),
        descriptorType(std::move(descriptorType)),
        streamType(std::move(streamType)),
        torchTensorType(std::move(torchTensorType)),
        generation(dispatchGeneration) {
    if (this->kinds.size() != this->binding.size() ||
        this->kinds.find_first_not_of("vsc") != std::string::npos)
      throw nb::value_error("Dispatcher: one kind of v, s, c per bound name");
  }

  /// True: the call ran through the packer stored for its key. False:
  /// nothing was done (no key, no entry, or the packer declined).
  bool call(nb::handle args, nb::handle kwargs) {
    PyObject *items[kMaxParams];
    TensorView views[kMaxParams];
    if (!fresh() || kinds.size() > kMaxParams ||
        !binding.bind(args.ptr(), kwargs.ptr(), items))
      return false;
    nb::object key = keyOf(items, views);
    if (!key.is_valid())
      return false;
    PyObject *packer = PyDict_GetItemWithError(entries.ptr(), key.ptr());
    if (!packer) {
      PyErr_Clear();
      return false;
    }
    return nb::inst_ptr<ArgumentPacker>(packer)->callBound(items, views);
  }

  /// Stores `packer` for the key of this call: false when the call has no
  /// key (an argument of a kind keyed in Python).
  bool add(nb::handle args, nb::handle kwargs, nb::handle packer) {
    ArgumentPacker &p = nb::cast<ArgumentPacker &>(packer);
    PyObject *items[kMaxParams];
    TensorView views[kMaxParams];
    fresh();
    if (kinds.size() > kMaxParams || p.arity() != kinds.size() ||
        !binding.bind(args.ptr(), kwargs.ptr(), items))
      return false;
    nb::object key = keyOf(items, views);
    if (!key.is_valid())
      return false;
    if (PyDict_GET_SIZE(entries.ptr()) >= 256) // a bound on what a sweep keeps
      PyDict_Clear(entries.ptr());
    if (PyDict_SetItem(entries.ptr(), key.ptr(), packer.ptr()) != 0) {
      PyErr_Clear(); // an unhashable Constexpr value
      return false;
    }
    return true;
  }

  void clear() { PyDict_Clear(entries.ptr()); }
  size_t size() const { return size_t(PyDict_GET_SIZE(entries.ptr())); }
  void setTorchTensorType(nb::object type) {
    if (!type.is(torchTensorType)) {
      torchTensorType = std::move(type);
      clear();
    }
  }

private:
  /// Forgets entries made under an older generation; true when none were.
  bool fresh() {
    if (generation == dispatchGeneration)
      return true;
    clear();
    generation = dispatchGeneration;
    return false;
  }

  /// The key of bound arguments: bytes, or (bytes, objects...) with the
  /// parts compared by value (Constexpr values, descriptors' specs). An
  /// invalid object when an argument is of a kind keyed in Python. The
  /// arrays' buffers stay held in `views`, for the packer.
  nb::object keyOf(PyObject *const *items, TensorView *views) const {
    std::string key;
    std::vector<PyObject *> objects;
    auto add = [&](const void *data, size_t size) {
      key.append(static_cast<const char *>(data), size);
    };
    for (size_t i = 0; i < kinds.size(); ++i) {
      PyObject *arg = items[i];
      PyTypeObject *type = Py_TYPE(arg);
      if (kinds[i] == 'c') { // the value, of its type
        key += 'c';
        add(&type, sizeof type);
        objects.push_back(arg);
        continue;
      }
      if (kinds[i] == 's' || type == (PyTypeObject *)streamType.ptr()) {
        if (!(arg == Py_None || type == (PyTypeObject *)streamType.ptr() ||
              (PyLong_Check(arg) && !PyBool_Check(arg))))
          return {};
        key += 's';
        continue;
      }
      if (PyBool_Check(arg) || PyLong_CheckExact(arg) ||
          PyFloat_CheckExact(arg)) {
        key += 'n';
        add(&type, sizeof type);
        continue;
      }
      if (type == (PyTypeObject *)descriptorType.ptr()) {
        // Its spec (kept by the descriptor until a mark changes it) is
        // everything the code depends on.
        nb::object spec = attribute(arg, specName());
        if (spec.is_valid() && spec.is_none())
          spec = callMethod(arg, tensorSpecName());
        if (!spec.is_valid()) { // the Python path raises the error
          PyErr_Clear();
          return {};
        }
        key += 'd';
        objects.push_back(spec.ptr());
        continue;
      }
      if (!torchTensorType.is_none() &&
          PyObject_TypeCheck(arg, (PyTypeObject *)torchTensorType.ptr())) {
        // torch: the type, the dtype (a singleton), the strides and the
        // address modulo 16.
        nb::object dtype = attribute(arg, dtypeName());
        nb::object strides = callMethod(arg, strideName());
        nb::object address = callMethod(arg, dataPtrName());
        if (!dtype || !strides || !address || !PyTuple_Check(strides.ptr())) {
          PyErr_Clear();
          return {};
        }
        key += 't';
        add(&type, sizeof type);
        PyObject *dtypePtr = dtype.ptr();
        add(&dtypePtr, sizeof dtypePtr);
        int64_t rank = PyTuple_GET_SIZE(strides.ptr());
        add(&rank, sizeof rank);
        for (int64_t d = 0; d < rank; ++d) {
          int64_t stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), d));
          add(&stride, sizeof stride);
        }
        key += char(PyLong_AsUnsignedLongLongMask(address.ptr()) & 15);
        if (PyErr_Occurred()) {
          PyErr_Clear();
          return {};
        }
        continue;
      }
      // numpy arrays only: what other buffers (numpy scalars, bytes) stand
      // for is the front end's to decide.
      if (std::strcmp(type->tp_name, "numpy.ndarray") != 0)
        return {};
      if (!views[i].acquire(arg))
        return {};
      const Py_buffer &view = views[i].buffer;
      key += 'b';
      add(&type, sizeof type);
      key += view.format ? view.format : "B";
      key += '\0';
      int64_t header[2] = {int64_t(view.itemsize), int64_t(view.ndim)};
      add(header, sizeof header);
      for (int d = 0; d < view.ndim; ++d) {
        int64_t stride = view.strides ? int64_t(view.strides[d]) : 0;
        add(&stride, sizeof stride);
      }
      key += char(reinterpret_cast<uintptr_t>(view.buf) & 15);
    }
    nb::object bytes = nb::bytes(key.data(), key.size());
    if (objects.empty())
      return bytes;
    PyObject *tuple = PyTuple_New(Py_ssize_t(objects.size() + 1));
    if (!tuple)
      throw nb::python_error();
    PyTuple_SET_ITEM(tuple, 0, bytes.release().ptr());
    for (size_t i = 0; i < objects.size(); ++i)
      PyTuple_SET_ITEM(tuple, Py_ssize_t(i + 1), Py_NewRef(objects[i]));
    return nb::steal(tuple);
  }

  Binding binding;
  std::string kinds;
  nb::object descriptorType;
  nb::object streamType;
  nb::object torchTensorType;
  nb::dict entries; // key -> ArgumentPacker
  uint64_t generation;
};

} // namespace

void registerArgumentPacker(nb::module_ &m) {
  nb::class_<ArgumentPacker>(m, "ArgumentPacker")
      .def(nb::init<nb::object, nb::list, nb::list, nb::tuple, nb::object,
                    nb::object, nb::object, bool, nb::object>(),
           "entry"_a, "params"_a, "slots"_a, "binding"_a, "descriptor_type"_a,
           "stream_type"_a, "torch_tensor_type"_a.none(), "host_memory"_a,
           "errors"_a.none() = nb::none(),
           "The native warm-call path of a host entry (see "
           "bindings/ArgumentPacker.cpp for `params`, `slots` and `binding`)")
      .def_prop_ro("current", &ArgumentPacker::current,
                   "Whether the launch table it was made with is still the "
                   "installed one (else every call returns False)")
      .def("call", &ArgumentPacker::call, "args"_a, "kwargs"_a.none() = nb::none(),
           "Binds, checks and packs the arguments and calls the host entry: "
           "True; False when the call needs the Python path (nothing was "
           "done)");
  nb::class_<Dispatcher>(m, "Dispatcher")
      .def(nb::init<nb::tuple, std::string, nb::object, nb::object,
                    nb::object>(),
           "binding"_a, "kinds"_a, "descriptor_type"_a, "stream_type"_a,
           "torch_tensor_type"_a.none(),
           "A @flyc.jit function's table from call keys to packers (see "
           "bindings/ArgumentPacker.cpp)")
      .def("call", &Dispatcher::call, "args"_a, "kwargs"_a.none() = nb::none(),
           "True when the packer stored for this call's key ran it; False: "
           "nothing was done")
      .def("add", &Dispatcher::add, "args"_a, "kwargs"_a.none(), "packer"_a,
           "Stores the packer for this call's key; False when the call has "
           "no native key")
      .def("clear", &Dispatcher::clear)
      .def("__len__", &Dispatcher::size)
      .def("set_torch_tensor_type", &Dispatcher::setTorchTensorType, "type"_a.none(),
           "torch.Tensor once torch is imported (the entries are forgotten "
           "when it changes)");
  m.def("invalidate_dispatch", [] { ++dispatchGeneration; },
        "Every dispatcher forgets its entries (the environment or the "
        "compile options changed)");
}
