"""fx.rocdl.WMMA: the wave32 matrix atoms of RDNA3 (gfx11), RDNA4 (gfx120x)
and gfx1250 (SPEC §4).

- Every RDNA3 and RDNA4 wave32 v_wmma_* of AMD's register data
  (test/data/amd-matrix-layouts) that the atoms have: the atom's A, B and C
  thread-value layouts equal the data element for element (D as C).
- A GEMM per family and element type on the CPU emulator against numpy
  (bf16 through torch), whose matrix semantics are written from the ISA
  independently of the atoms: for gfx1250, which the data lacks, this round
  trip is what checks the layouts.
- The ISA of each family's code object has its v_wmma_* and no scratch.
- Errors: WMMA on a chip without it, a shape or type an instruction lacks,
  the integer flags on a float WMMA, an unknown keyword.
"""

import csv
import re
from pathlib import Path

import numpy as np
import pytest
from pycute import Layout

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr._ir_types import MmaAtomType
from flydsl.expr.rocdl import _wmma
from flydsl.tracing.errors import TraceError
from flydsl.tracing.ir import parse_type

THIS_FILE = str(Path(__file__).resolve())
LAYOUTS = Path(__file__).resolve().parents[1] / "data" / "amd-matrix-layouts"

# The data's operand type names -> MLIR element types.
_ELEM = {"f16": "f16", "bf16": "bf16", "f32": "f32", "i32": "i32", "iu8": "i8",
         "iu4": "i4", "fp8": "f8E4M3FN", "bf8": "f8E5M2"}
_FAMILY = {"rdna3": _wmma.MmaOpGFX11WmmaType, "rdna4": _wmma.MmaOpGFX120XWmmaType}


def _data_instructions():
    """(arch, instruction) of every dense wave32 WMMA of RDNA3 and RDNA4 in
    the data."""
    found = set()
    for path in LAYOUTS.glob("rdna[34]-w32-v_wmma_*-A.csv"):
        arch, _, name = path.name[:-len("-A.csv")].split("-", 2)
        found.add((arch, name))
    return sorted(found)


def _parse_instruction(name):
    """v_wmma_f32_16x16x16_fp8_bf8 -> (16, 16, 16, 'f8E4M3FN', 'f8E5M2', 'f32')."""
    match = re.fullmatch(r"v_wmma_([a-z0-9]+)_(\d+)x(\d+)x(\d+)_([a-z0-9]+)(?:_([a-z0-9]+))?", name)
    acc, m, n, k, a, b = match.groups()
    return int(m), int(n), int(k), _ELEM[a], _ELEM[b or a], _ELEM[acc]


def _layout(type_handle):
    """A !fly.layout<shape:stride> of static leaves as a pycute Layout."""
    text = str(type_handle)
    body = text[text.index("<") + 1:text.rindex(">")]
    shape, stride = body.split(":")
    return Layout(eval(shape), eval(stride))


def _csv(name):
    """{lane: [cell, ...]} in the data's register order."""
    with open(LAYOUTS / name) as f:
        rows = list(csv.reader(f))
    return {int(row[0]): row[1:] for row in rows[1:]}


_CELL = re.compile(r"([ABCD])\[(\d+)\]\[(\d+)\]$")


def _expected_offset(cell, rows):
    """A[i][k] -> i + rows*k, B[k][j] -> j + cols*k, C/D[i][j] -> i + rows*j:
    the (M, K), (N, K) and (M, N) column-major coordinates of the atom's
    thread-value layouts."""
    operand, x, y = _CELL.match(cell).groups()
    x, y = int(x), int(y)
    if operand == "B":
        return y + rows * x
    return x + rows * y


DATA = _data_instructions()


def test_the_data_has_the_wmma_instructions():
    # 6 RDNA3 and 11 RDNA4 dense wave32 v_wmma_*.
    assert sum(a == "rdna3" for a, _ in DATA) == 6
    assert sum(a == "rdna4" for a, _ in DATA) == 11


