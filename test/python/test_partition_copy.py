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
            parts = [P.slice_and_offset(frg, (t, None, P.stars(frg.shape[2]))) for t in range(self.num_threads)]
            return parts[0][0], [offset for _, offset in parts]
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


def mode_coords(layout: Layout, rank: int):
    """{layout(c): c} for a bijective layout, c one integer per top-level
    mode (rank-padded), and the mode sizes."""
    lay = R.append_rank(layout, rank)
    sizes = [P.size(lay[i]) for i in range(rank)]
    inverse = {}
    for j in range(P.size(lay)):
        crd, r = [], j
        for s in sizes:
            crd.append(r % s)
            r //= s
        inverse[lay(j)] = crd
    return inverse, sizes


def test_layout_tv_rakes_values_inside_threads():
    """CuTe's docs: thread t's values form a val-shaped block at the thread's
    coordinate times the val shape (raked_product(thr, val)); the
    layout_tv is a bijection (thread, value) -> tile."""
    rng = random.Random(f"{SEED}/layout_tv_raked")
    cases = [(G.thr_layout(rng), G.val_layout(rng, rng.choice([1, 2]))) for _ in range(100)]
    answers = Q.run(f"layout_tv thr={Q.layout_text(t)} val={Q.layout_text(v)}" for t, v in cases)
    failures = []
    for (thr, val), ans in zip(cases, answers):
        where = f"thr={Q.layout_text(thr)} val={Q.layout_text(val)}"
        if not ans.ok:
            failures.append(f"{where}: rejected: {ans.error}")
            continue
        tv, tiler = ans.layout("layout_tv"), Q.parse_tuple(ans["tiler"])
        r = max(len(thr), len(val))
        thr_inv, tsizes = mode_coords(thr, r)
        val_inv, vsizes = mode_coords(val, r)
        if list(tiler if isinstance(tiler, tuple) else (tiler,)) != [t * v for t, v in zip(tsizes, vsizes)]:
            failures.append(f"{where}: tiler {tiler}")
            continue
        nt = P.size(thr)
        for t in range(nt):
            for v in range(P.size(val)):
                index, scale = 0, 1
                for i in range(r):
                    index += (val_inv[v][i] + vsizes[i] * thr_inv[t][i]) * scale
                    scale *= tsizes[i] * vsizes[i]
                if tv(t + nt * v) != index:
                    failures.append(f"{where}: (t={t}, v={v}) -> {tv(t + nt * v)}, expected {index}")
                    break
            else:
                continue
            break
    report(failures, "layout_tv semantics")


# ----------------------------------------------------------------------------
# TiledCopy partition_S / partition_D
# ----------------------------------------------------------------------------


def test_partition_matches_reference():
    cases = copy_cases("copy_partition")
    jobs = [(c, side, c.reference(side)) for c in cases for side in "SD"]
    valid = [j for j in jobs if j[2] is not None]
    assert len(valid) >= 0.8 * len(jobs), f"only {len(valid)} of {len(jobs)} cases valid (seed {SEED})"
    answers = Q.run(c.query(side) for c, side, _ in valid)
    failures = []
    for (case, side, ref), ans in zip(valid, answers):
        problems = check_partition(case, side, ans, ref)
        if problems:
            failures.append(f"{case} side={side}: " + "; ".join(problems) + f"\n  query: {ans.query}")
    report(failures, "partition")


