"""FlyDSL's `flydsl.expr.meta`: what kernel-library code wraps its builders
with.

    tracing_context(func=None, **options)   a `with` block whose options
                                            `tracing_option(key)` reads
    tracing_option(key, default=None)       the innermost block's value
    dsl_loc_tracing(fn)                     a builder whose ops carry the
                                            user's source line
    dsl_wrap_result(fn) / (cls)(fn)         a builder whose raw results come
                                            back as fx values

Options nest: an inner block sees the keys it does not set from the outer
ones, and a key set to None shadows an outer value. The blocks are per
thread.

Locations here need no wrapper: every op the tracer writes already carries
the first source line outside the package (and the chain of the user's
helpers), so `dsl_loc_tracing` only keeps the decorated function's name and
signature, for code written against FlyDSL.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading

from ._late import late

__all__ = ["tracing_context", "tracing_option", "dsl_loc_tracing", "dsl_wrap_result"]

_frames = threading.local()


def _stack() -> list:
    stack = getattr(_frames, "stack", None)
    if stack is None:
        stack = _frames.stack = []
    return stack


@contextlib.contextmanager
def tracing_context(func=None, **options):
    """A block in which `tracing_option(key)` is `options[key]` (for the
    keys given, None included). `func` is the traced function the block
    belongs to, if any (`current_function()` names it)."""
    stack = _stack()
    owner = func if func is not None else (stack[-1][0] if stack else None)
    stack.append((owner, dict(options)))
    try:
        yield
    finally:
        stack.pop()


def tracing_option(key, default=None):
    """The value of `key` in the innermost enclosing tracing_context that
    sets it, else `default`."""
    for _, options in reversed(getattr(_frames, "stack", None) or ()):
        if key in options:
            return options[key]
    return default


def current_function():
    """The function of the innermost tracing_context that names one."""
    stack = getattr(_frames, "stack", None)
    return stack[-1][0] if stack else None


def dsl_loc_tracing(fn):
    """`fn` as it is, wrapped for code that decorates its builders so: the
    tracer locates every op at the user's line by itself."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def dsl_wrap_result(target=None):
    """A decorator: the builder's results (one, or a tuple / list of them)
    come back as fx values, by their type, or as `target(value)` when a
    class is given (`@dsl_wrap_result(fx.Float32x4)`)."""
    def decorate(op, cls):
        @functools.wraps(op)
        def wrapper(*args, **kwargs):
            return late.as_dsl_value(op(*args, **kwargs), cls)

        return wrapper

    if inspect.isfunction(target):
        return decorate(target, None)
    return lambda op: decorate(op, target)
