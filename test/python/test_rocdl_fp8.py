"""8-bit float operands end to end (torch float8 tensors in, MFMA / WMMA,
results out) and fx.rocdl's packed fp8 conversions.

- convert-fly-to-rocdl's type converter makes every 8-bit float in the
  LLVM and ROCDL ops it leaves an integer of its width (lit:
  cdna3-fp8-lowering.mlir); the translation check (checkTranslatableTypes)
  stays as the safety net for what no lowering takes: an arith.extf or
  arith.truncf of an 8-bit float (FlyDSL 0.4.2 does not lower those either).
- GEMMs of the fp8/bf8 MFMAs (CDNA3's 16x16x32 and 32x32x16, all four
  operand pairs) on the emulator, gfx942 with FNUZ tensors and gfx950 with
  OCP ones, and of the fp8 WMMAs of gfx12 and gfx1250, against torch's
  float32 matmul of the dequantised inputs; the code objects have the
  instruction and no scratch.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.rocdl._mfma import MmaOpCDNA3MfmaType
from flydsl.tracing.ir import parse_type

torch = pytest.importorskip("torch")

# kind -> chip -> (the MLIR element type, the torch dtype)
FP8 = {
    "fp8": {"gfx942": ("f8E4M3FNUZ", torch.float8_e4m3fnuz), "gfx950": ("f8E4M3FN", torch.float8_e4m3fn)},
    "bf8": {"gfx942": ("f8E5M2FNUZ", torch.float8_e5m2fnuz), "gfx950": ("f8E5M2", torch.float8_e5m2)},
}
PAIRS = [(a, b) for a in ("fp8", "bf8") for b in ("fp8", "bf8")]
SHAPES = [(16, 16, 32), (32, 32, 16)]


class _Elem:
    """An element type by its MLIR name (fx has no class for f8E5M2FNUZ)."""

    def __init__(self, text):
        self.ir_type = parse_type(text)
        self.width = 8


def random_fp8(shape, dtype, seed):
    """Finite values of an 8-bit float dtype spread over its range."""
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=gen) * 4).to(dtype)


def mfma_gemm(m, n, k, ta, tb):
    """C = A @ B.T for A (2m x 2k) and B (2n x 2k) row-major, 2 x 2 atoms on
    256 lanes, two atoms deep in K; A and B are loaded 64 bits at a time."""
    BM, BN, BK = 2 * m, 2 * n, 2 * k

    @flyc.kernel
    def gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        A = fx.slice(fx.zipped_divide(A, (BM, BK)), ((None, None), 0))
        B = fx.slice(fx.zipped_divide(B, (BN, BK)), ((None, None), 0))
        C = fx.slice(fx.zipped_divide(C, (BM, BN)), ((None, None), 0))
        atom = fx.make_mma_atom(MmaOpCDNA3MfmaType.get(m, n, k, ta, tb, fx.Float32))
        tiled = fx.make_tiled_mma(atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
        thr = tiled.thr_slice(tid)
        copy_ab = fx.make_copy_atom(fx.UniversalCopy64b(), 8)
        copy_c = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        tA = fx.make_tiled_copy_A(copy_ab, tiled).get_slice(tid)
        tB = fx.make_tiled_copy_B(copy_ab, tiled).get_slice(tid)
        tC = fx.make_tiled_copy_C(copy_c, tiled).get_slice(tid)
        fA, fB, fC = thr.make_fragment_A(A), thr.make_fragment_B(B), thr.make_fragment_C(C)
        fx.copy(copy_ab, tA.partition_S(A), tA.retile(fA), pred=None)
        fx.copy(copy_ab, tB.partition_S(B), tB.retile(fB), pred=None)
        fC.fill(0)
        fx.gemm(atom, fC, fA, fB, fC)
        fx.copy(copy_c, tC.retile(fC), tC.partition_S(C), pred=None)

    @flyc.jit
    def gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        gemm_kernel(A, B, C).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)

    return gemm, (BM, BN, BK)


def elem(kind, chip):
    return _Elem(FP8[kind][chip][0])


def check_close(C, A, B):
    """The products of 8-bit floats are exact in f32; the sums round."""
    a, b = A.float().double(), B.float().double()
    want = a @ b.T
    bound = 8 * a.shape[1] * 2.0 ** -23 * (a.abs() @ b.abs().T) + 1e-30
    assert torch.all((C.double() - want).abs() <= bound), (C.double() - want).abs().max()
    assert torch.count_nonzero(C) > C.numel() // 2  # not a vacuous pass


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kinds", PAIRS, ids=lambda p: "_".join(p))
def test_mfma_gemm_of_float8_tensors(fly_env, chip, shape, kinds):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    m, n, k = shape
    gemm, (BM, BN, BK) = mfma_gemm(m, n, k, elem(kinds[0], chip), elem(kinds[1], chip))
    A = random_fp8((BM, BK), FP8[kinds[0]][chip][1], 1)
    B = random_fp8((BN, BK), FP8[kinds[1]][chip][1], 2)
    C = torch.zeros(BM, BN)
    gemm(A, B, C)
    check_close(C, A, B)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("shape, kinds", [((16, 16, 32), ("fp8", "fp8")),
                                          ((32, 32, 16), ("bf8", "fp8"))])
def test_mfma_isa_has_the_fp8_instruction(fly_env, chip, shape, kinds):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    m, n, k = shape
    gemm, (BM, BN, BK) = mfma_gemm(m, n, k, elem(kinds[0], chip), elem(kinds[1], chip))
    A = torch.zeros(BM, BK, dtype=FP8[kinds[0]][chip][1])
    B = torch.zeros(BN, BK, dtype=FP8[kinds[1]][chip][1])
    compiled = flyc.compile(gemm, A, B, torch.zeros(BM, BN))
    instr = f"v_mfma_f32_{m}x{n}x{k}_{kinds[0]}_{kinds[1]}"
    ops = {line.split()[0] for line in compiled.isa().splitlines()
           if line.strip().startswith("v_mfma")}
    assert instr in ops, ops
    (resources,) = compiled.resources.values()
    assert resources["scratch_bytes"] == 0 and resources["vgpr_spills"] == 0, resources


# -- WMMA (gfx12: OCP fp8 16x16x16; gfx1250: 16x16x64 and 16x16x128) ----------------

WMMAS = [("gfx1201", 16, "fp8"), ("gfx1201", 16, "bf8"),
         ("gfx1250", 64, "fp8"), ("gfx1250", 128, "bf8")]
_OCP = {"fp8": (fx.Float8E4M3FN, torch.float8_e4m3fn), "bf8": (fx.Float8E5M2, torch.float8_e5m2)}


@pytest.mark.parametrize("chip, k, kind", WMMAS, ids=[f"{c}-{k}-{t}" for c, k, t in WMMAS])
def test_wmma_gemm_of_float8_tensors(fly_env, chip, k, kind):
    from test_rocdl_wmma import BM, BN, _gemm
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    ty, dtype = _OCP[kind]
    run = _gemm(k, ty, fx.Float32, {})
    A, B = random_fp8((BM, k), dtype, 3), random_fp8((BN, k), dtype, 4)
    C = torch.zeros(BM, BN)
    run(A, B, C)
    check_close(C, A, B)


# -- the register-fragment kernel that used to be a compile error -------------------

@flyc.kernel
def _filled_kernel(C: fx.Tensor):
    tid = fx.thread_idx.x
    mma = fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 32, fx.Float8E4M3FNUZ))
    tiled = fx.make_tiled_mma(mma, fx.make_layout((1, 1, 1), (0, 0, 0)))
    thr = tiled.thr_slice(tid)
    frag_a = thr.make_fragment_A(fx.make_rmem_tensor(fx.make_layout((16, 32), (32, 1)),
                                                     fx.Float8E4M3FNUZ))
    frag_b = thr.make_fragment_B(fx.make_rmem_tensor(fx.make_layout((16, 32), (32, 1)),
                                                     fx.Float8E4M3FNUZ))
    frag_c = thr.make_fragment_C(fx.make_rmem_tensor(fx.make_layout((16, 16), (16, 1)),
                                                     fx.Float32))
    frag_a.fill(1.5)
    frag_b.fill(-0.5)
    frag_c.fill(0)
    fx.gemm(mma, frag_c, frag_a, frag_b, frag_c)
    copy = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    thr_copy = fx.make_tiled_copy_C(copy, tiled).get_slice(tid)
    fx.copy(copy, thr_copy.retile(frag_c), thr_copy.partition_S(C), pred=None)


@flyc.jit
def _filled(C: fx.Tensor):
    _filled_kernel(C).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_fp8_register_fragments_filled_with_constants(fly_env):
    """fp8 constants (arith, lowered later) meet the MFMA's integer operands."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None,
            FLYDSL_RUNTIME_ENABLE_CACHE="0")
    c = np.zeros((16, 16), np.float32)
    _filled(flyc.from_dlpack(c))
    np.testing.assert_array_equal(c, np.full((16, 16), 32 * 1.5 * -0.5, np.float32))


