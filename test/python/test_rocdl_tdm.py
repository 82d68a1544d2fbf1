"""gfx1250's tensor data mover (fx.rocdl.make_tdm_atom / TDM) on the emulator:
whole tiles of rank 1 to 5 copied global -> LDS -> global and checked against
numpy, tiles at the tensor's border (out-of-range elements: a load writes 0
to LDS, a store skips them), several waves sharing a tile, LDS padding,
dynamic strides and extents, imm_offset; the ISA of the code object
(tensor_load_to_lds, tensor_store_from_lds, s_wait_tensorcnt, no scratch);
and the located errors of bad input, of TDM on a chip without it and of a
tile the instruction cannot copy."""

import math

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.rocdl import tdm_ops
from flydsl.tracing.errors import TraceError

SENTINEL = -7


@pytest.fixture
def gfx1250(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx1250", COMPILE_ONLY=None)


def _packed(shape, pad=(0, 0)):
    """The LDS strides of a packed tile (innermost mode last), with `pad`
    elements after every `interval` (a whole number of inner modes)."""
    interval, amount = pad
    strides, size = [0] * len(shape), 1
    for i in reversed(range(len(shape))):
        strides[i] = size
        size *= shape[i]
        if interval and size == interval:
            size = interval + amount
    return tuple(strides), size


def _round_trip(shape, gstride, origin, load_ext, store_ext, dtype, waves=1, block_waves=None,
                pad=(0, 0)):
    """A jit function copying the tile (`shape`:`gstride` at element
    `origin` of the flat A) to LDS and back to the same place of B."""
    lstride, lds_size = _packed(shape, pad)
    threads = 32 * (block_waves or waves)

    @flyc.kernel
    def k(A: fx.Tensor, B: fx.Tensor):
        layout = fx.make_layout(shape, gstride)
        ga = fx.make_view(fx.add_offset(fx.get_iter(A), origin), layout)
        gb = fx.make_view(fx.add_offset(fx.get_iter(B), origin), layout)
        lds = fx.SharedAllocator().allocate(fx.Array[dtype, lds_size, 16]).peek()
        s = fx.make_view(lds.ptr, fx.make_layout(shape, lstride))
        load = fx.rocdl.make_tdm_atom(ga, list(load_ext), num_warps=waves, pad_interval=pad[0],
                                      pad_amount=pad[1])
        fx.copy(load, ga, s)
        tdm_ops.tensor_wait(0)
        fx.barrier()
        store = fx.rocdl.make_tdm_atom(gb, list(store_ext), num_warps=waves, pad_interval=pad[0],
                                       pad_amount=pad[1])
        fx.copy(store, s, gb)
        tdm_ops.tensor_wait(0)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor):
        k(A, B).launch(grid=(1, 1, 1), block=(threads, 1, 1))

    return run


def _expected(a, shape, gstride, origin, load_ext, store_ext):
    """B after the round trip: the tile's elements that both copies have in
    range hold A's, those only the store has 0 (the load's zeros), the rest
    the sentinel."""
    b = np.full_like(a, SENTINEL)

    def inside(c, extents):
        return all(e is None or x < e for x, e in zip(c, extents))

    for c in np.ndindex(*shape):
        i = origin + sum(x * s for x, s in zip(c, gstride))
        if inside(c, store_ext):
            b[i] = a[i] if inside(c, load_ext) else 0
    return b


def _check(shape, gstride, origin, load_ext, store_ext, np_dtype, fx_dtype, **kw):
    size = origin + sum((n - 1) * s for n, s in zip(shape, gstride)) + 1
    rng = np.random.default_rng(size)
    a = (rng.standard_normal(size + 8) * 100).astype(np_dtype)
    b = np.full_like(a, SENTINEL)
    at, bt = torch.from_numpy(a), torch.from_numpy(b)
    _round_trip(shape, gstride, origin, load_ext, store_ext, fx_dtype, **kw)(at, bt)
    np.testing.assert_array_equal(bt.numpy(), _expected(a, shape, gstride, origin, load_ext, store_ext))


def _row_major(shape, pitch):
    """Strides of a tile of `shape` in a tensor whose innermost mode is
    `pitch` elements long (and the others as long as the tile's)."""
    strides, size = [], 1
    for i, n in enumerate(reversed(shape)):
        strides.append(size)
        size *= pitch if i == 0 else n
    return tuple(reversed(strides))


