"""Numeric types: dynamic scalars and vectors of the traced code.

`Int32(x)` inside a traced function is an SSA value of type i32: a Python
number becomes an `arith.constant`, another numeric is converted. Arithmetic
and comparisons emit `arith` ops; a Python number on one side takes the
other side's type. Mixed types promote as C does: a float beats an integer,
the wider type beats the narrower, unsigned beats signed of the same width
(on a tie the left operand's type). Integer `//` and `%` truncate toward
zero (arith.divsi/remsi; divui/remui for unsigned types), as on the GPU;
integer `/` is the same division. Float `/` is arith.divf, float `//`
floor(a / b) (as Python and FlyDSL have it) and float `%` arith.remf.

A numeric is dynamic: using it as a Python bool (`if x:` outside the AST
rewriter's reach, `bool(x)`) is an error that says so.
"""

from __future__ import annotations

from ..compiler.errors import TraceError
from ..compiler.ir import Value, parse_type, user_location
from ..compiler.trace import Trace, builder


__all__ = ["Numeric", "Integer", "Float", "Boolean", "Int8", "Int16", "Int32", "Int64", "Uint8",
           "Uint16", "Uint32", "Uint64", "Float16", "BFloat16", "Float32", "Float64",
           "Float8E4M3FN", "Float8E5M2"]


class Numeric:
    """A dynamic value of an integer or float type (a scalar, or a vector
    for `Vector`)."""

    __fly_dynamic__ = True
    mlir_type = ""  # the MLIR element type of the class ("i32", "f16")
    is_float = False
    signed = True

    def __init__(self, x):
        if isinstance(x, Value):
            self.ir = x
        elif isinstance(x, (bool, int, float)) and not Trace.active():
            # An argument for a @flyc.jit function: a number of this type.
            self.ir = None
            self.host_value = bool(x) if self.mlir_type == "i1" else (
                float(x) if self.is_float else int(x))
        elif isinstance(x, Numeric):
            self.ir = convert(x, type(self)).ir
        elif isinstance(x, (bool, int, float)):
            self.ir = constant(x, type(self)).ir
        else:
            raise TraceError(f"cannot make a {type(self).__name__} from {x!r}",
                             *user_location()[:2])

    @classmethod
    def type_handle(cls):
        return parse_type(cls.mlir_type)

    @property
    def type(self):
        return self.ir.type

    def __bool__(self):
        raise TraceError(
            f"a dynamic {type(self).__name__} used as a Python bool: its value is "
            "only known when the kernel runs (write the condition in an `if` or "
            "`while` of a traced function, or use fx.const_expr for a Python value)",
            *user_location()[:2])

    def __index__(self):
        raise TraceError(f"a dynamic {type(self).__name__} used as a Python int",
                         *user_location()[:2])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ir.name})"

    # -- arithmetic -------------------------------------------------------
    def __add__(self, o): return _binary(self, o, "add")
    def __radd__(self, o): return _binary(o, self, "add")
    def __sub__(self, o): return _binary(self, o, "sub")
    def __rsub__(self, o): return _binary(o, self, "sub")
    def __mul__(self, o): return _binary(self, o, "mul")
    def __rmul__(self, o): return _binary(o, self, "mul")
    def __floordiv__(self, o): return _floordiv(self, o)
    def __rfloordiv__(self, o): return _floordiv(o, self)
    def __truediv__(self, o): return _binary(self, o, "div")
    def __rtruediv__(self, o): return _binary(o, self, "div")
    def __mod__(self, o): return _binary(self, o, "rem")
    def __rmod__(self, o): return _binary(o, self, "rem")
    def __and__(self, o): return _binary(self, o, "and")
    def __rand__(self, o): return _binary(o, self, "and")
    def __or__(self, o): return _binary(self, o, "or")
    def __ror__(self, o): return _binary(o, self, "or")
    def __xor__(self, o): return _binary(self, o, "xor")
    def __rxor__(self, o): return _binary(o, self, "xor")
    def __lshift__(self, o): return _binary(self, o, "shl")
    def __rshift__(self, o): return _binary(self, o, "shr")
    def __neg__(self):
        if self.is_float:
            (v,) = builder().op("arith.negf", [self.ir], [self.ir.type])
            return Vector(v, self.element) if isinstance(self, Vector) else type(self)(v)
        return _binary(0, self, "sub")

    def __lt__(self, o): return _compare(self, o, "lt")
    def __le__(self, o): return _compare(self, o, "le")
    def __gt__(self, o): return _compare(self, o, "gt")
    def __ge__(self, o): return _compare(self, o, "ge")
    def __eq__(self, o): return _compare(self, o, "eq")
    def __ne__(self, o): return _compare(self, o, "ne")
    __hash__ = object.__hash__

    def to(self, cls):
        """This value converted to numeric type `cls`."""
        return convert(self, cls)


