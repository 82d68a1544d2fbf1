"""fx.rocdl's LDS loads on the emulator, against numpy: the buffer-to-LDS DMA
(BufferCopyLDS32b on gfx942 and gfx950, BufferCopyLDS128b on gfx950) staging
a tensor through LDS, past num_records (zeros) and with soffset / imm_offset;
FlyDSL's idiom of one wave-uniform LDS pointer per call (the hardware writes
lane by lane from M0); gfx950's async loads from a buffer and from global
memory; gfx950's transposing LDS reads checked against numpy's transpose of
what was written and feeding an MFMA's B operand, and all four forms at the
ROCDL level (test/tools/fly-emu-run) against the ISA's definition; the ISA
of each; and the located errors of bad input (a width or a chip that lacks
the atom, a run-time imm_offset)."""

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import REPO_ROOT, _build_tool
from emu_run import run_kernel
from flydsl.tracing.errors import TraceError

BLOCK = 128  # two wave64s: the second wave's M0 is its own
N_OUT = 1024
N_IN = 1001  # the dword at 1000 is in range, the rest of its 128-bit access is not
SENTINEL = -7.0


@pytest.fixture
def emu(fly_env):
    def on(arch):
        fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH=arch, COMPILE_ONLY=None)
    return on


def _dma_op(kind, bits):
    if kind == "sync":
        return fx.rocdl.BufferCopyLDS(bits)
    return fx.rocdl.cdna4.BufferLoadAsyncLDS(bits)


# -- buffer -> LDS, staged through LDS to the output --------------------------------

@flyc.kernel
def _stage(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int], kind: fx.Constexpr[str],
           soffset: fx.Int32, imm: fx.Constexpr[int]):
    per = bits // 32
    tid = fx.thread_idx.x
    base = fx.block_idx.x * (BLOCK * per)
    bA = fx.rocdl.make_buffer_tensor(A, max_size=False)
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((BLOCK * per + 8,), (1,)))
    src = fx.zipped_divide(bA, (per,))[None, fx.block_idx.x * BLOCK + tid]
    dst = fx.zipped_divide(smem, (per,))[None, tid]
    atom = fx.make_copy_atom(_dma_op(kind, bits), fx.Float32)
    if kind == "async":
        fx.copy(atom, src, dst, soffset=soffset, imm_offset=imm)
        fx.rocdl.asyncmark()
        fx.rocdl.wait_asyncmark(0)
    else:
        fx.copy(atom, src, dst, soffset=soffset, imm_offset=imm)
    fx.barrier()
    # Read back in another order than the DMA wrote: element j by thread j % BLOCK.
    for k in fx.range_constexpr(per):
        j = k * BLOCK + tid
        Out[base + j] = smem[j + imm // 4]


@flyc.jit
def _run_stage(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int], kind: fx.Constexpr[str],
               soffset: fx.Int32, imm: fx.Constexpr[int], blocks: fx.Constexpr[int]):
    _stage(A, Out, bits, kind, soffset, imm).launch(grid=(blocks, 1, 1), block=(BLOCK, 1, 1))


