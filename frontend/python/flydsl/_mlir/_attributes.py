"""The attribute classes of flydsl._mlir (IntegerAttr, ArrayAttr, ...) and
the attribute builders the generated dialect modules call (AttrBuilder).

An attribute is its canonical MLIR text plus what the compiler says of it
(`_fly.describe_attribute`: its class, type and value): constructors write
text, the compiler parses, checks and prints it back, so an attribute is
always what MLIR would make of it. Classes downcast as MLIR's do:
`ir.IntegerAttr(attr)` is the same attribute as an IntegerAttr, or a
ValueError.
"""

from __future__ import annotations

import functools
import math
import re
import struct

from .. import _fly
from ..tracing.ir import string_literal
from ._context import as_list, compiler_error, current_context, describe, fail
from ._types import DYNAMIC, TypeID, as_type, parse_type


@functools.lru_cache(maxsize=8192)
def _describe(text: str) -> dict:
    try:
        return _fly.describe_attribute(text)
    except _fly.Error as err:
        raise compiler_error(err, f"cannot parse attribute {text!r}", located=False) from None


class Attribute:
    """Any MLIR attribute (the base of the attribute classes)."""

    static_typeid: TypeID | None = None
    __slots__ = ("_info",)

    def __init__(self, cast_from: "Attribute"):
        if not isinstance(cast_from, Attribute):
            raise TypeError(f"{type(self).__name__}(): expected an attribute to cast, not "
                            f"{type(cast_from).__name__}")
        if not type(self)._accepts(cast_from._info):
            raise ValueError(f"Cannot cast attribute to {type(self).__name__} (from {cast_from})")
        self._info = cast_from._info

    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return cls.static_typeid is None or info["typeid"] == cls.static_typeid.name

    @classmethod
    def _make(cls, text: str) -> "Attribute":
        """The attribute written `text`, as an instance of `cls` (which must
        accept it) or, for Attribute, of its own class."""
        info = _describe(text)
        if not cls._accepts(info):
            raise fail(f"{text!r} is not a {cls.__name__}")
        specific = _class_of(info)
        if issubclass(specific, cls):
            cls = specific
        attr = object.__new__(cls)
        attr._info = info
        return attr

    @staticmethod
    def parse(asm: str, context=None) -> "Attribute":
        return Attribute._make(asm)

    @classmethod
    def isinstance(cls, other) -> bool:
        return isinstance(other, Attribute) and cls._accepts(other._info)

    def maybe_downcast(self) -> "Attribute":
        return Attribute._make(self._info["text"])

    @property
    def type(self):
        t = self._info["type"]
        if t is None:
            raise ValueError(f"the attribute {self} has no type")
        return t

    @property
    def typeid(self) -> TypeID:
        return TypeID(self._info["typeid"])

    @property
    def context(self):
        return current_context()

    def get_named(self, name: str) -> "NamedAttribute":
        return NamedAttribute(name, self)

    def __str__(self) -> str:
        return self._info["text"]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._info['text']})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Attribute) and other._info["text"] == self._info["text"]

    def __hash__(self) -> int:
        return hash(self._info["text"])


class NamedAttribute:
    """A (name, attribute) pair, as an op's attributes are listed."""

    def __init__(self, name: str, attr: Attribute):
        self.name = name
        self.attr = attr

    def __repr__(self) -> str:
        return f"NamedAttribute({self.name}={self.attr})"


def as_attribute(x, what: str) -> Attribute:
    if isinstance(x, Attribute):
        return x
    raise fail(f"{what} must be an ir.Attribute (ir.IntegerAttr.get(...), ...), not "
               f"{type(x).__name__} {x!r}"[:200])


# What the constructors take of Python values: what int() and float()
# take (and as_list); anything else is an MLIRError at the user's line, as
# a wrong attribute is.

