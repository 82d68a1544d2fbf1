"""The dialects' own builders through fx, as FlyDSL's kernels call them:
fx.rocdl's ROCDL builders (readlane, ballot, ds_bpermute, the scheduling
masks, perm_b32, the gfx950 bf16 packing) and fx.gpu's gpu builders, on fx
values, run on the emulator against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.typing import T


@pytest.fixture(params=["gfx942", "gfx1100"])
def chip(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return request.param


def _wave(chip):
    return 64 if chip.startswith("gfx9") else 32


@flyc.kernel
def _lanes(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    t = fx.thread_idx.x
    C[t] = fx.Int32(fn(A[t], fx.Int32(t)))


@flyc.jit
def _run(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr, n: fx.Constexpr):
    _lanes(A, C, fn).launch(grid=(1, 1, 1), block=(n, 1, 1))


def _values(n):
    return np.random.default_rng(1).integers(-1000, 1000, n, dtype=np.int32)


def test_readlane_with_a_python_lane_and_ds_bpermute(chip):
    n = _wave(chip)
    a, c = _values(n), np.zeros(n, np.int32)
    _run(a, c, lambda x, t: fx.rocdl.readlane(T.i32, x, 3), n)
    np.testing.assert_array_equal(c, np.full(n, a[3]))
    # each lane reads lane t ^ 1 (the byte address is lane * 4)
    _run(a, c, lambda x, t: fx.rocdl.ds_bpermute(T.i32, (t ^ 1) * 4, x), n)
    np.testing.assert_array_equal(c, a[np.arange(n) ^ 1])


def test_ballot(chip):
    n = _wave(chip)
    a, c = _values(n), np.zeros(n, np.int32)
    ballot_type = T.i64 if n == 64 else T.i32
    _run(a, c, lambda x, t: fx.arith.trunci(T.i32, fx.rocdl.ballot(ballot_type, x > 0))
         if n == 64 else fx.rocdl.ballot(ballot_type, x > 0), n)
    bits = sum(1 << i for i in range(min(n, 32)) if a[i] > 0)
    np.testing.assert_array_equal(c.view(np.uint32), np.full(n, bits, np.uint32))


def test_perm_b32_is_v_perm_b32(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip", COMPILE_ONLY="1")
    a = _values(64)
    compiled = flyc.compile(_run, a, a.copy(), lambda x, t: fx.rocdl.perm_b32(x, t, 0x07060504), 64)
    assert "v_perm_b32" in compiled.isa()


def test_scheduling_masks_are_flydsls():
    assert (fx.rocdl.mask_mfma, fx.rocdl.mask_vmem_rd, fx.rocdl.mask_dsrd,
            fx.rocdl.mask_dswr) == (0x008, 0x020, 0x100, 0x200)


def test_fx_gpu_has_the_dialects_builders():
    from flydsl._mlir.dialects import gpu

    assert fx.gpu.thread_id is gpu.thread_id and fx.gpu.BarrierOp is gpu.BarrierOp
    assert fx.rocdl.RawPtrBufferLoadOp.__module__.startswith("flydsl._mlir.dialects")
    with pytest.raises(AttributeError):
        fx.rocdl.no_such_instruction


@flyc.kernel
def _pack(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    t = fx.thread_idx.x
    C[t] = fx.Int32(fx.rocdl.cvt_pk_bf16_f32(A[t], B[t]))


@flyc.jit
def _run_pack(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    _pack(A, B, C).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_cvt_pk_bf16_f32_on_gfx950(fly_env):
    import torch

    fly_env(ARCH="gfx950", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(64).astype(np.float32) for _ in range(2))
    c = np.zeros(64, np.int32)
    _run_pack(a, b, c)
    lo = torch.from_numpy(a).to(torch.bfloat16).view(torch.int16).numpy().astype(np.uint16)
    hi = torch.from_numpy(b).to(torch.bfloat16).view(torch.int16).numpy().astype(np.uint16)
    np.testing.assert_array_equal(c.view(np.uint32), lo.astype(np.uint32) | (hi.astype(np.uint32) << 16))


@flyc.kernel
def _vec(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    t = fx.thread_idx.x
    r = fx.make_rmem_tensor(4, fx.Float32)
    for i in fx.range_constexpr(4):
        r[i] = A[t * 4 + i]
    C[t] = fn(fx.memref_load_vec(r))


@flyc.jit
def _run_vec(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    _vec(A, C, fn).launch(grid=(1, 1, 1), block=(16, 1, 1))


def test_vectors_take_the_dialects_types_and_kinds(chip):
    from flydsl._mlir.dialects import vector

    a = np.random.default_rng(4).standard_normal(64).astype(np.float32)
    c = np.zeros(16, np.float32)
    _run_vec(a, c, lambda v: v.reduce(vector.CombiningKind.MAXIMUMF))
    np.testing.assert_array_equal(c, a.reshape(16, 4).max(axis=1))
    _run_vec(a, c, lambda v: v.to(T.f16).to(fx.Float32).reduce("add"))
    ref = a.astype(np.float16).astype(np.float32).reshape(16, 4)
    np.testing.assert_allclose(c, ref.sum(axis=1), rtol=1e-6)


def test_layouts_take_raw_values(chip):
    from flydsl.expr.arith import ArithValue

    a = np.zeros(64, np.float32)
    c = np.zeros(16, np.float32)
    # a shape whose leaf is a raw value: its size is that value
    _run_vec(a, c, lambda v: fx.Float32(fx.get_scalar(fx.size(fx.make_shape(ArithValue(fx.Int32(3)), 2)))))
    np.testing.assert_array_equal(c, np.full(16, 6.0, np.float32))
