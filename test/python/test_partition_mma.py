"""TiledMMA (thr_layout_vmnk, partition_A/B/C, make_fragment_A/B/C,
get_layoutX_TV), make_tiled_copy_A/B/C, retile of MMA fragments and gemm
as atom calls, of the C++ algebra against CuTe's definitions
(cute_partition_ref.py on pycute), CuTe's documented examples, and AMD's
register layouts of an MFMA instruction.

Reproduce a failure with FLY_TEST_SEED=<seed>; FLY_PARTITION_CASES sets the
number of random cases per test.
"""

from __future__ import annotations

import csv
import os
import random
import re
from pathlib import Path

import pytest
from pycute import Layout

import algebra_query as Q
import cute_partition_ref as P
import cute_ref as R
import fly_runner
import partition_gen as G
from fly_types import Tile
from test_partition_copy import CopyCase, profile, report

SEED = fly_runner.seed_from_env()
N_CASES = int(os.environ.get("FLY_PARTITION_CASES", "300"))
REJECTED = (AssertionError, R.Rejected, ZeroDivisionError, IndexError)
LAYOUTS_DIR = Path(__file__).resolve().parents[1] / "data" / "amd-matrix-layouts"


class MmaCase:
    def __init__(self, rng: random.Random):
        self.atom, atom_keys = G.mma_atom(rng)
        threads = P.size(self.atom.thr_id)
        self.atom_layout = G.atom_layout(rng, max(1, 256 // threads))
        core = [self.atom.shape_mnk[i] * P.size(self.atom_layout[i]) for i in range(3)]
        self.perm = G.permutation(rng, core) if rng.random() < 0.4 else (None, None, None)
        self.ref = P.TiledMMA(self.atom, self.atom_layout, self.perm)
        self.keys = f"{atom_keys} atom_layout={Q.layout_text(self.atom_layout)}"
        if any(p is not None for p in self.perm):
            self.keys += f" perm={Q.tile_text(Tile(self.perm))}"
        self.tensors = {}
        for op, (x, y) in P.OPERAND_MODES.items():
            self.tensors[op] = G.tensor_for(rng, (self.ref.tile_size(x), self.ref.tile_size(y)))

    @property
    def num_threads(self):
        return self.ref.size

    def reference(self, op):
        try:
            parts = [self.ref.partition(op, self.tensors[op], t) for t in range(self.num_threads)]
            return parts[0][0], [offset for _, offset in parts]
        except REJECTED:
            return None

    def query(self, op, thr_idx="all"):
        return (
            f"mma_partition {self.keys} operand={op} tensor={Q.layout_text(self.tensors[op])} "
            f"thr_idx={thr_idx} num_threads={self.num_threads}"
        )

    def __str__(self):
        return f"{self.keys} tensors={ {k: Q.layout_text(v) for k, v in self.tensors.items()} }"


def mma_cases(tag, n=N_CASES):
    rng = random.Random(f"{SEED}/{tag}")
    return [MmaCase(rng) for _ in range(n)]


def elements(ans):
    """{thread: sorted element indices} of a partition answer."""
    values = R.evaluate(ans.layout())
    return [sorted(o + int(v) for v in values) for o in Q.parse_offsets(ans["offsets"])]


# ----------------------------------------------------------------------------
# Against the reference
# ----------------------------------------------------------------------------


def test_tiled_mma_shape_matches_reference():
    cases = mma_cases("mma_info")
    answers = Q.run(f"mma_info {c.keys}" for c in cases)
    failures = []
    for case, ans in zip(cases, answers):
        if not ans.ok:
            failures.append(f"{case}: rejected: {ans.error}")
            continue
        tile = tuple(case.ref.tile_size(i) for i in range(3))
        vmnk = ans.layout("vmnk")
        if (
            int(ans["size"]) != case.num_threads
            or Q.parse_tuple(ans["tile"]) != tile
            or not R.same_function(vmnk, case.ref.vmnk)
            or profile(vmnk) != profile(case.ref.vmnk)
        ):
            failures.append(f"{case}: {ans.values}, reference size {case.num_threads} tile {tile} vmnk {case.ref.vmnk}")
    report(failures, "tiled MMA shape")


def test_partition_matches_reference():
    cases = mma_cases("mma_partition")
    jobs = [(c, op, c.reference(op)) for c in cases for op in "ABC"]
    valid = [j for j in jobs if j[2] is not None]
    assert len(valid) >= 0.8 * len(jobs), f"only {len(valid)} of {len(jobs)} cases valid (seed {SEED})"
    answers = Q.run(c.query(op) for c, op, _ in valid)
    failures = []
    for (case, op, (ref_layout, ref_offsets)), ans in zip(valid, answers):
        where = f"{case} operand={op}"
        if not ans.ok:
            failures.append(f"{where}: rejected: {ans.error}")
            continue
        layout = ans.layout()
        problems = []
        if ans["same"] != "1":
            problems.append("the per-thread layout depends on the thread index")
        if profile(layout) != profile(ref_layout):
            problems.append(f"structure {profile(layout)} != reference {profile(ref_layout)}")
        if not R.same_function(layout, ref_layout):
            problems.append(f"layout {Q.layout_text(layout)} != reference {Q.layout_text(ref_layout)}")
        offsets = Q.parse_offsets(ans["offsets"])
        bad = [t for t in range(len(offsets)) if offsets[t] != ref_offsets[t]]
        if bad:
            problems.append(f"offset of thread {bad[0]}: {offsets[bad[0]]} != {ref_offsets[bad[0]]}")
        if problems:
            failures.append(f"{where}: " + "; ".join(problems))
    report(failures, "MMA partition")


def test_partition_dynamic_thread_index():
    cases = mma_cases("mma_dynamic", 80)
    jobs = [(c, op) for c in cases for op in "ABC" if c.reference(op) is not None]
    answers = Q.run(q for c, op in jobs for q in (c.query(op), c.query(op, "?")))
    failures = []
    for k, (case, op) in enumerate(jobs):
        static, dynamic = answers[2 * k], answers[2 * k + 1]
        where = f"{case} operand={op}"
        if not (static.ok and dynamic.ok):
            failures.append(f"{where}: rejected: {static.error or dynamic.error}")
            continue
        offsets = Q.parse_offsets(static["offsets"])
        if dynamic["layout"] != static["layout"]:
            failures.append(f"{where}: layout {dynamic['layout']} with a dynamic index, {static['layout']} static")
        m = re.fullmatch(r"\?(?:\{div=(\d+)\})?|(-?\d+)", dynamic["offset"])
        if not m:
            failures.append(f"{where}: offset {dynamic['offset']}")
            continue
        div = int(m.group(1) or 1)
        if any(o % div for o in offsets):
            failures.append(f"{where}: divisor {div} does not divide the offsets")
        got = [eval(dynamic["expr"], {}, {"t": t}) for t in range(case.num_threads)]  # noqa: S307
        if got != offsets:
            bad = next(t for t in range(len(got)) if got[t] != offsets[t])
            failures.append(f"{where}: {dynamic['expr']} gives {got[bad]} for thread {bad}, expected {offsets[bad]}")
    report(failures, "dynamic thread index")


def test_fragments_and_layout_tv_match_reference():
    cases = mma_cases("mma_fragment", 150)
    jobs = []
    for c in cases:
        for op in "ABC":
            ref = c.reference(op)
            if ref is None:
                continue
            jobs.append((c, op, ref[0]))
    queries = []
    for c, op, part in jobs:
        queries.append(f"make_fragment {c.keys} operand={op} tile={Q.layout_text(c.tensors[op])}")
        queries.append(f"mma_layout_tv {c.keys} operand={op}")
    answers = Q.run(queries)
    failures = []
    for k, (case, op, part) in enumerate(jobs):
        frag, tv = answers[2 * k], answers[2 * k + 1]
        where = f"{case} operand={op}"
        if not (frag.ok and tv.ok):
            failures.append(f"{where}: rejected: {frag.error or tv.error}")
            continue
        want = case.ref.make_fragment(op, case.tensors[op])
        got = frag.layout()
        if got.shape != want.shape or not R.same_function(got, want):
            failures.append(f"{where}: fragment {Q.layout_text(got)} != reference {Q.layout_text(want)}")
        # Compact, unless the order of the modes has ties (broadcast or equal
        # strides: CuTe's make_ordered_layout gives tied modes one start).
        strides = [d for s, d in zip(R.flat(part.shape), R.flat(part.stride)) if s != 1]
        distinct = 0 not in strides and len(set(strides)) == len(strides)
        if distinct and sorted(R.evaluate(got)) != list(range(P.size(got))):
            failures.append(f"{where}: fragment {Q.layout_text(got)} is not compact")
        try:
            want_tv = case.ref.layout_tv(op)
        except REJECTED:
            continue
        got_tv = tv.layout()
        if not R.same_function(got_tv, want_tv) or profile(got_tv) != profile(want_tv):
            failures.append(f"{where}: layout_tv {Q.layout_text(got_tv)} != reference {Q.layout_text(want_tv)}")
    report(failures, "fragment / layout_tv")


def test_partition_dynamic_tensor_strides():
    """Tensors with a dynamic stride (`?`, the variable s1): the offset and
    the per-thread strides, as emitted arithmetic of t and s1, equal the
    static partition of the tensor with s1's value put in."""
    rng = random.Random(f"{SEED}/dynamic_strides")
    jobs = []
    for _ in range(40):
        copy, mma = CopyCase(rng), MmaCase(rng)
        for kind, case, tensor, side in (
            ("copy_partition", copy, copy.tensor, "side=S"),
            ("mma_partition", mma, mma.tensors["C"], "operand=C"),
        ):
            flat = list(R.flat(tensor.stride))
            k = rng.randrange(len(flat))
            if flat[k] == 0:
                continue
            dyn = G.unflatten(["?" if i == k else d for i, d in enumerate(flat)], tensor.stride)
            base = f"{kind} {case.keys} {side} num_threads={case.num_threads}"
            text = f"{Q.tuple_text(tensor.shape)}:{Q.tuple_text(dyn)}"
            jobs.append((base, text, tensor, k, case.num_threads))
    queries = []
    values = [3, 8, 40]
    for base, text, tensor, k, _ in jobs:
        queries.append(f"{base} tensor={text} thr_idx=?")
        for v in values:
            flat = list(R.flat(tensor.stride))
            flat[k] = v
            static = Layout(tensor.shape, G.unflatten(flat, tensor.stride))
            queries.append(f"{base} tensor={Q.layout_text(static)} thr_idx=all")
    answers = Q.run(queries)
    failures, compared = [], 0
    step = 1 + len(values)
    for j, (base, text, _, _, n) in enumerate(jobs):
        dyn, statics = answers[j * step], answers[j * step + 1 : (j + 1) * step]
        if not dyn.ok and not any(a.ok for a in statics):
            continue  # rejected either way (e.g. CuTe's stride divisibility)
        if not dyn.ok or not all(a.ok for a in statics):
            failures.append(f"{base} tensor={text}: rejected: {dyn.error or [a.error for a in statics]}")
            continue
        compared += 1
        # Static strides may coalesce where dynamic ones cannot: compare the
        # layouts as functions, the dynamic one with its strides evaluated.
        shape = Q.parse_value(f"!fly.layout<{dyn['layout']}>").shape
        for v, st in zip(values, statics):
            env = {"s1": v}
            offsets = [eval(dyn["expr"], {}, dict(env, t=t)) for t in range(n)]  # noqa: S307
            strides = [eval(e, {}, env) for e in dyn["stride_exprs"].split(";")]  # noqa: S307
            layout = Layout(shape, G.unflatten(strides, shape))
            if offsets != Q.parse_offsets(st["offsets"]) or not R.same_function(layout, st.layout()):
                failures.append(f"{base} tensor={text} with s1={v}: dynamic {dyn.values}, static {st.values}")
                break
    report(failures, "dynamic tensor stride")
    assert compared >= len(jobs) // 2, f"only {compared} of {len(jobs)} cases compared (seed {SEED})"


# ----------------------------------------------------------------------------
# make_tiled_copy_A/B/C and retile of MMA fragments
# ----------------------------------------------------------------------------


def test_tiled_copy_for_operand_moves_what_the_mma_partitions():
    """make_tiled_copy_A/B/C with a one-value atom: thread t copies exactly
    the elements the tiled MMA gives thread t (for C: atom layouts with one
    K group, as CuTe's get_layoutC_TV assumes)."""
    cases = mma_cases("mma_copy_for", 120)
    jobs = []
    for c in cases:
        for op in "ABC":
            if op == "C" and P.size(c.atom_layout[2]) != 1:
                continue
            c.tensors[op] = Layout(c.tensors[op].shape)  # compact: elements are distinct
            jobs.append((c, op))
    queries = []
    for c, op in jobs:
        tensor = Q.layout_text(c.tensors[op])
        queries.append(c.query(op))
        queries.append(
            f"copy_partition copy_bits=32 value_bits=32 {c.keys} from={op} side=S tensor={tensor} "
            f"thr_idx=all num_threads={c.num_threads}"
        )
        queries.append(f"copy_info copy_bits=32 value_bits=32 {c.keys} from={op}")
    answers = Q.run(queries)
    failures = []
    for k, (case, op) in enumerate(jobs):
        mma, copy, info = answers[3 * k : 3 * k + 3]
        where = f"{case} operand={op}"
        if not (mma.ok and copy.ok and info.ok):
            failures.append(f"{where}: rejected: {mma.error or copy.error or info.error}")
            continue
        ref = P.make_tiled_copy_for(P.universal_copy(32, 32), case.ref, op)
        if not R.same_function(info.layout("layout_tv"), ref.layout_tv):
            failures.append(f"{where}: copy layout_tv {info['layout_tv']} != reference {ref.layout_tv}")
        if elements(mma) != elements(copy):
            t = next(i for i, (a, b) in enumerate(zip(elements(mma), elements(copy))) if a != b)
            failures.append(f"{where}: thread {t} copies {elements(copy)[t][:8]}..., the MMA has {elements(mma)[t][:8]}...")
    report(failures, "make_tiled_copy_A/B/C")


def test_retile_puts_copied_elements_where_the_mma_reads_them():
    """copy(make_tiled_copy_A(atom, mma), partition_S(A), retile(fragment_A)):
    each element lands in the register of the MMA fragment that holds it
    (and likewise for B and C)."""
    cases = mma_cases("mma_retile", 100)
    jobs = [(c, op) for c in cases for op in "ABC" if not (op == "C" and P.size(c.atom_layout[2]) != 1)]
    first = []
    for c, op in jobs:
        first.append(c.query(op, 0))
        first.append(
            f"copy_partition copy_bits=32 value_bits=32 {c.keys} from={op} side=S "
            f"tensor={Q.layout_text(c.tensors[op])} thr_idx=0"
        )
    answers = Q.run(first)
    second = []
    for c, op in jobs:
        second.append(f"make_fragment {c.keys} operand={op} tile={Q.layout_text(c.tensors[op])}")
    frags = Q.run(second)
    third = [
        f"retile copy_bits=32 value_bits=32 {c.keys} from={op} fragment={f['layout'] if f.ok else '1:0'}"
        for (c, op), f in zip(jobs, frags)
    ]
    retiled = Q.run(third)
    failures = []
    for k, (case, op) in enumerate(jobs):
        part, src, frag, ret = answers[2 * k], answers[2 * k + 1], frags[k], retiled[k]
        where = f"{case} operand={op}"
        bad = next((a for a in (part, src, frag, ret) if not a.ok), None)
        if bad:
            failures.append(f"{where}: rejected: {bad.error} ({bad.query[:60]}...)")
            continue
        # register -> element of the MMA fragment
        holds = {}
        pl, fl = part.layout(), frag.layout()
        for i in range(P.size(pl)):
            holds[fl(i)] = int(part["offset"]) + pl(i)
        sl, rl = src.layout(), ret.layout()
        want = P.make_tiled_copy_for(P.universal_copy(32, 32), case.ref, op).retile(fl)
        if not R.same_function(rl, want) or profile(rl) != profile(want):
            failures.append(f"{where}: retile of {frag['layout']} is {ret['layout']}, reference {Q.layout_text(want)}")
            continue
        if P.size(sl) != P.size(rl) or profile(sl) != profile(rl):
            failures.append(f"{where}: retiled {ret['layout']} does not match the copy's partition {src['layout']}")
            continue
        for i in range(P.size(sl)):
            element = int(src["offset"]) + sl(i)
            if holds.get(rl(i)) != element:
                failures.append(
                    f"{where}: value {i} of the copy ({element}) goes to register {rl(i)}, which the MMA reads "
                    f"as {holds.get(rl(i))} (fragment {frag['layout']}, retiled {ret['layout']})"
                )
                break
    report(failures, "retile of MMA fragments")


# ----------------------------------------------------------------------------
# gemm as atom calls
# ----------------------------------------------------------------------------


def test_gemm_plan_matches_reference():
    """gemm(mma, fragC, fragA, fragB, fragC) on a thread's fragments."""
    cases = mma_cases("mma_gemm", 100)
    rng = random.Random(f"{SEED}/mma_gemm_tensors")
    jobs = []
    for c in cases:
        # (M,K), (N,K), (M,N) tensors of one problem size, no extra modes.
        m, n, k = (c.ref.tile_size(i) * rng.choice([1, 2, 3]) for i in range(3))
        for op, shape in zip("ABC", ((m, k), (n, k), (m, n))):
            c.tensors[op] = Layout(shape, G.Gen(rng).stride(shape, rng.choice(["compact", "perm"])))
        parts = [c.reference(op) for op in "ABC"]
        if None in parts:
            continue
        frags = [c.ref.make_fragment(op, c.tensors[op]) for op in "ABC"]
        jobs.append((c, frags))
    answers = Q.run(
        f"gemm_plan {c.keys} a={Q.layout_text(a)} b={Q.layout_text(b)} c={Q.layout_text(cc)}" for c, (a, b, cc) in jobs
    )
    failures = []
    for (case, (a, b, c)), ans in zip(jobs, answers):
        if not ans.ok:
            failures.append(f"{case}: rejected: {ans.error}")
            continue
        want = P.gemm_calls(c, a, b, c)
        if int(ans["calls"]) != len(want):
            failures.append(f"{case}: {ans['calls']} calls, reference {len(want)}")
            continue
        for i, call in enumerate(ans["list"].split(";")):
            mnk, rest = call.split(":", 1)
            got = Q.parse_offset_layouts(rest)[0]
            wmnk, *wops = want[i]
            if tuple(int(x) for x in mnk.split(",")) != wmnk or any(
                go != wo or not R.same_function(gl, wl) for (gl, go), (wl, wo) in zip(got, wops)
            ):
                failures.append(f"{case}: call {i}: {call}, reference {wmnk} {wops}")
                break
    report(failures, "gemm plan")


def test_gemm_plan_loops_k_outermost_and_serpentine():
    # (V,M,K) x (V,N,K) => (V,M,N) with M=2, N=3, K=2
    (ans,) = Q.run(["gemm_plan mma=fma a=(1,2,2):(0,1,2) b=(1,3,2):(0,1,3) c=(1,2,3):(0,1,2)"])
    assert ans.ok, ans.error
    order = [tuple(int(x) for x in call.split(":")[0].split(",")) for call in ans["list"].split(";")]
    serpentine = [(0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0)]
    assert order == [(m, n, k) for k in range(2) for m, n in serpentine]
    # (M,K) x (N,K) => (M,N): a unit value mode is prepended.
    (ans,) = Q.run(["gemm_plan mma=fma a=(2,2):(1,2) b=(2,2):(1,2) c=(2,2):(1,2)"])
    assert ans.ok and ans["calls"] == "8", ans


# ----------------------------------------------------------------------------
# Documented examples
# ----------------------------------------------------------------------------


def test_docs_gemm_tutorial_fma_16x16():
    """CuTe's GEMM tutorial: make_tiled_mma(UniversalFMA, Layout<Shape<_16,_16,_1>>)
    partitions a 128x8 sA to (MMA,MMA_M,MMA_K) = (1,8,8): thread t holds rows
    t%16 + 16i; sB to rows t/16 + 16j; a 128x128 sC to (1,8,8) at
    (t%16 + 16i, t/16 + 16j)."""
    keys = "mma=fma atom_layout=(16,16,1):(1,16,0)"
    info, a, b, c = Q.run(
        [
            f"mma_info {keys}",
            f"mma_partition {keys} operand=A tensor=(128,8):(1,128) thr_idx=all num_threads=256",
            f"mma_partition {keys} operand=B tensor=(128,8):(1,128) thr_idx=all num_threads=256",
            f"mma_partition {keys} operand=C tensor=(128,128):(1,128) thr_idx=all num_threads=256",
        ]
    )
    assert info.ok and info["size"] == "256" and info["tile"] == "(16,16,1)", info
    for ans in (a, b, c):
        assert ans.ok, ans.error
        assert profile(ans.layout()) == (1, 8, 8)
    ea, eb, ec = elements(a), elements(b), elements(c)
    for t in range(256):
        tm, tn = t % 16, t // 16
        assert ea[t] == sorted(tm + 16 * i + 128 * k for i in range(8) for k in range(8))
        assert eb[t] == sorted(tn + 16 * j + 128 * k for j in range(8) for k in range(8))
        assert ec[t] == sorted(tm + 16 * i + 128 * (tn + 16 * j) for i in range(8) for j in range(8))
    frags = Q.run([f"make_fragment {keys} operand={op} tile={tile}"
                   for op, tile in zip("ABC", ("(128,8):(1,128)", "(128,8):(1,128)", "(128,128):(1,128)"))])
    assert [f["layout"] for f in frags] == ["(1,8,8):(0,1,8)"] * 3


def _matrix_csv(name):
    """{(lane, register index): (row, col)} of an AMD layout table."""
    out = {}
    with open(LAYOUTS_DIR / name) as f:
        for row in csv.DictReader(f):
            lane = int(row.pop("lane"))
            for v, cell in enumerate(row.values()):
                r, c = re.fullmatch(r"[A-D]\[(\d+)\]\[(\d+)\]", cell).groups()
                out[(lane, v)] = (int(r), int(c))
    return out


MFMA_16x16x16 = (
    "mma_shape=(16,16,16) mma_thr=64:1 mma_a=((16,4),4):((1,64),16) "
    "mma_b=((16,4),4):((1,64),16) mma_c=((16,4),4):((16,4),1)"
)


def test_mfma_like_atom_partitions_as_the_isa_says():
    """A 64-lane atom record with CDNA3 v_mfma_f32_16x16x16_f16's layouts,
    tiled 2x2: lane l of atom (am, an) holds, in value v, the element the
    ISA table gives, shifted to the atom's tile."""
    keys = f"{MFMA_16x16x16} atom_layout=(2,2,1):(1,2,0)"
    # Row-major-free tensors: A is MxK, B is NxK, C is MxN, column-major.
    a, b, c = Q.run(
        [
            f"mma_partition {keys} operand=A tensor=(32,16):(1,32) thr_idx=all num_threads=256",
            f"mma_partition {keys} operand=B tensor=(32,16):(1,32) thr_idx=all num_threads=256",
            f"mma_partition {keys} operand=C tensor=(32,32):(1,32) thr_idx=all num_threads=256",
        ]
    )
    tables = {op: _matrix_csv(f"cdna3-w64-v_mfma_f32_16x16x16_f16-{op}.csv") for op in "ABC"}
    for op, ans in zip("ABC", (a, b, c)):
        assert ans.ok, ans.error
        layout, offsets = ans.layout(), Q.parse_offsets(ans["offsets"])
        assert profile(layout) == (4, 1, 1)
        for t in range(256):
            lane, atom = t % 64, t // 64
            am, an = atom % 2, atom // 2
            for v in range(4):
                r, col = tables[op][(lane, v)]
                if op == "A":  # A[m][k]
                    want = (16 * am + r) + 32 * col
                elif op == "B":  # B[k][n] in an NxK tensor
                    want = (16 * an + col) + 32 * r
                else:  # C[m][n]
                    want = (16 * am + r) + 32 * (16 * an + col)
                assert offsets[t] + layout(v) == want, f"{op}: thread {t} value {v}"


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, message",
    [
        ("mma_info mma_shape=(16,16) mma_thr=1:0 mma_a=(1,1):(0,0) mma_b=(1,1):(0,0) mma_c=(1,1):(0,0)", "three static"),
        ("mma_info mma_shape=(2,2,2) mma_thr=2:1 mma_a=(1,4):(0,1) mma_b=(2,2):(1,2) mma_c=(2,2):(1,2)", "threads"),
        ("mma_info mma_shape=(2,2,1) mma_thr=1:0 mma_a=(1,4):(0,1) mma_b=(1,2):(0,1) mma_c=(1,4):(0,1)", "outside"),
        ("mma_info mma=fma atom_layout=(2,2,2,2):(1,2,4,8)", "more than three"),
        ("mma_info mma=fma atom_layout=(2,2):(1,2) perm=[*|*|*|*]", "more than three"),
        ("mma_info mma=fma atom_layout=(2,?):(1,2)", "must be static"),
        ("mma_info mma=fma atom_layout=(2,2):(1,-2)", "non-negative"),
        ("mma_info mma=fma atom_layout=(2,2):(1,2) perm=[0:1|*|*]", "positive"),
        ("layout_tv thr=(4,8):(1024) val=(2,2):(1,2)", "not congruent"),
        ("layout_tv thr=(16777216,2):(1,16777216) val=1:0", "2^24"),
        ("thrfrg mma=fma operand=A tensor=16:1", "two modes"),
        ("mma_partition mma=fma atom_layout=(4,2,1):(0,1,0) operand=C tensor=(8,8):(1,8) thr_idx=1", "same thread"),
        ("make_fragment mma=fma operand=A tile=16:1", "the tile 16:1 needs at least two modes"),
        ("make_fragment mma=fma operand=A tile=16:1 stages=2", "the tile 16:1 needs at least two modes"),
        ("make_fragment mma=fma operand=A tile=(4,4):(1,4) stages=0", "positive"),
        ("gemm_plan mma=fma a=(1,2,2,2):(0,1,2,4) b=(1,2,2):(0,1,2) c=(1,2,2):(0,1,2)", "no dispatch"),
        ("gemm_plan mma=fma a=(1,2,2):(0,1,2) b=(1,2,3):(0,1,2) c=(1,2,2):(0,1,2)", "K mode"),
        ("gemm_plan mma=fma a=(2,2):(1,2) b=(2,2):(1,2) c=(2,2,2):(1,2,4)", "values"),
        ("gemm_plan mma=fma a=(2,2):(1,2) b=2:1 c=(2,2):(1,2)", "no dispatch"),
        ("gemm_plan mma=fma a=(1,?):(0,1) b=(1,2):(0,1) c=(1,2,2):(0,1,2)", "dynamic size"),
        ("mma_partition mma=fma operand=D tensor=(8,8):(1,8) thr_idx=0", "operand"),
    ],
)
def test_errors_are_reported(query, message):
    (ans,) = Q.run([query])
    assert not ans.ok, f"accepted: {ans.values}"
    assert message in ans.error, ans.error


def _wild_tuple(rng, depth=0):
    if depth < 2 and rng.random() < 0.3:
        return "(" + ",".join(_wild_tuple(rng, depth + 1) for _ in range(rng.randint(1, 4))) + ")"
    return rng.choice(["0", "1", "2", "3", "4", "8", "16", "-1", "-4", "?", "*", "64", "1024", "9223372036854775807"])


def _wild_layout(rng):
    shape = _wild_tuple(rng)
    # Mostly congruent strides, sometimes not.
    stride = re.sub(r"[-?*\d]+", lambda _: rng.choice(["0", "1", "2", "4", "-1", "?", "32"]), shape)
    return f"{shape}:{stride if rng.random() < 0.8 else _wild_tuple(rng)}"


def test_random_inputs_are_answered_never_crash():
    """Malformed and degenerate inputs (zero, negative, dynamic, `*` leaves,
    non-congruent layouts, huge values) give an answer or a diagnostic."""
    rng = random.Random(f"{SEED}/wild")
    ops = {
        "layout_tv": ["thr", "val"],
        "copy_info": ["thr", "val"],
        "copy_partition": ["thr", "val", "tensor"],
        "retile": ["thr", "val", "fragment"],
        "mma_info": ["atom_layout"],
        "mma_partition": ["atom_layout", "tensor"],
        "make_fragment": ["atom_layout", "tile"],
        "mma_layout_tv": ["atom_layout"],
        "fragment_like": ["layout"],
        "copy_plan": ["src", "dst"],
        "gemm_plan": ["a", "b", "c"],
    }
    queries = []
    for _ in range(int(os.environ.get("FLY_WILD_CASES", "1500"))):
        op = rng.choice(sorted(ops))
        words = [op] + [f"{k}={_wild_layout(rng)}" for k in ops[op]]
        words.append(rng.choice(["copy_bits=32 value_bits=16", "copy_bits=0 value_bits=8", "copy_bits=8 value_bits=32"]))
        words.append(rng.choice(["mma=fma", MFMA_16x16x16, "mma_shape=(2,2,2) mma_thr=2:1 mma_a=(2,2):(2,1) "
                                 "mma_b=(2,2):(1,2) mma_c=(2,2):(2,1)"]))
        words.append(f"side={rng.choice('SD')} operand={rng.choice('ABC')} thr_idx={rng.choice(['0', '5', '?'])}")
        if rng.random() < 0.3:
            words.append(f"perm=[{rng.choice(['*', '4', _wild_layout(rng)])}|*|{rng.choice(['*', '2'])}]")
        queries.append(" ".join(words))
    answers = Q.run(queries)  # fails the test if the tool dies or skips a line
    assert all(a.ok or a.error.startswith("error: ") for a in answers)
    assert sum(a.ok for a in answers) > 0 and sum(not a.ok for a in answers) > 0
