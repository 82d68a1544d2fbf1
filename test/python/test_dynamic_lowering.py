"""Dynamic leaves: the algebra lowered to arith, run, and compared to pycute.

For random static inputs that pycute (and CuTe's preconditions) accept, some
leaves are made dynamic: they become i32 function arguments, assembled with
`fly.make_int_tuple`. The op under test runs on those values; the case then
prints size(result) and crd2idx(i, result) for every 1-D index i (and, per
op, hierarchical-coordinate crd2idx or the leaves of idx2crd). The module is
lowered with `fly-opt --fly-layout-lowering ...` to LLVM and run with
mlir-runner; the printed numbers must equal pycute's on the static inputs.

Result types are never written by the test: a few `fly-opt` rounds without
passes infer the type of every intermediate value (an op's operand types
must be spelled, so each round types the ops whose operands are known).
"""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field

import pycute
import pytest
from pycute import Layout

import cute_ref as R
import fly_runner
from fly_types import Dyn, fmt_tuple, type_of
from layout_gen import Gen, to_tile

SEED = fly_runner.seed_from_env()
PER_OP = int(os.environ.get("FLY_DYNAMIC_CASES", "40"))
LOWERING = [
    "--fly-layout-lowering", "--fly-canonicalize", "--canonicalize",
    # vector.print of an i32 lowers to arith.extsi: vector before arith.
    "--convert-vector-to-llvm", "--convert-scf-to-cf", "--convert-arith-to-llvm",
    "--convert-cf-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts",
]


# ----------------------------------------------------------------------------
# Case model
# ----------------------------------------------------------------------------


@dataclass
class DOp:
    res: str
    op: str  # full op name, e.g. fly.make_layout
    operands: list
    attrs: str = ""
    result_type: str = None  # written out (make_int_tuple, get_scalar); else inferred
    loop: bool = False  # lives in the index loop of the final module


@dataclass
class DynCase:
    name: str
    op: str
    desc: str
    args: list = field(default_factory=list)  # [(name, concrete value)]
    statics: list = field(default_factory=list)  # [(name, type)]
    ops: list = field(default_factory=list)
    loops: list = field(default_factory=list)  # [(count, [print names])]
    prints: list = field(default_factory=list)  # names printed once, before the loops
    expected: list = field(default_factory=list)
    types: dict = field(default_factory=dict)
    n: int = 0

    def fresh(self, stem="v"):
        self.n += 1
        return f"{stem}{self.n}"

    def static(self, value):
        name = self.fresh("s")
        t = type_of(value)
        self.statics.append((name, t))
        self.types[name] = t
        return name

    def arg(self, value):
        name = self.fresh("d")
        self.args.append((name, value))
        self.types[name] = "i32"
        return name

    def add(self, op, operands, attrs="", result_type=None, loop=False):
        name = self.fresh()
        self.ops.append(DOp(name, op, list(operands), attrs, result_type, loop))
        if result_type:
            self.types[name] = result_type
        return name


def _dyn_mask(rng, t, ok, prob):
    """Replace some leaves of t (those with ok(leaf)) by Dyn(); returns the
    type tuple and the concrete values of the dynamic leaves (depth-first)."""
    vals = []

    def go(x):
        if isinstance(x, tuple):
            return tuple(go(e) for e in x)
        if ok(x) and rng.random() < prob:
            vals.append(x)
            return Dyn()
        return x

    return go(t), vals


def int_tuple(case: DynCase, value, typed, dyn_vals):
    """An int tuple operand: fly.static when static, else make_int_tuple."""
    if not dyn_vals:
        return case.static(value)
    names = [case.arg(v) for v in dyn_vals]
    return case.add("fly.make_int_tuple", names, result_type=type_of(typed))


