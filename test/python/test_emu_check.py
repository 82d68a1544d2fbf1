"""Checked emulation: the emulator as a kernel sanitizer (SPEC §9).

Kernels written as users write them, each with a planted bug -- a store
one element past its tensor, a store into the neighbouring view of the
same torch tensor, an LDS store one past the allocation, a read of an LDS
word whose store was skipped, an LDS reverse across waves with its barrier
removed, a plain load racing atomics, a barrier under a lane-dependent
condition, two branches meeting at different barriers --
must be reported as an EmuCheckError with the kind, the kernel, the line
of the access (found here with inspect, from this file's source), the
work-item, the tensor and the byte offset; the same kernels fixed run
clean and right; a same-wave exchange through LDS and atomics of many
waves are not races. The switch (FLYDSL_EMU_CHECK, the `emu_check` compile
hint of flyc.compile and of @flyc.jit functions, fly-emu-run --check), the
cache separation of checked artifacts, the first-N-shown rule and the
process surviving a report are tested too, and every example runs under
the checks on a wave64 and a wave32 chip with no report (but the one true report of vector_add's 128-bit copies, which
write past the last row of their view).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import REPO_ROOT

CHIPS = ["gfx942", "gfx1100"]
HERE = os.path.abspath(__file__)


def line_of(kernel, marker: str) -> int:
    """The line of this file that ends with `marker` in `kernel`'s source
    (a @flyc.kernel: its Python function), by inspect."""
    lines, first = inspect.getsourcelines(kernel.fn)
    found = [first + i for i, line in enumerate(lines) if line.rstrip().endswith(marker)]
    assert len(found) == 1, (marker, found)
    return found[0]


@pytest.fixture(params=CHIPS)
def chip(request, fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH=request.param, COMPILE_ONLY=None,
            FLYDSL_EMU_CHECK="1")
    return request.param


def wave_size(chip: str) -> int:
    return 64 if chip.startswith("gfx9") else 32


# ---- the kernels ---------------------------------------------------------

@flyc.kernel
def shift_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    t = fx.thread_idx.x
    C[t + off] = A[t] * 2.0  # the store


@flyc.jit
def shift(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    shift_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def gather_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    i = fx.block_idx.x * 32 + fx.thread_idx.x
    C[i] = A[i + off]  # the load


@flyc.jit
def gather(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    gather_kernel(A, C, off).launch(grid=(2, 1, 1), block=(32, 1, 1))


@flyc.kernel
def halves_kernel(X: fx.Tensor, Lo: fx.Tensor, Hi: fx.Tensor, off: fx.Constexpr):
    t = fx.thread_idx.x
    Lo[t + off] = X[t]  # the store into Lo
    Hi[t] = X[t] + 1.0


@flyc.jit
def halves(X: fx.Tensor, Lo: fx.Tensor, Hi: fx.Tensor, off: fx.Constexpr[int] = 0):
    halves_kernel(X, Lo, Hi, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@fx.struct
class Shared:
    buf: fx.Array[fx.Float32, 64, 16]


@flyc.kernel
def reverse_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared).peek()
    s = smem.buf.view(fx.make_layout(64, 1))
    s[t + off] = A[t]  # the LDS store
    fx.barrier()
    C[t] = s[63 - t]


@flyc.jit
def reverse(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    reverse_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def reverse_skip_kernel(A: fx.Tensor, C: fx.Tensor, skip: fx.Constexpr):
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared).peek()
    s = smem.buf.view(fx.make_layout(64, 1))
    if t != skip:
        s[t] = A[t]
    fx.barrier()
    C[t] = s[63 - t]  # the LDS load


@flyc.jit
def reverse_skip(A: fx.Tensor, C: fx.Tensor, skip: fx.Constexpr[int] = -1):
    reverse_skip_kernel(A, C, skip).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def count_kernel(A: fx.Tensor, C: fx.Tensor, zero: fx.Constexpr):
    """Every work-item adds 1 to LDS word 0 with an LDS atomic (an atomic
    is a write); with zero, work-item 0 first stores 0 there."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared).peek()
    s = smem.buf.view(fx.make_layout(64, 1))
    if zero:
        if t == 0:
            s[0] = 0.0
        fx.barrier()
    atom = fx.make_copy_atom(fx.UniversalAtomicAdd(fx.Float32, "workgroup"), fx.Float32)
    one = fx.make_rmem_tensor(1, fx.Float32)
    one.fill(1.0)
    fx.copy(atom, one, fx.make_view(fx.get_iter(s), fx.make_layout(1, 1)))  # the atomic
    fx.barrier()
    C[t] = s[0]  # the load after the atomics


