"""The core of the Fly values of traced code: the base class, the
registry that gives each Fly type kind its Python class, emitting an op
with the result types C++ infers, and lifting Python values.

Python arguments are lifted: ints and tuples of ints become `fly.static`
int tuples, dynamic numerics their leaves (`fly.make_int_tuple`), `None` a
`*` (keep) mode. The value classes themselves (IntTuple, Layout, Tensor,
...) live in `typing` and register here by kind; the functions over them
in `primitive`.
"""

from __future__ import annotations

from ..tracing.errors import TraceError
from ..tracing.ir import Value, infer, parse_type, user_location
from ..tracing import tracer as _tracer
from ..tracing.trace import builder
from . import numeric as nm


class FlyValue:
    """An SSA value of a Fly type."""

    def __init__(self, value):
        # An SSA value of the tracer, or another Fly value (its value).
        self.ir = value.ir if isinstance(value, FlyValue) else value

    @property
    def type(self):
        return self.ir.type

    @property
    def __fly_dynamic__(self):
        return not self.ir.type.is_static

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ir.type})"

    def __iter__(self):
        # Without this, Python would iterate a value with __getitem__ by
        # indexing 0, 1, 2, ... without end (each a load of a tensor).
        raise TraceError(f"a {type(self).__name__} is not iterable (index its modes, or "
                         "unpack() an int tuple)", *user_location()[:2])


# The Python class of each Fly type kind ("layout" -> typing.Layout), filled
# by `register` when the classes are defined; a kind without one is a
# FlyValue.
_CLASSES: dict = {}


def register(kind: str):
    """Class decorator: values of this Fly type kind are wrapped in it."""
    def add(cls):
        _CLASSES[kind] = cls
        return cls
    return add


def is_kind(x, kind: str) -> bool:
    return isinstance(x, FlyValue) and x.ir.type.kind == kind


def wrap(v: Value):
    """The Python object of an SSA value (Fly types by kind, numerics)."""
    t = v.type
    if not t.is_fly:
        return nm.wrap(v)
    return _CLASSES.get(t.kind, FlyValue)(v)


def _emit(op, operands, attrs="", result_types=None):
    """Emits op on FlyValue/Numeric operands; infers the result types
    unless given. Returns the SSA results."""
    irs = [o.ir for o in operands]
    types = infer(op, irs, attrs) if result_types is None else result_types
    return builder().op(op, irs, types, attrs)


def emit(op, *operands, attrs=""):
    """The Python objects of what `op` returns on these operands (lifted)."""
    results = _emit(op, [lift(o) for o in operands], attrs)
    objs = [wrap(r) for r in results]
    return objs[0] if len(objs) == 1 else tuple(objs)


def infer_types(op, operands, attrs=""):
    """The result types C++ infers for `op` on these FlyValue/Numeric operands."""
    return infer(op, [o.ir for o in operands], attrs)


def fail(api: str, message: str):
    """A TraceError at the user's line, naming the API: `fx.<api>: ...`."""
    raise TraceError(f"fx.{api}: {message}", *user_location()[:2])


def static_value(t):
    """The value of a static type (a type handle or its text): `fly.static`."""
    if isinstance(t, str):
        t = parse_type(t)
    (v,) = builder().op("fly.static", [], [t])
    return wrap(v)


def dynamic_leaves(x):
    """The dynamic leaves of a Fly value as numerics (`fly.get_leaves`),
    depth-first."""
    return [nm.wrap(v) for v in _emit("fly.get_leaves", [x])]


def tile_modes(t) -> list[str]:
    """The texts of the top-level modes of a tile type (`[8|4:2|*]`)."""
    from ._ir_types import _split_tile
    return _split_tile(str(t)[len("!fly.tile<"):-1])


_KIND_NAMES = {"int_tuple": "an IntTuple", "layout": "a Layout", "composed_layout": "a ComposedLayout",
               "swizzle": "a Swizzle", "coord_swizzle": "a CoordSwizzle", "tile": "a Tile", "ptr": "a Pointer", "memref": "a Tensor",
               "coord_tensor": "a coordinate Tensor", "copy_atom": "a CopyAtom",
               "mma_atom": "an MmaAtom", "tiled_copy": "a TiledCopy", "tiled_mma": "a TiledMma"}


def describe(x) -> str:
    if isinstance(x, FlyValue):
        return f"{_KIND_NAMES.get(x.ir.type.kind, 'a value')} ({x.ir.type})"
    if isinstance(x, nm.Numeric):
        return f"a {type(x).__name__}"
    return f"{type(x).__name__} {x!r}"[:120]


def from_ir(x):
    """A raw SSA value (what FlyDSL's `x.ir_value()` gives) as the object
    of its type (`wrap`), where an API takes a traced value; x else."""
    return wrap(x) if isinstance(x, Value) else x


def expect(api: str, name: str, x, kinds, what: str | None = None):
    """`x` when it is a Fly value of one of `kinds` (or the raw SSA value of
    one); a TraceError naming the API and the argument otherwise."""
    x = from_ir(x)
    if isinstance(x, FlyValue) and x.ir.type.kind in kinds:
        return x
    what = what or " or ".join(_KIND_NAMES.get(k, k) for k in kinds)
    fail(api, f"argument '{name}' must be {what}, not {describe(x)}")


# -- lifting Python values ----------------------------------------------------

