"""AMDGPU inline assembly (`llvm.inline_asm`) in kernels, run on the emulator
against numpy, as FlyDSL's kernel library writes it:

- gfx942 and gfx950: s_nop / s_waitcnt / s_barrier sequences, ds_write_b32
  and ds_read_b32 with an offset (an LDS reverse across two waves through
  the asm's barrier), global_load_dwordx4 through an integer address and
  global_store_dwordx4 ... sc0 sc1 through a pointer, buffer_inv sc1, the
  empty "=v,0" optimisation barrier (one and several operands), a branch
  inside one asm block (s_cmp_eq_u32, s_cbranch_scc0, a label, s_barrier),
  registers the text names itself (M0 across asm statements, s0, v0),
  v_cmp into SGPR lane masks and v_cndmask on them (and on gfx1100's
  wave32), a CDNA3 MFMA (v_mfma_f32_16x16x16_f16);
- gfx950: v_cvt_pk_bf16_f32 (round to nearest even, with neg / abs
  modifiers), ds_read_b64_tr_b16 / _tr_b8 against the ISA's transpose,
  v_mfma_f32_16x16x128_f8f6f4 on AGPRs ("=a,v,v,0") and
  v_mfma_scale_f32_16x16x128_f8f6f4 with op_sel;
- `;` starts a comment (as LLVM's assembler reads it for the GPU);
- FLYDSL_EMU_CHECK sees the asm's accesses (an LDS store past the LDS, a
  transposing read past it, a global store past its tensor, an LDS race
  without the asm's barrier, a barrier in the asm under a lane-dependent
  condition), each at the asm's line;
- the GPU compile keeps the asm as written (the ISA has the instructions);
- asm the emulator cannot run (an instruction the chip lacks, one it has no
  semantics for, an unsupported constraint) is a located CompileError
  naming the instruction and the chip.

The kernels build the op as FlyDSL's kernel library does, with the raw
builder `llvm.inline_asm(result_type, operands, text, constraints,
has_side_effects=True)` (a result type of None or !llvm.void for asm
without outputs; ArithValues back), and read several outputs with
`llvm.extractvalue`.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl._mlir import ir
from flydsl._mlir.dialects import llvm, vector
from flydsl.expr.typing import T
from flydsl.expr.typing import Vector as Vec
from flydsl.expr.utils.arith import _to_raw

HERE = os.path.abspath(__file__)
VOID = ir.Type.parse("!llvm.void")  # FlyDSL's result type of asm without outputs


def address32(pointer):
    """An LDS pointer as the 32-bit address DS instructions take."""
    return llvm.ptrtoint(T.i32, fx.to_llvm_ptr(pointer))


def address64(pointer):
    return llvm.ptrtoint(T.i64, fx.to_llvm_ptr(pointer))


def line_of(kernel, marker):
    """The line of this file ending with `marker` in `kernel`'s source."""
    lines, first = inspect.getsourcelines(kernel.fn)
    found = [first + i for i, line in enumerate(lines) if line.rstrip().endswith(marker)]
    assert len(found) == 1, (marker, found)
    return found[0]


@pytest.fixture
def emu(fly_env):
    def on(arch, **env):
        fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH=arch, COMPILE_ONLY=None, **env)
    return on


CHIPS = ["gfx942", "gfx950"]


# ---- s_nop, s_waitcnt, s_barrier, ds_write_b32 / ds_read_b32 -------------------------

@fx.struct
class Shared:
    buf: fx.Array[fx.Float32, 132, 16]


@flyc.kernel
def lds_reverse_kernel(A: fx.Tensor, C: fx.Tensor, offset: fx.Constexpr[int], sync: fx.Constexpr[bool]):
    """128 work-items (two waves) reverse A through LDS with DS asm; the
    offset field moves both addresses."""
    t = fx.thread_idx.x
    s = fx.SharedAllocator(static=True).allocate(Shared).peek().buf.view(fx.make_layout(132, 1))
    base = address32(fx.get_iter(s))
    llvm.inline_asm(VOID, [], "s_nop 7", "", has_side_effects=True)
    llvm.inline_asm(None, [_to_raw(base + t * 4), _to_raw(A[t])], f"ds_write_b32 $0, $1 offset:{offset}", "v,v", has_side_effects=True)  # the LDS store
    if sync:
        llvm.inline_asm(None, [], "s_waitcnt lgkmcnt(0)\ns_barrier", "", has_side_effects=True)
    mine = llvm.inline_asm(T.f32, [_to_raw(base + (127 - t) * 4)], f"ds_read_b32 $0, $1 offset:{offset}", "=v,v", has_side_effects=True)  # the LDS load
    C[t] = mine


