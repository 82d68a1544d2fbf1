"""Random fly.copy and fly.gemm: through stage A, and on the emulator.

Each case builds tensors inside a function (global and shared ones from
pointer arguments, register ones with fly.memref.alloca) with random
shapes, strides, swizzles, element types, atoms and predicates, and calls
fly.copy or fly.gemm on them. The verifier rejects what does not fit the
atom; what it accepts must go through fly-layout-lowering,
fly-convert-atom-call-to-ssa-form, fly-promote-regmem-to-vectorssa and
convert-fly-to-rocdl either completely (no fly op, no alloca left) or with
a `file:line:col: error:`. fly-opt must never die of a signal or an
assertion.

The accepted cases also run: test_random_copies_and_gemms_on_emulator
puts a stratified sample of them into one kernel and checks every element
of every tensor against a reference computed here from the layouts'
definitions (see the comment above that test).
"""

import os
import random
import re
import struct
import subprocess
from dataclasses import dataclass

import pytest

from emu_run import run_kernel

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


@dataclass
class Tensor:
    """An operand of a case: its SSA value and type, element type, layout
    text, address space and, for global and shared ones, the pointer
    argument it views."""
    value: str
    type: str
    element: str
    layout: str
    space: str
    arg: str = None


class Builder:
    """One case: its lines (the fly op last), pointer arguments and
    operands. Names carry the case index, so cases can share a function."""

    def __init__(self, rng, index):
        self.rng, self.index, self.lines, self.args, self.n = rng, index, [], [], 0
        self.kind, self.operands = None, {}

    def fresh(self):
        self.n += 1
        return f"%c{self.index}v{self.n}"

    def tensor(self, element, layout, space=None):
        """A memref of `layout` in a random (or the given) address space."""
        space = space or self.rng.choice(["global", "shared", "register"])
        if space == "register":
            t = Tensor(self.fresh(), f"!fly.memref<{element}, register, {layout}>", element, layout, space)
            self.lines.append(f"{t.value} = fly.memref.alloca : {t.type}")
            return t
        if space == "shared" and self.rng.random() < 0.3:
            layout = f"S<{self.rng.choice([1, 2, 3])},{self.rng.choice([0, 1, 2, 3])},3> o 0 o {layout}"
        arg = f"%c{self.index}p{len(self.args)}"
        self.args.append(f"{arg}: !llvm.ptr<{SPACES[space]}>")
        ptr_t = f"!fly.ptr<{element}, {space}, align<16>>"
        p, l, v = self.fresh(), self.fresh(), self.fresh()
        layout_t = (f"!fly.composed_layout<{layout}>" if layout.startswith("S<")
                    else f"!fly.layout<{layout}>")
        t = Tensor(v, f"!fly.memref<{element}, {space}, {layout}, align<16>>", element, layout, space, arg)
        self.lines += [f"{p} = fly.make_ptr({arg}) : (!llvm.ptr<{SPACES[space]}>) -> {ptr_t}",
                       f"{l} = fly.static : {layout_t}",
                       f"{v} = fly.make_view({p}, {l}) : ({ptr_t}, {layout_t}) -> {t.type}"]
        return t

    def function(self):
        body = "\n".join("  " + line for line in self.lines)
        return f"func.func @case{self.index}({', '.join(self.args)}) {{\n{body}\n  return\n}}"