def layout_operand(case, rng, L: Layout, dyn_shape=True, dyn_stride=True, prob=0.5):
    st, sv = _dyn_mask(rng, L.shape, lambda s: dyn_shape and s >= 2, prob)
    dt, dv = _dyn_mask(rng, L.stride, lambda d: dyn_stride and d != 0, prob)
    s = int_tuple(case, L.shape, st, sv)
    d = int_tuple(case, L.stride, dt, dv)
    return case.add("fly.make_layout", [s, d]), f"{fmt_tuple(st)}:{fmt_tuple(dt)}"


def eval_layout(case: DynCase, res: str, expected: Layout):
    """Print size(res), then res(i) for every 1-D index i."""
    sz = case.add("fly.size", [res])
    case.prints.append(case.add("fly.get_scalar", [sz], result_type="i32"))
    case.expected.append(R.size_of(expected.shape))
    i = "ITER"
    c = case.add("fly.make_int_tuple", [i], result_type="!fly.int_tuple<?>", loop=True)
    x = case.add("fly.crd2idx", [c, res], loop=True)
    xs = case.add("fly.get_scalar", [x], result_type="i32", loop=True)
    n = R.size_of(expected.shape)
    case.loops.append((n, [xs], None))
    case.expected += R.evaluate(expected).tolist()


def eval_coords(case: DynCase, res: str, L: Layout):
    """crd2idx of the full hierarchical coordinate of every index, built
    from dynamic leaves (computed with arith from the loop index)."""
    shape = L.shape
    leaves = R.flat(shape)
    names = [f"COORD{k}" for k in range(len(leaves))]
    typed = _map_leaves(shape, lambda _s: Dyn())
    c = case.add("fly.make_int_tuple", names, result_type=type_of(typed), loop=True)
    x = case.add("fly.crd2idx", [c, res], loop=True)
    xs = case.add("fly.get_scalar", [x], result_type="i32", loop=True)
    case.loops.append((R.size_of(shape), [xs], leaves))
    case.expected += R.evaluate(L).tolist()


def eval_idx2crd(case: DynCase, res: str, shape):
    i = "ITER"
    c = case.add("fly.make_int_tuple", [i], result_type="!fly.int_tuple<?>", loop=True)
    crd = case.add("fly.idx2crd", [c, res], loop=True)
    outs = []
    paths = list(R.leaf_paths(shape))
    for p in paths:
        if p:
            leaf = case.add("fly.get", [crd], attrs="{mode = array<i64: " + ", ".join(map(str, p)) + ">}", loop=True)
        else:
            leaf = crd
        outs.append(case.add("fly.get_scalar", [leaf], result_type="i32", loop=True))
    n = R.size_of(shape)
    case.loops.append((n, outs, None))
    for k in range(n):
        crd_k = pycute.idx2crd(k, shape)
        case.expected += [_at(crd_k, p) for p in paths]


def _at(t, path):
    for p in path:
        t = t[p]
    return t


def _map_leaves(t, f):
    return tuple(_map_leaves(e, f) for e in t) if isinstance(t, tuple) else f(t)


# ----------------------------------------------------------------------------
# Case builders, one per op
# ----------------------------------------------------------------------------


def _layout(g: Gen, max_size, pow2_prob=0.7, **kw):
    return g.universe(pow2_prob).layout(max_size=max_size, **kw)


def _pow2_leaves(x) -> bool:
    if isinstance(x, Layout):
        return _pow2_leaves(x.shape) and _pow2_leaves(x.stride)
    if isinstance(x, tuple):
        return all(_pow2_leaves(e) for e in x)
    return x is None or (isinstance(x, int) and (x & (x - 1)) == 0)


def _mergeless(A: Layout, *others) -> Layout:
    """Dynamic leaves keep CuTe from merging modes, and composition over an
    unmerged layout is only exact when every divisibility condition holds
    (always, for powers of two). Outside that universe, start coalesced."""
    return A if _pow2_leaves((A,) + others) else pycute.coalesce(A)


