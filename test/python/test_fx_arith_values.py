"""The VALUES of fx arithmetic on dynamic scalars and vectors, run on the
emulator and compared with references computed here (numpy and Python
integers, never flydsl).

Each case is one kernel launch over a batch of inputs (one work-item per
input for scalars, LANES inputs per work-item for vectors: register-tensor
`load()` values): edge values of the type crossed with each other, plus
random ones.

Semantics checked (FlyDSL's, see expr/numeric.py):
  * Integers wrap modulo 2**bits: + - * unary -, <<, fx.math.abs(min) == min.
    A Python int is an Int32 (Int64 past int32's range), a Python float a
    Float32, a bool a Boolean; they promote as numerics of those types.
  * Integer `//` rounds toward -inf (arith.floordivsi, divui for unsigned
    types) and `%` takes the dividend's sign (remsi/remui):
    -7 // 2 == -4, -7 % 2 == -1, 7 % -2 == 1, 7 // -2 == -4.
    Integer `/` is a float division (test_fx_numeric_api.py checks it).
    Index is unsigned in //, % and comparisons.
  * fx.arith.ceil_div rounds toward +inf (arith.ceildivsi's value;
    unsigned types divide as unsigned).
  * `>>` is arithmetic for signed types and logical for unsigned ones
    (fx.arith.shr's `arithmetic=` overrides); shift amounts 0..bits-1.
  * Comparisons of unsigned types are unsigned; float comparisons are
    ordered (false with a NaN) except `!=` (true with a NaN).
  * Floats are IEEE-754 in their own type, rounded to nearest even once
    (Float16/BFloat16 as if computed exactly; BFloat16's reference is
    f32 arithmetic rounded by bit manipulation, which is exact for these
    ops); NaN, +-inf and -0.0 behave as IEEE says. Float `//` is
    floor(a / b), as in Python and FlyDSL.
  * min/max: integers by signedness; fx.arith.min/max of floats are
    minimumf/maximumf (NaN wins, -0 < +0), fx.math.min/max minnum/maxnum
    (a NaN operand yields the other one; min(-0, +0) may be either zero,
    so those pairs are not asked).
  * Conversions (`.to`, fx.arith.cast): float -> int truncates toward zero,
    int -> float and float -> narrower float round to nearest even
    (overflowing to inf), integer widening sign- or zero-extends by the
    source's signedness, narrowing wraps; -> Boolean is `x != 0` (NaN is
    true); Boolean -> 1/0. bitcast keeps every bit (NaN payloads too);
    index_cast sign-extends, index_castui (unsigned types) zero-extends.
  * Mixed operands promote by FlyDSL's lattice: a float beats an integer
    (a float narrower than the integer widens to Float32/Float64), the
    wider type beats the narrower, unsigned beats signed of the same width,
    Float16 with BFloat16 is Float32.

Undefined in LLVM (poison or UB), hence never asked: division or remainder
by zero and min / -1 (the emulator's host would trap), shifts by >= bits,
float -> int of NaN or out of range values.

Rejected by the front end for dynamic values (test_rejected checks each
raises instead of computing something): builtin round(), `& | ^ << >>` and
fx.arith.ceil_div/shr on floats, unary minus of a Boolean, two different
8-bit floats in one operation, index_cast of vectors and vectors of Index.
Not run: float `%` (arith.remf) becomes a call of __ocml_fmod_*, a
device-library function that neither the emulator nor the in-process
linker provides, so it does not compile here.

Outside the front end, hence left out of the inputs (and reported):
  * int -> BFloat16 of values that are not exact in f32 (on the GPU too:
    v_cvt_f32_i32, then a rounding to bf16) is rounded twice (through f32)
    by LLVM's lowering of the arith.sitofp/uitofp the front end emits, so a
    value just above a BFloat16 tie rounds down (2**24 + 2**16 + 1 becomes
    2**24). The inputs of those conversions are f32-exact here.
    (Float64 -> BFloat16 is rounded once, on the GPU and on the emulator,
    and Float64 -> Float16 runs on the emulator: both are tested.)
"""

from __future__ import annotations

import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError
from flydsl.expr._elementwise import element

BLOCK = 64  # work-items per workgroup
LANES = 4   # vector length of the vector kernel
CHUNK = BLOCK * LANES  # every batch is a multiple of this

Index = fx.arith.Index
INTS = (fx.Int32, fx.Int64, fx.Uint32, fx.Uint64)
FLOATS = (fx.Float16, fx.BFloat16, fx.Float32, fx.Float64)
# the numpy array a value of the type is stored in (BFloat16 as its bits)
STORAGE = {fx.Boolean: np.int32, fx.Int16: np.int16, fx.Int32: np.int32, fx.Int64: np.int64,
           fx.Uint32: np.uint32, fx.Uint64: np.uint64, fx.Float16: np.float16,
           fx.BFloat16: np.uint16, fx.Float32: np.float32, fx.Float64: np.float64}
# (significand bits, minimum normal exponent, maximum exponent)
FORMAT = {fx.Float16: (11, -14, 15), fx.BFloat16: (8, -126, 127),
          fx.Float32: (24, -126, 127), fx.Float64: (53, -1022, 1023)}
# the numpy precision a reference is computed in, then rounded once to the
# type: the type itself, or one of >= 2p + 2 bits, for which that double
# rounding is known to give the correctly rounded + - * / result
WIDE = {fx.Float16: np.float64, fx.BFloat16: np.float32, fx.Float32: np.float32,
        fx.Float64: np.float64}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture(autouse=True)
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


# -- kernels ------------------------------------------------------------------

def _load(tensor, i, cls):
    v = tensor[i]
    if cls is fx.BFloat16:
        return fx.arith.bitcast(v, fx.BFloat16)
    return cls(v)  # an unsigned type is stored in a signed tensor of its width


def _store(tensor, i, value, cls):
    tensor[i] = fx.arith.bitcast(value, fx.Int16) if cls is fx.BFloat16 else value


def _expect(result, cls, vector):
    if isinstance(result, fx.Vector) != vector or element(result) is not cls:
        raise AssertionError(f"the result is a {type(result).__name__} of "
                             f"{element(result).__name__}, not of {cls.__name__}")


@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def scalar_kernel(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr,
                  types: fx.Constexpr):
    ta, tb, tout = types
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    r = fn(_load(A, i, ta), _load(B, i, tb))
    _expect(r, tout, False)
    _store(Out, i, r, tout)


