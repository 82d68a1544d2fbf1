"""fx.math, fx.arith, the wave shuffles and fx.printf (SPEC §7).

Each case traces a small kernel (B[tid] = f(A[tid])) with COMPILE_ONLY=1 for
gfx942 (wave64) and gfx1100 (wave32), and checks the traced MLIR and the
ISA of the code object, which is linked without the ROCm device libraries:
a case that compiles proves that no `__ocml_*`/`__ockl_*` call was left.
Errors are TraceErrors at the user's line (found by `# L:<name>` markers).
"""


import re
from pathlib import Path

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import TraceError

THIS_FILE = str(Path(__file__).resolve())
_LINES = {text.split("# L:")[1].split()[0]: i
          for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
          if "# L:" in text}

ARCHES = ["gfx942", "gfx1100"]


@pytest.fixture(params=ARCHES)
def arch(request, fly_env):
    fly_env(COMPILE_ONLY="1", ARCH=request.param, FLYDSL_RUNTIME_KIND=None)
    return request.param


@pytest.fixture
def gfx942(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND=None)
    return "gfx942"


# -- kernels ---------------------------------------------------------------

@flyc.kernel
def scalar_kernel(A: fx.Tensor, B: fx.Tensor, fn: fx.Constexpr):
    tid = fx.thread_idx.x
    B[tid] = fn(A[tid])


@flyc.jit
def run_scalar(A, B, fn: fx.Constexpr):
    scalar_kernel(A, B, fn).launch(grid=(1, 1, 1), block=(64, 1, 1))


@flyc.kernel
def vector_kernel(A: fx.Tensor, B: fx.Tensor, fn: fx.Constexpr):
    tid = fx.thread_idx.x
    frag = fx.make_rmem_tensor(fx.make_layout((4,), (1,)), fx.Float32)
    frag.fill(A[tid])
    frag.store(fn(frag.load()))
    B[tid] = frag[0] + frag[3]


@flyc.jit
def run_vector(A, B, fn: fx.Constexpr):
    vector_kernel(A, B, fn).launch(grid=(1, 1, 1), block=(64, 1, 1))


def compile_scalar(fn, dtype=np.float32):
    a = np.zeros(64, dtype)
    b = np.zeros(64, dtype)
    return flyc.compile(run_scalar, a, b, fn)


def compile_vector(fn):
    a = np.zeros(64, np.float32)
    b = np.zeros(64, np.float32)
    return flyc.compile(run_vector, a, b, fn)


def ops_of(text):
    return set(re.findall(r'"([a-z_]+\.[a-z_.0-9]+)"\(', text))


def isa_ops(compiled):
    return [line.split()[0] for line in compiled.isa().splitlines()
            if re.match(r"\s+[vsdg][a-z_0-9]*\s", line + " ")]


def has_isa(compiled, *names):
    ops = isa_ops(compiled)
    return all(any(o.startswith(n) for o in ops) for n in names)


def no_calls(compiled):
    isa = compiled.isa()
    assert "s_swappc" not in isa and "__ocml" not in isa and "__ockl" not in isa


def as_(cls):
    return lambda fn: (lambda x: fn(x.to(cls)).to(fx.Float32))


# -- fx.math: one case per op ------------------------------------------------

