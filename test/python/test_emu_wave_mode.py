"""The emulator's SIMD mode (FLYDSL_EMU_MODE=wave: a wave function per
kernel, one call per wave, lanes as vector elements and divergence as
masks) against numpy and against the fiber mode (one fiber per work-item),
bit for bit, on gfx942 (waves of 64) and gfx1100 (waves of 32): divergent
ifs whose sides join with different values, loops whose trip count differs
per lane (lanes leave one by one, each with its own value), divergent ifs
inside loops, wave collectives inside divergent code, LDS and barriers,
and an alignment trap that must name the lane that faulted.

Each kernel also proves it ran as a wave function: with
FLYDSL_DEBUG_LOG_LEVEL=info the runtime says so on stderr when a kernel
runs as fibers instead (and why)."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx

N = 256
FALLBACK = "as fibers, one per work-item"


@pytest.fixture(params=["gfx942", "gfx1100"])
def chip(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_LOG_LEVEL="info")
    return request.param


def both_modes(run, monkeypatch, capfd, *arrays):
    """Runs `run(*copies)` in the fiber mode and in the SIMD mode; the
    arrays each mode left, after checking the SIMD mode ran its wave
    function."""
    results = {}
    for mode in ("fiber", "wave"):
        monkeypatch.setenv("FLYDSL_EMU_MODE", mode)
        copies = [a.copy() for a in arrays]
        capfd.readouterr()
        run(*copies)
        err = capfd.readouterr().err
        if mode == "wave":
            assert FALLBACK not in err, err
        results[mode] = copies
    for fiber, wave in zip(results["fiber"], results["wave"]):
        np.testing.assert_array_equal(wave, fiber)
    return results["wave"]


@flyc.kernel
def _if_else_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.block_idx.x * N + fx.thread_idx.x
    x = A[tid]
    if tid % 3 == 0:
        y = x * 2.0
    else:
        y = x + 1.0
    if x > 0.5:
        y = y - 10.0
    C[tid] = y


@flyc.jit
def _run_if_else(A: fx.Tensor, C: fx.Tensor):
    _if_else_kernel(A, C).launch(grid=(2, 1, 1), block=(N, 1, 1))


def test_divergent_ifs_join_with_each_lanes_value(chip, monkeypatch, capfd):
    a = np.linspace(-1, 1, 2 * N).astype(np.float32)
    (c,) = both_modes(_run_if_else, monkeypatch, capfd, a, np.zeros(2 * N, np.float32))[1:]
    i = np.arange(2 * N)
    want = np.where(i % 3 == 0, a * 2, a + 1)
    want = np.where(a > 0.5, want - 10, want).astype(np.float32)
    np.testing.assert_array_equal(c, want)


@flyc.kernel
def _loop_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    acc = fx.Float32(0.0)
    for i in range(tid % 7):       # a trip count of its own per lane
        acc = acc + A[i] * (i + 1.0)
    for i in range(4):             # the same for every lane, a branch inside
        if (tid + i) % 4 == 0:
            acc = acc + 100.0
    C[tid] = acc


@flyc.jit
def _run_loop(A: fx.Tensor, C: fx.Tensor):
    _loop_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_lanes_leave_a_loop_one_by_one_with_their_own_values(chip, monkeypatch, capfd):
    a = np.arange(1, 9, dtype=np.float32)
    (c,) = both_modes(_run_loop, monkeypatch, capfd, a, np.zeros(N, np.float32))[1:]
    want = np.array([sum(a[i] * (i + 1) for i in range(t % 7)) + 100.0
                     for t in range(N)], np.float32)
    np.testing.assert_array_equal(c, want)


@flyc.kernel
def _shuffle_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    x = A[tid]
    y = fx.gpu.shuffle_xor(x, 1, 32)
    if tid % 2 == 0:
        # inside a divergent branch: only the even lanes ask
        lane = fx.gpu.lane_id()   # the first lane of its 32-lane segment:
        y = y + fx.gpu.shuffle_idx(x, lane - lane % 32, 32) * 1000.0
    C[tid] = y


@flyc.jit
def _run_shuffle(A: fx.Tensor, C: fx.Tensor):
    _shuffle_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_lane_shuffles_in_uniform_and_divergent_code(chip, monkeypatch, capfd):
    a = np.arange(N, dtype=np.float32)
    (c,) = both_modes(_run_shuffle, monkeypatch, capfd, a, np.zeros(N, np.float32))[1:]
    i = np.arange(N)
    want = a[i ^ 1] + np.where(i % 2 == 0, a[i - i % 32] * 1000, 0)
    np.testing.assert_array_equal(c, want.astype(np.float32))


@flyc.kernel
def _lds_reverse_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout(N, 1))
    smem[tid] = A[tid] * 3.0
    fx.gpu.barrier()
    C[tid] = smem[N - 1 - tid]


@flyc.jit
def _run_lds_reverse(A: fx.Tensor, C: fx.Tensor):
    _lds_reverse_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_lds_and_a_barrier_between_waves(chip, monkeypatch, capfd):
    a = np.arange(N, dtype=np.float32)
    (c,) = both_modes(_run_lds_reverse, monkeypatch, capfd, a, np.zeros(N, np.float32))[1:]
    np.testing.assert_array_equal(c, (a * 3)[::-1])


def test_a_block_whose_rows_are_not_whole_waves_runs_as_fibers(chip, monkeypatch):
    """A wave function takes a wave to be one run of x; a 16 x 16 block is
    not, and the fibers run it (same results)."""
    @flyc.kernel
    def square(A: fx.Tensor, C: fx.Tensor):
        x = fx.thread_idx.x
        y = fx.thread_idx.y
        C[y * 16 + x] = A[y * 16 + x] * A[x * 16 + y]

    @flyc.jit
    def run(A: fx.Tensor, C: fx.Tensor):
        square(A, C).launch(grid=(1, 1, 1), block=(16, 16, 1))

    monkeypatch.setenv("FLYDSL_EMU_MODE", "wave")
    a = np.arange(256, dtype=np.float32)
    c = np.zeros(256, np.float32)
    run(a, c)
    m = a.reshape(16, 16)
    np.testing.assert_array_equal(c.reshape(16, 16), m * m.T)


# -- The project's examples: wave collectives, MFMA, LDS ---------------------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def test_mfma_gemm_runs_as_waves_bit_for_bit(examples, fly_env, monkeypatch, capfd):
    """MFMA as one call per wave (fly_emu_wave_matrix), operands staged in
    LDS behind barriers."""
    import torch

    import mfma_gemm
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_LOG_LEVEL="info")
    gen = torch.Generator().manual_seed(5)
    for dtype in (torch.float16, torch.float32):
        a = torch.randn(64, 32, generator=gen).to(dtype)
        b = torch.randn(64, 32, generator=gen).to(dtype)
        run = lambda c: mfma_gemm.mfma_gemm(a, b, torch.from_numpy(c))  # noqa: E731
        (c,) = both_modes(run, monkeypatch, capfd, np.zeros((64, 64), np.float32))
        want = a.double() @ b.double().T
        assert np.allclose(c, want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_warp_collectives_and_block_scan_run_as_waves(examples, fly_env, monkeypatch,
                                                      capfd, arch):
    """fx.coop's warp reductions and scans (DPP, swizzles, permlanes) and a
    block scan through LDS, in both modes alike."""
    import block_scan
    import warp_collectives
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_LOG_LEVEL="info")
    for mode in ("wave", "fiber"):
        monkeypatch.setenv("FLYDSL_EMU_MODE", mode)
        capfd.readouterr()
        assert warp_collectives.check(3)
        assert block_scan.check(3)[0]
        err = capfd.readouterr().err
        if mode == "wave":
            assert FALLBACK not in err, err


def test_a_kernel_without_a_wave_function_says_why_at_info_level(fly_env, monkeypatch, capfd):
    """Checked emulation keeps its fibers (its checks find their work-item
    through one); the runtime says so once, at info level, and the results
    are the SIMD mode's all the same."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_DEBUG_LOG_LEVEL="info", FLYDSL_EMU_CHECK="bounds")
    monkeypatch.setenv("FLYDSL_EMU_MODE", "wave")
    a = np.linspace(-1, 1, 2 * N).astype(np.float32)
    c = np.zeros(2 * N, np.float32)
    capfd.readouterr()
    _run_if_else(a, c)
    err = capfd.readouterr().err
    assert ("the emulator runs kernel _if_else_kernel as fibers, one per work-item: "
            "checked emulation (FLYDSL_EMU_CHECK) runs as fibers") in err, err
    i = np.arange(2 * N)
    want = np.where(i % 3 == 0, a * 2, a + 1)
    np.testing.assert_array_equal(c, np.where(a > 0.5, want - 10, want).astype(np.float32))
