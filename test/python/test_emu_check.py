"""Checked emulation: the emulator as a kernel sanitizer (SPEC §9).

Kernels written as users write them, each with a planted bug -- a store
one element past its tensor, a store into the neighbouring view of the
same torch tensor, an LDS store one past the allocation, a read of an LDS
word whose store was skipped, an LDS reverse across waves with its barrier
removed, a plain load racing atomics, a barrier under a lane-dependent
condition, two branches meeting at different barriers, a store through a
4 GiB buffer resource past its tensor, an LDS store overrunning into the
next allocation or into the dynamic LDS, an LDS DMA reading past its own
tensor into the next, a helper's barrier reached from two branches, a
register fragment read or written one element past its end (or before its
start) at a run-time index, an alloca indexed past its end --
must be reported as an EmuCheckError with the kind, the kernel, the line
of the access (found here with inspect, from this file's source), the
work-item, the tensor and the byte offset; the same kernels fixed run
clean and right; a same-wave exchange through LDS and atomics of many
waves are not races; buffer accesses past their resource's range are no
error, and with bounds=strict one counted EmuCheckWarning per site. The switch (FLYDSL_EMU_CHECK, the `emu_check` compile
hint of flyc.compile and of @flyc.jit functions, fly-emu-run --check), the
cache separation of checked artifacts, the first-N-shown rule and the
process surviving a report are tested too, and every example runs under
the checks on a wave64 and a wave32 chip with no report (but the one true report of vector_add's 128-bit copies, which
write past the last row of their view).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import REPO_ROOT
from flydsl.expr.rocdl import tdm_ops

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


@flyc.kernel
def buffer_shift_kernel(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr, whole: fx.Constexpr):
    """Out's float4 i is A's float4 i + off, read through a buffer resource
    of A: of A's extent (whole=False), or of 4 GiB (whole=True, the
    default of make_buffer_tensor)."""
    bA = fx.rocdl.make_buffer_tensor(A, max_size=whole)
    i = fx.thread_idx.x
    part_a = fx.zipped_divide(bA, (4,))[None, i + off]
    part_o = fx.zipped_divide(Out, (4,))[None, i]
    frag = fx.make_fragment_like(part_o)
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32), part_a, frag)  # the buffer load
    fx.copy(fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32), frag, part_o)


@flyc.jit
def buffer_shift(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr[int] = 0,
                 whole: fx.Constexpr[bool] = True):
    buffer_shift_kernel(A, Out, off, whole).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def buffer_put_kernel(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr):
    """Out's float i + off is A's float i, stored through a 4 GiB buffer
    resource of Out."""
    bO = fx.rocdl.make_buffer_tensor(Out)
    i = fx.thread_idx.x
    part_a = fx.zipped_divide(A, (1,))[None, i]
    part_o = fx.zipped_divide(bO, (1,))[None, i + off]
    frag = fx.make_fragment_like(part_a)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy(32), fx.Float32), part_a, frag)
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32), frag, part_o)  # the buffer store


@flyc.jit
def buffer_put(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr[int] = 0):
    buffer_put_kernel(A, Out, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def dma_stage_kernel(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr):
    """gfx950's global -> LDS DMA: LDS float t is A's float t + off; then
    Out[t] is LDS float t."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((64,), (1,)))
    src = fx.zipped_divide(A, (1,))[None, t + off]
    dst = fx.zipped_divide(smem, (1,))[None, t]
    fx.copy(fx.make_copy_atom(fx.rocdl.cdna4.GlobalLoadAsyncLDS(32), fx.Float32), src, dst)  # the DMA
    fx.rocdl.asyncmark()
    fx.rocdl.wait_asyncmark(0)
    fx.barrier()
    Out[t] = smem[t]


