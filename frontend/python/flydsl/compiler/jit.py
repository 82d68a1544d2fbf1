"""@flyc.jit and flyc.compile: a host function traced, per argument
signature, into a `func.func` that launches the kernels it calls (its
tensor, scalar and stream arguments become its arguments; Constexpr ones
are Python values), compiled (or found in the disk cache), and kept for
that signature; warm calls dispatch on a key of the arguments straight to
the compiled function."""

from __future__ import annotations

import logging
import sys
import time

from .. import _fly
from . import arguments as args_mod
from .ast_rewriter import rewrite
from .cache_key import key_material
from .env import Environment
from .errors import CompileError, FlyDSLError, TraceError, user_traceback
from .ir import parse_type
from .trace import Trace
from .tracer import Tracer
from .compiled import CompiledFunction, torch_tensor_type
from .runtime import target_runtime
from .signature import (Stream, StreamValue, bind_arguments, constexpr_type, evaluated_signature,
                        is_constexpr)


_log = logging.getLogger("flydsl")

class JitFunction:
    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.signature = evaluated_signature(fn)
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
                key.append((t, a.spec()))
            else:
                return None
        return tuple(key)

    def _specs(self, bound):
        """Per parameter: ("tensor", TensorSpec) / ("scalar", mlir type) /
        ("constexpr", value); the key is the tuple of them."""
        from ..expr import numeric as nm

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
            elif isinstance(value, Stream) or annotation is Stream:
                specs.append((name, "stream", "!llvm.ptr"))
            elif isinstance(value, args_mod.TensorDescriptor):
                specs.append((name, "tensor", value.spec()))
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
        env = Environment.current()
        runtime = target_runtime(env)
        key = (specs, env.arch, env.opt_level, env.debug_info, runtime)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._load_or_compile(specs, env, runtime == "emu")
            compiled.signature = self.signature
            compiled.specs = specs
            self._compiled[key] = compiled
        return compiled

    def _load_or_compile(self, specs, env, emulator: bool) -> CompiledFunction:
        """From the disk cache, or traced and compiled (and stored) once
        across processes."""
        if not env.enable_cache:
            return self._trace_and_compile(specs, emulator)
        fields = key_material(self.fn, specs, env, emulator) + [("emulator", str(emulator))]
        try:
            cache = _fly.DiskCache.open(env.cache_dir)
        except RuntimeError as err:
            raise FlyDSLError(f"the disk cache: {err}") from None
        built = []

        def build() -> bytes:
            compiled = self._trace_and_compile(specs, emulator)
            built.append(compiled)
            return compiled.to_bytes()

        payload = cache.get_or_create(fields, build)
        if built:
            return built[0]
        _log.info("%s: loaded from the disk cache %s", self.name, env.cache_dir)
        return CompiledFunction.from_bytes(payload)

    def __call__(self, *args, **kwargs):
        env = Environment.current()
        fast = None
        if self._fast_ok and not kwargs and len(args) == self._arity:
            fast = _fly.jit_key(args, torch_tensor_type())
            if fast is None:
                fast = self._fast_key(args)
            if fast is not None and self._constexpr_positions:
                fast = (fast,) + tuple((type(args[i]), args[i])
                                       for i in self._constexpr_positions)
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

    def _trace_and_compile(self, specs, emulator: bool = False) -> CompiledFunction:
        from ..expr._core import wrap

        start = time.perf_counter()
        trace = Trace()
        trace.emulator = emulator
        b = trace.builder
        dynamic = [(n, parse_type(s.type_text() if k == "tensor" else s))
                   for n, k, s in specs if k != "constexpr"]
        with trace.activate():
            block = b.push_block([t for _, t in dynamic])
            params = {n: s for n, k, s in specs if k == "constexpr"}
            kinds = {n: k for n, k, _ in specs}
            for (name, _), arg in zip(dynamic, block.args):
                params[name] = StreamValue(arg) if kinds[name] == "stream" else wrap(arg)
            with Tracer().activate():
                rewrite(self.fn)(**params)
            b.op("func.return", [])
            b.pop_block()
        params_text = ", ".join(f"{a.name}: {a.type}" for a in block.args)
        trace.host_lines.append(f"func.func @{self.name}({params_text}) {{\n"
                                + "\n".join(block.lines) + "\n}")
        text = trace.module_text()
        env = Environment.current()
        try:
            objects, kernels, host_module, host_functions = _fly.compile(
                text, env.arch, env.opt_level, env.dump_dir_for(self.name), env.verify_each_pass,
                env.debug_info, env.print_after_all, emulator)
        except _fly.Error as err:
            error = CompileError(f"{self.name}: {_with_source_lines(str(err))}")
            if env.show_stacktrace:
                raise error from err
            raise error from None
        compiled = CompiledFunction(self.name, text, objects, kernels, host_module, host_functions,
                                    [n for n, k, _ in specs if k != "constexpr"],
                                    emulator=emulator)
        _log.info("%s: traced and compiled for %s in %.1f ms", self.name, env.arch,
                  (time.perf_counter() - start) * 1e3)
        if env.dump_asm and not emulator:
            sys.stderr.write(f"// ISA of {self.name} ({env.arch})\n{compiled.isa()}\n")
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


def jit(fn):
    """A host function traced and compiled per argument signature."""
    return JitFunction(fn)


def compile(fn, *args, **kwargs) -> CompiledFunction:
    """The compiled form of a @flyc.jit function for these arguments."""
    if not isinstance(fn, JitFunction):
        fn = JitFunction(fn)
    try:
        return fn._compile(args, kwargs)
    except FlyDSLError as err:  # as JitFunction.compile
        if Environment.current().show_stacktrace:
            raise
        raise err.with_traceback(user_traceback(err.__traceback__)) from None
