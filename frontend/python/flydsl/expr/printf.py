"""fx.printf(fmt, *args): formatted printing from a kernel (SPEC §7).

It would be `gpu.printf`, which convert-gpu-to-rocdl (runtime=HIP) lowers
to the hostcall printf of the ROCm device library: calls of
`__ockl_printf_begin`, `__ockl_printf_append_args` and
`__ockl_printf_append_string_n`, whose code lives in ockl's bitcode and the
HIP runtime's hostcall buffer. FlyDSL links code objects in process without
the ROCm device libraries, so such a module does not link ("ROCm amdgcn
bitcode path ... does not exist"). Rather than a broken path, fx.printf is a
TraceError at the call that says so; the arguments are checked first, so
that a kernel written for a future printf is already well formed.
"""

from __future__ import annotations

from . import numeric as nm
from ._elementwise import fail

__all__ = ["printf"]


def printf(fmt: str, *args) -> None:
    """Prints from every thread that runs it (not available: see the module)."""
    if not isinstance(fmt, str):
        fail(f"fx.printf: the format must be a Python str, not {type(fmt).__name__}")
    for a in args:
        if isinstance(a, nm.Vector) or not isinstance(a, (nm.Numeric, bool, int, float)):
            fail(f"fx.printf: cannot print a {type(a).__name__} (scalar numerics and "
                 "Python numbers only)")
    fail("fx.printf is not available: gpu.printf lowers to the HIP hostcall printf "
         "(__ockl_printf_begin/__ockl_printf_append_args) of the ROCm device library, "
         "which FlyDSL does not link (code objects are linked in process without the "
         "ROCm device libraries). Write values to an output tensor instead")
