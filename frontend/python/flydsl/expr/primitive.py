"""The primitive operations of traced code (FlyDSL's `fx.primitive`): the
Fly dialect's enums and type classes, the target-neutral atoms, the layout
algebra (SPEC §2.3), pointers, tensors and views, atoms, tiled copies and
MMAs, the copy/gemm algorithms and printf.

Each function emits the Fly op of the same name on its operands (Python
ints and tuples lifted to int tuples, tuples of ints/None/layouts to tiles
where a tiler is expected), with the result type C++ infers. A wrong kind
of argument is a TraceError naming the function and the argument.
"""

from __future__ import annotations

from .. import _fly
from ..tracing.trace import Trace, builder
from . import _core
from . import numeric as nm
from ._core import (FlyValue, describe, emit, expect, fail, from_ir, int_tuple, static_value,
                    wrap)
from ._ir_types import (AddressSpace, AtomicOp, BasisType, CachePolicy, ComposedLayoutType,
                        CoordSwizzleType, CoordTensorType, CopyAtomType, CopyOpUniversalAtomicType,
                        CopyOpUniversalCopyType, GemmTraversalOrder, IntTupleType,
                        LayoutType, MemRefType, MmaAtomType, MmaOperand, MmaOpUniversalFMAType,
                        PointerType, SwizzleType, TiledCopyType, TiledMmaType, TileType,
                        element_type_text, handle, space_name)
from ._late import late, provide
from ._printf import printf
from .typing import Basis, IntTuple, Layout, MmaAtom, Tensor, TiledMma

__all__ = [
    # enums
    "AtomicOp", "AddressSpace", "CachePolicy", "MmaOperand", "GemmTraversalOrder",
    # types
    "IntTupleType", "BasisType", "TileType", "LayoutType", "SwizzleType", "CoordSwizzleType",
    "ComposedLayoutType", "PointerType", "MemRefType", "CoordTensorType", "CopyAtomType",
    "MmaAtomType", "TiledCopyType", "TiledMmaType", "CopyOpUniversalCopyType",
    "CopyOpUniversalAtomicType", "MmaOpUniversalFMAType",
    # target-neutral operations
    "UniversalCopy", "UniversalCopy8b", "UniversalCopy16b", "UniversalCopy32b", "UniversalCopy64b",
    "UniversalCopy128b", "UniversalAtomic", "UniversalAtomicAdd", "UniversalAtomicMax",
    "UniversalAtomicMin", "UniversalAtomicAnd", "UniversalAtomicOr", "UniversalAtomicInc",
    "UniversalAtomicDec", "UniversalFMA",
    # trace-time helpers
    "const_expr", "range_constexpr", "rank", "depth", "has_none",
    # construction and extraction
    "static", "make_int_tuple", "make_shape", "make_stride", "make_coord", "make_layout",
    "make_layout_like", "make_ordered_layout", "make_composed_layout", "make_identity_layout",
    "make_view", "make_fragment_layout_like", "make_fragment_like", "get_scalar", "get_leaves",
    "get_shape", "get_stride", "get_layout", "get_iter", "composed_get_inner",
    "composed_get_offset", "composed_get_outer",
    # tuple arithmetic
    "int_tuple_add", "int_tuple_sub", "int_tuple_mul", "int_tuple_div", "int_tuple_mod",
    "int_tuple_product", "int_tuple_product_each", "int_tuple_product_like", "shape_div",
    "ceil_div", "elem_less", "equal",
    # modes
    "get", "get_", "take", "select", "group", "append", "prepend", "slice", "dice",
    # queries and the algebra
    "size", "coprofile", "coshape", "cosize", "crd2idx", "idx2crd", "get_flat_coord",
    "get_1d_coord", "coalesce", "composition", "complement", "right_inverse", "left_inverse",
    "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product",
    "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product",
    "recast_layout", "tile_to_shape",
    # atoms, tiled atoms, algorithms
    "make_mma_atom", "make_copy_atom", "atom_set_value", "copy_atom_call", "mma_atom_call",
    "make_tiled_copy", "make_tiled_mma", "tiled_copy_partition_src", "tiled_copy_partition_dst",
    "tiled_copy_retile", "tiled_mma_partition", "tiled_mma_partition_shape",
    "mma_make_fragment", "copy", "gemm",
    # pointers and memory
    "make_ptr", "get_dyn_shared", "inttoptr", "ptrtoint", "to_llvm_ptr", "add_offset",
    "apply_swizzle", "ptr_load", "ptr_store", "recast_iter", "memref_alloca", "memref_load_vec",
    "memref_store_vec", "memref_load", "memref_store",
    "printf", "assume", "make_tile",
    # this product's helpers (not FlyDSL names)
    "make_identity_tensor", "make_swizzle",
]

_INT_TUPLE = ("int_tuple",)
_LAYOUT = ("layout",)
_ANY_LAYOUT = ("layout", "composed_layout")
_TENSOR = ("memref", "coord_tensor")
_MEMREF = ("memref",)
_PTR = ("ptr",)


def _tuple_arg(api, name, x):
    """An int tuple from an IntTuple or Python ints/None/numerics/tuples (a
    raw integer value, an ArithValue, as its numeric)."""
    x = nm.lift(x)
    if isinstance(x, FlyValue):
        return expect(api, name, x, _INT_TUPLE)
    if isinstance(x, (int, tuple, list, nm.Numeric, Basis)) or x is None:
        if isinstance(x, nm.Vector):
            fail(api, f"argument '{name}' must be an int tuple, not a Vector")
        return int_tuple(x)
    fail(api, f"argument '{name}' must be an int tuple (ints, None, dynamic integers, "
              f"tuples), not {describe(x)}")


def _tiler_arg(api, name, x):
    """A layout or tile from a Layout/Tile or a tuple of ints/None/layouts."""
    if isinstance(x, FlyValue):
        if x.ir.type.kind == "int_tuple" and x.ir.type.is_static:
            return make_tile(*(x.value if isinstance(x.value, tuple) else (x.value,)))
        return expect(api, name, x, ("layout", "tile"))
    if isinstance(x, (int, tuple, list)) and not isinstance(x, bool):
        return make_tile(*x) if isinstance(x, (tuple, list)) else make_tile(x)
    fail(api, f"argument '{name}' must be a Layout, a Tile or a tuple of ints, None and "
              f"layouts, not {describe(x)}")


def _layout_arg(api, name, x, kinds=_LAYOUT):
    return expect(api, name, x, kinds)


def _static_int(api, name, x):
    """A Python int, or the value of a static integer numeric (fx.Int32(4),
    or arithmetic on such values, folded at trace time)."""
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector) and x.is_static() \
            and type(x).is_integer and type(x) is not nm.Boolean:
        return int(x.host_value)
    if isinstance(x, bool) or not isinstance(x, int):
        fail(api, f"argument '{name}' must be a Python int, not {describe(x)}")
    return x


def _bits_of(api, name, t):
    """A bit width from an int, a numeric type or a type handle."""
    if isinstance(t, int) and not isinstance(t, bool):
        return t
    bits = getattr(t, "bits", None)
    if isinstance(bits, int):
        return bits
    h = handle(t)
    width = getattr(h, "bit_width", None)
    if isinstance(width, int):
        return width
    fail(api, f"argument '{name}' must be a bit width (an int) or a numeric type, not {describe(t)}")


# -- target-neutral operations (SPEC §4) -----------------------------------------------

def UniversalCopy(bit_size):
    """A copy of `bit_size` contiguous bits by one thread."""
    return CopyOpUniversalCopyType.get(bit_size)


def UniversalCopy8b(): return CopyOpUniversalCopyType.get(8)
def UniversalCopy16b(): return CopyOpUniversalCopyType.get(16)
def UniversalCopy32b(): return CopyOpUniversalCopyType.get(32)
def UniversalCopy64b(): return CopyOpUniversalCopyType.get(64)
def UniversalCopy128b(): return CopyOpUniversalCopyType.get(128)


