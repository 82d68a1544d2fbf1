"""@flyc.jit and flyc.compile: a host function traced, per argument
signature, into a `func.func` that launches the kernels it calls (its
tensor, scalar and stream arguments become its arguments; Constexpr ones
are Python values), compiled (or found in the disk cache), and kept for
that signature; warm calls dispatch on a key of the arguments straight to
the compiled function."""

from __future__ import annotations

import atexit
import logging
import os
import re
import sys
import time
import weakref

from .. import _fly
from . import arguments as args_mod
from ..tracing.ast_rewriter import rewrite
from .backends import CompileOptions, get_backend
from .cache_key import GlobalsBaseline, key_material
from .env import Environment
from .hints import ambient_hints, check_hints
from ..tracing.errors import ArgumentError, CompileError, FlyDSLError, TraceError, user_traceback
from ..tracing.ir import parse_type, user_location
from ..tracing.trace import Trace
from ..tracing.tracer import Tracer
from .compiled import CallState, CompiledFunction, torch_tensor_type
from .runtime import target_runtime as _target_runtime
from ..tracing.signature import Stream
from ..expr._elementwise import FastmathScope


_log = logging.getLogger("flydsl")

# The jit functions with a dispatcher, whose entries (packers holding host
# entries) are dropped at exit, before the interpreter tears down modules,
# as compiled.py does with its host entries.
_with_dispatch: "weakref.WeakSet[JitFunction]" = weakref.WeakSet()


@atexit.register
def _release_dispatchers() -> None:
    for jit in list(_with_dispatch):
        jit._dispatch = None


