"""FlyDSL's raw-value arithmetic (`flydsl.expr.utils.arith`): `ArithValue`,
an SSA value with Python operators, and the small builders kernels use on
raw values (`constant`, `index_cast`, `select`, `_to_raw`, the conversions
`fp_to_fp` / `fp_to_int` / `int_to_fp` / `int_to_int`, `andi`, `fastmath`,
...). Their results are ArithValues.

An ArithValue is an SSA value (`isinstance(v, ir.Value)` holds, so a raw
MLIR builder takes it as an operand) whose type is an integer, index, float
or a vector of them. MLIR integers carry no sign: `signed=` says how to
read them (None, the default, reads them as signed for comparisons, `//`
and `%`, but shifts `>>` logically; True arithmetic; False unsigned
throughout). A Python number next to an ArithValue becomes a constant of the
ArithValue's type, an fx numeric its SSA value. Operators emit the arith ops
of fx's numerics (flydsl.expr.numeric): the same promotion, the same
`fx.arith.fastmath` flags, the same errors at the user's line. Results are
ArithValues. (fx.arith builds on this module and re-exports ArithValue; the
fx functions used here are reached through flydsl.expr._late.)
"""

from __future__ import annotations

from ..._mlir import ir
from ..._mlir.dialects import arith as _dialect
from ...tracing.ir import Value, parse_type
from .. import numeric as nm
from .._elementwise import FastmathScope, fail
from .._late import late, provide
from ..meta import tracing_option

__all__ = ["ArithValue", "arith_const", "constant", "constant_vector", "current_fastmath",
           "fastmath", "resolve_fastmath", "index", "index_cast", "select", "unwrap",
           "element_type", "is_float_type", "is_integer_like_type", "recast_type", "fp_to_fp",
           "fp_to_int", "int_to_fp", "int_to_int", "sitofp", "trunc_f", "andi", "xori", "shli"]


def _raw_value(v) -> Value:
    """The SSA value of an ArithValue, fx numeric, raw value or op result."""
    if isinstance(v, Value):
        return v
    ir_value = getattr(v, "ir_value", None)
    if callable(ir_value):
        return ir_value()
    result = getattr(v, "result", None)  # an op view
    if isinstance(result, Value):
        return result
    fail(f"ArithValue: {type(v).__name__} {v!r} is not an SSA value or fx numeric")


def element_type(t):
    """The element type of a vector type, else the type itself."""
    return t.element_type if str(t).startswith("vector<") else t


def is_integer_like_type(t) -> bool:
    text = str(t)
    return text == "index" or (text.startswith("i") and text[1:].isdigit())


def is_float_type(t) -> bool:
    return not is_integer_like_type(t) and not str(t).startswith("vector<")


def _shape_of(t) -> tuple[int, ...] | None:
    text = str(t)
    if not text.startswith("vector<"):
        return None
    return tuple(int(d) for d in text[len("vector<"):-1].split("x")[:-1])


def _numeric_class(elem, signed):
    cls = nm.numeric_class(str(elem))
    if signed is False and cls.is_integer and cls.signed and cls is not nm.Index and cls.width > 1:
        cls = next(c for c in nm.NUMERIC_TYPES if c.is_integer and c.width == cls.width
                   and c.signed is False and c is not nm.Index)
    return cls


