"""fly.extract_aligned_pointer_as_index, the raw builder FlyDSL's kernel
library takes a tensor's base address with (buffer_ops' buffer resources,
mem_ops' global pointers), inside @flyc.kernel functions on the CPU emulator
of gfx942 and gfx1100 against numpy: a buffer resource from the generic
pointer, global-pointer arithmetic on a row of a 2-D tensor, and a pointer
in an address space the memref cannot be cast to as an error at the
kernel's line."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, fly, llvm, rocdl
from flydsl._mlir.extras import types as T
from flydsl.runtime.device import is_rdna_arch

LINES = marker_lines(__file__)
N = 64
ROWS = 4


@pytest.fixture(autouse=True, params=["gfx942", "gfx1100"])
def emulator(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def _buffer_flags():
    """The V# flags word buffer_ops builds: float data and 32-bit number
    formats, plus RDNA's reserved bit and OOB_SELECT = 2."""
    flags = (7 << 12) | (4 << 15)
    if is_rdna_arch():
        flags |= (1 << 24) | (2 << 28)
    return flags


def _buffer_resource(tensor, num_records_bytes):
    """A V# over `tensor` as buffer_ops.create_buffer_resource makes it:
    the base in the generic address space, cast by the op."""
    base = fly.extract_aligned_pointer_as_index(ir.Type.parse("!llvm.ptr"), tensor)
    return rocdl.make_buffer_rsrc(ir.Type.parse("!llvm.ptr<8>"), base,
                                  arith.constant(T.i16(), 0),
                                  arith.constant(T.i64(), num_records_bytes),
                                  arith.constant(T.i32(), _buffer_flags()))


# A's resource ends 8 elements early: loads past it read 0, as on hardware,
# which shows that the resource's base and size are A's.
VISIBLE = N - 8


@flyc.kernel
def _buffer_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    src = _buffer_resource(A, VISIBLE * 4)
    dst = _buffer_resource(C.ir, N * 4)   # the raw SSA value works as well
    zero = arith.constant(T.i32(), 0)
    byte_offset = arith.muli(tid, arith.constant(T.i32(), 4))
    x = rocdl.raw_ptr_buffer_load(T.f32(), src, byte_offset, zero, zero)
    rocdl.raw_ptr_buffer_store(arith.addf(x, arith.constant(T.f32(), 1.0)), dst,
                               byte_offset, zero, zero)


@flyc.jit
def _run_buffer(A: fx.Tensor, C: fx.Tensor):
    _buffer_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_buffer_resource_from_the_generic_base_pointer():
    a = np.linspace(-4, 4, N).astype(np.float32)
    c = np.full(N, -7, np.float32)
    _run_buffer(a, c)
    expected = np.where(np.arange(N) < VISIBLE, a, 0) + 1
    np.testing.assert_array_equal(c, expected)


def _element_address(row, index, element_bytes):
    """mem_ops.get_llvm_ptr's arithmetic: the !llvm.ptr<1> base of `row`,
    plus index * element_bytes, as integers."""
    global_ptr = ir.Type.parse("!llvm.ptr<1>")
    base = llvm.ptrtoint(T.i64(), fly.extract_aligned_pointer_as_index(global_ptr, row))
    offset = arith.extsi(T.i64(), arith.muli(index, arith.constant(T.i32(), element_bytes)))
    return llvm.inttoptr(global_ptr, arith.addi(base, offset))


@flyc.kernel
def _row_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    row = fx.block_idx.x
    # A row's memref starts at the row: its pointer is the base to take.
    x = llvm.load(T.f32(), _element_address(A[row, None], tid, 4))
    y = arith.mulf(x, arith.constant(T.f32(), 2.0))
    llvm.store(arith.subf(y, arith.sitofp(T.f32(), row.ir_value())),
               _element_address(C[row, None], tid, 4))


@flyc.jit
def _run_rows(A: fx.Tensor, C: fx.Tensor):
    _row_kernel(A, C).launch(grid=(ROWS, 1, 1), block=(N, 1, 1))


def test_global_pointer_arithmetic_on_the_rows_of_a_tensor():
    a = np.arange(ROWS * N, dtype=np.float32).reshape(ROWS, N) / 8
    c = np.zeros((ROWS, N), np.float32)
    _run_rows(a, c)
    np.testing.assert_array_equal(c, 2 * a - np.arange(ROWS, dtype=np.float32)[:, None])


@flyc.kernel
def _shared_pointer_of_global_kernel(A: fx.Tensor):
    fly.extract_aligned_pointer_as_index(ir.Type.parse("!llvm.ptr<3>"), A)  # L:bad_space


@flyc.jit
def _run_shared_pointer_of_global(A: fx.Tensor):
    _shared_pointer_of_global_kernel(A).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_a_pointer_in_another_specific_space_is_an_error_at_its_line():
    with pytest.raises(ir.MLIRError) as err:
        _run_shared_pointer_of_global(np.zeros(N, np.float32))
    assert err.value.filename == __file__ and err.value.lineno == LINES["bad_space"]
    assert ("'fly.extract_aligned_pointer_as_index' op cannot cast a memref in address "
            "space 1 to a pointer in address space 3") in str(err.value)