# op -> (function of an f32 value, MLIR op or intrinsic in the trace, ISA on f32)
MATH_CASES = {
    "exp": (lambda x: fx.math.exp(x), "math.exp", ["v_exp_f32", "v_ldexp_f32"]),
    "exp2": (lambda x: fx.math.exp2(x), 'intrin = "llvm.exp2"', ["v_exp_f32"]),
    "log": (lambda x: fx.math.log(x), "math.log", ["v_log_f32"]),
    "log2": (lambda x: fx.math.log2(x), 'intrin = "llvm.log2"', ["v_log_f32"]),
    "sqrt": (lambda x: fx.math.sqrt(x), "math.sqrt", ["v_sqrt_f32"]),
    "rsqrt": (lambda x: fx.math.rsqrt(x), 'intrin = "llvm.amdgcn.rsq"', ["v_rsq_f32"]),
    "sin": (lambda x: fx.math.sin(x), 'intrin = "llvm.sin"', ["v_sin_f32"]),
    "cos": (lambda x: fx.math.cos(x), 'intrin = "llvm.cos"', ["v_cos_f32"]),
    "tanh": (lambda x: fx.math.tanh(x), "math.copysign", ["v_exp_f32", "v_fma"]),
    "erf": (lambda x: fx.math.erf(x), "math.copysign", ["v_exp_f32", "v_fma"]),
    "abs": (lambda x: fx.math.abs(x), "math.absf", ["v_and_b32"]),
    "floor": (lambda x: fx.math.floor(x), 'intrin = "llvm.floor"', ["v_floor_f32"]),
    "ceil": (lambda x: fx.math.ceil(x), 'intrin = "llvm.ceil"', ["v_ceil_f32"]),
    "fma": (lambda x: fx.math.fma(x, x * 3.0, x), "math.fma", ["v_fma"]),
    "pow": (lambda x: fx.math.pow(x, x + 1.0), 'intrin = "llvm.pow"', ["v_log_f32", "v_exp_f32"]),
    "min": (lambda x: fx.math.min(x, x * 3.0), "arith.minnumf", ["v_min_f32"]),
    "max": (lambda x: fx.math.max(x, x * 3.0), "arith.maxnumf", ["v_max_f32"]),
    "minimum": (lambda x: fx.math.min(x, x * 3.0, propagate_nan=True), "arith.minimumf",
                ["v_min"]),
    "maximum": (lambda x: fx.math.max(x, x * 3.0, propagate_nan=True), "arith.maximumf",
                ["v_max"]),
}


@pytest.mark.parametrize("name", sorted(MATH_CASES))
def test_math_f32(arch, name):
    fn, mlir, isa = MATH_CASES[name]
    c = compile_scalar(fn)
    assert mlir in c.module_text
    assert has_isa(c, *isa), (name, isa_ops(c))
    no_calls(c)


@pytest.mark.parametrize("name", sorted(MATH_CASES))
def test_math_vector(arch, name):
    fn, mlir, _ = MATH_CASES[name]
    c = compile_vector(fn)
    assert mlir in c.module_text
    assert re.search(r"-> \(vector<4xf32>\)", c.module_text)
    no_calls(c)


NATIVE_F16 = {"exp2": "v_exp_f16", "log2": "v_log_f16", "sqrt": "v_sqrt_f16",
              "rsqrt": "v_rsq_f16", "sin": "v_sin_f16", "cos": "v_cos_f16",
              "floor": "v_floor_f16", "ceil": "v_ceil_f16", "fma": "v_fma"}


@pytest.mark.parametrize("name", sorted(MATH_CASES))
def test_math_f16_bf16(arch, name):
    fn = MATH_CASES[name][0]
    c16 = compile_scalar(as_(fx.Float16)(fn))
    no_calls(c16)
    if name in NATIVE_F16:
        assert has_isa(c16, NATIVE_F16[name]), isa_ops(c16)
    cb = compile_scalar(as_(fx.BFloat16)(fn))
    no_calls(cb)


F64_OK = {"sqrt": "v_sqrt_f64|v_rsq_f64", "rsqrt": "v_rsq_f64|v_div", "abs": "v_and_b32",
          "floor": "v_floor_f64", "ceil": "v_ceil_f64", "fma": "v_fma", "min": "v_min_f64",
          "max": "v_max_f64", "minimum": "v_min_f64|v_cmp", "maximum": "v_max_f64|v_cmp"}


@pytest.mark.parametrize("name", sorted(MATH_CASES))
def test_math_f64(gfx942, name):
    fn = MATH_CASES[name][0]
    if name in F64_OK:
        c = compile_scalar(fn, np.float64)
        no_calls(c)
        assert any(re.match(F64_OK[name], o) for o in isa_ops(c)), isa_ops(c)
    else:
        with pytest.raises(TraceError, match="ROCm device library") as e:
            compile_scalar(fn, np.float64)
        assert e.value.filename == THIS_FILE


