"""Speed of the emulator on kernels compiled by the real compiler (SPEC §12).

The companion of bench_emulator.cpp (built as build/bin/bench-emulator),
which times the emulator's execution core with hand-written kernels; this
script goes through the whole Python path: @flyc.jit / flyc.compile, the
host entry, and the emulator running kernels that convert-rocdl-to-emu made
from the compiler's stage-A output.

    python3 bench/emulator/bench_compiled.py

It prints one table; the columns are:
  measurement  what was timed;
  value, unit  the number: ms or µs per call are medians over warm calls
               (time.perf_counter around the Python call, so they include
               the Python call, argument packing, the host entry and the
               emulator launch), after a few warm-up calls; the first GEMM
               call is a single timing with an empty disk cache (a fresh
               temporary FLYDSL_RUNTIME_CACHE_DIR);
  notes        how the number was counted.

The last rows are the checked emulator's slowdown (FLYDSL_EMU_CHECK=1:
every check, bounds, race, init and barrier; SPEC §9 targets at most
5x): the same kernel and arguments, compiled without and with the checks,
warm calls of each; the "race only" and "init only" rows are
FLYDSL_EMU_CHECK=race and =init, each LDS shadow's own cost on the kernels
that use LDS; the buffer_tiled_copy rows are its buffer copy of a ragged
1021 x 1000 tensor (the last tiles' accesses leave the V#'s range), with
every check and with all,bounds=strict (those accesses are then warnings,
one per site and launch, which the bench silences).

Counting lane-instructions (vector_add rows): lane-instructions =
(instructions one work-item executes) x (work-items). The instructions per
work-item are counted from the ISA of the same kernel, compiled for gfx942
with COMPILE_ONLY=1 and the same argument descriptors: every instruction
line of the listing counts once, scalar ones included (the wave issues them
for its lanes), except s_waitcnt, s_nop and s_endpgm, which do no work;
labels and directives are not instructions. The kernel is straight-line but
for its bounds branch, and the 1024 x 1024 shape is a multiple of the
16 x 64 tile, so every work-item runs the whole body. The count is what a
GPU's lanes would retire; the emulator runs native host code, not the ISA.

The emulator's thread count (FlyEmuLaunchConfig.num_threads) is not
settable from Python: compiled kernels launch with all of the machine's
cores. The per-core row pins every thread of this process to one CPU with
sched_setaffinity instead (the emulator still starts one thread per core,
and they share that CPU).
"""

import atexit
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ["FLYDSL_RUNTIME_KIND"] = "emu"
# An empty cache, so that the first call compiles for real.
CACHE_DIR = tempfile.mkdtemp(prefix="flydsl-bench-")
atexit.register(shutil.rmtree, CACHE_DIR, ignore_errors=True)
os.environ["FLYDSL_RUNTIME_CACHE_DIR"] = CACHE_DIR

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
try:
    import flydsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT / "frontend" / "python"))

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

import fma_gemm
import vector_add
from timing import median_seconds

NOT_WORK = {"s_waitcnt", "s_nop", "s_endpgm"}


def row(name, value, unit, note):
    print(f"| {name:<44} | {value:12.2f} | {unit:<16} | {note}")


def pin_all_threads(cpus):
    """Sets the CPU affinity of every thread of this process (the
    emulator's worker threads included)."""
    for tid in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(tid), cpus)


# -- 1. fma_gemm 256 x 256 x 256 ---------------------------------------------

def bench_gemm():
    m = n = k = 256
    a, b, c, args = fma_gemm.arguments(m, n, k)
    t0 = time.perf_counter()
    fma_gemm.fma_gemm(*args)
    first = time.perf_counter() - t0
    assert np.allclose(c, a @ b.T, rtol=1e-4, atol=1e-3), np.abs(c - a @ b.T).max()
    reps = 50
    warm = median_seconds(lambda: fma_gemm.fma_gemm(*args), reps)
    row("fma_gemm 256x256x256 f32, first call", first * 1e3, "ms",
        "trace + compile + JIT + run, empty disk cache")
    row("fma_gemm 256x256x256 f32, warm call", warm * 1e3, "ms",
        f"median of {reps}; result checked against numpy")
    row("fma_gemm emulated", 2 * m * n * k / warm / 1e9, "GFLOP/s",
        "2*M*N*K / warm call time")


