"""Structs, unions and arrays with a C memory layout (FlyDSL's `fx.struct`).

    @fx.struct
    class SharedStorage:
        partial: fx.Array[fx.Float32, 8]
        count: fx.Int32

    lds = fx.SharedAllocator().allocate(SharedStorage).peek()
    lds.partial[warp] = x          # an Array: loads and stores at an index
    n = lds.count                  # a scalar field: loaded by peek()

A struct type lays its fields out in declaration order, each at the next
multiple of its alignment; its alignment is the largest of its fields', its
size the end of the last field rounded up to that (a union: every field at
0, the largest size and alignment). Storable field types: numerics of 8 bits
or more (size and alignment their bytes), `Array[T, N]` / `Array[T, N,
align]` (N elements, aligned to one element unless given), `Align[T, N]` (T
aligned to N bytes) and other structs and unions; `fx.Constexpr[...]` fields
exist only at trace time and take no bytes. A type is storable when it has
`__dsl_size_of__`, `__dsl_align_of__`, `__peek_from_ptr__` and
`__poke_into_ptr__` (FlyDSL's Storable protocol).

A struct is also a frozen value type: `Pair(a, b)` or `Pair(a=..., b=...)`
(each field converted to its type), `.replace(field=...)` for a changed copy.
`Storage[T]` is typed memory holding a T at a byte pointer: `.peek()` reads
the value (an `Array` is its typed pointer, not a load), `.poke(v)` writes
it, `.field` is the `Storage` of a field. `Arena` hands out consecutive
aligned Storage from a base pointer; `fx.SharedAllocator` is the one over LDS.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import FrozenInstanceError
from enum import Enum

from ..tracing.ir import parse_type
from ..tracing.signature import is_constexpr
from ..tracing.trace import builder
from . import numeric as nm
from ._core import FlyValue, emit, wrap
from ._elementwise import fail
from ._late import late

__all__ = ["struct", "Struct", "union", "Union", "Array", "Align", "Storage", "Arena",
           "is_composite_type", "is_struct_type", "is_specializable_struct_type"]


class CompositeKind(Enum):
    Product = 0  # a struct
    Sum = 1  # a union


def is_composite_type(obj) -> bool:
    """A struct or union type."""
    return isinstance(obj, type) and hasattr(obj, "__dsl_composite_kind__")


def is_struct_type(obj) -> bool:
    return is_composite_type(obj) and obj.__dsl_composite_kind__ is CompositeKind.Product


def is_specializable_struct_type(tp) -> bool:
    """A struct type with a Constexpr field (in it or in a nested struct)."""
    return is_struct_type(tp) and any(
        is_constexpr(t) or is_specializable_struct_type(t) for _, t in tp.__dsl_fields__)


def _name(t) -> str:
    return getattr(t, "__dsl_display_name__", getattr(t, "__name__", repr(t)))


# -- the Storable protocol, with the numerics' rules -------------------------------

def _is_numeric_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, nm.Numeric) and t is not nm.Vector \
        and bool(t.mlir_type) and t.mlir_type != "index"


def _storable(t, what: str):
    if hasattr(t, "__dsl_size_of__"):
        return
    if _is_numeric_type(t):
        if t.bits < 8:
            fail(f"{what}: {t.__name__} ({t.bits} bit) is narrower than a byte and has no "
                 "storage layout")
        return
    fail(f"{what}: {_name(t)} has no storage layout (a struct field is a numeric type of 8 "
         "bits or more, fx.Array[T, N], fx.Align[T, N], an fx.struct / fx.union or "
         "fx.Constexpr[...])")


def size_of(t, what: str = "fx.struct") -> int:
    """The bytes a value of the storable type `t` takes."""
    _storable(t, what)
    return t.__dsl_size_of__() if hasattr(t, "__dsl_size_of__") else t.bits // 8


def align_of(t, what: str = "fx.struct") -> int:
    """The alignment in bytes of the storable type `t`."""
    _storable(t, what)
    return t.__dsl_align_of__() if hasattr(t, "__dsl_align_of__") else t.bits // 8


def peek_from_ptr(t, ptr):
    if hasattr(t, "__peek_from_ptr__"):
        return t.__peek_from_ptr__(ptr)
    _storable(t, "Storage.peek")
    (v,) = builder().op("fly.ptr.load", [retype(ptr, t).ir], [t.type_handle()])
    return t(v)


def poke_into_ptr(t, ptr, value) -> None:
    if hasattr(t, "__poke_into_ptr__"):
        return t.__poke_into_ptr__(ptr, value)
    _storable(t, "Storage.poke")
    builder().op("fly.ptr.store", [nm.convert(value, t).ir, retype(ptr, t).ir])


# -- pointers: byte offsets and element types ---------------------------------------

_SPACES = {"generic": 0, "global": 1, "shared": 3, "register": 5}
_PTR = re.compile(r"!fly\.ptr<([^,]+), (\w+)(?:, align<(\d+)>)?>")


def _ptr_parts(ptr):
    """(element type text, address space, alignment in bytes) of a fly pointer."""
    m = _PTR.fullmatch(str(ptr.ir.type))
    if m is None:
        fail(f"expected a pointer, not {ptr.ir.type}")
    element, space, align = m.groups()
    if align is None:
        bits = re.search(r"\d+", element)
        align = max(1, int(bits.group()) // 8) if bits else 1
    return element, space, int(align)


def byte_offset(ptr, offset: int):
    """`ptr` advanced by `offset` bytes (as a pointer to bytes)."""
    ptr = retype(ptr, nm.Uint8)
    return ptr if offset == 0 else emit("fly.add_offset", ptr, offset)


def retype(ptr, dtype, align: int | None = None):
    """The same address as a pointer to `dtype` elements (alignment kept,
    or `align` when given)."""
    element, space, known = _ptr_parts(ptr)
    if element == dtype.mlir_type and align is None:
        return ptr
    b = builder()
    (raw,) = b.op("fly.ptr.to_llvm", [ptr.ir], [parse_type(f"!llvm.ptr<{_SPACES[space]}>")])
    (v,) = b.op("fly.make_ptr", [raw], [parse_type(
        f"!fly.ptr<{dtype.mlir_type}, {space}, align<{align or known}>>")])
    return wrap(v)


# -- Array ------------------------------------------------------------------------

class Array:
    """`Array[T, N]` / `Array[T, N, align]`: N consecutive elements of the
    numeric type T. Its value (a Storage's `.peek()`) is the typed pointer
    to the first element: `a[i]` loads element i, `a[i] = v` stores it,
    `a.ptr` is the pointer, `a.view(layout)` a tensor over it."""

    _cache: dict = {}

    class _Base:
        dtype = None
        size = None
        align = None

        def __init__(self, ptr):
            self._ptr = ptr

        @property
        def ptr(self):
            return self._ptr

        def __len__(self):
            return type(self).size

        def _element(self, index):
            if isinstance(index, bool) or not isinstance(index, (int, nm.Numeric)) or (
                    isinstance(index, nm.Numeric) and (isinstance(index, nm.Vector) or index.is_float)):
                fail(f"{type(self).__name__}: an index is an int or a scalar integer numeric, "
                     f"not {type(index).__name__}")
            if isinstance(index, int) and not 0 <= index < type(self).size:
                fail(f"{type(self).__name__}: index {index} is out of range")
            return emit("fly.add_offset", self._ptr, index)

        def __getitem__(self, index):
            dtype = type(self).dtype
            (v,) = builder().op("fly.ptr.load", [self._element(index).ir], [dtype.type_handle()])
            return dtype(v)

        def __setitem__(self, index, value):
            dtype = type(self).dtype
            builder().op("fly.ptr.store", [nm.convert(value, dtype).ir, self._element(index).ir])

        def view(self, layout):
            """A tensor of the array's elements with `layout`."""
            return late.make_view(self._ptr, layout)

        def __repr__(self):
            return f"{type(self).__name__}({self._ptr.ir.type})"

        @classmethod
        def __dsl_size_of__(cls) -> int:
            return max(1, cls.dtype.bits * cls.size // 8)

        @classmethod
        def __dsl_align_of__(cls) -> int:
            return cls.align

        @classmethod
        def __peek_from_ptr__(cls, ptr):
            return cls(retype(ptr, cls.dtype))

        @classmethod
        def __poke_into_ptr__(cls, ptr, value):
            fail(f"{cls.__name__} cannot be poked whole: store its elements (array[i] = v)")

    def __class_getitem__(cls, params):
        params = params if isinstance(params, tuple) else (params,)
        if len(params) not in (2, 3):
            fail("fx.Array takes Array[dtype, size] or Array[dtype, size, align]")
        dtype, size = params[:2]
        if not _is_numeric_type(dtype):
            fail(f"fx.Array: dtype must be a numeric type (fx.Float32, fx.Int8, ...), not "
                 f"{_name(dtype)}")
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            fail(f"fx.Array: size must be a positive int, not {size!r}")
        element_bytes = max(1, dtype.bits // 8)
        align = params[2] if len(params) == 3 else element_bytes
        if isinstance(align, bool) or not isinstance(align, int) or align <= 0:
            fail(f"fx.Array: align must be a positive int, not {align!r}")
        key = (dtype, size, align)
        if key not in cls._cache:
            suffix = f", {align}" if align != element_bytes else ""
            cls._cache[key] = type(f"Array[{dtype.__name__}, {size}{suffix}]", (cls._Base,),
                                   {"dtype": dtype, "size": size, "align": align})
        return cls._cache[key]


# -- Align ------------------------------------------------------------------------

class Align:
    """`Align[T, N]`: a field of type T aligned to N bytes (a power of two
    no smaller than T's own alignment)."""

    dtype = None
    align = None

    def __class_getitem__(cls, params):
        if cls is not Align:
            fail(f"{cls.__name__} cannot be parametrized again")
        if not isinstance(params, tuple) or len(params) != 2:
            fail("fx.Align takes Align[Type, alignment]")
        dtype, align = params
        if isinstance(align, bool) or not isinstance(align, int) or align <= 0 or align & (align - 1):
            fail(f"fx.Align: alignment must be a power of two, not {align!r}")
        natural = align_of(dtype, "fx.Align")
        if align < natural:
            fail(f"fx.Align[{_name(dtype)}, {align}]: {align} is below the natural alignment "
                 f"{natural} of {_name(dtype)}")
        return type(f"Align[{_name(dtype)}, {align}]", (cls,), {
            "dtype": dtype, "align": align,
            "__dsl_size_of__": classmethod(lambda c: size_of(c.dtype)),
            "__dsl_align_of__": classmethod(lambda c: c.align),
            "__peek_from_ptr__": classmethod(lambda c, ptr: peek_from_ptr(c.dtype, ptr)),
            "__poke_into_ptr__": classmethod(lambda c, ptr, v: poke_into_ptr(c.dtype, ptr, v)),
        })


# -- structs and unions ----------------------------------------------------------

_RESERVED = frozenset({"replace", "peek", "poke"})


def _check_field_name(name: str, where: str) -> None:
    if name.startswith("_"):
        fail(f"{where}: field name '{name}' must not start with an underscore")
    if name in _RESERVED:
        fail(f"{where}: field name '{name}' is reserved")


def _align_up(x: int, a: int) -> int:
    return -(-x // a) * a


def storage_layout(schema):
    """(size, alignment, {field: byte offset}) of a struct or union type."""
    cached = schema.__dict__.get("__dsl_layout__")
    if cached is not None:
        return cached
    stored = [(n, t) for n, t in schema.__dsl_fields__ if not is_constexpr(t)]
    where = f"fx.{'union' if schema.__dsl_composite_kind__ is CompositeKind.Sum else 'struct'}"
    sizes = [(n, size_of(t, f"{where} {_name(schema)}: field '{n}'"),
              align_of(t, f"{where} {_name(schema)}: field '{n}'")) for n, t in stored]
    align = max((a for _, _, a in sizes), default=1)
    if schema.__dsl_composite_kind__ is CompositeKind.Sum:
        size = max((s for _, s, _ in sizes), default=0)
        offsets = {n: 0 for n, _, _ in sizes}
    else:
        size, offsets = 0, {}
        for n, s, a in sizes:
            size = _align_up(size, a)
            offsets[n] = size
            size += s
    layout = (_align_up(size, align), align, offsets)
    schema.__dsl_layout__ = layout
    return layout


class _CompositeValue:
    """The methods of struct values (a union has no value form)."""

    def __init__(self, *args, **kwargs):
        cls = type(self)
        if cls.__dsl_composite_kind__ is CompositeKind.Sum:
            fail(f"{_name(cls)} is a union: it has no value, only Storage (allocate it)")
        fields = cls.__dsl_fields__
        if len(args) > len(fields):
            fail(f"{_name(cls)}(...) takes {len(fields)} field(s), got {len(args)} positional")
        values = dict(zip((n for n, _ in fields), args))
        for k, v in kwargs.items():
            if k not in dict(fields):
                fail(f"{_name(cls)}(...) has no field '{k}' (fields: {[n for n, _ in fields]})")
            if k in values:
                fail(f"{_name(cls)}(...) got two values for field '{k}'")
            values[k] = v
        missing = [n for n, _ in fields if n not in values]
        if missing:
            fail(f"{_name(cls)}(...) is missing field(s) {missing}")
        for n, t in fields:
            object.__setattr__(self, n, _coerce(cls, n, t, values[n]))

    def __setattr__(self, key, value):
        raise FrozenInstanceError(f"cannot assign to field '{key}' of {_name(type(self))}: "
                                  "use .replace()")

    def __delattr__(self, key):
        raise FrozenInstanceError(f"cannot delete field '{key}' of {_name(type(self))}")

    def replace(self, **changes):
        """A copy with the given fields changed."""
        values = {n: getattr(self, n) for n, _ in type(self).__dsl_fields__}
        values.update(changes)
        return type(self)(**values)

    def __repr__(self):
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in type(self).__dsl_fields__)
        return f"{_name(type(self))}({body})"

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) is getattr(other, n) or getattr(self, n) == getattr(other, n)
                   for n, _ in type(self).__dsl_fields__)

    def __hash__(self):
        return hash((type(self),) + tuple(id(getattr(self, n)) for n, _ in type(self).__dsl_fields__))

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return storage_layout(cls)[0]

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return storage_layout(cls)[1]

    @classmethod
    def __peek_from_ptr__(cls, ptr):
        if cls.__dsl_composite_kind__ is CompositeKind.Sum:
            fail(f"{_name(cls)} is a union: peek one of its fields (storage.field.peek())")
        offsets = storage_layout(cls)[2]
        return cls(**{n: (t if is_constexpr(t) else peek_from_ptr(t, byte_offset(ptr, offsets[n])))
                      for n, t in cls.__dsl_fields__})

    @classmethod
    def __poke_into_ptr__(cls, ptr, value):
        if cls.__dsl_composite_kind__ is CompositeKind.Sum:
            fail(f"{_name(cls)} is a union: poke one of its fields (storage.field.poke(v))")
        if not isinstance(value, cls):
            fail(f"Storage[{_name(cls)}].poke takes a {_name(cls)}, not {type(value).__name__}")
        offsets = storage_layout(cls)[2]
        for n, t in cls.__dsl_fields__:
            if not is_constexpr(t):
                poke_into_ptr(t, byte_offset(ptr, offsets[n]), getattr(value, n))


def _coerce(cls, name, t, value):
    """A field's value as its type: numerics converted, others checked."""
    if is_constexpr(t):
        return value
    if _is_numeric_type(t):
        if isinstance(value, t) and not isinstance(value, nm.Vector):
            return value
        if isinstance(value, (bool, int, float, nm.Numeric)) and not isinstance(value, nm.Vector):
            return t(value)
    elif isinstance(t, type) and isinstance(value, t):
        return value
    fail(f"{_name(cls)}(...): field '{name}' takes a {_name(t)}, not {type(value).__name__}")


def _make_composite(name, module, fields, kind, display):
    return type(name, (_CompositeValue,), {
        "__module__": module,
        "__annotations__": dict(fields),
        "__dsl_composite_kind__": kind,
        "__dsl_fields__": tuple(fields),
        "__dsl_display_name__": display,
    })


def _class_fields(klass, where):
    try:
        annotations = inspect.get_annotations(klass, eval_str=True)
    except Exception as err:  # a name the annotation refers to is not defined
        fail(f"{where} {klass.__name__}: its field annotations do not evaluate ({err})")
    for n in annotations:
        _check_field_name(n, f"{where} {klass.__name__}")
    return list(annotations.items())


def _inline_fields(params, where):
    params = params if isinstance(params, tuple) else (params,)
    if not params:
        fail(f"{where}[...] needs at least one field")
    fields = []
    for i, p in enumerate(params):
        if isinstance(p, slice):
            if not isinstance(p.start, str) or p.stop is None or p.step is not None:
                fail(f"{where}[...]: a named field is written 'name': Type")
            _check_field_name(p.start, f"{where}[...]")
            fields.append((p.start, p.stop))
        else:
            fields.append((f"_{i}", p))
    names = [n for n, _ in fields]
    if len(set(names)) != len(names):
        fail(f"{where}[...]: duplicate field names {names}")
    return fields


class _CompositeMeta(type):
    """`@fx.struct` / `@fx.struct()` on a class with annotated fields, or
    inline `fx.Struct["a": fx.Int32, "b": fx.Array[fx.Float32, 4]]`
    (unnamed fields are `_0`, `_1`, ...)."""

    def __call__(cls, klass=None, /, **kwargs):
        if kwargs:
            fail(f"fx.{cls._display.lower()} takes no options (got {sorted(kwargs)})")

        def make(k):
            if not isinstance(k, type):
                fail(f"fx.{cls._display.lower()} decorates a class, not {type(k).__name__}")
            return _make_composite(k.__name__, k.__module__,
                                   _class_fields(k, f"fx.{cls._display.lower()}"),
                                   cls._kind, k.__name__)
        return make if klass is None else make(klass)

    def __getitem__(cls, params):
        fields = _inline_fields(params, f"fx.{cls._display}")
        anonymous = all(n.startswith("_") for n, _ in fields)
        body = ", ".join(_name(t) if anonymous else f"{n!r}: {_name(t)}" for n, t in fields)
        display = f"{cls._display}[{body}]"
        return _make_composite(f"{cls._display}_{len(fields)}", __name__, fields, cls._kind,
                               display)

    def __repr__(cls):
        return f"fx.{cls._display.lower()}"


class struct(metaclass=_CompositeMeta):
    """A C-layout struct type: fields at aligned offsets in order."""
    _kind = CompositeKind.Product
    _display = "Struct"


class union(metaclass=_CompositeMeta):
    """A union type: every field at offset 0 (LDS reused by its variants)."""
    _kind = CompositeKind.Sum
    _display = "Union"


Struct = struct
Union = union


# -- Storage ----------------------------------------------------------------------

class Storage:
    """`Storage[T]`: memory holding a T, at a byte pointer (or, for a
    struct allocated field by field, the Storage of each field)."""

    _target_type = None
    _cache: dict = {}

    def __class_getitem__(cls, target):
        found = Storage._cache.get(target)
        if found is None:
            found = type(f"Storage[{_name(target)}]", (Storage,), {"_target_type": target})
            Storage._cache[target] = found
        return found

    def __init__(self, ptr=None, prebuilt=None):
        if type(self)._target_type is None:
            fail("Storage is parametrized by the type it holds: Storage[T](ptr)")
        if ptr is not None and not isinstance(ptr, FlyValue):
            fail(f"Storage[{_name(type(self)._target_type)}] holds a pointer, not "
                 f"{type(ptr).__name__}")
        object.__setattr__(self, "_ptr", ptr)
        object.__setattr__(self, "_prebuilt", dict(prebuilt or {}))

    def peek(self):
        """The value held: a struct of its fields' values, an Array's typed
        pointer, a numeric loaded from memory."""
        t = type(self)._target_type
        if self._prebuilt and is_struct_type(t):
            return t(**{n: (ft if is_constexpr(ft) else self._prebuilt[n].peek())
                        for n, ft in t.__dsl_fields__})
        return peek_from_ptr(t, self._pointer("peek"))

    def poke(self, value) -> None:
        """Store `value` (of the type held)."""
        t = type(self)._target_type
        if self._prebuilt and is_struct_type(t):
            for n, ft in t.__dsl_fields__:
                if not is_constexpr(ft):
                    self._prebuilt[n].poke(getattr(value, n))
            return
        poke_into_ptr(t, self._pointer("poke"), value)

    def _pointer(self, what):
        if self._ptr is None:
            fail(f"Storage[{_name(type(self)._target_type)}].{what}(): no memory behind it")
        return self._ptr

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        prebuilt = object.__getattribute__(self, "_prebuilt")
        if name in prebuilt:
            return prebuilt[name]
        t = type(self)._target_type
        if not is_composite_type(t):
            raise AttributeError(f"Storage[{_name(t)}] has no attribute '{name}'")
        types = dict(t.__dsl_fields__)
        if name not in types:
            raise AttributeError(f"Storage[{_name(t)}] has no field '{name}' "
                                 f"(fields: {list(types)})")
        if is_constexpr(types[name]):
            raise AttributeError(f"field '{name}' of {_name(t)} is a Constexpr: it has no storage")
        offset = storage_layout(t)[2][name]
        return Storage[types[name]](byte_offset(self._pointer(name), offset))

    def __setattr__(self, key, value):
        raise AttributeError(f"Storage fields are written with .poke(): "
                             f"storage.{key}.poke(value)")

    def __repr__(self):
        where = self._ptr.ir.type if self._ptr is not None else "fields " + ", ".join(self._prebuilt)
        return f"{type(self).__name__}({where})"


# -- Arena ------------------------------------------------------------------------

class Arena:
    """Hands out consecutive, aligned Storage from one base pointer
    (`base_ptr`, given by a subclass); `allocated_bytes` so far."""

    DEFAULT_BASE_ALIGNMENT = 16

    def __init__(self, base_alignment: int = DEFAULT_BASE_ALIGNMENT):
        if isinstance(base_alignment, bool) or not isinstance(base_alignment, int) or \
                base_alignment <= 0 or base_alignment & (base_alignment - 1):
            fail(f"{type(self).__name__}: base_alignment must be a power of two, not "
                 f"{base_alignment!r}")
        self._offset = 0
        self._base_alignment = base_alignment

    @property
    def base_ptr(self):
        fail(f"{type(self).__name__} has no base pointer")

    @property
    def allocated_bytes(self) -> int:
        return self._offset

    def _bump(self, nbytes: int, align: int) -> int:
        offset = _align_up(self._offset, align)
        self._offset = offset + nbytes
        return offset

    def _request(self, storable_or_int, alignment):
        """(type, bytes, alignment) of an allocate() request."""
        if isinstance(storable_or_int, nm.Numeric) and not isinstance(storable_or_int, type):
            fail(f"{type(self).__name__}.allocate: a size in bytes must be a Python int, not "
                 f"a dynamic {type(storable_or_int).__name__}")
        if alignment is not None and (isinstance(alignment, bool) or not isinstance(alignment, int)
                                      or alignment <= 0 or alignment & (alignment - 1)):
            fail(f"{type(self).__name__}.allocate: alignment must be a power of two, not "
                 f"{alignment!r}")
        if isinstance(storable_or_int, int) and not isinstance(storable_or_int, bool):
            if storable_or_int <= 0:
                fail(f"{type(self).__name__}.allocate: size must be positive, not "
                     f"{storable_or_int}")
            return (Array[nm.Uint8, storable_or_int], storable_or_int,
                    alignment or self._base_alignment)
        t = storable_or_int
        what = f"{type(self).__name__}.allocate"
        if not isinstance(t, type):
            fail(f"{what}: allocate takes a storable type or a size in bytes, not "
                 f"{type(t).__name__}")
        return t, size_of(t, what), max(align_of(t, what), alignment or 1)

    def allocate(self, storable_or_int, alignment=None):
        """`Storage[T]` for a storable type T, or `Storage[Array[Uint8, n]]`
        for n bytes, at the next offset aligned to T's alignment (or
        `alignment`, when larger)."""
        t, nbytes, align = self._request(storable_or_int, alignment)
        offset = self._bump(nbytes, align)
        return Storage[t](byte_offset(self.base_ptr, offset))
