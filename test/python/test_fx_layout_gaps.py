"""Layout/derived gaps of the fx API closed against FlyDSL 0.4.2: basis
leaves in int tuples and layout strides, TiledCopy.layout_src/dst_tv_tiled,
staged MMA fragments, make_ptr(dict_attrs=...), gemm's traversal_order /
traversal_layout / atom_callback and operand lists, sync scopes of the
universal atomics. Expected values are FlyDSL 0.4.2's for the same calls
(its IR), or numpy's for kernels run on the emulator."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from flydsl.tracing.errors import TraceError  # noqa: E402


@pytest.fixture
def compile_only(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    monkeypatch.setenv("FLYDSL_DUMP_IR", "1")
    monkeypatch.setenv("FLYDSL_DUMP_DIR", str(tmp_path))
    flyc.Environment.reload()
    yield tmp_path
    monkeypatch.undo()
    flyc.Environment.reload()


def trace(body, shape=(16, 8)):
    out = {}

    @flyc.kernel
    def k(A: fx.Tensor):
        out["r"] = body(A)

    @flyc.jit
    def host(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(1, 1, 1))

    flyc.compile(host, np.zeros(shape, np.float32))
    return out["r"]


def stage(dump_dir, prefix):
    """The text of the first dumped stage whose name starts with prefix."""
    files = sorted(p for p in dump_dir.rglob("*") if p.is_file() and p.name.startswith(prefix))
    assert files, f"no {prefix}* stage in {[p.name for p in dump_dir.rglob('*')]}"
    return files[0].read_text()


def t(x):
    return str(x.ir.type)


# -- 1. basis leaves ---------------------------------------------------------------------

def test_basis_leaves_in_int_tuples_and_strides(compile_only):
    def body(A):
        L = fx.make_layout((4, 8), (fx.E(1), 2 * fx.E(0)))
        return {
            "tuple": t(fx.make_int_tuple((4, fx.E(1)))),
            "nested": t(fx.make_int_tuple((3 * fx.E(0, 1), fx.E(1)))),
            "layout": t(fx.make_layout((4, 8), (fx.E(0), fx.E(1)))),
            "stride": t(fx.make_stride(fx.E(0), fx.E(1))),
            "crd2idx": t(fx.crd2idx((1, 2), L)), "call": t(L(3, 5)),
            "composition": t(fx.composition(L, fx.make_layout(8, 4))),
            "unpack": fx.make_int_tuple((4, 2 * fx.E(1))).unpack(),
        }
    r = trace(body)
    # FlyDSL 0.4.2's types for the same calls.
    assert r["tuple"] == "!fly.int_tuple<(4,1E1)>"
    assert r["nested"] == "!fly.int_tuple<(3E0E1,1E1)>"
    assert r["layout"] == "!fly.layout<(4,8):(1E0,1E1)>"
    assert r["stride"] == "!fly.int_tuple<(1E0,1E1)>"
    assert r["crd2idx"] == "!fly.int_tuple<(4,1)>"        # 1*1E1 + 2*2E0
    assert r["call"] == "!fly.int_tuple<(10,3)>"
    assert r["composition"] == "!fly.layout<8:2E0>"
    assert r["unpack"] == (4, fx.Basis(2, [1]))


def test_dynamic_basis_leaf(compile_only):
    def body(A):
        M = fx.get_scalar(A.shape[0])
        L = fx.make_layout((4, 8), (fx.Basis(M, [0]), fx.E(1)))
        return t(L), t(fx.crd2idx((2, 3), L))
    layout, idx = trace(body)
    assert layout == "!fly.layout<(4,8):(?E0,1E1)>"
    assert idx == "!fly.int_tuple<(?{div=2},3)>"   # 2 * M


def test_bad_basis_leaf_is_a_located_error(compile_only):
    def body(A):
        return fx.make_int_tuple((4, fx.Basis(1.5, [0])))
    with pytest.raises(TraceError, match=r"test_fx_layout_gaps.py:\d+"):
        trace(body)


# -- 3. TiledCopy members ------------------------------------------------------------------

def test_tiled_copy_src_dst_tv_tiled(compile_only):
    def body(A):
        atom = fx.make_copy_atom(fx.UniversalCopy64b(), fx.Float32)
        tc = fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((4, 8), order=(1, 0)),
                                   fx.make_ordered_layout((1, 2), order=(0, 1)))
        tc4 = fx.make_tiled_copy_tv(fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32),
                                    fx.make_ordered_layout((4, 8), order=(1, 0)),
                                    fx.make_ordered_layout((1, 2), order=(0, 1)))
        return (t(tc.layout_src_tv_tiled), t(tc.layout_dst_tv_tiled), t(tc.layout_tv_tiled),
                t(tc4.layout_src_tv_tiled))
    src, dst, tv, src32 = trace(body)
    # FlyDSL 0.4.2: ((8,4),(2,1)):((8,1),(4,0)) for both sides of the 64-bit copy.
    assert src == dst == "!fly.layout<((8,4),(2,1)):((8,1),(4,0))>"
    assert tv == "!fly.layout<((8,4),2):((8,1),4)>"
    # One value per 32-bit atom: the rest value mode holds the second one.
    assert src32 == "!fly.layout<((8,4),(1,2)):((8,1),(0,4))>"


def test_tiled_copy_members_match_flydsls():
    ours = {n for n in dir(fx.TiledCopy) if not n.startswith("_")}
    assert {"tile_mn", "layout_tv_tiled", "layout_src_tv_tiled", "layout_dst_tv_tiled",
            "get_slice", "thr_slice"} <= ours
    mma = {n for n in dir(fx.TiledMma) if not n.startswith("_")}
    assert {"mma_atom", "atom_layout", "permutation_mnk", "tile_size_mnk", "thr_layout_vmnk",
            "tv_layout_A_tiled", "tv_layout_B_tiled", "tv_layout_C_tiled", "get_slice",
            "thr_slice", "make_fragment_A", "make_fragment_B", "make_fragment_C"} <= mma


# -- 4. staged fragments ---------------------------------------------------------------------

def test_mma_make_fragment_stages(compile_only):
    def body(A):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((4, 4, 1), (1, 4, 0)))
        # make_fragment takes the whole tile (FlyDSL's mma_make_fragment).
        pa = fx.make_rmem_tensor((16, 8), fx.Float32)
        pc = fx.make_rmem_tensor((16, 16), fx.Float32)
        pa3 = fx.make_rmem_tensor((16, 8, 5), fx.Float32)
        mma2 = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                 fx.make_layout((2, 2, 1), (1, 2, 0)))
        pb = fx.make_rmem_tensor((8, 4), fx.Float32)
        return (t(mma.make_fragment_A(pa, stages=2)), t(mma.make_fragment_C(pc, stages=2)),
                t(mma.make_fragment_A(pa3, stages=2)), t(mma2.make_fragment_B(pb, stages=3)),
                t(mma.make_fragment_A(pa)))
    a2, c2, a3, b3, a1 = trace(body)
    # FlyDSL 0.4.2's fragments of the same operands with stages=.
    assert a2 == "!fly.memref<f32, register, (1,4,8,2):(0,1,4,32)>"
    assert c2 == "!fly.memref<f32, register, (1,4,4,2):(0,1,4,16)>"
    assert a3 == "!fly.memref<f32, register, (1,4,8,2):(0,1,4,32)>"
    assert b3 == "!fly.memref<f32, register, (1,4,4,3):(0,1,4,16)>"
    assert a1 == "!fly.memref<f32, register, (1,4,8):(0,1,4)>"


@pytest.mark.parametrize("stages", [0, -1, 1.5])
def test_bad_stages_is_a_located_error(compile_only, stages):
    def body(A):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((4, 4, 1), (1, 4, 0)))
        return mma.make_fragment_A(fx.make_rmem_tensor((16, 8), fx.Float32), stages=stages)
    with pytest.raises(TraceError, match=r"test_fx_layout_gaps.py:\d+: .*stages"):
        trace(body)


# -- 5. make_ptr(dict_attrs=) ------------------------------------------------------------------

def test_make_ptr_dict_attrs(compile_only):
    def body(A):
        reg = fx.make_ptr(fx.PointerType.get(fx.Float32, fx.AddressSpace.Register, 4), [],
                          dict_attrs={"allocSize": 8})
        sh = fx.make_ptr(fx.PointerType.get(fx.Float32, fx.AddressSpace.Shared, 16), [],
                         dict_attrs={"allocBytes": 256, "allocAlign": 16})
        return str(reg.ir.type), str(sh.ir.type)
    reg, sh = trace(body)
    assert reg.startswith("!fly.ptr<f32, register")
    assert sh == "!fly.ptr<f32, shared, align<16>>"
    ir = stage(compile_only, "00")
    assert "fly.memref.alloca" in ir and "register, 8:1" in ir
    assert "256" in ir


@pytest.mark.parametrize("attrs", [{"allocBytes": 256}, {"allocSize": 0}, "x"])
def test_make_ptr_bad_dict_attrs(compile_only, attrs):
    def body(A):
        space = fx.AddressSpace.Shared if "allocBytes" in attrs else fx.AddressSpace.Register
        return fx.make_ptr(fx.PointerType.get(fx.Float32, space, 4), [], dict_attrs=attrs)
    with pytest.raises(TraceError, match=r"test_fx_layout_gaps.py:\d+: .*dict_attrs"):
        trace(body)


# -- 6. gemm options -------------------------------------------------------------------------

def _gemm_calls(traversal_order=None, traversal_layout=None):
    calls = []

    def body(A):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((1, 1, 1), (0, 0, 0)))
        a = fx.make_rmem_tensor((1, 2, 3), fx.Float32)
        b = fx.make_rmem_tensor((1, 2, 3), fx.Float32)
        c = fx.make_rmem_tensor((1, 2, 2), fx.Float32)
        tl = None if traversal_layout is None else fx.make_layout(*traversal_layout)
        fx.gemm(mma, c, a, b, c, traversal_order=traversal_order, traversal_layout=tl,
                atom_callback=lambda atom, mnk: (calls.append(mnk), atom)[1])
    trace(body)
    return calls


def test_gemm_atom_callback_order_as_flydsl(compile_only):
    # FlyDSL 0.4.2's callback order: the default (NMK) has K outermost, N innermost.
    assert _gemm_calls() == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1), (0, 1, 1),
                             (1, 0, 1), (1, 1, 1), (0, 0, 2), (0, 1, 2), (1, 0, 2), (1, 1, 2)]
    # Letters from the innermost loop; serpentine reverses odd passes.
    assert _gemm_calls(fx.GemmTraversalOrder.KNM)[:4] == [(0, 0, 0), (0, 0, 1), (0, 0, 2),
                                                           (0, 1, 0)]
    assert _gemm_calls(fx.GemmTraversalOrder.KNM_Serpentine)[:6] == [
        (0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 2), (0, 1, 1), (0, 1, 0)]
    assert _gemm_calls(fx.GemmTraversalOrder.MNK_Serpentine) == [
        (0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 0, 1), (0, 0, 1),
        (0, 0, 2), (1, 0, 2), (1, 1, 2), (0, 1, 2)]
    # traversal_layout: call i visits tile traversal_layout(i) (column-major numbering).
    assert _gemm_calls(traversal_layout=((3, 2, 2), (4, 2, 1)))[:4] == [
        (0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 0)]


def test_gemm_expanded_ir_and_errors(compile_only):
    def body(A):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((1, 1, 1), (0, 0, 0)))
        a = fx.make_rmem_tensor((1, 2, 3), fx.Float32)
        b = fx.make_rmem_tensor((1, 2, 3), fx.Float32)
        c = fx.make_rmem_tensor((1, 2, 2), fx.Float32)
        fx.gemm(mma, c, [a], [b], c, traversal_order=fx.GemmTraversalOrder.MNK)
        errors = []
        for kw in ({"traversal_order": fx.GemmTraversalOrder.MNK,
                    "traversal_layout": fx.make_layout(12, 1)},
                   {"atom_callback": lambda atom, mnk: 3},
                   {"traversal_layout": fx.make_layout(5, 1)}):
            try:
                fx.gemm(mma, c, a, b, c, **kw)
            except TraceError as e:
                errors.append(str(e))
        # An auxiliary operand the atom does not take ([a, a] on the universal FMA) is an IR
        # verifier error at the gemm's line: test_rocdl_mma_scale.py and the lit tests check it.
        return errors
    errors = trace(body)
    assert len(errors) == 3
    assert "not both" in errors[0] and "MmaAtom" in errors[1] and "cosize 12" in errors[2]
    assert all("test_fx_layout_gaps.py:" in e for e in errors)
    # The order is fly.gemm's traversal list (MNK: M innermost, K outermost),
    # which fly-layout-lowering unrolls into the 12 calls.
    traced = stage(compile_only, "00")
    assert traced.count("fly.mma_atom_call") == 0 and traced.count("fly.gemm(") == 1
    assert "traversal = array<i32: 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, " \
           "0, 1, 1, 1, 1, 1, 0, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1, 2>" in traced
    assert stage(compile_only, "04").count("fly.mma_atom_call") == 12


def _run_gemm(order, callback_scale=None):
    @flyc.kernel
    def k(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((1, 1, 1), (0, 0, 0)))
        thr = mma.get_slice(0)
        # Static row-major views: register fragments need static layouts.
        A, B, C = (fx.make_view(fx.get_iter(x), fx.make_layout(s, (s[1], 1)))
                   for x, s in ((A, (4, 3)), (B, (5, 3)), (C, (4, 5))))
        tA, tB, tC = thr.partition_A(A), thr.partition_B(B), thr.partition_C(C)
        rA, rB, rC = fx.make_fragment_like(tA), fx.make_fragment_like(tB), fx.make_fragment_like(tC)
        atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        fx.copy(atom, tA, rA)
        fx.copy(atom, tB, rB)
        rC.fill(0.0)
        fx.gemm(mma, rC, rA, rB, rC, traversal_order=order,
                atom_callback=None if callback_scale is None else (lambda at, mnk: at))
        fx.copy(atom, rC, tC)

    @flyc.jit
    def host(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        k(A, B, C).launch(grid=(1, 1, 1), block=(1, 1, 1))

    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 3), dtype=np.float32)
    b = rng.standard_normal((5, 3), dtype=np.float32)
    c = np.zeros((4, 5), np.float32)
    host(a, b, c)
    return a, b, c


@pytest.mark.parametrize("order", [None, fx.GemmTraversalOrder.MNK,
                                   fx.GemmTraversalOrder.KMN_Serpentine])
@pytest.mark.parametrize("callback", [True, False])
def test_gemm_traversal_runs_on_the_emulator(order, callback):
    """Traced call by call (atom_callback) or as fly.gemm's traversal list."""
    a, b, c = _run_gemm(order, callback_scale=1 if callback else None)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("order", [fx.GemmTraversalOrder.KNM, fx.GemmTraversalOrder.NMK_Serpentine])