def _copy_case(rng, b):
    element, bits = rng.choice([("f32", 32), ("f16", 16), ("i8", 8)])
    atom_bits = rng.choice([b for b in (8, 16, 32, 64, 128) if b >= bits])
    b.kind = "atomic" if rng.random() < 0.1 else "copy"
    atom = (f"!fly.copy_atom<!fly.universal_atomic<add, {element}>, {bits}>" if b.kind == "atomic"
            else f"!fly.copy_atom<!fly.universal_copy<{atom_bits}>, {bits}>")
    rest = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
    value = _value_mode(rng)
    s = b.tensor(element, _layout(rng, value, rest))
    d = b.tensor(element, _layout(rng, value if rng.random() < 0.8 else _value_mode(rng), rest))
    b.operands = {"src": s, "dst": d}
    a = b.fresh()
    b.lines.append(f"{a} = fly.static : {atom}")
    if rng.random() < 0.3:
        flags = 1
        for n in rest:
            flags *= n
        flags = flags if rng.random() < 0.9 else flags + 1
        p = b.operands["pred"] = b.tensor("i1", f"{flags}:1", space="register")
        b.lines.append(f"fly.copy({a}, {s.value}, {d.value}, {p.value}) : "
                       f"({atom}, {s.type}, {d.type}, {p.type})")
    else:
        b.lines.append(f"fly.copy({a}, {s.value}, {d.value}) : ({atom}, {s.type}, {d.type})")


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
    d = b.tensor(d_type, dl)
    x = b.tensor(ab_type, al)
    y = b.tensor(ab_type, bl)
    b.kind, b.operands = "gemm", {"d": d, "a": x, "b": y}
    a = b.fresh()
    b.lines.append(f"{a} = fly.static : {atom}")
    b.lines.append(f"fly.gemm({a}, {d.value}, {x.value}, {y.value}, {d.value}) : "
                   f"({atom}, {d.type}, {x.type}, {y.type}, {d.type})")


def _case(rng, i):
    b = Builder(rng, i)
    (_copy_case if rng.random() < 0.65 else _gemm_case)(rng, b)
    return b


def _fly_opt(fly_opt, path, cases, passes):
    """fly-opt over `cases`, one split chunk each, written to `path`."""
    path.write_text("\n// -----\n".join(c.function() for c in cases))
    return subprocess.run([fly_opt, str(path), "--split-input-file", *passes],
                          capture_output=True, text=True, errors="replace")


@pytest.mark.parametrize("passes", [[], PASSES], ids=["verify", "stage-a"])
def test_random_copies_and_gemms(fly_opt, tmp_path, passes):
    rng = random.Random(SEED)
    path = tmp_path / "cases.mlir"
    proc = _fly_opt(fly_opt, path, [_case(rng, i) for i in range(CASES)], passes)
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


# ---- The accepted cases on the emulator -------------------------------------
#
# The first EMU_STREAM cases of the same stream (the first CASES of them are
# the ones above) go through stage A; every accepted copy and the first
# EMU_GEMMS accepted gemms run, one after another, in one kernel of one
# work-item on fly-emu-run. Every tensor has a home region in a global
# buffer holding distinct initial values: a global tensor is a view of it; a
# shared or register tensor is filled from it before the op and written back
# after it by one-element loops (llvm.load/llvm.store, fly.ptr.load/store),
# so the op itself keeps the generated layouts and atoms. A predicate gets
# random flags by fly.ptr.store of constants. Every region is followed by
# GUARD bytes that must stay as they were.
#
# The reference, from the layouts' definitions: a layout maps the 1-D
# (colexicographic) index i of its shape to sum(crd_j(i) * stride_j) over its
# leaves, then through S<B,M,S> when swizzled. A copy does
# dst[dst(i)] = src[src(i)] for every i, in order (a later write to the same
# offset wins), skipping the i whose slice of the rest modes (i // size of
# mode 0) has a false flag; the atomic atom adds instead (i8 wraps). A gemm
# is D(v,m,n) = C(v,m,n) + sum_k A(v,m,k) * B(v,n,k) with the value, K and
# (for (M)x(N)) the M/N modes dropped as the op's rank dispatch says. All
# values are small integers, exact in every element type (f16 products and
# sums stay below 2048), so every comparison is exact: no tolerance.

