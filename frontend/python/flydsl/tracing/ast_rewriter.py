"""The AST rewriter: Python control flow of kernels as runtime hooks (SPEC §7.1).

`rewrite(fn)` returns a copy of the Python function `fn` whose `if`,
`for ... in range(...)`, `while`, `a if c else b`, `and`/`or`/`not` and calls
go through the hooks of the current `ControlFlowRuntime` (see
control_flow.py), which keep Python's semantics on static values and let a
tracer turn dynamic ones into scf ops.

How the function is rebuilt
---------------------------
The source of `fn.__code__` (`inspect.getsourcelines` of the code object, so
a `functools.wraps` wrapper is not mistaken for the function it wraps) is
parsed as it stands in the file: an indented `def` is parsed inside an
`if 1:` block, so the line AND column numbers of every node are the user's.
Decorators are dropped (the `def` node takes the first decorator's line so
that `co_firstlineno` is unchanged). Every generated node gets the location
of the user construct it comes from; the code is compiled with the original
filename and the `__future__` flags of the original code, so tracebacks and
frame inspection show the user's file and lines. A function with free
variables is compiled inside a factory `def` whose parameters are those
names; its code object is taken out of the factory's constants and the new
function gets the ORIGINAL closure cells (by name), so reads and writes of
free variables (`nonlocal`) go to the same cells. Globals are the same dict
(`__fly_rt__` is added to it, bound to `control_flow.RUNTIME`, the proxy of
the current runtime); defaults, keyword defaults, name, qualname, doc,
annotations, module and `__dict__` are copied. Rewritten code objects (and
the code of everything nested in them) are remembered: `is_rewritten_code`.
Results are cached per code object (code) and per function (function).

What is rewritten (in the function body, nested `def`s included)
-----------------------------------------------------------------
- `if c:` (elif chains are nested ifs): `c` is evaluated once into a temp.
  If `not __fly_rt__.is_dynamic(c)`, the ORIGINAL `if` runs (its body
  rewritten the same way), so static conditions keep exact Python semantics
  including return/break/continue. Otherwise the branches become nested
  functions `then_fn(*values)`/`else_fn(*values)` returning the tuple of new
  values and `__fly_rt__.if_(c, then_fn, else_fn, names, values, loc=...)`
  gives the values after the if. `names` are the variables bound anywhere in
  the branches, in source order: targets of (aug/annotated) assignments, for
  targets, with-as, except-as, walrus (also inside comprehensions, where it
  binds in the function), imports, nested def/class names, match captures,
  and `del` targets; not bindings inside nested function, lambda, class or
  comprehension scopes. Then the local variables (parameters and names
  the function binds, not global/nonlocal ones) that the branches only
  change in place: the base names of subscript/attribute targets (`x[i] =
  v`, `x.a.b = v`, `del x[i]`) and of method calls (`x.append(v)`), passed
  as `mutated=(...)` (the runtime carries such a variable when it holds a
  container, see control_flow.py). Unbound values are `UNDEF` (captured
  with try/except NameError); inside a
  branch function a parameter that is UNDEF is deleted first, so reading it
  raises UnboundLocalError as Python would; a name unbound at the end of a
  branch returns UNDEF; a result that is UNDEF is deleted after the if. In
  the dynamic path `return`, `break`/`continue` leaving the branch, `yield`,
  `await`, and `global`/`nonlocal` of a carried name raise RewriteError when
  they are reached (at trace time, naming the construct and the user line).
  Both paths are generated, so k nested ifs give 2**k copies of the
  innermost body (loop bodies are not duplicated).
- `if const_expr(c):` / `if X.const_expr(c):` (also in `while` and `a if c
  else b`): a plain Python statement/expression, no dispatch.
- `for t in range(a[, b[, c]])`, where `range` is the NAME `range` (not
  resolved: a module that rebinds `range` still gets traced loops) or any
  attribute `X.range(...)` (`fx.range`, `flydsl.expr.range`; its keyword
  arguments are passed as `options`): always
  `__fly_rt__.for_range(start, stop, step, body_fn, names, values, loc=...)`
  with `body_fn(iv, *values)`. Carried names: those bound in the body except
  the loop target, then those it only changes in place (`mutated=`, as for
  `if`). The loop target's value before the loop is passed as `iv=(name,
  value)` (UNDEF if unbound) and `body_fn` returns its value at the end of
  the body last: a loop variable bound before the loop has its last value
  after it, as in Python. `else:`, `break`, `continue`, `return`, `yield`
  and `await` in the body, a target that is not a single name, and a
  `*args` range call are RewriteErrors at rewrite time (the message
  suggests `range_constexpr`).
- FlyDSL's loop with explicit carried state, `for iv, state in range(a, b,
  c, init=[...])` (or `X.range`, any 1 to 3 bounds) whose body ends in
  `results = yield [...]` (or a bare `yield [...]`): `__fly_rt__.
  for_range_init(start, stop, step, init, body_fn, names, values, loc=...,
  yield_loc=..., state_arity=...)` (see control_flow.py). The yield
  statement leaves the body: `body_fn(iv, state, *values)` assigns the
  target (`iv, state`, with Python's unpacking), runs the body and
  returns the yield's value (None for a bare `yield`, UNDEF without one)
  and the values of `names` (the variables the body and the target bind);
  after the call they are written back, then the yield's targets are
  assigned the loop's results. The target must be a pair, the yield the
  last statement of the body (a `yield` anywhere else, `break`,
  `continue`, `return`, `else:` are RewriteErrors); `init=` on
  `range_constexpr` is one too, as is a `yield` in a range loop without
  `init=`.
- `for ... in range_constexpr(...)` / `X.range_constexpr(...)` and loops
  over anything else: Python loops (bodies rewritten).
- `while c:` -> `__fly_rt__.while_(cond_fn, body_fn, names, values, loc=...)`
  (names as for a range loop, `mutated=` too).
  Improvement over a rewrite-time error: a `while` that cannot be traced
  (`break`/`continue`/`return`/`yield`/`await` in its body, an `else:`, or
  a walrus / yield in its condition) stays a Python loop whose condition
  goes through `__fly_rt__.static_cond`: it runs as in Python while the
  condition is static and raises RewriteError (naming the construct and
  line) as soon as it is dynamic.
- `a if c else b` -> `__fly_rt__.ifexp(c, lambda: a, lambda: b, loc=...)`,
  `a and b` -> `__fly_rt__.and_(lambda: a, lambda: b, loc=...)` (`or_`),
  `not x` -> `__fly_rt__.not_(x, loc=...)`. Only in the function's own
  expressions, not inside lambdas or comprehensions (their conditions are
  Python filters), and not when an operand that would become a thunk holds
  a walrus, `yield`, `await` or a zero-argument `super()` (a lambda would
  change their meaning): those keep Python's operator.
- Calls `f(args)` -> `__fly_rt__.callee(f, loc)(args)`: the callee is
  resolved first (`resolve_callee`: the rewritten helper, or `f` itself),
  then called from the user's frame with the original arguments, so
  `*args`, `**kwargs` and keywords (including one named `loc`) are
  untouched. Calls are rewritten everywhere, lambdas and comprehensions
  included. Not wrapped: the frame-sensitive builtins by name (`super`,
  `locals`, `globals`, `vars`, `dir`, `eval`, `exec`, `breakpoint`) and
  `const_expr` / `range_constexpr`.
- Zero-argument `super()` inside generated branch/loop functions becomes
  `super(__class__, <first parameter>)` (the generated function has no
  `self` of its own).
- Class bodies inside a function are left as they are, except the methods
  defined in them, which are rewritten.

Which callees are rewritten (`resolve_callee`)
----------------------------------------------
Plain Python functions (`types.FunctionType`) and bound methods of them,
unless: already rewritten; marked `__fly_no_rewrite__ = True`; a lambda
(its source is not a `def`); async/coroutine functions; their module is
`flydsl` or `flydsl.*`; their file is in the flydsl package directory, the
standard library, or a `site-packages`/`dist-packages` directory (or
sysconfig's purelib/platlib), or is a `<frozen ...>` pseudo file. A
function whose source is unavailable (e.g. made by `exec`) is called as it
is (a dynamic condition inside it then fails with the value's own "used as
a Python bool" error); other RewriteErrors of a helper propagate. Classes,
builtins, partials and other callables are called directly (a class's
`__init__` is not rewritten).
"""