def UniversalAtomic(atomic_op, val_type, syncscope=""):
    """An atomic read-modify-write copy: the destination combined with the
    source by `atomic_op` (an fx.AtomicOp) on elements of `val_type`."""
    return CopyOpUniversalAtomicType.get(atomic_op, val_type, syncscope)


def UniversalAtomicAdd(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Add, val_type, syncscope)
def UniversalAtomicMax(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Max, val_type, syncscope)
def UniversalAtomicMin(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Min, val_type, syncscope)
def UniversalAtomicAnd(val_type, syncscope=""): return UniversalAtomic(AtomicOp.And, val_type, syncscope)
def UniversalAtomicOr(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Or, val_type, syncscope)
def UniversalAtomicInc(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Inc, val_type, syncscope)
def UniversalAtomicDec(val_type, syncscope=""): return UniversalAtomic(AtomicOp.Dec, val_type, syncscope)


def UniversalFMA(ty):
    """d = a * b + c by one thread, all of type `ty`."""
    return MmaOpUniversalFMAType.get(ty)


# -- trace-time helpers ------------------------------------------------------------------

def const_expr(x):
    """A condition evaluated at trace time."""
    return x


def range_constexpr(*args):
    """A loop unrolled at trace time (a plain Python range of 1 to 3 ints)."""
    if not 1 <= len(args) <= 3:
        fail("range_constexpr", f"takes 1 to 3 ints (start, stop, step), got {len(args)} arguments")
    return range(*(_static_int("range_constexpr", n, a)
                   for n, a in zip(("start", "stop", "step") if len(args) > 1 else ("stop",), args)))


def _py_depth(x):
    if isinstance(x, (tuple, list)):
        return 1 + max((_py_depth(e) for e in x), default=0)
    return 0


def rank(int_or_tuple) -> int:
    """The number of top-level modes (1 for a leaf)."""
    if isinstance(int_or_tuple, int):
        return 1
    if isinstance(int_or_tuple, (tuple, list)):
        return len(int_or_tuple)
    x = expect("rank", "int_or_tuple", int_or_tuple,
               ("int_tuple", "layout", "composed_layout", "memref", "coord_tensor", "tile"))
    if x.ir.type.kind == "tile":
        return x.rank
    return emit("fly.rank", x).value


def depth(int_or_tuple) -> int:
    """The nesting depth (0 for a leaf)."""
    if isinstance(int_or_tuple, (int, tuple, list)):
        return _py_depth(int_or_tuple)
    x = expect("depth", "int_or_tuple", int_or_tuple,
               ("int_tuple", "layout", "composed_layout", "memref", "coord_tensor"))
    return emit("fly.depth", x).value


def has_none(x) -> bool:
    """True when an int tuple (or Python tuple) has a `*` (None) leaf."""
    if isinstance(x, FlyValue):
        return "*" in str(x.ir.type)
    return _core.has_keep(x)


# -- construction -------------------------------------------------------------------------

def static(result_type):
    """The value of a static type (all of it is in the type)."""
    h = handle(result_type)
    if not isinstance(h, _fly.Type) or not h.is_static:
        fail("static", f"{result_type!r} is not a static fly type")
    return static_value(h)


def make_int_tuple(elems) -> IntTuple:
    """An int tuple from ints, dynamic integers, None (`*`), Basis leaves and
    nested tuples."""
    return _tuple_arg("make_int_tuple", "elems", elems)


def _make_tuple(op, api, name, elems):
    if len(elems) == 1 and isinstance(elems[0], FlyValue):
        return expect(api, name, elems[0], _INT_TUPLE)
    operands = []
    for e in elems:
        if isinstance(e, nm.Numeric) and not isinstance(e, nm.Vector):
            operands.append(e if e.mlir_type in ("i32", "i64") else nm.convert(e, nm.Int32))
        else:
            operands.append(_tuple_arg(api, name, e))
    return emit(op, *operands)


def make_shape(*shape) -> IntTuple:
    return _make_tuple("fly.make_shape", "make_shape", "shape", shape)


def make_stride(*stride) -> IntTuple:
    return _make_tuple("fly.make_stride", "make_stride", "stride", stride)


def make_coord(*coord) -> IntTuple:
    return _make_tuple("fly.make_coord", "make_coord", "coord", coord)


def make_layout(shape, stride=None) -> Layout:
    """The layout shape:stride (a shape alone: compact column-major, an
    extension of FlyDSL's)."""
    shape = shape if isinstance(shape, FlyValue) and shape.ir.type.kind == "layout" else _tuple_arg(
        "make_layout", "shape", shape)
    if shape.ir.type.kind == "layout":
        return shape if stride is None else fail("make_layout", "argument 'shape' is a Layout")
    if stride is None:
        return emit("fly.make_layout", shape)
    return emit("fly.make_layout", shape, _tuple_arg("make_layout", "stride", stride))


def make_layout_like(ref):
    """A compact layout with `ref`'s shape and stride order."""
    return emit("fly.make_layout_like", expect("make_layout_like", "ref", ref, _LAYOUT))


def make_ordered_layout(shape, order):
    """The compact layout of `shape` whose modes are ordered by `order`
    (the smallest order has stride 1)."""
    return emit("fly.make_ordered_layout", _tuple_arg("make_ordered_layout", "shape", shape),
                _tuple_arg("make_ordered_layout", "order", order))


def make_composed_layout(inner, offset_or_outer, outer=None):
    """inner(offset + outer(c)); `make_composed_layout(inner, outer)` takes
    the zero offset. Either side may be a composed layout: the result is one
    chain of functions."""
    inner = expect("make_composed_layout", "inner", inner,
                   ("swizzle", "layout", "coord_swizzle", "composed_layout"))
    if outer is None:
        outer = expect("make_composed_layout", "offset_or_outer", offset_or_outer, _ANY_LAYOUT)
        offset = coprofile(outer)
    else:
        outer = expect("make_composed_layout", "outer", outer, _ANY_LAYOUT)
        offset = _tuple_arg("make_composed_layout", "offset_or_outer", offset_or_outer)
    return emit("fly.make_composed_layout", inner, offset, outer)


def make_identity_layout(shape) -> Layout:
    """shape:(1E0,1E1,...): its value at a coordinate is the coordinate."""
    return emit("fly.make_identity_layout", _tuple_arg("make_identity_layout", "shape", shape))


def make_view(iter, layout):  # noqa: A002 - FlyDSL's parameter name
    """A tensor: a pointer (memref) or an int tuple base (coordinate
    tensor) with a layout."""
    if not (isinstance(iter, FlyValue) and iter.ir.type.kind == "ptr"):
        iter = _tuple_arg("make_view", "iter", iter) if not isinstance(iter, FlyValue) else expect(
            "make_view", "iter", iter, ("ptr", "int_tuple"), "a Pointer or an int tuple")
    return emit("fly.make_view", iter, expect("make_view", "layout", layout, _ANY_LAYOUT))


def make_fragment_layout_like(tensor):
    """The layout make_fragment_like(tensor) would have (of a tensor, or of a
    layout: CuTe's fragment layout, mode 0 compact and innermost)."""
    t = expect("make_fragment_layout_like", "tensor", tensor, _TENSOR + _ANY_LAYOUT)
    if t.ir.type.kind == "coord_tensor":
        return make_layout(t.shape)
    layout = t.layout if t.ir.type.kind == "memref" else t
    if layout.ir.type.kind == "composed_layout":
        layout = layout.outer
    return emit("fly.make_fragment_layout_like", layout)


