"""Reference of CuTe's partitioning, built from pycute primitives.

Each function follows CuTe's C++ definition step by step (cute/atom/
copy_atom.hpp, mma_atom.hpp, the CUTLASS docs "TiledCopy", "TiledMMA",
"0t_mma_atom", "0x_gemm_tutorial"), independently of FlyDSL's C++:

* make_layout_tv: raked_product, right_inverse, with_shape.
* TiledCopy: tidfrg_S/D (tile2thrfrg), partition_S/D, retile.
* TiledMMA: thr_layout_vmnk, thrfrg_A/B/C, get_flat_coord, partition_A/B/C,
  make_fragment_A/B/C (FlyDSL's: from the whole tile, one rule for A, B and C),
  get_layoutA/B/C_TV, tile_size_mnk.
* copy / gemm: the atom calls CuTe's copy(atom, src, dst) and
  gemm(mma, D, A, B, C) make.

pycute's hier_unzip puts a `_` mode of a zipped_divide into the rest half
while CuTe's zip2_by splits it; the functions below only zipped_divide by
layouts, where the two agree, and build the `_` case of thrfrg by hand as
CuTe's zip2_by does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import pycute
from pycute import Layout, composition, make_layout

import cute_ref as R

# ----------------------------------------------------------------------------
# Layout helpers
# ----------------------------------------------------------------------------


def size(layout: Layout) -> int:
    return R.size_of(layout.shape)


def compact(shape) -> Layout:
    """CuTe's make_layout(shape): column-major, stride 0 on size-1 modes."""
    return Layout(shape, R._compact_col_major(shape, 1))


def right_inverse(layout: Layout) -> Layout:
    return R.right_inverse_cute(layout)


def raked_product(a: Layout, b: Layout) -> Layout:
    verdict, res = R.raked_product_verdict(a, b)
    if R.failed(verdict):
        raise R.Rejected("raked_product")
    return res


def with_shape(layout: Layout, shape) -> Layout:
    return composition(layout, compact(shape))


def zipped_divide(layout: Layout, tiler) -> Layout:
    """zipped_divide by a tuple of layouts (no `_` modes)."""
    assert all(m is not None for m in tiler)
    return pycute.zipped_divide(layout, tuple(Layout(m) if isinstance(m, int) else m for m in tiler))


def coalesce(layout: Layout, profile=None) -> Layout:
    return pycute.coalesce(layout, profile)


def upcast(layout: Layout, n: int) -> Layout:
    return R.recast_layout(layout, 1, n)


def slice_and_offset(layout: Layout, crd):
    """layout(crd) for a coordinate with `None` (`_`) modes: the kept
    modes and the index of the fixed ones."""
    sub = Layout(R.slice_tuple(crd, layout.shape), R.slice_tuple(crd, layout.stride))
    offset = pycute.crd2idx(_zero_nones(crd), layout.shape, layout.stride)
    return sub, offset


def _zero_nones(crd):
    if isinstance(crd, tuple):
        return tuple(_zero_nones(c) for c in crd)
    return 0 if crd is None else crd


def stars(shape):
    return tuple(None for _ in shape) if isinstance(shape, tuple) else None


def fragment_like(layout: Layout) -> Layout:
    """CuTe's make_fragment_like(layout)."""
    shape = layout.shape
    if isinstance(shape, tuple) and len(shape) > 1:
        first = compact(shape[0])
        rest = R.make_ordered_layout(shape[1:], layout.stride[1:])
        return pycute.tiled_product(first, rest)
    return compact(shape)


# ----------------------------------------------------------------------------
# Atoms
# ----------------------------------------------------------------------------


@dataclass
class CopyAtom:
    """Copy_Traits (bit layouts) + the value width (Copy_Atom)."""

    thr_id: Layout
    src_bits: Layout
    dst_bits: Layout
    ref_bits: Layout
    value_bits: int

    @property
    def src(self):
        return R.recast_layout(self.src_bits, 1, self.value_bits)

    @property
    def dst(self):
        return R.recast_layout(self.dst_bits, 1, self.value_bits)

    @property
    def ref(self):
        return R.recast_layout(self.ref_bits, 1, self.value_bits)

    @property
    def num_thr(self):
        return R.size_of(self.ref.shape[0])

    @property
    def num_val(self):
        return R.size_of(self.ref.shape[1])

    def num_val_of(self, side):
        tv = self.src if side == "S" else self.dst
        return R.size_of(tv.shape[1])


def universal_copy(bits: int, value_bits: int) -> CopyAtom:
    tv = compact((1, bits))
    return CopyAtom(Layout(1, 0), tv, tv, tv, value_bits)


@dataclass
class MmaAtom:
    shape_mnk: tuple
    thr_id: Layout
    a: Layout
    b: Layout
    c: Layout

    def tv(self, op):
        return {"A": self.a, "B": self.b, "C": self.c}[op]


