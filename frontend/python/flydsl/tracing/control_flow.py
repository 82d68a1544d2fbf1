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
- `if_(cond, then_fn, else_fn, names, values, *, loc, mutated=())`: `names`
  are the variables assigned in the branches, `values` their values before
  the `if` (`UNDEF` for an unbound one); `then_fn(*values)` /
  `else_fn(*values)` return the tuple of new values (`else_fn` is None for
  an `if` without `else`: the values stay as they are). Returns the tuple
  of values after the `if`; `UNDEF` means "unbound afterwards". The
  rewritten code only calls it for a dynamic condition (static ones run
  the original Python `if`). `mutated` are the names among `names` that
  the branches only change in place (`x[i] = v`, `x.a = v`, `x.f(...)`):
  one whose value is a container (list, tuple, dict, SimpleNamespace) is a
  variable like the others (a tracer hands each branch a copy); any other
  object is left out of what `dynamic_if` receives and stays itself.
- `for_range(start, stop, step, body_fn, names, values, *, loc, options=None,
  mutated=(), iv=None)`: `body_fn(iv, *values)` returns the new values. A
  range loop is always a traced loop: the base class calls `dynamic_for`,
  which needs a tracer. `options` are the keyword arguments of an
  `fx.range(...)` call (passed to `dynamic_for` as `options=` only when
  there are some); `mutated` as for `if_`. `iv=(name, value)`: the loop
  variable and its value before the loop (`UNDEF` if unbound); `body_fn`
  then returns one value more, the loop variable's at the end of the body,
  and so does `for_range`: a loop variable bound before the loop is carried
  by it (`live_iv(name, value, loc)` gives the value carried in: a tracer
  checks that the loop counter can replace it), so after the loop it has
  its last value, or the value before the loop when the loop ran no
  iteration, as in Python; an unbound one stays unbound (`UNDEF`).
- `for_range_init(start, stop, step, init, body_fn, names, values, *, loc,
  yield_loc=None, state_arity=None, options=None)`: FlyDSL's loop with
  explicit carried state, `for iv, state in range(lo, hi, step,
  init=[...]): ...; results = yield [...]`. `init` is the list (or tuple)
  of carried values; `body_fn(iv, state, *values)` runs the body once (the
  loop counter, the list of carried values, then `values` of `names`: the
  variables the body assigns, its targets included) and returns `(yielded,
  *values)`: `yielded` is the value of the yield's expression (None for a
  bare `yield`, `UNDEF` when the body has none). `yield_loc` is where the
  yield is, `state_arity` the number of names the target unpacks the state
  into (None: one name). Returns the values of `names` after the loop, then
  the loop's results (the one value, or a list of them, or None for none)
  that the yield's targets receive. No variable is carried implicitly:
  after the loop a variable has its value at the end of the body (FlyDSL's
  semantics; a tracer replaces an SSA value of the body by a `LoopLocal`,
  which fails where it is used). Calls `dynamic_for_init`.
