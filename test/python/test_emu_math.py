"""fx.math run on the emulator, against numpy.

The emulator executes the compiled kernel's LLVM intrinsics with the host's
implementations (llvm.exp2 is the host's exp2, llvm.amdgcn.rsq becomes
1/sqrt), so what this checks is the front end's own formulas and
compositions — tanh and erf approximations, the scaling rsqrt does for tiny
inputs, pow as exp2(y log2 x), f16 promotion, NaN handling of min/max —
to the accuracy expr/math.py documents. The GPU's instruction-level
accuracy is LLVM's (see that file).
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx

N = 1024
BLOCK = 256


@pytest.fixture(autouse=True)
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def elementwise(fn, dtype=fx.Float32):
    """out[i] = fn(a[i], b[i]) computed in `dtype`, stored as f32."""
    @flyc.kernel(known_block_size=(BLOCK, 1, 1))
    def math_kernel(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor):
        i = fx.block_idx.x * BLOCK + fx.thread_idx.x
        a = A[i].to(dtype)
        b = B[i].to(dtype)
        Out[i] = fn(a, b).to(fx.Float32)

    @flyc.jit
    def run(A, B, Out):
        math_kernel(A, B, Out).launch(grid=(N // BLOCK, 1, 1), block=(BLOCK, 1, 1))

    def call(a, b):
        out = np.full(N, np.nan, dtype=np.float32)
        run(a.astype(np.float32), b.astype(np.float32), out)
        return out

    return call


rng = np.random.default_rng(2026)
WIDE = rng.uniform(-8.0, 8.0, N).astype(np.float32)
POSITIVE = np.concatenate([rng.uniform(1e-3, 100.0, N - 8),
                           [1e-38, 1e-40, 2.0**-130, 1.0, 4.0, 1e30, 0.5, 3.0]]).astype(np.float32)
SMALL = rng.uniform(-3.0, 3.0, N).astype(np.float32)

# (name, fx function, numpy reference in float64, input, rtol, atol)
UNARY = [
    ("exp", fx.math.exp, np.exp, SMALL, 2e-7, 0),
    ("exp2", fx.math.exp2, np.exp2, WIDE, 2e-7, 0),
    ("log", fx.math.log, np.log, POSITIVE, 2e-7, 1e-7),
    ("log2", fx.math.log2, np.log2, POSITIVE, 2e-7, 1e-7),
    ("sqrt", fx.math.sqrt, np.sqrt, POSITIVE, 1.2e-7, 0),
    ("rsqrt", fx.math.rsqrt, lambda x: 1.0 / np.sqrt(x), POSITIVE, 2.5e-7, 0),  # incl. denormals
    ("sin", fx.math.sin, np.sin, WIDE, 0, 2e-6),
    ("cos", fx.math.cos, np.cos, WIDE, 0, 2e-6),
    ("tanh", fx.math.tanh, np.tanh, WIDE, 3e-7, 1e-8),
    ("erf", fx.math.erf, None, WIDE, 0, 2e-7),
    ("floor", fx.math.floor, np.floor, WIDE, 0, 0),
    ("ceil", fx.math.ceil, np.ceil, WIDE, 0, 0),
    ("abs", fx.math.abs, np.abs, WIDE, 0, 0),
]


def erf64(x):
    import math
    return np.array([math.erf(float(v)) for v in x])


@pytest.mark.parametrize("name,fn,ref,x,rtol,atol", UNARY, ids=[u[0] for u in UNARY])
def test_unary_f32(name, fn, ref, x, rtol, atol):
    got = elementwise(lambda a, b: fn(a))(x, x)
    want = (erf64 if name == "erf" else ref)(x.astype(np.float64))
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=rtol, atol=atol)


def test_pow():
    x = POSITIVE[:N - 8].copy()
    y = rng.uniform(-2.0, 2.0, N - 8).astype(np.float32)
    x = np.concatenate([x, [2.0, 9.0, 0.25, 1.0, 10.0, 3.0, 7.0, 100.0]]).astype(np.float32)
    y = np.concatenate([y, [10.0, 0.5, -2.0, 123.0, 3.0, -1.0, 0.0, 1.5]]).astype(np.float32)
    got = elementwise(lambda a, b: fx.math.pow(a, b))(x, y)
    want = np.power(x.astype(np.float64), y.astype(np.float64))
    # exp2(y * log2(x)): the relative error grows with |y log2 x| (<= ~15 here).
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=4e-6)
    neg = elementwise(lambda a, b: fx.math.pow(a, b))(-x, np.full_like(y, 2.0))
    assert np.isnan(neg).all()  # documented: x < 0 gives NaN


def test_fma_min_max_and_nan():
    a = WIDE.copy()
    b = SMALL.copy()
    a[::7] = np.nan
    fma = elementwise(lambda p, q: fx.math.fma(p, q, 1.0))(a, b)
    np.testing.assert_allclose(fma, a.astype(np.float64) * b + 1.0, rtol=1e-6, atol=1e-6)
    lo = elementwise(lambda p, q: fx.math.min(p, q))(a, b)
    hi = elementwise(lambda p, q: fx.math.max(p, q))(a, b)
    np.testing.assert_array_equal(lo, np.fmin(a, b))  # minnum: NaN loses
    np.testing.assert_array_equal(hi, np.fmax(a, b))
    lo_nan = elementwise(lambda p, q: fx.math.min(p, q, propagate_nan=True))(a, b)
    np.testing.assert_array_equal(lo_nan, np.minimum(a, b))  # NaN wins


@pytest.mark.parametrize("name,fn,ref,tol", [
    ("exp", fx.math.exp, np.exp, 1e-3), ("tanh", fx.math.tanh, np.tanh, 1e-3),
    ("sqrt", fx.math.sqrt, np.sqrt, 1e-3), ("erf", fx.math.erf, None, 1e-3)])
def test_f16_is_computed_and_rounded(name, fn, ref, tol):
    x = np.abs(SMALL) if name == "sqrt" else SMALL
    got = elementwise(lambda a, b: fn(a), dtype=fx.Float16)(x, x)
    xh = x.astype(np.float16).astype(np.float64)
    want = (erf64 if name == "erf" else ref)(xh).astype(np.float16).astype(np.float32)
    # One f16 rounding of a value accurate in f32: within an f16 ulp.
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert np.array_equal(got, got.astype(np.float16).astype(np.float32))  # f16 values