@flyc.jit
def count(A: fx.Tensor, C: fx.Tensor, zero: fx.Constexpr[bool] = True):
    count_kernel(A, C, zero).launch(grid=(1, 1, 1), block=(64, 1, 1))


@fx.struct
class Shared128:
    buf: fx.Array[fx.Float32, 128, 16]


@flyc.kernel
def reverse128_kernel(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr):
    """128 work-items (2 waves of 64, 4 of 32) reverse A through LDS."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared128).peek()
    s = smem.buf.view(fx.make_layout(128, 1))
    s[t] = A[t]  # the racing store
    if sync:
        fx.barrier()
    C[t] = s[127 - t]  # the racing load


@flyc.jit
def reverse128(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr[bool] = True):
    reverse128_kernel(A, C, sync).launch(grid=(1, 1, 1), block=(128, 1, 1))


@flyc.kernel
def load_first_kernel(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr):
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared128).peek()
    s = smem.buf.view(fx.make_layout(128, 1))
    if sync:
        s[t] = A[t]
        fx.barrier()
        C[t] = s[127 - t]
    else:
        x = s[127 - t]  # reads the word the reverse will write
        s[t] = A[t]
        C[t] = x


@flyc.jit
def load_first(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr[bool] = True):
    load_first_kernel(A, C, sync).launch(grid=(1, 1, 1), block=(128, 1, 1))


@flyc.kernel
def count128_kernel(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr):
    """128 work-items (several waves) add 1 to LDS word 0 atomically."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared128).peek()
    s = smem.buf.view(fx.make_layout(128, 1))
    if t == 0:
        s[0] = 0.0
    fx.barrier()
    atom = fx.make_copy_atom(fx.UniversalAtomicAdd(fx.Float32, "workgroup"), fx.Float32)
    one = fx.make_rmem_tensor(1, fx.Float32)
    one.fill(1.0)
    fx.copy(atom, one, fx.make_view(fx.get_iter(s), fx.make_layout(1, 1)))  # the atomic add
    if sync:
        fx.barrier()
    C[t] = s[0]  # the plain load


@flyc.jit
def count128(A: fx.Tensor, C: fx.Tensor, sync: fx.Constexpr[bool] = True):
    count128_kernel(A, C, sync).launch(grid=(1, 1, 1), block=(128, 1, 1))


