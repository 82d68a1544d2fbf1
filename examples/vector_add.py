"""Example 1: C = A + B on M x N row-major f32 matrices, with bounds.

What it shows
  * the jit function builds the TiledCopy - 256 threads laid out 16 x 16 in
    row-major order (``fx.make_ordered_layout``) - and passes it to the
    kernel as an argument, next to a ``stream: fx.Stream = fx.Stream(None)``
    parameter as FlyDSL host functions have;
  * the kernel reads the tile back with ``tiled_copy.tile_mn``, cuts its
    block's tile out of every operand with
    ``fx.flat_divide(X, tile)[None, None, bid_x, bid_y]`` and partitions it
    for its thread;
  * bounds: M and N need not be tile multiples. An identity (coordinate)
    tensor goes through the same divide and partition; each copy atom of
    the thread gets its own flag, ``fx.elem_less(atom's first coord, (M, N))``,
    in a Boolean tensor made with ``fx.make_fragment_like(..., dtype=fx.Boolean)``.

Two copy widths (``copy_bits``, a Constexpr of the jit function):
  128 - thread t moves one float4 (one 128-bit load per operand, one store)
        of the 16 x 64 tile: the kernel of examples/vector_add.mlir. An atom
        is all-or-nothing, so when N is not a multiple of 4 the last atom of
        a row also writes the 1-3 floats after it: rows must be padded to a
        multiple of 4 floats (which also keeps each row 16-byte aligned, as
        a 128-bit access needs), and only that padding is touched.
   32 - the same tiled copy with a 32-bit atom: each thread's 4 floats are
        4 atom calls, each with its own flag, so the bounds are exact for
        any N and any row pitch.
``main`` runs ragged shapes (in M, and in M and N) on padded buffers with a
guard row and checks C inside and every guard float outside.

Run it (CPU emulator unless HIP has a device; ARCH picks the chip):

    ARCH=gfx942 python3 examples/vector_add.py
    ARCH=gfx1100 python3 examples/vector_add.py
    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/vector_add.py   # resources only
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

THREADS_M, THREADS_N = 16, 16    # the thread grid of a block
VEC = 4                          # floats per 128-bit copy


@flyc.kernel(known_block_size=(THREADS_M * THREADS_N, 1, 1))
def vector_add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_copy: fx.TiledCopy,
                      copy: fx.Constexpr):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N

    M, N = A.shape.unpack()
    tile = tiled_copy.tile_mn

    # This block's tile of each operand, and of the coordinates (m, n).
    coords = fx.make_view((0, 0), fx.make_identity_layout((M, N)))
    gA = fx.flat_divide(A, tile)[None, None, bid_x, bid_y]
    gB = fx.flat_divide(B, tile)[None, None, bid_x, bid_y]
    gC = fx.flat_divide(C, tile)[None, None, bid_x, bid_y]
    gI = fx.flat_divide(coords, tile)[None, None, bid_x, bid_y]

    # ... and this thread's share: (values of an atom, atoms along M, along N).
    thr = tiled_copy.get_slice(tid)
    tA = thr.partition_S(gA)
    tB = thr.partition_S(gB)
    tC = thr.partition_D(gC)
    # Value 0 of each atom: the coordinate the atom starts at.
    tI = thr.partition_S(gI)[(0, None), None, None]

    # One predicate per atom.
    inside = fx.make_fragment_like(tI, dtype=fx.Boolean)
    for i in fx.range_constexpr(fx.size(inside.shape).unpack()):
        inside[i] = fx.elem_less(tI[i], (M, N))

    rA = fx.make_fragment_like(tA)
    rB = fx.make_fragment_like(tB)
    rC = fx.make_fragment_like(tC)
    atom = fx.make_copy_atom(copy(), fx.Float32)
    fx.copy(atom, tA, rA, pred=inside)
    fx.copy(atom, tB, rB, pred=inside)
    rC.store(rA.load() + rB.load())
    fx.copy(atom, rC, tC, pred=inside)


COPIES = {128: fx.UniversalCopy128b, 32: fx.UniversalCopy32b}


@flyc.jit
def vector_add(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None),
               copy_bits: fx.Constexpr[int] = 128):
    copy = COPIES[copy_bits]
    atom = fx.make_copy_atom(copy(), fx.Float32)
    # Thread t owns 4 consecutive floats of the 16 x 64 tile: one 128-bit
    # atom call, or four 32-bit ones.
    tiled_copy = fx.make_tiled_copy_tv(
        atom,
        fx.make_ordered_layout((THREADS_M, THREADS_N), order=(1, 0)),   # threads row-major
        fx.make_ordered_layout((1, VEC), order=(0, 1)),                 # 4 floats along N
    )
    tile_m, tile_n = tiled_copy.tile_mn.unpack()
    M, N = A.shape.unpack()
    grid = ((M + tile_m - 1) // tile_m, (N + tile_n - 1) // tile_n, 1)
    vector_add_kernel(A, B, C, tiled_copy, copy).launch(grid=grid, block=(THREADS_M * THREADS_N, 1, 1),
                                                        stream=stream)


def operands(rng, m, n, pitch):
    """A, B (random) and C (NaN) as m x n views into (m + 1) x pitch
    buffers: the spare row and the columns past n are guard space. A + B is
    2 in A's and B's guard space; C's buffer is returned too."""
    bufs = [np.full((m + 1, pitch), np.nan, np.float32) for _ in range(3)]
    a, b, c = (x[:m, :n] for x in bufs)
    bufs[0][...] = bufs[1][...] = 1.0
    a[...] = rng.standard_normal((m, n), dtype=np.float32)
    b[...] = rng.standard_normal((m, n), dtype=np.float32)
    return a, b, c, bufs[2]


def run(m, n, copy_bits=128, rng=None):
    """C = A + B on an m x n problem. True when C is right inside the matrix
    and its guard space is untouched - except, for 128-bit copies, the tail
    of each row's last float4, which the all-or-nothing atom writes (into
    the row padding: the pitch is rounded up to 4 floats, keeping every row
    16-byte aligned). 32-bit copies get a pitch of n + 3, rows unaligned."""
    rng = rng if rng is not None else np.random.default_rng(0)
    pitch = (n + VEC - 1) // VEC * VEC if copy_bits == 128 else n + 3
    a, b, c, c_buf = operands(rng, m, n, pitch)
    vector_add(a, b, c, copy_bits=copy_bits)
    want = np.full_like(c_buf, np.nan)
    want[:m, :n] = a + b
    if copy_bits == 128:
        want[:m, n:] = 2.0
    return np.array_equal(c_buf, want, equal_nan=True)


def main():
    if flyc.Environment.current().compile_only:
        a = np.zeros((100, 200), np.float32)
        args = [flyc.from_dlpack(x).mark_layout_dynamic(divisibility=VEC) for x in (a, a.copy(), a.copy())]
        compiled = flyc.compile(vector_add, *args)
        for name, r in compiled.resources.items():
            print(f"{name}: {r}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    rng = np.random.default_rng(0)
    ok = True
    # (100, 200): ragged in M only; (100, 1001), (37, 70): ragged in M and
    # N, N not a multiple of 4 (rows padded for the 128-bit copies).
    for m, n, bits in [(100, 200, 128), (100, 1001, 128), (37, 70, 128), (100, 1001, 32), (37, 70, 32)]:
        good = run(m, n, bits, rng)
        print(f"{m} x {n}, {bits}-bit copies: {'ok' if good else 'WRONG'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