def make_fragment_like(tensor, dtype=None):
    """A register tensor shaped like `tensor` (its element type, or `dtype`);
    like a layout, a register tensor of `dtype` with its fragment layout."""
    t = expect("make_fragment_like", "tensor", tensor, _TENSOR + _ANY_LAYOUT)
    if t.ir.type.kind in _ANY_LAYOUT:
        if dtype is None:
            fail("make_fragment_like", "a layout's fragment needs dtype=")
        layout = make_fragment_layout_like(t)
        return memref_alloca(MemRefType.get(_TypeText(element_type_text(dtype)),
                                            layout.ir.type, AddressSpace.Register), layout)
    attrs = f"element_type = {element_type_text(dtype)}" if dtype is not None else ""
    if dtype is None and t.ir.type.kind == "coord_tensor":
        fail("make_fragment_like", "a coordinate tensor's fragment needs dtype=")
    return emit("fly.make_fragment_like", t, attrs=attrs)


def make_identity_tensor(shape):
    """The coordinate tensor whose value at c is c (this product's helper;
    FlyDSL spells it make_view(0, make_identity_layout(shape)))."""
    shape = _tuple_arg("make_identity_tensor", "shape", shape)
    zero = tuple(0 for _ in range(shape.rank)) if isinstance(shape.value, tuple) else 0
    return make_view(int_tuple(zero), make_identity_layout(shape))


def make_swizzle(bits: int, base: int, shift: int):
    """The swizzle S<bits, base, shift> (this product's helper; FlyDSL
    spells it static(SwizzleType.get(bits, base, shift)))."""
    return static(SwizzleType.get(bits, base, shift))


def make_tile(*args):
    """A tiler: one mode per argument, an int (N:1), None (`*`, keep), a
    layout or a tuple of them (a nested tiler)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for a in args:
        if isinstance(a, FlyValue) and not (a.ir.type.kind in ("layout", "tile") and a.ir.type.is_static):
            fail("make_tile", f"a tile mode is an int, None, a static layout or a tuple of them, "
                              f"not {describe(a)}")
    return static(TileType.get(args))


# -- extraction ---------------------------------------------------------------------------

def get_scalar(int_tuple):  # noqa: F811 - FlyDSL's parameter name
    """The integer of a one-leaf int tuple: a Python int when static, an
    Int32/Int64 otherwise."""
    if not isinstance(int_tuple, FlyValue):
        return int_tuple
    return expect("get_scalar", "int_tuple", int_tuple, _INT_TUPLE).to_scalar()


def get_leaves(input, dynamic_only=False):  # noqa: A002
    """The leaves, depth-first: ints for static ones, Int32/Int64 for
    dynamic ones (only these with dynamic_only=True)."""
    x = expect("get_leaves", "input", input, _INT_TUPLE)
    leaves = []

    def walk(v):
        if isinstance(v, tuple):
            for e in v:
                walk(e)
        else:
            leaves.append(v)
    walk(x.value)
    dynamic = iter(_core.dynamic_leaves(x))
    out = []
    for leaf in leaves:
        if leaf is None:
            out.append(next(dynamic))
        elif not dynamic_only:
            out.append(leaf)
    return tuple(out)


def get_shape(layout):
    return expect("get_shape", "layout", layout, _ANY_LAYOUT).shape


def get_stride(layout):
    return emit("fly.get_stride", expect("get_stride", "layout", layout, _LAYOUT))


def get_layout(memref):
    return emit("fly.get_layout", expect("get_layout", "memref", memref, _TENSOR))


def get_iter(memref):
    return emit("fly.get_iter", expect("get_iter", "memref", memref, _TENSOR))


def composed_get_inner(input):  # noqa: A002
    return expect("composed_get_inner", "input", input, ("composed_layout",)).inner


def composed_get_offset(input):  # noqa: A002
    return expect("composed_get_offset", "input", input, ("composed_layout",)).offset


def composed_get_outer(input):  # noqa: A002
    return expect("composed_get_outer", "input", input, ("composed_layout",)).outer


# -- tuple arithmetic -----------------------------------------------------------------------

def _binary(op, api):
    def f(lhs, rhs):
        return emit(f"fly.{op}", _tuple_arg(api, "lhs", lhs), _tuple_arg(api, "rhs", rhs))
    f.__name__ = api
    f.__qualname__ = api
    f.__doc__ = f"fly.{op} of two int tuples."
    return f


int_tuple_add = _binary("int_tuple_add", "int_tuple_add")
int_tuple_sub = _binary("int_tuple_sub", "int_tuple_sub")
int_tuple_mul = _binary("int_tuple_mul", "int_tuple_mul")
int_tuple_div = _binary("int_tuple_div", "int_tuple_div")
int_tuple_mod = _binary("int_tuple_mod", "int_tuple_mod")
shape_div = _binary("shape_div", "shape_div")
ceil_div = _binary("ceil_div", "ceil_div")


def int_tuple_product(int_tuple):  # noqa: F811
    return emit("fly.int_tuple_product", _tuple_arg("int_tuple_product", "int_tuple", int_tuple))


def int_tuple_product_each(int_tuple):  # noqa: F811
    return emit("fly.int_tuple_product_each",
                _tuple_arg("int_tuple_product_each", "int_tuple", int_tuple))


def int_tuple_product_like(lhs, rhs):
    """lhs with each part that matches a leaf of rhs (by position) replaced
    by its product: a tuple of rhs's profile."""
    lhs = _tuple_arg("int_tuple_product_like", "lhs", lhs)
    rhs = _tuple_arg("int_tuple_product_like", "rhs", rhs)

    def like(a, profile):
        if not isinstance(profile, tuple):
            return emit("fly.int_tuple_product", a)
        if not isinstance(a.value, tuple) or len(a.value) != len(profile):
            fail("int_tuple_product_like", f"{lhs} is not weakly congruent to {rhs}")
        return tuple(like(a[i], p) for i, p in enumerate(profile))
    r = like(lhs, rhs.value)
    return r if isinstance(r, FlyValue) else int_tuple(r)


def _truth(api, op, lhs, rhs):
    r = emit(op, _tuple_arg(api, "lhs", lhs), _tuple_arg(api, "rhs", rhs)).to_scalar()
    return nm.constant(bool(r), nm.Boolean) if isinstance(r, int) else r != 0


def elem_less(lhs, rhs):
    """A Boolean: lhs < rhs in every mode."""
    return _truth("elem_less", "fly.elem_less", lhs, rhs)


def equal(lhs, rhs):
    """A Boolean: the tuples are equal."""
    return _truth("equal", "fly.equal", lhs, rhs)


# -- modes ------------------------------------------------------------------------------------

_MODED = ("int_tuple", "layout", "composed_layout", "memref", "coord_tensor")


def _moded(api, x):
    return expect(api, "int_tuple", x if isinstance(x, FlyValue) else int_tuple(x), _MODED)


def get(int_tuple, mode):  # noqa: F811
    """Mode `mode` of a Python tuple, or the integer of mode `mode` of an
    int tuple (a Python int when static)."""
    if isinstance(int_tuple, (tuple, list)):
        i = _static_int("get", "mode", mode)
        if not -len(int_tuple) <= i < len(int_tuple):
            fail("get", f"mode {i} of a tuple of {len(int_tuple)}")
        return int_tuple[i]
    x = expect("get", "int_tuple", int_tuple, _INT_TUPLE)
    return _core.mode(x, _static_int("get", "mode", mode)).to_scalar()


def get_(int_tuple, mode):  # noqa: F811
    """The mode at a path (an int or a list of ints)."""
    x = _moded("get_", int_tuple)
    path = list(mode) if isinstance(mode, (tuple, list)) else [mode]
    for m in path:
        _static_int("get_", "mode", m)
    return _core.mode(x, path)


