"""Counter-based random numbers on fx numerics: the Philox-4 bijection
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) and
the float distributions drawn from its words, with Triton's
`tl.random` conventions so that a kernel ported from Triton draws the same
numbers from the same (seed, offset).

    words   = randint4x(seed, offset)   # four Uint32
    u0..u3  = rand4x(seed, offset)      # four Float32 in [0, 1)
    n0..n3  = randn4x(seed, offset)     # four Float32 ~ N(0, 1)
    randint / rand / randn              # the first of the four

How (seed, offset) become a Philox input (Triton's splitting): the seed,
widened to 64 bits (a signed one sign-extends), is the key (k0, k1) = (low,
high 32 bits); the counter is (offset's low 32 bits, its high 32 bits when
it is wider than 32 bits else 0, 0, 0). A 32-bit offset therefore never
touches counter word 1, and `randint4x(Uint64(s), Uint64(o))` equals
`randint4x(Uint32(s), Uint32(o))` for values below 2^32.

Beyond the six public names (this module's `__all__`), the building blocks
FlyDSL also keeps here: `philox_impl(c0, c1, c2, c3, k0, k1, n_rounds)`
(the rounds on 32- or 64-bit words, chosen by c0's width), `philox(seed, c0,
c1, c2, c3, n_rounds)` (the rounds keyed by a seed: split over both key
words for 32-bit counters, the low key word for 64-bit ones), and
`uint_to_uniform_float(word)` / `pair_uniform_to_normal(u1, u2)`.

Every function works on static numerics (evaluated at trace time, or
outside a trace, in Python integers) and on dynamic ones (arith ops in the
kernel: a Philox round is two widening multiplies, `Uint64` products of
32-bit words and `Uint128` products of 64-bit ones, and xors).
"""

from __future__ import annotations

from typing import NamedTuple

from ...expr import numeric as nm
from ...expr._elementwise import fail
from ...expr.arith import maximumf
from ...expr.math import cos, log, sin, sqrt

__all__ = ["randint", "randint4x", "rand", "rand4x", "randn", "randn4x"]


class _Variant(NamedTuple):
    """One Philox-4 word size: the word and product classes, the two round
    multipliers and the two Weyl increments of the key (Random123's
    PHILOX_M4x*_0/1 and PHILOX_W*_0/1)."""

    word: type
    product: type
    multipliers: tuple
    key_increments: tuple


_VARIANTS = {
    32: _Variant(nm.Uint32, nm.Uint64, (0xD2511F53, 0xCD9E8D57), (0x9E3779B9, 0xBB67AE85)),
    64: _Variant(nm.Uint64, nm.Uint128, (0xD2E7470EE14C6C93, 0xCA5A826395121157),
                 (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)),
}

# Triton's uint_to_uniform_float scales, just under 2^-(w-1): the largest
# folded word, 2^(w-1) - 1, still maps below 1.0 in Float32.
_UNIFORM_SCALE = {32: 4.6566127342e-10, 64: 1.0842020432385337e-19}

_NORMAL_U1_FLOOR = 1.0e-7  # keeps log(u1) finite in Box-Muller
_TWO_PI = 6.283185307179586


# -- arguments ----------------------------------------------------------------------

def _integer(api: str, what: str, x):
    """`x` as an integer numeric (a Python int becomes Int32, or Int64 past
    its range), or a TraceError at the user's line."""
    if isinstance(x, bool) or not isinstance(x, (int, nm.Numeric)) or isinstance(x, nm.Vector):
        fail(f"fx.random.{api}: {what} must be an integer scalar (a Python int or an fx "
             f"integer such as fx.Uint32), not {nm._describe(x)}")
    x = nm.as_numeric(x)
    if not x.dtype.is_integer or x.dtype is nm.Boolean:
        fail(f"fx.random.{api}: {what} must be an integer scalar (such as fx.Uint32), "
             f"not {x.dtype.__name__}")
    return x


def _width(api: str, what: str, x) -> int:
    """The width of the integer `x`, which must be 32 or 64 bits."""
    width = _integer(api, what, x).dtype.width
    if width not in (32, 64):
        fail(f"fx.random.{api}: {what} is {nm.as_numeric(x).dtype.__name__}, but Philox words "
             "are 32 or 64 bits wide (fx.Uint32, fx.Int32, fx.Uint64, fx.Int64)")
    return width


def _at_most_64_bits(api: str, what: str, x):
    x = _integer(api, what, x)
    if x.dtype.width > 64:
        fail(f"fx.random.{api}: {what} is {x.dtype.__name__}; a seed or an offset has at most "
             "64 bits")
    return x


def _rounds(api: str, n_rounds) -> int:
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, int) or n_rounds < 0:
        fail(f"fx.random.{api}: n_rounds must be a non-negative Python int (10 is Philox's "
             f"usual count), not {n_rounds!r}")
    return n_rounds


# -- the bijection --------------------------------------------------------------------

def _philox_rounds(variant: _Variant, counter, key, n_rounds: int):
    word, product = variant.word, variant.product
    c0, c1, c2, c3 = (word(c) for c in counter)
    k0, k1 = (word(k) for k in key)
    m0, m1 = (product(m) for m in variant.multipliers)
    w0, w1 = (word(w) for w in variant.key_increments)
    half = product(word.width)
    for _ in range(n_rounds):
        p0, p1 = product(c0) * m0, product(c2) * m1
        c0, c1, c2, c3 = (word(p1 >> half) ^ c1 ^ k0, word(p1),
                          word(p0 >> half) ^ c3 ^ k1, word(p0))
        k0, k1 = k0 + w0, k1 + w1
    return c0, c1, c2, c3


