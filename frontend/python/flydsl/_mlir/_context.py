"""Contexts, locations and errors of flydsl._mlir.

MLIR's Python API has contexts, a location stack and MLIRError; here the
context is a trace of the tracing core (Trace) whose Builder names the
values and writes the text, the locations are `loc(...)` text, and the
errors are TraceErrors located at the user's line, made from the C++
compiler's diagnostics.
"""

from __future__ import annotations

import re
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import _fly
from ..tracing.errors import TraceError
from ..tracing.ir import Builder, location_text, string_literal, user_location
from ..tracing.trace import Trace


class ClassProperty:
    """A read-only property of a class (`Context.current`)."""

    def __init__(self, fget):
        self.fget = fget

    def __get__(self, obj, cls):
        return self.fget(cls)


# -- errors ---------------------------------------------------------------------

@dataclass
class Diagnostic:
    """One diagnostic of the compiler: `severity`, `message`, where
    (`filename`, `line`, `column`) and the notes attached to it."""

    severity: str
    message: str
    filename: str = ""
    line: int = 0
    column: int = 0
    notes: list = field(default_factory=list)

    def __str__(self) -> str:
        where = f"{self.filename}:{self.line}:{self.column}: " if self.filename else ""
        return f"{where}{self.severity}: {self.message}"