@flyc.jit
def lds_reverse(A: fx.Tensor, C: fx.Tensor, offset: fx.Constexpr[int] = 16, sync: fx.Constexpr[bool] = True):
    lds_reverse_kernel(A, C, offset, sync).launch(grid=(1, 1, 1), block=(128, 1, 1))


@pytest.mark.parametrize("arch", CHIPS)
def test_ds_write_and_read_with_offsets_across_waves(emu, arch):
    emu(arch)
    a = np.random.default_rng(1).standard_normal(128).astype(np.float32)
    c = np.zeros(128, np.float32)
    lds_reverse(a, c)
    np.testing.assert_array_equal(c, a[::-1])


# ---- global_load / global_store with cache bits, buffer_inv ---------------------------

@flyc.kernel
def global_copy_kernel(A: fx.Tensor, C: fx.Tensor):
    """C[4t:4t+4] = A[4t+4:4t+8]: the load through an integer address (two
    VGPRs) and its offset field, the store through C's pointer."""
    t = fx.thread_idx.x
    words = llvm.inline_asm(T.vec(4, T.i32), [_to_raw(address64(fx.get_iter(A)) + fx.Int64(t) * 16)],
                            "global_load_dwordx4 $0, $1, off offset:16 sc0\ns_waitcnt vmcnt(0)",
                            "=v,v", has_side_effects=True)
    out = fx.to_llvm_ptr(fx.get_iter(C) + t * 4)
    llvm.inline_asm(None, [out, words], "buffer_inv sc1\nglobal_store_dwordx4 $0, $1, off sc0 sc1", "v,v", has_side_effects=True)  # the global store


@flyc.jit
def global_copy(A: fx.Tensor, C: fx.Tensor, threads: fx.Constexpr[int] = 64):
    global_copy_kernel(A, C).launch(grid=(1, 1, 1), block=(threads, 1, 1))


@pytest.mark.parametrize("arch", CHIPS)
def test_global_load_and_store_with_cache_bits(emu, arch):
    emu(arch)
    a = np.arange(64 * 4 + 4, dtype=np.int32) * 7 - 100
    c = np.full(64 * 4, -1, np.int32)
    global_copy(a, c)
    np.testing.assert_array_equal(c, a[4:])


# ---- the "=v,0" optimisation barrier ------------------------------------------------------

@flyc.kernel
def anchor_kernel(A: fx.Tensor, C: fx.Tensor):
    t = fx.thread_idx.x
    x = A[t]
    acc = fx.Vector.from_elements([A[t] + i for i in range(16)], fx.Float32)
    pinned = llvm.inline_asm(T.f32, [_to_raw(x)], "", "=v,0", has_side_effects=True)
    acc_raw = _to_raw(acc)
    pinned_acc = llvm.inline_asm(acc_raw.type, [acc_raw], "", "=v,0", has_side_effects=True)
    # Several values at once: a struct of the outputs, each tied to its input.
    pair = llvm.StructType.get_literal([T.f32, acc_raw.type])
    both = llvm.inline_asm(pair, [_to_raw(x * 2.0), acc_raw], "", "=v,=v,0,1", has_side_effects=True)
    first = llvm.extractvalue(T.f32, both, [0])
    second = llvm.extractvalue(acc_raw.type, both, [1])
    C[t * 4] = pinned
    C[t * 4 + 1] = Vec(pinned_acc)[15]
    C[t * 4 + 2] = first
    C[t * 4 + 3] = vector.extract(second, [], [3])


@flyc.jit
def anchor(A: fx.Tensor, C: fx.Tensor):
    anchor_kernel(A, C).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("arch", CHIPS)
def test_empty_asm_with_tied_operands_is_the_identity(emu, arch):
    emu(arch)
    a = np.random.default_rng(2).standard_normal(64).astype(np.float32)
    c = np.zeros(256, np.float32)
    anchor(a, c)
    got = c.reshape(64, 4)
    np.testing.assert_array_equal(got[:, 0], a)
    np.testing.assert_array_equal(got[:, 1], a + np.float32(15))
    np.testing.assert_array_equal(got[:, 2], a * np.float32(2))
    np.testing.assert_array_equal(got[:, 3], a + np.float32(3))


