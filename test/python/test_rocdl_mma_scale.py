"""gfx950's scaled MFMA (v_mfma_scale_f32_16x16x128_f8f6f4 and
_32x32x64_) on the emulator, against a reference written here from the OCP
MX definitions of the formats (fp8 E4M3, bf8 E5M2, fp6 E2M3, bf6 E3M2,
fp4 E2M1; E8M0 scales).

- At the ROCDL level (a kernel run by fly-emu-run): every format for A and
  B, random codes, a random E8M0 scale word per lane with opsel picking
  its byte. Each lane holds 32 consecutive values of K of one row of A
  (column of B): lane l has row l % M, k = 32 (l // M) + j, packed at the
  format's width from bit 0 of its registers; its scale multiplies those
  32 values. D is laid out as the f32 MFMAs' D (AMD's calculator data).
- End to end (cdna4.MFMA_Scale with per-lane scale_a / scale_b): an MX GEMM
  of torch float8 tensors with block scales, against the float64 product
  of the dequantised operands.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr.rocdl import cdna4

from conftest import _build_tool
from emu_run import i32_words, run_kernel
from test_rocdl_mfma import calculator_cells

torch = pytest.importorskip("torch")

# format code (cbsz / blgp) -> (name, bits, exponent bits, mantissa bits, bias)
FORMATS = {0: ("fp8", 8, 4, 3, 7), 1: ("bf8", 8, 5, 2, 15), 2: ("fp6", 6, 2, 3, 1),
           3: ("bf6", 6, 3, 2, 3), 4: ("fp4", 4, 2, 1, 1)}
SHAPES = {16: (16, 16, 128, "16x16x128", "v_mfma_f32_16x16x16_f16"),
          32: (32, 32, 64, "32x32x64", "v_mfma_f32_32x32x8_f16")}


def decode(codes, fmt):
    """Values of codes of an OCP MX element format (OCP E4M3: S.1111.111
    NaN; E5M2: IEEE infinities and NaNs; the 6- and 4-bit ones have
    neither)."""
    name, bits, eb, mb, bias = FORMATS[fmt]
    codes = np.asarray(codes, np.int64)
    sign = np.where((codes >> (bits - 1)) & 1, -1.0, 1.0)
    exp = (codes >> mb) & ((1 << eb) - 1)
    man = codes & ((1 << mb) - 1)
    value = np.where(exp == 0, man * 2.0 ** (1 - bias - mb),
                     (man + (1 << mb)) * 2.0 ** (exp - bias - mb))
    if name == "fp8":
        value = np.where((exp == 15) & (man == 7), np.nan, value)
    if name == "bf8":
        value = np.where(exp == 31, np.where(man == 0, np.inf, np.nan), value)
    return sign * value


def finite_codes(rng, shape, fmt):
    """Random codes of finite values."""
    bits = FORMATS[fmt][1]
    codes = rng.integers(0, 1 << bits, size=shape)
    while True:
        bad = ~np.isfinite(decode(codes, fmt))
        if not bad.any():
            return codes
        codes[bad] = rng.integers(0, 1 << bits, size=int(bad.sum()))


def pack_lane(codes, bits):
    """32 codes as the little-endian i32 words of a lane's registers."""
    total = 0
    for j, c in enumerate(codes):
        total |= int(c) << (bits * j)
    return [(total >> (32 * w)) & 0xFFFFFFFF for w in range(32 * bits // 32)]


def kernel_text(mnk, fa, fb, opsel_a, opsel_b):
    m, _, _, shape, _ = SHAPES[mnk]
    na, nb, nc = 32 * FORMATS[fa][1] // 32, 32 * FORMATS[fb][1] // 32, m * m // 64
    ta, tb, tc = f"vector<{na}xi32>", f"vector<{nb}xi32>", f"vector<{nc}xf32>"
    return f"""module attributes {{gpu.container_module}} {{
gpu.module @scaled [#rocdl.target<chip = "gfx950">] {{
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
    %psa = llvm.getelementptr %sa[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %psb = llvm.getelementptr %sb[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %va = llvm.load %pa {{alignment = 4 : i64}} : !llvm.ptr<1> -> {ta}
    %vb = llvm.load %pb {{alignment = 4 : i64}} : !llvm.ptr<1> -> {tb}
    %vc = llvm.load %pc {{alignment = 4 : i64}} : !llvm.ptr<1> -> {tc}
    %xa = llvm.load %psa : !llvm.ptr<1> -> i32
    %xb = llvm.load %psb : !llvm.ptr<1> -> i32
    %fa = llvm.mlir.constant({fa} : i32) : i32
    %fb = llvm.mlir.constant({fb} : i32) : i32
    %oa = llvm.mlir.constant({opsel_a} : i32) : i32
    %ob = llvm.mlir.constant({opsel_b} : i32) : i32
    %vd = rocdl.mfma.scale.f32.{shape}.f8f6f4 %va, %vb, %vc, %fa, %fb, %oa, %xa, %ob, %xb : ({ta}, {tb}, {tc}, i32, i32, i32, i32, i32, i32) -> {tc}
    llvm.store %vd, %pd {{alignment = 4 : i64}} : {tc}, !llvm.ptr<1>
    llvm.return
  }}
}}
}}
"""


PAIRS = [(0, 0), (1, 0), (0, 1), (2, 3), (3, 2), (4, 4), (4, 0), (2, 4), (1, 3)]


@pytest.mark.parametrize("mnk", [16, 32])
@pytest.mark.parametrize("fa, fb", PAIRS, ids=[f"{FORMATS[a][0]}-{FORMATS[b][0]}" for a, b in PAIRS])
def test_scaled_mfma_on_the_emulator(emu_run, tmp_path, mnk, fa, fb):
    m, n, k, _, _ = SHAPES[mnk]
    rng = np.random.default_rng(100 * fa + 10 * fb + mnk)
    A = finite_codes(rng, (m, k), fa)          # A[i][k]
    B = finite_codes(rng, (n, k), fb)          # B^T: B[j][k]
    C = rng.standard_normal((m, n)).astype(np.float32)
    opsel_a, opsel_b = int(rng.integers(4)), int(rng.integers(4))
    # A random scale word per lane; the byte opsel picks is the E8M0 scale
    # (kept in 2^-8 .. 2^8, where nothing overflows).
    words_a = rng.integers(0, 1 << 32, 64, dtype=np.uint64)
    words_b = rng.integers(0, 1 << 32, 64, dtype=np.uint64)
    ea = rng.integers(119, 136, 64)
    eb = rng.integers(119, 136, 64)
    words_a = (words_a & ~np.uint64(0xFF << (8 * opsel_a))) | (ea.astype(np.uint64) << np.uint64(8 * opsel_a))
    words_b = (words_b & ~np.uint64(0xFF << (8 * opsel_b))) | (eb.astype(np.uint64) << np.uint64(8 * opsel_b))

    D = run_scaled(emu_run, tmp_path, mnk, fa, fb, A, B, C, words_a, words_b, opsel_a, opsel_b)
    sa_val, sb_val = np.zeros((m, k)), np.zeros((n, k))
    for lane in range(64):
        row, kb = lane % m, lane // m
        ks = slice(32 * kb, 32 * kb + 32)
        sa_val[row, ks] = 2.0 ** (int(ea[lane]) - 127)
        sb_val[row, ks] = 2.0 ** (int(eb[lane]) - 127)
    a = decode(A, fa) * sa_val
    b = decode(B, fb) * sb_val
    want = a @ b.T + C
    bound = 4 * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T + np.abs(C)) + 1e-30
    assert np.all(np.abs(D - want) <= bound), np.max(np.abs(D - want) / bound)


def run_scaled(emu_run, tmp_path, mnk, fa, fb, A, B, C, words_a, words_b, opsel_a, opsel_b,
               text=None):
    """D of the instruction for the matrices of codes A (m x k), B (n x
    k), C and the lanes' scale words (the kernel: `text`, else
    kernel_text's)."""
    m, n, k, _, d_layout = SHAPES[mnk]
    a_words, b_words = [], []
    for lane in range(64):
        row, kb = lane % m, lane // m
        ks = slice(32 * kb, 32 * kb + 32)
        a_words += pack_lane(A[row, ks], FORMATS[fa][1])
        b_words += pack_lane(B[row, ks], FORMATS[fb][1])
    cells = calculator_cells(d_layout, "D")          # (lane, register) -> (row, col)
    nc = m * n // 64
    c_words = [0] * (64 * nc)
    for (lane, r), (i, j) in cells.items():
        c_words[lane * nc + r] = int(np.float32(C[i, j]).view(np.uint32))

    path = tmp_path / "kernel.mlir"
    path.write_text(text or kernel_text(mnk, fa, fb, opsel_a, opsel_b))
    args = [f"buf:i32:{len(w)}:{i32_words(w)}" for w in (a_words, b_words, c_words)]
    args += [f"buf:i32:64:{i32_words(w)}" for w in (words_a, words_b)]
    args += [f"buf:i32:{64 * nc}:fill=0"]
    out = run_kernel(emu_run, path, "scaled", "gfx950", 64, args)
    d_words = [int(x) & 0xFFFFFFFF for x in out[5]]
    D = np.zeros((m, n))
    for (lane, r), (i, j) in cells.items():
        D[i, j] = np.uint32(d_words[lane * nc + r]).view(np.float32)
    return D


def zero_scale_text(mnk, which):
    """kernel_text with the scale operands in `which` ("a", "b") the
    constant 0 instead of the lanes' loaded words."""
    text = kernel_text(mnk, 0, 0, 1, 2)
    for operand in which:
        text = text.replace(f"%x{operand} = llvm.load %ps{operand} : !llvm.ptr<1> -> i32",
                            f"%x{operand} = llvm.mlir.constant(0 : i32) : i32")
    return text


@pytest.mark.parametrize("mnk", [16, 32])
def test_scales_that_are_both_the_constant_zero_are_the_unscaled_mfma(emu_run, tmp_path, mnk):
    """The code generator turns a scaled MFMA with two constant-zero scales
    into the unscaled v_mfma_f32_*_f8f6f4 (how MLIR and FlyDSL's kernels
    write the unscaled one); the emulator computes that product. One
    constant zero with a loaded scale stays scaled: E8M0 0 is 2^-127."""
    m, n, k, shape, _ = SHAPES[mnk]
    rng = np.random.default_rng(7)
    A, B = finite_codes(rng, (m, k), 0), finite_codes(rng, (n, k), 0)
    C = rng.standard_normal((m, n)).astype(np.float32)
    path = tmp_path / "kernel.mlir"
    path.write_text(zero_scale_text(mnk, "ab"))
    hsaco = tmp_path / "kernel.hsaco"
    subprocess.run([_build_tool("fly-compile", "FLY_COMPILE"), str(path), "--chip=gfx950",
                    "--from=binary_prep", "-o", str(hsaco)], check=True)
    isa = subprocess.run(["/usr/lib/llvm-22/bin/llvm-objdump", "-d", "--mcpu=gfx950",
                          str(hsaco)], capture_output=True, text=True, check=True).stdout
    assert f"v_mfma_f32_{shape}_f8f6f4" in isa and "v_mfma_scale" not in isa

    def run(which, words_a, words_b):
        return run_scaled(emu_run, tmp_path, mnk, 0, 0, A, B, C, words_a, words_b, 1, 2,
                          text=zero_scale_text(mnk, which))

    ones = np.full(64, 0x7F7F7F7F, np.uint64)  # E8M0 1.0 in every byte
    a, b = decode(A, 0), decode(B, 0)
    want = a @ b.T + C
    bound = 4 * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T + np.abs(C)) + 1e-30
    D = run("ab", ones * 0, ones * 0)  # the words are not read
    assert np.all(np.abs(D - want) <= bound)
    # A's scale the constant 0, B's loaded as 1.0: A is scaled by 2^-127.
    D = run("a", ones, ones)
    tiny = (a * 2.0 ** -127) @ b.T + C
    assert np.all(np.abs(D - tiny) <= bound) and not np.allclose(D, want)


