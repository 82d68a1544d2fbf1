"""Reference side of the differential tests: pycute plus what pycute lacks.

* `evaluate`: a layout as a function, all 1-D indices at once (numpy).
* verdicts: for every algebra op, whether CuTe's preconditions admit an input.
  pycute asserts a weaker or different set of conditions than CuTe's C++
  headers in a few places (composition's divisibility, complement's
  injectivity, coalesce_x's trailing unit mode, the cotarget of
  logical_divide, right_inverse on non-injective layouts). A case is
  "ok" only when pycute succeeds *and* CuTe's documented preconditions hold;
  it is "reject" when pycute raises and CuTe's preconditions fail too; every
  other case is "skip" (the two definitions disagree, nothing to assert).
* oracles built from pycute primitives following CuTe's documented
  definitions: flat_divide/flat_product, blocked/raked_product,
  make_ordered_layout, make_layout_like, make_identity_layout,
  recast_layout, tile_to_shape, dice.
* `BasisRadix`: basis strides (CuTe's ScaledBasis) as digits of integers,
  so that pycute's own algorithms give the reference for layouts with them.
"""

from __future__ import annotations

import math
from itertools import chain

import numpy as np
import pycute
from pycute import Layout

from fly_types import Basis

OK, REJECT, SKIP = "ok", "reject", "skip"
# pycute accepts, CuTe's preconditions reject: fly may reject, or give
# pycute's answer.
EITHER = "either"
_SEVERITY = {OK: 0, EITHER: 1, SKIP: 2, REJECT: 3}


def worst(*verdicts):
    return max(verdicts, key=_SEVERITY.__getitem__)


def failed(v) -> bool:
    """No expected value exists (the case is skipped or rejected)."""
    return v in (SKIP, REJECT)


class Rejected(Exception):
    """CuTe's preconditions do not admit the input."""


# ----------------------------------------------------------------------------
# Tuples
# ----------------------------------------------------------------------------


def _flat_into(t, out):
    for e in t:
        if type(e) is tuple:
            _flat_into(e, out)
        else:
            out.append(e)


def flat(t):
    """pycute.flatten, without its generator recursion (a hot path here)."""
    if type(t) is not tuple:
        return (t,)
    out = []
    _flat_into(t, out)
    return tuple(out)


def size_of(t):
    if type(t) is not tuple:
        return t
    n = 1
    for e in flat(t):
        n *= e
    return n


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def modes(layout: Layout):
    """Top-level modes of a layout (a non-tuple shape is its own mode)."""
    return [layout[i] for i in range(len(layout))]


def make_layout(ms) -> Layout:
    ms = list(ms)
    return Layout(tuple(m.shape for m in ms), tuple(m.stride for m in ms))


def append_rank(layout: Layout, r: int) -> Layout:
    """CuTe append<R>: pad with 1:0 modes up to rank r."""
    ms = modes(layout)
    if len(ms) >= r:
        return layout
    return make_layout(ms + [Layout(1, 0)] * (r - len(ms)))


def cute_tuple_ceil_div(a, b: int):
    """CuTe ceil_div(tuple, int): divide the leading modes, carrying the rest."""
    if isinstance(a, tuple):
        out = []
        for v in a:
            out.append(cute_tuple_ceil_div(v, b))
            b = ceil_div(b, size_of(v))
        return tuple(out)
    return ceil_div(a, b)


# ----------------------------------------------------------------------------
# Evaluation
# ----------------------------------------------------------------------------


def evaluate(layout: Layout) -> np.ndarray:
    """layout(i) for every i in [0, size): the layout as a function."""
    shape, stride = flat(layout.shape), flat(layout.stride)
    n = size_of(shape)
    idx = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    for s, d in zip(shape, stride):
        out += (idx % s) * d
        idx //= s
    return out


def same_function(a: Layout, b: Layout) -> bool:
    return size_of(a.shape) == size_of(b.shape) and np.array_equal(evaluate(a), evaluate(b))


def normal_form(layout: Layout):
    """(shape, stride) with rank-1 tuples unwrapped and the strides of
    size-1 leaves zeroed: two layouts with equal normal forms are the same
    layout up to notation."""

    def norm(s, d):
        if isinstance(s, tuple):
            pairs = [norm(x, y) for x, y in zip(s, d)]
            if len(pairs) == 1:
                return pairs[0]
            return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
        return s, (0 if s == 1 else d)

    return norm(layout.shape, layout.stride)


def is_injective(layout: Layout) -> bool:
    v = evaluate(layout)
    return len(np.unique(v)) == len(v)


