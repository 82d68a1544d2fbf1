"""flydsl.compiler (flyc): kernels, jit functions, compiling, arguments,
compile backends -- FlyDSL's `flydsl.compiler` API.

Beyond `__all__` (FlyDSL's names), importable for this product's users:
TensorDescriptor, PointerDescriptor, JitFunction, Kernel, CompileOptions,
Environment and the error classes."""

from .arguments import (JitArgumentRegistry, PointerDescriptor, TensorDescriptor, from_c_void_p,
                        from_dlpack, from_torch_tensor)
from .backends import (BaseBackend, CompileOptions, GPUTarget, compile_backend_name, get_backend,
                       register_backend)
from .env import Environment
from ..tracing.errors import ArgumentError, CompileError, FlyDSLError, RewriteError, TraceError
from .compiled import CompiledFunction
from .emu_check import EmuCheckError, EmuCheckWarning
from .jit_function import JitFunction, compile, jit
from .kernel_function import Kernel, kernel as _kernel
from . import protocol


def kernel(func=None, *, name=None, known_block_size=None):
    """A device function (`@flyc.kernel`, `@flyc.kernel(name=...,
    known_block_size=[...])`), callable while a @flyc.jit function is
    traced; calling it returns a launcher."""
    return _kernel(func, name=name, known_block_size=known_block_size)


__all__ = [
    "BaseBackend",
    "CompiledFunction",
    "compile_backend_name",
    "get_backend",
    "GPUTarget",
    "register_backend",
    "JitArgumentRegistry",
    "from_dlpack",
    "from_torch_tensor",
    "from_c_void_p",
    "jit",
    "kernel",
    "compile",
]
