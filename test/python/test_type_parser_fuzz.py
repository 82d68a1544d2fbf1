"""Fuzz the parser of the `!fly.*` types (SPEC §2.1-2.2).

* A few hundred mangled type strings (truncated, brackets dropped or
  doubled, bad leaves, overflowing numbers, non-congruent layouts, bad
  swizzles), each in its own `fly.static : T` chunk: every one must be
  rejected with a located diagnostic (`file:line:col: error:` on its own
  lines), and fly-opt must never crash.
* Valid type strings, random and hand-picked, must print back exactly as
  written (as function argument types, and as `fly.static` types when
  static).

fly_types.is_valid_type is the validity oracle: a mangled string it accepts
is not used as a negative case.
"""

from __future__ import annotations

import random
import re
import subprocess
import tempfile
import os

import pytest
import pycute

import fly_runner
from fly_types import Basis, Dyn, Tile, is_valid_type, type_of
from layout_gen import Gen

SEED = fly_runner.seed_from_env()
N_BAD = 400
N_GOOD = 300

BAD_LEAVES = ["?{div=0}", "?{div=x}", "?{div=-4}", "?{div=}", "?{i65}", "?{", "E", "1E", "E0",
              "1E-1", "1EE0", "(,)", "(4,)", "(,4)", "--3", "4-", "99999999999999999999", "-99999999999999999999",
              "0x10", "4.0", "??", "*E0", "?E", "1E0E", "(4 8)"]

HAND_BAD = [
    "!fly.int_tuple<>", "!fly.int_tuple<(4,8>", "!fly.int_tuple<(4,(8,2)>", "!fly.int_tuple<4,8>",
    "!fly.int_tuple<(4,8))>", "!fly.int_tuple<?{div=0}>", "!fly.int_tuple<?{div=x}>", "!fly.int_tuple<E>",
    "!fly.int_tuple<1E>", "!fly.int_tuple<(,)>", "!fly.int_tuple<99999999999999999999>",
    "!fly.layout<(4,8):(1)>", "!fly.layout<(4,8):1>", "!fly.layout<4:(1,4)>", "!fly.layout<(4,(8,2)):(1,(4,8,16))>",
    "!fly.layout<(4,8)>", "!fly.layout<(4,8):>", "!fly.layout<:(1,4)>", "!fly.layout<(4,8):(1,4):(1,1)>",
    "!fly.layout<(-4,8):(1,4)>", "!fly.layout<(*,8):(1,4)>", "!fly.layout<(4,8):(1,*)>",
    "!fly.swizzle<S<3,4,1>>", "!fly.swizzle<S<-1,4,3>>", "!fly.swizzle<S<3,-4,3>>", "!fly.swizzle<S<3,4>>",
    "!fly.swizzle<S<3,4,3,1>>", "!fly.swizzle<X<3,4,3>>", "!fly.swizzle<3,4,3>", "!fly.swizzle<S<3,4,3>",
    "!fly.swizzle<S<a,4,3>>",
    "!fly.composed_layout<S<3,4,3> o 0>", "!fly.composed_layout<S<3,4,3> o (8,64):(64,1)>",
    "!fly.composed_layout<S<3,4,3> o 0 o>", "!fly.composed_layout<S<3,4,1> o 0 o (8,64):(64,1)>",
    "!fly.composed_layout<S<3,4,3> 0 (8,64):(64,1)>", "!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64)>",
    "!fly.tile<[4|*>", "!fly.tile<4|*]>", "!fly.tile<[4||2]>", "!fly.tile<[4|*|(2,2):(1)]>", "!fly.tile<[]>",
    "!fly.tile<[4|[2|*]>", "!fly.tile<[-4]>",
    "!fly.layuot<(4,8):(1,4)>", "!fly.int_tuple", "!fly.int_tuple<(4,8)",
]

