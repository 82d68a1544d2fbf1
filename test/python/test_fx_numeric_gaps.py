"""Numerics that FlyDSL 0.4.2 handles in particular ways, checked against
what 0.4.2 does (observed with the 0.4.2 wheel; values from numpy here):

  * Folding: a numeric made from a Python number is static, in a kernel
    too; arithmetic, comparisons, conversions, unary ops and select on
    static operands are computed by Python (integers wrapped to the type,
    Python's // and %, floats in double precision) and give static
    numerics, usable where a static value is needed (an int tuple leaf, a
    Python `if`). A static value becomes an arith.constant only where an
    SSA value is needed; math functions on it emit their op. Division by
    zero and rounding_mode on a static value are errors (0.4.2 raises).
  * 8/6/4-bit floats: 0.4.2 cannot lower arith.truncf/extf to them
    (LLVM translation fails); here too the compile fails, with a located
    error, never an abort.
  * Float64 transcendentals need ROCm's device library in 0.4.2
    (serialization fails without it); here a located trace error says so.
    The f64 ops that are LLVM intrinsics run (sqrt, floor, ceil, fma).
  * rounding_mode on a narrowing float conversion is arith.truncf with
    the mode attribute (0.4.2's IR).
  * Vector: shuffle, None / slicing coordinates, extf/truncf/extsi/extui/
    trunci/index_cast, with_signedness, rsqrt.
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError

N = 64
HERE = __file__


@pytest.fixture(autouse=True)
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@flyc.kernel(known_block_size=(N, 1, 1))
def unary_kernel(A: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr, cls: fx.Constexpr):
    i = fx.thread_idx.x
    Out[i] = fn(A[i].to(cls))


@flyc.jit
def run_unary(A, Out, fn: fx.Constexpr, cls: fx.Constexpr):
    unary_kernel(A, Out, fn, cls).launch(grid=(1, 1, 1), block=(N, 1, 1))


def unary(fn, a, cls, out_dtype):
    out = np.zeros(N, out_dtype)
    run_unary(a, out, fn, cls)
    return out


def module_text(fn, a, cls, out_dtype):
    return flyc.compile(run_unary, a, np.zeros(N, out_dtype), fn, cls).module_text


def kernel_text(text):
    return text[text.index("gpu.func"):text.index("func.func")]


# -- 1. folding ---------------------------------------------------------------

FOLDS = [  # (expression on static numerics, class, value 0.4.2 folds it to)
    (lambda: fx.Int32(3) + 4, fx.Int32, 7),
    (lambda: fx.Int32(-7) // 2, fx.Int32, -4),
    (lambda: fx.Int32(-7) % 2, fx.Int32, 1),  # Python's %, unlike remsi's -1
    (lambda: fx.Int32(2**30) * 4, fx.Int32, 0),
    (lambda: fx.Int8(100) + fx.Int8(100), fx.Int8, -56),
    (lambda: fx.Uint32(5) - 7, fx.Uint32, 2**32 - 2),
    (lambda: fx.Uint32(0xFFFFFFFF) >> 1, fx.Uint32, 2**31 - 1),
    (lambda: fx.Int32(-8) >> 1, fx.Int32, -4),
    (lambda: fx.Int32(1) << 40, fx.Int32, 0),
    (lambda: fx.Uint8(200) << 1, fx.Int32, 400),  # Uint8 with Int32: Int32
    (lambda: fx.Int32(7) / 2, fx.Float32, 3.5),
    (lambda: fx.Float32(0.1) + fx.Float32(0.2), fx.Float32, 0.1 + 0.2),  # a double
    (lambda: fx.Float32(-7.0) % 2.0, fx.Float32, 1.0),
    (lambda: fx.Float32(-7.5) // 2.0, fx.Float32, -4.0),
    (lambda: fx.Float16(1.0) * 3, fx.Float32, 3.0),
    (lambda: fx.Float16(1.0) + fx.BFloat16(1.0), fx.Float32, 2.0),
    (lambda: fx.Int32(3) < 4, fx.Boolean, True),
    (lambda: fx.Boolean(True) + 1, fx.Int32, 2),
    (lambda: ~fx.Boolean(True), fx.Boolean, False),
    (lambda: ~fx.Int32(5), fx.Int32, -6),
    (lambda: -fx.Int32(5), fx.Int32, -5),
    (lambda: abs(fx.Int32(-3)), fx.Int32, 3),
    (lambda: fx.Float32(2.0) ** 3, fx.Float32, 8.0),
    (lambda: fx.Float32(2.7).to(fx.Int32), fx.Int32, 2),
    (lambda: fx.Float32(300.7).to(fx.Uint8), fx.Uint8, 44),
    (lambda: fx.Int32(5).to(fx.Float32), fx.Float32, 5.0),
    (lambda: fx.Int32(5).select(1, 2), fx.Int32, 1),
    (lambda: fx.Boolean(False).select(fx.Int32(1), 2.0), fx.Float32, 2.0),
    (lambda: fx.Int32(5) + fx.Index(3), fx.Index, 8),
]


@pytest.mark.parametrize("expr,cls,value", FOLDS, ids=[str(i) for i in range(len(FOLDS))])
def test_static_folding(expr, cls, value):
    seen = {}

    def fn(x):
        r = expr()
        seen["r"] = (type(r), r.is_static(), r.value)
        return x

    text = kernel_text(module_text(fn, np.zeros(N, np.float32), fx.Float32, np.float32))
    rtype, static, got = seen["r"]
    assert rtype is cls and static and got == value and type(got) is type(value)
    # nothing of the folded expression reaches the IR
    for op in ("arith.addi", "arith.muli", "arith.floordivsi", "arith.remsi", "arith.cmpi",
               "arith.addf", "arith.remf", "arith.select", "math.floor", "arith.fptosi"):
        assert op not in text, op


@flyc.kernel(known_block_size=(N, 1, 1))
def folded_kernel(A: fx.Tensor, Out: fx.Tensor):
    i = fx.thread_idx.x
    n = fx.Int32(4) + 4          # static 8
    layout = fx.make_layout(n, 1)  # a static layout from a folded numeric
    assert str(layout.type) == "!fly.layout<8:1>", layout.type
    assert list(fx.range_constexpr(fx.Int32(1) + 1, n)) == list(range(2, 8))  # folded bounds
    acc = fx.Float32(0.0)        # a static loop-carried value becomes an iter_arg
    for j in range(n):
        acc = acc + A[(i + j) & (N - 1)].to(fx.Float32)
    if fx.Int32(3) < 4:          # a static condition: a Python if
        acc = acc * 2
    Out[i] = acc + (fx.Int32(-7) % 2)


@flyc.jit
def run_folded(A, Out):
    folded_kernel(A, Out).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_folded_values_in_a_kernel():
    a = np.arange(N, dtype=np.float32) * 0.5
    out = np.zeros(N, np.float32)
    run_folded(a, out)
    ref = np.array([2 * sum(a[(i + j) % N] for j in range(8)) + 1 for i in range(N)], np.float32)
    np.testing.assert_array_equal(out, ref)
    text = kernel_text(flyc.compile(run_folded, a, out).module_text)
    assert "scf.if" not in text and "arith.remsi" not in text and "scf.for" in text


def test_math_on_a_static_value_emits_its_op():
    text = kernel_text(module_text(lambda x: x + fx.math.sqrt(fx.Float32(4.0)),
                                   np.zeros(N, np.float32), fx.Float32, np.float32))
    assert "math.sqrt" in text
    out = unary(lambda x: x + fx.math.sqrt(fx.Float32(4.0)), np.ones(N, np.float32),
                fx.Float32, np.float32)
    np.testing.assert_array_equal(out, np.full(N, 3.0, np.float32))


@pytest.mark.parametrize("expr,message", [
    (lambda: fx.Float32(1.0) / 0.0, "division by zero"),
    (lambda: fx.Int32(1) // 0, "division by zero"),
    (lambda: fx.Float32(1.0).to(fx.Float16, rounding_mode=fx.arith.RoundingMode.toward_zero),
     "rounding_mode needs a run-time value"),
])
def test_static_errors_are_located(expr, message):
    def fn(x):
        expr()  # L:static_error
        return x

    with pytest.raises(TraceError) as e:
        unary(fn, np.zeros(N, np.float32), fx.Float32, np.float32)
    assert message in str(e.value) and "test_fx_numeric_gaps.py" in str(e.value)


# -- 2. 8/6/4-bit floats: rejected at compile time, as in 0.4.2 ----------------

@pytest.mark.parametrize("cls", [fx.Float8E4M3FN, fx.Float8E5M2, fx.Float8E4M3FNUZ,
                                 fx.Float6E2M3FN, fx.Float4E2M1FN])
def test_narrow_float_conversions_fail_located(cls):
    with pytest.raises(Exception) as e:
        unary(lambda x: x.to(cls).to(fx.Float32), np.zeros(N, np.float32), fx.Float32,
              np.float32)
    text = str(e.value)
    assert "arith.truncf" in text and "test_fx_numeric_gaps.py" in text


# -- 3. Float64 math ----------------------------------------------------------

X64 = np.linspace(0.25, 9.0, N)


@pytest.mark.parametrize("name,fn,ref", [
    ("sqrt", fx.math.sqrt, np.sqrt),
    ("floor", fx.math.floor, np.floor),
    ("ceil", fx.math.ceil, np.ceil),
    ("fma", lambda x: fx.math.fma(x, fx.Float64(1.5), fx.Float64(0.25)),
     lambda x: x * 1.5 + 0.25),
])
def test_f64_intrinsics_run(name, fn, ref):
    out = unary(fn, X64, fx.Float64, np.float64)
    np.testing.assert_array_equal(out, ref(X64))


@pytest.mark.parametrize("name", ["exp", "log", "exp2", "log2"])
def test_f64_transcendentals_need_the_device_library(name):
    with pytest.raises(TraceError) as e:
        unary(getattr(fx.math, name), X64, fx.Float64, np.float64)
    assert "device library" in str(e.value) and "test_fx_numeric_gaps.py" in str(e.value)


# -- 4. rounding modes -----------------------------------------------------------

@pytest.mark.parametrize("mode,text", [("downward", "roundingmode = 1"),
                                       ("upward", "roundingmode = 2"),
                                       ("toward_zero", "roundingmode = 3")])
def test_rounding_mode_is_truncf_attribute(mode, text):
    m = getattr(fx.arith.RoundingMode, mode)
    ir = kernel_text(module_text(lambda x: x.to(fx.Float16, rounding_mode=m).to(fx.Float32),
                                 np.zeros(N, np.float32), fx.Float32, np.float32))
    assert any('"arith.truncf"' in line and text in line and "(f32) -> (f16)" in line
               for line in ir.splitlines())
    # a widening conversion ignores the mode (exact), as 0.4.2 drops it
    ir = kernel_text(module_text(lambda x: x.to(fx.Float64, rounding_mode=m).to(fx.Float32),
                                 np.zeros(N, np.float32), fx.Float32, np.float32))
    assert '"arith.extf"' in ir and "roundingmode" not in ir


# -- 5. Vector members ----------------------------------------------------------------

LANES = 4


@flyc.kernel(known_block_size=(N, 1, 1))
def vector_kernel(A: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr, cls: fx.Constexpr,
                  out_cls: fx.Constexpr, n_out: fx.Constexpr):
    base = fx.thread_idx.x * LANES
    v = fx.Vector.from_elements([A[base + j].to(cls) for j in range(LANES)], cls)
    r = fn(v)
    assert isinstance(r, fx.Vector) and r.dtype is out_cls and r.numel == n_out, r
    for j in fx.range_constexpr(n_out):
        Out[fx.thread_idx.x * n_out + j] = r[j]


@flyc.jit
def run_vector(A, Out, fn: fx.Constexpr, cls: fx.Constexpr, out_cls: fx.Constexpr,
               n_out: fx.Constexpr):
    vector_kernel(A, Out, fn, cls, out_cls, n_out).launch(grid=(1, 1, 1), block=(N, 1, 1))


def vector_case(fn, a, cls, out_cls, n_out, out_dtype):
    out = np.zeros(N * n_out, out_dtype)
    run_vector(a, out, fn, cls, out_cls, n_out)
    return out.reshape(N, n_out)


A4 = np.arange(N * LANES, dtype=np.float32) - 100.5
ROWS = A4.reshape(N, LANES)


def test_shuffle():
    out = vector_case(lambda v: v.shuffle(v * 2, [3, 0, 5, 6, 1]), A4, fx.Float32,
                      fx.Float32, 5, np.float32)
    both = np.concatenate([ROWS, ROWS * 2], axis=1)
    np.testing.assert_array_equal(out, both[:, [3, 0, 5, 6, 1]])


@pytest.mark.parametrize("coord,lanes,shape", [
    ((None, 1), [1, 3], (2,)),   # column 1 of the 2x2 row-major shape
    ((0, None), [0, 1], (2,)),   # row 0
    ((None, None), [0, 1, 2, 3], (2, 2)),
])
def test_slicing_with_none(coord, lanes, shape):
    def fn(v):
        s = v.reshape((2, 2))[coord]
        assert s.shape == shape, s.shape
        return s.reshape(len(lanes))

    out = vector_case(fn, A4, fx.Float32, fx.Float32, len(lanes), np.float32)
    np.testing.assert_array_equal(out, ROWS[:, lanes])


def test_index_none_is_the_vector():
    out = vector_case(lambda v: v[None], A4, fx.Float32, fx.Float32, LANES, np.float32)
    np.testing.assert_array_equal(out, ROWS)


def test_float_casts():
    out = vector_case(lambda v: v.truncf(fx.Float16).extf(fx.Float32), A4 / 3, fx.Float32,
                      fx.Float32, LANES, np.float32)
    np.testing.assert_array_equal(out, (A4 / 3).astype(np.float16).astype(np.float32)
                                  .reshape(N, LANES))
    out = vector_case(lambda v: v.extf(fx.Vector.make_type(LANES, fx.Float64)), A4,
                      fx.Float32, fx.Float64, LANES, np.float64)
    np.testing.assert_array_equal(out, ROWS.astype(np.float64))


def test_integer_casts():
    a = (np.arange(N * LANES) * 977 - 30000).astype(np.int32)
    rows = a.reshape(N, LANES)
    out = vector_case(lambda v: v.trunci(fx.Int8).extsi(fx.Int32), a, fx.Int32, fx.Int32,
                      LANES, np.int32)
    np.testing.assert_array_equal(out, rows.astype(np.int8).astype(np.int32))
    out = vector_case(lambda v: v.trunci(fx.Int8).extui(fx.Int32), a, fx.Int32, fx.Int32,
                      LANES, np.int32)
    np.testing.assert_array_equal(out, rows.astype(np.uint8).astype(np.int32))
    out = vector_case(lambda v: v.with_signedness(False) // 7, a, fx.Int32, fx.Uint32, LANES,
                      np.uint32)
    np.testing.assert_array_equal(out, rows.astype(np.uint32) // 7)


def test_rsqrt():
    a = np.linspace(0.5, 50.0, N * LANES).astype(np.float32)
    out = vector_case(lambda v: v.rsqrt(), a, fx.Float32, fx.Float32, LANES, np.float32)
    np.testing.assert_allclose(out, 1 / np.sqrt(a.astype(np.float64)).reshape(N, LANES),
                               rtol=3e-7)


@pytest.mark.parametrize("fn,message", [
    (lambda v: v.shuffle(v, [0, 9]), "mask"),
    (lambda v: v.extf(fx.Float16), "cannot extf"),
    (lambda v: v.trunci(fx.Int8), "cannot trunci"),
    (lambda v: v.reshape((2, 2))[(None, 5)], "out of range"),
])
def test_vector_member_errors(fn, message):
    with pytest.raises(Exception) as e:
        vector_case(fn, A4, fx.Float32, fx.Float32, 1, np.float32)
    assert message in str(e.value) and "test_fx_numeric_gaps.py" in str(e.value)