@pytest.mark.parametrize("callback", [True, False])
def test_gemm_traversal_with_d_apart_from_c(order, callback):
    """D = A B^T + C into a fragment of its own (NaN before): each tile's
    first call reads C, the later ones D."""
    @flyc.kernel
    def k(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, D: fx.Tensor):
        mma = fx.make_tiled_mma(fx.make_mma_atom(fx.UniversalFMA(fx.Float32)),
                                fx.make_layout((1, 1, 1), (0, 0, 0)))
        thr = mma.get_slice(0)
        A, B, C, D = (fx.make_view(fx.get_iter(x), fx.make_layout(s, (s[1], 1)))
                      for x, s in ((A, (4, 3)), (B, (5, 3)), (C, (4, 5)), (D, (4, 5))))
        tA, tB, tC, tD = thr.partition_A(A), thr.partition_B(B), thr.partition_C(C), thr.partition_C(D)
        rA, rB, rC, rD = (fx.make_fragment_like(t) for t in (tA, tB, tC, tD))
        atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        fx.copy(atom, tA, rA)
        fx.copy(atom, tB, rB)
        fx.copy(atom, tC, rC)
        rD.fill(float("nan"))
        fx.gemm(mma, rD, rA, rB, rC, traversal_order=order,
                atom_callback=(lambda at, mnk: at) if callback else None)
        fx.copy(atom, rD, tD)

    @flyc.jit
    def host(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, D: fx.Tensor):
        k(A, B, C, D).launch(grid=(1, 1, 1), block=(1, 1, 1))

    rng = np.random.default_rng(11)
    a = rng.standard_normal((4, 3), dtype=np.float32)
    b = rng.standard_normal((5, 3), dtype=np.float32)
    c = rng.standard_normal((4, 5), dtype=np.float32)
    d = np.zeros((4, 5), np.float32)
    host(a, b, c, d)
    np.testing.assert_allclose(d, a @ b.T + c, rtol=1e-5, atol=1e-5)


