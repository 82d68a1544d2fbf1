"""Front-end benchmark (SPEC §12): prints a table in ms / µs.

For each reference kernel (examples/*.py) on one chip:
- cold: trace + compile in this process, cache disabled (first call; then
  the median of further cold compiles of fresh function objects);
- disk hit: a new Python process that imports flydsl, builds the
  arguments and gets the compiled artifact from a warm disk cache (the
  whole process, and the compile call alone as the process measures it);
- warm @flyc.jit: a call with an argument signature seen before, through
  the host entry to the launch entry; the runtime is the recording launch
  table of the tests (build/lib/libfly-launch-double.so, no GPU), so this is
  FlyDSL's own dispatch cost;
- warm compiled: the same through the object `flyc.compile` returned
  (and a second table: the vector add's warm calls with numpy arrays,
  torch tensors and from_dlpack descriptors);
- RSS: the peak resident memory a cold compile adds in a fresh process
  (importing flydsl included) over the interpreter with numpy; anon: the
  part of it that is the process's own memory (heap, anonymous mappings,
  relocated pages), not pages of the shared libraries' files;
- import: `import flydsl.compiler, flydsl.expr` in a fresh process (median
  of the repeats), as the process measures it.

    python3 bench/frontend/bench_frontend.py [--chip gfx942] [--repeat 5]
"""

import argparse
import ctypes
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "frontend" / "python"))

import flydsl.compiler as flyc  # noqa: E402

KERNELS = {
    "vector_add": ("vector_add", "va_args"),
    "tiled_copy_lds": ("tiled_copy", "tc_args"),
    "fma_gemm": ("fma_gemm", "gemm_args"),
}

ARGS_CODE = {
    "vector_add": "import numpy as np\n"
                  "a = np.zeros((100, 200), np.float32)\n"
                  "ARGS = [flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4) for x in (a, a.copy(), a.copy())]\n",
    "tiled_copy_lds": "*_, ARGS = mod.arguments()\n",
    "fma_gemm": "*_, ARGS = mod.arguments()\n",
}


def load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}_{time.perf_counter_ns()}",
                                                  REPO / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def arguments(name, mod):
    scope = {"flyc": flyc, "mod": mod}
    exec(ARGS_CODE[name], scope)
    return scope["ARGS"]


def cold_ms(name, repeat):
    os.environ["FLYDSL_RUNTIME_ENABLE_CACHE"] = "0"
    flyc.Environment.reload()
    times = []
    for _ in range(repeat + 1):
        mod = load(name)
        fn = getattr(mod, KERNELS[name][0])
        args = arguments(name, mod)
        start = time.perf_counter()
        flyc.compile(fn, *args)
        times.append((time.perf_counter() - start) * 1e3)
    os.environ.pop("FLYDSL_RUNTIME_ENABLE_CACHE")
    flyc.Environment.reload()
    return times[0], statistics.median(times[1:])


def disk_hit_ms(name, cache_dir):
    script = (
        "import time; t0 = time.perf_counter()\n"
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(REPO / 'frontend' / 'python')!r})\n"
        "import flydsl.compiler as flyc\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(REPO / 'examples' / (name + '.py'))!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        + ARGS_CODE[name] +
        "t1 = time.perf_counter()\n"
        f"c = flyc.compile(mod.{KERNELS[name][0]}, *ARGS)\n"
        "t2 = time.perf_counter()\n"
        "assert c.from_cache\n"
        "print((t2 - t1) * 1e3, (t2 - t0) * 1e3)\n")
    env = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    total = (time.perf_counter() - start) * 1e3
    if out.returncode:
        raise SystemExit(out.stderr)
    call_ms, in_process_ms = map(float, out.stdout.split())
    return call_ms, total


def cold_rss_mb(name):
    """Peak RSS a cold compile adds in a fresh process over the interpreter
    and numpy (SPEC §12: <= 100 MB), and the anonymous memory (RssAnon) it
    added by the end: import flydsl, trace, compile, no cache."""
    script = (
        "import importlib.util, sys\n"
        "import numpy as np\n"
        # VmHWM, not ru_maxrss: after fork + exec the latter may still hold
        # the parent's peak (this benchmark's, hundreds of MB).
        "def status(field):\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith(field + ':'):\n"
        "            return int(line.split()[1]) / 1024\n"
        "base, anon = status('VmHWM'), status('RssAnon')\n"
        f"sys.path.insert(0, {str(REPO / 'frontend' / 'python')!r})\n"
        "import flydsl.compiler as flyc\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(REPO / 'examples' / (name + '.py'))!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        + ARGS_CODE[name] +
        f"flyc.compile(mod.{KERNELS[name][0]}, *ARGS)\n"
        "print(status('VmHWM') - base, status('RssAnon') - anon)\n")
    env = dict(os.environ, FLYDSL_RUNTIME_ENABLE_CACHE="0")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    peak, anon = map(float, out.stdout.split())
    return peak, anon


