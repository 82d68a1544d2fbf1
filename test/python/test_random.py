"""fx.random (flydsl.extension.random, FlyDSL's public API): Philox4x32 and
Philox4x64 and the draws built on them, checked against a numpy / Python
reference written here from the Random123 paper (Salmon et al., SC'11) and
Triton's `tl.random` conventions, not from the code under test.

The reference is itself pinned to Random123's published known-answer
vectors (its tests/kat_vectors, the 7- and 10-round lines of philox4x32
and philox4x64). Integer draws are compared bit for bit, at trace time
(static numerics, folded in Python) and in kernels on the emulator
(dynamic numerics: Uint64 and Uint128 products); uniforms exactly where
the conversion is exact, normals within the emulator's log / sin / cos
accuracy. Wrong widths and types are TraceErrors at the user's line."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT, marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError

THIS_FILE = __file__
M32, M64 = (1 << 32) - 1, (1 << 64) - 1

# -- the reference ------------------------------------------------------------------
# Random123's Philox-4 round on (x0, x1, x2, x3) with key (k0, k1):
#   x0' = mulhi(M1, x2) ^ x1 ^ k0,  x1' = mullo(M1, x2),
#   x2' = mulhi(M0, x0) ^ x3 ^ k1,  x3' = mullo(M0, x0);
# round r (from 0) uses the key plus r times the Weyl increments (W0, W1).
PHILOX = {
    32: dict(M=(0xD2511F53, 0xCD9E8D57), W=(0x9E3779B9, 0xBB67AE85)),
    64: dict(M=(0xD2E7470EE14C6C93, 0xCA5A826395121157),
             W=(0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)),
}


def philox_int(width, counter, key, rounds=10):
    """Philox4x32 or 4x64 of one counter, in Python integers."""
    mask = (1 << width) - 1
    (m0, m1), (w0, w1) = PHILOX[width]["M"], PHILOX[width]["W"]
    x = [c & mask for c in counter]
    for r in range(rounds):
        k0, k1 = (key[0] + r * w0) & mask, (key[1] + r * w1) & mask
        a, b = m0 * x[0], m1 * x[2]
        x = [(b >> width) ^ x[1] ^ k0, b & mask, (a >> width) ^ x[3] ^ k1, a & mask]
    return tuple(x)


def philox4x32_np(counter, key, rounds=10):
    """Philox4x32 over numpy arrays of counters (each word broadcast):
    products in uint64, words in uint32."""
    (m0, m1), (w0, w1) = PHILOX[32]["M"], PHILOX[32]["W"]
    x = np.broadcast_arrays(*(np.asarray(c, np.uint64) & M32 for c in counter))
    x = [w.astype(np.uint64) for w in x]
    for r in range(rounds):
        k0, k1 = np.uint64((key[0] + r * w0) & M32), np.uint64((key[1] + r * w1) & M32)
        a, b = x[0] * np.uint64(m0), x[2] * np.uint64(m1)
        x = [(b >> np.uint64(32)) ^ x[1] ^ k0, b & np.uint64(M32),
             (a >> np.uint64(32)) ^ x[3] ^ k1, a & np.uint64(M32)]
    return np.stack(x, axis=-1).astype(np.uint32)


def draw_reference(seed: int, offsets, rounds=10):
    """randint4x's words for a seed (a Python int, read as 64 bits: a
    negative one sign-extends) and offsets (non-negative Python ints below
    2^64): key = (seed low, seed high), counter = (offset low, offset high,
    0, 0). Shape (len(offsets), 4), uint32."""
    seed &= M64
    offsets = np.asarray(offsets, np.uint64)
    return philox4x32_np((offsets & np.uint64(M32), offsets >> np.uint64(32), 0, 0),
                         (seed & M32, seed >> 32), rounds)


def uniform_reference(words, width=32):
    """Triton's uint_to_uniform_float: the word read signed, a negative one
    replaced by -x - 1, converted to float32 (one rounding) and scaled."""
    words = np.asarray(words, np.uint64 if width == 64 else np.uint32)
    top = np.uint64(1 << 63) if width == 64 else np.uint32(1 << 31)
    ones = np.uint64(M64) if width == 64 else np.uint32(M32)
    folded = np.where(words >= top, ones - words, words)
    signed = folded.astype(np.int64)
    scale = np.float32(1.0842020432385337e-19 if width == 64 else 4.6566127342e-10)
    return signed.astype(np.float32) * scale


def normal_reference(u1, u2):
    """Box-Muller, in float64 from the float32 uniforms."""
    u1 = np.maximum(np.float32(1e-7), u1).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    theta = np.float64(np.float32(6.283185307179586) * u2)
    return r * np.cos(theta), r * np.sin(theta)


# Random123 tests/kat_vectors: (width, rounds, counter, key, output).
KAT = [
    (32, 7, (0, 0, 0, 0), (0, 0), (0x5F6FB709, 0x0D893F64, 0x4F121F81, 0x4F730A48)),
    (32, 7, (M32,) * 4, (M32, M32), (0x5207DDC2, 0x45165E59, 0x4D8EE751, 0x8C52F662)),
    (32, 7, (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0x4DFCCABA, 0x190A87F0, 0xC47362BA, 0xB6B5242A)),
    (32, 10, (0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    (32, 10, (M32,) * 4, (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (32, 10, (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    (64, 7, (0, 0, 0, 0), (0, 0),
     (0x5DC8EE6268EC62CD, 0x139BC570B6C125A0, 0x84D6DEB4FB65F49E, 0xAFF7583376D378C2)),
    (64, 7, (M64,) * 4, (M64, M64),
     (0x071DD84367903154, 0x48E2BBDC722B37D1, 0x6AFA9890BB89F76C, 0x9194C8D8ADA56AC7)),
    (64, 7, (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89),
     (0x452821E638D01377, 0xBE5466CF34E90C6C),
     (0x513A366704EDF755, 0xF05D9924C07044D3, 0xBEF2CB9CBEA74C6C, 0x8DB948DE4CAA1F8A)),
    (64, 10, (0, 0, 0, 0), (0, 0),
     (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B)),
    (64, 10, (M64,) * 4, (M64, M64),
     (0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0)),
    (64, 10, (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89),
     (0x452821E638D01377, 0xBE5466CF34E90C6C),
     (0xA528F45403E61D95, 0x38C72DBD566E9788, 0xA5A1610E72FD18B5, 0x57BD43B5E52B7FE6)),
]
KAT_IDS = [f"{w}x{r}-{i % 3}" for i, (w, r, *_) in enumerate(KAT)]


@pytest.mark.parametrize("width, rounds, counter, key, expected", KAT, ids=KAT_IDS)
def test_reference_reproduces_random123_known_answers(width, rounds, counter, key, expected):
    assert philox_int(width, counter, key, rounds) == expected
    if width == 32:
        assert tuple(int(w) for w in philox4x32_np(counter, key, rounds)) == expected


def values(words):
    return tuple(int(w.value) for w in words)


# -- the public surface ----------------------------------------------------------------

def test_fx_random_is_the_extension_with_flydsls_names():
    import flydsl.extension.random as random
    from flydsl.extension.random import rocdl, universal

    assert fx.random is random
    assert random.__all__ == ["randint", "randint4x", "rand", "rand4x", "randn", "randn4x"]
    assert universal.__all__ == random.__all__
    for name in random.__all__:  # no overrides: the portable forms themselves
        assert getattr(random, name) is getattr(universal, name)
    assert rocdl.__all__ == []
    for helper in ("philox", "philox_impl", "uint_to_uniform_float", "pair_uniform_to_normal"):
        assert callable(getattr(universal, helper)) and not hasattr(random, helper)


def test_the_extension_stays_below_the_launch_layer():
    code = (f"import sys; sys.path.insert(0, {str(REPO_ROOT / 'frontend' / 'python')!r})\n"
            "import flydsl.extension.random\n"
            "print(sorted(m for m in sys.modules if m.startswith('flydsl.compiler')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- static numerics: evaluated in Python ----------------------------------------------

@pytest.mark.parametrize("width, rounds, counter, key, expected", KAT, ids=KAT_IDS)
def test_philox_impl_known_answers_at_trace_time(width, rounds, counter, key, expected):
    word = fx.Uint32 if width == 32 else fx.Uint64
    words = fx.random.universal.philox_impl(*(word(c) for c in counter), *(word(k) for k in key),
                                            n_rounds=rounds)
    assert values(words) == expected
    assert all(w.dtype is word for w in words)


SEEDS_OFFSETS = [  # (seed numeric, offset numeric, seed as int, offset as int)
    (fx.Uint32(0), fx.Uint32(0), 0, 0),
    (fx.Uint32(0xDEADBEEF), fx.Uint32(0xFFFFFFFF), 0xDEADBEEF, 0xFFFFFFFF),
    (fx.Int32(-5), fx.Uint32(11), -5, 11),                          # sign-extended key
    (fx.Uint64(0x0123456789ABCDEF), fx.Uint32(3), 0x0123456789ABCDEF, 3),
    (fx.Int32(7), fx.Uint64((1 << 32) + 3), 7, (1 << 32) + 3),        # counter word 1
    (fx.Int64(-2), fx.Int64(-1), -2, M64),                          # both 64-bit, negative
    (fx.Uint16(9), fx.Int8(-1), 9, M32),                            # narrow: widened to 32
    (12345, 678, 12345, 678),                                       # Python ints
]


@pytest.mark.parametrize("seed, offset, seed_int, offset_int", SEEDS_OFFSETS)
def test_randint4x_at_trace_time_splits_seed_and_offset_as_triton(seed, offset, seed_int,
                                                                  offset_int):
    expected = tuple(int(w) for w in draw_reference(seed_int, [offset_int])[0])
    words = fx.random.randint4x(seed, offset)
    assert values(words) == expected and all(w.dtype is fx.Uint32 for w in words)
    assert int(fx.random.randint(seed, offset).value) == expected[0]
    uniforms = [float(u.value) for u in fx.random.rand4x(seed, offset)]
    assert uniforms == pytest.approx(uniform_reference(expected).tolist(), rel=1e-6)
    assert float(fx.random.rand(seed, offset).value) == uniforms[0]
    seven = values(fx.random.randint4x(seed, offset, n_rounds=7))
    assert seven == tuple(int(w) for w in draw_reference(seed_int, [offset_int], rounds=7)[0])


def test_32_bit_inputs_leave_the_high_words_zero():
    for s, o in ((0, 0), (7, 12345), (0x9E3779B9, 0xFFFFFFF0)):
        narrow = values(fx.random.randint4x(fx.Uint32(s), fx.Uint32(o)))
        assert narrow == values(fx.random.randint4x(fx.Uint64(s), fx.Uint64(o)))
    # the same low bits of a signed seed are another stream
    assert values(fx.random.randint4x(fx.Int32(-5), 11)) != \
        values(fx.random.randint4x(fx.Uint32(0xFFFFFFFB), 11))


def test_philox_keys_64_bit_counters_with_the_seed_and_a_zero():
    counter = (M64, 0x123456789ABCDEF0, 0x0FEDCBA987654321, 7)
    seed = 0x89ABCDEF01234567
    words = fx.random.universal.philox(fx.Uint64(seed), *(fx.Uint64(c) for c in counter))
    assert values(words) == philox_int(64, counter, (seed, 0))
    # 32-bit counters: the seed is both key words
    c32 = (1, 2, 3, 4)
    words = fx.random.universal.philox(fx.Uint64(seed), *(fx.Uint32(c) for c in c32), n_rounds=7)
    assert values(words) == philox_int(32, c32, (seed & M32, seed >> 32), 7)


@pytest.mark.parametrize("word", [0, 1, 2**62 + 12345, 2**63 - 1, 2**63, 2**64 - 1])
def test_uniform_of_a_64_bit_word(word):
    u = fx.random.universal.uint_to_uniform_float(fx.Uint64(word))
    assert u.dtype is fx.Float32
    assert float(u.value) == pytest.approx(float(uniform_reference([word], 64)[0]), rel=1e-7)
    assert 0.0 <= float(u.value) < 1.0


# -- dynamic numerics: kernels on the emulator ------------------------------------------

BLOCK, GRID = 64, 3
N = BLOCK * GRID


@pytest.fixture
def emu(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def as_u32(a):
    return np.asarray(a).view(np.uint32)


@pytest.mark.parametrize("seed", [7, -5, 0x7FFFFFFF])
def test_randint_in_a_kernel_is_bit_exact(emu, seed):
    @flyc.kernel
    def draws(Out: fx.Tensor, seed: fx.Int32):
        g = fx.block_idx.x * BLOCK + fx.thread_idx.x
        words = fx.random.randint4x(seed, fx.Uint32(g))
        seven = fx.random.randint4x(seed, fx.Uint32(g), n_rounds=7)
        for i in fx.range_constexpr(4):
            Out[g * 9 + i] = words[i]
            Out[g * 9 + 4 + i] = seven[i]
        Out[g * 9 + 8] = fx.random.randint(seed, g)  # an Int32 offset: its Uint32 bits

    @flyc.jit
    def run(Out, seed: fx.Int32):
        draws(Out, seed).launch(grid=(GRID, 1, 1), block=(BLOCK, 1, 1))

    out = np.zeros(N * 9, np.int32)
    run(out, seed)
    got = as_u32(out).reshape(N, 9)
    expected = draw_reference(seed, np.arange(N))
    np.testing.assert_array_equal(got[:, :4], expected)
    np.testing.assert_array_equal(got[:, 4:8], draw_reference(seed, np.arange(N), rounds=7))
    np.testing.assert_array_equal(got[:, 8], expected[:, 0])


def test_64_bit_seed_and_offset_in_a_kernel(emu):
    """Offsets across 2^32 fill counter word 1; the seed's high half is k1
    (a seed with its top bit set, passed as the Int64 of the same bits)."""
    @flyc.kernel
    def draws(Out: fx.Tensor, seed: fx.Int64, base: fx.Uint64):
        g = fx.block_idx.x * BLOCK + fx.thread_idx.x
        words = fx.random.randint4x(seed, base + fx.Uint64(g))
        for i in fx.range_constexpr(4):
            Out[g * 4 + i] = words[i]

    @flyc.jit
    def run(Out, seed: fx.Int64, base: fx.Uint64):
        draws(Out, seed, base).launch(grid=(GRID, 1, 1), block=(BLOCK, 1, 1))

    seed, base = 0xFEDCBA9876543210, (1 << 32) - N // 2
    out = np.zeros(N * 4, np.int32)
    run(out, seed - (1 << 64), base)
    np.testing.assert_array_equal(as_u32(out).reshape(N, 4),
                                  draw_reference(seed, base + np.arange(N, dtype=np.uint64)))


@pytest.mark.parametrize("rounds", [7, 10])
def test_philox4x64_in_a_kernel_is_bit_exact(emu, rounds):
    """Random123's 64-bit vectors and random ones, through Uint128 products."""
    rng = np.random.default_rng(rounds)
    inputs = [list(c) + list(k) for w, r, c, k, _ in KAT if w == 64 and r == rounds]
    inputs += rng.integers(0, M64, (BLOCK - len(inputs), 6), dtype=np.uint64,
                           endpoint=True).tolist()
    seeds = rng.integers(0, M64, BLOCK, dtype=np.uint64, endpoint=True).tolist()

    @flyc.kernel
    def rounds64(In: fx.Tensor, Seeds: fx.Tensor, Out: fx.Tensor):
        t = fx.thread_idx.x
        c0, c1, c2, c3, k0, k1 = (fx.Uint64(In[t * 6 + i]) for i in range(6))
        words = fx.random.universal.philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=rounds)
        keyed = fx.random.universal.philox(fx.Uint64(Seeds[t]), c0, c1, c2, c3, n_rounds=rounds)
        for i in fx.range_constexpr(4):
            Out[t * 8 + i] = words[i]
            Out[t * 8 + 4 + i] = keyed[i]

    @flyc.jit
    def run(In, Seeds, Out):
        rounds64(In, Seeds, Out).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    out = np.zeros(BLOCK * 8, np.int64)
    run(np.array(inputs, np.uint64).view(np.int64).ravel(),
        np.array(seeds, np.uint64).view(np.int64), out)
    got = out.view(np.uint64).reshape(BLOCK, 8)
    for t, (row, seed) in enumerate(zip(inputs, seeds)):
        assert tuple(int(w) for w in got[t, :4]) == philox_int(64, row[:4], row[4:], rounds), t
        assert tuple(int(w) for w in got[t, 4:]) == philox_int(64, row[:4], (seed, 0), rounds), t


