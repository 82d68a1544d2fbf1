"""fx.rocdl.MFMA: the dense MFMAs of CDNA3 (gfx942, gfx950) and CDNA4
(gfx950 only) as MMA atoms.

- Each atom's thread-value layouts for A, B and C (read back from the
  compiler through the atom's layout_*_tv members) equal AMD's register
  layouts (test/data/amd-matrix-layouts, the Matrix Instruction Calculator's
  data) element for element; CDNA4's new shapes, which the data lacks, equal
  Composable Kernel's description of them (the one test_emu_matrix uses,
  checked there against the calculator's data for CDNA3).
- A GEMM per instruction runs on the emulator (2 x 2 atoms, two atoms deep
  in K, C accumulated) against numpy/torch; 8-bit floats are decoded here
  from their format definitions.
- The code object has the v_mfma_* instruction and no scratch.
- fp8 operands end to end, from torch float8 tensors: test_rocdl_fp8.
- Errors: an MFMA on a chip without it, a shape or type no instruction has.
"""

from __future__ import annotations

import csv
import re

import numpy as np
import pycute
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.rocdl._mfma import MmaOpCDNA3MfmaType
from flydsl.tracing.errors import FlyDSLError

from conftest import REPO_ROOT
from test_emu_matrix import ck_layout

LAYOUTS = REPO_ROOT / "test" / "data" / "amd-matrix-layouts"


class _Elem:
    """An element type by its MLIR name (fx has no class for f8E5M2FNUZ)."""

    def __init__(self, text):
        self.ir_type = text


# The test's own table: instruction -> (M, N, K, A, B, accumulator), with the
# 8-bit floats named by kind ("fp8" E4M3, "bf8" E5M2; the chip picks the
# encoding).
CDNA3 = {
    "v_mfma_f32_16x16x4_f32": (16, 16, 4, "f32", "f32", "f32"),
    "v_mfma_f32_32x32x2_f32": (32, 32, 2, "f32", "f32", "f32"),
    "v_mfma_f32_16x16x16_f16": (16, 16, 16, "f16", "f16", "f32"),
    "v_mfma_f32_32x32x8_f16": (32, 32, 8, "f16", "f16", "f32"),
    "v_mfma_f32_16x16x16_bf16": (16, 16, 16, "bf16", "bf16", "f32"),
    "v_mfma_f32_32x32x8_bf16": (32, 32, 8, "bf16", "bf16", "f32"),
    "v_mfma_i32_16x16x32_i8": (16, 16, 32, "i8", "i8", "i32"),
    "v_mfma_i32_32x32x16_i8": (32, 32, 16, "i8", "i8", "i32"),
    "v_mfma_f64_16x16x4_f64": (16, 16, 4, "f64", "f64", "f64"),
    **{f"v_mfma_f32_{mnk}_{a}_{b}": (*dims, a, b, "f32")
       for mnk, dims in (("16x16x32", (16, 16, 32)), ("32x32x16", (32, 32, 16)))
       for a in ("fp8", "bf8") for b in ("fp8", "bf8")},
}
CDNA4 = {
    "v_mfma_f32_16x16x32_f16": (16, 16, 32, "f16", "f16", "f32"),
    "v_mfma_f32_32x32x16_f16": (32, 32, 16, "f16", "f16", "f32"),
    "v_mfma_f32_16x16x32_bf16": (16, 16, 32, "bf16", "bf16", "f32"),
    "v_mfma_f32_32x32x16_bf16": (32, 32, 16, "bf16", "bf16", "f32"),
    "v_mfma_i32_16x16x64_i8": (16, 16, 64, "i8", "i8", "i32"),
    "v_mfma_i32_32x32x32_i8": (32, 32, 32, "i8", "i8", "i32"),
}

FIXED = {"f32": fx.Float32, "f16": fx.Float16, "bf16": fx.BFloat16, "i8": fx.Int8,
         "f64": fx.Float64, "i32": fx.Int32}
