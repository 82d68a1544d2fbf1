"""Random fly.copy and fly.gemm through stage A: no crash, located errors.

Each case builds tensors inside a function (global and shared ones from
pointer arguments, register ones with fly.memref.alloca) with random
shapes, strides, swizzles, element types, atoms and predicates, and calls
fly.copy or fly.gemm on them. The verifier rejects what does not fit the
atom; what it accepts must go through fly-layout-lowering,
fly-convert-atom-call-to-ssa-form, fly-promote-regmem-to-vectorssa and
convert-fly-to-rocdl either completely (no fly op, no alloca left) or with
a `file:line:col: error:`. fly-opt must never die of a signal or an
assertion.
"""

import os
import random
import re
import subprocess

import pytest

SEED = int(os.environ.get("FLY_TEST_SEED", "20261129"))
CASES = 300
PASSES = ["--fly-layout-lowering", "--canonicalize", "--fly-convert-atom-call-to-ssa-form",
          "--fly-promote-regmem-to-vectorssa", "--convert-fly-to-rocdl", "--canonicalize"]
CRASH_MARKERS = ("Stack dump", "Assertion", "PLEASE submit a bug report", "LLVM ERROR")
SPACES = {"global": 1, "shared": 3}


def _value_mode(rng):
    """A value mode: N, (N) or (a,b), with a compact or a strided layout."""
    a = rng.choice([1, 2, 4, 8])
    if rng.random() < 0.3:
        b = rng.choice([1, 2])
        return f"({a},{b})", f"(1,{a})" if rng.random() < 0.8 else f"({rng.choice([1, 2])},{a * 2})"
    return str(a), "1" if rng.random() < 0.8 else str(rng.choice([0, 2, 3]))


def _layout(rng, value, rest):
    """((value), rest...) with compact strides after the value mode's."""
    vshape, vstride = value
    modes, strides, step = [vshape], [vstride], 16
    for n in rest:
        modes.append(str(n))
        strides.append(str(step))
        step *= n * rng.choice([1, 2])
    if len(modes) == 1:
        return f"{modes[0]}:{strides[0]}"
    return f"({','.join(modes)}):({','.join(strides)})"


class Builder:
    def __init__(self, rng):
        self.rng, self.lines, self.args, self.n = rng, [], [], 0

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def tensor(self, element, layout, space=None):
        """A memref of `layout` in a random (or the given) address space."""
        space = space or self.rng.choice(["global", "shared", "register"])
        if space == "register":
            t = f"!fly.memref<{element}, register, {layout}>"
            v = self.fresh()
            self.lines.append(f"{v} = fly.memref.alloca : {t}")
            return v, t
        if space == "shared" and self.rng.random() < 0.3:
            layout = f"S<{self.rng.choice([1, 2, 3])},{self.rng.choice([0, 1, 2, 3])},3> o 0 o {layout}"
        arg = f"%p{len(self.args)}"
        self.args.append(f"{arg}: !llvm.ptr<{SPACES[space]}>")
        ptr_t = f"!fly.ptr<{element}, {space}, align<16>>"
        p, l, v = self.fresh(), self.fresh(), self.fresh()
        layout_t = (f"!fly.composed_layout<{layout}>" if layout.startswith("S<")
                    else f"!fly.layout<{layout}>")
        t = f"!fly.memref<{element}, {space}, {layout}, align<16>>"
        self.lines += [f"{p} = fly.make_ptr({arg}) : (!llvm.ptr<{SPACES[space]}>) -> {ptr_t}",
                       f"{l} = fly.static : {layout_t}",
                       f"{v} = fly.make_view({p}, {l}) : ({ptr_t}, {layout_t}) -> {t}"]
        return v, t


def _copy_case(rng, b):
    element, bits = rng.choice([("f32", 32), ("f16", 16), ("i8", 8)])
    atom_bits = rng.choice([b for b in (8, 16, 32, 64, 128) if b >= bits])
    atom = (f"!fly.copy_atom<!fly.universal_atomic<add, {element}>, {bits}>" if rng.random() < 0.1
            else f"!fly.copy_atom<!fly.universal_copy<{atom_bits}>, {bits}>")
    rest = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
    value = _value_mode(rng)
    s, st = b.tensor(element, _layout(rng, value, rest))
    d, dt = b.tensor(element, _layout(rng, value if rng.random() < 0.8 else _value_mode(rng), rest))
    a = b.fresh()
    b.lines.append(f"{a} = fly.static : {atom}")
    if rng.random() < 0.3:
        flags = 1
        for n in rest:
            flags *= n
        flags = flags if rng.random() < 0.9 else flags + 1
        p, pt = b.tensor("i1", f"{flags}:1", space="register")
        b.lines.append(f"fly.copy({a}, {s}, {d}, {p}) : ({atom}, {st}, {dt}, {pt})")
    else:
        b.lines.append(f"fly.copy({a}, {s}, {d}) : ({atom}, {st}, {dt})")


