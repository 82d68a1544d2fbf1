"""fx.rocdl's buffer memory on the emulator: make_buffer_tensor / make_buffer_ptr /
get_buffer_rsrc, the BufferCopy* loads and stores (range-checked against the
resource's num_records: loads past it read 0, stores past it are dropped, so a
tiled copy on a shape that is not a multiple of the tile needs no predicate),
their soffset / imm_offset fields, the BufferAtomic* atomics, the ISA of 128-bit
copies, and the located errors of bad input. Against numpy, on a wave64 CDNA
chip and a wave32 RDNA one (their resources' 4th words differ)."""

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError

ARCHES = ["gfx942", "gfx1100"]
SENTINEL = -7.0


@pytest.fixture(params=ARCHES)
def arch(request, fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH=request.param, COMPILE_ONLY=None)
    return request.param


def _tiled_copy(atom):
    # 8 x 16 threads, 4 consecutive floats each: an 8 x 64 tile.
    return fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((8, 16), order=(1, 0)),
                                 fx.make_ordered_layout((1, 4), order=(0, 1)))


# -- a tiled copy across the borders of the tensor ------------------------------

@flyc.kernel
def _tile_copy(A: fx.Tensor, B: fx.Tensor, tiled_copy: fx.TiledCopy, buffer_a: fx.Constexpr[bool],
               buffer_b: fx.Constexpr[bool]):
    bid_m, bid_n, _ = fx.block_idx
    if buffer_a:
        A = fx.rocdl.make_buffer_tensor(A, max_size=False)
    if buffer_b:
        B = fx.rocdl.make_buffer_tensor(B, max_size=False)
    tile = tiled_copy.tile_mn
    gA = fx.flat_divide(A, tile)[None, None, bid_m, bid_n]
    gB = fx.flat_divide(B, tile)[None, None, bid_m, bid_n]
    thr = tiled_copy.get_slice(fx.thread_idx.x)
    tA, tB = thr.partition_S(gA), thr.partition_D(gB)
    r = fx.make_fragment_like(tA)
    load = fx.rocdl.BufferCopy128b() if buffer_a else fx.UniversalCopy128b()
    store = fx.rocdl.BufferCopy128b() if buffer_b else fx.UniversalCopy128b()
    fx.copy(fx.make_copy_atom(load, fx.Float32), tA, r)
    fx.copy(fx.make_copy_atom(store, fx.Float32), r, tB)


@flyc.jit
def _run_tile_copy(A: fx.Tensor, B: fx.Tensor, buffer_a: fx.Constexpr[bool], buffer_b: fx.Constexpr[bool],
                   tiles_m: fx.Constexpr[int], tiles_n: fx.Constexpr[int]):
    tiled_copy = _tiled_copy(fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32))
    _tile_copy(A, B, tiled_copy, buffer_a, buffer_b).launch(grid=(tiles_m, tiles_n, 1), block=(128, 1, 1))


M, N, PAD_M = 37, 128, 40  # 37 rows: the last tile of 8 rows has 3 past the end


def test_buffer_loads_past_the_end_read_zero(arch):
    rng = np.random.default_rng(1)
    big_a = torch.from_numpy(rng.standard_normal((PAD_M + 8, N)).astype(np.float32))
    a = big_a[:M]  # the rows after it hold numbers: the range check must zero them
    out = torch.full((PAD_M, N), SENTINEL)
    _run_tile_copy(a, out, True, False, PAD_M // 8, N // 64)
    np.testing.assert_array_equal(out[:M].numpy(), a.numpy())
    np.testing.assert_array_equal(out[M:].numpy(), np.zeros((PAD_M - M, N), np.float32))


def test_buffer_stores_past_the_end_are_dropped(arch):
    rng = np.random.default_rng(2)
    src = torch.from_numpy(rng.standard_normal((PAD_M, N)).astype(np.float32))
    big_b = torch.full((PAD_M + 8, N), SENTINEL)
    b = big_b[:M]
    _run_tile_copy(src, b, False, True, PAD_M // 8, N // 64)
    np.testing.assert_array_equal(big_b[:M].numpy(), src[:M].numpy())
    np.testing.assert_array_equal(big_b[M:].numpy(), np.full((PAD_M + 8 - M, N), SENTINEL, np.float32))


def test_buffer_to_buffer_tiled_copy_without_predicates(arch):
    rng = np.random.default_rng(3)
    big_a = torch.from_numpy(rng.standard_normal((PAD_M + 8, N)).astype(np.float32))
    big_b = torch.full((PAD_M + 8, N), SENTINEL)
    _run_tile_copy(big_a[:M], big_b[:M], True, True, PAD_M // 8, N // 64)
    np.testing.assert_array_equal(big_b[:M].numpy(), big_a[:M].numpy())
    assert (big_b[M:].numpy() == SENTINEL).all()


# -- 1-D: a 128-bit access straddling num_records, soffset / imm_offset --------------

@flyc.kernel
def _shifted_load(A: fx.Tensor, Out: fx.Tensor, soffset: fx.Int32, imm: fx.Constexpr[int]):
    bA = fx.rocdl.make_buffer_tensor(A, max_size=False)
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    part_a = fx.zipped_divide(bA, (4,))[None, i]
    part_o = fx.zipped_divide(Out, (4,))[None, i]
    frag = fx.make_fragment_like(part_o)
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32), part_a, frag,
            soffset=soffset, imm_offset=imm)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32), frag, part_o)


