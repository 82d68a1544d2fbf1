"""MFMA and WMMA instructions on the emulator, against AMD's register layouts.

For each instruction, a ROCDL-level kernel (generated below: one lane loads
its A, B and C registers from buffers indexed by its lane, runs the
instruction, stores its D registers) goes through convert-rocdl-to-emu and
test/tools/fly-emu-run. The registers each lane gets are filled from random
matrices with the layout data of AMD's Matrix Instruction Calculator
(test/data/amd-matrix-layouts: which element of which matrix each lane and
register bit range holds), and D is read back into a matrix with the D
layout and compared with numpy's A @ B + C. Nothing here comes from the
runtime's own layout formulas; the number formats (f16, bf16, fp8/bf8 FNUZ
and OCP, 4-bit integers) are encoded and decoded here from their
definitions.
"""

from __future__ import annotations

import csv
import json
import re
import struct
import zlib
from functools import lru_cache

import numpy as np
import pytest

from conftest import REPO_ROOT, _build_tool
from emu_run import run_kernel

LAYOUTS = REPO_ROOT / "test" / "data" / "amd-matrix-layouts"
CELL = re.compile(r"^[ABCD]\[(\d+)\]\[(\d+)\](?:\.B(\d+))?$")


@pytest.fixture(scope="module")
def emu_run() -> str:
    return _build_tool("fly-emu-run", "FLY_EMU_RUN")


# ---- the layout data ----------------------------------------------------------------

def register_bits(column: str):
    """(bit offset in the lane's registers, width) of a CSV column:
    `v3` (a whole register), `v3.[15:8]` (bits of it), `v[3:2]` (a pair)."""
    m = re.fullmatch(r"v(\d+)", column)
    if m:
        return 32 * int(m.group(1)), 32
    m = re.fullmatch(r"v(\d+)\.\[(\d+):(\d+)\]", column)
    if m:
        hi, lo = int(m.group(2)), int(m.group(3))
        return 32 * int(m.group(1)) + lo, hi - lo + 1
    m = re.fullmatch(r"v\[(\d+):(\d+)\]", column)
    if m:
        hi, lo = int(m.group(1)), int(m.group(2))
        return 32 * lo, 32 * (hi - lo + 1)
    raise ValueError(column)


# CDNA4's new shapes are not in the data. The CDNA4 ISA gives them CDNA3's
# C/D layouts (those of the CDNA3 instruction of the same M x N, named
# here) and twice CDNA3's K per lane for A and B: lane l holds row
# (column) l % M and the consecutive k = (l / M) * per_lane + e.
CDNA4 = {  # instruction: (M, N, K, bits of A/B, the CDNA3 instruction of its C/D)
    "v_mfma_f32_16x16x32_f16": (16, 16, 32, 16, "v_mfma_f32_16x16x16_f16"),
    "v_mfma_f32_32x32x16_f16": (32, 32, 16, 16, "v_mfma_f32_32x32x8_f16"),
    "v_mfma_f32_16x16x32_bf16": (16, 16, 32, 16, "v_mfma_f32_16x16x16_bf16"),
    "v_mfma_f32_32x32x16_bf16": (32, 32, 16, 16, "v_mfma_f32_32x32x8_bf16"),
    "v_mfma_i32_16x16x64_i8": (16, 16, 64, 8, "v_mfma_i32_16x16x32_i8"),
    "v_mfma_i32_32x32x32_i8": (32, 32, 32, 8, "v_mfma_i32_32x32x16_i8"),
}


@lru_cache(maxsize=None)
def index():
    entries = json.loads((LAYOUTS / "index.json").read_text())
    for name, (m, n, k, bits, cdna3) in CDNA4.items():
        base = entries[f"cdna3-w64-{cdna3}"]
        gprs = k * m // 64 * bits // 32
        entries[f"cdna4-w64-{name}"] = dict(
            base, M=m, N=n, K=k, instruction=name, gprs_A=gprs, gprs_B=gprs, cdna3=cdna3)
    return entries


