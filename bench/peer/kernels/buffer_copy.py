"""B = A through buffer tensors on a 37 x 150 f32 tensor (not a multiple of
the 8 x 64 tile): BufferCopy128b loads and stores, no predicates; the
resources' range check (max_size=False: sized to the tensor) cuts the last
tiles off."""

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

THREADS = 128


@flyc.kernel
def buffer_copy_kernel(A: fx.Tensor, B: fx.Tensor, tiled_copy: fx.TiledCopy):
    bid_m, bid_n, _ = fx.block_idx
    A = fx.rocdl.make_buffer_tensor(A, max_size=False)
    B = fx.rocdl.make_buffer_tensor(B, max_size=False)
    gA = fx.flat_divide(A, tiled_copy.tile_mn)[None, None, bid_m, bid_n]
    gB = fx.flat_divide(B, tiled_copy.tile_mn)[None, None, bid_m, bid_n]
    thr = tiled_copy.get_slice(fx.thread_idx.x)
    src, dst = thr.partition_S(gA), thr.partition_D(gB)
    frag = fx.make_fragment_like(src)
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32)
    fx.copy(atom, src, frag)
    fx.copy(atom, frag, dst)


@flyc.jit
def buffer_copy(A: fx.Tensor, B: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32)
    tiled_copy = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((8, 16), order=(1, 0)),
                                       fx.make_ordered_layout((1, 4), order=(0, 1)))
    tile_m, tile_n = tiled_copy.tile_mn.unpack()
    M, N = A.shape.unpack()
    buffer_copy_kernel(A, B, tiled_copy).launch(
        grid=((M + tile_m - 1) // tile_m, (N + tile_n - 1) // tile_n, 1),
        block=(THREADS, 1, 1), stream=stream)


JIT = buffer_copy


def compile_args():
    return torch.zeros(37, 150), torch.zeros(37, 150)
