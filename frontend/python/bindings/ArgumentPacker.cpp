//===- ArgumentPacker.cpp - the native warm-call path ---------------------===//
//
// The warm-call path of a compiled function in native code (SPEC §12: a
// call costs a microsecond or two): it binds a call's arguments to the
// parameters, checks them against what the function was compiled for,
// packs the argument block (fly/HostEntry.h's ABI) on the stack and calls
// the host entry, without a Python object per value.
//
//   block = _fly.ArgumentBlock(host_function)  # the compiler's description
//   block.pack(values)          # one value per slot -> the block's bytes
//   packer = _fly.ArgumentPacker(entry, block, params, binding,
//                                TensorDescriptor, Stream,
//                                torch.Tensor or None, host_memory, errors)
//   packer.call(args, kwargs)   # True: called; False: not handled, nothing done
//
//   dispatcher = _fly.Dispatcher(binding, kinds, TensorDescriptor, Stream,
//                                torch.Tensor or None)
//   dispatcher.add(args, kwargs, packer)  # this call's key -> packer
//   dispatcher.call(args, kwargs)         # True: a packer of its key ran it
//
// host_function: the dict the compile gives per host function
// (HostFunctionDict.h: fly::HostFunctionInfo of fly/HostAbi.h, with its
// parameters and slots). Both the packer and the front end's
// slow path read the block's layout and each tensor's static and dynamic
// leaves from it: nothing here or in Python re-derives them.
//
// The packer handles the common cases only: numpy arrays (and anything
// else with the buffer protocol), torch tensors (dtype, shape, strides and
// address; on the CPU when `host_memory`, i.e. for the emulator: for
// torch.Tensor itself read in one call of the DLPack exchange table torch
// publishes, else through the attributes dtype, shape, stride(), data_ptr()
// and is_cpu) and
// flyc.from_dlpack descriptors (their element, shape, strides and address
// attributes) for tensors, Python ints / floats / bools for integer and
// f32/f64 scalars, fx.Stream / None / int handles for streams, and
// Constexpr values equal to the compiled ones. For anything else, or any
// argument that does not match, `call` returns False before doing
// anything, and the front end takes its Python path, which either handles
// the argument or raises the error naming it: the messages live in one
// place.
//
// binding: (names, defaults, required): the parameter names in order and
//   per parameter its default, or `required` when it has none. Arguments
//   bind as Python binds them to positional-or-keyword parameters:
//   positional ones first, then keywords by name, then the defaults; a call
//   that does not bind is the Python path's to explain.
// params: per Python parameter, ("host", i, torch_dtype): it is parameter i
//   of the host function (torch_dtype: the torch.dtype a torch tensor of it
//   must have, None: torch tensors take the Python path), or
//   ("constexpr", value): it must equal value, of its type. A parameter
//   the packer cannot take (a pointer, an f16/bf16 scalar, a tensor of an
//   element without a buffer format) makes the constructor raise
//   ValueError: the function keeps the Python path.
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

#include "HostFunctionDict.h"

#include "fly/HostEntry.h"
#include "fly/runtime/Launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <limits>
#include <optional>
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

