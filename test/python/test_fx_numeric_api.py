"""FlyDSL's numeric API (flydsl.expr.numeric, arith, math and the numeric
part of typing), checked for its shape against FlyDSL's catalog and for its
values on the emulator (gfx942, wave64, and gfx1100, wave32) against numpy
and Python references computed here.

FlyDSL's semantics checked (expr/numeric.py documents them): integer `//`
floors (floordivsi), `%` is remsi, integer `/` is a Float32 (Float64 past
32 bits) division; a Python int is an Int32 and a Python float a Float32
in promotion (so Int8 + 1 is an Int32 and Float16 * 2.0 a Float32);
fx.arith.max/min of floats propagate NaN; fastmath flags reach the ops.
"""

from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError
from flydsl.expr import arith as fx_arith
from flydsl.expr import math as fx_math
from flydsl.expr import numeric as fx_numeric
from flydsl.expr import typing as fx_typing

DATA = Path(__file__).parent / "data" / "flydsl_api"
CATALOG = json.loads((DATA / "stable-apis.json").read_text())
SIGNATURES = json.loads((DATA / "signatures-0.4.2.json").read_text())
MODULES = {"flydsl.expr.numeric": fx_numeric, "flydsl.expr.arith": fx_arith,
           "flydsl.expr.math": fx_math}
THIS_FILE = str(Path(__file__).resolve())

N = 256
BLOCK = 64
ARCHES = ["gfx942", "gfx1100"]