@flyc.kernel
def wave_reverse_kernel(A: fx.Tensor, C: fx.Tensor, n: fx.Constexpr):
    """One wave (n = its size) reverses A through LDS with no barrier: its
    lanes' store and load are ordered by program order (a shuffle between
    them, the wave-level collective the emulator switches lanes at)."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(Shared128).peek()
    s = smem.buf.view(fx.make_layout(n, 1))
    s[t] = A[t]
    x = fx.shuffle_xor(A[t], 1, n)
    C[t] = s[n - 1 - t] + (x - x)


@flyc.jit
def wave_reverse(A: fx.Tensor, C: fx.Tensor, n: fx.Constexpr[int] = 64):
    wave_reverse_kernel(A, C, n).launch(grid=(1, 1, 1), block=(n, 1, 1))


@flyc.kernel
def guarded_barrier_kernel(A: fx.Tensor, C: fx.Tensor, limit: fx.Constexpr):
    t = fx.thread_idx.x
    if t < limit:
        fx.barrier()  # the barrier
    C[t] = A[t]


@flyc.jit
def guarded_barrier(A: fx.Tensor, C: fx.Tensor, limit: fx.Constexpr[int] = 64):
    guarded_barrier_kernel(A, C, limit).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def two_barriers_kernel(A: fx.Tensor, C: fx.Tensor):
    t = fx.thread_idx.x
    if t < 32:
        fx.barrier()  # the first barrier
        C[t] = A[t]
    else:
        fx.barrier()  # the second barrier
        C[t] = A[t] + 1.0


@flyc.jit
def two_barriers(A: fx.Tensor, C: fx.Tensor):
    two_barriers_kernel(A, C).launch(grid=(1, 1, 1), block=(64, 1, 1))


def iota(n=64):
    return np.arange(n, dtype=np.float32)


def one_report(err):
    assert isinstance(err, flyc.EmuCheckError) and isinstance(err, flyc.FlyDSLError)
    assert err.count == len(err.reports) == 1, str(err)
    return err.reports[0]


# ---- bounds ----------------------------------------------------------------

def test_store_one_past_a_tensor_is_reported(chip):
    a = iota()
    buf = np.full(65, -1.0, np.float32)  # one guard float after C
    c = buf[:64]
    with pytest.raises(flyc.EmuCheckError) as info:
        shift(a, c, off=1)
    r = one_report(info.value)
    assert r["kind"] == "out-of-bounds store of 4 bytes"
    assert (r["file"], r["line"]) == (HERE, line_of(shift_kernel, "# the store"))
    assert r["block"] == (0, 0, 0) and r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == ("C", 256, 256)
    assert info.value.kernel == "shift_kernel"
    assert (info.value.filename, info.value.lineno) == (r["file"], r["line"])
    text = str(info.value)
    assert "shift_kernel" in text and f"{HERE}:{r['line']}" in text
    # The report did not let the store through: the guard float is intact,
    # the in-bounds stores were made.
    assert buf[64] == -1.0 and np.array_equal(c[1:], a[:63] * 2)
    # Fixed: clean and right, in the same process.
    shift(a, c)
    assert np.array_equal(c, a * 2)


def test_load_before_a_tensor(chip):
    base = np.arange(70, dtype=np.float32)
    a = base[3:67]  # 64 floats, 3 before and after in the same allocation
    c = np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        gather(a, c, off=-1)
    r = one_report(info.value)
    assert r["kind"] == "out-of-bounds load of 4 bytes"
    assert r["line"] == line_of(gather_kernel, "# the load")
    assert r["block"] == (0, 0, 0) and r["thread"] == (0, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == ("A", -4, 256)
    # An out-of-bounds load reads 0, not the neighbour's 2.0.
    assert c[0] == 0.0 and np.array_equal(c[1:], a[:63])
    gather(a, c)
    assert np.array_equal(c, a)


def test_store_into_the_neighbouring_view(chip):
    """Two views of one torch tensor as two arguments: Lo's element 64 is
    Hi's element 0, inside the allocation, outside Lo."""
    x = torch.arange(64, dtype=torch.float32)
    whole = torch.zeros(128)
    lo, hi = whole[:64], whole[64:]
    with pytest.raises(flyc.EmuCheckError) as info:
        halves(x, lo, hi, off=1)
    r = one_report(info.value)
    assert r["kind"] == "out-of-bounds store of 4 bytes"
    assert r["line"] == line_of(halves_kernel, "# the store into Lo")
    assert r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == ("Lo", 256, 256)
    assert torch.equal(hi, x + 1.0)  # Hi's element 0 was not overwritten
    halves(x, lo, hi)
    assert torch.equal(lo, x) and torch.equal(hi, x + 1.0)


def test_lds_store_one_past_the_allocation(chip):
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        reverse(a, c, off=1)
    # Two reports: the store past the LDS, and the read of word 0, which the
    # shifted stores left unwritten (work-item 63 reads it).
    err = info.value
    assert err.count == len(err.reports) == 2, str(err)
    r, u = err.reports
    assert r["kind"] == "out-of-bounds LDS store of 4 bytes"
    assert r["line"] == line_of(reverse_kernel, "# the LDS store")
    assert r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == (None, 256, 256)
    assert u["kind"] == "uninitialised LDS read of 4 bytes"
    assert u["line"] == line_of(reverse_kernel, "C[t] = s[63 - t]")
    assert u["thread"] == (63, 0, 0)
    assert (u["tensor"], u["offset"], u["extent"]) == (None, 0, 256)
    reverse(a, c)
    assert np.array_equal(c, a[::-1])


