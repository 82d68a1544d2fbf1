"""Reference kernel 1 in Python: C = A + B on M x N row-major f32 matrices.

The kernel of examples/vector_add.mlir, written with the fx API: a block of
256 threads takes a 16 x 64 tile; thread t copies 4 consecutive elements
of each operand with one 128-bit universal copy, under a bounds predicate
taken from an identity tensor partitioned the same way.

    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/vector_add.py
"""

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE_M, TILE_N = 16, 64


@flyc.kernel(known_block_size=(256, 1, 1))
def vector_add_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    bx, by = fx.block_idx.x, fx.block_idx.y

    # 16 x 16 threads in row-major order, 4 consecutive values each.
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    tiled = fx.make_tiled_copy_tv(atom, fx.make_layout((16, 16), (16, 1)),
                                  fx.make_layout((1, 4), (4, 1)))
    tiler = (TILE_M, TILE_N)
    block = ((None, None), (by, bx))
    thr = tiled.get_slice(tid)
    tA = thr.partition_S(fx.zipped_divide(A, tiler)[block])
    tB = thr.partition_S(fx.zipped_divide(B, tiler)[block])
    tC = thr.partition_D(fx.zipped_divide(C, tiler)[block])

    # The bounds predicate: the thread's first coordinate inside (M, N).
    shape = A.shape
    coords = thr.partition_S(fx.zipped_divide(fx.make_identity_tensor(shape), tiler)[block])
    pred = fx.make_rmem_tensor(fx.make_layout((1, 1), (0, 0)), fx.Boolean)
    pred[0] = fx.elem_less(coords[0, 0, 0], shape)

    fA = fx.make_fragment_like(tA)
    fB = fx.make_fragment_like(tB)
    fC = fx.make_fragment_like(tC)
    fx.copy(tiled, tA, fA, pred=pred)
    fx.copy(tiled, tB, fB, pred=pred)
    fC.store(fA.load() + fB.load())
    fx.copy(tiled, fC, tC, pred=pred)


@flyc.jit
def vector_add(A, B, C):
    M, N = A.shape
    vector_add_kernel(A, B, C).launch(grid=((N + TILE_N - 1) // TILE_N, (M + TILE_M - 1) // TILE_M, 1),
                                      block=(256, 1, 1))


def main():
    m, n = 100, 200
    a = np.random.rand(m, n).astype(np.float32)
    b = np.random.rand(m, n).astype(np.float32)
    c = np.zeros_like(a)
    compiled = flyc.compile(vector_add, flyc.from_dlpack(a).mark_layout_dynamic(divisibility=4),
                            flyc.from_dlpack(b).mark_layout_dynamic(divisibility=4),
                            flyc.from_dlpack(c).mark_layout_dynamic(divisibility=4))
    if compiled.emulator:
        print(f"{compiled.name}: compiled for the CPU emulator ({flyc.Environment.current().arch})")
    for name, r in compiled.resources.items() if not compiled.emulator else ():
        print(f"{name}: {r}")
    if flyc.Environment.current().compile_only:
        print("compiled (COMPILE_ONLY): not run")
        return
    vector_add(a, b, c)
    ok = np.allclose(c, a + b)
    print("PASS" if ok else f"FAIL: max error {np.abs(c - (a + b)).max()}")


if __name__ == "__main__":
    main()