def take(int_tuple, begin: int, end: int):  # noqa: F811
    return emit("fly.take", _moded("take", int_tuple),
                attrs=f"begin = {_static_int('take', 'begin', begin)} : i64, "
                      f"end = {_static_int('take', 'end', end)} : i64")


def select(int_tuple, indices):  # noqa: F811
    idx = [_static_int("select", "indices", i) for i in (indices if isinstance(indices, (list, tuple))
                                                         else [indices])]
    return emit("fly.select", _moded("select", int_tuple),
                attrs="modes = array<i64: " + ", ".join(map(str, idx)) + ">")


def group(int_tuple, begin: int, end: int):  # noqa: F811
    return emit("fly.group", _moded("group", int_tuple),
                attrs=f"begin = {_static_int('group', 'begin', begin)} : i64, "
                      f"end = {_static_int('group', 'end', end)} : i64")


_MAX_RANK = 64  # a bound on n: each mode is an op


def _append_like(op, api, base, elem, n):
    base = base if isinstance(base, FlyValue) else int_tuple(base)
    elem = elem if isinstance(elem, FlyValue) else int_tuple(elem)
    expect(api, "base", base, ("int_tuple", "layout"))
    expect(api, "elem", elem, ("int_tuple", "layout"))
    if n is None:
        return emit(op, base, elem)
    r = base
    if not rank(r) <= _static_int(api, "n", n) <= _MAX_RANK:
        fail(api, f"n={n} must be from the rank of {base} to {_MAX_RANK}")
    while rank(r) < n:
        r = emit(op, r, elem)
    return r


def append(base, elem, *, n: int | None = None):
    """base with elem as a new last mode (with n: repeated up to rank n)."""
    return _append_like("fly.append", "append", base, elem, n)


def prepend(base, elem, *, n: int | None = None):
    """base with elem as a new first mode (with n: repeated up to rank n)."""
    return _append_like("fly.prepend", "prepend", base, elem, n)


def slice_(src, coord):
    """Keep the modes where coord is None (`*`), flattened, and unwrapped
    while one mode is left (a kept (16,8) is (16,8), a kept leaf a leaf);
    a tensor's iterator moves to the fixed part."""
    src = _moded("slice", src)
    return emit("fly.slice", src, _tuple_arg("slice", "coord", coord))


def dice(src, coord):
    """Keep the modes where coord is not None (flattened and unwrapped as
    by slice)."""
    src = src if isinstance(src, FlyValue) else int_tuple(src)
    expect("dice", "src", src, ("int_tuple", "layout"))
    return emit("fly.dice", src, _tuple_arg("dice", "coord", coord))


# -- queries -------------------------------------------------------------------------------------

def size(int_tuple, mode=None):  # noqa: F811
    """The number of coordinates, as an IntTuple (`mode`: of that mode only,
    an extension)."""
    x = _moded("size", int_tuple) if not (isinstance(int_tuple, FlyValue)
                                          and int_tuple.ir.type.kind == "tile") else int_tuple
    if mode is not None:
        x = get_(x, mode)
    return emit("fly.size", x)


def coprofile(layout):
    """The zero of a layout's codomain (0, or (0,0,...) for basis strides)."""
    layout = expect("coprofile", "layout", layout, _ANY_LAYOUT)
    return emit("fly.crd2idx", int_tuple(0), layout) * 0


def coshape(layout):
    return emit("fly.coshape", expect("coshape", "layout", layout, _LAYOUT))


def cosize(layout):
    return emit("fly.cosize", expect("cosize", "layout", layout, _ANY_LAYOUT))


def crd2idx(crd, layout):
    """The index of a coordinate through a layout."""
    layout = expect("crd2idx", "layout", layout, _ANY_LAYOUT + ("coord_swizzle",))
    return emit("fly.crd2idx", _tuple_arg("crd2idx", "crd", crd), layout)


def _index_arg(api, index):
    return _tuple_arg(api, "index", index)


def idx2crd(index, layout):
    """The coordinate of an index: through a layout, the coordinate whose
    image is `index` ((index / stride) % shape, per mode); through a shape
    (an int tuple), the colexicographic coordinate."""
    index = _index_arg("idx2crd", index)
    if isinstance(layout, FlyValue) and layout.ir.type.kind == "layout":
        return emit("fly.int_tuple_mod", emit("fly.int_tuple_div", index, layout.stride), layout.shape)
    return emit("fly.idx2crd", index, _tuple_arg("idx2crd", "layout", layout))


def _flatten(t):
    """The flat tuple of the leaves of an int tuple."""
    paths = []

    def walk(v, path):
        if isinstance(v, tuple):
            for i, e in enumerate(v):
                walk(e, path + [i])
        else:
            paths.append(path)
    walk(t.value, [])
    if paths == [[]]:
        return t
    return int_tuple(tuple(_core.mode(t, p) for p in paths))


def get_flat_coord(index, layout):
    """idx2crd(index, layout) flattened: one integer per leaf mode."""
    expect("get_flat_coord", "layout", layout, _LAYOUT)
    return _flatten(idx2crd(index, layout))


def get_1d_coord(index, layout):
    """The colexicographic position in layout's shape of the coordinate
    idx2crd(index, layout)."""
    expect("get_1d_coord", "layout", layout, _LAYOUT)
    return emit("fly.crd2idx", idx2crd(index, layout), make_layout(layout.shape))


# -- the algebra ----------------------------------------------------------------------------------

def coalesce(layout, pattern=None):
    """Merge contiguous modes (each mode of `pattern` separately)."""
    layout = expect("coalesce", "layout", layout, ("layout", "memref", "coord_tensor"))
    if pattern is None:
        return emit("fly.coalesce", layout)
    return emit("fly.coalesce", layout, _tuple_arg("coalesce", "pattern", pattern))


def composition(layout, tiler):
    """layout ∘ tiler (a layout, or a by-mode tile/tuple)."""
    layout = expect("composition", "layout", layout, _ANY_LAYOUT + _TENSOR)
    return emit("fly.composition", layout, _tiler_arg("composition", "tiler", tiler))


def complement(layout, codomain_size=None):
    layout = expect("complement", "layout", layout, _LAYOUT)
    if codomain_size is None:
        return emit("fly.complement", layout)
    return emit("fly.complement", layout, _tuple_arg("complement", "codomain_size", codomain_size))


def right_inverse(layout):
    return emit("fly.right_inverse", expect("right_inverse", "layout", layout, _LAYOUT))


def left_inverse(layout):
    return emit("fly.left_inverse", expect("left_inverse", "layout", layout, _LAYOUT))


def _divide(name):
    def f(layout, divisor):
        layout_ = expect(name, "layout", layout, ("layout", "memref", "coord_tensor"))
        return emit(f"fly.{name}", layout_, _tiler_arg(name, "divisor", divisor))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"CuTe's {name} of a layout or tensor by a layout or by-mode tiler."
    return f


def _product(name, tiler_kinds=("layout", "tile")):
    def f(layout, tiler):
        layout_ = expect(name, "layout", layout, _LAYOUT)
        if tiler_kinds == _LAYOUT:
            t = tiler if isinstance(tiler, FlyValue) else make_layout(tiler)
            t = expect(name, "tiler", t, _LAYOUT)
        else:
            t = _tiler_arg(name, "tiler", tiler)
        return emit(f"fly.{name}", layout_, t)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"CuTe's {name}."
    return f


logical_divide = _divide("logical_divide")
zipped_divide = _divide("zipped_divide")
tiled_divide = _divide("tiled_divide")
flat_divide = _divide("flat_divide")
logical_product = _product("logical_product")
zipped_product = _product("zipped_product")
tiled_product = _product("tiled_product")
flat_product = _product("flat_product")
blocked_product = _product("blocked_product", _LAYOUT)
raked_product = _product("raked_product", _LAYOUT)