def test_first_reports_shown_the_rest_counted(chip):
    a = iota()
    c = np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        shift(a, c, off=64)  # every work-item stores past C
    err = info.value
    assert err.count == 64 and len(err.reports) == 10
    assert "... and 54 more" in str(err)
    assert [r["thread"][0] for r in err.reports] == list(range(10))
    assert [r["offset"] for r in err.reports] == [256 + 4 * t for t in range(10)]
    assert not c.any()  # nothing was stored anywhere
    shift(a, c)
    assert np.array_equal(c, a * 2)


# ---- uninitialised LDS reads ---------------------------------------------------

def test_lds_read_nobody_wrote(chip):
    """Work-item 5 skips its store: work-item 58 reads LDS word 5, which no
    work-item of the workgroup wrote."""
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        reverse_skip(a, c, skip=5)
    r = one_report(info.value)
    assert r["kind"] == "uninitialised LDS read of 4 bytes"
    assert (r["file"], r["line"]) == (HERE, line_of(reverse_skip_kernel, "# the LDS load"))
    assert r["block"] == (0, 0, 0) and r["thread"] == (58, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == (None, 20, 256)
    assert "no work-item of the workgroup wrote any of its bytes" in r["detail"]
    # The other reads were made: reported, not stopped.
    want = a[::-1].copy()
    assert np.array_equal(np.delete(c, 58), np.delete(want, 58))
    # Fixed: every work-item stores; clean and right.
    reverse_skip(a, c)
    assert np.array_equal(c, a[::-1])


def test_each_workgroup_starts_with_nothing_written(chip):
    """The shadow is cleared when a workgroup starts: after a launch whose
    work-items all store (clean), the buggy launch still reports the word
    its work-item 63 skipped, though the LDS buffer is the same one, in the
    same process; and the next clean launch is clean again."""
    a, c = iota(), np.zeros(64, np.float32)
    for _ in range(3):
        reverse_skip(a, c)
        assert np.array_equal(c, a[::-1])
        with pytest.raises(flyc.EmuCheckError) as info:
            reverse_skip(a, c, skip=63)
        r = one_report(info.value)
        assert r["thread"] == (0, 0, 0) and r["offset"] == 252


def test_lds_atomics_are_writes(chip):
    a, c = iota(), np.zeros(64, np.float32)
    count(a, c)
    assert np.array_equal(c, np.full(64, 64.0, np.float32))
    # Without the initial store the atomics still count as writes: the load
    # after them is not reported (the atomics' own reads are not checked).
    count(a, c, zero=False)


# ---- LDS races ------------------------------------------------------------------

def test_lds_race_without_the_barrier(chip, fly_env):
    """The LDS reverse with its barrier removed: every work-item reads a word
    a work-item of another wave stores, with no barrier between. Each word
    gives one report (at whichever of its two accesses came second), naming
    both work-items, both lines and both waves. (FLYDSL_EMU_CHECK=race: the
    loads that come before their word's store would also be init reports.)"""
    fly_env(FLYDSL_EMU_CHECK="race")
    a, c = iota(128), np.zeros(128, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        reverse128(a, c, sync=False)
    err = info.value
    assert err.count == 128 and len(err.reports) == 10, str(err)
    store = line_of(reverse128_kernel, "# the racing store")
    load = line_of(reverse128_kernel, "# the racing load")
    ws = wave_size(chip)
    for r in err.reports:
        other = r["other"]
        me, them = r["thread"][0], other["thread"][0]
        assert me + them == 127  # the word's writer and its reader
        assert {r["line"], other["line"]} == {store, load}, r
        assert {r["kind"].split(" of ")[0], other["access"]} in (
            {"LDS race: load", "stored"}, {"LDS race: store", "loaded"}), r
        assert r["file"] == other["file"] == HERE
        assert (r["wave"], other["wave"]) == (me // ws, them // ws) and me // ws != them // ws
        word = (me if r["line"] == store else them) * 4
        assert r["offset"] == (me if r["line"] == store else 127 - me) * 4
        assert f"the LDS word at offset {word} was" in r["detail"]
    # With the barrier: clean and right.
    reverse128(a, c)
    assert np.array_equal(c, a[::-1])


def test_lds_race_is_found_in_either_order(chip, fly_env):
    """Whichever of two racing accesses runs first, the second is reported:
    with the load before the store in program order, as with the store
    first, the fibers' order (wave after wave) puts some words' load
    before their store and others' after, and both show as reports
    (FLYDSL_EMU_CHECK=race alone: the early loads also read LDS nobody
    wrote, which init would report)."""
    fly_env(FLYDSL_EMU_CHECK="race")
    a, c = iota(128), np.zeros(128, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        load_first(a, c, sync=False)
    err = info.value
    assert err.count == 128, str(err)
    kinds = {r["kind"] for r in err.reports}
    assert kinds == {"LDS race: load of 4 bytes", "LDS race: store of 4 bytes"}, str(err)
    for r in err.reports:
        assert r["thread"][0] + r["other"]["thread"][0] == 127
    load_first(a, c, sync=True)
    assert np.array_equal(c, a[::-1])


def test_atomics_of_many_waves_are_not_a_race(chip):
    """Atomics of different waves on one word, between the same barriers, do
    not race; a plain load of the word with no barrier after them does."""
    a, c = iota(128), np.zeros(128, np.float32)
    count128(a, c)
    assert np.array_equal(c, np.full(128, 128.0, np.float32))
    with pytest.raises(flyc.EmuCheckError) as info:
        count128(a, c, sync=False)
    atomic = line_of(count128_kernel, "# the atomic add")
    load = line_of(count128_kernel, "# the plain load")
    pairs = set()
    for r in info.value.reports:
        pairs.add((r["kind"], r["line"], r["other"]["access"], r["other"]["line"]))
        assert r["other"]["wave"] != r["wave"] and r["offset"] == 0
    # A wave's load after another's atomic, or its atomic after another's
    # load (the fibers run wave after wave: both happen); never two atomics.
    assert pairs <= {("LDS race: load of 4 bytes", load, "atomically updated", atomic),
                     ("LDS race: atomic of 4 bytes", atomic, "loaded", load)}, pairs
    assert pairs


def test_same_wave_lds_exchange_is_not_a_race(chip):
    """The lanes of one wave exchange through LDS with no barrier: ordered
    by program order on AMD's hardware, not reported; right values."""
    n = wave_size(chip)
    a, c = iota(n), np.zeros(n, np.float32)
    wave_reverse(a, c, n=n)
    assert np.array_equal(c, a[::-1])


# ---- barriers ----------------------------------------------------------------

def test_barrier_under_a_lane_dependent_condition(chip):
    a, c = iota(), np.zeros(64, np.float32)
    # Half a wave (16 lanes) at the barrier, the rest of its wave returns.
    with pytest.raises(flyc.EmuCheckError) as info:
        guarded_barrier(a, c, limit=16)
    r = one_report(info.value)
    assert r["kind"] == "barrier divergence"
    assert r["line"] == line_of(guarded_barrier_kernel, "# the barrier")
    assert r["thread"] == (0, 0, 0)
    assert "work-item (16,0,0) of its wave (wave 0) returned without reaching it" in r["detail"]
    guarded_barrier(a, c)  # every work-item at the barrier
    assert np.array_equal(c, a)


def test_whole_waves_that_return_do_not_count(chip):
    """limit=32: on a wave32 chip wave 0 is at the barrier and wave 1 has
    returned as a whole, which the hardware's barrier does not wait for (no
    report); on a wave64 chip the one wave is split (a report)."""
    a, c = iota(), np.zeros(64, np.float32)
    if wave_size(chip) == 32:
        guarded_barrier(a, c, limit=32)
        assert np.array_equal(c, a)
    else:
        with pytest.raises(flyc.EmuCheckError) as info:
            guarded_barrier(a, c, limit=32)
        assert "work-item (32,0,0) of its wave (wave 0)" in one_report(info.value)["detail"]


def test_work_items_at_different_barriers(chip):
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        two_barriers(a, c)
    r = one_report(info.value)
    first = line_of(two_barriers_kernel, "# the first barrier")
    second = line_of(two_barriers_kernel, "# the second barrier")
    assert r["kind"] == "barrier divergence" and r["line"] == first
    assert f"work-item (32,0,0) waits at the barrier at {HERE}:{second}" in r["detail"]


# ---- the switch, the cache ---------------------------------------------------

def fresh_shift(emu_check=None):
    """A new jit function launching shift_kernel (compile hints stick to a
    jit function: each test gets its own), with the `emu_check` hint of
    @flyc.jit functions when given."""
    @flyc.jit
    def shift_again(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
        shift_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))
    if emu_check is not None:
        shift_again.compile_hints = {"emu_check": emu_check}
    return shift_again


def test_unchecked_by_default_and_cached_apart(fly_env, tmp_path):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None, FLYDSL_EMU_CHECK=None,
            FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "cache"))
    a = iota()
    buf = np.full(65, -1.0, np.float32)
    f = fresh_shift()

    def artifacts():
        return sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file())

    unchecked_key = f.compile_options().key_text()
    f(a, buf[:64], off=1)  # unchecked: the bug goes unseen
    assert buf[64] == 126.0
    after_unchecked = artifacts()
    fly_env(FLYDSL_EMU_CHECK="1")
    assert f.compile_options().key_text() != unchecked_key
    assert "emu_check='bounds,race,init,barrier'" in f.compile_options().key_text()
    with pytest.raises(flyc.EmuCheckError):
        f(a, buf[:64], off=1)
    after_checked = artifacts()
    assert len(after_checked) > len(after_unchecked)  # a second artifact
    fly_env(FLYDSL_EMU_CHECK="0")
    assert f.compile_options().key_text() == unchecked_key
    f(a, buf[:64], off=1)  # the unchecked artifact again
    assert artifacts() == after_checked


