"""fx.math: FlyDSL's math API (the `math` dialect's functions, in
`__all__`, exported as fx.<name> too) on scalar and Vector numerics.

Every function takes numerics (scalars or Vectors; Python numbers combine
with them taking their type) and returns a value of the operand's type
(is* functions a Boolean, sincos a pair). `fastmath=` (a FastMathFlags,
combined with |, or a string such as "fast") sets the flags of the
emitted float ops; inside `fx.arith.fastmath(...)` the block's flags
apply. Extra keywords: `loc`/`ip` (FlyDSL's builder keywords) are accepted
and ignored. With only Python numbers a function is evaluated at trace time
(Python's `math`). Beyond FlyDSL's list: pow(x, y), min/max(a, b,
propagate_nan=False) and abs(x) as fx.math.<name>.

Code objects are linked without the ROCm device libraries, so nothing here
may become an `__ocml_*` call (convert-gpu-to-rocdl turns most math ops
into ocml calls, which would not link). Each function is emitted as one of

  * the math op itself where convert-gpu-to-rocdl lowers it to an LLVM
    intrinsic: absf, absi, trunc, round, roundeven, exp, log, sqrt,
    copysign, fma, isnan, isfinite, ctlz, cttz, ctpop;
  * `llvm.call_intrinsic` of a generic LLVM intrinsic, which the AMDGPU
    backend expands inline: ceil, floor, exp2, log2, sin, cos, powf
    (llvm.pow), rsqrt (llvm.amdgcn.rsq, inputs < 2^-126 scaled by 2^24);
  * a formula of the above, every op of it with the fastmath flags:
      tanh   |x| < 0.625: x + x^3 P(x^2) (least squares), else
             copysign(1 - 2/(exp(2|x|) + 1), x)                   ~2 ulp
      erf    |x| < 1: x Q(x^2), else Abramowitz-Stegun 7.1.26       ~3 ulp
      erfc   t exp(-x^2 + R(t)), t = 1/(1 + |x|/2) (the Chebyshev fit
             of Numerical Recipes' erfcc), 2 - erfc(-x) for x < 0;
             x^2 split exactly with an fma                 rel. ~2e-7
      expm1  u = exp(x): x if u == 1, else (u - 1) x / log(u) (Kahan)
      log1p  u = 1 + x: x if u == 1, else log(u) x / (u - 1) (Kahan)
      log10  log2(x) log10(2)
      cbrt   sign(x) exp2(log2|x| / 3) and one Newton step
      tan    sin(x) / cos(x)                       (sin/cos's accuracy)
      atan   Cephes' reduction to |x| <= tan(pi/8) and its polynomial
      atan2  atan(|y|/|x|) moved to the quadrant (x < 0: pi - a), with
             y's sign; both zero: 0 or pi by x's sign
      asin   |x| <= 0.5: Cephes' polynomial, else pi/2 - 2 asin(sqrt((1-|x|)/2))
      acos   from asin: pi/2 - asin(x) (|x| <= 0.5), 2 asin(sqrt((1-x)/2)),
             pi - 2 asin(sqrt((1+x)/2))
      sinh   (e + e/(e + 1)) / 2, e = expm1(|x|), with x's sign
      cosh   (u + 1/u) / 2, u = exp(|x|)
      asinh  log1p(a + a^2/(1 + sqrt(1 + a^2))), a = |x| (log(a) + ln 2
             above 2^28), with x's sign
      acosh  log1p(t + sqrt(2t + t^2)), t = x - 1 (log(x) + ln 2 above 2^28)
      atanh  log1p(2a / (1 - a)) / 2, a = |x|, with x's sign
      isinf  |x| == inf;  isnormal  2^-emin <= |x| < inf
      fpowi  binary powering over the exponent's bits (1/x^-n for n < 0)
      ipowi  the same in integers (n < 0: 1 for 1, +-1 for -1, else 0)
      sincos (sin(x), cos(x))
      clampf minnumf(maxnumf(x, lo), hi)
  * a TraceError where only the device library has an implementation.

Types: Float32 natively; Float16 natively for abs, ceil, floor, trunc,
round, roundeven, sqrt, rsqrt, exp2, log2, sin, cos, copysign, fma,
clampf, is*, else computed in Float32 and rounded back; BFloat16 always in
Float32; Float64 for the exact ops (abs, ceil, floor, trunc, round,
roundeven, sqrt, rsqrt, copysign, fma, clampf, is*, fpowi) only — the
others need the device library (__ocml_*_f64): a TraceError says so.
Float8/6/4 types are storage types: convert them first.
"""

