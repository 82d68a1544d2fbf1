"""Case builders for the pycute differential test (test_algebra_pycute.py).

A builder draws random static inputs, writes the IR of one case (inputs as
`fly.static`, the op under test without its result type, so that fly-opt
infers it) and states what pycute (or a CuTe definition built from pycute
primitives, see cute_ref) expects: a value per probed op and how to compare,
a rejection, a property to check, or nothing ("skip": CuTe and pycute
disagree).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pycute
from pycute import Layout

import cute_ref as R
from fly_types import Basis, fmt_layout, fmt_tuple, is_static, type_of, unwrap1
from layout_gen import Gen, to_tile, unflatten, weak_coord

# ----------------------------------------------------------------------------
# Case records
# ----------------------------------------------------------------------------


@dataclass
class Probe:
    """One op of a case whose printed result type is compared."""

    expected: object = None
    check: object = None  # check(ours_value, expected) -> None | (class, detail)


@dataclass
class AlgCase:
    op: str
    verdict: str  # R.OK (probes) | R.REJECT | R.SKIP
    body: list = field(default_factory=list)
    probes: list = field(default_factory=list)
    inputs: str = ""  # human-readable reproducer


class CaseWriter:
    """Accumulates the IR lines of one case."""

    def __init__(self):
        self.body, self.inputs, self.n = [], [], 0

    def static(self, value, type_text=None):
        t = type_text or type_of(value)
        name = f"%v{self.n}"
        self.n += 1
        self.body.append(f"{name} = fly.static : {t}")
        self.inputs.append(t)
        return name, t

    def op(self, opname, operands, attrs=""):
        """operands: [(ssa name, type)]; the result type is left to inference."""
        name = f"%v{self.n}"
        self.n += 1
        a = f" {attrs}" if attrs else ""
        names = ", ".join(o[0] for o in operands)
        types = ", ".join(o[1] for o in operands)
        self.body.append(f"{name} = fly.{opname}({names}){a} : ({types})")
        return name

    def case(self, op, verdict, probes=(), note=""):
        desc = f"fly.{op}({', '.join(self.inputs)})" + (f" {note}" if note else "")
        return AlgCase(op, verdict, self.body, list(probes), desc)


def simple(op, values, verdict, expected=None, check=None, attrs="", note=""):
    w = CaseWriter()
    ops = [w.static(v) for v in values]
    w.op(op, ops, attrs)
    probes = [Probe(expected, check)] if verdict in (R.OK, R.EITHER) else []
    return w.case(op, verdict, probes, note=(attrs + " " + note).strip())


# ----------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------


def _is_plain(t) -> bool:
    if isinstance(t, tuple):
        return all(_is_plain(e) for e in t)
    return isinstance(t, int) and not isinstance(t, bool)


def _as_layout(v):
    if not isinstance(v, Layout) or isinstance(v, pycute.ComposedLayout):
        return None, ("wrong result kind", f"expected a layout, got {v!r}")
    if not (_is_plain(v.shape) and _is_plain(v.stride)):
        return None, ("non-static result", f"{fmt_layout(v)}")
    return v, None


def _fn(ours: Layout, exp: Layout):
    if ours.shape == exp.shape and ours.stride == exp.stride:
        return None
    so, se = R.size_of(ours.shape), R.size_of(exp.shape)
    if so != se:
        return "wrong size", f"size {so}, pycute {se}"
    if R.normal_form(pycute.coalesce(ours)) == R.normal_form(pycute.coalesce(exp)):
        return None  # coalesce keeps the function: equal forms, equal functions
    vo, ve = R.evaluate(ours), R.evaluate(exp)
    if not np.array_equal(vo, ve):
        i = int(np.argmax(vo != ve))
        return "wrong function", f"at index {i}: ours {vo[i]}, pycute {ve[i]}"
    return None


def check_fn(ours, exp):
    ours, err = _as_layout(ours)
    return err or _fn(ours, exp)


def check_normal(ours, exp):
    ours, err = _as_layout(ours)
    if err:
        return err
    bad = _fn(ours, exp)
    if bad:
        return bad
    if R.normal_form(ours) != R.normal_form(exp):
        return "wrong normal form", "shape/stride differ from CuTe's"
    return None


def check_modes(rank=None):
    """Function, top-level rank, and every top-level mode as a function."""

    def check(ours, exp):
        o, err = _as_layout(ours)
        if err:
            return err
        bad = _fn(o, exp)
        if bad:
            return bad
        want = len(exp) if rank is None else rank
        if len(o) != want:
            return "wrong rank", f"rank {len(o)}, CuTe {want}"
        for i in range(want):
            bad = _fn(o[i], exp[i])
            if bad:
                return f"wrong mode ({bad[0]})", f"mode {i}: {bad[1]}"
        return None

    return check


def check_value(ours, exp):
    if isinstance(ours, Layout):
        return "wrong result kind", f"expected an int tuple, got {fmt_layout(ours)}"
    if unwrap1(ours) != unwrap1(exp):
        return "wrong value", f"ours {fmt_tuple(ours)}, expected {fmt_tuple(exp)}"
    return None


def check_one_of(ours, allowed):
    if isinstance(ours, Layout) or unwrap1(ours) not in allowed:
        return "wrong value", f"ours {fmt_tuple(ours) if not isinstance(ours, Layout) else fmt_layout(ours)}, expected one of {sorted(allowed)}"
    return None


def check_property(pred):
    """A check that ignores `expected` and asserts pred(ours) (CuTe @post)."""

    def check(ours, _exp):
        o, err = _as_layout(ours)
        if err:
            return err
        return pred(o)

    return check


def _as_basis_layout(v):
    if not isinstance(v, Layout) or isinstance(v, pycute.ComposedLayout):
        return None, ("wrong result kind", f"expected a layout, got {v!r}")
    if not (_is_plain(v.shape) and is_static(v.stride)):
        return None, ("non-static result", f"{fmt_layout(v)}")
    return v, None


def basis_components(layout: Layout):
    """The layout as a function of the 1-D index, one array per basis path
    (the empty path: a plain integer part); all-zero components dropped."""
    idx = np.arange(R.size_of(layout.shape), dtype=np.int64)
    return {p: v for p, v in R.eval_basis_layout(layout, idx).items() if v.any()}


def _fmt_vector(components, i):
    return "+".join(str(Basis(int(v[i]), p)) for p, v in sorted(components.items()) if v[i]) or "0"


def _basis_fn(ours: Layout, exp: Layout):
    """Pointwise: every 1-D index to the same vector over basis paths."""
    n = R.size_of(ours.shape)
    if n != R.size_of(exp.shape):
        return "wrong size", f"size {n}, pycute {R.size_of(exp.shape)}"
    co, ce = basis_components(ours), basis_components(exp)
    zero = np.zeros(n, dtype=np.int64)
    differ = np.zeros(n, dtype=bool)
    for p in set(co) | set(ce):
        differ |= co.get(p, zero) != ce.get(p, zero)
    if differ.any():
        i = int(np.argmax(differ))
        return "wrong function", f"at index {i}: ours {_fmt_vector(co, i)}, expected {_fmt_vector(ce, i)}"
    return None


def check_basis(modes=False, rank=None, normal=False):
    """The check_fn / check_modes / check_normal of basis-strided results,
    pointwise against the decoded reference: the whole function; with
    `modes` also the top-level rank (`rank`, or the reference's) and every
    top-level mode; with `normal` also CuTe's notation (coalesce)."""

    def check(ours, exp):
        o, err = _as_basis_layout(ours)
        if err:
            return err
        bad = _basis_fn(o, exp)
        if bad:
            return bad
        if modes:
            want = len(exp) if rank is None else rank
            if len(o) != want:
                return "wrong rank", f"rank {len(o)}, CuTe {want}"
            for i in range(want):
                bad = _basis_fn(o[i], exp[i])
                if bad:
                    return f"wrong mode ({bad[0]})", f"mode {i}: {bad[1]}"
        if normal and R.normal_form(o) != R.normal_form(exp):
            return "wrong normal form", "shape/stride differ from CuTe's"
        return None

    return check


# ----------------------------------------------------------------------------
# Builders: layouts algebra
# ----------------------------------------------------------------------------


def negate_some(rng, L: Layout, prob=0.15) -> Layout:
    """CuTe allows negative strides: flip the sign of a few, sometimes."""
    if rng.random() >= prob:
        return L
    flat = [-d if rng.random() < 0.5 else d for d in R.flat(L.stride)]
    return Layout(L.shape, unflatten(flat, L.stride))


def b_coalesce(g: Gen, rng):
    L = negate_some(rng, g.universe().layout(max_size=1024))
    return simple("coalesce", [L], R.OK, pycute.coalesce(L), check_normal)


def _profile(rng, L, reject):
    shape = L.shape
    r = len(shape)
    k = r + 1 if reject else rng.randint(1, r)
    out = []
    for i in range(k):
        s = shape[i] if i < r else 1
        if isinstance(s, tuple) and rng.random() < 0.35:
            out.append(tuple(1 for _ in range(rng.randint(1, len(s)))))
        elif reject and i == 0 and not isinstance(s, tuple) and rng.random() < 0.5:
            out.append((1, 1))  # a nested profile for a leaf mode
        else:
            out.append(1)
    return tuple(out)


def b_coalesce_profile(g: Gen, rng):
    L = g.universe().layout(max_size=1024)
    if not isinstance(L.shape, tuple):
        L = Layout((L.shape, 2), (L.stride, R.size_of(L.shape)))
    reject = rng.random() < 0.08
    profile = _profile(rng, L, reject)
    try:
        exp = pycute.coalesce(L, profile)
    except AssertionError:
        return simple("coalesce", [L, profile], R.REJECT)
    return simple("coalesce", [L, profile], R.OK, exp, check_modes(len(L)))


def _tiler_layout(g: Gen, rng, max_size):
    return g.layout(max_size=max_size, max_depth=2, max_rank=3)


def b_composition(g: Gen, rng):
    g.universe(0.55)
    A = g.layout(max_size=256)
    B = _tiler_layout(g, rng, rng.choice([8, 32, 128]))
    v, exp = R.composition_verdict(A, B)
    check = check_modes() if isinstance(B.shape, tuple) else check_fn
    return simple("composition", [A, B], v, exp, check)


def b_composition_tile(g: Gen, rng):
    g.universe(0.55)
    A = g.layout(max_size=256)
    t = g.tile(A, full=True)  # CuTe drops the modes a tile does not cover
    v, exp = R.composition_verdict(A, t)
    return simple("composition", [A, to_tile(t)], v, exp, check_modes(len(A)))


def b_complement(g: Gen, rng):
    L = g.universe(0.5).layout(max_size=256)
    v, exp = R.complement_verdict(L)
    return simple("complement", [L], v, exp, check_fn)


def b_complement_cotarget(g: Gen, rng):
    L = g.universe(0.5).layout(max_size=256)
    cos = pycute.cosize(L)
    n = rng.choice([cos, 2 * cos, rng.randint(1, 2 * cos + 1), R.size_of(L.shape) * rng.randint(1, 4)])
    v, exp = R.complement_verdict(L, n)
    return simple("complement", [L, n], v, exp, check_fn)


def _post_right_inverse(L):
    def pred(Rinv):
        vals = R.evaluate(Rinv)
        n = R.size_of(L.shape)
        if vals.min() < 0 or vals.max() >= n:
            return "right inverse out of domain", f"R reaches {vals.max()}, size(L) {n}"
        lv = R.evaluate(L)[vals]
        if not np.array_equal(lv, np.arange(len(vals))):
            i = int(np.argmax(lv != np.arange(len(vals))))
            return "not a right inverse", f"L(R({i})) = {lv[i]}"
        return None

    return pred


def b_right_inverse(g: Gen, rng):
    L = g.universe(0.6).layout(max_size=512)
    v, exp = R.right_inverse_verdict(L)
    if v == R.OK:
        return simple("right_inverse", [L], R.OK, exp, check_fn)
    # pycute and CuTe pick different right inverses: assert CuTe's @post only.
    return simple("right_inverse", [L], R.OK, None, check_property(_post_right_inverse(L)), note="(post-condition)")


def _cute_left_inverse_ok(L):
    c = pycute.coalesce(L)
    size = 1
    for d, s in sorted(zip(R.flat(c.stride), R.flat(c.shape))):
        if d == 0:
            continue
        if d % size:
            return False
        size = d
    return True


def b_left_inverse(g: Gen, rng):
    L = g.universe(0.6).layout(max_size=256, style=rng.choice(["compact", "perm", "gap", "random"]))
    cv, _ = R.complement_verdict(L)
    cute_ok = _cute_left_inverse_ok(L)
    if cv == R.REJECT and not cute_ok:
        return simple("left_inverse", [L], R.REJECT)
    if cv != R.OK or not cute_ok or not R.is_injective(L):
        return simple("left_inverse", [L], R.SKIP)
    exp = pycute.left_inverse(L)
    vals = R.evaluate(L)
    if vals.max() >= R.size_of(exp.shape) or not np.array_equal(R.evaluate(exp)[vals], np.arange(len(vals))):
        # pycute's complement is only exact for divisible strides; outside
        # that domain its "left inverse" is not one.
        return simple("left_inverse", [L], R.SKIP)

    def pred(Linv):
        n = R.size_of(Linv.shape)
        if vals.max() >= n:
            return "left inverse too small", f"size {n}, L reaches {vals.max()}"
        back = R.evaluate(Linv)[vals]
        if not np.array_equal(back, np.arange(len(vals))):
            i = int(np.argmax(back != np.arange(len(vals))))
            return "not a left inverse", f"Linv(L({i})) = {back[i]}"
        # A bijection onto [0, size) has exactly one inverse: pycute's.
        if sorted(vals.tolist()) == list(range(len(vals))):
            return _fn(Linv, exp)
        return None

    return simple("left_inverse", [L], R.OK, exp, check_property(pred))


_DIVIDES = {
    "logical_divide": (R.logical_divide_verdict, 2),
    "zipped_divide": (R.zipped_divide_verdict, 2),
    "tiled_divide": (R.tiled_divide_verdict, None),
    "flat_divide": (R.flat_divide_verdict, None),
    "logical_product": (R.logical_product_verdict, 2),
    "zipped_product": (R.zipped_product_verdict, 2),
    "tiled_product": (R.tiled_product_verdict, None),
    "flat_product": (R.flat_product_verdict, None),
}


def make_divide_builder(op, with_tile, basis=False):
    """basis: A has basis strides (divides only; see the note on products
    at basis_case)."""
    verdict_fn, rank = _DIVIDES[op]
    product = op.endswith("product")
    assert not (basis and product)

    def build(g: Gen, rng):
        g.universe(0.6)
        A = (g.basis_layout if basis else g.layout)(max_size=64 if product else 256, max_rank=3)
        if with_tile:
            t = g.tile(A)
            if product:  # tile modes of a product are tiler layouts, not divisors of A
                t = tuple(g.layout(max_size=8, max_depth=1, max_rank=2) if isinstance(m, Layout) else m for m in t)
            tiler = to_tile(t)
            want = rank if op.startswith("zipped") else (len(A) if op.startswith("logical") else None)
        else:
            t = tiler = _tiler_layout(g, rng, 16 if product else max(2, min(64, R.size_of(A.shape))))
            want = rank
        if basis:
            return basis_case(op, A, t, tiler, verdict_fn, check_basis(modes=True, rank=want))
        v, exp = verdict_fn(A, t)
        return simple(op, [A, tiler], v, exp, check_modes(want))

    return build


def _rank_product_builder(op):
    fn = R.blocked_product_verdict if op == "blocked_product" else R.raked_product_verdict

    def build(g: Gen, rng):
        g.universe(0.6)
        A = g.layout(max_size=64, max_rank=3, max_depth=2)
        B = g.layout(max_size=16, max_rank=3, max_depth=2)
        v, exp = fn(A, B)
        r = max(len(A), len(B))
        return simple(op, [A, B], v, exp, check_modes(r) if r > 1 else check_fn)

    return build


# ----------------------------------------------------------------------------
# Builders: basis strides (CuTe's ScaledBasis)
# ----------------------------------------------------------------------------


def basis_case(op, A: Layout, ref_arg, ir_arg, verdict_fn, check):
    """fly.op(A, ir_arg) for a basis-strided A. The reference is pycute's
    integer algorithm on the radix-encoded A (cute_ref.BasisRadix, which
    argues why that is faithful for coalesce, composition and the divides),
    `verdict_fn(enc(A), ref_arg)`, its result decoded back to basis strides;
    the check compares the functions pointwise (coordinate -> vector over
    basis paths). ref_arg None: a one-operand op.

    The products (logical, zipped, tiled, flat, blocked, raked) are left
    out: CuTe does not define them for a basis-strided A. Each composes
    with complement(A, ...), and complement sorts A's strides, takes their
    min and divides by them; CuTe's ScaledBasis has ==, + and * by an
    integer only (no <, / or %), so it does not compile, and fly rejects it
    ("complement ... needs static integer strides"). A basis-strided
    right-hand side (the tiler of composition, the divides and the
    products) is a separate CuTe case: composing with a stride v·Ek picks
    mode k of the left side. fly rejects it ("must have integer strides")
    and pycute has nothing like it, so it is not tested either.
    """
    radix = R.BasisRadix.of(A)
    enc = radix.encode(A)
    v, exp = verdict_fn(enc) if ref_arg is None else verdict_fn(enc, ref_arg)
    values = [A] if ref_arg is None else [A, ir_arg]
    return simple(op, values, v, None if exp is None else radix.decode_layout(exp), check)


def _coalesced(enc):
    return R.OK, pycute.coalesce(enc)


def b_coalesce_basis(g: Gen, rng):
    L = negate_some(rng, g.universe().basis_layout(max_size=1024))
    return basis_case("coalesce", L, None, None, _coalesced, check_basis(normal=True))


def b_coalesce_profile_basis(g: Gen, rng):
    g.universe()
    for _ in range(20):
        L = g.basis_layout(max_size=1024)
        if isinstance(L.shape, tuple):
            break
    else:
        return None
    profile = _profile(rng, L, rng.random() < 0.08)

    def verdict(enc, prof):
        try:
            return R.OK, pycute.coalesce(enc, prof)
        except AssertionError:
            return R.REJECT, None

    return basis_case("coalesce", L, profile, profile, verdict, check_basis(modes=True, rank=len(L)))


def b_composition_basis(g: Gen, rng):
    g.universe(0.55)
    A = negate_some(rng, g.basis_layout(max_size=256))
    B = _tiler_layout(g, rng, rng.choice([8, 32, 128]))
    return basis_case("composition", A, B, B, R.composition_verdict, check_basis(modes=isinstance(B.shape, tuple)))


def b_composition_tile_basis(g: Gen, rng):
    g.universe(0.55)
    A = negate_some(rng, g.basis_layout(max_size=256))
    t = g.tile(A, full=True)
    return basis_case("composition", A, t, to_tile(t), R.composition_verdict, check_basis(modes=True, rank=len(A)))


RECAST_BITS = [(16, 32), (32, 16), (8, 32), (32, 8), (16, 16), (8, 16), (16, 8), (64, 16), (16, 64), (4, 8), (8, 4), (6, 8), (8, 6)]


def b_recast(g: Gen, rng):
    L = g.universe(0.7).layout(max_size=256, style=rng.choice(["compact", "perm", "gap", "zeros", "random"]))
    old, new = rng.choice(RECAST_BITS)
    attrs = f"{{old_bits = {old} : i64, new_bits = {new} : i64}}"
    try:
        exp = R.recast_layout(L, old, new)
    except R.Rejected:
        return simple("recast_layout", [L], R.REJECT, attrs=attrs)
    return simple("recast_layout", [L], R.OK, exp, check_normal, attrs=attrs)


def b_tile_to_shape(g: Gen, rng):
    g.universe(0.7)
    block = g.layout(max_size=32, max_rank=3, max_depth=1)
    rb = len(block)
    r = rng.randint(max(rb, 1), 3)
    if rng.random() < 0.05:
        r = max(1, rb - 1)  # target of lower rank: rejected
    bad = rng.random() < 0.1
    trg = []
    for i in range(r):
        bs = R.size_of(block[i].shape) if i < rb else 1
        n = bs * rng.randint(1, 4)
        if bad and i == 0:
            n = bs * rng.randint(1, 3) + rng.randint(1, max(1, bs - 1)) if bs > 1 else n
        if r > 1 and n % 2 == 0 and n > 2 and rng.random() < 0.3:
            trg.append((2, n // 2))
        else:
            trg.append(n)
    trg = tuple(trg) if r > 1 else trg[0]
    order = None
    if r > 1 and rng.random() < 0.5:
        order = list(range(r))
        rng.shuffle(order)
        order = tuple(order)
    vals = [block, trg] + ([order] if order is not None else [])
    v, exp = R.tile_to_shape(block, trg, order)
    return simple("tile_to_shape", vals, v, exp, check_modes(r) if r > 1 else check_fn)


def _permutation_like(rng, shape):
    leaves = len(R.flat(shape))
    perm = list(range(leaves))
    rng.shuffle(perm)
    return unflatten(perm, shape)


def b_make_ordered_layout(g: Gen, rng):
    shape = g.universe(0.6).shape(max_size=512)
    if isinstance(shape, tuple) and rng.random() < 0.4:
        order = list(range(len(shape)))
        rng.shuffle(order)
        order = tuple(order)
    else:
        order = _permutation_like(rng, shape)
    if isinstance(shape, tuple) and rng.random() < 0.04:
        return simple("make_ordered_layout", [shape, tuple(range(len(shape) + 1))], R.REJECT)
    exp = R.make_ordered_layout(shape, order)
    return simple("make_ordered_layout", [shape, order], R.OK, exp, check_normal)


def b_make_layout_like(g: Gen, rng):
    L = g.universe(0.6).layout(max_size=512, style=rng.choice(["compact", "perm", "gap", "zeros", "random"]))
    nz = [d for d in R.flat(L.stride) if d != 0]
    if len(set(nz)) != len(nz):
        return simple("make_layout_like", [L], R.SKIP)  # tied strides: order undefined
    return simple("make_layout_like", [L], R.OK, R.make_layout_like(L), check_normal)


def b_make_identity_layout(g: Gen, rng):
    shape = g.universe(0.5).shape(max_size=256)

    def check(ours, _exp):
        if not isinstance(ours, Layout):
            return "wrong result kind", repr(ours)
        if unwrap1(ours.shape) != unwrap1(shape):
            return "wrong shape", f"{fmt_tuple(ours.shape)} vs {fmt_tuple(shape)}"
        if not is_static(ours.stride):
            return "non-static result", fmt_layout(ours)
        got = identity_components(ours, shape)
        n = R.size_of(shape)
        idx = np.arange(n, dtype=np.int64)
        for path, s in zip(R.leaf_paths(shape), R.flat(shape)):
            want = idx % s
            idx = idx // s
            have = got.pop(path, np.zeros(n, dtype=np.int64))
            if not np.array_equal(have, want):
                i = int(np.argmax(have != want))
                return "identity maps index wrongly", f"index {i}: coordinate {path} is {have[i]}, not {want[i]}"
        stray = {p: v for p, v in got.items() if v.any()}
        if stray:
            return "identity maps index wrongly", f"values along paths {sorted(stray)} outside the shape"
        return None

    return simple("make_identity_layout", [shape], R.OK, None, check)


def identity_components(layout, shape):
    """{basis path: array over all 1-D indices} of a basis-strided layout;
    for a leaf shape, E0 names the one coordinate like the empty path."""
    out = basis_components(layout)
    if not isinstance(shape, tuple) and (0,) in out:
        out[()] = out.pop((0,)) + out.get((), 0)
    return out


def identity_crd2idx_case(shape, identity_type, rng, k=4):
    """crd2idx through a (printed) identity layout yields the coordinate."""
    w = CaseWriter()
    lay = w.static(None, identity_type)
    probes = []
    n = R.size_of(shape)
    for i in rng.sample(range(n), min(k, n)):
        form = rng.choice(["index", "coord"])
        crd = i if form == "index" else pycute.idx2crd(i, shape)
        c = w.static(crd)
        w.op("crd2idx", [c, lay])
        probes.append(Probe(pycute.idx2crd(i, shape), check_value))
    return w.case("crd2idx", R.OK, probes, note="(identity)")


# ----------------------------------------------------------------------------
# Builders: coordinates and queries
# ----------------------------------------------------------------------------


def b_crd2idx(g: Gen, rng):
    L = negate_some(rng, g.universe(0.5).layout(max_size=1024))
    w = CaseWriter()
    lay = w.static(L)
    probes = []
    n = R.size_of(L.shape)
    for form in ("index", "coord", "weak"):
        i = rng.randrange(n)
        if form == "index":
            crd = i
        elif form == "coord":
            crd = pycute.idx2crd(i, L.shape)
        else:
            crd = weak_coord(rng, L.shape)
        c = w.static(crd)
        w.op("crd2idx", [c, lay])
        probes.append(Probe(pycute.crd2idx(crd, L.shape, L.stride), check_value))
    return w.case("crd2idx", R.OK, probes)


def b_crd2idx_composed(g: Gen, rng):
    g.universe(0.7)
    outer = g.layout(max_size=256, max_depth=2)
    offset = rng.choice([0, 0, rng.randint(0, 64)])
    if rng.random() < 0.7:
        inner = g.swizzle()
    else:
        need = pycute.cosize(outer) + offset
        inner = Layout((need, 2), (rng.choice([1, 2, 3]), need * 4))
    cl = pycute.ComposedLayout(inner, offset, outer)
    w = CaseWriter()
    lay = w.static(cl)
    probes = []
    n = R.size_of(outer.shape)
    for form in ("index", "coord", "index"):
        i = rng.randrange(n)
        crd = i if form == "index" else pycute.idx2crd(i, outer.shape)
        c = w.static(crd)
        w.op("crd2idx", [c, lay])
        probes.append(Probe(cl(crd), check_value))
    return w.case("crd2idx", R.OK, probes, note="(composed)")


def b_idx2crd(g: Gen, rng):
    """idx2crd(i, layout) is the natural coordinate over the layout's shape
    (CuTe idx2crd(i, shape(layout)); strides ignored, as FlyOps.td states),
    and idx2crd(i, shape) the same through an int tuple."""
    g.universe(0.5)
    L = g.layout(max_size=1024)
    shape = L.shape
    w = CaseWriter()
    lay = w.static(L if rng.random() < 0.7 else shape)
    probes = []
    for _ in range(3):
        i = rng.randrange(R.size_of(shape))
        c = w.static(i)
        w.op("idx2crd", [c, lay])
        probes.append(Probe(pycute.idx2crd(i, shape), check_value))
    return w.case("idx2crd", R.OK, probes)


def _cute_cosize(L):
    return sum((s - 1) * abs(d) for s, d in zip(R.flat(L.shape), R.flat(L.stride))) + 1


def b_queries(g: Gen, rng):
    g.universe(0.5)
    w = CaseWriter()
    probes = []
    if rng.random() < 0.6:
        L = negate_some(rng, g.layout(max_size=4096))
        x = w.static(L)
        # With negative strides CuTe (|stride|) and pycute (L(size-1)+1)
        # define cosize differently: either answer passes.
        co = {_cute_cosize(L), pycute.cosize(L)}
        for op, val, check in (
            ("size", R.size_of(L.shape), check_value),
            ("cosize", co, check_one_of),
            ("coshape", co, check_one_of),
            ("rank", len(L), check_value),
            ("depth", pycute_depth(L.shape), check_value),
        ):
            w.op(op, [x])
            probes.append(Probe(val, check))
    else:
        t = g.shape(max_size=4096)
        x = w.static(t)
        for op, val in (("size", R.size_of(t)), ("rank", len(t) if isinstance(t, tuple) else 1), ("depth", pycute_depth(t))):
            w.op(op, [x])
            probes.append(Probe(val, check_value))
    return w.case("size/cosize/coshape/rank/depth", R.OK, probes)


def pycute_depth(t):
    return 1 + max(pycute_depth(e) for e in t) if isinstance(t, tuple) else 0


# ----------------------------------------------------------------------------
# Builders: tuple surgery
# ----------------------------------------------------------------------------


def _modes_of(x):
    if isinstance(x, Layout):
        return R.modes(x)
    return list(x) if isinstance(x, tuple) else [x]


def _join(ms, like):
    if isinstance(like, Layout):
        return R.make_layout(ms)
    return tuple(ms)


def _cmp_struct(ours, exp):
    if isinstance(exp, Layout):
        o, err = _as_layout(ours)
        if err:
            return err
        if R.normal_form(o) != R.normal_form(exp):
            return "wrong value", f"ours {fmt_layout(o)}, expected {fmt_layout(exp)}"
        return None
    return check_value(ours, exp)


def _get_path(x, path):
    for p in path:
        x = x[p] if isinstance(x, Layout) else (x[p] if isinstance(x, tuple) else x)
    return x


def b_tuple_ops(g: Gen, rng):
    g.universe(0.5)
    use_layout = rng.random() < 0.5
    op = rng.choice(["get", "take", "select", "group", "append", "prepend"])
    for _ in range(50):
        x = g.layout(max_size=4096, max_rank=4) if use_layout else g.shape(max_size=4096, max_rank=4)
        ms = _modes_of(x)
        r = len(ms)
        if r >= 2 or op in ("append", "prepend"):
            break
    else:
        return None
    bad = rng.random() < 0.05
    if op == "get":
        path = [rng.randrange(r)]
        m = ms[path[0]]
        sub = _modes_of(m) if (isinstance(m, Layout) and isinstance(m.shape, tuple)) or isinstance(m, tuple) else None
        if sub and rng.random() < 0.5:
            path.append(rng.randrange(len(sub)))
        if bad:
            path = [r]
        attrs = "{mode = array<i64: " + ", ".join(map(str, path)) + ">}"
        exp = None if bad else _get_path(x, path)
        return simple("get", [x], R.REJECT if bad else R.OK, exp, _cmp_struct, attrs=attrs)
    if op == "take":
        b = rng.randrange(r)
        e = rng.randint(b + 1, r)
        if bad:
            e = r + 1
        attrs = f"{{begin = {b} : i64, end = {e} : i64}}"
        exp = None if bad else _join(ms[b:e], x)
        return simple("take", [x], R.REJECT if bad else R.OK, exp, _cmp_struct, attrs=attrs)
    if op == "select":
        idx = [rng.randrange(r) for _ in range(rng.randint(1, r + 1))]
        if bad:
            idx.append(r)
        attrs = "{modes = array<i64: " + ", ".join(map(str, idx)) + ">}"
        exp = None if bad else _join([ms[i] for i in idx], x)
        return simple("select", [x], R.REJECT if bad else R.OK, exp, _cmp_struct, attrs=attrs)
    if op == "group":
        b = rng.randrange(r)
        e = rng.randint(b + 1, r)
        if bad:
            e = r + 2
        attrs = f"{{begin = {b} : i64, end = {e} : i64}}"
        exp = None if bad else _join(ms[:b] + [_join(ms[b:e], x)] + ms[e:], x)
        return simple("group", [x], R.REJECT if bad else R.OK, exp, _cmp_struct, attrs=attrs)
    y = g.layout(max_size=64, max_rank=2) if use_layout else g.shape(max_size=64, max_rank=2)
    exp = _join(ms + [y] if op == "append" else [y] + ms, x)
    return simple(op, [x, y], R.OK, exp, _cmp_struct)


def _star_coord(rng, shape, want_star):
    for _ in range(50):
        crd = weak_coord(rng, shape, star_prob=0.45)
        leaves = R.flat(crd) if isinstance(crd, tuple) else (crd,)
        stars = sum(1 for c in leaves if c is None)
        if (stars > 0) if want_star else (stars < len(leaves)):
            return crd
    return None


def b_slice_dice(g: Gen, rng):
    g.universe(0.5)
    use_layout = rng.random() < 0.5
    x = g.layout(max_size=4096) if use_layout else g.shape(max_size=4096)
    shape = x.shape if use_layout else x
    op = rng.choice(["slice", "dice"])
    crd = _star_coord(rng, shape, want_star=(op == "slice"))
    if crd is None:
        return None
    fn = R.slice_tuple if op == "slice" else R.dice
    if use_layout:
        exp = Layout(fn(crd, x.shape), fn(crd, x.stride))
        if exp.shape == ():
            return None
    else:
        exp = fn(crd, x)
        if exp == ():
            return None
    return simple(op, [x, crd], R.OK, exp, _cmp_struct)


def _congruent_like(rng, t, lo=0, hi=9):
    if isinstance(t, tuple):
        return tuple(_congruent_like(rng, e, lo, hi) for e in t)
    return rng.randint(lo, hi)


def _elementwise(fn, a, b):
    if isinstance(a, tuple):
        return tuple(_elementwise(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


def b_tuple_arith(g: Gen, rng):
    g.universe(0.5)
    a = g.shape(max_size=4096)
    op = rng.choice(["int_tuple_add", "int_tuple_sub", "int_tuple_mul", "int_tuple_div", "int_tuple_mod",
                     "int_tuple_product", "int_tuple_product_each", "shape_div", "ceil_div"])
    if op == "int_tuple_product":
        return simple(op, [a], R.OK, R.size_of(a), check_value)
    if op == "int_tuple_product_each":
        exp = tuple(R.size_of(m) for m in a) if isinstance(a, tuple) else a
        return simple(op, [a], R.OK, exp, check_value)
    if op in ("shape_div", "ceil_div"):
        b = rng.choice([1, 2, 3, 4, 8, 16, 6]) if rng.random() < 0.5 else _congruent_like(rng, a, 1, 8)
        if op == "shape_div":
            try:
                exp = pycute.shape_div(a, b)
            except AssertionError:
                return simple(op, [a, b], R.REJECT)
        else:
            exp = R.cute_ceil_div(a, b)
        return simple(op, [a, b], R.OK, exp, check_value)
    lo = 1 if op in ("int_tuple_div", "int_tuple_mod") else 0
    b = _congruent_like(rng, a, lo, 9)
    fn = {
        "int_tuple_add": lambda x, y: x + y,
        "int_tuple_sub": lambda x, y: x - y,
        "int_tuple_mul": lambda x, y: x * y,
        "int_tuple_div": lambda x, y: x // y,
        "int_tuple_mod": lambda x, y: x % y,
    }[op]
    return simple(op, [a, b], R.OK, _elementwise(fn, a, b), check_value)


def b_make_layout(g: Gen, rng):
    g.universe(0.5)
    shape = g.shape(max_size=4096)
    if rng.random() < 0.5:
        return simple("make_layout", [shape], R.OK, Layout(shape), check_normal)
    stride = g.stride(shape)
    if rng.random() < 0.04 and isinstance(shape, tuple):
        return simple("make_layout", [shape, stride[:-1] if len(stride) > 1 else 0], R.REJECT)
    return simple("make_layout", [shape, stride], R.OK, Layout(shape, stride), check_normal)


# ----------------------------------------------------------------------------
# Registry: group name -> (builder, number of "must succeed" cases wanted)
# ----------------------------------------------------------------------------


def registry(n):
    """Every op gets n must-succeed cases; ops with two input forms (layout or
    tile tiler, with or without profile / cotarget) split them evenly."""
    half = n // 2
    reg = {
        "coalesce": (b_coalesce, half),
        "coalesce_profile": (b_coalesce_profile, half),
        "composition": (b_composition, half),
        "composition_tile": (b_composition_tile, half),
        "complement": (b_complement, half),
        "complement_cotarget": (b_complement_cotarget, half),
        "right_inverse": (b_right_inverse, n),
        "left_inverse": (b_left_inverse, n),
        "blocked_product": (_rank_product_builder("blocked_product"), n),
        "raked_product": (_rank_product_builder("raked_product"), n),
        "recast_layout": (b_recast, n),
        "tile_to_shape": (b_tile_to_shape, n),
        "make_ordered_layout": (b_make_ordered_layout, n),
        "make_layout_like": (b_make_layout_like, n),
        "make_identity_layout": (b_make_identity_layout, n),
        "crd2idx": (b_crd2idx, n),
        "crd2idx_composed": (b_crd2idx_composed, n),
        "idx2crd": (b_idx2crd, n),
        "queries": (b_queries, n),
        "tuple_ops": (b_tuple_ops, n),
        "slice_dice": (b_slice_dice, n),
        "tuple_arith": (b_tuple_arith, n),
        "make_layout": (b_make_layout, n // 4),
    }
    for op in _DIVIDES:
        reg[op] = (make_divide_builder(op, False), half)
        reg[op + "_tile"] = (make_divide_builder(op, True), half)
    # Basis strides: the ops CuTe defines for them (see basis_case).
    reg["coalesce_basis"] = (b_coalesce_basis, half)
    reg["coalesce_profile_basis"] = (b_coalesce_profile_basis, half)
    reg["composition_basis"] = (b_composition_basis, half)
    reg["composition_tile_basis"] = (b_composition_tile_basis, half)
    for op in _DIVIDES:
        if op.endswith("divide"):
            reg[op + "_basis"] = (make_divide_builder(op, False, basis=True), half)
            reg[op + "_tile_basis"] = (make_divide_builder(op, True, basis=True), half)
    return reg
