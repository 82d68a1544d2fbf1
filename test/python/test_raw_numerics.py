"""The raw numerics of FlyDSL's kernel library -- `rocdl.exp2`, `rocdl.rcp`,
`llvm.call_intrinsic "llvm.amdgcn.{exp2,rcp}.f32"`, the `math` dialect's
ops, `llvm.intr_*` -- inside @flyc.kernel functions with fx values.

On the emulator (gfx942 and gfx1100) against numpy: the chip's
transcendental instructions are computed as the ISA documents them (1 ULP;
f32 denormal inputs read as zero and denormal results written as zero;
v_sin / v_cos in turns), and the math ops as fly-lower-math compiles them
(LLVM intrinsics the backend expands inline, MLIR's polynomial
approximations and expansions), to the accuracy listed below. With
COMPILE_ONLY=1 the same kernels compile for each chip to the instructions
they should be (no device-library call, which would not link), and what a
chip lacks is an error at the kernel's line naming the op and the chip.
"""

from __future__ import annotations

import math as pymath

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines
from flydsl._mlir.dialects import arith, llvm, math, rocdl
from flydsl._mlir.extras import types as T
from flydsl.tracing.errors import CompileError

LINES = marker_lines(__file__)
N = 256
BLOCK = 64
rng = np.random.default_rng(20261207)