def eval_basis_layout(layout: Layout, i):
    """crd2idx of a 1-D index (an int, or a numpy array of them) through a
    layout whose strides are scaled basis elements: returns {path: value}."""
    acc = {}
    for s, d in zip(flat(layout.shape), flat(layout.stride)):
        c = i % s
        i = i // s
        if isinstance(d, Basis):
            acc[d.path] = acc.get(d.path, 0) + c * d.value
        elif d != 0:
            acc[()] = acc.get((), 0) + c * d
    return acc


def paths_to_tuple(acc: dict, like):
    """Place {path: value} into a tuple congruent to `like`."""

    def build(t, prefix):
        if isinstance(t, tuple):
            return tuple(build(e, prefix + (k,)) for k, e in enumerate(t))
        return acc.get(prefix, 0)

    return build(like, ())


def leaf_paths(t, prefix=()):
    if isinstance(t, tuple):
        for k, e in enumerate(t):
            yield from leaf_paths(e, prefix + (k,))
    else:
        yield prefix


def _map_leaves(fn, t):
    return tuple(_map_leaves(fn, e) for e in t) if isinstance(t, tuple) else fn(t)


# ----------------------------------------------------------------------------
# Basis strides through pycute's integer algorithms
# ----------------------------------------------------------------------------


class BasisRadix:
    """pycute has no scaled basis elements. Each basis direction met in a
    case's input layout (a path: (1,) for E1, (1, 0) for E1E0) becomes a
    digit of one integer, weight RADIX**k for the k-th path in sorted order:
    a stride v·E_path encodes as v·RADIX**k, an integer 0 stays 0. pycute's
    own integer algorithm then runs on the encoded layout, and its result's
    strides are decoded back to basis elements.

    Why the encoding is faithful, i.e. pycute on enc(A) computes enc of what
    CuTe computes on A: CuTe defines only ==, * by an integer and + on
    ScaledBasis (an integer + a basis element only for a static 0), and the
    ops used with it here touch A's strides in two ways only.
    * coalesce merges two modes when shape0·stride0 == stride1. In one
      direction that reads s0·v0·W == v1·W, i.e. CuTe's test s0·v0 == v1 on
      the values. In different directions (or against an integer 0) the two
      sides are divisible by different powers of RADIX — s0·v0·R**i is
      divisible by R**i but not R**(i+1) while 0 < |s0·v0| < RADIX — so they
      are never equal, as CuTe's ScaledBasis == is false across directions
      and against integers. So the merges are the same, and so are the
      shapes of the result.
    * composition (and the divides, which compose A with the tiler and its
      complement, the complement taken of the integer tiler over size(A) or
      shape(coalesce(A))) reads A only through coalesce(A): every branch
      and divisibility test looks at A's shapes and B's strides, and A's
      strides are only multiplied by an integer derived from B
      (rest_stride·curr_stride); enc(c·v·E) = c·enc(v·E).
    So every result stride is an integer multiple of one encoded input
    stride: `decode` checks that (one non-zero digit), and the decoded
    result is the one CuTe's definition gives. Nothing orders, divides or
    takes the min of A's strides (complement would: the products are left
    out, see algebra_cases.basis_case).

    Digits cannot overflow into each other: RADIX = 2**64 (pycute computes
    in Python integers). `encode` checks size(A)·|value| < 2**63 for every
    input stride, which bounds s0·v0 in the merge test; a result stride c·v
    is a value fly must hold in an int64, so |c·v| < 2**63 = RADIX/2 and
    its balanced digit is exact (were it not, fly would report an integer
    overflow, and the case fail as a rejected valid input).
    """

    RADIX = 1 << 64

    def __init__(self, paths):
        self.paths = sorted(set(paths))
        self.weight = {p: self.RADIX**k for k, p in enumerate(self.paths)}

    @classmethod
    def of(cls, layout: Layout) -> "BasisRadix":
        return cls(d.path for d in flat(layout.stride) if isinstance(d, Basis))

    def _encode(self, d):
        if isinstance(d, Basis):
            return d.value * self.weight[d.path]
        if d != 0:
            raise ValueError(f"integer stride {d} beside basis strides (CuTe adds a basis element only to 0)")
        return 0

    def encode(self, layout: Layout) -> Layout:
        n = size_of(layout.shape)
        for d in flat(layout.stride):
            if isinstance(d, Basis) and 2 * n * abs(d.value) >= self.RADIX:
                raise ValueError(f"basis stride {d} too large for the radix encoding of a layout of size {n}")
        return Layout(layout.shape, _map_leaves(self._encode, layout.stride))

    def decode(self, x: int):
        """An encoded stride back as a Basis (0 stays 0), by balanced digits."""
        half, found = self.RADIX // 2, []
        for p in self.paths:
            digit = (x + half) % self.RADIX - half
            if digit:
                found.append(Basis(digit, p))
            x = (x - digit) // self.RADIX
        if x or len(found) > 1:
            raise AssertionError(f"radix encoding not faithful: a stride along {found} (+{x} beyond)")
        return found[0] if found else 0

    def decode_layout(self, layout: Layout) -> Layout:
        return Layout(layout.shape, _map_leaves(self.decode, layout.stride))


