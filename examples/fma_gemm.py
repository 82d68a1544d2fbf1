"""Reference kernel 3 in Python: C = A * B^T in f32 with the universal FMA.

The kernel of examples/fma_gemm.mlir: A is M x K, B is N x K, C is M x N,
row-major; M and N multiples of 128. A block computes a 128 x 128 tile of C
with a tiled MMA of 16 x 16 universal-FMA atoms over its 256 threads: each
thread accumulates 8 x 8 elements in registers; for each k it copies its 8
elements of column k of the A and B tiles into registers and runs
fx.gemm (64 FMAs).

    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/fma_gemm.py
"""

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE = 128


@flyc.kernel(known_block_size=(256, 1, 1))
def fma_gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    m, n = fx.block_idx.y, fx.block_idx.x
    mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                            fx.make_layout((16, 16, 1), (1, 16, 256)))
    copy = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)

    # The block's rows of A and B and its tile of C.
    gA = fx.logical_divide(A, (TILE, None))[(None, m), None]
    gB = fx.logical_divide(B, (TILE, None))[(None, n), None]
    gC = fx.zipped_divide(C, (TILE, TILE))[(None, None), (m, n)]

    thr = mma.get_slice(tid)
    tA = thr.partition_A(gA)
    tB = thr.partition_B(gB)
    tC = thr.partition_C(gC)
    fC = thr.make_fragment_C(tC)
    fC.fill(0.0)

    K = A.shape[1]
    for k in range(K):
        tAk = tA[None, None, k]
        tBk = tB[None, None, k]
        fA = fx.make_fragment_like(tAk)
        fB = fx.make_fragment_like(tBk)
        fx.copy(copy, tAk, fA)
        fx.copy(copy, tBk, fB)
        fx.gemm(mma, fC, fA, fB, fC)

    fx.copy(copy, fC, tC)


@flyc.jit
def fma_gemm(A, B, C):
    M, N = C.shape
    fma_gemm_kernel(A, B, C).launch(grid=(N // TILE, M // TILE, 1), block=(256, 1, 1))


def arguments(m=256, n=128, k=64):
    a = np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(n, k).astype(np.float32)
    c = np.zeros((m, n), np.float32)

    def tensor(x, rows_div):
        desc = flyc.from_dlpack(x).mark_layout_dynamic()
        return desc.mark_shape_dynamic([0], divisibility=rows_div)

    return a, b, c, (tensor(a, TILE), tensor(b, TILE),
                     tensor(c, TILE).mark_shape_dynamic([1], divisibility=TILE))


def main():
    a, b, c, args = arguments()
    compiled = flyc.compile(fma_gemm, *args)
    if compiled.emulator:
        print(f"{compiled.name}: compiled for the CPU emulator ({flyc.Environment.current().arch})")
    for name, r in compiled.resources.items() if not compiled.emulator else ():
        print(f"{name}: {r}")
    if flyc.Environment.current().compile_only:
        print("compiled (COMPILE_ONLY): not run")
        return
    fma_gemm(*args)
    ok = np.allclose(c, a @ b.T, rtol=1e-4)
    print("PASS" if ok else f"FAIL: max error {np.abs(c - a @ b.T).max()}")


if __name__ == "__main__":
    main()