def build_composition(case, g, rng):
    A = _layout(g, 256)
    B = g.layout(max_size=64, max_depth=2, max_rank=3)
    A = _mergeless(A, B)
    v, exp = R.composition_verdict(A, B)
    if v != R.OK:
        return None
    a, at = layout_operand(case, rng, A)
    b, bt = layout_operand(case, rng, B, dyn_stride=False)
    eval_layout(case, case.add("fly.composition", [a, b]), exp)
    return f"composition({at}, {bt})"


def _divide_like(op, verdict_fn, product):
    def build(case, g, rng):
        # products compose with complement(A), which dynamic shapes leave
        # unmerged: powers of two only
        A = _layout(g, 64 if product else 256, pow2_prob=1.0 if product else 0.7, max_rank=3)
        use_tile = rng.random() < 0.5
        if use_tile:
            t = g.tile(A)
            if product:
                t = tuple(g.layout(max_size=8, max_depth=1, max_rank=2) if isinstance(m, Layout) else m for m in t)
            b_val = to_tile(t)
        else:
            t = g.layout(max_size=16, max_depth=2, max_rank=3)
            b_val = t
        if product and not _pow2_leaves((A, t)):
            return None
        A = _mergeless(A, t)
        v, exp = verdict_fn(A, t)
        if v != R.OK:
            return None
        # products take complement(A): dynamic shapes only, static strides
        a, at = layout_operand(case, rng, A, dyn_stride=not product)
        if use_tile:
            b, bt = case.static(b_val), type_of(b_val)
        else:
            b, bt = layout_operand(case, rng, t, dyn_stride=False)
        eval_layout(case, case.add(f"fly.{op}", [a, b]), exp)
        return f"{op}({at}, {bt})"

    return build


def build_rank_product(op):
    fn = R.blocked_product_verdict if op == "blocked_product" else R.raked_product_verdict

    def build(case, g, rng):
        A = _layout(g, 64, pow2_prob=1.0, max_rank=3, max_depth=2)
        B = g.layout(max_size=16, max_rank=3, max_depth=2)
        v, exp = fn(A, B)
        if v != R.OK:
            return None
        a, at = layout_operand(case, rng, A, dyn_stride=False)
        b, bt = layout_operand(case, rng, B, dyn_stride=False)
        eval_layout(case, case.add(f"fly.{op}", [a, b]), exp)
        return f"{op}({at}, {bt})"

    return build


def build_coalesce(case, g, rng):
    L = _layout(g, 512)
    a, at = layout_operand(case, rng, L)
    eval_layout(case, case.add("fly.coalesce", [a]), pycute.coalesce(L))
    return f"coalesce({at})"


def build_complement(case, g, rng):
    L = _layout(g, 256)
    n = rng.choice([pycute.cosize(L), 2 * pycute.cosize(L), R.size_of(L.shape) * 4])
    v, exp = R.complement_verdict(L, n)
    if v != R.OK:
        return None
    a, at = layout_operand(case, rng, L, dyn_stride=False)
    dyn = rng.random() < 0.5
    ct = int_tuple(case, n, Dyn() if dyn else n, [n] if dyn else [])
    eval_layout(case, case.add("fly.complement", [a, ct]), exp)
    return f"complement({at}, {'?' if dyn else n})"


def build_crd2idx(case, g, rng):
    L = _layout(g, 512)
    a, at = layout_operand(case, rng, L)
    eval_layout(case, a, L)
    eval_coords(case, a, L)
    return f"crd2idx(i, {at})"


def build_idx2crd(case, g, rng):
    L = _layout(g, 256)  # idx2crd ignores the strides (FlyOps.td)
    shape = L.shape
    a, at = layout_operand(case, rng, L)
    eval_idx2crd(case, a, shape)
    return f"idx2crd(i, {at})"


def build_size(case, g, rng):
    L = _layout(g, 4096)
    a, at = layout_operand(case, rng, L)
    sz = case.add("fly.size", [a])
    case.prints.append(case.add("fly.get_scalar", [sz], result_type="i32"))
    case.expected.append(R.size_of(L.shape))
    return f"size({at})"