def universal_fma() -> MmaAtom:
    one = compact((1, 1))
    return MmaAtom((1, 1, 1), Layout(1, 0), one, one, one)


OPERAND_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}

# ----------------------------------------------------------------------------
# make_layout_tv, TiledCopy
# ----------------------------------------------------------------------------


def make_layout_tv(thr: Layout, val: Layout):
    layout_mn = raked_product(thr, val)
    layout_tv = with_shape(right_inverse(layout_mn), (size(thr), size(val)))
    tiler = tuple(R.size_of(s) for s in layout_mn.shape)
    return tiler, layout_tv


@dataclass
class TiledCopy:
    atom: CopyAtom
    layout_tv: Layout
    tiler: tuple  # by-mode layouts (or ints N for N:1)

    @property
    def num_thr(self):
        return R.size_of(self.layout_tv.shape[0])

    def tidfrg(self, side: str, tensor: Layout) -> Layout:
        atom = self.atom
        trg = atom.src if side == "S" else atom.dst
        ref2trg = composition(right_inverse(atom.ref), trg)
        atom_tv = zipped_divide(self.layout_tv, (atom.num_thr, atom.num_val))
        trg_tv = make_layout(composition(atom_tv[0], ref2trg), atom_tv[1])
        zipped = make_layout(make_layout(trg_tv[0][0], trg_tv[1][0]), make_layout(trg_tv[0][1], trg_tv[1][1]))
        thrval2mn = coalesce(zipped, (1, (1, 1)))
        divided = zipped_divide(tensor, self.tiler)
        tv = composition(divided[0], thrval2mn)
        return make_layout(tv[0], tv[1], divided[1])

    def partition(self, side: str, tensor: Layout, thr: int):
        frg = self.tidfrg(side, tensor)
        return slice_and_offset(frg, (thr, None, stars(frg.shape[2])))

    def retile(self, fragment: Layout) -> Layout:
        r = len(fragment)
        v = R.size_of(fragment.shape[0])
        tile_shape = tuple(m.shape if isinstance(m, Layout) else m for m in self.tiler)
        frg_mn = upcast(with_shape(right_inverse(self.layout_tv), tile_shape), self.num_thr * v)
        frg_v = pycute.logical_divide(
            pycute.logical_product(compact(v), right_inverse(frg_mn)), Layout(self.atom.num_val, 1)
        )
        tile = (v,) + tuple(R.size_of(s) for s in _modes_shape(frg_mn.shape))
        tiled = zipped_divide(fragment, tile)
        values = composition(tiled[0], frg_v)
        rest = tiled[1]
        assert len(rest) == r
        return make_layout([values] + [rest[i] for i in range(1, r)])


def _modes_shape(shape):
    return shape if isinstance(shape, tuple) else (shape,)


def make_tiled_copy(atom: CopyAtom, thr: Layout, val: Layout) -> TiledCopy:
    tiler, layout_tv = make_layout_tv(thr, val)
    return TiledCopy(atom, layout_tv, tiler)


def make_tiled_copy_for(atom: CopyAtom, mma: "TiledMMA", op: str) -> TiledCopy:
    x, y = OPERAND_MODES[op]
    return TiledCopy(atom, mma.layout_tv(op), (mma.tile_size(x), mma.tile_size(y)))


# ----------------------------------------------------------------------------
# TiledMMA
# ----------------------------------------------------------------------------


