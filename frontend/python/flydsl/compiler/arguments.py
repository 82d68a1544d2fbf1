"""Arguments of @flyc.jit functions: what each one is at trace time and in
the signature key.

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

import math
from dataclasses import dataclass

from .. import _fly
from .errors import TraceError

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
    """A tensor with a layout chosen by the user: `from_dlpack(t)`."""

    def __init__(self, tensor, shape, strides, element, address):
        self.tensor = tensor
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.element = element
        self.address = address
        self.dynamic_shape = [False] * len(self.shape)
        self.dynamic_stride = [False] * len(self.strides)
        self.div_shape = [1] * len(self.shape)
        self.div_stride = [1] * len(self.strides)
        self._spec = None  # spec(), until a mark changes it

    def mark_layout_dynamic(self, leading_dim: int | None = None, divisibility: int = 1):
        """Every shape and stride dynamic except the unit stride of
        `leading_dim` (by default the dimension with stride 1); the extent
        of that dimension and the other strides divisible by `divisibility`."""
        self._spec = None
        lead = _unit_stride_dim(self.strides) if leading_dim is None else leading_dim
        if lead is None or not 0 <= lead < len(self.shape):
            raise TraceError(f"mark_layout_dynamic: no leading dimension {leading_dim} "
                             f"with unit stride in strides {self.strides}")
        if self.strides[lead] != 1:
            raise TraceError(f"mark_layout_dynamic: dimension {lead} has stride "
                             f"{self.strides[lead]}, not 1")
        for i in range(len(self.shape)):
            self.dynamic_shape[i] = True
            self.dynamic_stride[i] = i != lead
            if divisibility > 1:
                if i == lead:
                    self.div_shape[i] = divisibility
                else:
                    self.div_stride[i] = divisibility
        return self

    def mark_shape_dynamic(self, dims=None, divisibility: int = 1):
        self._spec = None
        for i in range(len(self.shape)) if dims is None else dims:
            self.dynamic_shape[i] = True
            self.div_shape[i] = divisibility
        return self

    def mark_stride_dynamic(self, dims=None, divisibility: int = 1):
        self._spec = None
        for i in range(len(self.strides)) if dims is None else dims:
            if self.strides[i] != 1:
                self.dynamic_stride[i] = True
                self.div_stride[i] = divisibility
        return self

    def dynamic_leaves(self) -> list[int]:
        """The values of the dynamic leaves, in the layout's leaf order:
        the dynamic extents, then the dynamic strides."""
        return ([s for s, d in zip(self.shape, self.dynamic_shape) if d]
                + [s for s, d in zip(self.strides, self.dynamic_stride) if d])

    def spec(self) -> TensorSpec:
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> TensorSpec:
        wide = any(abs(x) >= 2**31 for x in self.shape + self.strides)

        def leaf(value, dynamic, div):
            if not dynamic:
                return str(value)
            attrs = []
            if div > 1:
                if value % div:
                    raise TraceError(f"{value} is not divisible by the declared {div}")
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
        return TensorSpec(self.element, layout, _alignment(self.address, self.element))


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
                 "torch.bool": "i1"}

# MLIR element types -> the name of a dtype users know
ELEMENT_NAMES = {"f32": "float32", "f16": "float16", "f64": "float64", "bf16": "bfloat16",
                  "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool"}


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


def from_dlpack(t) -> TensorDescriptor:
    """A tensor with a static layout (its shape and strides as they are)."""
    return describe_array(t, "from_dlpack")


def raw_tensor_spec(t, where: str) -> TensorSpec:
    """The spec of a tensor passed as is: dynamic layout, unit stride kept."""
    desc = describe_array(t, where)
    if _unit_stride_dim(desc.strides) is None and math.prod(desc.shape) > 1:
        raise TraceError(f"{where}: a tensor without a unit-stride dimension "
                         f"(strides {desc.strides}); pass from_dlpack(t) with an explicit layout")
    if desc.shape:
        desc.mark_layout_dynamic()
    return desc.spec()


class CompiledTensor:
    """A tensor parameter of a compiled function: what its code assumes of
    the tensor (element type, rank, the static extents and strides, the
    divisibility and width of the dynamic ones, the alignment), checked at
    each call, and which extents and strides a call passes (its dynamic
    leaves, in the layout's order: extents, then strides)."""

    def __init__(self, spec: TensorSpec):
        import re

        self.spec = spec
        shape_text, stride_text = spec.layout.split(":")
        leaf = re.compile(r"-?\d+|\?(?:\{[^}]*\})?")
        self.shape = [_leaf(x) for x in leaf.findall(shape_text)]
        self.stride = [_leaf(x) for x in leaf.findall(stride_text)]
        self.rank = len(self.shape)
        leaves = [(0, i, x) for i, x in enumerate(self.shape)] + [
            (1, i, x) for i, x in enumerate(self.stride)]
        self._static = [(k, i, v) for k, i, (v, _, _) in leaves if v is not None]
        self._dynamic = [(k, i, div, wide) for k, i, (v, div, wide) in leaves if v is None]

    @staticmethod
    def _text(leaves) -> str:
        return "(" + ", ".join("?" if v is None else str(v) for v, _, _ in leaves) + (
            ",)" if len(leaves) == 1 else ")")

    def leaves(self, value, where: str, device: str | None = None) -> tuple[int, list[int]]:
        """The tensor's address and dynamic leaves; a TraceError when it is
        not a tensor this code was compiled for."""
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
        if element != self.spec.element or len(shape) != self.rank:
            self._mismatch(value, element, shape, where)
        dims = (shape, strides)
        for k, i, v in self._static:
            if dims[k][i] != v:
                what, compiled = ("shape", self.shape) if k == 0 else ("strides", self.stride)
                raise TraceError(f"{where} was compiled for {what} {self._text(compiled)}, "
                                 f"got {what} {tuple(dims[k])}")
        out = []
        for k, i, div, wide in self._dynamic:
            x = dims[k][i]
            if div > 1 and x % div:
                raise TraceError(f"{where}: {('shape', 'strides')[k]}[{i}] = {x} is not a multiple "
                                 f"of {div}, as the code was compiled for (divisibility={div})")
            if not wide and not -2**31 <= x < 2**31:
                raise TraceError(f"{where}: {('shape', 'strides')[k]}[{i}] = {x} does not fit the "
                                 "32-bit layout the code was compiled for")
            out.append(x)
        if address % self.spec.align:
            have = 1
            while have < self.spec.align and address % (have * 2) == 0:
                have *= 2
            raise TraceError(f"{where} was compiled for data aligned to {self.spec.align} bytes, "
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
        if element != self.spec.element:
            want = ELEMENT_NAMES.get(self.spec.element, self.spec.element)
            raise TraceError(f"{where} was compiled for {want} tensors, got {got}")
        raise TraceError(f"{where} was compiled for tensors of rank {self.rank} "
                         f"(shape {self._text(self.shape)}), got {got} of rank "
                         f"{len(shape)} (shape {tuple(shape)})")


_NUMPY_ELEMENTS: dict = {}  # numpy dtype -> MLIR element type ("" if none)


def _leaf(text: str):
    """(static value or None, divisibility, 64-bit) of a layout leaf."""
    if not text.startswith("?"):
        return int(text), 1, False
    attrs = text[2:-1].split(",") if len(text) > 1 else []
    div = next((int(a[4:]) for a in attrs if a.startswith("div=")), 1)
    return None, div, "i64" in attrs

