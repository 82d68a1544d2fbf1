"""Elementwise emission on scalar and Vector numerics, shared by fx.math,
fx.arith, the numeric operators and the wave shuffles.

A Vector operand makes every result a Vector of the same shape; result and
comparison types are spelled from the operand's shape. The fastmath flags
of an enclosing `fx.arith.fastmath(...)` block (or an explicit
`fastmath=`) become the `fastmath` attribute of float ops. Errors are
TraceErrors at the user's source line.
"""

from __future__ import annotations

import enum

from ..tracing.errors import TraceError
from ..tracing.ir import parse_type, user_location
from ..tracing.trace import builder
from . import numeric as nm
from .meta import tracing_context, tracing_option
from ._late import late, provide


def fail(message: str):
    raise TraceError(message, *user_location()[:2])


def is_static(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, nm.Numeric)


def element(x):
    """The numeric class of a scalar, or of a vector's elements."""
    return x.dtype if isinstance(x, nm.Vector) else type(x)


def lanes(x) -> int | None:
    """The element count of a Vector, None for a scalar."""
    return x.numel if isinstance(x, nm.Vector) else None


def type_like(x, cls):
    """The type of `cls` values shaped like `x` (scalar or vector)."""
    n = lanes(x)
    return cls.type_handle() if n is None else parse_type(f"vector<{n}x{cls.mlir_type}>")


def wrap_like(v, x, cls):
    return nm.Vector(v, x.shape, cls) if isinstance(x, nm.Vector) else cls(v)


# -- fastmath ------------------------------------------------------------------

# The flags of the enclosing fx.arith.fastmath blocks, innermost last.


def fastmath_text(flags) -> str | None:
    """The flag list ("nnan,ninf") of a fastmath argument: a FastMathFlags
    value (combined with |), a string, an iterable of them, or None."""
    if flags is None:
        return None
    FastMathFlags = late.FastMathFlags  # fx.arith's enum

    if isinstance(flags, FastMathFlags):
        return str(flags)
    if type(flags).__name__ == "FastMathFlags" and isinstance(flags, enum.Flag):
        return str(FastMathFlags(int(flags.value)))  # flydsl._mlir's enum: the same bits
    if isinstance(flags, str):
        names = [f.strip() for f in flags.split(",") if f.strip()]
    elif isinstance(flags, (list, tuple, set, frozenset)):
        names = []
        for f in flags:
            names.extend((fastmath_text(f) or "none").split(","))
    else:
        fail(f"fastmath: expected fx.arith.FastMathFlags or a string, not {type(flags).__name__}")
    for name in names:
        if name not in FastMathFlags.__members__:
            fail(f"fastmath: unknown flag {name!r} (one of {', '.join(FastMathFlags.__members__)})")
    names = sorted(set(names) - {"none"}, key=list(FastMathFlags.__members__).index)
    return ",".join(names) if names else "none"


class FastmathScope:
    """A `with` block whose float ops carry these flags (validated when the
    scope is made, so that an error points at the caller's line). The
    flags are the block's `fastmath` option of flydsl.expr.meta, where
    FlyDSL's own code reads them (`tracing_option("fastmath")`)."""

    def __init__(self, flags):
        self.text = fastmath_text(flags) if flags is not None else None
        self.block = None

    def __enter__(self):
        if self.text is not None:
            self.block = tracing_context(fastmath=self.text)
            self.block.__enter__()
        return self

    def __exit__(self, *exc):
        if self.block is not None:
            self.block.__exit__(*exc)
            self.block = None
        return False


def fastmath_attr(explicit, key: str = "fastmath", dialect: str = "arith") -> str:
    """The fastmath attribute entry for a float op ('' when no flags apply):
    the explicit flags, else the enclosing fx.arith.fastmath block's."""
    text = fastmath_text(explicit) if explicit is not None else tracing_option("fastmath")
    if not text or text == "none":
        return ""
    return f"{key} = #{dialect}.fastmath<{text}>"


def emit(op: str, operands, like, cls, attrs: str = ""):
    """`op` on numeric operands; one result of class `cls` shaped like `like`."""
    (v,) = builder().op(op, [o.ir for o in operands], [type_like(like, cls)], attrs)
    return wrap_like(v, like, cls)


def intrinsic(name: str, operands, like, cls, fastmath=None):
    """A call of the LLVM intrinsic `name` (overloaded on the operand types).
    `llvm.call_intrinsic` goes through convert-gpu-to-rocdl untouched, so the
    AMDGPU backend expands the intrinsic itself (no device-library call)."""
    attrs = (f'intrin = "{name}", operandSegmentSizes = array<i32: {len(operands)}, 0>, '
             "op_bundle_sizes = array<i32>")
    fm = fastmath_attr(fastmath, "fastmathFlags", "llvm") if element(like).is_float else ""
    if fm:
        attrs += ", " + fm
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
    return nm.Vector(result, like.shape, cls)


def check_operand(fname: str, x, what: str = "operand"):
    x = nm.lift(x)
    if isinstance(x, nm.Numeric):
        if x.ir is None:
            return nm.constant(x.host_value, type(x))
        return x
    if is_static(x):
        return x
    fail(f"{fname}: the {what} must be a numeric (fx.Float32, a Vector, ...) or a Python "
         f"number, not {nm._describe(x)}")