def test_an_e8m0_nan_scale_makes_its_row_nan(emu_run, tmp_path):
    """Scale byte 0xFF is E8M0's NaN: lane 5's A values (row 5 of A) are
    NaN, so row 5 of D is; the others are finite."""
    rng = np.random.default_rng(1)
    A, B = finite_codes(rng, (16, 128), 0), finite_codes(rng, (16, 128), 0)
    C = np.zeros((16, 16), np.float32)
    words_a = np.full(64, 0x7F7F7F7F, np.uint64)
    words_a[5] = 0x7F7F7FFF  # byte 0, the one opsel 0 picks
    words_b = np.full(64, 0x7F7F7F7F, np.uint64)
    D = run_scaled(emu_run, tmp_path, 16, 0, 0, A, B, C, words_a, words_b, 0, 0)
    assert np.isnan(D[5]).all()
    assert np.isfinite(np.delete(D, 5, axis=0)).all()


def test_a_format_that_does_not_fit_the_registers_is_an_error(emu_run, tmp_path):
    """fp4 (cbsz 4) takes 4 registers; 8 is a compile error naming it."""
    path = tmp_path / "kernel.mlir"
    path.write_text(kernel_text(16, 0, 0, 0, 0).replace("%fa = llvm.mlir.constant(0 : i32)",
                                                        "%fa = llvm.mlir.constant(4 : i32)"))
    err = run_kernel(emu_run, path, "scaled", "gfx950", 64,
                     ["buf:i32:512:fill=0"] * 3 + ["buf:i32:64:fill=0"] * 3, expect_ok=False)
    assert "24 for fp6/bf6, 16 for fp4" in err