# -- 7. sync scopes ----------------------------------------------------------------------------

@pytest.mark.parametrize("scope,llvm", [(fx.SyncScope.System, None),
                                        ("agent", "agent"), ("workgroup", "workgroup"),
                                        ("wavefront", "wavefront"),
                                        (fx.SyncScope.SingleThread, "singlethread")])
def test_atomic_sync_scopes_reach_llvm(compile_only, scope, llvm):
    def body(A):
        op = fx.UniversalAtomicAdd(fx.Float32, scope)
        atom = fx.make_copy_atom(op, fx.Float32)
        r = fx.make_rmem_tensor(1, fx.Float32)
        r.fill(1.0)
        fx.copy(atom, r, fx.make_view(fx.get_iter(A), fx.make_layout(1, 1)))
        return str(op)
    text = trace(body)
    suffix = f', "{llvm}"' if llvm else ""
    assert text == f"!fly.universal_atomic<add, f32{suffix}>"   # FlyDSL 0.4.2's type
    ir = "\n".join(p.read_text() for p in sorted(compile_only.rglob("*.mlir")))
    rmw = [line for line in ir.splitlines() if "llvm.atomicrmw" in line]
    assert rmw, "no atomicrmw in the dumped stages"
    if llvm:
        assert all(f'syncscope("{llvm}")' in line for line in rmw)
    else:
        assert not any("syncscope" in line for line in rmw)