# ---- branches inside one asm block --------------------------------------------------------

@flyc.kernel
def branch_kernel(A: fx.Tensor, C: fx.Tensor, flag: fx.Int32, per_lane: fx.Constexpr[bool]):
    t = fx.thread_idx.x
    f = fx.Int32(t % 2) if per_lane else flag
    # FlyDSL's idiom: a barrier only when the (uniform) flag is 0.
    llvm.inline_asm(VOID, [_to_raw(f)], "s_cmp_eq_u32 $0, 0\n\ts_cbranch_scc0 1f\n\ts_barrier\n\t1:", "s", has_side_effects=True)  # the asm barrier
    # The same branch deciding a value: 7 when the flag is 0, else A[t].
    picked = llvm.inline_asm(T.i32, [_to_raw(f), _to_raw(fx.Int32(A[t]))],
                             "s_cmp_eq_u32 $1, 0\n\ts_cbranch_scc0 1f\n\tv_mov_b32 $0, 7\n1:",
                             "=v,s,0", has_side_effects=True)
    C[t] = picked


@flyc.jit
def branch(A: fx.Tensor, C: fx.Tensor, flag: fx.Int32, per_lane: fx.Constexpr[bool] = False):
    branch_kernel(A, C, flag, per_lane).launch(grid=(1, 1, 1), block=(128, 1, 1))


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("flag", [0, 1])
def test_branch_to_a_label_of_the_asm(emu, arch, flag):
    emu(arch)
    a = np.arange(128, dtype=np.int32) + 100
    c = np.zeros(128, np.int32)
    branch(a, c, flag)
    np.testing.assert_array_equal(c, np.full(128, 7) if flag == 0 else a)


def test_a_barrier_in_the_asm_is_checked_for_divergence(emu):
    """The asm's s_barrier is the emulator's barrier: under a lane-dependent
    flag (an `s` operand that is not uniform), half of each wave reaches it
    and the barrier check reports it at the asm's line."""
    emu("gfx942", FLYDSL_EMU_CHECK="barrier")
    a = np.arange(128, dtype=np.int32)
    with pytest.raises(flyc.EmuCheckError) as info:
        branch(a, np.zeros(128, np.int32), 0, True)
    kinds = {r["kind"] for r in info.value.reports}
    assert kinds == {"barrier divergence"}, str(info.value)
    assert {(r["file"], r["line"]) for r in info.value.reports} == {
        (HERE, line_of(branch_kernel, "# the asm barrier"))}


# ---- registers the text names itself ----------------------------------------------------

@flyc.kernel
def named_registers_kernel(A: fx.Tensor, C: fx.Tensor):
    """M0 set by one asm statement and advanced by the next (FlyDSL's LDS
    DMA idiom), s0 / v0 as scratch, and scalar arithmetic with SCC. The
    operands are fx values here: the raw builders take them as they are."""
    t = fx.thread_idx.x
    llvm.inline_asm(None, [fx.Int32(1000)], "s_mov_b32 m0, $0", "s", has_side_effects=True)
    llvm.inline_asm(None, [], "s_add_u32 m0, 24, m0", "", has_side_effects=True)
    m0 = llvm.inline_asm(T.i32, [], "s_mov_b32 s0, m0\nv_mov_b32 $0, s0", "=v,~{s0}",
                         has_side_effects=True)
    summed = llvm.inline_asm(T.i32, [fx.Int32(A[t]), m0],
                             "v_mov_b32 v0, $1\nv_add_u32 $0, v0, $2\nv_lshlrev_b32 $0, 1, $0",
                             "=v,v,v,~{v0}", has_side_effects=True)
    # s_sub_u32 borrows (SCC = 1) when the subtrahend is larger.
    borrow = llvm.inline_asm(T.i32, [fx.Int32(3), fx.Int32(5)],
                             "s_sub_u32 s1, $1, $2\ns_cbranch_scc1 2f\nv_mov_b32 $0, 0\ns_branch 3f\n"
                             "2:\nv_mov_b32 $0, s1\n3:", "=v,s,s,~{s1}", has_side_effects=True)
    C[t * 2] = summed
    C[t * 2 + 1] = borrow