HAND_GOOD = [
    "!fly.int_tuple<(4,(8,?))>", "!fly.int_tuple<8>", "!fly.int_tuple<?>", "!fly.int_tuple<?{i64}>",
    "!fly.int_tuple<?{div=16}>", "!fly.int_tuple<?{i64 div=16}>", "!fly.int_tuple<*>", "!fly.int_tuple<1E0>",
    "!fly.int_tuple<2E1E0>", "!fly.int_tuple<?E1>", "!fly.int_tuple<(4,(8,?{div=8}))>", "!fly.int_tuple<(*,3,(*,1))>",
    "!fly.layout<(4,8):(1,4)>", "!fly.layout<8:1>", "!fly.layout<(4,8):(1E0,1E1)>", "!fly.layout<(128,64):(1,?)>",
    "!fly.layout<((32,4),(16,4)):((1,32),(?,?{div=16}))>", "!fly.swizzle<S<3,4,3>>", "!fly.swizzle<S<0,0,0>>",
    "!fly.swizzle<S<2,3,-3>>", "!fly.composed_layout<S<3,4,3> o 0 o (8,64):(64,1)>",
    "!fly.composed_layout<(8,64):(64,1) o 4 o (8,8):(1,8)>", "!fly.tile<[4|*|(2,2):(1,4)|[2|*]]>",
    "!fly.tile<[32|16]>", "!fly.tile<[*]>",
]


# ----------------------------------------------------------------------------
# Generators
# ----------------------------------------------------------------------------


def rand_leaf(rng, allow_dyn=True, allow_none=True, allow_basis=True, allow_neg=True):
    r = rng.random()
    if allow_dyn and r < 0.2:
        return Dyn(wide=rng.random() < 0.3, div=rng.choice([1, 1, 2, 4, 16]))
    if allow_none and r < 0.27:
        return None
    if allow_basis and r < 0.35:
        value = Dyn() if allow_dyn and rng.random() < 0.2 else rng.randint(1, 8)
        return Basis(value, tuple(rng.randint(0, 3) for _ in range(rng.randint(1, 3))))
    if allow_neg and r < 0.4:
        return -rng.randint(1, 100)
    return rng.choice([0, 1, 2, 3, 4, 8, 16, 64, 1024, 2**31, 2**40])


def rand_tuple(rng, depth=3, **kw):
    if depth == 0 or rng.random() < 0.4:
        return rand_leaf(rng, **kw)
    return tuple(rand_tuple(rng, depth - 1, **kw) for _ in range(rng.randint(2, 3)))


def rand_layout(rng, g: Gen, allow_dyn=True):
    shape = g.universe().shape(max_size=4096)

    def shape_leaf(s):
        return Dyn(div=rng.choice([1, 4])) if allow_dyn and rng.random() < 0.15 else s

    def stride_leaf(d):
        r = rng.random()
        if allow_dyn and r < 0.15:
            return Dyn(wide=rng.random() < 0.2, div=rng.choice([1, 8]))
        if r < 0.22:
            return -d if d else d
        return d

    stride = g.stride(shape)
    return pycute.Layout(_map(shape, shape_leaf), _map(stride, stride_leaf))


def _map(t, f):
    return tuple(_map(e, f) for e in t) if isinstance(t, tuple) else f(t)


def rand_tile(rng, g: Gen, depth=2):
    modes = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.25:
            modes.append(None)
        elif r < 0.55:
            modes.append(rng.choice([1, 2, 4, 8, 32]))
        elif r < 0.85 or depth == 0:
            # a layout mode that cannot be written as a bare N
            lay = g.layout(max_size=64, max_depth=1, max_rank=2)
            if not isinstance(lay.shape, tuple) and lay.stride == 1:
                lay = pycute.Layout(lay.shape, 2)
            modes.append(lay)
        else:
            modes.append(rand_tile(rng, g, depth - 1))
    return Tile(tuple(modes))