def test_unchecked_code_has_no_checks(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None, FLYDSL_EMU_CHECK=None)
    a, c = iota(), np.zeros(64, np.float32)
    plain = flyc.compile(fresh_shift(), a, c)
    checked = flyc.compile[{"emu_check": "bounds"}](fresh_shift(), a, c)
    blob = b"".join(e for _, _, e in plain.code_objects)
    assert b"fly_emu_check_access" not in blob and b"__fly_emu_checks" not in blob
    blob = b"".join(e for _, _, e in checked.code_objects)
    assert b"fly_emu_check_access" in blob and b"__fly_emu_checks" in blob
    assert b"fly_emu_barrier_checked" not in blob  # bounds only
    assert np.array_equal(c, a * 2)


def test_jit_option_and_compile_hint(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None, FLYDSL_EMU_CHECK=None)
    a, buf = iota(), np.zeros(65, np.float32)  # a guard float after C
    c = buf[:64]
    with pytest.raises(flyc.EmuCheckError):
        fresh_shift(emu_check="bounds")(a, c, off=1)
    with pytest.raises(flyc.EmuCheckError) as info:
        flyc.compile[{"emu_check": "all"}](fresh_shift(), a, c, 1)
    assert one_report(info.value)["tensor"] == "C"
    # The hint wins over the environment.
    fly_env(FLYDSL_EMU_CHECK="1")
    f = fresh_shift()
    f.compile_hints = {"emu_check": "0"}
    f(a, c, off=1)  # unchecked
    assert buf[64] == 126.0
    buf[64] = 0.0
    fresh_shift(emu_check="barrier")(a, c, off=1)  # no bounds check
    assert buf[64] == 126.0


