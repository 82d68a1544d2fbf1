"""Elementwise emission on scalar and Vector numerics, shared by fx.math,
fx.arith and the wave shuffles.

A Vector operand makes every result a Vector of the same length; result
and comparison types are spelled from the operand's shape. Errors are
TraceErrors at the user's source line.
"""

from __future__ import annotations

import re

from ..compiler.errors import TraceError
from ..compiler.ir import parse_type, user_location
from ..compiler.trace import builder
from . import numeric as nm


def fail(message: str):
    raise TraceError(message, *user_location()[:2])


def is_static(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, nm.Numeric)


def element(x):
    """The numeric class of a scalar, or of a vector's elements."""
    return x.element if isinstance(x, nm.Vector) else type(x)


def lanes(x) -> int | None:
    """The length of a Vector, None for a scalar."""
    if not isinstance(x, nm.Vector):
        return None
    m = re.fullmatch(r"vector<(\d+)x.+>", str(x.ir.type))
    if m is None:
        fail(f"only 1-D vectors are supported here, not {x.ir.type}")
    return int(m.group(1))


def type_like(x, cls):
    """The type of `cls` values shaped like `x` (scalar or vector)."""
    n = lanes(x)
    return cls.type_handle() if n is None else parse_type(f"vector<{n}x{cls.mlir_type}>")


def wrap_like(v, x, cls):
    return nm.Vector(v, cls) if isinstance(x, nm.Vector) else cls(v)


def emit(op: str, operands, like, cls, attrs: str = ""):
    """`op` on numeric operands; one result of class `cls` shaped like `like`."""
    (v,) = builder().op(op, [o.ir for o in operands], [type_like(like, cls)], attrs)
    return wrap_like(v, like, cls)


def intrinsic(name: str, operands, like, cls):
    """A call of the LLVM intrinsic `name` (overloaded on the operand types).
    `llvm.call_intrinsic` goes through convert-gpu-to-rocdl untouched, so the
    AMDGPU backend expands the intrinsic itself (no device-library call)."""
    attrs = (f'intrin = "{name}", operandSegmentSizes = array<i32: {len(operands)}, 0>, '
             "op_bundle_sizes = array<i32>")
    if name.startswith("llvm.amdgcn.") and isinstance(like, nm.Vector):
        # Target intrinsics are not overloaded on vectors (instruction
        # selection would abort): one call per element.
        return per_element(lambda *xs: emit("llvm.call_intrinsic", xs, xs[0], cls, attrs),
                           operands, like, cls)
    return emit("llvm.call_intrinsic", operands, like, cls, attrs)


def per_element(fn, operands, like, cls):
    """`fn` applied to the scalars of vector operands, element by element."""
    b = builder()
    result = None
    for i in range(lanes(like)):
        pos = f"static_position = array<i64: {i}>"
        scalars = []
        for o in operands:
            (e,) = b.op("vector.extract", [o.ir], [element(o).type_handle()], pos)
            scalars.append(element(o)(e))
        r = fn(*scalars)
        if result is None:
            (result,) = b.op("ub.poison", [], [type_like(like, cls)])
        (result,) = b.op("vector.insert", [r.ir, result], [result.type], pos)
    return nm.Vector(result, cls)


def unify(fname: str, *xs):
    """The operands converted to one type (C promotion, Python numbers take
    the other operands' type); a vector operand splats the scalars."""
    vals = list(xs)
    if not any(isinstance(v, nm.Numeric) for v in vals):
        fail(f"{fname}: no dynamic operand")
    for v in vals:
        if not isinstance(v, (nm.Numeric, bool, int, float)):
            fail(f"{fname}: cannot use a {type(v).__name__} as an operand")
    if not isinstance(vals[0], nm.Numeric):
        first = next(i for i, v in enumerate(vals) if isinstance(v, nm.Numeric))
        vals[0], vals[first] = vals[first], vals[0]
        swapped = first
    else:
        swapped = 0
    for _ in range(2):  # the second round brings earlier operands to the widest type
        for i in range(1, len(vals)):
            vals[0], vals[i], _common = nm._as_operands(vals[0], vals[i])
    if swapped:
        vals[0], vals[swapped] = vals[swapped], vals[0]
    types = {str(v.ir.type) for v in vals}
    if len(types) != 1:
        fail(f"{fname}: operands of different types {', '.join(sorted(types))}")
    return vals


