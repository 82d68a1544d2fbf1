"""Example 5: warp-scope collectives (fx.coop), no shared memory at all.

Each group of 32 consecutive lanes filters its slice of A: the lanes
holding a positive value keep it, and the group packs the kept values to
the front of its 32 output slots, in order; the rest of the slots get 0.
Along the way every lane learns its group's sum and a running maximum.

What it shows
  * ``fx.coop.warp_exclusive_scan(keep, ADD, width=32)`` - how many lanes
    before me keep theirs = my output slot;
  * ``fx.coop.warp_reduce(keep, ADD, width=32)`` - how many the group keeps,
    delivered to every lane (all-to-all: no broadcast step needed);
  * ``fx.coop.warp_reduce(a, ADD)`` on Float32 and
    ``fx.coop.warp_inclusive_scan(a, MAX)`` - the same calls on floats;
  * why ``width=32`` is spelled out: left out, a collective spans the
    hardware wave, 64 lanes on CDNA (gfx942) and 32 on RDNA (gfx1100).
    Naming the width makes the same source compute the same thing on both
    (on a wave64 chip, two independent groups per wave).

A block of 128 threads is four groups; several blocks run.

    ARCH=gfx942 python3 examples/warp_collectives.py
    ARCH=gfx1100 python3 examples/warp_collectives.py
"""

import sys

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx

WIDTH = 32
BLOCK = 128


@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def filter_groups_kernel(A: fx.Tensor, Packed: fx.Tensor, Kept: fx.Tensor, Sum: fx.Tensor,
                         RunMax: fx.Tensor):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    a = A[i]
    keep = (a > 0.0).select(1, 0)                        # Int32 flag

    slot = fx.coop.warp_exclusive_scan(keep, fx.ReductionOp.ADD, width=WIDTH)
    kept = fx.coop.warp_reduce(keep, fx.ReductionOp.ADD, width=WIDTH)
    Kept[i] = kept
    Sum[i] = fx.coop.warp_reduce(a, fx.ReductionOp.ADD, width=WIDTH)
    RunMax[i] = fx.coop.warp_inclusive_scan(a, fx.ReductionOp.MAX, width=WIDTH)

    group = i - i % WIDTH                                # first slot of my group
    if keep == 1:
        Packed[group + slot] = a
    # The lanes from `kept` on clear the tail of the group's slots.
    lane = i % WIDTH
    if lane >= kept:
        Packed[group + lane] = 0.0


@flyc.jit
def filter_groups(A: fx.Tensor, Packed: fx.Tensor, Kept: fx.Tensor, Sum: fx.Tensor, RunMax: fx.Tensor,
                  stream: fx.Stream = fx.Stream(None)):
    n = A.shape.unpack()                                 # a 1-D shape unpacks to its one size
    filter_groups_kernel(A, Packed, Kept, Sum, RunMax).launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1),
                                                              stream=stream)


def reference(a):
    groups = a.reshape(-1, WIDTH)
    packed = np.zeros_like(groups)
    for g, row in enumerate(groups):
        keep = row[row > 0]
        packed[g, :keep.size] = keep
    kept = np.repeat((groups > 0).sum(1, dtype=np.int32), WIDTH)
    total = np.repeat(groups.sum(1, dtype=np.float64), WIDTH)
    run_max = np.maximum.accumulate(groups, axis=1).ravel()
    return packed.ravel(), kept, total, run_max


def check(blocks, seed=0):
    rng = np.random.default_rng(seed)
    n = blocks * BLOCK
    a = rng.standard_normal(n, dtype=np.float32)
    a[:WIDTH] = -1.0                                 # a group that keeps nothing
    a[WIDTH:2 * WIDTH] = np.abs(a[WIDTH:2 * WIDTH]) + 0.5    # and one that keeps all
    packed = np.full(n, np.nan, np.float32)
    kept, total, run_max = np.zeros(n, np.int32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    filter_groups(a, packed, kept, total, run_max)
    want = reference(a)
    return (np.array_equal(packed, want[0]) and np.array_equal(kept, want[1])
            and np.allclose(total, want[2], rtol=1e-5, atol=1e-4) and np.array_equal(run_max, want[3]))


def main():
    ok = True
    for blocks in (1, 3):
        good = check(blocks, seed=blocks)
        print(f"{blocks} block(s) of {BLOCK // WIDTH} groups of {WIDTH}: {'ok' if good else 'WRONG'}")
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