def rand_valid_type(rng, g: Gen, static_only=False):
    kind = rng.choice(["int_tuple", "layout", "layout", "swizzle", "composed", "tile"])
    dyn = not static_only
    if kind == "int_tuple":
        return type_of(rand_tuple(rng, allow_dyn=dyn))
    if kind == "layout":
        return type_of(rand_layout(rng, g, allow_dyn=dyn))
    if kind == "swizzle":
        return type_of(g.swizzle())
    if kind == "composed":
        outer = rand_layout(rng, g, allow_dyn=False)
        inner = g.swizzle() if rng.random() < 0.7 else g.layout(max_size=512)
        return type_of(pycute.ComposedLayout(inner, rng.randint(0, 64), outer))
    return type_of(rand_tile(rng, g))


BRACKETS = "()<>[]{}"


def mangle(rng, text):
    """One random corruption of a type string."""
    kind = rng.choice(["truncate", "drop", "dup", "leaf", "leaf", "noncongruent", "swizzle", "overflow"])
    if kind == "truncate":
        return text[: rng.randint(1, len(text) - 1)]
    if kind in ("drop", "dup"):
        spots = [i for i, ch in enumerate(text) if ch in BRACKETS]
        i = rng.choice(spots)
        return text[:i] + text[i + 1 :] if kind == "drop" else text[:i] + text[i] + text[i:]
    if kind == "overflow":
        nums = list(re.finditer(r"\d+", text))
        if not nums:
            return text[:-1]
        m = rng.choice(nums)
        return text[: m.start()] + rng.choice(["99999999999999999999", "18446744073709551616"]) + text[m.end() :]
    if kind == "noncongruent":
        m = re.search(r":\(([^()]*?),([^(),]*)\)", text)
        if m:  # drop the last element of an innermost stride tuple
            return text[: m.start()] + ":(" + m.group(1) + ")" + text[m.end() :]
        return text.replace(":", ":(", 1)
    if kind == "swizzle":
        return re.sub(r"S<(\d+),(\d+),(-?\d+)>", lambda m: rng.choice(["S<3,4,1>", "S<-1,2,3>", "S<2,-1,3>", "S<3,4>", "S<1,1,1,1>"]), text) if "S<" in text else text + ">"
    # replace one leaf by a bad one
    leaves = list(re.finditer(r"(?<=[(,<:|\[])([^(),<>:|\[\]]+)(?=[),>|\]])", text))
    if not leaves:
        return text + rng.choice(BAD_LEAVES)
    m = rng.choice(leaves)
    return text[: m.start()] + rng.choice(BAD_LEAVES) + text[m.end() :]


def bad_types(rng, g):
    out = list(HAND_BAD)
    seen = set(out)
    tries = 0
    while len(out) < N_BAD and tries < N_BAD * 50:
        tries += 1
        t = mangle(rng, rand_valid_type(rng, g))
        if t in seen or is_valid_type(t):
            continue
        seen.add(t)
        out.append(t)
    return out


def good_types(rng, g, static_only):
    out = [t for t in HAND_GOOD if not static_only or "?" not in t]
    while len(out) < N_GOOD:
        out.append(rand_valid_type(rng, g, static_only))
    return out


# ----------------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------------


def _crash_report(fly_opt, cases, texts, run):
    crashers = fly_runner.find_crashers(fly_opt, cases)
    lines = [f"fly-opt crashed on the batch (rc={run.returncode}, seed {SEED}); crashing inputs:"]
    for c, rc, err in crashers:
        lines.append(f"  {texts[c.name]}  rc={rc}\n    " + err.replace("\n", "\n    "))
    if not crashers:
        lines.append(fly_runner.tail(run.stderr))
    return "\n".join(lines)


def test_oracle_rejects_hand_written_bad_types():
    """The validity oracle itself: hand-written bad strings are invalid,
    hand-written good ones valid (guards the fuzz test against a lax oracle)."""
    assert [t for t in HAND_BAD if is_valid_type(t)] == []
    assert [t for t in HAND_GOOD if not is_valid_type(t)] == []


