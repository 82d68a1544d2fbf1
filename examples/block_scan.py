"""Example 6: block-wide scans with fx.coop.BlockScan: stream compaction.

Each block owns BLOCK * ITEMS consecutive Int32 values of A (thread t the
ITEMS values t * ITEMS ..) and writes the positive ones, in order and
without holes, to the front of its segment of Out, plus how many it kept
(Count) and the running sum of its segment (Prefix).

What it shows
  * ``fx.coop.BlockScan[fx.Int32, fx.known_block_size()]`` - a scan type
    specialized on what it folds (here the keep flags, not the values) and
    on the block size; its ``SharedStorage`` comes from
    ``fx.SharedAllocator().allocate(...).peek()``;
  * a thread's ``Vector`` (``fx.Int32x4``, loaded in one go through a
    pointer) is scanned as ITEMS consecutive elements of the block's
    sequence: one call gives each item its own slot;
  * ``exclusive_with_aggregate``: the exclusive scan of the flags is where
    each kept value goes, the aggregate is the block's count, on every
    thread; ``inclusive`` (a second scan reusing the storage after a
    barrier) is a prefix sum.

    ARCH=gfx942 python3 examples/block_scan.py
    ARCH=gfx1100 python3 examples/block_scan.py
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 256
ITEMS = 4
SEGMENT = BLOCK * ITEMS


@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def compact_kernel(A: fx.Tensor, Out: fx.Tensor, Count: fx.Tensor, Prefix: fx.Tensor):
    scan = fx.coop.BlockScan[fx.Int32, fx.known_block_size()]
    storage = fx.SharedAllocator().allocate(scan.SharedStorage).peek()

    first = fx.block_idx.x * SEGMENT                 # the block's segment
    mine = first + fx.thread_idx.x * ITEMS           # this thread's 4 items
    items = (fx.get_iter(A) + mine).load(fx.Int32x4)
    flags = (items > 0).select(1, 0)

    # slots[i]: kept items before item i in the block = where it goes.
    slots, kept = scan.exclusive_with_aggregate(flags, fx.ReductionOp.ADD, storage=storage)
    for i in fx.range_constexpr(ITEMS):
        if items[i] > 0:
            Out[first + slots[i]] = items[i]
    if fx.thread_idx.x == 0:
        Count[fx.block_idx.x] = kept

    fx.barrier()                                      # the storage is reused
    running = scan.inclusive(items, fx.ReductionOp.ADD, storage=storage)
    (fx.get_iter(Prefix) + mine).store(running)


@flyc.jit
def compact(A: fx.Tensor, Out: fx.Tensor, Count: fx.Tensor, Prefix: fx.Tensor,
            stream: fx.Stream = fx.Stream(None)):
    blocks = Count.shape.unpack()
    compact_kernel(A, Out, Count, Prefix).launch(grid=(blocks, 1, 1), block=(BLOCK, 1, 1), stream=stream)


def check(blocks, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-9, 10, blocks * SEGMENT).astype(np.int32)
    a[:SEGMENT // 2] = -1                              # block 0: nothing in its first half
    out = np.zeros_like(a)
    count = np.full(blocks, -1, np.int32)
    prefix = np.zeros_like(a)
    compact(a, out, count, prefix)
    ok = True
    for b, seg in enumerate(a.reshape(blocks, SEGMENT)):
        keep = seg[seg > 0]
        got = out[b * SEGMENT:(b + 1) * SEGMENT]
        ok &= count[b] == keep.size and np.array_equal(got[:keep.size], keep)
        ok &= not got[keep.size:].any()                # the rest untouched (zeros)
        ok &= np.array_equal(prefix[b * SEGMENT:(b + 1) * SEGMENT], np.cumsum(seg, dtype=np.int32))
    return bool(ok), int(count.sum())


def main():
    ok = True
    for blocks in (1, 3):
        good, kept = check(blocks, seed=blocks)
        print(f"{blocks} block(s) x {SEGMENT} items: {kept} kept, {'ok' if good else 'WRONG'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