def recast_layout(layout, old_type_bits, new_type_bits):
    """The layout of the same memory in elements of new_type_bits (ints or
    numeric types)."""
    layout = expect("recast_layout", "layout", layout, _LAYOUT)
    old = _bits_of("recast_layout", "old_type_bits", old_type_bits)
    new = _bits_of("recast_layout", "new_type_bits", new_type_bits)
    return emit("fly.recast_layout", layout, attrs=f"old_bits = {old} : i64, new_bits = {new} : i64")


def tile_to_shape(block, trg_shape, ord_shape=None):
    """`block` repeated to cover trg_shape, the repetitions ordered by
    ord_shape (column-major without it)."""
    block = expect("tile_to_shape", "block", block, _LAYOUT)
    operands = [block, _tuple_arg("tile_to_shape", "trg_shape", trg_shape)]
    if ord_shape is not None:
        operands.append(_tuple_arg("tile_to_shape", "ord_shape", ord_shape))
    return emit("fly.tile_to_shape", *operands)


# -- atoms and tiled atoms --------------------------------------------------------------------------



def _check_available(api, h):
    """An operation the chip being traced for lacks (fx.rocdl.MFMA on
    gfx1100): a located error naming it and the chips that have it."""
    arch = Trace.current().arch if Trace.active() else ""
    if arch:
        missing = _fly.atom_unavailable(h, arch)
        if missing:
            fail(api, missing)


def make_mma_atom(mma_op_type):
    """The MMA atom of an operation type (fx.UniversalFMA(...), fx.rocdl's)."""
    h = handle(mma_op_type)
    if not hasattr(h, "kind") or not h.is_fly:
        fail("make_mma_atom", f"argument 'mma_op_type' must be an MMA operation type, not "
                              f"{describe(mma_op_type)}")
    _check_available("make_mma_atom", h)
    t = MmaAtomType.get(h).handle
    (v,) = builder().op("fly.make_mma_atom", [], [t])
    return wrap(v)


def make_copy_atom(copy_op_type, elem_type):
    """The copy atom of an operation type over elements of elem_type (a
    numeric type, a type, or a bit width)."""
    h = handle(copy_op_type)
    if not hasattr(h, "kind") or not h.is_fly:
        fail("make_copy_atom", f"argument 'copy_op_type' must be a copy operation type "
                               f"(e.g. fx.UniversalCopy128b()), not {describe(copy_op_type)}")
    _check_available("make_copy_atom", h)
    bits = _bits_of("make_copy_atom", "elem_type", elem_type)
    t = CopyAtomType.get(h, bits).handle
    (v,) = builder().op("fly.make_copy_atom", [], [t])
    return wrap(v)


_ATOMS = ("copy_atom", "mma_atom", "tiled_copy", "tiled_mma")


def atom_set_value(atom, field, value):
    """The atom with its run-time field `field` set to `value`."""
    atom = expect("atom_set_value", "atom", atom, _ATOMS)
    if not isinstance(field, str):
        field = str(field)
    value = from_ir(value)
    if isinstance(value, bool):
        value = nm.constant(value, nm.Boolean)
    elif isinstance(value, int):
        value = nm.constant(value, nm.Int32)
    elif isinstance(value, float):
        value = nm.constant(value, nm.Float32)
    elif not isinstance(value, (nm.Numeric, FlyValue)):
        fail("atom_set_value", f"argument 'value' must be a number or a dynamic value, not "
                               f"{describe(value)}")
    return emit("fly.atom.set_value", atom, value, attrs=f'field = "{field}"')


def copy_atom_call(copy_atom, src, dst, *, pred=None):
    """One call of a copy atom on exactly its values (`pred`: a one-flag
    register tensor; the call is skipped when it is false)."""
    copy_atom = expect("copy_atom_call", "copy_atom", copy_atom, ("copy_atom", "tiled_copy"))
    src = expect("copy_atom_call", "src", src, _MEMREF)
    dst = expect("copy_atom_call", "dst", dst, _MEMREF)
    if pred is not None:
        copy(copy_atom, src, dst, pred=pred)
        return
    builder().op("fly.copy_atom_call", [copy_atom.ir, src.ir, dst.ir])


def _mma_operands(mma_atom, d, a, b, c):
    """The operands of fly.gemm / fly.mma_atom_call: the atom, D, the A
    and B groups (each operand, then its auxiliary tensors), C; and the
    operandSegmentSizes attribute of the groups."""
    operands = [mma_atom.ir, d.ir] + [t.ir for t in a] + [t.ir for t in b] + [c.ir]
    return operands, f"operandSegmentSizes = array<i32: 1, 1, {len(a)}, {len(b)}, 1>"


def mma_atom_call(mma_atom, d, a, b, c, **kwargs):
    """One call of an MMA atom; keyword arguments set the atom's fields.
    `a` and `b` may be lists [operand, auxiliary...]: a scaled MMA atom's
    scale for the call (one value, overriding its scale_a / scale_b)."""
    mma_atom = expect("mma_atom_call", "mma_atom", mma_atom, ("mma_atom", "tiled_mma"))
    if kwargs:
        mma_atom = mma_atom.set_value(kwargs)
    d = expect("mma_atom_call", "d", d, _MEMREF)
    c = expect("mma_atom_call", "c", c, _MEMREF)
    a = _gemm_operand_list("mma_atom_call", "a", a)
    b = _gemm_operand_list("mma_atom_call", "b", b)
    operands, attrs = _mma_operands(mma_atom, d, a, b, c)
    builder().op("fly.mma_atom_call", operands, attrs=attrs)


def make_tiled_copy(copy_atom, layout_thr_val, tile_mn):
    """A copy atom tiled over a (thread, value) -> tile layout."""
    copy_atom = expect("make_tiled_copy", "copy_atom", copy_atom, ("copy_atom",))
    layout = expect("make_tiled_copy", "layout_thr_val", layout_thr_val, _LAYOUT)
    tile = _tiler_arg("make_tiled_copy", "tile_mn", tile_mn)
    if tile.ir.type.kind == "layout":
        fail("make_tiled_copy", "argument 'tile_mn' must be a tile (a tuple of ints or layouts)")
    return emit("fly.make_tiled_copy", copy_atom, layout, tile)


def make_tiled_mma(mma_atom, atom_layout, permutation=None):
    """An MMA atom tiled over an (M,N,K) layout of atoms."""
    mma_atom = expect("make_tiled_mma", "mma_atom", mma_atom, ("mma_atom",))
    atom_layout = expect("make_tiled_mma", "atom_layout", atom_layout, _LAYOUT)
    if permutation is None:
        return emit("fly.make_tiled_mma", mma_atom, atom_layout)
    perm = _tiler_arg("make_tiled_mma", "permutation", permutation)
    if perm.ir.type.kind == "layout":
        perm = make_tile(perm)
    return emit("fly.make_tiled_mma", mma_atom, atom_layout, perm)


def _thread(api, name, thr):
    if isinstance(thr, nm.Numeric) and not isinstance(thr, nm.Vector):
        return thr if thr.mlir_type in ("i32", "i64") else nm.convert(thr, nm.Int32)
    return _tuple_arg(api, name, thr)


def tiled_copy_partition_src(tiled_copy, src, thr_int_tuple):
    tc = expect("tiled_copy_partition_src", "tiled_copy", tiled_copy, ("tiled_copy",))
    src = expect("tiled_copy_partition_src", "src", src, _TENSOR)
    return emit("fly.tiled_copy.partition_src", tc, src,
                _thread("tiled_copy_partition_src", "thr_int_tuple", thr_int_tuple))


def tiled_copy_partition_dst(tiled_copy, dst, thr_int_tuple):
    tc = expect("tiled_copy_partition_dst", "tiled_copy", tiled_copy, ("tiled_copy",))
    dst = expect("tiled_copy_partition_dst", "dst", dst, _TENSOR)
    return emit("fly.tiled_copy.partition_dst", tc, dst,
                _thread("tiled_copy_partition_dst", "thr_int_tuple", thr_int_tuple))


