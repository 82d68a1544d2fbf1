"""fx.printf on the CPU emulator: gpu.printf lowers to the device library's
printf ABI (__ockl_printf_begin / _append_string_n / _append_args), which
the emulator implements on the host (runtime/emu/Printf.cpp). Each
work-item prints one line; the expected text is Python's own %-formatting
of the same values (integer conversions without `l` read 32 bits, as the
HIP host does). For a GPU it stays a TraceError at the call.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler import TraceError

THIS_FILE = str(Path(__file__).resolve())
BLOCK = 8


@flyc.kernel
def printing(A: fx.Tensor, n: fx.Int32, scale: fx.Float32):
    t = fx.block_idx.x * BLOCK + fx.thread_idx.x
    fx.printf("t=%d a=%.3f n=%u hex=%x wide=%lld neg=%d e=%e c=%c %5.1f%%\n",
              t, A[t], n, t * 255, 1 << 40, -3 - t, A[t] * scale, 65 + t % 26, scale)


@flyc.jit
def run(A, n, scale):
    printing(A, n, scale).launch(grid=(A.shape[0] // BLOCK, 1, 1), block=(BLOCK, 1, 1))


def expected(a, n, scale):
    f32 = np.float32
    lines = []
    for t, value in enumerate(a):
        lines.append("t=%d a=%.3f n=%u hex=%x wide=%d neg=%d e=%e c=%c %5.1f%%" % (
            t, value, n, t * 255, 1 << 40, -3 - t, f32(value) * f32(scale), 65 + t % 26, scale))
    return lines


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("blocks", [1, 3])
def test_printf_prints_every_work_item(fly_env, capfd, chip, blocks):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    a = (np.arange(blocks * BLOCK, dtype=np.float32) - 4) * 1.25
    capfd.readouterr()
    run(a, 7, 2.5)
    out = capfd.readouterr().out.splitlines()
    # Workgroups may run on several threads: lines in any order, each whole.
    assert sorted(out) == sorted(expected(a, 7, 2.5))


def gpu_printf(A):
    fx.printf("%f\n", A[fx.thread_idx.x])  # L:gpu


def dynamic_print(A):
    fx.printf("%s\n", A.shape)  # L:dynamic


@pytest.mark.parametrize("helper, marker, runtime, message", [
    (gpu_printf, "gpu", None, "It works on the CPU emulator"),
    (dynamic_print, "dynamic", "emu", "is dynamic: print its leaves"),
])
def test_printf_errors_are_located(fly_env, helper, marker, runtime, message):
    """For a GPU fx.printf is a TraceError (the device library's printf is
    not linked); a dynamic fly value cannot be printed as text. Both at the
    user's line."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND=runtime,
            COMPILE_ONLY=None if runtime else "1")

    @flyc.kernel
    def k(A: fx.Tensor):
        helper(A)

    @flyc.jit
    def launch(A):
        k(A).launch(grid=(1, 1, 1), block=(1, 1, 1))

    with pytest.raises(TraceError, match=re.escape(message)) as e:
        launch(np.zeros(4, np.float32))
    line = next(i for i, text in enumerate(Path(THIS_FILE).read_text().splitlines(), 1)
                if f"# L:{marker}" in text)
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, line)


def test_printf_of_static_fly_values(fly_env, capfd):
    """A static layout or shape takes a %s and prints as its value (part of
    the format after convert-fly-to-rocdl)."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def show(A: fx.Tensor):
        layout = fx.make_layout(((2, 4), 8), ((1, 16), 2))
        fx.printf("%d: %s of %s, %d%%\n", fx.thread_idx.x, layout,
                  fx.make_int_tuple((3, (4, 5))), fx.size(layout))

    @flyc.jit
    def launch(A):
        show(A).launch(grid=(1, 1, 1), block=(2, 1, 1))

    capfd.readouterr()
    launch(np.zeros(2, np.float32))
    assert capfd.readouterr().out.splitlines() == [
        "0: ((2,4),8):((1,16),2) of (3,(4,5)), 64%", "1: ((2,4),8):((1,16),2) of (3,(4,5)), 64%"]