# -- ranks 1 to 5 -------------------------------------------------------------------

RANKS = {
    1: (96,),
    2: (8, 24),
    3: (2, 6, 16),
    4: (2, 3, 4, 8),
    5: (2, 2, 3, 2, 8),
}


@pytest.mark.parametrize("rank", sorted(RANKS))
def test_round_trip_of_each_rank(gfx1250, rank):
    shape = RANKS[rank]
    gstride = _row_major(shape, shape[-1] + 5)  # rows of the tensor are longer than the tile's
    _check(shape, gstride, 3, shape, shape, np.float32, fx.Float32)


@pytest.mark.parametrize("np_dtype,fx_dtype", [(np.int8, fx.Int8), (np.float16, fx.Float16),
                                               (np.int32, fx.Int32), (np.float64, fx.Float64)])
def test_element_sizes_1_2_4_8(gfx1250, np_dtype, fx_dtype):
    shape = (4, 32)
    _check(shape, (40, 1), 2, shape, shape, np_dtype, fx_dtype)


# -- the tensor's border --------------------------------------------------------------

@pytest.mark.parametrize("rank", [1, 2, 3, 5])
def test_a_load_past_the_extents_writes_zeros(gfx1250, rank):
    shape = RANKS[rank]
    load_ext = tuple(max(1, n - 1 - i % 2) for i, n in enumerate(shape))
    _check(shape, _row_major(shape, shape[-1]), 0, load_ext, shape, np.float32, fx.Float32)


@pytest.mark.parametrize("rank", [1, 2, 4])
def test_a_store_past_the_extents_writes_nothing(gfx1250, rank):
    shape = RANKS[rank]
    store_ext = tuple(max(1, n - 2 + i % 2) for i, n in enumerate(shape))
    _check(shape, _row_major(shape, shape[-1]), 1, shape, store_ext, np.float32, fx.Float32)


def test_none_is_no_limit_and_zero_is_everything_out(gfx1250):
    shape = (4, 16)
    big = 1 << 30
    _check(shape, (16, 1), 0, (None, 16), (big, 0), np.float32, fx.Float32)


# -- waves, padding ---------------------------------------------------------------------

@pytest.mark.parametrize("waves,shape", [(2, (8, 32)), (4, (16, 8)), (8, (2, 4, 16)), (4, (2, 32))])
def test_waves_share_the_tile(gfx1250, waves, shape):
    _check(shape, _row_major(shape, shape[-1] + 3), 5, shape, shape, np.float32, fx.Float32,
           waves=waves)


def test_each_wave_copies_the_whole_tile_with_one_wave_per_tile(gfx1250):
    shape = (8, 32)
    _check(shape, (40, 1), 0, (6, 30), shape, np.float32, fx.Float32, waves=1, block_waves=4)


@pytest.mark.parametrize("waves", [1, 4])
def test_padding_round_trip(gfx1250, waves):
    shape = (16, 32)
    _check(shape, (50, 1), 0, (13, 32), shape, np.float32, fx.Float32, waves=waves, pad=(32, 4))