from __future__ import annotations

import builtins
import math as _pymath

from . import numeric as nm
from ._late import provide
from ._elementwise import (FastmathScope, compare, convert, element, emit, fail, fastmath_attr,
                           intrinsic, is_static, select, unify)

__all__ = ["absf", "ceil", "floor", "trunc", "round", "roundeven", "exp", "exp2", "expm1", "log",
           "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "asin", "acos",
           "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "sincos",
           "absi", "ctlz", "cttz", "ctpop", "powf", "fpowi", "ipowi", "atan2", "copysign", "fma",
           "clampf", "isnan", "isinf", "isfinite", "isnormal"]

_PI = _pymath.pi
_LN2 = _pymath.log(2.0)


def _kwargs(fname, kwargs):
    for key in kwargs:
        if key not in ("loc", "ip"):
            fail(f"fx.math.{fname}() got an unexpected keyword argument {key!r}")


def _py(fname, fn, *args):
    """fn on Python numbers (a static call), with the IEEE results where
    Python's math raises: NaN for a domain error, an infinity for an
    overflow (of the sign fn has at a moderate argument of the same sign);
    an integer division by zero is an error naming fname."""
    try:
        return fn(*args)
    except ValueError:
        return _pymath.nan
    except OverflowError:
        x = float(args[0])
        if len(args) == 1 and _pymath.isinf(x):
            return x
        probe = fn(_pymath.copysign(builtins.min(builtins.abs(x), 700.0), x)) if len(args) == 1 else 1.0
        return _pymath.copysign(_pymath.inf, probe)
    except ZeroDivisionError:
        fail(f"fx.math.{fname}: division by zero in a static call")


def _flags(fastmath):
    """The ops of a formula carry the explicit flags (or the enclosing
    block's, which they take anyway)."""
    return FastmathScope(fastmath)


def _const(v, like):
    """The constant v of like's element type and shape."""
    return nm._prepare(v, element(like), like.shape if isinstance(like, nm.Vector) else None)


def _float_operand(fname, x, *, f16_native: bool, f64: bool):
    """(x in the class it is computed in, x's class) for a float op."""
    if not isinstance(x, nm.Numeric):
        fail(f"fx.math.{fname}: expected a numeric, got {nm._describe(x)}")
    cls = element(x)
    if not cls.is_float:
        fail(f"fx.math.{fname} takes a float, not {cls.__name__} (convert it first, "
             "e.g. x.to(fx.Float32))")
    if cls.width <= 8:
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


def _unary(fname, x, py, body, fastmath, kwargs, *, f16_native=True, f64=False, result=None):
    _kwargs(fname, kwargs)
    if is_static(x):
        return _py(fname, py, x)
    if isinstance(x, nm.Numeric) and x.ir is None:
        x = nm.constant(x.host_value, type(x))
    with _flags(fastmath):
        xc, cls = _float_operand(fname, x, f16_native=f16_native, f64=f64)
        r = body(xc, element(xc), fastmath)
        return r if result is not None else convert(r, cls)


def _float_operands(fname, xs, fastmath, kwargs, *, f16_native, f64):
    _kwargs(fname, kwargs)
    xs = unify(f"fx.math.{fname}", *xs)
    computed = [_float_operand(fname, x, f16_native=f16_native, f64=f64) for x in xs]
    return [v for v, _ in computed], computed[0][1]


def _op(name):
    return lambda v, c, fm: emit(name, [v], v, c, fastmath_attr(fm))


def _intr(name):
    return lambda v, c, fm: intrinsic(name, [v], v, c, fm)


# -- rounding and sign ------------------------------------------------------------


def absf(x, *, fastmath=None, **kwargs):
    """|x| of a float (math.absf)."""
    return _unary("absf", x, builtins.abs, _op("math.absf"), fastmath, kwargs, f64=True)


def absi(x, **kwargs):
    """|x| of an integer (math.absi; the minimum value stays itself)."""
    _kwargs("absi", kwargs)
    if is_static(x):
        return builtins.abs(x)
    return _int_unary("absi", x, "math.absi")


def ceil(x, *, fastmath=None, **kwargs):
    """The smallest integral value >= x (a float of x's type)."""
    return _unary("ceil", x, lambda v: float(_pymath.ceil(v)), _intr("llvm.ceil"), fastmath,
                  kwargs, f64=True)


