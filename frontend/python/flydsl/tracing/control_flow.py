"""The runtime of rewritten control flow, and its static (Python) half.

Functions rewritten by `flydsl.tracing.ast_rewriter` call the hooks of a
`ControlFlowRuntime` for every `if`, `for ... in range(...)`, `while`,
conditional expression, `and`/`or`/`not` and call of their body (SPEC §7.1).
This base class gives every hook Python's exact semantics when the values
involved are Python-static, and hands dynamic values (objects whose
`__fly_dynamic__` is true) to the `dynamic_*` methods, which raise
`TraceError` here: the tracer subclasses the runtime and implements them to
emit scf ops.

Finding the runtime
-------------------
Rewritten code reads the global name `__fly_rt__`; `rewrite()` binds it, in
the user module's globals (the function keeps its own globals dict, so
`global` statements and late-bound helpers behave as before), to `RUNTIME`:
a stateless proxy whose attributes are those of `current()`. `current()` is
the runtime installed by `use_runtime(rt)` / `rt.activate()` in the running
context (a `contextvars.ContextVar`, so threads and asyncio tasks do not see
each other's runtime), else a default `ControlFlowRuntime()`: a rewritten
function called outside any trace runs with plain Python semantics (and
fails with a clear error on a range loop or a dynamic value).

Hooks (`loc` is always `(filename, lineno, col)` of the user's construct)
-------------------------------------------------------------------------
- `if_(cond, then_fn, else_fn, names, values, *, loc)`: `names` are the
  variables assigned in the branches, `values` their values before the `if`
  (`UNDEF` for an unbound one); `then_fn(*values)` / `else_fn(*values)`
  return the tuple of new values (`else_fn` is None for an `if` without
  `else`: the values stay as they are). Returns the tuple of values after
  the `if`; `UNDEF` means "unbound afterwards". The rewritten code only calls
  it for a dynamic condition (static ones run the original Python `if`).
- `for_range(start, stop, step, body_fn, names, values, *, loc, options=None)`:
  `body_fn(iv, *values)` returns the new values. A range loop is always a
  traced loop: the base class calls `dynamic_for`, which needs a tracer.
  `options` are the keyword arguments of an `fx.range(...)` call (passed to
  `dynamic_for` as `options=` only when there are some).
- `while_(cond_fn, body_fn, names, values, *, loc)`: `cond_fn(*values)` is
  the condition, `body_fn(*values)` the new values. While the condition is
  a static true value, the body runs in Python; a static false value ends
  the loop. A dynamic first condition goes to `dynamic_while` (the
  condition was then evaluated once outside the loop; a tracer evaluates
  `cond_fn` again in the loop's "before" region: the first evaluation's ops
  are dead code). A condition that becomes dynamic after static iterations
  is a TraceError.
- `ifexp(c, a_thunk, b_thunk, *, loc)`, `and_(*thunks, loc)`,
  `or_(*thunks, loc)`, `not_(x, *, loc)`: Python's semantics on static
  operands (short-circuit, the operand values are returned). Once an
  operand of `and`/`or` is dynamic, every remaining thunk is evaluated (no
  short-circuit on a value only known at run time) and
  `dynamic_and(values, loc)` / `dynamic_or` receive the operand values from
  the first dynamic one on (the static operands before it were all truthy
  for `and`, all falsy for `or`, so they do not affect the result).
- `callee(fn, loc)`: the function to call instead of `fn` (the rewritten
  helper, see `ast_rewriter.resolve_callee`); the rewritten code then calls
  it with the original arguments.
- `is_dynamic(v)`: `v.__fly_dynamic__` is true (classes are never dynamic;
  the attribute may be a property, as on layouts whose type is static).

Dynamic methods a tracer implements
-----------------------------------
    dynamic_if(cond, then_fn, else_fn, names, values, loc) -> tuple
    dynamic_for(start, stop, step, body_fn, names, values, loc[, options=]) -> tuple
    dynamic_while(cond_fn, body_fn, names, values, loc) -> tuple
    dynamic_select(cond, a_thunk, b_thunk, loc) -> value
    dynamic_and(values, loc) / dynamic_or(values, loc) -> value
    dynamic_not(value, loc) -> value

`check_carried(kind, names, before, after, loc)` is a helper for them: it
raises the TraceError "variable changes type across iterations".
"""