class ArithValue(ir.Value):
    """An SSA value of an integer, index, float or vector type with
    operators (see the module notes)."""

    def __init__(self, v, signed=None):
        super().__init__(_raw_value(v))
        # (the type is only looked at when asked: fx numerics' ir_value()
        # makes an ArithValue each time)
        self.signed = None if signed is None else (
            bool(signed) and getattr(element_type(self.type), "bit_width", None) != 1)

    @property
    def is_float(self) -> bool:
        return not is_integer_like_type(element_type(self.type))

    def with_signedness(self, signed):
        """This value read as signed (True), unsigned (False) or neither."""
        return ArithValue(self, signed)

    # -- as an fx numeric, and back --------------------------------------------
    def _numeric(self):
        cls = _numeric_class(element_type(self.type), self.signed)
        shape = _shape_of(self.type)
        return cls(self._plain()) if shape is None else nm.Vector(self._plain(), shape, cls)

    def _plain(self) -> Value:
        return Value(self.name, self.type)

    def _other(self, other):
        if isinstance(other, (bool, int, float)):
            return other  # a constant of this value's type (literal_like)
        if isinstance(other, nm.Numeric):
            return other
        if isinstance(other, ArithValue):
            return other._numeric()
        if isinstance(other, Value) or hasattr(other, "ir_value"):
            return ArithValue(other)._numeric()
        return NotImplemented

    def _binary(self, other, kind, reverse=False):
        other = self._other(other)
        if other is NotImplemented:
            return NotImplemented
        # FlyDSL's `>>` on a value of no stated signedness is logical
        logical = kind == "shr" and self.signed is None and not self.is_float
        me = self._as(False) if logical else self._numeric()
        a, b = (other, me) if reverse else (me, other)
        return _result(nm._binary(a, b, kind, literal_like=True))

    def _compare(self, other, kind):
        other = self._other(other)
        if other is NotImplemented:
            return NotImplemented
        return _result(nm._compare(self._numeric(), other, kind))

    def __add__(self, o): return self._binary(o, "add")
    def __radd__(self, o): return self._binary(o, "add", True)
    def __sub__(self, o): return self._binary(o, "sub")
    def __rsub__(self, o): return self._binary(o, "sub", True)
    def __mul__(self, o): return self._binary(o, "mul")
    def __rmul__(self, o): return self._binary(o, "mul", True)
    def __truediv__(self, o): return self._binary(o, "truediv")
    def __rtruediv__(self, o): return self._binary(o, "truediv", True)
    def __floordiv__(self, o): return self._binary(o, "floordiv")
    def __rfloordiv__(self, o): return self._binary(o, "floordiv", True)
    def __mod__(self, o): return self._binary(o, "mod")
    def __rmod__(self, o): return self._binary(o, "mod", True)
    def __pow__(self, o): return self._binary(o, "pow")
    def __rpow__(self, o): return self._binary(o, "pow", True)
    def __and__(self, o): return self._binary(o, "and")
    def __rand__(self, o): return self._binary(o, "and", True)
    def __or__(self, o): return self._binary(o, "or")
    def __ror__(self, o): return self._binary(o, "or", True)
    def __xor__(self, o): return self._binary(o, "xor")
    def __rxor__(self, o): return self._binary(o, "xor", True)
    def __lshift__(self, o): return self._binary(o, "shl")
    def __rlshift__(self, o): return self._binary(o, "shl", True)
    def __rshift__(self, o): return self._binary(o, "shr")
    def __rrshift__(self, o): return self._binary(o, "shr", True)
    def __lt__(self, o): return self._compare(o, "lt")
    def __le__(self, o): return self._compare(o, "le")
    def __gt__(self, o): return self._compare(o, "gt")
    def __ge__(self, o): return self._compare(o, "ge")
    def __eq__(self, o): return self._compare(o, "eq")
    def __ne__(self, o): return self._compare(o, "ne")
    def __neg__(self): return _result(-self._numeric())
    def __abs__(self): return _result(abs(self._numeric()))
    def __invert__(self): return _result(~self._numeric())
    __hash__ = object.__hash__  # by identity, as an SSA value is

    def __bool__(self):
        fail("a dynamic ArithValue used as a Python bool: its value is only known when the "
             "kernel runs")

    # -- a vector's elements (fx numerics), as FlyDSL's vector values have them ----
    def _vector(self):
        shape = _shape_of(self.type)
        if shape is None:
            fail(f"{self}: a scalar value has no elements (only a vector value is indexed)")
        if len(shape) != 1:
            fail(f"{self}: a vector of rank {len(shape)} is not indexed element by element "
                 f"(vector.extract takes its positions)")
        return self._numeric()

    def __getitem__(self, index):
        return self._vector()[index]

    def __len__(self):
        return len(self._vector())

    def __iter__(self):
        if _shape_of(self.type) is None:
            raise TypeError(f"{self} is a scalar, not iterable")
        return iter(self._vector())

    # -- FlyDSL's methods ---------------------------------------------------------
    def select(self, true_value, false_value):
        """`true_value` where this i1 value holds, else `false_value`."""
        return _result(self._numeric().select(_numeric_or_number(true_value),
                                              _numeric_or_number(false_value)))

    def _as(self, signed):
        """This value as an fx numeric read signed or unsigned."""
        return ArithValue(self, signed)._numeric()

    def extf(self, target_type, *, fastmath=None):
        """Widened to the float type `target_type` (arith.extf)."""
        return _result(_cast(self._numeric(), target_type))

    def truncf(self, target_type, *, fastmath=None):
        """Rounded to the narrower float type `target_type` (arith.truncf)."""
        return _result(_cast(self._numeric(), target_type))

    def extui(self, target_type):
        """Zero-extended to the wider integer type (arith.extui)."""
        return _result(_cast(self._as(False), target_type))

    def extsi(self, target_type):
        """Sign-extended to the wider integer type (arith.extsi)."""
        return _result(_cast(self._as(True), target_type))

    def trunci(self, target_type):
        """The low bits as the narrower integer type (arith.trunci)."""
        return _result(_cast(self._numeric(), target_type))

    def index_cast(self, target_type):
        """Between index and an integer type (arith.index_cast)."""
        return _result(late.index_cast(self._as(True), _target_class(target_type)))

    def bitcast(self, target_type):
        """These bits as `target_type` (of the same width)."""
        return _result(self._numeric().bitcast(_target_class(target_type)))

    def shrui(self, amount):
        return _result(self._numeric().shrui(_numeric_or_number(amount)))

    def addf(self, other, *, fastmath=None):
        return _result(self._numeric().addf(_numeric_or_number(other), fastmath=fastmath))

    def maximumf(self, other, *, fastmath=None):
        return _result(self._numeric().maximumf(_numeric_or_number(other)))

    def minimumf(self, other, *, fastmath=None):
        return _result(self._numeric().minimumf(_numeric_or_number(other)))

    def rsqrt(self, *, fastmath=None):
        return _result(late.rsqrt(self._numeric(), fastmath=fastmath))

    def exp2(self, *, fastmath=None):
        return _result(self._numeric().exp2(fastmath=fastmath))

    def shuffle_xor(self, offset, width):
        return _result(self._numeric().shuffle_xor(offset, width))

    def __str__(self):
        return f"ArithValue({self.name}: {self.type})"

    __repr__ = __str__