- `while_(cond_fn, body_fn, names, values, *, loc, mutated=())`:
  `cond_fn(*values)` is the condition, `body_fn(*values)` the new values.
  While the condition is a static true value, the body runs in Python; a
  static false value ends the loop. A dynamic first condition goes to
  `dynamic_while` (the condition was then evaluated once outside the loop;
  a tracer evaluates `cond_fn` again in the loop's "before" region: the
  first evaluation's ops are dead code). A condition that becomes dynamic
  after static iterations is a TraceError. `mutated` as for `if_`.
- `ifexp(c, a_thunk, b_thunk, *, loc)`, `and_(*thunks, loc)`,
  `or_(*thunks, loc)`, `not_(x, *, loc)`: Python's semantics on static
  operands (short-circuit, the operand values are returned). Once an
  operand of `and`/`or` is dynamic, every remaining thunk is evaluated (no
  short-circuit on a value only known at run time) and
  `dynamic_and(values, loc)` / `dynamic_or` receive the operand values from
  the first dynamic one on (the static operands before it were all truthy
  for `and`, all falsy for `or`, so they do not affect the result).
- `callee(fn, loc)`: the function to call instead of `fn` (the rewritten
  helper, see `ast_rewriter.resolve_callee`, which the rewriter installs
  with `set_callee_resolver`); the rewritten code then calls
  it with the original arguments.
- `is_dynamic(v)`: `v.__fly_dynamic__` is true (classes are never dynamic;
  the attribute may be a property, as on layouts whose type is static).

Dynamic methods a tracer implements
-----------------------------------
    dynamic_if(cond, then_fn, else_fn, names, values, loc) -> tuple
    dynamic_for(start, stop, step, body_fn, names, values, loc[, options=]) -> tuple
    dynamic_for_init(start, stop, step, init, body_fn, names, values, loc,
                     yield_loc[, options=]) -> (results, values)
    dynamic_while(cond_fn, body_fn, names, values, loc) -> tuple
    dynamic_select(cond, a_thunk, b_thunk, loc) -> value
    dynamic_and(values, loc) / dynamic_or(values, loc) -> value
    dynamic_not(value, loc) -> value

`check_carried(kind, names, before, after, loc)` is a helper for them: it
raises the TraceError "variable changes type across iterations".
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

from .containers import is_container
from .errors import RewriteError, TraceError

__all__ = [
    "UNDEF", "LoopLocal", "ControlFlowRuntime", "RUNTIME", "current", "use_runtime",
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


def _failing(self, *args, **kwargs):
    self.fail()


class LoopLocal:
    """What a variable holds after a `range(..., init=...)` loop when its
    value at the end of the body was made inside the body (an SSA value of
    the loop's region, which does not exist after the loop): any use of it
    is a TraceError naming the line of the use, the variable and the loop.
    Control flow that assigns the variable treats it as unbound."""

    __slots__ = ("variable", "loop")

    def __init__(self, variable: str, loop):
        self.variable = variable  # the name, with the path of a leaf of a container
        self.loop = loop  # (file, line, col) of the loop

    def fail(self):
        from .ir import user_location  # the frame walk of the tracing core

        raise TraceError(
            f"variable '{self.variable}' holds a value made inside the body of the "
            f"`for ... in range(..., init=...)` loop at {self.loop[0]}:{self.loop[1]}, which "
            "does not exist after the loop: carry it (add it to init=[...] and to the "
            "`yield`, and read it from the loop's results)", *user_location()[:2])

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # a protocol probe, not a use
        self.fail()

    def __repr__(self) -> str:
        return (f"<'{self.variable}' of the range(..., init=...) loop body at "
                f"{self.loop[0]}:{self.loop[1]}>")

    __hash__ = object.__hash__


# Every operator and conversion of a LoopLocal is a use.
for _op in ("bool", "iter", "len", "getitem", "setitem", "delitem", "call", "index", "int",
            "float", "neg", "pos", "abs", "invert", "lt", "le", "gt", "ge", "eq", "ne",
            "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
            "lshift", "rshift", "matmul", "radd", "rsub", "rmul", "rtruediv", "rfloordiv",
            "rmod", "rpow", "rand", "ror", "rxor", "rlshift", "rrshift", "rmatmul"):
    setattr(LoopLocal, f"__{_op}__", _failing)

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
    def if_(self, cond, then_fn, else_fn, names, values, *, loc=None, mutated=()):
        names, values = tuple(names), tuple(values)
        if self.is_dynamic(cond):
            keep, wrap = _in_place_only(names, values, mutated, 0)
            out = self.dynamic_if(cond, wrap(then_fn), wrap(else_fn), keep(names),
                                  keep(values), loc)
            out = _widen(values, out, keep)
        elif cond:
            out = then_fn(*values)
        elif else_fn is not None:
            out = else_fn(*values)
        else:
            out = values
        return self._results("if", names, out, loc)

    def for_range(self, start, stop, step, body_fn, names, values, *, loc=None,
                  options=None, mutated=(), iv=None):
        names, values = tuple(names), tuple(values)
        n = len(names)
        if iv is not None:
            # body_fn also returns the loop variable's value at the end of
            # the body: carried when the variable was bound before the loop
            # (its last value after it, as in Python), else dropped.
            iv_name, iv_value = iv
            inner = body_fn
            if iv_value is UNDEF or isinstance(iv_value, LoopLocal):
                def body_fn(i, *vs):
                    return tuple(inner(i, *vs))[:n]
            else:
                names += (iv_name,)
                values += (self.live_iv(iv_name, iv_value, loc),)

                def body_fn(i, *vs):
                    return tuple(inner(i, *vs[:n]))
        keep, wrap = _in_place_only(names, values, mutated, 1)
        kwargs = {"options": dict(options)} if options else {}
        out = self.dynamic_for(start, stop, step, wrap(body_fn), keep(names), keep(values), loc,
                               **kwargs)
        out = self._results("for ... in range(...) loop", names, _widen(values, out, keep), loc)
        if iv is not None and len(out) == n:
            out += (UNDEF,)
        return out

    def for_range_init(self, start, stop, step, init, body_fn, names, values, *, loc=None,
                       yield_loc=None, state_arity=None, options=None):
        names, values = tuple(names), tuple(values)
        if not isinstance(init, (list, tuple)):
            raise TraceError(f"init= of a range loop is the list of the values it carries, "
                             f"not {type(init).__name__}", *_where(loc))
        init = list(init)
        if state_arity is not None and state_arity != len(init):
            raise TraceError(f"the loop unpacks its carried state into {state_arity} names, "
                             f"but init= has {len(init)} values", *_where(loc))
        kwargs = {"options": dict(options)} if options else {}
        results, out = self.dynamic_for_init(start, stop, step, init, body_fn, names, values,
                                             loc, yield_loc, **kwargs)
        return self._results("for ... in range(..., init=...) loop", names, out, loc) + (results,)

    def while_(self, cond_fn, body_fn, names, values, *, loc=None, mutated=()):
        names, values = tuple(names), tuple(values)
        iterations = 0
        while True:
            c = cond_fn(*values)
            if self.is_dynamic(c):
                if iterations == 0:
                    keep, wrap = _in_place_only(names, values, mutated, 0)
                    out = self.dynamic_while(wrap(cond_fn, False), wrap(body_fn), keep(names),
                                             keep(values), loc)
                    return self._results("while loop", names, _widen(values, out, keep), loc)
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
        return _resolve_callee(fn)

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

    def live_iv(self, name, value, loc):
        """The value a range loop carries for its loop variable `name`,
        bound to `value` before the loop (a tracer checks that the loop
        counter can replace it)."""
        return value

    # -- what a tracer implements ---------------------------------------
    def _needs_tracer(self, what, loc):
        return TraceError(f"{what} needs a tracer (ControlFlowRuntime is only the "
                          "static half; run the function inside a trace)", *_where(loc))

    def dynamic_if(self, cond, then_fn, else_fn, names, values, loc):
        raise self._needs_tracer("an `if` on a dynamic condition (scf.if)", loc)

    def dynamic_for(self, start, stop, step, body_fn, names, values, loc, options=None):
        raise _range_needs_tracer(loc)

    def dynamic_for_init(self, start, stop, step, init, body_fn, names, values, loc, yield_loc,
                         options=None):
        raise _range_needs_tracer(loc)

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


def _range_needs_tracer(loc):
    return TraceError("a `for ... in range(...)` loop is always traced (scf.for) and needs a "
                      "tracer; use `range_constexpr(...)` for a loop Python unrolls",
                      *_where(loc))


def _in_place_only(names, values, mutated, prefix):
    """(keep, wrap) for the names a construct only changes in place
    (`mutated`: `x[i] = ...`, `x.a = ...`, `x.append(...)`, never `x =
    ...`): those whose value is not a container are no variables of the
    construct (the object itself is changed; a tensor stays the tensor).
    keep(seq) is the items of the other names; wrap(fn) the function of
    the construct taking (`prefix` leading arguments and) those names'
    values and returning theirs (a condition function, `results=False`,
    returns its own value)."""
    drop = [i for i, (n, v) in enumerate(zip(names, values))
            if n in mutated and not is_container(v)] if mutated else []
    if not drop:
        return (lambda seq: tuple(seq)), (lambda fn, results=True: fn)
    kept = [i for i in range(len(names)) if i not in drop]

    def keep(seq):
        seq = tuple(seq)
        return tuple(seq[i] for i in kept)

    def wrap(fn, results=True):
        if fn is None:
            return None

        def narrowed(*args):
            full = list(values)
            for i, v in zip(kept, args[prefix:]):
                full[i] = v
            out = fn(*args[:prefix], *full)
            return keep(out) if results else out
        return narrowed

    return keep, wrap


def _widen(values, out, keep):
    """The values of all names after a construct given those of the kept
    ones (`out`); the others are the objects they were."""
    out = tuple(out)
    kept = keep(range(len(values)))
    if len(kept) == len(values) or len(out) != len(kept):
        return out  # (a wrong count is reported by _results)
    full = list(values)
    for i, v in zip(kept, out):
        full[i] = v
    return tuple(full)


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


def _no_rewriter(fn):
    return fn


# The rewriter (ast_rewriter, which builds on this module) installs its
# callee policy here when it is imported; until then callees run as written.
_resolve_callee = _no_rewriter


def set_callee_resolver(resolve) -> None:
    """Install `resolve(fn) -> fn'`, what `callee` returns for `fn`."""
    global _resolve_callee
    _resolve_callee = resolve