def test_padding_leaves_the_pad_untouched(gfx1250):
    # A 4 x 16 f16 tile into LDS with 2 elements free after each row (a
    # dword), read back raw: rows at 18-element pitch, the pad as it was.
    shape, pad = (4, 16), (16, 2)
    lstride, lds_size = _packed(shape, pad)

    @flyc.kernel
    def k(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        ga = fx.make_view(fx.get_iter(A), fx.make_layout(shape, (16, 1)))
        lds = fx.SharedAllocator().allocate(fx.Array[fx.Float16, lds_size, 16]).peek()
        for i in range(tid, lds_size, 32):
            lds[i] = fx.Float16(-1.0)
        fx.barrier()
        s = fx.make_view(lds.ptr, fx.make_layout(shape, lstride))
        fx.copy(fx.rocdl.make_tdm_atom(ga, [4, 16], num_warps=1, pad_interval=16, pad_amount=2), ga, s)
        tdm_ops.tensor_wait(0)
        fx.barrier()
        out = fx.get_iter(Out)
        for i in range(tid, lds_size, 32):
            fx.ptr_store(lds[i], fx.add_offset(out, i))

    @flyc.jit
    def run(A: fx.Tensor, Out: fx.Tensor):
        k(A, Out).launch(grid=(1, 1, 1), block=(32, 1, 1))

    a = np.arange(64, dtype=np.float16)
    out = torch.zeros(lds_size, dtype=torch.float16)
    run(torch.from_numpy(a), out)
    want = np.full((4, 18), -1.0, np.float16)
    want[:, :16] = a.reshape(4, 16)
    np.testing.assert_array_equal(out.numpy(), want.reshape(-1))


# -- dynamic layouts, imm_offset --------------------------------------------------------

TM, TN = 8, 32


@flyc.kernel
def _tiles(A: fx.Tensor, B: fx.Tensor):
    bx, by = fx.block_idx.x, fx.block_idx.y
    M, N = A.shape.unpack()
    gA = fx.flat_divide(A, (TM, TN))[None, None, bx, by]
    gB = fx.flat_divide(B, (TM, TN))[None, None, bx, by]
    lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, TM * TN, 16]).peek()
    s = fx.make_view(lds.ptr, fx.make_layout((TM, TN), (TN, 1)))
    # The rows and columns left from the tile's origin: the tensor's border.
    rows, cols = M - bx * TM, N - by * TN
    fx.copy(fx.rocdl.make_tdm_atom(gA, [rows, cols], num_warps=2), gA, s)
    tdm_ops.tensor_wait(0)
    fx.barrier()
    fx.copy(fx.rocdl.make_tdm_atom(gB, [rows, cols], num_warps=2), s, gB)
    tdm_ops.tensor_wait(0)


@flyc.jit
def _run_tiles(A: fx.Tensor, B: fx.Tensor):
    M, N = A.shape.unpack()
    _tiles(A, B).launch(grid=((M + TM - 1) // TM, (N + TN - 1) // TN, 1), block=(64, 1, 1))


@pytest.mark.parametrize("m,n", [(16, 64), (21, 45), (3, 100)])
def test_tiles_of_a_dynamic_tensor_with_ragged_borders(gfx1250, m, n):
    # The tensor's row stride is dynamic: make_tdm_atom reads it from the
    # tile; the extents are run-time values. Loads past the border read 0,
    # stores past it are dropped, so B == A exactly.
    rng = np.random.default_rng(m * n)
    a = rng.standard_normal((m, n)).astype(np.float32)
    b = torch.full((m, n), float(SENTINEL))
    _run_tiles(torch.from_numpy(a), b)
    np.testing.assert_array_equal(b.numpy(), a)


def test_a_view_of_a_wider_tensor_and_strides_given(gfx1250):
    # A (10, 40) tensor whose 8 x 16 window at (1, 3) is copied; the window's
    # outer stride is given as strides=[40, None] over a tile view whose
    # static stride is a placeholder.
    @flyc.kernel
    def k(A: fx.Tensor, B: fx.Tensor):
        ga = fx.make_view(fx.add_offset(fx.get_iter(A), 43), fx.make_layout((8, 16), (16, 1)))
        gb = fx.make_view(fx.add_offset(fx.get_iter(B), 43), fx.make_layout((8, 16), (16, 1)))
        lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 128, 16]).peek()
        s = fx.make_view(lds.ptr, fx.make_layout((8, 16), (16, 1)))
        fx.copy(fx.rocdl.make_tdm_atom(ga, [None, None], strides=[40, None], num_warps=1), ga, s)
        tdm_ops.tensor_wait(0)
        fx.copy(fx.rocdl.make_tdm_atom(gb, [None, None], strides=[fx.Int64(40), None], num_warps=1),
                s, gb)
        tdm_ops.tensor_wait(0)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor):
        k(A, B).launch(grid=(1, 1, 1), block=(32, 1, 1))

    a = np.arange(400, dtype=np.float32).reshape(10, 40)
    b = torch.zeros(10, 40)
    run(torch.from_numpy(a), b)
    want = np.zeros_like(a)
    want[1:9, 3:19] = a[1:9, 3:19]
    np.testing.assert_array_equal(b.numpy(), want)


