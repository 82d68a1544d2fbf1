"""One 64 x 64 tile of C = A @ B.T (f32, K = 8) with a TiledMma of 2 x 2
MFMA 16x16x4 f32 atoms on 256 threads: operands and result through buffer
tensors with 32-bit buffer copies in the MMA's layouts (make_tiled_copy_A/B/C),
the kernel of FlyDSL's example 03."""

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE_M, TILE_N, TILE_K = 64, 64, 8


@flyc.kernel
def tiled_mma_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    bid = fx.block_idx.x
    tiles = []
    for t, shape in ((A, (TILE_M, TILE_K)), (B, (TILE_N, TILE_K)), (C, (TILE_M, TILE_N))):
        tiles.append(fx.slice(fx.zipped_divide(fx.rocdl.make_buffer_tensor(t), shape), (None, bid)))
    tA, tB, tC = tiles

    atom = fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 4, fx.Float32))
    tiled_mma = fx.make_tiled_mma(atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
    thr_mma = tiled_mma.thr_slice(tid)
    frag_A, frag_B, frag_C = thr_mma.make_fragment_A(tA), thr_mma.make_fragment_B(tB), thr_mma.make_fragment_C(tC)

    copy = fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32)
    cp_A = fx.make_tiled_copy_A(copy, tiled_mma).get_slice(tid)
    cp_B = fx.make_tiled_copy_B(copy, tiled_mma).get_slice(tid)
    cp_C = fx.make_tiled_copy_C(copy, tiled_mma).get_slice(tid)

    fx.copy(copy, cp_A.partition_S(tA), cp_A.retile(frag_A), pred=None)
    fx.copy(copy, cp_B.partition_S(tB), cp_B.retile(frag_B), pred=None)
    frag_C.fill(0)
    fx.gemm(atom, frag_C, frag_A, frag_B, frag_C)
    fx.copy(copy, cp_C.retile(frag_C), cp_C.partition_S(tC), pred=None)


@flyc.jit
def tiled_mma(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    tiled_mma_kernel(A, B, C).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


JIT = tiled_mma


def compile_args():
    return torch.zeros(TILE_M, TILE_K), torch.zeros(TILE_N, TILE_K), torch.zeros(TILE_M, TILE_N)
