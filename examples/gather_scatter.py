"""Example 4: row gather and row scatter through per-copy offset tensors.

    gather:   Out[r, :]      = Table[Rows[r], :]
    scatter:  Out[Rows[r], :] = Src[r, :]          (Rows without repeats)

What it shows
  * the indirection is plain layout algebra: the 1-D index vector Rows is
    viewed as an R x N tensor whose column stride is 0
    (``fx.make_view(fx.get_iter(Rows), fx.make_layout((R, N), (1, 0)))``),
    and the column numbers as a coordinate view with row stride 0; both go
    through the same ``flat_divide`` and ``partition_S`` as the data, keeping
    value 0 of each copy atom (``[(0, None), None, None]``);
  * each thread loads its row numbers with a 32-bit ``Int32`` copy, turns
    them into element offsets (row * N + column, one Vector expression) and
    hands them to ``fx.gather(atom, base, offsets, fragment)`` /
    ``fx.scatter(atom, fragment, base, offsets)``: every atom instance then
    moves 4 contiguous floats (a 128-bit copy) at its own offset;
  * the side that is not indirect is an ordinary partitioned tiled copy.

A block of 64 threads handles an 8 x 32 tile (8 rows x 8 float4 each). R
must be a multiple of 8 and N of 32; the table may have any number of rows.

    ARCH=gfx942 python3 examples/gather_scatter.py
    ARCH=gfx1100 python3 examples/gather_scatter.py
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

TILE_R, TILE_N = 8, 32
THREADS = TILE_R * (TILE_N // 4)


def _row_copy(tid):
    """This thread's slice of the tile's copy: 8 rows x 8 threads, one
    float4 each, and the 128-bit atom."""
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    tiled = fx.make_tiled_copy_tv(atom,
                                  fx.make_ordered_layout((TILE_R, TILE_N // 4), order=(1, 0)),
                                  fx.make_ordered_layout((1, 4), order=(0, 1)))
    return atom, tiled.get_slice(tid)


def _offsets(thr, Rows, R, N, bid_r, bid_n):
    """Register fragment of the element offsets Rows[r] * N + n, one per
    copy atom of the thread."""
    rows = fx.make_view(fx.get_iter(Rows), fx.make_layout((R, N), (1, 0)))   # rows[r, n] = Rows[r]
    cols = fx.make_view(fx.make_int_tuple(0), fx.make_layout((R, N), (0, 1)))  # cols[r, n] = n
    tRows = thr.partition_S(fx.flat_divide(rows, (TILE_R, TILE_N))[None, None, bid_r, bid_n])
    tCols = thr.partition_S(fx.flat_divide(cols, (TILE_R, TILE_N))[None, None, bid_r, bid_n])
    tRows = tRows[(0, None), None, None]
    tCols = tCols[(0, None), None, None]
    offsets = fx.make_fragment_like(tRows)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32), tRows, offsets)
    offsets.store(offsets.load() * N + tCols.load())
    return offsets


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def gather_rows_kernel(Table: fx.Tensor, Out: fx.Tensor, Rows: fx.Tensor):
    tid = fx.thread_idx.x
    bid_r, bid_n, _ = fx.block_idx
    atom, thr = _row_copy(tid)
    R, N = Out.shape.unpack()

    offsets = _offsets(thr, Rows, R, N, bid_r, bid_n)
    tOut = thr.partition_D(fx.flat_divide(Out, (TILE_R, TILE_N))[None, None, bid_r, bid_n])
    frag = fx.make_fragment_like(tOut)
    fx.gather(atom, fx.get_iter(Table), offsets, frag)    # Table rows -> registers
    fx.copy(atom, frag, tOut)                             # registers -> Out tile


@flyc.kernel(known_block_size=(THREADS, 1, 1))
def scatter_rows_kernel(Src: fx.Tensor, Out: fx.Tensor, Rows: fx.Tensor):
    tid = fx.thread_idx.x
    bid_r, bid_n, _ = fx.block_idx
    atom, thr = _row_copy(tid)
    R, N = Src.shape.unpack()

    tSrc = thr.partition_S(fx.flat_divide(Src, (TILE_R, TILE_N))[None, None, bid_r, bid_n])
    frag = fx.make_fragment_like(tSrc)
    fx.copy(atom, tSrc, frag)                             # Src tile -> registers
    offsets = _offsets(thr, Rows, R, N, bid_r, bid_n)
    fx.scatter(atom, frag, fx.get_iter(Out), offsets)     # registers -> Out rows


@flyc.jit
def gather_rows(Table: fx.Tensor, Out: fx.Tensor, Rows: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    R, N = Out.shape.unpack()
    gather_rows_kernel(Table, Out, Rows).launch(grid=(R // TILE_R, N // TILE_N, 1),
                                                block=(THREADS, 1, 1), stream=stream)


@flyc.jit
def scatter_rows(Src: fx.Tensor, Out: fx.Tensor, Rows: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    R, N = Src.shape.unpack()
    scatter_rows_kernel(Src, Out, Rows).launch(grid=(R // TILE_R, N // TILE_N, 1),
                                               block=(THREADS, 1, 1), stream=stream)


def check(m, r, n, seed=0):
    """Gather then scatter with r of the m table rows, in random order."""
    rng = np.random.default_rng(seed)
    rows = rng.permutation(m)[:r].astype(np.int32)

    table = rng.standard_normal((m, n), dtype=np.float32)
    out = np.full((r, n), np.nan, np.float32)
    gather_rows(table, out, rows)
    gathered = np.array_equal(out, table[rows])

    src = rng.standard_normal((r, n), dtype=np.float32)
    out2 = np.full((m, n), -1.0, np.float32)
    scatter_rows(src, out2, rows)
    want = np.full((m, n), -1.0, np.float32)
    want[rows] = src                       # rows not in `rows` stay untouched
    scattered = np.array_equal(out2, want)
    return gathered, scattered


def main():
    ok = True
    for m, r, n in [(40, 16, 64), (13, 8, 32), (200, 64, 96)]:
        g, s = check(m, r, n, seed=m)
        print(f"table {m} x {n}, {r} rows: gather {'ok' if g else 'WRONG'}, scatter {'ok' if s else 'WRONG'}")
        ok &= g and s
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