BUILDERS = {
    "composition": build_composition,
    "logical_divide": _divide_like("logical_divide", R.logical_divide_verdict, False),
    "zipped_divide": _divide_like("zipped_divide", R.zipped_divide_verdict, False),
    "logical_product": _divide_like("logical_product", R.logical_product_verdict, True),
    "blocked_product": build_rank_product("blocked_product"),
    "raked_product": build_rank_product("raked_product"),
    "coalesce": build_coalesce,
    "complement": build_complement,
    "crd2idx": build_crd2idx,
    "idx2crd": build_idx2crd,
    "size": build_size,
}


def make_cases(rng):
    g = Gen(rng)
    cases = []
    for op, build in BUILDERS.items():
        made = 0
        for _ in range(PER_OP * 40):
            if made >= PER_OP:
                break
            case = DynCase(f"case_{len(cases)}", op, "")
            desc = build(case, g, rng)
            if desc is None or not case.args:
                continue
            case.desc = desc + "  with " + ", ".join(f"{n}={v}" for n, v in case.args)
            cases.append(case)
            made += 1
        assert made == PER_OP, f"{op}: only {made} dynamic cases (seed {SEED})"
    return cases


# ----------------------------------------------------------------------------
# Rendering and running
# ----------------------------------------------------------------------------


def render_op(case: DynCase, op: DOp, rename=None, with_result=True):
    rename = rename or {}
    name = lambda v: "%" + rename.get(v, v)
    types = ", ".join(case.types[o] if o in case.types else "i32" for o in op.operands)
    ops = ", ".join(name(o) for o in op.operands)
    attrs = f" {op.attrs}" if op.attrs else ""
    res = f" -> {case.types[op.res]}" if with_result and op.res in case.types else ""
    return f"%{op.res} = {op.op}({ops}){attrs} : ({types}){res}"


def _loop_args(case):
    """Loop-only SSA names (ITER, COORDk) as function arguments, for typing."""
    names = set()
    for op in case.ops:
        names.update(o for o in op.operands if o == "ITER" or o.startswith("COORD"))
    return sorted(names)


def infer_types(fly_opt, cases):
    """Type every op by rounds of fly-opt (no passes). Returns failures."""
    failures = {}
    pending = list(cases)
    for _round in range(12):
        batch = []
        emitted = {}
        for case in pending:
            ops = []
            for op in case.ops:
                if all(o in case.types or o == "ITER" or o.startswith("COORD") for o in op.operands):
                    ops.append(op)
            untyped = [op for op in ops if op.res not in case.types]
            if not untyped:
                continue
            body = [f"%{n} = fly.static : {t}" for n, t in case.statics]
            body += [render_op(case, op, with_result=op.result_type is not None) for op in ops]
            args = [f"%{n}: i32" for n, _ in case.args] + [f"%{n}: i32" for n in _loop_args(case)]
            batch.append(fly_runner.Case(case.name, body, args=", ".join(args)))
            emitted[case.name] = (case, ops)
        if not batch:
            break
        run = fly_runner.run(fly_opt, batch, split="auto")
        if run.crashed:
            crashers = fly_runner.find_crashers(fly_opt, batch)
            msg = "\n".join(f"  {emitted[c.name][0].desc}: rc={rc}\n    {err}" for c, rc, err in crashers)
            pytest.fail(f"fly-opt crashed while inferring dynamic types (seed {SEED}):\n{msg or fly_runner.tail(run.stderr)}", pytrace=False)
        for name, (case, ops) in emitted.items():
            res = run.cases[name]
            if not res.printed:
                failures[name] = ("rejected dynamic input", res.errors[0] if res.errors else "no diagnostic")
                continue
            if len(res.ops) != len(ops):
                failures[name] = ("unexpected printed ops", str(res.ops))
                continue
            for op, (_n, t) in zip(ops, res.ops):
                case.types[op.res] = t
        pending = [c for c in pending if c.name not in failures and any(op.res not in c.types for op in c.ops)]
    for c in pending:
        failures.setdefault(c.name, ("could not type every op", ""))
    return failures


