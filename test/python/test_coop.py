"""fx.coop (flydsl.extension.coop, FlyDSL's public API): the warp
collectives and BlockReduce / BlockScan, run on the emulator for gfx942
(wave64) and gfx1100 (wave32) and checked against numpy, for every
ReductionOp on Int32 and Float32, scalars and Vectors, full waves and
narrower width= groups; bad arguments are TraceErrors at the user's line.

The inputs keep every result exact (small integers; powers of two for
MUL), so the order of the folds cannot hide a wrong lane. The
SharedStorage sizes are FlyDSL 0.4.2's (its dsl_size_of of the same
specializations, run with /opt/flydsl-0.4.2 under COMPILE_ONLY=1)."""

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
OPS = [fx.ReductionOp.ADD, fx.ReductionOp.MUL, fx.ReductionOp.MAX, fx.ReductionOp.MIN]
NP_DTYPES = {fx.Int32: np.int32, fx.Float32: np.float32}


@pytest.fixture
def chip(request, fly_env):
    arch, wave = request.param
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return arch, wave


def inputs(n, dtype, seed):
    """(values for ADD / MAX / MIN, values for MUL)."""
    rng = np.random.default_rng(seed)
    general = rng.integers(-40, 40, n)
    factors = rng.choice([-2, -1, 1, 2], n) if dtype is fx.Int32 else rng.choice([-2.0, -1.0, 0.5, 2.0], n)
    return general.astype(NP_DTYPES[dtype]), np.asarray(factors).astype(NP_DTYPES[dtype])


def identity(op, np_dtype):
    if op is fx.ReductionOp.ADD:
        return 0
    if op is fx.ReductionOp.MUL:
        return 1
    info = np.finfo(np_dtype) if np_dtype == np.float32 else np.iinfo(np_dtype)
    low, high = (-np.inf, np.inf) if np_dtype == np.float32 else (info.min, info.max)
    return low if op is fx.ReductionOp.MAX else high


UFUNC = {fx.ReductionOp.ADD: np.add, fx.ReductionOp.MUL: np.multiply,
         fx.ReductionOp.MAX: np.maximum, fx.ReductionOp.MIN: np.minimum}


def group_reference(x, op, width, init=None):
    """(inclusive, exclusive, aggregate) per group of `width` consecutive items."""
    g = x.reshape(-1, width)
    inclusive = UFUNC[op].accumulate(g, axis=1, dtype=x.dtype)
    exclusive = np.concatenate([np.full((g.shape[0], 1), identity(op, x.dtype), x.dtype),
                                inclusive[:, :-1]], axis=1)
    aggregate = np.repeat(inclusive[:, -1:], width, axis=1)
    if init is not None:
        inclusive, exclusive = UFUNC[op](init, inclusive), UFUNC[op](init, exclusive)
    return inclusive.ravel(), exclusive.ravel(), aggregate.ravel()


# -- warp scope -------------------------------------------------------------------

