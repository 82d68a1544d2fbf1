"""@flyc.jit and flyc.compile: a host function traced, per argument
signature, into a `func.func` that launches the kernels it calls (its
tensor, scalar and stream arguments become its arguments; Constexpr ones
are Python values), compiled (or found in the disk cache), and kept for
that signature; warm calls dispatch on a key of the arguments straight to
the compiled function."""

from __future__ import annotations

import operator

import logging
import sys
import time

from .. import _fly
from . import arguments as args_mod
from ..tracing.ast_rewriter import rewrite
from .backends import CompileOptions, get_backend
from .cache_key import key_material
from .env import Environment
from .arguments import custom_spec
from ..tracing.errors import ArgumentError, CompileError, FlyDSLError, TraceError, user_traceback
from ..tracing.ir import parse_type, user_location
from ..tracing.trace import Trace
from ..tracing.tracer import Tracer
from .compiled import CallState, CompiledFunction, torch_tensor_type
from .runtime import target_runtime as _target_runtime
from ..tracing.signature import (Stream, StreamValue, bind_arguments, constexpr_type,
                                 evaluated_signature, is_constexpr, stream_handle)
from ..expr import numeric as nm
from ..expr._core import wrap


_log = logging.getLogger("flydsl")

def _tuple_getter(positions):
    """args -> the tuple of args at `positions` (operator.itemgetter, which
    returns a bare element for one position and needs at least one)."""
    positions = tuple(positions)
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    if len(positions) == 1:
        (i,) = positions
        return lambda args: (args[i],)
    return lambda args: ()


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
        self.signature = evaluated_signature(fn)
        self._hints = dict(compile_hints or {})
        self._compiled: dict = {}
        # The fast path of warm calls: positional arrays, descriptors and
        # Python numbers, keyed by what their specs depend on (and the
        # values of Constexpr parameters), straight to the compiled
        # function. A key is only stored after the full path accepted it.
        self._fast: dict = {}
        params = list(self.signature.parameters.values())
        self._fast_ok = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                            for p in params)
        self._constexpr_positions = tuple(i for i, p in enumerate(params)
                                          if is_constexpr(p.annotation))
        self._arity = len(params)
        # Positional calls that leave trailing defaults out take the fast
        # path too, with the defaults filled in.
        self._min_arity = sum(p.default is p.empty for p in params)
        self._tail_defaults = tuple(p.default for p in params[self._min_arity:])
        # fx.Stream parameters: their values never change the code; the key
        # is made of the other arguments.
        self._stream_positions = frozenset(i for i, p in enumerate(params)
                                           if p.annotation is Stream)
        # The key's parts of a positional call, picked at C speed.
        self._streams_of = _tuple_getter(sorted(self._stream_positions))
        self._others_of = _tuple_getter([i for i in range(len(params))
                                         if i not in self._stream_positions])
        self._constexprs_of = _tuple_getter(self._constexpr_positions)

    @property
    def compile_hints(self) -> dict:
        """The compile hints (waves_per_eu, ...) of every compile of this
        function: `flyc.compile[{...}]` and autotune configs set them."""
        return self._hints

    @compile_hints.setter
    def compile_hints(self, hints: dict) -> None:
        if not isinstance(hints, dict):
            raise ArgumentError(f"{self.name}.compile_hints: a dict, got {hints!r}",
                                *user_location()[:2])
        _check_hints(hints)
        if hints == self._hints:
            return
        self._hints = dict(hints)
        self._fast.clear()  # their keys were made under the old hints

    def compile_options(self) -> CompileOptions:
        """The record this function compiles with now: the environment's
        options and this function's hints, for the selected backend."""
        env = Environment.current()
        backend = get_backend()
        runtime = _target_runtime(env)
        return CompileOptions(
            backend=env.compile_backend, target=backend.target, backend_hash=backend.hash(),
            opt_level=env.opt_level, debug_info=env.debug_info, emulator=runtime == "emu",
            compile_hints=tuple(sorted(self._hints.items())),
            verify_each_pass=env.verify_each_pass, print_after_all=env.print_after_all,
            dump_dir=env.dump_dir_for(self.name), dump_asm=env.dump_asm,
            show_stacktrace=env.show_stacktrace)

    def _fast_key(self, args):
        """What the argument specs of a positional call depend on: per
        array its type, dtype, strides, rank and address modulo 16; per
        number its type. None when a call needs the full path."""
        key = []
        for a in args:
            t = type(a)
            if t is int or t is float or t is bool:
                key.append(t)
            elif t.__name__ == "ndarray":
                key.append((t, a.dtype.char, a.strides, _fly.data_address(a) & 15))
            elif t.__name__ == "Tensor" and hasattr(a, "data_ptr"):  # torch
                key.append((t, a.dtype, a.stride(), a.data_ptr() & 15))
            elif t is args_mod.TensorDescriptor:
                key.append((t, a.tensor_spec()))
            elif t is Stream:
                key.append(t)
            elif hasattr(t, "__cache_signature__"):
                try:
                    key.append((t, a.__cache_signature__()))
                except Exception:  # explained by the full path
                    return None
            else:
                return None
        return tuple(key)

    def _specs(self, bound):
        """Per parameter: ("tensor", TensorSpec) / ("scalar", mlir type) /
        ("constexpr", value); the key is the tuple of them."""

        specs = []
        for name, value in bound.arguments.items():
            annotation = self.signature.parameters[name].annotation
            where = f"argument '{name}' of {self.name}"
            if is_constexpr(annotation):
                want = constexpr_type(annotation)
                if want is not None and isinstance(want, type) and not isinstance(value, want):
                    raise TraceError(f"{where} is Constexpr[{want.__name__}] but got "
                                     f"{type(value).__name__} {value!r}")
                specs.append((name, "constexpr", value))
            elif isinstance(value, Stream) or annotation is Stream or _is_torch_stream(value):
                stream_handle(value)  # an ArgumentError for what is no stream
                specs.append((name, "stream", "!llvm.ptr"))
            elif isinstance(value, args_mod.TensorDescriptor):
                specs.append((name, "tensor", value.tensor_spec()))
            elif isinstance(value, args_mod.PointerDescriptor):
                specs.append((name, "pointer", value.type_text()))
            elif (custom := custom_spec(value, annotation, where)) is not None:
                specs.append((name, "custom", custom))
            elif isinstance(annotation, type) and issubclass(annotation, nm.Numeric):
                if not isinstance(value, (bool, int, float, nm.Numeric)):
                    raise TraceError(f"{where} is {annotation.__name__} but got "
                                     f"{type(value).__name__} {value!r}")
                specs.append((name, "scalar", annotation.mlir_type))
            elif isinstance(value, nm.Numeric):
                specs.append((name, "scalar", value.mlir_type))
            elif isinstance(value, bool):
                specs.append((name, "scalar", "i1"))
            elif isinstance(value, int):
                specs.append((name, "scalar", "i32"))
            elif isinstance(value, float):
                specs.append((name, "scalar", "f32"))
            elif isinstance(value, str):
                raise TraceError(f"{where}: a str is not a kernel argument (expected a tensor, "
                                 "a number or a Constexpr)")
            else:
                specs.append((name, "tensor", args_mod.raw_tensor_spec(value, where)))
        return tuple(specs)

    def compile(self, *args, **kwargs) -> CompiledFunction:
        try:
            return self._compile(args, kwargs)
        except FlyDSLError as err:
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def _compile(self, args, kwargs) -> CompiledFunction:
        bound = bind_arguments(self.signature, self.name, args, kwargs)
        specs = self._specs(bound)
        options = self.compile_options()
        key = (specs, options.arch, options.key())
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._load_or_compile(specs, options)
            compiled.signature = self.signature
            compiled.specs = specs
            compiled.options = options
            self._compiled[key] = compiled
        return compiled

    def _load_or_compile(self, specs, options: CompileOptions) -> CompiledFunction:
        """From the disk cache, or traced and compiled (and stored) once
        across processes. FLYDSL_RUNTIME_RUN_ONLY: from the disk cache only."""
        env = Environment.current()
        if not env.enable_cache and not env.run_only:
            return self._trace_and_compile(specs, options)
        fields = key_material(self.fn, specs, options) + [("emulator", str(options.emulator))]
        try:
            cache = _fly.DiskCache.open(env.cache_dir)
        except RuntimeError as err:
            raise FlyDSLError(f"the disk cache: {err}") from None
        if env.run_only:
            payload = cache.lookup(fields)
            if payload is None:
                raise CompileError(f"{self.name}: FLYDSL_RUNTIME_RUN_ONLY=1, but the disk cache "
                                   f"{env.cache_dir} has no entry for these arguments on "
                                   f"{options.arch} (fill it with COMPILE_ONLY=1 runs)",
                                   *user_location()[:2])
            return CompiledFunction.from_bytes(payload, self)
        built = []

        def build() -> bytes:
            compiled = self._trace_and_compile(specs, options)
            built.append(compiled)
            return compiled.to_bytes()

        payload = cache.get_or_create(fields, build)
        if built:
            return built[0]
        _log.info("%s: loaded from the disk cache %s", self.name, env.cache_dir)
        return CompiledFunction.from_bytes(payload, self)

    def __call__(self, *args, **kwargs):
        env = Environment.current()
        fast = None
        if self._fast_ok and not kwargs and self._min_arity <= len(args) <= self._arity:
            if len(args) < self._arity:
                args = args + self._tail_defaults[len(args) - self._min_arity:]
            if self._stream_positions:
                fast = self._stream_call_key(args)
            else:
                fast = _fly.jit_key(args, torch_tensor_type())
            if fast is None:
                fast = self._fast_key(args)
            if fast is not None and self._constexpr_positions:
                values = self._constexprs_of(args)
                fast = (fast, tuple(map(type, values)), values)
                try:
                    hash(fast)
                except TypeError:  # an unhashable Constexpr value
                    fast = None
        compiled = self._fast.get((fast, Environment.generation)) if fast is not None else None
        try:
            if compiled is None:
                compiled = self._compile(args, kwargs)
                if fast is not None and len(self._fast) < 256:
                    self._fast[(fast, Environment.generation)] = compiled
            if env.compile_only:
                return None
            compiled._call_unchecked(args, kwargs)
        except FlyDSLError as err:
            if env.show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def _stream_call_key(self, args):
        """The key of a positional call with fx.Stream parameters: the
        other arguments' key, when every stream is an fx.Stream."""
        for stream in self._streams_of(args):
            if type(stream) is not Stream:
                return None
        key = _fly.jit_key(self._others_of(args), torch_tensor_type())
        return None if key is None else (Stream, key)

    def _trace_and_compile(self, specs, options: CompileOptions) -> CompiledFunction:
        from .protocol import construct_from_ir_values

        emulator = options.emulator
        start = time.perf_counter()
        trace = Trace()
        trace.emulator = emulator
        trace.arch = options.arch
        b = trace.builder
        dynamic = []  # (host argument name, parameter, its type)
        for n, k, s in specs:
            if k == "custom":
                dynamic += [(f"{n}#{i}", n, parse_type(t)) for i, t in enumerate(s.types)]
            elif k != "constexpr":
                dynamic.append((n, n, parse_type(s.type_text() if k == "tensor" else s)))
        with trace.activate():
            block = b.push_block([t for _, _, t in dynamic])
            params = {n: s for n, k, s in specs if k == "constexpr"}
            kinds = {n: (k, s) for n, k, s in specs}
            values: dict = {}
            for (_, name, _), arg in zip(dynamic, block.args):
                values.setdefault(name, []).append(arg)
            for name, (kind, spec) in kinds.items():
                if kind == "stream":
                    params[name] = StreamValue(values[name][0])
                elif kind == "custom":
                    params[name] = construct_from_ir_values(spec.dsl_type, spec.exemplar,
                                                            values[name])
                elif kind != "constexpr":
                    params[name] = wrap(values[name][0])
            params = {n: params[n] for n, _, _ in specs}
            with Tracer().activate():
                rewrite(self.fn)(**params)
            b.op("func.return", [])
            b.pop_block()
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        trace.host_lines.append(f"func.func @{self.name}({params_text}) {{\n"
                                + "\n".join(block.lines) + "\n}")
        text = trace.module_text()
        if Environment.current().print_origin_ir:  # FLYDSL_DEBUG_PRINT_ORIGIN_IR
            sys.stderr.write(f"// the traced module of {self.name}\n{text}\n")
        backend = get_backend(options.backend, arch=options.arch)
        try:
            objects, kernels, host_module, host_functions = backend.compile(text, options)
        except _fly.Error as err:
            error = CompileError(f"{self.name}: {_with_source_lines(str(err))}")
            if options.show_stacktrace:
                raise error from err
            raise error from None
        compiled = CompiledFunction.build(CallState(
            self.name, text, objects, kernels, host_module, host_functions,
            [n for n, _, _ in dynamic], emulator=emulator), self)
        _log.info("%s: traced and compiled for %s in %.1f ms", self.name, options.arch,
                  (time.perf_counter() - start) * 1e3)
        if options.dump_asm and not emulator:
            sys.stderr.write(f"// ISA of {self.name} ({options.arch})\n{compiled.isa()}\n")
        return compiled


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


def _is_torch_stream(value) -> bool:
    t = type(value)
    return t.__name__ in ("Stream", "ExternalStream") and t.__module__.startswith("torch")


def _check_hints(hints: dict) -> None:
    from .backends.rocm import COMPILE_HINTS

    for name in hints:
        if name not in COMPILE_HINTS:
            raise ArgumentError(f"compile hint '{name}' is not one of {', '.join(COMPILE_HINTS)}",
                                *user_location()[:2])


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
    hints, which stay on the function."""

    def __init__(self, hints: dict | None = None):
        self._hints = hints

    def __getitem__(self, hints: dict) -> "_Compile":
        if not isinstance(hints, dict):
            raise ArgumentError(f"flyc.compile[...]: a dict of compile hints, got "
                                f"{type(hints).__name__} {hints!r}", *user_location()[:2])
        _check_hints(hints)
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
            return func._compile(args, kwargs)
        except FlyDSLError as err:  # as JitFunction.compile
            if Environment.current().show_stacktrace:
                raise
            raise err.with_traceback(user_traceback(err.__traceback__)) from None

    def __repr__(self):
        return "flyc.compile" + (f"[{self._hints!r}]" if self._hints else "")


compile = _Compile()