def floor(x, *, fastmath=None, **kwargs):
    """The largest integral value <= x (a float of x's type)."""
    return _unary("floor", x, lambda v: float(_pymath.floor(v)), _intr("llvm.floor"), fastmath,
                  kwargs, f64=True)


def trunc(x, *, fastmath=None, **kwargs):
    """x rounded toward zero."""
    return _unary("trunc", x, lambda v: float(_pymath.trunc(v)), _op("math.trunc"), fastmath,
                  kwargs, f64=True)


def _py_round_away(v):
    return float(_pymath.copysign(_pymath.floor(builtins.abs(v) + 0.5), v))


def round(x, *, fastmath=None, **kwargs):  # noqa: A001 - FlyDSL's name
    """x rounded to the nearest integer, halfway cases away from zero."""
    return _unary("round", x, _py_round_away, _op("math.round"), fastmath, kwargs, f64=True)


def roundeven(x, *, fastmath=None, **kwargs):
    """x rounded to the nearest integer, halfway cases to even."""
    return _unary("roundeven", x, lambda v: float(builtins.round(v)), _op("math.roundeven"),
                  fastmath, kwargs, f64=True)


def copysign(mag, sign, *, fastmath=None, **kwargs):
    """|mag| with the sign of `sign`."""
    if is_static(mag) and is_static(sign):
        return _pymath.copysign(mag, sign)
    with _flags(fastmath):
        (m, s), cls = _float_operands("copysign", (mag, sign), fastmath, kwargs,
                                      f16_native=True, f64=True)
        return convert(emit("math.copysign", [m, s], m, element(m), fastmath_attr(fastmath)), cls)


# -- exponentials and logarithms ----------------------------------------------------


def exp(x, *, fastmath=None, **kwargs):
    """e**x."""
    return _unary("exp", x, _pymath.exp, _op("math.exp"), fastmath, kwargs, f16_native=False)


def exp2(x, *, fastmath=None, **kwargs):
    """2**x."""
    return _unary("exp2", x, lambda v: 2.0 ** v, _intr("llvm.exp2"), fastmath, kwargs)


def _expm1(v, c, fm):
    u = emit("math.exp", [v], v, c, fastmath_attr(None))
    um1 = u - 1.0
    r = um1 * v / emit("math.log", [u], u, c, fastmath_attr(None))
    r = select(compare(u, _pymath.inf, "eq"), u, r)
    r = select(compare(um1, -1.0, "eq"), -1.0, r)
    return select(compare(u, 1.0, "eq"), v, r)


def expm1(x, *, fastmath=None, **kwargs):
    """e**x - 1, accurate near 0."""
    return _unary("expm1", x, _pymath.expm1, _expm1, fastmath, kwargs, f16_native=False)


def log(x, *, fastmath=None, **kwargs):
    """The natural logarithm."""
    return _unary("log", x, _pymath.log, _op("math.log"), fastmath, kwargs, f16_native=False)


def log2(x, *, fastmath=None, **kwargs):
    """The base-2 logarithm."""
    return _unary("log2", x, _pymath.log2, _intr("llvm.log2"), fastmath, kwargs)


def log10(x, *, fastmath=None, **kwargs):
    """The base-10 logarithm."""
    return _unary("log10", x, _pymath.log10,
                  lambda v, c, fm: intrinsic("llvm.log2", [v], v, c) * _pymath.log10(2.0),
                  fastmath, kwargs, f16_native=False)


def _log1p(v, c, fm):
    u = v + 1.0
    r = emit("math.log", [u], u, c, fastmath_attr(None)) * v / (u - 1.0)
    r = select(compare(u, _pymath.inf, "eq"), u, r)
    return select(compare(u, 1.0, "eq"), v, r)


def log1p(x, *, fastmath=None, **kwargs):
    """log(1 + x), accurate near 0."""
    return _unary("log1p", x, _pymath.log1p, _log1p, fastmath, kwargs, f16_native=False)


def sqrt(x, *, fastmath=None, **kwargs):
    """The square root (correctly rounded)."""
    return _unary("sqrt", x, _pymath.sqrt, _op("math.sqrt"), fastmath, kwargs, f64=True)