def test_imm_offset_moves_the_global_tile(gfx1250):
    # Four 4 x 8 tiles along K: the same atom, imm_offset k * 8 * 4 bytes.
    @flyc.kernel
    def k(A: fx.Tensor, B: fx.Tensor):
        ga = fx.make_view(fx.get_iter(A), fx.make_layout((4, 8), (32, 1)))
        gb = fx.make_view(fx.get_iter(B), fx.make_layout((4, 8), (32, 1)))
        lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 32, 16]).peek()
        s = fx.make_view(lds.ptr, fx.make_layout((4, 8), (8, 1)))
        load = fx.rocdl.make_tdm_atom(ga, [4, 8], num_warps=1)
        store = fx.rocdl.make_tdm_atom(gb, [4, 8], num_warps=1)
        for kt in fx.range_constexpr(4):
            fx.copy(load, ga, s, imm_offset=fx.Int64(kt * 32))
            tdm_ops.tensor_wait(0)
            fx.copy(store, s, gb, imm_offset=fx.Int64((3 - kt) * 32))
            tdm_ops.tensor_wait(0)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor):
        k(A, B).launch(grid=(1, 1, 1), block=(32, 1, 1))

    a = np.arange(128, dtype=np.float32).reshape(4, 32)
    b = torch.zeros(4, 32)
    run(torch.from_numpy(a), b)
    want = np.concatenate([a[:, 8 * (3 - j):8 * (4 - j)] for j in range(4)], axis=1)
    np.testing.assert_array_equal(b.numpy(), want)


# -- ISA ------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", [2, 3])
def test_the_code_object_has_tensor_instructions_and_no_scratch(fly_env, rank):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)
    shape = RANKS[rank]
    run = _round_trip(shape, _row_major(shape, shape[-1]), 0, shape, shape, fx.Float32, waves=2)
    size = math.prod(shape)
    compiled = flyc.compile(run, np.zeros(size, np.float32), np.zeros(size, np.float32))
    isa = compiled.isa()
    assert "tensor_load_to_lds" in isa and "tensor_store_from_lds" in isa
    assert "s_wait_tensorcnt" in isa
    assert "scratch_" not in isa and "buffer_store" not in isa
    (res,) = compiled.resources.values()
    assert res["scratch_bytes"] == 0


# -- errors ------------------------------------------------------------------------------

def _trace_error(fn, *args, **kw):
    with pytest.raises(TraceError) as info:
        fn(*args, **kw)
    return str(info.value)


def _compile_one(kernel, size=64):
    @flyc.jit
    def host(A: fx.Tensor):
        kernel(A).launch(grid=(1, 1, 1), block=(32, 1, 1))

    return flyc.compile(host, np.zeros(size, np.float32))


@flyc.kernel
def _tdm_kernel(A: fx.Tensor):
    ga = fx.make_view(fx.get_iter(A), fx.make_layout((4, 16), (16, 1)))
    lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 64, 16]).peek()
    s = fx.make_view(lds.ptr, fx.make_layout((4, 16), (16, 1)))
    fx.copy(fx.rocdl.make_tdm_atom(ga, [4, 16], num_warps=1), ga, s)
    tdm_ops.tensor_wait(0)


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100", "gfx1201"])
def test_tdm_on_a_chip_without_it_is_a_located_error(fly_env, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(_compile_one, _tdm_kernel)
    assert "make_tdm_atom" in text and "TDM" in text and chip in text and "gfx1250" in text
    assert "test_rocdl_tdm.py" in text


def _kernel_with(**kw):
    shape = kw.pop("shape", (4, 16))
    extents = kw.pop("extents", list(shape))

    @flyc.kernel
    def k(A: fx.Tensor):
        ga = fx.make_view(fx.get_iter(A), fx.make_layout(shape, _row_major(shape, shape[-1])))
        fx.rocdl.make_tdm_atom(ga, extents, **kw)

    return k


@pytest.mark.parametrize("kw,words", [
    (dict(extents=[], num_warps=1), ["tensor_extents", "1 to 5"]),
    (dict(shape=(2, 2, 2, 2, 2, 2), num_warps=1), ["tensor_extents", "1 to 5", "6"]),
    (dict(extents=[4], num_warps=1), ["tensor_extents", "1 extents", "2 modes"]),
    (dict(num_warps=3), ["num_warps", "power of two"]),
    (dict(num_warps=64), ["num_warps", "[1, 32]"]),
    (dict(num_warps=1, pad_interval=16), ["pad_interval", "pad_amount"]),
    (dict(num_warps=1, cache_modifier=40), ["cache_modifier", "[0, 31]"]),
    (dict(num_warps=1, atomic_barrier=1), ["atomic_barrier", "bool"]),
    (dict(extents=[4, "x"], num_warps=1), ["tensor_extents[1]", "str"]),
    (dict(extents=[4, -1], num_warps=1), ["tensor_extents[1]", "-1"]),
    (dict(num_warps=1, strides=[4]), ["strides", "2 strides"]),
])
def test_bad_arguments_are_located_errors(fly_env, kw, words):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)
    text = _trace_error(_compile_one, _kernel_with(**kw), 4096)
    assert "make_tdm_atom" in text and "test_rocdl_tdm.py" in text, text
    for w in words:
        assert w in text, text