/// DLPack's C exchange table (dlpack.h 1.2 and later): a tensor type's
/// `__dlpack_c_exchange_api__` capsule, "dlpack_exchange_api", points to
/// it for the life of the process. The packer uses one entry: the one that
/// describes a tensor (element, device, shape, strides, address) in a
/// caller's struct without allocating, in one C call instead of five
/// attribute reads. Declared here by the layout the DLPack ABI fixes.
namespace dlpack {
struct Version {
  uint32_t major, minor;
};
struct Device {
  int32_t type, id;
};
constexpr int32_t kCpu = 1;
struct DataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct Tensor {
  void *data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t *shape, *strides;
  uint64_t byteOffset;
};
using Describe = int (*)(void *object, Tensor *out);
struct ExchangeApi {
  Version version;
  void *previous;
  void *allocator, *managedFromObject, *managedToObject;
  Describe describe; // may be null
  void *currentWorkStream;
};

/// The describe entry of a tensor type's exchange table, or null (no
/// table, an older or newer ABI, or no such entry).
Describe describeOf(PyObject *type) {
  if (!type || type == Py_None)
    return nullptr;
  PyObject *capsule = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
  if (!capsule) {
    PyErr_Clear();
    return nullptr;
  }
  auto *api = static_cast<const ExchangeApi *>(
      PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
  Py_DECREF(capsule); // the type holds it; the table outlives it
  if (!api) {
    PyErr_Clear();
    return nullptr;
  }
  if (api->version.major != 1 || api->version.minor < 2)
    return nullptr;
  return api->describe;
}

/// DLPack's code of an element type (as bufferFormat knows them): the
/// type of the torch dtype compiled.py chooses for it (the signed integer
/// of each width, bool for i1); lanes 0 for one it has none for. torch
/// describes its sub-byte integers (int1 ... int7) as 8-bit ints too: for
/// i8 the packer also checks the dtype itself.
DataType typeOf(const std::string &element) {
  static const std::pair<const char *, DataType> table[] = {
      {"f32", {2, 32, 1}}, {"f16", {2, 16, 1}}, {"f64", {2, 64, 1}},
      {"bf16", {4, 16, 1}}, {"i8", {0, 8, 1}},  {"i16", {0, 16, 1}},
      {"i32", {0, 32, 1}}, {"i64", {0, 64, 1}}, {"i1", {6, 8, 1}}};
  for (const auto &[name, type] : table)
    if (element == name)
      return type;
  return {0, 0, 0};
}

bool operator==(DataType a, DataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
} // namespace dlpack

struct TensorParam {
  std::string element; // the MLIR element type, as descriptors name it
  nb::object torchDtype; // the torch.dtype of that element, or None
  dlpack::DataType dlType{0, 0, 0}; // DLPack's type of the torch dtype
  std::string formats;   // the buffer-protocol characters of the element
  int64_t itemsize = 0;
  int rank = 0;
  struct Static {
    int kind, index; // kind 0: an extent, 1: a stride
    int64_t value;
  };
  struct Dynamic {
    int kind, index;
    int64_t divisibility;
    bool wide;
    int leaf; // its index in the parameter's leaves (AbiSlot::leaf)
  };
  std::vector<Static> statics;
  std::vector<Dynamic> dynamics;
  uint64_t align = 1;
};

enum class ParamKind { Tensor, Int, Float, Constexpr, Stream };

struct Param {
  ParamKind kind;
  TensorParam tensor;
  nb::object constant; // Constexpr
  int host = -1;       // the host function parameter
};

struct Slot {
  uint32_t offset;
  fly::AbiScalar type;
  int param; // the Python parameter
  int leaf;  // AbiSlot::leaf
};

/// The buffer-protocol format characters and item size of an element type
/// (bf16 has none: only torch tensors of it); false for any other type.
bool bufferFormat(const std::string &element, std::string &formats,
                  int64_t &itemsize) {
  static const std::pair<const char *, std::pair<const char *, int64_t>>
      table[] = {{"f32", {"f", 4}},  {"f16", {"e", 2}},    {"f64", {"d", 8}},
                 {"i8", {"bB", 1}},  {"i16", {"hH", 2}},   {"i32", {"iI", 4}},
                 {"i64", {"lLqQ", 8}}, {"i1", {"?", 1}},   {"bf16", {"", 2}}};
  for (const auto &[name, format] : table)
    if (element == name) {
      formats = format.first;
      itemsize = format.second;
      return true;
    }
  return false;
}

} // namespace

namespace {


/// The bytes of one slot's value: an int (range-checked for its type), a
/// float (for f16/bf16/f32/f64: converted, rounding to nearest even) or a
/// bool. False when the value does not fit the slot.
bool writeValue(unsigned char *at, fly::AbiScalar type, PyObject *value) {
  auto put = [&](auto v) { std::memcpy(at, &v, sizeof v); };
  using fly::AbiScalar;
  if (type == AbiScalar::F16 || type == AbiScalar::BF16 ||
      type == AbiScalar::F32 || type == AbiScalar::F64) {
    if (PyBool_Check(value) || !(PyFloat_Check(value) || PyLong_Check(value)))
      return false;
    double v = PyFloat_AsDouble(value); // ints convert, as float(x) does
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    if (type == AbiScalar::F64) {
      put(v);
    } else if (type == AbiScalar::F32) {
      put(float(v));
    } else {
      llvm::APFloat f(v);
      bool lost;
      f.convert(type == AbiScalar::F16 ? llvm::APFloat::IEEEhalf()
                                       : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      put(uint16_t(f.bitcastToAPInt().getZExtValue()));
    }
    return true;
  }
  if (!PyLong_Check(value))
    return false;
  if (type == AbiScalar::Ptr) {
    unsigned long long v = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    put(uint64_t(v));
    return true;
  }
  // The slot is signless (an MLIR iN): the value fits when it is in the
  // signed or the unsigned range of N bits (an fx.Uint64 of 2**64 - 1 and
  // an fx.Int64 of -1 are the same bits).
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow > 0 && type == AbiScalar::I64) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    put(u);
    return true;
  }
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  auto putIfFits = [&](auto narrow) {
    using T = decltype(narrow);
    using U = std::make_unsigned_t<T>;
    if constexpr (sizeof(T) < sizeof(long long)) {
      if (v < std::numeric_limits<T>::min() ||
          v > (long long)std::numeric_limits<U>::max())
        return false;
    }
    put(T(U(v)));
    return true;
  };
  switch (type) {
  case AbiScalar::I1:
    put(uint8_t(v != 0));
    return true;
  case AbiScalar::I8:
    return putIfFits(int8_t());
  case AbiScalar::I16:
    return putIfFits(int16_t());
  case AbiScalar::I32:
    return putIfFits(int32_t());
  default:
    return putIfFits(int64_t());
  }
}

/// A host function's argument block, from the compiler's description: made
/// once per compiled signature; packs the values the front end computed.
class ArgumentBlock {
public:
  explicit ArgumentBlock(nb::handle hostFunction)
      : info(hostFunctionOf(hostFunction)) {}

