"""Reference kernel 2 in Python: B = A through LDS with a swizzled layout.

The kernel of examples/tiled_copy_lds.mlir: a block of 256 threads moves a
16 x 64 f32 tile into LDS by rows (thread t: row t / 16, columns
4 * (t % 16) + 0..3), meets at a barrier, and copies it out by columns
(thread t: row t % 16, columns 4 * (t / 16) + 0..3), so each thread reads
what others wrote. The LDS tile is S<3,2,4> o (16,64):(64,1): every access
stays one 128-bit access. M must be a multiple of 16, N of 64.

    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/tiled_copy_lds.py
"""

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE_M, TILE_N = 16, 64


@flyc.kernel(known_block_size=(256, 1, 1))
def tiled_copy_kernel(A: fx.Tensor, B: fx.Tensor):
    tid = fx.thread_idx.x
    bx, by = fx.block_idx.x, fx.block_idx.y
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    val = fx.make_layout((1, 4), (4, 1))
    by_rows = fx.make_tiled_copy_tv(atom, fx.make_layout((16, 16), (16, 1)), val)
    by_cols = fx.make_tiled_copy_tv(atom, fx.make_layout((16, 16), (1, 16)), val)

    tiler = (TILE_M, TILE_N)
    block = ((None, None), (by, bx))
    gA = fx.zipped_divide(A, tiler)[block]
    gB = fx.zipped_divide(B, tiler)[block]

    smem = fx.SharedAllocator(static=False)  # the dynamic LDS, as tiled_copy_lds.mlir has it
    sT = smem.allocate_tensor(fx.Float32, fx.make_composed_layout(
        fx.make_swizzle(3, 2, 4), 0, fx.make_layout((TILE_M, TILE_N), (TILE_N, 1))))

    rows = by_rows.get_slice(tid)
    fx.copy(by_rows, rows.partition_S(gA), rows.partition_D(sT))
    fx.barrier()
    cols = by_cols.get_slice(tid)
    fx.copy(by_cols, cols.partition_S(sT), cols.partition_D(gB))


@flyc.jit
def tiled_copy(A, B):
    M, N = A.shape
    tiled_copy_kernel(A, B).launch(grid=(N // TILE_N, M // TILE_M, 1), block=(256, 1, 1),
                                   smem=TILE_M * TILE_N * 4)


def arguments(m=64, n=256):
    a = np.random.rand(m, n).astype(np.float32)
    b = np.zeros_like(a)

    def tensor(x):
        desc = flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4)
        return desc.mark_shape_dynamic([0], divisibility=TILE_M).mark_shape_dynamic([1], divisibility=TILE_N)

    return a, b, (tensor(a), tensor(b))


def main():
    a, b, args = arguments()
    compiled = flyc.compile(tiled_copy, *args)
    if compiled.emulator:
        print(f"{compiled.name}: compiled for the CPU emulator ({flyc.Environment.current().arch})")
    for name, r in compiled.resources.items() if not compiled.emulator else ():
        print(f"{name}: {r}")
    if flyc.Environment.current().compile_only:
        print("compiled (COMPILE_ONLY): not run")
        return
    tiled_copy(*args)
    print("PASS" if np.array_equal(a, b) else "FAIL")


if __name__ == "__main__":
    main()
