"""fx.gpu (FlyDSL's names): indices and dimensions, lane_id,
num_warp_threads, known_block_size, barrier and the shuffles' value types,
run on the emulator for gfx942 (wave64) and gfx1100 (wave32) and checked
against numpy; bad arguments are TraceErrors at the user's line.
(test_emu_shuffles.py checks each shuffle mode against a model.)"""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError

THIS_FILE = __file__
CHIPS = [("gfx942", 64), ("gfx1100", 32)]


@pytest.fixture
def chip(request, fly_env):
    arch, wave = request.param
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return arch, wave


def test_catalog_names():
    assert sorted(fx.gpu.__all__) == sorted([
        "thread_idx", "lane_id", "block_idx", "block_dim", "grid_dim", "barrier", "shuffle_xor",
        "shuffle_up", "shuffle_down", "shuffle_idx", "known_block_size", "num_warp_threads",
        "SharedAllocator"])
    for name in fx.gpu.__all__:
        assert getattr(fx, name) is getattr(fx.gpu, name)


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
def test_indices_dimensions_and_lanes(chip):
    _, wave = chip
    seen = {}
    grid, block = (2, 3, 1), (4, 8, 2)  # 64 threads a block

    @flyc.kernel
    def where(Out: fx.Tensor):
        tx, ty, tz = fx.thread_idx
        bid_x, bid_y, _ = fx.block_idx
        gx, gy, gz = fx.grid_dim
        tid = tx + ty * fx.block_dim.x + tz * fx.block_dim.x * fx.block_dim.y
        block = bid_x + bid_y * gx
        seen["lanes"] = fx.num_warp_threads()
        seen["block"] = fx.known_block_size()
        base = (block * 64 + tid) * 8
        for i, v in enumerate((tx, ty, tz, fx.block_dim.z, gy * 10 + gz, fx.lane_id(),
                               fx.block_idx.z, tid)):
            Out[base + i] = v

    @flyc.jit
    def run(Out):
        where(Out).launch(grid=grid, block=block)

    out = np.full(6 * 64 * 8, -1, np.int32)
    run(out)
    assert seen == {"lanes": wave, "block": block}
    got = out.reshape(6, 64, 8)
    tid = np.arange(64)
    for b in range(6):
        np.testing.assert_array_equal(got[b, :, 0], tid % 4)
        np.testing.assert_array_equal(got[b, :, 1], tid // 4 % 8)
        np.testing.assert_array_equal(got[b, :, 2], tid // 32)
        np.testing.assert_array_equal(got[b, :, 3], 2)
        np.testing.assert_array_equal(got[b, :, 4], 31)
        np.testing.assert_array_equal(got[b, :, 5], tid % wave)
        np.testing.assert_array_equal(got[b, :, 6], 0)
        np.testing.assert_array_equal(got[b, :, 7], tid)


def test_known_block_size_explicit_inferred_and_attribute(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    seen = []

    @flyc.kernel(known_block_size=[64, 2, 1])
    def explicit(Out: fx.Tensor):
        seen.append(("explicit", fx.known_block_size()))
        Out[fx.thread_idx.x] = fx.Int32(1)

    @flyc.kernel
    def inferred(Out: fx.Tensor):
        x, y, z = fx.known_block_size()
        seen.append(("inferred", (x, y, z)))
        Out[fx.thread_idx.x] = fx.Int32(x * 100 + y)

    @flyc.jit
    def run(Out):
        explicit(Out).launch(grid=(1, 1, 1), block=(64, 2, 1))
        inferred(Out).launch(grid=(1, 1, 1), block=32)  # one kernel per block size
        inferred(Out).launch(grid=(1, 1, 1), block=(16, 2))

    out = np.zeros(64, np.int32)
    compiled = flyc.compile(run, out)
    compiled(out)
    assert seen == [("explicit", (64, 2, 1)), ("inferred", (32, 1, 1)), ("inferred", (16, 2, 1))]
    np.testing.assert_array_equal(out, [1602] * 16 + [3201] * 16 + [1] * 32)
    text = compiled.module_text
    assert "known_block_size = array<i32: 64, 2, 1>" in text
    assert "known_block_size = array<i32: 32, 1, 1>" in text
    assert "known_block_size = array<i32: 16, 2, 1>" in text


def test_shuffle_value_types(fly_env):
    fly_env(ARCH="gfx1100", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def types(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        x = A[tid]
        h = fx.shuffle_xor(x.to(fx.Float16), 1, 32)
        d = fx.shuffle_down(x.to(fx.Float64), 2, 32)
        i = fx.shuffle_up(x.to(fx.Int8), 4, 8)
        q = fx.shuffle_idx(x.to(fx.Int64), 5, 32)
        assert (type(h), type(d), type(i), type(q)) == (fx.Float16, fx.Float64, fx.Int8, fx.Int64)
        Out[tid * 4] = h.to(fx.Float32)
        Out[tid * 4 + 1] = d.to(fx.Float32)
        Out[tid * 4 + 2] = i.to(fx.Float32)
        Out[tid * 4 + 3] = q.to(fx.Float32)

    @flyc.jit
    def run(A, Out):
        types(A, Out).launch(grid=(1, 1, 1), block=(32, 1, 1))

    a = np.arange(32, dtype=np.float32) - 10
    out = np.zeros(128, np.float32)
    run(a, out)
    lane = np.arange(32)
    got = out.reshape(32, 4)
    np.testing.assert_array_equal(got[:, 0], a[lane ^ 1])
    np.testing.assert_array_equal(got[:, 1], np.where(lane + 2 < 32, a[np.minimum(lane + 2, 31)], a))
    np.testing.assert_array_equal(got[:, 2], a[(lane - 4) % 32])  # up: read below the segment
    np.testing.assert_array_equal(got[:, 3], np.full(32, a[5]))


# -- errors at the user's line ---------------------------------------------------

def bad_width():
    fx.shuffle_xor(fx.Float32(1.0), 1, 3)  # L:width_3


def wide_width():
    fx.shuffle_down(fx.Float32(1.0), 1, 128)  # L:width_128


def bad_value():
    fx.shuffle_up(2.5, 1, 16)  # L:value


def bad_offset():
    fx.shuffle_idx(fx.Int32(1), fx.Float32(2.0), 16)  # L:offset


def bad_barrier():
    fx.barrier(1)  # L:barrier


def unknown_block():
    fx.known_block_size()  # L:known


_LINES = marker_lines(THIS_FILE)


@pytest.mark.parametrize("fn, marker, message", [
    (bad_width, "width_3", "fx.shuffle_xor: width=3 is not a power of two from 1 to the 64 lanes"),
    (wide_width, "width_128", "fx.shuffle_down: width=128 is not a power of two"),
    (bad_value, "value", "fx.shuffle_up: value must be a numeric (a scalar or a Vector), not float"),
    (bad_offset, "offset", "fx.shuffle_idx: lane must be an int or a scalar integer numeric, "
                           "not Float32"),
    (bad_barrier, "barrier", "fx.barrier takes no arguments (got 1)"),
    (unknown_block, "known", "kernel body has no compile-time block size; give "
                             "@flyc.kernel(known_block_size=(x, y, z)) or launch it with a block "
                             "of Python ints (or numerics of them)"),
])
def test_errors(fly_env, fn, marker, message):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def body(A: fx.Tensor):
        fn()

    @flyc.jit
    def run(A, n: fx.Int32):
        body(A).launch(grid=(1, 1, 1), block=(n, 1, 1))  # a dynamic block

    with pytest.raises(TraceError, match=re.escape(message)) as e:
        run(np.zeros(4, np.float32), 64)
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])


def test_wave_of_gfx1100_limits_width(fly_env):
    fly_env(ARCH="gfx1100", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def body(A: fx.Tensor):
        A[0] = fx.shuffle_xor(A[0], 1, 64)

    @flyc.jit
    def run(A):
        body(A).launch(grid=(1, 1, 1), block=(32, 1, 1))

    with pytest.raises(TraceError, match=re.escape(
            "fx.shuffle_xor: width=64 is not a power of two from 1 to the 32 lanes of a wave "
            "on gfx1100")):
        run(np.zeros(4, np.float32))


def test_known_block_size_outside_a_kernel():
    with pytest.raises(TraceError, match="no compile-time block size outside of a @flyc.kernel "
                                         "body") as e:
        fx.known_block_size()
    assert isinstance(e.value, RuntimeError)  # as FlyDSL's
