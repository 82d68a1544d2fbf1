"""FlyDSL's raw-value arithmetic, `flydsl.expr.utils.arith.ArithValue`
(also `fx.arith.ArithValue`): its operators and methods on the emulator
against numpy, FlyDSL's signedness rules, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.utils.arith import ArithValue, _to_raw, constant, index_cast, select
from flydsl.tracing.errors import TraceError
from flydsl.tracing.ir import Value

N = 64


@pytest.fixture(autouse=True, params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@flyc.kernel
def _kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    tid = fx.thread_idx.x
    a, b = ArithValue(A[tid]), ArithValue(B[tid])
    r = fn(a, b)
    assert isinstance(r, ArithValue) and isinstance(r, Value)
    C[tid] = C.element_type(r)


@flyc.jit
def _run(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    _kernel(A, B, C, fn).launch(grid=(1, 1, 1), block=(N, 1, 1))


def _ints(seed, low=-1000, high=1000):
    return np.random.default_rng(seed).integers(low, high, N, dtype=np.int32)


def _floats(seed):
    return (np.random.default_rng(seed).standard_normal(N) * 8).astype(np.float32)


INT_CASES = {
    "add_literal": (lambda a, b: a + 3 - b * 2, lambda a, b: a + 3 - b * 2),
    "radd": (lambda a, b: 7 - a, lambda a, b: 7 - a),
    "floordiv": (lambda a, b: a // 7, lambda a, b: a // 7),  # toward -inf, as FlyDSL
    "mod": (lambda a, b: a % 7, lambda a, b: np.fmod(a, 7)),  # remsi: the dividend's sign
    "bits": (lambda a, b: (a & 0xFF) | (b ^ 5), lambda a, b: (a & 0xFF) | (b ^ 5)),
    # `>>` of a value of no stated signedness is logical; signed=True makes it arithmetic
    "shr_logical": (lambda a, b: a >> 4, lambda a, b: (a.view(np.uint32) >> 4).view(np.int32)),
    "shr_signed": (lambda a, b: a.with_signedness(True) >> 4, lambda a, b: a >> 4),
    "compare_select": (lambda a, b: (a < b).select(a, b), np.minimum),
    "unsigned_compare": (lambda a, b: (a.with_signedness(False) < b).select(1, 0),
                         lambda a, b: (a.view(np.uint32) < b.view(np.uint32)).astype(np.int32)),
    "neg_abs": (lambda a, b: -a + abs(b), lambda a, b: -a + np.abs(b)),
    "extui_trunci": (lambda a, b: (a.extui(fx.T.i64) + (1 << 32)).trunci(fx.T.i32),
                     lambda a, b: a),
    "extsi_shift": (lambda a, b: (a.extsi(fx.T.i64) >> 40).trunci(fx.T.i32),
                    lambda a, b: (a.astype(np.int64).view(np.uint64) >> 40).astype(np.int32)),
    "index_cast": (lambda a, b: index_cast(fx.T.i32, index_cast(fx.T.index, a) * 3),
                   lambda a, b: a * 3),
    "module_select": (lambda a, b: select(a > 0, a, constant(0)), lambda a, b: np.maximum(a, 0)),
    "with_numeric": (lambda a, b: a + fx.Int32(b), lambda a, b: a + b),
    # fx.arith's casts in FlyDSL's (type, value) order give raw values back
    "fx_arith_order": (lambda a, b: fx.arith.index_cast(fx.T.i32, fx.arith.index_cast(fx.T.index, a)
                                                        + 2),
                       lambda a, b: a + 2),
}

FLOAT_CASES = {
    "arith": (lambda a, b: a * b + 1.5 - a / 2.0, lambda a, b: a * b + np.float32(1.5) - a / 2),
    "maximumf": (lambda a, b: a.maximumf(b), np.maximum),
    "exp2": (lambda a, b: (a * 0.125).exp2(), lambda a, b: np.exp2(a * np.float32(0.125))),
    "bitcast": (lambda a, b: (a.bitcast(fx.T.i32) & 0x7FFFFFFF).bitcast(fx.T.f32), np.abs),
    "fx_arith_bitcast": (lambda a, b: fx.arith.bitcast(fx.T.f32, fx.arith.bitcast(fx.T.i32, a) ^ 0),
                         lambda a, b: a),
    "truncf_extf": (lambda a, b: a.truncf(fx.T.f16).extf(fx.T.f32),
                    lambda a, b: a.astype(np.float16).astype(np.float32)),
}


@pytest.mark.parametrize("case", sorted(INT_CASES))
def test_integer_operators_give_numpys_values(case):
    fn, ref = INT_CASES[case]
    a, b = _ints(1), _ints(2)
    c = np.zeros(N, np.int32)
    _run(a, b, c, fn)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(c, ref(a, b).astype(np.int32))


@pytest.mark.parametrize("case", sorted(FLOAT_CASES))
def test_float_operators_give_numpys_values(case):
    fn, ref = FLOAT_CASES[case]
    a, b = _floats(3), _floats(4)
    c = np.zeros(N, np.float32)
    _run(a, b, c, fn)
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-6)


def test_to_raw_gives_a_plain_value_and_numerics_wrap_arith_values():
    seen = {}

    def probe(a, b):
        raw = _to_raw(a)
        seen["raw"] = type(raw) is Value and raw.name == a.name
        seen["numeric"] = type(fx.Int32(a + 1)).__name__
        return a

    a = _ints(5)
    c = np.zeros(N, np.int32)
    _run(a, a, c, probe)
    assert seen == {"raw": True, "numeric": "Int32"}
    np.testing.assert_array_equal(c, a)


def test_a_dynamic_arith_value_is_no_python_bool():
    a = _ints(6)
    with pytest.raises(TraceError) as err:
        _run(a, a, a.copy(), lambda x, y: bool(x))
    assert "ArithValue used as a Python bool" in str(err.value)


def test_raw_builder_results_come_back_as_arith_values():
    """fx registers ArithValue as the value caster of integer, index, float
    and vector types, as FlyDSL does: a raw builder's result has operators."""
    from flydsl._mlir import ir
    from flydsl._mlir.dialects import arith as raw_arith

    seen = {}

    def probe(a, b):
        s = raw_arith.addi(_to_raw(a), _to_raw(b))
        seen["class"] = (type(s).__name__, isinstance(s, ir.Value), isinstance(s.owner, raw_arith.AddIOp))
        return s * 2 + 1

    a, b = _ints(7), _ints(8)
    c = np.zeros(N, np.int32)
    _run(a, b, c, probe)
    assert seen["class"] == ("ArithValue", True, True)
    np.testing.assert_array_equal(c, (a + b) * 2 + 1)