@flyc.jit
def _run_shifted_load(A: fx.Tensor, Out: fx.Tensor, soffset: fx.Int32, imm: fx.Constexpr[int],
                      blocks: fx.Constexpr[int]):
    _shifted_load(A, Out, soffset, imm).launch(grid=(blocks, 1, 1), block=(64, 1, 1))


def _expected_shift(a, n_out, shift):
    want = np.zeros(n_out, np.float32)
    for j in range(n_out):
        if 0 <= j + shift < len(a):
            want[j] = a[j + shift]
    return want


@pytest.mark.parametrize("soffset,imm", [(0, 0), (3, 0), (0, 16), (5, 32)])
def test_soffset_and_imm_offset_move_the_access(arch, soffset, imm):
    # 1001 floats: the access at 1000 has one dword in range and three past it.
    rng = np.random.default_rng(4)
    big = rng.standard_normal(1100).astype(np.float32)
    a = torch.from_numpy(big)[:1001]
    out = torch.full((1024,), SENTINEL)
    _run_shifted_load(a, out, soffset, imm, 1024 // 256)
    np.testing.assert_array_equal(out.numpy(), _expected_shift(big[:1001], 1024, soffset + imm // 4))


# -- atomics ----------------------------------------------------------------------

@flyc.kernel
def _atomic(Src: fx.Tensor, Dst: fx.Tensor, bins: fx.Constexpr[int], op: fx.Constexpr[str]):
    t = fx.thread_idx.x
    dst = fx.rocdl.make_buffer_tensor(Dst, max_size=False)
    elem = fx.zipped_divide(Src, (1,))[None, t]
    frag = fx.make_fragment_like(elem)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy32b(), Src.element_type), elem, frag)
    target = fx.zipped_divide(dst, (1,))[None, t % bins]
    dtype = Src.element_type
    atom = {"add": fx.rocdl.BufferAtomicAdd, "max": fx.rocdl.BufferAtomicMax,
            "min": fx.rocdl.BufferAtomicMin}[op](dtype)
    fx.copy(fx.make_copy_atom(atom, dtype), frag, target)


@flyc.jit
def _run_atomic(Src: fx.Tensor, Dst: fx.Tensor, bins: fx.Constexpr[int], op: fx.Constexpr[str]):
    _atomic(Src, Dst, bins, op).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("op,dtype", [("add", np.float32), ("max", np.float32), ("max", np.int32),
                                      ("min", np.int32)])
def test_buffer_atomics_against_numpy(arch, op, dtype):
    rng = np.random.default_rng(5)
    if dtype == np.float32:
        src = (rng.integers(-64, 64, 64) / 4).astype(np.float32)  # exact sums in any order
    else:
        src = rng.integers(0, 1 << 20, 64).astype(np.int32)  # min is unsigned: non-negative
    bins = 16
    init = {"add": 0, "max": -1000 if dtype == np.float32 else -1 << 30, "min": 1 << 30}[op]
    dst = np.full(bins, init, dtype)
    _run_atomic(torch.from_numpy(src), torch.from_numpy(dst), bins, op)
    grouped = src.reshape(4, bins)
    want = {"add": grouped.sum(0), "max": np.maximum(grouped.max(0), init),
            "min": np.minimum(grouped.min(0), init)}[op].astype(dtype)
    np.testing.assert_array_equal(dst, want)


def test_buffer_atomics_past_the_end_are_dropped(arch):
    src = np.ones(64, np.float32)
    big = np.zeros(32, np.float32)
    dst = torch.from_numpy(big)[:8]  # 16 bins wanted, 8 in range
    _run_atomic(torch.from_numpy(src), dst, 16, "add")
    np.testing.assert_array_equal(big[:8], np.full(8, 4, np.float32))
    np.testing.assert_array_equal(big[8:], np.zeros(24, np.float32))


# -- ISA --------------------------------------------------------------------------

@pytest.mark.parametrize("chip,load,store", [("gfx942", "buffer_load_dwordx4", "buffer_store_dwordx4"),
                                             ("gfx1100", "buffer_load_b128", "buffer_store_b128")])
def test_128_bit_buffer_copies_are_dwordx4(fly_env, chip, load, store):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)
    a, b = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
    isa = flyc.compile(_run_tile_copy, a, b, True, True, PAD_M // 8, N // 64).isa()
    assert load in isa and store in isa
    assert "global_load" not in isa and "global_store" not in isa


# -- get_buffer_rsrc ------------------------------------------------------------------

@flyc.kernel
def _raw_rsrc(A: fx.Tensor, Out: fx.Tensor):
    bA = fx.rocdl.make_buffer_tensor(A, num_records_bytes=16)
    rsrc = fx.rocdl.get_buffer_rsrc(fx.get_iter(bA))
    assert "!llvm.ptr<8>" in str(rsrc.ir.type)
    part_a = fx.zipped_divide(bA, (4,))[None, fx.thread_idx.x]
    part_o = fx.zipped_divide(Out, (4,))[None, fx.thread_idx.x]
    frag = fx.make_fragment_like(part_o)
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32), part_a, frag)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32), frag, part_o)


