"""fx.arith: explicit constructors and conversions (SPEC §7), the ones the
operator overloads of numerics do not give.

    constant(value, dtype)      an arith.constant of a numeric class
    select(cond, a, b)          arith.select (scalars, vectors)
    cast(x, dtype)              a value conversion: extf/truncf/sitofp/uitofp/
                                fptosi/fptoui/extsi/extui/trunci as the types
                                ask (vectors too; `.to(dtype)` is the same);
                                to Boolean it is `x != 0`; Index via index_cast
    bitcast(x, dtype)           the same bits as another type of equal width
    index_cast(x, dtype)        integer <-> Index (arith.index_cast, or
                                index_castui for unsigned integers)
    min(a, b), max(a, b)        as fx.math.min / fx.math.max
    ceil_div(a, b)              integer division rounding up (toward +inf)
    shl(x, n), shr(x, n)        shifts; shr is arithmetic for signed types and
                                logical for unsigned ones (or as `arithmetic=`)

Vectors are converted elementwise. Python numbers are folded at trace time
where the result is a Python number (ceil_div, shl, shr, min, max).
"""

from __future__ import annotations

from ..compiler.trace import builder
from . import numeric as nm
from ._elementwise import (compare, convert, element, emit, fail, is_static, type_like,
                           unify, wrap_like)
from ._elementwise import select as _select
from .math import max, min  # noqa: A004 - the fx.arith names

# FlyDSL's stable names (exported as fx.<name> too); the module's other
# public functions (cast, bitcast, select, constant, ...) are fx.arith.<name>.
__all__ = ["min", "max"]


class Index(nm.Integer):
    """A value of MLIR's `index` type (the target's pointer-sized integer):
    made with `index_cast` (or `cast`), a Python int, or arithmetic."""

    mlir_type = "index"
    signed = True
    bits = 64

    def __init__(self, x):
        if isinstance(x, nm.Numeric) and not isinstance(x, Index):
            x = index_cast(x, Index)
        super().__init__(x)


def _check_class(fname, dtype):
    if not (isinstance(dtype, type) and issubclass(dtype, nm.Numeric)) or dtype is nm.Vector:
        fail(f"fx.arith.{fname}: the type must be a numeric class such as fx.Int32 or "
             f"fx.Float32, not {dtype!r}")


def constant(value, dtype):
    """`value` (a Python bool, int or float) as an arith.constant of `dtype`."""
    _check_class("constant", dtype)
    if not isinstance(value, (bool, int, float)):
        fail(f"fx.arith.constant: the value must be a Python number, not {type(value).__name__}")
    if isinstance(value, float) and not dtype.is_float and not value.is_integer():
        fail(f"fx.arith.constant: {value!r} is not a value of the integer type {dtype.__name__}")
    if not dtype.is_float and dtype is not Index and dtype is not nm.Boolean:
        low = -(1 << (dtype.bits - 1)) if dtype.signed else 0
        high = (1 << (dtype.bits - (1 if dtype.signed else 0))) - 1
        if not low <= int(value) <= high:
            fail(f"fx.arith.constant: {int(value)} is out of range for {dtype.__name__}")
    return nm.constant(value, dtype)


def select(cond, a, b):
    """`a` where the Boolean `cond` holds, else `b` (arith.select); a and b
    combine like the operands of arithmetic (Python numbers take the other's
    type). A vector condition selects elementwise."""
    return _select(cond, a, b, fname="fx.arith.select")


def index_cast(x, dtype):
    """An integer as Index, or an Index as another integer type (arith.index_cast;
    arith.index_castui when the integer is unsigned)."""
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
    op = "arith.index_cast" if integer.signed else "arith.index_castui"
    return emit(op, [x], x, dtype)


def cast(x, dtype):
    """`x` (a numeric, a Vector or a Python number) converted to the numeric
    class `dtype` (the element type, for vectors) by value."""
    _check_class("cast", dtype)
    if is_static(x):
        return constant(x, dtype)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.arith.cast: cannot convert a {type(x).__name__}")
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
        return index_cast(x, dtype)
    return convert(x, dtype)


def bitcast(x, dtype):
    """The bits of `x` as a value of `dtype` (of the same width; elementwise
    for vectors)."""
    _check_class("bitcast", dtype)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.arith.bitcast takes a numeric, not {type(x).__name__}")
    src = element(x)
    if src is Index or dtype is Index:
        fail("fx.arith.bitcast: Index has no fixed width (use fx.arith.index_cast)")
    if src.bits != dtype.bits:
        fail(f"fx.arith.bitcast: {src.__name__} has {src.bits} bits and {dtype.__name__} "
             f"{dtype.bits}")
    if src.mlir_type == dtype.mlir_type:
        return wrap_like(x.ir, x, dtype)
    (v,) = builder().op("arith.bitcast", [x.ir], [type_like(x, dtype)])
    return wrap_like(v, x, dtype)


def _int_operands(fname, a, b):
    a, b = unify(f"fx.arith.{fname}", a, b)
    if element(a).is_float:
        fail(f"fx.arith.{fname} takes integers, not {element(a).__name__}")
    return a, b


def ceil_div(a, b):
    """a / b rounded toward +infinity, for integers (unsigned types divide
    as unsigned). Division by zero is undefined, as for `//`."""
    if is_static(a) and is_static(b):
        if isinstance(a, float) or isinstance(b, float):
            fail("fx.arith.ceil_div takes integers")
        return -(-a // b)
    a, b = _int_operands("ceil_div", a, b)
    cls = element(a)
    q, r = a // b, a % b  # truncated (divsi/remsi, divui/remui)
    inexact = compare(r, 0, "ne")
    if cls.signed:
        # round up when the remainder has the sign of b
        inexact = inexact & compare(compare(r, 0, "gt"), compare(b, 0, "gt"), "eq")
    return q + cast(inexact, cls)


def shl(x, n):
    """x << n (arith.shli; n of x's type). Shifting by the width or more is poison."""
    if is_static(x) and is_static(n):
        return x << n
    x, n = _int_operands("shl", x, n)
    return emit("arith.shli", [x, n], x, element(x))


def shr(x, n, *, arithmetic: bool | None = None):
    """x >> n: arithmetic (arith.shrsi) for signed types, logical (arith.shrui)
    for unsigned ones, or as `arithmetic` says."""
    if is_static(x) and is_static(n):
        return x >> n
    x, n = _int_operands("shr", x, n)
    cls = element(x)
    signed = cls.signed if arithmetic is None else arithmetic
    return emit("arith.shrsi" if signed else "arith.shrui", [x, n], x, cls)