  uint64_t size() const { return info.blockSize; }

  /// The block of `values`, one per slot in slot order; a ValueError
  /// naming the slot whose value does not fit.
  nb::bytes pack(nb::sequence values) const {
    if (nb::len(values) != info.slots.size())
      throw nb::value_error(("ArgumentBlock.pack: " +
                             std::to_string(info.slots.size()) +
                             " values expected, got " +
                             std::to_string(nb::len(values))).c_str());
    std::string block(info.blockSize, '\0');
    for (size_t i = 0; i < info.slots.size(); ++i) {
      const fly::AbiSlot &slot = info.slots[i];
      nb::object value = values[i];
      if (!writeValue(reinterpret_cast<unsigned char *>(block.data()) +
                          slot.offset,
                      slot.type, value.ptr())) {
        std::string repr = nb::cast<std::string>(nb::repr(value));
        throw nb::value_error(
            (repr + " does not fit the " +
             fly::abiScalarName(slot.type).str() + " at offset " +
             std::to_string(slot.offset))
                .c_str());
      }
    }
    return nb::bytes(block.data(), block.size());
  }

  fly::HostFunctionInfo info;
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
  /// A torch tensor's attributes, when the dispatcher's key read them
  /// first (the packer does not read them twice); made on first use (a
  /// call makes a view per parameter, most never need them).
  struct Attributes {
    nb::object dtype, shape, strides, dataPtr;
  };
  std::optional<Attributes> attributes;
  Attributes &torch() {
    if (!attributes)
      attributes.emplace();
    return *attributes;
  }
  /// A torch tensor described through DLPack's exchange table (`described`):
  /// its element, device, extents and strides (copied: the table's arrays
  /// live only until Python runs again) and address.
  bool described = false;
  dlpack::DataType dlType; // (the rest: set when described)
  int32_t device;
  int rank;
  int64_t dims[2][kMaxRank];
  uintptr_t dataAddress;
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
  /// Describes `arg` with the exchange table's entry (once per call).
  bool describe(PyObject *arg, dlpack::Describe entry) {
    if (described)
      return true;
    dlpack::Tensor t;
    if (entry(arg, &t) != 0) {
      PyErr_Clear();
      return false;
    }
    if (t.ndim < 0 || t.ndim > kMaxRank || (t.ndim && !t.shape))
      return false;
    for (int d = 0; d < t.ndim; ++d) {
      dims[0][d] = t.shape[d];
      // No strides: compact row-major (DLPack's convention).
      dims[1][d] = t.strides ? t.strides[d] : 1;
    }
    if (!t.strides)
      for (int d = t.ndim - 2; d >= 0; --d)
        dims[1][d] = dims[1][d + 1] * dims[0][d + 1];
    dlType = t.dtype;
    device = t.device.type;
    rank = t.ndim;
    dataAddress = reinterpret_cast<uintptr_t>(t.data) + uintptr_t(t.byteOffset);
    described = true;
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
  ArgumentPacker(nb::object hostEntry, nb::object argumentBlock,
                 nb::list params, nb::tuple binding, nb::object descriptorType,
                 nb::object streamType, nb::object torchTensorType,
                 bool hostMemory, nb::object errors)
      : entryObject(std::move(hostEntry)), entry(hostEntryOf(entryObject)),
        blockObject(std::move(argumentBlock)),
        block(nb::cast<const ArgumentBlock &>(blockObject)),
        table(fly_runtime_launch_table()), binding(binding),
        descriptorType(std::move(descriptorType)),
        streamType(std::move(streamType)),
        torchTensorType(std::move(torchTensorType)),
        torchDescribe(dlpack::describeOf(this->torchTensorType.ptr())),
        hostMemory(hostMemory), errors(std::move(errors)) {
    const fly::HostFunctionInfo &info = block.info;
    if (info.blockSize != entry.blockSize())
      throw nb::value_error("ArgumentPacker: the block is not the entry's");
    std::vector<int> paramOfHost(info.parameters.size(), -1);
    for (nb::handle item : params) {
      nb::tuple p = nb::borrow<nb::tuple>(item);
      std::string kind = nb::cast<std::string>(p[0]);
      Param param;
      if (kind == "constexpr") {
        param.kind = ParamKind::Constexpr;
        param.constant = nb::borrow(p[1]);
        this->params.push_back(std::move(param));
        continue;
      }
      if (kind != "host")
        throw nb::value_error(("ArgumentPacker: unknown kind " + kind).c_str());
      param.host = nb::cast<int>(p[1]);
      if (param.host < 0 || size_t(param.host) >= info.parameters.size() ||
          paramOfHost[param.host] != -1)
        throw nb::value_error("ArgumentPacker: a host parameter of no one");
      paramOfHost[param.host] = int(this->params.size());
      const fly::AbiParameter &host = info.parameters[param.host];
      using Kind = fly::AbiParameter::Kind;
      using fly::AbiScalar;
      if (host.kind == Kind::Tensor) {
        param.kind = ParamKind::Tensor;
        TensorParam &t = param.tensor;
        t.element = host.element;
        if (!bufferFormat(t.element, t.formats, t.itemsize))
          throw nb::value_error("ArgumentPacker: no buffer format");
        t.rank = int(host.rank);
        if (t.rank > kMaxRank || host.leaves.size() != 2 * host.rank)
          throw nb::value_error("ArgumentPacker: a tensor of rank over 8");
        for (auto [i, leaf] : llvm::enumerate(host.leaves)) {
          if (leaf.value)
            t.statics.push_back({int(leaf.stride), int(leaf.dim), *leaf.value});
          else
            t.dynamics.push_back({int(leaf.stride), int(leaf.dim),
                                  leaf.divisibility, leaf.wide, int(i)});
        }
        t.align = host.alignment;
        t.torchDtype = nb::borrow(p[2]);
        t.dlType = dlpack::typeOf(t.element);
      } else if (host.kind == Kind::Handle) {
        param.kind = ParamKind::Stream;
      } else if (host.kind == Kind::Scalar && (host.scalar == AbiScalar::F32 ||
                                               host.scalar == AbiScalar::F64)) {
        param.kind = ParamKind::Float;
      } else if (host.kind == Kind::Scalar && host.scalar != AbiScalar::F16 &&
                 host.scalar != AbiScalar::BF16) {
        param.kind = ParamKind::Int;
      } else {
        throw nb::value_error("ArgumentPacker: a parameter for the Python path");
      }
      this->params.push_back(std::move(param));
    }
    if (this->params.size() != this->binding.size())
      throw nb::value_error("ArgumentPacker: one param per bound name");
    for (const fly::AbiSlot &slot : info.slots) {
      int param = paramOfHost[slot.parameter];
      if (param < 0)
        throw nb::value_error("ArgumentPacker: a slot of no parameter");
      slots.push_back({uint32_t(slot.offset), slot.type, param, slot.leaf});
    }
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
    if (fly_runtime_launch_table() != table)
      return false;
    alignas(16) unsigned char small[512];
    std::vector<unsigned char> large;
    unsigned char *data = small;
    if (block.size() > sizeof small) {
      large.resize(block.size());
      data = large.data();
    }
    if (!fill(items, views, data))
      return false;
    llvm::Error err = llvm::Error::success();
    {
      nb::gil_scoped_release release;
      err = entry.call(data);
    }
    if (err)
      raise(std::move(err));
    return true;
  }

  /// The block `call` would pass the host entry for these arguments, or
  /// None when the call needs the Python path (for tests: the Python path's
  /// block must be the same bytes).
  nb::object pack(nb::handle args, nb::handle kwargs) {
    PyObject *items[kMaxParams];
    TensorView views[kMaxParams];
    std::string data(block.size(), '\0');
    if (params.size() > kMaxParams ||
        !binding.bind(args.ptr(), kwargs.ptr(), items) ||
        !fill(items, views, reinterpret_cast<unsigned char *>(data.data())))
      return nb::none();
    return nb::bytes(data.data(), data.size());
  }

private:
  /// Checks the bound arguments and writes the block (block.size() bytes
  /// at `data`); false when an argument needs the Python path.
  bool fill(PyObject *const *items, TensorView *views, unsigned char *data) {
    if (params.size() > kMaxParams)
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
    std::memset(data, 0, block.size());
    for (const Slot &slot : slots)
      if (!writeSlot(data, slot, items[slot.param], views[slot.param]))
        return false;
    return true;
  }

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
    // torch.Tensor itself (not a subclass, whose attributes may be its
    // own): one call of DLPack's exchange table.
    if (torchDescribe && Py_TYPE(arg) == (PyTypeObject *)torchTensorType.ptr() &&
        t.dlType.lanes) {
      if (!view.describe(arg, torchDescribe) || !(view.dlType == t.dlType) ||
          (hostMemory && view.device != dlpack::kCpu) || view.rank != t.rank)
        return false;
      if (t.dlType.bits == 8 && t.dlType.code == 0) { // int8, not int1 ... int7
        nb::object dtype = attribute(arg, dtypeName());
        if (!dtype || dtype.ptr() != t.torchDtype.ptr()) {
          PyErr_Clear();
          return false;
        }
      }
      return checkLeaves(t, view.dims, view.dataAddress, view);
    }
    TensorView::Attributes &read = view.torch();
    if (!read.dtype.is_valid()) {
      read.dtype = attribute(arg, dtypeName());
      read.strides = callMethod(arg, strideName());
      read.dataPtr = callMethod(arg, dataPtrName());
    }
    if (!read.shape.is_valid())
      read.shape = attribute(arg, shapeName());
    if (!read.dtype || read.dtype.ptr() != t.torchDtype.ptr()) {
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
    PyObject *shape = read.shape.ptr(), *strides = read.strides.ptr();
    if (!shape || !strides || !read.dataPtr || !PyTuple_Check(shape) ||
        !PyTuple_Check(strides) || !PyLong_Check(read.dataPtr.ptr()) ||
        PyTuple_GET_SIZE(shape) != t.rank || PyTuple_GET_SIZE(strides) != t.rank) {
      PyErr_Clear();
      return false;
    }
    return readDims(t, shape, strides, read.dataPtr.ptr(), view);
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
    for (const TensorParam::Dynamic &d : t.dynamics) {
      int64_t x = dims[d.kind][d.index];
      if ((d.divisibility > 1 && x % d.divisibility) ||
          (!d.wide && (x < INT32_MIN || x > INT32_MAX)))
        return false;
      view.leaves[d.leaf] = x;
    }
    view.address = address;
    return view.address % t.align == 0;
  }

  static bool writeSlot(unsigned char *block, const Slot &slot, PyObject *arg,
                        const TensorView &view) {
    unsigned char *at = block + slot.offset;
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof value); };
    if (slot.type == fly::AbiScalar::Ptr) { // an address or a stream handle
      put(uint64_t(view.address));
      return true;
    }
    if (slot.leaf >= 0) { // a tensor leaf, range-checked by checkLeaves
      if (slot.type == fly::AbiScalar::I32)
        put(int32_t(view.leaves[slot.leaf]));
      else
        put(int64_t(view.leaves[slot.leaf]));
      return true;
    }
    return writeValue(at, slot.type, arg);
  }