def tiled_copy_retile(tiled_copy, t):
    tc = expect("tiled_copy_retile", "tiled_copy", tiled_copy, ("tiled_copy",))
    return emit("fly.tiled_copy.retile", tc, expect("tiled_copy_retile", "t", t, _TENSOR))


def _operand(api, operand_id, allowed=("A", "B", "C")):
    valid = {m.value for m in MmaOperand}
    if isinstance(operand_id, int) and not isinstance(operand_id, bool) and operand_id in valid:
        text = str(MmaOperand(operand_id))
    else:
        text = str(operand_id) if isinstance(operand_id, (str, MmaOperand)) else ""
    if text not in allowed:
        fail(api, f"argument 'operand_id' must be one of fx.MmaOperand.{', '.join(allowed)}, "
                  f"not {operand_id!r}")
    return text


def tiled_mma_partition(operand_id, tiled_mma, t, coord):
    """The part of operand tensor `t` (A: (M,K), B: (N,K), C: (M,N)) that
    thread `coord` owns."""
    op = _operand("tiled_mma_partition", operand_id)
    mma = expect("tiled_mma_partition", "tiled_mma", tiled_mma, ("tiled_mma",))
    t = expect("tiled_mma_partition", "t", t, _TENSOR)
    return emit("fly.tiled_mma.partition", mma, t, _thread("tiled_mma_partition", "coord", coord),
                attrs=f'operand = "{op}"')


def tiled_mma_partition_shape(operand_id, tiled_mma, shape):
    """The shape of a thread's partition of an operand of this shape."""
    op = _operand("tiled_mma_partition_shape", operand_id)
    mma = expect("tiled_mma_partition_shape", "tiled_mma", tiled_mma, ("tiled_mma",))
    shape = _tuple_arg("tiled_mma_partition_shape", "shape", shape)
    zero = tuple(0 for _ in range(shape.rank)) if isinstance(shape.value, tuple) else 0
    coords = make_view(int_tuple(zero), make_layout(shape))
    part = emit("fly.tiled_mma.partition", mma, coords, int_tuple(0), attrs=f'operand = "{op}"')
    return part.shape


def mma_make_fragment(operand_id, tiled_mma, input, *, stages=None):  # noqa: A002
    """Register storage for one thread's part of an MMA operand. `input` is
    the whole tile of the operand ((M,K), (N,K) or (M,N), not a partition of
    it); the fragment has the shape of a thread's partition_A/B/C of it and
    the MMA's element type of that operand. `stages=N` partitions the tile's
    first two modes and appends a stage mode of N."""
    op = _operand("mma_make_fragment", operand_id)
    mma = expect("mma_make_fragment", "tiled_mma", tiled_mma, ("tiled_mma",))
    t = expect("mma_make_fragment", "input", input, _TENSOR)
    attrs = f'operand = "{op}"'
    if stages is not None:
        if isinstance(stages, bool) or not isinstance(stages, int) or stages <= 0:
            fail("mma_make_fragment", f"argument 'stages' must be a positive int, not {stages!r}")
        attrs += f", stages = {stages} : i64"
    return emit("fly.mma.make_fragment", mma, t, attrs=attrs)


def copy(copy_atom, src, dst, *, pred=None, **kwargs):
    """CuTe's copy / copy_if: `pred` holds one flag per slice of src's rest
    modes; keyword arguments set the atom's fields."""
    copy_atom = expect("copy", "copy_atom", copy_atom, ("copy_atom", "tiled_copy"))
    if kwargs:
        copy_atom = copy_atom.set_value(kwargs)
    src = expect("copy", "src", src, _MEMREF)
    dst = expect("copy", "dst", dst, _MEMREF)
    operands = [copy_atom.ir, src.ir, dst.ir]
    if pred is not None:
        operands.append(expect("copy", "pred", pred, _MEMREF).ir)
    builder().op("fly.copy", operands)


def _gemm_operand_list(api, name, x):
    """The tensors of an A or B operand: one tensor, or a list whose first
    is the operand and the rest its auxiliary tensors (the scales of a
    scaled MMA atom), sliced at the operand's tile coordinate. How many an
    atom takes, of which type and shape, the IR verifier checks."""
    group = list(x) if isinstance(x, (list, tuple)) else [x]
    if not group:
        fail(api, f"argument '{name}' is an empty list; it starts with the operand")
    return [expect(api, name, t, _MEMREF) for t in group]


def _gemm_tile_order(bounds, traversal_order, traversal_layout):
    """The (m, n[, k]) tile coordinates of an expanded gemm, in the order
    of traversal_layout (index i visits the tile at traversal_layout(i) in
    the column-major numbering of the tiles) or of traversal_order (its
    letters name the modes from the innermost loop to the outermost; a
    _Serpentine order runs a loop backwards on odd passes of the loops
    outside it). The default is NMK: K outermost, N innermost."""
    total = 1
    for b in bounds:
        total *= b
    if traversal_layout is not None:
        tl = _layout_arg("gemm", "traversal_layout", traversal_layout)
        if not tl.ir.type.is_static or cosize(tl).unpack() != total:
            fail("gemm", f"traversal_layout {tl.ir.type} must be static with cosize {total}, "
                         f"the number of tiles {bounds}")
        for i in range(size(tl).unpack()):
            tile = crd2idx(i, tl).unpack()
            coord = []
            for b in bounds:
                coord.append(tile % b)
                tile //= b
            yield tuple(coord)
        return
    order = GemmTraversalOrder.NMK if traversal_order is None else traversal_order
    try:
        order = GemmTraversalOrder(int(order))
    except (TypeError, ValueError):
        fail("gemm", f"argument 'traversal_order' must be an fx.GemmTraversalOrder, not {order!r}")
    letters, _, serpentine = order.name.partition("_")
    loops = [("MNK".index(ch)) for ch in reversed(letters) if "MNK".index(ch) < len(bounds)]

    def walk(depth, coord, passes):
        if depth == len(loops):
            yield tuple(coord)
            return
        dim = loops[depth]
        for i in range(bounds[dim]):
            coord[dim] = bounds[dim] - 1 - i if serpentine and passes % 2 else i
            yield from walk(depth + 1, coord, passes * bounds[dim] + i)

    yield from walk(0, [0] * len(bounds), 0)