def import_ms(repeat):
    """`import flydsl.compiler, flydsl.expr` in fresh processes: the median
    of `repeat` (after one run that fills the bytecode cache)."""
    script = (f"import sys; sys.path.insert(0, {str(REPO / 'frontend' / 'python')!r})\n"
              "import time; t = time.perf_counter()\n"
              "import flydsl.compiler, flydsl.expr\n"
              "print((time.perf_counter() - t) * 1e3)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for _ in range(repeat + 1):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times[1:])


def warm_us(fn, args, n=2000):
    for _ in range(10):
        fn(*args)
    start = time.perf_counter()
    for _ in range(n):
        fn(*args)
    return (time.perf_counter() - start) / n * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chip", default="gfx942")
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    os.environ["COMPILE_ONLY"] = "1"
    os.environ["ARCH"] = opts.chip
    double = ctypes.CDLL(str(REPO / "build" / "lib" / "libfly-launch-double.so"))
    double.fly_double_table.restype = ctypes.c_void_p
    from flydsl import _fly
    _fly.set_launch_table(double.fly_double_table())
    cache_dir = tempfile.mkdtemp(prefix="flydsl-bench-cache-")
    os.environ["FLYDSL_RUNTIME_CACHE_DIR"] = cache_dir
    flyc.Environment.reload()

    print(f"FlyDSL front end on {opts.chip} (COMPILE_ONLY): cold = trace + compile, ms "
          f"(first / median of {opts.repeat}); disk hit = new process, ms (compile call / "
          "whole process); warm = µs per call up to the launch entry; RSS = peak MB a cold "
          "compile adds in a fresh process over python + numpy, anon = the process's own "
          "part of it (MB)")
    header = f"{'kernel':<16}{'cold first':>12}{'cold median':>13}{'disk hit':>10}{'process':>10}" \
             f"{'warm jit':>10}{'warm compiled':>15}{'RSS MB':>8}{'anon':>6}"
    print(header)
    for name in KERNELS:
        first, median = cold_ms(name, opts.repeat)
        mod = load(name)
        fn = getattr(mod, KERNELS[name][0])
        args = arguments(name, mod)
        flyc.compile(fn, *args)  # fills the disk cache
        hit_ms, process_ms = disk_hit_ms(name, cache_dir)
        rss, anon = cold_rss_mb(name)
        os.environ["COMPILE_ONLY"] = "0"
        flyc.Environment.reload()
        compiled = flyc.compile(fn, *args)
        jit_us = warm_us(fn, args)
        compiled_us = warm_us(compiled, args)
        os.environ["COMPILE_ONLY"] = "1"
        flyc.Environment.reload()
        print(f"{name:<16}{first:>12.1f}{median:>13.1f}{hit_ms:>10.2f}{process_ms:>10.0f}"
              f"{jit_us:>10.1f}{compiled_us:>15.1f}{rss:>8.0f}{anon:>6.0f}")
    warm_by_argument_kind()
    print(f"\nimport flydsl.compiler, flydsl.expr (new process, median of {opts.repeat}): "
          f"{import_ms(opts.repeat):.1f} ms")


def warm_by_argument_kind():
    """The vector add's warm calls by what the caller passes: numpy arrays,
    torch CPU tensors (when torch is installed) and from_dlpack
    descriptors, through @flyc.jit and through flyc.compile's object."""
    import numpy as np

    os.environ["COMPILE_ONLY"] = "0"
    flyc.Environment.reload()
    mod = load("vector_add")
    a = np.zeros((100, 200), np.float32)
    kinds = {"numpy": (a, a.copy(), a.copy())}
    try:
        import torch
        kinds["torch"] = tuple(torch.from_numpy(x) for x in kinds["numpy"])
    except ImportError:
        pass
    kinds["from_dlpack"] = tuple(flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4)
                                 for x in kinds["numpy"])
    print("\nvector_add warm calls by argument kind, µs")
    print(f"{'arguments':<16}{'warm jit':>10}{'warm compiled':>15}")
    for kind, args in kinds.items():
        compiled = flyc.compile(mod.vector_add, *args)
        print(f"{kind:<16}{warm_us(mod.vector_add, args):>10.1f}{warm_us(compiled, args):>15.1f}")
    os.environ["COMPILE_ONLY"] = "1"
    flyc.Environment.reload()


if __name__ == "__main__":
    main()
