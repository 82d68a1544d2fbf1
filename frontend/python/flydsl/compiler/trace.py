"""The trace in progress: one module, built while a @flyc.jit function runs.

`Trace.current()` is the trace the fx API writes into. A trace holds the
host function being built, the kernels traced for it (one gpu.module each)
and the Builder whose current block receives new ops.
"""

from __future__ import annotations

from contextlib import contextmanager

from .errors import TraceError
from .ir import Builder, user_location


class Trace:
    _stack: list["Trace"] = []

    def __init__(self) -> None:
        self.builder = Builder()
        self.gpu_modules: list[str] = []  # module texts, in order
        self.kernels: dict = {}  # (kernel, signature key) -> symbol
        self.host_lines: list[str] = []
        self.emulator = False  # compiled for the CPU emulator (fx.printf needs it)

    @classmethod
    def current(cls) -> "Trace":
        if not cls._stack:
            raise TraceError("this needs a traced function (call it from a "
                             "@flyc.jit or @flyc.kernel function)", *user_location()[:2])
        return cls._stack[-1]

    @classmethod
    def active(cls) -> bool:
        return bool(cls._stack)

    @contextmanager
    def activate(self):
        Trace._stack.append(self)
        try:
            yield self
        finally:
            Trace._stack.pop()

    def module_text(self) -> str:
        body = "\n".join(self.gpu_modules + self.host_lines)
        return "module attributes {gpu.container_module} {\n" + body + "\n}\n"


def builder() -> Builder:
    return Trace.current().builder
