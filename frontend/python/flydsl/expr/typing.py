"""The types of traced values (FlyDSL's `fx.typing`): int tuples, layouts,
swizzles, tiles, pointers, tensors, atoms and tiled atoms.

Each object holds an SSA value whose type (a handle of the C++ context)
says everything static about it; its members emit the Fly op of the same
name with the result type C++ infers, or read the type (`rank`, a tiled
copy's `tile_mn`) through C++'s type queries.
"""

from __future__ import annotations

import enum

from ..tracing.signature import Constexpr, Stream
from ..tracing.trace import builder
from . import _core
from . import numeric as nm
from ._core import FlyValue, _emit, emit, fail, register, static_value
from ._ir_types import AddressSpace, MmaOperand, _split_tile, space_name, wrap_type
from ._late import late
from . import _types
from ._types import *  # noqa: F401,F403
from .numeric import Vector
# FlyDSL's typing module also holds the numeric classes and the raw-value
# arithmetic (outside its __all__); kernels import them from here.
from .numeric import (  # noqa: F401
    BFloat16, Boolean, Float, Float4E2M1FN, Float6E2M3FN, Float6E3M2FN, Float8E4M3,
    Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E8M0FNU, Float16, Float32,
    Float64, Index, Int4, Int8, Int16, Int32, Int64, Int128, Integer, Numeric, Uint8, Uint16,
    Uint32, Uint64, Uint128, as_numeric)
from .utils.arith import ArithValue, _to_raw, element_type  # noqa: F401

__all__ = ["IntTuple", "Layout", "Swizzle", "ComposedLayout", "Pointer", "Tensor", "CopyAtom",
           "MmaAtom", "Tile", "TiledCopy", "TiledMma", "Vector", "Constexpr", "Stream", "Tuple3D",
           "Basis", "E", "is_generic_address_space", "is_target_address_space",
           "ReductionOp"] + _types.__all__


class ReductionOp(enum.Enum):
    """The combining operation of a reduction or scan (fx.coop, Vector.reduce)."""

    ADD = "add"
    MUL = "mul"
    MAX = "max"
    MIN = "min"


# -- address spaces -------------------------------------------------------------

def _as_address_space(space):
    if isinstance(space, AddressSpace):
        return space
    if isinstance(space, int) and not isinstance(space, bool):
        if space not in {s.value for s in AddressSpace}:
            fail("is_generic_address_space", f"{space} is not an fx.AddressSpace value")
        return AddressSpace(space)
    name = space_name(space)
    for s in AddressSpace:
        if name == str(s):
            return s
    return space


def is_generic_address_space(address_space, expected: AddressSpace) -> bool:
    """True when `address_space` is the generic (target-neutral) space
    `expected` (an fx.AddressSpace)."""
    if not isinstance(expected, AddressSpace):
        fail("is_generic_address_space", f"expected must be an fx.AddressSpace, not {expected!r}")
    return _as_address_space(address_space) == expected


def is_target_address_space(address_space, expected) -> bool:
    """True when `address_space` is the target's space `expected` (an
    attribute such as `#fly_rocdl.buffer_desc`, by its text)."""
    if isinstance(expected, AddressSpace):
        fail("is_target_address_space", "expected is a generic fx.AddressSpace: use "
             "is_generic_address_space")
    actual = _as_address_space(address_space)
    return not isinstance(actual, AddressSpace) and str(actual) == str(expected)


# -- basis leaves --------------------------------------------------------------------

class Basis:
    """A scaled basis element `value E<modes>`: a stride of an identity
    layout, whose images are coordinates (`1E0`, `2E1E0`)."""

    def __init__(self, value, modes):
        if isinstance(value, Basis):
            value = value.value
        modes = list(modes) if isinstance(modes, (tuple, list)) else [modes]
        if not modes or any(isinstance(m, bool) or not isinstance(m, int) or m < 0 for m in modes):
            fail("Basis", f"modes are one or more non-negative ints, not {modes!r}")
        self.value = value
        self.modes = modes

    def __mul__(self, other):
        if isinstance(other, bool) or not isinstance(other, (int, nm.Integer)):
            fail("Basis", f"a basis scales by an integer, not {other!r}")
        return Basis(self.value * other, self.modes)

    __rmul__ = __mul__

    def __eq__(self, other):
        if not isinstance(other, Basis) or self.modes != other.modes:
            return False
        if isinstance(self.value, int) and isinstance(other.value, int):
            return self.value == other.value
        return self.value is other.value

    def __hash__(self):
        return hash((repr(self.value), tuple(self.modes)))

    def __repr__(self):
        return f"{self.value}" + "".join(f"E{m}" for m in self.modes)

    def __int_tuple_pattern__(self, leaves):
        """Its int_tuple leaf text (value E<m0>E<m1>...), its dynamic scale
        collected into `leaves` (_core._pattern's protocol)."""
        scale = _core._pattern(self.value, leaves)
        if scale.startswith("(") or scale == "*":
            fail("Basis", f"a basis leaf scales by an integer, not {self.value!r}")
        return scale + "".join(f"E{m}" for m in self.modes)


