"""fx.slice / fx.dice and the indexing that goes through them (Tensor[c]
with a None in c, Layout(c) with a None) as FlyDSL has them: the kept
modes are flattened into one tuple, and that tuple is unwrapped while it
has a single mode, so (None, bid) on ((16,8),(2,1)) is (16,8), not
((16,8)), and a single kept leaf is a leaf. The rule is the op's (its type
inference and its lowering alike), for int tuples, layouts, memrefs and
coordinate tensors; the algebra's slice underneath stays CuTe's (checked
against pycute by test_algebra_pycute.py).

The table's types were recorded from FlyDSL 0.4.2: the same case
functions, traced in a kernel under /opt/flydsl-0.4.2/bin/python with
COMPILE_ONLY=1 ARCH=gfx942, A a float32 (32,16) torch tensor and A1 a
float32 (64,) one, each case printed as str(value.type). Where 0.4.2
writes a memref, the comparison drops what is not slice's: its i64 marks
on dynamic strides (`?{i64}`) and our alignment suffix. Then the GEMM of
FlyDSL's examples/03-tiledMma.py (fx.slice(bA, (None, bid)) then the MMA
and copy partitions) with universal atoms, on the emulator against numpy.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT, marker_lines

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from flydsl.tracing.errors import TraceError  # noqa: E402


@pytest.fixture
def compile_only(monkeypatch):
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    yield
    monkeypatch.undo()
    flyc.Environment.reload()


@pytest.fixture
def emulator(monkeypatch):
    monkeypatch.setenv("FLYDSL_RUNTIME_KIND", "emu")
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    yield
    monkeypatch.undo()
    flyc.Environment.reload()


def trace(body):
    """body(A, A1) traced in a kernel (compile only); what it returned."""
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor, A1: fx.Tensor):
        out["r"] = body(A, A1)

    @flyc.jit
    def host(A: fx.Tensor, A1: fx.Tensor):
        k(A, A1).launch(grid=(1, 1, 1), block=(64, 1, 1))

    flyc.compile(host, np.zeros((32, 16), np.float32), np.zeros(64, np.float32))
    return out["r"]


def ident(shape):
    """A coordinate tensor as 0.4.2 makes one (it has no make_identity_tensor)."""
    return fx.make_view(fx.make_int_tuple(tuple(0 for _ in shape)), fx.make_identity_layout(shape))


it, L = fx.make_int_tuple, fx.make_layout
NESTED = ((16, 8), (2, 3))
NESTED_STRIDE = ((1, 16), (128, 256))

# name: (case(A, A1), FlyDSL 0.4.2's type)
CASES = {
    # int tuples
    "tuple, one leaf kept": (lambda A, A1: fx.slice(it((4, 8)), (None, 2)), "!fly.int_tuple<4>"),
    "tuple, two kept": (lambda A, A1: fx.slice(it((4, 8, 16)), (None, 3, None)),
                        "!fly.int_tuple<(4,16)>"),
    "tuple, a tuple mode kept": (lambda A, A1: fx.slice(it(NESTED), (None, 1)),
                                 "!fly.int_tuple<(16,8)>"),
    "tuple, dynamic coordinate": (lambda A, A1: fx.slice(it(NESTED), (None, fx.block_idx.x)),
                                  "!fly.int_tuple<(16,8)>"),
    "tuple, nested coordinate": (lambda A, A1: fx.slice(it(NESTED), ((None, None), 1)),
                                 "!fly.int_tuple<(16,8)>"),
    "tuple, nested to a leaf": (lambda A, A1: fx.slice(it(NESTED), ((None, 0), 1)),
                                "!fly.int_tuple<16>"),
    "tuple, nested mixed": (lambda A, A1: fx.slice(it(NESTED), ((None, 0), (1, None))),
                            "!fly.int_tuple<(16,3)>"),
    "tuple, all None": (lambda A, A1: fx.slice(it((4, 8)), (None, None)), "!fly.int_tuple<(4,8)>"),
    "tuple, unwrapped through": (lambda A, A1: fx.slice(it((((4, 8),), 2)), (None, 1)),
                                 "!fly.int_tuple<(4,8)>"),
    "tuple, dynamic leaf kept": (lambda A, A1: fx.slice(it((fx.block_idx.x, 8)), (None, 2)),
                                 "!fly.int_tuple<?>"),
    # dice
    "dice, one leaf kept": (lambda A, A1: fx.dice(it((4, 8, 16)), (None, 3, None)),
                            "!fly.int_tuple<8>"),
    "dice, two kept": (lambda A, A1: fx.dice(it((4, 8, 16)), (None, 3, 1)), "!fly.int_tuple<(8,16)>"),
    "dice, a tuple mode kept": (lambda A, A1: fx.dice(it(NESTED), (None, 1)), "!fly.int_tuple<(2,3)>"),
    "dice, nested coordinate": (lambda A, A1: fx.dice(it(NESTED), ((0, None), (1, 1))),
                                "!fly.int_tuple<(16,2,3)>"),
    "dice, layout leaf": (lambda A, A1: fx.dice(L((4, 8, 16), (1, 4, 32)), (None, 3, None)),
                          "!fly.layout<8:4>"),
    "dice, layout tuple mode": (lambda A, A1: fx.dice(L(NESTED, NESTED_STRIDE), (None, 1)),
                                "!fly.layout<(2,3):(128,256)>"),
    # layouts
    "layout, one leaf kept": (lambda A, A1: fx.slice(L((4, 8), (8, 1)), (None, 2)), "!fly.layout<4:8>"),
    "layout, two kept": (lambda A, A1: fx.slice(L((4, 8, 16), (1, 4, 32)), (None, 2, None)),
                         "!fly.layout<(4,16):(1,32)>"),
    "layout, a tuple mode kept": (
        lambda A, A1: fx.slice(L(NESTED, NESTED_STRIDE), (None, fx.block_idx.x)),
        "!fly.layout<(16,8):(1,16)>"),
    "layout, nested coordinate": (
        lambda A, A1: fx.slice(L(NESTED, NESTED_STRIDE), ((None, None), fx.block_idx.x)),
        "!fly.layout<(16,8):(1,16)>"),
    "layout, nested to a leaf": (lambda A, A1: fx.slice(L(NESTED, NESTED_STRIDE), ((0, None), 1)),
                                 "!fly.layout<8:16>"),
    "layout, dynamic stride": (lambda A, A1: fx.slice(L((4, 8), (fx.thread_idx.x, 1)), (None, 2)),
                               "!fly.layout<4:?>"),
    "layout, dynamic stride tuple": (
        lambda A, A1: fx.slice(L(((4, 8), 2), ((fx.thread_idx.x, 1), 32)), (None, 1)),
        "!fly.layout<(4,8):(?,1)>"),
    "layout call": (lambda A, A1: L((4, 8), (8, 1))(None, 2), "!fly.layout<4:8>"),
    "layout call, tuple mode": (lambda A, A1: L(NESTED, NESTED_STRIDE)(None, 1),
                                "!fly.layout<(16,8):(1,16)>"),
    "layout, all None": (lambda A, A1: fx.slice(L((4, 8), (8, 1)), (None, None)),
                         "!fly.layout<(4,8):(8,1)>"),
    "layout, zipped_divide": (
        lambda A, A1: fx.slice(fx.zipped_divide(L((32, 16), (16, 1)), (16, 8)), (None, fx.block_idx.x)),
        "!fly.layout<(16,8):(16,1)>"),
    # tensors from kernel arguments
    "tensor, zipped_divide": (
        lambda A, A1: fx.slice(fx.zipped_divide(A, (16, 8)), (None, fx.block_idx.x)),
        "!fly.memref<f32, global, (16,8):(?{i64},1)>"),
    "tensor, zipped_divide nested": (
        lambda A, A1: fx.slice(fx.zipped_divide(A, (16, 8)), ((None, None), fx.block_idx.x)),
        "!fly.memref<f32, global, (16,8):(?{i64},1)>"),
    "tensor[], zipped_divide": (lambda A, A1: fx.zipped_divide(A, (16, 8))[None, fx.block_idx.x],
                                "!fly.memref<f32, global, (16,8):(?{i64},1)>"),
    "tensor[], flat_divide": (
        lambda A, A1: fx.flat_divide(A, (16, 8))[None, None, fx.block_idx.x, fx.thread_idx.x],
        "!fly.memref<f32, global, (16,8):(?{i64},1)>"),
    "tensor[], row": (lambda A, A1: A[2, None], "!fly.memref<f32, global, ?:1>"),
    "tensor[], column": (lambda A, A1: A[None, fx.block_idx.x], "!fly.memref<f32, global, ?:?{i64}>"),
    "tensor[], all None": (lambda A, A1: A[None, None], "!fly.memref<f32, global, (?,?):(?{i64},1)>"),
    "tensor, leaf kept": (
        lambda A, A1: fx.slice(fx.zipped_divide(A, (16, 8)), ((0, None), fx.block_idx.x)),
        "!fly.memref<f32, global, 8:1>"),
    "tensor[], logical_divide": (
        lambda A, A1: fx.logical_divide(A, (16, 8))[(None, fx.block_idx.x), (None, 0)],
        "!fly.memref<f32, global, (16,8):(?{i64},1)>"),
    "tensor[], logical_divide one": (
        lambda A, A1: fx.logical_divide(A, (16, 8))[(None, fx.block_idx.x), 0],
        "!fly.memref<f32, global, 16:?{i64}>"),
    # coordinate tensors
    "coord tensor": (lambda A, A1: ident((32, 16)), "!fly.coord_tensor<(0,0), (32,16):(1E0,1E1)>"),
    "coord tensor, zipped_divide": (
        lambda A, A1: fx.slice(fx.zipped_divide(ident((32, 16)), (16, 8)), (None, fx.block_idx.x)),
        "!fly.coord_tensor<(?{div=16},?{div=8}), (16,8):(1E0,1E1)>"),
    "coord tensor[], flat_divide": (
        lambda A, A1: fx.flat_divide(ident((32, 16)), (16, 8))[None, None, fx.block_idx.x, 1],
        "!fly.coord_tensor<(?{div=16},8), (16,8):(1E0,1E1)>"),
    "coord tensor[], row": (lambda A, A1: ident((32, 16))[3, None],
                            "!fly.coord_tensor<(3,0), 16:1E1>"),
    "coord tensor, dynamic shape": (
        lambda A, A1: fx.slice(fx.zipped_divide(ident((fx.size(A), 16)), (16, 8)), (None, fx.block_idx.x)),
        "!fly.coord_tensor<(?{div=16},?{div=8}), (16,8):(1E0,1E1)>"),
}


def comparable(type_text: str) -> str:
    """A type without what is not slice's: i64 marks, alignment."""
    text = type_text.replace("{i64}", "").replace("{i64 ", "{")
    return re.sub(r", align<\d+>", "", text)