def _blocks(bits):
    """Blocks of BLOCK lanes covering at least N_OUT floats."""
    chunk = BLOCK * (bits // 32)
    return -(-N_OUT // chunk)


def _staged(bits, kind, soffset=0, imm=0):
    n_out = _blocks(bits) * BLOCK * (bits // 32)
    rng = np.random.default_rng(7)
    big = rng.standard_normal(n_out + 64).astype(np.float32)  # numbers after the tensor
    a = torch.from_numpy(big)[:N_IN]
    out = torch.full((n_out,), SENTINEL)
    _run_stage(a, out, bits, kind, soffset, imm, _blocks(bits))
    want = np.zeros(n_out + 64, np.float32)
    want[:N_IN] = big[:N_IN]
    shift = soffset + imm // 4
    return out.numpy(), want[shift:shift + n_out]


@pytest.mark.parametrize("arch,bits,kind", [("gfx942", 32, "sync"), ("gfx950", 32, "sync"),
                                            ("gfx950", 128, "sync"), ("gfx950", 32, "async"),
                                            ("gfx950", 96, "async"), ("gfx950", 128, "async")])
def test_buffer_to_lds_staged_copy_reads_zero_past_num_records(emu, arch, bits, kind):
    emu(arch)
    got, want = _staged(bits, kind)
    np.testing.assert_array_equal(got, want)
    assert (got[N_IN:] == 0).all()


@pytest.mark.parametrize("arch,bits,kind", [("gfx942", 32, "sync"), ("gfx950", 128, "sync"),
                                            ("gfx950", 96, "async")])
@pytest.mark.parametrize("soffset,imm", [(3, 0), (0, 16), (5, 32)])
def test_soffset_and_imm_offset(emu, arch, bits, kind, soffset, imm):
    # imm_offset moves both addresses (the instruction's offset field):
    # LDS[imm/4 + j] holds A[base + j + imm/4 + soffset].
    emu(arch)
    got, want = _staged(bits, kind, soffset, imm)
    np.testing.assert_array_equal(got, want)


# -- FlyDSL's idiom: every lane passes its wave's LDS base ------------------------------

@flyc.kernel
def _uniform(A: fx.Tensor, Out: fx.Tensor):
    tid = fx.thread_idx.x
    wave = tid // 64
    # Byte views, one 128-bit value per call, as FlyDSL's kernels write it.
    bA = fx.rocdl.make_buffer_tensor(
        fx.make_view(fx.recast_iter(fx.Int8, fx.get_iter(A)), fx.make_layout(4096, 1)),
        max_size=False, num_records_bytes=N_IN * 4)
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((BLOCK * 4,), (1,)))
    lds_bytes = fx.recast_iter(fx.Int8, fx.get_iter(smem))
    wave_base = fx.add_offset(lds_bytes, fx.rocdl.readfirstlane(fx.Int32, fx.Int32(wave * 64 * 16)))
    atom = fx.make_copy_atom(fx.rocdl.BufferCopyLDS128b(), 128)
    for i in fx.range_constexpr(2):
        src = fx.slice(fx.logical_divide(bA, fx.make_layout(1, 1)), (None, (i * BLOCK + tid) * 16))
        dst = fx.make_view(wave_base, fx.make_layout(1, 1))
        fx.copy(atom, src, dst)
        fx.barrier()
        for k in fx.range_constexpr(4):
            j = k * BLOCK + tid
            Out[i * BLOCK * 4 + j] = smem[j]
        fx.barrier()


@flyc.jit
def _run_uniform(A: fx.Tensor, Out: fx.Tensor):
    _uniform(A, Out).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_lds_dma_writes_lane_by_lane_from_the_first_lanes_pointer(emu):
    emu("gfx950")
    rng = np.random.default_rng(8)
    big = rng.standard_normal(N_OUT + 64).astype(np.float32)
    out = torch.full((N_OUT,), SENTINEL)
    _run_uniform(torch.from_numpy(big), out)
    want = np.zeros(N_OUT, np.float32)
    want[:N_IN] = big[:N_IN]
    np.testing.assert_array_equal(out.numpy(), want)


# -- global -> LDS --------------------------------------------------------------------

@flyc.kernel
def _global_stage(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int]):
    per = bits // 32
    tid = fx.thread_idx.x
    base = fx.block_idx.x * (BLOCK * per)
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((BLOCK * per,), (1,)))
    src = fx.zipped_divide(A, (per,))[None, fx.block_idx.x * BLOCK + tid]
    dst = fx.zipped_divide(smem, (per,))[None, tid]
    fx.copy(fx.make_copy_atom(fx.rocdl.cdna4.GlobalLoadAsyncLDS(bits), fx.Float32), src, dst)
    fx.rocdl.asyncmark()
    fx.rocdl.wait_asyncmark(0)
    fx.barrier()
    for k in fx.range_constexpr(per):
        j = k * BLOCK + tid
        Out[base + j] = smem[j]


