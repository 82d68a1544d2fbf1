"""The numeric side of `fx.typing`: type handles (`T`, `Types`), the vector
aliases (`Float32x4`, ...), vector constructors (`full`, `zeros_like`, ...)
and the conversions between values and SSA values (`as_ir_value`,
`as_dsl_value`); re-exported by `typing`.

FlyDSL hands out MLIR types and values here; ours are the tracer's type
handles (`flydsl._fly.Type`) and SSA values (SPEC §7).
"""

from __future__ import annotations

from ..tracing.ir import Value, parse_type
from . import numeric as nm
from ._core import wrap
from ._elementwise import fail
from ._late import provide
from .numeric import Vector

_ALIAS_LANES = {
    "BFloat16": (1, 2, 4, 8, 16), "Float4E2M1FN": (2, 4, 8, 16, 32),
    "Float8E4M3": (1, 2, 4, 8, 16), "Float8E4M3B11FNUZ": (1, 2, 4, 8, 16),
    "Float8E4M3FN": (1, 2, 4, 8, 16), "Float8E4M3FNUZ": (1, 2, 4, 8, 16),
    "Float8E5M2": (1, 2, 4, 8, 16), "Float8E8M0FNU": (1, 2, 4, 8, 16),
    "Float16": (1, 2, 4, 8, 16), "Float32": (1, 2, 4, 8), "Float64": (1, 2, 4),
    "Int4": (2, 4, 8, 16, 32), "Int8": (1, 2, 4, 8, 16), "Int16": (1, 2, 4, 8, 16),
    "Int32": (1, 2, 4, 8), "Int64": (1, 2, 4), "Int128": (1,),
    "Uint8": (1, 2, 4, 8, 16), "Uint16": (1, 2, 4, 8, 16), "Uint32": (1, 2, 4, 8),
    "Uint64": (1, 2, 4), "Uint128": (1,),
}

__all__ = ["Types", "T", "as_ir_value", "as_dsl_value", "empty_like", "full", "full_like",
           "ones_like", "zeros_like", "VectorAlias"] + [
    f"{name}x{n}" for name, counts in _ALIAS_LANES.items() for n in counts]


def _handle(elem):
    """A type handle from a handle, a numeric class or MLIR text."""
    if isinstance(elem, type) and issubclass(elem, nm.Numeric) and elem.ir_type is not None:
        return elem.ir_type
    if isinstance(elem, str):
        return parse_type(elem)
    if hasattr(elem, "kind") or type(elem).__name__ == "Type":
        return elem
    fail(f"T.vec: the element must be a type (T.f16, fx.Float16.ir_type), not {elem!r}")


class Types:
    """Type handles by name: `T.i32`, `T.f16x4` (vector<4xf16>), `T.index`,
    `T.vec(8, T.f16)`."""

    @property
    def index(self):
        return parse_type("index")

    def vec(self, n: int, elem):
        """vector<n x elem> (elem a type handle or a numeric class)."""
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            fail(f"T.vec: the length must be a positive int, not {n!r}")
        return parse_type(f"vector<{n}x{_handle(elem)}>")


def _scalar_property(cls):
    return property(lambda self: cls.ir_type, doc=f"{cls.mlir_type}")


def _vector_property(cls, n):
    return property(lambda self: self.vec(n, cls.ir_type), doc=f"vector<{n}x{cls.mlir_type}>")


for _name, _cls, _counts in [("i8", nm.Int8, (2, 4, 8, 16)), ("i16", nm.Int16, (2, 4, 8)),
                             ("i32", nm.Int32, (2, 4)), ("i64", nm.Int64, (2,)),
                             ("i128", nm.Int128, ()), ("f16", nm.Float16, (2, 4, 8)),
                             ("bf16", nm.BFloat16, (2, 4, 8)), ("f32", nm.Float32, (2, 4)),
                             ("f64", nm.Float64, ())]:
    setattr(Types, _name, _scalar_property(_cls))
    for _n in _counts:
        setattr(Types, f"{_name}x{_n}", _vector_property(_cls, _n))

T = Types()