@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def vector_kernel(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr,
                  types: fx.Constexpr, splat: fx.Constexpr):
    ta, tb, tout = types
    base = (fx.block_idx.x * BLOCK + fx.thread_idx.x) * LANES
    va = fx.make_rmem_tensor(fx.make_layout((LANES,), (1,)), ta)
    vb = fx.make_rmem_tensor(fx.make_layout((LANES,), (1,)), tb)
    for j in fx.range_constexpr(LANES):
        va[j] = _load(A, base + j, ta)
        vb[j] = _load(B, base + j, tb)
    # A register tensor's element type is its MLIR type, signless: load()
    # gives Int32 for a tensor made as Uint32, so the loads are cast back.
    # splat: the second operand is the scalar B[base] (B is constant per chunk).
    r = fn(fx.arith.cast(va.load(), ta),
           _load(B, base, tb) if splat else fx.arith.cast(vb.load(), tb))
    _expect(r, tout, True)
    vo = fx.make_rmem_tensor(fx.make_layout((LANES,), (1,)), tout)
    vo.store(r)
    for j in fx.range_constexpr(LANES):
        _store(Out, base + j, vo[j], tout)


@flyc.jit
def run_scalar(A, B, Out, fn: fx.Constexpr, types: fx.Constexpr):
    scalar_kernel(A, B, Out, fn, types).launch(grid=(A.shape[0] // BLOCK, 1, 1),
                                               block=(BLOCK, 1, 1))


@flyc.jit
def run_vector(A, B, Out, fn: fx.Constexpr, types: fx.Constexpr, splat: fx.Constexpr):
    vector_kernel(A, B, Out, fn, types, splat).launch(
        grid=(A.shape[0] // CHUNK, 1, 1), block=(BLOCK, 1, 1))


# -- value encodings and the reference arithmetic -----------------------------

def is_float(cls):
    return cls in FORMAT


def wrap(v: int, cls) -> int:
    """The Python int v reduced modulo 2**bits into cls's range."""
    if cls is fx.Boolean:
        return v & 1
    m = v & ((1 << cls.bits) - 1)
    return m - (1 << cls.bits) if cls.signed and m >> (cls.bits - 1) else m


def int_range(cls):
    if cls.signed:
        return -(1 << (cls.bits - 1)), (1 << (cls.bits - 1)) - 1
    return 0, (1 << cls.bits) - 1


def bf16_bits(x):
    """float32 values rounded to BFloat16 (nearest, ties to even) by their
    bits; NaN stays NaN (quietened)."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.where(np.isnan(x), (u >> 16) | 0x40, rounded).astype(np.uint16)


def decode(arr, cls):
    """Stored values as numbers: a float64 array for floats (exact), a list
    of Python ints for integers."""
    with np.errstate(all="ignore"):  # signalling NaNs
        if cls is fx.BFloat16:
            return (arr.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        if is_float(cls):
            return arr.astype(np.float64)
    return [int(v) for v in arr.tolist()]


def encode(values, cls):
    """Numbers as stored values of cls: floats rounded to nearest even
    (float32 values round once to BFloat16; float64 ones are exact in f32
    wherever they reach BFloat16), integers wrapped."""
    with np.errstate(all="ignore"):  # overflow to inf
        if cls is fx.BFloat16:
            return bf16_bits(np.asarray(values, np.float64).astype(np.float32))
        if is_float(cls):
            return np.asarray(values).astype(STORAGE[cls])
    return np.array([wrap(int(v), cls) for v in values], STORAGE[cls])


def wide(arr, cls):
    with np.errstate(all="ignore"):
        return decode(arr, cls).astype(WIDE[cls])


def round_int(v: int, cls) -> float:
    """The integer v as a value of float type cls: rounded to nearest, ties
    to even, by integer arithmetic (inf beyond the largest finite value)."""
    p, _, emax = FORMAT[cls]
    m = abs(v)
    shift = max(m.bit_length() - p, 0)
    q, r = divmod(m, 1 << shift)
    half = (1 << shift) >> 1
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    m = q << shift
    out = math.inf if m > ((1 << p) - 1) << (emax - p + 1) else float(m)
    return -out if v < 0 else out


def tdiv(a, b):
    """Division truncated toward zero (C, arith.divsi)."""
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def trem(a, b):
    """The remainder of tdiv: the sign of the dividend (C, arith.remsi)."""
    return a - b * tdiv(a, b)


def cdiv(a, b):
    """Division rounded toward +inf."""
    return -((-a) // b)


def u64(v):
    """v's bits as an unsigned 64-bit integer (Index arithmetic is unsigned)."""
    return v % 2**64


def to_signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


# -- inputs -------------------------------------------------------------------

def rng_for(*names):
    return np.random.default_rng(zlib.crc32(" ".join(map(str, names)).encode()))


def int_edges(cls):
    if cls is fx.Boolean:
        return [0, 1]
    n = cls.bits
    lo, hi = int_range(cls)
    if cls.signed:
        small = [0, 1, -1, 2, -2, 3, -3, 5, -7, 100, -100]
        big = [lo, lo + 1, hi, hi - 1, 1 << (n // 2), -(1 << (n // 2)) - 1,
               (1 << (n - 2)) + 3, -(1 << (n - 2)) - 5]
    else:
        small = [0, 1, 2, 3, 5, 7, 100]
        big = [hi, hi - 1, 1 << (n - 1), (1 << (n - 1)) - 1, (1 << (n - 1)) + 1,
               1 << (n // 2), (1 << (n // 2)) - 1, hi - 100, (1 << (n - 2)) + 3]
    return small + big


def random_ints(cls, count, rng):
    lo, hi = int_range(cls)
    wide_ = [int(v) for v in rng.integers(lo, hi, count, endpoint=True, dtype=np.int64
                                          if cls.signed else np.uint64)]
    small = [int(v) for v in rng.integers(-40 if cls.signed else 0, 40, count)]
    return [w if k % 2 else s for k, (w, s) in enumerate(zip(wide_, small))]


def float_edges(cls):
    p, emin, emax = FORMAT[cls]
    big = (2 - 2.0 ** (1 - p)) * 2.0 ** emax
    sub = 2.0 ** (emin - p + 1)
    vals = [0.0, 1.0, 0.5, 2.5, 3.0, 1 / 3, 1 + 2.0 ** (1 - p), 7.0, big, 2.0 ** emin,
            sub, 2.0 ** emin - sub, 2.0 ** (emax // 2 + 1), math.inf, math.nan]
    return vals + [-v for v in vals]


def random_floats(cls, count, rng):
    """Half random bit patterns (every exponent, NaNs), half moderate values."""
    size = np.dtype(STORAGE[cls]).itemsize
    bits = rng.integers(0, 1 << (8 * size), count, dtype=np.uint64).astype(UINT[size])
    patterns = decode(bits.view(STORAGE[cls]) if cls is not fx.BFloat16 else bits, cls)
    moderate = rng.standard_normal(count) * 8.0
    return np.where(np.arange(count) % 2 == 0, patterns, moderate)


def batch(values_a, values_b, cls_a, cls_b, rng, minimum_random=64):
    """The stored pairs, filled up with random pairs to a multiple of CHUNK."""
    n = len(values_a)
    total = -(-(n + minimum_random) // CHUNK) * CHUNK
    extra = total - n
    rand = random_floats if is_float(cls_a) else random_ints
    randb = random_floats if is_float(cls_b) else random_ints
    a = list(values_a) + list(rand(cls_a, extra, rng))
    b = list(values_b) + list(randb(cls_b, extra, rng))
    return encode(a, cls_a), encode(b, cls_b)


def edges(cls):
    return float_edges(cls) if is_float(cls) else int_edges(cls)


def crossed(cls, name):
    e = edges(cls)
    return batch([x for x in e for _ in e], [y for _ in e for y in e], cls, cls,
                 rng_for(name, cls.__name__))


def single(cls, name):
    """Unary inputs: the edges (and random values), an unused Int32 second operand."""
    values = list(edges(cls))
    return batch(values, [0] * len(values), cls, fx.Int32, rng_for(name, cls.__name__))


# -- cases --------------------------------------------------------------------

class Case:
    """fn(a, b) on values of types ta, tb giving tout; `inputs()` the stored
    operands (already in the op's domain, see `domain`), `ref(a, b)` the
    expected stored results."""

    def __init__(self, name, fn, types, inputs, ref, *, domain=None, vector=True,
                 splat=False, exact_bits=False, vector_domain=None):
        self.name, self.fn, self.types = name, fn, types
        self.inputs, self.ref, self.domain = inputs, ref, domain
        self.vector_domain = vector_domain
        self.vector, self.splat, self.exact_bits = vector, splat, exact_bits

    def operands(self, mode):
        a, b = self.inputs()
        if mode == "splat":  # one second operand per chunk of LANES
            b = np.repeat(b[::LANES], LANES)
        if self.domain is not None:
            a, b = self.domain(a, b)
        if mode != "scalar" and self.vector_domain is not None:
            a, b = self.vector_domain(a, b)
        return a, b


def int_binary(fn, py, cls, tout=None):
    """A reference of Python ints, result wrapped to tout."""
    tout = tout or cls

    def ref(a, b):
        return encode([py(x, y) for x, y in zip(decode(a, cls), decode(b, cls))], tout)
    return ref


def nonzero_divisor(cls):
    """No division by zero, and no min / -1 (it overflows) -- nor its bit
    pattern in unsigned types, where it is defined, so that a division of
    the wrong signedness gives wrong values instead of trapping the host."""
    n = cls.bits

    def domain(a, b):
        b = np.where(b == 0, np.ones_like(b), b)
        ua, ub = (x.view(UINT[x.itemsize]).astype(np.uint64) for x in (a, b))
        overflow = (ua == np.uint64(1 << (n - 1))) & (ub == np.uint64((1 << n) - 1))
        return np.where(overflow, np.zeros_like(a), a), b
    return domain


def shift_amount(cls):
    def domain(a, b):
        return a, (b.astype(np.uint64) % np.uint64(cls.bits)).astype(b.dtype)
    return domain


INT_OPS = {  # name -> (fx function, Python reference, domain maker, output is Boolean)
    "add": (lambda a, b: a + b, lambda a, b: a + b, None, False),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, None, False),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, None, False),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b, nonzero_divisor, False),
    "mod": (lambda a, b: a % b, trem, nonzero_divisor, False),
    "ceil_div": (lambda a, b: fx.arith.ceil_div(a, b), cdiv, nonzero_divisor, False),
    "and": (lambda a, b: a & b, lambda a, b: a & b, None, False),
    "or": (lambda a, b: a | b, lambda a, b: a | b, None, False),
    "xor": (lambda a, b: a ^ b, lambda a, b: a ^ b, None, False),
    "lshift": (lambda a, b: a << b, lambda a, b: a << b, shift_amount, False),
    "rshift": (lambda a, b: a >> b, lambda a, b: a >> b, shift_amount, False),
    "arith.shl": (lambda a, b: fx.arith.shl(a, b), lambda a, b: a << b, shift_amount, False),
    "arith.shr": (lambda a, b: fx.arith.shr(a, b), lambda a, b: a >> b, shift_amount, False),
    "min": (lambda a, b: fx.arith.min(a, b), min, None, False),
    "max": (lambda a, b: fx.arith.max(a, b), max, None, False),
    "select": (lambda a, b: fx.arith.select(a < b, b, a), lambda a, b: b if a < b else a,
               None, False),
    "lt": (lambda a, b: a < b, lambda a, b: a < b, None, True),
    "le": (lambda a, b: a <= b, lambda a, b: a <= b, None, True),
    "gt": (lambda a, b: a > b, lambda a, b: a > b, None, True),
    "ge": (lambda a, b: a >= b, lambda a, b: a >= b, None, True),
    "eq": (lambda a, b: a == b, lambda a, b: a == b, None, True),
    "ne": (lambda a, b: a != b, lambda a, b: a != b, None, True),
}
BOOLEAN_OPS = {  # Booleans from comparisons of Int32 operands, combined
    "and": (lambda a, b: (a < b) & (b < 0), lambda a, b: a < b and b < 0),
    "or": (lambda a, b: (a < b) | (b < 0), lambda a, b: a < b or b < 0),
    "xor": (lambda a, b: (a < b) ^ (b < 0), lambda a, b: (a < b) != (b < 0)),
    "eq": (lambda a, b: (a < b) == (b < 0), lambda a, b: (a < b) == (b < 0)),
    "to-Int32": (lambda a, b: (a < b).to(fx.Int32) - (b < 0).to(fx.Int32),
                 lambda a, b: int(a < b) - int(b < 0)),
}
SPLAT_OPS = ("add", "sub", "floordiv", "mod", "ceil_div", "rshift", "min", "lt")


def shr_other_kind(cls):
    """fx.arith.shr with the other kind of shift than cls's default."""
    n = cls.bits
    if cls.signed:
        return (lambda a, b: fx.arith.shr(a, b, arithmetic=False),
                lambda a, b: (a % (1 << n)) >> b)
    return (lambda a, b: fx.arith.shr(a, b, arithmetic=True),
            lambda a, b: to_signed(a, n) >> b)


def int_cases():
    out = []
    for cls in INTS:
        t = cls.__name__
        ops = dict(INT_OPS)
        fn, py = shr_other_kind(cls)
        ops["arith.shr_" + ("logical" if cls.signed else "arithmetic")] = (
            fn, py, shift_amount, False)
        for name, (fn, py, domain, boolean) in ops.items():
            out.append(Case(f"{t}-{name}", fn, (cls, cls, fx.Boolean if boolean else cls),
                            lambda cls=cls, name=name: crossed(cls, name),
                            int_binary(fn, py, cls, fx.Boolean if boolean else None),
                            domain=domain(cls) if domain else None, splat=name in SPLAT_OPS))
        out += int_unary_cases(cls)
    for name, (fn, py) in BOOLEAN_OPS.items():
        tout = fx.Int32 if name == "to-Int32" else fx.Boolean
        out.append(Case(f"Boolean-{name}", fn, (fx.Int32, fx.Int32, tout),
                        lambda name=name: crossed(fx.Int32, "Boolean " + name),
                        int_binary(fn, py, fx.Int32, tout)))
    return out


def int_unary_cases(cls):
    n = cls.bits
    _, hi = int_range(cls)
    t = cls.__name__
    if cls.signed:
        mask = -(1 << (n // 2))  # the high half of the bits
        consts = {  # name -> (fx function of a, reference, a may not be zero)
            "neg": (lambda a: -a, lambda a: -a, False),
            "math.abs": (lambda a: fx.math.abs(a), abs, False),
            "add_5": (lambda a: a + 5, lambda a: a + 5, False),
            "5_sub": (lambda a: 5 - a, lambda a: 5 - a, False),
            "mul_-3": (lambda a: a * -3, lambda a: a * -3, False),
            "floordiv_-3": (lambda a: a // -3, lambda a: a // -3, False),
            "-7_floordiv": (lambda a: -7 // a, lambda a: -7 // a, True),
            "mod_-3": (lambda a: a % -3, lambda a: trem(a, -3), False),
            "100_mod": (lambda a: 100 % a, lambda a: trem(100, a), True),
            "ceil_div_-4": (lambda a: fx.arith.ceil_div(a, -4), lambda a: cdiv(a, -4), False),
            "-9_ceil_div": (lambda a: fx.arith.ceil_div(-9, a), lambda a: cdiv(-9, a), True),
            "shl_max": (lambda a: a << (n - 1), lambda a: a << (n - 1), False),
            "shr_max": (lambda a: a >> (n - 1), lambda a: a >> (n - 1), False),
            "and_mask": (lambda a: a & mask, lambda a: a & mask, False),
            "select_const": (lambda a: fx.arith.select(a > 0, a, 7), lambda a: a if a > 0 else 7,
                             False),
        }
    else:
        mask = hi - ((1 << (n // 2)) - 1)
        consts = {
            "neg": (lambda a: -a, lambda a: -a, False),
            "math.abs": (lambda a: fx.math.abs(a), abs, False),
            "add_5": (lambda a: a + 5, lambda a: a + 5, False),
            "5_sub": (lambda a: 5 - a, lambda a: 5 - a, False),
            "mul_3": (lambda a: a * 3, lambda a: a * 3, False),
            "floordiv_3": (lambda a: a // 3, lambda a: a // 3, False),
            "7_floordiv": (lambda a: 7 // a, lambda a: 7 // a, True),
            "mod_3": (lambda a: a % 3, lambda a: a % 3, False),
            "100_mod": (lambda a: 100 % a, lambda a: 100 % a, True),
            "ceil_div_4": (lambda a: fx.arith.ceil_div(a, 4), lambda a: cdiv(a, 4), False),
            "9_ceil_div": (lambda a: fx.arith.ceil_div(9, a), lambda a: cdiv(9, a), True),
            "shl_max": (lambda a: a << (n - 1), lambda a: a << (n - 1), False),
            "shr_max": (lambda a: a >> (n - 1), lambda a: a >> (n - 1), False),
            "and_mask": (lambda a: a & element(a)(mask), lambda a: a & mask, False),
            "select_const": (lambda a: fx.arith.select(a > 5, a, 7), lambda a: a if a > 5 else 7,
                             False),
        }
    out = []
    for name, (fn, py, nonzero) in consts.items():
        def domain(a, b, nonzero=nonzero):
            return (np.where(a == 0, np.ones_like(a), a) if nonzero else a), b
        out.append(Case(f"{t}-{name}", lambda a, b, fn=fn: fn(a), (cls, fx.Int32, cls),
                        lambda cls=cls, name=name: single(cls, name),
                        lambda a, b, py=py, cls=cls: encode([py(x) for x in decode(a, cls)], cls),
                        domain=domain))
    return out


def float_binary(np_op, cls, tout=None):
    """np_op on the operands in the reference precision, rounded once to
    tout (a Boolean result is 0/1)."""
    tout = tout or cls

    def ref(a, b):
        with np.errstate(all="ignore"):
            r = np_op(wide(a, cls), wide(b, cls))
        return r.astype(np.int32) if tout is fx.Boolean else encode(r, tout)
    return ref


def float_floordiv(cls):
    def ref(a, b):
        with np.errstate(all="ignore"):
            q = encode(wide(a, cls) / wide(b, cls), cls)  # the rounded quotient
        return encode(np.floor(decode(q, cls)), cls)
    return ref


def ieee_min_max(which):
    """minimum/maximum: NaN wins, -0 < +0."""
    def op(x, y):
        r = np.minimum(x, y) if which == "min" else np.maximum(x, y)
        zeros = (x == 0) & (y == 0)
        neg = np.signbit(x) | np.signbit(y) if which == "min" else np.signbit(x) & np.signbit(y)
        return np.where(zeros, np.where(neg, -0.0, 0.0).astype(x.dtype), r)
    return op


def no_signed_zero_pairs(cls):
    """min/maxnum may return either zero of (-0, +0): those pairs become (x, 1)."""
    def domain(a, b):
        fa, fb = decode(a, cls), decode(b, cls)
        mixed = (fa == 0) & (fb == 0) & (np.signbit(fa) != np.signbit(fb))
        return a, np.where(mixed, encode([1.0], cls)[0], b)
    return domain


FLOAT_OPS = {  # name -> (fx function, numpy reference, Boolean result, domain)
    "add": (lambda a, b: a + b, np.add, False, None),
    "sub": (lambda a, b: a - b, np.subtract, False, None),
    "mul": (lambda a, b: a * b, np.multiply, False, None),
    "truediv": (lambda a, b: a / b, np.divide, False, None),
    "min": (lambda a, b: fx.arith.min(a, b), ieee_min_max("min"), False, None),
    "max": (lambda a, b: fx.arith.max(a, b), ieee_min_max("max"), False, None),
    "minnum": (lambda a, b: fx.math.min(a, b), np.fmin, False, no_signed_zero_pairs),
    "maxnum": (lambda a, b: fx.math.max(a, b), np.fmax, False, no_signed_zero_pairs),
    "minimum": (lambda a, b: fx.math.min(a, b, propagate_nan=True), ieee_min_max("min"),
                False, None),
    "maximum": (lambda a, b: fx.math.max(a, b, propagate_nan=True), ieee_min_max("max"),
                False, None),
    "select": (lambda a, b: fx.arith.select(a < b, b, a), lambda x, y: np.where(x < y, y, x),
               False, None),
    "lt": (lambda a, b: a < b, np.less, True, None),
    "le": (lambda a, b: a <= b, np.less_equal, True, None),
    "gt": (lambda a, b: a > b, np.greater, True, None),
    "ge": (lambda a, b: a >= b, np.greater_equal, True, None),
    "eq": (lambda a, b: a == b, np.equal, True, None),
    "ne": (lambda a, b: a != b, np.not_equal, True, None),
}
FLOAT_SPLAT_OPS = ("add", "mul", "truediv", "floordiv", "lt", "ne")

FLOAT_UNARY = {  # name -> (fx function of a, numpy reference in the reference precision)
    "neg": (lambda a: -a, np.negative),
    "math.abs": (lambda a: fx.math.abs(a), np.abs),
    # (a Python float is a Float32: it is made a constant of the type first)
    "add_1.5": (lambda a: a + element(a)(1.5), lambda x: x + x.dtype.type(1.5)),
    "2_sub": (lambda a: element(a)(2.0) - a, lambda x: x.dtype.type(2.0) - x),
    "mul_-0": (lambda a: a * element(a)(-0.0), lambda x: x * x.dtype.type(-0.0)),
    "div_3": (lambda a: a / element(a)(3.0), lambda x: x / x.dtype.type(3.0)),
    "1_div": (lambda a: element(a)(1.0) / a, lambda x: x.dtype.type(1.0) / x),
    "add_inf": (lambda a: a + element(a)(math.inf), lambda x: x + x.dtype.type(math.inf)),
    "max_-inf": (lambda a: fx.arith.max(a, element(a)(-math.inf)), lambda x: np.maximum(x, -np.inf)),
}


def float_cases():
    out = []
    for cls in FLOATS:
        t = cls.__name__
        for name, (fn, np_op, boolean, domain) in FLOAT_OPS.items():
            out.append(Case(f"{t}-{name}", fn, (cls, cls, fx.Boolean if boolean else cls),
                            lambda cls=cls, name=name: crossed(cls, name),
                            float_binary(np_op, cls, fx.Boolean if boolean else None),
                            domain=domain(cls) if domain else None,
                            splat=name in FLOAT_SPLAT_OPS))
        out.append(Case(f"{t}-floordiv", lambda a, b: a // b, (cls, cls, cls),
                        lambda cls=cls: crossed(cls, "floordiv"), float_floordiv(cls),
                        splat=True))
        for name, (fn, np_op) in FLOAT_UNARY.items():
            out.append(Case(f"{t}-{name}", lambda a, b, fn=fn: fn(a), (cls, fx.Int32, cls),
                            lambda cls=cls, name=name: single(cls, name),
                            lambda a, b, np_op=np_op, cls=cls: float_binary(
                                lambda x, y: np_op(x), cls)(a, a)))
        out.append(Case(f"{t}-7_floordiv", lambda a, b: element(a)(7.0) // a, (cls, fx.Int32, cls),
                        lambda cls=cls: single(cls, "7_floordiv"),
                        lambda a, b, cls=cls: float_floordiv(cls)(encode(np.full(len(a), 7.0),
                                                                         cls), a)))
    return out


# -- conversions ----------------------------------------------------------------

CAST_TYPES = INTS + FLOATS + (fx.Boolean,)
# int inputs around the roundings of int -> float (ties, overflow of Float16)
ROUNDING_INTS = [2049, 2051, 4097, 65504, 65519, 65520, 65535, 257, 259, 383, (1 << 24) + 1,
                 (1 << 24) + 3, (1 << 31) - 64, (1 << 53) + 1, (1 << 53) + 3, (1 << 63) - 512,
                 (1 << 64) - 1]


def cast_inputs(src, dst):
    """Inputs of src whose conversion to dst is defined (and not one of the
    doubly rounded ones, see the module notes): edges, roundings, random
    values."""
    if src is fx.Boolean:
        return [0, 1]
    rng = rng_for("cast", src, dst)
    if not is_float(src):
        lo, hi = int_range(src)
        values = int_edges(src) + [s * v for v in ROUNDING_INTS for s in (1, -1)]
        values = [v for v in values if lo <= v <= hi] + random_ints(src, 128, rng)
        if dst is fx.BFloat16:  # exact in f32: rounded once
            values = [v for v in values if round_int(v, fx.Float32) == v]
        return values
    p, _, _ = FORMAT[src]
    values = list(float_edges(src)) + list(random_floats(src, 128, rng))
    values += [0.999, -0.999, 1.5, -1.5, -2.5, 1e-3, 65504.0, -65504.0, 1e4 + 0.5]
    if is_float(dst):
        q, emin, emax = FORMAT[dst]
        big = (2 - 2.0 ** (1 - q)) * 2.0 ** emax
        # ties and near-ties of dst at 1, at the top and among subnormals
        values += [1 + 2.0 ** -q, 1 + 3 * 2.0 ** -q, 1 + 2.0 ** -q + 2.0 ** (-q - 8),
                   big + 2.0 ** (emax - q), big * (1 + 2.0 ** -(q + 2)),
                   2.0 ** (emin - q), 3 * 2.0 ** (emin - q), 2.0 ** (emin - q - 1)]
        values += [-v for v in values[-8:]]
        if src is fx.Float64 and dst is fx.BFloat16:
            # just off BFloat16 ties by less than an f32 ulp: a rounding
            # through f32 would land on the tie and go to even
            values += [s * (1 + 2.0 ** -8 + 2.0 ** -40) for s in (1, -1)]
            values += [s * (1 + 3 * 2.0 ** -8 - 2.0 ** -40) for s in (1, -1)]
    elif dst is not fx.Boolean:  # float -> int: in range after truncation
        lo, hi = int_range(dst)
        k = dst.bits - (1 if dst.signed else 0)
        values += [float(lo), float(hi) * 0.75, 2.0 ** k - 2.0 ** (k - p), -0.75,
                   2.0 ** (k - 1) + 0.5, 2.0 ** 40 + 2.0 ** 20]
        stored = decode(encode(values, src), src)
        values = [v for v in stored if math.isfinite(v) and lo <= math.trunc(v) <= hi]
    return values


def cast_ref(values, src, dst):
    """The stored results of converting the numbers `values` of src to dst."""
    if dst is fx.Boolean:
        return np.array([int(v != 0) for v in values], np.int32)  # NaN != 0
    if not is_float(src):
        if is_float(dst):
            return encode(np.array([round_int(v, dst) for v in values]), dst)
        return encode(values, dst)  # values carry src's signedness: ext by it, wrap
    if src is fx.Float64 and dst is fx.BFloat16:
        return encode(np.array([bf16_of_float(v) for v in values]), dst)
    if is_float(dst):
        return encode(np.asarray(values, np.float64), dst)
    return encode([math.trunc(v) for v in values], dst)


def bf16_of_float(v: float) -> float:
    """v rounded once to BFloat16 (nearest, ties to even), in exact
    arithmetic: `encode` rounds a float64 through float32, twice."""
    if not math.isfinite(v) or v == 0:
        return v
    p, emin, emax = FORMAT[fx.BFloat16]
    exponent = max(math.frexp(v)[1] - 1, emin)
    quantum = Fraction(2) ** (exponent - p + 1)
    r = round(Fraction(v) / quantum) * quantum  # round() on a Fraction: half to even
    largest = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    return math.copysign(math.inf, v) if abs(r) > largest else math.copysign(float(r), v)


def cast_cases():
    out = []
    use_to = False
    for src in CAST_TYPES:
        for dst in CAST_TYPES:
            if src is dst or {src, dst} == {fx.Float16, fx.BFloat16}:
                continue  # the rejected pair: test_rejected

            def inputs(src=src, dst=dst):
                v = cast_inputs(src, dst)
                v = (v * (-(-CHUNK // len(v))))[:-(-len(v) // CHUNK) * CHUNK]  # cycled
                return encode(v, src), np.zeros(len(v), np.int32)

            def ref(a, b, src=src, dst=dst):
                return cast_ref(decode(a, src), src, dst)

            # `.to` and fx.arith.cast (the same conversion) take turns
            use_to = not use_to
            out.append(Case(f"{'to' if use_to else 'cast'}-{src.__name__}-{dst.__name__}",
                            (lambda a, b, dst=dst: a.to(dst)) if use_to else
                            (lambda a, b, dst=dst: fx.arith.cast(a, dst)),
                            (src, fx.Int32, dst), inputs, ref))
    return out


def quiet_bf16_nans(a, b):
    """The emulator's host code moves BFloat16 vector elements through f32,
    which quietens signalling NaNs (an LLVM x86 lowering, not the front
    end's): vector bitcasts that involve BFloat16 get quiet NaNs only."""
    bits = a.view(np.uint16)
    snan = ((bits & 0x7F80) == 0x7F80) & ((bits & 0x7F) != 0) & ((bits & 0x40) == 0)
    return np.where(snan, bits | 0x40, bits).view(a.dtype), b


def bitcast_cases():
    pairs = [(fx.Float32, fx.Int32), (fx.Int32, fx.Float32), (fx.Float32, fx.Uint32),
             (fx.Uint32, fx.Float32), (fx.Float64, fx.Int64), (fx.Int64, fx.Float64),
             (fx.Float64, fx.Uint64), (fx.Float16, fx.Int16), (fx.Int16, fx.Float16),
             (fx.BFloat16, fx.Int16), (fx.Float16, fx.BFloat16), (fx.BFloat16, fx.Float16),
             (fx.Int32, fx.Uint32), (fx.Uint64, fx.Int64)]
    out = []
    for src, dst in pairs:
        size = np.dtype(STORAGE[src]).itemsize

        def inputs(src=src, size=size):
            rng = rng_for("bitcast", src)
            bits = rng.integers(0, 1 << (8 * size), CHUNK, dtype=np.uint64).astype(UINT[size])
            # NaNs with payloads (quiet and signalling), inf, -0.0 of the float width
            exp = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[size]
            special = [exp | 1, exp | (exp >> 1) | 5, exp, 1 << (8 * size - 1), 0, 1]
            bits[:len(special)] = np.array(special, dtype=np.uint64).astype(UINT[size])
            if src is fx.BFloat16 or dst is fx.BFloat16:
                bits[:4] = [0x7F81, 0xFFC3, 0x7F80, 0x8000]
            return bits.view(STORAGE[src]), np.zeros(CHUNK, np.int32)

        def ref(a, b, dst=dst):
            return a.view(STORAGE[dst])

        out.append(Case(f"bitcast-{src.__name__}-{dst.__name__}",
                        lambda a, b, dst=dst: fx.arith.bitcast(a, dst), (src, fx.Int32, dst),
                        inputs, ref, exact_bits=True,
                        vector_domain=quiet_bf16_nans if fx.BFloat16 in (src, dst) else None))
    return out


# -- mixed operand types (scalars: vectors of different types do not combine) --

def mixed_cases():
    def conv(values, src, dst):
        return decode(cast_ref(values, src, dst), dst)

    def ints_op(ta, tb, tout, py, fn, name, boolean=False, domain=None):
        def inputs():
            ea, eb = int_edges(ta), int_edges(tb)
            return batch([x for x in ea for _ in eb], [y for _ in ea for y in eb], ta, tb,
                         rng_for("mixed", name))

        def ref(a, b):
            xs, ys = conv(decode(a, ta), ta, tout), conv(decode(b, tb), tb, tout)
            return encode([py(x, y) for x, y in zip(xs, ys)], fx.Boolean if boolean else tout)
        return Case(f"mixed-{name}", fn, (ta, tb, fx.Boolean if boolean else tout), inputs, ref,
                    domain=domain, vector=False)

    def float_op(ta, tb, common, np_op, fn, name, boolean=False):
        def inputs():
            ea, eb = edges(ta), edges(tb)
            if not is_float(ta):
                ea += [(1 << 24) + 1, 65520, -65519, 2049]
            return batch([x for x in ea for _ in eb], [y for _ in ea for y in eb], ta, tb,
                         rng_for("mixed", name))

        def ref(a, b):
            xs = encode(conv(decode(a, ta), ta, common), common)
            ys = encode(conv(decode(b, tb), tb, common), common)
            return float_binary(np_op, common, fx.Boolean if boolean else None)(xs, ys)
        return Case(f"mixed-{name}", fn, (ta, tb, fx.Boolean if boolean else common), inputs,
                    ref, vector=False)

    def promoted(a, b):  # the conversion is part of what is checked
        return a + b

    def promoted_sub(a, b):
        return a - b

    return [
        ints_op(fx.Int32, fx.Int64, fx.Int64, lambda x, y: x + y, promoted, "Int32+Int64"),
        ints_op(fx.Int64, fx.Uint32, fx.Int64, lambda x, y: x * y, lambda a, b: a * b,
                "Int64*Uint32"),
        ints_op(fx.Uint32, fx.Int64, fx.Int64, lambda x, y: x - y, lambda a, b: a - b,
                "Uint32-Int64"),
        ints_op(fx.Int32, fx.Uint32, fx.Uint32, lambda x, y: x < y, lambda a, b: a < b,
                "Int32<Uint32", boolean=True),
        ints_op(fx.Uint32, fx.Int32, fx.Uint32, lambda x, y: x > y, lambda a, b: a > b,
                "Uint32>Int32", boolean=True),
        ints_op(fx.Int64, fx.Uint64, fx.Uint64, lambda x, y: tdiv(x, y),
                lambda a, b: a // b, "Int64//Uint64", domain=nonzero_divisor(fx.Uint64)),
        ints_op(fx.Boolean, fx.Int32, fx.Int32, lambda x, y: x + y, promoted, "Boolean+Int32"),
        float_op(fx.Int32, fx.Float32, fx.Float32, np.add, promoted, "Int32+Float32"),
        # a float narrower than the integer widens to Float32 (FlyDSL's lattice)
        float_op(fx.Int32, fx.Float16, fx.Float32, np.multiply, lambda a, b: a * b,
                 "Int32*Float16"),
        float_op(fx.Int16, fx.Float16, fx.Float16, np.multiply, lambda a, b: a * b,
                 "Int16*Float16"),
        float_op(fx.Float16, fx.BFloat16, fx.Float32, np.add, promoted, "Float16+BFloat16"),
        ints_op(fx.Int16, fx.Int32, fx.Int32, lambda x, y: x - y, promoted_sub, "Int16-Int32"),
        float_op(fx.Uint64, fx.Float32, fx.Float64, np.subtract, lambda a, b: a - b,
                 "Uint64-Float32"),
        float_op(fx.Float16, fx.Float32, fx.Float32, np.add, promoted, "Float16+Float32"),
        float_op(fx.BFloat16, fx.Float64, fx.Float64, np.divide, lambda a, b: a / b,
                 "BFloat16/Float64"),
        float_op(fx.Float16, fx.Float32, fx.Float32, np.less, lambda a, b: a < b,
                 "Float16<Float32", boolean=True),
    ]


# -- Index ------------------------------------------------------------------------

def index_cases():
    ix = fx.arith.index_cast

    def case(name, ta, tout, fn, py):
        def inputs():
            return single(ta, "index " + name)

        def ref(a, b):
            if is_float(tout):
                return cast_ref([py(v) for v in decode(a, ta)], fx.Int64, tout)
            return encode([py(v) for v in decode(a, ta)], tout)
        return Case(f"index-{name}", lambda a, b: fn(a), (ta, fx.Int32, tout), inputs, ref,
                    vector=False)

    def to_index(v):
        return wrap(v, fx.Int64)

    return [
        case("Int32-to-Int64", fx.Int32, fx.Int64, lambda a: ix(ix(a, Index), fx.Int64), to_index),
        case("Uint32-to-Int64", fx.Uint32, fx.Int64, lambda a: ix(a, Index).to(fx.Int64),
             to_index),
        case("Int64-to-Int32", fx.Int64, fx.Int32, lambda a: a.to(Index).to(fx.Int32), to_index),
        case("Int64-to-Uint32", fx.Int64, fx.Uint32, lambda a: ix(ix(a, Index), fx.Uint32),
             to_index),
        # Index is unsigned in //, % and comparisons (divui, remui, ult), as in FlyDSL
        case("arith", fx.Int32, fx.Int64,
             lambda a: ((ix(a, Index) * 3 - 7) // -2 + ix(a, Index) % 5).to(fx.Int64),
             lambda v: to_signed(((u64(v * 3 - 7) // u64(-2)) + u64(v) % 5) % 2**64, 64)),
        case("ceil_div-min", fx.Int32, fx.Int64,
             lambda a: fx.arith.min(fx.arith.ceil_div(a.to(fx.Int64), 3), a.to(fx.Int64)),
             lambda v: min(cdiv(v, 3), v)),
        case("compare", fx.Int32, fx.Boolean, lambda a: a.to(Index) < -3,
             lambda v: u64(v) < u64(-3)),
        case("to-Boolean", fx.Int64, fx.Boolean, lambda a: a.to(Index).to(fx.Boolean),
             lambda v: v != 0),
        case("Float32-via-Index", fx.Float32, fx.Float32,
             lambda a: fx.arith.cast(fx.arith.cast(fx.math.min(fx.math.max(a, -1e9), 1e9),
                                                   Index), fx.Float32),
             lambda v: math.trunc(min(-1e9 if math.isnan(v) else max(v, -1e9), 1e9))),
    ]


# -- the whole table ----------------------------------------------------------------

CASES = int_cases() + float_cases() + cast_cases() + bitcast_cases() + mixed_cases() \
    + index_cases()
RUNS = [(c, mode) for c in CASES for mode in ("scalar", "vector", "splat")
        if mode == "scalar" or (mode == "vector" and c.vector) or (mode == "splat" and c.splat)]
assert len({c.name for c in CASES}) == len(CASES)


def show(stored, cls, i):
    v = decode(stored[i:i + 1], cls)[0]
    if cls is fx.BFloat16 or (is_float(cls) and math.isnan(v)):
        bits = stored[i:i + 1].view(UINT[stored.itemsize])[0]
        return f"{v!r}(0x{int(bits):0{2 * stored.itemsize}x})"
    return repr(v)


def mismatches(got, want, cls, exact_bits):
    if not is_float(cls):
        return got != want
    same = got.view(UINT[got.itemsize]) == want.view(UINT[want.itemsize])
    if exact_bits:
        return ~same
    return ~(same | (np.isnan(decode(got, cls)) & np.isnan(decode(want, cls))))


@pytest.mark.parametrize("case,mode", RUNS, ids=[f"{c.name}-{m}" for c, m in RUNS])
def test_values(case, mode):
    ta, tb, tout = case.types
    a, b = case.operands(mode)
    out = np.zeros(len(a), STORAGE[tout])
    if mode == "scalar":
        run_scalar(a, b, out, case.fn, case.types)
    else:
        run_vector(a, b, out, case.fn, case.types, mode == "splat")
    want = case.ref(a, b)
    assert want.dtype == out.dtype and want.shape == out.shape
    bad = np.flatnonzero(mismatches(out, want, tout, case.exact_bits))
    if len(bad):
        lines = [f"  {case.name}({show(a, ta, i)}, {show(b, tb, i)}) = {show(out, tout, i)}, "
                 f"want {show(want, tout, i)}" for i in bad[:12]]
        pytest.fail(f"{case.name} ({mode}): {len(bad)} of {len(a)} values wrong:\n"
                    + "\n".join(lines), pytrace=False)


# -- constants ------------------------------------------------------------------------

CONSTANTS = {
    fx.Int32: [0, -1, -(1 << 31), (1 << 31) - 1, 12345],
    fx.Int64: [-(1 << 63), (1 << 63) - 1, -(1 << 40) - 3],
    fx.Uint32: [(1 << 32) - 1, 1 << 31],
    fx.Uint64: [(1 << 64) - 1, 1 << 63],
    # ties (to even) of the type: 1 + ulp/2, half the smallest subnormal, ...
    fx.Float16: [0.1, -0.0, 65504.0, 65520.0, 1e-7, 3e-8, math.inf, -math.inf, math.nan, 1 / 3,
                 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 2.0 ** -25, 3 * 2.0 ** -25],
    fx.BFloat16: [0.1, -0.0, 3.0e38, 1e-40, math.inf, -math.inf, math.nan, 1 / 3, 257.0,
                  1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 2.0 ** -134],
    fx.Float32: [0.1, -0.0, 3.4028234663852886e38, 3.4028235677973366e38, 1e-45, 1e-40,
                 math.inf, -math.inf, math.nan, 1 / 3, 1 + 2.0 ** -24, 2.0 ** -150,
                 3 * 2.0 ** -150],
    fx.Float64: [0.1, -0.0, 1.7976931348623157e308, 5e-324, math.inf, -math.inf, math.nan],
    fx.Boolean: [True, False],
}


@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def constant_kernel(Out: fx.Tensor, values: fx.Constexpr, cls: fx.Constexpr):
    for k in fx.range_constexpr(len(values)):
        _store(Out, k, fx.arith.constant(values[k], cls), cls)


@flyc.jit
def run_constants(Out, values: fx.Constexpr, cls: fx.Constexpr):
    constant_kernel(Out, values, cls).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def constant_ref(v, cls):
    """v as a stored cls: through an exact decimal -> float64 -> type rounding
    (these values round the same when rounded once from their decimal)."""
    if is_float(cls):
        return encode(np.array([v], np.float64), cls)[0]
    return encode([int(v)], cls)[0]


@pytest.mark.parametrize("cls", list(CONSTANTS), ids=lambda c: c.__name__)
def test_constants(cls):
    values = tuple(CONSTANTS[cls])
    out = np.zeros(BLOCK, STORAGE[cls])
    run_constants(out, values, cls)
    want = np.array([constant_ref(v, cls) for v in values], STORAGE[cls])
    got = out[:len(values)]
    bad = np.flatnonzero(mismatches(got, want, cls, False))
    assert not len(bad), "\n".join(f"constant({values[i]!r}, {cls.__name__}) = "
                                   f"{show(got, cls, i)}, want {show(want, cls, i)}" for i in bad)


# -- what the front end rejects ---------------------------------------------------------

REJECTED = {  # name -> (operand types, fx function)
    "round": ((fx.Float32, fx.Float32), lambda a, b: round(a)),
    "float-and": ((fx.Float32, fx.Float32), lambda a, b: a & b),
    "float-xor": ((fx.Float16, fx.Float16), lambda a, b: a ^ b),
    "float-shl": ((fx.Float32, fx.Int32), lambda a, b: a << 1),
    "int-and-py-float": ((fx.Int32, fx.Int32), lambda a, b: a & 1.5),
    "ceil_div-float": ((fx.Float32, fx.Float32), lambda a, b: fx.arith.ceil_div(a, b)),
    "shr-float": ((fx.Float32, fx.Float32), lambda a, b: fx.arith.shr(a, 1)),
    "neg-Boolean": ((fx.Int32, fx.Int32), lambda a, b: -(a < b)),
    "f8-plus-other-f8": ((fx.Float32, fx.Float32),
                         lambda a, b: a.to(fx.Float8E4M3FN) + b.to(fx.Float8E5M2)),
}


def test_an_integer_constant_out_of_range_is_an_error_at_its_line():
    """fx.arith.constant takes an integer whose bits fit the type, read signed
    or unsigned; past that it is an error at the user's line, not an MLIR
    diagnostic. (A Python int operand is an Int32, or an Int64 past int32's
    range: `x + 2**40` is an Int64, as in FlyDSL.)"""
    a = np.zeros(BLOCK, np.int32)
    with pytest.raises(TraceError) as e:
        run_scalar(a, a, a.copy(), lambda x, y: x + fx.arith.constant(2**40, fx.Int32),  # L:too_big
                   (fx.Int32, fx.Int32, fx.Int32))
    assert e.value.bare_message == "fx.arith.constant: 1099511627776 is out of range for Int32"
    assert (e.value.filename, e.value.lineno) == (__file__, _line("too_big"))


def _line(marker):
    from pathlib import Path
    return next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if f"# L:{marker}" in text)

REJECTED_VECTOR = {
    "index_cast": lambda a, b: fx.arith.index_cast(a, Index),
    "vector-of-Index": lambda a, b: a.to(Index),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_rejected(name):
    (ta, tb), fn = REJECTED[name]
    a, b = np.zeros(BLOCK, STORAGE[ta]), np.zeros(BLOCK, STORAGE[tb])
    with pytest.raises((TypeError, TraceError)):
        run_scalar(a, b, np.zeros(BLOCK, np.int32), lambda x, y: fn(x, y).to(fx.Int32),
                   (ta, tb, fx.Int32))


@pytest.mark.parametrize("name", list(REJECTED_VECTOR))
def test_rejected_vector(name):
    a = np.zeros(CHUNK, np.int32)
    with pytest.raises(TraceError):
        run_vector(a, a, a.copy(), REJECTED_VECTOR[name], (fx.Int32, fx.Int32, fx.Int32), False)