  nb::object entryObject; // keeps the host entry alive
  fly::HostEntry &entry;
  nb::object blockObject; // keeps the block alive
  const ArgumentBlock &block;
  const FlyLaunchTable *table;
  Binding binding;
  nb::object descriptorType;  // flyc's TensorDescriptor class
  nb::object streamType;      // fx.Stream
  nb::object torchTensorType; // torch.Tensor, or None without torch
  dlpack::Describe torchDescribe; // its exchange table's, or null
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
        torchDescribe(dlpack::describeOf(this->torchTensorType.ptr())),
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
    Key key;
    if (!keyOf(items, views, key))
      return false;
    // A function called again with arguments like the last call's (the
    // common loop) skips the key object and the table lookup. The objects
    // of the key are compared by identity: the memo holds them, so none of
    // them can be freed and another take its address.
    if (lastPacker.is_valid() && key.equals(lastKey) &&
        key.count == lastObjects.size() &&
        std::equal(key.objects, key.objects + key.count, lastObjects.begin(),
                   [](PyObject *a, const nb::object &b) { return a == b.ptr(); }))
      return nb::inst_ptr<ArgumentPacker>(lastPacker.ptr())->callBound(items, views);
    PyObject *packer =
        PyDict_GetItemWithError(entries.ptr(), key.object().ptr());
    if (!packer) {
      PyErr_Clear();
      return false;
    }
    lastKey.assign(key.bytes, key.size);
    lastObjects.clear();
    for (size_t i = 0; i < key.count; ++i)
      lastObjects.push_back(nb::borrow(key.objects[i]));
    lastPacker = nb::borrow(packer);
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
    Key key;
    if (!keyOf(items, views, key))
      return false;
    if (PyDict_GET_SIZE(entries.ptr()) >= 256) // a bound on what a sweep keeps
      clear();
    forgetLast(); // it may have been this key's
    if (PyDict_SetItem(entries.ptr(), key.object().ptr(), packer.ptr()) != 0) {
      PyErr_Clear(); // an unhashable Constexpr value
      return false;
    }
    return true;
  }

  void clear() {
    PyDict_Clear(entries.ptr());
    forgetLast();
  }
  size_t size() const { return size_t(PyDict_GET_SIZE(entries.ptr())); }
  void setTorchTensorType(nb::object type) {
    if (!type.is(torchTensorType)) {
      torchTensorType = std::move(type);
      torchDescribe = dlpack::describeOf(torchTensorType.ptr());
      clear();
    }
  }