FP8 = {  # kind -> chip -> element type
    "fp8": {"gfx942": fx.Float8E4M3FNUZ, "gfx950": fx.Float8E4M3FN},
    "bf8": {"gfx942": _Elem("f8E5M2FNUZ"), "gfx950": fx.Float8E5M2},
}


def elem(kind, chip):
    return FP8[kind][chip] if kind in FP8 else FIXED[kind]


def operation(instr, chip):
    """The MMA operation of an instruction on a chip: fx.rocdl.MFMA, or for
    the mixed fp8/bf8 pairs (which MFMA's one A-and-B type cannot name)
    the cdna3.mfma type itself."""
    m, n, k, a, b, acc = {**CDNA3, **CDNA4}[instr]
    if a != b:
        return MmaOpCDNA3MfmaType.get(m, n, k, elem(a, chip), elem(b, chip), FIXED[acc])
    return fx.rocdl.MFMA(m, n, k, elem(a, chip), FIXED[acc])


# ---- thread-value layouts against AMD's data ------------------------------------

def _layout_of(text):
    """A pycute layout from a fly layout type's text, `!fly.layout<S:D>`."""
    shape, stride = re.fullmatch(r"!fly\.layout<(.*)>", text).group(1).split(":")
    return pycute.Layout(eval(shape), eval(stride))  # noqa: S307 - tuples of ints


@flyc.kernel
def _nothing(A: fx.Tensor):
    pass


