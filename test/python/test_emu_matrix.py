"""MFMA and WMMA instructions on the emulator, against AMD's register layouts.

For each instruction, a ROCDL-level kernel (generated below: one lane loads
its A, B and C registers from buffers indexed by its lane, runs the
instruction, stores its D registers) goes through convert-rocdl-to-emu and
test/tools/fly-emu-run. The registers each lane gets are filled from random
matrices with the layout data of AMD's Matrix Instruction Calculator
(test/data/amd-matrix-layouts: which element of which matrix each lane and
register bit range holds; for CDNA4's new shapes, which the calculator lacks,
Composable Kernel's descriptions of them), and D is read back into a matrix
with the D layout and compared with the exact A @ B + C, rounded as the
section "what D must be" says (to within one ulp of D's type for f32 and f64
D, to nearest even for 16-bit D, exactly for integers). Nothing here comes
from the runtime's own layout formulas; the number formats (f16, bf16, TF32,
fp8/bf8 FNUZ and OCP, 4-bit integers) are encoded and decoded here from their
definitions.
"""

from __future__ import annotations

import csv
import json
import math
import re
import struct
import zlib
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from conftest import REPO_ROOT
from emu_run import i32_words, run_kernel

LAYOUTS = REPO_ROOT / "test" / "data" / "amd-matrix-layouts"
CELL = re.compile(r"^[ABCD]\[(\d+)\]\[(\d+)\](?:\.B(\d+))?$")


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


# CDNA4's new shapes are not in the calculator's data. Their layouts are taken
# here from a source independent of the ISA text that runtime/emu/Matrix.cpp
# implements: AMD's Composable Kernel library, whose kernels issue these
# instructions on gfx950 hardware. CK describes each MFMA by lane counts
# (ck_tile, include/ck_tile/ops/gemm/warp/warp_gemm_attribute_mfma_impl.hpp:
# kAMLane, kABKLane, kABKPerLane for A and B; kCMLane, kCNLane, kCM0PerLane,
# kCM1PerLane for C and D), which its tile distributions
# (warp_gemm_attribute_mfma.hpp) read as follows:
#   A (B): lane = k-lane * AMLane + row (column); its element e has
#          k = k-lane * ABKPerLane + e.
#   C, D:  lane = m-lane * CNLane + column; its element e = m0 * CM1PerLane + m1
#          has row (m0 * CMLane + m-lane) * CM1PerLane + m1.
# test_ck_descriptions_reproduce_the_calculator checks this reading against the
# calculator's data for the CDNA3 instructions CK describes with the same
# fields, so the CDNA4 layouts below rest on CK's numbers alone. (A common
# permutation of k in A and B is invisible in D, to CK and to this test alike:
# what both pin is which row or column each lane holds, which elements of A
# and B meet, and where each element of D lands. The gfx950 example of
# carlushuang/gcnasm, matrix_core_gfx950, loads v_mfma_f32_32x32x16_f16's
# operands and stores its D the same way.)
CK_BITS = {"f16": 16, "bf16": 16, "i8": 8, "fp8": 8}
CK_MFMA = {  # instruction: (AMLane, ABKLane, ABKPerLane, CMLane, CNLane, CM0PerLane, CM1PerLane)
    # CDNA4 (gfx950)
    "v_mfma_f32_16x16x32_f16": (16, 4, 8, 4, 16, 1, 4),
    "v_mfma_f32_32x32x16_f16": (32, 2, 8, 2, 32, 4, 4),
    "v_mfma_f32_16x16x32_bf16": (16, 4, 8, 4, 16, 1, 4),
    "v_mfma_f32_32x32x16_bf16": (32, 2, 8, 2, 32, 4, 4),
    "v_mfma_i32_16x16x64_i8": (16, 4, 16, 4, 16, 1, 4),
    "v_mfma_i32_32x32x32_i8": (32, 2, 16, 2, 32, 4, 4),
}
CK_CDNA3 = {  # the same fields for CDNA3 instructions, which the calculator's data covers
    "v_mfma_f32_32x32x8_f16": (32, 2, 4, 2, 32, 4, 4),
    "v_mfma_f32_16x16x16_f16": (16, 4, 4, 4, 16, 1, 4),
    "v_mfma_f32_32x32x8_bf16": (32, 2, 4, 2, 32, 4, 4),
    "v_mfma_f32_16x16x16_bf16": (16, 4, 4, 4, 16, 1, 4),
    "v_mfma_i32_32x32x16_i8": (32, 2, 8, 2, 32, 4, 4),
    "v_mfma_i32_16x16x32_i8": (16, 4, 8, 4, 16, 1, 4),
    "v_mfma_f32_32x32x16_fp8_fp8": (32, 2, 8, 2, 32, 4, 4),
    "v_mfma_f32_16x16x32_fp8_fp8": (16, 4, 8, 4, 16, 1, 4),
}


