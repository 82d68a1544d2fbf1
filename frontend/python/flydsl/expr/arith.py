"""fx.arith: FlyDSL's arith API (its stable names, in `__all__`, are
exported as fx.<name> too) and our explicit constructors and conversions
(fx.arith.<name> only).

FlyDSL's names:
    FastMathFlags, RoundingMode   the arith dialect's enums
    fastmath(flags)               a `with` block whose float ops (operators,
                                  conversions, fx.math, arith.max ...) carry
                                  these fastmath flags unless given others
    cmpi / cmpf(predicate, lhs, rhs)
                                  a comparison by predicate: a CmpIPredicate /
                                  CmpFPredicate, its name ("slt", "olt") or value
    max / min(*operands)          the promoted extreme of one or more operands
                                  (floats NaN-propagating: maximumf/minimumf)
    maxnumf / maximumf / minimumf(a, b)
    ceildiv(lhs, rhs)             integer division rounding toward +inf
    shrui(value, amount)          a logical right shift keeping value's type

Ours:
    constant(value, dtype)      an arith.constant of a numeric class
    select(cond, a, b)          arith.select (scalars, vectors; with raw values
                                a raw result)
    cast(x, dtype)              a value conversion: extf/truncf/sitofp/uitofp/
                                fptosi/fptoui/extsi/extui/trunci as the types
                                ask (vectors too; `.to(dtype)` is the same);
                                to Boolean it is `x != 0`; Index via index_cast
    bitcast(x, dtype)           the same bits as another type of equal width
    index_cast(x, dtype)        integer <-> Index (arith.index_cast, or
                                index_castui for unsigned integers); both
                                also in FlyDSL's (type, value) order, where a
                                raw value (ArithValue) gives an ArithValue
    ceil_div(a, b)              as ceildiv, folding Python ints
    shl(x, n), shr(x, n)        shifts; shr is arithmetic for signed types and
                                logical for unsigned ones (or as `arithmetic=`)

FlyDSL's helpers on raw values (from flydsl.expr.utils.arith; ArithValues
out): index(n), unwrap(x), constant_vector(x, vector_type),
int_to_fp(x, signed, elem_type), sitofp(type, x), trunc_f(type, x),
andi / xori / shli(a, b), resolve_fastmath(explicit).

Extra keyword arguments (**kwargs) are those of FlyDSL's MLIR builders:
`loc` and `ip` are accepted and ignored (locations come from the source
line), any other is an error naming it.
"""

from __future__ import annotations

import builtins
import enum
import math as _pymath

from .. import _fly
from ..tracing.ir import Value
from ..tracing.trace import builder
from . import numeric as nm
from ._elementwise import (cmp, compare, convert, element, emit, fail,
                           fastmath_attr, is_static, type_like, unify, wrap_like)
from ._elementwise import select as _select
from .numeric import Index  # noqa: F401 - fx.arith.Index, as before
from ._late import provide
from .._mlir.dialects import arith as _raw_arith
from .utils.arith import select as _raw_select
from .utils.arith import (ArithValue, _to_raw, andi, constant_vector, fastmath,  # noqa: F401
                          index, int_to_fp, resolve_fastmath, shli, sitofp, trunc_f, unwrap,
                          xori)  # FlyDSL's fx.arith names for raw values

__all__ = ["FastMathFlags", "RoundingMode", "fastmath", "cmpi", "cmpf", "max", "min", "maxnumf",
           "maximumf", "minimumf", "ceildiv", "shrui"]


class FastMathFlags(enum.Flag):
    """The arith dialect's fastmath flags; combine them with `|`."""

    none = 0
    reassoc = 1
    nnan = 2
    ninf = 4
    nsz = 8
    arcp = 16
    contract = 32
    afn = 64
    fast = 127

    def __str__(self) -> str:
        if self.value == 0:
            return "none"
        if self.value == 127:
            return "fast"
        return ",".join(f.name for f in FastMathFlags
                        if f.value and f.value != 127 and self.value & f.value)


class RoundingMode(enum.IntEnum):
    """The arith dialect's rounding modes (of `.to(dtype, rounding_mode=)`)."""

    to_nearest_even = 0
    downward = 1
    upward = 2
    toward_zero = 3
    to_nearest_away = 4


class CmpIPredicate(enum.IntEnum):
    """arith.cmpi's predicates."""

    eq = 0
    ne = 1
    slt = 2
    sle = 3
    sgt = 4
    sge = 5
    ult = 6
    ule = 7
    ugt = 8
    uge = 9