def test_results_are_flydsl_0_4_2s(compile_only):
    got = trace(lambda A, A1: {name: str(case(A, A1).ir.type) for name, (case, _) in CASES.items()})
    want = {name: comparable(t) for name, (_, t) in CASES.items()}
    assert {name: comparable(t) for name, t in got.items()} == want


def test_make_identity_tensor_slices_alike(compile_only):
    got = trace(lambda A, A1: [str(fx.slice(fx.zipped_divide(c, (16, 8)), (None, 1)).ir.type)
                               for c in (fx.make_identity_tensor((32, 16)), ident((32, 16)))])
    assert got == ["!fly.coord_tensor<(16,0), (16,8):(1E0,1E1)>"] * 2


def test_partitions_of_a_sliced_block_are_flydsl_0_4_2s(compile_only):
    """What failed while slice kept ((16,8)): the MMA and copy partitions of
    fx.slice(zipped_divide(A, tile), (None, bid)) (0.4.2's types, recorded
    as the table's, with A (32,8) and C (32,16))."""
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor, C: fx.Tensor):
        bid, tid = fx.block_idx.x, fx.thread_idx.x
        bA = fx.slice(fx.zipped_divide(A, (16, 8)), (None, bid))
        bC = fx.slice(fx.zipped_divide(C, (16, 16)), (None, bid))
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((2, 2, 1), (1, 2, 0)))
        thr = mma.thr_slice(tid)
        atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        frag_A = thr.make_fragment_A(bA)
        out["r"] = [str(x.ir.type) for x in (
            thr.partition_A(bA), thr.partition_C(bC), frag_A,
            fx.make_tiled_copy_A(atom, mma).get_slice(tid).partition_S(bA),
            fx.make_tiled_copy_C(atom, mma).get_slice(tid).partition_D(bC),
            fx.slice(frag_A, (None, 0, 0)))]

    @flyc.jit
    def host(A: fx.Tensor, C: fx.Tensor):
        k(A, C).launch(grid=(1, 1, 1), block=(4, 1, 1))

    flyc.compile(host, np.zeros((32, 8), np.float32), np.zeros((32, 16), np.float32))
    assert [comparable(t) for t in out["r"]] == [comparable(t) for t in [
        "!fly.memref<f32, global, (1,8,8):(0,?{i64 div=2},1)>",
        "!fly.memref<f32, global, (1,8,8):(0,?{i64 div=2},2)>",
        "!fly.memref<f32, register, (1,8,8):(0,8,1)>",
        "!fly.memref<f32, global, ((1,1),8,8):((0,0),?{i64 div=2},1)>",
        "!fly.memref<f32, global, ((1,1),8,8):((0,0),?{i64 div=2},2)>",
        "!fly.memref<f32, register, 1:0>"]]


