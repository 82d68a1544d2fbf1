"""A kernel that makes an invalid memory access on the CPU emulator raises a
FlyDSLError naming the fault, and the process lives on.

The kernel is written with the Python front end and compiled by the real
compiler: one work-item stores through a view of a small numpy array whose
stride is a dynamic 64-bit kernel argument, so the address (2^40 elements
away, or far beyond the 47-bit user address space) is computed at run time
and nothing folds. The emulator's SIGSEGV handler turns the fault into a
launch error (runtime/emu/StackGuard.cpp, the "Errors" section of
fly/runtime/Emu.h). Everything runs in this interpreter: surviving the
fault, and launching correctly afterwards, is the point. Every test runs
in both of the emulator's modes.
"""


import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler import FlyDSLError

BLOCK = 64
FAR = 1 << 40  # elements: 4 TiB from the array


@pytest.fixture(autouse=True, params=["fiber", "wave"])
def emulator(fly_env, request):
    """Kernels run on the CPU emulator for gfx942, as fibers and as SIMD
    waves: a wave's fault names its work-item too (the runtime replays the
    faulted workgroup as work-items)."""
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None,
            FLYDSL_EMU_MODE=request.param)


@flyc.kernel
def add_one_or_poke(A: fx.Tensor, B: fx.Tensor, off: fx.Int64, who: fx.Int32):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    if i == who:
        # Element 1 of this two-element view is B's first element + `off`.
        far = fx.make_view(B.iterator, fx.make_layout((2,), (off,)))
        far[1] = -1.0
    B[i] = A[i] + 1.0


@flyc.jit
def add_one(A, B, off: fx.Int64, who: fx.Int32):
    add_one_or_poke(A, B, off, who).launch(grid=(A.shape[0] // BLOCK, 1, 1),
                                           block=(BLOCK, 1, 1))


def _arrays(n=4 * BLOCK, seed=0):
    a = np.random.default_rng(seed).random(n, dtype=np.float32)
    return a, np.zeros_like(a)


def _far_offset(b) -> int:
    """2^40 elements from b, in whichever direction stays a canonical user
    address (below 2^47): the fault then reports that exact address."""
    base = b.ctypes.data
    off = -FAR if base >= FAR * 4 + (1 << 32) else FAR
    assert 0 < base + off * 4 < 1 << 47
    return off


def check_good(seed):
    """A correct launch: every element of numpy's result."""
    a, b = _arrays(seed=seed)
    add_one(a, b, fx.Int64(0), fx.Int32(-1))
    np.testing.assert_array_equal(b, a + 1.0)


def test_out_of_bounds_store_is_an_error_and_the_process_survives():
    check_good(1)  # compiled and run once before the fault
    # Several faults, each followed by a correct launch: the handler keeps
    # working after a fault (the signal mask is restored when it returns).
    for round, (group, item) in enumerate([(2, 5), (0, 63), (3, 0)]):
        a, b = _arrays(seed=round)
        off = _far_offset(b)
        address = b.ctypes.data + off * 4
        with pytest.raises(FlyDSLError) as e:
            add_one(a, b, fx.Int64(off), fx.Int32(group * BLOCK + item))
        message = str(e.value)
        assert (f"kernel fault in workgroup ({group},0,0), work-item ({item},0,0): "
                f"invalid memory access (SIGSEGV) at address 0x{address:x}: "
                "nothing is mapped there") in message, message
        # The faulting work-item stopped at the access: its element of B
        # was never written.
        assert b[group * BLOCK + item] == 0.0
        check_good(10 + round)


def test_non_canonical_address_is_reported_without_an_address():
    # 2^60 elements = 2^62 bytes: beyond the 47-bit user address space, a
    # general-protection fault, for which the processor reports no address.
    a, b = _arrays(seed=3)
    with pytest.raises(FlyDSLError) as e:
        add_one(a, b, fx.Int64(1 << 60), fx.Int32(BLOCK + 7))
    message = str(e.value)
    assert ("kernel fault in workgroup (1,0,0), work-item (7,0,0): invalid memory "
            "access (SIGSEGV) at an address the processor does not report "
            "(a general-protection fault") in message, message
    assert b[BLOCK + 7] == 0.0
    check_good(4)


def test_fault_in_a_grid_on_the_thread_pool_then_a_full_grid():
    # A grid of 64 workgroups on the emulator's whole pool, faulting in the
    # last one: whichever thread takes it reports it, and the pool runs the
    # next launch completely.
    n = 64 * BLOCK
    a, b = _arrays(n, seed=5)
    off = _far_offset(b)
    with pytest.raises(FlyDSLError, match=r"kernel fault in workgroup \(63,0,0\), "
                                          r"work-item \(1,0,0\): invalid memory access "
                                          r"\(SIGSEGV\) at address 0x"):
        add_one(a, b, fx.Int64(off), fx.Int32(n - BLOCK + 1))
    a, b = _arrays(n, seed=6)
    add_one(a, b, fx.Int64(0), fx.Int32(-1))
    np.testing.assert_array_equal(b, a + 1.0)


@flyc.kernel
def divide(A: fx.Tensor, B: fx.Tensor, d: fx.Int32, who: fx.Int32):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    # One work-item divides by `d` (0: a division by zero, undefined), the
    # others by 1.
    divisor = fx.arith.select(i == who, d, fx.Int32(1))
    B[i] = A[i] // divisor


@flyc.jit
def run_divide(A, B, d: fx.Int32, who: fx.Int32):
    divide(A, B, d, who).launch(grid=(A.shape[0] // BLOCK, 1, 1), block=(BLOCK, 1, 1))


@pytest.mark.parametrize("numerator, d", [(5, 0), (-(2**31), -1)])
def test_integer_division_fault_is_an_error_and_the_process_survives(numerator, d):
    """An integer division by zero, or INT_MIN / -1, raises SIGFPE on the
    host; it is a launch error naming the work-item, not the end of the
    process."""
    a = np.full(2 * BLOCK, numerator, np.int32)
    b = np.zeros_like(a)
    with pytest.raises(FlyDSLError) as e:
        run_divide(a, b, fx.Int32(d), fx.Int32(BLOCK + 9))
    assert ("kernel fault in workgroup (1,0,0), work-item (9,0,0): integer division by "
            "zero, or of the most negative value by -1 (SIGFPE)") in str(e.value), str(e.value)
    run_divide(a, b, fx.Int32(1), fx.Int32(-1))
    np.testing.assert_array_equal(b, a)