@pytest.fixture(params=ARCHES)
def arch(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return request.param


@pytest.fixture
def gfx942(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


# -- the API's shape ----------------------------------------------------------------

def _catalog_names(module):
    prefix = module + "."
    return sorted(p[len(prefix):] for p in CATALOG if p.startswith(prefix) and "." not in p[len(prefix):])


@pytest.mark.parametrize("module", list(MODULES))
def test_all_is_the_catalog(module):
    assert sorted(MODULES[module].__all__) == _catalog_names(module)


def _typing_names():
    ours = set(fx_typing.__all__)
    numeric_part = [n for n in _catalog_names("flydsl.expr.typing")
                    if n in ("T", "Types", "VectorAlias", "Vector", "full", "full_like",
                             "zeros_like", "ones_like", "empty_like", "as_ir_value",
                             "as_dsl_value") or "x" in n and n.split("x")[0] in fx_numeric.__all__]
    return ours, numeric_part


def test_typing_has_the_numeric_names():
    ours, numeric_part = _typing_names()
    assert set(numeric_part) <= ours
    for name in numeric_part:
        assert getattr(fx, name) is getattr(fx_typing, name)


def _signature_paths():
    _, typing_names = _typing_names()
    paths = [p for p in SIGNATURES if p.rsplit(".", 1)[0] in MODULES]
    return paths + [f"flydsl.expr.typing.{n}" for n in typing_names
                    if f"flydsl.expr.typing.{n}" in SIGNATURES]


def _resolve(path):
    module, name = path.rsplit(".", 1)
    return getattr(MODULES.get(module, fx_typing), name)


@pytest.mark.parametrize("path", _signature_paths())
def test_signature_matches_flydsl(path):
    """FlyDSL's parameters in the same positions and kinds; ours may add
    only parameters with defaults (or **kwargs)."""
    want = [tuple(p) for p in SIGNATURES[path]]
    params = list(inspect.signature(_resolve(path)).parameters.values())
    got = [(p.name, p.kind.name) for p in params]
    assert got[:len(want)] == want, f"{path}: {got} != {want}"
    for p in params[len(want):]:
        assert p.default is not inspect.Parameter.empty or p.kind.name.startswith("VAR"), p


def test_class_members():
    assert (fx.Int32.width, fx.Int32.signed, fx.Int32.numpy_dtype) == (32, True, np.int32)
    assert (fx.Uint8.width, fx.Uint8.signed, fx.Uint8.numpy_dtype) == (8, False, np.uint8)
    assert fx.Float16.signed is None and fx.Float16.numpy_dtype is np.float16
    assert fx.Float32.is_float and not fx.Float32.is_integer and fx.Int64.is_integer
    assert fx.Boolean.width == 1 and fx.Boolean.numpy_dtype is np.bool_
    assert fx.Float32.zero == 0.0 and fx.Int32.zero == 0 and isinstance(fx.Int32.zero, int)
    assert str(fx.Int32.ir_type) == "i32" and str(fx.BFloat16.ir_type) == "bf16"
    assert str(fx.Index.ir_type) == "index" and fx.arith.Index is fx.Index
    for cls, text in [(fx.Float8E4M3FNUZ, "f8E4M3FNUZ"), (fx.Float8E8M0FNU, "f8E8M0FNU"),
                      (fx.Float6E2M3FN, "f6E2M3FN"), (fx.Float4E2M1FN, "f4E2M1FN"),
                      (fx.Int4, "i4"), (fx.Uint128, "i128")]:
        assert str(cls.ir_type) == text
    assert isinstance(fx.Int32, fx.NumericMeta) and issubclass(fx.Uint16, fx.Integer)
    assert fx.Numeric.from_ir_type(fx.Float16.ir_type) is fx.Float16
    T = fx_typing.T
    assert [str(t) for t in (T.i32, T.f16x4, T.bf16x8, T.index, T.i8x16, T.vec(8, T.f16))] == [
        "i32", "vector<4xf16>", "vector<8xbf16>", "index", "vector<16xi8>", "vector<8xf16>"]
    assert str(fx.Float32x4.ir_type) == "vector<4xf32>" and issubclass(fx.Int8x4, fx.Vector)
    assert str(fx.Float4E2M1FNx32.ir_type) == "vector<32xf4E2M1FN>"
    assert str(fx.arith.FastMathFlags.nnan | fx.arith.FastMathFlags.ninf) == "nnan,ninf"
    assert list(fx.arith.RoundingMode.__members__) == [
        "to_nearest_even", "downward", "upward", "toward_zero", "to_nearest_away"]


def test_importing_flydsl_does_not_import_numpy():
    # numpy is looked up on the first numpy_dtype read, not at import.
    script = ("import sys\n"
              "import flydsl.compiler, flydsl.expr as fx\n"
              "print('numpy' in sys.modules)\n"
              "print(fx.Int16.numpy_dtype.__name__, fx.BFloat16.numpy_dtype, 'numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "int16 None True"]
    custom = fx.NumericMeta("Custom16", (fx.Integer,), {}, width=16, signed=True,
                            np_dtype=np.uint16, ir_type="i16")
    assert custom.numpy_dtype is np.uint16


def test_host_values():
    """Outside a trace a numeric is a host value: static, with its number."""
    x = fx.Int32(7)
    assert x.is_static() and x.value == 7 and x.to(int) == 7 and x.dtype is fx.Int32
    assert fx.Int8(300).value == 44 and fx.Uint8(-1).value == 255  # wraps, as a C cast
    assert type(fx.as_numeric(3)) is fx.Int32 and type(fx.as_numeric(2**40)) is fx.Int64
    assert type(fx.as_numeric(1.5)) is fx.Float32 and type(fx.as_numeric(True)) is fx.Boolean


# -- kernels ----------------------------------------------------------------------------

@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def binary_kernel(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr,
                  ta: fx.Constexpr, tb: fx.Constexpr, tout: fx.Constexpr):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    r = fn(A[i].to(ta), B[i].to(tb))
    Out[i] = r.to(tout)


@flyc.jit
def run_binary(A, B, Out, fn: fx.Constexpr, ta: fx.Constexpr, tb: fx.Constexpr,
               tout: fx.Constexpr):
    binary_kernel(A, B, Out, fn, ta, tb, tout).launch(grid=(A.shape[0] // BLOCK, 1, 1),
                                                      block=(BLOCK, 1, 1))


def binary(fn, a, b, ta, tb, tout, out_dtype):
    out = np.zeros(len(a), out_dtype)
    run_binary(a, b, out, fn, ta, tb, tout)
    return out


def traced_ir(fn, a, b, ta, tb, tout, out_dtype):
    return flyc.compile(run_binary, a, b, np.zeros(len(a), out_dtype), fn, ta, tb,
                        tout).module_text


rng = np.random.default_rng(11)
INT_A = np.concatenate([[-7, 7, -7, 7, -2**31, 2**31 - 1, 0, -1],
                        rng.integers(-1000, 1000, N - 8)]).astype(np.int32)
INT_B = np.concatenate([[2, 2, -2, -2, 3, -5, 9, 4],
                        rng.integers(1, 50, N - 8) * rng.choice([-1, 1], N - 8)]).astype(np.int32)


def result_type(store):
    """fn, plus a check (at trace time) of the type of fn's result."""
    def check(fn, cls):
        def wrapped(a, b):
            r = fn(a, b)
            assert type(r) is cls, f"{type(r).__name__} is not {cls.__name__}"
            store.append(type(r))
            return r
        return wrapped
    return check


def test_integer_division_semantics(arch):
    """// floors, % takes the dividend's sign, / is a float division."""
    floor = binary(lambda a, b: a // b, INT_A, INT_B, fx.Int32, fx.Int32, fx.Int32, np.int32)
    assert (floor == INT_A // INT_B).all()  # Python's floor division
    assert list(floor[:4]) == [-4, 3, 3, -4]
    rem = binary(lambda a, b: a % b, INT_A, INT_B, fx.Int32, fx.Int32, fx.Int32, np.int32)
    assert (rem == np.fmod(INT_A, INT_B)).all()  # C's remainder (arith.remsi)
    assert list(rem[:4]) == [-1, 1, -1, 1]
    seen = []
    check = result_type(seen)
    quot = binary(check(lambda a, b: a / b, fx.Float32), INT_A, INT_B, fx.Int32, fx.Int32,
                  fx.Float32, np.float32)
    assert (quot == (INT_A.astype(np.float32) / INT_B.astype(np.float32))).all()
    q64 = binary(check(lambda a, b: a / b, fx.Float64), INT_A, INT_B, fx.Int64, fx.Int64,
                 fx.Float64, np.float64)
    assert (q64 == INT_A.astype(np.float64) / INT_B).all()
    uq = binary(lambda a, b: a // b, INT_A, INT_B, fx.Uint32, fx.Uint32, fx.Uint32, np.uint32)
    assert (uq == INT_A.view(np.uint32) // INT_B.view(np.uint32)).all()


def test_float_floordiv_and_python_operands(arch):
    a = rng.uniform(-10, 10, N).astype(np.float32)
    b = np.where(np.abs(c := rng.uniform(-3, 3, N).astype(np.float32)) < 0.1, 1.0, c).astype(np.float32)
    out = binary(lambda x, y: x // y, a, b, fx.Float32, fx.Float32, fx.Float32, np.float32)
    assert (out == np.floor(a / b)).all()
    out = binary(lambda x, y: 7 // y, a, INT_B, fx.Float32, fx.Int32, fx.Int32, np.int32)
    assert (out == 7 // INT_B).all()


PROMOTIONS = [  # (ta, tb, fx function, result class, reference on small non-negative ints)
    (fx.Int8, fx.Int8, lambda a, b: a + 1, fx.Int32, lambda a, b: a + 1),
    (fx.Float16, fx.Float16, lambda a, b: a * 2.0, fx.Float32, lambda a, b: a * 2),
    (fx.Uint32, fx.Int32, lambda a, b: a + b, fx.Uint32, lambda a, b: a + b),
    (fx.Int32, fx.Uint16, lambda a, b: a + b, fx.Int32, lambda a, b: a + b),
    (fx.Int64, fx.Uint32, lambda a, b: a - b, fx.Int64, lambda a, b: a - b),
    (fx.Float16, fx.BFloat16, lambda a, b: a + b, fx.Float32, lambda a, b: a + b),
    (fx.Float16, fx.Int32, lambda a, b: a + b, fx.Float32, lambda a, b: a + b),
    (fx.BFloat16, fx.Int8, lambda a, b: a + b, fx.BFloat16, lambda a, b: a + b),
    (fx.Float32, fx.Int64, lambda a, b: a + b, fx.Float64, lambda a, b: a + b),
    (fx.Boolean, fx.Boolean, lambda a, b: a + b, fx.Int32, lambda a, b: (a != 0).astype(int) + (b != 0)),
    (fx.Boolean, fx.Boolean, lambda a, b: a & b, fx.Boolean, lambda a, b: (a != 0) & (b != 0)),
    (fx.Int8, fx.Int8, lambda a, b: a << 1, fx.Int32, lambda a, b: a * 2),
    (fx.Int32, fx.Int32, lambda a, b: a + 2**40, fx.Int64, lambda a, b: a + 2**40),
    (fx.Index, fx.Int32, lambda a, b: a + b, fx.Index, lambda a, b: a + b),
]


@pytest.mark.parametrize("ta,tb,fn,cls,ref", PROMOTIONS,
                         ids=[f"{p[0].__name__}-{p[1].__name__}-{i}"
                              for i, p in enumerate(PROMOTIONS)])
def test_promotion(gfx942, ta, tb, fn, cls, ref):
    a = (np.arange(N) % 7).astype(np.float32)
    b = (np.arange(N) % 5 + 1).astype(np.float32)
    seen = []
    out = binary(result_type(seen)(fn, cls), a, b, ta, tb, fx.Float64, np.float64)
    assert seen == [cls]
    want = ref(a.astype(np.int64), b.astype(np.int64))
    assert (out == np.asarray(want, np.float64)).all()


def test_rounding_mode_and_select(arch):
    a = rng.uniform(-4, 4, N).astype(np.float32)
    b = rng.uniform(-4, 4, N).astype(np.float32)
    out = binary(lambda x, y: (x > y).select(x, 1.5), a, b, fx.Float32, fx.Float32,
                 fx.Float32, np.float32)
    assert (out == np.where(a > b, a, np.float32(1.5))).all()
    out = binary(lambda x, y: x.to(fx.Float16, rounding_mode=fx.arith.RoundingMode.to_nearest_even),
                 a, b, fx.Float32, fx.Float32, fx.Float32, np.float32)
    assert (out == a.astype(np.float16).astype(np.float32)).all()


# -- fx.arith -------------------------------------------------------------------------

CMPI = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
        "sgt": np.greater, "sge": np.greater_equal}
CMPI_U = {"ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal}


@pytest.mark.parametrize("pred", list(CMPI) + list(CMPI_U))
def test_cmpi(arch, pred):
    a = np.concatenate([INT_A[:128], INT_B[:128]])
    b = np.concatenate([INT_B[:128], INT_B[:128]])
    form = {"eq": fx.arith.CmpIPredicate.eq, "slt": "slt", "ult": 6}.get(pred, pred)
    out = binary(lambda x, y: fx.arith.cmpi(form, x, y), a, b, fx.Int32, fx.Int32, fx.Int32,
                 np.int32)
    if pred in CMPI:
        want = CMPI[pred](a, b)
    else:
        want = CMPI_U[pred](a.view(np.uint32), b.view(np.uint32))
    assert (out == want.astype(np.int32)).all()


def _cmpf_ref(pred, a, b):
    unordered = np.isnan(a) | np.isnan(b)
    base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b,
            "ne": (a < b) | (a > b)}
    if pred == "false":
        return np.zeros_like(unordered)
    if pred == "true":
        return np.ones_like(unordered)
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    kind = pred[1:]
    return (base[kind] & ~unordered) if pred[0] == "o" else (base[kind] | unordered)


CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true"]
FLOAT_A = np.concatenate([[np.nan, 1.0, np.nan, -0.0, np.inf], rng.integers(-3, 3, N - 5)]).astype(np.float32)
FLOAT_B = np.concatenate([[1.0, np.nan, np.nan, 0.0, np.inf], rng.integers(-3, 3, N - 5)]).astype(np.float32)


@pytest.mark.parametrize("pred", CMPF)
def test_cmpf(arch, pred):
    form = fx.arith.CmpFPredicate.OLT if pred == "olt" else pred
    out = binary(lambda x, y: fx.arith.cmpf(form, x, y), FLOAT_A, FLOAT_B, fx.Float32,
                 fx.Float32, fx.Int32, np.int32)
    assert (out == _cmpf_ref(pred, FLOAT_A, FLOAT_B).astype(np.int32)).all()


def test_ceildiv_shrui_max_min(arch):
    out = binary(lambda a, b: fx.arith.ceildiv(a, b), INT_A, INT_B, fx.Int32, fx.Int32,
                 fx.Int32, np.int32)
    assert (out == -(-INT_A.astype(np.int64) // INT_B)).all()
    assert list(out[:4]) == [-3, 4, 4, -3]
    out = binary(lambda a, b: fx.arith.ceildiv(a, b), INT_A, INT_B, fx.Uint32, fx.Uint32,
                 fx.Uint32, np.uint32)
    ua, ub = INT_A.view(np.uint32).astype(np.uint64), INT_B.view(np.uint32).astype(np.uint64)
    assert (out == (ua + ub - 1) // ub).all()
    amount = (np.abs(INT_B) % 32).astype(np.int32)
    seen = []
    out = binary(result_type(seen)(lambda a, b: fx.arith.shrui(a, b), fx.Int32), INT_A, amount,
                 fx.Int32, fx.Int32, fx.Int32, np.int32)
    assert (out.view(np.uint32) == INT_A.view(np.uint32) >> amount.view(np.uint32)).all()
    out = binary(lambda a, b: a.shrui(3), INT_A, amount, fx.Int32, fx.Int32, fx.Int32, np.int32)
    assert (out.view(np.uint32) == INT_A.view(np.uint32) >> 3).all()
    out = binary(lambda a, b: fx.arith.max(a, b, 0.5), FLOAT_A, FLOAT_B, fx.Float32, fx.Float32,
                 fx.Float32, np.float32)
    assert np.array_equal(out, np.maximum(np.maximum(FLOAT_A, FLOAT_B), 0.5), equal_nan=True)
    out = binary(lambda a, b: fx.arith.maxnumf(a, b), FLOAT_A, FLOAT_B, fx.Float32, fx.Float32,
                 fx.Float32, np.float32)
    assert np.array_equal(out[:3], [1.0, 1.0, np.nan], equal_nan=True)
    out = binary(lambda a, b: fx.arith.min([a, b]), INT_A, INT_B, fx.Int32, fx.Int32, fx.Int32,
                 np.int32)
    assert (out == np.minimum(INT_A, INT_B)).all()
    assert fx.arith.ceildiv(-7, 2).value == -3 and fx.arith.ceildiv(7, -2).value == -3


def test_fastmath_reaches_the_ops(gfx942):
    F = fx.arith.FastMathFlags

    def body(a, b):
        with fx.arith.fastmath(F.fast):
            s = a + b * 2.0
            e = fx.math.exp(s) + fx.math.erf(a)
        t = fx.math.exp2(a, fastmath=F.nnan | F.ninf)
        return s + e + t + fx.arith.maximumf(a, b, fastmath="nsz")

    text = traced_ir(body, FLOAT_A, FLOAT_B, fx.Float32, fx.Float32, fx.Float32, np.float32)
    assert '"arith.addf"' in text and "fastmath = #arith.fastmath<fast>" in text
    assert '"math.exp"' in text and "fastmathFlags = #llvm.fastmath<nnan,ninf>" in text
    assert "fastmath = #arith.fastmath<nsz>" in text
    assert text.count("fastmath<fast>") >= 8  # erf's formula too
    last = [line for line in text.splitlines() if '"arith.addf"' in line][-1]
    assert "fastmath" not in last  # outside the block, no flags


# -- fx.math ------------------------------------------------------------------------

def _inputs(lo, hi, extra=()):
    x = np.concatenate([np.asarray(extra, np.float64), rng.uniform(lo, hi, N - len(extra))])
    return x.astype(np.float32)


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


HALVES = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0, -0.0]
# name -> (fx function of (x, fastmath), numpy reference in float64, input, rtol, atol)
UNARY = {
    "absf": (fx.math.absf, np.abs, _inputs(-9, 9), 0, 0),
    "ceil": (fx.math.ceil, np.ceil, _inputs(-9, 9, HALVES), 0, 0),
    "floor": (fx.math.floor, np.floor, _inputs(-9, 9, HALVES), 0, 0),
    "trunc": (fx.math.trunc, np.trunc, _inputs(-9, 9, HALVES), 0, 0),
    "round": (fx.math.round, _round_half_away, _inputs(-9, 9, HALVES), 0, 0),
    "roundeven": (fx.math.roundeven, np.round, _inputs(-9, 9, HALVES), 0, 0),
    "exp": (fx.math.exp, np.exp, _inputs(-10, 10), 3e-7, 0),
    "exp2": (fx.math.exp2, np.exp2, _inputs(-20, 20), 3e-7, 0),
    "expm1": (fx.math.expm1, np.expm1, _inputs(-5, 5, [1e-6, -1e-7, 1e-30, 0.0]), 4e-7, 0),
    "log": (fx.math.log, np.log, _inputs(1e-3, 1e3), 3e-7, 1e-7),
    "log2": (fx.math.log2, np.log2, _inputs(1e-3, 1e3), 3e-7, 1e-7),
    "log10": (fx.math.log10, np.log10, _inputs(1e-3, 1e3), 4e-7, 1e-7),
    "log1p": (fx.math.log1p, np.log1p, _inputs(-0.9, 100, [1e-6, -1e-7, 1e-30, 0.0]), 4e-7, 0),
    "sqrt": (fx.math.sqrt, np.sqrt, _inputs(0, 1e4), 1.2e-7, 0),
    "rsqrt": (fx.math.rsqrt, lambda x: 1 / np.sqrt(x), _inputs(1e-3, 1e4, [1e-40]), 3e-7, 0),
    "cbrt": (fx.math.cbrt, np.cbrt, _inputs(-1e3, 1e3, [0.0, -8.0, 27.0]), 3e-7, 0),
    "sin": (fx.math.sin, np.sin, _inputs(-6, 6), 0, 2e-6),
    "cos": (fx.math.cos, np.cos, _inputs(-6, 6), 0, 2e-6),
    "tan": (fx.math.tan, np.tan, _inputs(-1.3, 1.3), 2e-6, 2e-6),
    "asin": (fx.math.asin, np.arcsin, _inputs(-1, 1, [1.0, -1.0, 0.5]), 4e-7, 1e-7),
    "acos": (fx.math.acos, np.arccos, _inputs(-1, 1, [1.0, -1.0, 0.5]), 4e-7, 1e-7),
    "atan": (fx.math.atan, np.arctan, _inputs(-50, 50, [0.0, 1.0, -2.5, 1e30]), 3e-7, 0),
    "sinh": (fx.math.sinh, np.sinh, _inputs(-8, 8, [1e-6, 0.0]), 5e-7, 0),
    "cosh": (fx.math.cosh, np.cosh, _inputs(-8, 8), 4e-7, 0),
    "tanh": (fx.math.tanh, np.tanh, _inputs(-6, 6), 4e-7, 1e-8),
    "asinh": (fx.math.asinh, np.arcsinh, _inputs(-100, 100, [1e-6, 1e30, -1e30]), 4e-7, 0),
    "acosh": (fx.math.acosh, np.arccosh, _inputs(1, 100, [1.0, 1.0001, 1e30]), 4e-7, 1e-7),
    "atanh": (fx.math.atanh, np.arctanh, _inputs(-0.99, 0.99, [1e-6, 0.0]), 5e-7, 0),
    "erf": (fx.math.erf, np.vectorize(math.erf), _inputs(-4, 4), 0, 2e-7),
    "erfc": (fx.math.erfc, np.vectorize(math.erfc), _inputs(-4, 9, [0.0, 5.0]), 6e-6, 0),
}


@pytest.mark.parametrize("fast", [False, True], ids=["exact", "fast"])
@pytest.mark.parametrize("name", list(UNARY))
def test_math_unary(arch, name, fast):
    fn, ref, x, rtol, atol = UNARY[name]
    flags = fx.arith.FastMathFlags.fast if fast else None
    out = binary(lambda a, b: fn(a, fastmath=flags), x, x, fx.Float32, fx.Float32, fx.Float32,
                 np.float32)
    want = ref(x.astype(np.float64))
    if fast:  # LLVM may reassociate and contract: within a tolerance
        rtol, atol = max(rtol, 2e-6) * 2, max(atol, 2e-6)
    np.testing.assert_allclose(out, want, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=f"fx.math.{name} fastmath={fast}")
    if fast:
        text = traced_ir(lambda a, b: fn(a, fastmath=flags), x, x, fx.Float32, fx.Float32,
                         fx.Float32, np.float32)
        assert "fastmath<fast>" in text


def test_math_binary_and_classification(arch):
    x = _inputs(-4, 4, [0.0, -0.0, 1.0, -1.0])
    y = _inputs(-4, 4, [0.0, 0.0, -0.0, 2.0])
    cases = {
        "atan2": (lambda a, b: fx.math.atan2(a, b), np.arctan2, 4e-7, 1e-7),
        "copysign": (lambda a, b: fx.math.copysign(a, b), np.copysign, 0, 0),
        "fma": (lambda a, b: fx.math.fma(a, b, a), lambda a, b: a * b + a, 1e-7, 1e-7),
        "clampf": (lambda a, b: fx.math.clampf(a, -1.0, 2.0), lambda a, b: np.clip(a, -1, 2),
                   0, 0),
        "powf": (lambda a, b: fx.math.powf(fx.math.absf(a), b),
                 lambda a, b: np.abs(a) ** b, 2e-6, 1e-30),
        "fpowi": (lambda a, b: fx.math.fpowi(a, fx.Int32(b)), lambda a, b: a ** np.trunc(b),
                  1e-6, 1e-30),
        "sincos": (lambda a, b: fx.math.sincos(a)[0] + fx.math.sincos(a)[1],
                   lambda a, b: np.sin(a) + np.cos(a), 0, 4e-6),
    }
    for name, (fn, ref, rtol, atol) in cases.items():
        out = binary(fn, x, y, fx.Float32, fx.Float32, fx.Float32, np.float32)
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64), y.astype(np.float64))
        np.testing.assert_allclose(out, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, 1e-40, 1.0, -3.0, 1e-38] * (N // 8),
                       np.float32)
    for name, ref in {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
                      "isnormal": lambda v: np.isfinite(v) & (np.abs(v) >= 2.0 ** -126)}.items():
        fn = getattr(fx.math, name)
        out = binary(lambda a, b, fn=fn: fn(a), special, special, fx.Float32, fx.Float32,
                     fx.Int32, np.int32)
        assert (out == ref(special).astype(np.int32)).all(), name


def test_math_integers(arch):
    a = np.concatenate([[0, 1, -1, 2**31 - 1, -2**31, 6], INT_A[6:]]).astype(np.int32)
    e = (np.abs(INT_B) % 9).astype(np.int32)
    e[:3] = [-1, -2, -3]
    bits = a.view(np.uint32)
    ref = {
        "absi": (lambda x, y: fx.math.absi(x), np.abs(a.astype(np.int64)).astype(np.int32)),
        "ctpop": (lambda x, y: fx.math.ctpop(x), np.array([bin(v).count("1") for v in bits])),
        "ctlz": (lambda x, y: fx.math.ctlz(x), np.array([32 - int(v).bit_length() for v in bits])),
        "cttz": (lambda x, y: fx.math.cttz(x),
                 np.array([32 if v == 0 else (int(v) & -int(v)).bit_length() - 1 for v in bits])),
        "ipowi": (lambda x, y: fx.math.ipowi(x, y),
                  np.array([_ipow(int(x), int(y)) for x, y in zip(a, e)])),
        "pow-operator": (lambda x, y: x ** y,
                         np.array([_ipow(int(x), int(y)) for x, y in zip(a, e)])),
    }
    for name, (fn, want) in ref.items():
        out = binary(fn, a, e, fx.Int32, fx.Int32, fx.Int32, np.int32)
        assert (out == np.asarray(want).astype(np.int64).astype(np.int32)).all(), name


def _ipow(x, n):
    if n < 0:
        return 1 if x == 1 else (-1 if n % 2 else 1) if x == -1 else 0
    r = pow(x, n, 2**32)
    return r - 2**32 if r >= 2**31 else r


def test_math_f16_bf16_and_errors(gfx942):
    x = _inputs(0.1, 3)
    for cls in (fx.Float16, fx.BFloat16):
        out = binary(lambda a, b: fx.math.log1p(a) + fx.math.atan(a), x, x, cls, cls,
                     fx.Float32, np.float32)
        np.testing.assert_allclose(out, np.log1p(x) + np.arctan(x), rtol=2e-2)
    with pytest.raises(TraceError, match="fx.math.exp on Float64 needs the ROCm device library"):
        binary(lambda a, b: fx.math.exp(a), x, x, fx.Float64, fx.Float64, fx.Float32, np.float32)
    with pytest.raises(TraceError, match="fx.math.sin takes a float, not Int32"):
        binary(lambda a, b: fx.math.sin(a), x, x, fx.Int32, fx.Int32, fx.Float32, np.float32)


# -- Vector -------------------------------------------------------------------------

@flyc.kernel(known_block_size=(BLOCK, 1, 1))
def vector_kernel(A: fx.Tensor, Out: fx.Tensor, fn: fx.Constexpr):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    Out[i] = fn(A[i]).to(fx.Float32)


@flyc.jit
def run_vector(A, Out, fn: fx.Constexpr):
    vector_kernel(A, Out, fn).launch(grid=(A.shape[0] // BLOCK, 1, 1), block=(BLOCK, 1, 1))


def vec(fn, a):
    out = np.zeros(len(a), np.float32)
    run_vector(a, out, fn)
    return out


def test_vector_members(arch):
    a = rng.uniform(-4, 4, N).astype(np.float32)
    R = fx_typing.ReductionOp

    def from_elements(x):
        v = fx.Vector.from_elements([x, x * 2.0, 3.0, x - 1.0])
        assert v.shape == (4,) and v.dtype is fx.Float32 and len(v) == 4
        return v.reduce(R.ADD) + v[1] * v[-1]

    out = vec(from_elements, a)
    np.testing.assert_allclose(out, (a + 2 * a + 3 + a - 1) + 2 * a * (a - 1), rtol=1e-6, atol=1e-5)

    def filled(x):
        v = fx.Vector.filled((2, 2), x, fx.Float32)
        w = fx.full_like(v, 2.0) * v + fx.ones_like(v)
        return w.reduce("max") + w.reduce(R.MUL, init_val=1.0) + fx.zeros_like(v)[(1, 1)]

    out = vec(filled, a)
    np.testing.assert_allclose(out, (2 * a + 1) + (2 * a + 1) ** 4, rtol=2e-6, atol=1e-5)

    def select_bitcast(x):
        v = fx.Float32x4([x, -x, x + 1.0, 0.5])
        picked = (v > 0.0).select(v, fx.typing.full(4, -9.0, fx.Float32))
        bits = picked.bitcast(fx.Int32)
        assert type(bits) is fx.Vector and bits.dtype is fx.Int32 and bits.shape == (4,)
        back = bits.bitcast(fx.Float32)
        return back.reduce(R.MIN) + fx.Int32x4(fx.Int32(x.to(fx.Int32))).reduce(R.ADD).to(fx.Float32)

    out = vec(select_bitcast, a)
    cand = np.stack([a, -a, a + 1, np.full_like(a, 0.5)])
    picked = np.where(cand > 0, cand, -9.0).min(axis=0)
    np.testing.assert_allclose(out, picked + 4 * np.trunc(a), rtol=1e-6, atol=1e-6)

    def promote(x):
        v = fx.Float16x4(x.to(fx.Float16))
        w = v * 2.0  # a Python float is a Float32: the vector becomes one
        assert w.dtype is fx.Float32
        return (w + fx.Int32(1)).reduce(R.ADD) + (v // 1.0).reduce(R.ADD)

    out = vec(promote, a)
    h = a.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(out, 4 * (2 * h + 1) + 4 * np.floor(h), rtol=2e-3, atol=2e-3)


# -- bad input ------------------------------------------------------------------------

def _fails_at_line(fn, message):
    with pytest.raises(TraceError, match=message) as e:
        binary(fn, FLOAT_A, FLOAT_B, fx.Float32, fx.Float32, fx.Float32, np.float32)
    assert e.value.filename == THIS_FILE, e.value


BAD = {
    "math-str": (lambda a, b: fx.math.exp("x"), "fx.math.exp: expected a numeric, got a str"),
    "math-kwarg": (lambda a, b: fx.math.sqrt(a, fast=True),
                   "unexpected keyword argument 'fast'"),
    "math-class": (lambda a, b: fx.math.tanh(fx.Float32), "expected a numeric, got the class"),
    "math-fastmath": (lambda a, b: fx.math.exp(a, fastmath="quick"), "unknown flag 'quick'"),
    "cmpi-pred": (lambda a, b: fx.arith.cmpi("lt", a.to(fx.Int32), b.to(fx.Int32)),
                  "fx.arith.cmpi: unknown predicate 'lt'"),
    "cmpi-float": (lambda a, b: fx.arith.cmpi("slt", a, b), "compares integers, not Float32"),
    "cmpf-int": (lambda a, b: fx.arith.cmpf("olt", a.to(fx.Int32), 1), "compares floats"),
    "max-empty": (lambda a, b: fx.arith.max(), "needs at least one operand"),
    "max-index": (lambda a, b: fx.arith.max(a.to(fx.Index), 1), "does not take Index"),
    "ceildiv-float": (lambda a, b: fx.arith.ceildiv(a, 2), "takes integers, not Float32"),
    "shrui-float": (lambda a, b: fx.arith.shrui(a, 1), "takes integers, not Float32"),
    "to-str": (lambda a, b: a.to("f16"), r"to\(\): the type must be a numeric class"),
    "vector-int": (lambda a, b: fx.Vector(3), "Vector\\(\\): the value must be an SSA value"),
    "filled-dtype": (lambda a, b: fx.Vector.filled(4, a, "f32").reduce("add"),
                     "dtype must be a numeric class"),
    "alias-length": (lambda a, b: fx.Float32x4([a, a]).reduce("add"), "2 elements given, 4"),
    "reduce-op": (lambda a, b: fx.Float32x4(a).reduce("avg"), "unknown operation 'avg'"),
    "float-and": (lambda a, b: a & b, "needs integer operands, not Float32"),
    "object-operand": (lambda a, b: a + object(), "not defined between a numeric and"),
    "bool-neg": (lambda a, b: -(a < b), "unary minus is not defined on Boolean"),
    "int-from-str": (lambda a, b: fx.Int32("3"), r"Int32\(\): cannot make a Int32 from a str"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_a_trace_error_at_the_users_line(gfx942, name):
    fn, message = BAD[name]
    _fails_at_line(fn, message)
