"""Numeric types: the scalars (and, as `Vector`, the 1-D vectors) of traced
code, with FlyDSL's classes, members and semantics (SPEC §7).

`Int32(x)` inside a traced function is an SSA value of type i32: a Python
number becomes an `arith.constant` (an integer wraps to the type's width,
as a C cast does), another numeric is converted. Outside a trace it is a
host value, an argument for a @flyc.jit function.

The class is the type: `Int32.width`, `.signed` (None for floats),
`.ir_type` (the type handle of the C++ context), `.numpy_dtype`,
`.is_integer`, `.is_float`, `.zero` are class members (NumericMeta).

Operators emit `arith` ops on operands brought to one type first:

  * A Python operand is a numeric of its own: a bool a Boolean, an int an
    Int32 (Int64 past int32's range), a float a Float32. So `Int8 + 1` is
    an Int32 and `Float16 * 2.0` a Float32.
  * The common type of two types: a float beats an integer (widened to
    Float32, or Float64 for integers wider than 32 bits, when the float is
    narrower than the integer); of two floats the wider one (at 16 bits or
    more), else the higher of Float64 > Float32 > Float16 = BFloat16 (Float16
    with BFloat16: Float32; two different 8-bit floats: an error); of two
    integers the wider one, and on a tie of signedness the unsigned one.
    Booleans count as Int32 in + - * / // %.
  * Integer `/` is a float division: both operands converted to Float32
    (Float64 for integers wider than 32 bits), then arith.divf.
  * Integer `//` rounds toward -inf (arith.floordivsi; unsigned types and
    Index divui); integer `%` is arith.remsi (the dividend's sign; remui
    unsigned): -7 // 2 == -4 but -7 % 2 == -1, as FlyDSL has it.
    Float `//` is floor(a / b), float `%` arith.remf.
  * `>>` is arithmetic for signed types, logical for unsigned ones;
    comparisons are unsigned for unsigned types; float comparisons are
    ordered, `!=` unordered.
  * `**` is math.powf for floats and an integer power (math.ipowi's value)
    for integers.

Float ops take the fastmath flags of an enclosing `fx.arith.fastmath(...)`.
A numeric is dynamic: using it as a Python bool (`bool(x)` outside the
AST rewriter's reach) is an error that says so.
"""

from __future__ import annotations

import math as _pymath
import struct as _struct

from ..tracing.errors import TraceError
from ..tracing.ir import Value, parse_type, user_location
from ..tracing.trace import Trace, builder
from ._late import late

__all__ = ["NumericMeta", "Numeric", "as_numeric", "Integer", "Float", "Boolean", "Int4", "Int8",
           "Int16", "Int32", "Int64", "Int128", "Uint8", "Uint16", "Uint32", "Uint64", "Uint128",
           "Float16", "BFloat16", "Float32", "Float64", "Float8E5M2", "Float8E4M3FN",
           "Float8E4M3FNUZ", "Float8E4M3B11FNUZ", "Float8E4M3", "Float6E2M3FN", "Float6E3M2FN",
           "Float8E8M0FNU", "Float4E2M1FN", "Index"]


def _fail(message: str):
    raise TraceError(message, *user_location()[:2])


class NumericMeta(type):
    """The metaclass of numeric types: a class is a type, with its width,
    signedness (None for floats), MLIR element type and numpy dtype."""

    def __new__(mcs, name, bases, attrs, width=8, np_dtype=None, ir_type=None, signed=None,
                zero=None, **kwargs):
        if not (isinstance(name, str) and isinstance(bases, tuple)
                and all(isinstance(b, type) for b in bases) and isinstance(attrs, dict)):
            _fail("NumericMeta(name, bases, attrs, ...) defines a numeric class: a str, a "
                  f"tuple of classes and a dict, not {type(name).__name__}, "
                  f"{type(bases).__name__}, {type(attrs).__name__}")
        cls = super().__new__(mcs, name, bases, attrs)
        if ir_type is not None:
            cls.mlir_type = ir_type  # the MLIR text of the element type ("i32", "f16")
        cls.width = width
        cls.bits = width  # our earlier name of width
        cls.signed = signed
        # None: numpy's dtype of the same name, looked up on first use (so that
        # importing flydsl does not import numpy).
        cls._np_dtype = np_dtype
        cls._zero = zero
        return cls

    def __init__(cls, name, bases, attrs, **kwargs):
        super().__init__(name, bases, attrs)

    def __str__(cls):
        return cls.__name__

    @property
    def numpy_dtype(cls):
        if cls._np_dtype is None:
            cls._np_dtype = _numpy_dtype(cls.__name__, cls.width, cls.signed) or _NO_DTYPE
        return None if cls._np_dtype is _NO_DTYPE else cls._np_dtype

    @property
    def ir_type(cls):
        """The type handle of the class's type (None for abstract classes)."""
        text = cls.__dict__.get("_ir_text") or cls.mlir_type
        return parse_type(text) if isinstance(text, str) and text else None

    @property
    def is_integer(cls) -> bool:
        return cls.signed is not None

    @property
    def is_float(cls) -> bool:
        return cls.signed is None and isinstance(cls.mlir_type, str) and bool(cls.mlir_type)

    @property
    def zero(cls):
        if cls._zero is not None:
            return cls._zero
        if cls.is_integer:
            return 0
        if cls.is_float:
            return 0.0
        raise TraceError(f"{cls.__name__} has no zero value")


_NO_DTYPE = object()  # a class numpy has no dtype for (BFloat16, the fp8 types)


def _numpy_dtype(name, width, signed):
    import numpy as np

    if signed is None:
        return {"Float16": np.float16, "Float32": np.float32, "Float64": np.float64}.get(name)
    if width == 1:
        return np.bool_
    if name == "Index":
        return np.int64
    return getattr(np, f"{'int' if signed else 'uint'}{width}", None)


