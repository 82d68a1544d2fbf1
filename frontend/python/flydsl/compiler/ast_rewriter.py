"""FlyDSL's `flydsl.compiler.ast_rewriter` names that kernels use directly.

`ASTRewriter.transform(fn)` is the rewritten copy of `fn` (the traced
control flow of flydsl.tracing.ast_rewriter; helpers called from a kernel
are rewritten without it, so this only makes it explicit).
`ReplaceIfWithDispatch.scf_if_dispatch(cond, then_fn, else_fn, ...)` is an
if on a condition as a call: with `state_names` / `state_values` (or
FlyDSL's `result_names` / `result_values`) the branches get the values and
return new ones (a dict by name, a tuple in order, or one value), and the
call returns the merged values (one value, a tuple, or None without state);
a branch that is None or returns None keeps the values. A dynamic condition
becomes one scf.if, a Python one runs its branch.
"""

from __future__ import annotations

import inspect

from ..expr import numeric as _nm
from ..tracing import control_flow as _cf
from ..tracing.ast_rewriter import rewrite
from ..tracing.errors import TraceError
from ..tracing.ir import Value, user_location

__all__ = ["ASTRewriter", "ReplaceIfWithDispatch"]


class ASTRewriter:
    """FlyDSL's rewriter entry point."""

    @staticmethod
    def transform(fn):
        """The rewritten copy of the function `fn`."""
        return rewrite(fn)


class ReplaceIfWithDispatch:
    """FlyDSL's if-as-a-call."""

    @staticmethod
    def scf_if_dispatch(cond, then_fn, else_fn=None, *, result_names=(), result_values=(),
                        state_names=(), state_values=(), auto_else=False):
        names = tuple(result_names or state_names)
        values = tuple(result_values or state_values)
        loc = user_location()
        if len(names) != len(values):
            raise TraceError(f"scf_if_dispatch: {len(names)} names for {len(values)} values",
                             *loc[:2])
        if isinstance(cond, Value) and not isinstance(cond, _nm.Numeric):
            cond = _nm.wrap(cond)  # a raw i1 (an ArithValue, an op's result)
        out = _cf.current().if_(cond, _branch(then_fn, names, loc), _branch(else_fn, names, loc),
                                names, values, loc=loc)
        if not names:
            return None
        return out[0] if len(names) == 1 else tuple(out)


def _branch(fn, names, loc):
    """The runtime's branch (values -> new values) for a branch function."""
    def run(*current):
        if fn is None:
            return tuple(current)
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        takes_names = any(p.kind == p.VAR_POSITIONAL for p in params) or \
            len(params) > len(current)
        result = fn(names, *current) if takes_names else fn(*current)
        return _new_values(result, names, current, loc)

    return run


def _new_values(result, names, current, loc):
    if not names or result is None:
        return tuple(current)
    if isinstance(result, dict):
        by_name = result
    elif len(names) == 1 and not isinstance(result, (list, tuple)):
        by_name = {names[0]: result}
    elif isinstance(result, (list, tuple)) and len(result) == len(names):
        by_name = dict(zip(names, result))
    else:
        raise TraceError(f"scf_if_dispatch: a branch returned {type(result).__name__}; return a "
                         f"dict by name, or a tuple of {len(names)} values", *loc[:2])
    unknown = set(by_name) - set(names)
    if unknown:
        raise TraceError(f"scf_if_dispatch: a branch returned values for {sorted(unknown)}, "
                         f"which are not among the state names {list(names)}", *loc[:2])
    return tuple(by_name.get(n, v) for n, v in zip(names, current))