def test_unknown_sync_scope_is_a_located_error(compile_only):
    def body(A):
        return fx.UniversalAtomicAdd(fx.Float32, "bogus")
    with pytest.raises(TraceError, match=r"test_fx_layout_gaps.py:\d+: .*sync scope \"bogus\""):
        trace(body)


def test_atomic_add_with_agent_scope_on_the_emulator():
    @flyc.kernel
    def k(A: fx.Tensor):
        atom = fx.make_copy_atom(fx.UniversalAtomicAdd(fx.Float32, "agent"), fx.Float32)
        r = fx.make_rmem_tensor(1, fx.Float32)
        r.fill(1.0)
        fx.copy(atom, r, fx.make_view(fx.get_iter(A), fx.make_layout(1, 1)))

    @flyc.jit
    def host(A: fx.Tensor):
        k(A).launch(grid=(4, 1, 1), block=(64, 1, 1))

    a = np.zeros(4, np.float32)
    host(a)
    assert a[0] == 256.0


# -- 2. assume (CoordSwizzleType: test_coord_swizzle.py) --------------------------------------

def test_assume_is_a_located_rejection(compile_only):
    def body(A):
        try:
            fx.assume(fx.IntTupleType.get(4), fx.make_int_tuple(4), fx.make_int_tuple(4))
        except TraceError as e:
            return [str(e)]
        return []
    errors = trace(body)
    assert len(errors) == 1 and "test_fx_layout_gaps.py:" in errors[0]