@flyc.jit
def named_registers(A: fx.Tensor, C: fx.Tensor):
    named_registers_kernel(A, C).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("arch", CHIPS)
def test_registers_the_asm_names_itself(emu, arch):
    emu(arch)
    a = np.arange(64, dtype=np.int32) * 3
    c = np.zeros(128, np.int32)
    named_registers(a, c)
    np.testing.assert_array_equal(c[0::2], (a + 1024) * 2)
    np.testing.assert_array_equal(c[1::2], np.full(64, 3 - 5))


# ---- lane masks: FlyDSL's attention mask pair ----------------------------------------------

@flyc.kernel
def mask_kernel(Rel: fx.Tensor, X: fx.Tensor, Out: fx.Tensor, Masks: fx.Tensor,
                mask_type: fx.Constexpr[str]):
    """Two compares into SGPR lane masks, then two v_cndmask on them, as
    FlyDSL's flash attention writes it (thresholds 5 and 40)."""
    t = fx.thread_idx.x
    struct = ir.Type.parse(f"!llvm.struct<({mask_type}, {mask_type}, i32, i32)>")
    both = llvm.inline_asm(struct,
                           [_to_raw(fx.Int32(X[t * 2])), _to_raw(fx.Int32(X[t * 2 + 1])),
                            _to_raw(fx.Int32(Rel[t])), _to_raw(fx.Int32(-1))],
                           "v_cmp_lt_i32_e64 $0, $6, 5\n\t"
                           "v_cmp_lt_i32_e64 $1, $6, 40\n\t"
                           "v_cndmask_b32_e64 $2, $4, $7, $0\n\t"
                           "v_cndmask_b32_e64 $3, $5, $7, $1",
                           "=s,=s,=v,=v,2,3,v,v,~{vcc}", has_side_effects=True)
    for i in fx.range_constexpr(2):
        Out[t * 2 + i] = llvm.extractvalue(T.i32, both, [i + 2])
        mask = llvm.extractvalue(ir.Type.parse(mask_type), both, [i])
        Masks[t * 2 + i] = fx.Int64(mask)


@flyc.jit
def masks(Rel: fx.Tensor, X: fx.Tensor, Out: fx.Tensor, Masks: fx.Tensor, mask_type: fx.Constexpr[str]):
    mask_kernel(Rel, X, Out, Masks, mask_type).launch(grid=(1, 1, 1), block=(128, 1, 1))


@pytest.mark.parametrize("arch,wave,mask_type", [("gfx942", 64, "i64"), ("gfx950", 64, "i64"),
                                                 ("gfx1100", 32, "i32")])
