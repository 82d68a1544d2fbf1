"""Autotuning, as FlyDSL's `flydsl.autotune`: `@autotune(configs=[Config(
BLOCK=128), Config(BLOCK=256)], key=["n"])` over a @flyc.jit function
runs each config (its keyword arguments passed to the call, its compiler
options -- `waves_per_eu` -- as compile hints), times it on the runtime in
use, and keeps the fastest per key: the values of the `key` arguments
(a tensor's shape), the tensors' dtypes and stride patterns, the chip,
the runtime and the toolchain. It may also decorate a plain Python
function that launches @flyc.jit functions (a dispatcher, as FlyDSL's
kernel library has): the config's keyword arguments go to that function,
its compile hints to the jit calls it makes (a
`CompilationContext.compile_hints` block), and its configs are compiled
one at a time as they are timed.

The choice is kept in memory and in FLYDSL_AUTOTUNE_CACHE_DIR (default
~/.flydsl/autotune), one JSON file per function, so another process reuses
it; FLYDSL_AUTOTUNE=1 searches again anyway. On the CPU emulator the times
are the emulator's (host wall-clock of the emulated launch), which rank
configs by emulated work, not by GPU speed: they are printed as such and
kept apart from GPU choices.

A search first compiles the configs that are not in the disk cache in
parallel: each is traced here and compiled by a worker process (one per
core, compiler.compile_workers) into the cache; then each is loaded from
it and timed, one at a time. FLYDSL_DEBUG_LOG_LEVEL=info logs a line per
config (its time, how it was compiled) and a summary table; otherwise the
lines are printed as FlyDSL prints them, with a progress bar on stderr
when it is a terminal."""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import sys
import time
from pathlib import Path

from .tracing.errors import ArgumentError, FlyDSLError
from .utils.file import atomic_write

_log = logging.getLogger("flydsl")

__all__ = ["Config", "autotune", "Autotuner", "do_bench"]


class Config:
    """One configuration: keyword arguments for the call (`BLOCK=128`),
    `num_warps` (passed as the keyword `num_warps` too), `waves_per_eu`
    (a compile hint) and a `pre_hook(kwargs)` run before each launch."""

    def __init__(self, *, num_warps=None, waves_per_eu=None, pre_hook=None, **kwargs):
        if "maxnreg" in kwargs:
            raise TypeError("Config(maxnreg=...) is not supported (FlyDSL dropped it): use "
                            "waves_per_eu to aim at an occupancy")
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.waves_per_eu = waves_per_eu
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict:
        """The keyword arguments the call gets."""
        out = dict(self.kwargs)
        if self.num_warps is not None:
            out["num_warps"] = self.num_warps
        return out

    def compiler_opts(self) -> dict:
        """The compile hints of this config."""
        return {} if self.waves_per_eu is None else {"waves_per_eu": self.waves_per_eu}

    def to_dict(self) -> dict:
        out = dict(self.kwargs)
        for name in ("num_warps", "waves_per_eu"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Config":
        d = dict(d)
        d.pop("maxnreg", None)
        return cls(num_warps=d.pop("num_warps", None), waves_per_eu=d.pop("waves_per_eu", None),
                   **d)

    def __eq__(self, other):
        return isinstance(other, Config) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash(json.dumps(self.to_dict(), sort_keys=True, default=repr))

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v}" for k, v in self.to_dict().items()) + ")"


def _runtime_kind() -> str:
    from .compiler.env import Environment
    from .compiler.runtime import target_runtime

    return target_runtime(Environment.current())


def do_bench(fn, warmup=5, rep=25, quantiles=None):
    """The median time of `fn()` in ms: GPU event time with torch on a
    GPU, else host wall-clock per call (the emulator runs a launch to its
    end before returning)."""
    torch = sys.modules.get("torch")
    use_events = (torch is not None and _runtime_kind() == "hip"
                  and torch.cuda.is_available())
    for _ in range(warmup):
        fn()
    times = []
    if use_events:
        torch.cuda.synchronize()
        for _ in range(rep):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    else:
        for _ in range(rep):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    if quantiles:
        return [times[min(int(q * len(times)), len(times) - 1)] for q in quantiles]
    middle = len(times) // 2
    return times[middle] if len(times) % 2 else (times[middle - 1] + times[middle]) / 2


