"""Example 2: B = A through shared memory (LDS), a swizzle and a barrier.

What it shows
  * two TiledCopy objects over the same 16 x 64 f32 tile, built in the jit
    function and passed to the kernel: ``by_rows`` lays the 256 threads out
    row-major (thread t: row t // 16, floats 4 * (t % 16) .. +3),
    ``by_cols`` column-major (thread t: row t % 16, floats 4 * (t // 16)
    .. +3), both with one 128-bit atom per thread;
  * LDS the way FlyDSL kernels get it: a ``@fx.struct`` with an
    ``fx.Array`` field, ``fx.SharedAllocator(static=False).allocate(...)``
    (the dynamic LDS; the launch sizes it from ``allocated_bytes``), then
    ``.peek()`` and ``.view(layout)``;
  * the LDS layout is swizzled, ``fx.make_composed_layout(
    fx.static(fx.SwizzleType.get(3, 2, 4)), (16, 64):(64, 1))``: bits 6-8 of
    an element's index (the row's low 3 bits) are xored into bits 2-4, i.e.
    whole 16-byte runs move, so each access stays one 128-bit LDS access;
  * the block writes the tile by rows, meets at ``fx.barrier()`` and reads
    it back by columns, so each thread reads floats other threads wrote.

This is the kernel of examples/tiled_copy_lds.mlir. M must be a multiple of
16 and N of 64 (there is no predicate here; see vector_add.py for bounds).

    ARCH=gfx942 python3 examples/tiled_copy_lds.py
    ARCH=gfx1100 python3 examples/tiled_copy_lds.py
    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/tiled_copy_lds.py   # resources only
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE_M, TILE_N = 16, 64
THREADS = 256


@fx.struct
class SharedStorage:
    tile: fx.Array[fx.Float32, TILE_M * TILE_N, 16]     # 4 KiB, 16-byte aligned


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def tiled_copy_kernel(A: fx.Tensor, B: fx.Tensor, by_rows: fx.TiledCopy, by_cols: fx.TiledCopy):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N

    tile = by_rows.tile_mn
    gA = fx.flat_divide(A, tile)[None, None, bid_x, bid_y]
    gB = fx.flat_divide(B, tile)[None, None, bid_x, bid_y]

    smem = fx.SharedAllocator(static=False).allocate(SharedStorage).peek()
    swizzled = fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 2, 4)),
                                       fx.make_ordered_layout((TILE_M, TILE_N), order=(1, 0)))
    sT = smem.tile.view(swizzled)

    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    w = by_rows.get_slice(tid)
    fx.copy(atom, w.partition_S(gA), w.partition_D(sT))
    fx.barrier()
    r = by_cols.get_slice(tid)
    fx.copy(atom, r.partition_S(sT), r.partition_D(gB))


@flyc.jit
def tiled_copy(A: fx.Tensor, B: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    float4 = fx.make_ordered_layout((1, 4), order=(0, 1))
    by_rows = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((16, 16), order=(1, 0)), float4)
    by_cols = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((16, 16), order=(0, 1)), float4)
    tile_m, tile_n = by_rows.tile_mn.unpack()
    M, N = A.shape.unpack()
    # smem is left out: the dynamic allocator's allocated_bytes sizes it.
    tiled_copy_kernel(A, B, by_rows, by_cols).launch(grid=(M // tile_m, N // tile_n, 1),
                                                     block=(THREADS, 1, 1), stream=stream)


def arguments(m=64, n=256):
    """A (random), B (zeros) and the two as compile arguments: dynamic
    shapes marked as tile multiples, rows 16-byte aligned."""
    a = np.random.default_rng(m * n).standard_normal((m, n), dtype=np.float32)
    b = np.zeros_like(a)

    def tensor(x):
        desc = flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4)
        return desc.mark_shape_dynamic([0], divisibility=TILE_M).mark_shape_dynamic([1], divisibility=TILE_N)

    return a, b, (tensor(a), tensor(b))


def main():
    if flyc.Environment.current().compile_only:
        *_, args = arguments()
        for name, r in flyc.compile(tiled_copy, *args).resources.items():
            print(f"{name}: {r}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for m, n in [(64, 256), (16, 64), (48, 128)]:
        a, b, args = arguments(m, n)
        tiled_copy(*args)
        good = np.array_equal(a, b)
        print(f"{m} x {n}: {'ok' if good else 'WRONG'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