def E(*mode):
    """The unit basis stride along a mode path: E(0) is 1E0, E(0, 1) 1E0E1;
    E() is 1."""
    if len(mode) == 1 and isinstance(mode[0], (list, tuple)):
        mode = tuple(mode[0])
    if not mode:
        return 1
    if any(isinstance(m, bool) or not isinstance(m, int) or m < 0 for m in mode):
        fail("E", f"modes are non-negative ints, not {mode!r}")
    return Basis(1, list(mode))


def _leaf_py(text):
    """A static leaf of Type.value as Python: an int, None for `*`, a Basis
    for a basis leaf (`2E1E0`)."""
    if isinstance(text, int) or text is None:
        return text
    if text == "*":
        return None
    head, *modes = text.split("E")
    return Basis(int(head) if head not in ("", "?") else None, [int(m) for m in modes])


class Tuple3D:
    """x, y, z of a 3-D id (thread_idx, block_idx, ...) made on use by
    `factory(name)`, as `dtype`."""

    def __init__(self, factory, dtype=nm.Int32):
        self.factory = factory
        self.dtype = dtype

    def __getattr__(self, name):
        if name in ("x", "y", "z"):
            v = self.factory(name)
            return v if isinstance(v, self.dtype) else nm.convert(v, self.dtype)
        raise AttributeError(name)

    def __iter__(self):
        return iter((self.x, self.y, self.z))


# -- the value classes ------------------------------------------------------------------

class _Typed(FlyValue):
    """Members every Fly value shares: its type as FlyDSL's type class."""

    @property
    def type(self):
        return wrap_type(self.ir.type)

    def __str__(self) -> str:
        t = str(self.ir.type)
        return f"{type(self).__name__}{t[t.find('<'):t.rfind('>') + 1]}"

    def _query(self, op: str) -> int:
        return wrap_type(self.ir.type)._query(op)

    @property
    def is_static(self) -> bool:
        return self.ir.type.is_static


class _Ranked(_Typed):
    """A value with modes: an int tuple, a layout, a composed layout."""

    @property
    def rank(self) -> int:
        return self._query("fly.rank")

    @property
    def depth(self) -> int:
        return self._query("fly.depth")


def _check_mode(x, mode, what):
    first = mode[0] if isinstance(mode, (tuple, list)) else mode
    if isinstance(first, bool) or not isinstance(first, int):
        fail(f"{what}[]", f"a mode index is a Python int (or a path of them), not {mode!r}")
    if not -x.rank <= first < x.rank:
        raise IndexError(f"index {first} out of range for {what} of rank {x.rank}")
    if first < 0:
        mode = (first + x.rank,) + tuple(mode[1:]) if isinstance(mode, (tuple, list)) else first + x.rank
    return mode