def _gemm_case(rng, b):
    d_type, ab_type = rng.choice([("f32", "f32"), ("f32", "f16"), ("i32", "i8")])
    atom = f"!fly.mma_atom<!fly.universal_fma<{d_type}, {ab_type}, {ab_type}, {d_type}>>"
    m, n, k = rng.choice([1, 2, 4]), rng.choice([1, 2, 4]), rng.choice([1, 2])
    form = rng.choice(["vmn", "mnk", "vmnk", "v"])
    if form == "v":
        dl, al, bl = "1:0", "1:0", "1:0"
    elif form == "vmn":
        dl, al, bl = f"(1,{m},{n}):(0,1,{m})", f"(1,{m}):(0,1)", f"(1,{n}):(0,1)"
    elif form == "mnk":
        dl, al, bl = f"({m},{n}):(1,{m})", f"({m},{k}):(1,{m})", f"({n},{k}):(1,{n})"
    else:
        dl, al, bl = f"(1,{m},{n}):(0,1,{m})", f"(1,{m},{k}):(0,1,{m})", f"(1,{n},{k}):(0,1,{n})"
    if rng.random() < 0.1:
        al = f"(1,{m + 1}):(0,1)"  # a mismatch the verifier must name
    d, dt = b.tensor(d_type, dl)
    x, xt = b.tensor(ab_type, al)
    y, yt = b.tensor(ab_type, bl)
    a = b.fresh()
    b.lines.append(f"{a} = fly.static : {atom}")
    b.lines.append(f"fly.gemm({a}, {d}, {x}, {y}, {d}) : ({atom}, {dt}, {xt}, {yt}, {dt})")


def _case(rng, i):
    b = Builder(rng)
    (_copy_case if rng.random() < 0.65 else _gemm_case)(rng, b)
    body = "\n".join("  " + line for line in b.lines)
    return f"func.func @case{i}({', '.join(b.args)}) {{\n{body}\n  return\n}}"


@pytest.mark.parametrize("passes", [[], PASSES], ids=["verify", "stage-a"])
def test_random_copies_and_gemms(fly_opt, tmp_path, passes):
    rng = random.Random(SEED)
    chunks = [_case(rng, i) for i in range(CASES)]
    path = tmp_path / "cases.mlir"
    path.write_text("\n// -----\n".join(chunks))
    proc = subprocess.run([fly_opt, str(path), "--split-input-file", *passes],
                          capture_output=True, text=True, errors="replace")
    where = f"seed {SEED} (FLY_TEST_SEED), input {path}"
    assert proc.returncode >= 0, f"fly-opt died of signal {-proc.returncode}; {where}\n{proc.stderr[-3000:]}"
    for marker in CRASH_MARKERS:
        assert marker not in proc.stderr, f"fly-opt crashed; {where}\n{proc.stderr[-3000:]}"
    errors = [l for l in proc.stderr.splitlines() if "error:" in l]
    for line in errors:
        assert re.match(r"^\S+:\d+:\d+: error: ", line), f"unlocated diagnostic {line!r}; {where}"
    printed = proc.stdout.count("func.func @case")
    assert printed + len(errors) >= CASES, f"{printed} printed + {len(errors)} errors < {CASES}; {where}"
    # The generator must keep a mix of accepted and rejected cases.
    assert printed > CASES // 5 and len(errors) > CASES // 10, \
        f"the generator lost its mix: {printed} ok, {len(errors)} errors; {where}"
    if passes:
        # What went through stage A's passes is fly-free and has no stack.
        for chunk in proc.stdout.split("// -----"):
            assert not re.search(r"(= |^\s*)fly\.", chunk, re.M), f"a fly op is left; {where}\n{chunk}"
            assert "llvm.alloca" not in chunk, f"a fragment stayed in memory; {where}\n{chunk}"