from __future__ import annotations

import __future__ as _future_module
import ast
import copy
import functools
import inspect
import linecache
import os
import types
import weakref

from . import control_flow as _cf
from .errors import RewriteError

__all__ = ["rewrite", "resolve_callee", "is_rewritten", "is_rewritten_code", "RT_NAME"]

RT_NAME = "__fly_rt__"

FLYDSL_DIR = os.path.normcase(os.path.abspath(os.path.dirname(os.path.dirname(__file__))))

_FRAME_SENSITIVE = frozenset(
    {"super", "locals", "globals", "vars", "dir", "eval", "exec", "breakpoint"})
_NO_WRAP_CALLS = frozenset({"const_expr", "range_constexpr"})

_FUTURE_FLAGS = 0
for _name in _future_module.all_feature_names:
    _FUTURE_FLAGS |= getattr(_future_module, _name).compiler_flag

_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE



class _IdentityWeakMap:
    """A weak-keyed map comparing keys by identity (code objects compare by
    value: two identical functions of different files are equal)."""

    def __init__(self):
        self._data = {}

    def get(self, key, default=None):
        entry = self._data.get(id(key))
        if entry is not None and entry[0]() is key:
            return entry[1]
        return default

    def __contains__(self, key):
        entry = self._data.get(id(key))
        return entry is not None and entry[0]() is key

    def __setitem__(self, key, value):
        k = id(key)
        data = self._data

        def drop(_ref, k=k, data=data):
            entry = data.get(k)
            if entry is not None and entry[0] is _ref:
                del data[k]

        data[k] = (weakref.ref(key, drop), value)


_CODE_CACHE = _IdentityWeakMap()  # original code -> rewritten code
_FN_CACHE = weakref.WeakKeyDictionary()  # function -> rewritten function
_NOT_REWRITTEN = weakref.WeakSet()  # functions resolve_callee leaves alone
_REWRITTEN_CODES = _IdentityWeakMap()  # code made by rewrite() -> True


class _SourceUnavailable(RewriteError):
    pass


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------

def is_rewritten_code(code) -> bool:
    """True for code made by `rewrite` (functions nested in it included)."""
    try:
        return code in _REWRITTEN_CODES
    except TypeError:
        return False


def is_rewritten(fn) -> bool:
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    return code is not None and is_rewritten_code(code)


def rewrite(fn):
    """The rewritten copy of the Python function (or bound method) `fn`."""
    if isinstance(fn, types.MethodType):
        return types.MethodType(rewrite(fn.__func__), fn.__self__)
    if not isinstance(fn, types.FunctionType):
        raise RewriteError(f"cannot rewrite {fn!r}: it is not a Python function")
    if is_rewritten_code(fn.__code__):
        return fn
    cached = _FN_CACHE.get(fn)
    if cached is not None:
        return cached
    code = fn.__code__
    new_code = _CODE_CACHE.get(code)
    if new_code is None:
        new_code = _rewrite_code(fn)
        _CODE_CACHE[code] = new_code
    new_fn = _make_function(fn, new_code)
    _FN_CACHE[fn] = new_fn
    return new_fn


def resolve_callee(fn):
    """The function a rewritten call site calls instead of `fn`."""
    tf = type(fn)
    if tf is types.FunctionType:
        func = fn
    elif tf is types.MethodType and type(fn.__func__) is types.FunctionType:
        func = fn.__func__
    else:
        return fn
    new = _FN_CACHE.get(func)
    if new is None:
        if func in _NOT_REWRITTEN or is_rewritten_code(func.__code__):
            return fn
        if not _wants_rewrite(func):
            _NOT_REWRITTEN.add(func)
            return fn
        try:
            new = rewrite(func)
        except _SourceUnavailable:
            _NOT_REWRITTEN.add(func)
            return fn
    if func is fn:
        return new
    return types.MethodType(new, fn.__self__)


_cf.set_callee_resolver(resolve_callee)

# ---------------------------------------------------------------------------
# callee policy
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _excluded_dirs():
    import sysconfig  # first needed by a trace, not by importing flydsl

    dirs = {FLYDSL_DIR}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = paths.get(key)
        if p:
            dirs.add(os.path.normcase(os.path.abspath(p)))
    return tuple(sorted(dirs))