class Numeric(metaclass=NumericMeta):
    """A dynamic value of an integer or float type."""

    mlir_type = ""

    def __init__(self, value):
        if isinstance(value, Value):
            if str(value.type) == type(self).mlir_type or not type(self).mlir_type:
                self.ir = value
            else:  # an SSA value of another type: converted, as FlyDSL's constructors do
                self.ir = convert(wrap(value), type(self))._ir
        elif isinstance(value, (bool, int, float)) and not isinstance(value, Numeric):
            # A Python number: a static value (folded in arithmetic, made an
            # arith.constant where an SSA value is needed), in a trace or
            # outside one (an argument for a @flyc.jit function).
            self.host_value = _static_value(value, type(self))
        elif isinstance(value, Numeric) and not isinstance(value, Vector) and value.is_static():
            self.host_value = _static_value(value.host_value, type(self))
        elif isinstance(value, Numeric):
            self.ir = convert(value, type(self))._ir
        else:
            _fail(f"{type(self).__name__}(): cannot make a {type(self).__name__} from "
                  f"{_describe(value)}")

    @property
    def _ir(self):
        """The SSA value of a dynamic numeric, None for a static one."""
        return self.__dict__.get("ir")

    def __getattr__(self, name):
        # `ir` of a static value (which has no `ir` of its own: a numeric
        # class has no `ir` either): inside a trace an arith.constant of it,
        # made once per block; outside a trace None.
        if name != "ir" or "host_value" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if not Trace.active():
            return None
        block = builder().current
        made = self.__dict__.get("_materialized")
        if made is None or made[0] is not block:
            made = (block, constant(self.host_value, type(self))._ir)
            self.__dict__["_materialized"] = made
        return made[1]

    @property
    def __fly_dynamic__(self):
        return self._ir is not None

    # -- FlyDSL's value members ---------------------------------------------
    @property
    def value(self):
        """The SSA value, or the Python number of a host value."""
        return self._ir if self._ir is not None else self.host_value

    @property
    def dtype(self):
        return type(self)

    @property
    def is_float(self) -> bool:
        return type(self).is_float

    @property
    def is_integer(self) -> bool:
        return type(self).is_integer

    def is_static(self) -> bool:
        """Whether this holds a Python number (a host value) rather than an
        SSA value of the trace."""
        return self._ir is None

    def ir_value(self) -> Value:
        """The SSA value as FlyDSL gives it: a raw value with operators (an
        ArithValue read with this type's signedness; a static value's
        arith.constant)."""
        return late.arith_value(self.ir, type(self).signed)

    @classmethod
    def type_handle(cls):
        return parse_type(cls.mlir_type)

    @property
    def type(self):
        return self.ir.type

    @staticmethod
    def from_python_value(value):
        """The numeric of a Python value: bool -> Boolean, int -> Int32 (Int64
        past int32), float -> Float32; a numeric or SSA value as itself."""
        if isinstance(value, Numeric):
            return value
        if isinstance(value, Value):
            return wrap(value)
        if isinstance(value, (bool, int, float)):
            return literal_class(value)(value)
        _fail(f"Numeric.from_python_value: cannot make a numeric from {_describe(value)}")

    @staticmethod
    def from_ir_type(ir_type):
        """The numeric class of a type handle (or its MLIR text)."""
        return numeric_class(str(ir_type))

    def to(self, dtype, *, rounding_mode=None):
        """This value converted to numeric type `dtype` (by value), or with
        dtype=int/float/bool the Python number of a host value."""
        if dtype in (int, float, bool):
            if self._ir is not None:
                _fail(f"{type(self).__name__}.to({dtype.__name__}): a dynamic value has no "
                      "Python number")
            return dtype(self.host_value)
        if dtype is Value:
            return self.ir_value()
        if not isinstance(dtype, type) and _is_type_handle(dtype):
            dtype = _element_class(dtype)  # an MLIR type (T.f16): its numeric class
        if not (isinstance(dtype, type) and issubclass(dtype, Numeric)) or dtype is Vector:
            _fail(f"{type(self).__name__}.to(): the type must be a numeric class such as "
                  f"fx.Float32, not {_describe(dtype)}")
        if rounding_mode is not None:
            return _round_to(self, dtype, rounding_mode)
        return convert(self, dtype)

    def bitcast(self, dtype):
        """These bits as a value of `dtype` (of the same width)."""
        return late.bitcast(self, dtype)

    def select(self, true_value, false_value):
        """`true_value` where this condition holds, else `false_value`
        (a non-Boolean condition is `self != 0`); the two promote as the
        operands of arithmetic do."""
        cond = self if _element(self) is Boolean else self != 0
        if _is_static(cond) and not isinstance(true_value, Vector) \
                and not isinstance(false_value, Vector):
            # a static condition picks its value, both brought to their common type
            common = promote(_class_of(true_value, "select"), _class_of(false_value, "select"))
            chosen = true_value if cond.host_value else false_value
            return common(chosen) if _is_static(chosen) else convert(chosen, common)
        return late.select_elementwise(cond, true_value, false_value, fname="select", promote=True)

    def maximumf(self, other):
        """The NaN-propagating float maximum (arith.maximumf)."""
        return late.maximumf(self, other)

    def minimumf(self, other):
        """The NaN-propagating float minimum (arith.minimumf)."""
        return late.minimumf(self, other)

    def exp2(self, *, fastmath=None):
        return late.exp2(self, fastmath=fastmath)

    def addf(self, other, *, fastmath=None):
        """A float addition with these fastmath flags."""
        return _binary(self, other, "add", fastmath=fastmath)

    def shrui(self, amount):
        """A logical right shift, keeping this value's type."""
        return late.shrui(self, amount)

    def shuffle_xor(self, offset, width):
        """The value of lane `lane_id ^ offset` within segments of `width`
        lanes (a wave shuffle, as fx.shuffle_xor)."""
        return late.shuffle_xor(self, offset, width)

    # -- Python protocol ------------------------------------------------------
    def __bool__(self):
        if self._ir is None:
            return bool(self.host_value)
        _fail(f"a dynamic {type(self).__name__} used as a Python bool: its value is "
              "only known when the kernel runs (write the condition in an `if` or "
              "`while` of a traced function, or use fx.const_expr for a Python value)")

    def __index__(self):
        if self._ir is None and not type(self).is_float:
            return int(self.host_value)
        _fail(f"a dynamic {type(self).__name__} used as a Python int")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._ir.name if self._ir is not None else self.host_value!r})"

    def __str__(self) -> str:
        return "?" if self._ir is not None else str(self.host_value)

    # -- arithmetic -----------------------------------------------------------
    def __add__(self, o): return _binary(self, o, "add")
    def __radd__(self, o): return _binary(o, self, "add")
    def __sub__(self, o): return _binary(self, o, "sub")
    def __rsub__(self, o): return _binary(o, self, "sub")
    def __mul__(self, o): return _binary(self, o, "mul")
    def __rmul__(self, o): return _binary(o, self, "mul")
    def __truediv__(self, o): return _binary(self, o, "truediv")
    def __rtruediv__(self, o): return _binary(o, self, "truediv")
    def __floordiv__(self, o): return _binary(self, o, "floordiv")
    def __rfloordiv__(self, o): return _binary(o, self, "floordiv")
    def __mod__(self, o): return _binary(self, o, "mod")
    def __rmod__(self, o): return _binary(o, self, "mod")
    def __pow__(self, o): return _binary(self, o, "pow")
    def __rpow__(self, o): return _binary(o, self, "pow")
    def __divmod__(self, o): return (self // o, self % o)
    def __rdivmod__(self, o): return (o // self, o % self)
    def __and__(self, o): return _binary(self, o, "and")
    def __rand__(self, o): return _binary(o, self, "and")
    def __or__(self, o): return _binary(self, o, "or")
    def __ror__(self, o): return _binary(o, self, "or")
    def __xor__(self, o): return _binary(self, o, "xor")
    def __rxor__(self, o): return _binary(o, self, "xor")
    def __lshift__(self, o): return _binary(self, o, "shl")
    def __rlshift__(self, o): return _binary(o, self, "shl")
    def __rshift__(self, o): return _binary(self, o, "shr")
    def __rrshift__(self, o): return _binary(o, self, "shr")

    def __neg__(self):
        cls = _element(self)
        if cls is Boolean:
            _fail("unary minus is not defined on Boolean")
        if _is_static(self):
            return cls(-self.host_value)
        if cls.is_float:
            return late.emit("arith.negf", [self], self, cls, late.fastmath_attr(None))
        return _binary(0, self, "sub", literal_like=True)

    def __pos__(self):
        return self

    def __abs__(self):
        if _is_static(self):
            if type(self) is Boolean:
                _fail("abs is not defined on Boolean")
            return type(self)(abs(self.host_value))

        return late.math_abs("abs", self)

    def __invert__(self):
        cls = _element(self)
        if cls.is_float:
            _fail(f"~ is not defined on {cls.__name__}")
        if _is_static(self):
            return cls(not self.host_value if cls is Boolean else ~self.host_value)
        return _binary(self, -1 if cls is not Boolean else True, "xor", literal_like=True)

    def __lt__(self, o): return _compare(self, o, "lt")
    def __le__(self, o): return _compare(self, o, "le")
    def __gt__(self, o): return _compare(self, o, "gt")
    def __ge__(self, o): return _compare(self, o, "ge")
    def __eq__(self, o): return _compare(self, o, "eq")
    def __ne__(self, o): return _compare(self, o, "ne")
    __hash__ = object.__hash__


class Integer(Numeric, width=32, signed=True, ir_type="i32"):
    """An integer type (Int*, Uint*, Boolean, Index)."""

    def __init__(self, x):
        Numeric.__init__(self, x)


class Float(Numeric, width=32, ir_type="f32"):
    """A floating-point type."""

    def __init__(self, x):
        Numeric.__init__(self, x)


class Boolean(Integer, width=1, signed=True, ir_type="i1"):
    """i1: a Python bool, or `x != 0` of another numeric."""

    def __init__(self, a):
        Numeric.__init__(self, a)


def _int_class(name, width, signed, mlir=None):
    return NumericMeta(name, (Integer,), {"__module__": __name__}, width=width, signed=signed,
                       ir_type=mlir or f"i{width}")


def _float_class(name, width, mlir):
    return NumericMeta(name, (Float,), {"__module__": __name__}, width=width, ir_type=mlir)


Int4 = _int_class("Int4", 4, True)
Int8, Int16, Int32, Int64, Int128 = (_int_class(f"Int{w}", w, True) for w in (8, 16, 32, 64, 128))
Uint8, Uint16, Uint32, Uint64, Uint128 = (_int_class(f"Uint{w}", w, False)
                                          for w in (8, 16, 32, 64, 128))
Float16 = _float_class("Float16", 16, "f16")
BFloat16 = _float_class("BFloat16", 16, "bf16")
Float32 = _float_class("Float32", 32, "f32")
Float64 = _float_class("Float64", 64, "f64")
Float8E5M2 = _float_class("Float8E5M2", 8, "f8E5M2")
Float8E4M3FN = _float_class("Float8E4M3FN", 8, "f8E4M3FN")
Float8E4M3FNUZ = _float_class("Float8E4M3FNUZ", 8, "f8E4M3FNUZ")
Float8E4M3B11FNUZ = _float_class("Float8E4M3B11FNUZ", 8, "f8E4M3B11FNUZ")
Float8E4M3 = _float_class("Float8E4M3", 8, "f8E4M3")
Float6E2M3FN = _float_class("Float6E2M3FN", 6, "f6E2M3FN")
Float6E3M2FN = _float_class("Float6E3M2FN", 6, "f6E3M2FN")
Float8E8M0FNU = _float_class("Float8E8M0FNU", 8, "f8E8M0FNU")
Float4E2M1FN = _float_class("Float4E2M1FN", 4, "f4E2M1FN")


class Index(Integer, width=64, signed=False, ir_type="index"):
    """A value of MLIR's `index` type (the target's pointer-sized integer):
    from a Python int, or an integer converted by arith.index_cast
    (index_castui for unsigned types). As FlyDSL has it, Index is unsigned
    in `//`, `%`, `>>` and comparisons."""

    def __init__(self, x):
        Numeric.__init__(self, x)


NUMERIC_TYPES = [Boolean, Int4, Int8, Int16, Int32, Int64, Int128, Uint8, Uint16, Uint32, Uint64,
                 Uint128, Float16, BFloat16, Float32, Float64, Float8E5M2, Float8E4M3FN,
                 Float8E4M3FNUZ, Float8E4M3B11FNUZ, Float8E4M3, Float6E2M3FN, Float6E3M2FN,
                 Float8E8M0FNU, Float4E2M1FN, Index]
_BY_MLIR = {}
for _cls in NUMERIC_TYPES:
    _BY_MLIR.setdefault(_cls.mlir_type, _cls)  # a signless iN is the signed IntN


def numeric_class(mlir_element: str):
    """The numeric class of an MLIR element type ("i32" -> Int32)."""
    cls = _BY_MLIR.get(mlir_element)
    if cls is None:
        _fail(f"no numeric type for {mlir_element}")
    return cls


def as_numeric(obj):
    """`obj` as a numeric: a numeric itself, a Python bool/int/float as
    Boolean/Int32 (Int64 past int32)/Float32."""
    return Numeric.from_python_value(obj)


def literal_class(x):
    """The numeric class a Python number stands for in arithmetic."""
    if isinstance(x, bool):
        return Boolean
    if isinstance(x, int):
        return Int32 if -(1 << 31) <= x < (1 << 31) else Int64
    return Float32


def _describe(x) -> str:
    if isinstance(x, type):
        return f"the class {x.__name__}"
    return f"a {type(x).__module__ + '.' if type(x).__module__ not in ('builtins',) else ''}" \
           f"{type(x).__name__}"


def _element(x):
    return x.dtype if isinstance(x, Vector) else type(x)


# -- Vector ---------------------------------------------------------------------


class Vector(Numeric):
    """A dynamic vector (`vector<N x T>`), e.g. a fragment's `load()`, with
    a static shape (nested tuples whose product is N) and element type
    `dtype`: elementwise arithmetic with vectors and scalars (which are
    broadcast), indexing, conversion, reduction. Exported as fx.Vector."""

    def __init__(self, value, shape=None, dtype=None):
        if isinstance(shape, type) and issubclass(shape, Numeric) and dtype is None:
            shape, dtype = None, shape  # our earlier Vector(value, element)
        if isinstance(value, Vector):
            value = value.ir
        if not isinstance(value, Value) or not str(value.type).startswith("vector<"):
            _fail(f"Vector(): the value must be an SSA value of a vector type, not "
                  f"{_describe(value)} (use Vector.filled or Vector.from_elements)")
        n, elem = _vector_parts(value.type)
        if dtype is None:
            dtype = numeric_class(elem)
        elif not (isinstance(dtype, type) and issubclass(dtype, Numeric)) or dtype.mlir_type != elem:
            _fail(f"Vector(): dtype {_describe(dtype)} does not match the element type {elem}")
        shape = _canonical_shape(n if shape is None else shape)
        if _numel(shape) != n:
            _fail(f"Vector(): shape {shape} has {_numel(shape)} elements, the value {n}")
        self.ir = value
        self._shape = shape
        self._dtype = dtype
        self.signed = dtype.signed

    @property
    def dtype(self):
        return self._dtype

    element = element_type = dtype

    @property
    def shape(self):
        return self._shape

    @property
    def numel(self) -> int:
        return _numel(self._shape)

    @property
    def is_float(self) -> bool:
        return self._dtype.is_float

    @property
    def is_integer(self) -> bool:
        return self._dtype.is_integer

    @property
    def mlir_type(self):
        return str(self.ir.type)

    def ir_value(self):
        """The SSA value as a raw value with operators (an ArithValue)."""
        return late.arith_value(self.ir, self._dtype.signed)

    def __len__(self):
        return self.numel

    def __iter__(self):
        return (self[i] for i in range(self.numel))

    def __repr__(self):
        return f"Vector({self.ir.name}: {self.ir.type}, {self._shape}, {self._dtype.__name__})"

    def __bool__(self):
        _fail("a Vector used as a Python bool")

    @staticmethod
    def make_type(shape, dtype):
        """The type handle of a flat vector of `shape` (its element count)
        and element class `dtype`."""
        if not (isinstance(dtype, type) and issubclass(dtype, Numeric)) or not dtype.mlir_type:
            _fail(f"Vector.make_type: dtype must be a numeric class, not {_describe(dtype)}")
        return parse_type(f"vector<{_numel(_canonical_shape(shape))}x{dtype.mlir_type}>")

    @classmethod
    def filled(cls, shape, fill_value, dtype):
        """A vector of `shape` whose every element is `fill_value` (a Python
        number or a numeric, converted to `dtype`)."""
        if not (isinstance(dtype, type) and issubclass(dtype, Numeric)) or dtype is Vector:
            _fail(f"Vector.filled: dtype must be a numeric class, not {_describe(dtype)}")
        shape = _canonical_shape(shape)
        if isinstance(fill_value, Vector) or not isinstance(fill_value, (bool, int, float, Numeric)):
            _fail(f"Vector.filled: the fill value must be a number or a scalar numeric, not "
                  f"{_describe(fill_value)}")
        scalar = convert(fill_value, dtype)
        (v,) = builder().op("vector.broadcast", [scalar.ir], [Vector.make_type(shape, dtype)])
        return Vector(v, shape, dtype)

    @classmethod
    def filled_like(cls, template, fill_value, dtype=None):
        return cls.filled(template.shape, fill_value, dtype or template.dtype)

    @classmethod
    def zeros_like(cls, template, dtype=None):
        dtype = dtype or template.dtype
        return cls.filled(template.shape, dtype.zero, dtype)

    @classmethod
    def from_elements(cls, elements, dtype=None):
        """The vector of these scalars (numerics, raw scalar values such as
        a raw builder's result, or Python numbers), of `dtype` (by default
        the first element's type)."""
        elements = [lift(e) for e in elements]
        if not elements:
            _fail("Vector.from_elements needs at least one element")
        if dtype is None:
            dtype = _element(as_numeric(elements[0])) if not isinstance(elements[0], Numeric) \
                else _element(elements[0])
        scalars = []
        for e in elements:
            if isinstance(e, Vector) or not isinstance(e, (bool, int, float, Numeric)):
                _fail(f"Vector.from_elements: an element must be a number or a scalar numeric, "
                      f"not {_describe(e)}")
            scalars.append(convert(e, dtype).ir)
        (v,) = builder().op("vector.from_elements", scalars,
                            [Vector.make_type(len(scalars), dtype)])
        return Vector(v, (len(scalars),), dtype)

    def to(self, dtype, *, rounding_mode=None):
        if dtype is Value:
            return self.ir
        return Numeric.to(self, dtype, rounding_mode=rounding_mode)

    def reshape(self, shape):
        shape = _canonical_shape(shape)
        if _numel(shape) != self.numel:
            _fail(f"Vector.reshape: {self._shape} has {self.numel} elements, {shape} {_numel(shape)}")
        return Vector(self.ir, shape, self._dtype)

    def broadcast_to(self, target_shape):
        target_shape = _canonical_shape(target_shape)
        if target_shape == self._shape:
            return self
        if self.numel == 1:
            return Vector.filled(target_shape, self[0], self._dtype)
        if _numel(target_shape) == self.numel:
            return Vector(self.ir, target_shape, self._dtype)
        _fail(f"cannot broadcast a Vector of shape {self._shape} to {target_shape}")

    def __getitem__(self, idx):
        """An element (an int, a numeric index, or a coordinate tuple of the
        shape, row-major); None is the whole vector, and a coordinate tuple
        with None in some modes the sub-vector of those modes (the others
        fixed), of the shape of the None modes."""
        b = builder()
        if idx is None:
            return self
        if isinstance(idx, tuple) and any(c is None for c in _flatten(idx)):
            return self._slice(idx)
        if isinstance(idx, tuple):
            flat = _flatten(idx)
            dims = _flatten(self._shape)
            if len(flat) != len(dims) or not all(isinstance(c, int) for c in flat):
                _fail(f"Vector index {idx}: a static coordinate of shape {self._shape} expected")
            i = 0
            for c, d in zip(flat, dims):
                i = i * d + c
            idx = i
        if isinstance(idx, int) and not isinstance(idx, bool):
            i = idx + self.numel if idx < 0 else idx
            if not 0 <= i < self.numel:
                raise IndexError(f"vector index {idx} out of range for {self.numel} elements")
            (e,) = b.op("vector.extract", [self.ir], [self._dtype.type_handle()],
                        f"static_position = array<i64: {i}>")
            return self._dtype(e)
        if isinstance(idx, Numeric) and not isinstance(idx, Vector) and not idx.is_float:
            pos = convert(idx, Index)
            (e,) = b.op("vector.extract", [self.ir, pos.ir], [self._dtype.type_handle()],
                        "static_position = array<i64: -9223372036854775808>")
            return self._dtype(e)
        _fail(f"a Vector index must be an int, an integer numeric or a tuple, not {_describe(idx)}")

    def _slice(self, coord):
        dims = _flatten(self._shape)
        flat = _flatten(coord)
        if len(flat) != len(dims) or not all(c is None or (isinstance(c, int)
                                                           and not isinstance(c, bool)) for c in flat):
            _fail(f"Vector index {coord}: a static coordinate of shape {self._shape} "
                  "(ints or None) expected")
        for c, d in zip(flat, dims):
            if c is not None and not 0 <= c < d:
                _fail(f"Vector index {coord}: out of range for shape {self._shape}")
        # the selected lanes, row-major (the last mode fastest), as in the index
        lanes = [0]
        for c, d in zip(flat, dims):
            lanes = [l * d + j for l in lanes for j in ((c,) if c is not None else range(d))]
        shape = _slice_shape(self._shape, coord)
        return self.shuffle(self, lanes).reshape(shape if shape else (1,))

    def shuffle(self, other, mask):
        """The vector of lanes `mask` (static ints) picked from this vector's
        lanes followed by `other`'s (vector.shuffle; -1 is an undefined lane)."""
        if not isinstance(other, Vector) or other.dtype.mlir_type != self._dtype.mlir_type:
            _fail(f"Vector.shuffle: the other operand must be a Vector of {self._dtype.__name__}, "
                  f"not {_describe(other) if not isinstance(other, Vector) else other.dtype.__name__}")
        mask = list(mask)
        total = self.numel + other.numel
        if not mask or not all(isinstance(m, int) and not isinstance(m, bool) and -1 <= m < total
                               for m in mask):
            _fail(f"Vector.shuffle: the mask must be a non-empty list of ints in [-1, {total}), "
                  f"not {mask!r}")
        attrs = "mask = array<i64: " + ", ".join(str(m) for m in mask) + ">"
        (v,) = builder().op("vector.shuffle", [self.ir, other.ir],
                            [Vector.make_type(len(mask), self._dtype)], attrs)
        return Vector(v, (len(mask),), self._dtype)

    def with_signedness(self, signed):
        """This vector read as signed or unsigned integers of its width."""
        if not self._dtype.is_integer or self._dtype in (Boolean, Index):
            _fail(f"Vector.with_signedness: a vector of {self._dtype.__name__} has no signedness")
        cls = next(c for c in NUMERIC_TYPES if c.is_integer and c.width == self._dtype.width
                   and c.signed == bool(signed) and c is not Index)
        return Vector(self.ir, self._shape, cls)

    def _cast_op(self, name, op, target_type, kinds, fastmath=None):
        cls = _target_element(name, target_type, self.numel)
        ok = {"float": cls.is_float and self._dtype.is_float,
              "int": cls.is_integer and self._dtype.is_integer and cls is not Index
              and self._dtype is not Index,
              "index": (cls is Index) != (self._dtype is Index) and cls.is_integer
              and self._dtype.is_integer}[kinds]
        wider = cls.width > self._dtype.width
        if not ok or (op in ("arith.extf", "arith.extui", "arith.extsi") and not wider) or \
                (op in ("arith.truncf", "arith.trunci") and cls.width >= self._dtype.width):
            _fail(f"Vector.{name}: cannot {name} a vector of {self._dtype.__name__} to "
                  f"{cls.__name__}")
        fm = late.fastmath_attr(fastmath) if kinds == "float" else ""
        (v,) = builder().op(op, [self.ir], [Vector.make_type(self.numel, cls)], fm)
        return Vector(v, self._shape, cls)

    def extf(self, target_type, *, fastmath=None):
        """Each element widened to the float type `target_type` (arith.extf)."""
        return self._cast_op("extf", "arith.extf", target_type, "float", fastmath)

    def truncf(self, target_type, *, fastmath=None):
        """Each element rounded to the narrower float type (arith.truncf)."""
        return self._cast_op("truncf", "arith.truncf", target_type, "float", fastmath)

    def extui(self, target_type):
        """Each element zero-extended to the wider integer type (arith.extui)."""
        return self._cast_op("extui", "arith.extui", target_type, "int")

    def extsi(self, target_type):
        """Each element sign-extended to the wider integer type (arith.extsi)."""
        return self._cast_op("extsi", "arith.extsi", target_type, "int")

    def trunci(self, target_type):
        """Each element's low bits as the narrower integer type (arith.trunci)."""
        return self._cast_op("trunci", "arith.trunci", target_type, "int")

    def index_cast(self, target_type):
        """Each element cast between index and an integer type (arith.index_cast)."""
        cls = _target_element("index_cast", target_type, self.numel)
        if cls is self._dtype:
            return self
        return self._cast_op("index_cast", "arith.index_cast", target_type, "index")

    def rsqrt(self, *, fastmath=None):
        """1 / sqrt of each element (fx.math.rsqrt)."""
        return late.rsqrt(self, fastmath=fastmath)

    def select(self, true_value, false_value):
        """Lane-wise: `true_value` where this vector of conditions holds."""
        cond = self if self._dtype is Boolean else self != 0
        return late.select_elementwise(cond, true_value, false_value, fname="Vector.select",
                                       promote=True)

    def bitcast(self, dtype):
        """These bits as a vector of `dtype` elements (as many as fit)."""
        if not (isinstance(dtype, type) and issubclass(dtype, Numeric)) or not dtype.mlir_type \
                or dtype is Index:
            _fail(f"Vector.bitcast: dtype must be a fixed-width numeric class, not "
                  f"{_describe(dtype)}")
        bits = self.numel * self._dtype.width
        if bits % dtype.width:
            _fail(f"Vector.bitcast: {bits} bits are not a whole number of {dtype.__name__}")
        n = bits // dtype.width
        (v,) = builder().op("vector.bitcast", [self.ir], [Vector.make_type(n, dtype)])
        return Vector(v, (n,), dtype)

    def reduce(self, op, init_val=None, reduction_profile=None, *, fastmath=None):
        """The elements combined by `op` (a typing.ReductionOp or its name:
        add, mul, max, min) into a scalar, optionally starting from
        `init_val` (vector.reduction). Float max is maxnumf, min minimumf,
        as FlyDSL has them."""
        key = getattr(op, "value", op)
        cls = self._dtype
        if isinstance(key, int) and hasattr(op, "name"):
            # the vector dialect's CombiningKind (flydsl._mlir): that exact kind
            kind = op.name.lower()
        elif not isinstance(key, str) or key.lower() not in _REDUCE_KINDS:
            _fail(f"Vector.reduce: unknown operation {op!r} (add, mul, max, min)")
        else:
            kind = _REDUCE_KINDS[key.lower()][0 if cls.is_float else 1 if cls.signed else 2]
        attrs = f"kind = #vector.kind<{kind}>"
        operands = [self.ir]
        if init_val is not None:
            operands.append(convert(init_val, cls).ir)
        fm = late.fastmath_attr(fastmath) if cls.is_float else ""
        if fm:
            attrs += ", " + fm
        (v,) = builder().op("vector.reduction", operands, [cls.type_handle()], attrs)
        return cls(v)


_REDUCE_KINDS = {"add": ("add", "add", "add"), "mul": ("mul", "mul", "mul"),
                 "max": ("maxnumf", "maxsi", "maxui"), "min": ("minimumf", "minsi", "minui")}


def _target_element(name, target_type, numel):
    """The element class of a cast's target: a numeric class, or a type
    handle (or its text) of a scalar type or of a vector of `numel` lanes."""
    if isinstance(target_type, type) and issubclass(target_type, Numeric) \
            and target_type is not Vector and target_type.mlir_type:
        return target_type
    text = str(target_type) if target_type is not None else ""
    if text.startswith("vector<"):
        n, elem = _vector_parts(text)
        if n != numel:
            _fail(f"Vector.{name}: the target {text} has {n} lanes, the vector {numel}")
        text = elem
    cls = _BY_MLIR.get(text)
    if cls is None:
        _fail(f"Vector.{name}: the target type must be a numeric class or a scalar or vector "
              f"type, not {_describe(target_type)}")
    return cls


def _slice_shape(shape, coord):
    """The shape of the modes of `shape` that `coord` leaves None (nested
    modes kept where a whole mode is None)."""
    out = []
    for dim, c in zip(shape, coord if isinstance(coord, (tuple, list)) else (coord,)):
        if c is None:
            out.append(dim)
        elif isinstance(dim, (tuple, list)):
            sub = _slice_shape(dim, c)
            if sub:
                out.append(sub)
    return tuple(out)


def _vector_parts(t):
    text = str(t)
    inner = text[len("vector<"):-1]
    dims, _, elem = inner.rpartition("x")
    if not dims or not all(d.isdigit() for d in dims.split("x")):
        _fail(f"only vectors of static shape are supported, not {text}")
    n = 1
    for d in dims.split("x"):
        n *= int(d)
    return n, elem


def _canonical_shape(shape):
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    if isinstance(shape, (tuple, list)):
        out = tuple(_canonical_shape(s) if isinstance(s, (tuple, list)) else s for s in shape)
        if all(isinstance(d, int) and d > 0 for d in _flatten(out)):
            return out
    _fail(f"a Vector shape must be static positive ints (nested tuples), not {shape!r}")


def _flatten(shape):
    out = []
    for s in shape if isinstance(shape, (tuple, list)) else (shape,):
        out.extend(_flatten(s) if isinstance(s, (tuple, list)) else [s])
    return out


def _numel(shape) -> int:
    n = 1
    for d in _flatten(shape):
        n *= d
    return n


# -- construction ---------------------------------------------------------------


def wrap(value: Value):
    """The numeric object of an SSA value of a scalar or vector type."""
    if str(value.type).startswith("vector<"):
        return Vector(value)
    return numeric_class(str(value.type))(value)


def _int_of(x) -> int:
    if isinstance(x, float):
        if _pymath.isnan(x) or _pymath.isinf(x):
            _fail(f"the float {x} has no integer value")
        return int(x)  # toward zero
    return int(x)


def _wrap_int(value: int, cls) -> int:
    """`value` reduced to `cls`'s width, read signed or unsigned as `cls`
    is (a C cast)."""
    if cls is Index:
        cls = Int64
    if cls.width == 1:
        return int(bool(value))
    value &= (1 << cls.width) - 1
    if cls.signed and value >= 1 << (cls.width - 1):
        value -= 1 << cls.width
    return value


def _static_value(x, cls):
    """The Python number a static `cls` holds for the Python number `x`:
    as FlyDSL keeps it, a float as a Python float (not rounded to the
    type), an integer reduced to the type's width (a float truncated toward
    zero first), a Boolean as a bool."""
    if cls is Boolean or cls.width == 1:
        return bool(x)
    if cls.is_float:
        return float(x)
    return _wrap_int(_int_of(x), cls)


def _is_static(x) -> bool:
    """A Python number or a static scalar numeric (folded in arithmetic)."""
    if isinstance(x, Numeric):
        return not isinstance(x, Vector) and x.is_static()
    return isinstance(x, (bool, int, float))


def _python_value(x):
    return x.host_value if isinstance(x, Numeric) else x


_PY_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
           "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b,
           "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
           "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b,
           "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
           "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
_COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne"}


def _fold(a, b, kind):
    """`a <kind> b` of two static operands, computed by Python on their
    values brought to the common type, as FlyDSL 0.4.2 folds them: integer
    results wrap to the type, `//` and `%` are Python's (floor and the
    divisor's sign), floats are Python floats (double precision)."""
    ca, cb = _class_of(a, kind), _class_of(b, kind)
    common = promote(ca, cb)
    if kind in _INT_ONLY and common.is_float:
        _fail(f"'{_SYMBOL[kind]}' needs integer operands, not {common.__name__}")
    va = _static_value(_static_value(_python_value(a), _class_of(a, kind)), common)
    vb = _static_value(_static_value(_python_value(b), _class_of(b, kind)), common)
    if kind in _COMPARISONS:
        out = Boolean
    elif kind == "truediv" and not common.is_float:
        out = Float64 if common.width > 32 else Float32
    else:
        out = common
    try:
        result = _PY_OPS[kind](va, vb)
    except ZeroDivisionError:
        _fail(f"'{_SYMBOL[kind]}' of the static values {common.__name__}({va!r}) and "
              f"{common.__name__}({vb!r}): division by zero")
    except (ValueError, OverflowError) as e:
        _fail(f"'{_SYMBOL[kind]}' of the static values {common.__name__}({va!r}) and "
              f"{common.__name__}({vb!r}): {e}")
    if isinstance(result, complex):
        _fail(f"'{_SYMBOL[kind]}' of the static values {va!r} and {vb!r} has no real value")
    return out(result)


def constant(x, cls):
    """An arith.constant of class `cls` (a Python int wraps to the width)."""
    if isinstance(x, Numeric):
        return convert(x, cls)
    if cls is Boolean:
        attr = "value = true" if x else "value = false"
    elif cls.is_float:
        attr = f"value = {_float_text(float(x), cls)} : {cls.mlir_type}"
    else:
        attr = f"value = {_wrap_int(_int_of(x), cls)} : {cls.mlir_type}"
    (v,) = builder().op("arith.constant", (), [cls.type_handle()], attr)
    return cls(v)


def _float_text(x: float, cls) -> str:
    """An MLIR float literal: decimal with a '.', or the bit pattern in hex
    for infinities and NaN (MLIR has no literal for them)."""
    if not _pymath.isfinite(x):
        if cls.mlir_type == "f64":
            return hex(_struct.unpack("<Q", _struct.pack("<d", x))[0])
        if cls.mlir_type == "f32":
            return hex(_struct.unpack("<I", _struct.pack("<f", x))[0])
        if cls.mlir_type == "f16":
            return hex(_struct.unpack("<H", _struct.pack("<e", x))[0])
        if cls.mlir_type == "bf16":  # the high half of inf's or NaN's f32 pattern
            return hex(_struct.unpack("<I", _struct.pack("<f", x))[0] >> 16)
        _fail(f"{x} has no {cls.__name__} constant")
    text = repr(x)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def _is_type_handle(t) -> bool:
    """A type handle of the compiler (what T.f16 and flydsl._mlir's types are)."""
    return hasattr(t, "kind") and hasattr(t, "typeid") and hasattr(t, "bit_width")


def _element_class(t):
    """The numeric class of a type handle's elements (a vector's) or its own."""
    return numeric_class(str(t.element_type if t.kind == "vector" else t))


def lift(x):
    """A raw SSA value of a scalar or vector type (what flydsl._mlir's
    builders give: an ArithValue, an op result) as its numeric; anything
    else as it is. fx's operations take raw values so."""
    if isinstance(x, Value) and not isinstance(x, Numeric):
        return wrap(Value(x.name, x.type))
    return x


def convert(x, cls):
    """`x` (a numeric, a raw value or a Python number) as a value of class
    `cls`: a Python number becomes a constant, a numeric converts as
    fx.arith.cast does (to Boolean as `x != 0`, Index by index_cast, vectors
    elementwise)."""
    x = lift(x)
    if not isinstance(x, Numeric):
        return constant(x, cls)
    if x.is_static() and not isinstance(x, Vector):
        return x if type(x) is cls else cls(x)  # folded: a static value of cls
    return late.cast(x, cls)


def _round_to(x, dtype, rounding_mode):
    src = _element(x)
    if not isinstance(rounding_mode, late.RoundingMode):
        _fail(f"to(): rounding_mode must be a fx.arith.RoundingMode, not {_describe(rounding_mode)}")
    if not (src.is_float and dtype.is_float):
        _fail(f"to(): rounding_mode is for float-to-float conversions, not {src.__name__} -> "
              f"{dtype.__name__}")
    if _is_static(x):  # as FlyDSL: a rounding needs a run-time value
        _fail(f"to(): rounding_mode needs a run-time value, but this {src.__name__} holds the "
              f"static value {x.host_value!r}")
    if dtype.width >= src.width:
        return convert(x, dtype)  # exact: no rounding
    attrs = f"roundingmode = {int(rounding_mode.value)} : i32"
    fm = late.fastmath_attr(None)
    return late.emit("arith.truncf", [x], x, dtype, attrs + (", " + fm if fm else ""))


# -- promotion ---------------------------------------------------------------------

_FLOAT_RANK = {"f64": 3, "f32": 2, "f16": 1, "bf16": 1}


def _widen_float(cls, min_width):
    if cls.width >= min_width:
        return cls
    return Float32 if min_width <= 32 else Float64


def promote(ta, tb):
    """The common numeric class of two classes (FlyDSL's lattice, see the
    module notes)."""
    if ta is tb:
        return ta
    if ta.is_float or tb.is_float:
        if not tb.is_float:
            return _widen_float(ta, tb.width)
        if not ta.is_float:
            return _widen_float(tb, ta.width)
        if ta.width != tb.width:
            wider = ta if ta.width > tb.width else tb
            if wider.width >= 16:
                return wider
        ra, rb = _FLOAT_RANK.get(ta.mlir_type, 0), _FLOAT_RANK.get(tb.mlir_type, 0)
        if ra != rb:
            return ta if ra > rb else tb
        if ra > 0:
            return _widen_float(ta, ta.width + 1)
        _fail(f"no common type of {ta.__name__} and {tb.__name__}: convert one explicitly")
    if ta.signed == tb.signed:
        return ta if ta.width >= tb.width else tb
    u, s = (ta, tb) if not ta.signed else (tb, ta)
    return u if u.width >= s.width else s


_BOOL_WIDENS = {"add", "sub", "mul", "truediv", "floordiv", "mod"}
_INT_ONLY = {"and", "or", "xor", "shl", "shr"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
           "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _class_of(x, kind):
    if isinstance(x, Numeric):
        cls = _element(x)
    elif isinstance(x, (bool, int, float)):
        cls = literal_class(x)
    else:
        _fail(f"'{_SYMBOL.get(kind, kind)}' is not defined between a numeric and {_describe(x)}")
    return Int32 if (cls is Boolean and kind in _BOOL_WIDENS) else cls


def operands(a, b, kind, literal_like=False):
    """(a, b, common class): both converted to the common class (Python
    numbers as constants of it), a scalar broadcast against a vector."""
    ca, cb = _class_of(a, kind), _class_of(b, kind)
    if literal_like:  # a constant the front end adds takes the other operand's type
        ca = cb if not isinstance(a, Numeric) else ca
        cb = ca if not isinstance(b, Numeric) else cb
    common = promote(ca, cb)
    if kind in _INT_ONLY and common.is_float:
        _fail(f"'{_SYMBOL[kind]}' needs integer operands, not {common.__name__}")
    shape = None
    for v in (a, b):
        if isinstance(v, Vector):
            if shape is not None and _numel(shape) != v.numel:
                _fail(f"'{_SYMBOL.get(kind, kind)}' of vectors of {_numel(shape)} and {v.numel} "
                      "elements")
            shape = v.shape if shape is None or _numel(v.shape) > 1 else shape
    return _prepare(a, common, shape), _prepare(b, common, shape), common


def _prepare(x, cls, shape):
    if isinstance(x, Vector):
        return convert(x, cls)
    x = convert(x, cls)
    if shape is None:
        return x
    (v,) = builder().op("vector.broadcast", [x.ir], [Vector.make_type(shape, cls)])
    return Vector(v, shape, cls)


def _binary(a, b, kind, fastmath=None, literal_like=False):
    a, b = lift(a), lift(b)
    if _is_static(a) and _is_static(b):
        if literal_like:  # a front-end constant takes the numeric operand's type
            num = a if isinstance(a, Numeric) else b
            a, b = (a, type(num)(b)) if num is a else (type(num)(a), b)
        return _fold(a, b, kind)

    a, b, cls = operands(a, b, kind, literal_like)
    fm = late.fastmath_attr(fastmath)
    if kind == "truediv" and not cls.is_float:
        f = Float64 if cls.width > 32 else Float32
        a, b, cls = convert(a, f), convert(b, f), f
    if kind == "pow":
        return late.math_pow(a, b, fastmath)
    if cls.is_float:
        if kind == "floordiv":
            return late.floor(late.emit("arith.divf", [a, b], a, cls, fm), fastmath=fastmath)
        op = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "truediv": "arith.divf", "mod": "arith.remf"}[kind]
        return late.emit(op, [a, b], a, cls, fm)
    signed = cls.signed and cls is not Index
    op = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
          "and": "arith.andi", "or": "arith.ori", "xor": "arith.xori", "shl": "arith.shli",
          "shr": "arith.shrsi" if signed else "arith.shrui",
          "floordiv": "arith.floordivsi" if signed else "arith.divui",
          "mod": "arith.remsi" if signed else "arith.remui"}[kind]
    return late.emit(op, [a, b], a, cls)


def _compare(a, b, kind):
    """A Boolean, or for vectors a vector of Booleans (elementwise)."""
    a, b = lift(a), lift(b)
    if _is_static(a) and _is_static(b):
        return _fold(a, b, kind)
    a, b, _ = operands(a, b, kind)
    return late.compare(a, b, kind)