def _stride_pattern(value) -> tuple:
    strides = getattr(value, "strides", None) if not hasattr(value, "stride") else value.stride
    try:
        strides = strides() if callable(strides) else strides
        itemsize = getattr(value, "itemsize", 1) if type(value).__name__ == "ndarray" else 1
        return tuple(0 if s == 0 else 1 if s == itemsize else "s" for s in strides or ())
    except Exception:
        return ()


class _Progress:
    """What a search shows. With FLYDSL_DEBUG_LOG_LEVEL=info: a log line
    per candidate (its time and how it was compiled) and a summary table;
    else FlyDSL's printed lines, and a progress bar on stderr when it is a
    terminal."""

    WIDTH = 24

    def __init__(self, name: str, total: int):
        self.name, self.total = name, total
        self.info = _log.isEnabledFor(logging.INFO)
        self.bar = not self.info and sys.stderr.isatty()
        self.drawn = False

    def say(self, text: str) -> None:
        if self.info:
            _log.info("%s", text.replace("[autotune] ", "autotune ", 1))
        else:
            self._print(text)

    def candidate(self, i: int, config, result: str, how: str) -> None:
        if self.info:
            _log.info("autotune %s: config %d/%d %s: %s; compiled %s", self.name, i + 1,
                      self.total, config, result, how)
        else:
            self._print(f"  [{i + 1}/{self.total}] {config}: {result}")

    def step(self, phase: str, done: int, config) -> None:
        """Redraws the bar: `done` of the candidates through `phase`, now at
        `config` (None: none in particular)."""
        if not self.bar:
            return
        filled = self.WIDTH * done // max(1, self.total)
        what = "" if config is None else f" {config}"
        sys.stderr.write(f"\r\x1b[K[autotune] {self.name} [{'#' * filled}"
                         f"{'.' * (self.WIDTH - filled)}] {done}/{self.total} {phase}{what}")
        sys.stderr.flush()
        self.drawn = True

    def done(self) -> None:
        if self.bar:
            sys.stderr.write(f"\r\x1b[K[autotune] {self.name} [{'#' * self.WIDTH}] "
                             f"{self.total}/{self.total} done\n")
            sys.stderr.flush()
            self.drawn = False

    def summary(self, rows, best, best_time: float, label: str) -> None:
        """The table of every candidate (info only)."""
        if not self.info:
            return
        table = [("config", "time (ms)", "vs best", "compiled")]
        for config, t, how, error in rows:
            table.append((str(config), "failed" if t is None else f"{t:.3f}",
                          "-" if t is None else f"{t / best_time:.2f}x" if best_time else "-",
                          how if t is not None else f"{how}: {error.splitlines()[0][:60]}"))
        widths = [max(len(r[c]) for r in table) for c in range(4)]
        _log.info("autotune %s: %d configs, %s; best %s", self.name, len(rows), label, best)
        for r in table:
            _log.info("  %s", "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())

    def _print(self, text: str) -> None:
        if self.drawn:  # the bar's line first
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.drawn = False
        print(text, flush=True)


class Autotuner:
    """A @flyc.jit function (or a plain function launching them) with
    configs to choose from (what `@autotune` makes); calls run the chosen
    config."""

    def __init__(self, fn, configs, key, warmup, rep, prune_configs_by=None, reset_to_zero=None,
                 restore_value=None, pre_hook=None, post_hook=None, do_bench_fn=None,
                 default=None, artifact_name=None, validate_hook=None, select_config=None):
        from .compiler.jit_function import JitFunction

        self._jit = isinstance(fn, JitFunction)
        if not self._jit and not inspect.isfunction(fn):
            raise ArgumentError(f"@autotune: decorates a @flyc.jit function or a Python "
                                f"function, got {type(fn).__name__} {fn!r}")
        if not callable(configs):
            configs = list(configs)
            if not configs or not all(isinstance(c, Config) for c in configs):
                raise ArgumentError("autotune(configs=): a non-empty list of Config (or a "
                                    f"callable returning one), got {configs!r}")
        self.fn = fn
        self.configs = configs
        self.key = list(key or [])
        self.warmup, self.rep = warmup, rep
        self.prune_configs_by = prune_configs_by
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.pre_hook, self.post_hook = pre_hook, post_hook
        self._do_bench = do_bench_fn or do_bench
        self.default = default
        self.artifact_name = artifact_name
        self.validate_hook = validate_hook
        self.select_config = select_config
        self.name = fn.name if self._jit else fn.__name__
        self._signature = fn.signature if self._jit else inspect.signature(fn)
        self.arg_names = list(self._signature.parameters)
        missing = [k for k in self.key if k not in self._signature.parameters]
        if missing:
            raise ArgumentError(f"autotune(key=): {missing} are not parameters of {self.name} "
                                f"({', '.join(self.arg_names)})")
        self.cache: dict = {}
        self.__name__ = self.name
        self.best_config = None  # the config of the last call
        self._cache_file = None  # the disk cache's file when set (else by the environment)
        # FlyDSL's offline config artifacts (FLYDSL_AUTOTUNE_CONFIG_DIR) are not
        # supported: nothing is read into this (FlyDSL's kernels clear it).
        self._artifact_cache: dict = {}

    # -- keys and the disk cache ---------------------------------------

    @property
    def cache_file(self) -> Path:
        from .compiler.env import Environment

        if self._cache_file is not None:
            return Path(self._cache_file)
        return Path(Environment.current().autotune_cache_dir) / f"{self.name}.json"

    def _arguments(self, args, kwargs) -> dict:
        bound = self._signature.bind_partial(*args, **kwargs)
        return dict(bound.arguments)

    def _make_key(self, args, kwargs) -> tuple:
        from .compiler.cache_key import frontend_identity
        from .compiler.env import Environment
        from . import _fly

        named = self._arguments(args, kwargs)
        parts = []
        for k in self.key:
            v = named.get(k)
            parts.append(tuple(v.shape) if hasattr(v, "shape") else
                         str(v.dtype) if hasattr(v, "dtype") else v)
        parts.append(tuple(sorted(f"{n}:{v.dtype}" for n, v in named.items()
                                  if hasattr(v, "dtype"))))
        parts.append(tuple(sorted(f"{n}:{_stride_pattern(v)}" for n, v in named.items()
                                  if hasattr(v, "shape"))))
        env = Environment.current()
        parts.append(("chip", env.arch))
        parts.append(("runtime", _runtime_kind()))
        parts.append(("toolchain", _fly.toolchain_identity(), frontend_identity()[:16]))
        parts.append(("hints", tuple(sorted(self._compile_hints().items()))))
        return tuple(str(p) for p in parts)

    def _load(self) -> dict:
        try:
            data = json.loads(self.cache_file.read_text())
        except (OSError, ValueError):
            return {}
        out = {}
        for key_text, entry in data.items() if isinstance(data, dict) else ():
            try:
                out[tuple(json.loads(key_text))] = Config.from_dict(entry["config"])
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def _save(self, key, config, timing) -> None:
        path = self.cache_file
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[json.dumps(list(key))] = {"config": config.to_dict(), "time_ms": timing,
                                       "timing": self._timing_label()}
        # a concurrent reader sees the old file or the new one, never a part
        with atomic_write(path, mode="w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)

    @staticmethod
    def _timing_label() -> str:
        return "emulator timing" if _runtime_kind() == "emu" else "GPU timing"

    # -- running --------------------------------------------------------

    def _compile_hints(self) -> dict:
        """The hints the calls compile with, besides a config's: the jit
        function's own, or a plain function's enclosing compile_hints blocks."""
        if self._jit:
            return self.fn.compile_hints
        from .compiler.hints import ambient_hints

        return ambient_hints()

    def _run_config(self, config: Config, args, kwargs):
        """One call with `config` (FlyDSL's name)."""
        merged = dict(kwargs)
        overlap = set(config.all_kwargs()) & set(self._arguments(args, kwargs))
        if overlap:
            raise ArgumentError(f"{self.name}: the config {config} sets {sorted(overlap)}, "
                                "which the call passes too")
        merged.update(config.all_kwargs())
        named = self._arguments(args, merged)
        for name in self.reset_to_zero:
            t = named.get(name)
            if t is not None:
                t[...] = 0
        if config.pre_hook:
            config.pre_hook(merged)
        if self.pre_hook:
            self.pre_hook(merged)
        with self._hints(config):
            result = self.fn(*args, **merged)
        if self.post_hook:
            self.post_hook(merged)
        return result

    def _bench_one(self, config: Config, args, kwargs) -> float:
        """The time of calls with `config` (FlyDSL's name)."""
        named = self._arguments(args, kwargs)
        snapshot = {n: (named[n], named[n].copy() if hasattr(named[n], "copy")
                        else named[n].clone()) for n in self.restore_value if n in named}

        def restore():
            for dst, src in snapshot.values():
                dst[...] = src

        def call():
            restore()
            self._run_config(config, args, kwargs)

        try:
            if self.validate_hook is not None:
                restore()
                with self.validate_hook(self._arguments(args, {**kwargs, **config.all_kwargs()})):
                    self._run_config(config, args, kwargs)
            return self._do_bench(call, warmup=self.warmup, rep=self.rep)
        finally:
            restore()

    def resolve_config(self, *args, **kwargs) -> Config:
        """The config calls with these arguments run: the cached choice,
        else the `default` heuristic, else the fastest after a search."""
        from .compiler.env import Environment

        key = self._make_key(args, kwargs)
        force = Environment.current().autotune
        if not force:
            if key not in self.cache:
                self.cache.update(self._load())
                if key in self.cache:
                    _log.info("autotune %s: %s from %s (no search)", self.name,
                              self.cache[key], self.cache_file)
            if key in self.cache:
                return self.cache[key]
            if self.default is not None:
                return self.default(*args, **kwargs)
        configs = self.configs(*args, **kwargs) if callable(self.configs) else self.configs
        if self.prune_configs_by is not None:
            configs = self.prune_configs_by(configs, self._arguments(args, kwargs))
        if Environment.current().compile_only:
            return self._compile_only(list(configs), args, kwargs)
        best, best_time = self._search(list(configs), args, kwargs)
        self.cache[key] = best
        self._save(key, best, best_time)
        return best

    def _compile_only(self, configs, args, kwargs) -> Config:
        """COMPILE_ONLY (`flydsl compile`): every config compiled into the
        disk cache (in parallel), none timed and no choice kept; the call
        then compiles the first that compiles."""
        progress = _Progress(self.name, len(configs))
        self._compile_in_workers(configs, args, kwargs, progress)
        compiled, failure = [], None
        for i, config in enumerate(configs):
            progress.step("compiling", i, config)
            try:
                self._run_config(config, args, kwargs)  # compiles (or loads) only
                compiled.append(config)
            except Exception as err:
                failure = err
                progress.candidate(i, config, f"failed: {err}", "in process")
        progress.done()
        if not compiled:
            raise FlyDSLError(f"autotune of {self.name}: every config failed to compile "
                              f"(the last: {failure})") from failure
        return compiled[0]

    def _search(self, configs, args, kwargs):
        """(the chosen config, its time): every config compiled (in
        parallel worker processes, into the disk cache), then timed one by
        one on the runtime in use."""
        label = self._timing_label()
        progress = _Progress(self.name, len(configs))
        progress.say(f"[autotune] {self.name}: timing {len(configs)} configs ({label})")
        compiled = self._compile_in_workers(configs, args, kwargs, progress)
        results, failure, rows = [], None, []
        for i, config in enumerate(configs):
            progress.step("timing", i, config)
            how = compiled.get(i, "in process")
            try:
                t = self._bench_one(config, args, kwargs)
            except Exception as err:  # a config that does not compile or run is skipped
                failure = err
                rows.append((config, None, how, str(err)))
                progress.candidate(i, config, f"failed: {err}", how)
                continue
            results.append((config, t))
            rows.append((config, t, how, ""))
            progress.candidate(i, config, f"{t:.3f} ms ({label})", how)
        progress.done()
        if not results:
            raise FlyDSLError(f"autotune of {self.name}: every config failed (the last: "
                              f"{failure})") from failure
        if self.select_config is not None:
            best, best_time = self.select_config(results)
            if not any(best is c for c, _ in results):
                raise ArgumentError("autotune(select_config=): must return one of the measured "
                                    "(config, time) pairs")
        else:
            best, best_time = min(results, key=lambda r: r[1])
        progress.summary(rows, best, best_time, label)
        if not progress.info:  # the summary says it
            progress.say(f"[autotune] {self.name}: best {best} ({best_time:.3f} ms, {label})")
        return best, best_time

    def _compile_in_workers(self, configs, args, kwargs, progress) -> dict:
        """Compiles the configs whose artifacts are not in the disk cache,
        each traced here and compiled by a worker process (up to one per
        core) into the cache, so that timing them loads them from it.
        {config index: how it was compiled}, for the report; a config that
        fails here is compiled again in the timing phase, which reports the
        error."""
        from .compiler.compile_workers import compile_jobs

        jobs, indices, how = [], [], {}
        if not self._jit:
            return how  # a plain function's jit calls are known only when it runs
        for i, config in enumerate(configs):
            merged = {**kwargs, **config.all_kwargs()}
            try:
                with self._hints(config):
                    job = self.fn._compile_job(args, merged)
            except Exception:
                continue  # the timing phase compiles it and reports why it fails
            if job is None:
                how[i] = "cached"
            else:
                jobs.append(job)
                indices.append(i)
        if len(jobs) < 2:
            return how  # nothing to spread: the timing phase compiles it

        finished = []

        def done(n, reply):
            i = indices[n]
            how[i] = (f"worker {reply['pid']} in {reply['compile_ms']:.1f} ms, key "
                      f"{jobs[n]['key'][:16]}" if reply["ok"] else "in process (worker failed)")
            finished.append(i)
            progress.step("compiled", len(configs) - len(jobs) + len(finished), configs[i])
            if not reply["ok"]:
                _log.info("autotune %s: config %d/%d %s: the worker's compile failed: %s",
                          self.name, i + 1, len(configs), configs[i], reply["error"])

        progress.step("compiling", len(configs) - len(jobs), None)
        compile_jobs(jobs, os.cpu_count() or 1, done)
        return how

    @contextlib.contextmanager
    def _hints(self, config: Config):
        """The function compiles with the config's hints inside."""
        if not self._jit:
            from .compiler.hints import CompilationContext

            opts = config.compiler_opts()
            with CompilationContext.compile_hints(opts) if opts else contextlib.nullcontext():
                yield
            return
        saved = self.fn.compile_hints
        hints = {**saved, **config.compiler_opts()}
        if hints == saved:
            yield
            return
        self.fn.compile_hints = hints
        try:
            yield
        finally:
            self.fn.compile_hints = saved

    def __call__(self, *args, **kwargs):
        config = self.resolve_config(*args, **kwargs)
        self.best_config = config
        return self._run_config(config, args, kwargs)


def autotune(configs, key=None, warmup=5, rep=25, prune_configs_by=None, reset_to_zero=None,
             restore_value=None, pre_hook=None, post_hook=None, do_bench=None, default=None,
             artifact_name=None, validate_hook=None, select_config=None):
    """Decorates a @flyc.jit function, or a function launching them, with
    configs to time and choose from (see the module's documentation)."""

    def decorator(fn):
        return Autotuner(fn, configs, key, warmup, rep, prune_configs_by=prune_configs_by,
                         reset_to_zero=reset_to_zero, restore_value=restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, do_bench_fn=do_bench,
                         default=default, artifact_name=artifact_name,
                         validate_hook=validate_hook, select_config=select_config)

    return decorator
