"""Arguments of @flyc.jit functions: the one home of what each one is.

A jit function's parameters are described once, from its signature
(`JitSignature`: which are Constexpr or streams, how a call binds, the
native binding and dispatch kinds). A call's arguments are described once
per new call signature, one `ArgumentSpec` record each (constexpr, stream,
tensor, pointer, scalar or a value of the JitArgument protocol): the
record is its part of the dispatch and disk-cache keys, the types of the
host function's arguments it becomes and the value the traced body gets
from them, and names it in errors. A compile's `PackingPlan` reads the
records with the compiler's description of the argument block: how a
call's values are checked and packed, in Python or by the native packer.

A tensor (a numpy array, or anything with `__array_interface__` or
`__dlpack__` and `shape`/`strides`) becomes a `!fly.memref` in global
memory. A raw tensor gets a dynamic layout whose unit-stride dimension is
static (stride 1); `from_dlpack(t)` gives a fully static layout, which
`mark_layout_dynamic` / `mark_shape_dynamic` / `mark_stride_dynamic` make
dynamic again, optionally with a divisibility. Python ints, floats and
bools are dynamic Int32 / Float32 / Boolean scalars, fx numerics their own
type; `fx.Constexpr[T]` parameters are Python values specialised into the
code (and the key).
"""

from __future__ import annotations

import inspect
import math
import sys
from dataclasses import dataclass, field

from .. import _fly
from ..tracing.errors import ArgumentError, FlyDSLError, TraceError
from ..tracing.ir import Value, user_location
from ..tracing.signature import Stream, constexpr_type, is_constexpr, stream_handle
from ..expr import numeric as nm
from ..expr._core import wrap
from ..expr._ir_types import AddressSpace

# numpy dtype names -> MLIR element types
_DTYPES = {"float32": "f32", "float16": "f16", "float64": "f64", "bfloat16": "bf16",
           "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
           "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64", "bool": "i1"}


@dataclass(frozen=True)
class TensorSpec:
    """What the trace of a tensor argument depends on."""

    element: str
    layout: str  # the layout text, e.g. "(?,?{div=4}):(?{div=4},1)"
    align: int

    def type_text(self) -> str:
        return f"!fly.memref<{self.element}, global, {self.layout}, align<{self.align}>>"


