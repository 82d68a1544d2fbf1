"""FlyDSL's two native extensions, seen as one module.

``flydsl._fly_runtime`` runs compiled functions: the disk cache, host
entries, the argument packer and dispatcher, the HIP and emulator runtimes
and the chip table. It links LLVM only and is loaded with this module.

``flydsl._fly_compiler`` traces and compiles: type handles, type inference,
``compile``, ``disassemble``. It links MLIR, whose loading is most of what
importing the extensions costs, so it is loaded on the first use of one of
its names here. A process whose calls all come from the disk cache never
loads it.

Both raise ``Error``.
"""

import _thread
import importlib
import os
import sys

from ._fly_runtime import *  # noqa: F401,F403  (the runtime's names)
from ._fly_runtime import Error  # noqa: F401


_loading = _thread.allocate_lock()


def compiler():
    """The compiler extension, loaded (once) on the first call.

    It is loaded with lazy binding (Python asks for RTLD_NOW): libMLIR's
    calls into libLLVM, some 26,000 of them, are then bound on a first call
    rather than all at load, which halves the load's time. Every symbol is
    there (the extension was linked against these libraries), so nothing is
    left to fail later."""
    module = sys.modules.get("flydsl._fly_compiler")
    if module is None:
        # The flags are the interpreter's: two threads loading at once must
        # not restore each other's.
        with _loading:
            flags = sys.getdlopenflags()
            sys.setdlopenflags(flags & ~os.RTLD_NOW | os.RTLD_LAZY)
            try:
                module = importlib.import_module("flydsl._fly_compiler")
            finally:
                sys.setdlopenflags(flags)
    # Its names become plain attributes here: later uses cost a dict lookup.
    globals().update((name, value) for name, value in vars(module).items()
                     if not name.startswith("_"))
    return module


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return getattr(compiler(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