def unify(fname: str, *xs, promote_literals: bool = False):
    """The operands converted to one type: the common type of the numerics
    (numeric.promote), Python numbers converted to it (or, with
    `promote_literals`, promoting as numerics of their own, as FlyDSL's
    arith.max does); a vector operand broadcasts the scalars."""
    vals = [check_operand(fname, x) for x in xs]
    dynamic = [v for v in vals if isinstance(v, nm.Numeric)]
    if not dynamic:
        fail(f"{fname}: no dynamic operand")
    classes = [element(v) if isinstance(v, nm.Numeric) else nm.literal_class(v)
               for v in (vals if promote_literals else dynamic)]
    common = classes[0]
    for c in classes[1:]:
        common = nm.promote(common, c)
    shape = None
    for v in dynamic:
        if isinstance(v, nm.Vector):
            if shape is not None and nm._numel(shape) != v.numel:
                fail(f"{fname}: vectors of {nm._numel(shape)} and {v.numel} elements")
            shape = v.shape
    return [nm._prepare(v, common, shape) for v in vals]


def cast_op(src, dst) -> str | None:
    """The arith op converting class `src` to class `dst` (None: same bits)."""
    if src.is_float and dst.is_float:
        if src.mlir_type == dst.mlir_type:
            return None
        return "arith.extf" if dst.width > src.width else "arith.truncf"
    if src.is_float:
        return "arith.fptosi" if dst.signed else "arith.fptoui"
    if dst.is_float:
        return "arith.sitofp" if src.signed and src.width > 1 else "arith.uitofp"
    if dst.width == src.width:
        return None
    if dst.width > src.width:
        return "arith.extsi" if src.signed and src.width > 1 else "arith.extui"
    return "arith.trunci"


def convert(x, cls):
    """`x` (a scalar or vector numeric, or a Python number) with elements of
    class `cls`, by the arith op of `cast_op` (not to Boolean, nor from or
    to Index: fx.arith.cast handles those). Floats of one width and
    different formats convert through Float32, as FlyDSL's do."""
    if not isinstance(x, nm.Numeric):
        return nm.constant(x, cls)
    src = element(x)
    if src is cls:
        return x
    if src.is_float and cls.is_float and src.width == cls.width \
            and src.mlir_type != cls.mlir_type and src.width < 32:
        x = convert(x, nm.Float32)
        src = nm.Float32
    op = cast_op(src, cls)
    if op is None:  # the same MLIR type (signedness differs)
        return wrap_like(x.ir, x, cls)
    fm = fastmath_attr(None) if op in ("arith.extf", "arith.truncf") else ""
    return emit(op, [x], x, cls, fm)


_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
         "ult", "ule", "une", "uno", "true"]
_INT_PRED = {"lt": ("slt", "ult"), "le": ("sle", "ule"), "gt": ("sgt", "ugt"),
             "ge": ("sge", "uge"), "eq": ("eq", "eq"), "ne": ("ne", "ne")}
_FLOAT_PRED = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}


def cmp(op: str, predicate: str, a, b, fastmath=None):
    """arith.cmpi / arith.cmpf with a predicate by name, on unified operands."""
    attrs = f"predicate = {(_CMPI if op == 'arith.cmpi' else _CMPF).index(predicate)} : i64"
    if op == "arith.cmpf":
        fm = fastmath_attr(fastmath)
        attrs += ", " + fm if fm else ""
    return emit(op, [a, b], a, nm.Boolean, attrs)


def compare(a, b, kind: str, fastmath=None):
    """a <kind> b elementwise (vectors too): a Boolean or a vector of i1.
    Float comparisons are ordered (false with a NaN), except `ne`."""
    a, b = unify("compare", a, b)
    cls = element(a)
    if cls.is_float:
        return cmp("arith.cmpf", _FLOAT_PRED[kind], a, b, fastmath)
    signed = cls.signed and cls is not nm.Index
    return cmp("arith.cmpi", _INT_PRED[kind][0 if signed else 1], a, b)


def select(cond, a, b, fname: str = "select", promote: bool = False):
    """`a` where `cond` holds, else `b` (arith.select). `cond` is a Boolean
    (for scalars and whole vectors) or a vector of Booleans. With `promote`,
    Python numbers promote as numerics of their own (FlyDSL's
    Numeric.select), else they take the other value's type."""
    if isinstance(cond, bool):
        cond = nm.constant(cond, nm.Boolean)
    if not isinstance(cond, nm.Numeric) or element(cond) is not nm.Boolean:
        fail(f"{fname}: the condition must be a Boolean, not "
             f"{nm._describe(cond) if not isinstance(cond, nm.Numeric) else element(cond).__name__}")
    if all(is_static(v) for v in (a, b)) and not promote:
        fail(f"{fname}: both values are Python numbers; make one a numeric "
             "(e.g. fx.Int32(a)) to choose its type")
    if all(is_static(v) for v in (a, b)):
        a = nm.as_numeric(a)
    a, b = unify(fname, a, b, promote_literals=promote)
    if isinstance(cond, nm.Vector):  # the values take the condition's shape
        if not isinstance(a, nm.Vector):
            a, b = (nm.Vector.filled(cond.shape, v, element(v)) for v in (a, b))
        if lanes(cond) != lanes(a):
            fail(f"{fname}: a condition of {cond.ir.type} for values of {a.ir.type}")
    (v,) = builder().op("arith.select", [cond.ir, a.ir, b.ir], [a.ir.type])
    return wrap_like(v, a, element(a))


provide(select_elementwise=select, emit=emit, fastmath_attr=fastmath_attr, compare=compare)