def gemm(mma_atom, d, a, b, c, *, traversal_order=None, traversal_layout=None, atom_callback=None,
         **kwargs):
    """D = A * B + C over partitioned fragments; keyword arguments set the
    atom's fields. `a` and `b` may be lists [operand, auxiliary...] whose
    extra tensors are sliced at the same tile coordinate as the operand:
    for a scaled MMA atom, gemm(mma, d, [a, scale_a], [b, scale_b], c) with
    scale fragments of shape (1, M[, K]) and (1, N[, K]), one value per
    lane and tile, overriding the atom's scale_a / scale_b for each call.
    With traversal_order, traversal_layout or atom_callback the gemm is
    made one mma_atom_call per (m, n, k) tile, in that order: the tiles
    become fly.gemm's `traversal` list, which fly-layout-lowering unrolls;
    with atom_callback(atom, (m, n, k)), which returns the atom of each
    call, the calls are traced here."""
    mma_atom = expect("gemm", "mma_atom", mma_atom, ("mma_atom", "tiled_mma"))
    if traversal_order is not None and traversal_layout is not None:
        fail("gemm", "give traversal_order or traversal_layout, not both")
    if kwargs:
        mma_atom = mma_atom.set_value(kwargs)
    d = expect("gemm", "d", d, _MEMREF)
    c = expect("gemm", "c", c, _MEMREF)
    a, b = _gemm_operand_list("gemm", "a", a), _gemm_operand_list("gemm", "b", b)
    ranks = tuple(rank(t) for t in (d, a[0], b[0], c))
    if ranks not in ((1, 1, 1, 1), (3, 2, 2, 3), (3, 3, 3, 3)):
        fail("gemm", f"needs rank-1 fragments, or rank-2/3 a and b with rank-3 c and d, not "
                     f"ranks {ranks}")
    for name, group in (("a", a), ("b", b)):
        for t in group[1:]:
            if rank(t) != rank(group[0]):
                fail("gemm", f"the auxiliary tensor {t.ir.type} of '{name}' must have the rank of "
                             f"its operand {group[0].ir.type} ((1, M[, K]) for a, (1, N[, K]) for b)")
    if traversal_order is None and traversal_layout is None and atom_callback is None:
        operands, attrs = _mma_operands(mma_atom, d, a, b, c)
        builder().op("fly.gemm", operands, attrs=attrs)
        return
    atom = mma_atom.mma_atom if isinstance(mma_atom, TiledMma) else mma_atom

    def call(d_t, a_t, b_t, c_t, mnk):
        this = atom if atom_callback is None else atom_callback(atom, mnk)
        if not isinstance(this, MmaAtom):
            fail("gemm", f"atom_callback must return an MmaAtom, not {describe(this)}")
        mma_atom_call(this, d_t, a_t, b_t, c_t)

    if ranks[0] == 1:
        call(d, a, b, c, (0, 0, 0))
        return

    def extent(t, m):
        n = size(t.shape[m]).unpack()
        if not isinstance(n, int):
            fail("gemm", f"mode {m} of {t.ir.type} must have a static size")
        return n

    bounds = (extent(d, 1), extent(d, 2))
    if bounds != (extent(a[0], 1), extent(b[0], 1)) or bounds != (extent(c, 1), extent(c, 2)):
        fail("gemm", f"the M and N modes of d {d.ir.type}, a {a[0].ir.type}, b {b[0].ir.type} and "
                     f"c {c.ir.type} differ")
    if ranks[1] == 3:
        if extent(a[0], 2) != extent(b[0], 2):
            fail("gemm", f"the K modes of a {a[0].ir.type} and b {b[0].ir.type} differ")
        bounds += (extent(a[0], 2),)
    if atom_callback is None:
        tiles = [coord + (0,) * (3 - len(coord))
                 for coord in _gemm_tile_order(bounds, traversal_order, traversal_layout)]
        operands, attrs = _mma_operands(mma_atom, d, a, b, c)
        order = ", ".join(str(i) for tile in tiles for i in tile)
        builder().op("fly.gemm", operands, attrs=f"{attrs}, traversal = array<i32: {order}>")
        return
    accumulated = set()
    for coord in _gemm_tile_order(bounds, traversal_order, traversal_layout):
        mt, nt, rest = coord[0], coord[1], coord[2:]
        # The first call on a tile of D reads C, later ones D itself.
        src = d if (mt, nt) in accumulated else c
        accumulated.add((mt, nt))
        call(slice_(d, (None, mt, nt)), [slice_(t, (None, mt) + rest) for t in a],
             [slice_(t, (None, nt) + rest) for t in b], slice_(src, (None, mt, nt)),
             (mt, nt, rest[0] if rest else 0))


# -- pointers and memory ----------------------------------------------------------------------------

_LLVM_SPACES = {"generic": 0, "global": 1, "shared": 3, "register": 5}


def _pointer_type(api, name, t):
    h = handle(t)
    if not (hasattr(h, "kind") and h.kind == "ptr"):
        fail(api, f"argument '{name}' must be a pointer type (fx.PointerType.get(...)), not {describe(t)}")
    return h


def make_ptr(result_type, args, *, dict_attrs=None):
    """A pointer of result_type from an LLVM pointer (`args`: it, or a
    list holding it)."""
    t = _pointer_type("make_ptr", "result_type", result_type)
    if dict_attrs is not None:
        return _allocated_ptr(t, args, dict_attrs)
    raw = args[0] if isinstance(args, (list, tuple)) and len(args) == 1 else args
    if not hasattr(raw, "ir") or not str(raw.ir.type).startswith("!llvm.ptr"):
        fail("make_ptr", f"argument 'args' must be an LLVM pointer value, not {describe(raw)}")
    (v,) = builder().op("fly.make_ptr", [raw.ir], [t])
    return wrap(v)


def _allocated_ptr(t, args, dict_attrs):
    """FlyDSL's make_ptr with no arguments and allocation attributes: a
    register pointer to {"allocSize": elements} fresh elements, or a shared
    one to a new LDS block of {"allocBytes": n, "allocAlign": a}."""
    if args not in ([], ()):
        fail("make_ptr", "with dict_attrs= the pointer is allocated: 'args' must be []")
    if not isinstance(dict_attrs, dict):
        fail("make_ptr", f"argument 'dict_attrs' must be a dict of ints, not {describe(dict_attrs)}")

    def field(name):
        v = dict_attrs.get(name)
        v = getattr(v, "value", v)
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            fail("make_ptr", f"dict_attrs['{name}'] must be a positive int, not {v!r}")
        return v

    space = space_name(t.address_space)
    if space == "register":
        n = field("allocSize")
        frag = memref_alloca(MemRefType.get(_TypeText(str(t.element_type)),
                                            make_layout(n, 1).ir.type, AddressSpace.Register),
                             make_layout(n, 1))
        return recast_iter(t, get_iter(frag))
    if space == "shared":
        from ..tracing.trace import KernelTrace
        record = KernelTrace.current()
        if record is None:
            fail("make_ptr", "a shared allocation is made inside a kernel")
        raw = late.static_lds(record, field("allocBytes"), field("allocAlign"))
        return recast_iter(t, raw)
    fail("make_ptr", f"dict_attrs= allocates register or shared memory, not {space} memory")


class _LLVMPointer(FlyValue):
    """An `!llvm.ptr` value (to_llvm_ptr, inttoptr)."""


def get_dyn_shared(dtype=None, align: int = 16):
    """A pointer to the start of the dynamic LDS, as elements of `dtype`
    (bytes without one); `align` (an extension) is its alignment."""
    text = element_type_text(dtype) if dtype is not None else "i8"
    align = _static_int("get_dyn_shared", "align", align)
    t = PointerType.get(_TypeText(text), AddressSpace.Shared, align).handle
    (v,) = builder().op("fly.get_dyn_shared", [], [t])
    return wrap(v)


class _TypeText:
    def __init__(self, text):
        self.mlir_type = text


def to_llvm_ptr(ptr):
    """The `!llvm.ptr<AS>` of a pointer."""
    p = expect("to_llvm_ptr", "ptr", ptr, _PTR)
    return _LLVMPointer(_core._emit("fly.ptr.to_llvm", [p])[0])


def inttoptr(result_type, src):
    """A pointer of result_type at the integer address src."""
    t = _pointer_type("inttoptr", "result_type", result_type)
    space = space_name(t.address_space)
    if space == "register":
        fail("inttoptr", "a register pointer has no integer address")
    if space not in _LLVM_SPACES:
        fail("inttoptr", f"pointers in {space} are made by their target's constructors")
    if isinstance(src, int) and not isinstance(src, bool):
        src = nm.constant(src, nm.Int64)
    if not isinstance(src, nm.Integer):
        fail("inttoptr", f"argument 'src' must be an integer address, not {describe(src)}")
    (raw,) = builder().op("llvm.inttoptr", [src.ir], [_core.parse_type(f"!llvm.ptr<{_LLVM_SPACES[space]}>")])
    (v,) = builder().op("fly.make_ptr", [raw], [t])
    return wrap(v)


