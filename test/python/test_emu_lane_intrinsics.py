"""AMDGPU intrinsics that FlyDSL's kernel library calls through
`llvm.call_intrinsic` rather than as ROCDL ops, run on the emulator against
numpy models written from the ISA's definitions:

- `llvm.amdgcn.update.dpp.i32` (V_MOV_B32 with DPP, the form of
  kernels/common/dpp_utils.py): lane selects, row and bank masks, bound_ctrl,
  and the row_shr scan of the MoE sorting kernels;
- `llvm.amdgcn.s.buffer.load.{i32,v4i32,v8i32,v16i32}` (S_BUFFER_LOAD_DWORD*):
  the resource as the vector<4xi32> bits of a buffer resource pointer (as
  buffer_ops' `is_scalar` loads pass it) and as a V# built from words; the
  offset's two low bits dropped, each dword range-checked on its own;
- `llvm.amdgcn.perm` (V_PERM_B32, fx.rocdl.perm_b32): byte selectors 0-7,
  the sign selectors 8-11, 12 (0x00) and 13 and up (0xff).

gfx942 (wave64) and gfx1100 (wave32); for gfx942 the code object's ISA has
the instructions too."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, fly, llvm, rocdl, vector
from flydsl.expr import rocdl as fx_rocdl
from flydsl.expr.typing import T
from flydsl.expr.utils.arith import _to_raw

from test_rocdl_misc import dpp_model, isa_lines

MASK32 = (1 << 32) - 1


def on_emu(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_GPU_ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def compile_only(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_GPU_ARCH=arch, COMPILE_ONLY="1", FLYDSL_RUNTIME_KIND=None)


def i32(value):
    return arith.constant(T.i32, value)


# ---- update.dpp ---------------------------------------------------------------------

def update_dpp_i32(old, src, ctrl, row_mask, bank_mask, bound_ctrl):
    """llvm.amdgcn.update.dpp.i32 as FlyDSL's kernels call it."""
    return llvm.call_intrinsic(T.i32, "llvm.amdgcn.update.dpp.i32",
                               [old, src, i32(ctrl), i32(row_mask), i32(bank_mask),
                                arith.constant(ir.IntegerType.get_signless(1), int(bound_ctrl))],
                               [], [])


DPP_CASES = [  # dpp_ctrl, row_mask, bank_mask, bound_ctrl
    (0x1B, 0xF, 0xF, False),   # quad_perm [3,2,1,0]
    (0x111, 0xF, 0xF, True),   # row_shr:1, the row's first lane gets 0
    (0x118, 0xF, 0xC, False),  # row_shr:8 on banks 2-3 only (dpp_utils' xor-8 half)
    (0x104, 0x5, 0xF, True),   # row_shl:4 on rows 0 and 2
    (0x12F, 0xF, 0xF, False),  # row_ror:15
    (0x140, 0xA, 0x9, False),  # row_mirror, rows 1 and 3, banks 0 and 3
    (0x141, 0xF, 0xF, True),   # row_half_mirror
]
SCAN_SHIFTS = [1, 2, 4, 8]


@flyc.kernel
def dpp_kernel(A: fx.Tensor, Old: fx.Tensor, Out: fx.Tensor, Scan: fx.Tensor):
    tid = fx.thread_idx.x
    a, old = _to_raw(A[tid]), _to_raw(Old[tid])
    for k, (ctrl, rm, bm, bc) in enumerate(DPP_CASES):
        Out[k * fx.block_dim.x + tid] = fx.Int32(update_dpp_i32(old, a, ctrl, rm, bm, bc))
    # The MoE sorting kernels' row scan: lane r of a row of 16 adds the
    # value r - n lanes back; bound_ctrl gives the row's first n lanes 0.
    total = A[tid]
    for n in SCAN_SHIFTS:
        total = total + fx.Int32(update_dpp_i32(i32(0), _to_raw(total), 0x110 + n, 0xF, 0xF, True))
    Scan[tid] = total


@flyc.jit
def run_dpp(A: fx.Tensor, Old: fx.Tensor, Out: fx.Tensor, Scan: fx.Tensor, n: fx.Constexpr[int]):
    dpp_kernel(A, Old, Out, Scan).launch(grid=(1, 1, 1), block=(n, 1, 1))


