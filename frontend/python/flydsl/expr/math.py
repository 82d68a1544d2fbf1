"""fx.math: elementwise math on scalar and Vector numerics (SPEC §7).

Every function takes numerics (scalars or Vectors; Python numbers combine
with them as in arithmetic) and returns a value of the operand's type. With
only Python numbers it is evaluated at trace time (Python's `math`).

Code objects are linked in process without the ROCm device libraries, so
nothing here may become an `__ocml_*` call (convert-gpu-to-rocdl turns
`math.exp2`, `math.log2`, `math.rsqrt`, `math.sin`, `math.cos`,
`math.tanh`, `math.erf`, `math.floor`, `math.ceil`, `math.powf`, and most
math ops on f16/f64, into ocml calls, which would not link). Each op is
emitted as one of:

  * a `math`/`arith` op that the pipeline lowers to an LLVM intrinsic;
  * `llvm.call_intrinsic` of a generic LLVM intrinsic (`llvm.exp2`, ...),
    which convert-gpu-to-rocdl leaves alone, so the AMDGPU backend expands
    it inline (its own accurate expansions, denormals included);
  * a formula of the above (tanh, erf, f32 rsqrt);
  * a TraceError where only the device library has an implementation.

Per op (f16 "promoted" = computed in f32 and rounded back; BFloat16 is
always computed in f32; Float8 types are rejected: convert first):

  op      emitted as                         f32 ISA (gfx942)      f16        f64
  exp     math.exp (-> llvm.exp)             v_exp_f32 + range red. promoted   error
  exp2    llvm.exp2                          v_exp_f32 (+denorm)   v_exp_f16  error
  log     math.log (-> llvm.log)             v_log_f32 + ext. prec promoted   error
  log2    llvm.log2                          v_log_f32 (+denorm)   v_log_f16  error
  sqrt    math.sqrt (-> llvm.sqrt)           v_sqrt_f32 + correct. v_sqrt_f16 v_rsq_f64+NR
  rsqrt   llvm.amdgcn.rsq, inputs < 2^-126   v_rsq_f32             v_rsq_f16  1/sqrt(x)
          scaled by 2^24 (f32)                                                (divf, sqrt)
  sin,cos llvm.sin / llvm.cos                v_mul(1/2pi) v_sin    v_sin_f16  error
  tanh    formula (below)                    v_exp_f32, v_fma...   promoted   error
  erf     formula (below)                    v_exp_f32, v_fma...   promoted   error
  abs     math.absf / math.absi              v_and (sign bit)      same       same
  floor   llvm.floor                         v_floor_f32           v_floor_f16 v_floor_f64
  ceil    llvm.ceil                          v_ceil_f32            v_ceil_f16 v_ceil_f64
  fma     math.fma (-> llvm.fma)             v_fma_f32/v_fmac_f32  v_fma_f16  v_fma_f64
  pow     llvm.pow                           v_log, v_mul_legacy,  promoted   error
                                             v_exp
  min/max arith.minnumf/maxnumf (floats; propagate_nan=True: minimumf/maximumf),
          arith.minsi/maxsi/minui/maxui (integers by signedness)

Accuracy (f32; the intrinsic expansions are LLVM's):
  * exp, exp2, log, log2, sqrt: LLVM's full-range expansions, <= 1 ulp
    class (sqrt correctly rounded), denormal inputs and results handled.
  * rsqrt: the hardware reciprocal square root (about 1 ulp); inputs below
    2^-126 are scaled by 2^24 first (and the result by 2^12), so denormal
    inputs do not turn into +inf. f64: 1/sqrt(x), two correctly rounded ops.
  * sin, cos: the hardware v_sin/v_cos of x/(2*pi) (LLVM's lowering), no
    argument reduction in the ocml sense: absolute error ~1e-6 near zero and
    growing with |x| as x/(2*pi) is rounded (use for |x| up to a few hundred).
  * tanh: |x| < 0.625: x + x^3 P(x^2), P a degree-4 least-squares fit; else
    copysign(1 - 2/(exp(2|x|) + 1), x). About 2 ulp (estimated in float32
    emulation against a double reference on [-6, 6] and 1e-8..10).
  * erf: |x| < 1: x Q(x^2), Q a degree-6 least-squares fit; else
    Abramowitz-Stegun 7.1.26 (1 - t(a1 + ... a5 t^4) exp(-x^2),
    t = 1/(1 + p|x|)) with the sign of x. About 3 ulp, abs error < 2e-7.
  * pow: exp2(y * log2(x)) without denormal handling; x < 0 gives NaN (also
    for integer y), relative error grows with |y * log2(x)|.
  * min/max: minnumf/maxnumf return the other operand when one is NaN (one
    v_min/v_max); minimumf/maximumf propagate NaN and order -0 < +0 (a few
    more instructions where the chip has no IEEE-2019 min/max).
"""