# -- what stays an error: element conversions of 8-bit floats ------------------------

@flyc.kernel
def _convert_kernel(A: fx.Tensor, B: fx.Tensor):
    tid = fx.thread_idx.x
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float8E4M3FN)
    ga = fx.slice(fx.zipped_divide(A, (4,)), (None, tid))
    gb = fx.slice(fx.zipped_divide(B, (4,)), (None, tid))
    r = fx.make_fragment_like(ga)
    fx.copy(atom, ga, r)
    r.store((r.load().to(fx.Float32) * 2.0).to(fx.Float8E4M3FN))
    fx.copy(atom, r, gb)


@flyc.jit
def _convert(A: fx.Tensor, B: fx.Tensor):
    _convert_kernel(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.mark.parametrize("runtime", ["emu", "hip"])
def test_fp8_element_conversion_is_a_located_compile_error(fly_env, runtime):
    """arith.extf / truncf of 8-bit floats have no lowering (as in FlyDSL
    0.4.2): the compile names the op and the user's line, never crashes."""
    fly_env(ARCH="gfx950", FLYDSL_RUNTIME_ENABLE_CACHE="0",
            **({"FLYDSL_RUNTIME_KIND": "emu", "COMPILE_ONLY": None} if runtime == "emu"
               else {"COMPILE_ONLY": "1"}))
    a = torch.zeros(256, dtype=torch.float8_e4m3fn)
    with pytest.raises(flyc.CompileError) as info:
        _convert(a, a.clone())
    message = str(info.value)
    assert "no LLVM IR equivalent" in message
    assert re.search(r"of this arith\.(extf|truncf)", message), message
    assert "test_rocdl_fp8.py:" in message