def _wants_rewrite(func) -> bool:
    if getattr(func, "__fly_no_rewrite__", False):
        return False
    code = func.__code__
    if code.co_flags & _ASYNC_FLAGS or code.co_name == "<lambda>":
        return False
    module = getattr(func, "__module__", None) or ""
    if module == "flydsl" or module.startswith("flydsl."):
        return False
    filename = code.co_filename or ""
    if filename.startswith("<frozen"):
        return False
    if not filename.startswith("<"):
        path = os.path.normcase(os.path.abspath(filename))
        parts = path.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts:
            return False
        for d in _excluded_dirs():
            if path == d or path.startswith(d + os.sep):
                return False
    return True


# ---------------------------------------------------------------------------
# building the new function
# ---------------------------------------------------------------------------

def _make_function(fn, new_code):
    old_free = fn.__code__.co_freevars
    cells = []
    for name in new_code.co_freevars:
        if name not in old_free:
            raise RewriteError(f"internal error rewriting {fn.__qualname__}: free variable "
                               f"{name!r} has no cell", fn.__code__.co_filename,
                               fn.__code__.co_firstlineno)
        cells.append(fn.__closure__[old_free.index(name)])
    g = fn.__globals__
    if g.get(RT_NAME) is not _cf.RUNTIME:
        g[RT_NAME] = _cf.RUNTIME
    new = types.FunctionType(new_code, g, fn.__name__, fn.__defaults__,
                             tuple(cells) if cells else None)
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    new.__module__ = fn.__module__
    new.__annotations__ = dict(fn.__annotations__)
    if hasattr(fn, "__type_params__"):
        new.__type_params__ = fn.__type_params__
    new.__dict__.update(fn.__dict__)
    return new


def _source_lines(code):
    """The lines of `code`'s definition and its first line number, as
    inspect.getsourcelines gives them, without inspect.getmodule's walk over
    sys.modules (a realpath per module, most of a small kernel's trace)."""
    linecache.checkcache(code.co_filename)  # a file edited since it was read
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return inspect.getsourcelines(code)  # a loader's source, or an error
    last = _last_line(code)
    if last is None or last < first:
        return inspect.getblock(lines[first - 1:]), first
    return lines[first - 1:last], first


def _last_line(code):
    """The last source line of `code` and of the functions defined in it
    (from the positions the compiler recorded; None without them). Cheaper
    than inspect.getblock, which tokenizes the rest of the file."""
    last = None
    stack = [code]
    while stack:
        c = stack.pop()
        for _, end, _, _ in c.co_positions() if hasattr(c, "co_positions") else ():
            if end is not None and (last is None or end > last):
                last = end
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return last


def _parse_function(code):
    where = (code.co_filename, code.co_firstlineno)
    try:
        lines, lnum = _source_lines(code)
    except (OSError, TypeError) as e:
        raise _SourceUnavailable(
            f"cannot rewrite `{code.co_name}`: its source code is not available ({e}); "
            "a kernel or helper must be defined in a file (not by exec/eval or at an "
            "interactive prompt without source)", *where) from None
    src = "".join(lines)
    indented = bool(lines) and lines[0][:1] in (" ", "\t")
    # Blank lines in front give every node its line in the file (cheaper
    # than ast.increment_lineno over the tree).
    text = "\n" * (lnum - 2) + "if 1:\n" + src if indented else "\n" * (lnum - 1) + src
    try:
        tree = ast.parse(text, filename=code.co_filename)
    except SyntaxError as e:
        raise _SourceUnavailable(
            f"cannot rewrite `{code.co_name}`: its source does not parse on its own ({e.msg})",
            *where) from None
    body = tree.body[0].body if indented and tree.body and isinstance(tree.body[0], ast.If) \
        else tree.body
    node = body[0] if body else None
    if isinstance(node, ast.AsyncFunctionDef):
        raise RewriteError(f"cannot rewrite `{code.co_name}`: async functions are not "
                           "supported", *where)
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
        raise _SourceUnavailable(
            f"cannot rewrite `{code.co_name}`: the source at {where[0]}:{where[1]} is not "
            "its `def` (a lambda, or a file changed since it was imported)", *where)
    return node