@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
def test_update_dpp_intrinsic_against_numpy(fly_env, arch, wave):
    on_emu(fly_env, arch)
    n = 2 * wave
    rng = np.random.default_rng(11)
    a = rng.integers(1, 1 << 12, n).astype(np.int32)
    old = -rng.integers(1, 1 << 20, n).astype(np.int32)
    out = np.zeros(len(DPP_CASES) * n, np.int32)
    scan = np.zeros(n, np.int32)
    run_dpp(a, old, out, scan, n)
    for k, (ctrl, rm, bm, bc) in enumerate(DPP_CASES):
        np.testing.assert_array_equal(out[k * n:(k + 1) * n], dpp_model(old, a, ctrl, rm, bm, bc, wave),
                                      err_msg=f"dpp_ctrl=0x{ctrl:x} row_mask={rm:#x} "
                                              f"bank_mask={bm:#x} bound_ctrl={bc}")
    np.testing.assert_array_equal(scan, np.cumsum(a.reshape(-1, 16), axis=1).reshape(-1))


# ---- s.buffer.load -------------------------------------------------------------------

SRC_DWORDS = 24
NUM_RECORDS = 40  # bytes: dwords 0-9 of the source are in range
LOAD_CASES = [  # (dwords, byte offset); None: the kernel's `dynamic` argument
    (1, 8),    # dword 2
    (1, 13),   # the two low bits dropped: dword 3
    (4, 32),   # dwords 8, 9 in range, 10 and 11 read 0
    (8, 4),    # dwords 1-8
    (16, 0),   # dwords 0-9, then six 0s
    (1, None),
]
LOADED = sum(w for w, _ in LOAD_CASES)


def resource_words(tensor, hand_built):
    """The vector<4xi32> an s.buffer.load takes: the bits of a buffer
    resource pointer (ptrtoint to i128, bitcast), as FlyDSL's buffer_ops
    passes one; or, hand-built, a gfx9 V#: base [47:0], stride 0,
    num_records, a raw buffer's data/number format word."""
    base = fly.extract_aligned_pointer_as_index(llvm.PointerType.get(), tensor)
    flags = (7 << 12) | (4 << 15)
    if not hand_built:
        rsrc = rocdl.make_buffer_rsrc(llvm.PointerType.get(8), base, arith.constant(T.i16, 0),
                                      arith.constant(T.i64, NUM_RECORDS), i32(flags))
        return llvm.bitcast(T.vec(4, T.i32), llvm.ptrtoint(ir.IntegerType.get_signless(128), rsrc))
    address = llvm.ptrtoint(T.i64, base)
    lo = arith.trunci(T.i32, address)
    hi = arith.andi(arith.trunci(T.i32, arith.shrui(address, arith.constant(T.i64, 32))),
                    i32(0xFFFF))
    return vector.from_elements(T.vec(4, T.i32), [lo, hi, i32(NUM_RECORDS), i32(flags)])


@flyc.kernel
def scalar_load_kernel(Src: fx.Tensor, Out: fx.Tensor, dynamic: fx.Int32,
                       hand_built: fx.Constexpr[bool]):
    tid = fx.thread_idx.x
    words = resource_words(Src, hand_built)
    at = 0
    for dwords, offset in LOAD_CASES:
        name = "i32" if dwords == 1 else f"v{dwords}i32"
        result = T.i32 if dwords == 1 else T.vec(dwords, T.i32)
        off = _to_raw(dynamic) if offset is None else i32(offset)
        value = llvm.call_intrinsic(result, f"llvm.amdgcn.s.buffer.load.{name}",
                                    [words, off, i32(0)], [], [])
        for j in fx.range_constexpr(dwords):
            element = value if dwords == 1 else vector.extract(value, [], [j])
            Out[tid * LOADED + at + j] = fx.Int32(element)
        at += dwords


@flyc.jit
def run_scalar_loads(Src: fx.Tensor, Out: fx.Tensor, dynamic: fx.Int32,
                     hand_built: fx.Constexpr[bool], n: fx.Constexpr[int]):
    scalar_load_kernel(Src, Out, dynamic, hand_built).launch(grid=(1, 1, 1), block=(n, 1, 1))


