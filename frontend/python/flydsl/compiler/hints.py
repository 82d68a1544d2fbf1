"""Compile hints: their check, and FlyDSL's ambient hints.

A @flyc.jit function compiles with its own hints (`flyc.compile[{...}]`,
`fn.compile_hints`, autotune configs) and those of the enclosing
`CompilationContext.compile_hints({...})` blocks of the calling thread
(FlyDSL's kernels wrap their launches in them; an inner block's hints
override an outer one's, a block's override the function's own). Entering
or leaving a block makes every jit function's next call look its compiled
code up again (the native warm path is keyed by arguments only), so a
call inside a block runs the code compiled for that block's hints."""

from __future__ import annotations

import contextlib
import threading

from .. import _fly
from ..expr._elementwise import fastmath_text
from ..tracing.errors import ArgumentError, FlyDSLError
from ..tracing.ir import user_location
from ..tracing.trace import Trace

__all__ = ["CompilationContext", "ambient_hints", "check_hints"]

_ambient = threading.local()


def ambient_hints() -> dict:
    """The hints of the calling thread's enclosing compile_hints blocks."""
    return getattr(_ambient, "hints", None) or {}


class CompilationContext:
    """FlyDSL's compilation context (flydsl.compiler.kernel_function): its
    `compile_hints` blocks, `get_current()` and the current one's
    `gpu_module_body`."""

    @staticmethod
    @contextlib.contextmanager
    def compile_hints(hints: dict):
        """A block whose jit calls compile with these hints too."""
        if not isinstance(hints, dict):
            raise ArgumentError(f"CompilationContext.compile_hints: a dict, got {hints!r}",
                                *user_location()[:2])
        check_hints(hints)
        outer = ambient_hints()
        _ambient.hints = {**outer, **hints}
        _fly.invalidate_dispatch()
        try:
            yield
        finally:
            _ambient.hints = outer
            _fly.invalidate_dispatch()

    @staticmethod
    def get_compile_hints() -> dict:
        """The hints of the enclosing blocks (a copy)."""
        return dict(ambient_hints())

    @staticmethod
    def get_current():
        """The context of the function being traced now, None off a trace."""
        return _CURRENT if Trace._stack else None

    @property
    def gpu_module_body(self):
        """The block of module-level ops of the function being traced (FlyDSL's
        gpu.module body): what `with ir.InsertionPoint(ctx.gpu_module_body):`
        builds there (a `memref.global` of LDS, as flydsl.utils.smem_allocator
        makes) starts every kernel module of the trace."""
        return Trace.current().gpu_module_body


_CURRENT = CompilationContext()


def check_hints(hints: dict) -> None:
    """An ArgumentError at the user's line for an unknown hint or a bad value."""
    from .backends.rocm import COMPILE_HINTS

    for name in hints:
        if name not in COMPILE_HINTS:
            raise ArgumentError(f"compile hint '{name}' is not one of {', '.join(COMPILE_HINTS)}",
                                *user_location()[:2])
    if hints.get("emu_check") is not None:
        from .emu_check import parse

        try:
            parse(hints["emu_check"], "compile hint emu_check")
        except FlyDSLError as err:
            raise ArgumentError(err.bare_message, *user_location()[:2]) from None
    options = hints.get("llvm_options")
    if options is not None and not (isinstance(options, dict) and all(
            isinstance(name, str) and isinstance(value, (bool, int, str))
            for name, value in options.items())):
        raise ArgumentError(f"compile hint llvm_options={options!r}: a dict of LLVM option "
                            "names to bools, ints or strs", *user_location()[:2])
    if hints.get("fastmath") is not None:
        try:
            fastmath_text(hints["fastmath"])
        except FlyDSLError as err:
            raise ArgumentError(f"compile hint fastmath={hints['fastmath']!r}: {err.bare_message}",
                                *user_location()[:2]) from None