@pytest.mark.parametrize("value, message", [
    ("bounds,bogus", "unknown check 'bogus'"),
    ("race,init,barrier,bounds,nope", "unknown check 'nope'"),
])
def test_bad_check_names_are_errors(fly_env, value, message):
    with pytest.raises(flyc.FlyDSLError, match="FLYDSL_EMU_CHECK") as info:
        fly_env(FLYDSL_EMU_CHECK=value)
    assert message in str(info.value)
    with pytest.raises(flyc.ArgumentError) as info:
        flyc.compile[{"emu_check": value}]
    assert message in str(info.value)


# ---- no false reports ----------------------------------------------------------

# Runs an example's main(), then says whether every artifact it compiled
# carries the checks.
DRIVER = """
import importlib.util, sys
import flydsl.compiler as flyc
spec = importlib.util.spec_from_file_location("example", sys.argv[1])
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)
rc = ex.main()
jits = [v for v in vars(ex).values() if isinstance(v, flyc.JitFunction)]
compiled = [c for j in jits for c in j._compiled.values()]
print("checked" if compiled and all(c._emu_checked() for c in compiled) else "NOT checked")
print("PASS" if rc == 0 else "FAIL")
sys.exit(rc)
"""

EXAMPLES = [(name, chip) for name in ["tiled_copy_lds", "fma_gemm", "gather_scatter",
                                      "warp_collectives", "block_scan", "language_tour",
                                      "buffer_tiled_copy"] for chip in CHIPS]