def ck_bits(name: str) -> int:
    return CK_BITS[name.rsplit("_", 1)[1]]


def ck_layout(name: str, operand: str):
    """[(lane, bit offset, bits, block, row, column)] of an operand, from CK's
    description of the instruction (see above)."""
    am, akl, akper, cml, cnl, cm0, cm1 = {**CK_MFMA, **CK_CDNA3}[name]
    assert am * akl == 64 and cml * cnl == 64
    out = []
    if operand in "AB":
        bits = ck_bits(name)
        for lane in range(64):
            mn, kl = lane % am, lane // am
            for e in range(akper):
                k = kl * akper + e
                out.append((lane, e * bits, bits, 0, *((mn, k) if operand == "A" else (k, mn))))
        return out
    for lane in range(64):
        col, ml = lane % cnl, lane // cnl
        for m0 in range(cm0):
            for m1 in range(cm1):
                out.append((lane, 32 * (m0 * cm1 + m1), 32, 0, (m0 * cml + ml) * cm1 + m1, col))
    return out


@lru_cache(maxsize=None)
def index():
    entries = json.loads((LAYOUTS / "index.json").read_text())
    for name, (am, akl, akper, cml, cnl, cm0, cm1) in CK_MFMA.items():
        gprs_ab, gprs_cd = akper * ck_bits(name) // 32, cm0 * cm1
        entries[f"cdna4-w64-{name}"] = dict(
            M=am, N=cnl, K=akl * akper, blocks=1, wave=64, instruction=name, ck=name,
            gprs_A=gprs_ab, gprs_B=gprs_ab, gprs_C=gprs_cd, gprs_D=gprs_cd)
    return entries


@lru_cache(maxsize=None)
def layout(key: str, operand: str):
    """[(lane, bit offset, bits, block, row, column)] of an operand."""
    info = index()[key]
    if "ck" in info:  # a CDNA4 shape
        return ck_layout(info["ck"], operand)
    rows = list(csv.reader(open(LAYOUTS / info["files"][operand])))
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
# #rocdl.target). CDNA4 keeps CDNA3's layouts for these (CK issues both chips'
# with one description, the one CK_CDNA3 checks against the data).
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


