"""The arith dialect's own builders in fx.arith (`fx.arith.addf(a, b)`, as
FlyDSL re-exports them from flydsl._mlir: fx values in, raw values out, the
C++ verifier's errors at the user's line), FlyDSL's
`fx.arith.constant(value, type=...)`, and
@flyc.jit functions whose parameters are all scalars: values on the
emulator against numpy, and the errors of a misused builder."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines
from flydsl.tracing.errors import TraceError

LINES = marker_lines(__file__)
N = 64


@pytest.fixture(autouse=True, params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@flyc.kernel
def _float_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    tid = fx.thread_idx.x
    C[tid] = fn(A[tid], B[tid])


@flyc.kernel
def _vector_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    # four elements per work-item, through register fragments
    tid = fx.thread_idx.x
    ra, rb, rc = (fx.make_rmem_tensor(4, t.element_type) for t in (A, B, C))
    for i in fx.range_constexpr(4):
        ra[i] = A[tid * 4 + i]
        rb[i] = B[tid * 4 + i]
    fx.memref_store_vec(fn(fx.memref_load_vec(ra), fx.memref_load_vec(rb)), rc)
    for i in fx.range_constexpr(4):
        C[tid * 4 + i] = rc[i]


@flyc.jit
def _run(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr, vector: fx.Constexpr):
    kernel = _vector_kernel if vector else _float_kernel
    kernel(A, B, C, fn).launch(grid=(1, 1, 1), block=(N, 1, 1))


def _inputs(dtype, count, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        return (rng.standard_normal(count) * 8).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)


FLOAT_CASES = [
    (lambda a, b: fx.arith.addf(a, b), lambda a, b: a + b),
    (lambda a, b: fx.arith.subf(a, b), lambda a, b: a - b),
    (lambda a, b: fx.arith.mulf(lhs=a, rhs=b), lambda a, b: a * b),
    (lambda a, b: fx.arith.divf(a, b), lambda a, b: a / b),
    (lambda a, b: fx.arith.negf(a), lambda a, b: -a),
    (lambda a, b: fx.arith.addf(fx.arith.negf(a), b, fastmath=fx.arith.FastMathFlags.nnan),
     lambda a, b: b - a),
]
INT_CASES = [
    (lambda a, b: fx.arith.addi(a, b), lambda a, b: a + b),
    (lambda a, b: fx.arith.subi(a, b, overflow_flags=fx.arith.IntegerOverflowFlags.nsw), lambda a, b: a - b),
    (lambda a, b: fx.arith.muli(a, b), lambda a, b: a * b),
    (lambda a, b: fx.arith.maxsi(a, b), np.maximum),
    (lambda a, b: fx.arith.minsi(a, b), np.minimum),
    (lambda a, b: fx.arith.xori(a, b), np.bitwise_xor),
    (lambda a, b: fx.arith.andi(a, b), np.bitwise_and),
]


CASES = [(np.float32, c) for c in FLOAT_CASES] + [(np.int32, c) for c in INT_CASES]


@pytest.mark.parametrize("vector", [False, True], ids=["scalar", "vector"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_builders_give_numpys_values(case, vector):
    """Floats rounded as numpy rounds, integers wrapping as numpy's int32."""
    dtype, (fn, ref) = CASES[case]
    count = N * (4 if vector else 1)
    a, b = _inputs(dtype, count, 2 * case), _inputs(dtype, count, 2 * case + 1)
    c = np.zeros(count, dtype)
    _run(a, b, c, fn, vector)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(c, ref(a, b))


def test_constant_takes_flydsls_keywords():
    a, b = _inputs(np.float32, N, 5), _inputs(np.float32, N, 6)
    c = np.zeros(N, np.float32)
    _run(a, b, c, lambda x, y: x * fx.arith.constant(1.5, type=fx.T.f32)
         + fx.arith.constant(2, type=fx.Float32) + fx.arith.constant(0.25), False)
    np.testing.assert_array_equal(c, a * np.float32(1.5) + np.float32(2.25))
    seen = {}

    def probe(x, y):
        seen["types"] = [type(v).__name__ for v in (fx.arith.constant(3), fx.arith.constant(True),
                                                    fx.arith.constant(7, index=True),
                                                    fx.arith.constant(1, type=fx.T.i64))]
        return x

    _run(a, b, c, probe, False)
    assert seen["types"] == ["Int32", "Boolean", "Index", "Int64"]


def _mixed(a, b):
    return fx.arith.addf(a, b.to(fx.Float16))  # L:mixed


def _ints_to_addf(a, b):
    return fx.arith.addf(a.to(fx.Int32), b.to(fx.Int32))  # L:ints


def _python_number(a, b):
    return fx.arith.addi(a.to(fx.Int32), "three")  # L:python


def _two_results(a, b):
    return fx.arith.addf(a, b, results=[fx.T.f32, fx.T.f32])  # L:results


@pytest.mark.parametrize("fn,marker,message", [
    # the C++ verifier's word, at the builder's line
    (_two_results, "results", "'arith.addf' op requires one result"),
    (_mixed, "mixed", "'arith.addf' op requires the same type for all operands and results"),
    (_ints_to_addf, "ints", "'arith.addf' op operand #0 must be floating-point-like, but got 'i32'"),
    (_python_number, "python", "'arith.addi': operand #1 must be an SSA value"),
])
def test_a_misused_builder_names_the_op_and_the_line(fn, marker, message):
    a = np.zeros(N, np.float32)
    with pytest.raises(TraceError) as err:
        _run(a, a, a.copy(), fn, False)
    text = str(err.value)
    assert message in text and f"test_fx_arith_builders.py:{LINES[marker]}" in text, text


# -- @flyc.jit functions of scalars only --------------------------------------------

@flyc.kernel
def _fill_kernel(Out: fx.Tensor, value: fx.Int32):
    Out[fx.thread_idx.x] = value + fx.Int32(fx.thread_idx.x)


@flyc.jit
def _fill(Out: fx.Tensor, value: fx.Int32):
    _fill_kernel(Out, value).launch(grid=(1, 1, 1), block=(N, 1, 1))


@flyc.kernel
def _nothing_kernel():
    pass


@flyc.jit
def _scalars_only(count: fx.Int32, smem: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    # no tensor: the host function's parameters are a scalar and a stream
    _nothing_kernel().launch(grid=(count, 1, 1), block=(N, 1, 1), smem=smem, stream=stream)


@flyc.jit
def _no_launch(x: fx.Int32):
    pass


def test_jit_functions_of_scalars_only_run():
    for smem in (0, 64, 128):
        _scalars_only(2, smem)
    _no_launch(7)
    out = np.zeros(N, np.int32)
    _fill(out, 40)  # and the scalar reaches a kernel
    np.testing.assert_array_equal(out, 40 + np.arange(N))
