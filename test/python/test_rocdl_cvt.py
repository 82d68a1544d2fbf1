"""fx.rocdl's packed conversions of 8- and 4-bit floats (FlyDSL's names,
the ROCDL ops' parameters) on the emulator, whose semantics
(runtime/emu/Convert.cpp) are the ISA's: rounding to nearest even, no
saturation to fp8/bf8 (NaN, or infinity for OCP bf8, past the largest
finite value), the chip's encoding (FNUZ on gfx942, OCP on gfx950).

- f32 -> fp8/bf8 (cvt_pk_*_f32 with both word selects) against torch's
  float8 conversions (but for the overflow of OCP E4M3, which torch's CPU
  cast saturates), values over the whole range: ties, subnormals,
  overflow, infinities, NaN; fp8/bf8 -> f32 (cvt_pk_f32_*, cvt_f32_*) of
  every code against torch's decoding.
- gfx950's scaled fp4 conversions against a reference written here from
  the OCP MX definition of E2M1.
- The lowering (lit: cdna3-cvt.mlir, ROCDLToEmu's), the instruction in the
  code object, and errors: a chip without the instruction, a bad argument.
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import FlyDSLError

torch = pytest.importorskip("torch")

DTYPES = {("gfx942", "fp8"): torch.float8_e4m3fnuz, ("gfx942", "bf8"): torch.float8_e5m2fnuz,
          ("gfx950", "fp8"): torch.float8_e4m3fn, ("gfx950", "bf8"): torch.float8_e5m2}
CASES = [(chip, kind) for chip in ("gfx942", "gfx950") for kind in ("fp8", "bf8")]
LANES = 256


def _lane_slice(t, n):
    return fx.slice(fx.zipped_divide(t, (n,)), (None, fx.thread_idx.x))


def make_pack(kind):
    """Y[i] (Int32) = the four values X[4i..4i+3] packed: bytes 0-1 by a
    word_sel False call, 2-3 by a word_sel True one into its result."""
    pack = getattr(fx.rocdl, f"cvt_pk_{kind}_f32")

    @flyc.kernel
    def pack_kernel(X: fx.Tensor, Y: fx.Tensor):
        x_atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
        y_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32)
        gx, gy = _lane_slice(X, 4), _lane_slice(Y, 1)
        rx, ry = fx.make_fragment_like(gx), fx.make_fragment_like(gy)
        fx.copy(x_atom, gx, rx)
        v = rx.load()
        lo = pack(fx.T.i32, v[0], v[1], 0, False)
        ry[0] = pack(fx.T.i32, v[2], v[3], lo, True)
        fx.copy(y_atom, ry, gy)

    @flyc.jit
    def run(X: fx.Tensor, Y: fx.Tensor):
        pack_kernel(X, Y).launch(grid=(1, 1, 1), block=(LANES, 1, 1))

    return run


def make_unpack(kind):
    """Y[4i..4i+3] = the four 8-bit floats of X[i], through cvt_pk_f32_* for
    bytes 0, 1 and cvt_f32_* for bytes 2, 3."""
    pk = getattr(fx.rocdl, f"cvt_pk_f32_{kind}")
    one = getattr(fx.rocdl, f"cvt_f32_{kind}")

    @flyc.kernel
    def unpack_kernel(X: fx.Tensor, Y: fx.Tensor):
        x_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32)
        y_atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
        gx, gy = _lane_slice(X, 1), _lane_slice(Y, 4)
        rx, ry = fx.make_fragment_like(gx), fx.make_fragment_like(gy)
        fx.copy(x_atom, gx, rx)
        word = rx[0]
        low = pk(fx.Vector.make_type(2, fx.Float32), word, False)
        ry[0] = low[0]
        ry[1] = low[1]
        ry[2] = one(fx.T.f32, word, 2)
        ry[3] = one(fx.T.f32, word, 3)
        fx.copy(y_atom, ry, gy)

    @flyc.jit
    def run(X: fx.Tensor, Y: fx.Tensor):
        unpack_kernel(X, Y).launch(grid=(1, 1, 1), block=(LANES, 1, 1))

    return run


def pack_inputs(dtype):
    """4 * LANES floats: the format's largest finite value and the overflow
    around it, ties between neighbours, subnormals, zeros, infinities, NaN,
    and random values of every magnitude."""
    info = torch.finfo(dtype)
    codes = torch.arange(256, dtype=torch.uint8).view(dtype).float()
    finite = codes[torch.isfinite(codes)].unique()
    pos = finite[finite > 0]
    ties = (pos[:-1] + pos[1:]) / 2
    special = torch.tensor([0.0, -0.0, info.max, -info.max, info.max * 1.03, info.max * 1.07,
                            info.max * 2, -info.max * 2, float("inf"), float("-inf"), float("nan"),
                            info.tiny / 3, -info.tiny / 5, info.tiny / 64])
    gen = torch.Generator().manual_seed(5)
    rand = torch.randn(4 * LANES, generator=gen) * torch.exp2(
        torch.randint(-20, 18, (4 * LANES,), generator=gen).float())
    x = torch.cat([special, ties, -ties[::3], pos * 1.0001, rand])[:4 * LANES]
    return x.contiguous()


def same_codes(got, want, dtype):
    """Equal codes, NaN for NaN (the NaN code may differ in its sign)."""
    g, w = got.view(dtype).float(), want.view(dtype).float()
    both_nan = torch.isnan(g) & torch.isnan(w)
    mismatch = ~both_nan & (got != want)
    assert not mismatch.any(), list(zip(got[mismatch][:8].tolist(), want[mismatch][:8].tolist()))


@pytest.mark.parametrize("chip, kind", CASES)
def test_f32_to_8bit_floats_as_torch(fly_env, chip, kind):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    dtype = DTYPES[chip, kind]
    x = pack_inputs(dtype)
    y = torch.zeros(LANES, dtype=torch.int32)
    make_pack(kind)(x, y)
    want = x.to(dtype).view(torch.uint8)
    if dtype == torch.float8_e4m3fn:
        # torch's CPU cast to float8_e4m3fn saturates (an overflow and an
        # infinity become +-448); the instruction does not, they are NaN
        # (as torch's other three float8 casts have it).
        want = torch.where(x.abs() > 464, torch.tensor(0x7F, dtype=torch.uint8), want)
    same_codes(y.view(torch.uint8), want, dtype)


@pytest.mark.parametrize("chip, kind", CASES)
def test_8bit_floats_to_f32_as_torch(fly_env, chip, kind):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    dtype = DTYPES[chip, kind]
    codes = torch.arange(4 * LANES, dtype=torch.int64).remainder(256).to(torch.uint8)
    codes = codes.view(4, LANES).T.contiguous()  # every code in every byte position
    y = torch.zeros(4 * LANES)
    make_unpack(kind)(codes.view(torch.int32).reshape(-1), y)
    want = codes.reshape(-1).view(dtype).float()
    assert torch.equal(torch.isnan(y), torch.isnan(want))
    ok = ~torch.isnan(want)
    assert torch.equal(y[ok], want[ok])


# -- gfx950's scaled fp4 -----------------------------------------------------------

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def fp4_value(code):
    return np.where(code & 8, -1.0, 1.0) * E2M1[code & 7]


def fp4_code(x):
    """OCP MX E2M1 of finite x: to nearest, ties to the even code (the one
    with mantissa bit 0), saturating at +-6."""
    a = np.minimum(np.abs(x), 6.0)
    d = np.abs(a[:, None] - E2M1[None, :])
    best = d.min(axis=1, keepdims=True)
    cand = d == best
    even = cand & ((np.arange(8) & 1) == 0)[None, :]
    pick = np.where(even.any(axis=1), even.argmax(axis=1), cand.argmax(axis=1))
    return (np.where(np.signbit(x), 8, 0) | pick).astype(np.uint8)


def make_fp4_roundtrip():
    """Y[i] (Int32) = X[2i], X[2i+1] / 2^e(scale) packed into byte i % 4 of
    a word of 0x55555555; Z[2i], Z[2i+1] = byte i % 4 of W[i] times the
    scale, as f32 and (through bf16) as well."""

    @flyc.kernel
    def fp4_kernel(X: fx.Tensor, W: fx.Tensor, Y: fx.Tensor, Z: fx.Tensor, B: fx.Tensor,
                   scale: fx.Float32):
        f2 = fx.make_copy_atom(fx.UniversalCopy64b(), fx.Float32)
        i1 = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32)
        b2 = fx.make_copy_atom(fx.UniversalCopy32b(), fx.BFloat16)
        gx, gw, gy, gz, gb = (_lane_slice(X, 2), _lane_slice(W, 1), _lane_slice(Y, 1),
                              _lane_slice(Z, 2), _lane_slice(B, 2))
        rx, rw, ry, rz, rb = (fx.make_fragment_like(t) for t in (gx, gw, gy, gz, gb))
        fx.copy(f2, gx, rx)
        fx.copy(i1, gw, rw)
        for sel in fx.range_constexpr(4):
            if fx.thread_idx.x % 4 == sel:
                ry[0] = fx.rocdl.cvt_scalef32_pk_fp4_f32(fx.T.i32, 0x55555555, rx[0], rx[1],
                                                         scale, sel)
                two = fx.rocdl.cvt_scalef32_pk_f32_fp4(fx.Vector.make_type(2, fx.Float32),
                                                       rw[0], scale, sel)
                rz[0] = two[0]
                rz[1] = two[1]
                pair = fx.rocdl.cvt_scalef32_pk_bf16_fp4(fx.Vector.make_type(2, fx.BFloat16),
                                                         rw[0], scale, sel)
                rb[0] = pair[0]
                rb[1] = pair[1]
        fx.copy(i1, ry, gy)
        fx.copy(f2, rz, gz)
        fx.copy(b2, rb, gb)

    @flyc.jit
    def run(X: fx.Tensor, W: fx.Tensor, Y: fx.Tensor, Z: fx.Tensor, B: fx.Tensor,
            scale: fx.Float32):
        fp4_kernel(X, W, Y, Z, B, scale).launch(grid=(1, 1, 1), block=(LANES, 1, 1))

    return run


@pytest.mark.parametrize("scale", [1.0, 0.25, 8.0, 3.0])
def test_scaled_fp4_conversions(fly_env, scale):
    """A scale's mantissa is ignored (3.0 scales as 2.0)."""
    fly_env(ARCH="gfx950", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    factor = 2.0 ** np.floor(np.log2(scale))
    rng = np.random.default_rng(9)
    grid = np.concatenate([E2M1, (E2M1[1:] + E2M1[:-1]) / 2, [7.0, 100.0, 5.0, 0.2]])
    x = np.concatenate([grid, -grid, rng.standard_normal(2 * LANES) * 3])[:2 * LANES]
    x = (x * factor).astype(np.float32)
    w = rng.integers(0, 2 ** 32, LANES, dtype=np.uint64).astype(np.uint32).view(np.int32)
    y = np.zeros(LANES, np.int32)
    z = np.zeros(2 * LANES, np.float32)
    b = torch.zeros(2 * LANES, dtype=torch.bfloat16)
    make_fp4_roundtrip()(x, w, y, z, b, scale)

    sel = np.arange(LANES) % 4
    codes = fp4_code(x.astype(np.float64) / factor).reshape(LANES, 2)
    byte = codes[:, 0] | (codes[:, 1] << 4)
    want_y = (np.full(LANES, 0x55555555, np.uint32) & ~(np.uint32(0xFF) << (8 * sel))) | \
        (byte.astype(np.uint32) << (8 * sel).astype(np.uint32))
    np.testing.assert_array_equal(y.view(np.uint32), want_y)

    src = (w.view(np.uint32) >> (8 * sel).astype(np.uint32)) & 0xFF
    want_z = np.stack([fp4_value(src & 0xF), fp4_value(src >> 4)], axis=1).reshape(-1) * factor
    np.testing.assert_array_equal(z, want_z.astype(np.float32))
    np.testing.assert_array_equal(b.float().numpy(), want_z.astype(np.float32))


# -- the code object and errors ------------------------------------------------------

@pytest.mark.parametrize("chip, kind, instrs", [
    ("gfx942", "fp8", ["v_cvt_pk_fp8_f32"]), ("gfx950", "bf8", ["v_cvt_pk_bf8_f32"])])
def test_isa_has_the_conversions(fly_env, chip, kind, instrs):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    compiled = flyc.compile(make_pack(kind), torch.zeros(4 * LANES),
                            torch.zeros(LANES, dtype=torch.int32))
    isa = compiled.isa()
    for instr in instrs:
        assert instr in isa


def trace_error(fly_env, chip, body):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        body()

    @flyc.jit
    def run(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(FlyDSLError) as info:
        run(np.zeros(4, np.float32))
    message = str(info.value)
    assert "test_rocdl_cvt.py:" in message
    return message


def test_fp8_conversion_on_rdna_names_the_chips(fly_env):
    message = trace_error(fly_env, "gfx1201",
                          lambda: fx.rocdl.cvt_pk_fp8_f32(fx.T.i32, 1.0, 2.0, 0, False))
    assert "fx.rocdl.cvt_pk_fp8_f32 is not available on gfx1201; " \
           "the chips that have it: gfx942, gfx950" in message


def test_fp4_conversion_is_gfx950s(fly_env):
    message = trace_error(fly_env, "gfx942", lambda: fx.rocdl.cvt_scalef32_pk_f32_fp4(
        fx.Vector.make_type(2, fx.Float32), 0, 1.0, 0))
    assert "not available on gfx942; the chips that have it: gfx950" in message


@pytest.mark.parametrize("call, what", [
    (lambda: fx.rocdl.cvt_pk_fp8_f32(fx.T.f32, 1.0, 2.0, 0, False), "res must be i32"),
    (lambda: fx.rocdl.cvt_pk_fp8_f32(fx.T.i32, 1.0, 2.0, 0, 2), "word_sel must be a compile-time"),
    (lambda: fx.rocdl.cvt_pk_fp8_f32(fx.T.i32, fx.Float16(1.0), 2.0, 0, 0), "src_a must be a Float32"),
    (lambda: fx.rocdl.cvt_f32_fp8(fx.T.f32, 0, 4), "byte_sel must be a compile-time integer in 0..3"),
    (lambda: fx.rocdl.cvt_pk_f32_fp8(fx.T.f32, 0, False), "res must be vector<2xf32>"),
    (lambda: fx.rocdl.cvt_pk_f32_bf8(fx.Vector.make_type(2, fx.Float32), 0, False, bad=1),
     "unexpected keyword argument(s) bad="),
])
def test_bad_arguments_name_the_api_and_argument(fly_env, call, what):
    assert what in trace_error(fly_env, "gfx950", call)