EXAMPLES += [("mfma_gemm", "gfx942"), ("wmma_gemm", "gfx1100")]  # MFMA / WMMA with LDS staging


def _run_checked(tmp_path, chip, *argv):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ARCH": chip,
           "PYTHONPATH": str(REPO_ROOT / "frontend" / "python"), "FLYDSL_RUNTIME_KIND": "emu",
           "FLYDSL_EMU_CHECK": "1", "FLYDSL_RUNTIME_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("name, chip", EXAMPLES)
def test_example_runs_clean_under_the_checks(tmp_path, name, chip):
    proc = _run_checked(tmp_path, chip, "-c", DRIVER, str(REPO_ROOT / "examples" / f"{name}.py"))
    assert proc.returncode == 0 and proc.stdout.splitlines()[-2:] == ["checked", "PASS"], \
        proc.stdout + proc.stderr
    assert "check:" not in proc.stdout + proc.stderr


VECTOR_ADD = """
import importlib.util, sys
import numpy as np
import flydsl.compiler as flyc
spec = importlib.util.spec_from_file_location("example", sys.argv[1])
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)
rng = np.random.default_rng(0)
for m, n, bits in [(100, 200, 128), (100, 1001, 32), (37, 70, 32), (16, 128, 128)]:
    assert ex.run(m, n, bits, rng), (m, n, bits)
print("clean")
try:
    ex.run(37, 70, 128, rng)
except flyc.EmuCheckError as err:
    for r in err.reports:
        print(r["kind"], r["line"], r["tensor"], r["offset"], r["extent"])
    print("count", err.count)
"""