def test_uniforms_and_normals_in_a_kernel(emu):
    seed = 1234

    @flyc.kernel
    def floats(Out: fx.Tensor, Words64: fx.Tensor, Wide: fx.Tensor, seed: fx.Int32):
        g = fx.block_idx.x * BLOCK + fx.thread_idx.x
        offset = fx.Uint32(g)
        uniforms = fx.random.rand4x(seed, offset)
        normals = fx.random.randn4x(seed, offset)
        for i in fx.range_constexpr(4):
            Out[g * 10 + i] = uniforms[i]
            Out[g * 10 + 4 + i] = normals[i]
        Out[g * 10 + 8] = fx.random.rand(seed, offset)
        Out[g * 10 + 9] = fx.random.randn(seed, offset)
        Wide[g] = fx.random.universal.uint_to_uniform_float(fx.Uint64(Words64[g]))

    @flyc.jit
    def run(Out, Words64, Wide, seed: fx.Int32):
        floats(Out, Words64, Wide, seed).launch(grid=(GRID, 1, 1), block=(BLOCK, 1, 1))

    words64 = np.random.default_rng(5).integers(0, M64, N, dtype=np.uint64, endpoint=True)
    words64[:5] = [0, 1, 2**63 - 1, 2**63, M64]
    out, wide = np.zeros(N * 10, np.float32), np.zeros(N, np.float32)
    run(out, words64.view(np.int64), wide, seed)
    got = out.reshape(N, 10)

    u = uniform_reference(draw_reference(seed, np.arange(N)))
    np.testing.assert_array_equal(got[:, :4], u)  # sitofp and one multiply: exact
    np.testing.assert_array_equal(got[:, 8], u[:, 0])
    assert got[:, :4].min() >= 0.0 and got[:, :4].max() < 1.0
    n0, n1 = normal_reference(u[:, 0], u[:, 1])
    n2, n3 = normal_reference(u[:, 2], u[:, 3])
    np.testing.assert_allclose(got[:, 4:8], np.stack([n0, n1, n2, n3], axis=1),
                               rtol=1e-5, atol=2e-5)
    np.testing.assert_array_equal(got[:, 9], got[:, 4])  # randn is randn4x's first
    np.testing.assert_array_equal(wide, uniform_reference(words64, 64))