EMU_STREAM = 1000
EMU_GEMMS = 40  # of about 440 accepted: the gemms are the most frequent and simplest
# The global buffer travels as one fly-emu-run argument (words as text):
# about 60 KiB now, and Linux takes at most 128 KiB in one argument.
ELEMENT_FORMATS = {"f32": "<f", "f16": "<e", "i8": "<b", "i32": "<i"}
GUARD, GUARD_BYTE = 16, 0xA5
GEP1, GEP3 = "(!llvm.ptr<1>) -> !llvm.ptr<1>, i8", "(!llvm.ptr<3>) -> !llvm.ptr<3>, i8"


def _leaves(shape, stride):
    if isinstance(shape, int):
        return [(shape, stride)]
    return [leaf for s, d in zip(shape, stride) for leaf in _leaves(s, d)]


def _size(shape):
    if isinstance(shape, int):
        return shape
    n = 1
    for s in shape:
        n *= _size(s)
    return n


def _natural(shape, i):
    """The hierarchical coordinate of 1-D index i of `shape`."""
    if isinstance(shape, int):
        return i
    out = []
    for s in shape:
        out.append(_natural(s, i % _size(s)))
        i //= _size(s)
    return tuple(out)


def _swizzle(bits, base, shift, x):
    """CuTe's Swizzle<B,M,S> of an offset, S > 0 (the generator's S is 3):
    the B bits from bit M+S up are xored into the B bits from bit M up."""
    assert shift > 0
    mask = ((1 << bits) - 1) << (base + shift)
    return x ^ ((x & mask) >> shift)


class Layout:
    """A layout's text (`shape:stride`, or `S<B,M,S> o 0 o shape:stride`) as
    a function from 1-D index to offset."""

    def __init__(self, text):
        m = re.fullmatch(r"S<(\d+),(\d+),(\d+)> o 0 o (.*)", text)
        self.swizzle = tuple(int(g) for g in m.groups()[:3]) if m else None
        shape, stride = (m.group(4) if m else text).split(":")
        self.shape, self.stride = _tuple(shape), _tuple(stride)
        self.size = _size(self.shape)
        self.modes = [_size(s) for s in self.shape] if isinstance(self.shape, tuple) else [self.size]

    def __call__(self, i):
        offset = 0
        for s, d in _leaves(self.shape, self.stride):
            offset += i % s * d
            i //= s
        return _swizzle(*self.swizzle, offset) if self.swizzle else offset

    def at(self, *crd):
        """The offset of a coordinate of the top-level modes."""
        i, scale = 0, 1
        for c, n in zip(crd, self.modes):
            assert c < n
            i, scale = i + c * scale, scale * n
        return self(i)


def _tuple(text):
    """'((2,1),3)' -> ((2, 1), 3); '4' -> 4."""
    tokens = re.findall(r"\d+|[(),]", text)

    def parse(at):
        if tokens[at] != "(":
            return int(tokens[at]), at + 1
        items, at = [], at + 1
        while tokens[at] != ")":
            item, at = parse(at)
            items.append(item)
            at += tokens[at] == ","
        return (items[0] if len(items) == 1 else tuple(items)), at + 1

    return parse(0)[0]


@dataclass
class Region:
    """A tensor's home in the global buffer: `count` elements from byte
    `home`, the first `moved` of them moved to and from a shared (at LDS
    byte `lds`) or register tensor."""
    role: str
    tensor: Tensor
    layout: Layout
    home: int
    count: int
    initial: list
    moved: int = 0
    lds: int = 0

    @property
    def format(self):
        return ELEMENT_FORMATS[self.tensor.element]

    @property
    def nbytes(self):
        return self.count * struct.calcsize(self.format)


def _initial(case, role, counter, count):
    """Distinct small integers, exact in the element type (see above)."""
    element = case.operands[role].element
    if element == "i8":
        return [(c * 37) % 256 - 128 for c in range(counter, counter + count)]
    if case.kind == "gemm":
        return [(c * 7) % 41 - 20 if role in "ab" else c % 201 - 100
                for c in range(counter, counter + count)]
    if case.kind == "atomic":
        return [c % 199 - 99 for c in range(counter, counter + count)]
    if element == "f16":
        return [c % 4095 - 2047 for c in range(counter, counter + count)]
    return [c + 1 for c in range(counter, counter + count)]