def make_warp_kernel(dtype, width, block):
    """Every warp collective for every op, one output row each."""

    @flyc.kernel
    def warp_collectives(A: fx.Tensor, M: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        row = 0
        for op in OPS:
            x = M[tid] if op is fx.ReductionOp.MUL else A[tid]
            inc, exc = fx.coop.warp_scan(x, op, width=width)
            inc2, exc2, agg = fx.coop.warp_scan_with_aggregate(x, op, width=width, init=dtype(3))
            for v in (fx.coop.warp_reduce(x, op, width=width),
                      fx.coop.warp_inclusive_scan(x, op, width=width),
                      fx.coop.warp_exclusive_scan(x, op, width=width), inc, exc, inc2, exc2, agg):
                Out[row * block + tid] = v
                row += 1

    @flyc.jit
    def run(A, M, Out):
        warp_collectives(A, M, Out).launch(grid=(1, 1, 1), block=(block, 1, 1))

    return run


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", [fx.Int32, fx.Float32], ids=["Int32", "Float32"])
@pytest.mark.parametrize("width", [None, 1, 4, 16, 32])
def test_warp_collectives(chip, dtype, width):
    _, wave = chip
    block = 2 * wave
    a, m = inputs(block, dtype, seed=width or 0)
    out = np.zeros(len(OPS) * 8 * block, NP_DTYPES[dtype])
    make_warp_kernel(dtype, width, block)(a, m, out)
    rows = out.reshape(-1, block)
    w = width or wave
    for k, op in enumerate(OPS):
        x = m if op is fx.ReductionOp.MUL else a
        inc, exc, agg = group_reference(x, op, w)
        inc3, exc3, _ = group_reference(x, op, w, init=NP_DTYPES[dtype](3))
        want = [agg, inc, exc, inc, exc, inc3, exc3, agg]
        for j, expected in enumerate(want):
            np.testing.assert_array_equal(rows[k * 8 + j], expected, err_msg=f"{op} output {j}")


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
def test_warp_collectives_on_vectors_fold_elementwise(chip):
    _, wave = chip

    @flyc.kernel
    def vectors(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        frag = fx.make_rmem_tensor(4, fx.Int32)
        for i in fx.range_constexpr(4):
            frag[i] = A[tid * 4 + i]
        v = frag.load()
        results = (fx.coop.warp_reduce(v, fx.ReductionOp.MAX, width=8),
                   fx.coop.warp_exclusive_scan(v, fx.ReductionOp.ADD))
        for r, result in enumerate(results):
            frag.store(result)
            for i in fx.range_constexpr(4):
                Out[(r * wave + tid) * 4 + i] = frag[i]

    @flyc.jit
    def run(A, Out):
        vectors(A, Out).launch(grid=(1, 1, 1), block=(wave, 1, 1))

    a = np.random.default_rng(3).integers(-9, 9, wave * 4).astype(np.int32)
    out = np.zeros(2 * wave * 4, np.int32)
    run(a, out)
    per_lane = a.reshape(wave, 4)
    got = out.reshape(2, wave, 4)
    for i in range(4):
        _, _, agg = group_reference(per_lane[:, i].copy(), fx.ReductionOp.MAX, 8)
        _, exc, _ = group_reference(per_lane[:, i].copy(), fx.ReductionOp.ADD, wave)
        np.testing.assert_array_equal(got[0, :, i], agg)
        np.testing.assert_array_equal(got[1, :, i], exc)


# -- block scope ------------------------------------------------------------------

def make_block_kernel(dtype, block, algorithm):
    @flyc.kernel
    def block_collectives(A: fx.Tensor, M: fx.Tensor, Out: fx.Tensor):
        reduce = fx.coop.BlockReduce[dtype, fx.known_block_size(), algorithm]
        scan = fx.coop.BlockScan[dtype, fx.known_block_size()]
        smem = fx.SharedAllocator()
        reduce_storage = smem.allocate(reduce.SharedStorage).peek()
        scan_storage = smem.allocate(scan.SharedStorage).peek()
        x_, y_, z_ = block
        tid = fx.thread_idx.x + fx.thread_idx.y * x_ + fx.thread_idx.z * (x_ * y_)
        n = x_ * y_ * z_
        row = 0
        for op in OPS:
            x = M[tid] if op is fx.ReductionOp.MUL else A[tid]
            total = reduce(x, op, storage=reduce_storage)
            fx.barrier()
            inclusive = scan.inclusive(x, op, storage=scan_storage)
            fx.barrier()
            exclusive, aggregate = scan.exclusive_with_aggregate(x, op, storage=scan_storage,
                                                                 init=dtype(2))
            fx.barrier()
            for v in (total, inclusive, exclusive, aggregate):
                Out[row * n + tid] = v
                row += 1

    @flyc.jit
    def run(A, M, Out):
        block_collectives(A, M, Out).launch(grid=(1, 1, 1), block=block)

    return run


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", [fx.Int32, fx.Float32], ids=["Int32", "Float32"])
@pytest.mark.parametrize("block, algorithm", [
    ((256, 1, 1), fx.coop.BlockReduceAlgorithm.WARP_REDUCTIONS),
    ((256, 1, 1), fx.coop.BlockReduceAlgorithm.RAKING),
    ((16, 4, 2), fx.coop.BlockReduceAlgorithm.WARP_REDUCTIONS),
    ((16, 1, 1), fx.coop.BlockReduceAlgorithm.RAKING),  # narrower than a wave
], ids=["256-warp", "256-raking", "16x4x2", "16-raking"])
def test_block_reduce_and_scan(chip, dtype, block, algorithm):
    n = block[0] * block[1] * block[2]
    a, m = inputs(n, dtype, seed=n)
    out = np.zeros(len(OPS) * 4 * n, NP_DTYPES[dtype])
    make_block_kernel(dtype, block, algorithm)(a, m, out)
    rows = out.reshape(-1, n)
    for k, op in enumerate(OPS):
        x = m if op is fx.ReductionOp.MUL else a
        inc, _, agg = group_reference(x, op, n)
        _, exc2, _ = group_reference(x, op, n, init=NP_DTYPES[dtype](2))
        for j, expected in enumerate([agg, inc, exc2, agg]):
            np.testing.assert_array_equal(rows[k * 4 + j], expected, err_msg=f"{op} output {j}")


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("op", [fx.ReductionOp.ADD, fx.ReductionOp.MAX], ids=["ADD", "MAX"])
def test_block_scan_of_vectors_is_a_scan_of_consecutive_items(chip, op):
    block, items = 128, 4

    @flyc.kernel
    def compact(A: fx.Tensor, Inc: fx.Tensor, Exc: fx.Tensor, Total: fx.Tensor):
        scan = fx.coop.BlockScan[fx.Int32, fx.known_block_size()]
        storage = fx.SharedAllocator().allocate(scan.SharedStorage).peek()
        reduce = fx.coop.BlockReduce[fx.Int32, fx.known_block_size()]
        reduce_storage = fx.SharedAllocator().allocate(reduce.SharedStorage).peek()
        tid = fx.thread_idx.x
        frag = fx.make_rmem_tensor(items, fx.Int32)
        for i in fx.range_constexpr(items):
            frag[i] = A[tid * items + i]
        v = frag.load()
        inclusive = scan.inclusive(v, op, storage=storage)
        fx.barrier()
        exclusive = scan.exclusive(v, op, storage=storage)
        Total[tid] = reduce(v, op, storage=reduce_storage)
        for out, result in ((Inc, inclusive), (Exc, exclusive)):
            frag.store(result)
            for i in fx.range_constexpr(items):
                out[tid * items + i] = frag[i]

    @flyc.jit
    def run(A, Inc, Exc, Total):
        compact(A, Inc, Exc, Total).launch(grid=(1, 1, 1), block=(block, 1, 1))

    a = np.random.default_rng(11).integers(-8, 8, block * items).astype(np.int32)
    inc, exc, total = (np.zeros_like(a), np.zeros_like(a), np.zeros(block, np.int32))
    run(a, inc, exc, total)
    want_inc, want_exc, want_agg = group_reference(a, op, block * items)
    np.testing.assert_array_equal(inc, want_inc)
    np.testing.assert_array_equal(exc, want_exc)
    np.testing.assert_array_equal(total, want_agg[:block])


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
def test_specializations_and_storage_as_flydsl_0_4_2(chip):
    _, wave = chip
    seen = {}

    @flyc.kernel
    def specialize(A: fx.Tensor):
        for dtype, size in ((fx.Int32, 256), (fx.Float32, (16, 4, 2)), (fx.Float64, 32)):
            for cls in (fx.coop.BlockScan, fx.coop.BlockReduce):
                s = cls[dtype, size]
                assert cls[dtype, size] is s
                seen[s.__name__] = (s.warp_threads, s.num_warps, s.SharedStorage.__dsl_size_of__(),
                                    s.SharedStorage.__dsl_align_of__())
        raking = fx.coop.BlockReduce[fx.Float32, 256, fx.coop.BlockReduceAlgorithm.RAKING]
        seen["raking"] = raking.SharedStorage.__dsl_size_of__()

    @flyc.jit
    def run(A):
        specialize(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    run(np.zeros(4, np.float32))
    w = {64: [(64, 4, 16, 4), (64, 2, 8, 4), (32, 1, 8, 8)],
         32: [(32, 8, 32, 4), (32, 4, 16, 4), (32, 1, 8, 8)]}[wave]
    assert seen == {
        "BlockScan[Int32, 256, WARP_SCANS]": w[0], "BlockReduce[Int32, 256, WARP_REDUCTIONS]": w[0],
        "BlockScan[Float32, 128, WARP_SCANS]": w[1],
        "BlockReduce[Float32, 128, WARP_REDUCTIONS]": w[1],
        "BlockScan[Float64, 32, WARP_SCANS]": w[2], "BlockReduce[Float64, 32, WARP_REDUCTIONS]": w[2],
        "raking": 1028}
    assert fx.coop.universal.BlockScan is fx.coop.BlockScan
    assert sorted(fx.coop.__all__) == sorted([
        "warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
        "warp_scan_with_aggregate", "BlockReduceAlgorithm", "BlockReduce", "BlockScanAlgorithm",
        "BlockScan"])


# -- errors at the user's line ---------------------------------------------------

def bad_op(x, storage):
    fx.coop.warp_reduce(x, "add")  # L:op


def bad_width(x, storage):
    fx.coop.warp_inclusive_scan(x, fx.ReductionOp.ADD, width=12)  # L:width


def bad_value(x, storage):
    fx.coop.warp_exclusive_scan(x > 0, fx.ReductionOp.ADD)  # L:value


def bad_block(x, storage):
    fx.coop.BlockScan[fx.Int32, 96]  # L:block


def bad_dtype(x, storage):
    fx.coop.BlockReduce[fx.Float32, 64](x, fx.ReductionOp.ADD, storage=storage)  # L:dtype


def bad_storage(x, storage):
    fx.coop.BlockScan[fx.Int32, 64].inclusive(x, fx.ReductionOp.ADD, storage=x)  # L:storage


def bad_call(x, storage):
    fx.coop.BlockScan[fx.Int32, 64](x, fx.ReductionOp.ADD, storage=storage)  # L:call


def bad_algorithm(x, storage):
    fx.coop.BlockScan[fx.Int32, 64, fx.coop.BlockScanAlgorithm.RAKING]  # L:algorithm


_LINES = marker_lines(THIS_FILE)


@pytest.mark.parametrize("fn, marker, message", [
    (bad_op, "op", "fx.coop.warp_reduce: op must be an fx.ReductionOp (ADD, MUL, MAX, MIN), "
                   "not 'add'"),
    (bad_width, "width", "fx.coop.warp_inclusive_scan: width=12 is not a power of two"),
    (bad_value, "value", "fx.coop.warp_exclusive_scan: value must be an integer or float "
                         "numeric (a scalar or a Vector), not Boolean"),
    (bad_block, "block", "fx.coop.BlockScan: the block's 96 threads (96, 1, 1) are not a "
                         "power of two"),
    (bad_dtype, "dtype", "value is Int32, but the collective is specialized for Float32"),
    (bad_storage, "storage", "fx.coop.BlockScan[Int32, 64, WARP_SCANS].inclusive: storage must "
                             "be the peeked BlockScan[Int32, 64, WARP_SCANS].SharedStorage"),
    (bad_call, "call", "WARP_SCANS] has two forms: call .inclusive(...) or .exclusive(...)"),
    (bad_algorithm, "algorithm", "fx.coop.BlockScan: BlockScanAlgorithm.RAKING is not "
                                 "implemented"),
])
def test_errors(fly_env, fn, marker, message):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def body(A: fx.Tensor):
        storage = fx.SharedAllocator().allocate(fx.coop.BlockScan[fx.Int32, 64].SharedStorage).peek()
        fn(fx.Int32(fx.thread_idx.x), storage)

    @flyc.jit
    def run(A):
        body(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(TraceError, match=re.escape(message)) as e:
        run(np.zeros(4, np.float32))
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])