@lru_cache(maxsize=None)
def layout(key: str, operand: str):
    """[(lane, bit offset, bits, block, row, column)] of an operand."""
    info = index()[key]
    if "cdna3" in info:  # a CDNA4 shape
        if operand in "CD":
            return layout(f"cdna3-w64-{info['cdna3']}", operand)
        m, k = info["M"], info["K"]
        per = k * m // 64
        bits = info["gprs_A"] * 32 // per
        return [(lane, e * bits, bits, 0, *((lane % m, lane // m * per + e) if operand == "A"
                                            else (lane // m * per + e, lane % m)))
                for lane in range(64) for e in range(per)]
    rows = list(csv.reader(open(LAYOUTS / index()[key]["files"][operand])))
    places = [register_bits(c) for c in rows[0][1:]]
    out = []
    for row in rows[1:]:
        lane = int(row[0])
        for (offset, bits), cell in zip(places, row[1:]):
            m = CELL.match(cell)
            assert m, cell
            out.append((lane, offset, bits, int(m.group(3) or 0), int(m.group(1)),
                        int(m.group(2))))
    return out


# ---- number formats ---------------------------------------------------------------

def decode_minifloat(code: int, exp_bits: int, man_bits: int, bias: int, flavour: str):
    """An 8-bit float. `fnuz`: 0x80 is NaN, no infinities; `fn` (OCP E4M3FN):
    all-ones exponent and mantissa is NaN, no infinities; `ieee` (OCP E5M2):
    an all-ones exponent is infinity or NaN."""
    sign = -1.0 if code & 0x80 else 1.0
    exp = (code >> man_bits) & ((1 << exp_bits) - 1)
    man = code & ((1 << man_bits) - 1)
    top = (1 << exp_bits) - 1
    if flavour == "fnuz" and code == 0x80:
        return float("nan")
    if flavour == "fn" and exp == top and man == (1 << man_bits) - 1:
        return float("nan")
    if flavour == "ieee" and exp == top:
        return sign * float("inf") if man == 0 else float("nan")
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - man_bits)
    return sign * (man + (1 << man_bits)) * 2.0 ** (exp - bias - man_bits)


FP8_FORMATS = {  # kind -> (exponent bits, mantissa bits, bias, flavour)
    "fp8_fnuz": (4, 3, 8, "fnuz"), "bf8_fnuz": (5, 2, 16, "fnuz"),
    "fp8_ocp": (4, 3, 7, "fn"), "bf8_ocp": (5, 2, 15, "ieee"),
}
BITS = {"f32": 32, "xf32": 32, "f16": 16, "bf16": 16, "i8": 8, "u8": 8, "i4": 4, "u4": 4,
        "f64": 64, "i32": 32}


def bits_of(kind):
    return 8 if kind in FP8_FORMATS else BITS[kind]


def random_values(rng, kind, shape):
    """(values as float64/int64, their codes) of random numbers exact in `kind`."""
    n = int(np.prod(shape))
    if kind in ("f32", "xf32"):
        v = rng.uniform(-2, 2, n).astype(np.float32)
        codes = v.view(np.uint32).astype(np.int64)
    elif kind == "f64":
        v = rng.uniform(-2, 2, n)
        codes = v.view(np.uint64).astype(object)
    elif kind == "f16":
        v = rng.uniform(-2, 2, n).astype(np.float16)
        codes = v.view(np.uint16).astype(np.int64)
    elif kind == "bf16":
        codes = (rng.uniform(-2, 2, n).astype(np.float32).view(np.uint32) >> 16).astype(np.int64)
        v = (codes.astype(np.uint32) << 16).view(np.float32)
    elif kind in FP8_FORMATS:
        fmt = FP8_FORMATS[kind]
        finite = [c for c in range(256) if np.isfinite(decode_minifloat(c, *fmt))]
        codes = rng.choice(finite, n).astype(np.int64)
        v = np.array([decode_minifloat(int(c), *fmt) for c in codes])
    elif kind in ("i8", "u8", "i4", "u4", "i32"):
        lo, hi = {"i8": (-128, 127), "u8": (0, 255), "i4": (-8, 7), "u4": (0, 15),
                  "i32": (-100000, 100000)}[kind]
        v = rng.integers(lo, hi + 1, n)
        codes = v & ((1 << BITS[kind]) - 1)
    else:
        raise ValueError(kind)
    return np.asarray(v).reshape(shape), np.asarray(codes).reshape(shape)


def decode_output(code: int, kind: str):
    if kind == "f32":
        return struct.unpack("<f", struct.pack("<I", code))[0]
    if kind == "f64":
        return struct.unpack("<d", struct.pack("<Q", code))[0]
    if kind == "f16":
        return float(np.array([code], np.uint16).view(np.float16)[0])
    if kind == "bf16":
        return struct.unpack("<f", struct.pack("<I", code << 16))[0]
    if kind == "i32":
        return code - (1 << 32) if code >> 31 else code
    raise ValueError(kind)


# ---- the instructions ------------------------------------------------------------------

class Instr:
    def __init__(self, chip, key, op, a, c, b=None, attrs="", target=None):
        self.chip, self.key, self.op = chip, key, op
        self.a, self.b, self.c = a, b or a, c
        self.attrs = attrs    # WMMA attributes, e.g. "{opsel = true}"
        self.target = target  # a #rocdl.target chip for the gpu.module
        self.info = index()[key]
        self.mfma = op.startswith("mfma.")

    def __repr__(self):
        return f"{self.chip}:{self.info['instruction']}{self.attrs}"

    def mlir_type(self, kind, gprs):
        count = gprs * 32 // bits_of(kind)
        vec = (lambda t: t if count == 1 else f"vector<{count}x{t}>")
        if kind in ("f32", "xf32"):
            return vec("f32")
        if kind == "f64":
            return vec("f64")
        if kind == "f16":
            return vec("f16")
        if kind == "bf16":
            return vec("i16")
        if kind == "i32":
            return vec("i32")
        # 8- and 4-bit elements travel packed in i32 words (an i64 for MFMA).
        if self.mfma and gprs == 2:
            return "i64"
        return "i32" if gprs == 1 else f"vector<{gprs}xi32>"

    def kernel(self, cbsz=0):
        ta = self.mlir_type(self.a, self.info["gprs_A"])
        tc = self.mlir_type(self.c, self.info["gprs_C"])
        abytes, cbytes = 4 * self.info["gprs_A"], 4 * self.info["gprs_C"]
        if self.mfma:
            call = (f"%k = llvm.mlir.constant({cbsz} : i32) : i32\n"
                    f"    %z = llvm.mlir.constant(0 : i32) : i32\n"
                    f"    %vd = rocdl.{self.op} %va, %vb, %vc, %k, %z, %z : "
                    f"({ta}, {ta}, {tc}, i32, i32, i32) -> {tc}")
        else:
            call = (f"%vd = rocdl.{self.op} %va, %vb, %vc {self.attrs} : "
                    f"({ta}, {ta}, {tc}) -> {tc}")
        target = f' [#rocdl.target<chip = "{self.target}">]' if self.target else ""
        return f"""module attributes {{gpu.container_module}} {{
gpu.module @matrix{target} {{
  llvm.func @matrix(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>,
                    %d: !llvm.ptr<1>) attributes {{rocdl.kernel}} {{
    %tid = rocdl.workitem.id.x : i32
    %ab = llvm.mlir.constant({abytes} : i32) : i32
    %cb = llvm.mlir.constant({cbytes} : i32) : i32
    %oa = llvm.mul %tid, %ab : i32
    %oc = llvm.mul %tid, %cb : i32
    %pa = llvm.getelementptr %a[%oa] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %pb = llvm.getelementptr %b[%oa] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %pc = llvm.getelementptr %c[%oc] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %pd = llvm.getelementptr %d[%oc] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %va = llvm.load %pa {{alignment = 4 : i64}} : !llvm.ptr<1> -> {ta}
    %vb = llvm.load %pb {{alignment = 4 : i64}} : !llvm.ptr<1> -> {ta}
    %vc = llvm.load %pc {{alignment = 4 : i64}} : !llvm.ptr<1> -> {tc}
    {call}
    llvm.store %vd, %pd {{alignment = 4 : i64}} : {tc}, !llvm.ptr<1>
    llvm.return
  }}
}}
}}
"""


def mfma(key, op, a, c, b=None, chip="gfx942", target=None):
    return Instr(chip, f"cdna3-w64-v_mfma_{key}", op, a, c, b, target=target)


MFMA = [
    mfma("f32_32x32x1_2b_f32", "mfma.f32.32x32x1f32", "f32", "f32"),
    mfma("f32_16x16x1_4b_f32", "mfma.f32.16x16x1f32", "f32", "f32"),
    mfma("f32_4x4x1_16b_f32", "mfma.f32.4x4x1f32", "f32", "f32"),
    mfma("f32_32x32x2_f32", "mfma.f32.32x32x2f32", "f32", "f32"),
    mfma("f32_16x16x4_f32", "mfma.f32.16x16x4f32", "f32", "f32"),
    mfma("f32_32x32x4_2b_f16", "mfma.f32.32x32x4f16", "f16", "f32"),
    mfma("f32_16x16x4_4b_f16", "mfma.f32.16x16x4f16", "f16", "f32"),
    mfma("f32_4x4x4_16b_f16", "mfma.f32.4x4x4f16", "f16", "f32"),
    mfma("f32_32x32x8_f16", "mfma.f32.32x32x8f16", "f16", "f32"),
    mfma("f32_16x16x16_f16", "mfma.f32.16x16x16f16", "f16", "f32"),
    mfma("f32_32x32x4_2b_bf16", "mfma.f32.32x32x4bf16.1k", "bf16", "f32"),
    mfma("f32_16x16x4_4b_bf16", "mfma.f32.16x16x4bf16.1k", "bf16", "f32"),
    mfma("f32_4x4x4_16b_bf16", "mfma.f32.4x4x4bf16.1k", "bf16", "f32"),
    mfma("f32_32x32x8_bf16", "mfma.f32.32x32x8bf16.1k", "bf16", "f32"),
    mfma("f32_16x16x16_bf16", "mfma.f32.16x16x16bf16.1k", "bf16", "f32"),
    mfma("i32_32x32x4_2b_i8", "mfma.i32.32x32x4i8", "i8", "i32"),
    mfma("i32_16x16x4_4b_i8", "mfma.i32.16x16x4i8", "i8", "i32"),
    mfma("i32_4x4x4_16b_i8", "mfma.i32.4x4x4i8", "i8", "i32"),
    mfma("i32_32x32x16_i8", "mfma.i32.32x32x16.i8", "i8", "i32"),
    mfma("i32_16x16x32_i8", "mfma.i32.16x16x32.i8", "i8", "i32"),
    mfma("f64_16x16x4_f64", "mfma.f64.16x16x4f64", "f64", "f64"),
    mfma("f64_4x4x4_4b_f64", "mfma.f64.4x4x4f64", "f64", "f64"),
    mfma("f32_16x16x8_xf32", "mfma.f32.16x16x8.xf32", "xf32", "f32"),
    mfma("f32_32x32x4_xf32", "mfma.f32.32x32x4.xf32", "xf32", "f32"),
]
MFMA += [
    Instr("gfx950", "cdna4-w64-v_mfma_f32_16x16x32_f16", "mfma.f32.16x16x32.f16", "f16", "f32"),
    Instr("gfx950", "cdna4-w64-v_mfma_f32_32x32x16_f16", "mfma.f32.32x32x16.f16", "f16", "f32"),
    Instr("gfx950", "cdna4-w64-v_mfma_f32_16x16x32_bf16", "mfma.f32.16x16x32.bf16", "bf16", "f32"),
    Instr("gfx950", "cdna4-w64-v_mfma_f32_32x32x16_bf16", "mfma.f32.32x32x16.bf16", "bf16", "f32"),
    Instr("gfx950", "cdna4-w64-v_mfma_i32_16x16x64_i8", "mfma.i32.16x16x64.i8", "i8", "i32"),
    Instr("gfx950", "cdna4-w64-v_mfma_i32_32x32x32_i8", "mfma.i32.32x32x32.i8", "i8", "i32"),
]
# fp8/bf8: FNUZ on gfx942, OCP on gfx950 (the chip given by the module's
# #rocdl.target); CDNA4 keeps CDNA3's layouts for these.
for shape in ("16x16x32", "32x32x16"):
    for fa in ("fp8", "bf8"):
        for fb in ("fp8", "bf8"):
            for chip, flavour in (("gfx942", "fnuz"), ("gfx950", "ocp")):
                MFMA.append(mfma(f"f32_{shape}_{fa}_{fb}", f"mfma.f32.{shape}.{fa}.{fb}",
                                 f"{fa}_{flavour}", "f32", f"{fb}_{flavour}", chip=chip,
                                 target=chip))


def wmma(chip, key, op, a, c, b=None, attrs=""):
    arch = "rdna3" if chip.startswith("gfx11") else "rdna4"
    return Instr(chip, f"{arch}-w32-v_wmma_{key}", op, a, c, b, attrs=attrs)


WMMA = []
for chip in ("gfx1100", "gfx1201"):
    WMMA += [
        wmma(chip, "f32_16x16x16_f16", "wmma.f32.16x16x16.f16", "f16", "f32"),
        wmma(chip, "f32_16x16x16_bf16", "wmma.f32.16x16x16.bf16", "bf16", "f32"),
        wmma(chip, "f16_16x16x16_f16", "wmma.f16.16x16x16.f16", "f16", "f16"),
        wmma(chip, "bf16_16x16x16_bf16", "wmma.bf16.16x16x16.bf16", "bf16", "bf16"),
        wmma(chip, "i32_16x16x16_iu8", "wmma.i32.16x16x16.iu8", "i8", "i32",
             attrs="{signA = true, signB = true}"),
        wmma(chip, "i32_16x16x16_iu8", "wmma.i32.16x16x16.iu8", "u8", "i32", b="i8",
             attrs="{signB = true}"),
        wmma(chip, "i32_16x16x16_iu4", "wmma.i32.16x16x16.iu4", "i4", "i32",
             attrs="{signA = true, signB = true}"),
        wmma(chip, "i32_16x16x16_iu4", "wmma.i32.16x16x16.iu4", "u4", "i32", b="u4"),
    ]
WMMA += [  # gfx11's 16-bit D in the high halves
    wmma("gfx1100", "f16_16x16x16_f16", "wmma.f16.16x16x16.f16", "f16", "f16",
         attrs="{opsel = true}"),
    wmma("gfx1100", "bf16_16x16x16_bf16", "wmma.bf16.16x16x16.bf16", "bf16", "bf16",
         attrs="{opsel = true}"),
    wmma("gfx1201", "i32_16x16x32_iu4", "wmma.i32.16x16x32.iu4", "i4", "i32",
         attrs="{signA = true, signB = true}"),
    # clamp: D saturates instead of wrapping (C is near INT32_MAX below).
    wmma("gfx1100", "i32_16x16x16_iu8", "wmma.i32.16x16x16.iu8", "i8", "i32",
         attrs="{signA = true, signB = true, clamp = true}"),
    wmma("gfx1201", "i32_16x16x16_iu8", "wmma.i32.16x16x16.iu8", "u8", "i32", b="u8",
         attrs="{clamp = true}"),
]
for fa in ("fp8", "bf8"):
    for fb in ("fp8", "bf8"):
        WMMA.append(wmma("gfx1201", f"f32_16x16x16_{fa}_{fb}",
                         f"wmma.f32.16x16x16.{fa}_{fb}", f"{fa}_ocp", "f32", f"{fb}_ocp"))


# ---- running one instruction -----------------------------------------------------------

def lane_words(key, operand, codes, opsel_shift=0, base=None):
    """Each lane's registers as 32-bit words, from the element codes of the
    operand's matrix (indexed [block][row][column])."""
    info = index()[key]
    wave, gprs = info["wave"], info[f"gprs_{operand}"]
    images = [0] * wave if base is None else list(base)
    for lane, offset, bits, block, row, col in layout(key, operand):
        offset += opsel_shift if bits == 16 and operand in "CD" else 0
        mask = ((1 << bits) - 1) << offset
        images[lane] = images[lane] & ~mask | (int(codes[block][row][col]) << offset) & mask
    words = []
    for image in images:
        words += [(image >> (32 * r)) & 0xFFFFFFFF for r in range(gprs)]
    return words


def signed_words(words):
    return [w - (1 << 32) if w >> 31 else w for w in words]


def run(tool, tmp_path, instr, a_words, b_words, c_words, block=None, cbsz=0,
        chip=None, expect_ok=True):
    path = tmp_path / "kernel.mlir"
    path.write_text(instr.kernel(cbsz))
    info = instr.info
    wave = info["wave"]
    nc = wave * info["gprs_C"]
    args = [f"buf:i32:{len(w)}:" + ",".join(map(str, signed_words(w)))
            for w in (a_words, b_words, c_words)] + [f"buf:i32:{nc}:fill=0"]
    out = run_kernel(tool, path, "matrix", chip or instr.chip, block or wave, args, expect_ok)
    if not expect_ok:
        return out  # the launch's error
    return [int(x) & 0xFFFFFFFF for x in out[3]]


def operands(instr, seed):
    info = instr.info
    M, N, K, nb = info["M"], info["N"], info["K"], info.get("blocks", 1)
    rng = np.random.default_rng(seed)
    a, a_codes = random_values(rng, instr.a, (nb, M, K))
    b, b_codes = random_values(rng, instr.b, (nb, K, N))
    c, c_codes = random_values(rng, instr.c, (nb, M, N))
    return (a, a_codes), (b, b_codes), (c, c_codes)


def tolerance(instr):
    """Relative to sum |a b| + |c|: the accumulator's rounding (and the
    hardware's order of additions), the TF32 rounding of xf32 inputs, or the
    rounding of a 16-bit D."""
    if instr.c == "bf16":
        return 2.0 ** -7
    if instr.c == "f16":
        return 2.0 ** -10
    if instr.a == "xf32":
        return 2.0 ** -9
    if instr.c == "f64":
        return 1e-14
    return 1e-6


@pytest.mark.parametrize("instr", MFMA + WMMA, ids=repr)
def test_matrix_instruction(emu_run, tmp_path, instr):
    key, info = instr.key, instr.info
    (a, ac), (b, bc), (c, cc) = operands(instr, zlib.crc32(repr(instr).encode()))
    clamp = "clamp" in instr.attrs
    if clamp or instr.c == "i32":  # near INT32_MAX: sums overflow (or saturate)
        c = c % 1000 + (2**31 - 30000)
        cc = c & 0xFFFFFFFF
    opsel = 16 if "opsel" in instr.attrs else 0
    # With opsel, C's unused halves hold a marker that D must keep.
    base = None
    if opsel:
        base = [int("BEEF" * 2 * info["gprs_C"], 16)] * info["wave"]
    c_words = lane_words(key, "C", cc, opsel, base)
    d_words = run(emu_run, tmp_path, instr, lane_words(key, "A", ac), lane_words(key, "B", bc),
                  c_words)

    # D back into a matrix with the D layout.
    gprs = info["gprs_D"]
    d = np.full(c.shape, np.nan) if instr.c != "i32" else np.zeros(c.shape, np.int64)
    seen = np.zeros(c.shape, bool)
    for lane, offset, bits, block, row, col in layout(key, "D"):
        image = sum(d_words[lane * gprs + r] << (32 * r) for r in range(gprs))
        offset += opsel if bits == 16 else 0
        d[block][row][col] = decode_output((image >> offset) & ((1 << bits) - 1), instr.c)
        seen[block][row][col] = True
    assert seen.all()
    if opsel:  # the other halves are C's
        assert [w & 0xFFFF for w in d_words] == [w & 0xFFFF for w in c_words]

    if instr.c == "i32":
        want = np.einsum("bmk,bkn->bmn", a.astype(np.int64), b.astype(np.int64)) + c
        if clamp:
            assert (want > 2**31 - 1).any()
            want = np.clip(want, -(1 << 31), (1 << 31) - 1)
        else:
            want = (want + (1 << 31)) % (1 << 32) - (1 << 31)
        np.testing.assert_array_equal(d, want, err_msg=repr(instr))
        return
    a64, b64, c64 = (np.asarray(x, np.float64) for x in (a, b, c))
    want = np.einsum("bmk,bkn->bmn", a64, b64) + c64
    scale = np.einsum("bmk,bkn->bmn", np.abs(a64), np.abs(b64)) + np.abs(c64)
    err = np.abs(d - want)
    bad = ~(err <= tolerance(instr) * scale + 1e-30)
    assert not bad.any(), (repr(instr), np.argwhere(bad)[:5], d[bad][:5], want[bad][:5])


def test_layouts_cover_every_instruction_tested():
    """Every dense CDNA3 MFMA and wave32 WMMA of the data is tested."""
    tested = {i.key for i in MFMA + WMMA}
    dense = {k for k in index() if k.startswith("cdna3") and "v_mfma" in k or "-w32-v_wmma" in k}
    assert dense - tested == set()


# ---- what traps -----------------------------------------------------------------------

def zero_operands(instr):
    info = instr.info
    wave = info["wave"]
    return ([0] * wave * info["gprs_A"], [0] * wave * info["gprs_B"],
            [0] * wave * info["gprs_C"])


def test_inactive_lanes_trap(emu_run, tmp_path):
    instr = MFMA[8]  # v_mfma_f32_32x32x8_f16
    err = run(emu_run, tmp_path, instr, *zero_operands(instr), block=48, expect_ok=False)
    assert "v_mfma_f32_32x32x8_f16 with inactive lanes (EXEC = 0xffffffffffff)" in err, err


def test_broadcast_controls_trap(emu_run, tmp_path):
    instr = MFMA[6]  # v_mfma_f32_16x16x4_4b_f16
    err = run(emu_run, tmp_path, instr, *zero_operands(instr), cbsz=1, expect_ok=False)
    assert "cbsz/abid/blgp = 0x1" in err and "not emulated" in err, err


def test_wave_size_must_match(emu_run, tmp_path):
    instr = MFMA[9]
    err = run(emu_run, tmp_path, instr, *zero_operands(instr), chip="gfx1100", expect_ok=False)
    assert "needs waves of 64 lanes" in err, err


def test_gfx11_operands_must_be_replicated(emu_run, tmp_path):
    instr = WMMA[0]  # gfx1100 v_wmma_f32_16x16x16_f16
    a, b, c = zero_operands(instr)
    a[20 * instr.info["gprs_A"]] = 0x3C00  # lane 20 differs from lane 4
    err = run(emu_run, tmp_path, instr, a, b, c, expect_ok=False)
    assert "lane 20's A or B registers differ from lane 4's" in err, err


@pytest.mark.parametrize("chip,flavour", [("gfx942", "fnuz"), ("gfx950", "ocp")])
def test_mfma_fp8_formats_follow_the_compiled_chip(emu_run, tmp_path, chip, flavour):
    """Without a #rocdl.target on the module, the compiler's emulator mode
    tells convert-rocdl-to-emu the chip it compiles for (the pass alone
    refuses: test/lit/Conversion/ROCDLToEmu/convert-rocdl-to-emu-invalid.mlir)."""
    instr = mfma("f32_16x16x32_fp8_fp8", "mfma.f32.16x16x32.fp8.fp8", f"fp8_{flavour}", "f32",
                 chip=chip)
    test_matrix_instruction(emu_run, tmp_path, instr)