class MLIRError(TraceError):
    """IR that MLIR rejects (a type or attribute that does not parse, an
    operation or module that does not verify, a failed pass pipeline): the
    first error, located at its user's source line; every diagnostic in
    `error_diagnostics`."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 diagnostics=()):
        super().__init__(message, filename, lineno)
        self.error_diagnostics = list(diagnostics)


_DIAGNOSTIC = re.compile(r"^(.+?):(\d+):(\d+): (error|warning|note|remark): (.*)$")
# Locations of text the builders made themselves (the op or module written
# for the compiler), not of the user's code.
_OWN_SOURCES = ("<unknown>", "<flydsl module>", "<flydsl op>")


def parse_diagnostics(text: str) -> list[Diagnostic]:
    """The diagnostics of a compiler error's text (`file:line:col: error:
    message` lines, notes after their diagnostic)."""
    diagnostics: list[Diagnostic] = []
    for line in text.splitlines():
        found = _DIAGNOSTIC.match(line)
        if found is None:
            if diagnostics:
                diagnostics[-1].message += "\n" + line
            continue
        filename, row, column, severity, message = found.groups()
        diagnostic = Diagnostic(severity, message, filename, int(row), int(column))
        if severity == "note" and diagnostics:
            diagnostics[-1].notes.append(diagnostic)
        else:
            diagnostics.append(diagnostic)
    return diagnostics


def compiler_error(err: Exception, what: str = "", located: bool = True) -> MLIRError:
    """The MLIRError of a compiler error: its first error's message, prefixed
    by `what`, located where that error is when it is the user's code (an
    op's location; `located`: the diagnostics are about IR with the user's
    locations, not about a text parsed on its own) and at the user's current
    line otherwise."""
    diagnostics = parse_diagnostics(str(err))
    first = next((d for d in diagnostics if d.severity == "error"), None)
    message = first.message if first is not None else str(err)
    if located and first is not None and first.filename not in _OWN_SOURCES:
        filename, line = first.filename, first.line
    else:
        filename, line = user_location()[:2]
    return MLIRError(f"{what}: {message}" if what else message, filename, line, diagnostics)


def fail(message: str) -> MLIRError:
    """An MLIRError at the user's current line (raise it)."""
    return MLIRError(message, *user_location()[:2])


def describe(x) -> str:
    """A Python object as an error message shows it: its type and repr."""
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the error
        text = "<...>"
    return f"{type(x).__name__} {text}"[:120]


def as_list(items, what: str) -> list:
    """`items` given as a list (a list, a tuple, any iterable but a string
    or a dict) as a list, or an MLIRError at the user's line."""
    if isinstance(items, (str, bytes, dict)):
        raise fail(f"{what} must be a list, not {describe(items)}")
    try:
        return list(items)
    except TypeError:
        raise fail(f"{what} must be a list, not {describe(items)}") from None


# -- locations ------------------------------------------------------------------

class Location:
    """An op location, as MLIR writes it (`loc("f.py":3:1)`). Ops get the
    location passed as `loc=`, else an entered one that is not unknown,
    else the user's source line, so that every error points there."""

    _stack: list["Location"] = []

    def __init__(self, text: str):
        self._text = text  # what goes between `loc(` and `)`

    @staticmethod
    def unknown(context=None) -> "Location":
        return Location("unknown")

    @staticmethod
    def file(filename: str, line: int, col: int, end_line=None, end_col=None,
             context=None) -> "Location":
        text = f"{string_literal(filename)}:{line}:{col}"
        if end_line is not None:
            text += f" to {end_line}:{end_col}"
        return Location(text)

    @staticmethod
    def name(name: str, childLoc: "Location | None" = None, context=None) -> "Location":  # noqa: N803 - MLIR's name
        child = f"({childLoc._text})" if childLoc is not None else ""
        return Location(string_literal(name) + child)

    @staticmethod
    def callsite(callee: "Location", frames, context=None) -> "Location":
        text = callee._text
        for frame in frames:
            text = f"callsite({text} at {frame._text})"
        return Location(text)

    @staticmethod
    def fused(locations, metadata=None, context=None) -> "Location":
        meta = f"<{metadata}>" if metadata is not None else ""
        return Location(f"fused{meta}[" + ", ".join(loc._text for loc in locations) + "]")

    @property
    def is_unknown(self) -> bool:
        return self._text == "unknown"

    @property
    def context(self):
        return current_context()

    current = ClassProperty(lambda cls: _current_location())

    def __enter__(self) -> "Location":
        Location._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        Location._stack.pop()

    def __str__(self) -> str:
        return f"loc({self._text})"

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other) -> bool:
        return isinstance(other, Location) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)


def _current_location() -> Location:
    if not Location._stack:
        raise ValueError("No current Location")
    return Location._stack[-1]


def op_location_text(loc) -> str:
    """The `loc(...)` an op is written with (see Location)."""
    if loc is not None:
        if not isinstance(loc, Location):
            raise fail(f"loc= must be an ir.Location, not {type(loc).__name__}")
        return str(loc)
    if Location._stack and not Location._stack[-1].is_unknown:
        return str(Location._stack[-1])
    return location_text()


# -- contexts -------------------------------------------------------------------

# The Context of each trace by the trace's id: a standalone Context's own,
# or the one made for a traced kernel on first use. A Context holds its
# trace, so an entry goes when its Context does, before the id can be
# reused.
_CONTEXTS: "weakref.WeakValueDictionary[int, Context]" = weakref.WeakValueDictionary()


class Context:
    """Where IR is built. `with ir.Context():` starts standalone IR (modules
    of its own, `ir.Module.create()`): the Context has a trace of its own,
    made the active one while an insertion point into its blocks is
    entered, so that fx values made there write into its modules too (and
    outside of those, fx's Python numbers stay Python numbers, as they do
    off a trace). Inside a traced kernel the current Context is the
    kernel's trace: ops go into the kernel's current block."""

    _stack: list["Context"] = []

    def __init__(self, trace: Trace | None = None):
        self._trace = trace if trace is not None else Trace()
        self._entered_over: list = []  # the trace active when entered, per entry
        # Every dialect of the compiler is registered: nothing is ever
        # unregistered, whatever this says.
        self.allow_unregistered_dialects = False
        _CONTEXTS[id(self._trace)] = self

    @property
    def builder(self) -> Builder:
        return self._trace.builder

    current = ClassProperty(lambda cls: _current_context_or_fail())

    def __enter__(self) -> "Context":
        self._entered_over.append(Trace.current() if Trace.active() else None)
        Context._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        Context._stack.pop()
        self._entered_over.pop()

    @contextmanager
    def activated(self):
        """This Context's trace as the active one (for the fx layer's
        writes), unless it already is."""
        if Trace.active() and Trace.current() is self._trace:
            yield
        else:
            with self._trace.activate():
                yield

    # MLIR's members with nothing to do here: the compiler's context has
    # every dialect loaded on demand and runs as it runs.
    def load_all_available_dialects(self) -> None:
        pass

    def enable_multithreading(self, enable: bool) -> None:
        pass

    def append_dialect_registry(self, registry) -> None:
        pass

    def is_registered_operation(self, name: str) -> bool:
        return bool(_fly.op_info(name)["registered"])

    def attach_diagnostic_handler(self, callback):
        raise fail("Context.attach_diagnostic_handler: the compiler's diagnostics reach "
                   "Python as the MLIRError an operation, verify() or a pass pipeline "
                   "raises (its error_diagnostics); catch that instead")

    def __repr__(self) -> str:
        return "<flydsl._mlir Context>"


def current_context() -> Context | None:
    """The Context IR is built in: the one entered last, unless a trace
    became active after it was (a kernel traced inside it); else the active
    trace's (a traced kernel's); else None."""
    active = Trace.current() if Trace.active() else None
    if Context._stack:
        top = Context._stack[-1]
        if top._entered_over[-1] is active or active is top._trace:
            return top
    if active is None:
        return None
    context = _CONTEXTS.get(id(active))
    if context is None:
        context = Context(active)
    return context


def _current_context_or_fail() -> Context:
    context = current_context()
    if context is None:
        raise ValueError("No current Context: build IR inside `with ir.Context():` "
                         "or inside a traced @flyc.kernel / @flyc.jit function")
    return context


def require_context() -> Context:
    """The current Context, or an MLIRError at the user's line."""
    context = current_context()
    if context is None:
        raise fail("building MLIR needs a Context: use `with ir.Context():` (standalone "
                   "modules) or call the builder inside a traced @flyc.kernel / @flyc.jit "
                   "function")
    return context