def test_mangled_types_are_rejected_with_location(fly_opt):
    rng = random.Random(f"{SEED}/fuzz-bad")
    g = Gen(rng)
    texts = bad_types(rng, g)
    assert len(texts) >= 200, f"only {len(texts)} mangled strings (seed {SEED})"
    cases = [fly_runner.Case(f"case_{i}", [f"%v = fly.static : {t}"]) for i, t in enumerate(texts)]
    by_name = {c.name: t for c, t in zip(cases, texts)}
    run = fly_runner.run(fly_opt, cases)
    if run.crashed:
        pytest.fail(_crash_report(fly_opt, cases, by_name, run), pytrace=False)
    assert run.returncode != 0
    accepted = [by_name[n] for n, r in run.cases.items() if r.printed]
    unlocated = [by_name[n] for n, r in run.cases.items() if not r.printed and not r.errors]
    msgs = []
    if accepted:
        msgs.append(f"{len(accepted)} invalid types accepted, e.g.:\n  " + "\n  ".join(accepted[:15]))
    if unlocated:
        msgs.append(f"{len(unlocated)} rejected without a `:line:col: error:` on their lines, e.g.:\n  " + "\n  ".join(unlocated[:15]))
    if msgs:
        pytest.fail(f"seed {SEED} (FLY_TEST_SEED), {len(texts)} mangled types\n" + "\n".join(msgs), pytrace=False)


def test_single_bad_type_exit_code(fly_opt):
    """Without --split-input-file: a non-zero exit and a located error."""
    rng = random.Random(f"{SEED}/fuzz-single")
    picks = rng.sample(HAND_BAD, 8)
    failures = []
    for t in picks:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "one.mlir")
            with open(path, "w") as f:
                f.write(f"func.func @f() {{\n  %v = fly.static : {t}\n  return\n}}\n")
            p = subprocess.run([fly_opt, path], capture_output=True, text=True, timeout=60)
        if p.returncode <= 0 or not re.search(r":\d+:\d+: error:", p.stderr) or any(m in p.stderr for m in fly_runner.CRASH_MARKERS):
            failures.append(f"{t}: rc={p.returncode} stderr={p.stderr.strip()[:200]!r}")
    assert not failures, "\n".join(failures)


def _printed_arg_type(lines):
    """The type of %arg0 in the printed `func.func @name(%arg0: T)` line."""
    head = lines[0]
    start = head.index("(") + 1
    depth = 0
    for i in range(start, len(head)):
        ch = head[i]
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            if depth == 0:
                return head[start:i].split(":", 1)[1].strip()
            depth -= 1
    return None


def test_valid_types_round_trip(fly_opt):
    rng = random.Random(f"{SEED}/fuzz-good")
    g = Gen(rng)
    texts = good_types(rng, g, static_only=False)
    statics = good_types(rng, g, static_only=True)
    for t in texts + statics:
        assert is_valid_type(t), t
    cases = [fly_runner.Case(f"case_{i}", [], args=f"%a: {t}") for i, t in enumerate(texts)]
    cases += [fly_runner.Case(f"case_{len(texts) + i}", [f"%v = fly.static : {t}"]) for i, t in enumerate(statics)]
    by_name = {c.name: t for c, t in zip(cases, texts + statics)}
    run = fly_runner.run(fly_opt, cases)
    if run.crashed:
        pytest.fail(_crash_report(fly_opt, cases, by_name, run), pytrace=False)
    rejected, changed = [], []
    for c in cases:
        r = run.cases[c.name]
        want = by_name[c.name]
        if not r.printed:
            rejected.append(f"{want}: {r.errors[0] if r.errors else 'no diagnostic'}")
            continue
        if c.args:
            got = _printed_arg_type(r.lines)
        else:
            got = next((ln.split(" : ", 1)[1].strip() for ln in r.lines if "fly.static" in ln), None)
        if got != want:
            changed.append(f"{want}  printed as  {got}")
    msgs = []
    if rejected:
        msgs.append(f"{len(rejected)} valid types rejected, e.g.:\n  " + "\n  ".join(rejected[:15]))
    if changed:
        msgs.append(f"{len(changed)} types do not print back as written, e.g.:\n  " + "\n  ".join(changed[:15]))
    if msgs:
        pytest.fail(f"seed {SEED} (FLY_TEST_SEED), {len(cases)} valid types\n" + "\n".join(msgs), pytrace=False)