class JitFunction:
    """A @flyc.jit function: compiled per argument signature and compile
    options, its warm calls dispatched on a key of the arguments."""

    def __init__(self, fn, compile_hints: dict | None = None):
        self.fn = fn
        self.func = fn  # FlyDSL's name of the wrapped function
        self.name = fn.__name__
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.signature = args_mod.evaluated_signature(fn)
        # its parameters, described once: each call's arguments are bound
        # and described (one ArgumentSpec each) by it
        self._jit_signature = args_mod.JitSignature(self.name, self.signature)
        self._hints = dict(compile_hints or {})
        self._compiled: dict = {}
        self._globals: GlobalsBaseline | None = None  # what it read at its first call
        # Warm calls: a native table from what a call's argument specs
        # depend on to the packer of the compiled function for them
        # (bindings/ArgumentPacker.cpp); an entry is only stored after the
        # full path accepted a call. None: a signature it cannot bind.
        binding = self._jit_signature.binding
        self._dispatch = None if binding is None else _fly.Dispatcher(
            binding, self._jit_signature.dispatch_kinds, args_mod.TensorDescriptor, Stream,
            torch_tensor_type())
        if self._dispatch is not None:
            _with_dispatch.add(self)

    @property
    def compile_hints(self) -> dict:
        """The compile hints (waves_per_eu, ...) of every compile of this
        function: `flyc.compile[{...}]` and autotune configs set them. A dict,
        which may also be changed in place (as FlyDSL's kernels do): each
        change is checked and makes the function compile anew."""
        return _Hints(self)

    @compile_hints.setter
    def compile_hints(self, hints: dict) -> None:
        if not isinstance(hints, dict):
            raise ArgumentError(f"{self.name}.compile_hints: a dict, got {hints!r}",
                                *user_location()[:2])
        check_hints(hints)
        if hints == self._hints:
            return
        self._hints = dict(hints)
        if self._dispatch is not None:
            self._dispatch.clear()  # its packers were compiled under the old hints

    def compile_options(self) -> CompileOptions:
        """The record this function compiles with now: the environment's
        options and this function's hints, for the selected backend (the
        environment as it is now: a compile reads it again if it changed)."""
        env = Environment.refresh()
        backend = get_backend()
        runtime = _target_runtime(env)
        return CompileOptions(
            backend=env.compile_backend, target=backend.target, backend_hash=backend.hash(),
            opt_level=env.opt_level, debug_info=env.debug_info, emulator=runtime == "emu",
            compile_hints=tuple(sorted(_keyed(_with_emu_check({**self._hints, **ambient_hints()},
                                                               env, runtime)).items())),
            verify_each_pass=env.verify_each_pass, print_after_all=env.print_after_all,
            dump_dir=env.dump_dir_for(self.name), dump_asm=env.dump_asm,
            show_stacktrace=env.show_stacktrace)

    def compile(self, *args, **kwargs) -> CompiledFunction:
        try:
            return self._compile(args, kwargs)
        except FlyDSLError as err:
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def _check_globals(self) -> None:
        """At the first call, record the globals the function reads; at
        later ones, raise GlobalChangedError if one of them changed (its
        compiled code is kept per argument signature, not per globals)."""
        if self._globals is None:
            self._globals = GlobalsBaseline(self.fn)
        else:
            self._globals.check()

    def _arguments(self, args, kwargs) -> dict:
        """The call's arguments by parameter name, defaults applied."""
        return self._jit_signature.bind(args, kwargs)

    def _compile(self, args, kwargs) -> CompiledFunction:
        """The compiled function of a call: kept per its arguments'
        ArgumentSpecs (their keys) and the compile options."""
        self._check_globals()
        specs = self._jit_signature.describe(self._arguments(args, kwargs))
        options = self.compile_options()
        key = (tuple(spec.key for spec in specs), options.arch, options.key())
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._load_or_compile(specs, options)
            compiled.signature = self._jit_signature
            compiled.specs = specs
            compiled.options = options
            self._compiled[key] = compiled
        return compiled

    def _load_or_compile(self, specs, options: CompileOptions) -> CompiledFunction:
        """From the disk cache, or traced and compiled (and stored) once
        across processes. FLYDSL_RUNTIME_RUN_ONLY: from the disk cache only.
        Each is reported (report_compile): the warm path never gets here."""
        env = Environment.current()
        start = time.perf_counter()
        if not env.enable_cache and not env.run_only:
            compiled = self._trace_and_compile(specs, options)
            report_compile(compiled, options, "off", "", start, compiled._stage_ms)
            return compiled
        fields = self._cache_fields(specs, options)
        try:
            cache = _fly.DiskCache.open(env.cache_dir)
        except RuntimeError as err:
            raise FlyDSLError(f"the disk cache: {err}") from None
        # The entry's name, for the report only (it hashes the key again).
        key = entry_digest(cache, fields) if _reported() else ""
        if env.run_only:
            payload = cache.lookup(fields)
            if payload is None:
                raise CompileError(f"{self.name}: FLYDSL_RUNTIME_RUN_ONLY=1, but the disk cache "
                                   f"{env.cache_dir} has no entry for these arguments on "
                                   f"{options.arch} (fill it with COMPILE_ONLY=1 runs)",
                                   *user_location()[:2])
            compiled = CompiledFunction.from_bytes(payload, self)
            report_compile(compiled, options, "hit", key, start,
                           {"load": (time.perf_counter() - start) * 1e3})
            return compiled
        built = []

        def build() -> bytes:
            compiled = self._trace_and_compile(specs, options)
            built.append(compiled)
            return compiled.to_bytes()

        payload = cache.get_or_create(fields, build)
        if built:
            report_compile(built[0], options, "miss", key, start, built[0]._stage_ms)
            return built[0]
        compiled = CompiledFunction.from_bytes(payload, self)
        report_compile(compiled, options, "hit", key, start,
                       {"load": (time.perf_counter() - start) * 1e3})
        return compiled

    def _cache_fields(self, specs, options: CompileOptions) -> list:
        """The disk-cache key material of a compile (the arguments' part:
        their ArgumentSpecs' keys)."""
        return key_material(self.fn, tuple(spec.key for spec in specs), options) + [
            ("emulator", str(options.emulator))]

    def _compile_job(self, args, kwargs) -> dict | None:
        """What a worker process needs to compile this call into the disk
        cache (compile_workers.py: the traced module, its host argument
        names, the options, the cache and the key), or None when there is
        nothing to compile: the call's artifact is in memory or in the
        cache, or the cache is off. Tracing happens here; errors propagate."""
        env = Environment.current()
        if not env.enable_cache or env.run_only:
            return None
        self._check_globals()
        specs = self._jit_signature.describe(self._arguments(args, kwargs))
        options = self.compile_options()
        if (tuple(spec.key for spec in specs), options.arch, options.key()) in self._compiled:
            return None
        fields = self._cache_fields(specs, options)
        cache = _fly.DiskCache.open(env.cache_dir)
        if os.path.exists(cache.entry_path(fields)):
            return None
        text, arg_names = self._trace(specs, options)
        return {"name": self.name, "module_text": text, "arg_names": arg_names,
                "options": options, "cache_dir": cache.directory, "fields": fields,
                "key": entry_digest(cache, fields)}

    def __call__(self, *args, **kwargs):
        if Trace._stack:
            # Called by a function being traced (as FlyDSL does): its body
            # runs there, its launches are the caller's.
            return rewrite(self.fn)(*args, **kwargs)
        try:
            if self._globals is None:  # _check_globals, inline on the warm path
                self._globals = GlobalsBaseline(self.fn)
            else:
                self._globals.check()
            if self._dispatch is None or not self._dispatch.call(args, kwargs):
                self._call(args, kwargs)
        except FlyDSLError as err:
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def _call(self, args, kwargs) -> None:
        """A call its dispatcher did not take: compiled (or found) for its
        specs and run; its key is stored when the native path can take it."""
        compiled = self._compile(args, kwargs)
        if Environment.current().compile_only:
            return
        compiled._call_unchecked(args, kwargs)
        if self._dispatch is not None and compiled._native:
            self._dispatch.set_torch_tensor_type(torch_tensor_type())
            self._dispatch.add(args, kwargs, compiled._native)

    def _trace_and_compile(self, specs, options: CompileOptions) -> CompiledFunction:
        start = time.perf_counter()
        text, arg_names = self._trace(specs, options)
        traced = time.perf_counter()
        compiled = compile_traced(self.name, text, arg_names, options, self)
        compiled._stage_ms = {"trace": (traced - start) * 1e3, **compiled._stage_ms}
        if options.dump_asm and not options.emulator:
            sys.stderr.write(f"// ISA of {self.name} ({options.arch})\n{compiled.isa()}\n")
        return compiled

    def _trace(self, specs, options: CompileOptions):
        """The traced module of these ArgumentSpecs (MLIR text) and the
        names of its host function's arguments."""
        emulator = options.emulator
        trace = Trace()
        trace.emulator = emulator
        trace.arch = options.arch
        b = trace.builder
        host = [(name, parse_type(text)) for spec in specs
                for name, text in zip(spec.host_names, spec.host_types)]
        with trace.activate():
            block = b.push_block([t for _, t in host])
            params = args_mod.traced_parameters(specs, block.args)
            with Tracer().activate(), FastmathScope(_ambient_fastmath(dict(options.compile_hints))):
                rewrite(self.fn)(**params)
            b.op("func.return", [])
            b.pop_block()
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        trace.host_lines.append(f"func.func @{self.name}({params_text}) {{\n"
                                + "\n".join(block.lines) + "\n}")
        text = trace.module_text()
        if Environment.current().print_origin_ir:  # FLYDSL_DEBUG_PRINT_ORIGIN_IR
            sys.stderr.write(f"// the traced module of {self.name}\n{text}\n")
        return text, [name for name, _ in host]