def _rewrite_code(fn):
    code = fn.__code__
    if code.co_flags & _ASYNC_FLAGS:
        raise RewriteError(f"cannot rewrite `{code.co_name}`: async functions are not "
                           "supported", code.co_filename, code.co_firstlineno)
    node = _parse_function(code)
    if node.decorator_list:
        node.lineno = node.decorator_list[0].lineno
        node.col_offset = node.decorator_list[0].col_offset
    node.decorator_list = []
    rw = _Rewriter(code.co_filename, _first_param(node), _function_locals(node))
    node.body = rw.function_body(node.body)
    free = code.co_freevars
    if free:
        factory = ast.FunctionDef(
            name="__fly_factory__",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in free],
                               vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                               defaults=[]),
            body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_comment=None)
        _stamp(factory, node)
        module = ast.Module(body=[factory], type_ignores=[])
    else:
        module = ast.Module(body=[node], type_ignores=[])
    cls = _enclosing_class(getattr(code, "co_qualname", fn.__qualname__))
    if cls is not None:
        # Compile inside `class <cls>:` so that private names (`self.__x`)
        # are mangled as in the original method.
        wrapper = _stamp(ast.ClassDef(name=cls, bases=[], keywords=[], body=module.body,
                                      decorator_list=[]), node)
        module = ast.Module(body=[wrapper], type_ignores=[])
    # Every generated node is stamped with its construct's location, so the
    # module compiles as it is; fix_missing_locations (a walk of the whole
    # tree) only if a node was missed.
    flags = code.co_flags & _FUTURE_FLAGS
    try:
        top = compile(module, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except (TypeError, ValueError):
        top = compile(ast.fix_missing_locations(module), code.co_filename, "exec", flags=flags,
                      dont_inherit=True)
    new_code = _find_code(top, node.name, node.lineno)
    if new_code is None:
        raise RewriteError(f"internal error rewriting `{code.co_name}`: compiled code not found",
                           code.co_filename, code.co_firstlineno)
    if hasattr(new_code, "co_qualname"):
        new_code = new_code.replace(co_qualname=code.co_qualname)
    _register(new_code)
    return new_code


def _enclosing_class(qualname):
    """The innermost class around a function, from its qualified name."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i] if parts[i].isidentifier() else None
    return None


def _find_code(code, name, lineno):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == name and c.co_firstlineno == lineno:
                return c
            found = _find_code(c, name, lineno)
            if found is not None:
                return found
    return None


def _register(code):
    _REWRITTEN_CODES[code] = True
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _register(c)


def _first_param(node):
    a = node.args
    params = a.posonlyargs + a.args
    return params[0].arg if params else None


# ---------------------------------------------------------------------------
# AST helpers
# ---------------------------------------------------------------------------

def _stamp(new, src):
    """Give every node of `new` without a location the location of `src`.
    Below `new`, a node that has a location is the user's or was stamped
    when it was made, and so is everything under it: the walk stops there."""
    lineno, col = src.lineno, src.col_offset
    end_lineno = getattr(src, "end_lineno", lineno)
    end_col = getattr(src, "end_col_offset", col)
    todo = [new]
    while todo:
        n = todo.pop()
        if "lineno" in n._attributes:
            if getattr(n, "lineno", None) is None:
                n.lineno, n.col_offset = lineno, col
                n.end_lineno, n.end_col_offset = end_lineno, end_col
            elif n is not new:
                continue
        for field in n._fields:
            value = getattr(n, field, None)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
    return new


def _header(loop):
    """The location of the header of a `for` loop (the statement's own ends
    at its body's last line, which CPython gives a call of a method
    stamped with it: a runtime hook's ops would be placed there)."""
    it = loop.iter
    return types.SimpleNamespace(lineno=loop.lineno, col_offset=loop.col_offset,
                                 end_lineno=it.end_lineno, end_col_offset=it.end_col_offset)


def _load(name):
    return ast.Name(id=name, ctx=ast.Load())


def _store(name):
    return ast.Name(id=name, ctx=ast.Store())


def _rt(attr):
    return ast.Attribute(value=_load(RT_NAME), attr=attr, ctx=ast.Load())


def _rt_call(attr, args, keywords=()):
    return ast.Call(func=_rt(attr), args=list(args), keywords=list(keywords))


def _const(v):
    return ast.Constant(value=v)


def _strs(names):
    return ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load())


def _args(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _call_name(call):
    """`name` for `name(...)` and `X.name(...)`, else None."""
    if not isinstance(call, ast.Call):
        return None
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def _is_const_expr(e):
    return _call_name(e) == "const_expr"


def _is_dotted(e):
    while isinstance(e, ast.Attribute):
        e = e.value
    return isinstance(e, ast.Name)


def _range_kind(it):
    """'range' (traced), 'constexpr' or None for the iterable of a for."""
    if not isinstance(it, ast.Call):
        return None
    f = it.func
    if isinstance(f, ast.Name):
        if f.id == "range":
            return "range"
        if f.id == "range_constexpr":
            return "constexpr"
    elif isinstance(f, ast.Attribute) and _is_dotted(f):
        if f.attr == "range":
            return "range"
        if f.attr == "range_constexpr":
            return "constexpr"
    return None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Binder(ast.NodeVisitor):
    """The names bound by statements, outside nested scopes, in order."""

    def __init__(self):
        self.names = []
        self._seen = set()

    def add(self, name):
        if name not in self._seen:
            self._seen.add(name)
            self.names.append(name)

    def visit_Name(self, n):
        if isinstance(n.ctx, (ast.Store, ast.Del)):
            self.add(n.id)

    def _defaults(self, args):
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(d)

    def visit_FunctionDef(self, n):
        for d in n.decorator_list:
            self.visit(d)
        self._defaults(n.args)
        self.add(n.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, n):
        for e in n.decorator_list + n.bases + [k.value for k in n.keywords]:
            self.visit(e)
        self.add(n.name)

    def visit_Lambda(self, n):
        self._defaults(n.args)

    def _comp(self, n):
        for sub in ast.walk(n):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                self.add(sub.target.id)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_AnnAssign(self, n):
        if n.value is not None:
            self.visit(n.target)
            self.visit(n.value)
        else:
            self.visit(n.annotation)

    def visit_Import(self, n):
        for a in n.names:
            self.add(a.asname or a.name.split(".")[0])

    def visit_ImportFrom(self, n):
        for a in n.names:
            if a.name != "*":
                self.add(a.asname or a.name)

    def visit_ExceptHandler(self, n):
        if n.type is not None:
            self.visit(n.type)
        if n.name:
            self.add(n.name)
        for s in n.body:
            self.visit(s)

    def visit_MatchAs(self, n):
        if n.pattern is not None:
            self.visit(n.pattern)
        if n.name:
            self.add(n.name)

    def visit_MatchStar(self, n):
        if n.name:
            self.add(n.name)

    def visit_MatchMapping(self, n):
        self.generic_visit(n)
        if n.rest:
            self.add(n.rest)


def _assigned(stmts):
    b = _Binder()
    for s in stmts:
        b.visit(s)
    return b.names


def _function_locals(node):
    """The local variables of a function definition: its parameters and
    the names it binds, less those it declares global or nonlocal."""
    a = node.args
    params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    params += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    declared = set()
    for n in _walk_statements(node.body):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
    return frozenset(set(params) | set(_assigned(node.body))) - declared


def _walk_statements(stmts):
    """The nodes of `stmts`, outside nested function, lambda, class and
    comprehension scopes."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _SCOPES + _COMPS):
                todo.append(c)


def _base_name(e):
    """`x` of `x`, `x.a`, `x[i]`, `x.a[i].b`, ...; None for another base."""
    while isinstance(e, (ast.Attribute, ast.Subscript)):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _changed_in_place(stmts):
    """The variables that `stmts` may change in place, in source order:
    the base names of subscript and attribute targets (of assignments,
    augmented and annotated ones, for targets, with-as, `del`) and of the
    objects whose methods they call (`x.append(v)`, `x.a.update(d)`)."""
    found = []

    def targets(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)
        elif isinstance(t, ast.Starred):
            targets(t.value)
        elif isinstance(t, (ast.Attribute, ast.Subscript)):
            found.append((t.lineno, t.col_offset, _base_name(t)))

    for n in _walk_statements(stmts):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                targets(t)
        elif isinstance(n, (ast.AugAssign, ast.For, ast.AsyncFor)):
            targets(n.target)
        elif isinstance(n, ast.AnnAssign) and n.value is not None:
            targets(n.target)
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            targets(n.optional_vars)
        elif isinstance(n, ast.Delete):
            for t in n.targets:
                targets(t)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            found.append((n.lineno, n.col_offset, _base_name(n.func.value)))
    out = []
    for _, _, name in sorted(found, key=lambda f: f[:2]):
        if name is not None and name not in out:
            out.append(name)
    return out


def _contains(node, types_):
    """A node of `types_` in `node`, outside nested function/lambda scopes."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, types_):
            return n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _SCOPES):
                todo.append(c)
    return None


def _unsafe_in_thunk(e):
    """Why `lambda: e` would not mean `e` (None if it would)."""
    for n in _walk_same_scope(e):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in _FRAME_SENSITIVE and not n.args and not n.keywords:
            return True
    return False


def _walk_same_scope(node):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef)):
                todo.append(c)