@flyc.jit
def _run_global_stage(A: fx.Tensor, Out: fx.Tensor, bits: fx.Constexpr[int]):
    n = A.shape[0]
    _global_stage(A, Out, bits).launch(grid=(n // (BLOCK * (bits // 32)), 1, 1), block=(BLOCK, 1, 1))


@pytest.mark.parametrize("bits", [32, 96, 128])
def test_global_to_lds_async_copy(emu, bits):
    emu("gfx950")
    n = BLOCK * (bits // 32) * 3
    a = np.random.default_rng(9).standard_normal(n).astype(np.float32)
    out = torch.full((n,), SENTINEL)
    _run_global_stage(torch.from_numpy(a), out, bits)
    np.testing.assert_array_equal(out.numpy(), a)


# -- transposing LDS reads ----------------------------------------------------------

_TRANS = {16: (fx.Float16, np.float16), 8: (fx.Int8, np.int8)}


@flyc.kernel
def _transpose(A: fx.Tensor, Out: fx.Tensor, g: fx.Constexpr[int]):
    dtype = _TRANS[g][0]
    n = 64 // g  # elements per lane
    tid = fx.thread_idx.x
    smem = fx.SharedAllocator().allocate_tensor(dtype, fx.make_layout((64 * n,), (1,)))
    for k in fx.range_constexpr(n):
        smem[k * 64 + tid] = A[k * 64 + tid]
    fx.barrier()
    src = fx.zipped_divide(smem, (n,))[None, tid]
    frag = fx.make_fragment_like(src)
    fx.copy(fx.make_copy_atom(fx.rocdl.cdna4.LDSReadTrans(g, 64), dtype), src, frag)
    for k in fx.range_constexpr(n):
        Out[tid * n + k] = frag[k]


@flyc.jit
def _run_transpose(A: fx.Tensor, Out: fx.Tensor, g: fx.Constexpr[int]):
    _transpose(A, Out, g).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("g", [16, 8])
def test_lds_read_trans_is_numpys_transpose_per_16_lanes(emu, g):
    emu("gfx950")
    np_type = _TRANS[g][1]
    n = 64 // g
    rng = np.random.default_rng(10)
    if np_type == np.float16:
        a = rng.standard_normal(64 * n).astype(np.float16)
    else:
        a = rng.integers(-128, 128, 64 * n).astype(np.int8)
    out = np.zeros(64 * n, np_type)
    out_t = torch.from_numpy(out)
    _run_transpose(torch.from_numpy(a), out_t, g)
    # Lane t of each row of 16 read a[16r*n + t*n : ... + n]; it holds column
    # t of the row's elements as an n x 16 matrix.
    want = np.concatenate([a[16 * n * r:16 * n * (r + 1)].reshape(n, 16).T for r in range(4)])
    np.testing.assert_array_equal(out_t.numpy().reshape(64, n), want)


# -- ISA ----------------------------------------------------------------------------

def _isa(fly_env, arch, fn, *args):
    fly_env(COMPILE_ONLY="1", ARCH=arch, FLYDSL_RUNTIME_KIND=None)
    compiled = flyc.compile(fn, *args)
    (res,) = compiled.resources.values()
    assert res["scratch_bytes"] == 0
    return compiled.isa()


@pytest.mark.parametrize("arch,bits,kind,mnemonic", [
    ("gfx942", 32, "sync", "buffer_load_dword "), ("gfx950", 128, "sync", "buffer_load_dwordx4 "),
    ("gfx950", 96, "async", "buffer_load_dwordx3 ")])
def test_buffer_lds_dma_isa(fly_env, arch, bits, kind, mnemonic):
    isa = _isa(fly_env, arch, _run_stage, np.zeros(N_IN, np.float32), np.zeros(N_OUT, np.float32),
               bits, kind, 0, 0, 1)
    lines = [line for line in isa.splitlines() if mnemonic in line]
    assert lines and all(line.split("//")[0].rstrip().endswith(" lds") for line in lines), lines
    assert "m0" in isa


@pytest.mark.parametrize("bits,mnemonic", [(32, "global_load_lds_dword "), (96, "global_load_lds_dwordx3"),
                                           (128, "global_load_lds_dwordx4")])
def test_global_lds_dma_isa(fly_env, bits, mnemonic):
    n = BLOCK * (bits // 32)
    isa = _isa(fly_env, "gfx950", _run_global_stage, np.zeros(n, np.float32), np.zeros(n, np.float32), bits)
    assert mnemonic in isa


@pytest.mark.parametrize("g,mnemonic", [(16, "ds_read_b64_tr_b16"), (8, "ds_read_b64_tr_b8")])
def test_lds_read_trans_isa(fly_env, g, mnemonic):
    n = 64 // g
    np_type = _TRANS[g][1]
    isa = _isa(fly_env, "gfx950", _run_transpose, np.zeros(64 * n, np_type), np.zeros(64 * n, np_type), g)
    assert mnemonic in isa


# -- errors ---------------------------------------------------------------------------

def _trace_error(fn, *args):
    with pytest.raises(TraceError) as info:
        fn(*args)
    return str(info.value)


def test_a_width_the_chip_lacks_is_a_located_error(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(flyc.compile, _run_stage, np.zeros(N_IN, np.float32), np.zeros(N_OUT, np.float32),
                        128, "sync", 0, 0, 1)
    assert "BufferCopyLDS128b is not available on gfx942" in text and "gfx950" in text
    assert "make_copy_atom" in text and "test_rocdl_lds_loads.py" in text
    text = _trace_error(flyc.compile, _run_global_stage, np.zeros(BLOCK, np.float32),
                        np.zeros(BLOCK, np.float32), 32)
    assert "GlobalLoadAsyncLDS32b is not available on gfx942" in text and "gfx950" in text
    text = _trace_error(flyc.compile, _run_transpose, np.zeros(256, np.float16), np.zeros(256, np.float16), 16)
    assert "LDSReadTrans(16, 64) is not available on gfx942" in text and "gfx950" in text
    # RDNA has no LDS DMA at all.
    fly_env(COMPILE_ONLY="1", ARCH="gfx1100", FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(flyc.compile, _run_stage, np.zeros(N_IN, np.float32), np.zeros(N_OUT, np.float32),
                        32, "sync", 0, 0, 1)
    assert "BufferCopyLDS32b is not available on gfx1100; the chips that have it: gfx942, gfx950" in text


def test_bad_arguments_are_located_errors(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx950", FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(fx.rocdl.BufferCopyLDS, 64)
    assert "32 or 128" in text and "64" in text
    text = _trace_error(fx.rocdl.BufferCopyLDS, "32")
    assert "BufferCopyLDS" in text and "'bit_size'" in text
    text = _trace_error(fx.rocdl.cdna4.BufferLoadAsyncLDS, 16)
    assert "32, 96 or 128" in text
    text = _trace_error(fx.rocdl.cdna4.GlobalLoadAsyncLDS, 256)
    assert "32, 96 or 128" in text
    text = _trace_error(fx.rocdl.cdna4.LDSReadTrans, 16, 96)
    assert "(16, 64), (8, 64), (4, 64) and (6, 96)" in text
    text = _trace_error(fx.rocdl.cdna4.LDSReadTrans, 16.0, 64)
    assert "LDSReadTrans" in text and "'trans_granularity'" in text


@flyc.kernel
def _dynamic_imm(A: fx.Tensor, imm: fx.Int32):
    bA = fx.rocdl.make_buffer_tensor(A)
    smem = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((64,), (1,)))
    src = fx.zipped_divide(bA, (1,))[None, fx.thread_idx.x]
    dst = fx.zipped_divide(smem, (1,))[None, fx.thread_idx.x]
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopyLDS32b(), fx.Float32), src, dst, imm_offset=imm)


@flyc.jit
def _run_dynamic_imm(A: fx.Tensor, imm: fx.Int32):
    _dynamic_imm(A, imm).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_a_run_time_imm_offset_is_a_located_error(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)
    with pytest.raises(flyc.CompileError) as info:
        flyc.compile(_run_dynamic_imm, np.zeros(64, np.float32), 4)
    text = str(info.value)
    assert "BufferCopyLDS32b: imm_offset must be a compile-time constant" in text
    assert "test_rocdl_lds_loads.py" in text


# -- LDSReadTrans feeding an MFMA, as FlyDSL's gfx950 GEMM does ------------------------

@flyc.kernel
def _mfma_trans(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, tiled_mma: fx.TiledMma):
    # C (16 x 16) = A (16 x 16, K contiguous) @ B (16 x 16, K x N with N
    # contiguous, staged in LDS): B's K runs are not contiguous, so the
    # MFMA's B operand (4 consecutive K of one column per lane) comes from
    # ds_read_b64_tr_b16.
    tid = fx.thread_idx.x
    flat = fx.SharedAllocator().allocate_tensor(fx.Float16, fx.make_layout((256,), (1,)))
    for k in fx.range_constexpr(4):
        flat[k * 64 + tid] = B[k * 64 + tid]
    fx.barrier()
    sB = fx.make_view(fx.get_iter(flat), fx.make_layout((16, 16), (1, 16)))  # (n, k)
    A = fx.flat_divide(A, (16, 16))[None, None, 0, 0]  # static shapes
    C = fx.flat_divide(C, (16, 16))[None, None, 0, 0]
    thr_mma = tiled_mma.thr_slice(tid)
    frag_A, frag_B = thr_mma.make_fragment_A(A), thr_mma.make_fragment_B(sB)
    a_atom = fx.make_copy_atom(fx.UniversalCopy64b(), fx.Float16)
    g2r_A = fx.make_tiled_copy_A(a_atom, tiled_mma).get_slice(tid)
    fx.copy(a_atom, g2r_A.partition_S(A), g2r_A.retile(frag_A))
    b_atom = fx.make_copy_atom(fx.rocdl.cdna4.LDSReadTrans16_64b(), fx.Float16)
    s2r_B = fx.make_tiled_copy_B(b_atom, tiled_mma).get_slice(tid)
    fx.copy(b_atom, s2r_B.partition_S(sB), s2r_B.retile(frag_B))
    acc = thr_mma.make_fragment_C(C)
    acc.fill(0.0)
    fx.gemm(tiled_mma, acc, frag_A, frag_B, acc)
    c_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    r2g = fx.make_tiled_copy_C(c_atom, tiled_mma).get_slice(tid)
    fx.copy(c_atom, r2g.retile(acc), r2g.partition_D(C))


@flyc.jit
def _run_mfma_trans(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tiled_mma = fx.make_tiled_mma(fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 16, fx.Float16)),
                                  fx.make_layout((1, 1, 1), (1, 1, 1)))
    _mfma_trans(A, B, C, tiled_mma).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_lds_read_trans_feeds_mfma_b_from_a_k_by_n_tile(emu):
    emu("gfx950")
    gen = torch.Generator().manual_seed(11)
    a = torch.randn(16, 16, generator=gen).to(torch.float16)
    b = torch.randn(16, 16, generator=gen).to(torch.float16)  # K x N, N contiguous
    c = torch.zeros(16, 16)
    _run_mfma_trans(a, b.reshape(256), c)
    want = a.double() @ b.double()
    assert torch.allclose(c.double(), want, rtol=1e-4, atol=1e-4), (c.double() - want).abs().max()


def test_lds_read_trans_feeding_mfma_isa(fly_env):
    isa = _isa(fly_env, "gfx950", _run_mfma_trans, np.zeros((16, 16), np.float16), np.zeros(256, np.float16),
               np.zeros((16, 16), np.float32))
    assert "ds_read_b64_tr_b16" in isa and "v_mfma_f32_16x16x16" in isa


# -- the four transposing reads at the ROCDL level, with inactive lanes ----------------

_FORMS = {"tr4": (4, 8), "tr8": (8, 8), "tr16": (16, 8), "tr6": (6, 12)}  # element bits, bytes


@pytest.fixture(scope="module")
def emu_run_tool():
    return _build_tool("fly-emu-run", "FLY_EMU_RUN")


def _ds_read_tr(lds: bytes, width, nbytes, lane, active):
    """DS_READ_B*_TR_B* for one lane of a wave: its row of 16 lanes read
    nbytes each (an inactive lane: nothing, taken as zeros); the row's
    width-bit elements, lane after lane, are e_0, e_1, ...; lane t gets
    e_t, e_{t+16}, ... packed from bit 0."""
    row = lane - lane % 16
    n = nbytes * 8 // width
    data = [int.from_bytes(lds[nbytes * u:nbytes * (u + 1)], "little") if active(u) else 0
            for u in range(row, row + 16)]
    result = 0
    for j in range(n):
        f = lane % 16 + 16 * j
        element = (data[f // n] >> (width * (f % n))) & ((1 << width) - 1)
        result |= element << (width * j)
    return result


@pytest.mark.parametrize("form", list(_FORMS))
@pytest.mark.parametrize("skip", [0, 5])
def test_transposing_reads_per_the_isa(emu_run_tool, form, skip):
    width, nbytes = _FORMS[form]
    rng = np.random.default_rng(12)
    words = [int(w) for w in rng.integers(-2**31, 2**31, 3 * 64)]
    out = run_kernel(emu_run_tool, REPO_ROOT / "test" / "python" / "emu_kernels" / "lds_transpose.mlir",
                     form, "gfx950", 64,
                     ["buf:i32:192:" + ",".join(map(str, words)), "buf:i32:192:fill=-1", f"i32:{skip}"])
    lds = b"".join(int(w & 0xFFFFFFFF).to_bytes(4, "little") for w in words)
    got = [int(x) & 0xFFFFFFFF for x in out[1]]
    for t in range(64):
        row = got[3 * t:3 * t + nbytes // 4]
        if t < skip:
            assert row == [0xFFFFFFFF] * (nbytes // 4), (t, row)
            continue
        want = _ds_read_tr(lds, width, nbytes, t, lambda u: u >= skip)
        assert row == [(want >> (32 * i)) & 0xFFFFFFFF for i in range(nbytes // 4)], (form, t)


# -- FlyDSL's gfx950 GEMM idiom: copy_atom_call on one-element views ---------------------

@flyc.kernel
def _async_idiom(A: fx.Tensor, Out: fx.Tensor):
    # As FlyDSL's gemm_a16w16_gfx950 stages a tile: a 128-bit atom over bf16
    # views of one element, the source an offset buffer pointer, the
    # destination the wave's LDS base plus the call's stride.
    tid = fx.thread_idx.x
    a_buf = fx.rocdl.make_buffer_tensor(A, max_size=False)
    smem = fx.SharedAllocator().allocate_tensor(fx.BFloat16, fx.make_layout((2 * BLOCK * 8,), (1,)))
    atom = fx.make_copy_atom(fx.rocdl.cdna4.BufferLoadAsyncLDS128b(), 128)
    wave_offset = fx.rocdl.readfirstlane(fx.Int32, fx.Int32(tid // 64 * 64 * 16))
    lds_ptr = fx.get_iter(smem) + wave_offset // 2
    unit = fx.make_layout(1, 1)
    for i in fx.range_constexpr(2):
        src = fx.make_view(fx.get_iter(a_buf) + (i * BLOCK + tid) * 8, unit)
        fx.copy_atom_call(atom, src, fx.make_view(lds_ptr, unit))
        lds_ptr = lds_ptr + BLOCK * 8
    fx.rocdl.asyncmark()
    fx.rocdl.wait_asyncmark(0)
    fx.barrier()
    for k in fx.range_constexpr(16):
        j = k * BLOCK + tid
        Out[j] = smem[j]


@flyc.jit
def _run_async_idiom(A: fx.Tensor, Out: fx.Tensor):
    _async_idiom(A, Out).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_flydsl_async_idiom_of_one_element_views(emu):
    emu("gfx950")
    n = 2 * BLOCK * 8
    a = torch.randn(n + 64, generator=torch.Generator().manual_seed(13)).to(torch.bfloat16)
    out = torch.zeros(n, dtype=torch.bfloat16)
    _run_async_idiom(a[:n - 5], out)  # the last 5 elements are past num_records
    want = a[:n].clone()
    want[n - 5:] = 0  # a dword past num_records reads 0: the pair holding n - 5 is partly out
    want[n - 6] = 0
    assert torch.equal(out, want)