def compile_traced(name: str, text: str, arg_names: list, options: CompileOptions,
                   keepalive=None) -> CompiledFunction:
    """The compiled function of a traced module (what _trace gives), its
    C++ compile timed in its `_stage_ms`; a worker process compiles with it too."""
    start = time.perf_counter()
    backend = get_backend(options.backend, arch=options.arch)
    try:
        objects, kernels, host_module, host_functions = backend.compile(text, options)
    except _fly.Error as err:
        error = _compile_error(name, str(err))
        if options.show_stacktrace:
            raise error from err
        raise error from None
    compiled = CompiledFunction.build(CallState(
        name, text, objects, kernels, host_module, host_functions, arg_names,
        emulator=options.emulator), keepalive)
    compiled._stage_ms = {"compile": (time.perf_counter() - start) * 1e3}
    return compiled


# Callbacks told of every compile and disk-cache load (`flydsl compile`
# collects the kernels' resources with one): f(record, compiled).
compile_observers: list = []


def entry_digest(cache, fields) -> str:
    """The name of the disk-cache entry of `fields` (`flydsl cache list`
    shows its first 16 digits)."""
    return os.path.basename(cache.entry_path(fields))[:-len(".flyc")]


def _reported() -> bool:
    """Whether report_compile shows compiles to anyone (an observer, or the
    flydsl logger at INFO)."""
    return bool(compile_observers) or _log.isEnabledFor(logging.INFO)


