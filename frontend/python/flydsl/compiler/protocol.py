"""FlyDSL's protocol for the values a @flyc.jit function takes and the
types its traced code builds.

- `JitArgument`: a host-side argument. `__get_ir_types__()` are the types
  of the host function's arguments it becomes (type handles or their
  text), `__cache_signature__()` what the compiled code depends on (it
  enters the dispatch and disk keys), `__c_abi_spec__()` how a call fills
  those arguments: one `(ctypes type, fill(arg, slot))` per type.
- `DslType`: the traced-code side. `__construct_from_ir_values__(values,
  exemplar)` builds the value the function body receives from the
  host function's arguments (the tracer's `Value` handles, where FlyDSL
  has `ir.Value`s); `__extract_to_ir_values__()` gives them back.
- `Storable`: a type with a size and an alignment that can be loaded from
  and stored to a pointer.

A class that is both a JitArgument and a DslType is passed as is; a
JitArgument with a separate DslType is registered with
`JitArgumentRegistry.register_jit_arg`, a plain Python type with
`JitArgumentRegistry.register(py_type)(constructor)`.

The functions apply a hook, or recurse into tuples, lists, dicts and
SimpleNamespaces of values that have them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Protocol, runtime_checkable

from ..tracing.ir import Value
from ..expr._core import wrap

__all__ = ["DslType", "JitArgument", "Storable", "get_ir_types", "cache_signature", "c_abi_spec",
           "extract_to_ir_values", "construct_from_ir_values", "dsl_size_of", "dsl_align_of",
           "peek_from_ptr", "poke_into_ptr"]


@runtime_checkable
class DslType(Protocol):
    @classmethod
    def __construct_from_ir_values__(cls, values, exemplar=None): ...

    def __extract_to_ir_values__(self): ...


@runtime_checkable
class JitArgument(Protocol):
    def __get_ir_types__(self): ...

    def __cache_signature__(self): ...

    def __c_abi_spec__(self): ...


@runtime_checkable
class Storable(Protocol):
    @classmethod
    def __dsl_size_of__(cls) -> int: ...

    @classmethod
    def __dsl_align_of__(cls) -> int: ...

    @classmethod
    def __peek_from_ptr__(cls, ptr): ...

    @classmethod
    def __poke_into_ptr__(cls, ptr, value) -> None: ...


def _members(obj):
    """The parts of a container of values, in order (None: not one)."""
    if isinstance(obj, SimpleNamespace):
        return list(vars(obj).values())
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (tuple, list)):
        return list(obj)
    return None


def _ir_value(v):
    """The Value handle of a Value or of a traced value that has one."""
    if isinstance(v, Value):
        return v
    ir = getattr(v, "ir", None)
    return ir if isinstance(ir, Value) else None


def get_ir_types(obj) -> list:
    """The types `obj` is passed as."""
    if (v := _ir_value(obj)) is not None:
        return [v.type]
    if hasattr(obj, "__get_ir_types__"):
        return list(obj.__get_ir_types__())
    parts = _members(obj)
    if parts is not None:
        return [t for p in parts for t in get_ir_types(p)]
    try:
        return [v.type for v in extract_to_ir_values(obj)]
    except TypeError as err:
        raise TypeError(f"no IR types for {obj!r}: {err}") from None


def cache_signature(obj):
    """What code compiled for `obj` depends on."""
    if hasattr(obj, "__cache_signature__"):
        return obj.__cache_signature__()
    if isinstance(obj, SimpleNamespace):
        return tuple((k, cache_signature(v)) for k, v in vars(obj).items())
    if isinstance(obj, (tuple, list)):
        return tuple(cache_signature(x) for x in obj)
    raise TypeError(f"no cache signature for {obj!r}: {type(obj).__name__} does not "
                    "implement __cache_signature__")


def c_abi_spec(obj) -> list:
    """[(ctypes type, fill(arg, slot))], one per argument slot of `obj`."""
    if hasattr(obj, "__c_abi_spec__"):
        return list(obj.__c_abi_spec__())
    raise TypeError(f"no C ABI for {obj!r}: {type(obj).__name__} does not implement "
                    "__c_abi_spec__")


def extract_to_ir_values(obj) -> list:
    """The Value handles that make up `obj`."""
    if (v := _ir_value(obj)) is not None:
        return [v]
    if hasattr(obj, "__extract_to_ir_values__"):
        return list(obj.__extract_to_ir_values__())
    parts = _members(obj)
    if parts is not None:
        return [v for p in parts for v in extract_to_ir_values(p)]
    raise TypeError(f"no IR values in {obj!r}")


def construct_from_ir_values(dsl_type, args, values):
    """The traced value of type `dsl_type` shaped like `args` (an exemplar)
    made of `values`."""
    values = list(values)
    if isinstance(args, (SimpleNamespace, dict)):
        items = vars(args).items() if isinstance(args, SimpleNamespace) else args.items()
        rebuilt, at = {}, 0
        for name, value in items:
            n = len(get_ir_types(value))
            rebuilt[name] = construct_from_ir_values(type(value), value, values[at:at + n])
            at += n
        if at != len(values):
            raise ValueError(f"{type(args).__name__} takes {at} values, got {len(values)}")
        return SimpleNamespace(**rebuilt) if isinstance(args, SimpleNamespace) else rebuilt
    if hasattr(dsl_type, "__construct_from_ir_values__"):
        exemplar = None if isinstance(args, type) else args
        return dsl_type.__construct_from_ir_values__(values, exemplar)
    if isinstance(args, (tuple, list)):
        types = dsl_type if isinstance(dsl_type, (tuple, list)) else [type(a) for a in args]
        if len(types) != len(args):
            raise ValueError(f"{len(types)} types for {len(args)} values")
        out, at = [], 0
        for t, a in zip(types, args):
            n = len(get_ir_types(a))
            out.append(construct_from_ir_values(t, a, values[at:at + n]))
            at += n
        return type(args)(out)
    if (isinstance(dsl_type, type) and dsl_type.__module__.startswith("flydsl.")
            and len(values) == 1):
        # fx's own types (fx.Int32, fx.Pointer, ...): the tracer's wrapper
        # of the value is the value of that type

        return wrap(values[0])
    raise TypeError(f"cannot construct a {dsl_type!r} from IR values")


def _storable(dsl_type, hook: str):
    fn = getattr(dsl_type, hook, None)
    if fn is None:
        raise TypeError(f"{dsl_type!r} does not implement the Storable protocol ({hook})")
    return fn


def dsl_size_of(dsl_type) -> int:
    return _storable(dsl_type, "__dsl_size_of__")()


def dsl_align_of(dsl_type) -> int:
    return _storable(dsl_type, "__dsl_align_of__")()


def peek_from_ptr(dsl_type, ptr):
    return _storable(dsl_type, "__peek_from_ptr__")(ptr)


def poke_into_ptr(dsl_type, ptr, value) -> None:
    _storable(dsl_type, "__poke_into_ptr__")(ptr, value)
