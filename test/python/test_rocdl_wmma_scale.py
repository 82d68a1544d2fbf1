"""gfx1250's MX-scaled WMMA (fx.rocdl.cdna5.WMMAScale:
v_wmma_scale_f32_16x16x128_f8f6f4, v_wmma_scale_f32_32x16x128_f4 and their
v_wmma_scale16_ forms, E8M0 scales per 32 or 16 values of K) against a
reference written here from the OCP MX definitions of the formats (fp8
E4M3, bf8 E5M2, fp6 E2M3, bf6 E3M2, fp4 E2M1; E8M0 scales) and the ISA's
register layouts of the f8f6f4 operands:

- lane l holds row l % 16 of A (column of B), 64 values of K; lane half
  h = l // 16 takes every other run of K, runs of 16 values for an 8-bit
  format and of 32 for a 6- or 4-bit one (value e: k = 2 run (e // run) +
  run h + e % run), packed at the format's width from bit 0 of the lane's
  registers;
- the scales of row (column) i are in lane i (opsel 0) or 16 + i (opsel
  1): byte j of its scale word (i32 for block 32, i64 for block 16)
  scales K block j; the other lanes' words are ignored;
- C and D as gfx1250's dense WMMA: lane l, register v is row 8 (l // 16)
  + v, column l % 16;
- the 32x16x128 f4 form: A (32 x 128 fp4) is two 16-row operands as
  above, rows 16-31 in values 64-127 (registers 8-15); C and D two 16x16
  accumulators, rows 16-31 in registers 8-15; the scales of A's 32 rows
  fill the wave, row i in lane i (opsel_a 0); B's as above.

Checked: the atom's type as FlyDSL 0.4.2 prints it and its signature; its
thread-value layouts against those formulas; a ROCDL-level kernel per
format pair and block size on the emulator; an MX GEMM of torch float8
tensors through cdna5.WMMAScale; the gfx1250 code object's instruction;
the errors (bad parameters, other chips), each at the user's line.
"""

from __future__ import annotations

import inspect
import re
import subprocess
from pathlib import Path

import numpy as np
import pycute
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr._ir_types import MmaAtomType
from flydsl.expr.rocdl import cdna5
from flydsl.tracing.errors import TraceError

from conftest import _build_tool
from emu_run import i32_words, run_kernel
from test_flydsl_api_catalog import CDNA5_SIGNATURES, signature_problems

torch = pytest.importorskip("torch")

THIS_FILE = str(Path(__file__).resolve())

# format code (fmtA / fmtB) -> (name, bits, exponent bits, mantissa bits, bias, fx type)
FORMATS = {0: ("fp8", 8, 4, 3, 7, fx.Float8E4M3FN), 1: ("bf8", 8, 5, 2, 15, fx.Float8E5M2),
           2: ("fp6", 6, 2, 3, 1, fx.Float6E2M3FN), 3: ("bf6", 6, 3, 2, 3, fx.Float6E3M2FN),
           4: ("fp4", 4, 2, 1, 1, fx.Float4E2M1FN)}


# -- the reference ------------------------------------------------------------------------

def decode(codes, fmt):
    """The values of codes of an OCP MX element format: sign, biased
    exponent, mantissa with subnormals at exponent 0; E4M3's S.1111.111 is
    NaN, E5M2 has IEEE infinities and NaNs, the 6- and 4-bit ones neither."""
    name, bits, eb, mb, bias, _ = FORMATS[fmt]
    codes = np.asarray(codes, np.int64)
    sign = np.where((codes >> (bits - 1)) & 1, -1.0, 1.0)
    exp = (codes >> mb) & ((1 << eb) - 1)
    man = codes & ((1 << mb) - 1)
    value = np.where(exp == 0, man * 2.0 ** (1 - bias - mb), (man + (1 << mb)) * 2.0 ** (exp - bias - mb))
    if name == "fp8":
        value = np.where((exp == 15) & (man == 7), np.nan, value)
    if name == "bf8":
        value = np.where(exp == 31, np.where(man == 0, np.inf, np.nan), value)
    return sign * value


def e8m0(x):
    """An E8M0 scale's value: 2^(x - 127), NaN for 0xFF."""
    x = np.asarray(x, np.int64)
    return np.where(x == 0xFF, np.nan, 2.0 ** (x - 127))


def finite_codes(rng, shape, fmt):
    """Random codes of finite values."""
    bits = FORMATS[fmt][1]
    codes = rng.integers(0, 1 << bits, size=shape)
    while True:
        bad = ~np.isfinite(decode(codes, fmt))
        if not bad.any():
            return codes
        codes[bad] = rng.integers(0, 1 << bits, size=int(bad.sum()))


def run_length(fmt):
    return 16 if FORMATS[fmt][1] == 8 else 32