def report_compile(compiled: CompiledFunction, options: CompileOptions, cache: str, key: str,
                   start: float, stage_ms: dict) -> None:
    """One info line per compile or disk-cache load (`cache`: "miss",
    "hit" or "off"): the function, its kernels, the chip, the stage times
    and the cache outcome with the entry's key prefix; and the observers."""
    total = (time.perf_counter() - start) * 1e3
    if compile_observers:
        record = {"function": compiled.name, "arch": options.arch, "emulator": options.emulator,
                  "cache": cache, "key": key, "total_ms": total, "stage_ms": dict(stage_ms)}
        for observer in list(compile_observers):
            observer(record, compiled)
    if not _log.isEnabledFor(logging.INFO):
        return
    chip = options.arch + (" (emulator)" if options.emulator else "")
    kernels = ", ".join(k["name"] for k in compiled.kernels) or "none"
    stages = ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in stage_ms.items())
    outcome = {"miss": f"cache miss, key {key[:16]}", "hit": f"cache hit, key {key[:16]}",
               "off": "cache off"}[cache]
    what = "loaded from the disk cache" if cache == "hit" else "traced and compiled"
    _log.info("%s: %s for %s in %.1f ms (%s; %s; kernels: %s)", compiled.name, what, chip,
              total, stages, outcome, kernels)


class LaunchError(TraceError, CompileError, ValueError):
    """A launch the compiler rejects (its fly-check-launches pass): a static
    grid, block or LDS size beyond the chip's limits or against the
    kernel's known_block_size. Located at the launch's line; a TraceError
    as well, as the launch is the user's code the trace ran, and a
    ValueError, as FlyDSL raises one for a block it cannot take."""


# The pass's errors: at the launch's location, naming the kernel first.
_LAUNCH_ERROR = re.compile(r"^(.+):(\d+):\d+: error: (launch of kernel .*)$")


def _compile_error(name: str, diagnostics: str) -> CompileError:
    """The error of a failed compile of function `name`: a LaunchError at
    the user's launch line when the first diagnostic is a launch check's
    (the others, if any, follow it), else a CompileError with every
    diagnostic and its source line."""
    first, _, rest = diagnostics.partition("\n")
    m = _LAUNCH_ERROR.match(first)
    if m is None:
        return CompileError(f"{name}: {_with_source_lines(diagnostics)}")
    message = m.group(3) + ("\n" + _with_source_lines(rest) if rest.strip() else "")
    return LaunchError(message, m.group(1), int(m.group(2)))


def _with_source_lines(diagnostics: str) -> str:
    """Each `file:line:col: error: ...` line followed by the user's source
    line and a caret under the column."""
    import linecache
    import re

    out = []
    for line in diagnostics.splitlines():
        out.append(line)
        m = re.match(r"^(.+):(\d+):(\d+): (error|warning|note): ", line)
        if m:
            source = linecache.getline(m.group(1), int(m.group(2))).rstrip()
            if source:
                out.append("    " + source)
                out.append("    " + " " * (len(source) - len(source.lstrip())) + "^")
    return "\n".join(out)


def _ambient_fastmath(hints: dict):
    """The fastmath flags every float op of the traced body carries unless
    it names its own (as FlyDSL: the `fastmath` hint, else `fast` for
    `fast_fp_math`); None for none."""
    if hints.get("fastmath") is not None:
        return hints["fastmath"]
    return "fast" if hints.get("fast_fp_math") else None


