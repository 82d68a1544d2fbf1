"""The type classes of flydsl._mlir (IntegerType, VectorType, ...).

A type is the compiler's type handle (`flydsl._fly.Type`) itself: the
tracer, the fx layer and these builders share one kind of object, equal
when the types are. MLIR's type classes are classes of checks and
constructors over those handles: `isinstance(t, ir.IntegerType)` checks a
handle's class (its `typeid`), `ir.IntegerType(t)` casts (returns `t`, or
raises ValueError), `ir.IntegerType.get_signless(32)` makes one (through the
compiler's parser). What a type has (`width`, `shape`, `element_type`, ...)
are properties of the handle, answered by C++.

Nothing here loads the compiler extension on import: the classes exist
before the first handle does.
"""

from __future__ import annotations

import sys

from .. import _fly
from ._context import as_list, compiler_error, fail

_COMPILER_MODULE = "flydsl._fly_compiler"

# What ShapedType.shape holds for a dynamic size (MLIR's ShapedType::kDynamic).
DYNAMIC = -(2 ** 63)


def is_type(obj) -> bool:
    """Whether `obj` is a type handle (no handle exists before the compiler
    extension is loaded)."""
    module = sys.modules.get(_COMPILER_MODULE)
    return module is not None and isinstance(obj, module.Type)


class TypeID:
    """The identity of a type or attribute class, by its name
    ('builtin.integer', 'fly.layout', 'builtin.dense_array')."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other) -> bool:
        return isinstance(other, TypeID) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"TypeID({self.name})"


def parse_type(text: str):
    """The type written `text`, or an MLIRError at the user's line."""
    try:
        return _fly.parse_type(text)
    except _fly.Error as err:
        raise compiler_error(err, f"cannot parse type {text!r}", located=False) from None


def as_type(x, what: str = "a type"):
    """A type handle from a handle, the MLIR text of one, or a class with
    a handle (`ir_type`: fx's numeric classes)."""
    if is_type(x):
        return x
    if isinstance(x, str):
        return parse_type(x)
    handle = getattr(x, "ir_type", None)
    if is_type(handle):
        return handle
    raise fail(f"{what} must be an MLIR type (ir.F32Type.get(), T.i32(), ...), not "
               f"{type(x).__name__} {x!r}"[:200])


class _TypeClass(type):
    """The metaclass of the type classes: their instances are the
    compiler's handles, which a class checks (isinstance) and casts
    (calling it) rather than owns."""

    def __instancecheck__(cls, obj) -> bool:
        return is_type(obj) and cls._accepts(obj)

    def __call__(cls, cast_from):
        if not is_type(cast_from):
            raise TypeError(f"{cls.__name__}(): expected an MLIR type to cast, not "
                            f"{type(cast_from).__name__}")
        if not cls._accepts(cast_from):
            raise ValueError(f"Cannot cast type to {cls.__name__} (from {cast_from})")
        return cast_from


class Type(metaclass=_TypeClass):
    """Any MLIR type (the base of the type classes)."""

    static_typeid: TypeID | None = None

    @classmethod
    def _accepts(cls, t) -> bool:
        return cls.static_typeid is None or t.typeid == cls.static_typeid.name

    @staticmethod
    def parse(asm: str, context=None):
        return parse_type(asm)

    @classmethod
    def isinstance(cls, other) -> bool:
        return isinstance(other, cls)


def type_id(t) -> TypeID:
    """The TypeID of a type handle's class."""
    return TypeID(t.typeid)


def _text(t) -> str:
    return str(as_type(t))


def _texts(types, what: str) -> str:
    """The types of a list, written as a type list writes them."""
    return ", ".join(_text(t) for t in as_list(types, what))


class IntegerType(Type):
    static_typeid = TypeID("builtin.integer")

    @staticmethod
    def get_signless(width: int, context=None):
        return parse_type(f"i{_width(width)}")

    @staticmethod
    def get_signed(width: int, context=None):
        return parse_type(f"si{_width(width)}")

    @staticmethod
    def get_unsigned(width: int, context=None):
        return parse_type(f"ui{_width(width)}")


def _width(width) -> int:
    if not isinstance(width, int) or isinstance(width, bool) or width <= 0:
        raise fail(f"an integer type's width must be a positive int, not {width!r}")
    return width


class IndexType(Type):
    static_typeid = TypeID("builtin.index")

    @staticmethod
    def get(context=None):
        return parse_type("index")


class NoneType(Type):
    static_typeid = TypeID("builtin.none")

    @staticmethod
    def get(context=None):
        return parse_type("none")


class FloatType(Type):
    """Any float type (F32Type, BF16Type, the 8-, 6- and 4-bit ones)."""

    @classmethod
    def _accepts(cls, t) -> bool:
        return t.is_float and (cls.static_typeid is None or t.typeid == cls.static_typeid.name)


def _float_class(name: str, text: str):
    return _TypeClass(name, (FloatType,), {
        "__doc__": f"The float type {text}.", "__module__": __name__,
        "static_typeid": TypeID("builtin." + text),
        "get": staticmethod(lambda context=None: parse_type(text))})


