"""The API FlyDSL's kernel library calls beyond fx's catalog: the raw-value
helpers of flydsl.expr.utils.arith and fx.arith (conversions, bit ops,
constants, fastmath), numerics' `ir_value()` as an ArithValue, vector
ArithValues' elements, fx.rocdl's MFMA intrinsics in FlyDSL's operand-list
form and permlane swaps on raw values, the legacy LDS allocator
(flydsl.utils.smem_allocator with CompilationContext.gpu_module_body),
fx.rocdl.cluster, and @autotune over a plain dispatcher function. Values on
the emulator against numpy, IR and ISA where the emulator has no say, and
the errors at the user's line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines
from flydsl._mlir import ir
from flydsl._mlir.dialects import llvm, memref
from flydsl.autotune import Config, autotune
from flydsl.compiler.kernel_function import CompilationContext
from flydsl.expr import arith, rocdl
from flydsl.expr.typing import T
from flydsl.expr.utils import arith as ua
from flydsl.expr.utils.arith import ArithValue
from flydsl.tracing.errors import TraceError
from flydsl.utils.smem_allocator import SmemAllocator, SmemPtr

LINES = marker_lines(__file__)
N = 64


def on_emu(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@flyc.kernel
def _kernel(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    tid = fx.thread_idx.x
    C[tid] = C.element_type(fn(A[tid]))


@flyc.jit
def _run(A: fx.Tensor, C: fx.Tensor, fn: fx.Constexpr):
    _kernel(A, C, fn).launch(grid=(1, 1, 1), block=(N, 1, 1))


def _apply(fn, a, out_dtype):
    c = np.zeros(N, out_dtype)
    _run(a, c, fn)
    return c


FLOATS = (np.linspace(-40.0, 40.0, N) + 0.3).astype(np.float32)
INTS = np.arange(-N * 997, N * 997, 2 * 997, dtype=np.int32)


# -- flydsl.expr.utils.arith / fx.arith: raw-value helpers --------------------------

def _bf16(a):
    """f32 values rounded to bf16 (to nearest even), as f32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


CONVERSIONS = {
    # f32 -> f16 -> bf16 (same width: through f32) -> f32
    "fp_to_fp": (FLOATS, np.float32,
                 lambda a: ua.fp_to_fp(ua.fp_to_fp(ua.fp_to_fp(a, T.f16), T.bf16), T.f32),
                 lambda a: _bf16(a.astype(np.float16).astype(np.float32))),
    "fp_to_int": (FLOATS, np.int32, lambda a: ua.fp_to_int(a, True, T.i32),
                  lambda a: np.trunc(a).astype(np.int32)),
    "int_to_fp_signed": (INTS, np.float32, lambda a: arith.int_to_fp(a, True, T.f32),
                         lambda a: a.astype(np.float32)),
    "int_to_fp_unsigned": (INTS, np.float32, lambda a: ua.int_to_fp(a, False, T.f32),
                           lambda a: a.view(np.uint32).astype(np.float32)),
    # trunci to 16 bits, then extended by the value's signedness or by `signed=`
    "int_to_int_signed": (INTS, np.int32,
                          lambda a: ua.int_to_int(ua.int_to_int(a, fx.Int16), T.i32, signed=True),
                          lambda a: a.astype(np.int16).astype(np.int32)),
    "int_to_int_by_signedness": (INTS, np.int32,
                                 lambda a: ua.int_to_int(fx.Uint16(a), fx.Int32),
                                 lambda a: a.astype(np.uint16).astype(np.int32)),
    "bit_ops": (INTS, np.int32,
                lambda a: arith.xori(arith.andi(a.ir_value(), 0xFFF), arith.shli(3, a.ir_value() & 7)),
                lambda a: (a & 0xFFF) ^ (3 << (a & 7))),
    "sitofp_trunc_f": (INTS, np.float32,
                       lambda a: arith.trunc_f(T.f16, arith.sitofp(T.f32, a)).extf(T.f32),
                       lambda a: a.astype(np.float32).astype(np.float16).astype(np.float32)),
    # an i1 of ArithValue comparisons as fx.arith.select's condition: a raw select
    "raw_select": (INTS, np.int32,
                   lambda a: arith.select(ArithValue(a.ir_value()) > 0, a.ir_value(), fx.Int32(-1)),
                   lambda a: np.where(a > 0, a, -1)),
    "constants": (INTS, np.int32,
                  lambda a: ArithValue(arith.index_cast(T.i32, arith.index(7) * 3)) + a
                  + arith.unwrap(5) + arith.constant_vector(2, T.vec(4, T.i32))[1],
                  lambda a: a + 21 + 5 + 2),
}


