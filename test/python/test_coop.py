"""fx.coop (flydsl.extension.coop, FlyDSL's public API): the warp
collectives and BlockReduce / BlockScan, run on the emulator for gfx942
(wave64) and gfx1100 (wave32) and checked against numpy, for every
ReductionOp on Int32 and Float32, scalars and Vectors, full waves and
narrower width= groups; bad arguments are TraceErrors at the user's line.
On gfx9 the warp names take coop.warp.rocdl's DPP forms for 32-bit
scalars (checked in the traced IR and the ISA, and against the portable
forms of fx.coop.universal); the block specializations are made on the
host too, through the metaclass hook that picks the default algorithm.

The inputs keep every result exact (small integers; powers of two for
MUL), so the order of the folds cannot hide a wrong lane. The
SharedStorage sizes are FlyDSL 0.4.2's (its dsl_size_of of the same
specializations, run with /opt/flydsl-0.4.2 under COMPILE_ONLY=1)."""

from __future__ import annotations

import enum
import re

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler.backends import GPUTarget
from flydsl.extension.coop.block._spec import BlockAlgorithmMeta
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
@pytest.mark.parametrize("width", [None, 1, 2, 4, 8, 16, 32])
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


# -- coop.warp.rocdl: DPP on gfx9 -------------------------------------------------

WIDTHS_64 = [2, 4, 8, 16, 32, None]