class TensorDescriptor:
    """A tensor argument with the layout the user chose: what
    `from_dlpack(t)` / `from_torch_tensor(t)` return (FlyDSL's
    DLTensorJitArg / TorchTensorJitArg). A fully static layout until
    `mark_layout_dynamic` / `mark_shape_dynamic` / `mark_stride_dynamic`
    make leaves dynamic; `assumed_align` is the alignment the code may
    assume of the data (checked at each call; by default the address's,
    up to 16 bytes); `use_32bit_stride` makes the dynamic strides 32-bit
    (by default they are 64-bit only when a value needs it)."""

    def __init__(self, tensor, shape, strides, element, address, *, assumed_align=None,
                 use_32bit_stride: bool = False, dynamic_layout: bool = False):
        self.tensor = tensor
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.element = element  # the MLIR element type
        self.address = address
        self.assumed_align = assumed_align
        self.use_32bit_stride = bool(use_32bit_stride)
        self.dynamic_layout = dynamic_layout
        self.dynamic_shape = [False] * len(self.shape)
        self.dynamic_stride = [False] * len(self.strides)
        self.div_shape = [1] * len(self.shape)
        self.div_stride = [1] * len(self.strides)
        self._spec = None  # tensor_spec(), until a mark changes it
        if dynamic_layout and self.shape:
            self.mark_layout_dynamic()

    # -- FlyDSL's members -------------------------------------------------

    @property
    def dltensor(self):
        """The tensor this describes."""
        return self.tensor

    @property
    def torch_tensor(self):
        """The torch tensor this describes (from_torch_tensor)."""
        return self.tensor

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def element_bits(self) -> int:
        return _ELEMENT_BITS[self.element]

    @property
    def dtype(self):
        """The tensor's own dtype (a torch.dtype, a numpy dtype, ...)."""
        return getattr(self.tensor, "dtype", self.element)

    @property
    def element_type(self):
        """The element type, as the tracer's type handle."""
        from ..tracing.ir import parse_type

        return parse_type(self.element)

    @property
    def is_layout_dynamic(self) -> bool:
        return any(self.dynamic_shape) or any(self.dynamic_stride)

    @property
    def shape_dyn_indices(self) -> tuple:
        return tuple(i for i, d in enumerate(self.dynamic_shape) if d)

    @property
    def stride_dyn_indices(self) -> tuple:
        return tuple(i for i, d in enumerate(self.dynamic_stride) if d)

    @property
    def spec(self) -> "TensorSpec":
        """What the code is compiled for: element type, layout, alignment."""
        return self.tensor_spec()

    def mark_layout_dynamic(self, leading_dim: int | None = None, divisibility: int = 1):
        """Every extent dynamic, and every stride but the unit stride of
        `leading_dim` (default: the first dimension of stride 1), those
        strides multiples of `divisibility`."""
        what = "mark_layout_dynamic"
        _check_divisibility(what, divisibility)
        lead = _unit_stride_dim(self.strides) if leading_dim in (None, -1) else leading_dim
        if isinstance(lead, bool) or not isinstance(lead, (int, type(None))):
            _fail(f"{what}(leading_dim=): an int, got {leading_dim!r}")
        if lead is None or not 0 <= lead < len(self.shape):
            _fail(f"{what}: no leading dimension {'' if leading_dim is None else leading_dim} "
                  f"with unit stride in strides {self.strides} (a layout-dynamic tensor "
                  "needs one; from_dlpack(t) alone keeps the layout static)")
        if self.strides[lead] != 1:
            _fail(f"{what}: the leading dimension {lead} has stride {self.strides[lead]}, not 1")
        self._spec = None
        for i in range(len(self.shape)):
            self.dynamic_shape[i], self.div_shape[i] = True, 1
            if i != lead:
                self.dynamic_stride[i], self.div_stride[i] = True, divisibility
        return self

    def mark_shape_dynamic(self, dims, divisibility=1):
        """The extents of `dims` (an int or ints, negative from the end)
        dynamic, multiples of `divisibility` (one power of two, or one per
        dimension)."""
        for i, div in self._dims("mark_shape_dynamic", dims, divisibility):
            self.dynamic_shape[i], self.div_shape[i] = True, div
        self._spec = None
        return self

    def mark_stride_dynamic(self, dims, divisibility=1):
        """The strides of `dims` dynamic, multiples of `divisibility`."""
        for i, div in self._dims("mark_stride_dynamic", dims, divisibility):
            self.dynamic_stride[i], self.div_stride[i] = True, div
        self._spec = None
        return self

    def _dims(self, what, dims, divisibility):
        if isinstance(dims, bool) or not isinstance(dims, (int, list, tuple)):
            _fail(f"{what}(dims): an int or a list of ints, got {dims!r}")
        indices = [dims] if isinstance(dims, int) else list(dims)
        if isinstance(divisibility, (list, tuple)):
            if isinstance(dims, int) or len(divisibility) != len(indices):
                _fail(f"{what}: {len(indices)} dimension(s) but divisibility {divisibility!r}")
            divs = list(divisibility)
        else:
            divs = [divisibility] * len(indices)
        out = []
        for d, div in zip(indices, divs):
            if isinstance(d, bool) or not isinstance(d, int):
                _fail(f"{what}: the dimension {d!r} is not an int")
            if not -self.rank <= d < self.rank:
                _fail(f"{what}: the dimension {d} is out of range for rank {self.rank}")
            _check_divisibility(what, div)
            out.append((d % self.rank, div))
        return out

    # -- the protocol (flydsl.compiler.protocol.JitArgument) --------------

    def __get_ir_types__(self):
        return [self.tensor_spec().type_text()]

    def __cache_signature__(self):
        spec = self.tensor_spec()
        return (type(self), spec.element, spec.align, self.use_32bit_stride, spec.layout)

    def __c_abi_spec__(self):
        """The argument block's slots: the data pointer, then (for a
        dynamic layout) the dynamic leaves."""
        import ctypes

        def fill_pointer(arg, slot):
            slot.value = arg.address if isinstance(arg, TensorDescriptor) else _address_of(arg)

        slots = [(ctypes.c_void_p, fill_pointer)]
        leaves = self.dynamic_leaves()
        if leaves:
            wide = "?{" in self.tensor_spec().layout and "i64" in self.tensor_spec().layout
            leaf_type = ctypes.c_int64 if wide else ctypes.c_int32
            storage = leaf_type * len(leaves)

            def fill_leaves(arg, slot):
                desc = arg if isinstance(arg, TensorDescriptor) else describe_array(arg, "")
                slot[:] = desc.dynamic_leaves_like(self)

            slots.append((storage, fill_leaves))
        return slots

    # -- ours -------------------------------------------------------------

    def dynamic_leaves(self) -> list[int]:
        """The values of the dynamic leaves, in the layout's leaf order:
        the dynamic extents, then the dynamic strides."""
        return ([s for s, d in zip(self.shape, self.dynamic_shape) if d]
                + [s for s, d in zip(self.strides, self.dynamic_stride) if d])

    def dynamic_leaves_like(self, other: "TensorDescriptor") -> list[int]:
        """This tensor's values of the leaves `other` has dynamic."""
        return ([s for s, d in zip(self.shape, other.dynamic_shape) if d]
                + [s for s, d in zip(self.strides, other.dynamic_stride) if d])

    def tensor_spec(self) -> TensorSpec:
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> TensorSpec:
        wide = any(abs(x) >= 2**31 for x in self.shape + self.strides)
        if wide and self.use_32bit_stride:
            _fail(f"use_32bit_stride=True, but the tensor of shape {self.shape} and strides "
                  f"{self.strides} has a leaf beyond 32 bits")

        def leaf(value, dynamic, div):
            if not dynamic:
                return str(value)
            attrs = []
            if div > 1:
                if value % div:
                    _fail(f"{value} is not divisible by the declared divisibility {div}")
                attrs.append(f"div={div}")
            if wide:
                attrs.append("i64")
            return "?" + ("{" + ",".join(attrs) + "}" if attrs else "")

        shape = [leaf(s, d, v) for s, d, v in zip(self.shape, self.dynamic_shape, self.div_shape)]
        stride = [leaf(s, d, v) for s, d, v in zip(self.strides, self.dynamic_stride, self.div_stride)]
        if len(shape) == 1:
            layout = f"{shape[0]}:{stride[0]}"
        else:
            layout = f"({','.join(shape)}):({','.join(stride)})"
        if self.assumed_align is not None:
            align = self.assumed_align
            if self.address % align:
                _fail(f"assumed_align={align}, but the tensor's address {self.address:#x} is "
                      f"not a multiple of {align}")
        else:
            align = _alignment(self.address, self.element)
        return TensorSpec(self.element, layout, align)


def raw_address(value) -> int | None:
    """The address a raw pointer is given as (from_c_void_p's, and a call's
    argument for one): an int (a data_ptr(), a numpy integer) or a
    ctypes.c_void_p; None for anything else or outside 64 bits."""
    import ctypes
    import operator

    if isinstance(value, ctypes.c_void_p):
        return value.value or 0
    if isinstance(value, bool):
        return None
    try:
        address = operator.index(value)
    except TypeError:
        return None
    return address if 0 <= address < 1 << 64 else None