# ----------------------------------------------------------------------------
# Preconditions (CuTe's C++ definitions) and verdicts
# ----------------------------------------------------------------------------


def _pycute(fn, *args):
    try:
        return fn(*args), True
    except (AssertionError, ZeroDivisionError, IndexError, TypeError):
        return None, False


def cute_composition_ok(a: Layout, b: Layout) -> bool:
    """CuTe composition_impl's weak stride and shape divisibility checks
    (on coalesce(a), per leaf mode of b)."""
    ca = pycute.coalesce(a)
    lshape = flat(ca.shape)
    for s, d in zip(flat(b.shape), flat(b.stride)):
        if d == 0 or len(lshape) == 1:
            continue
        rest_shape, rest_stride = s, d
        for cs in lshape[:-1]:
            if not (rest_stride % cs == 0 or rest_stride < cs):
                return False
            next_shape = ceil_div(cs, rest_stride)
            next_stride = ceil_div(rest_stride, cs)
            if next_shape != 1 and rest_shape != 1:
                new_shape = min(next_shape, rest_shape)
                if rest_shape % new_shape != 0:
                    return False
                rest_shape //= new_shape
            rest_stride = next_stride
    return True


def _trailing_unit_matters(a: Layout, b: Layout) -> bool:
    """CuTe composes with coalesce_x, which keeps a trailing size-1 mode's
    stride for the part of b that runs past size(a); pycute drops it."""
    fs = flat(a.shape)
    return len(fs) > 1 and fs[-1] == 1 and pycute.cosize(b) > size_of(a.shape)


def _by_mode(verdict_fn, a: Layout, b: tuple):
    """A tile tuple (pycute's by-mode form; None keeps a mode) applied mode by
    mode with `verdict_fn`; the worst verdict wins."""
    if len(b) > len(a):
        return REJECT, None
    out, verdict = [], OK
    for i, m in enumerate(b):
        if m is None:
            out.append(a[i])
            continue
        v, r = verdict_fn(a[i], Layout(m) if isinstance(m, int) else m)
        if failed(v):
            return v, None
        verdict = worst(verdict, v)
        out.append(r)
    out += [a[i] for i in range(len(b), len(a))]
    return verdict, make_layout(out)


def composition_verdict(a: Layout, b):
    """b: a Layout or a Tile tuple (pycute's by-mode form)."""
    if isinstance(b, tuple):
        return _by_mode(composition_verdict, a, b)
    res, py_ok = _pycute(pycute.composition, a, b)
    cpp_ok = cute_composition_ok(a, b)
    if py_ok and _trailing_unit_matters(a, b):
        return SKIP, None
    if py_ok and cpp_ok:
        return OK, res
    if not py_ok and not cpp_ok:
        return REJECT, None
    if py_ok:
        return EITHER, res
    return SKIP, None


def complement_verdict(layout: Layout, cotarget=None):
    res, py_ok = _pycute(pycute.complement, layout, 1 if cotarget is None else cotarget)
    if not py_ok:
        return REJECT, None
    # CuTe: static_assert "Non-injective Layout detected in complement".
    current = 1
    for d, s in sorted((d, s) for s, d in zip(flat(layout.shape), flat(layout.stride))):
        if d == 0 or s == 1:
            continue
        if d // current == 0:
            return REJECT, None
        current = s * d
    return OK, res


def logical_divide_verdict(a: Layout, b):
    if isinstance(b, tuple):
        return _by_mode(logical_divide_verdict, a, b)
    n = size_of(a.shape)
    v, comp = complement_verdict(b, n)
    if v != OK:
        return v, None
    # CuTe's cotarget is shape(coalesce(a)), a tuple: its rest mode has
    # size(ceil_div(shape, s)) elements where pycute has ceil_div(size, s).
    end = max([s * d for s, d in zip(flat(b.shape), flat(b.stride)) if s != 1 and d != 0], default=1)
    if size_of(cute_tuple_ceil_div(pycute.coalesce(a).shape, end)) != ceil_div(n, end):
        return SKIP, None
    return composition_verdict(a, make_layout([b, comp]))