def test_math_integers(gfx942):
    def body(x):
        i = x.to(fx.Int32)
        u = x.to(fx.Uint32)
        r = fx.math.abs(i) + fx.math.min(i, 7) + fx.math.max(i, i * 2)
        r2 = fx.math.min(u, 3) + fx.math.max(u, u * 2)
        return (r + r2.to(fx.Int32)).to(fx.Float32)
    c = compile_scalar(body)
    ops = ops_of(c.module_text)
    assert {"math.absi", "arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui"} <= ops
    assert has_isa(c, "v_max_i32", "v_min_i32", "v_min_u32", "v_max_u32")


def test_math_static_values():
    import math
    assert fx.math.exp(1.0) == math.e
    assert fx.math.sqrt(4) == 2.0
    assert fx.math.min(3, 2) == 2 and fx.math.max(3, 2.5) == 3
    assert fx.math.fma(2, 3, 4) == 10
    assert fx.math.floor(-1.5) == -2.0 and fx.math.abs(-3) == 3


def test_math_mixed_types(gfx942):
    # A Float16 and a Float32 promote to Float32; a Python float takes the type.
    def body(x):
        h = x.to(fx.Float16)
        r = fx.math.fma(h, x, 2.0)
        assert type(r) is fx.Float32
        m = fx.math.max(h, 1.0)
        assert type(m) is fx.Float16
        return r + m.to(fx.Float32)
    c = compile_scalar(body)
    assert "math.fma" in c.module_text


# -- fx.math errors -------------------------------------------------------------

def bad_floor_of_int(x):
    return fx.math.floor(x.to(fx.Int32))  # L:floor_int


def bad_exp_of_f8(x):
    return fx.math.exp(x.to(fx.Float8E4M3FN))  # L:exp_f8


def bad_pow_of_tensor(x):
    return fx.math.pow(x, "two")  # L:pow_str


@pytest.mark.parametrize("fn, marker, message", [
    (bad_floor_of_int, "floor_int", "fx.math.floor takes a float, not Int32"),
    (bad_exp_of_f8, "exp_f8", "storage type"),
    (bad_pow_of_tensor, "pow_str", "not a str"),
])
def test_math_errors(gfx942, fn, marker, message):
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        compile_scalar(fn)
    assert e.value.filename == THIS_FILE
    assert e.value.lineno == _LINES[marker]


# -- fx.arith -------------------------------------------------------------------

def test_arith_constant_select_cast(arch):
    def body(x):
        k = fx.arith.constant(3, fx.Int16)
        i = fx.arith.cast(x, fx.Int32)                # fptosi
        u = fx.arith.cast(x, fx.Uint8)                # fptoui
        h = fx.arith.cast(x, fx.Float16)              # truncf
        d = fx.arith.cast(h, fx.Float64)              # extf
        f = fx.arith.cast(u, fx.Float32)              # uitofp
        g = fx.arith.cast(k, fx.Float32)              # sitofp
        w = fx.arith.cast(k, fx.Int64)                # extsi
        n = fx.arith.cast(w, fx.Int8)                 # trunci
        nz = fx.arith.cast(i, fx.Boolean)             # i != 0
        s = fx.arith.select(nz, f, 2.0)
        return s + g + fx.arith.cast(d, fx.Float32) + fx.arith.cast(n, fx.Float32) \
            + fx.arith.cast(u, fx.Float32)
    c = compile_scalar(body)
    ops = ops_of(c.module_text)
    for op in ["arith.fptosi", "arith.fptoui", "arith.truncf", "arith.extf", "arith.uitofp",
               "arith.sitofp", "arith.extsi", "arith.trunci", "arith.cmpi", "arith.select"]:
        assert op in ops, op
    assert "value = 3 : i16" in c.module_text
    assert has_isa(c, "v_cndmask_b32")


def test_arith_bitcast_index_cast(arch):
    def body(x):
        bits = fx.arith.bitcast(x, fx.Int32)
        idx = fx.arith.index_cast(bits, fx.arith.Index)
        back = fx.arith.index_cast(idx + 1, fx.Int32)
        ubits = fx.arith.bitcast(x, fx.Uint32)
        uidx = fx.arith.index_cast(ubits, fx.arith.Index)
        return fx.arith.bitcast(back, fx.Float32) + fx.arith.cast(uidx, fx.Float32)
    c = compile_scalar(body)
    ops = ops_of(c.module_text)
    assert {"arith.bitcast", "arith.index_cast", "arith.index_castui"} <= ops
    assert "-> (index)" in c.module_text