@pytest.mark.parametrize("case", sorted(CONVERSIONS))
def test_raw_value_helpers_give_numpys_values(fly_env, case):
    on_emu(fly_env, "gfx942")
    a, dtype, fn, ref = CONVERSIONS[case]
    np.testing.assert_array_equal(_apply(fn, a, dtype), ref(a))


def test_recast_type_and_fastmath(fly_env):
    on_emu(fly_env, "gfx942")
    seen = {}

    def probe(a):
        v = a.ir_value()
        seen["recast"] = (str(ua.recast_type(T.vec(4, T.f32), T.f16)), str(ua.recast_type(T.f32, T.i8)))
        seen["outside"] = arith.resolve_fastmath(None)
        with ua.fastmath(arith.FastMathFlags.nnan | arith.FastMathFlags.ninf):
            seen["inside"] = (arith.resolve_fastmath(None), arith.resolve_fastmath("fast"))
            w = ua.fp_to_fp(ua.fp_to_fp(v, T.f16), T.f32)
        return w

    compiled = flyc.compile(_run, FLOATS, np.zeros(N, np.float32), probe)
    assert seen == {"recast": ("vector<4xf16>", "i8"), "outside": None,
                    "inside": ("nnan,ninf", "fast")}
    assert re.search(r'"arith.extf"\(%\d+\) \{fastmath = #arith.fastmath<nnan,ninf>\} : '
                     r'\(f16\) -> \(f32\)', compiled.module_text)


def test_numerics_ir_value_is_an_arith_value(fly_env):
    """FlyDSL's helpers call operators and methods on `x.ir_value()`."""
    on_emu(fly_env, "gfx942")
    seen = {}

    def probe(a):
        f = a.ir_value()
        u = fx.Uint32(7).ir_value()
        vec = fx.Vector.filled((4,), 1.5, fx.Float32).ir_value()
        seen["types"] = (type(f).__name__, u.signed, type(vec).__name__, len(vec))
        bits = (f.bitcast(T.i32) & 0x7FFFFFFF).bitcast(T.f32)  # |a|
        return bits + vec[2] + sum(vec)

    np.testing.assert_allclose(_apply(probe, FLOATS, np.float32), np.abs(FLOATS) + 1.5 + 6.0)
    assert seen["types"] == ("ArithValue", False, "ArithValue", 4)


def test_raw_value_helper_errors(fly_env):
    on_emu(fly_env, "gfx942")
    cases = [
        (lambda a: ua.fp_to_fp(fx.Int32(1) + 0, T.f16), "ffp", "fp_to_fp", "a float value"),  # L:ffp
        (lambda a: ua.int_to_int(a, T.f32), "i2i", "int_to_int", "an integer value"),  # L:i2i
        (lambda a: a.ir_value()[0], "sub", "a scalar value has no elements"),  # L:sub
    ]
    for fn, marker, *fragments in cases:
        with pytest.raises(TraceError) as err:
            _apply(fn, FLOATS, np.float32)
        assert err.value.lineno == LINES[marker], str(err.value)
        for fragment in fragments:
            assert fragment in str(err.value)


# -- fx.rocdl: MFMA in FlyDSL's operand-list form, permlane swaps on raw values ------

def test_mfma_takes_one_operand_list_with_int_modifiers(fly_env):
    on_emu(fly_env, "gfx942")

    @flyc.kernel
    def kernel(A: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        a = fx.Int64(A[tid])  # eight fp8 (e4m3fnuz) per lane
        acc = arith.constant_vector(1.0, T.f32x4)
        acc = rocdl.mfma_f32_16x16x32_fp8_fp8(T.f32x4, [a, a.ir_value(), acc, 0, 0, 0])
        C[tid] = fx.Float32(acc[0] + acc[3])

    @flyc.jit
    def run(A: fx.Tensor, C: fx.Tensor):
        kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))

    ones = np.full(N, 0x4040404040404040, np.int64)  # 1.0 in every byte
    c = np.zeros(N, np.float32)
    run(ones, c)
    np.testing.assert_array_equal(c, np.full(N, 2 * (32 + 1), np.float32))