def render_case(case: DynCase) -> str:
    lines = [f"func.func @{case.name}(" + ", ".join(f"%{n}: i32" for n, _ in case.args) + ") {"]
    lines += [f"  %{n} = fly.static : {t}" for n, t in case.statics]
    lines += ["  " + render_op(case, op) for op in case.ops if not op.loop]
    lines += [f"  vector.print %{p} : i32" for p in case.prints]
    loop_ops = [op for op in case.ops if op.loop]
    start = 0
    for k, (count, outs, coord_shape) in enumerate(case.loops):
        # the loop ops of loop k end with its printed names
        end = max(i for i, op in enumerate(loop_ops) if op.res in outs) + 1
        body_ops, start = loop_ops[start:end], end
        lines += [
            f"  %lb{k} = arith.constant 0 : index",
            f"  %ls{k} = arith.constant 1 : index",
            f"  %le{k} = arith.constant {count} : index",
            f"  scf.for %iv{k} = %lb{k} to %le{k} step %ls{k} {{",
            f"    %it{k} = arith.index_cast %iv{k} : index to i32",
        ]
        rename = {"ITER": f"it{k}"}
        if coord_shape:
            rest = f"it{k}"
            for j, s in enumerate(coord_shape):
                lines.append(f"    %cs{k}_{j} = arith.constant {s} : i32")
                if j + 1 < len(coord_shape):
                    lines.append(f"    %co{k}_{j} = arith.remui %{rest}, %cs{k}_{j} : i32")
                    lines.append(f"    %cr{k}_{j} = arith.divui %{rest}, %cs{k}_{j} : i32")
                    rename[f"COORD{j}"] = f"co{k}_{j}"
                    rest = f"cr{k}_{j}"
                else:
                    rename[f"COORD{j}"] = rest
        lines += ["    " + render_op(case, op, rename) for op in body_ops]
        lines += [f"    vector.print %{o} : i32" for o in outs]
        lines.append("  }")
    lines += ["  return", "}"]
    return "\n".join(lines)


def render_main(cases) -> str:
    lines = ["func.func @main() {"]
    for case in cases:
        lines.append(f'  vector.print str "CASE {case.name}\\n"')
        for n, v in case.args:
            lines.append(f"  %{case.name}_{n} = arith.constant {v} : i32")
        args = ", ".join(f"%{case.name}_{n}" for n, _ in case.args)
        sig = ", ".join("i32" for _ in case.args)
        lines.append(f"  func.call @{case.name}({args}) : ({sig}) -> ()")
    lines.append('  vector.print str "CASE end\\n"')
    lines += ["  return", "}"]
    return "\n".join(lines)


def lower_each(fly_opt, cases):
    """Lower every case on its own chunk; returns {name: diagnostic} of failures."""
    with tempfile.TemporaryDirectory(prefix="flydyn") as d:
        path = os.path.join(d, "cases.mlir")
        texts, ranges, line = [], {}, 1
        for case in cases:
            t = render_case(case)
            ranges[case.name] = (line, line + t.count("\n"))
            line += t.count("\n") + 2
            texts.append(t)
        with open(path, "w") as f:
            f.write("\n// -----\n".join(texts) + "\n")
        p = subprocess.run([fly_opt, "--split-input-file", *LOWERING, path], capture_output=True, text=True, timeout=600)
    if p.returncode < 0 or any(m in p.stderr for m in fly_runner.CRASH_MARKERS):
        pytest.fail(f"fly-opt crashed lowering the dynamic cases (seed {SEED}):\n{fly_runner.tail(p.stderr)}", pytrace=False)
    results = {}
    fly_runner.parse_diagnostics(p.stderr, ranges, results, path)
    return {name: r.errors[0] for name, r in results.items() if r.errors}


