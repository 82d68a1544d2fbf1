"""Fly values of the traced code: int tuples, layouts, tiles, tensors.

Each object holds an SSA value whose type (a handle of the C++ context)
says everything static about it; every operation emits the Fly op of the
same name with the result type C++ infers. Python arguments are lifted:
ints and tuples of ints become `fly.static` int tuples, dynamic numerics
their leaves (`fly.make_int_tuple`), `None` a `*` (keep) mode.
"""

from __future__ import annotations

from ..compiler.errors import TraceError
from ..compiler.ir import Value, infer, parse_type, user_location
from ..compiler.trace import builder
from . import numeric as nm


class FlyValue:
    """An SSA value of a Fly type."""

    def __init__(self, ir: Value):
        self.ir = ir

    @property
    def type(self):
        return self.ir.type

    @property
    def __fly_dynamic__(self):
        return not self.ir.type.is_static

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ir.type})"


class IntTuple(FlyValue):
    """A shape, stride or coordinate."""

    @property
    def value(self):
        """The Python value: ints, None for dynamic leaves, nested tuples."""
        return self.ir.type.value

    def __getitem__(self, i):
        return get(self, i)

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

    def __add__(self, o): return _tuple_op("fly.int_tuple_add", self, o)
    def __radd__(self, o): return _tuple_op("fly.int_tuple_add", o, self)
    def __sub__(self, o): return _tuple_op("fly.int_tuple_sub", self, o)
    def __mul__(self, o): return _tuple_op("fly.int_tuple_mul", self, o)
    def __rmul__(self, o): return _tuple_op("fly.int_tuple_mul", o, self)
    def __floordiv__(self, o): return _tuple_op("fly.int_tuple_div", self, o)
    def __mod__(self, o): return _tuple_op("fly.int_tuple_mod", self, o)


class Layout(FlyValue):
    @property
    def shape(self):
        return wrap(_emit("fly.get_shape", [self])[0])

    @property
    def stride(self):
        return wrap(_emit("fly.get_stride", [self])[0])

    def __call__(self, *coord):
        return crd2idx(coord if len(coord) != 1 else coord[0], self)


class ComposedLayout(FlyValue):
    pass


class Swizzle(FlyValue):
    pass


class Tile(FlyValue):
    pass


class Atom(FlyValue):
    """A copy or MMA operation, atom or tiled atom (static by type)."""


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
        if _has_keep(coord):
            return slice_(self, coord)
        if self.is_coord_tensor:
            # The value of a coordinate tensor at `coord`: its base moved.
            return slice_(self, coord).iterator
        c = _index_operand(coord)
        (v,) = builder().op("fly.memref.load", [self.ir, c.ir if isinstance(c, FlyValue) else c.ir],
                            [self.ir.type.element_type])
        return nm.wrap(v)

    def __setitem__(self, coord, value):
        c = _index_operand(coord)
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


_CLASSES = {"int_tuple": IntTuple, "layout": Layout, "composed_layout": ComposedLayout,
            "swizzle": Swizzle, "tile": Tile, "memref": Tensor, "coord_tensor": Tensor}


def wrap(v: Value):
    """The Python object of an SSA value (Fly types by kind, numerics)."""
    t = v.type
    if not t.is_fly:
        return nm.wrap(v)
    return _CLASSES.get(t.kind, Atom)(v)


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
    if isinstance(x, IntTuple):
        v = x.value
        if isinstance(v, int):
            return str(v)
    raise TraceError(f"cannot use {x!r} in an int tuple", *user_location()[:2])


def _pattern(x, leaves):
    """The int_tuple type text of a Python tuple; dynamic leaves collected."""
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(_pattern(e, leaves) for e in x) + ")"
    if isinstance(x, IntTuple) and not isinstance(x.value, int):
        if isinstance(x.value, tuple):
            # A dynamic sub-tuple: its leaves one by one.
            return _pattern(tuple(x[i] for i in range(len(x))), leaves)
        scalar = x.to_scalar()
        leaves.append(scalar)
        return _leaf_text(scalar)
    if isinstance(x, nm.Numeric):
        leaves.append(x if x.mlir_type in ("i32", "i64") else nm.convert(x, nm.Int32))
        return _leaf_text(leaves[-1])
    return _leaf_text(x)


def int_tuple(x) -> IntTuple:
    """`x` (an int, a numeric, None, or a tuple of them) as an IntTuple."""
    if isinstance(x, IntTuple):
        return x
    leaves: list = []
    text = _pattern(x, leaves)
    t = parse_type(f"!fly.int_tuple<{text}>")
    if not leaves:
        (v,) = builder().op("fly.static", [], [t])
    else:
        (v,) = builder().op("fly.make_int_tuple", [leaf.ir for leaf in leaves], [t])
    return IntTuple(v)


def tile(x) -> Tile:
    """A tiler from a tuple of ints / None (`*`) / layouts."""
    if isinstance(x, Tile):
        return x
    if isinstance(x, (int, type(None))):
        x = (x,)
    parts = []
    for m in x:
        if m is None:
            parts.append("*")
        elif isinstance(m, int):
            parts.append(str(m))
        elif isinstance(m, Layout) and m.ir.type.is_static:
            parts.append(str(m.ir.type)[len("!fly.layout<"):-1])
        else:
            raise TraceError(f"a tiler mode must be an int, None or a static layout, not {m!r}",
                             *user_location()[:2])
    (v,) = builder().op("fly.static", [], [parse_type("!fly.tile<[" + "|".join(parts) + "]>")])
    return Tile(v)