# -- helpers ------------------------------------------------------------------------

def _result(x):
    """An fx result (numeric or Vector) as an ArithValue."""
    return ArithValue(x.ir_value())


def _numeric_or_number(x):
    if isinstance(x, (bool, int, float, nm.Numeric)):
        return x
    return ArithValue(x)._numeric()


def _handle(t):
    """A type handle from a handle, an `ir` type, MLIR text or a numeric class."""
    if isinstance(t, type) and issubclass(t, nm.Numeric):
        return t.type_handle()
    if isinstance(t, str):
        return parse_type(t)
    handle = getattr(t, "handle", None)  # an ir type facade around a handle
    return handle if handle is not None else t


def _target_class(t):
    """The fx numeric class of a target type's elements (signed integers)."""
    if isinstance(t, type) and issubclass(t, nm.Numeric):
        return t
    return nm.numeric_class(str(element_type(_handle(t))))


def _cast(x, target_type):
    return late.cast(x, _target_class(target_type))


# -- FlyDSL's functions on raw values ------------------------------------------------

def _to_raw(v):
    """The plain SSA value of an ArithValue, fx numeric or op result."""
    raw = _raw_value(v)
    return Value(raw.name, raw.type) if type(raw) is not Value else raw


def unwrap(val, *, type=None, index=False):  # noqa: A002 - FlyDSL's name
    """The SSA value of `val`; a Python number becomes a constant first
    (of `type`, or an index with `index=True`)."""
    if isinstance(val, (bool, int, float)):
        return _to_raw(constant(val, type=type, index=index))
    return _to_raw(val)