F16Type = _float_class("F16Type", "f16")
F32Type = _float_class("F32Type", "f32")
F64Type = _float_class("F64Type", "f64")
BF16Type = _float_class("BF16Type", "bf16")
FloatTF32Type = _float_class("FloatTF32Type", "tf32")
Float8E4M3FNType = _float_class("Float8E4M3FNType", "f8E4M3FN")
Float8E4M3FNUZType = _float_class("Float8E4M3FNUZType", "f8E4M3FNUZ")
Float8E4M3Type = _float_class("Float8E4M3Type", "f8E4M3")
Float8E4M3B11FNUZType = _float_class("Float8E4M3B11FNUZType", "f8E4M3B11FNUZ")
Float8E5M2Type = _float_class("Float8E5M2Type", "f8E5M2")
Float8E5M2FNUZType = _float_class("Float8E5M2FNUZType", "f8E5M2FNUZ")
Float8E3M4Type = _float_class("Float8E3M4Type", "f8E3M4")
Float8E8M0FNUType = _float_class("Float8E8M0FNUType", "f8E8M0FNU")
Float6E2M3FNType = _float_class("Float6E2M3FNType", "f6E2M3FN")
Float6E3M2FNType = _float_class("Float6E3M2FNType", "f6E3M2FN")
Float4E2M1FNType = _float_class("Float4E2M1FNType", "f4E2M1FN")

FLOAT_CLASSES = (F16Type, F32Type, F64Type, BF16Type, FloatTF32Type, Float8E4M3FNType,
                 Float8E4M3FNUZType, Float8E4M3Type, Float8E4M3B11FNUZType, Float8E5M2Type,
                 Float8E5M2FNUZType, Float8E3M4Type, Float8E8M0FNUType, Float6E2M3FNType,
                 Float6E3M2FNType, Float4E2M1FNType)


class ComplexType(Type):
    static_typeid = TypeID("builtin.complex")

    @staticmethod
    def get(element_type):
        return parse_type(f"complex<{_text(element_type)}>")


def _dims(shape, what: str) -> list[str]:
    dims = []
    for d in as_list(shape, f"{what}: the shape"):
        if not isinstance(d, int) or isinstance(d, bool) or (d < 0 and d != DYNAMIC):
            raise fail(f"{what}: a dimension must be a size or ShapedType.get_dynamic_size(), "
                       f"not {d!r}")
        dims.append("?" if d == DYNAMIC else str(d))
    return dims


def _attr_text(attr) -> str:
    return attr if isinstance(attr, str) else str(attr)


class ShapedType(Type):
    """A vector, tensor or memref type."""

    _TYPEIDS = ("builtin.vector", "builtin.tensor", "builtin.unranked_tensor",
                "builtin.memref", "builtin.unranked_memref")

    @classmethod
    def _accepts(cls, t) -> bool:
        return t.typeid in (cls._TYPEIDS if cls.static_typeid is None else (cls.static_typeid.name,))

    @staticmethod
    def get_dynamic_size() -> int:
        return DYNAMIC

    @staticmethod
    def is_dynamic_size(dim: int) -> bool:
        return dim == DYNAMIC

    @staticmethod
    def get_dynamic_stride_or_offset() -> int:
        return DYNAMIC


class VectorType(ShapedType):
    static_typeid = TypeID("builtin.vector")

    @staticmethod
    def get(shape, element_type, *, scalable=None, scalable_dims=None, loc=None):
        dims = _dims(shape, "VectorType.get")
        flags = as_list(scalable, "VectorType.get: scalable") if scalable is not None \
            else [False] * len(dims)
        if len(flags) != len(dims):
            raise fail("VectorType.get: `scalable` needs one flag per dimension")
        for i in as_list(scalable_dims or (), "VectorType.get: scalable_dims"):
            if not isinstance(i, int) or not -len(dims) <= i < len(dims):
                raise fail(f"VectorType.get: scalable_dims has {i!r}, not a dimension of "
                           f"the {len(dims)}")
            flags[i] = True
        dims = [f"[{d}]" if flag else d for d, flag in zip(dims, flags)]
        return parse_type("vector<" + "".join(d + "x" for d in dims) + _text(element_type) + ">")


class RankedTensorType(ShapedType):
    static_typeid = TypeID("builtin.tensor")

    @staticmethod
    def get(shape, element_type, encoding=None, loc=None):
        dims = "".join(d + "x" for d in _dims(shape, "RankedTensorType.get"))
        tail = f", {_attr_text(encoding)}" if encoding is not None else ""
        return parse_type(f"tensor<{dims}{_text(element_type)}{tail}>")


class UnrankedTensorType(ShapedType):
    static_typeid = TypeID("builtin.unranked_tensor")

    @staticmethod
    def get(element_type, loc=None):
        return parse_type(f"tensor<*x{_text(element_type)}>")


class MemRefType(ShapedType):
    static_typeid = TypeID("builtin.memref")

    @staticmethod
    def get(shape, element_type, layout=None, memory_space=None, loc=None):
        dims = "".join(d + "x" for d in _dims(shape, "MemRefType.get"))
        tail = "".join(f", {_attr_text(a)}" for a in (layout, memory_space) if a is not None)
        return parse_type(f"memref<{dims}{_text(element_type)}{tail}>")


class UnrankedMemRefType(ShapedType):
    static_typeid = TypeID("builtin.unranked_memref")

    @staticmethod
    def get(element_type, memory_space=None, loc=None):
        tail = f", {_attr_text(memory_space)}" if memory_space is not None else ""
        return parse_type(f"memref<*x{_text(element_type)}{tail}>")


class TupleType(Type):
    static_typeid = TypeID("builtin.tuple")

    @staticmethod
    def get_tuple(elements, context=None):
        return parse_type("tuple<" + _texts(elements, "TupleType.get_tuple's elements") + ">")


class FunctionType(Type):
    static_typeid = TypeID("builtin.function")

    @staticmethod
    def get(inputs, results, context=None):
        return parse_type("(" + _texts(inputs, "FunctionType.get's inputs") + ") -> ("
                          + _texts(results, "FunctionType.get's results") + ")")


class OpaqueType(Type):
    static_typeid = TypeID("builtin.opaque")

    @staticmethod
    def get(dialect_namespace: str, buffer: str, context=None):
        return parse_type(f'!{dialect_namespace}<"{buffer}">')