# -- the IR --------------------------------------------------------------------------

@pytest.fixture
def traced_ir(fly_env, tmp_path):
    """The traced module (stage 00) of a kernel `body(A, seed)` (A int64)."""
    fly_env(ARCH="gfx942", COMPILE_ONLY="1", FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=str(tmp_path))

    def trace(body):
        @flyc.kernel
        def k(A: fx.Tensor, seed: fx.Int32):
            body(A, seed)

        @flyc.jit
        def host(A, seed: fx.Int32):
            k(A, seed).launch(grid=(1, 1, 1), block=(64, 1, 1))

        host(np.zeros(8, np.int64), 1)
        files = sorted(p for p in tmp_path.rglob("00*") if p.is_file())
        assert files, "no stage 00 dumped"
        return files[0].read_text()

    return trace


def test_philox4x32_multiplies_in_64_bits(traced_ir):
    def body(A, seed):
        A[0] = fx.Int64(fx.random.randint(seed, fx.Uint32(fx.thread_idx.x)))

    ir = traced_ir(body)
    # two per round, but the first round's c2 is the static 0 of the counter:
    # its product folds at trace time
    assert len(re.findall(r"arith\.muli .*: i64", ir)) == 2 * 10 - 1
    assert "i128" not in ir


def test_philox4x64_multiplies_in_128_bits(traced_ir):
    def body(A, seed):
        c = fx.Uint64(A[fx.thread_idx.x])
        words = fx.random.universal.philox(seed, c, c, c, c, n_rounds=3)
        A[1] = fx.Int64(words[0])
        A[2] = fx.Int64(fx.random.universal.uint_to_uniform_float(words[1]) > 0.5)

    ir = traced_ir(body)
    assert len(re.findall(r"arith\.muli .*: i128", ir)) == 6
    assert re.search(r"arith\.sitofp .*: i64 to f32", ir)


