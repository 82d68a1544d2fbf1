"""Example: B = 2 * A + 1, tile by tile through LDS with gfx1250's tensor data mover.

What it shows
  * ``fx.rocdl.make_tdm_atom``: a copy atom of the tensor data mover (TDM),
    which moves a whole 16 x 64 f32 tile between global memory and LDS with
    one instruction (``tensor_load_to_lds`` / ``tensor_store_from_lds``)
    instead of one access per thread. The four waves of the block share the
    tile (``num_warps=4``: four rows each);
  * the tile of each block is ``fx.flat_divide(A, tile)[None, None, bx, by]``
    of a tensor with a dynamic shape and row stride; the atom takes the
    rows and columns left from the tile's origin as its extents, so at the
    bottom and right borders the load writes zeros for the elements past
    the tensor and the store leaves them alone -- no predicates;
  * the copies are asynchronous on the GPU: ``tdm_ops.tensor_wait(0)``
    (``s_wait_tensorcnt``) waits for this wave's, and ``fx.barrier()``
    makes the other waves' rows visible;
  * in between, the threads update the tile in LDS, each an element at a time.

gfx1250 only (other chips have no tensor data mover: make_tdm_atom says so).

    ARCH=gfx1250 python3 examples/tdm_copy.py
    COMPILE_ONLY=1 ARCH=gfx1250 python3 examples/tdm_copy.py   # resources only
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.rocdl import tdm_ops

TILE_M, TILE_N = 16, 64
WAVES = 4
THREADS = 32 * WAVES


@fx.struct
class SharedStorage:
    tile: fx.Array[fx.Float32, TILE_M * TILE_N, 16]     # 4 KiB, 16-byte aligned


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def tdm_copy_kernel(A: fx.Tensor, B: fx.Tensor):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N
    M, N = A.shape.unpack()

    gA = fx.flat_divide(A, (TILE_M, TILE_N))[None, None, bid_x, bid_y]
    gB = fx.flat_divide(B, (TILE_M, TILE_N))[None, None, bid_x, bid_y]
    smem = fx.SharedAllocator().allocate(SharedStorage).peek()
    sT = smem.tile.view(fx.make_layout((TILE_M, TILE_N), (TILE_N, 1)))

    # What is left of the tensor from this tile's origin on.
    rows, cols = M - bid_x * TILE_M, N - bid_y * TILE_N
    load = fx.rocdl.make_tdm_atom(gA, [rows, cols], num_warps=WAVES)
    store = fx.rocdl.make_tdm_atom(gB, [rows, cols], num_warps=WAVES)

    fx.copy(load, gA, sT)
    tdm_ops.tensor_wait(0)
    fx.barrier()
    for i in range(tid, TILE_M * TILE_N, THREADS):
        smem.tile[i] = smem.tile[i] * 2.0 + 1.0
    fx.barrier()
    fx.copy(store, sT, gB)
    tdm_ops.tensor_wait(0)


@flyc.jit
def tdm_copy(A: fx.Tensor, B: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    M, N = A.shape.unpack()
    tdm_copy_kernel(A, B).launch(grid=((M + TILE_M - 1) // TILE_M, (N + TILE_N - 1) // TILE_N, 1),
                                 block=(THREADS, 1, 1), stream=stream)


def arguments(m, n):
    a = np.random.default_rng(m * n).standard_normal((m, n), dtype=np.float32)
    return a, np.full_like(a, -1.0)


def main():
    if flyc.Environment.current().compile_only:
        for name, r in flyc.compile(tdm_copy, *arguments(40, 200)).resources.items():
            print(f"{name}: {r}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for m, n in [(64, 256), (40, 200), (5, 70)]:
        a, b = arguments(m, n)
        tdm_copy(a, b)
        good = np.array_equal(b, 2 * a + 1)
        print(f"{m} x {n}: {'ok' if good else 'WRONG'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
