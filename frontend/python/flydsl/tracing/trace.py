"""The trace in progress: one module, built while a @flyc.jit function runs.

`Trace.current()` is the trace the fx API writes into. A trace holds the
host function being built, the kernels traced for it (one gpu.module each),
the chip it is for and the Builder whose current block receives new ops;
`KernelTrace.current()` is the kernel whose body is being traced.
`gpu_module_body` is a block of module-level ops every kernel's gpu.module
starts with (FlyDSL's `CompilationContext.get_current().gpu_module_body`,
where its legacy LDS allocator writes its memref.global).
"""

from __future__ import annotations

from contextlib import contextmanager

from .errors import TraceError
from .ir import Block, Builder, user_location


class Trace:
    _stack: list["Trace"] = []

    def __init__(self) -> None:
        self.builder = Builder()
        self.gpu_modules: list[tuple[str, str]] = []  # (symbol, body text) per kernel, in order
        self.gpu_module_body = Block()  # the ops every gpu.module starts with
        self.kernels: dict = {}  # (kernel, signature key) -> symbol
        self.host_lines: list[str] = []
        self.emulator = False  # compiled for the CPU emulator (fx.printf needs it)
        self.arch = ""  # the chip compiled for (gfx942, ...)

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
        shared = "".join(line + "\n" for line in self.gpu_module_body.lines)
        modules = [f"gpu.module @{symbol} {{\n{shared}{body}\n}}"
                   for symbol, body in self.gpu_modules]
        body = "\n".join(modules + self.host_lines)
        aliases = "".join(line + "\n" for line in self.builder.type_aliases)
        return aliases + "module attributes {gpu.container_module} {\n" + body + "\n}\n"


def builder() -> Builder:
    return Trace.current().builder


# The compile target, as the launch layer (flydsl.compiler.backends)
# defines it: registered from above, so that fx and its extensions can ask
# for it without importing that layer.
_target_of = None


def register_target_resolver(resolve) -> None:
    """`resolve(arch or None)` -> the GPUTarget a compile of that chip (None:
    the one a compile would choose now) is for."""
    global _target_of
    _target_of = resolve


def current_target():
    """The GPUTarget code is compiled for: the trace's chip, or off a trace
    the one a compile would target now."""
    if _target_of is None:
        raise TraceError("the compile target is known once flydsl.compiler is imported",
                         *user_location()[:2])
    trace = Trace._stack[-1] if Trace._stack else None
    return _target_of(trace.arch if trace is not None and trace.arch else None)


class KernelTrace:
    """The kernel whose body is being traced: its block size when known at
    compile time, and the shared memory its body allocates."""

    _stack: list["KernelTrace"] = []

    def __init__(self, name: str, block_size):
        self.name = name
        self.block_size = block_size  # (x, y, z) Python ints, or None
        self.globals: list[str] = []  # module-level ops: the static LDS
        self.dynamic_smem = None  # the dynamic SharedAllocator, if any

    @classmethod
    def current(cls) -> "KernelTrace | None":
        return cls._stack[-1] if cls._stack else None

    def add_static_lds(self, nbytes: int, align: int) -> str:
        """A new LDS global of `nbytes` bytes aligned to `align`; its symbol."""
        symbol = f"__fly_shared_{len(self.globals)}"
        self.globals.append(f"llvm.mlir.global internal @{symbol}() {{addr_space = 3 : i32, "
                            f"alignment = {align} : i64}} : !llvm.array<{nbytes} x i8>")
        return symbol