# -- 2. vector_add 1024 x 1024 -----------------------------------------------

def vector_add_descriptors(a, b, c):
    return [flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4) for x in (a, b, c)]


def isa_instructions(args):
    """The opcodes of the vector_add kernel's gfx942 ISA that do work."""
    names = ("COMPILE_ONLY", "ARCH", "FLYDSL_RUNTIME_KIND")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["COMPILE_ONLY"] = "1"
    os.environ["ARCH"] = "gfx942"
    os.environ.pop("FLYDSL_RUNTIME_KIND")  # else COMPILE_ONLY compiles for the emulator
    flyc.Environment.reload()
    try:
        isa = flyc.compile(vector_add.vector_add, *args).isa()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        flyc.Environment.reload()
    opcodes = [m.group(1) for m in re.finditer(r"^\s+([a-z][a-z0-9_]*)", isa, re.MULTILINE)]
    return [op for op in opcodes if op not in NOT_WORK]


def bench_vector_add():
    m, n = 1024, 1024
    assert m % vector_add.THREADS_M == 0 and n % (vector_add.THREADS_N * vector_add.VEC) == 0
    a = np.random.rand(m, n).astype(np.float32)
    b = np.random.rand(m, n).astype(np.float32)
    c = np.zeros_like(a)
    args = vector_add_descriptors(a, b, c)

    ops = isa_instructions(args)
    scalar = sum(op.startswith("s_") for op in ops)
    work_items = m * n // 4  # 4 elements per work-item
    lane_instructions = len(ops) * work_items

    vector_add.vector_add(*args)
    assert np.allclose(c, a + b)
    reps = 50
    call = lambda: vector_add.vector_add(*args)  # noqa: E731
    all_cores = median_seconds(call, reps)
    cores = os.sched_getaffinity(0)
    pin_all_threads({min(cores)})
    try:
        one_core = median_seconds(call, reps)
    finally:
        pin_all_threads(cores)

    count = (f"{len(ops)} instr/work-item ({len(ops) - scalar} vector + {scalar} scalar) "
             f"x {work_items} work-items")
    row("vector_add 1024x1024 f32, warm call", all_cores * 1e3, "ms",
        f"median of {reps}; {len(cores)} cores (the emulator uses all)")
    row(f"vector_add, {len(cores)} cores", lane_instructions / all_cores / 1e6,
        "M lane-instr/s", count)
    row("vector_add, pinned to 1 core", lane_instructions / one_core / 1e6,
        "M lane-instr/s", f"{one_core * 1e3:.2f} ms/call; threads not settable, "
        "process pinned with sched_setaffinity")


# -- 3. empty kernel launches ------------------------------------------------

@flyc.kernel
def empty_kernel(A: fx.Tensor):
    pass


# One jit function per block size, and the last row the same with the block
# size as a Constexpr parameter (its value joins the dispatch key).
@flyc.jit
def launch_empty_1(A):
    empty_kernel(A).launch(grid=(1, 1, 1), block=(1, 1, 1))


@flyc.jit
def launch_empty_256(A):
    empty_kernel(A).launch(grid=(1, 1, 1), block=(256, 1, 1))


@flyc.jit
def launch_empty_constexpr(A, threads: fx.Constexpr):
    empty_kernel(A).launch(grid=(1, 1, 1), block=(threads, 1, 1))