def run(tool, tmp_path, instr, a_words, b_words, c_words, block=None, cbsz=0,
        chip=None, expect_ok=True):
    path = tmp_path / "kernel.mlir"
    path.write_text(instr.kernel(cbsz))
    info = instr.info
    wave = info["wave"]
    nc = wave * info["gprs_C"]
    args = [f"buf:i32:{len(w)}:" + i32_words(w)
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


# ---- what D must be ----------------------------------------------------------------
#
# Integer D (i8, iu8, iu4 inputs): exact. The products and their sum are
# integers; D wraps modulo 2^32 (two's-complement adds), or saturates to int32
# with WMMA's CLAMP bit (RDNA3/RDNA4 ISA guides).
#
# Floating D. The inputs are the exact values of their formats:
# - f16, bf16, f32, f64: IEEE binary16, the high half of a binary32, binary32,
#   binary64.
# - fp8/bf8, decoded from their definitions (decode_minifloat): FNUZ on gfx942
#   (LLVM APFloat's Float8E4M3FNUZ and Float8E5M2FNUZ: biases 8 and 16, 0x80
#   the only NaN, no infinities or negative zero); OCP on gfx950 and gfx12 (the
#   OCP 8-bit Floating Point Specification (OFP8) 1.0: E4M3 with bias 7,
#   S.1111.111 its NaN and no infinities; E5M2 with bias 15 and IEEE
#   infinities and NaNs). Which chips take which: MLIR's AMDGPU dialect
#   (amdgpu::hasOcpFp8 is gfx9.5+ and gfx12+; its MFMA lowering gives gfx942
#   the FNUZ types).
# - xf32: the f32 operand truncated to TF32 before the multiply: its 13 low
#   mantissa bits dropped (round toward zero), not rounded to nearest. The
#   CDNA3 ISA guide speaks of both (as its review in ROCm/rocm-libraries#6768
#   notes); measurements settle it: MMA-Sim's CDNA3 model, bit-exact against
#   MI300 hardware (Xie et al., "Bit-Accurate Modeling of GPU Matrix
#   Multiply-Accumulate Units", arXiv:2511.10909; microsoft/MMA-Sim), truncates,
#   and ROCm/rocm-libraries#9176 finds gfx942's xf32 MFMA truncating (results
#   biased toward zero) and pre-rounds its operands in hipBLASLt.
# Every product but f64 x f64 is exact in binary64 (it multiplies significands
# of at most 24 bits), so the reference is the exact A @ B + C: math.fsum of
# the products and C (the correctly rounded binary64 of their exact sum), or
# Fractions for f64.
#
# The accumulation is an assumption. The hardware's order of additions and its
# internal precision are not documented (MMA-Sim finds CDNA3 summing groups of
# 4 to 16 products aligned at a fixed 24 fraction bits with truncation and
# rounding to f32 after each group, and f32/f64 as chains of FMAs). The
# emulator forms the exact sum and rounds once, to nearest even; the test asks
# a little less: D must be the round-to-nearest-even, in D's type, of some value
# within one accumulator ulp (f32's; f64's for f64) of the exact A @ B + C.
# - f32 and f64 D: at most one ulp from the correctly rounded result. Dropping
#   the xf32 truncation (2^-11 relative per input on average), or rounding the
#   inputs to nearest instead, moves D by thousands of f32 ulps.
# - 16-bit D (WMMA f16 and bf16): the ISA guides write D = A * B + C with no
#   rounding mode; round to nearest even is assumed (IEEE 754's default, and
#   the mode LLVM starts waves in: AMDGPUUsage, COMPUTE_PGM_RSRC1
#   FLOAT_ROUND_MODE_32 = FLOAT_ROUND_MODE_NEAR_EVEN). An f32 ulp is 2^-13
#   (f16) or 2^-16 (bf16) of D's ulp, so the allowed window nearly never holds
#   a rounding boundary of D's type: D is pinned to one value, and truncating
#   (or rounding any other way) fails for about half the elements.

FLOAT_FORMATS = {"f64": (53, -1022), "f32": (24, -126), "f16": (11, -14), "bf16": (8, -126)}


def ulp(x, fmt):
    """The unit in the last place of `fmt` (significand bits, smallest normal
    exponent) at each x (float64 arrays)."""
    bits, emin = FLOAT_FORMATS[fmt]
    _, e = np.frexp(x)  # x = m 2^e, 1/2 <= |m| < 1
    lead = np.where(x == 0, emin, np.maximum(e - 1, emin))
    return np.ldexp(1.0, lead - (bits - 1))


def round_to(x, fmt):
    """x rounded to nearest even in `fmt` (no overflow here)."""
    q = ulp(x, fmt)
    return np.rint(x / q) * q  # both scalings by powers of two are exact


def tf32(v):
    """f32 values truncated to TF32: the 13 low mantissa bits cleared."""
    bits = np.asarray(v, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)
    return bits.view(np.float32).astype(np.float64)


def allowed(instr, a, b, c):
    """(lowest, highest) D each element may have (see above), as float64."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    if instr.a == "xf32":
        a, b = tf32(a), tf32(b)
    lo, hi = np.empty(c.shape), np.empty(c.shape)
    if instr.c == "f64":
        for at in np.ndindex(c.shape):
            blk, i, j = at
            x = sum((Fraction(p) * Fraction(q) for p, q in zip(a[blk, i], b[blk, :, j])),
                    Fraction(c[at]))
            step = Fraction(float(ulp(float(x), "f64")))
            lo[at], hi[at] = float(x - step), float(x + step)  # correctly rounded
        return lo, hi
    products = np.einsum("bik,bkj->bijk", a, b)  # each one exact
    x = np.empty(c.shape)
    for at in np.ndindex(c.shape):
        x[at] = math.fsum([*products[at], c[at]])
    step = ulp(x, "f32")
    return round_to(x - step, instr.c), round_to(x + step, instr.c)


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
    lo, hi = allowed(instr, a, b, c)
    bad = ~((lo <= d) & (d <= hi))
    assert not bad.any(), (f"{instr}: {bad.sum()} of {bad.size} elements of D outside "
                           f"the allowed values", np.argwhere(bad)[:3], d[bad][:3],
                           lo[bad][:3], hi[bad][:3])


@pytest.mark.parametrize("name", sorted(CK_CDNA3))
def test_ck_descriptions_reproduce_the_calculator(name):
    """The reading of CK's fields that gives the CDNA4 layouts (ck_layout)
    yields, for CDNA3 instructions CK describes the same way, the calculator's
    data exactly."""
    for operand in "ABCD":
        assert sorted(ck_layout(name, operand)) == sorted(layout(f"cdna3-w64-{name}", operand)), \
            (name, operand)


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
