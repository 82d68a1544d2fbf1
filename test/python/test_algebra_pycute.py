"""Differential test of fly's layout algebra against pycute (SPEC §2.4).

For every op group, thousands of random static cases go through a single
`fly-opt --split-input-file` run: inputs are `fly.static` values, the op
under test is written without its result type, and fly-opt prints the type
it inferred. That type is parsed back into a pycute object and compared by
function (size, and the index of every 1-D coordinate) and by rank structure
where CuTe fixes it. Inputs that CuTe's preconditions reject (pycute raises)
must be rejected with a located diagnostic. The `*_basis` groups give the
left-hand layout basis strides (identity layouts, coordinate-tensor-like
layouts, scaled bases); pycute runs on their radix encoding
(cute_ref.BasisRadix) and the results are compared pointwise as vectors over
the basis paths.

Reproduce a failure with FLY_TEST_SEED=<seed printed in the message>;
FLY_ALGEBRA_CASES sets the number of "must succeed" cases per group.
"""

from __future__ import annotations

import os
import random
from collections import defaultdict

import pytest

import cute_ref as R
import fly_runner
from algebra_cases import AlgCase, identity_crd2idx_case, registry
from fly_types import TypeSyntaxError, parse_value, type_of
from layout_gen import Gen

SEED = fly_runner.seed_from_env()
N_OK = int(os.environ.get("FLY_ALGEBRA_CASES", "2000"))
REGISTRY = registry(N_OK)
SHOW = 3  # reproducers shown per mismatch class


def collect(group):
    """Draw cases until `want` must-succeed cases exist; keep the rejects
    (and the inputs only pycute accepts) met on the way, up to a tenth as
    many."""
    builder, want = REGISTRY[group]
    rng = random.Random(f"{SEED}/{group}")
    g = Gen(rng)
    ok, rejects, skipped = [], [], 0
    for _ in range(want * 30):
        if len(ok) >= want:
            break
        case = builder(g, rng)
        if case is None or case.verdict == R.SKIP:
            skipped += 1
        elif case.verdict in (R.REJECT, R.EITHER):
            if len(rejects) < max(want // 10, 20):
                rejects.append(case)
        else:
            ok.append(case)
    assert len(ok) >= want, f"{group}: generator made only {len(ok)} valid cases (seed {SEED})"
    return ok, rejects, skipped


def fmt_value(v):
    if v is None:
        return "-"
    try:
        return type_of(v)
    except Exception:
        return repr(v)


def judge(case: AlgCase, res: fly_runner.CaseResult):
    """None when fly-opt agrees with the oracle, else (class, detail)."""
    if case.verdict == R.REJECT:
        if res.printed:
            return "accepted invalid input", "result " + ", ".join(str(t) for _, t in res.ops)
        if not res.errors:
            return "rejected without a located diagnostic", ""
        return None
    if not res.printed:
        if case.verdict == R.EITHER and res.errors:
            return None  # CuTe rejects it too
        return "rejected valid input", res.errors[0] if res.errors else "no diagnostic on the case's lines"
    if len(res.ops) != len(case.probes):
        return "missing result", f"printed ops {res.ops}"
    for k, ((_name, type_text), probe) in enumerate(zip(res.ops, case.probes)):
        if type_text is None:
            return "no result type printed", f"op {k}"
        try:
            value = parse_value(type_text)
        except TypeSyntaxError as e:
            return "unparseable result type", f"{type_text} ({e})"
        bad = probe.check(value, probe.expected)
        if bad:
            cls, detail = bad
            if case.verdict == R.EITHER:
                cls = f"{cls} (input outside CuTe's preconditions: reject it or give pycute's answer)"
            return cls, f"{detail}; ours {type_text}, expected {fmt_value(probe.expected)}" + (f" (op {k})" if len(case.probes) > 1 else "")
    return None


def run_and_judge(fly_opt, group, cases):
    named = [fly_runner.Case(f"case_{i}", c.body) for i, c in enumerate(cases)]
    valid = [n for n, c in zip(named, cases) if c.verdict == R.OK]
    others = [n for n, c in zip(named, cases) if c.verdict != R.OK]
    # Valid cases in blocks, each first as one module (fast), split into one
    # chunk per case only when the block has an error; invalid ones split.
    blocks = [(valid[i : i + 500], "auto") for i in range(0, len(valid), 500)] + [(others, True)]
    results = {}
    for block, split in blocks:
        if not block:
            continue
        run = fly_runner.run(fly_opt, block, split=split)
        if run.crashed:
            crashers = fly_runner.find_crashers(fly_opt, block)
            lines = [f"[{group}] fly-opt crashed (rc={run.returncode}, seed {SEED}); crashing cases:"]
            for nc, rc, err in crashers:
                lines.append(f"  {cases[int(nc.name.split('_')[1])].inputs}  rc={rc}\n    " + err.replace("\n", "\n    "))
            if not crashers:
                lines.append("  (no single case crashes alone)\n" + fly_runner.tail(run.stderr))
            pytest.fail("\n".join(lines), pytrace=False)
        results.update(run.cases)
    mismatches = defaultdict(list)
    for c, nc in zip(cases, named):
        bad = judge(c, results[nc.name])
        if bad:
            mismatches[bad[0]].append((c, bad[1]))
    return mismatches


def report(group, mismatches, n_ok, n_rej, skipped):
    total = sum(len(v) for v in mismatches.values())
    lines = [f"[{group}] {total} mismatches in {n_ok} valid + {n_rej} invalid cases "
             f"({skipped} skipped: CuTe and pycute disagree); seed {SEED} (FLY_TEST_SEED)"]
    for cls, items in sorted(mismatches.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  {cls}: {len(items)}")
        for c, detail in items[:SHOW]:
            lines.append(f"    {c.inputs}")
            lines.append(f"      {detail}")
    return "\n".join(lines)


@pytest.mark.parametrize("group", sorted(REGISTRY))
def test_algebra_matches_pycute(fly_opt, group):
    ok, rejects, skipped = collect(group)
    mismatches = run_and_judge(fly_opt, group, ok + rejects)
    if mismatches:
        pytest.fail(report(group, mismatches, len(ok), len(rejects), skipped), pytrace=False)


def test_identity_layout_crd2idx_gives_coordinates(fly_opt):
    """crd2idx through the basis strides of fly's own make_identity_layout
    result returns the coordinate (pycute idx2crd), for index and
    coordinate inputs."""
    rng = random.Random(f"{SEED}/identity")
    g = Gen(rng)
    shapes = [g.universe(0.5).shape(max_size=256) for _ in range(N_OK // 4)]
    probe = []
    for s in shapes:
        w_static = f"%v0 = fly.static : {type_of(s)}"
        probe.append(fly_runner.Case(f"case_{len(probe)}", [w_static, f"%v1 = fly.make_identity_layout(%v0) : ({type_of(s)})"]))
    run = fly_runner.run(fly_opt, probe)
    assert not run.crashed, fly_runner.tail(run.stderr)
    cases = []
    for s, pc in zip(shapes, probe):
        res = run.cases[pc.name]
        if res.printed and res.ops and res.ops[0][1]:
            cases.append(identity_crd2idx_case(s, res.ops[0][1], rng))
    assert len(cases) >= len(shapes) // 2, f"make_identity_layout failed on most shapes (seed {SEED})"
    mismatches = run_and_judge(fly_opt, "identity crd2idx", cases)
    if mismatches:
        pytest.fail(report("identity crd2idx", mismatches, len(cases), 0, 0), pytrace=False)
