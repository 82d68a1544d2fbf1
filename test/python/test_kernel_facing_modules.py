"""FlyDSL's kernel-facing modules outside the stable catalog, as its kernel
library imports them: flydsl.compiler.ast_rewriter (ASTRewriter.transform,
ReplaceIfWithDispatch.scf_if_dispatch), the numeric classes and ArithValue
in flydsl.expr.typing, flydsl.expr.rocdl.universal, flydsl.utils.log and
flydsl.utils.smem_allocator. Kernels run on the emulator against numpy."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl.compiler.ast_rewriter import ASTRewriter, ReplaceIfWithDispatch
from flydsl.expr.arith import ArithValue
from flydsl.tracing.errors import TraceError

N = 64
dispatch = ReplaceIfWithDispatch.scf_if_dispatch


@pytest.fixture(autouse=True, params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@flyc.kernel
def _kernel(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    t = fx.thread_idx.x
    C[t] = fn(A[t])


@flyc.jit
def _run(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    _kernel(A, C, fn).launch(grid=(1, 1, 1), block=(N, 1, 1))


def _values(seed=0):
    return np.random.default_rng(seed).standard_normal(N).astype(np.float32)


def _with_state(a):
    # the then-branch takes the names too (*args), the else-branch the values
    x, y = dispatch(a > 0, lambda *_: None, lambda x, y: (x * 2, y + 1),
                    state_names=["x", "y"], state_values=[a, fx.Float32(1.0)])
    return x + y


def _by_name(a):
    return dispatch(ArithValue(a) < 0, lambda x: {"x": -x}, None,
                    result_names=["x"], result_values=[a])  # FlyDSL's newer keywords


def _static(a):
    return dispatch(True, lambda x: x + 3, lambda x: x - 3, state_names=["x"], state_values=[a])


def _no_state(a):
    assert dispatch(a > 0, lambda: None) is None
    return a


CASES = {
    "with_state": (_with_state, lambda a: np.where(a > 0, a + 1, a * 2 + 2)),
    "by_name": (_by_name, np.abs),
    "static": (_static, lambda a: a + 3),
    "no_state": (_no_state, lambda a: a),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scf_if_dispatch_gives_numpys_values(case):
    fn, ref = CASES[case]
    a, c = _values(), np.zeros(N, np.float32)
    _run(a, c, fn)
    np.testing.assert_allclose(c, ref(a), rtol=1e-6)


def _bad_branch(a):
    return dispatch(a > 0, lambda x: (x, x), None, state_names=["x"], state_values=[a])


def test_scf_if_dispatch_rejects_a_branch_of_the_wrong_shape():
    a = _values()
    with pytest.raises(TraceError, match="a branch returned tuple"):
        _run(a, a.copy(), _bad_branch)


def _helper(x):
    y = x
    if x < 0:  # a dynamic if: the rewritten helper makes it an scf.if
        y = -x
    return y


def test_ast_rewriter_transform_gives_the_rewritten_function():
    helper = ASTRewriter.transform(_helper)
    assert helper is not _helper and ASTRewriter.transform(_helper) is helper
    a, c = _values(3), np.zeros(N, np.float32)
    _run(a, c, helper)
    np.testing.assert_array_equal(c, np.abs(a))


def test_typing_holds_the_numeric_classes_and_arith_value():
    import flydsl.expr.typing as typing

    assert typing.Int32 is fx.Int32 and typing.Float8E4M3FN is fx.Float8E4M3FN
    assert typing.ArithValue is ArithValue
    assert "Int32" not in typing.__all__  # FlyDSL's catalog of typing stays as it is


def test_rocdl_universal_is_fx_rocdls_objects():
    from flydsl.expr.rocdl import universal

    for name in universal.__all__:
        assert getattr(universal, name) is getattr(fx.rocdl, name), name


def test_utils_log_and_the_lds_capacity_check():
    from flydsl.utils import log
    from flydsl.utils.smem_allocator import SMEM_CAPACITY_MAP, check_smem_capacity

    assert log() is logging.getLogger("flydsl")
    assert SMEM_CAPACITY_MAP["gfx942"] == 64 * 1024 and SMEM_CAPACITY_MAP["gfx950"] == 160 * 1024
    assert set(SMEM_CAPACITY_MAP) == set(_fly.supported_chips())
    check_smem_capacity(64 * 1024, "gfx942")
    check_smem_capacity(1 << 30)  # no arch: no check
    with pytest.raises(RuntimeError, match="65537 bytes requested, but a workgroup on gfx942"):
        check_smem_capacity(64 * 1024 + 1, "gfx942")
