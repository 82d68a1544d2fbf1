"""flydsl.compiler (flyc): kernels, jit functions, compiling, arguments."""

from .arguments import TensorDescriptor, from_dlpack
from .env import Environment
from .errors import ArgumentError, CompileError, FlyDSLError, RewriteError, TraceError
from .compiled import CompiledFunction
from .jit import JitFunction, compile, jit
from .kernel import Kernel, kernel

__all__ = ["kernel", "jit", "compile", "from_dlpack", "TensorDescriptor", "CompiledFunction",
           "JitFunction", "Kernel", "Environment", "FlyDSLError", "RewriteError",
           "TraceError", "CompileError", "ArgumentError"]