def _rsqrt(v, c, fm):
    if c is nm.Float64:
        return 1.0 / emit("math.sqrt", [v], v, c, fastmath_attr(None))
    if c is nm.Float16:
        return intrinsic("llvm.amdgcn.rsq", [v], v, c)
    tiny = compare(v, 2.0 ** -126, "lt")
    scaled = select(tiny, v * 2.0 ** 24, v)
    r = intrinsic("llvm.amdgcn.rsq", [scaled], v, c)
    return select(tiny, r * 2.0 ** 12, r)


def rsqrt(x, *, fastmath=None, **kwargs):
    """1 / sqrt(x)."""
    return _unary("rsqrt", x, lambda v: 1.0 / _pymath.sqrt(v), _rsqrt, fastmath, kwargs, f64=True)


def _cbrt(v, c, fm):
    a = absf(v)
    y = intrinsic("llvm.exp2", [intrinsic("llvm.log2", [a], a, c) * (1.0 / 3.0)], a, c)
    refined = y - (y * y * y - a) / (y * y * 3.0)
    special = compare(a, 0.0, "eq") | compare(a, _pymath.inf, "eq") | compare(a, a, "ne")
    return copysign(select(special, y, refined), v)


def cbrt(x, *, fastmath=None, **kwargs):
    """The real cube root."""
    return _unary("cbrt", x, lambda v: _pymath.copysign(builtins.abs(v) ** (1.0 / 3.0), v),
                  _cbrt, fastmath, kwargs, f16_native=False)


# -- trigonometric and hyperbolic ---------------------------------------------------


def sin(x, *, fastmath=None, **kwargs):
    """The sine (the hardware's v_sin of x/(2 pi): absolute error ~1e-6 for
    |x| up to a few hundred)."""
    return _unary("sin", x, _pymath.sin, _intr("llvm.sin"), fastmath, kwargs)


def cos(x, *, fastmath=None, **kwargs):
    """The cosine (as sin)."""
    return _unary("cos", x, _pymath.cos, _intr("llvm.cos"), fastmath, kwargs)


def tan(x, *, fastmath=None, **kwargs):
    """The tangent, sin(x) / cos(x)."""
    return _unary("tan", x, _pymath.tan,
                  lambda v, c, fm: intrinsic("llvm.sin", [v], v, c) / intrinsic("llvm.cos", [v], v, c),
                  fastmath, kwargs, f16_native=False)


def sincos(x, *, fastmath=None, **kwargs):
    """(sin(x), cos(x))."""
    if is_static(x):
        _kwargs("sincos", kwargs)
        return _py("sincos", _pymath.sin, x), _py("sincos", _pymath.cos, x)
    return sin(x, fastmath=fastmath, **kwargs), cos(x, fastmath=fastmath, **kwargs)


def _horner(x, coefficients):
    acc = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        acc = acc * x + c
    return acc


# Cephes' single-precision atan polynomial on |x| <= tan(pi/8).
_ATAN_P = (-3.33329491539e-1, 1.99777106478e-1, -1.38776856032e-1, 8.05374449538e-2)


def _atan_abs(a):
    """atan(a) for a >= 0 (or NaN)."""
    big = compare(a, 2.414213562373095, "gt")
    mid = compare(a, 0.4142135623730950, "gt")
    t = select(big, -1.0 / a, select(mid, (a - 1.0) / (a + 1.0), a))
    base = select(big, _PI / 2, select(mid, _PI / 4, _const(0.0, a)))
    z = t * t
    return base + (t + t * z * _horner(z, _ATAN_P))


def atan(x, *, fastmath=None, **kwargs):
    """The arc tangent."""
    return _unary("atan", x, _pymath.atan, lambda v, c, fm: copysign(_atan_abs(absf(v)), v),
                  fastmath, kwargs, f16_native=False)


def _atan2(y, x):
    ay, ax = absf(y), absf(x)
    a = _atan_abs(ay / ax)
    a = select(compare(ay, 0.0, "eq"), 0.0, a)  # 0/0 and 0/x
    x_negative = compare(copysign(1.0, x), 0.0, "lt")
    a = select(x_negative, _PI - a, a)
    return copysign(a, y)


def atan2(y, x, *, fastmath=None, **kwargs):
    """The angle of the point (x, y), in [-pi, pi]."""
    if is_static(y) and is_static(x):
        return _py("atan2", _pymath.atan2, y, x)
    with _flags(fastmath):
        (yc, xc), cls = _float_operands("atan2", (y, x), fastmath, kwargs,
                                        f16_native=False, f64=False)
        return convert(_atan2(yc, xc), cls)