def _escape(stmts):
    """The first statement/expression that leaves a loop body other than by
    falling through (return, break/continue of this loop, yield, await)."""
    def walk(n, loop_depth):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
            return n
        if isinstance(n, (ast.Break, ast.Continue)) and loop_depth == 0:
            return n
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            for c in [n.target if hasattr(n, "target") else n.test,
                      getattr(n, "iter", None)]:
                if c is not None:
                    r = walk(c, loop_depth)
                    if r is not None:
                        return r
            for s in n.body:
                r = walk(s, loop_depth + 1)
                if r is not None:
                    return r
            for s in n.orelse:
                r = walk(s, loop_depth)
                if r is not None:
                    return r
            return None
        for c in ast.iter_child_nodes(n):
            r = walk(c, loop_depth)
            if r is not None:
                return r
        return None

    for s in stmts:
        r = walk(s, 0)
        if r is not None:
            return r
    return None


def _describe(node):
    return {
        ast.Return: "`return`", ast.Break: "`break`", ast.Continue: "`continue`",
        ast.Yield: "`yield`", ast.YieldFrom: "`yield from`", ast.Await: "`await`",
        ast.Global: "`global`", ast.Nonlocal: "`nonlocal`",
    }.get(type(node), type(node).__name__)


# ---------------------------------------------------------------------------
# the rewriter
# ---------------------------------------------------------------------------

class _Scope:
    """A function body being generated: the user's function ('user'), the
    branch of a dynamic if ('branch') or a traced loop body ('loop')."""

    def __init__(self, kind, construct="", carried=()):
        self.kind = kind
        self.construct = construct
        self.carried = set(carried)
        self.loop_depth = 0  # Python loops open inside this scope


_BRANCH_HINT = ("the `if` becomes scf.if, whose branches cannot leave it: assign the "
                "values to variables and act after the `if`, or make the condition "
                "static with `const_expr(...)`")
_RANGE_HINT = ("a `for ... in range(...)` loop is traced into scf.for, which has no "
               "early exit; use `range_constexpr(...)` for a loop that Python unrolls "
               "at trace time")
_WHILE_HINT = ("a traced `while` (scf.while) has no early exit or else clause; this "
               "loop can only run in Python, with a static condition")