def logical_product_verdict(a: Layout, b):
    if isinstance(b, tuple):
        return _by_mode(logical_product_verdict, a, b)
    v, comp = complement_verdict(a, size_of(a.shape) * pycute.cosize(b))
    if failed(v):
        return v, None
    v2, rest = composition_verdict(comp, b)
    if failed(v2):
        return v2, None
    return worst(v, v2), make_layout([a, rest])


def _unzip(split, a: Layout, b):
    """pycute's hier_unzip with a verdict-returning splitter."""
    if b is None:
        return OK, make_layout([Layout(1, 0), a])
    if isinstance(b, tuple):
        if len(b) > len(a):
            return REJECT, None
        parts, verdict = [], OK
        for i, m in enumerate(b):
            v, r = _unzip(split, a[i], Layout(m) if isinstance(m, int) else m)
            if failed(v):
                return v, None
            verdict = worst(verdict, v)
            parts.append(r)
        first = make_layout([p[0] for p in parts])
        second = make_layout(chain((p[1] for p in parts), (a[i] for i in range(len(b), len(a)))))
        return verdict, make_layout([first, second])
    return split(a, b)


def zipped_divide_verdict(a, b):
    return _unzip(logical_divide_verdict, a, b)


def zipped_product_verdict(a, b):
    return _unzip(logical_product_verdict, a, b)


def _tiled(zipped):
    return make_layout([zipped[0]] + modes(zipped[1]))


def _flat(zipped):
    return make_layout(modes(zipped[0]) + modes(zipped[1]))


def tiled_divide_verdict(a, b):
    v, z = zipped_divide_verdict(a, b)
    return (v, None) if failed(v) else (v, _tiled(z))


def flat_divide_verdict(a, b):
    v, z = zipped_divide_verdict(a, b)
    return (v, None) if failed(v) else (v, _flat(z))


def tiled_product_verdict(a, b):
    v, z = zipped_product_verdict(a, b)
    return (v, None) if failed(v) else (v, _tiled(z))


def flat_product_verdict(a, b):
    v, z = zipped_product_verdict(a, b)
    return (v, None) if failed(v) else (v, _flat(z))


def _rank_product(a: Layout, b: Layout, raked: bool):
    """CuTe blocked_product / raked_product: logical_product of the
    rank-padded layouts, then zip its two halves mode by mode."""
    r = max(len(a), len(b))
    pa, pb = append_rank(a, r), append_rank(b, r)
    v, prod = logical_product_verdict(pa, pb)
    if failed(v):
        return v, None
    block, tiles = prod[0], prod[1]
    if r == 1:
        pair = [tiles, block] if raked else [block, tiles]
        return v, make_layout([make_layout(pair)])
    bm, tm = modes(block), modes(tiles)
    zipped = [make_layout([tm[i], bm[i]] if raked else [bm[i], tm[i]]) for i in range(r)]
    return v, make_layout(zipped)


def blocked_product_verdict(a, b):
    return _rank_product(a, b, raked=False)


def raked_product_verdict(a, b):
    return _rank_product(a, b, raked=True)


def right_inverse_cute(layout: Layout) -> Layout:
    """CuTe's right_inverse: coalesce, then follow the strides from 1,
    skipping (not stopping at) modes whose stride does not continue."""
    c = pycute.coalesce(layout)
    shape, stride = flat(c.shape), flat(c.stride)
    pre = pycute.prefix_product(shape)
    order = sorted(range(len(stride)), key=lambda i: stride[i])
    rs, rd, cur = [], [], 1
    for i in order:
        if stride[i] == cur:
            rs.append(shape[i])
            rd.append(pre[i])
            cur = shape[i] * stride[i]
    if not rs:
        return Layout(1, 0)
    return pycute.coalesce(Layout(tuple(rs), tuple(rd)))


def right_inverse_verdict(layout: Layout):
    res = pycute.right_inverse(layout)
    if not same_function(res, right_inverse_cute(layout)):
        return SKIP, None
    return OK, res


# ----------------------------------------------------------------------------
# Oracles pycute lacks
# ----------------------------------------------------------------------------


def compact_order(shape, order):
    """CuTe compact_order(shape, order) for static orders: a leaf (or a whole
    mode, when `order` is coarser than `shape`) with order o starts at the
    product of the sizes of all parts with smaller order and is compact
    column-major inside."""
    ref_shape = flat(_product_like(shape, order))
    ref_order = flat(order)

    def build(s, o):
        if isinstance(o, tuple):
            return tuple(build(x, y) for x, y in zip(s, o))
        start = 1
        for rs, ro in zip(ref_shape, ref_order):
            if ro < o:
                start *= rs
        return _compact_col_major(s, start)

    return build(shape, order)