# Cephes' single-precision asin polynomial on |x| <= 0.5.
_ASIN_P = (1.6666752422e-1, 7.4953002686e-2, 4.5470025998e-2, 2.4181311049e-2, 4.2163199048e-2)


def _asin_small(a):
    z = a * a
    return a + a * z * _horner(z, _ASIN_P)


def _asin(v, c, fm):
    a = absf(v)
    s = sqrt((1.0 - a) * 0.5)
    r = select(compare(a, 0.5, "gt"), _PI / 2 - _asin_small(s) * 2.0, _asin_small(a))
    return copysign(r, v)


def asin(x, *, fastmath=None, **kwargs):
    """The arc sine (NaN outside [-1, 1])."""
    return _unary("asin", x, _pymath.asin, _asin, fastmath, kwargs, f16_native=False)


def _acos(v, c, fm):
    high = _asin_small(sqrt((1.0 - v) * 0.5)) * 2.0
    low = _PI - _asin_small(sqrt((v + 1.0) * 0.5)) * 2.0
    mid = _PI / 2 - _asin(v, c, fm)
    return select(compare(v, 0.5, "gt"), high, select(compare(v, -0.5, "lt"), low, mid))


def acos(x, *, fastmath=None, **kwargs):
    """The arc cosine (NaN outside [-1, 1])."""
    return _unary("acos", x, _pymath.acos, _acos, fastmath, kwargs, f16_native=False)


def _sinh(v, c, fm):
    e = _expm1(absf(v), c, fm)
    return copysign((e + e / (e + 1.0)) * 0.5, v)


def sinh(x, *, fastmath=None, **kwargs):
    """The hyperbolic sine."""
    return _unary("sinh", x, _pymath.sinh, _sinh, fastmath, kwargs, f16_native=False)


def _cosh(v, c, fm):
    u = emit("math.exp", [absf(v)], v, c, fastmath_attr(None))
    return (u + 1.0 / u) * 0.5


def cosh(x, *, fastmath=None, **kwargs):
    """The hyperbolic cosine."""
    return _unary("cosh", x, _pymath.cosh, _cosh, fastmath, kwargs, f16_native=False)


# tanh(x) = x + x^3 * P(x^2) on |x| < 0.625 (least-squares fit, relative weight).
_TANH_CUT = 0.625
_TANH_P = (-0.3333329151135638, 0.13331718583139301, -0.05376380071748734,
           0.020720281118522862, -0.00579809980214553)


def _tanh(v, c, fm):
    a = absf(v)
    x2 = v * v
    small = v + v * x2 * _horner(x2, _TANH_P)
    e = emit("math.exp", [a * 2.0], a, c, fastmath_attr(None))
    large = copysign(1.0 - 2.0 / (e + 1.0), v)
    return select(compare(a, _TANH_CUT, "lt"), small, large)


def tanh(x, *, fastmath=None, **kwargs):
    """The hyperbolic tangent."""
    return _unary("tanh", x, _pymath.tanh, _tanh, fastmath, kwargs, f16_native=False)


def _asinh(v, c, fm):
    a = absf(v)
    small = _log1p(a + a * a / (sqrt(a * a + 1.0) + 1.0), c, fm)
    big = emit("math.log", [a], a, c, fastmath_attr(None)) + _LN2
    return copysign(select(compare(a, 2.0 ** 28, "gt"), big, small), v)


def asinh(x, *, fastmath=None, **kwargs):
    """The inverse hyperbolic sine."""
    return _unary("asinh", x, _pymath.asinh, _asinh, fastmath, kwargs, f16_native=False)


def _acosh(v, c, fm):
    t = v - 1.0
    small = _log1p(t + sqrt(t * 2.0 + t * t), c, fm)
    big = emit("math.log", [v], v, c, fastmath_attr(None)) + _LN2
    return select(compare(v, 2.0 ** 28, "gt"), big, small)


def acosh(x, *, fastmath=None, **kwargs):
    """The inverse hyperbolic cosine (NaN below 1)."""
    return _unary("acosh", x, _pymath.acosh, _acosh, fastmath, kwargs, f16_native=False)


def _atanh(v, c, fm):
    a = absf(v)
    return copysign(_log1p(a * 2.0 / (1.0 - a), c, fm) * 0.5, v)


def atanh(x, *, fastmath=None, **kwargs):
    """The inverse hyperbolic tangent (+-inf at +-1, NaN beyond)."""
    return _unary("atanh", x, _pymath.atanh, _atanh, fastmath, kwargs, f16_native=False)