def ptrtoint(ptr):
    """The integer (Int64) address of a pointer."""
    p = expect("ptrtoint", "ptr", ptr, _PTR)
    if space_name(p.ir.type.address_space) == "register":
        fail("ptrtoint", "a register pointer has no integer address")
    raw = to_llvm_ptr(p)
    (v,) = builder().op("llvm.ptrtoint", [raw.ir], [_core.parse_type("i64")])
    return nm.wrap(v)


def add_offset(ptr, offset):
    """The pointer `offset` elements further."""
    p = expect("add_offset", "ptr", ptr, _PTR)
    if isinstance(offset, nm.Numeric) and not isinstance(offset, (nm.Vector, nm.Float)):
        off = offset if offset.mlir_type in ("i32", "i64") else nm.convert(offset, nm.Int32)
    elif isinstance(offset, nm.Numeric):
        fail("add_offset", f"argument 'offset' must be an integer, not {describe(offset)}")
    else:
        off = _tuple_arg("add_offset", "offset", offset)
    return emit("fly.add_offset", p, off)


def apply_swizzle(ptr, swizzle):
    return emit("fly.apply_swizzle", expect("apply_swizzle", "ptr", ptr, _PTR),
                expect("apply_swizzle", "swizzle", swizzle, ("swizzle",)))


def ptr_load(ptr, result_type=None):
    """The element at ptr, or a vector of consecutive elements when
    result_type is a vector type (fx.Int32x4)."""
    p = expect("ptr_load", "ptr", ptr, _PTR)
    if result_type is None:
        t = p.ir.type.element_type
    else:
        t = _core.parse_type(element_type_text(result_type))
    (v,) = builder().op("fly.ptr.load", [p.ir], [t])
    return nm.wrap(v)


def ptr_store(value, ptr):
    """Store a value (the element type, or a vector of it) at ptr."""
    p = expect("ptr_store", "ptr", ptr, _PTR)
    value = from_ir(value)
    if not isinstance(value, nm.Numeric):
        if isinstance(value, (bool, int, float)):
            value = nm.constant(value, p.element_type)
        else:
            fail("ptr_store", f"argument 'value' must be a number or a dynamic value, not {describe(value)}")
    elif not isinstance(value, nm.Vector) and type(value) is not p.element_type:
        value = nm.convert(value, p.element_type)
    builder().op("fly.ptr.store", [value.ir, p.ir])


def recast_iter(result_type, src):
    """The same address as a pointer to elements of result_type (a numeric
    type or a pointer type)."""
    p = expect("recast_iter", "src", src, _PTR)
    h = handle(result_type)
    if hasattr(h, "kind") and h.kind == "ptr":
        t = h
    else:
        space = space_name(p.ir.type.address_space)
        t = _core.parse_type(f"!fly.ptr<{element_type_text(result_type)}, {space}, align<{p.alignment}>>")
    space = space_name(t.address_space)
    if space not in _LLVM_SPACES:
        fail("recast_iter", f"pointers in {space} cannot be recast")
    raw = to_llvm_ptr(p)
    (v,) = builder().op("fly.make_ptr", [raw.ir], [t])
    return wrap(v)


def memref_alloca(memref_type, layout):
    """A fresh register tensor of memref_type (its layout `layout`)."""
    h = handle(memref_type)
    if not (hasattr(h, "kind") and h.kind == "memref"):
        fail("memref_alloca", f"argument 'memref_type' must be a memref type, not {describe(memref_type)}")
    expect("memref_alloca", "layout", layout, _ANY_LAYOUT)
    if str(h.layout) != str(layout.ir.type):
        fail("memref_alloca", f"the layout {layout.ir.type} is not the type's {h.layout}")
    (v,) = builder().op("fly.memref.alloca", [], [h])
    return wrap(v)


def _coord_tensor_vector(t):
    """The values of a coordinate tensor with integer values, as a vector
    (element i the value at the layout's 1-D index i)."""
    n = emit("fly.size", t).value
    if not isinstance(n, int):
        fail("memref_load_vec", "a coordinate tensor's load() needs a static size")
    elems = []
    for i in range(n):
        s = memref_load(t, emit("fly.idx2crd", int_tuple(i), t.shape)).to_scalar()
        if isinstance(s, int):
            s = nm.constant(s, nm.Int32)
        elif isinstance(s, tuple) or not isinstance(s, nm.Integer):
            fail("memref_load_vec", "load() of a coordinate tensor whose values are tuples")
        elems.append(nm.convert(s, nm.Int32))
    (r,) = builder().op("vector.from_elements", [e.ir for e in elems],
                        [_core.parse_type(f"vector<{n}xi32>")])
    return nm.wrap(r)


def memref_load_vec(memref):
    """The whole tensor as a vector (element i at the layout's 1-D index i)."""
    t = expect("memref_load_vec", "memref", memref, _TENSOR)
    if t.ir.type.kind == "coord_tensor":
        return _coord_tensor_vector(t)
    (ty,) = _core.infer_types("fly.memref.load_vec", [t])
    (v,) = builder().op("fly.memref.load_vec", [t.ir], [ty])
    return nm.wrap(v)


def memref_store_vec(vector, memref):
    """Store a vector as the whole tensor."""
    t = expect("memref_store_vec", "memref", memref, _MEMREF)
    vector = from_ir(vector)
    if not isinstance(vector, nm.Vector):
        fail("memref_store_vec", f"argument 'vector' must be a Vector, not {describe(vector)}")
    builder().op("fly.memref.store_vec", [vector.ir, t.ir])


def _coord(api, t, indices):
    indices = from_ir(indices)
    if isinstance(indices, nm.Numeric) and not isinstance(indices, nm.Vector):
        return indices if indices.mlir_type in ("i32", "i64") else nm.convert(indices, nm.Int32)
    if isinstance(indices, int) and not isinstance(indices, bool):
        return nm.constant(indices, nm.Int32)
    return _tuple_arg(api, "indices", indices)


def memref_load(memref, indices):
    """The element at a coordinate (or 1-D index); for a coordinate
    tensor, its value there (an IntTuple)."""
    t = expect("memref_load", "memref", memref, _TENSOR)
    if t.ir.type.kind == "coord_tensor":
        return emit("fly.slice", t, _tuple_arg("memref_load", "indices", indices)).iterator
    c = _coord("memref_load", t, indices)
    (v,) = builder().op("fly.memref.load", [t.ir, c.ir], [t.ir.type.element_type])
    return nm.wrap(v)


def memref_store(value, memref, indices):
    """Store value at a coordinate (or 1-D index)."""
    t = expect("memref_store", "memref", memref, _MEMREF)
    c = _coord("memref_store", t, indices)
    value = from_ir(value)
    if isinstance(value, nm.Numeric):
        v = value if type(value) is t.element_type else nm.convert(value, t.element_type)
    elif isinstance(value, (bool, int, float)):
        v = nm.constant(value, t.element_type)
    else:
        fail("memref_store", f"argument 'value' must be a number or a dynamic value, not {describe(value)}")
    builder().op("fly.memref.store", [v.ir, t.ir, c.ir])


def assume(result_type, dst, src):
    """FlyDSL's assume (work in progress there too): not supported."""
    fail("assume", "not supported")


slice = slice_  # noqa: A001 - FlyDSL's name of fly.slice
slice.__name__ = slice.__qualname__ = "slice"


provide(idx2crd=idx2crd, get_flat_coord=get_flat_coord, get_1d_coord=get_1d_coord,
        to_llvm_ptr=to_llvm_ptr, ptr_load=ptr_load, ptr_store=ptr_store, add_offset=add_offset,
        make_view=make_view, memref_load=memref_load, memref_store=memref_store,
        memref_load_vec=memref_load_vec, memref_store_vec=memref_store_vec,
        atom_set_value=atom_set_value, tiled_copy_retile=tiled_copy_retile,
        mma_make_fragment=mma_make_fragment)
