"""The types of traced values (FlyDSL's `fx.typing`): int tuples, layouts,
tiles, tensors, atoms and tiled atoms.

Each object holds an SSA value whose type (a handle of the C++ context)
says everything static about it; its members emit the Fly op of the same
name with the result type C++ infers.
"""

from __future__ import annotations

import enum

from ..compiler.ir import infer
from ..compiler.signature import Constexpr, Stream
from ..compiler.trace import builder
from . import numeric as nm
from ._core import FlyValue, _emit, emit, has_keep, index_operand, lift, mode, register, wrap
from . import _types
from ._types import *  # noqa: F401,F403
from .numeric import Vector

__all__ = ["IntTuple", "Layout", "ComposedLayout", "Swizzle", "Tile", "Tensor", "CopyAtom",
           "MmaAtom", "TiledCopy", "TiledMma", "Vector", "Constexpr", "Stream",
           "ReductionOp"] + _types.__all__


class ReductionOp(enum.Enum):
    """The combining operation of a reduction or scan (fx.coop, Vector.reduce)."""

    ADD = "add"
    MUL = "mul"
    MAX = "max"
    MIN = "min"


@register("int_tuple")
class IntTuple(FlyValue):
    """A shape, stride or coordinate."""

    @property
    def value(self):
        """The Python value: ints, None for dynamic leaves, nested tuples."""
        return self.ir.type.value

    def __getitem__(self, i):
        return mode(self, i)

    def __len__(self):
        v = self.value
        return len(v) if isinstance(v, tuple) else 1

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def to_scalar(self):
        """A leaf as a dynamic Int32/Int64 (or a Python int when static)."""
        v = self.value
        if isinstance(v, int):
            return v
        (r,) = _emit("fly.get_scalar", [self])
        return nm.wrap(r)

    def __add__(self, o): return emit("fly.int_tuple_add", self, o)
    def __radd__(self, o): return emit("fly.int_tuple_add", o, self)
    def __sub__(self, o): return emit("fly.int_tuple_sub", self, o)
    def __mul__(self, o): return emit("fly.int_tuple_mul", self, o)
    def __rmul__(self, o): return emit("fly.int_tuple_mul", o, self)
    def __floordiv__(self, o): return emit("fly.int_tuple_div", self, o)
    def __mod__(self, o): return emit("fly.int_tuple_mod", self, o)


@register("layout")
class Layout(FlyValue):
    @property
    def shape(self):
        return wrap(_emit("fly.get_shape", [self])[0])

    @property
    def stride(self):
        return wrap(_emit("fly.get_stride", [self])[0])

    def __call__(self, *coord):
        return emit("fly.crd2idx", coord if len(coord) != 1 else coord[0], self)


@register("composed_layout")
class ComposedLayout(FlyValue):
    pass


@register("swizzle")
class Swizzle(FlyValue):
    pass


@register("tile")
class Tile(FlyValue):
    pass


@register("memref")
@register("coord_tensor")
class Tensor(FlyValue):
    """A memref (pointer + layout) or a coordinate tensor."""

    @property
    def layout(self):
        return wrap(_emit("fly.get_layout", [self])[0])

    @property
    def shape(self):
        return self.layout.shape

    @property
    def iterator(self):
        return wrap(_emit("fly.get_iter", [self])[0])

    @property
    def element_type(self):
        return nm.numeric_class(str(self.ir.type.element_type))

    @property
    def is_coord_tensor(self):
        return self.ir.type.kind == "coord_tensor"

    def __getitem__(self, coord):
        if has_keep(coord):
            return emit("fly.slice", self, coord)
        if self.is_coord_tensor:
            # The value of a coordinate tensor at `coord`: its base moved.
            return emit("fly.slice", self, coord).iterator
        c = index_operand(coord)
        (v,) = builder().op("fly.memref.load", [self.ir, c.ir if isinstance(c, FlyValue) else c.ir],
                            [self.ir.type.element_type])
        return nm.wrap(v)

    def __setitem__(self, coord, value):
        c = index_operand(coord)
        v = nm.convert(value, self.element_type)
        builder().op("fly.memref.store", [v.ir, self.ir, c.ir])

    def load(self):
        """The whole tensor as a vector (element i at the layout's 1-D index i)."""
        (t,) = infer("fly.memref.load_vec", [self.ir])
        (v,) = builder().op("fly.memref.load_vec", [self.ir], [t])
        return nm.Vector(v, self.element_type)

    def store(self, vector):
        builder().op("fly.memref.store_vec", [vector.ir, self.ir])

    def fill(self, x):
        (t,) = infer("fly.memref.load_vec", [self.ir])
        scalar = nm.convert(x, self.element_type)
        (v,) = builder().op("vector.broadcast", [scalar.ir], [t])
        self.store(nm.Vector(v, self.element_type))


@register("copy_atom")
class CopyAtom(FlyValue):
    pass


@register("mma_atom")
class MmaAtom(FlyValue):
    pass


@register("tiled_copy")
class TiledCopy(FlyValue):
    def get_slice(self, thr_idx) -> "ThrCopy":
        return ThrCopy(self, thr_idx)

    def retile(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.retile", self, tensor)


class ThrCopy:
    """One thread's view of a tiled copy."""

    def __init__(self, tiled: TiledCopy, thr_idx):
        self.tiled = tiled
        self.thr_idx = nm.convert(thr_idx, nm.Int32) if isinstance(thr_idx, nm.Numeric) else lift(thr_idx)

    def partition_S(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.partition_src", self.tiled, tensor, self.thr_idx)

    def partition_D(self, tensor: Tensor) -> Tensor:
        return emit("fly.tiled_copy.partition_dst", self.tiled, tensor, self.thr_idx)

    def retile(self, tensor: Tensor) -> Tensor:
        return self.tiled.retile(tensor)


@register("tiled_mma")
class TiledMma(FlyValue):
    def get_slice(self, thr_idx) -> "ThrMma":
        return ThrMma(self, thr_idx)

    thr_slice = get_slice

    def set(self, field: str, value) -> "TiledMma":
        """The tiled MMA with a run-time field of its atom set
        (atom.set_value), e.g. `set("accumulate", k > 0)`."""
        v = nm.convert(value, nm.Boolean)
        (r,) = builder().op("fly.atom.set_value", [self.ir, v.ir], [self.ir.type],
                            f'field = "{field}"')
        return TiledMma(r)


class ThrMma:
    def __init__(self, tiled: TiledMma, thr_idx):
        self.tiled = tiled
        self.thr_idx = nm.convert(thr_idx, nm.Int32) if isinstance(thr_idx, nm.Numeric) else lift(thr_idx)

    def _partition(self, tensor, operand):
        return emit("fly.tiled_mma.partition", self.tiled, tensor, self.thr_idx,
                    attrs=f'operand = "{operand}"')

    def partition_A(self, t): return self._partition(t, "A")
    def partition_B(self, t): return self._partition(t, "B")
    def partition_C(self, t): return self._partition(t, "C")

    def _fragment(self, t, operand):
        return emit("fly.mma.make_fragment", self.tiled, t, attrs=f'operand = "{operand}"')

    def make_fragment_A(self, t): return self._fragment(t, "A")
    def make_fragment_B(self, t): return self._fragment(t, "B")
    def make_fragment_C(self, t): return self._fragment(t, "C")