@pytest.mark.parametrize("arch,name", DATA, ids=[f"{a}-{n}" for a, n in DATA])
def test_thread_value_layouts_equal_amd_register_data(arch, name):
    m, n, k, a, b, acc = _parse_instruction(name)
    op = _FAMILY[arch].get(m, n, k, parse_type(a), parse_type(b), parse_type(acc))
    atom = MmaAtomType.get(op)
    assert str(atom.thr_layout) == "!fly.layout<32:1>"
    assert str(atom.shape_mnk) == f"!fly.int_tuple<({m},{n},{k})>"
    layouts = {"A": _layout(atom.tv_layout_a), "B": _layout(atom.tv_layout_b),
               "C": _layout(atom.tv_layout_c), "D": _layout(atom.tv_layout_c)}
    rows = {"A": m, "B": n, "C": m, "D": m}
    for operand, layout in layouts.items():
        data = _csv(f"{arch}-w32-{name}-{operand}.csv")
        assert sorted(data) == list(range(32))
        values = layout.shape[1]
        for lane, cells in data.items():
            assert len(cells) == (values if isinstance(values, int) else np.prod(values)), \
                f"{name} {operand}: {len(cells)} registers' elements, the atom has {values}"
            for value, cell in enumerate(cells):
                got = layout(lane, value)
                want = _expected_offset(cell, rows[operand])
                assert got == want, (f"{name} {operand} lane {lane} value {value}: "
                                     f"the atom has offset {got}, the data {cell} ({want})")


# -- GEMMs on the emulator -------------------------------------------------------------

BM, BN = 32, 32