def test_a_tile_the_instruction_cannot_copy_is_a_located_compile_error(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        ga = fx.make_view(fx.get_iter(A), fx.make_layout((4, 16), (16, 1)))
        lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 64, 16]).peek()
        s = fx.make_view(lds.ptr, fx.make_layout((4, 16), (1, 4)))  # column-major LDS
        fx.copy(fx.rocdl.make_tdm_atom(ga, [4, 16], num_warps=1), ga, s)

    with pytest.raises(flyc.CompileError) as info:
        _compile_one(k)
    text = str(info.value)
    assert "the LDS tile" in text and "(16, 1)" in text and "test_rocdl_tdm.py" in text


def test_tensor_wait_takes_a_compile_time_count(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        tdm_ops.tensor_wait(64)

    text = _trace_error(_compile_one, k)
    assert "tensor_wait" in text and "count" in text and "[0, 63]" in text


def test_the_api_is_flydsls():
    import inspect
    assert fx.rocdl.TDM is fx.rocdl.cdna5.TDM and fx.rocdl.make_tdm_atom is fx.rocdl.cdna5.make_tdm_atom
    assert fx.tdm_ops is tdm_ops
    assert str(inspect.signature(fx.rocdl.make_tdm_atom)) == (
        "(tensor, tensor_extents, strides=None, *, num_warps, pad_interval=0, pad_amount=0, "
        "cache_modifier=0, atomic_barrier=False, early_timeout=False)")
    assert str(inspect.signature(fx.rocdl.TDM)) == (
        "(rank, num_warps, pad_interval=0, pad_amount=0, cache_modifier=0, atomic_barrier=False, "
        "early_timeout=False)")
    assert str(inspect.signature(tdm_ops.tensor_wait)) == "(count=0)"


def test_the_tdm_type_and_its_checks():
    t = fx.rocdl.TDM(3, 2, 64, 8, 2, atomic_barrier=True)
    assert str(t) == ("!fly_rocdl.gfx1250.tdm<rank = 3, warps = 2, pad = 64, 8, cache = 2, "
                      "barrier = true, timeout = false>")
    for args, words in [((0, 1), ["'rank'", "[1, 5]"]), ((6, 1), ["'rank'", "[1, 5]"]),
                        ((2, 1, 24, 4), ["'pad_interval'", "power of two"]),
                        ((2, "1"), ["'num_warps'", "int"])]:
        text = _trace_error(fx.rocdl.TDM, *args)
        assert "fx.TDM" in text or "TDM:" in text, text
        for w in words:
            assert w in text, text


@pytest.mark.parametrize("what,words", [("workgroup_mask", "cluster multicast"),
                                        ("atomic_barrier", "atomic barrier")])
def test_what_the_emulator_does_not_model_traps(gfx1250, what, words):
    @flyc.kernel
    def k(A: fx.Tensor):
        ga = fx.make_view(fx.get_iter(A), fx.make_layout((4, 16), (16, 1)))
        lds = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 64, 16]).peek()
        s = fx.make_view(lds.ptr, fx.make_layout((4, 16), (16, 1)))
        atom = fx.rocdl.make_tdm_atom(ga, [4, 16], num_warps=1,
                                      atomic_barrier=what == "atomic_barrier")
        if what == "workgroup_mask":
            atom = fx.atom_set_value(atom, "workgroup_mask", fx.Int32(3))
        fx.copy(atom, ga, s)
        tdm_ops.tensor_wait(0)

    @flyc.jit
    def run(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(32, 1, 1))

    with pytest.raises(Exception) as info:
        run(torch.zeros(64))
    assert "tensor data mover" in str(info.value) and words in str(info.value), str(info.value)