from __future__ import annotations

import builtins
import math as _pymath

from . import numeric as nm
from ._elementwise import (compare, convert, element, emit, fail, intrinsic, is_static,
                           select, unify)

__all__ = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "abs",
           "floor", "ceil", "fma", "pow", "min", "max"]

_FLOAT8 = ("f8E4M3FN", "f8E5M2")


def _float_operand(fname, x, *, f16_native: bool, f64: bool):
    """(x in the class it is computed in, x's class) for a float op."""
    if not isinstance(x, nm.Numeric):
        fail(f"fx.math.{fname}: expected a numeric, got {type(x).__name__}")
    cls = element(x)
    if not cls.is_float:
        fail(f"fx.math.{fname} takes a float, not {cls.__name__} (convert it first, "
             "e.g. x.to(fx.Float32))")
    if cls.mlir_type in _FLOAT8:
        fail(f"fx.math.{fname}: {cls.__name__} is a storage type; convert it to "
             "Float16/Float32 first")
    if cls is nm.Float64 and not f64:
        fail(f"fx.math.{fname} on Float64 needs the ROCm device library "
             f"(__ocml_{fname}_f64), which is not available: code objects are linked "
             "without it. Compute in Float32 (x.to(fx.Float32)) if that is precise enough")
    compute = cls
    if cls is nm.BFloat16 or (cls is nm.Float16 and not f16_native):
        compute = nm.Float32
    return convert(x, compute), cls


def _unary(fname, x, py, body, *, f16_native=True, f64=False):
    if is_static(x):
        return py(x)
    xc, cls = _float_operand(fname, x, f16_native=f16_native, f64=f64)
    return convert(body(xc, element(xc)), cls)


def exp(x):
    """e**x."""
    return _unary("exp", x, _pymath.exp, lambda v, c: emit("math.exp", [v], v, c),
                  f16_native=False)


def exp2(x):
    """2**x."""
    return _unary("exp2", x, lambda v: 2.0 ** v,
                  lambda v, c: intrinsic("llvm.exp2", [v], v, c))


def log(x):
    """The natural logarithm."""
    return _unary("log", x, _pymath.log, lambda v, c: emit("math.log", [v], v, c),
                  f16_native=False)


def log2(x):
    """The base-2 logarithm."""
    return _unary("log2", x, _pymath.log2, lambda v, c: intrinsic("llvm.log2", [v], v, c))


def sqrt(x):
    """The square root (correctly rounded)."""
    return _unary("sqrt", x, _pymath.sqrt, lambda v, c: emit("math.sqrt", [v], v, c), f64=True)


def _rsqrt(v, c):
    if c is nm.Float64:
        return 1.0 / emit("math.sqrt", [v], v, c)
    if c is nm.Float16:
        return intrinsic("llvm.amdgcn.rsq", [v], v, c)
    tiny = compare(v, 2.0 ** -126, "lt")
    scaled = select(tiny, v * 2.0 ** 24, v)
    r = intrinsic("llvm.amdgcn.rsq", [scaled], v, c)
    return select(tiny, r * 2.0 ** 12, r)


def rsqrt(x):
    """1 / sqrt(x)."""
    return _unary("rsqrt", x, lambda v: 1.0 / _pymath.sqrt(v), _rsqrt, f64=True)


def sin(x):
    """The sine (hardware accuracy, see the module notes)."""
    return _unary("sin", x, _pymath.sin, lambda v, c: intrinsic("llvm.sin", [v], v, c))


def cos(x):
    """The cosine (hardware accuracy, see the module notes)."""
    return _unary("cos", x, _pymath.cos, lambda v, c: intrinsic("llvm.cos", [v], v, c))


def _horner(x2, coefficients):
    acc = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        acc = acc * x2 + c
    return acc


def _copysign(mag, sign):
    return emit("math.copysign", [mag, sign], mag, element(mag))


# tanh(x) = x + x^3 * P(x^2) on |x| < 0.625 (least-squares fit, relative weight).
_TANH_CUT = 0.625
_TANH_P = (-0.3333329151135638, 0.13331718583139301, -0.05376380071748734,
           0.020720281118522862, -0.00579809980214553)