def current_fastmath():
    """The flags of the enclosing `fx.arith.fastmath` block ("fast", ...), or None."""
    return tracing_option("fastmath")


def resolve_fastmath(explicit):
    """The fastmath flags an op gets: `explicit` when given, else those of
    the enclosing `fastmath` block (None outside one)."""
    return explicit if explicit is not None else current_fastmath()


def fastmath(flags):
    """A `with` block whose float ops (operators, conversions, fx.math,
    fx.arith and the conversions here) carry `flags` (a FastMathFlags,
    possibly combined with |, a string such as "fast" or "nnan,ninf", or an
    iterable of them), unless an op is given its own."""
    return FastmathScope(flags if flags is not None else "none")


def arith_const(value, ty=None):
    """`value` as a constant of `ty` (a scalar or vector type; a vector is
    splat), as an ArithValue; without `ty` by the Python number's kind."""
    if ty is None:
        return ArithValue(nm.as_numeric(value).ir_value())
    handle = _handle(ty)
    cls = _target_class(handle)
    shape = _shape_of(handle)
    if shape is None:
        return ArithValue(nm.constant(value, cls).ir_value())
    return ArithValue(nm.Vector.filled(shape, value, cls).ir_value())


def constant(value, *, type=None, index=False):  # noqa: A002 - FlyDSL's name
    """`value` as an arith.constant ArithValue: of `type`, an index with
    `index=True`, else i32 / f32 / i1 by the Python number."""
    if index:
        return arith_const(value, nm.Index)
    return arith_const(value, type)


def index(value):
    """`value` as an index constant."""
    return constant(value, index=True)


def constant_vector(element_value, vector_type):
    """A vector of `vector_type` with every element `element_value`."""
    if _shape_of(_handle(vector_type)) is None:
        fail(f"constant_vector: {vector_type} is not a vector type")
    return arith_const(element_value, vector_type)


def recast_type(src_type, res_elem_type):
    """`res_elem_type` in the shape of `src_type`: a vector of it for a
    vector type, else the element type itself."""
    elem = _handle(res_elem_type)
    shape = _shape_of(_handle(src_type))
    return elem if shape is None else ir.VectorType.get(list(shape), elem)


def _element_width(t) -> int:
    """The bit width of an integer or float element type (index: 64)."""
    elem = element_type(t)
    return 64 if str(elem) == "index" else elem.width


def _converted(fname, src, res_elem_type, want_float):
    """(the plain SSA value of `src`, the result type of a conversion of it
    to the element type `res_elem_type`), checking the source's kind."""
    value = _to_raw(src)
    if is_float_type(element_type(value.type)) != want_float:
        fail(f"{fname}: the source must be {'a float' if want_float else 'an integer'} value, "
             f"not {value.type}")
    return value, recast_type(value.type, res_elem_type)


def fp_to_fp(src, res_elem_type, *, rounding_mode=None):
    """A float value (or vector) converted to the float element type
    `res_elem_type`: arith.extf when it is wider, arith.truncf (rounded as
    `rounding_mode` says) when narrower; between two 16-bit formats through
    f32. The enclosing `fastmath` block's flags apply."""
    value, result = _converted("fp_to_fp", src, res_elem_type, True)
    elem, src_elem = element_type(result), element_type(value.type)
    if not is_float_type(elem):
        fail(f"fp_to_fp: the result element type must be a float type, not {elem}")
    if elem == src_elem:
        return ArithValue(value)
    fm = current_fastmath()
    if elem.width > src_elem.width:
        return _dialect.extf(result, value, fastmath=fm)
    if elem.width == src_elem.width:  # f16 <-> bf16: no direct conversion
        value = _dialect.extf(recast_type(value.type, ir.F32Type.get()), value, fastmath=fm)
    return _dialect.truncf(result, value, roundingmode=rounding_mode, fastmath=fm)


