"""Random inputs of the partitioning tests: thread and value layouts, copy
and MMA atoms, atom layouts, permutations, and tensors a tiler divides.

Sizes are mostly powers of two, sometimes 3 or 6 (CuTe allows any size;
the divisibility conditions of the algebra then bite more often).
"""

from __future__ import annotations

import random

from pycute import Layout

import cute_partition_ref as P
import cute_ref as R
from layout_gen import Gen, unflatten


def factorize(n: int, rng: random.Random) -> list:
    """n as a random list of factors > 1 (n itself when it is prime-ish)."""
    out = []
    while n > 1:
        divs = [d for d in (2, 3, 4, 8) if n % d == 0]
        if not divs:
            out.append(n)
            break
        d = rng.choice(divs)
        out.append(d)
        n //= d
    return out


def shape_of_size(n: int, rank: int, rng: random.Random, nest_prob=0.2):
    """A shape of `rank` modes whose sizes multiply to n; a mode may nest."""
    modes = [1] * rank
    for f in factorize(n, rng):
        modes[rng.randrange(rank)] *= f
    out = []
    for m in modes:
        fs = factorize(m, rng)
        if len(fs) > 1 and rng.random() < nest_prob:
            out.append(tuple(fs))
        else:
            out.append(m)
    return tuple(out) if rank > 1 else out[0]


def ordered(shape, rng: random.Random, style=None) -> Layout:
    """A compact bijection onto [0, size) with a random mode order:
    column-major, row-major or shuffled."""
    n = len(R.flat(shape))
    style = style or rng.choice(["col", "row", "shuffle"])
    order = list(range(n))
    if style == "row":
        order.reverse()
    elif style == "shuffle":
        rng.shuffle(order)
    return R.make_ordered_layout(shape, unflatten(order, shape))


def thr_layout(rng: random.Random, max_threads=256) -> Layout:
    n = rng.choice([t for t in (4, 8, 16, 32, 64, 128, 256, 6, 12, 96) if t <= max_threads])
    return ordered(shape_of_size(n, rng.choice([1, 2, 2, 2, 3]), rng), rng)


def val_layout(rng: random.Random, rank: int) -> Layout:
    n = rng.choice([1, 1, 2, 4, 4, 8, 16, 3])
    return ordered(shape_of_size(n, rank, rng, nest_prob=0.1), rng)


def copy_atom(rng: random.Random, num_val: int, num_thr: int):
    """A UniversalCopy whose value count divides num_val, or (sometimes) a
    multi-thread atom with different source and destination orders.
    Returns (reference atom, query keys)."""
    vbits = rng.choice([8, 16, 32, 64])
    k = rng.choice([d for d in (1, 2, 4, 8) if num_val % d == 0])
    if rng.random() < 0.7 or num_thr & (num_thr - 1):  # multi-thread atoms: 2^k threads
        return P.universal_copy(vbits * k, vbits), f"copy_bits={vbits * k} value_bits={vbits}"
    t = rng.choice([d for d in (2, 4) if num_thr % d == 0])
    src = _bits(t, k, vbits, rng.random() < 0.5)
    dst = _bits(t, k, vbits, rng.random() < 0.5)
    thr = Layout(t, 1)
    atom = P.CopyAtom(thr, src, dst, src, vbits)
    keys = (
        f"copy_thr={P_text(thr)} copy_src={P_text(src)} copy_dst={P_text(dst)} "
        f"copy_ref={P_text(src)} value_bits={vbits}"
    )
    return atom, keys


def _bits(t: int, k: int, vbits: int, thr_major: bool) -> Layout:
    """(thread, bit) -> bit offset of t threads moving k values each, the
    values of a thread adjacent (thr_major) or interleaved with the other
    threads'."""
    ts, vs = (k, 1) if thr_major else (1, t)
    return Layout((t, (vbits, k)), (ts * vbits, (1, vs * vbits)))


def P_text(layout: Layout) -> str:
    import algebra_query as Q

    return Q.layout_text(layout)


def tensor_for(rng: random.Random, tile_sizes, extra_modes=(0, 0, 1)) -> Layout:
    """A tensor each of whose first modes is a multiple of the tile size,
    possibly nested (split by a factor of the tile), with random strides."""
    modes = []
    for t in tile_sizes:
        n = t * rng.choice([1, 1, 2, 3, 4])
        fs = [f for f in (2, 4, 8) if t % f == 0 and f < n]
        if fs and rng.random() < 0.2:
            f = rng.choice(fs)
            modes.append((f, n // f))
        else:
            modes.append(n)
    for _ in range(rng.choice(extra_modes)):
        modes.append(rng.choice([2, 3]))
    shape = tuple(modes)
    style = rng.choice(["compact", "perm", "perm", "gap", "zeros"])
    return Layout(shape, Gen(rng).stride(shape, style))


def mma_atom(rng: random.Random):
    """UniversalFMA, or a random atom: T threads, an (M,N,K) tile, and
    random bijective (thr, val) layouts of the A, B, C tiles.
    Returns (reference atom, query keys)."""
    if rng.random() < 0.4:
        return P.universal_fma(), "mma=fma"
    while True:
        m, n, k = (rng.choice([1, 2, 4, 8, 16]) for _ in range(3))
        t = rng.choice([1, 2, 4, 8, 16, 32, 64])
        if all(x % t == 0 for x in (m * k, n * k, m * n)):
            break
    layouts = []
    for size in (m * k, n * k, m * n):
        v = size // t
        thr_shape = shape_of_size(t, 1, rng, nest_prob=0.3)
        val_shape = shape_of_size(v, 1, rng, nest_prob=0.3)
        # (thr, val) -> tile index through a random bijection of the tile.
        lay = R.make_ordered_layout(
            (thr_shape, val_shape),
            unflatten(_shuffled(len(R.flat((thr_shape, val_shape))), rng), (thr_shape, val_shape)),
        )
        layouts.append(lay)
    atom = P.MmaAtom((m, n, k), Layout(t, 1), *layouts)
    keys = (
        f"mma_shape=({m},{n},{k}) mma_thr={P_text(atom.thr_id)} mma_a={P_text(layouts[0])} "
        f"mma_b={P_text(layouts[1])} mma_c={P_text(layouts[2])}"
    )
    return atom, keys


def _shuffled(n, rng):
    order = list(range(n))
    rng.shuffle(order)
    return order


def atom_layout(rng: random.Random, max_atoms: int) -> Layout:
    while True:
        shape = tuple(rng.choice([1, 1, 2, 4, 8, 16]) for _ in range(3))
        shape = shape[:2] + (rng.choice([1, 1, 1, 2]),)
        if R.size_of(shape) <= max_atoms:
            break
    order = rng.choice([(0, 1, 2), (1, 0, 2), (2, 1, 0), (0, 2, 1)])
    return R.make_ordered_layout(shape, order)


def permutation(rng: random.Random, core_sizes):
    """Per mode: None, or a bijection of [0, s) with s a multiple of the
    core tile size."""
    out = []
    for c in core_sizes:
        if rng.random() < 0.5:
            out.append(None)
        else:
            s = c * rng.choice([1, 1, 2])
            out.append(ordered(shape_of_size(s, 1, rng), rng, "shuffle") if s > 1 else Layout(1, 0))
    return tuple(out)
