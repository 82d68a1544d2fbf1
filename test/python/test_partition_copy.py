"""make_layout_tv and TiledCopy (partition_S/D, retile, copy) of the C++
algebra against CuTe's definitions (cute_partition_ref.py on pycute).

Results are compared as functions: for every thread index and every value
coordinate, the element index in the partitioned tensor; plus the mode
structure CuTe fixes ((AtomVal,RestVal), RestM, RestN, ...). The thread
index is also given as a dynamic value: the layout must stay static and the
printed offset expression must give each thread's offset.

Reproduce a failure with FLY_TEST_SEED=<seed>; FLY_PARTITION_CASES sets the
number of random cases per test.
"""

from __future__ import annotations

import os
import random
import re

import pytest
from pycute import Layout

import algebra_query as Q
import cute_partition_ref as P
import cute_ref as R
import fly_runner
import partition_gen as G

SEED = fly_runner.seed_from_env()
N_CASES = int(os.environ.get("FLY_PARTITION_CASES", "300"))
SHOW = 3


def profile(layout: Layout):
    """Sizes of the top-level modes, and of the sub-modes of mode 0."""
    ms = R.modes(layout)
    first = tuple(P.size(m) for m in R.modes(ms[0])) if isinstance(ms[0].shape, tuple) else P.size(ms[0])
    return (first,) + tuple(P.size(m) for m in ms[1:])


def same_function(a: Layout, b: Layout) -> bool:
    return R.same_function(a, b)


def report(failures, what):
    if failures:
        shown = "\n\n".join(failures[:SHOW])
        pytest.fail(f"{len(failures)} {what} mismatches (seed {SEED}); first ones:\n{shown}", pytrace=False)


# ----------------------------------------------------------------------------
# Random cases
# ----------------------------------------------------------------------------


class CopyCase:
    def __init__(self, rng: random.Random):
        self.thr = G.thr_layout(rng)
        self.val = G.val_layout(rng, rng.choice([1, 2]))
        self.tiler, self.layout_tv = P.make_layout_tv(self.thr, self.val)
        self.atom, atom_keys = G.copy_atom(rng, P.size(self.val), P.size(self.thr))
        if rng.random() < 0.3:  # the (atom, layout_tv, tiler) form
            tile = "[" + "|".join(str(t) for t in self.tiler) + "]"
            self.keys = f"{atom_keys} tv={Q.layout_text(self.layout_tv)} tiler={tile}"
        else:
            self.keys = f"{atom_keys} thr={Q.layout_text(self.thr)} val={Q.layout_text(self.val)}"
        self.ref = P.TiledCopy(self.atom, self.layout_tv, self.tiler)
        self.tensor = G.tensor_for(rng, self.tiler)

    @property
    def num_threads(self):
        return P.size(self.thr)

    def reference(self, side):
        """(per-thread layout, [offset of each thread]) or None when the
        reference rejects the input."""
        try:
            frg = self.ref.tidfrg(side, self.tensor)
            layout, _ = P.slice_and_offset(frg, (0, None, P.stars(frg.shape[2])))
            offsets = [self.ref.partition(side, self.tensor, t)[1] for t in range(self.num_threads)]
            return layout, offsets
        except (AssertionError, R.Rejected, ZeroDivisionError, IndexError):
            return None

    def query(self, side, thr_idx="all"):
        return (
            f"copy_partition {self.keys} side={side} tensor={Q.layout_text(self.tensor)} "
            f"thr_idx={thr_idx} num_threads={self.num_threads}"
        )

    def __str__(self):
        return f"thr={Q.layout_text(self.thr)} val={Q.layout_text(self.val)} tensor={Q.layout_text(self.tensor)}"


def copy_cases(tag, n=N_CASES):
    rng = random.Random(f"{SEED}/{tag}")
    return [CopyCase(rng) for _ in range(n)]


