"""The key material of a compiled @flyc.jit signature (SPEC §6).

The C++ cache adds the toolchain identity (the compiler's sources and
LLVM's version); Python supplies everything else, before tracing so that a
hit skips tracing entirely:
- the front end itself: a hash of the flydsl package's Python sources;
- the compiled code of the jit function and of everything it can reach
  (bytecode, constants and names, `_describe_code`; its file and line
  table only with debug info or for the emulator, see key_material):
  the kernels, helpers and jit functions named by its code (globals,
  closure cells, attributes of user modules), recursively. Functions are named by
  their qualified names only: the same code with the same captures in
  another module (or the same file imported again) is the same entry;
- the values it reads from globals and closures (numbers, strings, tuples of
  them; the source file of a user module; the name of anything else);
- the argument signature (tensor element types, layouts with their
  dynamic leaves, divisibility and alignment; scalar types; Constexpr
  values) and the target and options.

Anything whose content cannot be described exactly is described by its
`repr`, which at worst misses the cache (an `object at 0x...`), never hits
a stale entry.

Within a process, a function's compiled code is kept per argument
signature, so the globals it read when first called must not change
afterwards: `GlobalsBaseline` records them (the same walk) and a later call
that finds one changed raises GlobalChangedError, as FlyDSL does.
"""

from __future__ import annotations

import functools
import operator
import os
import reprlib
import sys
import types

from .. import _fly
from ..tracing.errors import FlyDSLError
from ..tracing.ir import user_location

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SIMPLE = (int, float, bool, str, bytes, type(None), complex)


# The package's walk starts as this module is imported and runs on a thread
# of the runtime's while the rest of the package imports: it is system calls
# only (a stat per file), most of the first disk-cache hit's time otherwise.
_pending_identity = _fly.TreeDigestTask(_PACKAGE_DIR, ".py")


@functools.lru_cache(maxsize=1)
def frontend_identity() -> str:
    """The cache's hash of the flydsl package's Python files: each one's path
    (from the package's directory), size and modification time in ns, as
    Python's own bytecode cache tells a changed source (reading every file's
    contents costs milliseconds a process). Each directory's entries by
    name, its files before its subdirectories, depth first; __pycache__
    skipped (the runtime's `tree_digest`). The first call takes the walk
    started at import, when it is of the package's directory still."""
    global _pending_identity
    pending, _pending_identity = _pending_identity, None
    if pending is not None and pending.directory == _PACKAGE_DIR:
        return pending.result()
    return _fly.tree_digest(_PACKAGE_DIR, ".py")


