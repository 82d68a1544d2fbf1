"""The exceptions of FlyDSL.

Every user error is a FlyDSLError whose message starts with the user's
source location (`file:line: `) when one is known. Errors found while
rewriting or tracing a kernel point at the kernel's source line; errors of
the C++ compiler carry the op and pass in their text and the location
mapped back from the IR.
"""

from __future__ import annotations

import os
import types

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class FlyDSLError(Exception):
    """Base class of every error FlyDSL raises for user input."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None):
        self.filename = filename
        self.lineno = lineno
        self.bare_message = message
        where = f"{filename}:{lineno}: " if filename and lineno else ""
        super().__init__(where + message)


class RewriteError(FlyDSLError):
    """Python source the AST rewriter cannot turn into traced control flow."""


class TraceError(FlyDSLError):
    """A kernel that cannot be traced: a wrong type, a layout mismatch, a
    dynamic value used where Python needs a concrete one."""


class ArgumentError(FlyDSLError, TypeError):
    """A call with arguments that do not fit: a wrong number of them, an
    unknown keyword, or (for a compiled function) a tensor or scalar that is
    not what the function was compiled for. It is a TypeError too, as
    Python's own errors for a wrong call are."""


class CompileError(FlyDSLError):
    """IR that the compiler rejects (a verifier or pass failure)."""


def user_traceback(tb):
    """The traceback `tb` without the frames of flydsl's own files, so that
    an error raised through the API ends in the user's code (the API's
    entry points re-raise with it unless FLYDSL_DEBUG_SHOW_STACKTRACE=1)."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            kept.append(tb)
        tb = tb.tb_next
    chain = None
    for entry in reversed(kept):
        chain = types.TracebackType(chain, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return chain
