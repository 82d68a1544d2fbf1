"""C = A + B on an M x N f32 tensor: 128-bit universal copies, one bounds
predicate per copy (an identity-layout view of the coordinates, fx.elem_less), grid rounded up."""

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

THREADS = 128


@flyc.kernel
def vector_add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_copy: fx.TiledCopy):
    bid_m, bid_n, _ = fx.block_idx
    M, N = A.shape.unpack()
    tile = tiled_copy.tile_mn
    coords = fx.make_view((0, 0), fx.make_identity_layout((M, N)))   # value = (m, n)
    gA, gB, gC, gP = (fx.flat_divide(t, tile)[None, None, bid_m, bid_n] for t in (A, B, C, coords))
    thr = tiled_copy.get_slice(fx.thread_idx.x)
    sA, sB, dC = thr.partition_S(gA), thr.partition_S(gB), thr.partition_D(gC)
    first = thr.partition_S(gP)[(0, None), None, None]   # each copy's first coordinate
    inside = fx.make_fragment_like(first, dtype=fx.Boolean)
    for i in fx.range_constexpr(fx.size(inside.shape).unpack()):
        inside[i] = fx.elem_less(first[i], (M, N))
    rA, rB, rC = (fx.make_fragment_like(t) for t in (sA, sB, dC))
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    fx.copy(atom, sA, rA, pred=inside)
    fx.copy(atom, sB, rB, pred=inside)
    rC.store(rA.load() + rB.load())
    fx.copy(atom, rC, dC, pred=inside)


@flyc.jit
def vector_add(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    tiled_copy = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((8, 16), order=(1, 0)),
                                       fx.make_ordered_layout((1, 4), order=(0, 1)))
    tile_m, tile_n = tiled_copy.tile_mn.unpack()
    M, N = A.shape.unpack()
    vector_add_kernel(A, B, C, tiled_copy).launch(
        grid=((M + tile_m - 1) // tile_m, (N + tile_n - 1) // tile_n, 1),
        block=(THREADS, 1, 1), stream=stream)


JIT = vector_add


def compile_args():
    return tuple(torch.zeros(100, 1000) for _ in range(3))