class Integer(Numeric):
    pass


class Float(Numeric):
    is_float = True


def _int(name, bits, signed):
    return type(name, (Integer,), {"mlir_type": f"i{bits}", "signed": signed, "bits": bits})


def _float(name, mlir, bits):
    return type(name, (Float,), {"mlir_type": mlir, "bits": bits})


Boolean = _int("Boolean", 1, False)
Int8, Int16, Int32, Int64 = (_int(f"Int{b}", b, True) for b in (8, 16, 32, 64))
Uint8, Uint16, Uint32, Uint64 = (_int(f"Uint{b}", b, False) for b in (8, 16, 32, 64))
Float16 = _float("Float16", "f16", 16)
BFloat16 = _float("BFloat16", "bf16", 16)
Float32 = _float("Float32", "f32", 32)
Float64 = _float("Float64", "f64", 64)
Float8E4M3FN = _float("Float8E4M3FN", "f8E4M3FN", 8)
Float8E5M2 = _float("Float8E5M2", "f8E5M2", 8)

NUMERIC_TYPES = [Boolean, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64,
                 Float16, BFloat16, Float32, Float64, Float8E4M3FN, Float8E5M2]
_BY_MLIR = {}
for _cls in NUMERIC_TYPES:
    _BY_MLIR.setdefault(_cls.mlir_type, _cls)


def numeric_class(mlir_element: str):
    """The numeric class of an MLIR element type ("i32" -> Int32)."""
    cls = _BY_MLIR.get(mlir_element)
    if cls is None:
        raise TraceError(f"no numeric type for {mlir_element}", *user_location()[:2])
    return cls


class Vector(Numeric):
    """A dynamic 1-D vector (`vector<N x T>`), e.g. a fragment's `load()`:
    elementwise arithmetic with vectors of its type or scalars."""

    def __init__(self, x, element=None):
        if not isinstance(x, Value):
            raise TraceError("a Vector is made by load() or from another vector",
                             *user_location()[:2])
        self.ir = x
        self.element = element or numeric_class(str(x.type.element_type))
        self.is_float = self.element.is_float
        self.signed = self.element.signed

    @property
    def mlir_type(self):
        return str(self.ir.type)


def wrap(value: Value):
    """The numeric object of an SSA value of a scalar or vector type."""
    if str(value.type).startswith("vector<"):
        return Vector(value)
    return numeric_class(str(value.type))(value)


def constant(x, cls):
    if cls is Boolean:
        attr = "value = true" if x else "value = false"
    elif cls.is_float:
        attr = f"value = {_float_text(float(x), cls)} : {cls.mlir_type}"
    else:
        value = int(x)
        # The bits of an integer type, read signed or unsigned: Int32 takes
        # -2**31 .. 2**32 - 1 (0xFFFFFFFF is a mask, not an overflow).
        if not -(1 << (cls.bits - 1)) <= value < (1 << cls.bits):
            raise TraceError(f"the integer {value} does not fit in {cls.__name__} "
                             f"({cls.bits} bits)", *user_location()[:2])
        attr = f"value = {value} : {cls.mlir_type}"
    (v,) = builder().op("arith.constant", (), [cls.type_handle()], attr)
    return cls(v)


def _float_text(x: float, cls) -> str:
    """An MLIR float literal: decimal with a '.', or the bit pattern in hex
    for infinities and NaN (MLIR has no literal for them)."""
    import math
    import struct

    if not math.isfinite(x):
        if cls.mlir_type == "f64":
            return hex(struct.unpack("<Q", struct.pack("<d", x))[0])
        if cls.mlir_type == "f32":
            return hex(struct.unpack("<I", struct.pack("<f", x))[0])
        if cls.mlir_type == "f16":
            return hex(struct.unpack("<H", struct.pack("<e", x))[0])
        if cls.mlir_type == "bf16":  # the high half of inf's or NaN's f32 pattern
            return hex(struct.unpack("<I", struct.pack("<f", x))[0] >> 16)
        raise TraceError(f"{x} has no {cls.__name__} constant", *user_location()[:2])
    text = repr(x)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def _rank(cls):
    # C's order: a float beats an integer, wider beats narrower, unsigned
    # beats signed of the same width
    return (1 if cls.is_float else 0, getattr(cls, "bits", 0), 0 if cls.signed else 1)