def test_nothing_kept_is_a_0_d_result(compile_only):
    """0.4.2 aborts on a slice that keeps no mode (and a dice that drops
    all); here it is the rank-0 result, which a coordinate tensor's
    element read is made of."""
    got = trace(lambda A, A1: [str(x.ir.type) for x in (
        fx.slice(it((4, 8)), (1, 2)), fx.dice(it((4, 8)), (None, None)),
        fx.slice(L((4, 8), (8, 1)), (1, 2)), ident((32, 16))[3, 5])])
    assert got == ["!fly.int_tuple<()>", "!fly.int_tuple<()>", "!fly.layout<():()>",
                   "!fly.int_tuple<(3,5)>"]


LINES = marker_lines(__file__)


@pytest.mark.parametrize("case, message", [
    ("too_many_modes", r"coordinate \(\*,1,2\) does not match the modes of \(4,8\)"),
    ("dice_of_tensor", r"fx.dice: argument 'src' must be an IntTuple or a Layout"),
])
def test_bad_coordinates_are_located_errors(compile_only, case, message):
    def body(A, A1):
        if case == "too_many_modes":
            return fx.slice(it((4, 8)), (None, 1, 2))  # L:too_many_modes
        return fx.dice(A, (None, 1))  # L:dice_of_tensor
    with pytest.raises(TraceError, match=rf"test_slice_semantics.py:{LINES[case]}: .*{message}"):
        trace(body)