def test_compare_masks_and_cndmask(emu, arch, wave, mask_type):
    emu(arch)
    rel = np.random.default_rng(8).integers(-20, 60, 128).astype(np.int32)
    x = np.arange(256, dtype=np.int32) + 1000
    out, got_masks = np.zeros(256, np.int32), np.zeros(256, np.int64)
    masks(rel, x, out, got_masks, mask_type)
    for i, threshold in enumerate((5, 40)):
        below = rel < threshold
        np.testing.assert_array_equal(out[i::2], np.where(below, -1, x[i::2]))
        # Every lane of a wave holds the wave's mask: bit l for lane l below.
        for w in range(128 // wave):
            lanes = below[w * wave:(w + 1) * wave]
            want = sum(1 << lane for lane in range(wave) if lanes[lane])
            got = got_masks[i::2][w * wave:(w + 1) * wave].astype(np.uint64) & np.uint64((1 << wave) - 1)
            assert set(got.tolist()) == {want}, (i, w)


# ---- MFMA -----------------------------------------------------------------------------

def lane_words(rows, per_lane_k, bits):
    """The registers of the A (or B^T) operand of a 16 x 16 MFMA: lane l holds
    row l % 16, K elements per_lane_k * (l // 16) + j, packed from bit 0
    (codes of `bits` bits)."""
    words = []
    for lane in range(64):
        row, kb = lane % 16, lane // 16
        total = 0
        for j, code in enumerate(rows[row, per_lane_k * kb:per_lane_k * (kb + 1)]):
            total |= int(code) << (bits * j)
        words += [(total >> (32 * w)) & 0xFFFFFFFF for w in range(per_lane_k * bits // 32)]
    return np.array(words, np.uint32).view(np.int32)


def d_matrix(d_lanes):
    """D of a 16 x 16 f32 MFMA from its lanes' 4 registers: register r of
    lane l is D[4 * (l // 16) + r][l % 16] (CDNA3/4 ISA)."""
    d = np.zeros((16, 16))
    for lane in range(64):
        for r in range(4):
            d[4 * (lane // 16) + r, lane % 16] = d_lanes[lane * 4 + r]
    return d


@flyc.kernel
def mfma_kernel(Aw: fx.Tensor, Bw: fx.Tensor, Cin: fx.Tensor, Sa: fx.Tensor, Sb: fx.Tensor,
                D: fx.Tensor, form: fx.Constexpr[str]):
    t = fx.thread_idx.x
    n = 2 if form == "f16" else 8  # registers of A and B
    a = fx.Vector.from_elements([Aw[t * n + i] for i in range(n)], fx.Int32)
    b = fx.Vector.from_elements([Bw[t * n + i] for i in range(n)], fx.Int32)
    c = fx.Vector.from_elements([Cin[t * 4 + i] for i in range(4)], fx.Float32)
    operands = [_to_raw(a), _to_raw(b), _to_raw(c)]
    if form == "f16":
        d = llvm.inline_asm(T.f32x4, operands, "v_mfma_f32_16x16x16_f16 $0, $1, $2, $3",
                            "=v,v,v,v", has_side_effects=True)
    elif form == "f8f6f4":
        # As FlyDSL's fp8 GEMM pins its accumulator: AGPRs, src2 = dst.
        d = llvm.inline_asm(T.f32x4, operands, "v_mfma_f32_16x16x128_f8f6f4 $0, $1, $2, $0",
                            "=a,v,v,0", has_side_effects=True)
    else:
        d = llvm.inline_asm(T.f32x4, operands + [_to_raw(Sa[t]), _to_raw(Sb[t])],
                            "v_mfma_scale_f32_16x16x128_f8f6f4 $0, $1, $2, $0, $4, $5 "
                            "op_sel:[1,0,0] op_sel_hi:[0,1,0]", "=v,v,v,0,v,v", has_side_effects=True)
    for i in fx.range_constexpr(4):
        D[t * 4 + i] = vector.extract(d, [], [i])


@flyc.jit
def mfma(Aw: fx.Tensor, Bw: fx.Tensor, Cin: fx.Tensor, Sa: fx.Tensor, Sb: fx.Tensor,
         D: fx.Tensor, form: fx.Constexpr[str]):
    mfma_kernel(Aw, Bw, Cin, Sa, Sb, D, form).launch(grid=(1, 1, 1), block=(64, 1, 1))


def c_lanes(c):
    """C's lanes' registers (the D layout)."""
    out = np.zeros(256, np.float32)
    for lane in range(64):
        for r in range(4):
            out[lane * 4 + r] = c[4 * (lane // 16) + r, lane % 16]
    return out


def test_cdna3_mfma_f16(emu):
    emu("gfx942")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 16)).astype(np.float16)   # A[i][k]
    bt = rng.standard_normal((16, 16)).astype(np.float16)  # B^T[j][k]
    c = rng.standard_normal((16, 16)).astype(np.float32)
    d = np.zeros(256, np.float32)
    ones = np.ones(64, np.int32)
    mfma(lane_words(a.view(np.uint16), 4, 16), lane_words(bt.view(np.uint16), 4, 16), c_lanes(c),
         ones, ones, d, "f16")
    want = a.astype(np.float64) @ bt.astype(np.float64).T + c
    np.testing.assert_allclose(d_matrix(d), want, rtol=1e-5, atol=1e-5)


def fp8_codes(rng, shape):
    """OCP E4M3 codes of finite values (gfx950's fp8)."""
    codes = rng.integers(0, 256, shape)
    return np.where((codes & 0x7F) == 0x7F, 0x38, codes)


def fp8_values(codes):
    return torch.from_numpy(codes.astype(np.uint8)).view(torch.float8_e4m3fn).double().numpy()


@pytest.mark.parametrize("form", ["f8f6f4", "scale"])
def test_gfx950_fp8_mfma(emu, form):
    emu("gfx950")
    rng = np.random.default_rng(4)
    a, bt = fp8_codes(rng, (16, 128)), fp8_codes(rng, (16, 128))
    c = rng.standard_normal((16, 16)).astype(np.float32)
    # Scale words with other bytes as noise: op_sel:[1,0,0] op_sel_hi:[0,1,0]
    # picks byte 1 of A's scale (op_sel is the selector's bit 0, op_sel_hi
    # its bit 1), byte 2 of B's (E8M0: 2^(e - 127)).
    ea, eb = rng.integers(122, 132, 64), rng.integers(122, 132, 64)
    noise = rng.integers(0, 1 << 8, (64, 4))
    sa = (noise[:, 0] | ea << 8 | noise[:, 2] << 16 | noise[:, 3] << 24).astype(np.uint32)
    sb = (noise[:, 0] | noise[:, 1] << 8 | eb << 16 | noise[:, 3] << 24).astype(np.uint32)
    d = np.zeros(256, np.float32)
    mfma(lane_words(a, 32, 8), lane_words(bt, 32, 8), c_lanes(c), sa.view(np.int32),
         sb.view(np.int32), d, form)
    av, bv = fp8_values(a), fp8_values(bt)
    if form == "scale":
        for lane in range(64):
            row, ks = lane % 16, slice(32 * (lane // 16), 32 * (lane // 16) + 32)
            av[row, ks] *= 2.0 ** (int(ea[lane]) - 127)
            bv[row, ks] *= 2.0 ** (int(eb[lane]) - 127)
    want = av @ bv.T + c
    bound = 4 * 128 * 2.0 ** -24 * (np.abs(av) @ np.abs(bv).T + np.abs(c)) + 1e-30
    got = d_matrix(d)
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) / bound)


# ---- v_cvt_pk_bf16_f32 ---------------------------------------------------------------

@flyc.kernel
def cvt_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, modifiers: fx.Constexpr[bool]):
    t = fx.thread_idx.x
    text = "v_cvt_pk_bf16_f32 $0, -$1, |$2|" if modifiers else "v_cvt_pk_bf16_f32 $0, $1, $2"
    C[t] = llvm.inline_asm(T.i32, [_to_raw(A[t]), _to_raw(B[t])], text, "=v,v,v", has_side_effects=True)


@flyc.jit
def cvt(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, modifiers: fx.Constexpr[bool] = False):
    cvt_kernel(A, B, C, modifiers).launch(grid=(1, 1, 1), block=(64, 1, 1))


def bf16_bits(x):
    """bf16 bits of float32 values, rounded to nearest even (NaNs apart)."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint32) & 0xFFFF


@pytest.mark.parametrize("modifiers", [False, True])
def test_cvt_pk_bf16_f32_rounds_to_nearest_even(emu, modifiers):
    emu("gfx950")
    rng = np.random.default_rng(5)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    # Ties (to even, both ways), infinities, a subnormal, -0.
    special = np.array([0x3F808000, 0x3F818000, 0x7F800000, 0xFF800000, 0x00012345, 0x80000000],
                       np.uint32).view(np.float32)
    a[:6], b[-6:] = special, special
    c = np.zeros(64, np.int32)
    cvt(a, b, c, modifiers)
    lo, hi = (-a, np.abs(b)) if modifiers else (a, b)
    want = bf16_bits(lo) | bf16_bits(hi) << 16
    np.testing.assert_array_equal(c.view(np.uint32), want)


# ---- ds_read_b64_tr_b16 / _tr_b8 -------------------------------------------------------

@flyc.kernel
def transpose_kernel(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int], shift: fx.Constexpr[int]):
    """A (512 bytes as 128 words) in LDS; lane t reads 8 bytes at 8 * t +
    shift (the instruction's offset field adding 16 of it); its 2 result
    registers to Out."""
    t = fx.thread_idx.x
    smem = fx.SharedAllocator().allocate_tensor(fx.Int32, fx.make_layout((128,), (1,)))
    smem[t] = A[t]
    smem[t + 64] = A[t + 64]
    fx.barrier()
    at = address32(fx.get_iter(smem)) + t * 8 - 16 + shift
    words = Vec(llvm.inline_asm(T.i32x2, [_to_raw(at)], f"ds_read_b64_tr_b{bits} $0, $1 offset:16\n", "=v,v,~{memory}", has_side_effects=True))  # the read
    Out[t * 2] = words[0]
    Out[t * 2 + 1] = words[1]


@flyc.jit
def transpose(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int], shift: fx.Constexpr[int] = 0):
    transpose_kernel(A, Out, bits, shift).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("bits,dtype", [(16, np.uint16), (8, np.uint8)])
def test_lds_transpose_reads(emu, bits, dtype):
    emu("gfx950")
    a = np.random.default_rng(6).integers(0, 1 << 31, 128).astype(np.int32)
    out = np.zeros(128, np.int32)
    transpose(a, out, bits)
    # Each row of 16 lanes reads 16 x n elements (n = 64 / bits a lane, lane
    # after lane); lane t of the row gets elements t, t + 16, ... (ISA).
    n = 64 // bits
    elements = a.view(dtype)
    want = np.concatenate([elements[16 * n * r:16 * n * (r + 1)].reshape(n, 16).T for r in range(4)])
    np.testing.assert_array_equal(out.view(dtype).reshape(64, n), want)


# ---- ';' starts a comment, as on the GPU ---------------------------------------------------

@flyc.kernel
def text_kernel(A: fx.Tensor, C: fx.Tensor, text: fx.Constexpr[str], constraints: fx.Constexpr[str]):
    t = fx.thread_idx.x
    C[t] = llvm.inline_asm(T.i32, [_to_raw(fx.Int32(A[t]))], text, constraints, has_side_effects=True)  # the asm


@flyc.jit
def run_text(A: fx.Tensor, C: fx.Tensor, text: fx.Constexpr[str], constraints: fx.Constexpr[str]):
    text_kernel(A, C, text, constraints).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_a_semicolon_starts_a_comment(emu):
    """LLVM's AMDGPU assembler reads `;` as a comment: the GPU runs the first
    instruction only, and so does the emulator (a newline separates
    instructions)."""
    emu("gfx942")
    a = np.arange(64, dtype=np.int32)
    c = np.zeros(64, np.int32)
    run_text(a, c, "v_add_u32 $0, 1, $1 ; v_add_u32 $0, 100, $0", "=v,v")
    np.testing.assert_array_equal(c, a + 1)
    run_text(a, c, "v_add_u32 $0, 1, $1\nv_add_u32 $0, 100, $0", "=v,v")
    np.testing.assert_array_equal(c, a + 101)


# ---- checked emulation ---------------------------------------------------------------------

def test_an_asm_lds_store_past_the_lds_is_reported(emu):
    emu("gfx942", FLYDSL_EMU_CHECK="bounds")
    a, c = np.arange(128, dtype=np.float32), np.zeros(128, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        lds_reverse(a, c, 32)  # lanes 124-127 store at 528-543 of 528 bytes
    stores = [r for r in info.value.reports if r["kind"] == "out-of-bounds LDS store of 4 bytes"]
    assert [r["thread"][0] for r in stores] == [124, 125, 126, 127], str(info.value)
    assert {(r["file"], r["line"]) for r in stores} == {
        (HERE, line_of(lds_reverse_kernel, "# the LDS store"))}
    assert stores[0]["offset"] == 528 and stores[0]["tensor"] is None
    # In bounds: clean and right.
    lds_reverse(a, c, 16)
    np.testing.assert_array_equal(c, a[::-1])


def test_asm_lds_accesses_without_their_barrier_race(emu):
    """The reverse without its asm barrier: each wave reads words the other
    wave writes, in the same barrier interval."""
    emu("gfx942", FLYDSL_EMU_CHECK="race")
    a, c = np.arange(128, dtype=np.float32), np.zeros(128, np.float32)
    with pytest.raises(flyc.EmuCheckError) as info:
        lds_reverse(a, c, 16, False)
    race = info.value.reports[0]
    assert race["kind"].startswith("LDS race"), str(info.value)
    lines = {line_of(lds_reverse_kernel, marker) for marker in ("# the LDS store", "# the LDS load")}
    assert {race["line"], race["other"]["line"]} == lines, str(info.value)
    lds_reverse(a, c, 16, True)
    np.testing.assert_array_equal(c, a[::-1])


def test_an_asm_transposing_read_past_the_lds_is_reported(emu):
    """Each lane's 8 bytes are checked as an LDS load's: lane 63 reads
    bytes 512-519 of 512."""
    emu("gfx950", FLYDSL_EMU_CHECK="bounds")
    a, out = np.arange(128, dtype=np.int32), np.zeros(128, np.int32)
    with pytest.raises(flyc.EmuCheckError) as info:
        transpose(a, out, 16, 8)
    (r,) = info.value.reports
    assert r["kind"] == "out-of-bounds LDS load of 8 bytes", str(info.value)
    assert (r["file"], r["line"], r["thread"]) == (HERE, line_of(transpose_kernel, "# the read"), (63, 0, 0))
    assert r["offset"] == 512


def test_an_asm_global_store_past_its_tensor_is_reported(emu):
    """The store's address is C's pointer (an operand of the asm), so the
    report names C and the byte offset in it."""
    emu("gfx950", FLYDSL_EMU_CHECK="bounds")
    a = np.arange(65 * 4 + 4, dtype=np.int32)
    c = np.zeros(64 * 4, np.int32)
    with pytest.raises(flyc.EmuCheckError) as info:
        global_copy(a, c, 65)  # work-item 64 stores C[256:260]
    (store,) = [r for r in info.value.reports if "store" in r["kind"]]
    assert store["kind"] == "out-of-bounds store of 16 bytes", str(info.value)
    assert (store["file"], store["line"]) == (HERE, line_of(global_copy_kernel, "# the global store"))
    assert store["thread"] == (64, 0, 0)
    assert (store["tensor"], store["offset"], store["extent"]) == ("C", 1024, 1024)
    np.testing.assert_array_equal(c, a[4:260])


# ---- the GPU compile keeps the asm ---------------------------------------------------------

def isa_of(fly_env, arch, fn, *args):
    fly_env(COMPILE_ONLY="1", ARCH=arch, FLYDSL_RUNTIME_KIND=None)
    return flyc.compile(fn, *args).isa()


def test_the_gpu_code_object_keeps_the_asm(fly_env):
    f32, i32 = np.zeros(128, np.float32), np.zeros(260, np.int32)
    isa = isa_of(fly_env, "gfx950", cvt, f32[:64], f32[:64], i32[:64])
    assert "v_cvt_pk_bf16_f32" in isa
    isa = isa_of(fly_env, "gfx950", transpose, i32[:128], i32[:128], 16)
    assert "ds_read_b64_tr_b16" in isa and "offset:16" in isa
    isa = isa_of(fly_env, "gfx942", global_copy, i32, i32[:256])
    assert "global_store_dwordx4" in isa and "sc0 sc1" in isa and "buffer_inv sc1" in isa
    isa = isa_of(fly_env, "gfx942", branch, i32[:128], i32[:128], 0)
    assert "s_cbranch_scc0" in isa and "s_cmp_eq_u32" in isa and "s_barrier" in isa
    isa = isa_of(fly_env, "gfx950", mfma, i32, i32, f32, i32, i32, f32, "f8f6f4")
    assert "v_mfma_f32_16x16x128_f8f6f4" in isa


# ---- asm the emulator cannot run ----------------------------------------------------------

def compile_error(emu, arch, text, constraints="=v,v"):
    emu(arch)
    with pytest.raises(flyc.CompileError) as info:
        run_text(np.zeros(64, np.int32), np.zeros(64, np.int32), text, constraints)
    message = str(info.value)
    assert f"{HERE}:{line_of(text_kernel, '# the asm')}" in message, message
    assert arch in message, message
    return message


def test_an_instruction_the_chip_lacks_is_a_located_error(emu):
    message = compile_error(emu, "gfx942", "v_cvt_pk_bf16_f32 $0, $1, $1")
    assert "'v_cvt_pk_bf16_f32 $0, $1, $1' (line 1 of the asm)" in message, message
    assert "instruction not supported on this GPU" in message, message


def test_an_instruction_without_emulator_semantics_is_a_located_error(emu):
    message = compile_error(emu, "gfx950", "s_nop 0\n  v_sin_f32 $0, $1")
    assert "the emulator cannot run 'v_sin_f32 $0, $1' (line 2 of the asm)" in message, message
    assert "no semantics" in message, message


def test_an_unsupported_constraint_is_a_located_error(emu):
    message = compile_error(emu, "gfx942", "v_mov_b32 $0, $1", "=r,v")
    assert "the constraint '=r'" in message, message