@flyc.jit
def _run_raw_rsrc(A: fx.Tensor, Out: fx.Tensor):
    _raw_rsrc(A, Out).launch(grid=(1, 1, 1), block=(4, 1, 1))


def test_num_records_bytes_bounds_the_resource(arch):
    a = np.arange(16, dtype=np.float32)
    out = np.full(16, SENTINEL, np.float32)
    _run_raw_rsrc(torch.from_numpy(a), torch.from_numpy(out))
    np.testing.assert_array_equal(out, np.concatenate([a[:4], np.zeros(12, np.float32)]))


# -- errors -----------------------------------------------------------------------

def _trace_error(fn, *args):
    with pytest.raises(TraceError) as info:
        fn(*args)
    return str(info.value)


@flyc.kernel
def _bad_ptr(A: fx.Tensor):
    frag = fx.make_fragment_like(fx.zipped_divide(A, (4,))[None, 0])
    fx.rocdl.make_buffer_ptr(fx.get_iter(frag))


@flyc.kernel
def _bad_rsrc(A: fx.Tensor):
    fx.rocdl.get_buffer_rsrc(fx.get_iter(A))


@flyc.kernel
def _no_buffer_side(A: fx.Tensor):
    part = fx.zipped_divide(A, (4,))[None, fx.thread_idx.x]
    frag = fx.make_fragment_like(part)
    fx.copy(fx.make_copy_atom(fx.rocdl.BufferCopy128b(), fx.Float32), part, frag)


def _compile_one(kernel):
    @flyc.jit
    def host(A: fx.Tensor):
        kernel(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return flyc.compile(host, np.zeros(256, np.float32))


def test_bad_input_is_a_located_error(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(_compile_one, _bad_ptr)
    assert "make_buffer_ptr" in text and "'ptr'" in text and "register" in text
    assert "test_rocdl_buffer.py" in text
    text = _trace_error(_compile_one, _bad_rsrc)
    assert "get_buffer_rsrc" in text and "'ptr'" in text and "global" in text
    text = _trace_error(fx.rocdl.BufferCopy, 24)
    assert "8, 16, 32, 64 or 128" in text
    text = _trace_error(fx.rocdl.BufferCopy, "128")
    assert "BufferCopy" in text and "'bit_size'" in text
    text = _trace_error(fx.rocdl.BufferAtomicMin, fx.Float32)
    assert "min" in text and "f32" in text
    text = _trace_error(fx.rocdl.make_buffer_ptr, 3)
    assert "make_buffer_ptr" in text and "'ptr'" in text


def test_a_buffer_copy_moves_between_buffer_memory_and_registers(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)
    with pytest.raises(flyc.CompileError) as info:
        _compile_one(_no_buffer_side)
    text = str(info.value)
    assert "'fly.copy' op a buffer copy moves data between buffer memory" in text and "global" in text
    assert "test_rocdl_buffer.py" in text


def test_make_buffer_tensor_defaults_to_the_largest_resource(fly_env):
    # FlyDSL's default (max_size=True): num_records 0xFFFFFFFF, no range check that matters.
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        fx.rocdl.make_buffer_tensor(A)

    @flyc.jit
    def host(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    text = flyc.compile(host, np.zeros(256, np.float32)).module_text
    assert "fly_rocdl.make_buffer_ptr" in text and "4294967295" in text