private:
  void forgetLast() {
    lastPacker.reset();
    lastObjects.clear();
  }

  /// Forgets entries made under an older generation; true when none were.
  bool fresh() {
    if (generation == dispatchGeneration)
      return true;
    clear();
    generation = dispatchGeneration;
    return false;
  }

  /// The key of bound arguments: bytes, and the objects compared by value
  /// (Constexpr values, descriptors' specs; borrowed from the arguments).
  /// On the stack, without allocating: the bytes of up to kMaxParams
  /// arguments of rank kMaxRank at most fit; a key that would not is no key.
  struct Key {
    static constexpr size_t capacity = 2048;
    char bytes[capacity];
    size_t size = 0;
    bool overflow = false;
    PyObject *objects[kMaxParams];
    size_t count = 0;

    void add(const void *data, size_t n) {
      if (size + n > capacity) {
        overflow = true;
        return;
      }
      std::memcpy(bytes + size, data, n);
      size += n;
    }
    void add(char c) { add(&c, 1); }
    void addObject(PyObject *object) {
      if (count == kMaxParams)
        overflow = true;
      else
        objects[count++] = object;
    }
    bool equals(const std::string &other) const {
      return other.size() == size && std::memcmp(other.data(), bytes, size) == 0;
    }

    /// As the table's key: bytes, or (bytes, objects...).
    nb::object object() const {
      nb::object head = nb::bytes(bytes, size);
      if (!count)
        return head;
      PyObject *tuple = PyTuple_New(Py_ssize_t(count + 1));
      if (!tuple)
        throw nb::python_error();
      PyTuple_SET_ITEM(tuple, 0, head.release().ptr());
      for (size_t i = 0; i < count; ++i)
        PyTuple_SET_ITEM(tuple, Py_ssize_t(i + 1), Py_NewRef(objects[i]));
      return nb::steal(tuple);
    }
  };

  /// The key of bound arguments into `out`; false when an argument is of a
  /// kind keyed in Python. The arrays' buffers stay held in `views`, for
  /// the packer.
  bool keyOf(PyObject *const *items, TensorView *views, Key &out) const {
    Key &key = out;
    auto add = [&](const void *data, size_t size) { key.add(data, size); };
    for (size_t i = 0; i < kinds.size(); ++i) {
      PyObject *arg = items[i];
      PyTypeObject *type = Py_TYPE(arg);
      if (kinds[i] == 'c') { // the value, of its type
        key.add('c');
        add(&type, sizeof type);
        key.addObject(arg);
        continue;
      }
      if (kinds[i] == 's' || type == (PyTypeObject *)streamType.ptr()) {
        if (!(arg == Py_None || type == (PyTypeObject *)streamType.ptr() ||
              (PyLong_Check(arg) && !PyBool_Check(arg))))
          return false;
        key.add('s');
        continue;
      }
      if (PyBool_Check(arg) || PyLong_CheckExact(arg) ||
          PyFloat_CheckExact(arg)) {
        key.add('n');
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
          return false;
        }
        key.add('d');
        // Kept alive by the descriptor (its cached spec) for the call.
        key.addObject(spec.ptr());
        continue;
      }
      if (torchDescribe && type == (PyTypeObject *)torchTensorType.ptr()) {
        // torch.Tensor: described by DLPack's exchange table; keyed as
        // below, by its DLPack element type.
        TensorView &view = views[i];
        if (!view.describe(arg, torchDescribe))
          return false;
        key.add('x');
        add(&type, sizeof type);
        add(&view.dlType, sizeof view.dlType);
        int64_t rank = view.rank;
        add(&rank, sizeof rank);
        add(view.dims[1], sizeof(int64_t) * size_t(rank));
        key.add(char(view.dataAddress & 15));
        continue;
      }
      if (!torchTensorType.is_none() &&
          PyObject_TypeCheck(arg, (PyTypeObject *)torchTensorType.ptr())) {
        // torch: the type, the dtype (a singleton), the strides and the
        // address modulo 16.
        TensorView::Attributes &read = views[i].torch();
        read.dtype = attribute(arg, dtypeName());
        read.strides = callMethod(arg, strideName());
        read.dataPtr = callMethod(arg, dataPtrName());
        const nb::object &dtype = read.dtype, &strides = read.strides,
                         &address = read.dataPtr;
        if (!dtype || !strides || !address || !PyTuple_Check(strides.ptr())) {
          PyErr_Clear();
          return false;
        }
        key.add('t');
        add(&type, sizeof type);
        PyObject *dtypePtr = dtype.ptr();
        add(&dtypePtr, sizeof dtypePtr);
        int64_t rank = PyTuple_GET_SIZE(strides.ptr());
        add(&rank, sizeof rank);
        for (int64_t d = 0; d < rank; ++d) {
          int64_t stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), d));
          add(&stride, sizeof stride);
        }
        key.add(char(PyLong_AsUnsignedLongLongMask(address.ptr()) & 15));
        if (PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
        continue;
      }
      // numpy arrays only: what other buffers (numpy scalars, bytes) stand
      // for is the front end's to decide.
      if (std::strcmp(type->tp_name, "numpy.ndarray") != 0)
        return false;
      if (!views[i].acquire(arg))
        return false;
      const Py_buffer &view = views[i].buffer;
      key.add('b');
      add(&type, sizeof type);
      const char *format = view.format ? view.format : "B";
      add(format, std::strlen(format) + 1);
      int64_t header[2] = {int64_t(view.itemsize), int64_t(view.ndim)};
      add(header, sizeof header);
      for (int d = 0; d < view.ndim; ++d) {
        int64_t stride = view.strides ? int64_t(view.strides[d]) : 0;
        add(&stride, sizeof stride);
      }
      key.add(char(reinterpret_cast<uintptr_t>(view.buf) & 15));
    }
    return !key.overflow;
  }

  Binding binding;
  std::string kinds;
  nb::object descriptorType;
  nb::object streamType;
  nb::object torchTensorType;
  dlpack::Describe torchDescribe; // its exchange table's, or null
  nb::dict entries; // key -> ArgumentPacker
  /// The last key found in `entries` (its objects held) and its packer.
  std::string lastKey;
  std::vector<nb::object> lastObjects;
  nb::object lastPacker;
  uint64_t generation;
};

} // namespace

