"""fx.struct / fx.union / fx.Array / fx.Align layouts, Storage, and
fx.SharedAllocator in both modes, run through LDS on the emulator (gfx942
and gfx1100), checked against numpy.

The sizes, alignments and field offsets below are what FlyDSL 0.4.2
computes for the same declarations (its `_storage_layout`, `dsl_size_of`
and `dsl_align_of`, run with /opt/flydsl-0.4.2 under COMPILE_ONLY=1)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError
from flydsl.expr.struct import storage_layout

THIS_FILE = __file__
CHIPS = ["gfx942", "gfx1100"]


@pytest.fixture
def chip(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return request.param


# -- layouts ------------------------------------------------------------------------

@fx.struct
class Pair:
    a: fx.Int32
    b: fx.Float32


@fx.struct
class Mixed:
    a: fx.Int8
    b: fx.Float64
    c: fx.Int16
    d: fx.Array[fx.Float16, 3]
    e: fx.Uint8


@fx.struct
class Nested:
    flag: fx.Uint8
    inner: Mixed
    tail: fx.Array[fx.Int32, 5, 16]


@fx.union
class Overlay:
    a: fx.Array[fx.Float32, 10]
    b: fx.Array[fx.Float64, 3]
    c: fx.Int8


@fx.struct
class WithAlign:
    a: fx.Int8
    b: fx.Align[fx.Int32, 64]
    c: fx.Array[fx.BFloat16, 7]


@fx.struct
class WithConst:
    a: fx.Int32
    n: fx.Constexpr[int]
    b: fx.Int16


Inline = fx.Struct["x": fx.Int16, "y": fx.Array[fx.Float32, 2]]
Anonymous = fx.Struct[fx.Int8, fx.Int64]

# (type, size, alignment, offsets): FlyDSL 0.4.2's numbers.
LAYOUTS = [
    (Pair, 8, 4, {"a": 0, "b": 4}),
    (Mixed, 32, 8, {"a": 0, "b": 8, "c": 16, "d": 18, "e": 24}),
    (Nested, 80, 16, {"flag": 0, "inner": 8, "tail": 48}),
    (Overlay, 40, 8, {"a": 0, "b": 0, "c": 0}),
    (WithAlign, 128, 64, {"a": 0, "b": 64, "c": 68}),
    (WithConst, 8, 4, {"a": 0, "b": 4}),
    (Inline, 12, 4, {"x": 0, "y": 4}),
    (Anonymous, 16, 8, {"_0": 0, "_1": 8}),
]


@pytest.mark.parametrize("t, size, align, offsets", LAYOUTS, ids=lambda x: getattr(x, "__name__", None))
def test_layout_as_flydsl_0_4_2(t, size, align, offsets):
    assert storage_layout(t) == (size, align, offsets)
    assert (t.__dsl_size_of__(), t.__dsl_align_of__()) == (size, align)


@pytest.mark.parametrize("t, size, align", [
    (fx.Array[fx.Float32, 16], 64, 4), (fx.Array[fx.Int8, 5, 8], 5, 8),
    (fx.Array[fx.Float64, 1], 8, 8), (fx.Align[fx.Int16, 32], 2, 32)])
def test_leaf_sizes_as_flydsl_0_4_2(t, size, align):
    assert (t.__dsl_size_of__(), t.__dsl_align_of__()) == (size, align)


def test_type_predicates_and_names():
    assert fx.is_struct_type(Pair) and fx.is_composite_type(Pair)
    assert fx.is_composite_type(Overlay) and not fx.is_struct_type(Overlay)
    assert not fx.is_composite_type(fx.Int32) and not fx.is_struct_type(int)
    assert fx.is_specializable_struct_type(WithConst) and not fx.is_specializable_struct_type(Pair)
    assert fx.Struct is fx.struct and fx.Union is fx.union
    assert fx.Array[fx.Float32, 16] is fx.Array[fx.Float32, 16]
    assert fx.Array[fx.Float32, 16].__name__ == "Array[Float32, 16]"
    assert Inline.__dsl_display_name__ == "Struct['x': Int16, 'y': Array[Float32, 2]]"
    assert Anonymous.__dsl_display_name__ == "Struct[Int8, Int64]"
    assert fx.SyncScope.System == "" and fx.SyncScope.SingleThread == "singlethread"
    assert fx.enum.SyncScope is fx.SyncScope


# -- values of struct type --------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS, indirect=True)
def test_struct_values_construct_replace_and_stay_frozen(chip):
    seen = {}

    @flyc.kernel
    def values(Out: fx.Tensor):
        x = fx.Int32(fx.thread_idx.x)
        p = Pair(x, 2.5)  # a Python float becomes a Float32 field
        q = p.replace(a=x + 100)
        try:
            p.a = x
        except Exception as err:  # noqa: BLE001 - the frozen error is the point
            seen["frozen"] = type(err).__name__
        seen["types"] = (type(p.a), type(p.b), type(q.a))
        Out[x] = q.a.to(fx.Float32) + p.b + Pair(b=p.b, a=p.a).a.to(fx.Float32)

    @flyc.jit
    def run(Out):
        values(Out).launch(grid=(1, 1, 1), block=(8, 1, 1))

    out = np.zeros(8, np.float32)
    run(out)
    np.testing.assert_array_equal(out, np.arange(8) * 2 + 102.5)
    assert seen == {"frozen": "FrozenInstanceError", "types": (fx.Int32, fx.Float32, fx.Int32)}


# -- SharedAllocator round trips through LDS -------------------------------------

@fx.struct
class Tile:
    data: fx.Array[fx.Float32, 64]
    count: fx.Int32
    pair: Pair
    bytes_: fx.Array[fx.Uint8, 3]


def make_round_trip(static: bool):
    @flyc.kernel
    def round_trip(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        smem = fx.SharedAllocator(static=static)
        storage = smem.allocate(Tile)
        scratch = smem.allocate(Overlay)  # a union: its fields are peeked, not itself
        raw = smem.allocate(16)  # 16 raw bytes: Storage[Array[Uint8, 16]]
        tile = storage.peek()
        tile.data[tid] = A[tid] * 2.0
        if tid == 0:
            storage.count.poke(fx.Int32(7))
            storage.pair.poke(Pair(fx.Int32(-3), 0.5))
            scratch.a.peek()[9] = fx.Float32(1.5)
            raw.peek()[15] = fx.Uint8(200)
        fx.barrier()
        pair = storage.pair.peek()
        B[tid] = tile.data[63 - tid] + fx.Float32(storage.count.peek()) + pair.b
        if tid == 1:
            C[0] = fx.Float32(pair.a)
            C[1] = scratch.a.peek()[9]
            C[2] = fx.Float32(raw.peek()[15])
            C[3] = fx.Float32(smem.allocated_bytes)

    @flyc.jit
    def run(A, B, C):
        round_trip(A, B, C).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return run


@pytest.mark.parametrize("chip", CHIPS, indirect=True)
@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_shared_allocator_round_trip(chip, static):
    a = np.arange(64, dtype=np.float32)
    b = np.zeros_like(a)
    c = np.zeros(4, np.float32)
    run = make_round_trip(static)
    compiled = flyc.compile(run, a, b, c)
    compiled(a, b, c)
    np.testing.assert_array_equal(b, a[::-1] * 2 + 7.5)
    # Tile: data 0..256, count 256, pair 260..268, bytes_ 268..271, 272 with
    # its 4-byte alignment; the union at 272 (8-aligned) for 40 bytes; then
    # 16 raw bytes at the next 16-byte boundary: 320 + 16.
    np.testing.assert_array_equal(c, [-3.0, 1.5, 200.0, 336.0])
    text = compiled.module_text
    if static:
        # One LDS global per leaf (a union is one), none dynamic.
        sizes = re.findall(r"llvm.mlir.global internal @__fly_shared_\d+\(\) "
                           r"\{addr_space = 3 : i32, alignment = (\d+) : i64\} : "
                           r"!llvm.array<(\d+) x i8>", text)
        assert sizes == [("4", "256"), ("4", "4"), ("4", "4"), ("4", "4"), ("1", "3"),
                         ("8", "40"), ("16", "16")]
        assert "fly.get_dyn_shared" not in text and "dynamic_shared_memory_size" not in text
    else:
        assert "llvm.mlir.global" not in text and text.count('"fly.get_dyn_shared"') == 1
        assert re.search(r"arith.constant.*value = 336 : i32", text)
        assert "dynamic_shared_memory_size" in text


def test_allocate_tensor_views_a_shared_tile(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def reverse(A: fx.Tensor, B: fx.Tensor):
        tid = fx.thread_idx.x
        tile = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((8, 8), (8, 1)))
        tile[tid % 8, tid // 8] = A[tid]
        fx.barrier()
        B[tid] = tile[(63 - tid) % 8, (63 - tid) // 8]

    @flyc.jit
    def run(A, B):
        reverse(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1))

    a = np.arange(64, dtype=np.float32)
    b = np.zeros_like(a)
    run(a, b)
    np.testing.assert_array_equal(b, a[::-1])


# -- errors at the user's line ---------------------------------------------------

def bad_field_type():
    @fx.struct
    class Bad:
        x: fx.Boolean
    storage_layout(Bad)  # L:field_boolean


def bad_field_object():
    @fx.struct
    class Bad:
        x: int
    Bad.__dsl_size_of__()  # L:field_int


def bad_array_dtype():
    fx.Array[int, 4]  # L:array_dtype


def bad_array_size():
    fx.Array[fx.Float32, 0]  # L:array_size


def bad_align():
    fx.Align[fx.Int32, 3]  # L:align_pow2


def bad_align_small():
    fx.Align[fx.Int64, 4]  # L:align_small


def bad_field_name():
    fx.Struct["replace": fx.Int32]  # L:reserved


_LINES = marker_lines(THIS_FILE)


@pytest.mark.parametrize("fn, marker, message", [
    (bad_field_type, "field_boolean", "field 'x': Boolean (1 bit) is narrower than a byte"),
    (bad_field_object, "field_int", "field 'x': int has no storage layout"),
    (bad_array_dtype, "array_dtype", "fx.Array: dtype must be a numeric type"),
    (bad_array_size, "array_size", "fx.Array: size must be a positive int, not 0"),
    (bad_align, "align_pow2", "fx.Align: alignment must be a power of two, not 3"),
    (bad_align_small, "align_small", "4 is below the natural alignment 8 of Int64"),
    (bad_field_name, "reserved", "field name 'replace' is reserved"),
])
def test_definition_errors(fn, marker, message):
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        fn()
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])


def test_allocator_errors(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)

    @flyc.kernel
    def two_dynamic(A: fx.Tensor):
        fx.SharedAllocator(static=False)
        fx.SharedAllocator(static=False)  # L:two_dynamic

    @flyc.kernel
    def bad_allocate(A: fx.Tensor):
        fx.SharedAllocator().allocate(fx.Tensor)  # L:allocate_tensor_type

    @flyc.kernel
    def union_value(A: fx.Tensor):
        fx.SharedAllocator().allocate(Overlay).peek()  # L:union_peek

    for kernel, marker, message in [
            (two_dynamic, "two_dynamic", "already has a SharedAllocator(static=False)"),
            (bad_allocate, "allocate_tensor_type", "SharedAllocator.allocate: Tensor has no "
                                                   "storage layout"),
            (union_value, "union_peek", "Overlay is a union: peek one of its fields")]:
        @flyc.jit
        def run(A):
            kernel(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

        with pytest.raises(TraceError, match=re.escape(message)) as e:
            run(np.zeros(4, np.float32))
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])

    with pytest.raises(TraceError, match="inside a @flyc.kernel body"):
        fx.SharedAllocator()