def _keyed(api: str, seed, counter, n_rounds):
    """Philox-4 of `counter` keyed by `seed` (see `philox`)."""
    width = _width(api, "c0", counter[0])
    for name, c in zip(("c1", "c2", "c3"), counter[1:]):
        _integer(api, name, c)
    seed = nm.Uint64(_at_most_64_bits(api, "seed", seed))
    if width == 32:
        key = (nm.Uint32(seed), nm.Uint32(seed >> nm.Uint64(32)))
    else:
        key = (seed, nm.Uint64(0))
    return _philox_rounds(_VARIANTS[width], counter, key, _rounds(api, n_rounds))


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: int = 10):
    """`n_rounds` Philox-4 rounds of the counter (c0, c1, c2, c3) under the
    key (k0, k1): Philox4x32 when c0 is 32 bits wide, Philox4x64 when it is
    64 (every word is taken as that width). Four Uint32 or Uint64."""
    api = "universal.philox_impl"
    variant = _VARIANTS[_width(api, "c0", c0)]
    words = [_integer(api, name, w)
             for name, w in zip(("c1", "c2", "c3", "k0", "k1"), (c1, c2, c3, k0, k1))]
    return _philox_rounds(variant, (c0, *words[:3]), words[3:], _rounds(api, n_rounds))


def philox(seed, c0, c1, c2, c3, n_rounds: int = 10):
    """Philox-4 of the counter (c0, c1, c2, c3) keyed by `seed`, as Triton's
    `philox`: with 32-bit words the seed (widened to 64 bits) is both key
    words, low then high; with 64-bit words it is k0, and k1 is 0."""
    return _keyed("universal.philox", seed, (c0, c1, c2, c3), n_rounds)


def _draw(api: str, seed, offset, n_rounds):
    """randint4x's words, with errors naming the public function `api`."""
    offset = _at_most_64_bits(api, "offset", offset)
    low = nm.Uint32(offset)
    high = nm.Uint32(nm.Uint64(offset) >> nm.Uint64(32)) if offset.dtype.width > 32 \
        else nm.Uint32(0)
    zero = nm.Uint32(0)
    return _keyed(api, seed, (low, high, zero, zero), n_rounds)


def _uniform(api: str, word):
    width = _width(api, "word", word)
    signed_class = nm.Int32 if width == 32 else nm.Int64
    signed = signed_class(nm.as_numeric(word))  # the same bits, read with a sign
    # x >> (w - 1) is 0 or -1 (an arithmetic shift), so the xor complements
    # exactly the negative values.
    folded = signed ^ (signed >> signed_class(width - 1))
    return nm.Float32(folded) * nm.Float32(_UNIFORM_SCALE[width])


def uint_to_uniform_float(word):
    """A random 32- or 64-bit word as a Float32 in [0, 1), as Triton maps it:
    the bits read as a signed integer x, a negative x replaced by -x - 1 (its
    complement, so both halves of the range land on [0, 2^(w-1))), converted
    and scaled by just under 2^-(w-1)."""
    return _uniform("universal.uint_to_uniform_float", word)


def pair_uniform_to_normal(u1, u2):
    """Two independent standard normals from two uniforms on [0, 1) (the
    Box-Muller transform): r cos(theta) and r sin(theta), with
    r = sqrt(-2 log(max(u1, 1e-7))) and theta = 2 pi u2."""
    u1 = maximumf(u1, nm.Float32(_NORMAL_U1_FLOOR))
    theta = nm.Float32(_TWO_PI) * u2
    radius = sqrt(nm.Float32(-2.0) * log(u1))
    return radius * cos(theta), radius * sin(theta)


# -- the public draws ------------------------------------------------------------------

def randint4x(seed, offset, n_rounds: int = 10):
    """Four random Uint32 words for (seed, offset): Philox4x32 with `n_rounds`
    rounds of the counter (offset low, offset high or 0, 0, 0) keyed by the
    seed. A pure function of its arguments: nothing is carried between draws."""
    return _draw("randint4x", seed, offset, n_rounds)


def randint(seed, offset, n_rounds: int = 10):
    """One random Uint32: the first word of `randint4x(seed, offset)`."""
    return _draw("randint", seed, offset, n_rounds)[0]


def rand4x(seed, offset, n_rounds: int = 10):
    """Four Float32 uniforms on [0, 1), one from each word of `randint4x`."""
    return tuple(_uniform("rand4x", w) for w in _draw("rand4x", seed, offset, n_rounds))


def rand(seed, offset, n_rounds: int = 10):
    """One Float32 uniform on [0, 1): the first word of the draw, converted."""
    return _uniform("rand", _draw("rand", seed, offset, n_rounds)[0])


def randn4x(seed, offset, n_rounds: int = 10):
    """Four Float32 standard normals: Box-Muller on uniforms (0, 1) and (2, 3)."""
    u0, u1, u2, u3 = (_uniform("randn4x", w) for w in _draw("randn4x", seed, offset, n_rounds))
    return pair_uniform_to_normal(u0, u1) + pair_uniform_to_normal(u2, u3)


def randn(seed, offset, n_rounds: int = 10):
    """One Float32 standard normal: the cosine half of Box-Muller on the
    first two uniforms of the draw (so `randn` equals `randn4x(...)[0]`)."""
    w0, w1, _, _ = _draw("randn", seed, offset, n_rounds)
    return pair_uniform_to_normal(_uniform("randn", w0), _uniform("randn", w1))[0]