def _product_like(shape, order):
    if isinstance(order, tuple):
        return tuple(_product_like(s, o) for s, o in zip(shape, order))
    return size_of(shape)


def _compact_col_major(shape, start):
    if isinstance(shape, tuple):
        out = []
        for s in shape:
            out.append(_compact_col_major(s, start))
            start *= size_of(s)
        return tuple(out)
    return 0 if shape == 1 else start


def make_ordered_layout(shape, order) -> Layout:
    return Layout(shape, compact_order(shape, order))


def filter_zeros(stride, shape):
    if isinstance(stride, tuple):
        return tuple(filter_zeros(d, s) for d, s in zip(stride, shape))
    return 1 if stride == 0 else shape


def make_layout_like(layout: Layout) -> Layout:
    return Layout(layout.shape, compact_order(filter_zeros(layout.stride, layout.shape), layout.stride))


def basis_like(shape, prefix=()):
    if isinstance(shape, tuple):
        return tuple(basis_like(s, prefix + (k,)) for k, s in enumerate(shape))
    return Basis(1, prefix if prefix else (0,))


def _upcast(shape, stride, n):
    if isinstance(shape, tuple):
        pairs = [_upcast(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride == 0:
        return shape, stride
    if not (stride % n == 0 or n % abs(stride) == 0):
        raise Rejected("upcast divisibility")
    sign = 1 if stride > 0 else -1
    return ceil_div(shape, ceil_div(n, abs(stride))), sign * ceil_div(abs(stride), n)


def _downcast(shape, stride, n):
    if isinstance(shape, tuple):
        pairs = [_downcast(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride in (1, -1):
        return shape * n, stride
    return shape, stride * n


def recast_layout(layout: Layout, old_bits: int, new_bits: int) -> Layout:
    g = math.gcd(old_bits, new_bits)
    num, den = new_bits // g, old_bits // g
    shape, stride = layout.shape, layout.stride
    if num != 1:
        shape, stride = _upcast(shape, stride, num)
    if den != 1:
        if 1 not in flat(stride) and -1 not in flat(stride):
            raise Rejected("downcast requires a unit stride")
        shape, stride = _downcast(shape, stride, den)
    return Layout(shape, stride)


def tile_to_shape(block: Layout, trg_shape, order=None):
    """CuTe tile_to_shape: blocked_product of the rank-padded block with the
    compact (ordered) layout of the repetitions. Returns (verdict, layout);
    REJECT where CuTe asserts (rank, divisibility, or a blocked_product whose
    preconditions fail)."""
    r = len(trg_shape) if isinstance(trg_shape, tuple) else 1
    if len(block) > r:
        return REJECT, None
    padded = append_rank(block, r)
    tshapes = [size_of(t) for t in (trg_shape if isinstance(trg_shape, tuple) else (trg_shape,))]
    bshapes = [size_of(m.shape) for m in modes(padded)]
    if any(t % b for t, b in zip(tshapes, bshapes)):
        return REJECT, None
    prod_shape = tuple(t // b for t, b in zip(tshapes, bshapes))
    if r == 1:
        prod_shape = prod_shape[0]
    if order is not None:
        tiler = make_ordered_layout(prod_shape, order)
    else:  # LayoutLeft: compact column-major, stride 0 for size-1 modes
        tiler = Layout(prod_shape, _compact_col_major(prod_shape, 1))
    v, res = blocked_product_verdict(padded, tiler)
    if v == EITHER:  # pycute's answer would not cover the target shape
        return REJECT, None
    return v, res


def dice(crd, t):
    """CuTe dice: keep the modes of t paired with an integer (not `*`)."""
    if isinstance(crd, tuple):
        return tuple(chain(*[_lift_dice(c, s) for c, s in zip(crd, t)]))
    return () if crd is None else t


def _lift_dice(crd, t):
    if isinstance(crd, tuple):
        return tuple(chain(*[_lift_dice(c, s) for c, s in zip(crd, t)]))
    return () if crd is None else (t,)


def slice_tuple(crd, t):
    """CuTe slice: keep the modes of t paired with `*` (flattened)."""
    if isinstance(crd, tuple):
        return pycute.slice_(crd, t)
    return t if crd is None else ()


def shape_div(a, b):
    return pycute.shape_div(a, b)


def cute_ceil_div(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(cute_ceil_div(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple):
        return cute_tuple_ceil_div(a, b)
    return ceil_div(a, size_of(b))
