"""Kernels written in FlyDSL's API the way its examples write them (a
predicated elementwise add over a TiledCopy passed as a kernel argument,
row gather/scatter through offset tensors, pointer loads/stores, an FMA
tiled MMA), run on the emulator for a CDNA and an RDNA chip and checked
against numpy."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402

CHIPS = ["gfx942", "gfx1100"]


@pytest.fixture(params=CHIPS)
def chip(request, monkeypatch):
    monkeypatch.setenv("FLYDSL_RUNTIME_KIND", "emu")
    monkeypatch.setenv("ARCH", request.param)
    flyc.Environment.reload()
    yield request.param
    monkeypatch.undo()
    flyc.Environment.reload()


# -- a predicated add, the tiled copy a kernel argument -----------------------------------------

@flyc.kernel
def add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_copy: fx.TiledCopy):
    tid = fx.thread_idx.x
    bx, by = fx.block_idx.x, fx.block_idx.y
    M, N = A.shape.unpack()
    coords = fx.make_view((0, 0), fx.make_identity_layout((M, N)))
    tile = tiled_copy.tile_mn
    tA = fx.flat_divide(A, tile)[None, None, bx, by]
    tB = fx.flat_divide(B, tile)[None, None, bx, by]
    tC = fx.flat_divide(C, tile)[None, None, bx, by]
    tI = fx.flat_divide(coords, tile)[None, None, bx, by]
    mine = tiled_copy.get_slice(tid)
    pA, pB, pC = mine.partition_S(tA), mine.partition_S(tB), mine.partition_D(tC)
    pI = mine.partition_S(tI)[(0, None), None, None]
    rA, rB, rC = fx.make_fragment_like(pA), fx.make_fragment_like(pB), fx.make_fragment_like(pC)
    inside = fx.make_fragment_like(pI, dtype=fx.Boolean)
    for i in fx.range_constexpr(fx.size(inside.shape).unpack()):
        inside[i] = fx.elem_less(pI[i], (M, N))
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    fx.copy(atom, pA, rA, pred=inside)
    fx.copy(atom, pB, rB, pred=inside)
    rC.store(rA.load() + rB.load())
    fx.copy(atom, rC, pC, pred=inside)


@flyc.jit
def add(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    tiled = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((4, 8), order=(1, 0)),
                                  fx.make_ordered_layout((1, 4), order=(0, 1)))
    tm, tn = tiled.tile_mn.unpack()
    M, N = A.shape.unpack()
    add_kernel(A, B, C, tiled).launch(grid=((M + tm - 1) // tm, (N + tn - 1) // tn, 1),
                                      block=(32, 1, 1))


def test_predicated_add_with_a_tiled_copy_argument(chip):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((10, 52)).astype(np.float32)  # border tiles in both modes
    B = rng.standard_normal((10, 52)).astype(np.float32)
    C = np.zeros_like(A)
    add(A, B, C)
    np.testing.assert_array_equal(C, A + B)


@flyc.kernel
def copy_each_float_kernel(A: fx.Tensor, C: fx.Tensor, tiled_copy: fx.TiledCopy):
    """A 32-bit atom over a (1, 4) value layout: four atom calls per thread
    inside mode 0, each under its own flag (FlyDSL's one flag per call)."""
    bx, by = fx.block_idx.x, fx.block_idx.y
    M, N = A.shape.unpack()
    tile = tiled_copy.tile_mn
    mine = tiled_copy.get_slice(fx.thread_idx.x)
    pA = mine.partition_S(fx.flat_divide(A, tile)[None, None, bx, by])
    pC = mine.partition_D(fx.flat_divide(C, tile)[None, None, bx, by])
    coords = fx.make_view((0, 0), fx.make_identity_layout((M, N)))
    pI = mine.partition_S(fx.flat_divide(coords, tile)[None, None, bx, by])[(0, None), None, None]
    inside = fx.make_fragment_like(pI, dtype=fx.Boolean)
    for i in fx.range_constexpr(fx.size(inside.shape).unpack()):
        inside[i] = fx.elem_less(pI[i], (M, N))
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    r = fx.make_fragment_like(pA)
    fx.copy(atom, pA, r, pred=inside)
    fx.copy(atom, r, pC, pred=inside)


@flyc.jit
def copy_each_float(A: fx.Tensor, C: fx.Tensor):
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    tiled = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((4, 8), order=(1, 0)),
                                  fx.make_ordered_layout((1, 4), order=(0, 1)))
    tm, tn = tiled.tile_mn.unpack()
    M, N = A.shape.unpack()
    copy_each_float_kernel(A, C, tiled).launch(grid=((M + tm - 1) // tm, (N + tn - 1) // tn, 1),
                                               block=(32, 1, 1))


def test_a_flag_per_atom_call_inside_the_value_mode(chip):
    """N = 50 leaves half a float4 at each row's end: the per-call flags
    copy exactly the row's floats and leave the padding after it alone."""
    rng = np.random.default_rng(2)
    storage = np.full((10, 64), -7.0, np.float32)  # rows padded to 64 floats
    A = rng.standard_normal((10, 50)).astype(np.float32)
    C = storage[:, :50]
    copy_each_float(A, C)
    np.testing.assert_array_equal(C, A)
    assert (storage[:, 50:] == -7.0).all()


# -- row gather / scatter --------------------------------------------------------------------------

TM, TN = 4, 16


def _row_slices(Data, Idx, Col, bm, bn, thr):
    gIdx = fx.flat_divide(Idx, (TM, TN))[None, None, bm, bn]
    gCol = fx.flat_divide(Col, (TM, TN))[None, None, bm, bn]
    offsets = thr.partition_S(gIdx)[(0, None), None, None]
    cols = thr.partition_S(gCol)[(0, None), None, None]
    return offsets, cols


def _thread_copy(tid):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    return atom, fx.make_tiled_copy_tv(atom, fx.make_layout((TM, TN // 4), (TN // 4, 1)),
                                       fx.make_layout((1, 4), (1, 1))).get_slice(tid)


@flyc.kernel
def gather_rows(Src: fx.Tensor, Dst: fx.Tensor, Idx: fx.Tensor):
    tid = fx.thread_idx.x
    bm, bn, _ = fx.block_idx
    atom, thr = _thread_copy(tid)
    R, N = Dst.shape.unpack()
    rows = fx.make_view(fx.get_iter(Idx), fx.make_layout((R, N), (1, 0)))
    cols = fx.make_view(fx.make_int_tuple(0), fx.make_layout((R, N), (0, 1)))
    gRow, cCol = _row_slices(Dst, rows, cols, bm, bn, thr)
    gDst = thr.partition_D(fx.flat_divide(Dst, (TM, TN))[None, None, bm, bn])
    rOff = fx.make_fragment_like(gRow)
    rDst = fx.make_fragment_like(gDst)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32), gRow, rOff)
    rOff.store(rOff.load() * N + cCol.load())
    fx.gather(atom, fx.get_iter(Src), rOff, rDst)
    fx.copy(atom, rDst, gDst)


@flyc.kernel
def scatter_rows(Src: fx.Tensor, Dst: fx.Tensor, Idx: fx.Tensor):
    tid = fx.thread_idx.x
    bm, bn, _ = fx.block_idx
    atom, thr = _thread_copy(tid)
    R, N = Src.shape.unpack()
    rows = fx.make_view(fx.get_iter(Idx), fx.make_layout((R, N), (1, 0)))
    cols = fx.make_view(fx.make_int_tuple(0), fx.make_layout((R, N), (0, 1)))
    gRow, cCol = _row_slices(Src, rows, cols, bm, bn, thr)
    gSrc = thr.partition_S(fx.flat_divide(Src, (TM, TN))[None, None, bm, bn])
    rOff = fx.make_fragment_like(gRow)
    rSrc = fx.make_fragment_like(gSrc)
    fx.copy(atom, gSrc, rSrc)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32), gRow, rOff)
    rOff.store(rOff.load() * N + cCol.load())
    fx.scatter(atom, rSrc, fx.get_iter(Dst), rOff)