def test_permlane32_swap_takes_raw_values_and_gives_the_pair_struct(fly_env):
    on_emu(fly_env, "gfx950")

    @flyc.kernel
    def kernel(A: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        v = A[tid].ir_value()
        pair = rocdl.permlane32_swap(ir.Type.parse("!llvm.struct<(i32, i32)>"), v, v + 1000,
                                     False, False)
        lo, hi = llvm.extractvalue(T.i32, pair, [0]), llvm.extractvalue(T.i32, pair, [1])
        d, s = pair  # FlyDSL-style unpacking into Int32 too
        C[tid] = fx.Int32(lo * 100000 + hi + (d - lo) + (s - hi))

    @flyc.jit
    def run(A: fx.Tensor, C: fx.Tensor):
        kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))

    a = np.arange(N, dtype=np.int32)
    c = np.zeros(N, np.int32)
    run(a, c)
    lane = np.arange(N)
    new_old = np.where(lane < 32, a, a - 32 + 1000)  # lanes 32-63 of old <- src's 0-31
    new_src = np.where(lane < 32, a + 32, a + 1000)  # lanes 0-31 of src <- old's 32-63
    np.testing.assert_array_equal(c, new_old * 100000 + new_src)


def test_permlane_swap_raw_operand_of_another_type_is_an_error(fly_env):
    on_emu(fly_env, "gfx950")
    with pytest.raises(TraceError) as err:
        _apply(lambda a: rocdl.permlane32_swap(None, a.ir_value(), 0, False, False),  # L:pty
               FLOATS, np.float32)
    assert err.value.lineno == LINES["pty"]
    assert "old is a value of type f32 but res is i32" in str(err.value)


# -- the legacy LDS allocator -----------------------------------------------------------

_ALLOCATOR = SmemAllocator(None, arch="gfx942")
_REVERSED_AT = _ALLOCATOR._align(_ALLOCATOR.ptr + 4, 16)  # a few bytes in, aligned
_ALLOCATOR.ptr = _REVERSED_AT + N * 4


@flyc.kernel
def _reverse_kernel(A: fx.Tensor, C: fx.Tensor):
    tid = fx.thread_idx.x
    lds = SmemPtr(_ALLOCATOR.get_base(), _REVERSED_AT, T.f32, shape=(N,))
    SmemPtr.store(lds, A[tid].ir_value(), [arith.index_cast(T.index, tid)])
    fx.gpu.barrier()
    C[tid] = fx.Float32(lds.load([arith.index_cast(T.index, (N - 1) - tid)]) * 2.0)


@flyc.jit
def _reverse(A: fx.Tensor, C: fx.Tensor):
    _ALLOCATOR.finalized = False
    with ir.InsertionPoint(CompilationContext.get_current().gpu_module_body):
        _ALLOCATOR.finalize()
    _reverse_kernel(A, C).launch(grid=(1, 1, 1), block=(N, 1, 1))


def test_smem_allocator_gives_lds_in_the_gpu_module(fly_env):
    on_emu(fly_env, "gfx942")
    c = np.zeros(N, np.float32)
    _reverse(FLOATS, c)
    np.testing.assert_array_equal(c, FLOATS[::-1] * 2)
    text = flyc.compile(_reverse, FLOATS, c).module_text
    # the buffer: _REVERSED_AT + 256 bytes rounded up to 128
    assert ('"memref.global"() {sym_name = "smem_storage", sym_visibility = "private", type = '
            'memref<384xi8, #gpu.address_space<workgroup>>, alignment = 1024 : i64}') in text


def test_smem_allocator_checks_the_chips_capacity():
    allocator = SmemAllocator(None, arch="gfx942")
    allocator.ptr = 64 * 1024 + 1
    with pytest.raises(RuntimeError, match="65664 bytes requested, but a workgroup on gfx942"):
        allocator.finalize()  # (the size rounded up to 128 bytes)
    assert not allocator.finalized