class _Rewriter:
    def __init__(self, filename, self_name, locals_=frozenset()):
        self.filename = filename
        self.self_name = self_name
        self.locals = locals_  # the local variables of the function being rewritten
        self.counter = 0
        self.scopes = [_Scope("user")]

    # -- helpers --------------------------------------------------------
    def fresh(self, base):
        self.counter += 1
        return f"__fly_{base}_{self.counter}"

    def loc(self, node):
        return ast.Tuple(elts=[_const(self.filename), _const(node.lineno),
                               _const(node.col_offset)], ctx=ast.Load())

    def loc_kw(self, node):
        return ast.keyword(arg="loc", value=self.loc(node))

    def error(self, message, node):
        return RewriteError(message, self.filename, node.lineno)

    def expr(self, e, full=True):
        if e is None:
            return None
        return _ExprRewriter(self, full).visit(e)

    def raise_stmt(self, message, node):
        return _stamp(ast.Raise(exc=_rt_call("unsupported", [_const(message), self.loc(node)]),
                                cause=None), node)

    @property
    def scope(self):
        return self.scopes[-1]

    # -- blocks ---------------------------------------------------------
    def function_body(self, stmts):
        return self.block(stmts)

    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def body(self, stmts):
        out = self.block(stmts)
        return out or [ast.Pass()]

    def stmt(self, s):
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is not None:
            return m(s)
        return [_ExprRewriter(self, True).visit(s)]

    def python_loop_body(self, stmts):
        self.scope.loop_depth += 1
        try:
            return self.body(stmts)
        finally:
            self.scope.loop_depth -= 1

    # -- leaving statements ---------------------------------------------
    def _leave(self, s, is_loop_jump):
        sc = self.scope
        if sc.kind == "user" or (is_loop_jump and sc.loop_depth > 0):
            return [_ExprRewriter(self, True).visit(s)]
        what = _describe(s)
        if sc.kind == "loop":
            raise self.error(f"{what} inside {sc.construct}: {_hint(sc)}", s)
        return [self.raise_stmt(f"{what} inside an `if` whose condition is a dynamic "
                                f"value: {_BRANCH_HINT}", s)]

    def s_Return(self, s):
        return self._leave(s, False)

    def s_Break(self, s):
        return self._leave(s, True)

    s_Continue = s_Break

    def s_Global(self, s):
        sc = self.scope
        bad = [n for n in s.names if n in sc.carried] if sc.kind != "user" else []
        if not bad:
            return [s]
        what = f"{_describe(s)} {', '.join(bad)}"
        if sc.kind == "loop":
            raise self.error(f"{what} inside {sc.construct}: a loop-carried variable "
                             "cannot be global/nonlocal inside the loop body; declare it "
                             "at the top of the function", s)
        return [self.raise_stmt(f"{what} inside an `if` whose condition is a dynamic "
                                "value: declare it at the top of the function", s)]

    s_Nonlocal = s_Global

    # -- nested definitions ---------------------------------------------
    def s_FunctionDef(self, s):
        ex = _ExprRewriter(self, True)
        s.decorator_list = [ex.visit(d) for d in s.decorator_list]
        _rewrite_defaults(ex, s.args)
        self.scopes.append(_Scope("user"))
        saved = self.self_name, self.locals
        self.self_name, self.locals = _first_param(s), _function_locals(s)
        try:
            s.body = self.body(s.body)
        finally:
            self.scopes.pop()
            self.self_name, self.locals = saved
        return [s]

    def s_AsyncFunctionDef(self, s):
        return [s]

    def s_ClassDef(self, s):
        s.body = [self.s_FunctionDef(b)[0] if isinstance(b, ast.FunctionDef) else b
                  for b in s.body]
        return [s]

    # -- compound statements with blocks ---------------------------------
    def s_With(self, s):
        ex = _ExprRewriter(self, True)
        for item in s.items:
            item.context_expr = ex.visit(item.context_expr)
        s.body = self.body(s.body)
        return [s]

    def s_Try(self, s):
        s.body = self.body(s.body)
        for h in s.handlers:
            if h.type is not None:
                h.type = self.expr(h.type)
            h.body = self.body(h.body)
        s.orelse = self.block(s.orelse)
        s.finalbody = self.block(s.finalbody)
        return [s]

    s_TryStar = s_Try

    def s_Match(self, s):
        s.subject = self.expr(s.subject)
        for case in s.cases:
            if case.guard is not None:
                case.guard = self.expr(case.guard)
            case.body = self.body(case.body)
        return [s]

    def s_AsyncFor(self, s):
        return [s]

    s_AsyncWith = s_AsyncFor

    # -- if ---------------------------------------------------------------
    def s_If(self, s):
        if _is_const_expr(s.test):
            s.test = self.expr(s.test)
            s.body = self.body(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        assigned = _assigned(s.body + s.orelse)
        mutated = self.in_place(s.body + s.orelse, assigned)
        names = assigned + mutated
        dyn_body = copy.deepcopy(s.body)
        dyn_else = copy.deepcopy(s.orelse)
        c = self.fresh("cond")
        out = [_stamp(ast.Assign(targets=[_store(c)], value=self.expr(s.test)), s)]
        static_if = _stamp(ast.If(test=_load(c), body=self.body(s.body),
                                  orelse=self.block(s.orelse)), s)

        dynamic = []
        self.scopes.append(_Scope("branch", "an `if` on a dynamic condition", names))
        try:
            then_name = self.fresh("then")
            dynamic.append(self.gen_function(then_name, names, names, self.body(dyn_body), s))
            if s.orelse:
                else_name = self.fresh("else")
                dynamic.append(self.gen_function(else_name, names, names,
                                                 self.body(dyn_else), s))
                else_ref = _load(else_name)
            else:
                else_ref = _const(None)
        finally:
            self.scopes.pop()
        capture, values = self.capture(names, s)
        dynamic.extend(capture)
        res = self.fresh("res")
        call = _rt_call("if_", [_load(c), _load(then_name), else_ref, _strs(names), values],
                        [self.loc_kw(s)] + self.mutated_kw(mutated))
        dynamic.append(ast.Assign(targets=[_store(res)], value=call))
        dynamic.extend(self.write_back(names, res))
        test = ast.UnaryOp(op=ast.Not(), operand=_rt_call("is_dynamic", [_load(c)]))
        out.append(_stamp(ast.If(test=test, body=[static_if], orelse=dynamic), s))
        return out

    # -- for --------------------------------------------------------------
    def s_For(self, s):
        kind = _range_kind(s.iter)
        if kind and any(k.arg == "init" for k in s.iter.keywords):
            if kind == "range":
                return self.range_init_loop(s)
            raise self.error("init= belongs to a traced `range(..., init=[...])` loop; "
                             "range_constexpr(...) is a Python loop, which carries values in "
                             "Python variables", s)
        if kind != "range":
            if kind == "constexpr":
                ex = _ExprRewriter(self, True)
                s.iter.args = [ex.visit(a) for a in s.iter.args]
                s.iter.keywords = [ex.visit(k) for k in s.iter.keywords]
            else:
                s.iter = self.expr(s.iter)
            s.target = self.expr(s.target)
            s.body = self.python_loop_body(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        construct = "a `for ... in range(...)` loop"
        if s.orelse:
            raise self.error(f"an `else:` clause on {construct}: {_RANGE_HINT}", s.orelse[0])
        if not isinstance(s.target, ast.Name):
            raise self.error(f"the target of {construct} must be a single name (the "
                             "induction variable); unpack inside the body (a loop that "
                             "carries state explicitly is `for iv, state in range(lo, hi, "
                             "step, init=[...])`)", s)
        bounds, temps, options = self.range_call(s, construct)
        iv = s.target.id
        assigned = [x for x in _assigned(s.body) if x != iv]
        mutated = self.in_place(s.body, assigned, (iv,))
        names = assigned + mutated
        self.scopes.append(_Scope("loop", construct, names))
        try:
            body_name = self.fresh("body")
            fn = self.gen_function(body_name, [iv] + names, names + [iv], self.body(s.body), s)
        finally:
            self.scopes.pop()
        capture, values = self.capture(names + [iv], s)
        iv_value = values.elts.pop()
        res = self.fresh("res")
        kws = [self.loc_kw(s)] + self.mutated_kw(mutated)
        kws.append(ast.keyword(arg="iv", value=ast.Tuple(elts=[_const(iv), iv_value],
                                                         ctx=ast.Load())))
        kws.extend(options)
        call = _rt_call("for_range", temps + [_load(body_name), _strs(names), values], kws)
        out = bounds + [fn] + capture + [ast.Assign(targets=[_store(res)], value=call)]
        out.extend(self.write_back(names + [iv], res))
        return [_stamp(x, _header(s)) for x in out]

    def range_call(self, s, construct, extra=()):
        """The statements evaluating the bounds of the range() of loop `s`
        (and the expressions of the keywords `extra`, in source order) into
        temporaries; the temporaries; the `options=` keyword of the other
        keywords (of `X.range(...)`), if any."""
        call = s.iter
        if any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            raise self.error(f"`*args`/`**kwargs` in the range() of {construct}: pass "
                             "start, stop and step explicitly", s)
        others = [k for k in call.keywords if k.arg not in extra]
        if isinstance(call.func, ast.Name) and others:
            raise self.error("range() takes no keyword arguments" + (
                " but init=" if extra else ""), s)
        n = len(call.args)
        if not 1 <= n <= 3:
            raise self.error(f"range() of {construct} takes 1 to 3 arguments, not {n}", s)
        args = [self.expr(a) for a in call.args]
        if n == 1:
            args = [_const(0), args[0], _const(1)]
        elif n == 2:
            args.append(_const(1))
        named = [(k.arg, self.expr(k.value)) for k in call.keywords if k.arg in extra]
        bounds, temps = [], []
        for what, e in list(zip(("start", "stop", "step"), args)) + named:
            t = self.fresh(what)
            bounds.append(_stamp(ast.Assign(targets=[_store(t)], value=e), s))
            temps.append(_load(t))
        options = [ast.keyword(arg="options", value=ast.Dict(
            keys=[_const(k.arg) for k in others], values=[self.expr(k.value) for k in others]))
        ] if others else []
        return bounds, temps, options

    def range_init_loop(self, s):
        """`for iv, state in range(lo, hi, step, init=[...])`, its body ending
        in `results = yield [...]`: __fly_rt__.for_range_init."""
        construct = "a `for ... in range(..., init=...)` loop"
        if s.orelse:
            raise self.error(f"an `else:` clause on {construct}: {_RANGE_HINT}", s.orelse[0])
        t = s.target
        if not (isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) == 2
                and not any(isinstance(e, ast.Starred) for e in t.elts)):
            raise self.error(f"the target of {construct} is `iv, state`: the loop counter "
                             "and the list of the carried values", s)
        state = t.elts[1]
        arity = len(state.elts) if isinstance(state, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in state.elts) else None
        bounds, temps, options = self.range_call(s, construct, ("init",))
        body, last = s.body[:-1], s.body[-1]
        if isinstance(last, ast.Expr) and isinstance(last.value, ast.Yield):
            yielded, result_targets = last.value, []
        elif isinstance(last, ast.Assign) and isinstance(last.value, ast.Yield):
            yielded, result_targets = last.value, last.targets
        else:
            body, yielded, result_targets = s.body, None, []
        unpack = _stamp(ast.Assign(targets=[self.expr(t)], value=ast.Tuple(
            elts=[_load("__fly_iv"), _load("__fly_state")], ctx=ast.Load())), t)
        names = _assigned([unpack] + body)
        out_name = self.fresh("yielded")
        if yielded is None:
            value = _rt("UNDEF")
        else:
            value = self.expr(yielded.value) if yielded.value is not None else _const(None)
        self.scopes.append(_Scope("loop", construct, names))
        try:
            body_name = self.fresh("body")
            body = [unpack] + self.block(body) + [
                _stamp(ast.Assign(targets=[_store(out_name)], value=value), yielded or s)]
            fn = self.gen_function(body_name, ["__fly_iv", "__fly_state"] + names,
                                   [out_name] + names, body, s)
        finally:
            self.scopes.pop()
        capture, values = self.capture(names, s)
        res = self.fresh("res")
        kws = [self.loc_kw(s)] + options
        if yielded is not None:
            kws.append(ast.keyword(arg="yield_loc", value=self.loc(yielded)))
        if arity is not None:
            kws.append(ast.keyword(arg="state_arity", value=_const(arity)))
        call = _rt_call("for_range_init", temps + [_load(body_name), _strs(names), values], kws)
        out = bounds + [fn] + capture + [ast.Assign(targets=[_store(res)], value=call)]
        out.extend(self.write_back(names, res))
        out = [_stamp(x, _header(s)) for x in out]
        if result_targets:
            item = ast.Subscript(value=_load(res), slice=_const(len(names)), ctx=ast.Load())
            out.append(_stamp(ast.Assign(targets=[self.expr(x) for x in result_targets],
                                         value=item), last))
        return out

    # -- while ------------------------------------------------------------
    def s_While(self, s):
        if _is_const_expr(s.test):
            s.test = self.expr(s.test)
            s.body = self.python_loop_body(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        reason = where = None
        bad_test = _contains(s.test, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await))
        if s.orelse:
            reason, where = "an `else:` clause on", s.orelse[0]
        elif bad_test is not None:
            reason = ("an assignment expression (:=)" if isinstance(bad_test, ast.NamedExpr)
                      else _describe(bad_test)) + " in the condition of"
            where = bad_test
        else:
            where = _escape(s.body)
            if where is not None:
                reason = f"{_describe(where)} inside"
        if reason is not None:
            message = (f"{reason} a `while` loop (line {s.lineno}) whose condition is a "
                       f"dynamic value: {_WHILE_HINT}")
            test = _rt_call("static_cond", [self.expr(s.test), _const(message),
                                            self.loc(where)])
            s.test = _stamp(test, s)
            s.body = self.python_loop_body(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        assigned = _assigned(s.body)
        mutated = self.in_place(s.body, assigned)
        names = assigned + mutated
        self.scopes.append(_Scope("loop", "a `while` loop", names))
        try:
            cond_name = self.fresh("whilecond")
            cond_fn = self.gen_function(cond_name, names, None,
                                        [_stamp(ast.Return(value=self.expr(s.test)), s)], s)
            body_name = self.fresh("body")
            body_fn = self.gen_function(body_name, names, names, self.body(s.body), s)
        finally:
            self.scopes.pop()
        capture, values = self.capture(names, s)
        res = self.fresh("res")
        call = _rt_call("while_", [_load(cond_name), _load(body_name), _strs(names), values],
                        [self.loc_kw(s)] + self.mutated_kw(mutated))
        out = [cond_fn, body_fn] + capture + [ast.Assign(targets=[_store(res)], value=call)]
        out.extend(self.write_back(names, res))
        return [_stamp(x, s) for x in out]

    # -- generated pieces -------------------------------------------------
    def in_place(self, stmts, names, exclude=()):
        """The local variables `stmts` change in place only (not in `names`,
        the variables they assign)."""
        skip = set(names) | set(exclude)
        return [n for n in _changed_in_place(stmts) if n in self.locals and n not in skip]

    @staticmethod
    def mutated_kw(mutated):
        return [ast.keyword(arg="mutated", value=_strs(mutated))] if mutated else []

    def gen_function(self, name, params, results, body, src):
        """def name(*params): <unbind UNDEF params>; body; return results."""
        pro = []
        for p in (results if results is not None else params):
            if p not in params:
                continue
            pro.append(ast.If(
                test=ast.Compare(left=_load(p), ops=[ast.Is()], comparators=[_rt("UNDEF")]),
                body=[ast.Delete(targets=[ast.Name(id=p, ctx=ast.Del())])], orelse=[]))
        epi = []
        if results is not None:
            outs = []
            for i, r in enumerate(results):
                t = f"__fly_out_{i}"
                epi.append(self._try_read(r, t))
                outs.append(_load(t))
            epi.append(ast.Return(value=ast.Tuple(elts=outs, ctx=ast.Load())))
        fn = ast.FunctionDef(name=name, args=_args(params), body=pro + body + epi,
                             decorator_list=[], returns=None, type_comment=None)
        return _stamp(fn, src)

    def _try_read(self, name, target):
        return ast.Try(
            body=[ast.Assign(targets=[_store(target)], value=_load(name))],
            handlers=[ast.ExceptHandler(type=_load("NameError"), name=None, body=[
                ast.Assign(targets=[_store(target)], value=_rt("UNDEF"))])],
            orelse=[], finalbody=[])

    def capture(self, names, src):
        stmts, elts = [], []
        for n in names:
            t = self.fresh("in")
            stmts.append(_stamp(self._try_read(n, t), src))
            elts.append(_load(t))
        return stmts, _stamp(ast.Tuple(elts=elts, ctx=ast.Load()), src)

    def write_back(self, names, res):
        out = []
        for i, n in enumerate(names):
            item = ast.Subscript(value=_load(res), slice=_const(i), ctx=ast.Load())
            out.append(ast.If(
                test=ast.Compare(left=item, ops=[ast.Is()], comparators=[_rt("UNDEF")]),
                body=[ast.Try(body=[ast.Delete(targets=[ast.Name(id=n, ctx=ast.Del())])],
                              handlers=[ast.ExceptHandler(type=_load("NameError"), name=None,
                                                          body=[ast.Pass()])],
                              orelse=[], finalbody=[])],
                orelse=[ast.Assign(targets=[_store(n)],
                                   value=ast.Subscript(value=_load(res), slice=_const(i),
                                                       ctx=ast.Load()))]))
        return out


def _hint(scope, node=None):
    if "range" not in scope.construct:
        return _WHILE_HINT
    if not isinstance(node, ast.Yield):
        return _RANGE_HINT
    if "init=" in scope.construct:
        return ("its `yield` is the last statement of the body (`results = yield [...]`), "
                "outside any `if` or nested loop")
    return ("a loop that carries values explicitly is `for iv, state in range(lo, hi, step, "
            "init=[...])` ending in `results = yield [...]`; " + _RANGE_HINT)


def _rewrite_defaults(ex, args):
    args.defaults = [ex.visit(d) for d in args.defaults]
    args.kw_defaults = [ex.visit(d) if d is not None else None for d in args.kw_defaults]


class _ExprRewriter(ast.NodeTransformer):
    """Expressions: calls everywhere; ifexp/and/or/not when `full` (the
    function's own expressions, not lambdas or comprehensions)."""

    def __init__(self, owner: _Rewriter, full: bool):
        self.owner = owner
        self.full = full
        self.nested = 0  # inside a lambda/comprehension

    # nested expression scopes
    def _nested(self, node):
        saved = self.full
        self.full = False
        self.nested += 1
        try:
            self.generic_visit(node)
        finally:
            self.full = saved
            self.nested -= 1
        return node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id == "super" and not node.args and not node.keywords \
                and self.nested == 0 and self.owner.scope.kind != "user" and self.owner.self_name:
            node.args = [_load("__class__"), _load(self.owner.self_name)]
            _stamp(node, node)
            return node
        if isinstance(f, ast.Name) and (f.id in _FRAME_SENSITIVE or f.id in _NO_WRAP_CALLS):
            return node
        if isinstance(f, ast.Attribute) and f.attr in _NO_WRAP_CALLS:
            return node
        node.func = _stamp(_rt_call("callee", [f, self.owner.loc(node)]), node)
        return node

    def _thunk(self, e):
        return ast.copy_location(ast.Lambda(args=_args([]), body=e), e)

    def visit_IfExp(self, node):
        if not self.full or _is_const_expr(node.test):
            return self.generic_visit(node)
        self.generic_visit(node)
        if _unsafe_in_thunk(node.body) or _unsafe_in_thunk(node.orelse):
            return node
        call = _rt_call("ifexp", [node.test, self._thunk(node.body), self._thunk(node.orelse)],
                        [self.owner.loc_kw(node)])
        return _stamp(call, node)

    def visit_BoolOp(self, node):
        if not self.full:
            return self.generic_visit(node)
        self.generic_visit(node)
        if any(_unsafe_in_thunk(v) for v in node.values):
            return node
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        call = _rt_call(name, [self._thunk(v) for v in node.values], [self.owner.loc_kw(node)])
        return _stamp(call, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not self.full or not isinstance(node.op, ast.Not):
            return node
        return _stamp(_rt_call("not_", [node.operand], [self.owner.loc_kw(node)]), node)

    def _leaving_expr(self, node):
        self.generic_visit(node)
        if self.nested:
            return node
        sc = self.owner.scope
        if sc.kind == "user":
            return node
        what = _describe(node)
        if sc.kind == "loop":
            raise self.owner.error(f"{what} inside {sc.construct}: {_hint(sc, node)}", node)
        msg = f"{what} inside an `if` whose condition is a dynamic value: {_BRANCH_HINT}"
        return _stamp(_rt_call("raise_unsupported", [_const(msg), self.owner.loc(node)]), node)

    visit_Yield = visit_YieldFrom = visit_Await = _leaving_expr

    # Leaves hold nothing to rewrite (a Name's context is a leaf too):
    # returned as they are, without generic_visit's walk of their fields.
    def _leaf(self, node):
        return node

    visit_Name = visit_Constant = _leaf