def _common(a, b):
    """The class both operands are converted to."""
    if isinstance(a, Vector) or isinstance(b, Vector):
        return a if isinstance(a, Vector) else b
    ca, cb = type(a), type(b)
    if ca is cb:
        return ca
    return ca if _rank(ca) >= _rank(cb) else cb


def _as_operands(a, b):
    if not isinstance(a, Numeric):
        a = _lift(a, b)
    if not isinstance(b, Numeric):
        b = _lift(b, a)
    common = _common(a, b)
    if isinstance(common, Vector):
        a = a if isinstance(a, Vector) else _splat(a, common)
        b = b if isinstance(b, Vector) else _splat(b, common)
        return a, b, common
    return convert(a, common), convert(b, common), common


def _lift(x, like):
    if isinstance(x, (bool, int, float)):
        cls = like.element if isinstance(like, Vector) else type(like)
        if isinstance(x, float) and not cls.is_float:
            raise TraceError(f"a Python float combined with a dynamic {cls.__name__}",
                             *user_location()[:2])
        return constant(x, cls)
    raise TraceError(f"cannot combine {type(x).__name__} with a dynamic "
                     f"{type(like).__name__}", *user_location()[:2])


def _splat(scalar, vector):
    scalar = convert(scalar, vector.element)
    (v,) = builder().op("vector.broadcast", [scalar.ir], [vector.ir.type])
    return Vector(v, vector.element)


_INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
            "and": "arith.andi", "or": "arith.ori", "xor": "arith.xori", "shl": "arith.shli"}
_FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "div": "arith.divf", "rem": "arith.remf"}


def _binary(a, b, kind):
    a, b, common = _as_operands(a, b)
    if a.is_float:
        op = _FLOAT_OPS.get(kind)
    elif kind in ("div", "rem", "shr"):
        op = {"div": ("arith.divsi", "arith.divui"), "rem": ("arith.remsi", "arith.remui"),
              "shr": ("arith.shrsi", "arith.shrui")}[kind][0 if a.signed else 1]
    else:
        op = _INT_OPS.get(kind)
    if op is None:
        raise TraceError(f"operator '{kind}' is not defined on {type(a).__name__}",
                         *user_location()[:2])
    (v,) = builder().op(op, [a.ir, b.ir], [a.ir.type])
    return Vector(v, a.element) if isinstance(a, Vector) else type(a)(v)


def _floordiv(a, b):
    """`//`: `/` for integers (truncating); floor(a / b) for floats."""
    q = _binary(a, b, "div")
    if not q.is_float:
        return q
    from ._elementwise import convert as _convert, intrinsic  # late: it builds on this module

    cls = q.element if isinstance(q, Vector) else type(q)
    compute = Float32 if cls is BFloat16 else cls  # BFloat16 computed in f32, as in fx.math
    return _convert(intrinsic("llvm.floor", [_convert(q, compute)], q, compute), cls)


_PREDICATES = {"lt": ("slt", "ult", "olt"), "le": ("sle", "ule", "ole"),
               "gt": ("sgt", "ugt", "ogt"), "ge": ("sge", "uge", "oge"),
               "eq": ("eq", "eq", "oeq"), "ne": ("ne", "ne", "une")}


def _compare(a, b, kind):
    """A Boolean, or for vectors a vector of i1 (elementwise)."""
    a, b, _ = _as_operands(a, b)
    signed_i, unsigned_i, fl = _PREDICATES[kind]
    if a.is_float:
        op, pred = "arith.cmpf", fl
    else:
        op, pred = "arith.cmpi", signed_i if a.signed else unsigned_i
    if isinstance(a, Vector):
        n = str(a.ir.type)[len("vector<"):].split("x")[0]
        result = parse_type(f"vector<{n}xi1>")
    else:
        result = Boolean.type_handle()
    (v,) = builder().op(op, [a.ir, b.ir], [result], f"predicate = {_pred_attr(op, pred)}")
    return Vector(v, Boolean) if isinstance(a, Vector) else Boolean(v)


_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
         "ult", "ule", "une", "uno", "true"]


def _pred_attr(op, pred):
    # The generic form spells the predicate as its enum value.
    return f"{(_CMPI if op == 'arith.cmpi' else _CMPF).index(pred)} : i64"


def convert(x, cls):
    """`x` (a numeric or a Python number) as a value of class `cls`: a
    Python number becomes a constant, a numeric converts as fx.arith.cast
    does (to Boolean as `x != 0`, Index by index_cast, vectors elementwise)."""
    if not isinstance(x, Numeric):
        return constant(x, cls)
    from .arith import cast  # late: arith builds on this module

    return cast(x, cls)
