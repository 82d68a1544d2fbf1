"""Example 3: C = A @ B.T in f32 with a tiled MMA of universal-FMA atoms.

What it shows
  * a TiledMma built in the jit function and passed to the kernel: 16 x 16
    ``fx.UniversalFMA(fx.Float32)`` atoms (one per thread, atom layout
    (16,16,1):(1,16,256)) over a 128 x 128 tile of C, so thread t owns the
    8 x 8 elements (t % 16 + 16 i, t // 16 + 16 j) of it;
  * the block's operands: ``fx.flat_divide(C, (128, 128))[None, None, bid_x,
    bid_y]`` for its tile of C, and ``fx.flat_divide(A, (128, None))`` (the
    K mode left whole) for its 128 rows of A and of B;
  * ``thr_mma.partition_A/B/C``, and ``make_fragment_C(gC)`` for the
    accumulators (given the block's whole tile, as FlyDSL takes it); a K loop over a
    run-time K (a Python ``for`` over ``range(K)`` becomes an scf.for) that
    copies the thread's 8 + 8 elements of column k into register fragments
    with 32-bit copies and calls ``fx.gemm`` (64 FMAs); the accumulators
    stay in registers and go to C at the end.

A is M x K, B is N x K, C is M x N, row-major; M and N multiples of 128,
K any size. This is the kernel of examples/fma_gemm.mlir.

    ARCH=gfx942 python3 examples/fma_gemm.py
    ARCH=gfx1100 python3 examples/fma_gemm.py
    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/fma_gemm.py   # resources only
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE = 128
THREADS = 256


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def fma_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_mma: fx.TiledMma):
    tid = fx.thread_idx.x
    bid_x, bid_y = fx.block_idx.x, fx.block_idx.y     # x walks M, y walks N

    # 128 rows of A and of B (all of K), and the 128 x 128 tile of C.
    gA = fx.flat_divide(A, (TILE, None))[None, 0, bid_x, None]
    gB = fx.flat_divide(B, (TILE, None))[None, 0, bid_y, None]
    gC = fx.flat_divide(C, (TILE, TILE))[None, None, bid_x, bid_y]

    thr_mma = tiled_mma.thr_slice(tid)
    tA = thr_mma.partition_A(gA)       # (1, 8, K)
    tB = thr_mma.partition_B(gB)       # (1, 8, K)
    tC = thr_mma.partition_C(gC)       # (1, 8, 8)
    acc = thr_mma.make_fragment_C(gC)  # registers for thread's part of the whole tile
    acc.fill(0.0)

    copy_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    M, K = A.shape.unpack()
    for k in range(K):
        tAk = tA[None, None, k]
        tBk = tB[None, None, k]
        rA = fx.make_fragment_like(tAk)
        rB = fx.make_fragment_like(tBk)
        fx.copy(copy_atom, tAk, rA)
        fx.copy(copy_atom, tBk, rB)
        fx.gemm(tiled_mma, acc, rA, rB, acc)

    fx.copy(copy_atom, acc, tC)


@flyc.jit
def fma_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    tiled_mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                  fx.make_layout((16, 16, 1), (1, 16, 256)))
    M, N = C.shape.unpack()
    fma_gemm_kernel(A, B, C, tiled_mma).launch(grid=(M // TILE, N // TILE, 1),
                                               block=(THREADS, 1, 1), stream=stream)


def arguments(m=256, n=128, k=64):
    """A, B (random), C (zeros) and the compile arguments: dynamic layouts,
    the row counts marked as multiples of 128."""
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((n, k), dtype=np.float32)
    c = np.zeros((m, n), np.float32)

    def tensor(x):
        return flyc.from_dlpack(x).mark_layout_dynamic().mark_shape_dynamic([0], divisibility=TILE)

    return a, b, c, (tensor(a), tensor(b), tensor(c).mark_shape_dynamic([1], divisibility=TILE))


def main():
    if flyc.Environment.current().compile_only:
        *_, args = arguments()
        for name, r in flyc.compile(fma_gemm, *args).resources.items():
            print(f"{name}: {r}")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for m, n, k in [(256, 128, 64), (128, 256, 7)]:
        a, b, c, args = arguments(m, n, k)
        fma_gemm(*args)
        want = a.astype(np.float64) @ b.T.astype(np.float64)
        good = np.allclose(c, want, rtol=1e-4, atol=1e-4)
        print(f"{m} x {n} x {k}: {'ok' if good else f'WRONG (max error {np.abs(c - want).max()})'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