def lane_k(lane, e, fmt):
    """The K of value e of a lane (the ISA's f8f6f4 operand layout)."""
    run = run_length(fmt)
    return 2 * run * (e // run) + run * (lane // 16) + e % run


def pack_lane(codes, bits):
    """A lane's codes as the little-endian i32 words of its registers."""
    total = 0
    for j, c in enumerate(codes):
        total |= int(c) << (bits * j)
    return [(total >> (32 * w)) & 0xFFFFFFFF for w in range(len(codes) * bits // 32)]


def operand_words(codes, fmt):
    """The 32 lanes' registers of A (16 or 32 x 128 codes; B as its
    transpose): each 16 rows' 64 values a lane, rows 16-31 after 0-15."""
    words = []
    for lane in range(32):
        ks = [lane_k(lane, e, fmt) for e in range(64)]
        for half in range(len(codes) // 16):
            words += pack_lane(codes[16 * half + lane % 16, ks], FORMATS[fmt][1])
    return words


def acc_row(lane, v):
    """The row of C's (D's) register v of a lane; its column is lane % 16.
    Registers 8-15 (the 32x16 form) hold rows 16-31."""
    return 16 * (v // 8) + 8 * (lane // 16) + v % 8


def scale_words(rng, exps, opsel, block):
    """The 32 lanes' scale words: lane 16 opsel + i holds row i's E8M0
    bytes (exps[i, j] in byte j), or lane i for 32 rows; the other lanes
    random, to be ignored."""
    nbytes = 128 // block
    words = [int(w) for w in rng.integers(0, 1 << 32, 32, dtype=np.uint64)]
    if nbytes == 8:
        words = [w | int(x) << 32 for w, x in zip(words, rng.integers(0, 1 << 32, 32, dtype=np.uint64))]
    first = 0 if len(exps) == 32 else 16 * opsel
    for i in range(len(exps)):
        words[first + i] = sum(int(exps[i, j]) << (8 * j) for j in range(nbytes))
    return words


def mx_reference(A, B, C, fa, fb, ea, eb, block):
    """D = (A scaled) @ (B scaled).T + C in float64, and a bound on the
    error of a result rounded once to f32 (the emulator sums exactly), plus
    float64's own rounding here."""
    a = decode(A, fa) * np.repeat(e8m0(ea), block, axis=1)
    b = decode(B, fb) * np.repeat(e8m0(eb), block, axis=1)
    want = a @ b.T + C
    bound = 2.0 ** -23 * np.abs(want) + 2.0 ** -44 * (np.abs(a) @ np.abs(b).T + np.abs(C)) + 2.0 ** -140
    return want, bound


# -- the type and its Python signature ----------------------------------------------------

def test_the_type_is_printed_as_flydsl_prints_it():
    assert str(cdna5.WMMAScale(16, 16, 128, fx.Float8E4M3FN)) == (
        "!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f8E4M3FN) -> f32, opselA = 0, "
        "opselB = 0, modC = 0, reuseA = false, reuseB = false, blockSize = 32>")
    assert str(cdna5.WMMAScale(16, 16, 128, fx.Float8E4M3FN, fx.Float4E2M1FN, opsel_a=1,
                               reuse_a=True, block_size=16)) == (
        "!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f8E4M3FN, f4E2M1FN) -> f32, opselA = 1, "
        "opselB = 0, modC = 0, reuseA = true, reuseB = false, blockSize = 16>")
    assert str(cdna5.WMMAScale(16, 16, 128, fx.Float6E3M2FN, fx.Float8E5M2, fx.Float32,
                               opsel_b=1, mod_c=3, reuse_b=True)) == (
        "!fly_rocdl.gfx1250.wmma_scale<16x16x128, (f6E3M2FN, f8E5M2) -> f32, opselA = 0, "
        "opselB = 1, modC = 3, reuseA = false, reuseB = true, blockSize = 32>")
    # FlyDSL's fx.rocdl star-imports cdna5.
    assert fx.rocdl.WMMAScale is cdna5.WMMAScale
    assert "WMMAScale" in cdna5.__all__


def test_the_signature_is_flydsls():
    # FlyDSL 0.4.2's parameters (the catalog's data; test_flydsl_api_catalog
    # checks them too), by its rule.
    ours = list(inspect.signature(cdna5.WMMAScale).parameters.values())
    assert signature_problems(CDNA5_SIGNATURES["flydsl.expr.rocdl.cdna5.WMMAScale"], ours) == []
    assert str(inspect.signature(cdna5.WMMAScale)) == (
        "(m, n, k, elem_ty_a, elem_ty_b=None, elem_ty_acc=None, *, opsel_a=0, opsel_b=0, "
        "mod_c=0, reuse_a=False, reuse_b=False, block_size=32)")


@pytest.mark.parametrize("args, kwargs, message", [
    ((16, 16, 64, fx.Float8E4M3FN), {}, "no scaled WMMA is 16x16x64"),
    ((32, 16, 128, fx.Float8E4M3FN), {}, "no scaled WMMA is 32x16x128 (f8E4M3FN, f8E4M3FN)"),
    ((32, 16, 128, fx.Float4E2M1FN, fx.Float8E4M3FN), {}, "and 32x16x128, A and B f4E2M1FN, into f32"),
    ((32, 32, 128, fx.Float4E2M1FN), {}, "no scaled WMMA is 32x32x128"),
    ((32, 16, 128, fx.Float4E2M1FN), {"opsel_a": 1}, "fill the wave (row i in lane i), so opsel_a is 0, not 1"),
    ((16, 16, 128, fx.Float8E4M3FNUZ), {}, "f6E3M2FN or f4E2M1FN, and 32x16x128"),
    ((16, 16, 128, fx.Float16), {}, "no scaled WMMA is 16x16x128 (f16, f16) -> f32"),
    ((16, 16, 128, fx.Float8E4M3FN, None, fx.Float16), {}, "-> f16; the ones there are"),
    ((16, 16, 128, fx.Float4E2M1FN), {"block_size": 64}, "32 or 16, not 64"),
    ((16, 16, 128, fx.Float8E5M2), {"opsel_b": 2}, "(0: lanes 0-15, 1: lanes 16-31), got 0 and 2"),
    ((16, 16, 128, fx.Float8E5M2), {"mod_c": -1}, "16-bit C modifier (0..65535), got -1"),
])
def test_bad_parameters_are_located_errors(args, kwargs, message):
    with pytest.raises(TraceError) as info:
        cdna5.WMMAScale(*args, **kwargs)
    text = str(info.value)
    assert message in text.replace("'", ""), text
    assert info.value.filename == THIS_FILE, info.value.filename


# -- thread-value layouts -----------------------------------------------------------------

def _pycute(type_handle):
    text = str(type_handle)
    shape, stride = re.fullmatch(r"!fly\.layout<(.*)>", text).group(1).split(":")
    return pycute.Layout(eval(shape), eval(stride))  # noqa: S307 - tuples of ints


@pytest.mark.parametrize("fa, fb", [(0, 0), (1, 4), (4, 2), (3, 1), (2, 3)])
@pytest.mark.parametrize("block", [32, 16])
def test_thread_value_layouts_are_the_isas(fa, fb, block):
    op = cdna5.WMMAScale(16, 16, 128, FORMATS[fa][5], FORMATS[fb][5], block_size=block)
    atom = MmaAtomType.get(op)
    assert str(atom.thr_layout) == "!fly.layout<32:1>"
    assert str(atom.shape_mnk) == "!fly.int_tuple<(16,16,128)>"
    la, lb, lc = (_pycute(t) for t in (atom.tv_layout_a, atom.tv_layout_b, atom.tv_layout_c))
    for layout, fmt in ((la, fa), (lb, fb)):
        # (lane, value) -> row + 16 k, every element of the 16 x 128 tile once.
        got = [layout(lane, e) for lane in range(32) for e in range(64)]
        want = [lane % 16 + 16 * lane_k(lane, e, fmt) for lane in range(32) for e in range(64)]
        assert got == want
        assert sorted(got) == list(range(16 * 128))
    got = [lc(lane, v) for lane in range(32) for v in range(8)]
    assert got == [8 * (lane // 16) + v + 16 * (lane % 16) for lane in range(32) for v in range(8)]


# -- the instruction on the emulator ------------------------------------------------------

def kernel_text(fa, fb, opsel_a, opsel_b, block, m=16):
    """One scaled WMMA on registers loaded from buffers: 16x16x128 of
    formats fa, fb, or (m 32) 32x16x128 f4."""
    na, nb = m * 4 * FORMATS[fa][1] // 32, 64 * FORMATS[fb][1] // 32
    ta, tb, tc = f"vector<{na}xi32>", f"vector<{nb}xi32>", f"vector<{m // 2}xf32>"
    ts = "i64" if block == 16 else "i32"
    op = "scale16" if block == 16 else "scale"
    if m == 32:
        op, formats = f"{op}.f32.32x16x128.f4", ""
    else:
        op, formats = f"{op}.f32.16x16x128.f8f6f4", f"fmtA = {fa} : i32, fmtB = {fb} : i32, "
    return f"""module attributes {{gpu.container_module}} {{
gpu.module @scaled [#rocdl.target<chip = "gfx1250">] {{
  llvm.func @scaled(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %sa: !llvm.ptr<1>,
                    %sb: !llvm.ptr<1>, %d: !llvm.ptr<1>) attributes {{rocdl.kernel}} {{
    %tid = rocdl.workitem.id.x : i32
    %na = llvm.mlir.constant({na} : i32) : i32
    %nb = llvm.mlir.constant({nb} : i32) : i32
    %ia = llvm.mul %tid, %na : i32
    %ib = llvm.mul %tid, %nb : i32
    %pa = llvm.getelementptr %a[%ia] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %pb = llvm.getelementptr %b[%ib] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %pc = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {tc}
    %pd = llvm.getelementptr %d[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {tc}
    %psa = llvm.getelementptr %sa[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {ts}
    %psb = llvm.getelementptr %sb[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {ts}
    %va = llvm.load %pa {{alignment = 4 : i64}} : !llvm.ptr<1> -> {ta}
    %vb = llvm.load %pb {{alignment = 4 : i64}} : !llvm.ptr<1> -> {tb}
    %vc = llvm.load %pc {{alignment = 4 : i64}} : !llvm.ptr<1> -> {tc}
    %xa = llvm.load %psa : !llvm.ptr<1> -> {ts}
    %xb = llvm.load %psb : !llvm.ptr<1> -> {ts}
    %vd = rocdl.wmma.{op} %va, %vb, %vc, %xa, %xb {{{formats}scaleAType = {opsel_a} : i32, scaleBType = {opsel_b} : i32}} : ({ta}, {tb}, {tc}, {ts}, {ts}) -> {tc}
    llvm.store %vd, %pd {{alignment = 4 : i64}} : {tc}, !llvm.ptr<1>
    llvm.return
  }}
}}
}}
"""


def run_scaled(emu_run, tmp_path, fa, fb, A, B, C, words_a, words_b, opsel_a, opsel_b, block):
    """D of the instruction for the codes A (16 or 32 x 128: the 32x16x128
    f4 form), B (16 x 128, B^T), C and the lanes' scale words."""
    m = len(A)
    regs = m // 2  # C's registers a lane
    c_words = [0] * (32 * regs)
    for lane in range(32):
        for v in range(regs):
            c_words[regs * lane + v] = int(np.float32(C[acc_row(lane, v), lane % 16]).view(np.uint32))
    path = tmp_path / "kernel.mlir"
    path.write_text(kernel_text(fa, fb, opsel_a, opsel_b, block, m))
    a_words, b_words = operand_words(A, fa), operand_words(B, fb)
    if block == 16:  # 64-bit words as their i32 halves (the tool reads numbers as doubles)
        words_a, words_b = ([h for w in ws for h in (w & 0xFFFFFFFF, w >> 32)]
                            for ws in (words_a, words_b))
    args = [f"buf:i32:{len(w)}:{i32_words(w)}" for w in (a_words, b_words, c_words, words_a, words_b)]
    args += [f"buf:i32:{32 * regs}:fill=0"]
    out = run_kernel(emu_run, path, "scaled", "gfx1250", 32, args)
    d_words = [int(x) & 0xFFFFFFFF for x in out[5]]
    D = np.zeros((m, 16))
    for lane in range(32):
        for v in range(regs):
            D[acc_row(lane, v), lane % 16] = np.uint32(d_words[regs * lane + v]).view(np.float32)
    return D


PAIRS = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (0, 1), (1, 0), (0, 4), (4, 0), (2, 3),
         (3, 4), (1, 2), (4, 3)]


@pytest.mark.parametrize("block", [32, 16])
@pytest.mark.parametrize("fa, fb", PAIRS, ids=[f"{FORMATS[a][0]}-{FORMATS[b][0]}" for a, b in PAIRS])
def test_scaled_wmma_on_the_emulator(emu_run, tmp_path, fa, fb, block):
    rng = np.random.default_rng(100 * fa + 10 * fb + block)
    A = finite_codes(rng, (16, 128), fa)           # A[i][k]
    B = finite_codes(rng, (16, 128), fb)           # B^T: B[j][k]
    C = rng.standard_normal((16, 16)).astype(np.float32)
    opsel_a, opsel_b = int(rng.integers(2)), int(rng.integers(2))
    # E8M0 scales per row (column) and block of K, in 2^-8 .. 2^8.
    ea = rng.integers(119, 136, (16, 128 // block))
    eb = rng.integers(119, 136, (16, 128 // block))
    D = run_scaled(emu_run, tmp_path, fa, fb, A, B, C, scale_words(rng, ea, opsel_a, block),
                   scale_words(rng, eb, opsel_b, block), opsel_a, opsel_b, block)
    want, bound = mx_reference(A, B, C, fa, fb, ea, eb, block)
    assert np.all(np.abs(D - want) <= bound), np.max(np.abs(D - want) / bound)


def test_each_block_of_k_takes_its_own_scale(emu_run, tmp_path):
    """One value of A in each K block times one of B: D[0][0] is the sum
    of the products, each times its block's two scales (block 16)."""
    A, B = np.zeros((16, 128), np.int64), np.zeros((16, 128), np.int64)
    A[0, ::16] = 0x38  # fp8 1.0
    B[0, ::16] = 0x38
    ea = np.full((16, 8), 127)
    eb = np.full((16, 8), 127)
    ea[0] = np.arange(120, 128)
    eb[0] = np.arange(127, 135)
    rng = np.random.default_rng(3)
    D = run_scaled(emu_run, tmp_path, 0, 0, A, B, np.zeros((16, 16), np.float32),
                   scale_words(rng, ea, 1, 16), scale_words(rng, eb, 0, 16), 1, 0, 16)
    assert D[0, 0] == sum(2.0 ** (int(x) + int(y) - 254) for x, y in zip(ea[0], eb[0]))
    assert np.count_nonzero(D) == 1


def test_an_e8m0_nan_scale_makes_its_row_nan(emu_run, tmp_path):
    """Scale byte 0xFF is E8M0's NaN: row 5 of A's block 2 is NaN, so row
    5 of D is; the others are finite."""
    rng = np.random.default_rng(1)
    A, B = finite_codes(rng, (16, 128), 0), finite_codes(rng, (16, 128), 0)
    ea = np.full((16, 4), 127)
    ea[5, 2] = 0xFF
    eb = np.full((16, 4), 127)
    D = run_scaled(emu_run, tmp_path, 0, 0, A, B, np.zeros((16, 16), np.float32),
                   scale_words(rng, ea, 0, 32), scale_words(rng, eb, 0, 32), 0, 0, 32)
    assert np.isnan(D[5]).all()
    assert np.isfinite(np.delete(D, 5, axis=0)).all()


# -- end to end: an MX GEMM through cdna5.WMMAScale ---------------------------------------

def mx_gemm(ta, tb, block, opsel_a, opsel_b):
    """C = (A * SA) @ (B * SB).T for one 16x16x128 atom: A, B (16 x 128)
    float8 tensors, the lanes' scale words SA, SB (32 of them, Int32 for
    block 32, Int64 for block 16), read from the lanes opsel names."""
    scale_type = fx.Int64 if block == 16 else fx.Int32
    scale_copy = fx.UniversalCopy64b() if block == 16 else fx.UniversalCopy32b()

    @flyc.kernel
    def mx_kernel(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        A = fx.slice(fx.zipped_divide(A, (16, 128)), ((None, None), 0))
        B = fx.slice(fx.zipped_divide(B, (16, 128)), ((None, None), 0))
        C = fx.slice(fx.zipped_divide(C, (16, 16)), ((None, None), 0))
        copy_s = fx.make_copy_atom(scale_copy, scale_type)
        sa, sb = (fx.slice(fx.zipped_divide(t, (1,)), (None, tid)) for t in (SA, SB))
        rsa, rsb = fx.make_fragment_like(sa), fx.make_fragment_like(sb)
        fx.copy(copy_s, sa, rsa)
        fx.copy(copy_s, sb, rsb)
        atom = fx.make_mma_atom(cdna5.WMMAScale(16, 16, 128, ta, tb, opsel_a=opsel_a,
                                                opsel_b=opsel_b, block_size=block))
        tiled = fx.make_tiled_mma(atom, fx.make_layout((1, 1, 1), (0, 0, 0)))
        thr = tiled.thr_slice(tid)
        copy_ab = fx.make_copy_atom(fx.UniversalCopy128b(), 8)
        copy_c = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        tA = fx.make_tiled_copy_A(copy_ab, tiled).get_slice(tid)
        tB = fx.make_tiled_copy_B(copy_ab, tiled).get_slice(tid)
        tC = fx.make_tiled_copy_C(copy_c, tiled).get_slice(tid)
        fA, fB, fC = thr.make_fragment_A(A), thr.make_fragment_B(B), thr.make_fragment_C(C)
        fx.copy(copy_ab, tA.partition_S(A), tA.retile(fA), pred=None)
        fx.copy(copy_ab, tB.partition_S(B), tB.retile(fB), pred=None)
        fC.fill(0)
        # The scales as FlyDSL's kernels pass them: gemm's keywords set the
        # atom's fields.
        fx.gemm(atom, fC, fA, fB, fC, scale_a=rsa[0], scale_b=rsb[0])
        fx.copy(copy_c, tC.retile(fC), tC.partition_S(C), pred=None)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        mx_kernel(A, B, SA, SB, C).launch(grid=(1, 1, 1), block=(32, 1, 1))

    return run


def _lane_words(exps, opsel, block, gen):
    """The 32 lanes' scale words for per-(row, block) E8M0 exponents:
    lane 16 opsel + i holds row i's; the other lanes random."""
    nbytes = 128 // block
    dtype = torch.int64 if nbytes == 8 else torch.int32
    words = torch.randint(-2 ** 31, 2 ** 31 - 1, (32,), generator=gen, dtype=torch.int64)
    packed = torch.zeros(16, dtype=torch.int64)
    for j in range(nbytes):
        packed |= exps[:, j].to(torch.int64) << (8 * j)
    words[16 * opsel:16 * opsel + 16] = packed
    if dtype == torch.int32:
        words = ((words + 2 ** 31) % 2 ** 32 - 2 ** 31).to(torch.int32)
    return words


@pytest.mark.parametrize("ta, tb, block, opsel_a, opsel_b", [
    ("fp8", "fp8", 32, 0, 0), ("bf8", "fp8", 32, 1, 0), ("fp8", "bf8", 16, 0, 1),
    ("bf8", "bf8", 16, 1, 1)])
def test_mx_gemm_of_float8_tensors(fly_env, ta, tb, block, opsel_a, opsel_b):
    fly_env(ARCH="gfx1250", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    types = {"fp8": (fx.Float8E4M3FN, torch.float8_e4m3fn), "bf8": (fx.Float8E5M2, torch.float8_e5m2)}
    gen = torch.Generator().manual_seed(block + 2 * opsel_a + opsel_b)
    A = (torch.randn(16, 128, generator=gen) * 3).to(types[ta][1])
    B = (torch.randn(16, 128, generator=gen) * 3).to(types[tb][1])
    ea = torch.randint(120, 134, (16, 128 // block), generator=gen)
    eb = torch.randint(120, 134, (16, 128 // block), generator=gen)
    SA, SB = _lane_words(ea, opsel_a, block, gen), _lane_words(eb, opsel_b, block, gen)
    C = torch.zeros(16, 16)
    mx_gemm(types[ta][0], types[tb][0], block, opsel_a, opsel_b)(A, B, SA, SB, C)
    sa = torch.exp2(ea.double() - 127).repeat_interleave(block, dim=1)
    sb = torch.exp2(eb.double() - 127).repeat_interleave(block, dim=1)
    a, b = A.double() * sa, B.double() * sb
    want = a @ b.T
    bound = 2.0 ** -23 * want.abs() + 2.0 ** -44 * (a.abs() @ b.abs().T) + 1e-30
    assert torch.all((C.double() - want).abs() <= bound)
    assert torch.count_nonzero(C) > C.numel() // 2


# -- the code object and the chips --------------------------------------------------------

@pytest.mark.parametrize("block, instruction", [(32, "v_wmma_scale_f32_16x16x128_f8f6f4"),
                                                (16, "v_wmma_scale16_f32_16x16x128_f8f6f4")])
def test_isa_has_the_instruction_and_no_scratch(fly_env, block, instruction):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)
    A = torch.zeros(16, 128, dtype=torch.float8_e4m3fn)
    B = torch.zeros(16, 128, dtype=torch.float8_e5m2)
    S = torch.zeros(32, dtype=torch.int64 if block == 16 else torch.int32)
    compiled = flyc.compile(mx_gemm(fx.Float8E4M3FN, fx.Float8E5M2, block, 1, 0), A, B, S, S,
                            torch.zeros(16, 16))
    isa = compiled.isa()
    assert re.search(rf"^\s+{instruction} v\[\d+:\d+\], v\[\d+:\d+\], v\[\d+:\d+\], ", isa, re.M), isa
    assert "matrix_b_fmt:MATRIX_FMT_BF8" in isa
    assert "matrix_a_scale:MATRIX_SCALE_ROW1" in isa
    (resources,) = compiled.resources.values()
    assert resources["scratch_bytes"] == 0 and resources["vgpr_spills"] == 0, resources
    assert not re.search(r"^\s+scratch_", isa, re.M)


@pytest.fixture(scope="module")
def fly_compile() -> str:
    return _build_tool("fly-compile", "FLY_COMPILE")


ISA_FMT = {0: "FP8", 1: "BF8", 2: "FP6", 3: "BF6", 4: "FP4"}


def register_count(reg):
    """The registers of an ISA operand v[lo:hi] (with its comma)."""
    lo, hi = re.fullmatch(r"v\[(\d+):(\d+)\],?", reg).groups()
    return int(hi) - int(lo) + 1


def the_one_instruction(fly_compile, tmp_path, text, name):
    """The operand words (name, D, A, B, C, scale A, scale B, modifiers) of
    the one `name` instruction fly-compile makes of the ROCDL kernel
    `text` for gfx1250, whose code uses no scratch. (The kernel text
    carries its own #rocdl.target, so the tool compiles it for that and
    for its own: the ISA is printed twice, one instruction either way.)"""
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    proc = subprocess.run([fly_compile, str(path), "--chip=gfx1250", "--from=binary_prep", "--isa"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"^\s+scratch_", proc.stdout, re.M)
    lines = {line.split("//")[0].strip() for line in proc.stdout.splitlines() if name in line}
    assert len(lines) == 1, proc.stdout
    return lines.pop().split()


@pytest.mark.parametrize("block", [32, 16])
@pytest.mark.parametrize("fa", range(5))
@pytest.mark.parametrize("fb", range(5))
def test_every_format_pair_compiles_to_the_instruction(fly_compile, tmp_path, fa, fb, block):
    """The ROCDL kernel of the emulator tests, compiled for gfx1250: one
    v_wmma_scale(16) with A and B in 16, 12 or 8 registers as their formats
    take, the formats and scale selectors as its modifiers, no scratch."""
    name = "v_wmma_scale16_f32_16x16x128_f8f6f4" if block == 16 else "v_wmma_scale_f32_16x16x128_f8f6f4"
    words = the_one_instruction(fly_compile, tmp_path, kernel_text(fa, fb, 1, 0, block), name)
    assert [register_count(r) for r in words[1:4]] == [8, 64 * FORMATS[fa][1] // 32, 64 * FORMATS[fb][1] // 32]
    modifiers = set(words[7:])
    want = {"matrix_a_scale:MATRIX_SCALE_ROW1"}
    want |= {f"matrix_a_fmt:MATRIX_FMT_{ISA_FMT[fa]}"} if fa else set()
    want |= {f"matrix_b_fmt:MATRIX_FMT_{ISA_FMT[fb]}"} if fb else set()
    assert modifiers == want, words


_SOURCE = Path(__file__).read_text().splitlines()


@pytest.mark.parametrize("chip", ["gfx950", "gfx1201"])
def test_wmma_scale_on_another_chip_is_a_located_error(fly_env, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        fx.make_mma_atom(cdna5.WMMAScale(16, 16, 128, fx.Float8E4M3FN, fx.Float4E2M1FN))

    @flyc.jit
    def run(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(32, 1, 1))

    with pytest.raises(TraceError) as info:
        flyc.compile(run, np.zeros(64, np.float32))
    error = info.value
    assert (f"WMMAScale(16, 16, 128, f8E4M3FN, f4E2M1FN, block_size=32) is not available on "
            f"{chip}; the chips that have it: gfx1250") in str(error)
    assert error.filename == THIS_FILE
    assert "make_mma_atom(cdna5.WMMAScale" in _SOURCE[error.lineno - 1]


# -- the 32x16x128 f4 form ----------------------------------------------------------------

def test_the_f4_type_is_printed_as_flydsl_prints_it():
    assert str(cdna5.WMMAScale(32, 16, 128, fx.Float4E2M1FN, opsel_b=1, block_size=16)) == (
        "!fly_rocdl.gfx1250.wmma_scale<32x16x128, (f4E2M1FN, f4E2M1FN) -> f32, opselA = 0, "
        "opselB = 1, modC = 0, reuseA = false, reuseB = false, blockSize = 16>")


@pytest.mark.parametrize("block", [32, 16])
def test_f4_thread_value_layouts_are_the_isas(block):
    atom = MmaAtomType.get(cdna5.WMMAScale(32, 16, 128, fx.Float4E2M1FN, block_size=block))
    assert str(atom.thr_layout) == "!fly.layout<32:1>"
    assert str(atom.shape_mnk) == "!fly.int_tuple<(32,16,128)>"
    la, lb, lc = (_pycute(t) for t in (atom.tv_layout_a, atom.tv_layout_b, atom.tv_layout_c))
    # A: (lane, value) -> row + 32 k; values 64-127 are rows 16-31.
    got = [la(lane, e) for lane in range(32) for e in range(128)]
    want = [lane % 16 + 16 * (e // 64) + 32 * lane_k(lane, e % 64, 4)
            for lane in range(32) for e in range(128)]
    assert got == want
    assert sorted(got) == list(range(32 * 128))
    # B: as the 16x16x128 form's fp4 operand (column + 16 k).
    got = [lb(lane, e) for lane in range(32) for e in range(64)]
    assert got == [lane % 16 + 16 * lane_k(lane, e, 4) for lane in range(32) for e in range(64)]
    # C: (lane, register) -> row + 32 column.
    got = [lc(lane, v) for lane in range(32) for v in range(16)]
    assert got == [acc_row(lane, v) + 32 * (lane % 16) for lane in range(32) for v in range(16)]
    assert sorted(got) == list(range(32 * 16))


F4_CASES = [(block, opsel_b, seed) for block in (32, 16) for opsel_b in (0, 1) for seed in (0, 1)]


@pytest.mark.parametrize("block, opsel_b, seed", F4_CASES)
def test_f4_scaled_wmma_on_the_emulator(emu_run, tmp_path, block, opsel_b, seed):
    """Random fp4 codes (every one of the 16 is finite) and scale patterns:
    per (row, block) exponents over 2^-10 .. 2^10, with a different range
    per seed."""
    rng = np.random.default_rng(1000 + 100 * seed + 10 * opsel_b + block)
    A = rng.integers(0, 16, (32, 128))   # A[i][k]
    B = rng.integers(0, 16, (16, 128))   # B^T: B[j][k]
    C = rng.standard_normal((32, 16)).astype(np.float32)
    lo, hi = (117, 138) if seed == 0 else (124, 131)
    ea = rng.integers(lo, hi, (32, 128 // block))
    eb = rng.integers(lo, hi, (16, 128 // block))
    D = run_scaled(emu_run, tmp_path, 4, 4, A, B, C, scale_words(rng, ea, 0, block),
                   scale_words(rng, eb, opsel_b, block), 0, opsel_b, block)
    want, bound = mx_reference(A, B, C, 4, 4, ea, eb, block)
    assert np.all(np.abs(D - want) <= bound), np.max(np.abs(D - want) / bound)


@pytest.mark.parametrize("opsel_b", [0, 1])
def test_each_row_of_the_f4_a_takes_its_lanes_scale(emu_run, tmp_path, opsel_b):
    """A and B all fp4 1.0 (code 2): D[i][j] = sum over the blocks of
    scale A[i][blk] * scale B[j][blk] * 32, each row of A 32 with its own
    scales from lane i (rows 16-31 too), each column of B from lane 16
    opsel_b + j."""
    A, B = np.full((32, 128), 2), np.full((16, 128), 2)
    rng = np.random.default_rng(5)
    ea = 127 - np.arange(32)[:, None] // 4 + np.arange(4)[None, :]   # distinct per row
    eb = 120 + np.arange(16)[:, None] % 8 + np.zeros((1, 4), np.int64)
    D = run_scaled(emu_run, tmp_path, 4, 4, A, B, np.zeros((32, 16), np.float32),
                   scale_words(rng, ea, 0, 32), scale_words(rng, eb, opsel_b, 32), 0, opsel_b, 32)
    want = np.array([[sum(32 * 2.0 ** (int(ea[i, j]) + int(eb[n, j]) - 254) for j in range(4))
                      for n in range(16)] for i in range(32)])
    np.testing.assert_array_equal(D, want)


def f4_tile_kernel_text(steps, opsel_b, block):
    """A 32x16 GEMM tile over K = 128 steps: `steps` chained 32x16x128 f4
    WMMAs, D of one the C of the next; step j's registers (A, B, scale
    words) at lane-major offsets 32 j + lane of their buffers."""
    ts = "i64" if block == 16 else "i32"
    op = "scale16" if block == 16 else "scale"
    body = []
    acc = "%vc"
    for j in range(steps):
        body.append(f"""    %i{j} = llvm.add %tid, %o{j} : i32
    %pa{j} = llvm.getelementptr %a[%i{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<16xi32>
    %pb{j} = llvm.getelementptr %b[%i{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<8xi32>
    %psa{j} = llvm.getelementptr %sa[%i{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {ts}
    %psb{j} = llvm.getelementptr %sb[%i{j}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {ts}
    %va{j} = llvm.load %pa{j} {{alignment = 4 : i64}} : !llvm.ptr<1> -> vector<16xi32>
    %vb{j} = llvm.load %pb{j} {{alignment = 4 : i64}} : !llvm.ptr<1> -> vector<8xi32>
    %xa{j} = llvm.load %psa{j} : !llvm.ptr<1> -> {ts}
    %xb{j} = llvm.load %psb{j} : !llvm.ptr<1> -> {ts}
    %vd{j} = rocdl.wmma.{op}.f32.32x16x128.f4 %va{j}, %vb{j}, {acc}, %xa{j}, %xb{j} {{scaleBType = {opsel_b} : i32}} : (vector<16xi32>, vector<8xi32>, vector<16xf32>, {ts}, {ts}) -> vector<16xf32>""")
        acc = f"%vd{j}"
    offsets = "\n".join(f"    %o{j} = llvm.mlir.constant({32 * j} : i32) : i32" for j in range(steps))
    body = "\n".join(body)
    return f"""module attributes {{gpu.container_module}} {{
gpu.module @tile [#rocdl.target<chip = "gfx1250">] {{
  llvm.func @tile(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %sa: !llvm.ptr<1>,
                  %sb: !llvm.ptr<1>, %d: !llvm.ptr<1>) attributes {{rocdl.kernel}} {{
    %tid = rocdl.workitem.id.x : i32
{offsets}
    %pc = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<16xf32>
    %vc = llvm.load %pc {{alignment = 4 : i64}} : !llvm.ptr<1> -> vector<16xf32>
{body}
    %pd = llvm.getelementptr %d[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<16xf32>
    llvm.store {acc}, %pd {{alignment = 4 : i64}} : vector<16xf32>, !llvm.ptr<1>
    llvm.return
  }}
}}
}}
"""


@pytest.mark.parametrize("block, opsel_b", [(32, 0), (32, 1), (16, 0), (16, 1)])
def test_an_f4_gemm_tile_matches_torch(emu_run, tmp_path, block, opsel_b):
    """C (32 x 16) + (A * SA) @ (B * SB).T over K = 512 as four chained
    32x16x128 f4 WMMAs on the emulator, against torch in float64 from
    E2M1's and E8M0's values (each step's registers and scale words laid
    out by the ISA's layouts above)."""
    steps, K = 4, 512
    gen = torch.Generator().manual_seed(block + opsel_b)
    codes_a = torch.randint(0, 16, (32, K), generator=gen)
    codes_b = torch.randint(0, 16, (16, K), generator=gen)
    ea = torch.randint(118, 136, (32, K // block), generator=gen)
    eb = torch.randint(118, 136, (16, K // block), generator=gen)
    C = torch.randn(32, 16, generator=gen)
    rng = np.random.default_rng(block + opsel_b)
    per = 128 // block  # scale bytes a step
    words = [[], [], [], []]  # A, B, scale A, scale B
    for j in range(steps):
        ks = slice(128 * j, 128 * (j + 1))
        words[0] += operand_words(codes_a[:, ks].numpy(), 4)
        words[1] += operand_words(codes_b[:, ks].numpy(), 4)
        words[2] += scale_words(rng, ea[:, per * j:per * (j + 1)].numpy(), 0, block)
        words[3] += scale_words(rng, eb[:, per * j:per * (j + 1)].numpy(), opsel_b, block)
    if block == 16:  # 64-bit words as their i32 halves
        words[2:] = [[h for w in ws for h in (w & 0xFFFFFFFF, w >> 32)] for ws in words[2:]]
    c_words = [int(np.float32(C[acc_row(lane, v), lane % 16]).view(np.uint32))
               for lane in range(32) for v in range(16)]
    path = tmp_path / "tile.mlir"
    path.write_text(f4_tile_kernel_text(steps, opsel_b, block))
    args = [f"buf:i32:{len(w)}:{i32_words(w)}" for w in (words[0], words[1], c_words, words[2], words[3])]
    out = run_kernel(emu_run, path, "tile", "gfx1250", 32, args + ["buf:i32:512:fill=0"])
    d_words = [int(x) & 0xFFFFFFFF for x in out[5]]
    D = torch.zeros(32, 16, dtype=torch.float64)
    for lane in range(32):
        for v in range(16):
            D[acc_row(lane, v), lane % 16] = float(np.uint32(d_words[16 * lane + v]).view(np.float32))
    # E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit; 0.5 at exponent 0.
    e2m1 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=torch.float64)
    e2m1 = torch.cat([e2m1, -e2m1])
    sa = torch.exp2(ea.double() - 127).repeat_interleave(block, dim=1)
    sb = torch.exp2(eb.double() - 127).repeat_interleave(block, dim=1)
    a, b = e2m1[codes_a] * sa, e2m1[codes_b] * sb
    want = C.double()
    bound = torch.zeros_like(want)
    for j in range(steps):  # each step's D rounded to f32 once
        ks = slice(128 * j, 128 * (j + 1))
        want = want + a[:, ks] @ b[:, ks].T
        bound += 2.0 ** -23 * want.abs() + 2.0 ** -44 * (a[:, ks].abs() @ b[:, ks].abs().T)
    assert torch.all((D - want).abs() <= bound + 1e-30), ((D - want).abs() / bound).max()
    assert torch.count_nonzero(D) == D.numel()


@pytest.mark.parametrize("block", [32, 16])
@pytest.mark.parametrize("opsel_b", [0, 1])
def test_the_f4_rocdl_kernel_compiles_to_the_instruction(fly_compile, tmp_path, block, opsel_b):
    """The emulator tests' ROCDL kernel for gfx1250: one v_wmma_scale(16)
    32x16x128 f4, A and C in 16 registers, B in 8, the scale selector of B
    as its modifier, no scratch."""
    name = "v_wmma_scale16_f32_32x16x128_f4" if block == 16 else "v_wmma_scale_f32_32x16x128_f4"
    words = the_one_instruction(fly_compile, tmp_path, kernel_text(4, 4, 0, opsel_b, block, m=32), name)
    assert [register_count(r) for r in words[1:5]] == [16, 16, 8, 16]
    assert set(words[7:]) == ({"matrix_b_scale:MATRIX_SCALE_ROW1"} if opsel_b else set()), words