def _keyed(hints: dict) -> dict:
    """The hints with llvm_options' dict as sorted (name, value) pairs, a
    value a compile's key can hold."""
    if isinstance(hints.get("llvm_options"), dict):
        hints = dict(hints, llvm_options=tuple(sorted(hints["llvm_options"].items())))
    return hints


def _with_emu_check(hints: dict, env, runtime: str) -> dict:
    """The hints a compile keys on and passes: `emu_check` (the hint, else
    FLYDSL_EMU_CHECK) normalised for the emulator, dropped for a chip."""
    from .emu_check import parse

    if "emu_check" not in hints and not env.emu_check:
        return hints
    hints = dict(hints)
    check = hints.pop("emu_check", env.emu_check)
    check = parse(check, "compile hint emu_check") if runtime == "emu" else ""
    if check:
        hints["emu_check"] = check
    return hints


class _Hints(dict):
    """A jit function's compile hints as a dict: a change made through it
    goes through the function's setter (checked, and the function compiles
    anew under the new hints)."""

    __slots__ = ("_function",)

    def __init__(self, function: "JitFunction"):
        super().__init__(function._hints)
        self._function = function

    def _changed(self, change, *args):
        new = dict(self)
        result = getattr(dict, change)(new, *args)
        self._function.compile_hints = new
        getattr(dict, change)(self, *args)
        return result

    def __setitem__(self, name, value):
        self._changed("__setitem__", name, value)

    def __delitem__(self, name):
        self._changed("__delitem__", name)

    def update(self, *args, **kwargs):
        self._changed("update", dict(*args, **kwargs))

    def pop(self, *args):
        return self._changed("pop", *args)

    def popitem(self):
        return self._changed("popitem")

    def setdefault(self, name, default=None):
        return self._changed("setdefault", name, default)

    def clear(self):
        self._changed("clear")

    def __ior__(self, other):
        self.update(other)
        return self


def jit(func=None):
    """A host function traced and compiled per argument signature
    (`@flyc.jit` or `@flyc.jit()`)."""
    if func is None:
        return JitFunction
    if isinstance(func, JitFunction):
        return func
    if not callable(func):
        raise ArgumentError(f"flyc.jit(func): a function, got {type(func).__name__} {func!r}",
                            *user_location()[:2])
    return JitFunction(func)


class _Compile:
    """`flyc.compile(func, *args, **kwargs)`: the compiled form of a
    @flyc.jit function for these arguments (without arguments: `func`
    itself); `flyc.compile[{"waves_per_eu": 2}](func, ...)` with compile
    hints, which stay on the function. As FlyDSL's, it runs the call once
    (unless COMPILE_ONLY), then hands out the compiled function; under
    COMPILE_ONLY it returns the compiled function too (for its ISA and
    resources) where FlyDSL returns None."""

    def __init__(self, hints: dict | None = None):
        self._hints = hints

    def __getitem__(self, hints: dict) -> "_Compile":
        if not isinstance(hints, dict):
            raise ArgumentError(f"flyc.compile[...] expects a dict of compile hints, got "
                                f"{type(hints).__name__} {hints!r}", *user_location()[:2])
        check_hints(hints)
        return _Compile(dict(hints))

    def __call__(self, func, *args, **kwargs):
        if not isinstance(func, JitFunction):
            if not callable(func):
                raise ArgumentError(f"flyc.compile(func): a @flyc.jit function, got "
                                    f"{type(func).__name__} {func!r}", *user_location()[:2])
            func = JitFunction(func)
        if self._hints:
            func.compile_hints = {**func.compile_hints, **self._hints}
        if not args and not kwargs and func.signature.parameters:
            return func
        try:
            compiled = func._compile(args, kwargs)
            if not Environment.current().compile_only:
                compiled._call_unchecked(args, kwargs)
            return compiled
        except FlyDSLError as err:  # as JitFunction.compile
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def __repr__(self):
        return "flyc.compile" + (f"[{self._hints!r}]" if self._hints else "")


compile = _Compile()