def _leaf_text(x):
    if x is None:
        return "*"
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    if isinstance(x, nm.Numeric):
        if x.is_float:
            raise TraceError("a float in an int tuple", *user_location()[:2])
        return "?{i64}" if getattr(type(x), "bits", 32) == 64 else "?"
    if is_kind(x, "int_tuple"):
        v = x.ir.type.value
        if isinstance(v, int):
            return str(v)
    raise TraceError(f"cannot use {x!r} in an int tuple", *user_location()[:2])


def _pattern(x, leaves):
    """The int_tuple type text of a Python tuple; dynamic leaves collected.
    A value of a class with __int_tuple_pattern__(leaves) (a basis leaf of
    typing, above this layer) gives its own text."""
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(_pattern(e, leaves) for e in x) + ")"
    x = nm.lift(x)  # a raw integer value (an ArithValue) as its numeric
    own = getattr(type(x), "__int_tuple_pattern__", None)
    if own is not None:
        return own(x, leaves)
    if is_kind(x, "int_tuple") and not isinstance(x.ir.type.value, int):
        if isinstance(x.ir.type.value, tuple):
            # A dynamic sub-tuple: its leaves one by one.
            return _pattern(tuple(mode(x, i) for i in range(len(x.ir.type.value))), leaves)
        (scalar,) = _emit("fly.get_scalar", [x])
        scalar = nm.wrap(scalar)
        leaves.append(scalar)
        return _leaf_text(scalar)
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector) and x.is_static() \
            and x.is_integer:
        return _leaf_text(int(x.host_value))  # a folded numeric is a static leaf
    if isinstance(x, nm.Numeric):
        leaves.append(x if x.mlir_type in ("i32", "i64") else nm.convert(x, nm.Int32))
        return _leaf_text(leaves[-1])
    return _leaf_text(x)


def int_tuple(x):
    """`x` (an int, a numeric, None, or a tuple of them) as an IntTuple."""
    if is_kind(x, "int_tuple"):
        return x
    leaves: list = []
    text = _pattern(x, leaves)
    t = parse_type(f"!fly.int_tuple<{text}>")
    if not leaves:
        (v,) = builder().op("fly.static", [], [t])
    else:
        (v,) = builder().op("fly.make_int_tuple", [leaf.ir for leaf in leaves], [t])
    return wrap(v)


def tile(x):
    """A tiler from a tuple of ints / None (`*`) / layouts."""
    if is_kind(x, "tile"):
        return x
    if isinstance(x, (int, type(None))):
        x = (x,)
    parts = []
    for m in x:
        if m is None:
            parts.append("*")
        elif isinstance(m, int):
            parts.append(str(m))
        elif is_kind(m, "layout") and m.ir.type.is_static:
            parts.append(str(m.ir.type)[len("!fly.layout<"):-1])
        else:
            raise TraceError(f"a tiler mode must be an int, None or a static layout, not {m!r}",
                             *user_location()[:2])
    (v,) = builder().op("fly.static", [], [parse_type("!fly.tile<[" + "|".join(parts) + "]>")])
    return wrap(v)


def lift(x):
    """Python ints/tuples become IntTuples; Fly values and numerics pass."""
    if isinstance(x, (FlyValue, nm.Numeric)):
        return x
    return int_tuple(x)


def mode(t, i):
    """Mode `i` (an int or a path of ints) of an int tuple, layout, tensor."""
    path = list(i) if isinstance(i, (tuple, list)) else [i]
    return emit("fly.get", t, attrs="mode = array<i64: " + ", ".join(str(int(m)) for m in path) + ">")


def has_keep(coord):
    if coord is None:
        return True
    if isinstance(coord, (tuple, list)):
        return any(has_keep(c) for c in coord)
    return False


def index_operand(coord):
    if isinstance(coord, nm.Numeric):
        return nm.convert(coord, nm.Int32)
    if isinstance(coord, int):
        return nm.constant(coord, nm.Int32)
    return int_tuple(coord)


# -- what the tracer needs of traced values ----------------------------------------

def _rewrap(like, value: Value):
    """An SSA value (a branch's or loop's result) as an object of like's class."""
    if isinstance(like, nm.Vector):
        return nm.Vector(value, like.element)
    if isinstance(like, nm.Numeric):
        return type(like)(value)
    if isinstance(like, FlyValue):
        try:
            return type(like)(value)
        except TypeError:
            return wrap(value)
    return wrap(value)


def _condition(x):
    """x (a numeric or a raw scalar value) as a scalar i1 numeric (`x != 0`
    for other numerics), or None."""
    x = nm.lift(x)
    if is_kind(x, "int_tuple"):
        x = x.to_scalar()
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector):
        if x.mlir_type == "i1":
            return x
        return x != (0.0 if x.is_float else 0)
    return None


def _promote(x, other):
    """The Python number x as a numeric: of other's type when other is a
    numeric, of the common type of the two when other is a Python number;
    None when other is a vector or neither."""
    if isinstance(other, nm.Numeric):
        return None if isinstance(other, nm.Vector) else nm.constant(x, type(other))
    if isinstance(other, (bool, int, float)):
        return nm.constant(x, nm.promote(nm.literal_class(x), nm.literal_class(other)))
    return None


def _loop_bound(x):
    if is_kind(x, "int_tuple"):
        x = x.to_scalar()
    return nm.convert(x, nm.Int32)


def _boolean(x):
    return nm.Boolean(x) if isinstance(x, Value) else nm.constant(bool(x), nm.Boolean)


_tracer.VALUES.register(rewrap=_rewrap, condition=_condition, promote=_promote,
                        loop_bound=_loop_bound, boolean=_boolean, int32=nm.Int32)
