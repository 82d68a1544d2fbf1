"""flydsl.expr.meta: the ambient options of tracing_context (nesting,
shadowing, per thread), fx.arith.fastmath as one of them, and the builder
decorators FlyDSL's kernel library wraps its helpers with."""

from __future__ import annotations

import threading

import numpy as np

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.meta import (current_function, dsl_loc_tracing, dsl_wrap_result,
                              tracing_context, tracing_option)


def test_options_nest_shadow_and_restore():
    assert tracing_option("unroll", 1) == 1
    with tracing_context(unroll=4, fastmath="fast"):
        with tracing_context(unroll=None):
            assert tracing_option("unroll", 1) is None  # an explicit None shadows
            assert tracing_option("fastmath") == "fast"  # unset keys come from outside
        assert tracing_option("unroll") == 4
    assert tracing_option("unroll") is None and tracing_option("fastmath") is None


def test_the_owner_is_inherited_and_blocks_are_per_thread():
    def traced():
        pass

    seen = {}
    with tracing_context(traced, unroll=2):
        with tracing_context(unroll=3):
            assert current_function() is traced

        def other():
            seen["other"] = tracing_option("unroll", "none")

        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen["other"] == "none" and current_function() is None


def test_an_exception_leaves_the_block():
    try:
        with tracing_context(unroll=8):
            raise KeyError("x")
    except KeyError:
        pass
    assert tracing_option("unroll") is None


def test_fastmath_blocks_are_an_option():
    with fx.arith.fastmath(fx.arith.FastMathFlags.nnan | fx.arith.FastMathFlags.ninf):
        assert tracing_option("fastmath") == "nnan,ninf"
        with fx.arith.fastmath("fast"):
            assert tracing_option("fastmath") == "fast"
    assert tracing_option("fastmath") is None


@dsl_loc_tracing
def _double(x):
    """Twice x."""
    return x + x


@dsl_wrap_result
def _raw_negate(x):
    return (-x).ir  # a raw SSA value


@dsl_wrap_result(fx.Float32)
def _raw_as_f32(x):
    return x.ir


@flyc.kernel
def _meta_kernel(A: fx.Tensor, B: fx.Tensor):
    tid = fx.thread_idx.x
    B[tid] = _raw_as_f32(_double(_raw_negate(A[tid])))


@flyc.jit
def _meta(A: fx.Tensor, B: fx.Tensor):
    _meta_kernel(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_wrapped_builders_give_fx_values(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    assert _double.__name__ == "_double" and _double.__doc__ == "Twice x."
    a = np.linspace(-3, 3, 64, dtype=np.float32)
    b = np.zeros_like(a)
    _meta(a, b)
    np.testing.assert_array_equal(b, -2 * a)