# -- FlyDSL's examples/03-tiledMma.py, over a grid of blocks ----------------------------------

BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 8


@flyc.kernel
def gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    bm, bn, _ = fx.block_idx

    bA = fx.zipped_divide(A, (BLOCK_M, BLOCK_K))
    bB = fx.zipped_divide(B, (BLOCK_N, BLOCK_K))

    # As example 03 writes it: the block's tile is the one kept mode.
    bA = fx.slice(bA, (None, bm))
    bB = fx.slice(bB, (None, bn))
    bC = fx.flat_divide(C, (BLOCK_M, BLOCK_N))[None, None, bm, bn]

    mma_atom = fx.make_mma_atom(fx.UniversalFMA(fx.Float32))
    tiled_mma = fx.make_tiled_mma(mma_atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
    thr_mma = tiled_mma.thr_slice(tid)

    copy_atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    tiled_copy_A = fx.make_tiled_copy_A(copy_atom, tiled_mma)
    tiled_copy_B = fx.make_tiled_copy_B(copy_atom, tiled_mma)
    tiled_copy_C = fx.make_tiled_copy_C(copy_atom, tiled_mma)

    thr_copy_A = tiled_copy_A.get_slice(tid)
    thr_copy_B = tiled_copy_B.get_slice(tid)
    thr_copy_C = tiled_copy_C.get_slice(tid)

    copy_src_A = thr_copy_A.partition_S(bA)
    copy_src_B = thr_copy_B.partition_S(bB)
    copy_dst_C = thr_copy_C.partition_S(bC)

    frag_A = thr_mma.make_fragment_A(bA)
    frag_B = thr_mma.make_fragment_B(bB)
    frag_C = thr_mma.make_fragment_C(bC)

    copy_frag_A = thr_copy_A.retile(frag_A)
    copy_frag_B = thr_copy_B.retile(frag_B)
    copy_frag_C = thr_copy_C.retile(frag_C)

    fx.copy(copy_atom, copy_src_A, copy_frag_A, pred=None)
    fx.copy(copy_atom, copy_src_B, copy_frag_B, pred=None)

    frag_C.fill(0)
    fx.gemm(mma_atom, frag_C, frag_A, frag_B, frag_C)

    fx.copy(copy_atom, copy_frag_C, copy_dst_C, pred=None)


@flyc.jit
def tiled_mma_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    M, _ = A.shape.unpack()
    N, _ = B.shape.unpack()
    gemm_kernel(A, B, C).launch(grid=(M // BLOCK_M, N // BLOCK_N, 1), block=(4, 1, 1),
                                stream=stream)


@pytest.mark.parametrize("blocks", [(1, 1), (3, 2)])
def test_example_03_gemm_on_the_emulator(emulator, blocks):
    M, N, K = blocks[0] * BLOCK_M, blocks[1] * BLOCK_N, BLOCK_K
    rng = np.random.default_rng(M * 7 + N)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((N, K)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    tiled_mma_gemm(A, B, C)
    np.testing.assert_allclose(C, A @ B.T, rtol=1e-5, atol=1e-5)