# The interpreter's own library directories.
_PYTHON_LIBS = tuple({os.path.join(prefix, "lib")
                      for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


def _is_user_file(filename: str | None) -> bool:
    if not filename or filename.startswith(_PACKAGE_DIR) or filename.startswith(_PYTHON_LIBS):
        return False
    return "site-packages" not in filename and "dist-packages" not in filename


def _names(code: types.CodeType):
    """Global/attribute names used by a code object and the ones nested in
    it."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _describe_code(code: types.CodeType, locations: bool = True) -> str:
    """What a function's compiled code is, exactly and the same in every
    process of this Python (the runtime's `code_digest`): the digest of its
    bytecode and exception table, each preceded by its length (8 bytes,
    little endian); with `locations`, its line table too; the repr of
    (co_name, co_argcount, co_posonlyargcount, co_kwonlyargcount, co_flags,
    co_names, co_varnames, co_freevars, co_cellvars), with `locations`
    also co_filename and co_firstlineno; then each constant followed by a
    NUL: a nested code object as "code:" and its own digest, a set as
    "frozenset(...)" of its elements' descriptions in sorted order (their
    iteration order changes with the hash seed), a tuple as "tuple(...)"
    element by element, anything else as "<type name>:<repr>". Cheaper than
    reading and tokenising its source, and blind to comments alone (and,
    without locations, to where the code lives)."""
    return _fly.code_digest(code, locations)


class _Collector:
    def __init__(self, locations: bool):
        self.fields: list[tuple[str, str]] = []
        self.seen: set[int] = set()
        self.locations = locations
        self.reads: dict[tuple[int, str], tuple[dict, str]] = {}  # the globals read

    def function(self, fn):
        fn = getattr(fn, "fn", fn)  # Kernel / JitFunction wrap a function
        fn = getattr(fn, "__func__", fn)
        if id(fn) in self.seen or not isinstance(fn, types.FunctionType):
            return
        self.seen.add(id(fn))
        code = fn.__code__
        if not _is_user_file(code.co_filename):
            return
        self.fields.append((f"code:{fn.__qualname__}", _describe_code(code, self.locations)))
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                self.value(f"closure:{fn.__qualname__}.{name}", cell.cell_contents)
            except ValueError:  # an empty cell
                self.fields.append((f"closure:{fn.__qualname__}.{name}", "<unbound>"))
        for name in sorted(set(_names(code))):
            if name in fn.__globals__:
                self.reads.setdefault((id(fn.__globals__), name), (fn.__globals__, name))
                self.value(f"global:{fn.__qualname__}.{name}", fn.__globals__[name])

    def value(self, field, value):
        if isinstance(value, types.ModuleType):
            filename = getattr(value, "__file__", None)
            if _is_user_file(filename):
                with open(filename, "rb") as f:
                    self.fields.append((field, "module:" + _fly.digest(f.read())))
            else:
                self.fields.append((field, f"module:{value.__name__}"))
            return
        self.fields.append((field, self.describe(value)))

    def describe(self, value, depth=0) -> str:
        """A value a function reads, as the same text in every process (no
        addresses): a user function by its name (its code joins the key), a
        library's by module and name, containers element by element."""
        target = getattr(value, "fn", value)
        target = getattr(target, "__func__", target)
        if isinstance(target, types.FunctionType):
            self.function(target)
            if _is_user_file(target.__code__.co_filename):
                return f"function:{target.__qualname__}"
            return f"function:{target.__module__}.{target.__qualname__}"
        if isinstance(value, _SIMPLE):
            return f"{type(value).__name__}:{value!r}"
        if isinstance(value, (tuple, list, frozenset)) and depth < 3:
            return (f"{type(value).__name__}("
                    + ",".join(self.describe(v, depth + 1) for v in value) + ")")
        if isinstance(value, dict) and depth < 3:
            return "dict(" + ",".join(f"{k!r}:{self.describe(v, depth + 1)}" for k, v in
                                      sorted(value.items(), key=lambda kv: repr(kv[0]))) + ")"
        if isinstance(value, type):
            module = sys.modules.get(value.__module__)
            # (A module loaded from a file without being registered in
            # sys.modules -- spec_from_file_location -- is the user's too.)
            if depth < 3 and (module is None or _is_user_file(getattr(module, "__file__", None))):
                # A user's class (an fx.struct, ...): its name and what it
                # declares, not the name its module was imported under.
                members = {k: v for k, v in vars(value).items()
                           if not k.startswith("__") or k == "__annotations__"}
                return (f"class:{value.__qualname__}(" + ",".join(
                    f"{k}={self.describe(v, depth + 1)}" for k, v in sorted(members.items())) + ")")
            return f"class:{value.__module__}.{value.__qualname__}"
        return f"{type(value).__name__}:{value!r}"


def key_material(fn, specs, options) -> list[tuple[str, str]]:
    """The (field, value) pairs of the cache key of `fn` compiled for
    argument `specs` with `options` (a CompileOptions: the backend and its
    target, the options and hints that change the artifact, emulator or
    chip). Source files and lines are in the key only where they are in
    the artifact: with debug info, and in emulator code, whose fault
    messages name the user's line. Otherwise the same code hits from any
    directory."""
    collector = _Collector(locations=options.debug_info or options.emulator)
    collector.fields += [("frontend", frontend_identity()),
                         ("function", fn.__qualname__),
                         ("arguments", repr(specs)),
                         ("chip", options.arch),
                         ("options", options.key_text())]
    collector.function(fn)
    return collector.fields


class GlobalChangedError(FlyDSLError, RuntimeError):
    """A global that a @flyc.jit function (or a kernel or helper it reaches)
    reads changed after the function's first call: its compiled code would
    be stale. A RuntimeError as well, as FlyDSL raises one."""


class _Cycle(Exception):
    """A container that holds itself (compared by identity only)."""


def _contents(value, path=()):
    """A copy of the builtin containers in `value` (lists, tuples, dicts,
    sets, nested), their other elements the objects themselves: what a
    later `==` compares a global against to see a change made in place
    (elements that are the same object compare equal without __eq__)."""
    kind = type(value)
    if kind in (list, tuple, dict, set, frozenset):
        if id(value) in path:
            raise _Cycle
        path += (id(value),)
        if kind is dict:
            return {k: _contents(v, path) for k, v in value.items()}
        if kind in (set, frozenset):
            return kind(value)
        elements = [_contents(v, path) for v in value]
        if kind is tuple and all(c is v for c, v in zip(elements, value)):
            return value  # nothing in it changes in place: itself
        return kind(elements)
    return value


_MISSING = object()


class GlobalsBaseline:
    """The globals a @flyc.jit function reads (its code, and the kernels,
    helpers and jit functions it reaches, as key_material walks them) with
    their values at its first call; `check()` raises GlobalChangedError
    for one that changed since, as FlyDSL does: bound to an unequal value,
    deleted, or a builtin container changed in place. A call costs one
    tuple of reads per module and its `==` against the recorded one, which
    compares the same objects by identity, in C."""

    def __init__(self, fn):
        collector = _Collector(locations=False)
        collector.function(fn)
        self.function = getattr(fn, "__name__", "?")
        self.entries = []  # (namespace, name, recorded contents, its repr)
        by_module: dict[int, tuple[dict, list, list]] = {}
        for namespace, name in collector.reads.values():
            value = namespace[name]
            try:
                contents = _contents(value)
            except _Cycle:
                contents = value  # compared by identity
            self.entries.append((namespace, name, contents, reprlib.repr(value)))
            _, names, recorded = by_module.setdefault(id(namespace), (namespace, [], []))
            names.append(name)
            recorded.append(contents)
        self.modules = []  # (namespace, a reader of its globals, their recorded contents)
        for namespace, names, recorded in by_module.values():
            if len(names) == 1:  # twice, so that the reader gives a tuple
                names, recorded = names * 2, recorded * 2
            self.modules.append((namespace, operator.itemgetter(*names), tuple(recorded)))

    def check(self) -> None:
        try:
            for namespace, read, recorded in self.modules:
                if read(namespace) != recorded:
                    break
            else:
                return
        except Exception:  # a deleted global, or an == with no answer
            pass
        self._raise_for_change()

    def _raise_for_change(self) -> None:
        for namespace, name, contents, shown in self.entries:
            now = namespace.get(name, _MISSING)
            try:
                unchanged = now is not _MISSING and bool(now == contents)
            except Exception:  # no answer (an array's elementwise ==, ...): changed
                unchanged = False
            if not unchanged:
                module = namespace.get("__name__", "?")
                new = "deleted" if now is _MISSING else reprlib.repr(now)
                raise GlobalChangedError(
                    f"{self.function}: the global {name!r} of module {module} changed since the "
                    f"function's first call (was {shown}, now {new}); its code was compiled "
                    "for the globals it read then. Pass the value as an argument (an "
                    "fx.Constexpr to compile it in), or leave the global as it is",
                    *user_location()[:2])