class CmpFPredicate(enum.IntEnum):
    """arith.cmpf's predicates (o: ordered, false with a NaN; u: unordered)."""

    AlwaysFalse = 0
    OEQ = 1
    OGT = 2
    OGE = 3
    OLT = 4
    OLE = 5
    ONE = 6
    ORD = 7
    UEQ = 8
    UGT = 9
    UGE = 10
    ULT = 11
    ULE = 12
    UNE = 13
    UNO = 14
    AlwaysTrue = 15


def check_kwargs(fname: str, kwargs) -> None:
    """FlyDSL's builders take `loc`/`ip`; anything else is a user error."""
    for key in kwargs:
        if key not in ("loc", "ip"):
            fail(f"{fname}() got an unexpected keyword argument {key!r}")


def _predicate(fname, enum_cls, predicate):
    if isinstance(predicate, enum_cls):
        return int(predicate)
    if isinstance(predicate, str):
        for member in enum_cls:
            if member.name.lower() == predicate.lower() or (
                    predicate.lower() in ("false", "true")
                    and member.name.lower() == "always" + predicate.lower()):
                return int(member)
    if isinstance(predicate, int) and not isinstance(predicate, bool) \
            and 0 <= predicate < len(enum_cls):
        return predicate
    fail(f"{fname}: unknown predicate {predicate!r} (one of "
         f"{', '.join(m.name for m in enum_cls)})")


_CMPF_NAMES = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
               "ult", "ule", "une", "uno", "true"]


def cmpi(predicate, lhs, rhs, **kwargs):
    """An integer comparison (arith.cmpi) by `predicate`: a CmpIPredicate,
    its name ("slt") or value; a Boolean (a vector of them for vectors)."""
    check_kwargs("fx.arith.cmpi", kwargs)
    pred = _predicate("fx.arith.cmpi", CmpIPredicate, predicate)
    lhs, rhs = unify("fx.arith.cmpi", lhs, rhs)
    if element(lhs).is_float:
        fail(f"fx.arith.cmpi compares integers, not {element(lhs).__name__} (use fx.arith.cmpf)")
    return cmp("arith.cmpi", CmpIPredicate(pred).name, lhs, rhs)


def cmpf(predicate, lhs, rhs, **kwargs):
    """A float comparison (arith.cmpf) by `predicate`: a CmpFPredicate, its
    name ("olt", "une", "false") or value; `fastmath=` as for float ops."""
    fm = kwargs.pop("fastmath", None)
    check_kwargs("fx.arith.cmpf", kwargs)
    pred = _predicate("fx.arith.cmpf", CmpFPredicate, predicate)
    lhs, rhs = unify("fx.arith.cmpf", lhs, rhs)
    if not element(lhs).is_float:
        fail(f"fx.arith.cmpf compares floats, not {element(lhs).__name__} (use fx.arith.cmpi)")
    return cmp("arith.cmpf", _CMPF_NAMES[pred], lhs, rhs, fm)


def _flatten(operands):
    out = []
    for o in operands:
        out.extend(_flatten(o) if isinstance(o, (list, tuple)) else [o])
    return out


def _fold_extreme(values, is_max, is_float):
    result = values[0]
    for v in values[1:]:
        if is_float and (_pymath.isnan(result) or _pymath.isnan(v)):
            return _pymath.nan
        if is_float and result == 0.0 and v == 0.0:  # -0 < +0
            neg = (_pymath.copysign(1.0, result) < 0, _pymath.copysign(1.0, v) < 0)
            result = -0.0 if (all(neg) if is_max else any(neg)) else 0.0
        else:
            result = builtins.max(result, v) if is_max else builtins.min(result, v)
    return result


def _extreme(fname, is_max, operands, fm, kwargs):
    check_kwargs(f"fx.arith.{fname}", kwargs)
    values = _flatten(operands)
    if not values:
        fail(f"fx.arith.{fname} needs at least one operand")
    for v in values:
        if isinstance(v, nm.Numeric) and element(v) is Index:
            fail(f"fx.arith.{fname} does not take Index; cast to an integer type first")
        if isinstance(v, nm.Numeric) and element(v).is_float and element(v).width < 16:
            fail(f"fx.arith.{fname} does not take {element(v).__name__} (a storage type)")
    if all(is_static(v) for v in values):
        cls = nm.literal_class(values[0])
        for v in values[1:]:
            cls = nm.promote(cls, nm.literal_class(v))
        cls = nm.Int32 if cls is nm.Boolean else cls
        return cls(_fold_extreme([cls.zero.__class__(v) for v in values], is_max, cls.is_float))
    values = [nm.Int32(v) if isinstance(v, nm.Numeric) and element(v) is nm.Boolean
              and not isinstance(v, nm.Vector) else v for v in values]
    values = unify(f"fx.arith.{fname}", *values, promote_literals=True)
    if len(values) == 1:
        return values[0]
    cls = element(values[0])
    if cls.is_float:
        op = "arith.maximumf" if is_max else "arith.minimumf"
        attrs = fastmath_attr(fm)
    else:
        op = f"arith.{'max' if is_max else 'min'}{'si' if cls.signed else 'ui'}"
        attrs = ""
    result = values[0]
    for v in values[1:]:
        result = emit(op, [result, v], result, cls, attrs)
    return result


