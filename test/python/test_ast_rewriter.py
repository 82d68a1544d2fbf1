"""The AST rewriter and the static half of the control-flow runtime (SPEC §7.1).

Static code must behave exactly as before the rewrite; a recording runtime
with a fake dynamic value checks what the tracer will be handed (carried
names, values, UNDEF, source locations); errors name the construct and the
user's line. Lines of this file are found by their `# L:<name>` markers.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import textwrap
import traceback
import types
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FRONTEND = HERE.parents[1] / "frontend" / "python"
for _p in (str(FRONTEND), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def _import_compiler_modules():
    """ast_rewriter/control_flow/errors. The package __init__ of
    flydsl.compiler imports the native extension; when that is not built,
    the three pure-Python modules are loaded without it."""
    try:
        import flydsl.compiler  # noqa: F401
    except ImportError:
        import flydsl
        stub = types.ModuleType("flydsl.compiler")
        stub.__path__ = [str(FRONTEND / "flydsl" / "compiler")]
        stub.__package__ = "flydsl.compiler"
        sys.modules["flydsl.compiler"] = stub
        flydsl.compiler = stub
    return (importlib.import_module("flydsl.tracing.ast_rewriter"),
            importlib.import_module("flydsl.tracing.control_flow"),
            importlib.import_module("flydsl.tracing.errors"))


ar, cf, errors = _import_compiler_modules()
RewriteError, TraceError = errors.RewriteError, errors.TraceError
UNDEF = cf.UNDEF
rewrite = ar.rewrite

from rewriter_cases import helpers  # noqa: E402

THIS_FILE = __file__
HELPERS_FILE = helpers.__file__


def _marker_lines(path):
    out = {}
    for i, text in enumerate(Path(path).read_text().splitlines(), 1):
        if "# L:" in text:
            out[text.split("# L:")[1].split()[0]] = i
    return out


_LINES = _marker_lines(THIS_FILE)
_HELPER_LINES = _marker_lines(HELPERS_FILE)


def line(name):
    return _LINES[name]


def range_constexpr(*args):
    return range(*args)


def const_expr(x):
    return x


# ---------------------------------------------------------------------------
# A fake dynamic value and a recording runtime
# ---------------------------------------------------------------------------

def _rewritten_caller():
    """(file, line) of the innermost frame running rewritten code."""
    frame = sys._getframe(1)
    while frame is not None and not ar.is_rewritten_code(frame.f_code):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else (None, None)


class Dyn:
    """A symbolic dynamic value: operations build expression tuples."""

    __fly_dynamic__ = True

    def __init__(self, expr):
        self.expr = expr

    def __repr__(self):
        return f"Dyn({self.expr!r})"

    def __bool__(self):
        raise TraceError("a dynamic value used as a Python bool", *_rewritten_caller())

    def _op(name):
        def f(self, other):
            return Dyn((name, self.expr, other.expr if isinstance(other, Dyn) else other))
        return f

    def _rop(name):
        def f(self, other):
            return Dyn((name, other, self.expr))
        return f

    __add__, __sub__, __mul__ = _op("+"), _op("-"), _op("*")
    __radd__, __rmul__ = _rop("+"), _rop("*")
    __lt__, __gt__, __le__, __ge__ = _op("<"), _op(">"), _op("<="), _op(">=")
    __eq__ = _op("==")
    __hash__ = object.__hash__


def E(v):
    return v.expr if isinstance(v, Dyn) else v


class Recorder(cf.ControlFlowRuntime):
    """Implements the dynamic hooks symbolically and records every call."""

    def __init__(self):
        self.events = []
        self.callees = []

    def callee(self, fn, loc=None):
        out = super().callee(fn, loc)
        self.callees.append((fn, out))
        return out

    def dynamic_if(self, cond, then_fn, else_fn, names, values, loc):
        self.events.append(("if", names, values, loc))
        a = then_fn(*values)
        b = else_fn(*values) if else_fn is not None else values
        out = []
        for x, y in zip(a, b):
            if x is y:
                out.append(x)
            elif x is UNDEF or y is UNDEF:
                out.append(UNDEF)
            else:
                out.append(Dyn(("select", E(cond), E(x), E(y))))
        return tuple(out)

    def dynamic_for(self, start, stop, step, body_fn, names, values, loc, options=None):
        self.events.append(("for", names, values, loc, (start, stop, step), options))
        out = tuple(body_fn(Dyn("iv"), *values))
        self.check_carried("for loop", names, values, out, loc)
        return out

    def dynamic_while(self, cond_fn, body_fn, names, values, loc):
        self.events.append(("while", names, values, loc))
        self.events.append(("while-cond", E(cond_fn(*values))))
        out = tuple(body_fn(*values))
        self.check_carried("while loop", names, values, out, loc)
        return out

    def dynamic_select(self, cond, a_thunk, b_thunk, loc):
        self.events.append(("select", loc))
        return Dyn(("select", E(cond), E(a_thunk()), E(b_thunk())))

    def dynamic_and(self, values, loc):
        self.events.append(("and", loc))
        return Dyn(("and",) + tuple(E(v) for v in values))

    def dynamic_or(self, values, loc):
        self.events.append(("or", loc))
        return Dyn(("or",) + tuple(E(v) for v in values))

    def dynamic_not(self, value, loc):
        self.events.append(("not", loc))
        return Dyn(("not", E(value)))

    def kinds(self):
        return [e[0] for e in self.events]


def run(fn, *args, rt=None, **kwargs):
    rt = rt if rt is not None else Recorder()
    with rt.activate():
        return rewrite(fn)(*args, **kwargs), rt


# ---------------------------------------------------------------------------
# 1. Static equivalence
# ---------------------------------------------------------------------------

def s_if_chain(a, b=2, *, c=3):
    if a > 10:
        r = "big"
    elif a > 5 and b:
        r = "mid"
    elif not a:
        r = "zero"
    else:
        r = a * b + c
    return r


def s_loops(n):
    acc = []
    for i in range_constexpr(4):
        for j in range_constexpr(i, 4):
            if j == n:
                continue
            if i + j > 5:
                break
            acc.append((i, j))
    else:
        acc.append("for-else")
    k = 0
    while k < n:
        k += 2
    m = 0
    while True:
        m += 1
        if m >= 3:
            break
    w = 10
    while w > n:
        w -= 3
    else:
        w = -w
    return acc, k, m, w


def s_bool_ops(a, b, c):
    return (a and b, a or b, a and b and c, a or b or c, not a, not (a or c),
            (a and b) or c, b if a else c, a if not b else (c or a))


def s_early_returns(x):
    if x is None:
        return "none"
    for v in x:
        if v < 0:
            return "neg", v
        elif v == 0:
            break
    else:
        return "no-zero"
    return "zero"


def s_try_with_match(x):
    import contextlib
    log = []
    try:
        with contextlib.suppress(KeyError) as sup:
            log.append(sup is None)
            if x == 1:
                raise KeyError(x)
            if x == 2:
                raise ValueError(x)
            log.append("after")
    except ValueError as e:
        log.append(("value", e.args))
    finally:
        log.append("finally")
    match x:
        case 0 | 1:
            log.append("small")
        case int(n) if n > 5 and n % 2:
            log.append(("odd", n))
        case _:
            log.append("other")
    return log


def s_comprehensions(xs):
    ys = [x * 2 for x in xs if x and x % 3]
    total = sum(y for y in ys if not y > 10)
    zs = {x: (x if x > 1 else -x) for x in xs}
    if any((last := x) > 4 for x in xs):
        flag = last
    else:
        flag = None
    return ys, total, zs, flag, (lambda q: q or "empty")(xs)


def s_del_and_unbound(flag):
    t = 1
    if flag:
        del t
    try:
        return t
    except NameError:
        return "unbound"


_GLOBAL_COUNTER = 0


def s_globals(n):
    global _GLOBAL_COUNTER
    if n:
        _GLOBAL_COUNTER += n
    return _GLOBAL_COUNTER


def s_varargs(*args, sep="-", **kw):
    parts = [str(a) for a in args if a]
    if kw:
        parts += [f"{k}={kw[k]}" for k in sorted(kw)]
    return sep.join(parts)


def s_nested_defs(n):
    def inner(k):
        if k > 1:
            return inner(k - 1) * k
        return 1

    class Local:
        def __init__(self, v):
            self.v = v if v else 0

        def get(self):
            return self.v and self.v + 1

    return inner(n), Local(n).get(), Local(0).get()


def s_generator(n):
    for i in range_constexpr(n):
        if i % 2:
            yield i
        elif i > 3:
            return
    yield "end"


def s_const_expr(n):
    if const_expr(n > 2):
        r = "gt"
    else:
        r = "le"
    return r if const_expr(n) else "zero"


def s_while_static_hook(n):
    a, b = 0, 1
    seen = []
    while b < n:
        a, b = b, a + b
        seen.append(a)
    return seen


class Base:
    def describe(self, x):
        return f"base:{x}"


class Derived(Base):
    def __init__(self):
        self.__secret = 7

    def describe(self, x):
        if x:
            return "derived+" + super().describe(x) + str(self.__secret)
        return super(Derived, self).describe(x)


STATIC_CASES = [
    (s_if_chain, [(11,), (6,), (6, 0), (0,), (-2,), (3, 4), (3,), (1,), (3, 4), ]),
    (s_loops, [(0,), (2,), (3,), (7,)]),
    (s_bool_ops, [(0, 1, 2), (1, 0, 2), (None, [], 3), ([1], [2], None), ("", None, []),
                  (5, 6, 7), (0, 0, 0)]),
    (s_early_returns, [(None,), ([1, -2],), ([1, 0, -1],), ([3, 4],)]),
    (s_try_with_match, [(0,), (1,), (2,), (7,), (8,)]),
    (s_comprehensions, [([],), ([1, 2, 3, 5, 9],), ([0, 4, 6],)]),
    (s_del_and_unbound, [(0,), (1,)]),
    (s_varargs, [(), (1, 0, 2), (1, 2)]),
    (s_nested_defs, [(1,), (5,)]),
    (s_const_expr, [(0,), (2,), (3,)]),
    (s_while_static_hook, [(1,), (2,), (50,)]),
]


@pytest.mark.parametrize("fn,argsets", STATIC_CASES, ids=[f.__name__ for f, _ in STATIC_CASES])
@pytest.mark.parametrize("runtime", ["default", "base", "recorder"])
def test_static_equivalence(fn, argsets, runtime):
    g = rewrite(fn)
    assert g is not fn and g.__code__ is not fn.__code__
    assert ar.is_rewritten(g) and not ar.is_rewritten(fn)
    rt = {"default": None, "base": cf.ControlFlowRuntime(), "recorder": Recorder()}[runtime]
    for args in argsets:
        want = fn(*args)
        if rt is None:
            got = g(*args)
        else:
            with rt.activate():
                got = g(*args)
        assert got == want, (fn.__name__, args)
    if isinstance(rt, Recorder):
        assert rt.events == []  # nothing dynamic happened


def test_static_keyword_args_and_defaults():
    g = rewrite(s_if_chain)
    assert g.__defaults__ == (2,) and g.__kwdefaults__ == {"c": 3}
    assert g(0, c=9) == "zero" and g(4, 1, c=5) == 9 == s_if_chain(4, 1, c=5)
    assert g.__name__ == "s_if_chain" and g.__qualname__ == s_if_chain.__qualname__
    assert g.__module__ == __name__ and g.__annotations__ == s_if_chain.__annotations__
    g2 = rewrite(s_varargs)
    assert g2(1, 2, sep="+", z=3, a=1) == s_varargs(1, 2, sep="+", z=3, a=1) == "1+2+a=1+z=3"


def test_and_or_return_operand_objects_and_short_circuit():
    calls = []

    def f(a, b):
        return a and (calls.append("b") or b), a or (calls.append("b2") or b)

    lst_a, lst_b = [1], [2]
    got = rewrite(f)(lst_a, lst_b)
    assert got[0] is lst_b and got[1] is lst_a and calls == ["b"]
    calls.clear()
    empty = []
    got = rewrite(f)(empty, lst_b)
    assert got[0] is empty and got[1] is lst_b and calls == ["b2"]


def test_globals_write_through():
    global _GLOBAL_COUNTER
    _GLOBAL_COUNTER = 0
    g = rewrite(s_globals)
    assert g(3) == 3 and g(0) == 3 and s_globals(2) == 5 and g(1) == 6
    assert _GLOBAL_COUNTER == 6


def make_counter(start):
    count = start

    def inc(step):
        nonlocal count
        if step > 0:
            count += step
        else:
            count = 0
        return count

    def peek():
        return count

    return inc, peek


def test_closures_keep_their_cells():
    inc, peek = make_counter(10)
    g = rewrite(inc)
    assert g.__closure__[0] is inc.__closure__[0]
    assert g(5) == 15 and peek() == 15 and inc(1) == 16 and g(0) == 0 and peek() == 0
    # another closure of the same code shares the rewritten code, not the cells
    inc2, peek2 = make_counter(100)
    g2 = rewrite(inc2)
    assert g2.__code__ is g.__code__ and g2(1) == 101 and peek() == 0 and peek2() == 101
    assert rewrite(inc) is g  # cached per function


def test_method_super_and_private_names():
    d = Derived()
    m = rewrite(d.describe)
    assert isinstance(m, types.MethodType) and m.__self__ is d
    assert m(1) == d.describe(1) == "derived+base:17"
    assert m(0) == d.describe(0) == "base:0"
    assert rewrite(Derived.describe)(d, 2) == "derived+base:27"


def test_generator_is_rewritten_and_equivalent():
    g = rewrite(s_generator)
    assert list(g(3)) == list(s_generator(3)) == [1, "end"]
    assert list(g(8)) == list(s_generator(8)) == [1, 3]


def test_nested_functions_are_rewritten_too():
    g = rewrite(s_nested_defs)
    assert g(4) == s_nested_defs(4) == (24, 5, 0)
    nested = [c for c in g.__code__.co_consts if isinstance(c, types.CodeType)]
    assert {c.co_name for c in nested} >= {"inner", "Local"}
    assert all(ar.is_rewritten_code(c) for c in nested)


def test_range_loop_needs_a_tracer_without_one():
    def f(n):
        s = 0
        for i in range(n):  # L:static_range
            s += i
        return s

    for rt in (None, cf.ControlFlowRuntime()):
        with pytest.raises(TraceError) as ei:
            if rt is None:
                rewrite(f)(4)
            else:
                with rt.activate():
                    rewrite(f)(4)
        assert "needs a tracer" in str(ei.value) and "range_constexpr" in str(ei.value)
        assert ei.value.lineno == line("static_range") and ei.value.filename == THIS_FILE


def test_base_runtime_dynamic_hooks_need_a_tracer():
    d = Dyn("d")

    def f(x):
        y = 0
        if x:  # L:base_dyn_if
            y = 1
        return y

    with pytest.raises(TraceError, match="needs a tracer") as ei:
        rewrite(f)(d)
    assert ei.value.lineno == line("base_dyn_if")
    rt = cf.ControlFlowRuntime()
    for call in (lambda: rt.ifexp(d, int, int), lambda: rt.and_(lambda: d),
                 lambda: rt.or_(lambda: 0, lambda: d), lambda: rt.not_(d),
                 lambda: rt.while_(lambda: d, lambda: (), (), ())):
        with pytest.raises(TraceError, match="needs a tracer"):
            call()


def test_runtime_static_semantics_directly():
    rt = cf.ControlFlowRuntime()
    assert rt.if_(1, lambda a: (a + 1,), None, ("a",), (1,)) == (2,)
    assert rt.if_(0, lambda a: (a + 1,), None, ("a",), (1,)) == (1,)
    assert rt.if_(0, lambda a: (a + 1,), lambda a: (a - 1,), ("a",), (1,)) == (0,)
    assert rt.while_(lambda a: a < 5, lambda a: (a + 2,), ("a",), (0,)) == (6,)
    assert rt.ifexp([], lambda: 1, lambda: 2) == 2
    assert rt.and_(lambda: 1, lambda: 0, lambda: 1 / 0) == 0
    assert rt.or_(lambda: 0, lambda: "", lambda: None) is None
    assert rt.not_([]) is True
    assert not rt.is_dynamic(Dyn) and rt.is_dynamic(Dyn(1)) and not rt.is_dynamic(3)
    with pytest.raises(TraceError, match="produced 2 values"):
        rt.if_(1, lambda a: (1, 2), None, ("a",), (1,))
    assert cf.current() is not rt
    with rt.activate():
        assert cf.current() is rt
        inner = cf.ControlFlowRuntime()
        with cf.use_runtime(inner):
            assert cf.current() is inner
        assert cf.current() is rt
    assert cf.current() is not rt
    assert repr(UNDEF) == "UNDEF"


# ---------------------------------------------------------------------------
# 2. The recording runtime: what the tracer is handed
# ---------------------------------------------------------------------------

def k_carried(d, n):
    a = 1
    b = c = 2
    lst = [0]
    if d > 0:  # L:carried_if
        a, (b, *rest) = n, (n, 5, 6)
        c += 1
        lst[0] = 9
        if n:
            fresh = 3
        for t in range_constexpr(2):
            c += t
        with open(os.devnull) as fh:
            pass
        import math as m2
        q = [(w := i) for i in range_constexpr(2)]

        def local_fn():
            inner_only = 1
            return inner_only
        del fh
    return a, b, c, lst, m2 if False else None


def test_carried_names_and_values():
    d = Dyn("d")
    (_, _, _, lst, _), rt = run(k_carried, d, 0)
    (ev,) = rt.events
    kind, names, values, loc = ev
    assert kind == "if"
    # Assigned names in source order, then `lst`, a list changed in place.
    assert names == ("a", "b", "rest", "c", "fresh", "t", "fh", "m2", "q", "w",
                     "local_fn", "lst")
    assert values[:4] == (1, 2, UNDEF, 2) and values[4:11] == (UNDEF,) * 7
    assert values[11] is lst
    assert loc == (THIS_FILE, line("carried_if"), 4)


def test_carried_values_merge_and_lists_mutate():
    d = Dyn("d")
    (a, b, c, lst, _), rt = run(k_carried, d, 4)
    cond = (">", "d", 0)
    assert E(a) == ("select", cond, 4, 1)
    assert E(b) == ("select", cond, 4, 2)
    assert E(c) == ("select", cond, 4, 2)  # 2 + 1 + 0 + 1 in the then branch
    # `lst` is carried (changed in place); the recorder hands the branches
    # the list itself (the tracer hands them copies), so it shows the store.
    assert lst == [9]


def k_undef(d):
    if d < 3:  # L:undef_if
        only_then = d + 1
        both = 1
    else:
        both = 2
    x = both
    return x, only_then  # L:undef_read


def test_undef_one_branch_only_is_unbound_after():
    d = Dyn("d")
    with pytest.raises(UnboundLocalError) as ei:
        run(k_undef, d)
    tb = traceback.extract_tb(ei.value.__traceback__)
    assert (tb[-1].filename, tb[-1].lineno) == (THIS_FILE, line("undef_read"))


def k_undef_param(d):
    if d > 0:
        y = y + 1  # L:undef_param
    return 0


def test_unbound_value_read_inside_branch_is_unbound_local_error():
    with pytest.raises(UnboundLocalError) as ei:
        run(k_undef_param, Dyn("d"))
    tb = traceback.extract_tb(ei.value.__traceback__)
    assert (tb[-1].filename, tb[-1].lineno) == (THIS_FILE, line("undef_param"))
    with pytest.raises(UnboundLocalError):
        k_undef_param(1)


def k_elif(d, e):
    if d > 0:  # L:elif_1
        r = 1
    elif e > 0:  # L:elif_2
        r = 2
    elif e:  # L:elif_3
        r = 3
    else:
        r = 4
    return r


def test_elif_chain():
    d = Dyn("d")
    r, rt = run(k_elif, d, Dyn("e"))
    assert [(e[0], e[1], e[3][1]) for e in rt.events] == [
        ("if", ("r",), line("elif_1")), ("if", ("r",), line("elif_2")),
        ("if", ("r",), line("elif_3"))]
    assert E(r) == ("select", (">", "d", 0), 1,
                    ("select", (">", "e", 0), 2, ("select", "e", 3, 4)))
    r, rt = run(k_elif, d, 0)  # e static: the inner chain is Python
    assert [e[3][1] for e in rt.events] == [line("elif_1")]
    assert E(r) == ("select", (">", "d", 0), 1, 4)
    r, rt = run(k_elif, 5, Dyn("e"))  # d static and true: nothing traced
    assert r == 1 and rt.events == []


def k_loops(n, d):
    acc = 0
    best = d
    for i in range(2, n, 3):  # L:loop_for
        tmp = i * 2
        if tmp > best:  # L:loop_if
            best = tmp
        acc += tmp
    j = 0
    while j < n:  # L:loop_while
        j = j + 1
        if d > j:  # L:while_if
            acc = acc + 1
    return acc, best, j


def test_loops_with_nested_dynamic_ifs():
    n, d = Dyn("n"), Dyn("d")
    (acc, best, j), rt = run(k_loops, n, d)
    kinds = [(e[0], e[3][1] if e[0] != "while-cond" else None) for e in rt.events]
    assert kinds == [("for", line("loop_for")), ("if", line("loop_if")),
                     ("while", line("loop_while")), ("while-cond", None),
                     ("if", line("while_if"))]
    for_ev = rt.events[0]
    assert for_ev[1] == ("tmp", "best", "acc")  # carried; the target i is not
    assert for_ev[2] == (UNDEF, d, 0)
    assert (for_ev[4][0], E(for_ev[4][1]), for_ev[4][2]) == (2, "n", 3)
    assert rt.events[1][1] == ("best",)
    assert rt.events[2][1] == ("j", "acc")
    assert rt.events[3][1] == (">", "n", 0)  # 0 < n, reflected
    assert j == 1  # the recorder ran the body once, from j = 0
    acc_for = ("+", 0, ("*", "iv", 2))
    assert E(acc) == ("select", (">", "d", 1), ("+", acc_for, 1), acc_for)
    assert E(best) == ("select", (">", ("*", "iv", 2), "d"), ("*", "iv", 2), "d")


def test_range_forms_and_options():
    fx = types.SimpleNamespace(range=range)

    def f(n):
        s = 0
        for i in range(n):
            s = s + i
        for k in fx.range(1, n, 2, unroll=4):  # L:fx_range
            s = s + k
        return s

    s, rt = run(f, Dyn("n"))
    a, b = rt.events
    assert (a[4][0], E(a[4][1]), a[4][2], a[5]) == (0, "n", 1, None)
    assert (b[4][0], E(b[4][1]), b[4][2], b[5]) == (1, "n", 2, {"unroll": 4})
    assert b[3][1] == line("fx_range")
    assert E(s) == ("+", ("+", 0, "iv"), "iv")


def test_dynamic_expressions():
    def f(d, x):
        a = x if d > 0 else -x  # L:dyn_ifexp
        b = d and x and 7  # L:dyn_and
        c = 0 and d
        e = x or d or 9
        g = not d  # L:dyn_not
        h = 1 and d and (1 / 0 if False else 3)
        return a, b, c, e, g, h

    d = Dyn("d")
    (a, b, c, e, g, h), rt = run(f, d, 5)
    assert E(a) == ("select", (">", "d", 0), 5, -5)
    assert E(b) == ("and", "d", 5, 7)
    assert c == 0 and e == 5
    assert E(g) == ("not", "d") and E(h) == ("and", "d", 3)
    assert [(k, loc[1]) for k, loc in rt.events] == [
        ("select", line("dyn_ifexp")), ("and", line("dyn_and")), ("not", line("dyn_not")),
        ("and", line("dyn_not") + 1)]


def test_dynamic_if_with_static_return_not_reached_is_fine():
    def f(d, flag):
        r = 0
        if d > 0:
            if flag:
                return "early"  # L:static_return_in_dyn
            r = 1
        return r

    r, rt = run(f, Dyn("d"), False)
    assert E(r) == ("select", (">", "d", 0), 1, 0)
    with pytest.raises(RewriteError) as ei:
        run(f, Dyn("d"), True)
    assert ei.value.lineno == line("static_return_in_dyn")
    assert f(1, True) == rewrite(f)(1, True) == "early"


def test_super_inside_dynamic_branch():
    class P:
        def val(self, x):
            return x * 10

    class C(P):
        def val(self, x):
            r = 0
            if x > 0:
                r = super().val(x)
            return r

    r, rt = run(C().val, Dyn("x"))
    assert E(r) == ("select", (">", "x", 0), ("*", "x", 10), 0)


def test_del_in_dynamic_branch_unbinds_after():
    def f(d):
        t = 1
        u = 2
        if d > 0:
            del t
            u = 3
        return u, t  # L:del_read

    with pytest.raises(UnboundLocalError) as ei:
        run(f, Dyn("d"))
    assert traceback.extract_tb(ei.value.__traceback__)[-1].lineno == line("del_read")
    (u, t), rt = run(f, 0)
    assert (u, t) == (2, 1) and rt.events == []
    with pytest.raises(UnboundLocalError):
        rewrite(f)(1)


def test_while_with_walrus_condition():
    def f(n):
        seen = []
        while (n := n - 1) > 0:  # L:while_walrus
            seen.append(n)
        return seen

    assert rewrite(f)(4) == f(4) == [3, 2, 1]
    with pytest.raises(RewriteError) as ei:
        run(f, Dyn("n"))
    assert "(:=)" in str(ei.value) and ei.value.lineno == line("while_walrus")


def test_helpers_called_in_comprehensions_and_lambdas_are_rewritten():
    def k(d):
        xs = [helpers.clamp(d, k) for k in range_constexpr(2)]
        f = lambda v: helpers.clamp(v, 7)  # noqa: E731
        return xs, f(d)

    (xs, y), rt = run(k, Dyn("d"))
    assert [E(x) for x in xs] == [("select", (">", "d", k), k, "d") for k in range(2)]
    assert E(y) == ("select", (">", "d", 7), 7, "d")
    assert [e[3][1] for e in rt.events] == [_HELPER_LINES["clamp_if"]] * 3


def test_static_while_whose_condition_becomes_dynamic():
    def f(d):
        x = 0
        while x < 3:  # L:while_turns
            x = d
        return x

    with pytest.raises(TraceError, match="became a dynamic value after 1") as ei:
        run(f, Dyn("d"))
    assert ei.value.lineno == line("while_turns")


def test_type_change_across_iterations():
    def f(n):
        v = 0
        for i in range(n):  # L:type_change
            v = 1.5
        return v

    with pytest.raises(TraceError, match="'v' changes type across iterations") as ei:
        run(f, Dyn("n"))
    assert ei.value.lineno == line("type_change") and ei.value.filename == THIS_FILE


GLOBAL_LOG = []


def test_names_changed_in_place_are_passed_as_mutated():
    class Box:
        pass

    def f(d, items, box):
        local = [0]
        if d > 0:
            local[0] = d  # a local list: carried (names + mutated)
            items.append(1)  # a parameter: carried when it is a container
            box.value = d  # not a container: left out of the dynamic hook
            GLOBAL_LOG.append(d)  # a global: never a variable
        return local, items, box

    box = Box()
    (local, items, out_box), rt = run(f, Dyn("d"), [], box)
    (ev,) = rt.events
    assert ev[1] == ("local", "items")  # box (an object) is not handed on
    assert out_box is box and E(box.value) == "d"
    assert len(local) == 1 and E(local[0]) == "d"
    assert items == [1] and len(GLOBAL_LOG) == 1
    GLOBAL_LOG.clear()


def test_loop_variable_bound_before_the_loop_is_carried():
    def f(n):
        i = 7
        for i in range(n):  # L:live_iv
            pass
        return i

    def g(n):
        for j in range(n):
            pass
        return j  # L:unbound_iv

    i, rt = run(f, Dyn("n"))
    (ev,) = rt.events
    assert ev[1:3] == (("i",), (7,)) and E(i) == "iv"
    with pytest.raises(UnboundLocalError) as ei:
        run(g, Dyn("n"))
    assert traceback.extract_tb(ei.value.__traceback__)[-1].lineno == line("unbound_iv")


# ---------------------------------------------------------------------------
# 3. Helpers called from kernels
# ---------------------------------------------------------------------------

def k_helpers(d):
    a = helpers.clamp(d, 3)
    b = helpers.clamp_twice(d, 4)
    c = helpers.Scaler(2).scale(d)
    s = helpers.wrapped_sign(d)
    o = helpers.opted_out(5)
    return a, b, c, s, o, math.sqrt(16.0), len([1, 2]), textwrap.dedent("  x")


def test_helpers_are_rewritten():
    d = Dyn("d")
    (a, b, c, s, o, r, n, t), rt = run(k_helpers, d)
    ifs = [(e[3][0], e[3][1]) for e in rt.events]
    hf, hl = HELPERS_FILE, _HELPER_LINES
    assert ifs == [(hf, hl["clamp_if"]), (hf, hl["clamp_if"]), (hf, hl["clamp_if"]),
                   (hf, hl["scale_if"]), (hf, hl["wrapped_if"])]
    assert E(a) == ("select", (">", "d", 3), 3, "d")
    assert E(c) == ("select", (">", "d", 0), ("*", "d", 2), "d")
    assert E(s) == ("select", ("<", "d", 0), -1, 1)
    assert (o, r, n, t) == (0, 4.0, 2, "x")
    seen = {getattr(fn, "__name__", None): (fn, out) for fn, out in rt.callees}
    for name in ("sqrt", "len", "dedent", "opted_out", "Scaler"):
        fn, out = seen[name]
        assert out is fn, name
    for name in ("clamp", "clamp_twice", "wrapped_sign"):
        fn, out = seen[name]
        assert out is not fn and ar.is_rewritten(out), name
    fn, out = seen["scale"]
    assert isinstance(out, types.MethodType) and ar.is_rewritten(out)


def test_resolve_callee_policy():
    assert ar.resolve_callee(math.sqrt) is math.sqrt
    assert ar.resolve_callee(len) is len
    assert ar.resolve_callee(textwrap.dedent) is textwrap.dedent  # stdlib Python code
    assert ar.resolve_callee(cf.current) is cf.current  # flydsl itself
    assert ar.resolve_callee(ar.rewrite) is ar.rewrite
    lam = lambda x: x  # noqa: E731
    assert ar.resolve_callee(lam) is lam
    assert ar.resolve_callee(helpers.Scaler) is helpers.Scaler
    r = ar.resolve_callee(helpers.clamp)
    assert r is ar.resolve_callee(helpers.clamp) is rewrite(helpers.clamp)
    assert ar.resolve_callee(r) is r
    ns = {}
    exec("def made_by_exec(x):\n    return x + 1\n", ns)
    assert ar.resolve_callee(ns["made_by_exec"]) is ns["made_by_exec"]

    def k(x):
        return ns["made_by_exec"](x)

    assert rewrite(k)(1) == 2


def test_calls_keep_args_kwargs_and_a_loc_keyword():
    def target(*args, loc=None, **kw):
        return args, loc, kw

    def f(xs, kw):
        return target(1, *xs, loc="mine", **kw)

    assert rewrite(f)([2, 3], {"z": 4}) == ((1, 2, 3), "mine", {"z": 4})


# ---------------------------------------------------------------------------
# 4. Errors: the construct and the user's line
# ---------------------------------------------------------------------------

def e_range_break(n):
    for i in range(n):
        if i:
            break  # L:range_break
    return 0


def e_range_continue(n):
    for i in range(n):
        continue  # L:range_continue


def e_range_return(n):
    for i in range(n):
        for j in range_constexpr(2):
            if j:
                break  # a Python loop's break is fine
        return i  # L:range_return


def e_range_else(n):
    for i in range(n):
        pass
    else:
        n = 0  # L:range_else
    return n


def e_range_yield(n):
    for i in range(n):
        yield i  # L:range_yield


def e_range_target(n):
    for i, j in range(n):  # L:range_target
        pass


@pytest.mark.parametrize("fn,construct,marker", [
    (e_range_break, "`break`", "range_break"),
    (e_range_continue, "`continue`", "range_continue"),
    (e_range_return, "`return`", "range_return"),
    (e_range_else, "`else:`", "range_else"),
    (e_range_yield, "`yield`", "range_yield"),
    (e_range_target, "single name", "range_target"),
])
def test_range_loop_errors_at_rewrite_time(fn, construct, marker):
    with pytest.raises(RewriteError) as ei:
        rewrite(fn)
    err = ei.value
    assert construct in str(err) and "range" in str(err)
    if marker != "range_target":
        assert "range_constexpr" in str(err)
    assert err.lineno == line(marker) and err.filename == THIS_FILE
    assert str(err).startswith(f"{THIS_FILE}:{line(marker)}: ")


def e_while_break(d):
    x = 0
    while x < d:
        x = x + 1
        if x == 3:
            break  # L:while_break
    return x


def e_while_continue(d):
    x = 0
    while x < d:
        x += 1
        continue  # L:while_continue
    return x


def e_while_return(d):
    x = 0
    while x < d:
        return x  # L:while_return
    return -1


def e_while_else(d):
    x = 0
    while x < d:
        x += 1
    else:
        x = -x  # L:while_else
    return x


@pytest.mark.parametrize("fn,construct,marker,static_args", [
    (e_while_break, "`break`", "while_break", (10,)),
    (e_while_continue, "`continue`", "while_continue", (4,)),
    (e_while_return, "`return`", "while_return", (4,)),
    (e_while_else, "`else:`", "while_else", (4,)),
])
def test_while_loop_errors_when_dynamic(fn, construct, marker, static_args):
    g = rewrite(fn)  # a Python loop as long as the condition is static
    assert g(*static_args) == fn(*static_args)
    with pytest.raises(RewriteError) as ei:
        run(fn, Dyn("d"))
    err = ei.value
    assert construct in str(err) and "`while` loop" in str(err) and "dynamic" in str(err)
    assert err.lineno == line(marker) and err.filename == THIS_FILE


def e_dyn_if(d, mode):
    for k in range_constexpr(3):
        if d > k:
            if mode == "return":
                return k  # L:dyn_return
            elif mode == "break":
                break  # L:dyn_break
            elif mode == "continue":
                continue  # L:dyn_continue
    return -1


@pytest.mark.parametrize("mode", ["return", "break", "continue"])
def test_escape_from_dynamic_if_only_fails_when_dynamic(mode):
    g = rewrite(e_dyn_if)
    assert g(2, mode) == e_dyn_if(2, mode)
    assert g(0, mode) == -1
    with pytest.raises(RewriteError) as ei:
        run(e_dyn_if, Dyn("d"), mode)
    err = ei.value
    assert f"`{mode}` inside an `if` whose condition is a dynamic value" in str(err)
    assert err.lineno == line(f"dyn_{mode}") and err.filename == THIS_FILE


def e_dyn_if_yield(d):
    if d > 0:
        yield 1  # L:dyn_yield
    yield 2


def e_dyn_if_global(d):
    global _GLOBAL_COUNTER
    if d > 0:
        global _GLOBAL_COUNTER  # noqa  # L:dyn_global
        _GLOBAL_COUNTER = d


def test_yield_and_global_in_dynamic_if():
    assert list(rewrite(e_dyn_if_yield)(1)) == [1, 2]
    with pytest.raises(RewriteError) as ei:
        with Recorder().activate():
            list(rewrite(e_dyn_if_yield)(Dyn("d")))
    assert "`yield`" in str(ei.value) and ei.value.lineno == line("dyn_yield")
    global _GLOBAL_COUNTER
    _GLOBAL_COUNTER = 0
    rewrite(e_dyn_if_global)(5)
    assert _GLOBAL_COUNTER == 5
    with pytest.raises(RewriteError) as ei:
        run(e_dyn_if_global, Dyn("d"))
    assert "`global` _GLOBAL_COUNTER" in str(ei.value)
    assert ei.value.lineno == line("dyn_global")


def test_dynamic_value_used_as_python_bool():
    def f(d):
        x = 0
        assert d  # L:bool_assert
        return x

    def g(d):
        return 0 < d < 5  # L:bool_chain

    for fn, marker in ((f, "bool_assert"), (g, "bool_chain")):
        with pytest.raises(TraceError) as ei:
            run(fn, Dyn("d"))
        err = ei.value
        assert "a dynamic value used as a Python bool" in str(err)
        assert err.lineno == line(marker) and err.filename == THIS_FILE


def test_source_unavailable():
    ns = {}
    exec("def made_by_exec(x):\n    if x:\n        return 1\n    return 0\n", ns)
    with pytest.raises(RewriteError) as ei:
        rewrite(ns["made_by_exec"])
    assert "source code is not available" in str(ei.value) and "made_by_exec" in str(ei.value)
    with pytest.raises(RewriteError, match="not a Python function"):
        rewrite(len)
    with pytest.raises(RewriteError, match="not its `def`"):
        rewrite(lambda x: x)

    async def coro():
        pass

    with pytest.raises(RewriteError, match="async"):
        rewrite(coro)


# ---------------------------------------------------------------------------
# 5. Tracebacks and frames point at the user's lines
# ---------------------------------------------------------------------------

def t_raise(x, d):
    y = 0
    if x > 0:
        y = 1 // (x - x)  # L:tb_static
    for i in range(d):
        if d > 1:
            y = 1 // 0  # L:tb_dyn
    return y


def t_frame():
    return sys._getframe().f_lineno  # L:tb_frame


def test_tracebacks_point_at_user_lines():
    g = rewrite(t_raise)
    with pytest.raises(ZeroDivisionError) as ei:
        g(1, 0)
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(ei.value.__traceback__)]
    assert frames[-1] == (THIS_FILE, line("tb_static"))
    with pytest.raises(ZeroDivisionError) as ei:
        run(t_raise, 0, Dyn("d"))
    frames = [(f.filename, f.lineno, f.name) for f in
              traceback.extract_tb(ei.value.__traceback__)]
    assert frames[-1][:2] == (THIS_FILE, line("tb_dyn"))
    assert all(not f[2].startswith("__fly") or f[0] == THIS_FILE for f in frames)
    assert rewrite(t_frame)() == line("tb_frame")
    assert g.__code__.co_firstlineno == t_raise.__code__.co_firstlineno
    assert g.__code__.co_filename == THIS_FILE


def test_traceback_through_a_rewritten_helper():
    def k(x):
        return helpers.raises_in_helper(x) + 1

    with pytest.raises(ZeroDivisionError) as ei:
        rewrite(k)(1)
    last = traceback.extract_tb(ei.value.__traceback__)[-1]
    assert (last.filename, last.lineno) == (HELPERS_FILE, _HELPER_LINES["helper_raise"])


@pytest.mark.parametrize("fn", [f for f, _ in STATIC_CASES] + [k_loops, k_carried, t_raise])
def test_every_generated_line_is_a_user_line(fn):
    g = rewrite(fn)
    src, first = __import__("inspect").getsourcelines(fn)
    lines = set(range(first, first + len(src)))

    def codes(c):
        yield c
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                yield from codes(k)

    for c in codes(g.__code__):
        assert c.co_filename == THIS_FILE
        for _, _, ln in c.co_lines():
            assert ln is None or ln in lines, (c.co_name, ln)


@pytest.mark.parametrize("fn", [f for f, _ in STATIC_CASES] + [k_loops, k_carried, t_raise])
def test_every_generated_node_is_located_when_made(fn, monkeypatch):
    """The rewriter stamps each node it makes with its construct's
    location, so the new module compiles without ast.fix_missing_locations
    (a walk of the whole tree; the rewriter's fallback if a node is
    missed), and the code is the same as with it."""
    import ast

    def rewritten():
        return ar._rewrite_code(fn)  # past the caches

    def describe(code):
        out = [(code.co_name, code.co_code, tuple(code.co_positions()))]
        for k in code.co_consts:
            if isinstance(k, types.CodeType):
                out += describe(k)
        return out

    with monkeypatch.context() as m:
        m.setattr(ast, "fix_missing_locations", lambda node: pytest.fail("a node was missed"))
        got = describe(rewritten())
    fixed = ast.fix_missing_locations
    with monkeypatch.context() as m:
        m.setattr(ar, "compile", lambda tree, *a, **k: compile(fixed(tree), *a, **k), raising=False)
        want = describe(rewritten())
    assert got == want