void registerArgumentPacker(nb::module_ &m) {
  nb::class_<ArgumentBlock>(m, "ArgumentBlock")
      .def(nb::init<nb::handle>(), "host_function"_a,
           "A host function's argument block, from the compile's description "
           "of it (a host function dict)")
      .def_prop_ro("size", &ArgumentBlock::size)
      .def("pack", &ArgumentBlock::pack, "values"_a,
           "The block of these values, one per slot (ints, floats, bools); "
           "ValueError for a value its slot cannot hold");
  nb::class_<ArgumentPacker>(m, "ArgumentPacker")
      .def(nb::init<nb::object, nb::object, nb::list, nb::tuple, nb::object,
                    nb::object, nb::object, bool, nb::object>(),
           "entry"_a, "block"_a, "params"_a, "binding"_a, "descriptor_type"_a,
           "stream_type"_a, "torch_tensor_type"_a.none(), "host_memory"_a,
           "errors"_a.none() = nb::none(),
           "The native warm-call path of a host entry (see "
           "bindings/ArgumentPacker.cpp for `params` and `binding`)")
      .def_prop_ro("current", &ArgumentPacker::current,
                   "Whether the launch table it was made with is still the "
                   "installed one (else every call returns False)")
      .def("call", &ArgumentPacker::call, "args"_a, "kwargs"_a.none() = nb::none(),
           "Binds, checks and packs the arguments and calls the host entry: "
           "True; False when the call needs the Python path (nothing was "
           "done)")
      .def("pack", &ArgumentPacker::pack, "args"_a, "kwargs"_a.none() = nb::none(),
           "The argument block `call` would pass for these arguments, or "
           "None when they need the Python path");
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