def execute(fly_opt, mlir_runner, libs, cases):
    module = "\n".join(render_case(c) for c in cases) + "\n" + render_main(cases) + "\n"
    with tempfile.TemporaryDirectory(prefix="flydyn") as d:
        path = os.path.join(d, "module.mlir")
        with open(path, "w") as f:
            f.write(module)
        low = subprocess.run([fly_opt, *LOWERING, path], capture_output=True, text=True, timeout=600)
        if low.returncode != 0:
            return None, f"lowering the whole module failed: {fly_runner.tail(low.stderr)}"
        run = subprocess.run(
            [mlir_runner, "-e", "main", "-entry-point-result=void", "-shared-libs=" + ",".join(libs)],
            input=low.stdout, capture_output=True, text=True, timeout=600,
        )
    printed = defaultdict(list)
    current = None
    for ln in run.stdout.splitlines():
        if ln.startswith("CASE "):
            current = ln[5:].strip()
            continue
        if current is not None:
            try:
                printed[current].append(int(ln.strip()))
            except ValueError:
                printed[current].append(ln.strip())
    if run.returncode != 0 or "end" not in run.stdout.split("CASE ")[-1]:
        return printed, f"mlir-runner rc={run.returncode} after case {current}: {fly_runner.tail(run.stderr)}"
    return printed, None


def require_passes(fly_opt):
    help_text = subprocess.run([fly_opt, "--help"], capture_output=True, text=True, timeout=60).stdout
    missing = [p for p in LOWERING if p.startswith("--fly-") and p not in help_text]
    if missing:
        pytest.fail(f"fly-opt lacks the passes {missing}; the dynamic-leaf test lowers with {' '.join(LOWERING)}", pytrace=False)


def test_dynamic_leaves_match_pycute(fly_opt, mlir_runner, runner_libs):
    require_passes(fly_opt)
    rng = random.Random(f"{SEED}/dynamic")
    cases = make_cases(rng)
    by_name = {c.name: c for c in cases}
    failures = infer_types(fly_opt, cases)
    runnable = [c for c in cases if c.name not in failures]
    printed, crash = execute(fly_opt, mlir_runner, runner_libs, runnable) if runnable else ({}, None)
    if crash and printed is None:
        # The module did not lower: find the cases that fail on their own.
        for name, diag in lower_each(fly_opt, runnable).items():
            failures[name] = ("lowering failed", diag)
        runnable = [c for c in runnable if c.name not in failures]
        printed, crash = execute(fly_opt, mlir_runner, runner_libs, runnable) if runnable else ({}, None)
    if crash and printed is None:
        pytest.fail(f"seed {SEED}: {crash}", pytrace=False)
    if crash:
        # Narrow down: run the cases one by one (only on a crash).
        for c in runnable:
            got, err = execute(fly_opt, mlir_runner, runner_libs, [c])
            if err:
                failures[c.name] = ("execution failed", err)
            else:
                printed[c.name] = got.get(c.name, [])
    for c in runnable:
        if c.name in failures:
            continue
        got = printed.get(c.name, [])
        if got != c.expected:
            k = next((i for i, (a, b) in enumerate(zip(got, c.expected)) if a != b), min(len(got), len(c.expected)))
            ours = got[k] if k < len(got) else "<missing>"
            want = c.expected[k] if k < len(c.expected) else "<nothing>"
            failures[c.name] = ("wrong value", f"printed value #{k} (0 = size): ours {ours}, pycute {want}; "
                                               f"{len(got)} printed, {len(c.expected)} expected")
    if failures:
        groups = defaultdict(list)
        for name, (cls, detail) in failures.items():
            groups[(by_name[name].op, cls)].append((by_name[name], detail))
        lines = [f"{len(failures)} of {len(cases)} dynamic cases disagree with pycute; seed {SEED} (FLY_TEST_SEED)"]
        for (op, cls), items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  [{op}] {cls}: {len(items)}")
            for c, detail in items[:3]:
                lines.append(f"    {c.desc}\n      {detail}")
        pytest.fail("\n".join(lines), pytrace=False)