# -- errors at the user's line ------------------------------------------------------

def narrow_words(x):
    w = fx.Uint16(x)
    fx.random.universal.philox_impl(w, w, w, w, w, w)  # L:narrow


def wide_offset(x):
    fx.random.randint4x(7, fx.Uint128(x))  # L:wide_offset


def float_seed(x):
    fx.random.rand(fx.Float32(x), 0)  # L:float_seed


def byte_to_uniform(x):
    fx.random.universal.uint_to_uniform_float(fx.Uint8(x))  # L:byte


def dynamic_rounds(x):
    fx.random.randn4x(1, 2, n_rounds=fx.Int32(x) + fx.Int32(fx.thread_idx.x))  # L:rounds


def vector_offset(x):
    fx.random.randint(1, fx.full(4, 1, fx.Int32))  # L:vector


_LINES = marker_lines(THIS_FILE)
ERRORS = [
    (narrow_words, "narrow", "fx.random.universal.philox_impl: c0 is Uint16, but Philox "
                             "words are 32 or 64 bits wide"),
    (wide_offset, "wide_offset", "fx.random.randint4x: offset is Uint128; a seed or an offset "
                                 "has at most 64 bits"),
    (float_seed, "float_seed", "fx.random.rand: seed must be an integer scalar (such as "
                               "fx.Uint32), not Float32"),
    (byte_to_uniform, "byte", "fx.random.universal.uint_to_uniform_float: word is Uint8, "
                              "but Philox words are 32 or 64 bits wide"),
    (dynamic_rounds, "rounds", "fx.random.randn4x: n_rounds must be a non-negative Python "
                               "int"),
    (vector_offset, "vector", "fx.random.randint: offset must be an integer scalar"),
]


@pytest.mark.parametrize("fn, marker, message", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors_in_a_kernel(fly_env, fn, marker, message):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY="1")

    @flyc.kernel
    def body(A: fx.Tensor):
        fn(fx.Int32(fx.thread_idx.x))

    @flyc.jit
    def run(A):
        body(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(TraceError, match=re.escape(message)) as e:
        run(np.zeros(4, np.float32))
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])


@pytest.mark.parametrize("fn, marker, message", ERRORS[:4], ids=[e[1] for e in ERRORS[:4]])
def test_errors_outside_a_trace(fn, marker, message):
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        fn(3)
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])