def lift(x):
    """Python ints/tuples become IntTuples; Fly values and numerics pass."""
    if isinstance(x, (FlyValue, nm.Numeric)):
        return x
    return int_tuple(x)


def _has_keep(coord):
    if coord is None:
        return True
    if isinstance(coord, (tuple, list)):
        return any(_has_keep(c) for c in coord)
    return False


def _index_operand(coord):
    if isinstance(coord, nm.Numeric):
        return nm.convert(coord, nm.Int32)
    if isinstance(coord, int):
        return nm.constant(coord, nm.Int32)
    return int_tuple(coord)


def _tuple_op(op, a, b):
    return emit(op, a, b)


# -- the algebra (SPEC §2.3) --------------------------------------------------

def make_layout(shape, stride=None):
    if stride is None:
        return emit("fly.make_layout", shape)
    return emit("fly.make_layout", shape, stride)


def make_ordered_layout(shape, order):
    return emit("fly.make_ordered_layout", shape, order)


def make_identity_layout(shape):
    return emit("fly.make_identity_layout", shape)


def make_layout_like(layout):
    return emit("fly.make_layout_like", layout)


def make_identity_tensor(shape):
    """The coordinate tensor whose value at c is c."""
    shape = int_tuple(shape)
    zero = int_tuple(tuple(0 for _ in range(len(shape)))) if isinstance(shape.value, tuple) else int_tuple(0)
    return make_view(zero, make_identity_layout(shape))


def make_view(iterator, layout):
    return emit("fly.make_view", iterator, layout)


def get(t, i):
    mode = list(i) if isinstance(i, (tuple, list)) else [i]
    return emit("fly.get", t, attrs="mode = array<i64: " + ", ".join(str(int(m)) for m in mode) + ">")


def slice_(t, coord):
    return emit("fly.slice", t, coord)


def crd2idx(coord, layout):
    return emit("fly.crd2idx", coord, layout)


def idx2crd(index, layout):
    return emit("fly.idx2crd", index, layout)


def size(x, mode=None):
    s = emit("fly.size", x if mode is None else get(x, mode))
    return s.value if isinstance(s.value, int) else s


def cosize(x):
    return emit("fly.cosize", x)


def rank(x):
    return emit("fly.rank", x).value


def depth(x):
    return emit("fly.depth", x).value


def elem_less(a, b):
    """1 (as a dynamic Boolean) when a < b in every mode."""
    r = emit("fly.elem_less", a, b)
    v = r.to_scalar()
    return bool(v) if isinstance(v, int) else (v != 0)


def _algebra(name):
    def f(a, b):
        return emit(f"fly.{name}", a, tile(b) if isinstance(b, (tuple, list)) else b)
    f.__name__ = name
    return f


def _unary(name):
    def f(a):
        return emit(f"fly.{name}", a)
    f.__name__ = name
    return f


composition = _algebra("composition")
logical_divide = _algebra("logical_divide")
zipped_divide = _algebra("zipped_divide")
tiled_divide = _algebra("tiled_divide")
flat_divide = _algebra("flat_divide")
logical_product = _algebra("logical_product")
zipped_product = _algebra("zipped_product")
tiled_product = _algebra("tiled_product")
flat_product = _algebra("flat_product")
blocked_product = _algebra("blocked_product")
raked_product = _algebra("raked_product")
coalesce = _unary("coalesce")
complement = _unary("complement")
right_inverse = _unary("right_inverse")
left_inverse = _unary("left_inverse")
coshape = _unary("coshape")


def make_fragment_like(t, dtype=None):
    attrs = f"element_type = {dtype.mlir_type}" if dtype is not None else ""
    return emit("fly.make_fragment_like", t, attrs=attrs)


def make_rmem_tensor(layout_or_shape, dtype):
    """A register tensor of `dtype` with this layout (a shape gets the
    compact column-major layout)."""
    layout = layout_or_shape if isinstance(layout_or_shape, Layout) else make_layout(layout_or_shape)
    if not layout.ir.type.is_static:
        raise TraceError("a register tensor needs a static layout", *user_location()[:2])
    t = parse_type(f"!fly.memref<{dtype.mlir_type}, register, "
                   f"{str(layout.ir.type)[len('!fly.layout<'):-1]}>")
    (v,) = builder().op("fly.memref.alloca", [], [t])
    return Tensor(v)


def make_swizzle(bits: int, base: int, shift: int) -> Swizzle:
    """CuTe's Swizzle<bits, base, shift> (on element indices in a composed
    layout)."""
    (v,) = builder().op("fly.static", [], [parse_type(f"!fly.swizzle<S<{bits},{base},{shift}>>")])
    return Swizzle(v)


def make_composed_layout(inner, offset, outer) -> ComposedLayout:
    """inner(offset + outer(c)): a swizzle (or layout) after a layout."""
    return emit("fly.make_composed_layout", inner, offset, outer)