@register("int_tuple")
class IntTuple(_Ranked):
    """A shape, stride or coordinate."""

    @property
    def value(self):
        """The Python value of the type: ints, None for dynamic leaves."""
        return self.ir.type.value

    @property
    def is_leaf(self) -> bool:
        return not isinstance(self.value, tuple)

    @property
    def get_static_leaf_int(self) -> int:
        v = self.value
        if not isinstance(v, int):
            fail("IntTuple.get_static_leaf_int", f"{self} is not a static integer leaf")
        return v

    def to_py_value(self):
        """The tuple as Python values: ints for static leaves, Int32/Int64
        for dynamic ones, Basis for basis leaves, nested tuples."""
        value = self.value
        if self.ir.type.is_static:
            return _map_leaves(value, _leaf_py)
        dynamic = iter(_core.dynamic_leaves(self))
        return _map_leaves(value, lambda leaf: next(dynamic) if leaf is None else _leaf_py(leaf),
                           dynamic_basis=lambda leaf: Basis(next(dynamic), _leaf_py(
                               leaf.replace("?", "1")).modes))

    def unpack(self):
        return self.to_py_value()

    def to_scalar(self):
        """A leaf as a Python int (static) or a dynamic Int32/Int64."""
        v = self.value
        if isinstance(v, int):
            return v
        if isinstance(v, tuple):
            fail("IntTuple.to_scalar", f"{self} is a tuple, not one integer")
        (r,) = _emit("fly.get_scalar", [self])
        return nm.wrap(r)

    def __getitem__(self, mode):
        return _core.mode(self, _check_mode(self, mode, "IntTuple"))

    def __len__(self):
        return self.rank

    def __iter__(self):
        return (self[i] for i in range(self.rank))

    def __index__(self):
        v = self.value
        if not isinstance(v, int):
            fail("IntTuple", f"{self} used as a Python int: it is not a static integer")
        return v

    __int__ = __index__

    def __add__(self, o): return emit("fly.int_tuple_add", self, o)
    def __radd__(self, o): return emit("fly.int_tuple_add", o, self)
    def __sub__(self, o): return emit("fly.int_tuple_sub", self, o)
    def __rsub__(self, o): return emit("fly.int_tuple_sub", o, self)
    def __mul__(self, o): return emit("fly.int_tuple_mul", self, o)
    def __rmul__(self, o): return emit("fly.int_tuple_mul", o, self)
    def __floordiv__(self, o): return emit("fly.int_tuple_div", self, o)
    def __mod__(self, o): return emit("fly.int_tuple_mod", self, o)


def _map_leaves(value, f, dynamic_basis=None):
    if isinstance(value, tuple):
        return tuple(_map_leaves(v, f, dynamic_basis) for v in value)
    if dynamic_basis is not None and isinstance(value, str) and value.startswith("?"):
        return dynamic_basis(value)
    return f(value)


@register("tile")
class Tile(_Typed):
    """A by-mode tiler: ints, `*` (keep) and layouts."""

    @property
    def rank(self) -> int:
        return wrap_type(self.ir.type).rank

    def unpack(self):
        """Each mode as Python: an int for `N` (N:1), None for `*`, a Layout,
        a tuple for a nested tiler."""
        return tuple(_tile_mode(m) for m in _core.tile_modes(self.ir.type))


def _tile_mode(text: str):
    if text == "*":
        return None
    if text.startswith("["):
        return tuple(_tile_mode(m) for m in _split_tile(text))
    if ":" in text:
        return static_value(f"!fly.layout<{text}>")
    return int(text)


class _LayoutLike(_Ranked):
    @property
    def is_leaf(self) -> bool:
        return self.depth == 0

    @property
    def shape(self) -> IntTuple:
        return emit("fly.get_shape", self) if self.ir.type.kind == "layout" else emit(
            "fly.get_shape", self.outer)

    def __getitem__(self, mode):
        return _core.mode(self, _check_mode(self, mode, type(self).__name__))

    def __call__(self, *coord):
        coord = coord[0] if len(coord) == 1 else coord
        if _core.has_keep(coord) or (isinstance(coord, IntTuple) and "*" in str(coord.ir.type)):
            return emit("fly.slice", self, coord)
        return emit("fly.crd2idx", coord, self)


@register("layout")
class Layout(_LayoutLike):
    """A CuTe layout: coordinate -> index."""

    @property
    def stride(self) -> IntTuple:
        return emit("fly.get_stride", self)

    @property
    def is_static_shape(self) -> bool:
        return self.shape.is_static

    @property
    def is_static_stride(self) -> bool:
        return self.stride.is_static

    def get_hier_coord(self, index):
        return late.idx2crd(index, self)

    def get_flat_coord(self, index):
        return late.get_flat_coord(index, self)

    def get_1d_coord(self, index):
        return late.get_1d_coord(index, self)


@register("composed_layout")
class ComposedLayout(_LayoutLike):
    """inner(offset + outer(c)): a swizzle, coordinate swizzle or layout
    after a layout; composing composed layouts makes one chain."""

    @property
    def shape(self) -> IntTuple:
        return self.outer.shape

    @property
    def stride(self):
        fail("ComposedLayout.stride", "a composed layout has no stride (its outer layout has)")

    def _part(self, name):
        members = self.ir.type.members
        if name not in members:
            fail(f"ComposedLayout.{name}", f"{self.ir.type} has no {name} part: the function "
                 "before its outer layout is a swizzle, not a layout")
        return static_value(members[name]) if self.ir.type.is_static else fail(
            f"ComposedLayout.{name}", "the parts of a dynamic composed layout are not supported")

    @property
    def inner(self):
        return self._part("inner")

    @property
    def offset(self) -> IntTuple:
        return self._part("offset")

    @property
    def outer(self):
        return self._part("outer")

    @property
    def is_static_inner(self) -> bool:
        return self.ir.type.members["inner"].is_static

    @property
    def is_static_offset(self) -> bool:
        return self.ir.type.members["offset"].is_static

    @property
    def is_static_outer(self) -> bool:
        return self.ir.type.members["outer"].is_static