def test_partition_covers_tensor_once():
    """With bijective thread, value and tensor layouts, the threads'
    partitions cover every element of the tensor exactly once."""
    rng = random.Random(f"{SEED}/copy_cover")
    cases = []
    for _ in range(60):
        c = CopyCase(rng)
        c.tensor = Layout(c.tensor.shape, G.Gen(rng).stride(c.tensor.shape, rng.choice(["compact", "perm"])))
        cases.append(c)
    answers = Q.run(c.query(side) for c in cases for side in "SD")
    failures = []
    for i, ans in enumerate(answers):
        case = cases[i // 2]
        if not ans.ok:
            failures.append(f"{case}: rejected: {ans.error}")
            continue
        values = R.evaluate(ans.layout())
        seen = sorted(o + int(v) for o in Q.parse_offsets(ans["offsets"]) for v in values)
        if seen != list(range(P.size(case.tensor))):
            failures.append(f"{case}: the partitions do not cover the tensor exactly once")
    report(failures, "coverage")


def test_partition_dynamic_thread_index():
    """A dynamic thread index: the same static layout, a dynamic offset
    whose divisor divides every thread's offset, and an emitted expression
    that evaluates to each thread's offset."""
    cases = copy_cases("copy_dynamic", 80)
    jobs = [(c, side) for c in cases for side in "SD" if c.reference(side) is not None]
    answers = Q.run(q for c, side in jobs for q in (c.query(side), c.query(side, "?")))
    failures = []
    for k, (case, side) in enumerate(jobs):
        static, dynamic = answers[2 * k], answers[2 * k + 1]
        where = f"{case} side={side}"
        if not (static.ok and dynamic.ok):
            failures.append(f"{where}: rejected: {static.error or dynamic.error}")
            continue
        offsets = Q.parse_offsets(static["offsets"])
        if dynamic["layout"] != static["layout"]:
            failures.append(f"{where}: layout {dynamic['layout']} with a dynamic index, {static['layout']} static")
        m = re.fullmatch(r"\?(?:\{div=(\d+)\})?", dynamic["offset"])
        if len(set(offsets)) > 1 and not m:
            failures.append(f"{where}: offset {dynamic['offset']} is not a dynamic i32")
            continue
        div = int(m.group(1)) if m and m.group(1) else 1
        if any(o % div for o in offsets):
            failures.append(f"{where}: divisor {div} does not divide the offsets {offsets[:8]}...")
        expr = dynamic["expr"]
        got = [eval(expr, {}, {"t": t}) for t in range(case.num_threads)]  # noqa: S307 (our own tool's output)
        if got != offsets:
            bad = next(t for t in range(len(got)) if got[t] != offsets[t])
            failures.append(f"{where}: expression {expr} gives {got[bad]} for thread {bad}, expected {offsets[bad]}")
    report(failures, "dynamic thread index")


def test_docs_example_tiled_copy_128x32():
    """CuTe's TiledCopy docs: make_tiled_copy(Copy_Atom<UniversalCopy<uint32_t>,
    float>, Layout<Shape<_32,_8>, Stride<_8,_1>>, Layout<Shape<_4,_1>>): a
    128x8 tile, thread t = 8*m + n holds rows 4m..4m+3 of column n; on a
    128x32 column-major tensor each thread copies 4 such tiles along N."""
    keys = "copy_bits=32 value_bits=32 thr=(32,8):(8,1) val=(4,1):(1,0)"
    tensor = "(128,32):(1,128)"
    info, part, dyn = Q.run(
        [
            f"copy_info {keys}",
            f"copy_partition {keys} side=S tensor={tensor} thr_idx=all num_threads=256",
            f"copy_partition {keys} side=D tensor={tensor} thr_idx=?",
        ]
    )
    assert info.ok and info["size"] == "256" and info["tiler"] == "[128|8]", info
    assert part.ok, part.error
    layout = part.layout()
    # ((AtomVal,RestVal), RestM, RestN) = ((1,4), 1, 4)
    assert profile(layout) == ((1, 4), 1, 4)
    offsets = Q.parse_offsets(part["offsets"])
    for t in range(256):
        m, n = t // 8, t % 8
        want = sorted((4 * m + v) + 128 * (n + 8 * j) for v in range(4) for j in range(4))
        got = sorted(offsets[t] + int(x) for x in R.evaluate(layout))
        assert got == want, f"thread {t}: {got} != {want}"
    # A dynamic thread index: the same static layout at 128*n + 4*m, a
    # multiple of 4.
    assert dyn.ok and dyn["layout"] == part["layout"] and dyn["offset"] == "?{div=4}", dyn
    assert all(eval(dyn["expr"], {}, {"t": t}) == 128 * (t % 8) + 4 * (t // 8) for t in range(256))  # noqa: S307


def test_vectorized_atom_takes_whole_value_mode():
    """UniversalCopy<uint128_t> of floats: 4 values per atom call, so the
    value mode is ((4),(1)): one atom value block per thread and tile."""
    keys = "copy_bits=128 value_bits=32 thr=(32,8):(8,1) val=(4,1):(1,0)"
    (ans,) = Q.run([f"copy_partition {keys} side=S tensor=(128,32):(1,128) thr_idx=9"])
    assert ans.ok, ans.error
    assert profile(ans.layout()) == ((4, 1), 1, 4)
    assert ans["offset"] == str(128 * 1 + 4 * 1)


# ----------------------------------------------------------------------------
# retile
# ----------------------------------------------------------------------------


def test_retile_matches_reference():
    cases = copy_cases("copy_retile", 150)
    jobs = []
    for c in cases:
        ref = c.reference("D")
        if ref is None:
            continue
        frag = P.fragment_like(ref[0])
        # Retile a register fragment holding V values per thread (all the
        # thread's values of a tile, or one atom's worth).
        jobs.append((c, frag))
    answers = Q.run(f"retile {c.keys} fragment={Q.layout_text(f)}" for c, f in jobs)
    failures = []
    for (case, frag), ans in zip(jobs, answers):
        try:
            want = case.ref.retile(frag)
        except (AssertionError, R.Rejected, ZeroDivisionError, IndexError):
            continue
        if not ans.ok:
            failures.append(f"{case} fragment={frag}: rejected: {ans.error}")
            continue
        got = ans.layout()
        if not same_function(got, want) or profile(got) != profile(want):
            failures.append(f"{case} fragment={frag}: {Q.layout_text(got)} != reference {Q.layout_text(want)}")
        # A fragment made like this copy's partition is its own retiling.
        if not same_function(got, frag):
            failures.append(f"{case} fragment={frag}: retile changed the fragment to {Q.layout_text(got)}")
    report(failures, "retile")


# ----------------------------------------------------------------------------
# copy as atom calls
# ----------------------------------------------------------------------------


def test_copy_plan_matches_reference():
    """copy(atom, partition_S(t), fragment): the atom calls, their value
    slices and offsets, in CuTe's order."""
    cases = copy_cases("copy_plan", 150)
    jobs = []
    for c in cases:
        ref = c.reference("S")
        if ref is not None:
            jobs.append((c, ref[0], P.fragment_like(ref[0])))
    atom_keys = [" ".join(w for w in c.keys.split() if w.startswith(("copy_", "value_bits"))) for c, _, _ in jobs]
    answers = Q.run(
        f"copy_plan {k} src={Q.layout_text(s)} dst={Q.layout_text(d)}" for k, (c, s, d) in zip(atom_keys, jobs)
    )
    failures = []
    for (case, src, dst), ans in zip(jobs, answers):
        want = P.copy_calls(case.atom, src, dst)
        if not ans.ok:
            failures.append(f"{case}: rejected: {ans.error}")
            continue
        got = Q.parse_offset_layouts(ans["list"])
        if int(ans["calls"]) != len(want) or len(got) != len(want):
            failures.append(f"{case}: {ans['calls']} calls, reference {len(want)}")
            continue
        for i, ((gs, gso), (gd, gdo)) in enumerate(got):
            ws, wso, wd, wdo = want[i]
            if gso != wso or gdo != wdo or not same_function(gs, ws) or not same_function(gd, wd):
                failures.append(f"{case}: call {i}: {gs}@{gso} -> {gd}@{gdo}, reference {ws}@{wso} -> {wd}@{wdo}")
                break
    report(failures, "copy plan")


def test_copy_plan_peels_nested_value_modes():
    """A 64-bit atom on 32-bit values: ((2,2),2) is 2 slices of (2,2), each
    two calls of 2 values."""
    (ans,) = Q.run(["copy_plan copy_bits=64 value_bits=32 src=((2,2),2):((1,2),4) dst=((2,2),2):((1,2),4)"])
    assert ans.ok, ans.error
    calls = Q.parse_offset_layouts(ans["list"])
    assert [(s[1], d[1]) for s, d in calls] == [(0, 0), (2, 2), (4, 4), (6, 6)]
    assert all(P.size(s[0]) == 2 for s, _ in calls)


def test_copy_plan_a_static_side_decides_the_calls():
    """A dynamic side takes as many calls as the static one: (1,?) against
    (1,4) is four one-value calls, at offsets 0..3 on both sides."""
    for src, dst in (("(1,?):(0,1)", "(1,4):(0,1)"), ("(1,4):(0,1)", "(1,?):(0,1)")):
        (ans,) = Q.run([f"copy_plan copy_bits=32 value_bits=32 src={src} dst={dst}"])
        assert ans.ok, ans.error
        calls = Q.parse_offset_layouts(ans["list"])
        assert [(s[1], d[1]) for s, d in calls] == [(0, 0), (1, 1), (2, 2), (3, 3)]
        assert all(P.size(s[0]) == P.size(d[0]) == 1 for s, d in calls)


# ----------------------------------------------------------------------------
# Errors: reported, never a crash
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, message",
    [
        ("copy_info copy_bits=128 value_bits=32 thr=(32,8):(8,1) val=(2,1):(1,0)", "values of"),
        ("copy_info copy_bits=24 value_bits=16 thr=(32,8):(8,1) val=(4,1):(1,0)", "whole 16-bit values"),
        ("copy_info copy_bits=32 value_bits=0 thr=(32,8):(8,1) val=(4,1):(1,0)", "must be positive"),
        ("copy_info copy_bits=32 value_bits=32 tv=(32,4):(4,1) tiler=[32|*]", "must give a layout"),
        ("copy_info copy_bits=32 value_bits=32 tv=128:1 tiler=[128]", "two modes"),
        (
            "copy_info copy_thr=2:1 copy_src=(4,32):(32,1) copy_dst=(4,32):(32,1) "
            "copy_ref=(4,32):(32,1) value_bits=32 thr=8:1 val=1:0",
            "threads",
        ),
        ("tidfrg copy_bits=32 value_bits=32 thr=(4,8):(8,1) val=1:0 side=S tensor=64:1", "fewer modes"),
        ("copy_partition copy_bits=32 value_bits=32 thr=(4,8):(8,1) val=1:0 side=X tensor=(4,8):(1,4) thr_idx=0", "side"),
        ("retile copy_bits=32 value_bits=32 thr=(4,8):(8,1) val=(2,2):(1,2) fragment=4:1", "value mode"),
        ("copy_plan copy_bits=32 value_bits=32 src=(1,?):(0,1) dst=(1,?):(0,1)", "both have dynamic sizes"),
        ("copy_plan copy_bits=64 value_bits=32 src=(3,2):(1,3) dst=(3,2):(1,3)", "do not split"),
        ("copy_plan copy_bits=32 value_bits=32 src=(1,4):(0,1) dst=(1,4,1):(0,1,0)", "different ranks"),
        ("copy_partition thr=1:0", "missing key"),
    ],
)
def test_errors_are_reported(query, message):
    (ans,) = Q.run([query])
    assert not ans.ok, f"accepted: {ans.values}"
    assert message in ans.error, ans.error