def cast_op(src, dst) -> str | None:
    """The arith op converting class `src` to class `dst` (None: same bits)."""
    if src.is_float and dst.is_float:
        if src.mlir_type == dst.mlir_type:
            return None
        if src.bits == dst.bits:
            fail(f"no conversion between {src.__name__} and {dst.__name__} "
                 "(same width: go through Float32)")
        return "arith.extf" if dst.bits > src.bits else "arith.truncf"
    if src.is_float:
        return "arith.fptosi" if dst.signed else "arith.fptoui"
    if dst.is_float:
        return "arith.sitofp" if src.signed else "arith.uitofp"
    if dst.bits == src.bits:
        return None
    if dst.bits > src.bits:
        return "arith.extsi" if src.signed else "arith.extui"
    return "arith.trunci"


def convert(x, cls):
    """`x` (a scalar or vector numeric, or a Python number) with elements of
    class `cls`, by the arith op of `cast_op` (not to Boolean, nor from or
    to Index: fx.arith.cast handles those)."""
    if not isinstance(x, nm.Numeric):
        return nm.constant(x, cls)
    src = element(x)
    if src is cls:
        return x
    op = cast_op(src, cls)
    if op is None:  # the same MLIR type (signedness differs)
        return wrap_like(x.ir, x, cls)
    return emit(op, [x], x, cls)


_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
         "ult", "ule", "une", "uno", "true"]
_INT_PRED = {"lt": ("slt", "ult"), "le": ("sle", "ule"), "gt": ("sgt", "ugt"),
             "ge": ("sge", "uge"), "eq": ("eq", "eq"), "ne": ("ne", "ne")}
_FLOAT_PRED = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}


def compare(a, b, kind: str):
    """a <kind> b elementwise (vectors too): a Boolean or a vector of i1.
    Float comparisons are ordered (false with a NaN), except `ne`."""
    a, b = unify("compare", a, b)
    cls = element(a)
    if cls.is_float:
        op, pred = "arith.cmpf", _CMPF.index(_FLOAT_PRED[kind])
    else:
        op = "arith.cmpi"
        pred = _CMPI.index(_INT_PRED[kind][0 if cls.signed else 1])
    return emit(op, [a, b], a, nm.Boolean, f"predicate = {pred} : i64")


def select(cond, a, b, fname: str = "select"):
    """`a` where `cond` holds, else `b` (arith.select). `cond` is a Boolean
    (for scalars and whole vectors) or a vector of Booleans."""
    if isinstance(cond, bool):
        cond = nm.constant(cond, nm.Boolean)
    if not isinstance(cond, nm.Numeric) or element(cond) is not nm.Boolean:
        fail(f"{fname}: the condition must be a Boolean, not "
             f"{type(cond).__name__ if not isinstance(cond, nm.Numeric) else element(cond).__name__}")
    if all(is_static(v) for v in (a, b)):
        fail(f"{fname}: both values are Python numbers; make one a numeric "
             "(e.g. fx.Int32(a)) to choose its type")
    a, b = unify(fname, a, b)
    if isinstance(cond, nm.Vector) and lanes(cond) != lanes(a):
        fail(f"{fname}: a condition of {cond.ir.type} for values of {a.ir.type}")
    if isinstance(cond, nm.Vector) and not isinstance(a, nm.Vector):
        fail(f"{fname}: a vector condition needs vector values")
    (v,) = builder().op("arith.select", [cond.ir, a.ir, b.ir], [a.ir.type])
    return wrap_like(v, a, element(a))