@register("swizzle")
class Swizzle(_Typed):
    """CuTe's Swizzle<mask bits, base, shift>."""

    mask = property(lambda self: self.ir.type.members["mask"])
    base = property(lambda self: self.ir.type.members["base"])
    shift = property(lambda self: self.ir.type.members["shift"])


@register("coord_swizzle")
class CoordSwizzle(_Typed):
    """A swizzle of coordinates (CoordSwizzleType): `fx.crd2idx(crd, cs)`
    is the coordinate swizzled."""

    mask = property(lambda self: self.ir.type.members["mask"])
    base_row = property(lambda self: self.ir.type.members["base_row"])
    mode_row = property(lambda self: list(self.ir.type.members["mode_row"]))
    base_col = property(lambda self: self.ir.type.members["base_col"])
    mode_col = property(lambda self: list(self.ir.type.members["mode_col"]))


class _Memory(_Typed):
    """What pointers and memrefs share: element type, space, alignment."""

    @property
    def element_type(self):
        return nm.numeric_class(str(self.ir.type.element_type))

    dtype = element_type
    value_type = element_type

    @property
    def address_space(self):
        return _as_address_space(self.ir.type.address_space)

    memspace = address_space

    @property
    def alignment(self) -> int:
        return self.ir.type.members["alignment"]


@register("ptr")
class Pointer(_Memory):
    """A typed address in an address space."""

    @property
    def llvm_ptr(self):
        return late.to_llvm_ptr(self)

    def load(self, dtype=None):
        """The element here, or a vector of consecutive elements (`dtype` a
        vector type such as fx.Int32x4)."""
        return late.ptr_load(self, result_type=dtype)

    def store(self, value):
        return late.ptr_store(value, self)

    def __getitem__(self, offset):
        return (self + offset).load()

    def __setitem__(self, offset, value):
        (self + offset).store(value)

    def __add__(self, offset):
        return late.add_offset(self, offset)

    __radd__ = __add__

    def __sub__(self, offset):
        if isinstance(offset, int) and not isinstance(offset, bool):
            return late.add_offset(self, -offset)
        if isinstance(offset, nm.Numeric):
            return late.add_offset(self, -offset)
        fail("Pointer -", f"the offset is an integer, not {offset!r}")

    def view(self, layout):
        """The tensor of this pointer and `layout`."""
        return late.make_view(self, layout)


@register("memref")
@register("coord_tensor")
class Tensor(_Memory):
    """A memref (pointer + layout) or a coordinate tensor (its value at c
    is base + layout(c))."""

    @property
    def is_coord_tensor(self) -> bool:
        return self.ir.type.kind == "coord_tensor"

    @property
    def element_type(self):
        if self.is_coord_tensor:
            fail("Tensor.element_type", "a coordinate tensor has no element type")
        return nm.numeric_class(str(self.ir.type.element_type))

    dtype = element_type
    value_type = element_type

    @property
    def alignment(self) -> int:
        if self.is_coord_tensor:
            fail("Tensor.alignment", "a coordinate tensor has no alignment")
        return self.ir.type.members["alignment"]

    @property
    def leading_dim(self):
        return wrap_type(self.ir.type).leading_dim

    @property
    def layout(self):
        return emit("fly.get_layout", self)

    @property
    def iterator(self):
        return emit("fly.get_iter", self)

    @property
    def shape(self) -> IntTuple:
        return self.layout.shape

    @property
    def stride(self) -> IntTuple:
        return self.layout.stride

    @property
    def rank(self) -> int:
        return self._query("fly.rank")

    def __getitem__(self, coord):
        if _core.has_keep(coord):
            return emit("fly.slice", self, coord)
        return late.memref_load(self, coord)

    def __setitem__(self, coord, value):
        if _core.has_keep(coord):
            self[coord].store(value)
            return
        late.memref_store(value, self, coord)

    def load(self):
        """The whole tensor as a vector (element i at the layout's 1-D index i)."""
        return late.memref_load_vec(self)

    def store(self, vector):
        return late.memref_store_vec(vector, self)

    def fill(self, value):
        """Every element set to `value`."""
        (t,) = _core.infer_types("fly.memref.load_vec", [self])
        scalar = nm.convert(value, self.element_type) if isinstance(value, nm.Numeric) else nm.constant(
            value, self.element_type)
        (v,) = builder().op("vector.broadcast", [scalar.ir], [t])
        self.store(nm.wrap(v))