# erf(x) = x * Q(x^2) on |x| < 1 (least-squares fit); beyond, Abramowitz and
# Stegun 7.1.26.
_ERF_CUT = 1.0
_ERF_Q = (1.1283791662319136, -0.3761262976488903, 0.11283634615577351,
          -0.02685606888960014, 0.0051929566785674786, -0.0008053741173954104,
          8.006842259418445e-05)
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(v, c, fm):
    a = absf(v)
    small = v * _horner(v * v, _ERF_Q)
    t = 1.0 / (a * _AS_P + 1.0)
    poly = _horner(t, _AS_A) * t
    large = copysign(1.0 - poly * emit("math.exp", [0.0 - a * a], a, c, fastmath_attr(None)), v)
    return select(compare(a, _ERF_CUT, "lt"), small, large)


def erf(x, *, fastmath=None, **kwargs):
    """The error function."""
    return _unary("erf", x, _pymath.erf, _erf, fastmath, kwargs, f16_native=False)


# erfc(z) = t exp(-z^2 + R(t)), t = 1 / (1 + z/2), z >= 0 (Numerical Recipes'
# erfcc, fractional error < 1.2e-7).
_ERFC_R = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
           -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _erfc(v, c, fm):
    z = absf(v)
    t = 1.0 / (z * 0.5 + 1.0)
    hi = z * z
    lo = emit("math.fma", [z, z, 0.0 - hi], z, c, fastmath_attr(None))  # z*z - hi, exactly
    e = emit("math.exp", [_horner(t, _ERFC_R) - hi], z, c, fastmath_attr(None))
    r = t * e * (1.0 - lo)
    return select(compare(v, 0.0, "lt"), 2.0 - r, r)


def erfc(x, *, fastmath=None, **kwargs):
    """The complementary error function 1 - erf(x), accurate for large x."""
    return _unary("erfc", x, _pymath.erfc, _erfc, fastmath, kwargs, f16_native=False)


# -- powers --------------------------------------------------------------------


def _powf(b, e, c, fastmath=None):
    return intrinsic("llvm.pow", [b, e], b, c, fastmath)


def powf(base, exp, *, fastmath=None, **kwargs):  # noqa: A002 - FlyDSL's name
    """base ** exp for floats: exp2(exp * log2(base)) (the AMDGPU
    expansion of llvm.pow: NaN for base < 0, also for integral exp)."""
    if is_static(base) and is_static(exp):
        return _py("powf", _pymath.pow, base, exp)
    with _flags(fastmath):
        (b, e), cls = _float_operands("powf", (base, exp), fastmath, kwargs,
                                      f16_native=False, f64=False)
        return convert(_powf(b, e, element(b), fastmath), cls)


def _powi_bits(fname, base, exp, mul, one):
    """base ** |exp| by binary powering over the exponent's bits; exp's
    magnitude as an unsigned integer of its width."""
    ecls = element(exp)
    n = select(compare(exp, 0, "lt"), -exp, exp) if ecls.signed else exp
    shape = n.shape if isinstance(n, nm.Vector) else None
    result, power = one, base
    for i in range(ecls.width - (1 if ecls.signed else 0)):
        bit = compare(n & nm._prepare(1 << i, ecls, shape), 0, "ne")
        result = select(bit, mul(result, power), result)
        if i + 1 < ecls.width:
            power = mul(power, power)
    return result


def _exponent(fname, exp, like):
    if isinstance(exp, nm.Numeric) and element(exp).is_float:
        fail(f"fx.math.{fname}: the exponent must be an integer, not {element(exp).__name__}")
    if is_static(exp):
        if isinstance(exp, float):
            fail(f"fx.math.{fname}: the exponent must be an integer, not a float")
        exp = nm.constant(exp, nm.Int32)
    if not isinstance(exp, nm.Numeric):
        fail(f"fx.math.{fname}: the exponent must be an integer, not {nm._describe(exp)}")
    if isinstance(like, nm.Vector) and not isinstance(exp, nm.Vector):
        exp = nm._prepare(exp, element(exp), like.shape)
    return exp