@flyc.jit
def dma_stage(A: fx.Tensor, Out: fx.Tensor, off: fx.Constexpr[int] = 0):
    dma_stage_kernel(A, Out, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@fx.struct
class TwoTiles:
    x: fx.Array[fx.Float32, 64, 16]
    y: fx.Array[fx.Float32, 64, 16]


@flyc.kernel
def two_tiles_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    """x[t + off] = A[t], y[t] = A[t] + 1; C[t] = x[63 - t] + y[t]: two LDS
    allocations (a global each), x's last store one past it with off=1."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator(static=True).allocate(TwoTiles).peek()
    x = smem.x.view(fx.make_layout(64, 1))
    y = smem.y.view(fx.make_layout(64, 1))
    y[t] = A[t] + 1.0
    x[t + off] = A[t]  # the store into x
    fx.barrier()
    C[t] = x[63 - t] + y[t]


@flyc.jit
def two_tiles(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    two_tiles_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def static_and_dynamic_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    """A static tile s of 64 floats and 64 floats of dynamic LDS d:
    s[t + off] = A[t], d[t] = 2 A[t]; C[t] = s[t] + d[t]."""
    t = fx.thread_idx.x
    s = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((64,), (1,)))
    d = fx.SharedAllocator(static=False).allocate_tensor(fx.Float32, fx.make_layout((64,), (1,)))
    d[t] = A[t] * 2.0
    s[t + off] = A[t]  # the store into s
    fx.barrier()
    C[t] = s[t] + d[t]


@flyc.jit
def static_and_dynamic(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    static_and_dynamic_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


def sync_helper():
    fx.barrier()  # the helper's barrier


@flyc.kernel
def helper_barriers_kernel(A: fx.Tensor, C: fx.Tensor, split: fx.Constexpr):
    """Both halves of the workgroup call sync_helper: with split, from two
    branches (two barriers, one source line), else once for all."""
    t = fx.thread_idx.x
    if split:
        if t < 32:
            sync_helper()
            C[t] = A[t]
        else:
            sync_helper()
            C[t] = A[t] + 1.0
    else:
        sync_helper()
        C[t] = A[t]


@flyc.jit
def helper_barriers(A: fx.Tensor, C: fx.Tensor, split: fx.Constexpr[bool] = False):
    helper_barriers_kernel(A, C, split).launch(grid=(1, 1, 1), block=(64, 1, 1))


TDM_M, TDM_N = 8, 32


@flyc.kernel
def tdm_tiles_kernel(A: fx.Tensor, B: fx.Tensor, extra: fx.Constexpr, sync: fx.Constexpr,
                     load_waves: fx.Constexpr):
    """gfx1250's tensor data mover: B = A through LDS, 8 x 32 tiles, the
    load's extents `extra` rows past A's, the store by one wave (the
    whole tile) after the barrier when sync, else without it; the load
    split between `load_waves` waves (1: each wave loads the whole tile)."""
    bx, by = fx.block_idx.x, fx.block_idx.y
    M, N = A.shape.unpack()
    gA = fx.flat_divide(A, (TDM_M, TDM_N))[None, None, bx, by]
    gB = fx.flat_divide(B, (TDM_M, TDM_N))[None, None, bx, by]
    lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, TDM_M * TDM_N, 16]).peek()
    s = fx.make_view(lds.ptr, fx.make_layout((TDM_M, TDM_N), (TDM_N, 1)))
    rows, cols = M - bx * TDM_M, N - by * TDM_N
    fx.copy(fx.rocdl.make_tdm_atom(gA, [rows + extra, cols], num_warps=load_waves), gA, s)  # the TDM load
    tdm_ops.tensor_wait(0)
    if sync:
        fx.barrier()
    fx.copy(fx.rocdl.make_tdm_atom(gB, [rows, cols], num_warps=2 if sync else 1), s, gB)  # the TDM store
    tdm_ops.tensor_wait(0)


@flyc.jit
def tdm_tiles(A: fx.Tensor, B: fx.Tensor, extra: fx.Constexpr[int] = 0,
              sync: fx.Constexpr[bool] = True, load_waves: fx.Constexpr[int] = 2):
    M, N = A.shape.unpack()
    tdm_tiles_kernel(A, B, extra, sync, load_waves).launch(
        grid=((M + TDM_M - 1) // TDM_M, (N + TDM_N - 1) // TDM_N, 1), block=(64, 1, 1))


@flyc.kernel
def window_kernel(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr):
    """Each work-item loads its 8 floats of A into a register fragment and
    takes element t % 8 + off of it: an index known only at run time."""
    t = fx.thread_idx.x
    frag = fx.make_rmem_tensor(8, fx.Float32)
    for i in fx.range_constexpr(8):
        frag[i] = A[t * 8 + i]
    C[t] = frag[t % 8 + off]  # the fragment read


@flyc.jit
def window(A: fx.Tensor, C: fx.Tensor, off: fx.Constexpr[int] = 0):
    window_kernel(A, C, off).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def mark_kernel(C: fx.Tensor, k: fx.Int32):
    """Each work-item fills a fragment of 8 with 1.0, sets element t % 8 + k
    (k a kernel argument) to -1.0 and stores the fragment to its 8 floats."""
    t = fx.thread_idx.x
    frag = fx.make_rmem_tensor(8, fx.Float32)
    frag.fill(1.0)
    frag[t % 8 + k] = -1.0  # the fragment write
    for i in fx.range_constexpr(8):
        C[t * 8 + i] = frag[i]


@flyc.jit
def mark(C: fx.Tensor, k: fx.Int32):
    mark_kernel(C, k).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def fill_kernel(A: fx.Tensor, C: fx.Tensor, n: fx.Int32):
    """A loop of run-time length n fills a fragment of 4 from A, then the
    fragment is stored to the work-item's 4 floats of C."""
    t = fx.thread_idx.x
    frag = fx.make_rmem_tensor(4, fx.Float32)
    frag.fill(0.0)
    for i in fx.range(n):
        frag[i] = A[t * 4 + i]  # the fragment write in the loop
    for i in fx.range_constexpr(4):
        C[t * 4 + i] = frag[i]


@flyc.jit
def fill(A: fx.Tensor, C: fx.Tensor, n: fx.Int32):
    fill_kernel(A, C, n).launch(grid=(1, 1, 1), block=(64, 1, 1))


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


# ---- register fragments and private memory --------------------------------------

def test_fragment_read_one_past_its_end(chip):
    """Element t % 8 + 1 of an 8-element fragment: the last work-item of
    every 8 reads index 8, which on the GPU is poison; reported at the read
    with the work-item, the index and the length, and read as 0."""
    a = np.arange(512, dtype=np.float32)
    c = np.full(64, -5.0, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        window(a, c, off=1)
    err = info.value
    assert err.count == len(err.reports) == 8, str(err)
    line = line_of(window_kernel, "# the fragment read")
    assert sorted(r["thread"][0] for r in err.reports) == list(range(7, 64, 8))
    for r in err.reports:
        assert r["kind"] == "out-of-bounds register fragment read"
        assert (r["file"], r["line"], r["block"]) == (HERE, line, (0, 0, 0))
        assert (r["index"], r["elements"]) == (8, 8)
        assert r["detail"] == "index 8, the fragment has 8 elements"
        assert r["tensor"] is None
    assert err.kernel == "window_kernel" and (err.filename, err.lineno) == (HERE, line)
    t = np.arange(64)
    want = np.where(t % 8 == 7, 0.0, a[np.minimum(t * 8 + t % 8 + 1, 511)]).astype(np.float32)
    assert np.array_equal(c, want)
    # One before the start: index -1 (as the kernel computed it).
    with pytest.raises(flyc.EmuCheckError) as info:
        window(a, c, off=-1)
    err = info.value
    assert err.count == len(err.reports) == 8, str(err)
    assert sorted(r["thread"][0] for r in err.reports) == list(range(0, 64, 8))
    assert all((r["index"], r["elements"], r["line"]) == (-1, 8, line) for r in err.reports)
    # Fixed: clean and right.
    window(a, c)
    assert np.array_equal(c, a[t * 8 + t % 8])


def test_fragment_write_past_its_end_is_dropped(chip):
    """A run-time index from a kernel argument: k = 1 makes every 8th
    work-item write element 8 of its 8; the write is reported and not made
    (its fragment keeps its 1.0s); k = 0 is clean."""
    c = np.zeros(512, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        mark(c, 1)
    err = info.value
    assert err.count == len(err.reports) == 8, str(err)
    assert sorted(r["thread"][0] for r in err.reports) == list(range(7, 64, 8))
    for r in err.reports:
        assert r["kind"] == "out-of-bounds register fragment write"
        assert r["line"] == line_of(mark_kernel, "# the fragment write")
        assert (r["index"], r["elements"]) == (8, 8)
    rows = c.reshape(64, 8)
    t = np.arange(64)
    want = np.ones((64, 8), np.float32)
    inside = t % 8 != 7
    want[t[inside], t[inside] % 8 + 1] = -1.0
    assert np.array_equal(rows, want)
    mark(c, 0)
    want = np.ones((64, 8), np.float32)
    want[t, t % 8] = -1.0
    assert np.array_equal(rows, want)


def test_fragment_loop_one_iteration_too_many(chip):
    """n = 5 over a fragment of 4: every work-item's last iteration writes
    index 4 (64 reports, the first 10 shown); n = 4 is clean."""
    a = np.arange(320, dtype=np.float32)
    c = np.zeros(256, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        fill(a, c, 5)
    err = info.value
    assert err.count == 64 and len(err.reports) == 10, str(err)
    assert "... and 54 more" in str(err)
    line = line_of(fill_kernel, "# the fragment write in the loop")
    assert all((r["kind"], r["line"], r["index"], r["elements"]) ==
               ("out-of-bounds register fragment write", line, 4, 4) for r in err.reports)
    assert np.array_equal(c, a[:256])  # the 4 in-range writes of each were made
    c[:] = 0
    fill(a, c, 4)
    assert np.array_equal(c, a[:256])


def test_fragment_index_unchecked_by_default(fly_env):
    """Without FLYDSL_EMU_CHECK the bad index is not looked at: no report
    (the in-range work-items' results are right)."""
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None, FLYDSL_EMU_CHECK=None)
    a = np.arange(512, dtype=np.float32)
    c = np.zeros(64, np.float32)
    window(a, c, off=1)
    t = np.arange(64)
    inside = t % 8 != 7
    assert np.array_equal(c[inside], a[t[inside] * 8 + t[inside] % 8 + 1])
    blob = b"".join(e for _, _, e in flyc.compile(window, a, c, off=1).code_objects)
    assert b"fly_emu_check_access" not in blob


# ---- buffer resources (V#) -----------------------------------------------------

def shifted(a, off, n):
    """numpy: a's floats from off on, zeros past its end, n of them."""
    want = np.zeros(n, np.float32)
    take = a[off:off + n]
    want[:len(take)] = take
    return want


def test_buffer_loads_past_the_range_are_not_errors(chip):
    """A V# of A's extent: the loads of its last 4 work-items are past the
    range and read 0, as on the hardware: not an error, and no warning
    without bounds=strict."""
    big = np.arange(300, dtype=np.float32)
    a, out = big[:256], np.full(256, -1.0, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        buffer_shift(a, out, off=4, whole=False)
    assert np.array_equal(out, shifted(a, 16, 256))


def test_buffer_range_warnings_with_bounds_strict(chip, fly_env):
    """bounds=strict: the same loads are one EmuCheckWarning for their site
    (counted: 4 accesses), at the load's line, naming the kernel, the first
    work-item, the tensor the V# was made from, the byte offset and the
    range; the launch succeeds with the hardware's values."""
    fly_env(FLYDSL_EMU_CHECK="all,bounds=strict")
    big = np.arange(300, dtype=np.float32)
    a, out = big[:256], np.full(256, -1.0, np.float32)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        buffer_shift(a, out, off=4, whole=False)
    found = [w for w in seen if issubclass(w.category, flyc.EmuCheckWarning)]
    assert len(found) == len(seen) == 1, [str(w.message) for w in seen]
    w = found[0]
    assert issubclass(flyc.EmuCheckWarning, UserWarning)
    assert (w.filename, w.lineno) == (HERE, line_of(buffer_shift_kernel, "# the buffer load"))
    message, r = w.message, w.message.report
    assert message.kernel == "buffer_shift_kernel" and message.count == 4
    assert r["kind"] == "out-of-range buffer load of 16 bytes"
    assert (r["file"], r["line"]) == (w.filename, w.lineno)
    assert r["block"] == (0, 0, 0) and r["thread"] == (60, 0, 0)
    # Work-item 60 reads float4 64: byte 1024 of a 1024-byte range.
    assert (r["tensor"], r["offset"], r["num_records"]) == ("A", 1024, 1024)
    text = str(message)
    assert text.startswith("buffer_shift_kernel: ") and text.endswith(" (x4)")
    assert f"{HERE}:{w.lineno}" in text
    assert np.array_equal(out, shifted(a, 16, 256))
    # Fixed: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        buffer_shift(a, out, off=0, whole=False)
    assert np.array_equal(out, a)


def test_buffer_load_inside_the_range_outside_the_tensor(chip):
    """A 4 GiB V# of A (make_buffer_tensor's default): its range lets the
    last 4 work-items read past A, into the floats after it; that is an
    out-of-bounds load of A, and the load reads 0 instead."""
    big = np.arange(300, dtype=np.float32)
    a, out = big[:256], np.full(256, -1.0, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        buffer_shift(a, out, off=4)
    err = info.value
    assert err.count == len(err.reports) == 4, str(err)
    line = line_of(buffer_shift_kernel, "# the buffer load")
    for n, r in enumerate(err.reports):
        assert r["kind"] == "out-of-bounds buffer load of 16 bytes"
        assert (r["file"], r["line"]) == (HERE, line)
        assert r["thread"] == (60 + n, 0, 0)
        assert (r["tensor"], r["offset"], r["extent"]) == ("A", 1024 + 16 * n, 1024)
        assert "num_records 4294967295" in r["detail"]
    assert err.kernel == "buffer_shift_kernel"
    assert np.array_equal(out, shifted(a, 16, 256))  # zeros, not big[256:]
    buffer_shift(a, out)
    assert np.array_equal(out, a)


def test_buffer_store_inside_the_range_outside_the_tensor(chip):
    """A store through a 4 GiB V# of a view, one float past its end (into
    the neighbouring float of the same array): reported, and not made."""
    a = iota()
    buf = np.full(65, -1.0, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        buffer_put(a, buf[:64], off=1)
    r = one_report(info.value)
    assert r["kind"] == "out-of-bounds buffer store of 4 bytes"
    assert (r["file"], r["line"]) == (HERE, line_of(buffer_put_kernel, "# the buffer store"))
    assert r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == ("Out", 256, 256)
    assert buf[64] == -1.0 and np.array_equal(buf[1:64], a[:63])
    buffer_put(a, buf[:64])
    assert np.array_equal(buf[:64], a) and buf[64] == -1.0


@pytest.mark.parametrize("value, normal", [
    ("bounds=strict", "bounds=strict"),
    ("all,bounds=strict", "bounds=strict,race,init,barrier"),
    ("barrier, bounds = strict", "bounds=strict,barrier"),
    ("bounds,race", "bounds,race"),
    ("1", "bounds,race,init,barrier"),
])
def test_check_spellings(value, normal):
    from flydsl.compiler import emu_check
    assert emu_check.parse(value, "FLYDSL_EMU_CHECK") == normal


def test_lds_dma_source_checked_against_its_own_tensor(fly_env):
    """The global source of an LDS DMA is checked against the tensor it
    derives from (A), not every tensor of the launch: its last work-item
    reads the first float of Out, the next view of the same array (a
    tensor of the launch, but not A)."""
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx950", COMPILE_ONLY=None, FLYDSL_EMU_CHECK="1")
    big = np.arange(128, dtype=np.float32)
    a, out = big[:64], big[64:]
    a_before = a.copy()
    with pytest.raises(flyc.EmuCheckError) as info:
        dma_stage(a, out, off=1)
    r = one_report(info.value)
    assert r["kind"] == "out-of-bounds load of 4 bytes"
    assert (r["file"], r["line"]) == (HERE, line_of(dma_stage_kernel, "# the DMA"))
    assert r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == ("A", 256, 256)
    assert "nearest" not in r["detail"]  # traced to A, not looked up
    assert np.array_equal(out[:63], a_before[1:]) and out[63] == 0.0  # the load read zeros
    dma_stage(a, out)
    assert np.array_equal(out, a_before)


def test_lds_store_past_its_allocation_into_the_next(chip):
    """x's last store lands in y, the next LDS allocation: inside the
    workgroup's LDS, outside x's. Reported naming x's global and the offset
    from its start; not made (y[0] keeps its value)."""
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        two_tiles(a, c, off=1)
    err = info.value
    stores = [r for r in err.reports if r["kind"] == "out-of-bounds LDS store of 4 bytes"]
    assert len(stores) == 1, str(err)
    r = stores[0]
    assert (r["file"], r["line"]) == (HERE, line_of(two_tiles_kernel, "# the store into x"))
    assert r["thread"] == (63, 0, 0)
    assert (r["tensor"], r["offset"], r["extent"]) == (None, 256, 512)  # the LDS offset, the LDS
    assert r["allocation"] == "__fly_shared_0"
    assert (r["allocation_offset"], r["allocation_extent"]) == (256, 256)
    # The only other report: x[0], which the shifted stores left unwritten
    # (read by work-item 63).
    assert [o["kind"] for o in err.reports if o is not r] == ["uninitialised LDS read of 4 bytes"]
    # c[0] = x[63] + y[0] = A[62] + (A[0] + 1): y[0] intact (the stray store
    # of A[63] would have made it 63 + 62).
    assert c[0] == 62.0 + 1.0
    two_tiles(a, c)
    assert np.array_equal(c, a[::-1] + a + 1.0)


def test_static_lds_store_into_the_dynamic_lds(chip):
    """The static tile's last store lands in the dynamic LDS (its own
    extent): reported naming the static global."""
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        static_and_dynamic(a, c, off=1)
    err = info.value
    stores = [r for r in err.reports if r["kind"] == "out-of-bounds LDS store of 4 bytes"]
    assert len(stores) == 1, str(err)
    r = stores[0]
    assert r["line"] == line_of(static_and_dynamic_kernel, "# the store into s")
    assert r["thread"] == (63, 0, 0)
    assert r["allocation"] == "__fly_shared_0"
    assert (r["allocation_offset"], r["allocation_extent"]) == (256, 256)
    assert np.array_equal(c[1:], a[:-1] + 2.0 * a[1:])  # s[t] = A[t - 1]
    static_and_dynamic(a, c)
    assert np.array_equal(c, 3.0 * a)


@pytest.fixture
def gfx1250(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx1250", COMPILE_ONLY=None, FLYDSL_EMU_CHECK="1")


def test_tensor_data_mover_load_past_its_tensor(gfx1250):
    """A is 15 rows of a 20-row array; the load's extents allow one row
    more, so the last tiles' 8th row (wave 1's half) reads past A: one
    report per instruction, at the load's line, naming A; that row reads
    0 (B's store stops at A's rows, so B == A)."""
    big = torch.randn(20, 64, generator=torch.Generator().manual_seed(5))
    a, b = big[:15], torch.zeros(15, 64)
    with pytest.raises(flyc.EmuCheckError) as info:
        tdm_tiles(a, b, extra=1)
    err = info.value
    assert err.count == len(err.reports) == 2, str(err)
    line = line_of(tdm_tiles_kernel, "# the TDM load")
    for r, by in zip(sorted(err.reports, key=lambda r: r["block"]), (0, 1)):
        assert r["kind"] == "out-of-bounds tensor data mover load of 4 bytes"
        assert (r["file"], r["line"]) == (HERE, line)
        assert r["block"] == (1, by, 0) and r["thread"] == (32, 0, 0)
        # Row 15, column 32 * by: byte (15 * 64 + 32 * by) * 4 of A's 15 * 64 * 4.
        assert (r["tensor"], r["offset"], r["extent"]) == ("A", (15 * 64 + 32 * by) * 4, 3840)
    assert torch.equal(b, a)
    b.zero_()
    tdm_tiles(a, b)
    assert torch.equal(b, a)


def test_tensor_data_mover_lds_writes_race(gfx1250):
    """Each wave loads half the tile; one wave then stores the whole tile
    with no barrier between: its reads of the other wave's half race with
    the tensor data mover's LDS writes (the issuing lane's, at its line)."""
    a = torch.randn(16, 64, generator=torch.Generator().manual_seed(6))
    b = torch.zeros(16, 64)
    with pytest.raises(flyc.EmuCheckError) as info:
        tdm_tiles(a, b, sync=False)
    r = info.value.reports[0]
    assert r["kind"] == "LDS race: load of 4 bytes"
    assert r["line"] == line_of(tdm_tiles_kernel, "# the TDM store")
    assert r["other"]["access"] == "stored"
    assert r["other"]["line"] == line_of(tdm_tiles_kernel, "# the TDM load")
    assert r["other"]["wave"] != r["wave"]
    assert {r["thread"], r["other"]["thread"]} == {(0, 0, 0), (32, 0, 0)}
    tdm_tiles(a, b)
    assert torch.equal(b, a)


def test_two_waves_storing_one_word_race(gfx1250):
    """Both waves load the whole tile into the same LDS: every word is
    stored by wave 0, then by wave 1, with no barrier between; the report
    names the earlier store's work-item and wave (wave 0's), not its own."""
    a = torch.randn(8, 32, generator=torch.Generator().manual_seed(7))
    b = torch.zeros(8, 32)
    with pytest.raises(flyc.EmuCheckError) as info:
        tdm_tiles(a, b, load_waves=1)
    err = info.value
    assert err.count == 8 * 32, str(err)  # a report per word
    line = line_of(tdm_tiles_kernel, "# the TDM load")
    for r in err.reports:
        assert r["kind"] == "LDS race: store of 4 bytes" and r["line"] == line
        assert (r["thread"], r["wave"]) == ((32, 0, 0), 1)
        assert r["other"] == {"access": "stored", "file": HERE, "line": line,
                              "thread": (0, 0, 0), "wave": 0}


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


def test_two_barriers_of_one_line_are_two_sites(chip):
    """The two calls of a helper put two barriers on the helper's line: the
    halves of the workgroup waiting at one and the other is divergence, the
    report naming each barrier by its order on that line."""
    a, c = iota(), np.zeros(64, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        helper_barriers(a, c, split=True)
    r = one_report(info.value)
    line = inspect.getsourcelines(sync_helper)[1] + 1
    assert r["kind"] == "barrier divergence"
    assert (r["file"], r["line"]) == (HERE, line)
    assert r["site"] == "barrier #1 of 2 on that line"
    assert r["thread"] == (0, 0, 0)
    assert (f"work-item (32,0,0) waits at the barrier at {HERE}:{line} (barrier #2 of 2 on "
            "that line)") in r["detail"]
    helper_barriers(a, c)
    assert np.array_equal(c, a)


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
    ("bounds=lenient", "unknown check 'bounds=lenient'"),
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
EXAMPLES += [("mx_gemm", "gfx950"), ("tdm_copy", "gfx1250")]  # scaled MFMA, tensor data mover


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
    cmd[-1] = "--check=all,bounds=strict"  # the spelling of FLYDSL_EMU_CHECK
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.split() == ["arg0:"] + ["2.5"] * 8, proc.stderr
    cmd[-1] = "--check=bogus"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "unknown check 'bogus'" in proc.stderr


PRIVATE = """
gpu.module @scratchpad {
  llvm.func @k(%out: !llvm.ptr<1>, %shift: i32) attributes {rocdl.kernel} {
    %i = rocdl.workitem.id.x : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %pad = llvm.alloca %one x !llvm.array<4 x f32> : (i32) -> !llvm.ptr<5> loc("pad.py":3:5)
    %first = llvm.getelementptr %pad[0, 0] : (!llvm.ptr<5>) -> !llvm.ptr<5>, !llvm.array<4 x f32>
    %zero = llvm.mlir.constant(0.0 : f32) : f32
    llvm.store %zero, %first : f32, !llvm.ptr<5> loc("pad.py":4:5)
    %j = llvm.add %i, %shift : i32
    %f = llvm.sitofp %i : i32 to f32
    %slot = llvm.getelementptr %pad[0, %j] : (!llvm.ptr<5>, i32) -> !llvm.ptr<5>, !llvm.array<4 x f32>
    llvm.store %f, %slot : f32, !llvm.ptr<5> loc("pad.py":6:5)
    %flat = llvm.addrspacecast %slot : !llvm.ptr<5> to !llvm.ptr
    %v = llvm.load %flat : !llvm.ptr -> f32 loc("pad.py":7:5)
    %g = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %v, %g {alignment = 4 : i64} : f32, !llvm.ptr<1>
    llvm.return
  }
}
"""


def test_emu_run_tool_private_memory(emu_run, tmp_path):
    """A 4-float alloca indexed by work-item + shift: with shift 1,
    work-item 3's store (through the private pointer) and load (through its
    flat cast) are 16 bytes in, at the alloca's end; each is reported with
    the alloca (its order and line), the byte offset and its extent, and
    the launch runs to its end (the store went to the check's scratch, not
    past the work-item's frame). The store of element 0 is not reported;
    shift 0 is clean and right."""
    kernel = tmp_path / "pad.mlir"
    kernel.write_text(PRIVATE)
    cmd = [emu_run, str(kernel), "--kernel=k", "--chip=gfx942", "--block=4,1,1",
           "--arg=buf:f32:4:fill=-1", "--arg=i32:1", "--check=bounds"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "check: 2 reports in kernel k (the first 2 shown)" in proc.stderr, proc.stderr
    for kind, line in (("store", 6), ("load", 7)):
        assert (f"out-of-bounds private {kind} of 4 bytes at pad.py:{line} in workgroup (0,0,0), "
                "work-item (3,0,0): private allocation 'alloca #1 at pad.py:3' byte offset 16, "
                "its extent is 16 bytes") in proc.stderr, proc.stderr
    from flydsl.compiler import emu_check
    err = emu_check.error("", proc.stderr[proc.stderr.index("check:"):])
    assert err.count == 2
    r = err.reports[0]
    assert (r["allocation"], r["allocation_offset"], r["allocation_extent"]) == \
        ("alloca #1 at pad.py:3", 16, 16)
    assert (r["tensor"], r["offset"], r["extent"]) == (None, 16, 16)
    assert not any(report["line"] == 4 for report in err.reports)
    cmd[6] = "--arg=i32:0"
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.split() == ["arg0:", "0", "1", "2", "3"], \
        proc.stderr


RANGED = """
gpu.module @ranged {
  llvm.func @k(%base: !llvm.ptr<1>, %n: i64) attributes {rocdl.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %s = llvm.mlir.constant(0 : i16) : i16
    %i = rocdl.workitem.id.x : i32
    %off = llvm.mul %i, %c4 : i32
    %r = rocdl.make.buffer.rsrc %base, %s, %n, %c0 : !llvm.ptr<1> to !llvm.ptr<8>
    %v = rocdl.raw.ptr.buffer.load %r, %off, %c0, %c0 : f32 loc("ranged.py":4:5)
    %w = llvm.fadd %v, %v : f32
    rocdl.raw.ptr.buffer.store %w, %r, %off, %c0, %c0 : f32 loc("ranged.py":6:5)
    llvm.return
  }
}
"""


def test_emu_run_tool_prints_strict_warnings(emu_run, tmp_path):
    """8 work-items load and store through a V# of num_records 20 (5
    floats) over a buffer of 8: past it, loads read 0 and stores are
    dropped, as the hardware does; bounds=strict makes each site's one
    counted warning line on stderr, and the launch succeeds."""
    kernel = tmp_path / "ranged.mlir"
    kernel.write_text(RANGED)
    cmd = [emu_run, str(kernel), "--kernel=k", "--chip=gfx942", "--block=8,1,1",
           "--arg=buf:f32:8:1,2,3,4,5,6,7,8", "--arg=i64:20", "--check=bounds"]
    want = ["arg0:", "2", "4", "6", "8", "10", "6", "7", "8"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.split() == want and proc.stderr == "", proc.stderr
    cmd[-1] = "--check=bounds=strict"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.split() == want, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("kernel k: out-of-range buffer load of 4 bytes at ranged.py:4 ")
    assert lines[1].startswith("kernel k: out-of-range buffer store of 4 bytes at ranged.py:6 ")
    assert all("num_records 20" in line and line.endswith("(x3)") for line in lines), lines


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


def _example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}",
                                                  REPO_ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vector_add_example_tail_atoms_are_reported(chip):
    """examples/vector_add.py's 128-bit copies on a ragged N are
    all-or-nothing per float4 (its docstring says so): the last atom of a
    row also touches the 1-3 floats after the row. Inside the view those
    are the next row's padding, inside the tensor's extent; the last row's
    reaches past the view's last element, and the check says so for A's and
    B's loads and C's store. The 32-bit copies and an N that is a multiple
    of 4 run clean."""
    ex = _example("vector_add")
    assert ex.run(100, 200, 128) and ex.run(37, 70, 32)
    with pytest.raises(flyc.EmuCheckError) as info:
        ex.run(37, 70, 128)
    reports = info.value.reports
    lines = {line_of(ex.vector_add_kernel, marker) for marker in
             ("fx.copy(atom, tA, rA, pred=inside)", "fx.copy(atom, tB, rB, pred=inside)",
              "fx.copy(atom, rC, tC, pred=inside)")}
    assert {(r["kind"], r["tensor"]) for r in reports} == {
        ("out-of-bounds load of 16 bytes", "A"), ("out-of-bounds load of 16 bytes", "B"),
        ("out-of-bounds store of 16 bytes", "C")}, str(info.value)
    extent = (36 * 72 + 70) * 4  # the view's last row ends 70 floats into its pitch of 72
    for r in reports:
        assert r["file"] == os.path.abspath(ex.__file__) and r["line"] in lines
        assert r["offset"] == extent - 8, r


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