def make_both_forms_kernel(width, block):
    """Every op through fx.coop (the target's forms) and fx.coop.universal
    (the portable ones), on Uint32 values: the unsigned identities (0 for
    MAX, 0xffffffff for MIN) are the DPP moves' fill."""

    @flyc.kernel
    def both_forms(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        x = A[tid].bitcast(fx.Uint32)
        row = 0
        for op in OPS:
            for ns in (fx.coop, fx.coop.universal):
                inc, exc, agg = ns.warp_scan_with_aggregate(x, op, width=width)
                for v in (ns.warp_reduce(x, op, width=width), inc, exc, agg):
                    Out[row * block + tid] = v.bitcast(fx.Int32)
                    row += 1

    @flyc.jit
    def run(A, Out):
        both_forms(A, Out).launch(grid=(1, 1, 1), block=(block, 1, 1))

    return run


@pytest.mark.parametrize("chip", CHIPS[:1], indirect=True, ids=lambda c: c[0])
@pytest.mark.parametrize("width", WIDTHS_64, ids=lambda w: f"w{w}")
def test_dpp_forms_agree_with_the_portable_ones(chip, width):
    block = 128
    rng = np.random.default_rng(width or 64)
    a = rng.integers(0, 2**32, block, dtype=np.uint64).astype(np.uint32)
    a |= 1  # odd, so that the wrapping products never reach 0
    out = np.zeros(len(OPS) * 2 * 4 * block, np.int32)
    make_both_forms_kernel(width, block)(a.view(np.int32), out)
    rows = out.view(np.uint32).reshape(len(OPS), 2, 4, block)
    for k, op in enumerate(OPS):
        inc, exc, agg = group_reference(a, op, width or 64)
        np.testing.assert_array_equal(rows[k, 0], rows[k, 1], err_msg=f"{op}: fx.coop vs universal")
        for j, expected in enumerate([agg, inc, exc, agg]):
            np.testing.assert_array_equal(rows[k, 0, j], expected, err_msg=f"{op} output {j}")


def compile_warp_kernel(arch, dtype, body, np_dtype=np.float32):
    """The kernel `Out[t] = body(A[t])` for one wave of `arch`, compiled for
    the chip (COMPILE_ONLY): its traced IR and ISA."""
    wave = fx.num_warp_threads()

    @flyc.kernel
    def lone(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        Out[tid] = body(A[tid].to(dtype))

    @flyc.jit
    def run(A, Out):
        lone(A, Out).launch(grid=(1, 1, 1), block=(wave, 1, 1))

    a = np.ones(wave, np_dtype)
    return flyc.compile(run, a, a.copy())


LANE_PIPE = ("ds_swizzle_b32", "ds_bpermute_b32", "ds_permute_b32")


def lane_pipe_ops(isa):
    return sum(line.count(op) for line in isa.splitlines() for op in LANE_PIPE)


@pytest.mark.parametrize("arch, dtype, dpp", [
    ("gfx942", fx.Int32, True), ("gfx942", fx.Float32, True), ("gfx950", fx.Uint32, True),
    ("gfx942", fx.Int16, False), ("gfx942", fx.Int64, False), ("gfx942", fx.Float64, False),
    ("gfx1100", fx.Int32, False), ("gfx1201", fx.Float32, False),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_which_form_each_target_and_type_takes(fly_env, arch, dtype, dpp):
    fly_env(COMPILE_ONLY="1", ARCH=arch, FLYDSL_RUNTIME_KIND="hip")

    def everything(ns):
        def body(v):
            inc, exc, agg = ns.warp_scan_with_aggregate(v, fx.ReductionOp.MAX, width=16)
            return ns.warp_reduce(v, fx.ReductionOp.ADD) + inc + exc + agg
        return body

    dispatched = compile_warp_kernel(arch, dtype, everything(fx.coop)).module_text
    portable = compile_warp_kernel(arch, dtype, everything(fx.coop.universal)).module_text
    assert ("rocdl.update.dpp" in dispatched) == dpp
    assert ("gpu.shuffle" in dispatched) == (not dpp)
    assert "gpu.shuffle" in portable and "rocdl.update.dpp" not in portable


@pytest.mark.parametrize("width", WIDTHS_64, ids=lambda w: f"w{w}")
def test_dpp_folds_stay_off_the_lds_pipe(fly_env, width):
    """gfx942's ISA: reduce and scan move lanes by DPP; the one exchange
    DPP cannot make, xor 16 of a 32-lane reduce, is one ds_swizzle_b32."""
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")

    def body(v):
        inclusive, exclusive = fx.coop.warp_scan(v, fx.ReductionOp.ADD, width=width)
        return fx.coop.warp_reduce(v, fx.ReductionOp.ADD, width=width) + inclusive + exclusive

    isa = compile_warp_kernel("gfx942", fx.Float32, body).isa()
    assert lane_pipe_ops(isa) == (1 if width == 32 else 0), isa
    assert "row_shr:1" in isa


def test_a_full_wave_reduce_reads_its_total_out_of_lane_63(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    isa = compile_warp_kernel(
        "gfx942", fx.Float32, lambda v: fx.coop.warp_reduce(v, fx.ReductionOp.ADD)).isa()
    for control in ("row_shr:1", "row_shr:8", "row_bcast:15", "row_bcast:31"):
        assert control in isa, control
    assert "v_readlane_b32" in isa and lane_pipe_ops(isa) == 0
    portable = compile_warp_kernel("gfx942", fx.Float32, lambda v: fx.coop.universal.warp_reduce(
        v, fx.ReductionOp.ADD, width=8)).isa()
    assert "row_" not in portable and lane_pipe_ops(portable) == 3  # ds_bpermute per round
    narrow = compile_warp_kernel("gfx942", fx.Int16, lambda v: fx.coop.warp_reduce(
        v, fx.ReductionOp.ADD), np.int16).isa()
    assert "row_bcast" not in narrow and lane_pipe_ops(narrow) == 6


def test_warp_namespaces():
    warp = fx.coop.warp
    assert warp.rocdl.__all__ == warp.__all__
    for name in warp.__all__:
        portable = getattr(fx.coop.universal, name)
        assert portable is getattr(warp.reduce if name == "warp_reduce" else warp.scan, name)
        assert portable is not getattr(warp.rocdl, name)
        assert getattr(fx.coop, name) is getattr(warp, name)


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
    assert issubclass(fx.coop.universal.BlockScan, fx.coop.BlockScan)
    assert sorted(fx.coop.__all__) == sorted([
        "warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
        "warp_scan_with_aggregate", "BlockReduceAlgorithm", "BlockReduce", "BlockScanAlgorithm",
        "BlockScan"])


@pytest.mark.parametrize("arch, wave", CHIPS)
def test_block_specializations_on_the_host(fly_env, arch, wave):
    """Off the trace, for the chip of ARCH; the wave is part of the cache
    key, so the other chip's specializations are other classes."""
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    reduce_algorithms = (fx.coop.BlockReduceAlgorithm.WARP_REDUCTIONS,
                         fx.coop.BlockReduceAlgorithm.RAKING)
    for n in (1, 2, 16, 32, 64, 256, 1024):
        lanes = min(wave, n)
        for cls, algorithms in ((fx.coop.BlockReduce, reduce_algorithms),
                                (fx.coop.BlockScan, (fx.coop.BlockScanAlgorithm.WARP_SCANS,))):
            for algorithm in algorithms:
                s = cls[fx.Int32, n, algorithm]
                assert (s.block_threads, s.warp_threads, s.num_warps) == (n, lanes, n // lanes)
                assert s.algorithm is algorithm and s.block_size == (n, 1, 1)
            assert cls[fx.Int32, n] is cls[fx.Int32, n, algorithms[0]]
    spec = fx.coop.BlockReduce[fx.Float32, (16, 4, 2)]
    assert spec.SharedStorage.__dsl_size_of__() == 4 * (128 // min(wave, 128))
    other_arch, other_wave = next(c for c in CHIPS if c[0] != arch)
    fly_env(ARCH=other_arch)
    other = fx.coop.BlockReduce[fx.Float32, (16, 4, 2)]
    assert other is not spec and other.warp_threads == other_wave


class _Policy(enum.Enum):
    NARROW = "narrow"
    WIDE = "wide"
    PLANNED = "planned"


def _one_slot(dtype, block_threads, warp_threads):
    return fx.Struct["slots": fx.Array[dtype, 1]]


class _PolicyMeta(BlockAlgorithmMeta):
    _algorithms = _Policy
    _shared_storage = {_Policy.NARROW: _one_slot, _Policy.WIDE: _one_slot}


@pytest.mark.parametrize("arch, wave", CHIPS)
def test_a_block_collective_plugs_into_the_specialization(fly_env, arch, wave):
    """A metaclass of BlockAlgorithmMeta with its policy enum, storage and
    _default_algorithm_for hook: the hook is asked (with the GPUTarget
    compiled for) only when no policy is named, its answer is part of the
    cache key, and a policy without storage or a metaclass without the
    hook is a NotImplementedError."""
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    asked = []

    class _ByWaveMeta(_PolicyMeta):
        def _default_algorithm_for(cls, target):
            asked.append(target)
            return _Policy.NARROW if target.warp_size == 32 else _Policy.WIDE

    class ByWave(metaclass=_ByWaveMeta):
        block_threads = None

    default = ByWave[fx.Float32, 128]
    assert asked == [GPUTarget(backend="rocm", arch=arch, warp_size=wave)]
    assert default.algorithm is (_Policy.NARROW if wave == 32 else _Policy.WIDE)
    assert (default.warp_threads, default.num_warps) == (wave, 128 // wave)
    assert ByWave[fx.Float32, 128, default.algorithm] is default
    other = ByWave[fx.Float32, 128, _Policy.NARROW if wave == 64 else _Policy.WIDE]
    assert other is not default and len(asked) == 1
    with pytest.raises(NotImplementedError, match=r"_Policy\.PLANNED is not implemented") as e:
        ByWave[fx.Float32, 128, _Policy.PLANNED]
    assert isinstance(e.value, TraceError)

    class Silent(metaclass=_PolicyMeta):
        block_threads = None

    with pytest.raises(NotImplementedError, match="does not define _default_algorithm_for"):
        Silent[fx.Float32, 64]
    assert Silent[fx.Float32, 64, _Policy.WIDE].algorithm is _Policy.WIDE
    # The shipped collectives answer the same on every target.
    for target in (GPUTarget("rocm", "gfx942", 64), GPUTarget("rocm", "gfx1201", 32)):
        for cls, want in ((fx.coop.BlockReduce, fx.coop.BlockReduceAlgorithm.WARP_REDUCTIONS),
                          (fx.coop.BlockScan, fx.coop.BlockScanAlgorithm.WARP_SCANS)):
            assert type(cls)._default_algorithm_for(cls, target) is want


def test_universal_block_collectives_fold_through_the_portable_warps(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    texts = {}
    for ns in (fx.coop, fx.coop.universal):
        @flyc.kernel
        def block(A: fx.Tensor, Out: fx.Tensor):
            reduce = ns.BlockReduce[fx.Int32, 128]
            scan = ns.BlockScan[fx.Int32, 128]
            smem = fx.SharedAllocator()
            r = smem.allocate(reduce.SharedStorage).peek()
            s = smem.allocate(scan.SharedStorage).peek()
            tid = fx.thread_idx.x
            Out[tid] = reduce(A[tid], fx.ReductionOp.ADD, storage=r) + scan.exclusive(
                A[tid], fx.ReductionOp.ADD, storage=s)

        @flyc.jit
        def run(A, Out):
            block(A, Out).launch(grid=(1, 1, 1), block=(128, 1, 1))

        a = np.zeros(128, np.int32)
        texts[ns] = flyc.compile(run, a, a.copy()).module_text
    assert "rocdl.update.dpp" in texts[fx.coop] and "gpu.shuffle" not in texts[fx.coop]
    assert "gpu.shuffle" in texts[fx.coop.universal]
    assert "rocdl.update.dpp" not in texts[fx.coop.universal]
    assert fx.coop.universal.BlockReduce[fx.Int32, 128] is not fx.coop.BlockReduce[fx.Int32, 128]
    assert fx.coop.universal.BlockReduceAlgorithm is fx.coop.BlockReduceAlgorithm


@pytest.mark.parametrize("chip", CHIPS, indirect=True, ids=lambda c: c[0])
def test_block_collectives_take_an_integer_of_the_other_signedness(chip):
    """A uint8 tensor's elements are Int8 (its element type is i8), as in
    FlyDSL; BlockReduce[fx.Uint8, n] takes them as Uint8, so MAX and MIN
    compare unsigned and ADD wraps at 8 bits."""
    block = 128

    @flyc.kernel
    def bytes_(A: fx.Tensor, Out: fx.Tensor):
        reduce = fx.coop.BlockReduce[fx.Uint8, fx.known_block_size()]
        scan = fx.coop.BlockScan[fx.Uint8, fx.known_block_size()]
        smem = fx.SharedAllocator()
        r = smem.allocate(reduce.SharedStorage).peek()
        s = smem.allocate(scan.SharedStorage).peek()
        tid = fx.thread_idx.x
        Out[tid] = reduce(A[tid], fx.ReductionOp.MAX, storage=r)
        fx.barrier()
        Out[block + tid] = reduce(A[tid], fx.ReductionOp.MIN, storage=r)
        Out[2 * block + tid] = scan.inclusive(A[tid], fx.ReductionOp.ADD, storage=s)

    @flyc.jit
    def run(A, Out):
        bytes_(A, Out).launch(grid=(1, 1, 1), block=(block, 1, 1))

    a = np.random.default_rng(5).integers(1, 255, block).astype(np.uint8)
    a[17], a[90] = 0, 255
    out = np.zeros(3 * block, np.uint8)
    run(a, out)
    rows = out.reshape(3, block)
    np.testing.assert_array_equal(rows[0], np.full(block, 255, np.uint8))
    np.testing.assert_array_equal(rows[1], np.zeros(block, np.uint8))
    np.testing.assert_array_equal(rows[2], np.cumsum(a, dtype=np.uint8))


def test_a_dynamic_block_has_no_known_size(fly_env):
    """FlyDSL documents fx.known_block_size()'s RuntimeError."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def body(A: fx.Tensor):
        fx.coop.BlockReduce[fx.Float32, fx.known_block_size()]

    @flyc.jit
    def run(A, n: fx.Int32):
        body(A).launch(grid=(1, 1, 1), block=(n, 1, 1))

    with pytest.raises(RuntimeError, match="kernel body has no compile-time block size") as e:
        run(np.zeros(4, np.float32), 64)
    assert isinstance(e.value, TraceError)


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