def scalar_load_model(src, dynamic):
    """S_BUFFER_LOAD_DWORD*: dword i at (offset & ~3) + 4i, 0 unless its
    four bytes lie below num_records."""
    out = []
    for dwords, offset in LOAD_CASES:
        start = (dynamic if offset is None else offset) & ~3
        for i in range(dwords):
            at = start + 4 * i
            out.append(src[at // 4] if at + 4 <= NUM_RECORDS else 0)
    return np.array(out, np.int32)


@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
@pytest.mark.parametrize("hand_built", [False, True])
def test_scalar_buffer_load_against_numpy(fly_env, arch, wave, hand_built):
    on_emu(fly_env, arch)
    src = np.arange(100, 100 + SRC_DWORDS, dtype=np.int32)
    for dynamic in (36, 38, 40):  # dword 9; 38 is dword 9 too; 40 is past the end
        out = np.full(wave * LOADED, -1, np.int32)
        run_scalar_loads(src, out, dynamic, hand_built, wave)
        want = scalar_load_model(src, dynamic)
        np.testing.assert_array_equal(out.reshape(wave, LOADED), np.tile(want, (wave, 1)),
                                      err_msg=f"dynamic offset {dynamic}")


def test_scalar_buffer_load_isa(fly_env):
    compile_only(fly_env, "gfx942")
    src, out = np.zeros(SRC_DWORDS, np.int32), np.zeros(64 * LOADED, np.int32)
    isa = isa_lines(flyc.compile(run_scalar_loads, src, out, 0, False, 64))
    for mnemonic in ("s_buffer_load_dword ", "s_buffer_load_dwordx4", "s_buffer_load_dwordx8",
                     "s_buffer_load_dwordx16"):
        assert any(x.startswith(mnemonic) for x in isa), (mnemonic, isa)


# ---- perm ----------------------------------------------------------------------------

@flyc.kernel
def perm_kernel(Hi: fx.Tensor, Lo: fx.Tensor, Sel: fx.Tensor, Out: fx.Tensor):
    tid = fx.thread_idx.x
    Out[tid] = fx.Int32(fx_rocdl.perm_b32(_to_raw(Hi[tid]), _to_raw(Lo[tid]), _to_raw(Sel[tid])))


@flyc.jit
def run_perm(Hi: fx.Tensor, Lo: fx.Tensor, Sel: fx.Tensor, Out: fx.Tensor, n: fx.Constexpr[int]):
    perm_kernel(Hi, Lo, Sel, Out).launch(grid=(1, 1, 1), block=(n, 1, 1))


def perm_model(hi, lo, sel):
    """V_PERM_B32: byte k of the result from selector byte k of `sel` over
    the bytes of hi:lo (lo bytes 0-3): 0-7 that byte, 8-11 the sign of byte
    1, 3, 5 or 7 as 0x00 / 0xff, 12 0x00, 13-255 0xff."""
    data = (hi.astype(np.uint64) & MASK32) << np.uint64(32) | (lo.astype(np.uint64) & MASK32)
    out = np.zeros(len(hi), np.uint64)
    for k in range(4):
        s = (sel.astype(np.uint64) >> np.uint64(8 * k)) & np.uint64(0xFF)
        byte = (data >> (np.uint64(8) * np.minimum(s, 7))) & np.uint64(0xFF)
        sign_bit = (data >> (np.uint64(16) * (np.clip(s, 8, 11) - np.uint64(8)) + np.uint64(15))) & 1
        byte = np.where(s < 8, byte, np.where(s < 12, sign_bit * np.uint64(0xFF),
                                              np.where(s == 12, 0, 0xFF)))
        out |= byte.astype(np.uint64) << np.uint64(8 * k)
    return out.astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
def test_perm_against_numpy(fly_env, arch, wave):
    on_emu(fly_env, arch)
    n = 4 * wave
    rng = np.random.default_rng(5)
    hi = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
    lo = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
    # Selector bytes: 0-15 everywhere, and some lanes with large bytes.
    picks = rng.integers(0, 16, (n, 4)).astype(np.uint32)
    picks[::5] = rng.integers(0, 256, (len(picks[::5]), 4))
    sel = (picks[:, 0] | picks[:, 1] << 8 | picks[:, 2] << 16 | picks[:, 3] << 24).view(np.int32)
    out = np.zeros(n, np.int32)
    run_perm(hi, lo, sel, out, n)
    np.testing.assert_array_equal(out, perm_model(hi, lo, sel))
    # Every selector value was exercised.
    assert set(range(14)) <= set(picks.reshape(-1).tolist())


def test_perm_and_dpp_isa(fly_env):
    compile_only(fly_env, "gfx942")
    z = np.zeros(64, np.int32)
    assert any(x.startswith("v_perm_b32") for x in isa_lines(flyc.compile(run_perm, z, z, z, z, 64)))
    isa = isa_lines(flyc.compile(run_dpp, z, z, np.zeros(64 * len(DPP_CASES), np.int32), z, 64))
    assert any(x.startswith("v_mov_b32_dpp") and "row_shr:1" in x for x in isa), isa
