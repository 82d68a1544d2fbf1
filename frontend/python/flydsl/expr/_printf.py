"""fx.printf(*args, format_str=""): formatted printing from a kernel
(SPEC §7). The format is the first argument when it is a str, else
`format_str`. FlyDSL's formats mark each argument with `{}`: a Python
value (int, float, bool, str, a type) is written into the text, a dynamic
one gets the conversion of its type. A format without `{}` is a C printf
format (`%d`, `%f`, `%s`, ...), one conversion per argument.

It is `fly.print` (a C printf format, one conversion per argument; a
static fly value -- a layout, a shape -- takes a `%s` and is printed as its
value, `(4,8):(1,4)`, known at compile time). convert-fly-to-rocdl makes
it a `gpu.printf`, which convert-gpu-to-rocdl (runtime=HIP) lowers to the
printf ABI of the ROCm device library: calls of `__ockl_printf_begin`,
`__ockl_printf_append_string_n` and `__ockl_printf_append_args`.

- On the CPU emulator those are host functions (runtime/emu/Printf.cpp):
  each work-item that runs the call prints one line to stdout, formatted
  as the HIP host does (C printf conversions; an integer conversion
  without `l` reads 32 bits).
- For a GPU, their code lives in ockl's bitcode and the HIP runtime's
  hostcall buffer, and FlyDSL links code objects in process without the
  ROCm device libraries: there fx.printf is a TraceError at the call that
  says so (run with FLYDSL_RUNTIME_KIND=emu to see the output).

Arguments: scalar numerics (floats are printed as doubles, integers
extended to 64 bits), Python numbers (an int becomes an Int32 unless it
needs 64 bits, a float a Float64) and static fly values (`%s`).
"""

from __future__ import annotations

from ..tracing.trace import Trace, builder
from . import numeric as nm
from ._elementwise import fail
from ._core import FlyValue

__all__ = ["printf"]


def _mlir_string(text: str) -> str:
    """`text` as an MLIR string literal's contents."""
    out = []
    for byte in text.encode():
        ch = chr(byte)
        out.append(ch if 32 <= byte < 127 and ch not in '"\\' else f"\\{byte:02X}")
    return "".join(out)


def _operand(a):
    if isinstance(a, FlyValue):
        return a
    if isinstance(a, bool):
        return nm.constant(a, nm.Boolean)
    if isinstance(a, int):
        return nm.constant(a, nm.Int32 if -2**31 <= a < 2**31 else nm.Int64)
    if isinstance(a, float):
        return nm.constant(a, nm.Float64)
    return a


def _conversion(a) -> str:
    """The C conversion of a dynamic printf argument."""
    if isinstance(a, FlyValue):
        return "%s"
    if isinstance(a, nm.Numeric):
        if a.is_float:
            return "%f"
        bits = getattr(type(a), "bits", 32)
        return ("%lld" if a.signed else "%llu") if bits == 64 else ("%d" if a.signed or bits == 1 else "%u")
    return "%s"


def _braces_to_c(fmt: str, args):
    """A `{}` format and its arguments as a C format and the dynamic ones."""
    out, dynamic, parts = [], [], fmt.replace("%", "%%").split("{}")
    if len(parts) - 1 != len(args):
        fail(f"fx.printf: the format has {len(parts) - 1} '{{}}' for {len(args)} arguments")
    for i, part in enumerate(parts):
        out.append(part)
        if i < len(args):
            a = args[i]
            if isinstance(a, type):
                out.append(a.__name__.replace("%", "%%"))
            elif isinstance(a, (bool, int, float, str)):
                out.append(str(a).replace("%", "%%"))
            else:
                out.append(_conversion(a))
                dynamic.append(a)
    return "".join(out), dynamic


def printf(*args, format_str: str = "") -> None:
    """Prints from every work-item that runs it (on the emulator)."""
    if args and isinstance(args[0], str):
        fmt, args = args[0], args[1:]
    else:
        fmt = format_str
    if not isinstance(fmt, str):
        fail(f"fx.printf: the format must be a Python str, not {type(fmt).__name__}")
    if "{}" in fmt or (args and "%" not in fmt):
        fmt, args = _braces_to_c(fmt, args)
    else:
        # A static integer leaf (fx.size(layout)) prints as the integer it is.
        args = tuple(a.ir.type.value if isinstance(a, FlyValue) and a.ir.type.kind == "int_tuple"
                     and isinstance(a.ir.type.value, int) else a for a in args)
    for a in args:
        if isinstance(a, FlyValue):
            if not a.ir.type.is_static:
                fail(f"fx.printf: {a.ir.type} is dynamic: print its leaves (scalars) instead")
            continue
        if isinstance(a, nm.Vector) or not isinstance(a, (nm.Numeric, bool, int, float)):
            fail(f"fx.printf: cannot print a {type(a).__name__} (scalar numerics, Python "
                 "numbers and static fly values only)")
    if not Trace.current().emulator:
        fail("fx.printf is not available for a GPU: gpu.printf lowers to the HIP hostcall "
             "printf (__ockl_printf_begin/__ockl_printf_append_args) of the ROCm device "
             "library, which FlyDSL does not link (code objects are linked in process "
             "without the ROCm device libraries). It works on the CPU emulator "
             "(FLYDSL_RUNTIME_KIND=emu); on a GPU, write values to an output tensor")
    operands = [_operand(a) for a in args]
    builder().op("fly.print", [o.ir for o in operands], [], f'format = "{_mlir_string(fmt)}"')