@pytest.mark.parametrize("chip", CHIPS)
def test_vector_add_example_under_the_checks(tmp_path, chip):
    """Clean where N is a multiple of 4 or the copies are 32-bit. With
    128-bit copies and N = 70 the last atom of the last row reads and
    writes 2 floats past each 37 x 70 view (the row padding the example
    documents): a true report for A, B and C, at the copy lines."""
    path = REPO_ROOT / "examples" / "vector_add.py"
    proc = _run_checked(tmp_path, chip, "-c", VECTOR_ADD, str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "clean"
    source = path.read_text().splitlines()
    line = {op: 1 + next(i for i, t in enumerate(source) if t.strip().startswith(op))
            for op in ("fx.copy(atom, tA", "fx.copy(atom, tB", "fx.copy(atom, rC")}
    # The view's last float4 starts at element 36 * 72 + 68 (pitch 72):
    # offset 36 * 288 + 272 bytes, 8 of its 16 past the 36 * 288 + 280-byte extent.
    offset, extent = 36 * 288 + 272, 36 * 288 + 280
    assert out[1:] == [f"out-of-bounds load of 16 bytes {line['fx.copy(atom, tA']} A {offset} {extent}",
                       f"out-of-bounds load of 16 bytes {line['fx.copy(atom, tB']} B {offset} {extent}",
                       f"out-of-bounds store of 16 bytes {line['fx.copy(atom, rC']} C {offset} {extent}",
                       "count 3"]


def test_torch_views_run_clean(chip):
    """Non-contiguous torch views (column slices): each view's extent is
    from its first to its last element, and the kernel stays inside."""
    spec_path = REPO_ROOT / "examples" / "vector_add.py"
    import importlib.util
    spec = importlib.util.spec_from_file_location("vector_add_checked", spec_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = torch.Generator().manual_seed(3)
    a_all, b = torch.rand(64, 300, generator=g), torch.rand(64, 200, generator=g)
    c_all = torch.full((64, 216), -1.0)
    a, c = a_all[:, 52:252], c_all[:, 8:208]
    module.vector_add(a, b, c)
    assert torch.equal(c, a + b)
    assert torch.equal(c_all[:, :8], torch.full((64, 8), -1.0))


# ---- fly-emu-run --check ---------------------------------------------------------

PLANTED = """
gpu.module @planted {
  llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %g = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %x, %g {alignment = 4 : i64} : f32, !llvm.ptr<1> loc("planted.py":3:5)
    llvm.return
  }
}
"""


def test_emu_run_tool_check_flag(emu_run, tmp_path):
    """The tool's --check: its buffers are the launch's tensors (arg<i>);
    8 work-items store into 7 floats, the last one past them."""
    from emu_run import run_kernel

    kernel = tmp_path / "planted.mlir"
    kernel.write_text(PLANTED)
    cmd = [emu_run, str(kernel), "--kernel=k", "--chip=gfx942", "--block=8,1,1",
           "--arg=buf:f32:7:fill=0", "--arg=f32:2.5", "--check=bounds"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert ("out-of-bounds store of 4 bytes at planted.py:3 in workgroup (0,0,0), "
            "work-item (7,0,0): tensor 'arg0' byte offset 28, its extent is 28 bytes") in proc.stderr
    assert "check: 1 report in kernel k" in proc.stderr
    cmd[5] = "--arg=buf:f32:8:fill=0"  # fixed: room for every work-item
    out = run_kernel(emu_run, kernel, "k", "gfx942", 8, ["buf:f32:8:fill=0", "f32:2.5"])
    assert out[0] == ["2.5"] * 8
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.split() == ["arg0:"] + ["2.5"] * 8, proc.stderr
    cmd[-1] = "--check=bogus"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "unknown check 'bogus'" in proc.stderr


HALVES = """
gpu.module @half {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i32>
  llvm.func @k(%out: !llvm.ptr<1>, %lanes: i32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %in = llvm.icmp "slt" %i, %lanes : i32
    llvm.cond_br %in, ^store, ^join
  ^store:
    %h = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i16
    %v = llvm.trunc %i : i32 to i16
    llvm.store %v, %h {alignment = 2 : i64} : i16, !llvm.ptr<3> loc("half.py":4:5)
    llvm.br ^join
  ^join:
    rocdl.s.barrier
    %w = llvm.load %t {alignment = 4 : i64} : !llvm.ptr<3> -> i32 loc("half.py":7:5)
    %f = llvm.uitofp %w : i32 to f32
    %g = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %f, %g {alignment = 4 : i64} : f32, !llvm.ptr<1>
    llvm.return
  }
}
"""


@pytest.mark.parametrize("chip", CHIPS)
def test_emu_run_tool_init_is_per_byte(emu_run, tmp_path, chip):
    """Work-items 0 and 1 each store a 16-bit half of LDS word 0 (when
    `lanes` lets them), then both load the whole word: with only work-item
    0 storing, its upper 2 bytes were never written (a report per load);
    with both, clean, and the word is 0 | 1 << 16."""
    kernel = tmp_path / "half.mlir"
    kernel.write_text(HALVES)
    cmd = [emu_run, str(kernel), "--kernel=k", f"--chip={chip}", "--block=2,1,1",
           "--arg=buf:f32:2:fill=0", "--arg=i32:1", "--check=init"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "check: 2 reports in kernel k" in proc.stderr
    for item in (0, 1):
        assert (f"uninitialised LDS read of 4 bytes at half.py:7 in workgroup (0,0,0), "
                f"work-item ({item},0,0): LDS offset 0, the workgroup's LDS is 64 bytes; 2 of "
                "its bytes (the first at LDS offset 2) written by no work-item of the "
                "workgroup") in proc.stderr
    cmd[6] = "--arg=i32:2"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["arg0:", "65536", "65536"], proc.stdout


def test_existing_emulator_tests_run_clean_under_the_checks(tmp_path):
    """Other suites' kernels (the reference kernels on torch tensors and
    views, on gfx942 and gfx1100; lane shuffles; the LDS DMA and
    transposing LDS reads on gfx950) pass with every check on: no false
    reports."""
    files = ["test_emu_torch.py", "test_emu_shuffles.py", "test_rocdl_lds_loads.py"]
    env = dict(os.environ, FLYDSL_EMU_CHECK="1",
               FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
                          cwd=REPO_ROOT / "test" / "python", env=env, capture_output=True,
                          text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout
