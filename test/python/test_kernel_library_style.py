"""Kernels of our own written the way FlyDSL's kernel library writes its
kernels, run on the emulator of gfx942 and gfx1100 against numpy:

- raw MLIR builders (flydsl._mlir: rocdl, llvm, vector, arith, fly) mixed
  with fx values: raw buffer descriptors (`rocdl.make_buffer_rsrc` on the
  tensor's `fly.extract_aligned_pointer_as_index`) whose size bounds the
  row, loads and stores through them in both spellings
  (`rocdl.raw_ptr_buffer_load(t, rsrc, off, soff, aux)` with LLVM 22's
  aux operand, `rocdl.RawPtrBufferStoreOp(v, rsrc, off, soff, aux=None)` as
  FlyDSL's buffer_ops writes it), `vector.broadcast / reduction / extract /
  bitcast`, `llvm.getelementptr / load / store` into LDS;
- ArithValue operators and methods on the raw results (`maximumf`,
  `exp2`, `rsqrt`, `select`, `shuffle_xor`);
- `for k, state in range(lo, hi, 1, init=[...])` carrying accumulators
  (a sum of squares; the online softmax's running max and sum);
- wave reductions: ArithValue's shuffle_xor, and raw `rocdl.ds_bpermute`;
- inline assembly through `llvm.inline_asm`: the "=v,=v,0,1" optimisation
  barrier on the carried pair (a struct read with `llvm.extractvalue`),
  `s_waitcnt lgkmcnt(0)` + `s_barrier` as the block barrier (an asm
  without outputs, of result type !llvm.void), and `v_cvt_pk_bf16_f32`
  packing bf16 pairs on gfx950 (arith.truncf elsewhere);
- launched through @flyc.jit under `CompilationContext.compile_hints`,
  whose hints reach the traced float ops;
- buffer loads straight into LDS (fx.rocdl.buffer_load_to_lds and
  raw_ptr_buffer_load_lds) on CDNA;
- compiled for the GPU, the ISA has the buffer, LDS-permute and asm
  instructions.

Each kernel is one workgroup of 64 work-items per row: one wave on gfx942
and gfx950, two on gfx1100 (the partials cross waves through LDS).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, fly, llvm, rocdl, vector
from flydsl.compiler.kernel_function import CompilationContext
from flydsl.expr.typing import T
from flydsl.expr.utils.arith import ArithValue, _to_raw
from flydsl.runtime.device import get_rocm_arch, is_rdna_arch

BLOCK = 64   # work-items of a workgroup: one row
VEC = 4      # f32 a work-item loads at once in the RMSNorm
LOG2E = math.log2(math.e)
NEG_BIG = -1e30  # the online softmax's start: finite, so no inf - inf
DYNAMIC_INDEX = -(2 ** 31)  # llvm.getelementptr's marker of a dynamic index
VOID = ir.Type.parse("!llvm.void")


@pytest.fixture(params=["gfx942", "gfx1100"])
def chip(request, fly_env):
    # FLYDSL_GPU_ARCH: get_rocm_arch() answers for the emulated chip, as
    # the emulated-GPU plugin has it.
    fly_env(ARCH=request.param, FLYDSL_GPU_ARCH=request.param, FLYDSL_RUNTIME_KIND="emu",
            COMPILE_ONLY=None)
    return request.param


def wave_size():
    return 32 if is_rdna_arch(get_rocm_arch()) else 64


# ---- helpers in the kernel library's manner ---------------------------------------

def i32(value):
    return arith.constant(T.i32, value)


def descriptor_word3():
    """Word 3 of a raw buffer descriptor: 32-bit float elements (data
    format 7 at bit 12, number format 4 at bit 15); RDNA also wants bit 24
    set and OOB_SELECT (bits 28-29) = 3, an access checked against
    num_records, which is what CDNA does for a raw buffer anyway."""
    word = (7 << 12) | (4 << 15)
    if is_rdna_arch(get_rocm_arch()):
        word |= (1 << 24) | (3 << 28)
    return word


def row_resource(tensor, row, row_bytes):
    """A buffer descriptor of `row_bytes` bytes from byte row * row_bytes
    of `tensor`: loads past its end read 0, stores past it are dropped.
    The base is the tensor's generic pointer, as FlyDSL's buffer_ops
    takes it (fly.extract_aligned_pointer_as_index)."""
    base = fly.extract_aligned_pointer_as_index(llvm.PointerType.get(), tensor)
    start = arith.muli(arith.extui(T.i64, _to_raw(row)), arith.extui(T.i64, row_bytes))
    first = llvm.getelementptr(base.type, base, [start], [DYNAMIC_INDEX], T.i8, None)
    return rocdl.make_buffer_rsrc(llvm.PointerType.get(8), first, arith.constant(T.i16, 0),
                                  arith.extui(T.i64, row_bytes), i32(descriptor_word3()))


def lds_slot(array, index):
    """The !llvm.ptr<3> of f32 element `index` of an LDS array."""
    base = fx.to_llvm_ptr(fx.get_iter(array.view(fx.make_layout(BLOCK // 32, 1))))
    if isinstance(index, int):  # a constant index is the op's attribute
        return llvm.getelementptr(base.type, base, [], [index], T.f32, None)
    return llvm.getelementptr(base.type, base, [_to_raw(index)], [DYNAMIC_INDEX], T.f32, None)


def block_barrier():
    """Every LDS access of the workgroup before it is done and seen."""
    llvm.inline_asm(VOID, [], "s_waitcnt lgkmcnt(0)\ns_barrier", "", has_side_effects=True)


def lane_read(x, lane):
    """f32 `x` of lane `lane` of the wave (ds_bpermute moves dwords)."""
    word = rocdl.ds_bpermute(T.i32, _to_raw(lane * 4), arith.bitcast(T.i32, x))
    return arith.bitcast(T.f32, word)


@fx.struct
class Partials:
    """A value per wave of the workgroup (two on wave32)."""
    first: fx.Array[fx.Float32, BLOCK // 32, 16]
    second: fx.Array[fx.Float32, BLOCK // 32, 16]


# ---- RMSNorm of rows ------------------------------------------------------------

@flyc.kernel
def rmsnorm_kernel(X: fx.Tensor, Gamma: fx.Tensor, Y: fx.Tensor, cols: fx.Int32,
                   eps: fx.Constexpr[float], pack_bf16: fx.Constexpr[bool]):
    """Y[r] = X[r] * rsqrt(mean(X[r]^2) + eps) * Gamma; each work-item
    takes VEC consecutive floats at a time. With pack_bf16, Y holds the
    results as bf16 pairs in i32 words."""
    row, t = fx.block_idx.x, fx.thread_idx.x
    wave = wave_size()
    lane, wave_id = t % wave, t // wave
    row_bytes = _to_raw(cols * 4)
    x_rsrc = row_resource(X, row, row_bytes)
    g_rsrc = row_resource(Gamma, fx.Int32(0), row_bytes)
    y_rsrc = row_resource(Y, row, _to_raw(cols * 2) if pack_bf16 else row_bytes)
    zero = i32(0)
    steps = (cols + BLOCK * VEC - 1) // (BLOCK * VEC)

    for k, state in range(0, steps, 1, init=[arith.constant(T.f32, 0.0)]):
        offset = (fx.Int32(k) * (BLOCK * VEC) + t * VEC) * 4
        x = rocdl.raw_ptr_buffer_load(T.f32x4, x_rsrc, _to_raw(offset), zero, zero)
        total = state[0] + vector.reduction(T.f32, vector.CombiningKind.ADD, arith.mulf(x, x))
        results = yield [total]

    for step in fx.range_constexpr(int(math.log2(wave))):
        results = results + results.shuffle_xor(wave >> (step + 1), wave)
    partials = fx.SharedAllocator().allocate(Partials).peek().first
    if lane == 0:
        llvm.store(_to_raw(results), lds_slot(partials, wave_id))
    block_barrier()
    total = llvm.load(T.f32, lds_slot(partials, 0))
    for w in fx.range_constexpr(1, BLOCK // wave):
        total = total + llvm.load(T.f32, lds_slot(partials, w))
    rstd = (total / arith.sitofp(T.f32, _to_raw(cols)) + eps).rsqrt()
    scale = vector.broadcast(T.f32x4, rstd)

    for k in range(0, steps, 1):
        offset = (fx.Int32(k) * (BLOCK * VEC) + t * VEC) * 4
        x = rocdl.raw_ptr_buffer_load(T.f32x4, x_rsrc, _to_raw(offset), zero, zero)
        g = rocdl.raw_ptr_buffer_load(T.f32x4, g_rsrc, _to_raw(offset), zero, zero)
        y = arith.mulf(arith.mulf(x, scale), g)
        if pack_bf16:
            if get_rocm_arch() == "gfx950":
                words = [llvm.inline_asm(T.i32, [vector.extract(y, [], [2 * i]),
                                                 vector.extract(y, [], [2 * i + 1])],
                                         "v_cvt_pk_bf16_f32 $0, $1, $2", "=v,v,v")
                         for i in range(2)]
                packed = vector.from_elements(T.i32x2, words)
            else:
                packed = vector.bitcast(T.i32x2, arith.truncf(T.vec(4, T.bf16), y))
            rocdl.RawPtrBufferStoreOp(packed, y_rsrc, _to_raw(offset // 2), zero, aux=None)
        else:
            rocdl.RawPtrBufferStoreOp(y, y_rsrc, _to_raw(offset), zero)


@flyc.jit
def rmsnorm(X: fx.Tensor, Gamma: fx.Tensor, Y: fx.Tensor, rows: fx.Int32, cols: fx.Int32,
            eps: fx.Constexpr[float] = 1e-6, pack_bf16: fx.Constexpr[bool] = False):
    rmsnorm_kernel(X, Gamma, Y, cols, eps, pack_bf16).launch(grid=(rows, 1, 1),
                                                             block=(BLOCK, 1, 1))


def rmsnorm_reference(x, gamma, eps=1e-6):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 ** 2).mean(axis=1, keepdims=True) + eps) * gamma


@pytest.mark.parametrize("rows, cols", [(3, 256), (2, 1000), (4, 44)])
def test_rmsnorm_with_buffer_loads_and_a_carried_sum(chip, rows, cols):
    """256: one step, every lane busy; 1000: four steps, the last one
    partly past the row (read as 0, not stored); 44: fewer floats than
    lanes."""
    rng = np.random.default_rng(cols)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    out = np.full(rows * cols + 8, 7.0, np.float32)
    rmsnorm(x, gamma, out, rows, cols)
    np.testing.assert_allclose(out[:rows * cols].reshape(rows, cols), rmsnorm_reference(x, gamma),
                               rtol=2e-5, atol=1e-6)
    np.testing.assert_array_equal(out[rows * cols:], 7.0)  # nothing stored past the rows


@pytest.fixture(params=["gfx942", "gfx1100", "gfx950"])
def bf16_chip(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_GPU_ARCH=request.param, FLYDSL_RUNTIME_KIND="emu",
            COMPILE_ONLY=None)
    return request.param


def test_rmsnorm_packs_bf16_pairs(bf16_chip):
    """bf16 results, rounded to nearest even: v_cvt_pk_bf16_f32 (inline asm)
    on gfx950, arith.truncf elsewhere; two to an i32 word."""
    rows, cols = 2, 300
    rng = np.random.default_rng(7)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    words = np.zeros(rows * cols // 2, np.int32)
    rmsnorm(x, gamma, words, rows, cols, 1e-6, True)
    got = words.view(np.uint16).reshape(rows, cols)
    want = torch.from_numpy(rmsnorm_reference(x, gamma).astype(np.float32)).to(torch.bfloat16)
    want = want.view(torch.uint16).numpy()  # torch rounds to nearest even
    # float32 results one ulp apart may round to neighbouring bf16 values
    assert np.max(np.abs(got.astype(np.int32) - want.astype(np.int32))) <= 1
    assert np.mean(got == want) > 0.99


def test_compile_hints_reach_the_traced_float_ops(chip):
    """Under CompilationContext.compile_hints({"fast_fp_math": True}), the
    ArithValue float ops of the kernel carry fastmath<fast>; the raw
    builders' ops keep what they were given (none)."""
    rows, cols = 2, 128
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
    gamma = np.ones(cols, np.float32)
    y = np.zeros(rows * cols, np.float32)
    plain = rmsnorm.compile(x, gamma, y, rows, cols).module_text
    with CompilationContext.compile_hints({"fast_fp_math": True}):
        rmsnorm(x, gamma, y, rows, cols)
        fast = rmsnorm.compile(x, gamma, y, rows, cols).module_text
    np.testing.assert_allclose(y.reshape(rows, cols), rmsnorm_reference(x, gamma), rtol=1e-5)
    assert "fastmath" not in plain

    float_ops = [line for line in fast.splitlines()
                 if any(f'"arith.{name}"' in line for name in ("addf", "mulf", "divf"))]
    # The kernel's raw arith.mulf builders work on the vectors; its
    # ArithValue operators (the sum, the mean, rsqrt's steps) on scalars.
    raw = [op for op in float_ops if "(vector<4xf32>, vector<4xf32>)" in op]
    operators = [op for op in float_ops if "(f32, f32)" in op]
    assert len(raw) == 3 and len(operators) >= 4, float_ops
    assert not any("fastmath" in op for op in raw), raw
    assert all("fastmath = #arith.fastmath<fast>" in op for op in operators), operators


# ---- online softmax of rows ----------------------------------------------------------

def combine(m, s, m_other, s_other):
    """The (max, sum of exp2((x - max) * log2 e)) of two parts' pairs."""
    m_new = m.maximumf(m_other)
    return m_new, (s * ((m - m_new) * LOG2E).exp2() + s_other * ((m_other - m_new) * LOG2E).exp2())


@flyc.kernel
def softmax_kernel(X: fx.Tensor, Y: fx.Tensor, cols: fx.Int32):
    """Y[r] = softmax(X[r]) in one pass for the max and the sum (the
    running pair carried by the loop) and one for the results."""
    row, t = fx.block_idx.x, fx.thread_idx.x
    wave = wave_size()
    lane, wave_id = t % wave, t // wave
    row_bytes = _to_raw(cols * 4)
    x_rsrc, y_rsrc = row_resource(X, row, row_bytes), row_resource(Y, row, row_bytes)
    zero = i32(0)
    steps = (cols + BLOCK - 1) // BLOCK

    start = [arith.constant(T.f32, NEG_BIG), arith.constant(T.f32, 0.0)]
    for k, state in range(0, steps, 1, init=start):
        m, s = state
        col = fx.Int32(k) * BLOCK + t
        loaded = rocdl.raw_ptr_buffer_load(T.f32, x_rsrc, _to_raw(col * 4), zero, zero)
        inside = ArithValue(_to_raw(col < cols))
        x = inside.select(loaded, NEG_BIG)
        m_new = m.maximumf(x)
        s_new = s * ((m - m_new) * LOG2E).exp2() + inside.select(((x - m_new) * LOG2E).exp2(), 0.0)
        # FlyDSL's optimisation barrier on the pair: one asm, two tied outputs
        pair = llvm.inline_asm(llvm.StructType.get_literal([T.f32, T.f32]), [m_new, s_new], "",
                               "=v,=v,0,1", has_side_effects=True)
        results = yield [llvm.extractvalue(T.f32, pair, [0]), llvm.extractvalue(T.f32, pair, [1])]

    m, s = results
    for step in fx.range_constexpr(int(math.log2(wave))):
        peer = lane ^ (wave >> (step + 1))
        m, s = combine(m, s, lane_read(m, peer), lane_read(s, peer))
    shared = fx.SharedAllocator().allocate(Partials).peek()
    if lane == 0:
        llvm.store(_to_raw(m), lds_slot(shared.first, wave_id))
        llvm.store(_to_raw(s), lds_slot(shared.second, wave_id))
    block_barrier()
    m, s = llvm.load(T.f32, lds_slot(shared.first, 0)), llvm.load(T.f32, lds_slot(shared.second, 0))
    for w in fx.range_constexpr(1, BLOCK // wave):
        m, s = combine(m, s, llvm.load(T.f32, lds_slot(shared.first, w)),
                       llvm.load(T.f32, lds_slot(shared.second, w)))
    inverse = 1.0 / s

    for k in range(0, steps, 1):
        col = fx.Int32(k) * BLOCK + t
        x = rocdl.raw_ptr_buffer_load(T.f32, x_rsrc, _to_raw(col * 4), zero, zero)
        rocdl.raw_ptr_buffer_store(((x - m) * LOG2E).exp2() * inverse, y_rsrc, _to_raw(col * 4),
                                   zero, aux=0)


@flyc.jit
def softmax(X: fx.Tensor, Y: fx.Tensor, rows: fx.Int32, cols: fx.Int32):
    softmax_kernel(X, Y, cols).launch(grid=(rows, 1, 1), block=(BLOCK, 1, 1))


@pytest.mark.parametrize("rows, cols", [(2, 64), (3, 200), (2, 5)])
def test_online_softmax_with_a_carried_pair_and_lane_reads(chip, rows, cols):
    rng = np.random.default_rng(cols)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    x[0, cols // 2] = 30.0  # one dominant element
    x[-1] -= 120.0  # exp(x) underflows: only the max of the row's own elements keeps the sum
    out = np.full(rows * cols + 8, 7.0, np.float32)
    with CompilationContext.compile_hints({"fastmath": fx.arith.FastMathFlags.contract}):
        softmax(x, out, rows, cols)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[:rows * cols].reshape(rows, cols),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[rows * cols:], 7.0)


# ---- LDS DMA: buffer loads into LDS (CDNA) ---------------------------------------------

@flyc.kernel
def lds_dma_kernel(A: fx.Tensor, C: fx.Tensor):
    """Each lane's dword of A straight into LDS (FlyDSL's two spellings:
    the convenience with Python ints, the raw one with fx values, aux
    among them), then C[t] = A[(t + 1) % 64] read back from LDS."""
    t = fx.thread_idx.x
    words = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((2 * BLOCK,), (1,)))
    lds = fx.to_llvm_ptr(fx.get_iter(words))
    rsrc = row_resource(A, fx.Int32(0), i32(BLOCK * 4))
    fx.rocdl.buffer_load_to_lds(rsrc, lds, t * 4)
    second_half = llvm.getelementptr(lds.type, lds, [], [BLOCK], T.f32, None)
    fx.rocdl.raw_ptr_buffer_load_lds(rsrc, second_half, fx.Int32(4), t * 4, fx.Int32(0),
                                     fx.Int32(0), fx.Int32(0))
    rocdl.s_waitcnt(0)
    block_barrier()
    C[t] = words[(t + 1) % BLOCK] + words[BLOCK + (t + 2) % BLOCK]


@flyc.jit
def lds_dma(A: fx.Tensor, C: fx.Tensor):
    lds_dma_kernel(A, C).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_buffer_loads_into_lds(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_GPU_ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    a = np.random.default_rng(3).standard_normal(BLOCK).astype(np.float32)
    c = np.zeros(BLOCK, np.float32)
    lds_dma(a, c)
    np.testing.assert_array_equal(c, np.roll(a, -1) + np.roll(a, -2))


# ---- the GPU compile ------------------------------------------------------------------

@pytest.mark.parametrize("arch, buffer_load, buffer_store", [
    ("gfx942", "buffer_load_dwordx4", "buffer_store_dwordx4"),
    ("gfx1100", "buffer_load_b128", "buffer_store_b128"),
    ("gfx950", "buffer_load_dwordx4", "buffer_store_dwordx2")])
def test_the_gpu_code_has_the_buffer_accesses_and_the_asm(fly_env, arch, buffer_load,
                                                          buffer_store):
    fly_env(ARCH=arch, FLYDSL_GPU_ARCH=arch, COMPILE_ONLY="1", FLYDSL_RUNTIME_KIND=None)
    x, gamma = np.zeros((2, 256), np.float32), np.zeros(256, np.float32)
    packed = arch == "gfx950"
    y = np.zeros(256 if packed else 512, np.int32 if packed else np.float32)
    isa = flyc.compile(rmsnorm, x, gamma, y, 2, 256, 1e-6, packed).isa()
    assert buffer_load in isa and buffer_store in isa, isa
    assert "s_barrier" in isa and "s_waitcnt lgkmcnt(0)" in isa
    assert ("v_cvt_pk_bf16_f32" in isa) == packed
    isa = flyc.compile(softmax, x, np.zeros(512, np.float32), 2, 256).isa()
    assert "ds_bpermute_b32" in isa
