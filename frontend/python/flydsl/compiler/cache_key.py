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
"""

from __future__ import annotations

import functools
import os
import sys
import types

from .. import _fly

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SIMPLE = (int, float, bool, str, bytes, type(None), complex)


@functools.lru_cache(maxsize=1)
def frontend_identity() -> str:
    """The cache's hash of the flydsl package's Python files: each one's path, size
    and modification time (as Python's own bytecode cache tells a changed
    source; reading every file's contents costs milliseconds a process)."""
    parts = []
    pending = [_PACKAGE_DIR]
    while pending:  # depth first, each directory's entries by name
        with os.scandir(pending.pop()) as it:
            entries = sorted(it, key=lambda e: e.name)
        subdirs = []
        for e in entries:
            if e.name.endswith(".py"):
                st = e.stat()
                parts.append(f"{e.path[len(_PACKAGE_DIR):]}\0{st.st_size}\0{st.st_mtime_ns}\0")
            elif e.name != "__pycache__" and e.is_dir():
                subdirs.append(e.path)
        pending.extend(reversed(subdirs))
    return _fly.digest("".join(parts).encode())


def _is_user_file(filename: str | None) -> bool:
    if not filename or filename.startswith(_PACKAGE_DIR):
        return False
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        if filename.startswith(os.path.join(prefix, "lib")):
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
    process of this Python: its bytecode, constants (nested code objects
    described the same way, sets in sorted order: their iteration order
    changes with the hash seed), names and argument layout; with
    `locations`, also its file and line table. Cheaper than reading and
    tokenising its source, and blind to comments alone (and, without
    locations, to where the code lives)."""
    parts = [code.co_code, getattr(code, "co_exceptiontable", b"")]
    if locations:
        parts.append(code.co_linetable)
    data = [len(part).to_bytes(8, "little") + part for part in parts]
    header = (code.co_name, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
              code.co_flags, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    if locations:
        header += (code.co_filename, code.co_firstlineno)
    data.append(repr(header).encode())
    for const in code.co_consts:
        data.append(_describe_const(const, locations).encode() + b"\0")
    return _fly.digest(b"".join(data))


def _describe_const(const, locations: bool) -> str:
    if isinstance(const, types.CodeType):
        return "code:" + _describe_code(const, locations)
    if isinstance(const, (frozenset, set)):
        return "frozenset(" + ",".join(sorted(_describe_const(c, locations) for c in const)) + ")"
    if isinstance(const, tuple):
        return "tuple(" + ",".join(_describe_const(c, locations) for c in const) + ")"
    return f"{type(const).__name__}:{const!r}"


class _Collector:
    def __init__(self, locations: bool):
        self.fields: list[tuple[str, str]] = []
        self.seen: set[int] = set()
        self.locations = locations

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