def test_arith_vector_casts(arch):
    def body(v):
        i = fx.arith.cast(v, fx.Int32)
        bits = fx.arith.bitcast(v, fx.Uint32)
        sel = fx.arith.select(fx.arith.cast(i, fx.Boolean), v, 0.0)
        return sel + fx.arith.cast(bits, fx.Float32) + fx.arith.cast(i, fx.Float32)
    c = compile_vector(body)
    text = c.module_text
    assert "-> (vector<4xi32>)" in text and "-> (vector<4xi1>)" in text
    assert "arith.select" in text


def test_arith_ceil_div_shifts(arch):
    def body(x):
        i = x.to(fx.Int32)
        u = x.to(fx.Uint32)
        a = fx.arith.ceil_div(i, i + 3) + fx.arith.ceil_div(u, 5).to(fx.Int32)
        b = fx.arith.shl(i, 2) + fx.arith.shr(i, 1) + fx.arith.shr(u, 1).to(fx.Int32)
        c = fx.arith.shr(i, 1, arithmetic=False)
        return (a + b + c + fx.arith.max(i, 4) + fx.arith.min(u, 4).to(fx.Int32)).to(fx.Float32)
    c = compile_scalar(body)
    ops = ops_of(c.module_text)
    assert {"arith.ceildivsi", "arith.ceildivui", "arith.shli",
            "arith.shrsi", "arith.shrui", "arith.maxsi", "arith.minui"} <= ops
    assert has_isa(c, "v_ashrrev_i32", "v_lshrrev_b32")
    assert fx.arith.ceil_div(7, 2) == 4 and fx.arith.ceil_div(-7, 2) == -3
    assert fx.arith.shl(1, 4) == 16 and fx.arith.shr(-8, 1) == -4


def bad_bitcast_width(x):
    return fx.arith.bitcast(x, fx.Int16)  # L:bitcast_width


def bad_select_cond(x):
    return fx.arith.select(x, x, x)  # L:select_cond


def bad_ceil_div_float(x):
    return fx.arith.ceil_div(x, 2)  # L:ceil_div_float


def bad_constant_range(x):
    return x + fx.arith.constant(300, fx.Int8).to(fx.Float32)  # L:constant_range


def bad_cast_type(x):
    return fx.arith.cast(x, "f32")  # L:cast_type


@pytest.mark.parametrize("fn, marker, message", [
    (bad_bitcast_width, "bitcast_width", "Float32 has 32 bits and Int16 16"),
    (bad_select_cond, "select_cond", "the condition must be a Boolean"),
    (bad_ceil_div_float, "ceil_div_float", "takes integers, not Float32"),
    (bad_constant_range, "constant_range", "300 is out of range for Int8"),
    (bad_cast_type, "cast_type", "must be a numeric class"),
])
def test_arith_errors(gfx942, fn, marker, message):
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        compile_scalar(fn)
    assert e.value.filename == THIS_FILE
    assert e.value.lineno == _LINES[marker]


# -- wave shuffles ----------------------------------------------------------------

SHUFFLES = {
    "idx": lambda x: fx.shuffle_idx(x, fx.thread_idx.x ^ 1, fx.num_warp_threads()),
    "xor": lambda x: fx.shuffle_xor(x, 1, 32),
    "up": lambda x: fx.shuffle_up(x, 2, 32),
    "down": lambda x: fx.shuffle_down(x, 4, 16),
}


@pytest.mark.parametrize("mode", sorted(SHUFFLES))
def test_shuffle(arch, mode):
    c = compile_scalar(SHUFFLES[mode])
    text = c.module_text
    assert f"#gpu<shuffle_mode {mode}>" in text
    assert "value = 16 : i32" in text or mode != "down"
    assert has_isa(c, "ds_bpermute_b32"), isa_ops(c)
    no_calls(c)


