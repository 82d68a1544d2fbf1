"""B = A with buffer tensors: ragged shapes, and no predicates.

What it shows
  * ``fx.rocdl.make_buffer_tensor(t, max_size=False)``: the tensor with its
    pointer in buffer memory, the resource sized to the tensor's extent
    (M * N floats). The hardware checks every buffer access against that
    size, dword by dword: a load past it reads 0, a store past it is
    dropped, and a 128-bit access across it keeps its part before the end;
  * a TiledCopy of ``fx.rocdl.BufferCopy128b`` atoms (8 x 16 threads, 4
    floats each: an 8 x 64 tile), the grid rounded up to cover M x N, and
    no predicate anywhere: the last row of tiles hangs past the end of the
    tensor and the resource's range check keeps it there;
  * why the columns need no predicate either, for A and B of the same
    layout: a tile that hangs past column N of row r reaches, in memory,
    the first columns of row r + 1 (same offset in A and in B), so it copies
    correct values to their correct places; past the last row it is cut
    off by the range check like the rows below M;
  * the same kernel with a plain (unchecked) destination padded to whole
    tiles: the rows past the end of A arrive as zeros.

Each run fills B's storage past its M x N floats with a sentinel and checks
it is still there afterwards, and that B equals A element for element.

    ARCH=gfx942 python3 examples/buffer_tiled_copy.py
    ARCH=gfx1100 python3 examples/buffer_tiled_copy.py
    COMPILE_ONLY=1 ARCH=gfx942 python3 examples/buffer_tiled_copy.py   # resources and ISA lines
"""

import sys

import torch

import flydsl.compiler as flyc
import flydsl.expr as fx

THREADS = 128
SENTINEL = -7.0


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def buffer_copy_kernel(A: fx.Tensor, B: fx.Tensor, tiled_copy: fx.TiledCopy,
                       checked_dst: fx.Constexpr[bool]):
    bid_m, bid_n, _ = fx.block_idx
    A = fx.rocdl.make_buffer_tensor(A, max_size=False)
    if checked_dst:
        B = fx.rocdl.make_buffer_tensor(B, max_size=False)

    tile = tiled_copy.tile_mn
    gA = fx.flat_divide(A, tile)[None, None, bid_m, bid_n]
    gB = fx.flat_divide(B, tile)[None, None, bid_m, bid_n]
    thr = tiled_copy.get_slice(fx.thread_idx.x)
    src, dst = thr.partition_S(gA), thr.partition_D(gB)
    frag = fx.make_fragment_like(src)

    load = fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32)
    store = load if checked_dst else fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    fx.copy(load, src, frag)
    fx.copy(store, frag, dst)


@flyc.jit
def buffer_copy(A: fx.Tensor, B: fx.Tensor, checked_dst: fx.Constexpr[bool] = True,
                stream: fx.Stream = fx.Stream(None)):
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32)
    tiled_copy = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((8, 16), order=(1, 0)),
                                       fx.make_ordered_layout((1, 4), order=(0, 1)))
    tile_m, tile_n = tiled_copy.tile_mn.unpack()
    M, N = B.shape.unpack()   # the destination's tiles: B may be padded
    buffer_copy_kernel(A, B, tiled_copy, checked_dst).launch(
        grid=((M + tile_m - 1) // tile_m, (N + tile_n - 1) // tile_n, 1),
        block=(THREADS, 1, 1), stream=stream)


def ragged_copy(m, n):
    """B = A for an m x n A; B's storage runs on past m * n with sentinels."""
    gen = torch.Generator().manual_seed(m * 1000 + n)
    a = torch.randn(m, n, generator=gen)
    storage = torch.full((m * n + 512,), SENTINEL)
    b = storage[:m * n].view(m, n)
    buffer_copy(a, b)
    problems = [] if torch.equal(a, b) else ["elements differ"]
    if not (storage[m * n:] == SENTINEL).all():
        problems.append("written past the end")
    print(f"{m} x {n}: {'WRONG (' + ', '.join(problems) + ')' if problems else 'ok'}")
    return not problems


def padded_copy(m, n_tiles):
    """A (m rows, followed in memory by junk) into a destination padded to
    whole 8-row tiles: the rows past m read 0 through the range check."""
    n = 64 * n_tiles
    padded_m = (m + 7) // 8 * 8
    gen = torch.Generator().manual_seed(m)
    storage = torch.randn(padded_m + 8, n, generator=gen)  # rows past m hold numbers
    a = storage[:m]
    p = torch.full((padded_m, n), SENTINEL)
    buffer_copy(a, p, False)
    good = torch.equal(p[:m], a) and bool((p[m:] == 0).all())
    print(f"{m} x {n} into {padded_m} x {n}: {'ok' if good else 'WRONG'} (rows {m}..{padded_m - 1} read 0)")
    return good


def main():
    if flyc.Environment.current().compile_only:
        a, b = torch.zeros(37, 150), torch.zeros(37, 150)
        compiled = flyc.compile(buffer_copy, a, b)
        for name, r in compiled.resources.items():
            print(f"{name}: {r}")
        print(*(line.strip() for line in compiled.isa().splitlines() if "buffer_" in line), sep="\n")
        print("compiled (COMPILE_ONLY): not run")
        return 0
    ok = True
    for m, n in [(37, 150), (8, 64), (5, 3), (100, 301)]:
        ok &= ragged_copy(m, n)
    ok &= padded_copy(37, 2)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