class Plan:
    """The cases of one kernel: their regions in one global buffer (and
    the LDS), the predicate flags and the kernel text."""

    def __init__(self, cases):
        self.cases, self.memory, self.regions, self.flags, self.lds_bytes = cases, bytearray(), {}, {}, 16
        for case in cases:
            self._place(case)

    def _place(self, case):
        regions, counter, lds = {}, 0, 0
        for role, t in case.operands.items():
            if role == "pred":
                flags = random.Random(f"{SEED}:{case.index}")
                self.flags[case.index] = [flags.random() < 0.5 for _ in range(Layout(t.layout).size)]
                continue
            layout, width = Layout(t.layout), struct.calcsize(ELEMENT_FORMATS[t.element])
            span = max(layout(i) for i in range(layout.size)) + 1
            count = -(-span * width // 16) * 16 // width
            r = Region(role, t, layout, len(self.memory), count, _initial(case, role, counter, count))
            counter += count
            if t.space == "shared":
                r.moved, r.lds = count + GUARD // width, lds  # the guard goes through the LDS too
                lds += r.nbytes + GUARD
            elif t.space == "register":
                r.moved = span  # the fragment's cosize
            self.memory += b"".join(struct.pack(r.format, v) for v in r.initial)
            self.memory += bytes([GUARD_BYTE]) * GUARD
            regions[role] = r
        self.regions[case.index] = regions
        self.lds_bytes = max(self.lds_bytes, lds)

    def words(self):
        return struct.unpack(f"<{len(self.memory) // 4}i", self.memory)

    def kernel(self):
        body = ["%lds = llvm.mlir.addressof @lds : !llvm.ptr<3>", "%zero = arith.constant 0 : i32",
                "%one = arith.constant 1 : i32", "%true = arith.constant true",
                "%false = arith.constant false"]
        for case in self.cases:
            body += self._case_lines(case)
        lines = "\n".join("    " + line for line in body)
        return ("module attributes {gpu.container_module} {\ngpu.module @copy_gemm_cases {\n"
                f"  llvm.mlir.global internal @lds() {{addr_space = 3 : i32, alignment = 16 : i64}} "
                f": !llvm.array<{self.lds_bytes} x i8>\n"
                f"  gpu.func @cases(%mem: !llvm.ptr<1>) kernel {{\n{lines}\n    gpu.return\n  }}\n}}\n}}\n")

    def _case_lines(self, case):
        regions, c = self.regions[case.index], f"%c{case.index}"
        lines = [f"// case {case.index}: {case.kind}"]
        for r in regions.values():
            home = f"{c}{r.role}home"
            lines.append(f"{home} = llvm.getelementptr %mem[{r.home}] : {GEP1}")
            if r.tensor.space == "global":
                lines.append(f"{r.tensor.arg} = llvm.getelementptr {home}[0] : {GEP1}")
            elif r.tensor.space == "shared":
                lines.append(f"{r.tensor.arg} = llvm.getelementptr %lds[{r.lds}] : {GEP3}")
        lines += case.lines[:-1]
        for r in regions.values():
            lines += self._moves(f"{c}{r.role}", r, into=True)
        if case.index in self.flags:
            p, t, ptr = f"{c}pred", case.operands["pred"], "!fly.ptr<i1, register>"
            lines.append(f"{p}it = fly.get_iter({t.value}) : ({t.type}) -> {ptr}")
            for j, flag in enumerate(self.flags[case.index]):
                lines += [f"{p}k{j} = arith.constant {j} : i32",
                          f"{p}q{j} = fly.add_offset({p}it, {p}k{j}) : ({ptr}, i32) -> {ptr}",
                          f"fly.ptr.store(%{'true' if flag else 'false'}, {p}q{j}) : (i1, {ptr})"]
        lines.append(case.lines[-1])
        for r in regions.values():
            lines += self._moves(f"{c}{r.role}", r, into=False)
        return lines

    @staticmethod
    def _moves(p, r, into):
        """A loop moving the region's first `moved` elements from its home to
        its shared or register tensor (`into`), or back."""
        t, e, reg = r.tensor, r.tensor.element, f"!fly.ptr<{r.tensor.element}, register>"
        if not r.moved:
            return []
        lines = []
        if into:
            lines.append(f"{p}n = arith.constant {r.moved} : i32")
            if t.space == "register":
                lines.append(f"{p}it = fly.get_iter({t.value}) : ({t.type}) -> {reg}")
        d = "in" if into else "out"
        j, g, x, q = f"{p}{d}j", f"{p}{d}g", f"{p}{d}x", f"{p}{d}q"
        home = [f"{g} = llvm.getelementptr {p}home[{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {e}"]
        if t.space == "shared":
            at = f"{q} = llvm.getelementptr {t.arg}[{j}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, {e}"
            load = f"{x} = llvm.load {q} : !llvm.ptr<3> -> {e}"
            store = f"llvm.store {x}, {q} : {e}, !llvm.ptr<3>"
        else:
            at = f"{q} = fly.add_offset({p}it, {j}) : ({reg}, i32) -> {reg}"
            load = f"{x} = fly.ptr.load({q}) : ({reg}) -> {e}"
            store = f"fly.ptr.store({x}, {q}) : ({e}, {reg})"
        if into:
            inner = home + [f"{x} = llvm.load {g} : !llvm.ptr<1> -> {e}", at, store]
        else:
            inner = home + [at, load, f"llvm.store {x}, {g} : {e}, !llvm.ptr<1>"]
        return lines + [f"scf.for {j} = %zero to {p}n step %one : i32 {{", *("  " + i for i in inner), "}"]


def _add(element, x, y):
    s = x + y
    return (s + 128) % 256 - 128 if element == "i8" else s


def _expected(case, regions, flags):
    """{role: the region's elements after the op}, from the layouts."""
    out = {role: list(r.initial) for role, r in regions.items()}
    if case.kind in ("copy", "atomic"):
        src, dst = regions["src"].layout, regions["dst"].layout
        assert src.size == dst.size, f"the verifier took sizes {src.size} and {dst.size}"
        for i in range(src.size):
            if flags is not None and not flags[i // src.modes[0]]:
                continue
            x, o = out["src"][src(i)], dst(i)
            out["dst"][o] = x if case.kind == "copy" else _add(case.operands["dst"].element, out["dst"][o], x)
        return out
    d, a, b = (regions[r].layout for r in "dab")
    if len(d.modes) == 1:  # (V) x (V) => (V)
        for v in range(d.size):
            out["d"][d(v)] += out["a"][a(v)] * out["b"][b(v)]
        return out
    has_v, has_k = len(d.modes) == 3, len(a.modes) == len(d.modes)
    vs = range(d.modes[0]) if has_v else [None]
    ks = range(a.modes[-1]) if has_k else [None]
    for v in vs:
        for m in range(d.modes[-2]):
            for n in range(d.modes[-1]):
                at = d.at(*[c for c in (v, m, n) if c is not None])
                for k in ks:
                    x = out["a"][a.at(*[c for c in (v, m, k) if c is not None])]
                    y = out["b"][b.at(*[c for c in (v, n, k) if c is not None])]
                    out["d"][at] += x * y
    return out


def _writers(layout):
    """{offset: the last 1-D index mapped to it}."""
    return {layout(i): i for i in range(layout.size)}


def _launch(emu_run, path, plan):
    """The global buffer after the kernel of `plan` (written to `path`) ran."""
    path.write_text(plan.kernel())
    words = plan.words()
    out = run_kernel(emu_run, path, "cases", "gfx942", 1,
                     [f"buf:i32:{len(words)}:" + ",".join(map(str, words))])
    return struct.pack(f"<{len(words)}i", *map(int, out[0]))


def _check(case, plan, memory):
    """The first wrong element of the case, as a message, or None."""
    regions = plan.regions[case.index]
    expected = _expected(case, regions, plan.flags.get(case.index))
    for role, r in regions.items():
        got = [v for (v,) in struct.iter_unpack(r.format, memory[r.home:r.home + r.nbytes])]
        writers = _writers(r.layout)
        for offset, (want, have) in enumerate(zip(expected[role], got)):
            if want != have:
                where = (f"coordinate {_natural(r.layout.shape, writers[offset])}" if offset in writers
                         else "not covered by the layout")
                return (f"{role} ({r.tensor.space} {r.tensor.element} {r.tensor.layout}) "
                        f"offset {offset}, {where}: expected {want}, got {have}")
        guard = memory[r.home + r.nbytes:r.home + r.nbytes + GUARD]
        if guard != bytes([GUARD_BYTE]) * GUARD:
            return f"{role} ({r.tensor.space} {r.tensor.layout}): the {GUARD} bytes after it changed: {guard.hex()}"
    return None


def test_random_copies_and_gemms_on_emulator(fly_opt, emu_run, tmp_path):
    rng = random.Random(SEED)
    cases = [_case(rng, i) for i in range(EMU_STREAM)]
    proc = _fly_opt(fly_opt, tmp_path / "stream.mlir", cases, PASSES)
    accepted = [cases[int(i)] for i in re.findall(r"func\.func @case(\d+)\(", proc.stdout)]
    gemms = [c for c in accepted if c.kind == "gemm"][:EMU_GEMMS]
    run = sorted([c for c in accepted if c.kind != "gemm"] + gemms, key=lambda c: c.index)
    where = f"seed {SEED} (FLY_TEST_SEED)"

    # The sample keeps every kind, space, element type and the swizzle.
    def has(test):
        return any(test(c) for c in run)
    mix = {"copy": has(lambda c: c.kind == "copy"), "atomic": has(lambda c: c.kind == "atomic"),
           "predicated": has(lambda c: "pred" in c.operands), "gemm": has(lambda c: c.kind == "gemm"),
           "swizzled": has(lambda c: any(t.layout.startswith("S<") for t in c.operands.values()))}
    for role in ("src", "dst", "d", "a"):
        for space in ("global", "shared", "register"):
            mix[f"{role} {space}"] = has(lambda c: role in c.operands and c.operands[role].space == space)
    for element in ("f32", "f16", "i8"):
        mix[f"copy {element}"] = has(lambda c: c.kind == "copy" and c.operands["src"].element == element)
        mix[f"gemm {element}"] = has(lambda c: c.kind == "gemm" and c.operands["a"].element == element)
    missing = [k for k, v in mix.items() if not v]
    assert not missing, f"the sample lost {missing}; {where}"

    plan = Plan(run)
    kernel = tmp_path / "cases.mlir"
    try:
        memory = _launch(emu_run, kernel, plan)
    except AssertionError as failure:
        # Which case does not compile or run on its own?
        for case in run:
            single = tmp_path / f"case{case.index}.mlir"
            try:
                _launch(emu_run, single, Plan([case]))
            except AssertionError as e:
                pytest.fail(f"{where}, case {case.index} ({case.kind}) does not run: {single}\n{e}")
        pytest.fail(f"{where}: the kernel of all cases {kernel} does not run, every case alone does\n{failure}")
    for case in run:
        error = _check(case, plan, memory)
        if error:
            single = Plan([case])
            path = tmp_path / f"case{case.index}.mlir"
            path.write_text(single.kernel())
            words = single.words()
            (tmp_path / f"case{case.index}.args").write_text(
                f"--kernel=cases --block=1,1,1 --arg=buf:i32:{len(words)}:" + ",".join(map(str, words)) + "\n")
            pytest.fail(f"{where}, case {case.index} ({case.kind}): {error}\n  {case.lines[-1]}\n"
                        f"the case's kernel: {path} (fly-emu-run arguments next to it)")
