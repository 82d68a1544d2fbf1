"""Random int tuples, layouts, tiles and swizzles for the differential tests.

Two number universes: powers of two (where CuTe's divisibility conditions
almost always hold, so most cases exercise the "must succeed" path) and
small general integers (where they often fail, feeding the "must reject"
set). Shapes nest up to depth 3; strides are compact, permuted, gapped,
random, or contain zeros. Basis strides (CuTe's ScaledBasis, fly's `2E1`)
come as identity layouts, coordinate-tensor-like layouts (one direction per
mode) and scaled bases scattered over a few directions.
"""

from __future__ import annotations

import random

import pycute
from pycute import Layout

import cute_ref as R
from fly_types import Basis, Tile


def _size(layout):
    return R.size_of(layout.shape)

POW2 = [1, 2, 2, 4, 4, 8]
GENERAL = [1, 2, 3, 4, 5, 6, 7, 8]
# Directions for scattered basis strides. Each set is prefix-free: CuTe
# cannot add E1 to E1E0 (an integer to a tuple), so no coordinate mixes them.
BASIS_DIRECTIONS = [((0,), (1,)), ((0,), (1,), (2,)), ((0,), (1, 0), (1, 1)), ((1,), (0, 0), (0, 1), (2,))]


class Gen:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.pow2 = True

    def universe(self, pow2_prob=0.6):
        self.pow2 = self.rng.random() < pow2_prob
        return self

    # -- int tuples -------------------------------------------------------
    def leaf(self, lo=1):
        vals = [v for v in (POW2 if self.pow2 else GENERAL) if v >= lo]
        return self.rng.choice(vals)

    def _structure(self, depth_left):
        if depth_left == 0 or self.rng.random() < 0.6:
            return 0
        return tuple(self._structure(depth_left - 1) for _ in range(self.rng.randint(2, 3)))

    def shape(self, max_size=256, max_depth=3, max_rank=4, lo=1):
        """Top level: a leaf (rank 1) or a tuple of rank 2..max_rank; leaves
        drawn in random order within the remaining size budget."""
        r = self.rng.randint(1, max_rank)
        if r == 1:
            tree = self._structure(max_depth) if max_depth > 0 and self.rng.random() >= 0.7 else 0
        else:
            tree = tuple(self._structure(max_depth - 1) for _ in range(r))
        n = len(R.flat(tree))
        order = list(range(n))
        self.rng.shuffle(order)
        vals = [lo] * n
        budget = max_size
        pool = POW2 if self.pow2 else GENERAL
        for i in order:
            choices = [v for v in pool if lo <= v <= budget] or [lo]
            vals[i] = self.rng.choice(choices)
            budget //= max(vals[i], 1)
        return unflatten(vals, tree)

    # -- strides ----------------------------------------------------------
    def stride(self, shape, style=None):
        leaves = R.flat(shape)
        n = len(leaves)
        style = style or self.rng.choice(["compact", "perm", "gap", "gap", "random", "zeros"])
        if style == "compact":
            flat = list(R.flat(pycute.prefix_product(shape)))
        elif style in ("perm", "gap", "zeros"):
            order = list(range(n))
            self.rng.shuffle(order)
            flat = [0] * n
            cur = 1
            for i in order:
                if style == "gap" and self.rng.random() < 0.4:
                    cur *= self.rng.choice([2, 4] if self.pow2 else [2, 3, 5])
                flat[i] = cur
                cur *= leaves[i]
            if style == "zeros":
                for i in range(n):
                    if self.rng.random() < 0.35:
                        flat[i] = 0
        else:
            pool = [0, 1, 2, 4, 8, 16, 32] if self.pow2 else [0, 1, 2, 3, 4, 5, 6, 8, 9, 12]
            flat = [self.rng.choice(pool) for _ in range(n)]
        return unflatten(flat, shape)

    def layout(self, max_size=256, max_depth=3, max_rank=4, style=None, lo=1) -> Layout:
        s = self.shape(max_size, max_depth, max_rank, lo)
        return Layout(s, self.stride(s, style))

    # -- basis strides ----------------------------------------------------
    def basis_stride(self, shape, style=None):
        """Strides of fly_types.Basis leaves (and integer 0 for broadcast
        modes: CuTe adds a basis element to a static zero only, so no other
        integer stride sits beside basis strides).
        identity: make_identity_layout's E0, (E1E0, E1E1), ...;
        modes:    coordinate-tensor-like, mode i along Ei with the values of
                  an integer stride of that mode (a tile or thread partition
                  of an identity tensor);
        scatter:  an integer stride of the whole shape, each leaf along a
                  direction drawn from a small set: values of different
                  directions line up (shape0*value0 == value1), where only
                  the directions keep coalesce from merging."""
        style = style or self.rng.choice(["identity", "modes", "modes", "scatter", "scatter", "scatter"])
        if style == "identity":
            return R.basis_like(shape)
        if style == "modes":
            if not isinstance(shape, tuple):
                return _along(self.stride(shape, self.rng.choice(["compact", "gap", "zeros"])), (0,))
            return tuple(_along(self.stride(m, self.rng.choice(["compact", "compact", "perm", "gap", "zeros"])), (i,))
                         for i, m in enumerate(shape))
        directions = self.rng.choice(BASIS_DIRECTIONS)
        flat = [Basis(d, self.rng.choice(directions)) if d else 0 for d in R.flat(self.stride(shape))]
        return unflatten(flat, shape)

    def basis_layout(self, max_size=256, max_depth=3, max_rank=4, style=None) -> Layout:
        s = self.shape(max_size, max_depth, max_rank)
        return Layout(s, self.basis_stride(s, style))

    # -- tiles ------------------------------------------------------------
    def tile_mode(self, mode: Layout, depth_left=2):
        """A tiler for one mode of a layout: `*`, N, a layout, or nested."""
        kinds = ["keep", "int", "int", "layout"]
        if isinstance(mode.shape, tuple) and depth_left > 0:
            kinds.append("nested")
        kind = self.rng.choice(kinds)
        if kind == "keep":
            return None
        if kind == "int":
            return self.divisor_like(_size(mode))
        if kind == "layout":
            return self.layout(max_size=max(2, _size(mode)), max_depth=1, max_rank=2)
        return self.tile(mode, depth_left - 1, full=True)

    def divisor_like(self, n):
        if self.rng.random() < 0.8:
            divs = [d for d in range(1, n + 1) if n % d == 0]
            return self.rng.choice(divs)
        return self.rng.randint(1, max(1, n + 2))

    def tile(self, layout: Layout, depth_left=2, full=False):
        """A tuple of tile modes (pycute's by-mode form) for `layout`."""
        r = len(layout)
        k = r if full else self.rng.randint(1, r)
        return tuple(self.tile_mode(layout[i], depth_left) for i in range(k))

    # -- swizzles ---------------------------------------------------------
    def swizzle(self):
        b = self.rng.randint(0, 3)
        m = self.rng.randint(0, 4)
        s = self.rng.choice([1, -1]) * self.rng.randint(max(b, 1), b + 3)
        return pycute.Swizzle(b, m, s)


def _along(stride, path):
    """Integer strides as basis strides along one direction (0 stays 0)."""
    return unflatten([Basis(d, path) if d else 0 for d in R.flat(stride)], stride)


def unflatten(flat, like):
    it = iter(flat)

    def build(t):
        if isinstance(t, tuple):
            return tuple(build(e) for e in t)
        return next(it)

    return build(like)


def to_tile(t) -> Tile:
    """pycute's by-mode tuple form -> fly_types.Tile."""
    return Tile(tuple(to_tile(m) if isinstance(m, tuple) else m for m in t))


def weak_coord(rng, shape, star_prob=0.0, coarse_prob=0.3):
    """A coordinate weakly congruent to `shape`: a whole nested mode may be
    given as one integer (or one `*`). Leaves are `*` with star_prob."""
    if isinstance(shape, tuple) and rng.random() >= coarse_prob:
        return tuple(weak_coord(rng, s, star_prob, coarse_prob) for s in shape)
    if rng.random() < star_prob:
        return None
    return rng.randrange(R.size_of(shape))