def VectorAlias(alias_dtype, lanes):  # noqa: N802 - FlyDSL's name
    """The Vector class of `lanes` elements of `alias_dtype`, e.g.
    Float32x4: constructed from a vector value, a scalar (broadcast) or a
    list of `lanes` scalars; `.ir_type` is its type handle."""
    if not (isinstance(alias_dtype, type) and issubclass(alias_dtype, nm.Numeric)) \
            or not alias_dtype.mlir_type or alias_dtype is nm.Index:
        fail(f"VectorAlias: the element type must be a numeric class, not {alias_dtype!r}")
    shape = (lanes,)

    def __init__(self, value, shape=None, dtype=None):
        name = type(self).__name__
        if shape is not None and nm._canonical_shape(shape) != (lanes,):
            fail(f"{name}: the shape must be ({lanes},), not {shape!r}")
        if dtype is not None and dtype is not alias_dtype:
            fail(f"{name}: the dtype must be {alias_dtype.__name__}, not {dtype!r}")
        if isinstance(value, (bool, int, float)) or (
                isinstance(value, nm.Numeric) and not isinstance(value, Vector)):
            value = Vector.filled((lanes,), value, alias_dtype)
        elif isinstance(value, (list, tuple)):
            if len(value) != lanes:
                fail(f"{name}: {len(value)} elements given, {lanes} expected")
            value = Vector.from_elements(value, alias_dtype)
        if isinstance(value, Vector) and value.dtype is not alias_dtype:
            fail(f"{name}: a vector of {value.dtype.__name__}, not {alias_dtype.__name__}")
        Vector.__init__(self, value, (lanes,), alias_dtype)

    return nm.NumericMeta(f"{alias_dtype.__name__}x{lanes}", (Vector,), {
        "__module__": "flydsl.expr.typing", "__init__": __init__, "lanes": lanes,
        "alias_dtype": alias_dtype, "_ir_text": f"vector<{lanes}x{alias_dtype.mlir_type}>",
        "__doc__": f"A Vector of {lanes} {alias_dtype.__name__} (vector<{lanes}x"
                   f"{alias_dtype.mlir_type}>).", "alias_shape": shape})


for _name, _counts in _ALIAS_LANES.items():
    for _n in _counts:
        globals()[f"{_name}x{_n}"] = VectorAlias(getattr(nm, _name), _n)


def full(shape, fill_value, dtype):
    """A vector of `shape` filled with `fill_value` (as `dtype`)."""
    return Vector.filled(shape, fill_value, dtype)


def _template(fname, a):
    if not isinstance(a, Vector):
        fail(f"{fname}: the template must be a Vector, not {nm._describe(a)}")
    return a


def full_like(a, fill_value, dtype=None):
    """A vector of `a`'s shape (and dtype, unless given) filled with `fill_value`."""
    return Vector.filled_like(_template("full_like", a), fill_value, dtype)


def empty_like(a, dtype=None):
    """A vector of `a`'s shape and dtype (its contents zero here)."""
    return Vector.filled_like(_template("empty_like", a), 0, dtype)


def ones_like(a, dtype=None):
    """A vector of `a`'s shape of ones."""
    return Vector.filled_like(_template("ones_like", a), 1, dtype)


def zeros_like(a, dtype=None):
    """A vector of `a`'s shape of zeros."""
    return Vector.zeros_like(_template("zeros_like", a), dtype)


def as_ir_value(value, *, keep_static=False):
    """The SSA value of a traced value: a numeric's (a Python number or host
    numeric becomes a constant, unless `keep_static`, which keeps it as is);
    tuples and lists element by element; an SSA value or None as itself."""
    if value is None or isinstance(value, Value):
        return value
    if isinstance(value, tuple):
        return tuple(as_ir_value(v, keep_static=keep_static) for v in value)
    if isinstance(value, list):
        return [as_ir_value(v, keep_static=keep_static) for v in value]
    if isinstance(value, nm.Numeric):
        if keep_static and value.is_static():
            return value.host_value
        return value.ir_value()
    if isinstance(value, (bool, int, float)):
        return value if keep_static else nm.as_numeric(value).ir_value()
    ir = getattr(value, "ir", None)
    if isinstance(ir, Value):
        return ir
    return value


def as_dsl_value(value, exemplar=None):
    """The traced value of an SSA value (the inverse of as_ir_value): shaped
    as `exemplar` (a class, or a value whose type and shape it takes), else
    by its type (a numeric, Vector or Fly value); other objects unchanged."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        exemplars = exemplar if isinstance(exemplar, (tuple, list)) else [exemplar] * len(value)
        return type(value)(as_dsl_value(v, e) for v, e in zip(value, exemplars))
    if not isinstance(value, Value):
        return value
    if isinstance(exemplar, type):
        return exemplar(value)
    if isinstance(exemplar, Vector):
        return Vector(value, exemplar.shape, exemplar.dtype)
    if isinstance(exemplar, nm.Numeric):
        return type(exemplar)(value)
    if str(value.type).startswith("!fly."):
        return wrap(value)
    return nm.wrap(value)


provide(as_dsl_value=as_dsl_value)