def bench_empty():
    a = np.zeros(16, np.float32)
    reps = 5000
    note = f"grid 1; median of {reps}, Python call to return"
    for threads, jit_function in ((1, launch_empty_1), (256, launch_empty_256)):
        jit = median_seconds(lambda: jit_function(a), reps, warmup=20)
        compiled = flyc.compile(jit_function, a)
        direct = median_seconds(lambda: compiled(a), reps, warmup=20)
        row(f"empty kernel, @flyc.jit, block {threads}", jit * 1e6, "us/call", note)
        row(f"empty kernel, flyc.compile'd, block {threads}", direct * 1e6, "us/call", note)
    constexpr = median_seconds(lambda: launch_empty_constexpr(a, 1), reps, warmup=20)
    row("empty kernel, jit + Constexpr arg, block 1", constexpr * 1e6, "us/call",
        note + "; the value is part of the dispatch key")


# -- 4. checked emulation (FLYDSL_EMU_CHECK) ----------------------------------

def checked_and_unchecked(jit_function, args, checks="1"):
    """The function compiled without and with `checks` (FLYDSL_EMU_CHECK;
    the checks are in the cache key: two artifacts)."""
    plain = flyc.compile(jit_function, *args)
    os.environ["FLYDSL_EMU_CHECK"] = checks
    flyc.Environment.reload()
    try:
        checked = flyc.compile(jit_function, *args)
    finally:
        os.environ.pop("FLYDSL_EMU_CHECK")
        flyc.Environment.reload()
    assert checked._emu_checked() and not plain._emu_checked()
    return plain, checked


def bench_checked():
    import warnings

    import buffer_tiled_copy
    import tiled_copy_lds
    import torch

    reps = 20
    note = (f"median of {reps} warm calls each; the checked call "
            "packs its arguments in Python (it describes the tensors)")
    va = [np.random.rand(1024, 1024).astype(np.float32) for _ in range(2)] + \
        [np.zeros((1024, 1024), np.float32)]
    _, _, lds_args = tiled_copy_lds.arguments(256, 1024)
    _, _, _, gemm_args = fma_gemm.arguments(256, 256, 256)
    ragged = (torch.randn(1021, 1000), torch.zeros(1021, 1000))
    for name, jit_function, args, checks, what in (
            ("vector_add 1024x1024", vector_add.vector_add, vector_add_descriptors(*va),
             "1", "all checks"),
            ("tiled_copy_lds 256x1024 (LDS transpose)", tiled_copy_lds.tiled_copy, lds_args,
             "1", "all checks"),
            ("fma_gemm 256x256x256", fma_gemm.fma_gemm, gemm_args, "1", "all checks"),
            ("tiled_copy_lds, race only", tiled_copy_lds.tiled_copy, lds_args, "race",
             "the race check alone"),
            ("fma_gemm, race only", fma_gemm.fma_gemm, gemm_args, "race",
             "the race check alone"),
            ("tiled_copy_lds, init only", tiled_copy_lds.tiled_copy, lds_args, "init",
             "the init check alone"),
            ("fma_gemm, init only", fma_gemm.fma_gemm, gemm_args, "init",
             "the init check alone"),
            ("buffer_tiled_copy 1021x1000", buffer_tiled_copy.buffer_copy, ragged, "1",
             "all checks"),
            ("buffer_tiled_copy, bounds=strict", buffer_tiled_copy.buffer_copy, ragged,
             "all,bounds=strict", "all checks, range warnings on")):
        with warnings.catch_warnings():  # (flyc.compile runs the function once)
            warnings.simplefilter("ignore", flyc.EmuCheckWarning)
            plain, checked = checked_and_unchecked(jit_function, args, checks)
            t_plain = median_seconds(lambda: plain(*args), reps)
            t_checked = median_seconds(lambda: checked(*args), reps)
        row(f"checked {name}", t_checked / t_plain, "x unchecked",
            f"{t_plain * 1e3:.2f} -> {t_checked * 1e3:.2f} ms; {what}; {note}")


def main():
    print("| measurement                                  |        value | unit             | notes")
    print("|----------------------------------------------|--------------|------------------|------")
    bench_gemm()
    bench_vector_add()
    bench_empty()
    bench_checked()


if __name__ == "__main__":
    main()