def check_partition(case, side, ans, ref):
    """A list of problems (empty when the C++ answer matches)."""
    if not ans.ok:
        return [f"rejected: {ans.error}"]
    if ans["same"] != "1":
        return ["the per-thread layout depends on the thread index"]
    layout = ans.layout()
    ref_layout, ref_offsets = ref
    problems = []
    if profile(layout) != profile(ref_layout):
        problems.append(f"structure {profile(layout)} != reference {profile(ref_layout)}")
    if not same_function(layout, ref_layout):
        problems.append(f"layout {Q.layout_text(layout)} != reference {Q.layout_text(ref_layout)}")
    offsets = Q.parse_offsets(ans["offsets"])
    bad = [t for t, (o, r) in enumerate(zip(offsets, ref_offsets)) if o != r]
    if bad:
        t = bad[0]
        problems.append(f"offset of thread {t}: {offsets[t]} != reference {ref_offsets[t]} ({len(bad)} threads differ)")
    return problems


# ----------------------------------------------------------------------------
# make_layout_tv
# ----------------------------------------------------------------------------


def test_layout_tv_matches_reference():
    rng = random.Random(f"{SEED}/layout_tv")
    cases = [(G.thr_layout(rng), G.val_layout(rng, rng.choice([1, 2, 3]))) for _ in range(N_CASES)]
    answers = Q.run(f"layout_tv thr={Q.layout_text(t)} val={Q.layout_text(v)}" for t, v in cases)
    failures = []
    for (thr, val), ans in zip(cases, answers):
        tiler, tv = P.make_layout_tv(thr, val)
        where = f"thr={Q.layout_text(thr)} val={Q.layout_text(val)}"
        if not ans.ok:
            failures.append(f"{where}: rejected: {ans.error}")
            continue
        got_tiler, got_tv = Q.parse_tuple(ans["tiler"]), ans.layout("layout_tv")
        if got_tiler != tiler or not same_function(got_tv, tv) or profile(got_tv) != profile(tv):
            failures.append(f"{where}: tiler {got_tiler} layout_tv {ans['layout_tv']} != reference {tiler} {tv}")
    report(failures, "make_layout_tv")


def test_layout_tv_is_a_bijection_onto_the_tile():
    """Every element of the tile belongs to exactly one (thread, value), and
    thread t's values lie where the thread layout puts t, raked by the value
    layout (CuTe's docs: raked_product(thr, val))."""
    rng = random.Random(f"{SEED}/layout_tv_bijection")
    cases = [(G.thr_layout(rng), G.val_layout(rng, 2)) for _ in range(100)]
    answers = Q.run(f"layout_tv thr={Q.layout_text(t)} val={Q.layout_text(v)}" for t, v in cases)
    failures = []
    for (thr, val), ans in zip(cases, answers):
        tv = ans.layout("layout_tv")
        tiler = Q.parse_tuple(ans["tiler"])
        nt, nv = P.size(thr), P.size(val)
        image = sorted(R.evaluate(tv))
        if image != list(range(R.size_of(tiler))) or P.size(tv) != nt * nv:
            failures.append(f"thr={thr} val={val}: layout_tv {tv} is not a bijection onto {tiler}")
            continue
        # Tile coordinate of (t, v): thr coordinate * val shape + val coordinate.
        thr2, val2 = R.append_rank(thr, 2), R.append_rank(val, 2)
        vshape = [P.size(val2[i]) for i in range(len(val2))]
        tshape = tuple(R.size_of(s) for s in R.modes_shape(tiler)) if hasattr(R, "modes_shape") else tiler
        for t in range(nt):
            tc = [_coord_of(thr2[i], t, thr2) for i in range(len(thr2))]
            for v in range(nv):
                vc = [_coord_of(val2[i], v, val2) for i in range(len(val2))]
                want = [tc[i] * vshape[i] + vc[i] for i in range(len(tc))]
                got = _unflat(tv(t + nt * v), tshape)
                if list(got[: len(want)]) != want:
                    failures.append(f"thr={thr} val={val}: (t={t}, v={v}) at {got}, expected {want}")
                    break
            else:
                continue
            break
    report(failures, "layout_tv semantics")


def _coord_of(mode: Layout, idx: int, full: Layout) -> int:
    """The 1-D coordinate within `mode` of the coordinate where the (compact,
    bijective) layout `full` takes the value idx."""
    n = P.size(full)
    for i in range(n):
        if full(i) == idx:
            crd = pycute_idx2crd(i, full.shape)
            k = R.modes(full).index(mode) if False else None
            return crd
    raise AssertionError


def pycute_idx2crd(i, shape):
    raise NotImplementedError