def max(*operands, fastmath=None, **kwargs):  # noqa: A001 - FlyDSL's name
    """The maximum of one or more operands (nested lists too), promoted as
    arithmetic operands are (Python numbers as Int32/Float32). Floats:
    arith.maximumf (a NaN wins; -0 < +0); integers maxsi/maxui."""
    return _extreme("max", True, operands, fastmath, kwargs)


def min(*operands, fastmath=None, **kwargs):  # noqa: A001 - FlyDSL's name
    """The minimum of one or more operands (see `max`): minimumf, minsi/minui."""
    return _extreme("min", False, operands, fastmath, kwargs)


def _float_pair(fname, op, a, b, fm, kwargs):
    check_kwargs(f"fx.arith.{fname}", kwargs)
    a, b = unify(f"fx.arith.{fname}", a, b)
    if not element(a).is_float:
        fail(f"fx.arith.{fname} takes floats, not {element(a).__name__}")
    return emit(op, [a, b], a, element(a), fastmath_attr(fm))


def maxnumf(a, b, *, fastmath=None, **kwargs):
    """The float maximum returning the other operand when one is NaN
    (arith.maxnumf, libm's fmax)."""
    return _float_pair("maxnumf", "arith.maxnumf", a, b, fastmath, kwargs)


def maximumf(a, b, *, fastmath=None, **kwargs):
    """The NaN-propagating float maximum (arith.maximumf; -0 < +0)."""
    return _float_pair("maximumf", "arith.maximumf", a, b, fastmath, kwargs)


def minimumf(a, b, *, fastmath=None, **kwargs):
    """The NaN-propagating float minimum (arith.minimumf; -0 < +0)."""
    return _float_pair("minimumf", "arith.minimumf", a, b, fastmath, kwargs)


def _int_operands(fname, a, b):
    a, b = unify(f"fx.arith.{fname}", a, b, promote_literals=True)
    if element(a).is_float:
        fail(f"fx.arith.{fname} takes integers, not {element(a).__name__}")
    return a, b