class PointerDescriptor:
    """A raw pointer argument, `from_c_void_p(element_type, pointer)`
    (FlyDSL's PointerJitArg): a @flyc.jit parameter annotated fx.Pointer
    receives it as a `!fly.ptr<element, space, align<N>>` value."""

    def __init__(self, element_type, pointer, address_space=None, alignment=None):
        import ctypes


        what = "from_c_void_p"
        self.element = _element_text(element_type, what)
        address = 0 if pointer is None else raw_address(pointer)
        if address is None:
            _fail(f"{what}(pointer): an int or a ctypes.c_void_p, got "
                  f"{type(pointer).__name__} {pointer!r}")
        self.pointer = pointer if isinstance(pointer, ctypes.c_void_p) else ctypes.c_void_p(
            address or None)
        if address_space is None:
            address_space = AddressSpace.Global
        try:
            self.address_space = AddressSpace(address_space) if not isinstance(
                address_space, str) else AddressSpace[address_space.capitalize()]
        except (KeyError, ValueError):
            _fail(f"{what}(address_space=): an fx.AddressSpace, got {address_space!r}")
        self.element_type = element_type
        trivial = max(1, (_ELEMENT_BITS.get(self.element, 8) + 7) // 8)
        if alignment is None:
            alignment = trivial
        _check_alignment(what, alignment)
        self.alignment = alignment

    @property
    def address(self) -> int:
        return self.pointer.value or 0

    def type_text(self) -> str:
        return f"!fly.ptr<{self.element}, {self.address_space}, align<{self.alignment}>>"

    def __get_ir_types__(self):
        return [self.type_text()]

    def __cache_signature__(self):
        return (type(self), self.element, str(self.address_space), self.alignment)

    def __c_abi_spec__(self):
        import ctypes

        def fill(arg, slot):
            if isinstance(arg, PointerDescriptor):
                slot.value = arg.pointer.value
            elif isinstance(arg, ctypes.c_void_p):
                slot.value = arg.value
            else:
                slot.value = int(arg)

        return [(ctypes.c_void_p, fill)]


_ELEMENT_BITS = {"f32": 32, "f16": 16, "f64": 64, "bf16": 16, "i8": 8, "i16": 16, "i32": 32,
                 "i64": 64, "i1": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8,
                 "f8E5M2FNUZ": 8}


def _fail(message: str):
    raise ArgumentError(message, *user_location()[:2])


def _check_divisibility(what: str, div) -> None:
    if isinstance(div, bool) or not isinstance(div, int) or div < 1 or div & (div - 1):
        _fail(f"{what}: divisibility {div!r} is not a power of two")


def _check_alignment(what: str, align) -> None:
    if isinstance(align, bool) or not isinstance(align, int) or align < 1 or align & (align - 1):
        _fail(f"{what}(assumed_align=): a power of two, got {align!r}")


def _element_text(element_type, what: str) -> str:
    """The MLIR element type of an fx numeric class (fx.Int32), a type
    handle or its text."""
    text = getattr(element_type, "mlir_type", None)
    if isinstance(text, str):
        return text
    if isinstance(element_type, str):
        return element_type
    if isinstance(element_type, _fly.Type):
        return str(element_type)
    _fail(f"{what}(element_type): an fx numeric type such as fx.Float32, got {element_type!r}")


def _address_of(t) -> int:
    if type(t).__name__ == "ndarray":
        return _fly.data_address(t)
    return describe_array(t, "").address


def _unit_stride_dim(strides):
    for i, s in enumerate(strides):
        if s == 1:
            return i
    return None


def _alignment(address: int, element: str) -> int:
    """The pointer's alignment class: the largest power of two up to 16
    dividing the address (at least the element's size)."""
    bits = {"i1": 8, "i8": 8, "i16": 16, "f16": 16, "bf16": 16}.get(element, 32 if element in ("i32", "f32") else 64)
    align = 16
    while align > bits // 8 and address % align:
        align //= 2
    return align


# torch dtypes -> MLIR element types (torch tensors are read directly:
# numpy has no bfloat16, and cannot view a tensor in device memory)
_TORCH_DTYPES = {"torch.float32": "f32", "torch.float16": "f16", "torch.float64": "f64",
                 "torch.bfloat16": "bf16", "torch.int8": "i8", "torch.int16": "i16",
                 "torch.int32": "i32", "torch.int64": "i64", "torch.uint8": "i8",
                 "torch.uint16": "i16", "torch.uint32": "i32", "torch.uint64": "i64",
                 "torch.bool": "i1",
                 # the 8-bit floats FlyDSL 0.4.2 takes (not float8_e8m0fnu)
                 "torch.float8_e4m3fn": "f8E4M3FN", "torch.float8_e5m2": "f8E5M2",
                 "torch.float8_e4m3fnuz": "f8E4M3FNUZ", "torch.float8_e5m2fnuz": "f8E5M2FNUZ"}

# MLIR element types -> the name of a dtype users know
ELEMENT_NAMES = {"f32": "float32", "f16": "float16", "f64": "float64", "bf16": "bfloat16",
                  "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool",
                  "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
                  "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E5M2FNUZ": "float8_e5m2fnuz"}


def _is_torch(t) -> bool:
    return type(t).__module__.startswith("torch") and hasattr(t, "data_ptr")


def describe_array(t, where: str) -> TensorDescriptor:
    """Shape, strides (in elements), element type and address of an array."""
    if _is_torch(t):
        element = _TORCH_DTYPES.get(str(t.dtype))
        if element is None:
            raise TraceError(f"{where}: tensors of {t.dtype} are not supported")
        return TensorDescriptor(t, tuple(t.shape), tuple(t.stride()), element, t.data_ptr())
    interface = getattr(t, "__array_interface__", None)
    if interface is None and hasattr(t, "__dlpack__"):
        # Any DLPack tensor in host memory (torch, jax, ...): numpy's view of
        # it shares the data, so shape, strides and address are the tensor's.
        import numpy as np

        try:
            view = np.from_dlpack(t)
        except (BufferError, TypeError, RuntimeError, ValueError) as err:
            raise TraceError(f"{where}: a {type(t).__name__} that numpy cannot view "
                             f"through DLPack ({err})") from None
        desc = describe_array(view, where)
        desc.tensor = t
        return desc
    if interface is None:
        raise TraceError(f"{where}: a {type(t).__name__} is not a tensor (expected a "
                         "numpy array or a DLPack tensor)")
    import numpy as np

    dtype = np.dtype(interface["typestr"])
    element = _DTYPES.get(dtype.name)
    if element is None:
        raise TraceError(f"{where}: tensors of {dtype.name} are not supported")
    shape = tuple(interface["shape"])
    itemsize = dtype.itemsize
    if interface.get("strides") is None:
        strides, step = [], 1
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
    else:
        strides = []
        for s in interface["strides"]:
            if s % itemsize:
                raise TraceError(f"{where}: a stride of {s} bytes is not a whole number of elements")
            strides.append(s // itemsize)
    address = interface["data"][0]
    return TensorDescriptor(t, shape, strides, element, address)


def _descriptor(what, tensor, assumed_align, use_32bit_stride) -> TensorDescriptor:
    if assumed_align is not None:
        _check_alignment(what, assumed_align)
    if not isinstance(use_32bit_stride, bool):
        _fail(f"{what}(use_32bit_stride=): a bool, got {use_32bit_stride!r}")
    try:
        desc = describe_array(tensor, f"{what}(tensor)")
    except TraceError as err:
        _fail(err.bare_message)
    desc.assumed_align = assumed_align
    desc.use_32bit_stride = use_32bit_stride
    return desc


def from_dlpack(tensor, *, assumed_align=None, use_32bit_stride=False) -> TensorDescriptor:
    """Any DLPack tensor (numpy, torch, ...) with a static layout (its shape
    and strides as they are), until marked dynamic."""
    return _descriptor("from_dlpack", tensor, assumed_align, use_32bit_stride)


def from_torch_tensor(tensor, *, assumed_align=None, use_32bit_stride=False) -> TensorDescriptor:
    """A torch tensor with a static layout, until marked dynamic."""
    if not _is_torch(tensor):
        _fail(f"from_torch_tensor(tensor): a torch.Tensor, got {type(tensor).__name__}")
    return _descriptor("from_torch_tensor", tensor, assumed_align, use_32bit_stride)


def from_c_void_p(element_type, pointer, *, address_space=None, assumed_align=None):
    """A raw device pointer to elements of `element_type` (fx.Float32, ...)
    in `address_space` (default global), aligned to `assumed_align` bytes
    (default: the element's size)."""
    return PointerDescriptor(element_type, pointer, address_space, assumed_align)


def raw_tensor_spec(t, where: str) -> TensorSpec:
    """The spec of a tensor passed as is: dynamic layout, unit stride kept."""
    desc = describe_array(t, where)
    if _unit_stride_dim(desc.strides) is None and math.prod(desc.shape) > 1:
        raise TraceError(f"{where}: a tensor without a unit-stride dimension "
                         f"(strides {desc.strides}); pass from_dlpack(t) with an explicit layout")
    if desc.shape:
        desc.mark_layout_dynamic()
    return desc.tensor_spec()


class CompiledTensor:
    """A tensor parameter of a compiled function, as the compiler describes
    it (a host function's parameter: its element type, alignment and every
    leaf of its layout, static or dynamic with its divisibility and width):
    what its code assumes of the tensor, checked at each call, and the
    values of its leaves a call passes."""

    def __init__(self, parameter: dict):
        self.element = parameter["element"]
        self.align = parameter["alignment"]
        self.rank = parameter["rank"]
        # (kind 0: an extent, 1: a stride; index; static value or None;
        # divisibility; 64-bit)
        self._leaves = [(0 if kind == "shape" else 1, dim, value, div, wide)
                        for kind, dim, value, div, wide in parameter["leaves"]]

    def _text(self, kind: int) -> str:
        leaves = [v for k, _, v, _, _ in self._leaves if k == kind]
        return "(" + ", ".join("?" if v is None else str(v) for v in leaves) + (
            ",)" if len(leaves) == 1 else ")")

    def leaves(self, value, where: str, device: str | None = None) -> tuple[int, list[int]]:
        """The tensor's address and the values of its leaves, in the
        parameter's leaf order; a TraceError when it is not a tensor this
        code was compiled for."""
        if type(value).__name__ == "ndarray":
            element = _NUMPY_ELEMENTS.get(value.dtype)
            if element is None:
                element = _NUMPY_ELEMENTS[value.dtype] = _DTYPES.get(value.dtype.name, "")
            itemsize = value.itemsize
            shape, strides = value.shape, [x // itemsize for x in value.strides]
            address = _fly.data_address(value)
        elif isinstance(value, TensorDescriptor):
            element, shape, strides, address = value.element, value.shape, value.strides, value.address
        else:
            if device is not None and _is_torch(value) and value.device.type != device:
                raise TraceError(f"{where} is a tensor on {value.device}, but the kernels run "
                                 f"on the {device} (the emulator reads host memory)")
            desc = describe_array(value, where)
            element, shape, strides, address = desc.element, desc.shape, desc.strides, desc.address
        if element != self.element or len(shape) != self.rank:
            self._mismatch(value, element, shape, where)
        dims = (shape, strides)
        out = []
        for k, i, static, div, wide in self._leaves:
            x = dims[k][i]
            what = ("shape", "strides")[k]
            if static is not None:
                if x != static:
                    raise TraceError(f"{where} was compiled for {what} {self._text(k)}, "
                                     f"got {what} {tuple(dims[k])}")
            elif div > 1 and x % div:
                raise TraceError(f"{where}: {what}[{i}] = {x} is not a multiple "
                                 f"of {div}, as the code was compiled for (divisibility={div})")
            elif not wide and not -2**31 <= x < 2**31:
                raise TraceError(f"{where}: {what}[{i}] = {x} does not fit the "
                                 "32-bit layout the code was compiled for")
            out.append(x)
        if address % self.align:
            have = 1
            while have < self.align and address % (have * 2) == 0:
                have *= 2
            raise TraceError(f"{where} was compiled for data aligned to {self.align} bytes, "
                             f"got an address aligned to {have} bytes")
        return address, out

    def _mismatch(self, value, element, shape, where):
        if type(value).__name__ == "ndarray":
            got = f"an ndarray of {value.dtype.name}"
        elif isinstance(value, TensorDescriptor):
            got = f"a tensor of {ELEMENT_NAMES.get(element, element)}"
        else:
            dtype = getattr(value, "dtype", None)
            got = f"a {type(value).__name__} of {dtype if dtype is not None else element}"
        if element != self.element:
            want = ELEMENT_NAMES.get(self.element, self.element)
            raise TraceError(f"{where} was compiled for {want} tensors, got {got}")
        raise TraceError(f"{where} was compiled for tensors of rank {self.rank} "
                         f"(shape {self._text(0)}), got {got} of rank "
                         f"{len(shape)} (shape {tuple(shape)})")


_NUMPY_ELEMENTS: dict = {}  # numpy dtype -> MLIR element type ("" if none)


# -- user types: FlyDSL's JitArgument protocol ---------------------------------

class JitArgumentRegistry:
    """Which Python types a @flyc.jit function takes, beyond the built-in
    tensors, numbers and streams: `register(py_type, dsl_type=)` decorates
    the constructor of the JitArgument a value of `py_type` becomes (a
    class that is also the DslType needs no `dsl_type`);
    `register_jit_arg(jit_arg, dsl_type)` names the DslType of a
    JitArgument class."""

    registry: dict = {}  # py type -> (constructor, dsl type)
    jit_arg2dsl_type: dict = {}  # JitArgument type -> dsl type

    @classmethod
    def register(cls, py_type: type, *, dsl_type=None):
        from .protocol import DslType

        def decorator(constructor):
            if py_type in cls.registry:
                raise ArgumentError(f"JitArgumentRegistry.register: {py_type!r} is already "
                                    "registered")
            target = dsl_type
            if target is None:
                if not (isinstance(constructor, type) and isinstance(constructor, DslType)):
                    raise ArgumentError(f"JitArgumentRegistry.register({py_type!r}): give "
                                        "dsl_type=, or register a class that is a DslType")
                target = constructor
            cls.registry[py_type] = (constructor, target)
            cls.jit_arg2dsl_type[constructor] = target
            return constructor

        return decorator

    @classmethod
    def register_jit_arg(cls, jit_arg: type, dsl_type) -> None:
        from .protocol import JitArgument

        if not (isinstance(jit_arg, type) and issubclass(jit_arg, JitArgument)):
            raise ArgumentError(f"JitArgumentRegistry.register_jit_arg: {jit_arg!r} does not "
                                "implement the JitArgument protocol")
        if jit_arg in cls.jit_arg2dsl_type:
            raise ArgumentError(f"JitArgumentRegistry.register_jit_arg: {jit_arg!r} is "
                                "already registered")
        cls.jit_arg2dsl_type[jit_arg] = dsl_type

    @classmethod
    def get(cls, py_type: type):
        """(constructor, dsl type) of `py_type` or a base class of it, else
        (None, None)."""
        found = cls.registry.get(py_type)
        if found is not None:
            return found
        for registered, entry in cls.registry.items():
            if isinstance(py_type, type) and issubclass(py_type, registered):
                return entry
        return (None, None)

    @classmethod
    def get_dsl_type(cls, jit_arg_type: type):
        return cls.jit_arg2dsl_type.get(jit_arg_type)


@dataclass(frozen=True)
class CustomSpec:
    """A parameter passed through the JitArgument protocol: its host
    argument types, its cache signature, and (outside the key) how to make
    the JitArgument and the traced value."""

    types: tuple  # type texts
    signature: str  # repr of the cache signature
    dsl_name: str
    dsl_type: object = field(compare=False, repr=False, default=None)
    constructor: object = field(compare=False, repr=False, default=None)
    exemplar: object = field(compare=False, repr=False, default=None)

    def jit_argument(self, value):
        return value if self.constructor is None else self.constructor(value)


def _builtin(value) -> bool:
    return isinstance(value, (bool, int, float, str)) or type(value).__name__ == "ndarray" or (
        _is_torch(value))


def custom_spec(value, annotation, where: str):
    """The CustomSpec of a value passed through the protocol, None for the
    built-in kinds of argument."""
    from .protocol import DslType, JitArgument, cache_signature, get_ir_types

    constructor = None
    if isinstance(value, JitArgument):
        jit_arg = value
        dsl_type = type(value) if isinstance(value, DslType) else \
            JitArgumentRegistry.get_dsl_type(type(value))
        if dsl_type is None:
            raise ArgumentError(f"{where}: no DslType is registered for the JitArgument "
                                f"{type(value).__name__} (JitArgumentRegistry.register_jit_arg)",
                                *_location())
    elif isinstance(annotation, type) and issubclass(annotation, JitArgument) and \
            annotation.__module__.split(".")[0] != "flydsl":
        constructor, dsl_type = annotation, annotation
        jit_arg = _construct(annotation, value, where)
    else:
        if _builtin(value):
            return None
        constructor, dsl_type = JitArgumentRegistry.get(type(value))
        if constructor is None:
            return None
        jit_arg = _construct(constructor, value, where)
    try:
        types = tuple(str(t) for t in get_ir_types(jit_arg))
        signature = repr(cache_signature(jit_arg))
    except Exception as err:
        raise ArgumentError(f"{where}: the JitArgument {type(jit_arg).__name__}: {err}",
                            *_location()) from None
    if any(t.startswith("!fly.memref") for t in types):
        raise ArgumentError(f"{where}: a JitArgument of tensor type is passed as a "
                            "from_dlpack descriptor, not through __get_ir_types__", *_location())
    return CustomSpec(types, signature, f"{dsl_type.__module__}.{dsl_type.__qualname__}",
                      dsl_type, constructor, jit_arg)


def _construct(constructor, value, where):
    try:
        return constructor(value)
    except FlyDSLError:
        raise
    except Exception as err:
        raise ArgumentError(f"{where}: {getattr(constructor, '__name__', constructor)}"
                            f"({value!r}) failed: {err}", *_location()) from None


def _location():
    return user_location()[:2]


def custom_abi_values(spec: CustomSpec, value, where: str) -> list:
    """The values a call fills the host arguments of a protocol parameter
    with: each `__c_abi_spec__` slot filled and read back."""
    from .protocol import c_abi_spec

    jit_arg = spec.jit_argument(value) if not isinstance(value, type(spec.exemplar)) else value
    slots = c_abi_spec(jit_arg)
    if len(slots) != len(spec.types):
        raise TraceError(f"{where}: {type(jit_arg).__name__}.__c_abi_spec__ gives {len(slots)} "
                         f"slots for its {len(spec.types)} IR types")
    out = []
    for ctype, fill in slots:
        slot = ctype()
        fill(jit_arg, slot)
        out.append(slot.value if hasattr(slot, "value") else list(slot))
    return out


# -- signatures: evaluated once, bound per call ----------------------------------

def evaluated_signature(fn) -> inspect.Signature:
    """fn's signature with its annotations evaluated: under `from __future__
    import annotations` they are strings, and fx.Constexpr[int] must still
    be recognised. One that does not evaluate (a name defined later) is an
    error naming it, not a silently ignored annotation."""
    try:
        return inspect.signature(fn, eval_str=True)
    except Exception as err:  # NameError, SyntaxError, ... from the annotation text
        code = fn.__code__
        raise TraceError(f"the annotations of {fn.__name__} do not evaluate: {err}",
                         code.co_filename, code.co_firstlineno) from None


def _parameters_text(signature) -> str:
    parts = []
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            parts.append("**" + p.name)
        elif p.default is not p.empty:
            parts.append(f"{p.name}={p.default!r}")
        else:
            parts.append(p.name)
    return ", ".join(parts)


def bind_arguments(signature, what: str, args, kwargs):
    """`signature.bind` with defaults applied; a call that does not fit is
    an ArgumentError naming `what` and its parameters, at the caller's line."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as err:
        params = list(signature.parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = _parameters_text(signature)
        if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in params):
            required = sum(p.default is p.empty for p in positional)
            most = len(positional)
            count = str(most) if required == most else f"{required} to {most}"
            message = (f"{what}() takes {count} positional argument{'s' if most != 1 else ''} "
                       f"({names}), got {len(args)}")
        else:
            detail = str(err)
            unknown = [k for k in kwargs if k not in signature.parameters
                       or signature.parameters[k].kind is inspect.Parameter.POSITIONAL_ONLY]
            if unknown and not any(p.kind is p.VAR_KEYWORD for p in params):
                detail = f"got an unexpected keyword argument '{unknown[0]}'"
            if detail.startswith("multiple values"):
                detail = "got " + detail
            message = f"{what}() {detail}; its parameters are ({names})"
        raise ArgumentError(message, *user_location()[:2]) from None
    bound.apply_defaults()
    return bound


# -- the parameters of a @flyc.jit function ------------------------------------

_EMPTY = inspect.Parameter.empty


class JitSignature:
    """The parameters of a @flyc.jit function, described once from its
    evaluated signature: how a call binds, the native warm path's binding
    and dispatch key kinds, and per parameter how a call's argument for it
    is described (`describe`: one ArgumentSpec each)."""

    def __init__(self, function: str, signature: inspect.Signature):
        self.function = function
        self.signature = signature
        self.names = tuple(signature.parameters)
        parameters = list(signature.parameters.values())
        self._parameters = {p.name: _Parameter(p, function) for p in parameters}
        takes_positional = (inspect.Parameter.POSITIONAL_ONLY,
                            inspect.Parameter.POSITIONAL_OR_KEYWORD)
        # [(name, default)] when every parameter takes a positional argument:
        # the common call then binds without inspect
        self._positional = (None if any(p.kind not in takes_positional for p in parameters)
                            else [(p.name, p.default) for p in parameters])
        # bindings/ArgumentPacker.cpp's binding: (names, defaults, the marker
        # of no default); None unless every parameter is positional-or-keyword
        self.binding = (None if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in parameters)
                        else (self.names, tuple(p.default for p in parameters), _EMPTY))
        # the native dispatcher's key kind per parameter (ArgumentPacker.cpp)
        self.dispatch_kinds = "".join(p.dispatch_kind for p in self._parameters.values())

    def bind(self, args, kwargs, what: str | None = None) -> dict:
        """A call's arguments by parameter name, defaults applied, in the
        signature's order; an ArgumentError naming `what` (by default the
        function) for a call that does not bind."""
        positional = self._positional
        if (not kwargs and positional is not None and len(args) <= len(positional)
                and all(default is not _EMPTY for _, default in positional[len(args):])):
            arguments = dict(zip([name for name, _ in positional], args))
            for name, default in positional[len(args):]:
                arguments[name] = default
            return arguments
        return bind_arguments(self.signature, what or self.function, args, kwargs).arguments

    def describe(self, arguments: dict) -> tuple:
        """The ArgumentSpec of each bound argument, in order."""
        parameters = self._parameters
        return tuple(parameters[name].describe(value) for name, value in arguments.items())


class _Parameter:
    """One parameter of a @flyc.jit function as its annotation declares it
    (read once): a Constexpr (of a type), a stream, an fx numeric, or
    anything (the value decides)."""

    __slots__ = ("name", "where", "annotation", "constexpr", "constexpr_type", "stream",
                 "numeric")

    def __init__(self, parameter: inspect.Parameter, function: str):
        annotation = parameter.annotation
        self.name = parameter.name
        self.where = f"argument '{parameter.name}' of {function}"
        self.annotation = annotation
        self.constexpr = is_constexpr(annotation)
        want = constexpr_type(annotation) if self.constexpr else None
        self.constexpr_type = want if isinstance(want, type) else None
        self.stream = annotation is Stream
        self.numeric = annotation if isinstance(annotation, type) and issubclass(
            annotation, nm.Numeric) else None

    @property
    def dispatch_kind(self) -> str:
        """c: keyed by its value; s: a stream, which never changes the code;
        v: keyed by what the value is (its type, a tensor's layout)."""
        return "c" if self.constexpr else "s" if self.stream else "v"

    def describe(self, value) -> "ArgumentSpec":
        """The ArgumentSpec of `value` passed for this parameter; an error
        naming the argument for a value it cannot take."""
        name, where = self.name, self.where
        if self.constexpr:
            want = self.constexpr_type
            if want is not None and not isinstance(value, want):
                raise TraceError(f"{where} is Constexpr[{want.__name__}] but got "
                                 f"{type(value).__name__} {value!r}")
            return ConstexprArgument(name, where, value)
        if isinstance(value, Stream) or self.stream or _is_torch_stream(value):
            stream_handle(value)  # an ArgumentError for what is no stream
            return StreamArgument(name, where, "!llvm.ptr")
        if isinstance(value, TensorDescriptor):
            return TensorArgument(name, where, value.tensor_spec())
        if isinstance(value, PointerDescriptor):
            return PointerArgument(name, where, value.type_text())
        custom = custom_spec(value, self.annotation, where)
        if custom is not None:
            return CustomArgument(name, where, custom)
        if self.numeric is not None:
            if not isinstance(value, (bool, int, float, nm.Numeric)):
                raise TraceError(f"{where} is {self.numeric.__name__} but got "
                                 f"{type(value).__name__} {value!r}")
            return ScalarArgument(name, where, self.numeric.mlir_type)
        if isinstance(value, nm.Numeric):
            return ScalarArgument(name, where, value.mlir_type)
        if isinstance(value, bool):
            return ScalarArgument(name, where, "i1")
        if isinstance(value, int):
            return ScalarArgument(name, where, "i32")
        if isinstance(value, float):
            return ScalarArgument(name, where, "f32")
        if isinstance(value, str):
            raise TraceError(f"{where}: a str is not a kernel argument (expected a tensor, "
                             "a number or a Constexpr)")
        return TensorArgument(name, where, raw_tensor_spec(value, where))


def _is_torch_stream(value) -> bool:
    t = type(value)
    return t.__name__ in ("Stream", "ExternalStream") and t.__module__.startswith("torch")


# -- a call's arguments: one ArgumentSpec each -----------------------------------

class ArgumentSpec:
    """One argument of a @flyc.jit call, described once per call signature
    (JitSignature.describe); every later step reads it:

    - `key`: its part of the in-memory and disk-cache keys, (name, kind,
      payload), the payload being what the compiled code depends on (a
      Constexpr's value, a TensorSpec, a type's text, a CustomSpec);
    - `host_names` / `host_types`: the arguments of the traced host function
      it becomes (none for a Constexpr, `name#i` for the parts of a protocol
      value), and `traced(values)` what the body receives, made of them;
    - `where`: the argument as errors name it.

    How a call's value is checked and packed is the PackingPlan's, which
    reads these with the compiler's description of the argument block."""

    kind = ""
    __slots__ = ("name", "where", "payload", "key", "host_types", "host_names")

    def __init__(self, name: str, where: str, payload):
        self.name = name
        self.where = where
        self.payload = payload
        self.key = (name, self.kind, payload)
        self.host_types = self._host_types()
        self.host_names = (name,) * len(self.host_types)

    def _host_types(self) -> tuple:
        return (self.payload,)  # the type's text

    def traced(self, values):
        """The value the traced body receives from its host arguments."""
        return wrap(values[0])

    def __repr__(self):
        return f"{type(self).__name__}{self.key!r}"


class ConstexprArgument(ArgumentSpec):
    """A Constexpr: its value is specialised into the code (and the key)."""

    kind = "constexpr"
    __slots__ = ()

    def _host_types(self) -> tuple:
        return ()

    def traced(self, values):
        return self.payload


class StreamArgument(ArgumentSpec):
    """A stream: a pointer-sized handle, which never changes the code."""

    kind = "stream"
    __slots__ = ()

    def traced(self, values):
        return StreamValue(values[0])


class TensorArgument(ArgumentSpec):
    """A tensor (a descriptor, or a raw tensor with a dynamic layout): a
    !fly.memref of its TensorSpec."""

    kind = "tensor"
    __slots__ = ()

    def _host_types(self) -> tuple:
        return (self.payload.type_text(),)


class PointerArgument(ArgumentSpec):
    """A from_c_void_p pointer: a !fly.ptr of its type."""

    kind = "pointer"
    __slots__ = ()


class ScalarArgument(ArgumentSpec):
    """A number: a dynamic scalar of its MLIR type."""

    kind = "scalar"
    __slots__ = ()


class CustomArgument(ArgumentSpec):
    """A value passed through the JitArgument protocol: one host argument
    per IR type of its CustomSpec, the body's value rebuilt by its DslType."""

    kind = "custom"
    __slots__ = ()

    def __init__(self, name: str, where: str, payload: CustomSpec):
        super().__init__(name, where, payload)
        self.host_names = tuple(f"{name}#{i}" for i in range(len(self.host_types)))

    def _host_types(self) -> tuple:
        return self.payload.types

    def traced(self, values):
        from .protocol import construct_from_ir_values

        return construct_from_ir_values(self.payload.dsl_type, self.payload.exemplar, values)


class StreamValue:
    """A stream inside a traced host function (an !llvm.ptr argument)."""

    def __init__(self, ir: Value):
        self.ir = ir

    @property
    def value(self) -> "StreamValue":
        """What FlyDSL kernels hand to `.launch(stream=stream.value)`: the
        stream itself, as a launch takes it."""
        return self


def traced_parameters(specs, values) -> dict:
    """The traced body's arguments by name: each ArgumentSpec's value, made
    of its run of the host function's block arguments `values`."""
    params, at = {}, 0
    for spec in specs:
        n = len(spec.host_types)
        params[spec.name] = spec.traced(values[at:at + n])
        at += n
    return params


def split_host_name(name: str) -> tuple[str, int]:
    """(parameter, part) of a host argument's name (ArgumentSpec.host_names)."""
    param, _, part = name.partition("#")
    return param, int(part) if part else 0


# -- packing a call's arguments --------------------------------------------------

class PackingPlan:
    """How a call's arguments fill the argument block of a compiled host
    function, made once per compiled function from its ArgumentSpecs and
    the compiler's description of the block (bindings/HostFunctionDict.h):
    per host parameter, the ArgumentSpec it comes from, which part of it,
    how it is packed (tensor, pointer, handle, scalar or custom) and what a
    call's value is checked against. `values` packs in Python; the native
    packer (bindings/ArgumentPacker.cpp) is made from `native_params`."""

    def __init__(self, specs, host_function: dict, host_names: list):
        self.specs = specs
        by_name = {spec.name: spec for spec in specs}
        self.entries = []  # per host parameter: (spec, part, kind, compiled for)
        for index, parameter in enumerate(host_function["parameters"]):
            name, part = split_host_name(host_names[index])
            spec = by_name[name]
            kind = parameter["kind"]
            if spec.kind == "custom":
                self.entries.append((spec, part, "custom", spec.payload))
            elif kind == "tensor":
                self.entries.append((spec, part, kind, CompiledTensor(parameter)))
            elif kind == "pointer":  # as from_c_void_p names its type
                self.entries.append((spec, part, kind, spec.payload if spec.kind == "pointer"
                                     else parameter["type"]))
            elif kind in ("handle", "scalar"):
                self.entries.append((spec, part, kind, parameter["type"]))
            else:
                raise FlyDSLError(f"{spec.where} is of type {parameter['type']}, which a call "
                                  "cannot pass")
        # per slot of the block: (host parameter, its leaf: -1 the address)
        self.slots = [(parameter, leaf) for _, _, parameter, leaf in host_function["slots"]]
        self.constants = [spec for spec in specs if spec.kind == "constexpr"]

    def values(self, arguments: dict, device: str | None) -> tuple[list, list]:
        """(the block's slot values, per host parameter its value -- a
        tensor's (address, leaves)) of a call's bound arguments, each checked
        against what it was compiled for: a TraceError names the argument.
        `device`: where tensors must be ("cpu" for the emulator)."""
        for spec in self.constants:
            value = arguments[spec.name]
            if not _same_constant(value, spec.payload):
                raise TraceError(f"{spec.where} is a Constexpr compiled as {spec.payload!r}, "
                                 f"got {value!r}")
        parameters = []
        customs = {}
        for spec, part, kind, compiled in self.entries:
            value = arguments[spec.name]
            if kind == "custom":
                if spec.name not in customs:
                    customs[spec.name] = custom_abi_values(compiled, value, spec.where)
                parameters.append(customs[spec.name][part])
            elif kind == "tensor":
                parameters.append(compiled.leaves(value, spec.where, device))
            elif kind == "pointer":
                parameters.append(_pointer(value, compiled, spec.where))
            elif kind == "handle":
                parameters.append(value.handle if type(value) is Stream else stream_handle(value))
            else:
                parameters.append(_scalar(value, compiled, spec.where))
        entries = self.entries
        slots = []
        for parameter, leaf in self.slots:
            value = parameters[parameter]
            if entries[parameter][2] == "tensor":
                address, leaves = value
                value = address if leaf < 0 else leaves[leaf]
            slots.append(value)
        return slots, parameters

    def native_params(self) -> list | None:
        """The native packer's description of the parameters, in order:
        ("host", host parameter, torch dtype of a tensor) or ("constexpr",
        value); None when one is only the Python path's (a protocol value)."""
        host = {spec.name: index for index, (spec, part, kind, _) in enumerate(self.entries)
                if kind != "custom" and part == 0}
        if len(host) != len(self.entries):
            return None
        params = []
        for spec in self.specs:
            if spec.kind == "constexpr":
                params.append(("constexpr", spec.payload))
            elif spec.name in host:
                compiled = self.entries[host[spec.name]][3]
                params.append(("host", host[spec.name], _torch_dtype(compiled.element)
                               if isinstance(compiled, CompiledTensor) else None))
            else:
                return None
        return params


def _torch_dtype(element: str):
    """The torch.dtype whose tensors the native packer may take for
    `element`: the signed one of each width (the Python path takes the
    unsigned ones too, as the same element), None without torch."""
    torch = sys.modules.get("torch")
    name = ELEMENT_NAMES.get(element)
    if torch is None or name is None:
        return None
    return getattr(torch, name, None)


def _same_constant(value, compiled) -> bool:
    if value is compiled:
        return True
    try:
        return type(value) is type(compiled) and bool(value == compiled)
    except Exception:
        return False


def _scalar(value, mlir_type: str, where: str):
    """A scalar argument's value for the argument block, checked against the
    type it was compiled for."""
    if hasattr(value, "host_value"):  # an fx numeric made outside a trace
        if value.mlir_type != mlir_type:
            raise TraceError(f"{where} was compiled for a scalar of {mlir_type}, got "
                             f"{type(value).__name__} ({value.mlir_type})")
        return value.host_value
    if mlir_type.startswith("i") and isinstance(value, int):
        return value
    if mlir_type.startswith(("f", "bf")) and isinstance(value, (int, float)) \
            and not isinstance(value, bool):
        return float(value)
    article = "a" if mlir_type.startswith("b") else "an"
    raise TraceError(f"{where} was compiled for {article} {mlir_type} scalar, got "
                     f"{type(value).__name__} {value!r}")


def _pointer(value, type_text: str, where: str) -> int:
    """The address of a from_c_void_p argument compiled as `type_text`: a
    descriptor of that pointer type, or, as FlyDSL takes them, the address
    itself (an int, a `data_ptr()`) or a ctypes.c_void_p."""
    if isinstance(value, PointerDescriptor):
        if value.type_text() != type_text:
            raise TraceError(f"{where} was compiled for a pointer {type_text}, got "
                             f"{value.type_text()}")
        return value.address
    address = raw_address(value)
    if address is None:
        raise TraceError(f"{where} was compiled for a pointer ({type_text}: flyc.from_c_void_p), "
                         f"got {type(value).__name__} {value!r} (pass a from_c_void_p descriptor, "
                         "an address below 2**64 or a ctypes.c_void_p)")
    return address
