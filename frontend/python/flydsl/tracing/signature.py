"""The markers of the parameters of kernels and jit functions that the
tracing core and fx know: fx.Constexpr (a parameter specialised at trace
time) and fx.Stream (a device stream handed to a launch). What an argument
of a @flyc.jit call is beyond that -- its traced type, its part of the
keys, how it is packed -- is described in flydsl/compiler/arguments.py."""

from __future__ import annotations

import typing

from .errors import ArgumentError
from .ir import user_location


class _ConstexprMarker:
    """`fx.Constexpr[T]`: a parameter specialised at trace time."""

    def __class_getitem__(cls, item):
        return typing.Annotated[item, cls]


Constexpr = _ConstexprMarker


class Stream:
    """A device stream passed to a @flyc.jit function (`fx.Stream`).
    `Stream(None)` is the default stream, an int a raw hipStream_t, and a
    torch stream (anything with `cuda_stream`) its handle. Inside the
    traced function it is a value to give to `.launch(stream=...)`."""

    _is_stream_param = True

    __slots__ = ("value", "handle")

    def __init__(self, value=None):
        self.value = value
        self.handle = stream_handle(value)

    def __repr__(self):
        return f"Stream({self.value!r})"

    # the protocol (flydsl.compiler.protocol.JitArgument)
    def __get_ir_types__(self):
        return ["!llvm.ptr"]

    def __cache_signature__(self):
        return (Stream,)

    def __c_abi_spec__(self):
        import ctypes

        def fill(arg, slot):
            slot.value = stream_handle(arg.value if isinstance(arg, Stream) else arg)

        return [(ctypes.c_void_p, fill)]


def stream_handle(value) -> int:
    """The native handle of a stream value: None (the default stream), a
    Stream, an int, or an object with `cuda_stream` (a torch stream)."""
    if value is None:
        return 0
    if isinstance(value, Stream):
        return value.handle
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < 2**64:
            raise ArgumentError(f"fx.Stream({value}): a stream handle is an address, not a "
                                "negative or 65-bit number", *user_location()[:2])
        return value
    handle = getattr(value, "cuda_stream", None)
    if isinstance(handle, int):
        return handle
    raise ArgumentError(f"fx.Stream(value): None (the default stream), an int handle or a "
                        f"torch stream, got {type(value).__name__} {value!r}",
                        *user_location()[:2])


def is_constexpr(annotation) -> bool:
    if annotation is _ConstexprMarker:
        return True
    return _ConstexprMarker in getattr(annotation, "__metadata__", ())


def constexpr_type(annotation):
    return getattr(annotation, "__origin__", None)