def test_shuffle_uniform_lane_readlane(arch):
    c = compile_scalar(lambda x: fx.shuffle_idx(x, 5, fx.num_warp_threads()))
    assert has_isa(c, "v_readlane_b32"), isa_ops(c)


def test_shuffle_types_and_valid(arch):
    def body(x):
        h = fx.shuffle_xor(x.to(fx.Float16), 2, 32)
        d = fx.shuffle_xor(x.to(fx.Float64), 2, 32)
        b = fx.shuffle_down(x > 0.0, 1, 32)
        v = fx.shuffle_up(x, 1, 32)
        assert type(h) is fx.Float16 and type(d) is fx.Float64 and type(b) is fx.Boolean
        return h.to(fx.Float32) + d.to(fx.Float32) + fx.arith.select(b, v, 0.0)
    c = compile_scalar(body)
    assert c.module_text.count('"gpu.shuffle"') == 4  # f64: one op, two dwords in the ISA
    assert "(i32, i32, i32) -> (i32, i1)" in c.module_text
    assert "(f64, i32, i32) -> (f64, i1)" in c.module_text
    assert len([o for o in isa_ops(c) if o.startswith("ds_bpermute_b32")]) >= 5


def test_shuffle_vector(arch):
    c = compile_vector(lambda v: fx.shuffle_xor(v, 1, 32))
    assert c.module_text.count('"gpu.shuffle"') == 4
    assert has_isa(c, "ds_bpermute_b32")


def test_num_warp_threads(arch):
    c = compile_scalar(lambda x: x + float(fx.num_warp_threads()))
    # A Python int of the chip: 64.0 or 32.0 is added.
    assert ("value = 64.0" if arch == "gfx942" else "value = 32.0") in c.module_text


def bad_shuffle_width(x):
    return fx.shuffle_xor(x, 1, width=48)  # L:shuffle_width


def bad_shuffle_offset(x):
    return fx.shuffle_down(x, 1.5, 32)  # L:shuffle_offset


@pytest.mark.parametrize("fn, marker, message", [
    (bad_shuffle_width, "shuffle_width", "width=48 is not a power of two"),
    (bad_shuffle_offset, "shuffle_offset", "offset must be an int or a scalar integer numeric"),
])
def test_shuffle_errors(gfx942, fn, marker, message):
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        compile_scalar(fn)
    assert e.value.filename == THIS_FILE
    assert e.value.lineno == _LINES[marker]


# -- printf -------------------------------------------------------------------------

def uses_printf(x):
    fx.printf("x = %f\n", x)  # L:printf
    return x


def test_printf_is_a_clear_error(gfx942):
    with pytest.raises(TraceError, match="ROCm device library") as e:
        compile_scalar(uses_printf)
    assert e.value.filename == THIS_FILE
    assert e.value.lineno == _LINES["printf"]
    assert "__ockl_printf_begin" in str(e.value)


# -- element-by-element code becomes packed math ------------------------------

@flyc.kernel
def f16_elementwise_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    tA, tB, tC = (fx.slice(fx.zipped_divide(t, (8,)), (None, tid)) for t in (A, B, C))
    rA, rB, rC = (fx.make_fragment_like(t) for t in (tA, tB, tC))
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float16)
    fx.copy(atom, tA, rA)
    fx.copy(atom, tB, rB)
    for i in fx.range_constexpr(8):
        rC[i] = rA[i] * rB[i] + rA[i]
    fx.copy(atom, rC, tC)


@flyc.jit
def run_f16_elementwise(A, B, C):
    f16_elementwise_kernel(A, B, C).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_elementwise_f16_on_a_fragment_is_packed_math(gfx942):
    """Eight f16 products and sums written one element at a time reach the
    ISA as four v_pk_mul_f16 and four v_pk_add_f16 (LLVM's SLP vectorizer in
    the optimization pipeline pairs them), and no scalar f16 multiply."""
    a = np.zeros(512, np.float16)
    ops = isa_ops(flyc.compile(run_f16_elementwise, a, a.copy(), a.copy()))
    assert ops.count("v_pk_mul_f16") == 4 and ops.count("v_pk_add_f16") == 4, ops
    assert not [o for o in ops if o.startswith("v_mul_f16")], ops