def _gemm(k_tile, elem, acc, kwargs):
    """A 32x32xK tile with a 2x2 grid of WMMA atoms (128 threads): C = A B^T."""

    @flyc.kernel
    def wmma_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        tA = fx.slice(fx.zipped_divide(A, (BM, k_tile)), ((None, None), 0))
        tB = fx.slice(fx.zipped_divide(B, (BN, k_tile)), ((None, None), 0))
        tC = fx.slice(fx.zipped_divide(C, (BM, BN)), ((None, None), 0))
        mma_atom = fx.make_mma_atom(fx.rocdl.WMMA(16, 16, k_tile, elem, acc, **kwargs))
        tiled_mma = fx.make_tiled_mma(mma_atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
        thr_mma = tiled_mma.thr_slice(tid)
        copy_ab = fx.make_copy_atom(fx.UniversalCopy(elem.width), elem)
        copy_c = fx.make_copy_atom(fx.UniversalCopy(acc.width), acc)
        cA = fx.make_tiled_copy_A(copy_ab, tiled_mma).get_slice(tid)
        cB = fx.make_tiled_copy_B(copy_ab, tiled_mma).get_slice(tid)
        cC = fx.make_tiled_copy_C(copy_c, tiled_mma).get_slice(tid)
        fA = thr_mma.make_fragment_A(tA)
        fB = thr_mma.make_fragment_B(tB)
        fC = thr_mma.make_fragment_C(tC)
        fx.copy(copy_ab, cA.partition_S(tA), cA.retile(fA), pred=None)
        fx.copy(copy_ab, cB.partition_S(tB), cB.retile(fB), pred=None)
        fC.fill(0)
        fx.gemm(mma_atom, fC, fA, fB, fC)
        fx.copy(copy_c, cC.retile(fC), cC.partition_S(tC), pred=None)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        wmma_kernel(A, B, C).launch(grid=(1, 1, 1), block=(128, 1, 1), stream=stream)

    return run


# (chip, K, A/B type, accumulator type): every family, f16 and bf16 into f32,
# 16-bit accumulators, signed i8 into i32; gfx1250's f32 16x16x4.
GEMMS = [
    ("gfx1100", 16, "f16", "f32"), ("gfx1100", 16, "bf16", "f32"), ("gfx1100", 16, "i8", "i32"),
    ("gfx1100", 16, "f16", "f16"), ("gfx1100", 16, "bf16", "bf16"),
    ("gfx1201", 16, "f16", "f32"), ("gfx1201", 16, "bf16", "f32"), ("gfx1201", 16, "i8", "i32"),
    ("gfx1201", 16, "f16", "f16"), ("gfx1201", 16, "bf16", "bf16"),
    ("gfx1250", 32, "f16", "f32"), ("gfx1250", 32, "bf16", "f32"), ("gfx1250", 64, "i8", "i32"),
    ("gfx1250", 32, "f16", "f16"), ("gfx1250", 32, "bf16", "bf16"), ("gfx1250", 4, "f32", "f32"),
]
_FX = {"f16": fx.Float16, "bf16": fx.BFloat16, "i8": fx.Int8, "f32": fx.Float32, "i32": fx.Int32}


def _operands(rng, k_tile, ab, acc):
    """A (32 x K), B (32 x K), C and the exact product in float64, as numpy
    arrays or (bf16) torch tensors."""
    if ab == "i8":
        a = rng.integers(-128, 128, (BM, k_tile)).astype(np.int8)
        b = rng.integers(-128, 128, (BN, k_tile)).astype(np.int8)
        return a, b, np.zeros((BM, BN), np.int32), a.astype(np.float64) @ b.astype(np.float64).T
    if ab in ("f16", "f32"):
        a = rng.standard_normal((BM, k_tile)).astype({"f16": np.float16, "f32": np.float32}[ab])
        b = rng.standard_normal((BN, k_tile)).astype(a.dtype)
        c = np.zeros((BM, BN), np.float32 if acc == "f32" else np.float16)
        return a, b, c, a.astype(np.float64) @ b.astype(np.float64).T
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    a = torch.randn((BM, k_tile), generator=g).to(torch.bfloat16)
    b = torch.randn((BN, k_tile), generator=g).to(torch.bfloat16)
    c = torch.zeros((BM, BN), dtype=torch.float32 if acc == "f32" else torch.bfloat16)
    ref = a.double().numpy() @ b.double().numpy().T
    return a, b, c, ref


def _as_f64(t):
    return t.double().numpy() if hasattr(t, "double") else t.astype(np.float64)


@pytest.mark.parametrize("chip,k_tile,ab,acc", GEMMS, ids=[f"{c}-{k}-{a}-{d}" for c, k, a, d in GEMMS])
def test_gemm_on_the_emulator(fly_env, chip, k_tile, ab, acc):
    fly_env(ARCH=chip, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    kwargs = dict(sign_a=True, sign_b=True) if ab == "i8" else {}
    run = _gemm(k_tile, _FX[ab], _FX[acc], kwargs)
    a, b, c, ref = _operands(np.random.default_rng(k_tile), k_tile, ab, acc)
    run(a, b, c)
    got = _as_f64(c)
    if ab == "i8":
        np.testing.assert_array_equal(got, ref)
    elif acc == "f32":
        # Products exact, one rounding to f32 at the end (the emulator's sum).
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    else:
        # Rounded once to the 16-bit accumulator.
        ulp = 2.0 ** -10 if acc == "f16" else 2.0 ** -7
        np.testing.assert_allclose(got, ref, rtol=ulp, atol=ulp)


def test_unsigned_i8_and_the_sign_flags(fly_env):
    # Without sign_a / sign_b the 8-bit operands are unsigned (iu8).
    fly_env(ARCH="gfx1201", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    run = _gemm(16, fx.Int8, fx.Int32, {"sign_b": True})
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (BM, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (BN, 16)).astype(np.int8)
    c = np.zeros((BM, BN), np.int32)
    run(a, b, c)
    ref = a.view(np.uint8).astype(np.int64) @ b.astype(np.int64).T
    np.testing.assert_array_equal(c, ref)


# -- ISA --------------------------------------------------------------------------------

ISA = [("gfx1100", 16, "f16", "f32", "v_wmma_f32_16x16x16_f16"),
       ("gfx1102", 16, "bf16", "bf16", "v_wmma_bf16_16x16x16_bf16"),
       ("gfx1100", 16, "i8", "i32", "v_wmma_i32_16x16x16_iu8"),
       ("gfx1201", 16, "f16", "f32", "v_wmma_f32_16x16x16_f16"),
       ("gfx1200", 16, "i8", "i32", "v_wmma_i32_16x16x16_iu8"),
       ("gfx1250", 32, "bf16", "f32", "v_wmma_f32_16x16x32_bf16"),
       ("gfx1250", 64, "i8", "i32", "v_wmma_i32_16x16x64_iu8"),
       ("gfx1250", 4, "f32", "f32", "v_wmma_f32_16x16x4_f32")]


@pytest.mark.parametrize("chip,k_tile,ab,acc,instruction", ISA, ids=[i[0] + "-" + i[4] for i in ISA])
def test_isa_has_the_instruction_and_no_scratch(fly_env, chip, k_tile, ab, acc, instruction):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)
    np_ab = {"f16": np.float16, "bf16": np.float16, "i8": np.int8, "f32": np.float32}[ab]
    np_acc = {"f32": np.float32, "i32": np.int32, "bf16": np.float16}[acc]
    a = np.zeros((BM, k_tile), np_ab)
    b = np.zeros((BN, k_tile), np_ab)
    c = np.zeros((BM, BN), np_acc)
    if ab == "bf16" or acc == "bf16":
        torch = pytest.importorskip("torch")
        a, b = (torch.zeros(x.shape, dtype=torch.bfloat16) for x in (a, b))
        c = torch.zeros(c.shape, dtype=torch.bfloat16 if acc == "bf16" else torch.float32)
    compiled = flyc.compile(_gemm(k_tile, _FX[ab], _FX[acc], {}), a, b, c)
    isa = compiled.isa()
    assert instruction in isa
    (resources,) = compiled.resources.values()
    assert resources["scratch_bytes"] == 0 and resources["vgpr_spills"] == 0, resources
    assert not re.search(r"^\s+scratch_", isa, re.M)


# -- errors -----------------------------------------------------------------------------

def _trace_one(chip, build, fly_env):
    """Traces a kernel whose first line is `build()` for `chip`: the error."""
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND=None)

    @flyc.kernel
    def k(A: fx.Tensor):
        build()

    @flyc.jit
    def run(A: fx.Tensor):
        k(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    with pytest.raises(TraceError) as info:
        flyc.compile(run, np.zeros(64, np.float32))
    return info.value


_SOURCE = Path(__file__).read_text().splitlines()


def _check_located(error):
    """The error is at the user's line that made the WMMA or the atom."""
    assert error.filename == THIS_FILE, error.filename
    line = _SOURCE[error.lineno - 1]
    assert "WMMA(" in line or "make_mma_atom(" in line, line


def test_wmma_on_a_chip_without_it_names_the_chips_that_have_it(fly_env):
    error = _trace_one("gfx942", lambda: fx.rocdl.WMMA(16, 16, 16, fx.Float16), fly_env)
    _check_located(error)
    assert ("fx.rocdl.WMMA: WMMA is not available on gfx942; the chips that have it: "
            "gfx1100, gfx1101, gfx1102, gfx1200, gfx1201, gfx1250") in str(error)


def test_an_atom_of_one_family_on_a_chip_of_another(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1100", FLYDSL_RUNTIME_KIND=None)
    op = _wmma.MmaOpGFX1250WmmaType.get(16, 16, 32, fx.Float16, fx.Float16, fx.Float32)
    error = _trace_one("gfx1100", lambda: fx.make_mma_atom(op), fly_env)
    _check_located(error)
    assert "WMMA(16, 16, 32, f16, f32) is not available on gfx1100" in str(error)
    assert "the chips that have it: gfx1250" in str(error)


@pytest.mark.parametrize("chip,shape,elem,acc,lists", [
    ("gfx1100", (16, 16, 32), fx.Float16, None, "16x16x16 (f16, f16) -> f32"),
    ("gfx1201", (16, 16, 32), fx.Float16, None, "16x16x32 (i4, i4) -> i32"),
    ("gfx1250", (16, 16, 16), fx.Float16, None, "16x16x32 (f16, f16) -> f32"),
    ("gfx1100", (16, 16, 16), fx.Float32, None, "16x16x16 (bf16, bf16) -> bf16"),
    ("gfx1250", (16, 16, 32), fx.Float16, fx.BFloat16, "16x16x64 (i8, i8) -> i32"),
])
def test_a_shape_or_type_that_does_not_exist_lists_what_exists(fly_env, chip, shape, elem, acc, lists):
    error = _trace_one(chip, lambda: fx.rocdl.WMMA(*shape, elem, acc), fly_env)
    _check_located(error)
    text = str(error)
    assert f"fx.rocdl.WMMA: on {chip}:" in text and "has no WMMA" in text
    assert "the ones there are:" in text and lists in text


def test_integer_flags_on_a_float_wmma(fly_env):
    error = _trace_one("gfx1201", lambda: fx.rocdl.WMMA(16, 16, 16, fx.Float16, clamp=True), fly_env)
    _check_located(error)
    assert "signA, signB and clamp are flags of the integer (iu8, iu4) WMMA only" in str(error)


def test_an_unknown_keyword(fly_env):
    error = _trace_one("gfx1100", lambda: fx.rocdl.WMMA(16, 16, 16, fx.Int8, fx.Int32, signed=True),
                       fly_env)
    _check_located(error)
    assert "unexpected keyword argument 'signed'" in str(error)


@pytest.mark.parametrize("chip,mnemonic", [("gfx1100", "gfx11.wmma"), ("gfx1102", "gfx11.wmma"),
                                           ("gfx1200", "gfx120x.wmma"), ("gfx1250", "gfx1250.wmma")])
def test_wmma_picks_the_family_of_the_chip_traced_for(fly_env, chip, mnemonic):
    seen = []
    k_tile = 32 if chip == "gfx1250" else 16

    def build():
        seen.append(str(fx.rocdl.WMMA(16, 16, k_tile, fx.Int8 if chip == "gfx1100" else fx.Float16,
                                      fx.Int32 if chip == "gfx1100" else None, sign_a=chip == "gfx1100")))
        raise TraceError("stop", THIS_FILE, 0)

    _trace_one(chip, build, fly_env)
    want = ("(i8, i8) -> i32, signA>" if chip == "gfx1100" else "(f16, f16) -> f32>")
    assert seen == [f"!fly_rocdl.{mnemonic}<16x16x{k_tile}, {want}"]
