"""fx.primitive, fx.typing's Fly values and fx.derived as FlyDSL's stable
API: every catalog path of these modules with FlyDSL 0.4.2's parameters
(same names at the same positions, same kinds; a parameter of ours that
FlyDSL lacks only with a default), the results of the layout algebra and
the members of the returned objects as FlyDSL 0.4.2 gives them (values
read from its IR for the same calls), and bad arguments as TraceErrors
naming the API and the argument at the user's line.

The catalog is data from FlyDSL (data/flydsl_api/README.md)."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from flydsl.tracing.errors import TraceError  # noqa: E402

DATA = Path(__file__).parent / "data" / "flydsl_api"
SIGNATURES = json.loads((DATA / "signatures-0.4.2.json").read_text())

# fx.typing's Fly-value names (its numeric names are fx.numeric's side).
TYPING_NAMES = {"IntTuple", "Layout", "ComposedLayout", "Swizzle", "Tile", "Tensor", "Pointer",
                "CopyAtom", "TiledCopy", "TiledMma", "Basis", "E", "Tuple3D", "Constexpr",
                "is_generic_address_space", "is_target_address_space"}
MODULES = {"primitive": None, "derived": None, "typing": TYPING_NAMES}
CATALOG = sorted(json.loads((DATA / "stable-apis.json").read_text()))
PATHS = [p for p in CATALOG
         if p.count(".") == 3 and p.split(".")[2] in MODULES
         and (MODULES[p.split(".")[2]] is None or p.split(".")[3] in MODULES[p.split(".")[2]])]


def test_every_path_is_covered():
    assert len([p for p in PATHS if ".primitive." in p]) == 142  # + the module itself: 143
    assert len([p for p in PATHS if ".derived." in p]) == 11


@pytest.mark.parametrize("path", PATHS)
def test_exported_with_flydsls_parameters(path):
    _, _, module, name = path.split(".")
    mod = getattr(fx, module)
    assert name in mod.__all__
    obj = getattr(mod, name)
    assert getattr(fx, name) is obj or module == "typing"
    if path not in SIGNATURES:
        return
    P = inspect.Parameter
    ours = list(inspect.signature(obj).parameters.values())
    theirs = SIGNATURES[path]
    for i, (pname, kind) in enumerate(theirs):
        assert i < len(ours), f"{path}: FlyDSL's parameter {pname} is missing"
        assert (ours[i].name, ours[i].kind.name) == (pname, kind), (
            f"{path}: parameter {i} is {ours[i].name} ({ours[i].kind.name}), FlyDSL's "
            f"{pname} ({kind})")
    for extra in ours[len(theirs):]:
        assert extra.default is not P.empty or extra.kind in (P.VAR_KEYWORD, P.VAR_POSITIONAL), (
            f"{path}: our extra parameter {extra.name} has no default")


# -- values at trace time ----------------------------------------------------------------

@pytest.fixture
def compile_only(monkeypatch):
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    yield
    monkeypatch.undo()
    flyc.Environment.reload()


def trace(body):
    """Runs body(A) while a kernel is traced (A: a dynamic f32 (16, 8)
    tensor); returns what it returned."""
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor):
        out["r"] = body(A)

    @flyc.jit
    def host(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(1, 1, 1))

    flyc.compile(host, np.zeros((16, 8), np.float32))
    return out["r"]


def t(x):
    """The type text of a Fly value."""
    return str(x.ir.type)


def test_algebra_as_flydsl(compile_only):
    # Expected values: FlyDSL 0.4.2's IR for the same calls.
    def body(A):
        L = fx.make_layout((4, 8), (8, 1))
        return {
            "rank": fx.rank(L), "depth": fx.depth(L), "size": fx.size(L).unpack(),
            "idx2crd": t(fx.idx2crd(5, L)), "1d": t(fx.get_1d_coord(5, L)),
            "flat": t(fx.get_flat_coord(3, fx.make_layout(((2, 2), 4), ((1, 2), 4)))),
            "call": t(L(1, 2)),
            "coalesce": t(fx.coalesce(fx.make_layout((2, (2, 2)), (1, (2, 4))))),
            "comp": t(fx.composition(L, fx.make_tile(2, 4))),
            "compl": t(fx.complement(fx.make_layout(4, 2), 32)),
            "ldiv": t(fx.logical_divide(L, (2, 4))),
            "recast": t(fx.recast_layout(L, 32, 16)),
            "t2s": t(fx.tile_to_shape(fx.make_layout((2, 2), (1, 2)), (4, 8), (0, 1))),
            "coprofile": t(fx.coprofile(L)),
            "append": t(fx.append(fx.make_int_tuple((1, 2)), 3)),
            "prepend": t(fx.prepend(L, fx.make_layout(2, 0))),
            "ceil_div": t(fx.ceil_div((7, 9), (2, 4))), "shape_div": t(fx.shape_div((8, 8), (2, 4))),
            "product": t(fx.int_tuple_product((2, 3))),
            "each": t(fx.int_tuple_product_each((2, (3, 4)))),
            "like": t(fx.int_tuple_product_like((2, (3, 4)), (1, (1, 1)))),
            "like2": t(fx.int_tuple_product_like((2, (3, 4)), (1, 1))),
            "tuple": fx.make_int_tuple((1, (2, 3))).unpack(),
            "tuple[1]": t(fx.make_int_tuple((1, (2, 3)))[1]),
            "tuple rank/depth": (fx.make_int_tuple((1, (2, 3))).rank, fx.make_int_tuple((1, (2, 3))).depth),
            "shape": t(fx.make_shape(8, (4, 8))), "coord": t(fx.make_coord(None, 3)),
            "tile": t(fx.make_tile(2, None, fx.make_layout(4, 2))),
            "tile unpack": fx.make_tile(2, 4).unpack(), "tile rank": fx.make_tile(2, 4).rank,
            "has_none": fx.has_none(fx.make_int_tuple((1, None))),
            "get_scalar": fx.get_scalar(fx.make_int_tuple(5)),
            "take": t(fx.take(L, 0, 1)), "select": t(fx.select(L, [1, 0])),
            "group": t(fx.group(fx.make_layout((2, 3, 4)), 0, 2)),
            "slice": t(fx.slice(L, (None, 3))), "dice": t(fx.dice(fx.make_int_tuple((4, 8, 16)), (None, 3, None))),
            "A shape": t(A.shape), "A slice": t(A[None, 2]),
            "ptr": (str(fx.get_iter(A)), fx.get_iter(A).dtype is fx.Float32,
                    fx.get_iter(A).address_space, fx.get_iter(A).alignment),
            "rmem": t(fx.make_rmem_tensor((2, 4), fx.Float32)),
        }
    r = trace(body)
    assert r["rank"] == 2 and r["depth"] == 1 and r["size"] == 32
    assert r["idx2crd"] == "!fly.int_tuple<(0,5)>"
    assert r["1d"] == "!fly.int_tuple<20>"
    assert r["flat"] == "!fly.int_tuple<(1,1,0)>"
    assert r["call"] == "!fly.int_tuple<10>"
    assert r["coalesce"] == "!fly.layout<8:1>"
    assert r["comp"] == "!fly.layout<(2,4):(8,1)>"
    assert r["compl"] == "!fly.layout<(2,4):(1,8)>"
    assert r["ldiv"] == "!fly.layout<((2,2),(4,2)):((8,16),(1,4))>"
    assert r["recast"] == "!fly.layout<(4,16):(16,1)>"
    assert r["t2s"] == "!fly.layout<((2,2),(2,4)):((1,4),(2,8))>"
    assert r["coprofile"] == "!fly.int_tuple<0>"
    assert r["append"] == "!fly.int_tuple<(1,2,3)>"
    assert r["prepend"] == "!fly.layout<(2,4,8):(0,8,1)>"
    assert (r["ceil_div"], r["shape_div"]) == ("!fly.int_tuple<(4,3)>", "!fly.int_tuple<(4,2)>")
    assert (r["product"], r["each"], r["like"]) == (
        "!fly.int_tuple<6>", "!fly.int_tuple<(2,12)>", "!fly.int_tuple<(2,(3,4))>")
    assert r["like2"] == "!fly.int_tuple<(2,12)>"
    assert r["tuple"] == (1, (2, 3)) and r["tuple[1]"] == "!fly.int_tuple<(2,3)>"
    assert r["tuple rank/depth"] == (2, 2)
    assert (r["shape"], r["coord"]) == ("!fly.int_tuple<(8,(4,8))>", "!fly.int_tuple<(*,3)>")
    assert r["tile"] == "!fly.tile<[2|*|4:2]>"
    assert r["tile unpack"] == (2, 4) and r["tile rank"] == 2
    assert r["has_none"] is True and r["get_scalar"] == 5
    assert r["take"] == "!fly.layout<(4):(8)>"
    assert r["select"] == "!fly.layout<(8,4):(1,8)>"
    assert r["group"] == "!fly.layout<((2,3),4):((1,2),6)>"
    assert r["slice"] == "!fly.layout<4:8>"
    assert r["dice"] == "!fly.int_tuple<8>"
    assert r["A shape"] == "!fly.int_tuple<(?,?)>"
    assert r["A slice"].startswith("!fly.memref<f32, global, ?:?")
    assert r["ptr"][1:3] == (True, fx.AddressSpace.Global) and r["ptr"][3] in (4, 16)
    assert r["rmem"] == "!fly.memref<f32, register, (2,4):(1,2)>"


def test_atoms_and_tiled_atoms_as_flydsl(compile_only):
    def body(A):
        atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
        tc = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((8, 16), order=(1, 0)),
                                   fx.make_ordered_layout((1, 4), order=(0, 1)))
        tile, tv = fx.make_layout_tv(fx.make_ordered_layout((8, 16), order=(1, 0)),
                                     fx.make_ordered_layout((1, 4), order=(0, 1)))
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((4, 4, 1), (1, 4, 0)))
        sw = fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 3, 3)), fx.make_layout((4, 8), (8, 1)))
        return {
            "val_bits": atom.val_bits, "src": atom.layout_src_tv.ir.type.value,
            "tile_mn": t(tc.tile_mn), "tile_mn unpack": tc.tile_mn.unpack(),
            "layout_tv": t(tc.layout_tv_tiled), "tv": (tile, t(tv)),
            "mma": (t(mma.tile_size_mnk), t(mma.thr_layout_vmnk), t(mma.tv_layout_A_tiled),
                    t(mma.permutation_mnk), t(mma.atom_layout)),
            "composed": (t(sw.inner), t(sw.offset), t(sw.outer), sw.inner.mask, sw.inner.base,
                         sw.inner.shift),
            "types": (str(fx.IntTupleType.get((4, 8))), str(fx.LayoutType.get((4, 8), (1, 4))),
                      isinstance(sw.ir.type, fx.ComposedLayoutType), isinstance(A.type, fx.MemRefType)),
            "atomic": str(fx.UniversalAtomicAdd(fx.Float32)),
        }
    r = trace(body)
    assert r["val_bits"] == 32
    assert r["src"][0] == (1, 4) and r["src"][1][1] == 1  # (1,4):(_,1), functionally FlyDSL's
    assert r["tile_mn"] == "!fly.tile<[8|64]>" and r["tile_mn unpack"] == (8, 64)
    assert r["layout_tv"] == "!fly.layout<((16,8),4):((32,1),8)>"
    assert r["tv"] == ((8, 64), "!fly.layout<((16,8),4):((32,1),8)>")
    assert r["mma"] == ("!fly.int_tuple<(4,4,1)>", "!fly.layout<(1,4,4,1):(0,1,4,0)>",
                        "!fly.layout<((4,4),(1,(1,1))):((1,0),(0,(0,0)))>", "!fly.tile<[*|*|*]>",
                        "!fly.layout<(4,4,1):(1,4,0)>")
    assert r["composed"] == ("!fly.swizzle<S<3,3,3>>", "!fly.int_tuple<0>",
                             "!fly.layout<(4,8):(8,1)>", 3, 3, 3)
    assert r["types"] == ("!fly.int_tuple<(4,8)>", "!fly.layout<(4,8):(1,4)>", True, True)
    assert r["atomic"] == "!fly.universal_atomic<add, f32>"


def test_enums_as_flydsl():
    assert [(e.name, int(e)) for e in fx.AddressSpace] == [
        ("Generic", 0), ("Global", 1), ("Shared", 2), ("Register", 3)]
    assert [e.name for e in fx.AtomicOp] == ["Add", "Max", "Min", "And", "Or", "Inc", "Dec"]
    assert [e.name for e in fx.CachePolicy] == ["CacheGlobal", "CacheAlways"]
    assert [e.name for e in fx.MmaOperand] == ["A", "B", "C", "D"]
    assert len(fx.GemmTraversalOrder) == 12 and int(fx.GemmTraversalOrder.MNK) == 3


# -- bad input ----------------------------------------------------------------------------------

BAD = [
    ("composition", lambda A: fx.composition(3, (2, 2)), "'layout'"),
    ("coalesce", lambda A: fx.coalesce(A.shape), "'layout'"),
    ("make_layout", lambda A: fx.make_layout("x", (1,)), "'shape'"),
    ("crd2idx", lambda A: fx.crd2idx((1, 2), A.shape), "'layout'"),
    ("copy", lambda A: fx.copy(fx.make_layout(4, 1), A, A), "'copy_atom'"),
    ("make_copy_atom", lambda A: fx.make_copy_atom(3, fx.Float32), "'copy_op_type'"),
    ("make_tiled_copy", lambda A: fx.make_tiled_copy(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32),
                                                     A, (4,)), "'layout_thr_val'"),
    ("gemm", lambda A: fx.gemm(A, A, A, A, A), "'mma_atom'"),
    ("take", lambda A: fx.take(A.shape, "0", 1), "'begin'"),
    ("ptr_load", lambda A: fx.ptr_load(A), "'ptr'"),
    ("make_rmem_tensor", lambda A: fx.make_rmem_tensor((2, 2), "f32"), "'dtype'"),
    ("UniversalCopy", lambda A: fx.UniversalCopy(12), "12"),
]


@pytest.mark.parametrize("api,call,argument", BAD, ids=[b[0] for b in BAD])
def test_bad_argument_is_a_trace_error_at_the_users_line(compile_only, api, call, argument):
    with pytest.raises(TraceError) as info:
        trace(call)
    message = str(info.value)
    assert api in message and argument in message, message
    assert __file__ in message or Path(__file__).name in message, message


def test_fragments_like_layouts_as_flydsl(compile_only):
    # Expected types: FlyDSL 0.4.2's for the same calls. A layout's fragment
    # layout is the one a fragment of a memref with that layout gets.
    cases = {((4, 8), (8, 1)): "(4,8):(1,4)", ((4, 8), (1, 4)): "(4,8):(1,4)",
             ((8,), (2,)): "(8):(1)", ((2, 4, 2), (1, 4, 2)): "(2,4,2):(1,4,2)",
             (((2, 2), 4), ((1, 8), 2)): "((2,2),4):((1,2),4)"}

    def body(A):
        out = {}
        for (shape, stride), want in cases.items():
            L = fx.make_layout(shape, stride)
            view = fx.make_view(fx.get_iter(A), L)
            out[want] = (t(fx.make_fragment_layout_like(L)), t(fx.make_fragment_like(L, fx.Float16)),
                         t(fx.make_fragment_layout_like(view)), t(fx.make_fragment_like(view)))
        return out

    for want, got in trace(body).items():
        assert got == (f"!fly.layout<{want}>", f"!fly.memref<f16, register, {want}>",
                       f"!fly.layout<{want}>", f"!fly.memref<f32, register, {want}>"), want
    with pytest.raises(TraceError, match=r"make_fragment_like: a layout's fragment needs dtype="):
        trace(lambda A: fx.make_fragment_like(fx.make_layout(4, 1)))


@flyc.kernel
def _through_a_layout_fragment(A: fx.Tensor, B: fx.Tensor):
    tid = fx.thread_idx.x
    frag = fx.make_fragment_like(fx.make_layout((2, 2), (2, 1)), fx.Float32)  # (2,2):(1,2)
    for i in fx.range_constexpr(2):
        for j in fx.range_constexpr(2):
            frag[i, j] = A[tid * 4 + i * 2 + j] * 2.0
    for i in fx.range_constexpr(2):
        for j in fx.range_constexpr(2):
            B[tid * 4 + j * 2 + i] = frag[i, j]


@flyc.jit
def _layout_fragment(A: fx.Tensor, B: fx.Tensor):
    _through_a_layout_fragment(A, B).launch(grid=(1, 1, 1), block=(16, 1, 1))


def test_a_fragment_like_a_layout_holds_values(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    a = np.arange(64, dtype=np.float32)
    b = np.zeros_like(a)
    _layout_fragment(a, b)
    np.testing.assert_array_equal(b, (a.reshape(16, 2, 2) * 2).transpose(0, 2, 1).reshape(-1))


@flyc.kernel
def _one_value_into_the_rest(A: fx.Tensor, base: fx.Float32):
    # A static one-element fragment into a view of dynamic size (A from
    # the thread's index on): the static side decides the one atom call.
    tid = fx.thread_idx.x
    frag = fx.make_rmem_tensor(1, fx.Float32)
    frag[0] = base + fx.Float32(tid)
    rest = fx.make_view(fx.add_offset(fx.get_iter(A), tid), A.layout)
    fx.copy(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32), frag, rest)


@flyc.jit
def _one_value_each(A: fx.Tensor, base: fx.Float32, threads: fx.Constexpr[int]):
    _one_value_into_the_rest(A, base).launch(grid=(1, 1, 1), block=(threads, 1, 1))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_copy_from_a_static_fragment_into_a_dynamically_shaped_tensor(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    a = np.full(100, -1.0, dtype=np.float32)
    _one_value_each(a, 2.5, 64)
    expected = np.concatenate([2.5 + np.arange(64, dtype=np.float32), np.full(36, -1.0, np.float32)])
    np.testing.assert_array_equal(a, expected)