@dataclass
class TiledMMA:
    atom: MmaAtom
    atom_layout: Layout = field(default_factory=lambda: Layout((1, 1, 1), (0, 0, 0)))
    perm: tuple = (None, None, None)  # per mode: None or a Layout

    def __post_init__(self):
        ms = R.modes(self.atom_layout)
        ms += [Layout(1, 0)] * (3 - len(ms))
        self.atom_layout = R.make_layout(ms)
        self.perm = tuple(self.perm) + (None,) * (3 - len(self.perm))
        self.vmnk = pycute.tiled_product(self.atom.thr_id, self.atom_layout)

    @property
    def size(self):
        return size(self.vmnk)

    def tile_size(self, i: int) -> int:
        core = self.atom.shape_mnk[i] * R.size_of(self.vmnk.shape[i + 1])
        p = self.perm[i]
        return core if p is None else max(core, size(p))

    def thrfrg(self, op: str, tensor: Layout) -> Layout:
        x, y = OPERAND_MODES[op]
        permuted = pycute.logical_divide(tensor, (self.perm[x], self.perm[y]))
        tiles = zipped_divide(permuted, (self.atom.shape_mnk[x], self.atom.shape_mnk[y]))
        tv = composition(tiles[0], self.atom.tv(op))
        # zipped_divide(tv_tensor, (_, (ThrX, ThrY))): CuTe's zip2_by splits
        # the `_` mode (ThrV, FrgV) into its two halves.
        grid = zipped_divide(tiles[1], (R.size_of(self.vmnk.shape[x + 1]), R.size_of(self.vmnk.shape[y + 1])))
        return make_layout(make_layout(tv[0], grid[0]), make_layout(tv[1], grid[1]))

    def thread_coord(self, t: int):
        """get_flat_coord: the hierarchical coordinate (t // d) % s of
        every leaf, one column-major integer per top-level mode."""
        out = []
        for i in range(len(self.vmnk)):
            m = self.vmnk[i]
            crd, scale = 0, 1
            for s, d in zip(R.flat(m.shape), R.flat(m.stride)):
                if s != 1:
                    crd += ((t // d) % s) * scale
                scale *= s
            out.append(crd)
        return tuple(out)

    def partition(self, op: str, tensor: Layout, t: int):
        x, y = OPERAND_MODES[op]
        frg = self.thrfrg(op, tensor)
        v = self.thread_coord(t)
        crd = ((v[0], (v[x + 1], v[y + 1])), (None, stars(frg[1][1].shape)))
        return slice_and_offset(frg, crd)

    def make_fragment(self, op: str, tile: Layout) -> Layout:
        """FlyDSL's mma_make_fragment: the whole tile in, fragment_like of
        thread 0's partition of it out, the same rule for A, B and C (CuTe
        gives C a compact column-major fragment instead)."""
        return fragment_like(self.partition(op, tile, 0)[0])

    def layout_tv(self, op: str) -> Layout:
        x, y = OPERAND_MODES[op]
        ref = compact((self.tile_size(x), self.tile_size(y)))
        frg = self.thrfrg(op, ref)
        thr = frg[0]
        if op != "C":
            m, n = R.size_of(self.vmnk.shape[1]), R.size_of(self.vmnk.shape[2])
            spread = Layout((m, n), (1, 0) if op == "A" else (0, 1))
            thr = composition(thr, (None, (spread, None)))
        return make_layout(composition(thr, right_inverse(self.vmnk)), frg[1])


# ----------------------------------------------------------------------------
# copy / gemm as atom calls
# ----------------------------------------------------------------------------


def _slice(layout: Layout, offset: int, crd):
    sub, off = slice_and_offset(layout, crd)
    return sub, offset + off


def copy_calls(atom: CopyAtom, src: Layout, dst: Layout):
    """[(src slice, src offset, dst slice, dst offset)] of CuTe's copy."""
    out = []

    def copy(s, so, d, do):
        r = len(s)
        assert r == len(d)
        if r == 1:
            return call(s, so, d, do)
        sg, dg = R.make_layout([s[0], R.make_layout(s[i] for i in range(1, r))]), R.make_layout(
            [d[0], R.make_layout(d[i] for i in range(1, r))]
        )
        for i in range(size(dg[1])):
            call(*_slice(sg, so, (None, i)), *_slice(dg, do, (None, i)))

    def call(s, so, d, do):
        if size(s) == atom.num_val_of("S") or size(d) == atom.num_val_of("D"):
            out.append((s, so, d, do))
        elif isinstance(s.shape, tuple) and isinstance(d.shape, tuple):
            copy(s[0], so, d[0], do)
        else:
            raise R.Rejected("copy: partitioning does not match the atom")

    copy(src, 0, dst, 0)
    return out


def gemm_calls(d: Layout, a: Layout, b: Layout, c: Layout):
    """[((m, n, k), d, a, b, c) with each (slice, offset)] of CuTe's gemm."""
    out = []
    unit = Layout(1, 0)

    def pre(x):
        return R.make_layout([unit] + R.modes(x[0])), x[1]

    def gemm(D, A, B, C, k):
        rd, ra, rb = len(D[0]), len(A[0]), len(B[0])
        if rd == 1 and ra == 1 and rb == 1:
            out.append(((0, 0, k), D, A, B, C))
        elif rd == 2 and ra == rb and ra in (1, 2):
            gemm(pre(D), pre(A), pre(B), pre(C), k)
        elif rd == 3 and ra == 2 and rb == 2:
            M, N = size(A[0][1]), size(B[0][1])
            for m in range(M):
                for j in range(N):
                    n = N - 1 - j if m & 1 else j
                    out.append(
                        (
                            (m, n, k),
                            _slice(*D, (None, m, n)),
                            _slice(*A, (None, m)),
                            _slice(*B, (None, n)),
                            _slice(*C, (None, m, n)),
                        )
                    )
        elif rd == 3 and ra == 3 and rb == 3:
            for kk in range(size(A[0][2])):
                gemm(D, _slice(*A, (None, None, kk)), _slice(*B, (None, None, kk)), C, kk)
        else:
            raise R.Rejected("gemm: ranks")

    gemm((d, 0), (a, 0), (b, 0), (c, 0), 0)
    return out
