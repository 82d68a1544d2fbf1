"""The parameters of kernels and jit functions: fx.Constexpr, fx.Stream,
evaluated signatures, and binding a call's arguments with errors that name
the function and its parameters."""

from __future__ import annotations

import inspect
import typing

from .errors import ArgumentError, TraceError
from .ir import Value, user_location


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


class StreamValue:
    """A stream inside a traced host function (an !llvm.ptr argument)."""

    def __init__(self, ir: Value):
        self.ir = ir

    @property
    def value(self) -> "StreamValue":
        """What FlyDSL kernels hand to `.launch(stream=stream.value)`: the
        stream itself, as a launch takes it."""
        return self


def is_constexpr(annotation) -> bool:
    if annotation is _ConstexprMarker:
        return True
    return _ConstexprMarker in getattr(annotation, "__metadata__", ())


def constexpr_type(annotation):
    return getattr(annotation, "__origin__", None)


def evaluated_signature(fn) -> inspect.Signature:
    """fn's signature with its annotations evaluated: under `from __future__
    import annotations` they are strings, and fx.Constexpr[int] must still
    be recognised. One that does not evaluate (a name defined later) is an
    error naming it, not a silently ignored annotation."""
    try:
        return inspect.signature(fn, eval_str=True)
    except Exception as err:  # NameError, SyntaxError, ... from the annotation text
        code = fn.__code__
        raise TraceError(f"the annotations of {fn.__name__} do not evaluate: {err}",
                         code.co_filename, code.co_firstlineno) from None


def _parameters_text(signature) -> str:
    parts = []
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            parts.append("**" + p.name)
        elif p.default is not p.empty:
            parts.append(f"{p.name}={p.default!r}")
        else:
            parts.append(p.name)
    return ", ".join(parts)


def bind_arguments(signature, what: str, args, kwargs):
    """`signature.bind` with defaults applied; a call that does not fit is
    an ArgumentError naming `what` and its parameters, at the caller's line."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as err:
        params = list(signature.parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = _parameters_text(signature)
        if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in params):
            required = sum(p.default is p.empty for p in positional)
            most = len(positional)
            count = str(most) if required == most else f"{required} to {most}"
            message = (f"{what}() takes {count} positional argument{'s' if most != 1 else ''} "
                       f"({names}), got {len(args)}")
        else:
            detail = str(err)
            unknown = [k for k in kwargs if k not in signature.parameters
                       or signature.parameters[k].kind is inspect.Parameter.POSITIONAL_ONLY]
            if unknown and not any(p.kind is p.VAR_KEYWORD for p in params):
                detail = f"got an unexpected keyword argument '{unknown[0]}'"
            if detail.startswith("multiple values"):
                detail = "got " + detail
            message = f"{what}() {detail}; its parameters are ({names})"
        raise ArgumentError(message, *user_location()[:2]) from None
    bound.apply_defaults()
    return bound