def fp_to_int(src, signed, res_elem_type):
    """A float value (or vector) converted to the integer element type
    `res_elem_type`, rounding toward zero (arith.fptosi when `signed`, else
    arith.fptoui)."""
    value, result = _converted("fp_to_int", src, res_elem_type, True)
    return (_dialect.fptosi if signed else _dialect.fptoui)(result, value)


def int_to_fp(src, signed, res_elem_type):
    """An integer value (or vector) converted to the float element type
    `res_elem_type`: read signed (arith.sitofp) when `signed`, else, and
    always for i1, unsigned (arith.uitofp)."""
    value, result = _converted("int_to_fp", src, res_elem_type, False)
    signed = signed and _element_width(value.type) > 1
    return (_dialect.sitofp if signed else _dialect.uitofp)(result, value)


def int_to_int(src, dst_type, *, signed=None):
    """An integer value (or vector) as the integer type `dst_type` (a
    numeric class or an element type): arith.trunci when narrower, extsi or
    extui when wider (`signed`, by default the ArithValue's signedness;
    i1 is zero-extended), itself at the same width."""
    value, result = _converted("int_to_int", src, dst_type, False)
    src_width, dst_width = _element_width(value.type), _element_width(result)
    if "index" in (str(element_type(value.type)), str(element_type(result))):
        fail("int_to_int: index has no fixed width (use index_cast)")
    if dst_width == src_width:
        return src if isinstance(src, ArithValue) else ArithValue(value)
    if dst_width < src_width:
        return _dialect.trunci(result, value)
    if signed is None:
        signed = getattr(src, "signed", None)
    return (_dialect.extsi if signed and src_width > 1 else _dialect.extui)(result, value)


def sitofp(target_type, value):
    """A signed integer value converted to the float type `target_type`."""
    return _dialect.sitofp(_handle(target_type), _to_raw(value))


def trunc_f(target_type, value):
    """A float value rounded to the narrower float type `target_type`."""
    return _dialect.truncf(_handle(target_type), _to_raw(value))


def _int_pair(lhs, rhs):
    """Two integer operands as plain SSA values; a Python int becomes a
    constant of the other operand's type."""
    if isinstance(lhs, int) and isinstance(rhs, int):
        fail("both operands are Python ints: compute the value in Python")
    if isinstance(lhs, int):
        rhs = _to_raw(rhs)
        return _to_raw(arith_const(lhs, rhs.type)), rhs
    lhs = _to_raw(lhs)
    return lhs, _to_raw(arith_const(rhs, lhs.type)) if isinstance(rhs, int) else _to_raw(rhs)


def andi(lhs, rhs):
    """lhs & rhs (arith.andi) of two integer values of one type."""
    return _dialect.andi(*_int_pair(lhs, rhs))


def xori(lhs, rhs):
    """lhs ^ rhs (arith.xori) of two integer values of one type."""
    return _dialect.xori(*_int_pair(lhs, rhs))


def shli(lhs, rhs):
    """lhs << rhs (arith.shli); shifting by the width or more is poison."""
    return _dialect.shli(*_int_pair(lhs, rhs))


def index_cast(target_type, value):
    """`value` cast between index and an integer type."""
    return ArithValue(value).index_cast(target_type)


def select(condition, true_value, false_value):
    """`true_value` where the i1 `condition` holds, else `false_value`."""
    return ArithValue(condition).select(true_value, false_value)


provide(arith_value=ArithValue)

# The raw builders' results of these types come back as ArithValues, as
# FlyDSL's do (flydsl._mlir's value casters).
for _cls in (ir.IntegerType, ir.IndexType, ir.VectorType, ir.F16Type, ir.BF16Type, ir.F32Type,
             ir.F64Type, ir.Float8E4M3FNType, ir.Float8E4M3FNUZType, ir.Float8E5M2Type,
             ir.Float8E4M3Type, ir.Float8E4M3B11FNUZType, ir.Float8E8M0FNUType,
             ir.Float4E2M1FNType, ir.Float6E2M3FNType, ir.Float6E3M2FNType):
    ir.register_value_caster(_cls.static_typeid, ArithValue, replace=True)