# -- atoms ------------------------------------------------------------------------------

class _Atom(_Typed):
    def _member(self, name):
        return static_value(self.ir.type.members[name])

    def set_value(self, field, value=None):
        """The atom with its run-time field `field` set (a dict sets several)."""
        if isinstance(field, dict):
            result = self
            for k, v in field.items():
                result = late.atom_set_value(result, k, v)
            return result
        return late.atom_set_value(self, field, value)


@register("copy_atom")
class CopyAtom(_Atom):
    val_bits = property(lambda self: self.ir.type.members["val_bits"])
    thr_layout = property(lambda self: self._member("thr_layout"))
    thr_id = thr_layout
    layout_src_tv = property(lambda self: self._member("layout_src_tv"))
    layout_dst_tv = property(lambda self: self._member("layout_dst_tv"))
    layout_ref_tv = property(lambda self: self._member("layout_ref_tv"))


@register("mma_atom")
class MmaAtom(_Atom):
    thr_layout = property(lambda self: self._member("thr_layout"))
    thr_id = thr_layout
    shape_mnk = property(lambda self: self._member("shape_mnk"))
    layout_A_tv = property(lambda self: self._member("layout_A_tv"))
    layout_B_tv = property(lambda self: self._member("layout_B_tv"))
    layout_C_tv = property(lambda self: self._member("layout_C_tv"))


@register("tiled_copy")
class TiledCopy(_Atom):
    """A copy atom tiled over a thread-value layout of a tile."""

    tile_mn = property(lambda self: self._member("tile"))
    layout_tv_tiled = property(lambda self: self._member("layout_tv"))
    # (thread, (AtomVal, RestVal)) -> tile index in the source's and the
    # destination's own thread and value order.
    layout_src_tv_tiled = property(lambda self: self._member("layout_src_tv_tiled"))
    layout_dst_tv_tiled = property(lambda self: self._member("layout_dst_tv_tiled"))

    @property
    def copy_atom(self):
        return self._member("atom")

    def get_slice(self, thr_idx):
        """Thread `thr_idx`'s view (partition_S / partition_D)."""
        return late.ThrCopy(self, thr_idx)

    def thr_slice(self, thr_idx):
        return self.get_slice(thr_idx)

    def retile(self, t):
        return late.tiled_copy_retile(self, t)


@register("tiled_mma")
class TiledMma(_Atom):
    """An MMA atom tiled over a layout of atoms."""

    @property
    def mma_atom(self):
        return self._member("atom")

    atom_layout = property(lambda self: self._member("atom_layout"))
    permutation_mnk = property(lambda self: self._member("permutation"))
    tile_size_mnk = property(lambda self: self._member("tile_size_mnk"))
    thr_layout_vmnk = property(lambda self: self._member("thr_layout_vmnk"))
    tv_layout_A_tiled = property(lambda self: self._member("tv_layout_A_tiled"))
    tv_layout_B_tiled = property(lambda self: self._member("tv_layout_B_tiled"))
    tv_layout_C_tiled = property(lambda self: self._member("tv_layout_C_tiled"))

    def get_slice(self, thr_idx):
        """Thread `thr_idx`'s view (partition_A/B/C)."""
        return late.ThrMma(self, thr_idx)

    def thr_slice(self, thr_idx):
        return self.get_slice(thr_idx)

    def make_fragment_A(self, a, *, stages=None):
        return late.mma_make_fragment(MmaOperand.A, self, a, stages=stages)

    def make_fragment_B(self, b, *, stages=None):
        return late.mma_make_fragment(MmaOperand.B, self, b, stages=stages)

    def make_fragment_C(self, c, *, stages=None):
        return late.mma_make_fragment(MmaOperand.C, self, c, stages=stages)

    def set(self, field: str, value):
        """The tiled MMA with a run-time field of its atom set, e.g.
        `set("accumulate", k > 0)` (same as set_value)."""
        return self.set_value(field, value)