def _tanh(v, c):
    a = abs(v)
    x2 = v * v
    small = v + v * x2 * _horner(x2, _TANH_P)
    e = exp(a * 2.0)
    large = _copysign(1.0 - 2.0 / (e + 1.0), v)
    return select(compare(a, _TANH_CUT, "lt"), small, large)


def tanh(x):
    """The hyperbolic tangent (a formula, see the module notes)."""
    return _unary("tanh", x, _pymath.tanh, _tanh, f16_native=False)


# erf(x) = x * Q(x^2) on |x| < 1 (least-squares fit); beyond, Abramowitz and
# Stegun 7.1.26.
_ERF_CUT = 1.0
_ERF_Q = (1.1283791662319136, -0.3761262976488903, 0.11283634615577351,
          -0.02685606888960014, 0.0051929566785674786, -0.0008053741173954104,
          8.006842259418445e-05)
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(v, c):
    a = abs(v)
    small = v * _horner(v * v, _ERF_Q)
    t = 1.0 / (a * _AS_P + 1.0)
    poly = _horner(t, _AS_A) * t
    large = _copysign(1.0 - poly * exp(0.0 - a * a), v)  # (unary minus fails on Vectors)
    return select(compare(a, _ERF_CUT, "lt"), small, large)


def erf(x):
    """The error function (a formula, see the module notes)."""
    return _unary("erf", x, _pymath.erf, _erf, f16_native=False)


def abs(x):  # noqa: A001 - the fx.math name
    """|x| for floats and integers (an unsigned value is returned as is)."""
    if is_static(x):
        return builtins.abs(x)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.math.abs: expected a numeric, got {type(x).__name__}")
    cls = element(x)
    if cls.is_float:
        return emit("math.absf", [x], x, cls)
    if not cls.signed:
        return x
    return emit("math.absi", [x], x, cls)


def floor(x):
    """The largest integral value <= x (a float of x's type)."""
    return _unary("floor", x, lambda v: float(_pymath.floor(v)),
                  lambda v, c: intrinsic("llvm.floor", [v], v, c), f64=True)


def ceil(x):
    """The smallest integral value >= x (a float of x's type)."""
    return _unary("ceil", x, lambda v: float(_pymath.ceil(v)),
                  lambda v, c: intrinsic("llvm.ceil", [v], v, c), f64=True)


def _float_operands(fname, xs, *, f16_native, f64):
    xs = unify(f"fx.math.{fname}", *xs)
    computed = [_float_operand(fname, x, f16_native=f16_native, f64=f64) for x in xs]
    return [v for v, _ in computed], computed[0][1]


def fma(a, b, c):
    """a * b + c with one rounding."""
    if all(is_static(v) for v in (a, b, c)):
        return a * b + c
    (a, b, c), cls = _float_operands("fma", (a, b, c), f16_native=True, f64=True)
    return convert(emit("math.fma", [a, b, c], a, element(a)), cls)


def pow(x, y):  # noqa: A001 - the fx.math name
    """x ** y for floats (see the module notes for accuracy and x < 0)."""
    if is_static(x) and is_static(y):
        return _pymath.pow(x, y)
    (x, y), cls = _float_operands("pow", (x, y), f16_native=False, f64=False)
    return convert(intrinsic("llvm.pow", [x, y], x, element(x)), cls)


def _minmax(fname, a, b, propagate_nan):
    if is_static(a) and is_static(b):
        return (builtins.min if fname == "min" else builtins.max)(a, b)
    a, b = unify(f"fx.math.{fname}", a, b)
    cls = element(a)
    if cls.is_float:
        if cls.mlir_type in _FLOAT8:
            fail(f"fx.math.{fname}: {cls.__name__} is a storage type; convert it first")
        op = {("min", False): "arith.minnumf", ("max", False): "arith.maxnumf",
              ("min", True): "arith.minimumf", ("max", True): "arith.maximumf"}[
                  fname, bool(propagate_nan)]
    else:
        op = f"arith.{fname}{'si' if cls.signed else 'ui'}"
    return emit(op, [a, b], a, cls)


def min(a, b, *, propagate_nan: bool = False):  # noqa: A001 - the fx.math name
    """The smaller of a and b. Floats: arith.minnumf (a NaN operand yields the
    other one), or arith.minimumf with propagate_nan=True; integers by
    signedness (minsi/minui)."""
    return _minmax("min", a, b, propagate_nan)


def max(a, b, *, propagate_nan: bool = False):  # noqa: A001 - the fx.math name
    """The larger of a and b (see `min`)."""
    return _minmax("max", a, b, propagate_nan)