def fpowi(base, exp, *, fastmath=None, **kwargs):  # noqa: A002 - FlyDSL's name
    """base ** exp for a float base and an integer exponent (exact repeated
    squaring; 1 / base**-exp for a negative exponent)."""
    _kwargs("fpowi", kwargs)
    if is_static(base) and is_static(exp):
        return _py("fpowi", lambda b, e: float(b) ** int(e), base, exp)
    if is_static(base):
        fail("fx.math.fpowi: the base must be a float numeric")
    with _flags(fastmath):
        b, cls = _float_operand("fpowi", base, f16_native=True, f64=True)
        e = _exponent("fpowi", exp, b)
        one = nm._prepare(1.0, element(b), b.shape if isinstance(b, nm.Vector) else None)
        p = _powi_bits("fpowi", b, e, lambda x, y: x * y, one)
        if element(e).signed:
            p = select(compare(e, 0, "lt"), 1.0 / p, p)
        return convert(p, cls)


def ipowi(base, exp, **kwargs):  # noqa: A002 - FlyDSL's name
    """base ** exp for integers (wrapping); for exp < 0 the integer
    reciprocal: 1 for 1, 1 or -1 for -1, else 0 (division by zero for 0)."""
    _kwargs("ipowi", kwargs)
    if is_static(base) and is_static(exp):
        return _py("ipowi", lambda b, e: int(b) ** int(e) if e >= 0 else int(1 / (int(b) ** -int(e))),
                   base, exp)
    base, exp = unify("fx.math.ipowi", base, exp)
    return _ipowi(base, exp)


def _ipowi(base, exp):
    cls = element(base)
    if cls.is_float:
        fail(f"fx.math.ipowi takes integers, not {cls.__name__} (use fx.math.powf or fpowi)")
    one = nm._prepare(1, cls, base.shape if isinstance(base, nm.Vector) else None)
    p = _powi_bits("ipowi", base, exp, lambda x, y: x * y, one)
    if cls.signed:
        odd = compare(exp & 1, 0, "ne")
        minus_one = select(odd, _const(-1, base), one)
        recip = select(compare(base, 1, "eq"), one,
                       select(compare(base, -1, "eq"), minus_one, one - one))
        p = select(compare(exp, 0, "lt"), recip, p)
    return p


def _pow(a, b, fastmath=None):
    """`a ** b` of the numeric operators (operands of one type)."""
    cls = element(a)
    if cls.is_float:
        return powf(a, b, fastmath=fastmath)
    return _ipowi(a, b)


def fma(a, b, c, *, fastmath=None, **kwargs):
    """a * b + c with one rounding."""
    if all(is_static(v) for v in (a, b, c)):
        return a * b + c
    with _flags(fastmath):
        (a, b, c), cls = _float_operands("fma", (a, b, c), fastmath, kwargs,
                                         f16_native=True, f64=True)
        return convert(emit("math.fma", [a, b, c], a, element(a), fastmath_attr(fastmath)), cls)


def clampf(x, lo, hi, *, fastmath=None, **kwargs):
    """x clamped to [lo, hi] (math.clampf's value: a NaN x gives lo)."""
    if all(is_static(v) for v in (x, lo, hi)):
        return builtins.min(builtins.max(x, lo), hi)
    with _flags(fastmath):
        (x, lo, hi), cls = _float_operands("clampf", (x, lo, hi), fastmath, kwargs,
                                           f16_native=True, f64=True)
        # min(max(x, lo), hi) by maxnumf/minnumf: math.clampf becomes
        # rocdl.fmed3 on f16/f32 (which the emulator does not have) and an
        # ocml call on f64
        fm = fastmath_attr(fastmath)
        c = element(x)
        r = emit("arith.minnumf", [emit("arith.maxnumf", [x, lo], x, c, fm), hi], x, c, fm)
        return convert(r, cls)


# -- classification ---------------------------------------------------------------


_MIN_NORMAL = {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126, "f64": 2.0 ** -1022}


def _classify(fname, x, fastmath, kwargs, body, py):
    _kwargs(fname, kwargs)
    if is_static(x):
        return _py(fname, lambda v: py(float(v)), x)
    with _flags(fastmath):
        xc, cls = _float_operand(fname, x, f16_native=True, f64=True)
        return body(xc, element(xc), cls)


def isnan(x, *, fastmath=None, **kwargs):
    """Whether x is a NaN (a Boolean)."""
    return _classify("isnan", x, fastmath, kwargs,
                     lambda v, c, src: emit("math.isnan", [v], v, nm.Boolean, fastmath_attr(fastmath)),
                     _pymath.isnan)