# -- end to end: an MX GEMM through cdna4.MFMA_Scale ----------------------------------

def mx_gemm(m, n, k, ta, tb):
    """C = (A * SA) @ (B * SB).T for one atom: A (m x k), B (n x k) float8
    tensors, the lanes' scale words SA, SB (64 Int32, byte 0 the E8M0 of
    the lane's 32 values of K)."""

    @flyc.kernel
    def mx_kernel(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        A = fx.slice(fx.zipped_divide(A, (m, k)), ((None, None), 0))
        B = fx.slice(fx.zipped_divide(B, (n, k)), ((None, None), 0))
        C = fx.slice(fx.zipped_divide(C, (m, n)), ((None, None), 0))
        i32 = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32)
        sa, sb = (fx.slice(fx.zipped_divide(t, (1,)), (None, tid)) for t in (SA, SB))
        rsa, rsb = fx.make_fragment_like(sa), fx.make_fragment_like(sb)
        fx.copy(i32, sa, rsa)
        fx.copy(i32, sb, rsb)
        atom = fx.make_mma_atom(cdna4.MFMA_Scale(m, n, k, ta, tb))
        atom = atom.set_value("scale_a", rsa[0]).set_value("scale_b", rsb[0])
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
        fx.gemm(atom, fC, fA, fB, fC)
        fx.copy(copy_c, tC.retile(fC), tC.partition_S(C), pred=None)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        mx_kernel(A, B, SA, SB, C).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return run