@pytest.fixture(params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return request.param


def unary(fn, x, out_dtype=np.float32):
    """out[i] = fn(x[i]) (fn: raw builders on the element's fx value), on
    the device the environment selects."""
    @flyc.kernel
    def numerics_kernel(A: fx.Tensor, C: fx.Tensor):
        i = fx.block_idx.x * BLOCK + fx.thread_idx.x
        C[i] = fn(A[i])

    @flyc.jit
    def run(A: fx.Tensor, C: fx.Tensor):
        numerics_kernel(A, C).launch(grid=(len(x) // BLOCK, 1, 1), block=(BLOCK, 1, 1))

    out = np.full(len(x), np.nan, dtype=out_dtype)
    run(np.ascontiguousarray(x), out)
    return out


def padded(values, dtype=np.float32):
    """values repeated to a whole number of blocks."""
    values = np.asarray(values, dtype=dtype)
    reps = -(-BLOCK // len(values))
    return np.tile(values, reps)[:BLOCK * max(1, -(-len(values) // BLOCK))]


def ulps(got, want, dtype):
    """|got - want| in units of the last place of want in `dtype` (want in
    f64; infinities and NaNs must match exactly)."""
    got = got.astype(np.float64)
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
    spacing = np.spacing(np.abs(want[finite]).astype(dtype)).astype(np.float64)
    return np.abs(got[finite] - want[finite]) / spacing


# -- the chip's transcendental instructions ------------------------------------

WIDE = rng.uniform(-20.0, 20.0, N).astype(np.float32)
POSITIVE = np.exp2(rng.uniform(-120.0, 120.0, N)).astype(np.float32)
TURNS = rng.uniform(-256.0, 256.0, N).astype(np.float32)

# (name, raw builder, numpy reference in f64, inputs)
INSTRUCTIONS = [
    ("rocdl.exp2", lambda x: rocdl.exp2(T.f32(), x), np.exp2, WIDE),
    ("rocdl.log", lambda x: rocdl.log(T.f32(), x), np.log2, POSITIVE),
    ("rocdl.rcp", lambda x: rocdl.rcp(T.f32(), x), lambda v: 1.0 / v, WIDE),
    ("rocdl.sqrt", lambda x: rocdl.sqrt(T.f32(), x), np.sqrt, POSITIVE),
    ("amdgcn.rsq", lambda x: llvm.call_intrinsic(T.f32(), "llvm.amdgcn.rsq.f32", [x], [], []),
     lambda v: 1.0 / np.sqrt(v), POSITIVE),
    ("amdgcn.exp2.f32", lambda x: llvm.call_intrinsic(T.f32(), "llvm.amdgcn.exp2.f32", [x], [], []),
     np.exp2, WIDE),
    ("amdgcn.rcp.f32", lambda x: llvm.call_intrinsic(T.f32(), "llvm.amdgcn.rcp.f32", [x], [], []),
     lambda v: 1.0 / v, POSITIVE),
]


@pytest.mark.parametrize("name,fn,ref,x", INSTRUCTIONS, ids=[i[0] for i in INSTRUCTIONS])
def test_instructions_are_within_the_isas_one_ulp(emulator, name, fn, ref, x):
    got = unary(fn, x)
    assert ulps(got, ref(x.astype(np.float64)), np.float32).max() <= 1.0


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_sin_and_cos_take_turns(emulator, op):
    # v_sin_f32 computes sin(2 pi x): x in turns, reduced exactly.
    builder = getattr(rocdl, op)
    got = unary(lambda x: builder(T.f32(), x), TURNS)
    frac = TURNS.astype(np.float64) - np.rint(TURNS.astype(np.float64))
    want = getattr(np, op)(2 * np.pi * frac)
    np.testing.assert_allclose(got, want, rtol=0, atol=1.2e-7)


def bits(value):
    return np.float32(value)


# (builder, inputs, results): special values and the f32 denormal rule.
SPECIALS = {
    "exp2": ([-126.0, -126.5, -130.0, -149.0, -np.inf, np.inf, 0.0, -0.0, 128.0, 3.0],
             [2.0**-126, 0.0, 0.0, 0.0, 0.0, np.inf, 1.0, 1.0, np.inf, 8.0]),
    "rcp": ([0.0, -0.0, np.inf, -np.inf, 2.0**-127, -(2.0**-140), 2.0**127, -(2.0**127), 2.0, -4.0],
            [np.inf, -np.inf, 0.0, -0.0, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.25]),
    "log": ([0.0, -0.0, 2.0**-130, -1.0, np.inf, 1.0, 8.0, 2.0**-126, -np.inf, np.nan],
            [-np.inf, -np.inf, -np.inf, np.nan, np.inf, 0.0, 3.0, -126.0, np.nan, np.nan]),
    "sqrt": ([-0.0, 2.0**-130, -1.0, np.inf, 4.0, 2.0**-126, 0.0, -(2.0**-130)],
             [-0.0, 0.0, np.nan, np.inf, 2.0, 2.0**-63, 0.0, -0.0]),
    "sin": ([0.25, -0.25, 0.125, -0.0, 0.0, 300.0, -1000.5, np.inf, 1.75, 2.0**-130],
            [1.0, -1.0, np.float32(np.sqrt(0.5)), -0.0, 0.0, 0.0, 0.0, np.nan, -1.0, 0.0]),
    "cos": ([0.0, 0.5, -0.5, 1e5, np.nan, 256.0, 2.0**-140, 1.0],
            [1.0, -1.0, -1.0, 0.0, np.nan, 1.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("op", sorted(SPECIALS))
def test_special_values_and_denormals_as_the_isa_gives_them(emulator, op):
    inputs, results = SPECIALS[op]
    builder = getattr(rocdl, op)
    x = padded(inputs)
    got = unary(lambda v: builder(T.f32(), v), x)[:len(inputs)]
    want = np.asarray(results, np.float32)
    np.testing.assert_array_equal(got, want)
    # Zeros keep their sign (np.testing treats -0 == 0).
    assert np.array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


def test_rsq_of_zeros_infinities_and_denormals(emulator):
    x = padded([0.0, -0.0, np.inf, -1.0, 0.25, 2.0**-130])
    got = unary(lambda v: llvm.call_intrinsic(T.f32(), "llvm.amdgcn.rsq", [v], [], []), x)[:6]
    np.testing.assert_array_equal(got, [np.inf, -np.inf, 0.0, np.nan, 2.0, np.inf])


def test_f16_instructions_keep_their_denormals(emulator):
    # v_exp_f16 / v_rcp_f16: no flush in f16 (2^-20 is an f16 denormal).
    x = padded([-20.0, -3.0, 0.5, 4.0, -24.0, 10.0], np.float16)
    exp2 = unary(lambda v: rocdl.exp2(T.f16(), v), x, np.float16)[:6]
    np.testing.assert_array_equal(exp2, np.exp2(x[:6].astype(np.float64)).astype(np.float16))
    assert exp2[0] == np.float16(2.0**-20) and exp2[4] == np.float16(2.0**-24)
    y = padded([3.0, -7.0, 1000.0, 0.1], np.float16)
    rcp = unary(lambda v: rocdl.rcp(T.f16(), v), y, np.float16)[:4]
    assert ulps(rcp, 1.0 / y[:4].astype(np.float64), np.float16).max() <= 1.0


# -- the kernel library's compositions -----------------------------------------

LOG2E = pymath.log2(pymath.e)


def silu(g):
    """moe_2stage_a16wmix/gemm1.py's silu: g * rcp(1 + exp2(-g log2 e))."""
    e = fx.Float32(rocdl.exp2(T.f32(), g * fx.Float32(-LOG2E)))
    return g * fx.Float32(rocdl.rcp(T.f32(), fx.Float32(1.0) + e))


def test_silu_as_the_moe_kernels_write_it(emulator):
    g = rng.uniform(-30.0, 30.0, N).astype(np.float32)
    got = unary(silu, g)
    g64 = g.astype(np.float64)
    # The f32 product g * -log2(e) (up to ~43) carries a relative error of
    # 2^-24 into exp2's argument: ~43 * 2^-24 * ln 2 = 1.8e-6 of the result.
    np.testing.assert_allclose(got, g64 / (1.0 + np.exp(-g64)), rtol=2.5e-6, atol=1e-30)


@flyc.kernel
def _softmax_row_kernel(A: fx.Tensor, C: fx.Tensor):
    # flash attention's rescale: exp2 of (x - max) * log2 e through the
    # intrinsic calls common/utils.py makes, the row sum's reciprocal through
    # rocdl.rcp, a branch hint through llvm.intr_expect.
    tid = fx.thread_idx.x
    x = A[tid]
    row_max = fx.Float32(8.0)
    scaled = (x - row_max) * fx.Float32(LOG2E)
    p = fx.Float32(llvm.call_intrinsic(T.f32(), "llvm.amdgcn.exp2.f32", [scaled], [], []))
    below = llvm.intr_expect(x < row_max, fx.Boolean(True))
    inv = fx.Float32(llvm.call_intrinsic(T.f32(), "llvm.amdgcn.rcp.f32", [fx.Float32(4.0)], [], []))
    half = fx.Float32(rocdl.rcp(T.f32(), fx.Float32(2.0)))
    C[tid] = p * inv + half * fx.Float32(arith.uitofp(T.f32(), below))


@flyc.jit
def _run_softmax_row(A: fx.Tensor, C: fx.Tensor):
    _softmax_row_kernel(A, C).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_exp2_and_rcp_intrinsic_calls_with_a_branch_hint(emulator):
    a = rng.uniform(-4.0, 12.0, BLOCK).astype(np.float32)
    c = np.zeros(BLOCK, np.float32)
    _run_softmax_row(a, c)
    a64 = a.astype(np.float64)
    want = np.exp(a64 - 8.0) / 4.0 + 0.5 * (a64 < 8.0)
    np.testing.assert_allclose(c, want, rtol=2e-6)


# -- math ops --------------------------------------------------------------------

SMALL = np.concatenate([rng.uniform(-1e-3, 1e-3, N // 2), rng.uniform(-3.0, 3.0, N // 2)]
                       ).astype(np.float32)
UNIT = rng.uniform(-0.999, 0.999, N).astype(np.float32)
RANGE = rng.uniform(-8.0, 8.0, N).astype(np.float32)


def erf(v):
    return np.array([pymath.erf(t) for t in v])


def erfc(v):
    return np.array([pymath.erfc(t) for t in v])


# (op, numpy reference, inputs, max ULPs or None, absolute tolerance): what
# fly-lower-math makes of each. The backend's expansions of exp2, exp, log,
# sqrt, ... are within an ULP or two; MLIR's approximations a few ULPs
# (atan and cbrt more); sin / cos are v_sin / v_cos of x / 2pi, accurate in
# absolute terms; sinh, asinh and atanh are MLIR's expansions through exp /
# log (absolute error ~1e-6 near 0).
MATH_OPS = [
    ("exp2", np.exp2, RANGE, 1, 0),
    ("exp", np.exp, RANGE, 1, 0),
    ("log2", np.log2, POSITIVE, 1, 0),
    ("log", np.log, POSITIVE, 1, 0),
    ("log10", np.log10, POSITIVE, 1, 0),
    ("sqrt", np.sqrt, POSITIVE, 1, 0),
    ("rsqrt", lambda v: 1.0 / np.sqrt(v), POSITIVE, 2, 0),
    ("absf", np.abs, RANGE, 0, 0),
    ("floor", np.floor, RANGE, 0, 0),
    ("ceil", np.ceil, RANGE, 0, 0),
    ("tanh", np.tanh, RANGE, 5, 0),
    ("erf", erf, RANGE, 4, 0),
    ("erfc", erfc, RANGE, 3, 0),
    ("expm1", np.expm1, SMALL, 3, 0),
    ("log1p", np.log1p, POSITIVE, 5, 0),
    ("asin", np.arcsin, UNIT, 3, 0),
    ("acos", np.arccos, UNIT, 2, 0),
    ("atan", np.arctan, RANGE, 48, 0),
    ("cbrt", np.cbrt, RANGE, 16, 0),
    ("tan", np.tan, UNIT, 4, 0),
    ("cosh", np.cosh, SMALL, 2, 0),
    ("sin", np.sin, RANGE, None, 1e-6),
    ("cos", np.cos, RANGE, None, 1e-6),
    ("sinh", np.sinh, SMALL, None, 2e-6),
    ("asinh", np.arcsinh, SMALL, None, 2e-6),
    ("atanh", np.arctanh, UNIT, None, 2e-6),
]


@pytest.mark.parametrize("op,ref,x,max_ulps,atol", MATH_OPS, ids=[m[0] for m in MATH_OPS])
def test_math_ops_match_numpy(emulator, op, ref, x, max_ulps, atol):
    got = unary(lambda v: fx.Float32(getattr(math, op)(v)), x)
    want = ref(x.astype(np.float64))
    if max_ulps is None:
        np.testing.assert_allclose(got, want, rtol=0, atol=atol)
    else:
        assert ulps(got, want, np.float32).max() <= max_ulps


def test_two_operand_and_f16_math_ops(emulator):
    x = rng.uniform(1e-3, 100.0, BLOCK).astype(np.float32)
    y = rng.uniform(-2.0, 2.0, BLOCK).astype(np.float32)

    @flyc.kernel
    def binary_kernel(A: fx.Tensor, B: fx.Tensor, P: fx.Tensor, F: fx.Tensor, H: fx.Tensor):
        i = fx.thread_idx.x
        a, b = A[i], B[i]
        P[i] = fx.Float32(math.powf(a, b))
        F[i] = fx.Float32(math.fma(a, b, a))
        H[i] = fx.Float16(math.exp2(b.to(fx.Float16)))   # v_exp_f16

    @flyc.jit
    def run(A, B, P, F, H):
        binary_kernel(A, B, P, F, H).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    p, f, h = np.zeros(BLOCK, np.float32), np.zeros(BLOCK, np.float32), np.zeros(BLOCK, np.float16)
    run(x, y, p, f, h)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    # llvm.pow as the backend expands it: exp2(y log2 x), the f32 product's
    # rounding (|y log2 x| <= ~20) carrying into the result.
    np.testing.assert_allclose(p, np.power(x64, y64), rtol=4e-6)
    np.testing.assert_allclose(f, x64 * y64 + x64, rtol=1e-6, atol=1e-30)
    want_h = np.exp2(y.astype(np.float16).astype(np.float64))
    assert ulps(h, want_h, np.float16).max() <= 1.0


def test_llvm_intrinsic_builders(emulator):
    # convert-gpu-to-rocdl marks llvm.intr.exp2 / log2 / sin illegal; they
    # compile and run as the backend's intrinsics.
    exp2 = unary(lambda v: fx.Float32(llvm.intr_exp2(v)), RANGE)
    assert ulps(exp2, np.exp2(RANGE.astype(np.float64)), np.float32).max() <= 1
    log2 = unary(lambda v: fx.Float32(llvm.intr_log2(v)), POSITIVE)
    assert ulps(log2, np.log2(POSITIVE.astype(np.float64)), np.float32).max() <= 1
    sin = unary(lambda v: fx.Float32(llvm.intr_sin(v)), RANGE)
    np.testing.assert_allclose(sin, np.sin(RANGE.astype(np.float64)), rtol=0, atol=1e-6)


# -- the chips' ISA ----------------------------------------------------------------

@flyc.kernel
def _isa_kernel(A: fx.Tensor, C: fx.Tensor):
    i = fx.thread_idx.x
    x = A[i]
    C[i * 8 + 0] = fx.Float32(rocdl.exp2(T.f32(), x))
    C[i * 8 + 1] = fx.Float32(rocdl.rcp(T.f32(), x))
    C[i * 8 + 2] = fx.Float32(math.exp2(x))
    C[i * 8 + 3] = fx.Float32(math.log2(x))
    C[i * 8 + 4] = fx.Float32(math.sqrt(x))
    C[i * 8 + 5] = fx.Float32(math.tanh(x))
    C[i * 8 + 6] = fx.Float32(math.sin(x))
    C[i * 8 + 7] = fx.Float32(llvm.call_intrinsic(T.f32(), "llvm.amdgcn.rsq.f32", [x], [], []))


@flyc.jit
def _run_isa(A: fx.Tensor, C: fx.Tensor):
    _isa_kernel(A, C).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


@pytest.mark.parametrize("chip", ["gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"])
def test_each_chip_compiles_them_to_its_instructions(fly_env, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    a = np.ones(BLOCK, np.float32)
    isa = flyc.compile(_run_isa, a, np.zeros(8 * BLOCK, np.float32)).isa()
    ops = {line.split()[0] for line in isa.splitlines() if line.strip().startswith("v_")}
    for instruction in ("v_exp_f32", "v_rcp_f32", "v_log_f32", "v_sqrt_f32", "v_sin_f32",
                        "v_rsq_f32", "v_ldexp_f32"):
        assert any(op.startswith(instruction) for op in ops), (instruction, sorted(ops))
    assert "__ocml" not in isa


@flyc.kernel
def _tanh_kernel(A: fx.Tensor, C: fx.Tensor):
    i = fx.thread_idx.x
    C[i] = fx.Float32(rocdl.tanh(T.f32(), A[i]))  # L:rocdl_tanh


@flyc.jit
def _run_tanh(A: fx.Tensor, C: fx.Tensor):
    _tanh_kernel(A, C).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_gfx1250_has_v_tanh(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND="hip")
    a = np.ones(BLOCK, np.float32)
    assert "v_tanh_f32" in flyc.compile(_run_tanh, a, a.copy()).isa()


@pytest.mark.parametrize("kind", ["emu", "hip"])
def test_an_instruction_the_chip_lacks_is_an_error_at_its_line(fly_env, kind):
    fly_env(COMPILE_ONLY="1" if kind == "hip" else None, ARCH="gfx942", FLYDSL_RUNTIME_KIND=kind)
    a = np.ones(BLOCK, np.float32)
    with pytest.raises(CompileError) as err:
        flyc.compile(_run_tanh, a, a.copy())
    message = str(err.value)
    assert f"{__file__}:{LINES['rocdl_tanh']}:" in message
    assert ("'rocdl.tanh' op v_tanh_f32 is not an instruction of gfx942 "
            "(chips that have it: gfx1250)") in message


@flyc.kernel
def _f64_kernel(A: fx.Tensor, C: fx.Tensor):
    i = fx.thread_idx.x
    C[i] = fx.Float64(math.exp(A[i].to(fx.Float64))).to(fx.Float32)  # L:f64_exp


@flyc.jit
def _run_f64(A: fx.Tensor, C: fx.Tensor):
    _f64_kernel(A, C).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_f64_transcendentals_are_errors_not_link_failures(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx950", FLYDSL_RUNTIME_KIND="hip")
    a = np.ones(BLOCK, np.float32)
    with pytest.raises(CompileError) as err:
        flyc.compile(_run_f64, a, a.copy())
    message = str(err.value)
    assert f"{__file__}:{LINES['f64_exp']}:" in message
    assert "'math.exp' op on f64 cannot be compiled for gfx950" in message