def atom_layouts(fly_env, instr, chip):
    """{operand: pycute layout} of the atom of `instr`, traced for `chip`."""
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)
    got = {}

    @flyc.jit
    def trace(A: fx.Tensor):
        atom = fx.make_mma_atom(operation(instr, chip))
        got["shape"] = str(atom.shape_mnk.type)
        got["A"], got["B"], got["C"] = (str(t.type) for t in (
            atom.layout_A_tv, atom.layout_B_tv, atom.layout_C_tv))
        _nothing(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    trace(np.zeros(4, np.float32))
    return got["shape"], {op: _layout_of(got[op]) for op in "ABC"}


def calculator_cells(instr, operand):
    """{(lane, value index): (row, column)} of the calculator's table."""
    out = {}
    with open(LAYOUTS / f"cdna3-w64-{instr}-{operand}.csv") as f:
        for row in csv.DictReader(f):
            lane = int(row.pop("lane"))
            for v, cell in enumerate(row.values()):
                r, c = re.fullmatch(r"[A-D]\[(\d+)\]\[(\d+)\]", cell).groups()
                out[(lane, v)] = (int(r), int(c))
    return out


def ck_cells(instr, operand):
    """The same from CK's description of a CDNA4 instruction (8-bit values
    of A and B counted by their bit offset)."""
    out = {}
    for lane, bit, bits, _block, r, c in ck_layout(instr, operand):
        out[(lane, bit // bits)] = (r, c)
    return out


def expected_offset(operand, m, n, r, c):
    """Where a cell of the operand matrix is in the atom's coordinates:
    A[i][k] -> i + M*k, B[k][j] -> j + N*k, C and D[i][j] -> i + M*j."""
    if operand == "A":
        return r + m * c
    if operand == "B":
        return c + n * r
    return r + m * c


def check_layouts(layouts, cells_of, m, n):
    for operand, table in (("A", "A"), ("B", "B"), ("C", "C"), ("C", "D")):
        layout = layouts[operand]
        cells = cells_of(table)
        lanes = 1 + max(lane for lane, _ in cells)
        values = 1 + max(v for _, v in cells)
        assert pycute.size(layout) == lanes * values == len(cells), (operand, layout)
        for (lane, v), (r, c) in cells.items():
            assert layout(lane, v) == expected_offset(operand, m, n, r, c), \
                f"{table}: lane {lane} value {v}"


@pytest.mark.parametrize("instr", sorted(CDNA3))
def test_cdna3_layouts_are_amds(fly_env, instr):
    m, n, k, *_ = CDNA3[instr]
    shape, layouts = atom_layouts(fly_env, instr, "gfx942")
    assert shape == f"!fly.int_tuple<({m},{n},{k})>"
    check_layouts(layouts, lambda op: calculator_cells(instr, op), m, n)


@pytest.mark.parametrize("instr", sorted(CDNA4))
def test_cdna4_layouts_are_cks(fly_env, instr):
    m, n, k, *_ = CDNA4[instr]
    shape, layouts = atom_layouts(fly_env, instr, "gfx950")
    assert shape == f"!fly.int_tuple<({m},{n},{k})>"
    check_layouts(layouts, lambda op: ck_cells(instr, "C" if op == "D" else op), m, n)


@pytest.mark.parametrize("instr", ["v_mfma_f32_16x16x32_fp8_bf8", "v_mfma_f32_32x32x8_f16"])
def test_gfx950_keeps_cdna3_layouts(fly_env, instr):
    m, n, *_ = CDNA3[instr]
    _, layouts = atom_layouts(fly_env, instr, "gfx950")
    check_layouts(layouts, lambda op: calculator_cells(instr, op), m, n)


# ---- GEMMs on the emulator ----------------------------------------------------------

def make_gemm(instr, chip, kblocks=2):
    """A jit function computing C += A @ B.T for A (2M x kblocks*K) and B
    (2N x kblocks*K), row-major, with 2 x 2 atoms of `instr` on 256 lanes.
    8-bit float operands come as uint8 tensors of their codes."""
    m, n, k, a, b, acc = {**CDNA3, **CDNA4}[instr]
    ta, tb, tacc = elem(a, chip), elem(b, chip), FIXED[acc]
    raw8 = a in FP8
    bits_ab = 8 if raw8 else ta.width
    bits_acc = tacc.width
    BM, BN, BK = 2 * m, 2 * n, kblocks * k

    @flyc.kernel
    def gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        if fx.const_expr(raw8):
            A = fx.make_view(fx.recast_iter(ta, A.iterator), A.layout)
            B = fx.make_view(fx.recast_iter(tb, B.iterator), B.layout)
        A = fx.slice(fx.zipped_divide(A, (BM, BK)), ((None, None), 0))
        B = fx.slice(fx.zipped_divide(B, (BN, BK)), ((None, None), 0))
        C = fx.slice(fx.zipped_divide(C, (BM, BN)), ((None, None), 0))
        atom = fx.make_mma_atom(operation(instr, chip))
        tiled = fx.make_tiled_mma(atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
        thr = tiled.thr_slice(tid)
        copy_ab = fx.make_copy_atom(fx.UniversalCopy(bits_ab), bits_ab)
        copy_c = fx.make_copy_atom(fx.UniversalCopy(bits_acc), bits_acc)
        tA = fx.make_tiled_copy_A(copy_ab, tiled).get_slice(tid)
        tB = fx.make_tiled_copy_B(copy_ab, tiled).get_slice(tid)
        tC = fx.make_tiled_copy_C(copy_c, tiled).get_slice(tid)
        fA, fB, fC = thr.make_fragment_A(A), thr.make_fragment_B(B), thr.make_fragment_C(C)
        fx.copy(copy_ab, tA.partition_S(A), tA.retile(fA), pred=None)
        fx.copy(copy_ab, tB.partition_S(B), tB.retile(fB), pred=None)
        fx.copy(copy_c, tC.partition_S(C), tC.retile(fC), pred=None)
        fx.gemm(atom, fC, fA, fB, fC)
        fx.copy(copy_c, tC.retile(fC), tC.partition_S(C), pred=None)

    @flyc.jit
    def gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        gemm_kernel(A, B, C).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)

    return gemm, (BM, BN, BK)


def decode_fp8(codes, kind, chip):
    """Values of 8-bit float codes, from the formats' definitions: E4M3
    (3 mantissa bits) and E5M2 (2); FNUZ (gfx942) with biases 8 and 16, OCP
    (gfx950) with 7 and 15; subnormals at exponent 0."""
    man_bits = 3 if kind == "fp8" else 2
    bias = (7 if kind == "fp8" else 15) + (1 if chip == "gfx942" else 0)
    codes = codes.astype(np.int64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> man_bits) & ((1 << (7 - man_bits)) - 1)
    man = codes & ((1 << man_bits) - 1)
    frac = man / float(1 << man_bits)
    value = np.where(exp == 0, frac * 2.0 ** (1 - bias), (1 + frac) * 2.0 ** (exp - bias))
    return sign * value


def fp8_codes(rng, shape, kind, chip):
    """Random codes of finite numbers (no NaN or infinity of the format)."""
    codes = rng.integers(0, 256, size=shape).astype(np.uint8)
    if chip == "gfx942":
        bad = codes == 0x80
    elif kind == "fp8":
        bad = (codes & 0x7F) == 0x7F
    else:
        bad = ((codes >> 2) & 0x1F) == 0x1F
    codes[bad] = 0x3C
    return codes


def operands(instr, chip, shape_a, shape_b, shape_c, seed=0):
    """(A, B, C as passed, A, B, C as float64 or int64 for the reference)."""
    m, n, k, a, b, acc = {**CDNA3, **CDNA4}[instr]
    rng = np.random.default_rng(seed)
    if a in FP8:
        A, B = fp8_codes(rng, shape_a, a, chip), fp8_codes(rng, shape_b, b, chip)
        C = rng.standard_normal(shape_c).astype(np.float32)
        return A, B, C, decode_fp8(A, a, chip), decode_fp8(B, b, chip), C.astype(np.float64)
    if a == "i8":
        A = rng.integers(-128, 128, size=shape_a).astype(np.int8)
        B = rng.integers(-128, 128, size=shape_b).astype(np.int8)
        C = rng.integers(-2**20, 2**20, size=shape_c).astype(np.int32)
        return A, B, C, A.astype(np.int64), B.astype(np.int64), C.astype(np.int64)
    if a == "bf16":
        torch = pytest.importorskip("torch")
        gen = torch.Generator().manual_seed(seed)
        A = torch.randn(shape_a, generator=gen).to(torch.bfloat16)
        B = torch.randn(shape_b, generator=gen).to(torch.bfloat16)
        C = torch.randn(shape_c, generator=gen)
        return A, B, C, A.double().numpy(), B.double().numpy(), C.double().numpy()
    np_type = {"f32": np.float32, "f16": np.float16, "f64": np.float64}[a]
    acc_type = np.float64 if a == "f64" else np.float32
    A = rng.standard_normal(shape_a).astype(np_type)
    B = rng.standard_normal(shape_b).astype(np_type)
    C = rng.standard_normal(shape_c).astype(acc_type)
    return A, B, C, A.astype(np.float64), B.astype(np.float64), C.astype(np.float64)


def check_gemm(fly_env, instr, chip):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    gemm, (BM, BN, BK) = make_gemm(instr, chip)
    A, B, C, a, b, c = operands(instr, chip, (BM, BK), (BN, BK), (BM, BN))
    want = a @ b.T + c
    gemm(A, B, C)
    got = C.double().numpy() if hasattr(C, "double") else C
    if CDNA3.get(instr, CDNA4.get(instr))[3] == "i8":
        np.testing.assert_array_equal(got, want)
        return
    # The products are exact in the accumulator; what the instruction
    # rounds is the sum, to within a few ulps of the sum of magnitudes.
    eps = 2.0 ** -52 if CDNA3.get(instr, (0,) * 6)[5] == "f64" else 2.0 ** -23
    bound = 8 * BK * eps * (np.abs(a) @ np.abs(b).T + np.abs(c))
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) - bound)


# fp8 / bf8 operands come as uint8 codes here (test_rocdl_fp8 passes torch
# float8 tensors).
@pytest.mark.parametrize("instr", sorted(CDNA3))
def test_cdna3_gemm_on_gfx942(fly_env, instr):
    check_gemm(fly_env, instr, "gfx942")


@pytest.mark.parametrize("instr", sorted(CDNA4))
def test_cdna4_gemm_on_gfx950(fly_env, instr):
    check_gemm(fly_env, instr, "gfx950")


@pytest.mark.parametrize("instr", sorted(CDNA3))
def test_cdna3_gemm_on_gfx950(fly_env, instr):
    """gfx950 runs CDNA3's shapes."""
    check_gemm(fly_env, instr, "gfx950")


# ---- the code object ------------------------------------------------------------------

def isa_of(fly_env, instr, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    gemm, (BM, BN, BK) = make_gemm(instr, chip)
    A, B, C, *_ = operands(instr, chip, (BM, BK), (BN, BK), (BM, BN))
    compiled = flyc.compile(gemm, A, B, C)
    (resources,) = compiled.resources.values()
    return compiled.isa(), resources


@pytest.mark.parametrize("instr, chip", [(name, "gfx942") for name in sorted(CDNA3)]
                         + [(name, "gfx950") for name in sorted(CDNA4)])
def test_isa_has_the_instruction_and_no_scratch(fly_env, instr, chip):
    isa, resources = isa_of(fly_env, instr, chip)
    ops = [line.split()[0] for line in isa.splitlines() if line.strip().startswith("v_mfma")]
    assert instr in ops, sorted(set(ops))
    assert resources["scratch_bytes"] == 0 and resources["vgpr_spills"] == 0, resources


# ---- errors ----------------------------------------------------------------------------

def trace_error(fly_env, chip, make_op):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)

    @flyc.jit
    def trace(A: fx.Tensor):
        fx.make_mma_atom(make_op())
        _nothing(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(FlyDSLError) as info:
        trace(np.zeros(4, np.float32))
    return str(info.value)


def test_mfma_on_rdna_names_the_chips(fly_env):
    message = trace_error(fly_env, "gfx1100", lambda: fx.rocdl.MFMA(16, 16, 16, fx.Float16))
    assert "MFMA(16, 16, 16, f16) is not available on gfx1100" in message
    assert "the chips that have it: gfx942, gfx950" in message
    assert "test_rocdl_mfma.py:" in message


def test_cdna4_mfma_on_gfx942_names_gfx950(fly_env):
    message = trace_error(fly_env, "gfx942", lambda: fx.rocdl.MFMA(32, 32, 16, fx.BFloat16))
    assert "MFMA(32, 32, 16, bf16) is not available on gfx942" in message
    assert "the chips that have it: gfx950" in message


@pytest.mark.parametrize("chip, ab, other", [("gfx950", fx.Float8E4M3FNUZ, "gfx942"),
                                             ("gfx942", fx.Float8E4M3FN, "gfx950")])
def test_fp8_of_the_other_encoding_names_its_chip(fly_env, chip, ab, other):
    message = trace_error(fly_env, chip, lambda: fx.rocdl.MFMA(16, 16, 32, ab))
    assert f"is not available on {chip}; the chips that have it: {other}" in message


@pytest.mark.parametrize("args, what", [
    ((16, 16, 8, fx.Float16), "m=16, n=16, k=8, elem_ty_ab=f16, elem_ty_acc=f32"),
    ((16, 16, 32, fx.Int8, fx.Float32), "elem_ty_ab=i8, elem_ty_acc=f32"),
    ((8, 8, 4, fx.Float32), "m=8, n=8, k=4"),
])
def test_shape_without_instruction_lists_the_ones_there_are(args, what):
    with pytest.raises(FlyDSLError) as info:
        fx.rocdl.MFMA(*args)
    message = str(info.value)
    assert "test_rocdl_mfma.py:" in message
    assert "fx.rocdl.MFMA(" in message and what in message
    assert "16x16x4 f32, 32x32x2 f32, 16x16x16 f16" in message  # CDNA3's
    assert "16x16x32 f16, 32x32x16 f16" in message and "32x32x32 i8" in message  # gfx950's


def test_default_accumulators():
    assert "-> i32>" in str(fx.rocdl.MFMA(16, 16, 32, fx.Int8))
    assert "-> f64>" in str(fx.rocdl.MFMA(16, 16, 4, fx.Float64))
    assert "-> f32>" in str(fx.rocdl.MFMA(32, 32, 8, fx.BFloat16))
    assert str(fx.rocdl.MFMA(16, 16, 32, fx.Float16)).startswith("!fly_rocdl.cdna4.mfma<")
    assert str(fx.rocdl.MFMA(16, 16, 16, fx.Float16)).startswith("!fly_rocdl.cdna3.mfma<")


# ---- the scaled MFMA of gfx950 --------------------------------------------------------
# Its type, lowering (lit: cdna4-mfma-scale*.mlir) and availability; its
# semantics on the emulator and an MX GEMM: test_rocdl_mma_scale.

def test_mfma_scale_types():
    from flydsl.expr.rocdl import cdna4
    assert cdna4.MFMAScale is cdna4.MFMA_Scale
    assert str(cdna4.MFMA_Scale(16, 16, 128, fx.Float8E4M3FN, opsel_a=1, opsel_b=2)) == \
        "!fly_rocdl.cdna4.mfma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opsel = (1, 2)>"
    assert str(cdna4.MFMA_Scale(32, 32, 64, fx.Float4E2M1FN, fx.Float6E2M3FN)) == \
        "!fly_rocdl.cdna4.mfma_scale<32x32x64, (f4E2M1FN, f6E2M3FN) -> f32, opsel = (0, 0)>"


@pytest.mark.parametrize("args, kwargs, message", [
    ((16, 16, 64, fx.Float8E4M3FN), {}, "no scaled MFMA is 16x16x64"),
    ((16, 16, 128, fx.Float8E4M3FNUZ), {}, "f6E3M2FN or f4E2M1FN, into f32"),
    ((32, 32, 64, fx.Float8E5M2), {"opsel_b": 4}, "(0..3), got 0 and 4"),
])
def test_mfma_scale_errors(args, kwargs, message):
    from flydsl.expr.rocdl import cdna4
    with pytest.raises(FlyDSLError) as info:
        cdna4.MFMA_Scale(*args, **kwargs)
    assert message in str(info.value) and "test_rocdl_mfma.py:" in str(info.value)


def test_mfma_scale_is_gfx950s(fly_env):
    from flydsl.expr.rocdl import cdna4
    message = trace_error(fly_env, "gfx942", lambda: cdna4.MFMA_Scale(16, 16, 128, fx.Float8E4M3FN))
    assert "MFMA_Scale(16, 16, 128, f8E4M3FN, f8E4M3FN) is not available on gfx942; " \
           "the chips that have it: gfx950" in message


def test_mfma_scale_fields(fly_env):
    """The atom's scale_a / scale_b fields take run-time Int32 values."""
    from flydsl.expr.rocdl import cdna4
    fly_env(COMPILE_ONLY="1", ARCH="gfx950", FLYDSL_RUNTIME_KIND=None)
    got = {}

    @flyc.jit
    def trace(A: fx.Tensor):
        atom = fx.make_mma_atom(cdna4.MFMA_Scale(32, 32, 64, fx.Float8E4M3FN))
        atom = atom.set_value("scale_a", fx.Int32(0x7F7F7F7F)).set_value("scale_b", fx.Int32(127))
        got["C"] = str(atom.layout_C_tv.type)
        _nothing(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    trace(np.zeros(4, np.float32))
    # C and D are laid out as every 32x32 MFMA's with an f32 accumulator.
    check = calculator_cells("v_mfma_f32_32x32x8_f16", "C")
    layout = _layout_of(got["C"])
    assert all(layout(lane, v) == r + 32 * c for (lane, v), (r, c) in check.items())