def _as_int(value, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise fail(f"{what} must be an integer, not {describe(value)}") from None


def _as_float(value, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise fail(f"{what} must be a number, not {describe(value)}") from None


# -- scalars --------------------------------------------------------------------

class IntegerAttr(Attribute):
    static_typeid = TypeID("builtin.integer")

    @staticmethod
    def get(type, value: int) -> "IntegerAttr":  # noqa: A002 - MLIR's name
        if isinstance(value, bool) or not isinstance(value, int):
            value = _as_int(value, "IntegerAttr.get's value")
        return IntegerAttr._make(f"{value} : {as_type(type)}")

    @property
    def value(self) -> int:
        return int(self._info["value"])

    def __int__(self) -> int:
        return self.value


class BoolAttr(Attribute):
    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return info["typeid"] == "builtin.integer" and str(info["type"]) == "i1"

    @staticmethod
    def get(value: bool, context=None) -> "BoolAttr":
        return BoolAttr._make("true" if value else "false")

    @property
    def value(self) -> bool:
        return bool(self._info["value"])

    def __bool__(self) -> bool:
        return self.value


# The bit patterns of the float types that Python's struct can write, for
# values without a decimal literal (nan, inf).
_FLOAT_FORMATS = {"f16": (">e", ">H"), "f32": (">f", ">I"), "f64": (">d", ">Q")}


def float_literal(value: float, type_text: str) -> str:
    """`value` as an MLIR float literal of type `type_text`."""
    value = _as_float(value, f"a {type_text} value")
    if math.isfinite(value):
        text = repr(value)
        # MLIR's float literal needs its point: 1e+30 is written 1.0e+30
        return text if "." in text else text.replace("e", ".0e")
    if type_text == "bf16":  # the upper half of the f32
        (bits,) = struct.unpack(">I", struct.pack(">f", value))
        return f"0x{bits >> 16:04X}"
    if type_text not in _FLOAT_FORMATS:
        raise fail(f"a non-finite {type_text} constant ({value}) has no literal here; "
                   "make it in f32 and convert it")
    pack, unpack = _FLOAT_FORMATS[type_text]
    (bits,) = struct.unpack(unpack, struct.pack(pack, value))
    return hex(bits).upper().replace("0X", "0x")


class FloatAttr(Attribute):
    static_typeid = TypeID("builtin.float")

    @staticmethod
    def get(type, value: float, loc=None) -> "FloatAttr":  # noqa: A002 - MLIR's name
        t = as_type(type)
        return FloatAttr._make(f"{float_literal(value, str(t))} : {t}")

    @staticmethod
    def get_unchecked(type, value: float, context=None) -> "FloatAttr":  # noqa: A002
        return FloatAttr.get(type, value)

    @staticmethod
    def get_f32(value: float, context=None) -> "FloatAttr":
        return FloatAttr.get(parse_type("f32"), value)

    @staticmethod
    def get_f64(value: float, context=None) -> "FloatAttr":
        return FloatAttr.get(parse_type("f64"), value)

    @property
    def value(self) -> float:
        return float(self._info["value"])

    def __float__(self) -> float:
        return self.value


class StringAttr(Attribute):
    static_typeid = TypeID("builtin.string")

    @staticmethod
    def get(value, context=None) -> "StringAttr":
        if isinstance(value, bytes):
            value = value.decode()
        return StringAttr._make(string_literal(str(value)))

    @staticmethod
    def get_typed(type, value: str) -> "StringAttr":  # noqa: A002 - MLIR's name
        return StringAttr._make(f"{string_literal(value)} : {as_type(type)}")

    @property
    def value(self) -> str:
        return self._info["value"]


class UnitAttr(Attribute):
    static_typeid = TypeID("builtin.unit")

    @staticmethod
    def get(context=None) -> "UnitAttr":
        return UnitAttr._make("unit")


class TypeAttr(Attribute):
    static_typeid = TypeID("builtin.type")

    @staticmethod
    def get(value, context=None) -> "TypeAttr":
        return TypeAttr._make(str(as_type(value)))

    @property
    def value(self):
        return self._info["value"]


_BARE_SYMBOL = re.compile(r"^[A-Za-z_][\w$.]*$")


def _symbol(name: str) -> str:
    if not isinstance(name, str):
        raise fail(f"a symbol name must be a str, not {describe(name)}")
    return "@" + (name if _BARE_SYMBOL.match(name) else string_literal(name))


class SymbolRefAttr(Attribute):
    static_typeid = TypeID("builtin.symbol_ref")

    @staticmethod
    def get(symbols, context=None) -> "SymbolRefAttr":
        symbols = [] if isinstance(symbols, str) else as_list(symbols, "SymbolRefAttr's names")
        if not symbols:
            raise fail("SymbolRefAttr.get takes a non-empty list of symbol names")
        return SymbolRefAttr._make("::".join(_symbol(s) for s in symbols))

    @property
    def value(self) -> list[str]:
        return [part.lstrip("@").strip('"') for part in self._info["text"].split("::")]


class FlatSymbolRefAttr(Attribute):
    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return info["typeid"] == "builtin.symbol_ref" and "::" not in info["text"]

    @staticmethod
    def get(value: str, context=None) -> "FlatSymbolRefAttr":
        return FlatSymbolRefAttr._make(_symbol(value))

    @property
    def value(self) -> str:
        return self._info["value"]


# -- containers -----------------------------------------------------------------

class ArrayAttr(Attribute):
    static_typeid = TypeID("builtin.array")

    @staticmethod
    def get(attributes, context=None) -> "ArrayAttr":
        items = [str(as_attribute(a, "an ArrayAttr's element"))
                 for a in as_list(attributes, "ArrayAttr.get's attributes")]
        return ArrayAttr._make("[" + ", ".join(items) + "]")

    def __len__(self) -> int:
        return len(self._info["elements"])

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [Attribute._make(t) for t in self._info["elements"][index]]
        return Attribute._make(self._info["elements"][index])

    def __iter__(self):
        return (Attribute._make(t) for t in self._info["elements"])

    def __add__(self, other) -> "ArrayAttr":
        return ArrayAttr.get(list(self) + list(other))


class DictAttr(Attribute):
    static_typeid = TypeID("builtin.dictionary")

    @staticmethod
    def get(value=None, context=None) -> "DictAttr":
        if value is not None and not isinstance(value, dict):
            raise fail(f"DictAttr.get takes a dict of names to attributes, not {describe(value)}")
        entries = [f"{_attr_name(_name_of(name))} = {as_attribute(a, 'a DictAttr value')}"
                   for name, a in (value or {}).items()]
        return DictAttr._make("{" + ", ".join(entries) + "}")

    def __len__(self) -> int:
        return len(self._info["elements"])

    def __contains__(self, name: str) -> bool:
        return any(n == name for n, _ in self._info["elements"])

    def __getitem__(self, key):
        if isinstance(key, int):
            name, text = self._info["elements"][key]
            return NamedAttribute(name, Attribute._make(text))
        for name, text in self._info["elements"]:
            if name == key:
                return Attribute._make(text)
        raise KeyError(key)


_BARE_NAME = re.compile(r"^[A-Za-z_][\w$.]*$")


def _attr_name(name: str) -> str:
    """An attribute's name as an attribute dictionary writes it."""
    return name if _BARE_NAME.match(name) else string_literal(name)


def _name_of(name) -> str:
    if not isinstance(name, str) or not name:
        raise fail(f"an attribute's name must be a non-empty str, not {describe(name)}")
    return name


class _DenseArray(Attribute):
    """array<T: ...> of one element type (DenseI32ArrayAttr, ...)."""

    _element = ""

    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return (info["typeid"] == "builtin.dense_array"
                and info["text"].startswith(f"array<{cls._element}"))

    @classmethod
    def get(cls, values, context=None):
        values = as_list(values, f"{cls.__name__}.get's values")
        if cls._element == "i1":
            items = ["true" if v else "false" for v in values]
        elif cls._element.startswith("f"):
            items = [float_literal(v, cls._element) for v in values]
        else:
            items = [str(_as_int(v, f"an element of {cls.__name__}")) for v in values]
        body = (": " + ", ".join(items)) if items else ""
        return cls._make(f"array<{cls._element}{body}>")

    def __len__(self) -> int:
        return len(self._info["value"])

    def __getitem__(self, index):
        return self._info["value"][index]

    def __iter__(self):
        return iter(self._info["value"])


def _dense_array_class(name: str, element: str):
    return type(name, (_DenseArray,), {"_element": element, "__module__": __name__,
                                       "__slots__": (),
                                       "__doc__": f"array<{element}: ...>"})


DenseBoolArrayAttr = _dense_array_class("DenseBoolArrayAttr", "i1")
DenseI8ArrayAttr = _dense_array_class("DenseI8ArrayAttr", "i8")
DenseI16ArrayAttr = _dense_array_class("DenseI16ArrayAttr", "i16")
DenseI32ArrayAttr = _dense_array_class("DenseI32ArrayAttr", "i32")
DenseI64ArrayAttr = _dense_array_class("DenseI64ArrayAttr", "i64")
DenseF32ArrayAttr = _dense_array_class("DenseF32ArrayAttr", "f32")
DenseF64ArrayAttr = _dense_array_class("DenseF64ArrayAttr", "f64")


def _nested(values) -> tuple[list, object]:
    """(shape, flat list) of nested lists / a numpy array."""
    tolist = getattr(values, "tolist", None)
    if tolist is not None:
        values = tolist()
    shape: list[int] = []
    level = values
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        level = level[0] if level else None
    flat: list = []

    def walk(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        else:
            flat.append(v)
    walk(values)
    return shape, flat


class DenseElementsAttr(Attribute):
    static_typeid = TypeID("builtin.dense_int_or_fp_elements")

    @staticmethod
    def get(array, signless: bool = True, type=None, shape=None, context=None):  # noqa: A002
        """dense<...> of `array` (nested lists or a numpy array) as `type`: a
        shaped type, or an element type (the shape is the array's, as a
        tensor)."""
        dims, flat = _nested(array)
        if shape is not None:
            dims = list(shape)
        if type is None:
            raise fail("DenseElementsAttr.get: give the element or shaped type (type=...)")
        t = as_type(type)
        if t.shape is None:
            t = parse_type("tensor<" + "".join(f"{d}x" for d in dims) + f"{t}>")
        element = str(t.element_type)
        items = [_element_literal(v, element) for v in flat]
        if len(set(items)) == 1 and len(items) > 1:
            body = items[0]
        else:
            body = _nest(items, dims)
        return DenseElementsAttr._make(f"dense<{body}> : {t}")

    @staticmethod
    def get_splat(shaped_type, element_attr: Attribute):
        t = as_type(shaped_type)
        value = as_attribute(element_attr, "DenseElementsAttr.get_splat's element")._info["value"]
        return DenseElementsAttr._make(
            f"dense<{_element_literal(value, str(t.element_type))}> : {t}")

    @property
    def is_splat(self) -> bool:
        return "[" not in self._info["text"].split(">")[0]


class DenseIntElementsAttr(DenseElementsAttr):
    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return (info["typeid"] == DenseElementsAttr.static_typeid.name
                and not info["type"].element_type.is_float)


class DenseFPElementsAttr(DenseElementsAttr):
    @classmethod
    def _accepts(cls, info: dict) -> bool:
        return (info["typeid"] == DenseElementsAttr.static_typeid.name
                and info["type"].element_type.is_float)


def _element_literal(value, element: str) -> str:
    if isinstance(value, bool) or element == "i1":
        return "true" if value else "false"
    if element.startswith(("f", "bf", "tf")):
        return float_literal(value, element)
    return str(_as_int(value, f"a {element} element"))


def _nest(items: list[str], dims: list[int]) -> str:
    if not dims:
        return items[0]
    step = len(items) // dims[0] if dims[0] else 0
    return "[" + ", ".join(_nest(items[i * step:(i + 1) * step], dims[1:])
                           for i in range(dims[0])) + "]"


class AffineMapAttr(Attribute):
    static_typeid = TypeID("builtin.affine_map")

    @staticmethod
    def get(affine_map) -> "AffineMapAttr":
        """affine_map<...> of the map's text (`(d0, d1) -> (d1)`)."""
        text = str(affine_map)
        return AffineMapAttr._make(text if text.startswith("affine_map<") else f"affine_map<{text}>")


class StridedLayoutAttr(Attribute):
    static_typeid = TypeID("builtin.strided_layout")

    @staticmethod
    def get(offset: int, strides, context=None) -> "StridedLayoutAttr":
        def size(v):
            return "?" if v == DYNAMIC else str(int(v))
        return StridedLayoutAttr._make(
            "strided<[" + ", ".join(size(s) for s in strides) + f"], offset: {size(offset)}>")


_CLASSES_BY_TYPEID = {
    "builtin.integer": IntegerAttr, "builtin.float": FloatAttr, "builtin.string": StringAttr,
    "builtin.unit": UnitAttr, "builtin.type": TypeAttr, "builtin.array": ArrayAttr,
    "builtin.dictionary": DictAttr, "builtin.affine_map": AffineMapAttr,
    "builtin.strided_layout": StridedLayoutAttr,
}
_SPECIFIC = (BoolAttr, FlatSymbolRefAttr, SymbolRefAttr, DenseBoolArrayAttr, DenseI8ArrayAttr,
             DenseI16ArrayAttr, DenseI32ArrayAttr, DenseI64ArrayAttr, DenseF32ArrayAttr,
             DenseF64ArrayAttr, DenseIntElementsAttr, DenseFPElementsAttr)


def _class_of(info: dict) -> type:
    """The most specific attribute class of an attribute (what MLIR's
    maybe_downcast gives)."""
    if info["typeid"] == "builtin.integer":
        return IntegerAttr
    for cls in _SPECIFIC:
        if cls._accepts(info):
            return cls
    return _CLASSES_BY_TYPEID.get(info["typeid"], Attribute)


# -- attribute builders ---------------------------------------------------------

class AttrBuilder:
    """The builders of attribute constraints by ODS name ('I32Attr',
    'Arith_CmpIPredicateAttr', ...): what a generated builder calls to turn
    a Python value (an int, a list, an enum) into the op's attribute."""

    _builders: dict = {}

    @classmethod
    def contains(cls, name: str) -> bool:
        return name in cls._builders

    @classmethod
    def get(cls, name: str):
        return cls._builders[name]

    @classmethod
    def insert(cls, name: str, builder, replace: bool = False) -> None:
        if name in cls._builders and not replace:
            raise RuntimeError(f"an attribute builder for {name!r} is already registered")
        cls._builders[name] = builder


def register_attribute_builder(kind: str, replace: bool = False):
    """Decorator: `fn(value, context) -> Attribute` builds attributes of
    ODS constraint `kind`."""
    def add(fn):
        AttrBuilder.insert(kind, fn, replace)
        return fn
    return add


def _integer(text: str):
    return lambda x, context=None: x if isinstance(x, Attribute) else IntegerAttr.get(
        parse_type(text), x)


def _float(text: str):
    return lambda x, context=None: x if isinstance(x, Attribute) else FloatAttr.get(
        parse_type(text), x)


def _array_of(element_builder):
    return lambda xs, context=None: xs if isinstance(xs, Attribute) else ArrayAttr.get(
        [element_builder(x, context) for x in as_list(xs, "an array attribute's elements")])


def _string(x, context=None):
    return x if isinstance(x, Attribute) else StringAttr.get(x)


def _flat_symbol(x, context=None):
    return x if isinstance(x, Attribute) else FlatSymbolRefAttr.get(x)


def _symbol_ref(x, context=None):
    if isinstance(x, Attribute):
        return x
    return SymbolRefAttr.get(x) if isinstance(x, (list, tuple)) else FlatSymbolRefAttr.get(x)


def _type_attr(x, context=None):
    return x if isinstance(x, Attribute) else TypeAttr.get(x)


def _dict(x, context=None):
    return x if isinstance(x, Attribute) else DictAttr.get(x)


def _dense(cls):
    return lambda xs, context=None: xs if isinstance(xs, Attribute) else cls.get(xs)


for _width in (1, 8, 16, 32, 64):
    AttrBuilder.insert(f"I{_width}Attr", _integer(f"i{_width}"))
    AttrBuilder.insert(f"SI{_width}Attr", _integer(f"si{_width}"))
    AttrBuilder.insert(f"UI{_width}Attr", _integer(f"ui{_width}"))
for _name, _builder in [
        ("BoolAttr", lambda x, context=None: x if isinstance(x, Attribute) else BoolAttr.get(x)),
        ("IndexAttr", _integer("index")), ("F16Attr", _float("f16")),
        ("F32Attr", _float("f32")), ("F64Attr", _float("f64")),
        ("StrAttr", _string), ("Builtin_StringAttr", _string), ("SymbolNameAttr", _string),
        ("FlatSymbolRefAttr", _flat_symbol), ("SymbolRefAttr", _symbol_ref),
        ("UnitAttr", lambda x, context=None: UnitAttr.get() if x else None),
        ("ArrayAttr", lambda xs, context=None: xs if isinstance(xs, Attribute) else ArrayAttr.get(xs)),
        ("TypeAttr", _type_attr), ("MemRefTypeAttr", _type_attr),
        ("TypeArrayAttr", _array_of(_type_attr)),
        ("I32ArrayAttr", _array_of(_integer("i32"))), ("I64ArrayAttr", _array_of(_integer("i64"))),
        ("F32ArrayAttr", _array_of(_float("f32"))), ("F64ArrayAttr", _array_of(_float("f64"))),
        ("BoolArrayAttr", _array_of(lambda x, context=None: BoolAttr.get(x))),
        ("StrArrayAttr", _array_of(_string)), ("FlatSymbolRefArrayAttr", _array_of(_flat_symbol)),
        ("DictArrayAttr", _array_of(_dict)), ("DictionaryAttr", _dict),
        ("IndexListArrayAttr", _array_of(_array_of(_integer("i64")))),
        ("AffineMapAttr", lambda x, context=None: x if isinstance(x, Attribute) else AffineMapAttr.get(x)),
        ("DenseBoolArrayAttr", _dense(DenseBoolArrayAttr)),
        ("DenseI8ArrayAttr", _dense(DenseI8ArrayAttr)),
        ("DenseI16ArrayAttr", _dense(DenseI16ArrayAttr)),
        ("DenseI32ArrayAttr", _dense(DenseI32ArrayAttr)),
        ("DenseI64ArrayAttr", _dense(DenseI64ArrayAttr)),
        ("DenseF32ArrayAttr", _dense(DenseF32ArrayAttr)),
        ("DenseF64ArrayAttr", _dense(DenseF64ArrayAttr))]:
    AttrBuilder.insert(_name, _builder)

