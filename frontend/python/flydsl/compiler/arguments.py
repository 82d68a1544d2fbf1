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

    def mark_layout_dynamic(self, leading_dim: int | None = None, divisibility: int = 1):
        """Every shape and stride dynamic except the unit stride of
        `leading_dim` (by default the dimension with stride 1); the extent
        of that dimension and the other strides divisible by `divisibility`."""
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
        for i in range(len(self.shape)) if dims is None else dims:
            self.dynamic_shape[i] = True
            self.div_shape[i] = divisibility
        return self

    def mark_stride_dynamic(self, dims=None, divisibility: int = 1):
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


def describe_array(t, where: str) -> TensorDescriptor:
    """Shape, strides (in elements), element type and address of an array."""
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
