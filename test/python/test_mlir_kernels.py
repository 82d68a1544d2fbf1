"""flydsl._mlir's raw builders inside @flyc.kernel functions, mixed with fx
values, run on the CPU emulator of gfx942 and gfx1100 against numpy: llvm
pointers, loads and stores and intrinsic calls, vector ops, ROCDL buffer
loads and stores, raw scf regions with fx code inside, and a raw builder's
wrong operand as an error at the kernel's line."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines
from flydsl._mlir import _values, ir
from flydsl._mlir.dialects import arith, fly, llvm, math, rocdl, scf, vector
from flydsl._mlir.extras import types as T

LINES = marker_lines(__file__)
N = 64


@pytest.fixture(autouse=True, params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def _global_address(tensor, index):
    """The !llvm.ptr<1> of element `index` (an i32) of an f32 tensor."""
    base = llvm.ptrtoint(T.i64(), fly.ptr_to_llvm(fx.get_iter(tensor)))
    offset = arith.extsi(T.i64(), arith.muli(index, arith.constant(T.i32(), 4)))
    return llvm.inttoptr(llvm.PointerType.get(1), arith.addi(base, offset))


@flyc.kernel
def _vector_llvm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    pair = vector.from_elements(T.vector(2, element_type=T.f32()), [A[tid], B[tid]])
    total = arith.addf(vector.extract(pair, [], [0]), vector.extract(pair, [], [1]))
    power = llvm.call_intrinsic(T.f32(), "llvm.exp2", [total], [], [])
    one = math.exp(arith.constant(T.f32(), 0.0))
    address = _global_address(C, tid)
    llvm.store(arith.addf(power, one), address)
    loaded = llvm.load(T.f32(), address)
    C[tid] = fx.Float32(loaded) * 2.0   # a raw result as an fx value


@flyc.jit
def _run_vector_llvm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    _vector_llvm_kernel(A, B, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_vector_llvm_and_intrinsic_builders_with_fx_values():
    a = np.linspace(-2, 2, N).astype(np.float32)
    b = np.linspace(0, 1, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_vector_llvm(a, b, c)
    np.testing.assert_allclose(c, 2 * (np.exp2(a + b) + 1), rtol=1e-6)


def _buffer_resource(tensor, nbytes):
    def const(t, v):
        return arith.constant(t, v)
    return rocdl.make_buffer_rsrc(llvm.PointerType.get(8), fly.ptr_to_llvm(fx.get_iter(tensor)),
                                  const(T.i16(), 0), const(T.i64(), nbytes),
                                  const(T.i32(), 0x00027000))


@flyc.kernel
def _buffer_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    src, dst = _buffer_resource(A, N * 4), _buffer_resource(C, N * 4)
    zero = arith.constant(T.i32(), 0)
    byte_offset = arith.muli(tid, arith.constant(T.i32(), 4))
    x = rocdl.raw_ptr_buffer_load(T.f32(), src, byte_offset, zero, zero)
    scaled = arith.mulf(x, arith.constant(T.f32(), 3.0))
    rocdl.raw_ptr_buffer_store(scaled, dst, byte_offset, zero, zero)


@flyc.jit
def _run_buffer(A: fx.Tensor, C: fx.Tensor):
    _buffer_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_rocdl_buffer_load_and_store():
    a = np.linspace(-5, 5, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_buffer(a, c)
    np.testing.assert_array_equal(c, 3 * a)


@flyc.kernel
def _from_raw_elements_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    x = arith.addf(A[tid], arith.constant(T.f32(), 0.0))
    lane_bits = rocdl.ds_bpermute(T.i32(), arith.muli(tid.ir_value(), arith.constant(T.i32(), 4)),
                                  arith.bitcast(T.i32(), x))
    # Raw results (ArithValues) as a vector's elements, as FlyDSL's rope
    # kernel gathers ds_bpermute results.
    pair = fx.Vector.from_elements([lane_bits, arith.bitcast(T.i32(), arith.negf(x))], fx.Int32)
    floats = pair.bitcast(fx.Float32)
    C[tid] = floats[0] - floats[1] * 2.0


@flyc.jit
def _run_from_raw_elements(A: fx.Tensor, C: fx.Tensor):
    _from_raw_elements_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_a_vector_from_raw_elements():
    a = np.linspace(-2, 2, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_from_raw_elements(a, c)
    np.testing.assert_array_equal(c, 3 * a)


def test_only_shaped_types_have_an_element_type():
    # FlyDSL's buffer_ops.buffer_store tells a vector from a scalar so.
    assert ir.Type.parse("vector<4xbf16>").element_type == ir.Type.parse("bf16")
    assert not hasattr(ir.Type.parse("bf16"), "element_type")
    assert not hasattr(T.i32(), "element_type")
    with pytest.raises(AttributeError, match="the type f32 has no element type"):
        T.f32().element_type


def _store_elements(data, rsrc, element_offset):
    """A buffer store at an element offset, the element's size from the
    data's type as buffer_ops.buffer_store reads it."""
    data_type = data.type
    element = data_type.element_type if hasattr(data_type, "element_type") else data_type
    byte_offset = arith.muli(element_offset, arith.constant(T.i32(), element.width // 8))
    zero = arith.constant(T.i32(), 0)
    rocdl.raw_ptr_buffer_store(data, rsrc, byte_offset, zero, zero)


@flyc.kernel
def _element_offset_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    src, dst = _buffer_resource(A, N * 2), _buffer_resource(C, N * 2)
    zero = arith.constant(T.i32(), 0)
    pair = rocdl.raw_ptr_buffer_load(T.vector(2, element_type=T.f16()), src,
                                     arith.muli(tid, arith.constant(T.i32(), 4)), zero, zero)
    # Elements 2 * tid and 2 * tid + 1: the first as a scalar, both as a
    # vector (the same value for the first); each at its element offset.
    first = vector.extract(pair, [], [0])
    _store_elements(pair, dst, arith.muli(tid, arith.constant(T.i32(), 2)))
    _store_elements(arith.addf(first, first), dst, arith.muli(tid, arith.constant(T.i32(), 2)))


@flyc.jit
def _run_element_offset(A: fx.Tensor, C: fx.Tensor):
    _element_offset_kernel(A, C).launch(grid=(1, 1, 1), block=(N // 2, 1, 1))


def test_a_store_sized_by_its_datas_type_scalar_or_vector():
    a = np.linspace(-8, 8, N).astype(np.float16)
    c = np.zeros(N, np.float16)
    _run_element_offset(a, c)
    expected = a.copy()
    expected[0::2] *= 2
    np.testing.assert_array_equal(c, expected)


@flyc.kernel
def _region_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    index = arith.constant
    loop = scf.ForOp(index(T.index(), 0), index(T.index(), 3), index(T.index(), 1), [A[tid]])
    with ir.InsertionPoint(loop.body):
        doubled = fx.Float32(loop.inner_iter_args[0]) * 2.0   # fx inside a raw region
        scf.yield_([doubled])
    positive = arith.cmpf(arith.CmpFPredicate.OGT, loop.result, arith.constant(T.f32(), 0.0))
    branch = scf.IfOp(positive, [T.f32()], hasElse=True)
    with ir.InsertionPoint(branch.then_block):
        scf.yield_([loop.result])
    with ir.InsertionPoint(branch.else_block):
        scf.yield_([arith.negf(loop.result)])
    C[tid] = fx.Float32(branch.result)


@flyc.jit
def _run_region(A: fx.Tensor, C: fx.Tensor):
    _region_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_raw_scf_regions_in_a_kernel():
    a = np.linspace(-2, 2, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_region(a, c)
    np.testing.assert_array_equal(c, np.abs(8 * a))


@flyc.kernel
def _raw_condition_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    x = arith.addf(A[tid], arith.constant(T.f32(), 0.0))
    positive = arith.cmpf(arith.CmpFPredicate.OGT, x, arith.constant(T.f32(), 0.0))
    odd = arith.andi(tid.ir_value(), arith.constant(T.i32(), 1))
    value = fx.Float32(x)
    # Raw values as conditions, as FlyDSL's kernels write them: an i1 and an
    # ArithValue comparison in `and` / `not`, an i32 as `!= 0`.
    if positive and not x < 1.0:
        C[tid] = value * 2.0
    else:
        C[tid] = value if odd else -value


@flyc.jit
def _run_raw_condition(A: fx.Tensor, C: fx.Tensor):
    _raw_condition_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_raw_values_as_conditions_of_if_and_not_and_conditional_expressions():
    a = np.linspace(-3, 3, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_raw_condition(a, c)
    odd = np.arange(N) % 2 == 1
    expected = np.where(a >= 1, 2 * a, np.where(odd, a, -a))
    np.testing.assert_array_equal(c, expected)


@flyc.kernel
def _caster_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    x = arith.addf(A[tid], A[tid])
    C[tid] = x.as_fx * 3.0


@flyc.jit
def _run_caster(A: fx.Tensor, C: fx.Tensor):
    _caster_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_registered_casters_wrap_the_results_of_raw_builders(monkeypatch):
    monkeypatch.setattr(_values, "_VALUE_CASTERS", {})

    class WithFx(ir.Value):
        @property
        def as_fx(self):
            return fx.Float32(self)

    ir.register_value_caster(ir.F32Type.static_typeid, WithFx)
    a = np.linspace(-1, 1, N).astype(np.float32)
    c = np.zeros(N, np.float32)
    _run_caster(a, c)
    np.testing.assert_array_equal(c, 6 * a)


@flyc.kernel
def _bad_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    C[tid] = fx.Float32(arith.addf(A[tid], tid))  # L:bad_operand


@flyc.jit
def _run_bad(A: fx.Tensor, C: fx.Tensor):
    _bad_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_a_wrong_operand_in_a_kernel_is_an_error_at_its_line():
    a = np.zeros(N, np.float32)
    with pytest.raises(ir.MLIRError) as err:
        _run_bad(a, a.copy())
    assert err.value.filename == __file__ and err.value.lineno == LINES["bad_operand"]
    assert "'arith.addf' op operand #1 must be floating-point-like, but got 'i32'" in str(err.value)