def ceildiv(lhs, rhs, **kwargs):
    """lhs / rhs rounded toward +infinity, for integers promoted as
    arithmetic operands are (arith.ceildivsi; ceildivui for unsigned
    types). Python ints fold; dividing by zero is undefined."""
    check_kwargs("fx.arith.ceildiv", kwargs)
    if is_static(lhs) and is_static(rhs):
        if isinstance(lhs, float) or isinstance(rhs, float):
            fail("fx.arith.ceildiv takes integers")
        if rhs == 0:
            fail("fx.arith.ceildiv: division by zero")
        cls = nm.promote(nm.literal_class(lhs), nm.literal_class(rhs))
        return cls(-(-int(lhs) // int(rhs)))
    for v in (lhs, rhs):
        if isinstance(v, nm.Numeric) and element(v) in (Index, nm.Boolean):
            fail(f"fx.arith.ceildiv does not take {element(v).__name__}")
    lhs, rhs = _int_operands("ceildiv", lhs, rhs)
    cls = element(lhs)
    return emit("arith.ceildivsi" if cls.signed else "arith.ceildivui", [lhs, rhs], lhs, cls)


def shrui(value, amount, *, is_exact=False, **kwargs):
    """value >> amount, logical (zeros shifted in) whatever value's
    signedness; the result keeps value's type. `is_exact` promises that no
    1 bit is shifted out (else the result is poison)."""
    check_kwargs("fx.arith.shrui", kwargs)
    if not isinstance(value, nm.Numeric):
        fail(f"fx.arith.shrui: the value must be an integer numeric, not {nm._describe(value)}")
    cls = element(value)
    if cls.is_float:
        fail(f"fx.arith.shrui takes integers, not {cls.__name__}")
    if isinstance(amount, nm.Numeric) and element(amount).is_float:
        fail(f"fx.arith.shrui: the amount must be an integer, not {element(amount).__name__}")
    amount = convert(amount, cls) if not isinstance(amount, nm.Vector) else cast(amount, cls)
    if isinstance(value, nm.Vector) and not isinstance(amount, nm.Vector):
        amount = nm._prepare(amount, cls, value.shape)
    return emit("arith.shrui", [value, amount], value, cls, "isExact" if is_exact else "")


# -- the dialect's own builders ------------------------------------------------------
# FlyDSL's fx.arith holds the arith dialect's builders (flydsl._mlir,
# generated from ArithOps.td): `fx.arith.addf(a, b)`, `fx.arith.AddFOp`, the
# generated enums. Their operands may be fx values; their results are raw
# values (ArithValues). The names this module defines itself below (cmpi,
# select, constant, index_cast, ... and the enums of its __all__) replace the
# dialect's, as in FlyDSL.
def _dialect_names(module):
    for name, value in vars(module).items():
        if name.startswith("_") or not getattr(value, "__module__", "").startswith(
                "flydsl._mlir.dialects._arith_"):
            continue
        yield name, value


globals().update((name, value) for name, value in _dialect_names(_raw_arith)
                 if name not in globals())


# -- ours ------------------------------------------------------------------------


def _check_class(fname, dtype):
    if not (isinstance(dtype, type) and issubclass(dtype, nm.Numeric)) or dtype is nm.Vector \
            or not dtype.mlir_type:
        fail(f"fx.arith.{fname}: the type must be a numeric class such as fx.Int32 or "
             f"fx.Float32, not {dtype!r}")


def constant(value, dtype=None, *, type=None, index=False):  # noqa: A002 - FlyDSL's name
    """`value` (a Python bool, int or float) as an arith.constant of `dtype`
    (an integer must fit the type, read signed or unsigned). FlyDSL's
    keywords work too: `type=` a type handle (`fx.T.f32`) or numeric
    class, `index=True` an Index; with neither, a float is a Float32, a
    bool a Boolean and an int an Int32."""
    if dtype is None:
        if index:
            dtype = Index
        elif type is not None:
            dtype = type if isinstance(type, builtins.type) else nm.numeric_class(str(type))
        else:
            dtype = (nm.Boolean if isinstance(value, bool) else nm.Float32
                     if isinstance(value, float) else nm.Int32)
    _check_class("constant", dtype)
    if not isinstance(value, (bool, int, float)):
        fail(f"fx.arith.constant: the value must be a Python number, not {type(value).__name__}")
    if isinstance(value, float) and not dtype.is_float and not value.is_integer():
        fail(f"fx.arith.constant: {value!r} is not a value of the integer type {dtype.__name__}")
    if not dtype.is_float and dtype is not Index and dtype is not nm.Boolean:
        low = -(1 << (dtype.width - 1)) if dtype.signed else 0
        high = (1 << (dtype.width - (1 if dtype.signed else 0))) - 1
        if not low <= int(value) <= high:
            fail(f"fx.arith.constant: {int(value)} is out of range for {dtype.__name__}")
    return nm.constant(value, dtype)


def select(cond, a, b):
    """`a` where the Boolean `cond` holds, else `b` (arith.select); a and b
    combine like the operands of arithmetic (Python numbers take the other's
    type). A vector condition selects elementwise. With a raw value among
    them (an i1 condition from ArithValue comparisons, ...), as FlyDSL's
    raw select: the result is a raw value (an ArithValue) too."""
    if isinstance(cond, Value) or isinstance(a, Value) or isinstance(b, Value):
        return _raw_select(cond, a, b)
    return _select(cond, a, b, fname="fx.arith.select")


def _is_type(t) -> bool:
    return (isinstance(t, builtins.type) and issubclass(t, nm.Numeric)) or \
        isinstance(t, _fly.Type) or isinstance(getattr(t, "handle", None), _fly.Type)


def _flydsl_order(a, b):
    """(value, class, raw) of a call written (value, dtype) or, as FlyDSL's
    raw builders are, (type, value): the type a numeric class or a type
    handle (its element class for a vector type); a raw SSA value (an
    ArithValue) as its numeric, `raw` saying the result goes back raw."""
    if _is_type(a) and not _is_type(b):
        a, b = b, a
    if not (isinstance(b, builtins.type) and issubclass(b, nm.Numeric)) and _is_type(b):
        handle = getattr(b, "handle", b)
        b = nm.numeric_class(str(handle.element_type if handle.kind == "vector" else handle))
    raw = isinstance(a, Value)
    return (ArithValue(a)._numeric() if raw else a), b, raw


def _raw_result(x, raw):
    return ArithValue(x.ir_value()) if raw else x


def index_cast(x, dtype):
    """An integer as Index, or an Index as another integer type (arith.index_cast;
    arith.index_castui when the integer is unsigned). FlyDSL's order
    `index_cast(T.index, value)` works too; a raw value gives an ArithValue."""
    x, dtype, raw = _flydsl_order(x, dtype)
    return _raw_result(_index_cast(x, dtype), raw)


def _index_cast(x, dtype):
    _check_class("index_cast", dtype)
    if is_static(x):
        return constant(int(x), dtype)
    if not isinstance(x, nm.Numeric) or isinstance(x, nm.Vector):
        fail("fx.arith.index_cast takes a scalar integer")
    src = type(x)
    if src.is_float or dtype.is_float:
        fail(f"fx.arith.index_cast converts integers and Index, not {src.__name__} to "
             f"{dtype.__name__} (use fx.arith.cast)")
    if (src is Index) == (dtype is Index):
        if src is Index:
            return x
        fail(f"fx.arith.index_cast: neither {src.__name__} nor {dtype.__name__} is Index "
             "(use fx.arith.cast between integer types)")
    integer = dtype if src is Index else src
    op = "arith.index_cast" if integer.signed and integer.width > 1 else "arith.index_castui"
    return emit(op, [x], x, dtype)


def cast(x, dtype):
    """`x` (a numeric, a Vector or a Python number) converted to the numeric
    class `dtype` (the element type, for vectors) by value."""
    _check_class("cast", dtype)
    if is_static(x):
        return nm.constant(x, dtype)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.arith.cast: cannot convert {nm._describe(x)}")
    src = element(x)
    if src is dtype:
        return x
    if dtype is nm.Boolean:
        return compare(x, 0.0 if src.is_float else 0, "ne")
    if src is Index or dtype is Index:
        if isinstance(x, nm.Vector):
            fail("fx.arith.cast: vectors of Index are not supported")
        if src.is_float or dtype.is_float:  # through a 64-bit integer
            return cast(cast(x, nm.Int64), dtype)
        return _index_cast(x, dtype)
    return convert(x, dtype)


def bitcast(x, dtype):
    """The bits of `x` as a value of `dtype` (of the same width; elementwise
    for vectors). FlyDSL's order `bitcast(T.i32, value)` works too; a raw
    value gives an ArithValue."""
    x, dtype, raw = _flydsl_order(x, dtype)
    return _raw_result(_bitcast(x, dtype), raw)


def _bitcast(x, dtype):
    _check_class("bitcast", dtype)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.arith.bitcast takes a numeric, not {type(x).__name__}")
    src = element(x)
    if src is Index or dtype is Index:
        fail("fx.arith.bitcast: Index has no fixed width (use fx.arith.index_cast)")
    if src.width != dtype.width:
        fail(f"fx.arith.bitcast: {src.__name__} has {src.width} bits and {dtype.__name__} "
             f"{dtype.width}")
    if src.mlir_type == dtype.mlir_type:
        return wrap_like(x.ir, x, dtype)
    (v,) = builder().op("arith.bitcast", [x.ir], [type_like(x, dtype)])
    return wrap_like(v, x, dtype)


def ceil_div(a, b):
    """a / b rounded toward +infinity (as `ceildiv`; Python ints fold to a
    Python int)."""
    if is_static(a) and is_static(b):
        if isinstance(a, float) or isinstance(b, float):
            fail("fx.arith.ceil_div takes integers")
        return -(-a // b)
    return ceildiv(a, b)


def shl(x, n):
    """x << n (arith.shli; n of x's type). Shifting by the width or more is poison."""
    if is_static(x) and is_static(n):
        return x << n
    x, n = unify("fx.arith.shl", x, n)
    if element(x).is_float:
        fail(f"fx.arith.shl takes integers, not {element(x).__name__}")
    return emit("arith.shli", [x, n], x, element(x))


def shr(x, n, *, arithmetic: bool | None = None):
    """x >> n: arithmetic (arith.shrsi) for signed types, logical (arith.shrui)
    for unsigned ones, or as `arithmetic` says."""
    if is_static(x) and is_static(n):
        return x >> n
    x, n = unify("fx.arith.shr", x, n)
    cls = element(x)
    if cls.is_float:
        fail(f"fx.arith.shr takes integers, not {cls.__name__}")
    signed = cls.signed and cls is not Index if arithmetic is None else arithmetic
    return emit("arith.shrsi" if signed else "arith.shrui", [x, n], x, cls)


provide(bitcast=_bitcast, index_cast=_index_cast, maximumf=maximumf, minimumf=minimumf, shrui=shrui, cast=cast,
        RoundingMode=RoundingMode, FastMathFlags=FastMathFlags)