def isfinite(x, *, fastmath=None, **kwargs):
    """Whether x is neither infinite nor NaN."""
    return _classify("isfinite", x, fastmath, kwargs,
                     lambda v, c, src: emit("math.isfinite", [v], v, nm.Boolean,
                                            fastmath_attr(fastmath)),
                     _pymath.isfinite)


def isinf(x, *, fastmath=None, **kwargs):
    """Whether x is +inf or -inf."""
    return _classify("isinf", x, fastmath, kwargs,
                     lambda v, c, src: compare(absf(v), _pymath.inf, "eq"), _pymath.isinf)


def isnormal(x, *, fastmath=None, **kwargs):
    """Whether x is a normal number (not zero, subnormal, infinite or NaN)."""
    def body(v, c, src):
        a = absf(v)
        return compare(a, _MIN_NORMAL[src.mlir_type], "ge") & compare(a, _pymath.inf, "lt")

    return _classify("isnormal", x, fastmath, kwargs, body,
                     lambda v: _pymath.isfinite(v) and builtins.abs(v) >= 2.0 ** -126)


# -- integer bit counts -----------------------------------------------------------


def _int_unary(fname, x, op):
    if not isinstance(x, nm.Numeric):
        fail(f"fx.math.{fname}: expected an integer numeric, got {nm._describe(x)}")
    cls = element(x)
    if cls.is_float or cls is nm.Index:
        fail(f"fx.math.{fname} takes an integer of fixed width, not {cls.__name__}")
    return emit(op, [x], x, cls)


def ctlz(x, **kwargs):
    """The number of leading zero bits (the width for 0)."""
    _kwargs("ctlz", kwargs)
    return _int_unary("ctlz", x, "math.ctlz")


def cttz(x, **kwargs):
    """The number of trailing zero bits (the width for 0)."""
    _kwargs("cttz", kwargs)
    return _int_unary("cttz", x, "math.cttz")


def ctpop(x, **kwargs):
    """The number of 1 bits."""
    _kwargs("ctpop", kwargs)
    return _int_unary("ctpop", x, "math.ctpop")


# -- ours (fx.math.<name> only) -------------------------------------------------------


def _abs(fname, x):
    if is_static(x):
        return builtins.abs(x)
    if not isinstance(x, nm.Numeric):
        fail(f"fx.math.{fname}: expected a numeric, got {nm._describe(x)}")
    cls = element(x)
    if cls is nm.Boolean:
        fail(f"{fname}() is not defined on Boolean")
    if cls.is_float:
        return emit("math.absf", [x], x, cls, fastmath_attr(None))
    if not cls.signed or cls is nm.Index:
        return x
    return emit("math.absi", [x], x, cls)


def abs(x):  # noqa: A001 - the fx.math name
    """|x| for floats and integers (an unsigned value is returned as is)."""
    return _abs("abs", x)


def pow(x, y):  # noqa: A001 - the fx.math name
    """x ** y for floats (as powf)."""
    return powf(x, y)


def _minmax(fname, a, b, propagate_nan):
    if is_static(a) and is_static(b):
        return (builtins.min if fname == "min" else builtins.max)(a, b)
    a, b = unify(f"fx.math.{fname}", a, b)
    cls = element(a)
    if cls.is_float:
        if cls.width <= 8:
            fail(f"fx.math.{fname}: {cls.__name__} is a storage type; convert it first")
        op = {("min", False): "arith.minnumf", ("max", False): "arith.maxnumf",
              ("min", True): "arith.minimumf", ("max", True): "arith.maximumf"}[
                  fname, bool(propagate_nan)]
        return emit(op, [a, b], a, cls, fastmath_attr(None))
    op = f"arith.{fname}{'si' if cls.signed and cls is not nm.Index else 'ui'}"
    return emit(op, [a, b], a, cls)


def min(a, b, *, propagate_nan: bool = False):  # noqa: A001 - the fx.math name
    """The smaller of a and b. Floats: arith.minnumf (a NaN operand yields the
    other one), or arith.minimumf with propagate_nan=True; integers by
    signedness (minsi/minui). (fx.min is FlyDSL's fx.arith.min.)"""
    return _minmax("min", a, b, propagate_nan)


def max(a, b, *, propagate_nan: bool = False):  # noqa: A001 - the fx.math name
    """The larger of a and b (see `min`)."""
    return _minmax("max", a, b, propagate_nan)


provide(exp2=exp2, math_abs=_abs, rsqrt=rsqrt, math_pow=_pow, floor=floor)