def test_a_module_level_symbol_verifies_in_a_module_body():
    """memref.global is verified where it is built (the verifier's symbol
    table check does not fail it for the function around it)."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            memref.global_(sym_name="lds", type_=ir.MemRefType.get(
                [64], ir.IntegerType.get_signless(8), memory_space=fx.gpu.lds_space()))
        assert module.operation.verify()
        assert "memref.global @lds : memref<64xi8, #gpu.address_space<workgroup>>" in str(module)


# -- fx.rocdl.cluster (gfx1250) -------------------------------------------------------

def test_cluster_barrier_and_ids_compile_for_gfx1250(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)
    from flydsl.expr.rocdl import cluster

    assert fx.rocdl.cluster is cluster and fx.rocdl.wave_id is cluster.wave_id
    assert fx.rocdl.cluster_workgroup_id_z is cluster.cluster_workgroup_id_z

    def body(a):
        x, y = cluster.compute_cluster_position()
        cluster.cluster_barrier()
        return ArithValue(cluster.wave_id()) + arith.index_cast(T.i32, x + y * 2) + a

    compiled = flyc.compile(_run, INTS, np.zeros(N, np.int32), body)
    isa = [line.split("//")[0].strip() for line in compiled.isa().splitlines()]
    assert "s_barrier_signal -3" in isa and "s_barrier_wait 0xfffd" in isa  # the cluster's
    assert "s_barrier_signal -1" in isa  # the workgroup barrier first
    assert "llvm.amdgcn.cluster.workgroup.id.x" in compiled.module_text
    assert "llvm.amdgcn.wave.id" in compiled.module_text


@flyc.jit
def _clustered(A: fx.Tensor, C: fx.Tensor, cluster: fx.Constexpr):
    _kernel(A, C, lambda a: a + 1).launch(grid=(4, 1, 1), block=(N, 1, 1),  # L:cl
                                          cluster=cluster)


def test_launch_in_clusters(fly_env):
    """launch(cluster=...) as FlyDSL's gfx1250 kernels call it: the launch's
    cluster shape, which the kernel is compiled for too."""
    fly_env(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_RUNTIME_KIND=None)
    text = flyc.compile(_clustered, INTS, np.zeros(N, np.int32), (2,)).module_text
    assert "fly.cluster_dims = array<i32: 2, 1, 1>" in text
    (launch,) = [line for line in text.splitlines() if "gpu.launch_func" in line]
    assert re.search(r"@_kernel clusters in \(%\d+, %\d+, %\d+\) blocks in", launch)
    plain = flyc.compile(_clustered, INTS, np.zeros(N, np.int32), None).module_text
    assert "cluster_dims" not in plain and "clusters in" not in plain
    with pytest.raises(TraceError) as err:
        flyc.compile(_clustered, INTS, np.zeros(N, np.int32), (2, 0))
    assert err.value.lineno == LINES["cl"] and "cluster=(2, 0): give 1 to 3 positive" in str(
        err.value)


# -- @autotune over a plain function ---------------------------------------------------

@flyc.jit
def _scale(A: fx.Tensor, C: fx.Tensor, factor: fx.Constexpr[int]):
    _kernel(A, C, lambda a: a * factor).launch(grid=(1, 1, 1), block=(N, 1, 1))


def _dispatch(A, C, n, factor=None):
    """A plain function launching a jit function, as FlyDSL's kernel
    library's dispatchers are; records the hints its calls compile with."""
    _HINTS.append(CompilationContext.get_compile_hints())
    _scale(A, C, factor)


_HINTS: list = []


def test_autotune_decorates_a_plain_function(fly_env, tmp_path, monkeypatch):
    on_emu(fly_env, "gfx942")
    fly_env(FLYDSL_AUTOTUNE_CACHE_DIR=str(tmp_path / "tune"))
    tuner = autotune(configs=[Config(factor=2), Config(factor=3, waves_per_eu=2)],
                     key=["n"])(_dispatch)
    assert tuner._artifact_cache == {} and tuner.__name__ == "_dispatch"
    times = iter([5.0, 1.0])  # the second config is faster
    monkeypatch.setattr(tuner, "_do_bench", lambda call, warmup, rep: (call(), next(times))[1])
    a, c = INTS.copy(), np.zeros(N, np.int32)
    _HINTS.clear()
    tuner(a, c, N)
    np.testing.assert_array_equal(c, INTS * 3)  # the chosen config ran last
    assert tuner.best_config == Config(factor=3, waves_per_eu=2)
    assert _HINTS == [{}, {"waves_per_eu": 2}, {"waves_per_eu": 2}]
    (entry,) = json.loads((tmp_path / "tune" / "_dispatch.json").read_text()).values()
    assert entry["config"] == {"factor": 3, "waves_per_eu": 2}

    # FlyDSL's test hooks: the disk cache's file and the per-config runs
    tuner.cache.clear()
    monkeypatch.setattr(tuner, "_cache_file", tmp_path / "elsewhere.json")
    ran = []
    monkeypatch.setattr(tuner, "_bench_one", lambda config, args, kwargs: float(config.kwargs["factor"]))
    original = tuner._run_config
    monkeypatch.setattr(tuner, "_run_config",
                        lambda config, args, kwargs: (ran.append(config), original(config, args, kwargs)))
    tuner(a, c, N + 1)
    assert ran == [Config(factor=2)] and (tmp_path / "elsewhere.json").exists()
    np.testing.assert_array_equal(c, INTS * 2)