@pytest.mark.parametrize("mnk, ta, tb", [(16, "fp8", "fp8"), (32, "bf8", "fp8"),
                                         (16, "bf8", "bf8")])
def test_mx_gemm_of_float8_tensors(fly_env, mnk, ta, tb):
    fly_env(ARCH="gfx950", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    m, n, k, _, _ = SHAPES[mnk]
    types = {"fp8": (fx.Float8E4M3FN, torch.float8_e4m3fn), "bf8": (fx.Float8E5M2, torch.float8_e5m2)}
    gen = torch.Generator().manual_seed(mnk)
    A = (torch.randn(m, k, generator=gen) * 3).to(types[ta][1])
    B = (torch.randn(n, k, generator=gen) * 3).to(types[tb][1])
    # E8M0 block scales: one per row (column) and 32 values of K.
    ea = torch.randint(120, 134, (m, k // 32), generator=gen)
    eb = torch.randint(120, 134, (n, k // 32), generator=gen)
    lanes = torch.arange(64)
    SA = ea[lanes % m, lanes // m].to(torch.int32) | (0x7F << 8)  # other bytes ignored
    SB = eb[lanes % n, lanes // n].to(torch.int32) | (0x11 << 24)
    C = torch.zeros(m, n)
    mx_gemm(m, n, k, types[ta][0], types[tb][0])(A, B, SA, SB, C)
    sa = torch.exp2(ea.double() - 127).repeat_interleave(32, dim=1)
    sb = torch.exp2(eb.double() - 127).repeat_interleave(32, dim=1)
    a, b = A.double() * sa, B.double() * sb
    want = a @ b.T
    bound = 4 * k * 2.0 ** -24 * (a.abs() @ b.abs().T) + 1e-30
    assert torch.all((C.double() - want).abs() <= bound)
    assert torch.count_nonzero(C) > C.numel() // 2


# -- scales as operand groups: fx.gemm(mma, d, [a, scale_a], [b, scale_b], c) ----------

def grouped_mx_gemm(form):
    """C = (A * SA) @ (B * SB).T over a 32 x 32 x 256 tile: one
    16x16x128 atom, 2 x 2 x 2 calls per lane, a scale word per lane and
    (m, k) tile of A (n, k of B). The lanes' words arrive as SA[0, m, k,
    lane] (int32) and are copied to register fragments (1, 2, 2). `form`
    picks how they reach the calls: "list", operand groups expanded by the
    compiler; "expanded", operand groups with the gemm expanded in Python;
    "set_value", the atom's fields set per call by atom_callback."""
    tm, tn, tk = 32, 32, 256

    @flyc.kernel
    def kernel(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        A = fx.slice(fx.zipped_divide(A, (tm, tk)), ((None, None), 0))
        B = fx.slice(fx.zipped_divide(B, (tn, tk)), ((None, None), 0))
        C = fx.slice(fx.zipped_divide(C, (tm, tn)), ((None, None), 0))
        if fx.const_expr(form == "not_scaled"):
            atom = fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 32, fx.Float8E4M3FN))
        else:
            atom = fx.make_mma_atom(cdna4.MFMA_Scale(16, 16, 128, fx.Float8E4M3FN))
        tiled = fx.make_tiled_mma(atom, fx.make_layout((1, 1, 1), (0, 0, 0)))
        thr = tiled.thr_slice(tid)
        copy_ab = fx.make_copy_atom(fx.UniversalCopy64b(), 8)
        copy_c = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
        tA = fx.make_tiled_copy_A(copy_ab, tiled).get_slice(tid)
        tB = fx.make_tiled_copy_B(copy_ab, tiled).get_slice(tid)
        tC = fx.make_tiled_copy_C(copy_c, tiled).get_slice(tid)
        fA, fB, fC = thr.make_fragment_A(A), thr.make_fragment_B(B), thr.make_fragment_C(C)
        fx.copy(copy_ab, tA.partition_S(A), tA.retile(fA))
        fx.copy(copy_ab, tB.partition_S(B), tB.retile(fB))
        fC.fill(0)
        i32 = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Int32)
        rsa = fx.make_rmem_tensor(fx.make_layout((1, 2, 2), (0, 1, 2)), fx.Int32)
        rsb = fx.make_rmem_tensor(fx.make_layout((1, 2, 2), (0, 1, 2)), fx.Int32)
        words = fx.make_layout((1, 2, 2, 64), (0, 128, 64, 1))   # [0, tile, k, lane]
        fx.copy(i32, fx.slice(fx.make_view(fx.get_iter(SA), words), (None, None, None, tid)), rsa)
        fx.copy(i32, fx.slice(fx.make_view(fx.get_iter(SB), words), (None, None, None, tid)), rsb)
        if fx.const_expr(form == "list"):
            fx.gemm(tiled, fC, [fA, rsa], [fB, rsb], fC)
        elif fx.const_expr(form == "not_scaled"):
            fx.gemm(tiled, fC, [fA, rsa], fB, fC)  # line: not_scaled
        elif fx.const_expr(form == "too_many"):
            fx.gemm(tiled, fC, [fA, rsa], [fB, rsb, rsb], fC)  # line: too_many
        elif fx.const_expr(form == "expanded"):
            fx.gemm(tiled, fC, [fA, rsa], [fB, rsb], fC, atom_callback=lambda at, mnk: at)
        else:
            fx.gemm(tiled, fC, fA, fB, fC,
                    atom_callback=lambda at, mnk: at.set_value(
                        {"scale_a": rsa[0, mnk[0], mnk[2]], "scale_b": rsb[0, mnk[1], mnk[2]]}))
        fx.copy(copy_c, tC.retile(fC), tC.partition_S(C))

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor):
        kernel(A, B, SA, SB, C).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return run


def lane_scale_words(e, gen):
    """The 16x16x128 atom's scale words for a (2 * 16) x (2 * 128) operand
    with E8M0 block exponents e (32 x 8): lane l of the call at tile (t, k)
    holds row 16 t + l % 16 and K block 4 k + l // 16, so its byte 0 is
    e[16 t + l % 16, 4 k + l // 16]; bytes 1..3 are noise opsel 0 ignores.
    Laid out [0, t, k, l]."""
    lanes = torch.arange(64)
    words = torch.zeros(1, 2, 2, 64, dtype=torch.int32)
    for t in range(2):
        for k in range(2):
            byte0 = e[16 * t + lanes % 16, 4 * k + lanes // 16].to(torch.int32)
            noise = torch.randint(0, 1 << 23, (64,), generator=gen, dtype=torch.int32)
            words[0, t, k] = byte0 | (noise << 8)
    return words


def test_scales_as_operand_groups(fly_env):
    """Every (m, n, k) call gets its own scales (each lane's word differs
    per tile); C matches the float64 product of the dequantised operands
    for each way of giving them, and the three agree bit for bit."""
    fly_env(ARCH="gfx950", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    gen = torch.Generator().manual_seed(7)
    A = (torch.randn(32, 256, generator=gen) * 3).to(torch.float8_e4m3fn)
    B = (torch.randn(32, 256, generator=gen) * 3).to(torch.float8_e4m3fn)
    ea = torch.randint(118, 137, (32, 8), generator=gen)
    eb = torch.randint(118, 137, (32, 8), generator=gen)
    SA, SB = lane_scale_words(ea, gen), lane_scale_words(eb, gen)
    a = decode(A.view(torch.uint8).numpy(), 0) * 2.0 ** (np.repeat(ea.numpy(), 32, axis=1) - 127)
    b = decode(B.view(torch.uint8).numpy(), 0) * 2.0 ** (np.repeat(eb.numpy(), 32, axis=1) - 127)
    want = a @ b.T
    bound = 4 * 256 * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T) + 1e-30
    results = {}
    for form in ["list", "expanded", "set_value"]:
        C = torch.zeros(32, 32)
        grouped_mx_gemm(form)(A, B, SA, SB, C)
        assert np.all(np.abs(C.double().numpy() - want) <= bound), form
        assert torch.count_nonzero(C) > C.numel() // 2, form
        results[form] = C
    assert torch.equal(results["list"], results["set_value"])
    assert torch.equal(results["expanded"], results["set_value"])


@pytest.mark.parametrize("form, message", [
    ("not_scaled", "the A group has 1 auxiliary operand(s); MFMA(16, 16, 32, f8E4M3FN) takes none"),
    ("too_many", "the B group has 2 auxiliary operand(s); MFMA_Scale(16, 16, 128, f8E4M3FN, "
                 "f8E4M3FN) takes at most 1 (scale_b)")])
def test_operand_groups_that_do_not_fit_the_atom_are_located_errors(fly_env, form, message):
    """A scale in the group of an atom that takes none, or one too many:
    a compile error at the user's gemm line, naming the atom."""
    fly_env(ARCH="gfx950", COMPILE_ONLY="1", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    A = torch.zeros(32, 256, dtype=torch.float8_e4m3fn)
    S = torch.zeros(1, 2, 2, 64, dtype=torch.int32)
    with pytest.raises(flyc.CompileError) as info:
        grouped_mx_gemm(form)(A, A.clone(), S, S.clone(), torch.zeros(32, 32))
    text = str(info.value)
    assert message in text, text
    line = next(i for i, src in enumerate(open(__file__), 1) if f"# line: {form}" in src)
    assert f"test_rocdl_mma_scale.py:{line}" in text, text


ELEMENTS = {0: fx.Float8E4M3FN, 1: fx.Float8E5M2, 2: fx.Float6E2M3FN, 3: fx.Float6E3M2FN,
            4: fx.Float4E2M1FN}
PACKED = [(4, 4), (2, 3), (3, 4), (0, 4)]


@pytest.mark.parametrize("fa, fb", PACKED, ids=[f"{FORMATS[a][0]}-{FORMATS[b][0]}" for a, b in PACKED])
@pytest.mark.parametrize("form", ["gemm", "mma_atom_call"])
def test_fp6_and_fp4_operands_as_packed_int32_fragments(fly_env, fa, fb, form):
    """As FlyDSL's MXFP4 kernels write it: A and B are Int32 register
    fragments holding the lane's 32 values of K packed (4 registers of
    fp4, 6 of fp6, 8 of fp8), the scales per lane, on MFMA_Scale
    16x16x128; against the OCP decode of the same codes in float64."""
    fly_env(ARCH="gfx950", COMPILE_ONLY=None)
    m, n, k = 16, 16, 128
    wa, wb = 32 * FORMATS[fa][1] // 32, 32 * FORMATS[fb][1] // 32
    rng = np.random.default_rng(7 * fa + fb)
    A, B = finite_codes(rng, (m, k), fa), finite_codes(rng, (n, k), fb)
    ea, eb = rng.integers(122, 132, 64), rng.integers(122, 132, 64)
    a_words, b_words = [], []
    for lane in range(64):
        row, ks = lane % 16, slice(32 * (lane // 16), 32 * (lane // 16) + 32)
        a_words += pack_lane(A[row, ks], FORMATS[fa][1])
        b_words += pack_lane(B[row, ks], FORMATS[fb][1])
    as_i32 = lambda w: np.array(w, np.uint32).view(np.int32)  # noqa: E731
    # Bytes 1-3 of each scale word are noise: opsel 0 reads byte 0.
    noise = rng.integers(0, 1 << 24, 64) << 8
    SA, SB = as_i32(noise + ea), as_i32(noise[::-1] + eb)

    @flyc.kernel
    def kernel(Aw: fx.Tensor, Bw: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, D: fx.Tensor):
        tid = fx.thread_idx.x
        atom = fx.make_mma_atom(cdna4.MFMA_Scale(16, 16, 128, ELEMENTS[fa], ELEMENTS[fb]))
        a = fx.make_rmem_tensor(wa, fx.Int32)
        b = fx.make_rmem_tensor(wb, fx.Int32)
        c = fx.make_rmem_tensor(4, fx.Float32)
        for i in fx.range_constexpr(wa):
            a[i] = Aw[tid * wa + i]
        for i in fx.range_constexpr(wb):
            b[i] = Bw[tid * wb + i]
        c.fill(0)
        if fx.const_expr(form == "gemm"):
            fx.gemm(atom, c, a, b, c, scale_a=SA[tid], scale_b=SB[tid])
        else:
            fx.mma_atom_call(atom, c, a, b, c, scale_a=SA[tid], scale_b=SB[tid])
        for i in fx.range_constexpr(4):
            D[tid * 4 + i] = c[i]

    @flyc.jit
    def run(Aw: fx.Tensor, Bw: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, D: fx.Tensor):
        kernel(Aw, Bw, SA, SB, D).launch(grid=(1, 1, 1), block=(64, 1, 1))

    D = np.zeros(256, np.float32)
    run(as_i32(a_words), as_i32(b_words), SA, SB, D)
    got = np.zeros((m, n))
    for (lane, r), (i, j) in calculator_cells(SHAPES[16][4], "D").items():
        got[i, j] = D[lane * 4 + r]
    sa, sb = np.zeros((m, k)), np.zeros((n, k))
    for lane in range(64):
        row, ks = lane % 16, slice(32 * (lane // 16), 32 * (lane // 16) + 32)
        sa[row, ks], sb[row, ks] = 2.0 ** (int(ea[lane]) - 127), 2.0 ** (int(eb[lane]) - 127)
    a, b = decode(A, fa) * sa, decode(B, fb) * sb
    want = a @ b.T
    bound = 4 * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T) + 1e-30
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) / bound)
    assert np.count_nonzero(got) > 200


def test_a_packed_fragment_of_the_wrong_size_is_a_located_error(fly_env):
    """Five Int32 of fp4 values: the atom takes 32 fp4 values, four Int32."""
    fly_env(ARCH="gfx950", COMPILE_ONLY="1")

    @flyc.kernel
    def kernel(D: fx.Tensor):
        atom = fx.make_mma_atom(cdna4.MFMA_Scale(16, 16, 128, fx.Float4E2M1FN))
        a = fx.make_rmem_tensor(5, fx.Int32)
        b = fx.make_rmem_tensor(4, fx.Int32)
        c = fx.make_rmem_tensor(4, fx.Float32)
        a.fill(0)
        b.fill(0)
        c.fill(0)
        fx.gemm(atom, c, a, b, c)  # the line of the error
        D[fx.thread_idx.x] = c[0]

    @flyc.jit
    def run(D: fx.Tensor):
        kernel(D).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(Exception) as err:
        run(np.zeros(64, np.float32))
    text = str(err.value)
    assert "has 5 values, the atom takes 32 'f4E2M1FN' values (4 'i32')" in text, text
    line = next(i for i, l in enumerate(_SOURCE_LINES, 1) if "# the line of the error" in l)
    assert f"test_rocdl_mma_scale.py:{line}" in text, text


_SOURCE_LINES = open(__file__).read().splitlines()