@flyc.jit
def gather(Src: fx.Tensor, Dst: fx.Tensor, Idx: fx.Tensor):
    R, N = Dst.shape.unpack()
    gather_rows(Src, Dst, Idx).launch(grid=(R // TM, N // TN, 1), block=[TM * (TN // 4), 1, 1])


@flyc.jit
def scatter(Src: fx.Tensor, Dst: fx.Tensor, Idx: fx.Tensor):
    R, N = Src.shape.unpack()
    scatter_rows(Src, Dst, Idx).launch(grid=(R // TM, N // TN, 1), block=[TM * (TN // 4), 1, 1])


def test_gather_and_scatter_rows(chip):
    rng = np.random.default_rng(2)
    M, R, N = 24, 8, 32
    src = rng.standard_normal((M, N)).astype(np.float32)
    idx = rng.permutation(M)[:R].astype(np.int32)
    dst = np.zeros((R, N), np.float32)
    gather(src, dst, idx)
    np.testing.assert_array_equal(dst, src[idx])

    src2 = rng.standard_normal((R, N)).astype(np.float32)
    dst2 = np.zeros((M, N), np.float32)
    scatter(src2, dst2, idx)
    ref = np.zeros((M, N), np.float32)
    ref[idx] = src2
    np.testing.assert_array_equal(dst2, ref)


# -- pointers and memrefs ---------------------------------------------------------------------------

@flyc.kernel
def pointer_ops(A: fx.Tensor, B: fx.Tensor):
    t = fx.thread_idx.x
    p = fx.get_iter(A)
    q = fx.get_iter(B)
    v = (p + t * 4).load(fx.Int32x4) if hasattr(fx, "Int32x4") else None
    if fx.const_expr(v is not None):
        (q + t * 4).store(v + 1)
    else:
        for i in fx.range_constexpr(4):
            q[t * 4 + i] = p[t * 4 + i] + 1
    fx.memref_store(fx.memref_load(A, t) * 2, B, 64 + t)


@flyc.jit
def pointers(A: fx.Tensor, B: fx.Tensor):
    pointer_ops(A, B).launch(grid=(1, 1, 1), block=(16, 1, 1))


def test_pointer_and_memref_loads_and_stores(chip):
    A = np.arange(64, dtype=np.int32)
    B = np.zeros(80, np.int32)
    pointers(A, B)
    np.testing.assert_array_equal(B[:64], A + 1)
    np.testing.assert_array_equal(B[64:], A[:16] * 2)


# -- a tiled FMA MMA -----------------------------------------------------------------------------------

@flyc.kernel
def fma_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                            fx.make_layout((4, 4, 1), (1, 4, 0)))
    thr = mma.get_slice(tid)
    # Static (row-major) views: the fragments need static layouts.
    A = fx.get_iter(A).view(fx.make_layout((8, 4), (4, 1)))
    B = fx.get_iter(B).view(fx.make_layout((8, 4), (4, 1)))
    C = fx.make_view(fx.get_iter(C), fx.make_layout((8, 8), (8, 1)))
    tA, tB, tC = thr.partition_A(A), thr.partition_B(B), thr.partition_C(C)
    # The fragments come from the whole tiles, as in FlyDSL.
    fA, fB, fC = thr.make_fragment_A(A), thr.make_fragment_B(B), thr.make_fragment_C(C)
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    fx.copy(atom, tA, fA)
    fx.copy(atom, tB, fB)
    fC.fill(0.0)
    fx.gemm(mma, fC, fA, fB, fC)
    fx.copy(atom, fC, tC)


@flyc.jit
def gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    fma_gemm(A, B, C).launch(grid=(1, 1, 1), block=(16, 1, 1))


def test_tiled_fma_gemm(chip):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((8, 4)).astype(np.float32)   # (M, K)
    B = rng.standard_normal((8, 4)).astype(np.float32)   # (N, K)
    C = np.zeros((8, 8), np.float32)
    gemm(A, B, C)
    np.testing.assert_allclose(C, A @ B.T, rtol=1e-5, atol=1e-5)