from __future__ import annotations

import contextvars
import sys
from contextlib import contextmanager

from .errors import RewriteError, TraceError

__all__ = [
    "UNDEF", "ControlFlowRuntime", "RUNTIME", "current", "use_runtime",
    "traced_location",
]


class _Undef:
    """The value of a variable that is not bound."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEF"

    def __reduce__(self):
        return (_Undef, ())


UNDEF = _Undef()

_NUMBERS = (bool, int, float)


def _where(loc):
    if loc:
        return loc[0], loc[1]
    return None, None


class ControlFlowRuntime:
    """The hooks of rewritten control flow; see the module docstring."""

    UNDEF = UNDEF

    # -- classification -------------------------------------------------
    def is_dynamic(self, v) -> bool:
        if isinstance(v, type):
            return False
        return bool(getattr(v, "__fly_dynamic__", False))

    # -- statements -----------------------------------------------------
    def if_(self, cond, then_fn, else_fn, names, values, *, loc=None):
        names, values = tuple(names), tuple(values)
        if self.is_dynamic(cond):
            out = self.dynamic_if(cond, then_fn, else_fn, names, values, loc)
        elif cond:
            out = then_fn(*values)
        elif else_fn is not None:
            out = else_fn(*values)
        else:
            out = values
        return self._results("if", names, out, loc)

    def for_range(self, start, stop, step, body_fn, names, values, *, loc=None,
                  options=None):
        names, values = tuple(names), tuple(values)
        if options:
            out = self.dynamic_for(start, stop, step, body_fn, names, values, loc,
                                   options=dict(options))
        else:
            out = self.dynamic_for(start, stop, step, body_fn, names, values, loc)
        return self._results("for ... in range(...) loop", names, out, loc)

    def while_(self, cond_fn, body_fn, names, values, *, loc=None):
        names, values = tuple(names), tuple(values)
        iterations = 0
        while True:
            c = cond_fn(*values)
            if self.is_dynamic(c):
                if iterations == 0:
                    out = self.dynamic_while(cond_fn, body_fn, names, values, loc)
                    return self._results("while loop", names, out, loc)
                raise TraceError(
                    f"the condition of this `while` loop became a dynamic value after "
                    f"{iterations} iteration(s) run in Python: a loop is either a Python "
                    "loop (static condition) or a traced scf.while (dynamic from the start)",
                    *_where(loc))
            if not c:
                return values
            values = self._results("while loop", names, body_fn(*values), loc)
            iterations += 1

    # -- expressions ----------------------------------------------------
    def ifexp(self, cond, a_thunk, b_thunk, *, loc=None):
        if self.is_dynamic(cond):
            return self.dynamic_select(cond, a_thunk, b_thunk, loc)
        return a_thunk() if cond else b_thunk()

    def and_(self, *thunks, loc=None):
        v = None
        for i, t in enumerate(thunks):
            v = t()
            if self.is_dynamic(v):
                return self.dynamic_and([v] + [u() for u in thunks[i + 1:]], loc)
            if not v:
                return v
        return v

    def or_(self, *thunks, loc=None):
        v = None
        for i, t in enumerate(thunks):
            v = t()
            if self.is_dynamic(v):
                return self.dynamic_or([v] + [u() for u in thunks[i + 1:]], loc)
            if v:
                return v
        return v

    def not_(self, x, *, loc=None):
        if self.is_dynamic(x):
            return self.dynamic_not(x, loc)
        return not x

    def callee(self, fn, loc=None):
        from .ast_rewriter import resolve_callee
        return resolve_callee(fn)

    # -- errors the rewritten code raises -------------------------------
    def unsupported(self, message, loc=None) -> RewriteError:
        """The error for a construct that cannot be traced (raised by the
        rewritten code when the dynamic path reaches it)."""
        return RewriteError(message, *_where(loc))

    def raise_unsupported(self, message, loc=None):
        raise self.unsupported(message, loc)

    def static_cond(self, value, message, loc=None):
        """The condition of a loop that must stay a Python loop."""
        if self.is_dynamic(value):
            raise self.unsupported(message, loc)
        return value

    # -- what a tracer implements ---------------------------------------
    def _needs_tracer(self, what, loc):
        return TraceError(f"{what} needs a tracer (ControlFlowRuntime is only the "
                          "static half; run the function inside a trace)", *_where(loc))

    def dynamic_if(self, cond, then_fn, else_fn, names, values, loc):
        raise self._needs_tracer("an `if` on a dynamic condition (scf.if)", loc)

    def dynamic_for(self, start, stop, step, body_fn, names, values, loc, options=None):
        raise TraceError(
            "a `for ... in range(...)` loop is always traced (scf.for) and needs a "
            "tracer; use `range_constexpr(...)` for a loop Python unrolls", *_where(loc))

    def dynamic_while(self, cond_fn, body_fn, names, values, loc):
        raise self._needs_tracer("a `while` loop on a dynamic condition (scf.while)", loc)

    def dynamic_select(self, cond, a_thunk, b_thunk, loc):
        raise self._needs_tracer("`a if c else b` on a dynamic condition", loc)

    def dynamic_and(self, values, loc):
        raise self._needs_tracer("`and` on a dynamic value", loc)

    def dynamic_or(self, values, loc):
        raise self._needs_tracer("`or` on a dynamic value", loc)

    def dynamic_not(self, value, loc):
        raise self._needs_tracer("`not` on a dynamic value", loc)

    # -- helpers for tracers --------------------------------------------
    def check_carried(self, kind, names, before, after, loc):
        """Raise a TraceError for a loop-carried variable whose type changes
        across an iteration (`before`/`after`: the values entering and
        leaving the body). The default rule: same Python type, except that
        a Python number may stand for a dynamic value (it becomes a
        constant); a tracer may compare IR types instead."""
        for name, b, a in zip(names, before, after):
            if b is UNDEF or a is UNDEF or type(a) is type(b):
                continue
            if (isinstance(b, _NUMBERS) and self.is_dynamic(a)) or \
                    (isinstance(a, _NUMBERS) and self.is_dynamic(b)):
                continue  # a Python number is the constant of the carried value
            raise TraceError(
                f"variable {name!r} changes type across iterations of the {kind} "
                f"({type(b).__name__} before, {type(a).__name__} after the body): "
                "a loop-carried value keeps one type", *_where(loc))

    def _results(self, kind, names, out, loc):
        out = tuple(out)
        if len(out) != len(names):
            raise TraceError(f"the {kind} produced {len(out)} values for the "
                             f"{len(names)} variables {list(names)}", *_where(loc))
        return out

    def activate(self):
        """A context manager installing this runtime as `current()`."""
        return use_runtime(self)


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("flydsl_control_flow_runtime",
                                                          default=None)
_DEFAULT = ControlFlowRuntime()


def current() -> ControlFlowRuntime:
    """The runtime of rewritten code running now."""
    rt = _CURRENT.get()
    return _DEFAULT if rt is None else rt


@contextmanager
def use_runtime(rt: ControlFlowRuntime):
    """Install `rt` as the current runtime for the `with` block."""
    if not isinstance(rt, ControlFlowRuntime):
        raise TypeError(f"use_runtime() needs a ControlFlowRuntime, not {rt!r}")
    token = _CURRENT.set(rt)
    try:
        yield rt
    finally:
        _CURRENT.reset(token)


class _RuntimeProxy:
    """`__fly_rt__` of rewritten code: the attributes of `current()`."""

    __slots__ = ()

    def __getattr__(self, name):
        return getattr(current(), name)

    def __repr__(self) -> str:
        return "<flydsl current control-flow runtime>"


RUNTIME = _RuntimeProxy()


def traced_location(depth: int = 1):
    """`(filename, lineno)` of the innermost frame (from the caller of the
    caller, `depth` frames up) that runs rewritten user code, else of the
    innermost frame outside the flydsl package; `(None, None)` if none."""
    from .ast_rewriter import FLYDSL_DIR, is_rewritten_code
    frame = sys._getframe(depth + 1)
    fallback = None
    while frame is not None:
        code = frame.f_code
        if is_rewritten_code(code):
            return code.co_filename, frame.f_lineno
        if fallback is None and not _in_dir(code.co_filename, FLYDSL_DIR):
            fallback = (code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return fallback if fallback is not None else (None, None)


def _in_dir(filename, directory) -> bool:
    import os
    try:
        path = os.path.normcase(os.path.abspath(filename))
    except (TypeError, ValueError):
        return False
    return path == directory or path.startswith(directory + os.sep)
