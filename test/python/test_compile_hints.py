"""FlyDSL's compile hints reach the code object: `maxnreg` and `waves_per_eu`
bound the VGPRs the register allocator may use (read back from the code
object's resources), `fast_fp_math` / `fastmath` put fast-math flags on the
traced float ops (an f32 division becomes a reciprocal and a multiply in the
ISA), and a bad hint value is a located error."""

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.tracing.errors import ArgumentError

N = 96  # values each work-item keeps live at once: ~100 VGPRs unhinted


def make_reverse(**attrs):
    """A fresh jit function (hints stay on a function, so each test has its
    own): every work-item loads N values, then stores them reversed; the
    kernel is called with `attrs` (unit_attrs=, value_attrs=)."""

    @flyc.kernel
    def reverse(a: fx.Tensor, c: fx.Tensor):
        base = fx.thread_idx.x * N
        vals = [a[base + j] for j in fx.range_constexpr(N)]
        for j in fx.range_constexpr(N):
            c[base + j] = vals[N - 1 - j] * 2.0

    @flyc.jit
    def run(a: fx.Tensor, c: fx.Tensor):
        reverse(a, c, **attrs).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return run


def make_divide():
    @flyc.kernel
    def divide(a: fx.Tensor, b: fx.Tensor, c: fx.Tensor):
        i = fx.thread_idx.x
        c[i] = a[i] / b[i]

    @flyc.jit
    def run(a: fx.Tensor, b: fx.Tensor, c: fx.Tensor):
        divide(a, b, c).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return run


def vgprs(compiled):
    (res,) = compiled.resources.values()
    return res["vgprs"], res["scratch_bytes"]


def compile_with(fn, hints, *args):
    return flyc.compile[hints](fn, *args) if hints else flyc.compile(fn, *args)


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100"])
def test_maxnreg_bounds_the_vgprs(fly_env, chip):
    fly_env(COMPILE_ONLY="1", ARCH=chip, FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    free, free_scratch = vgprs(compile_with(make_reverse(), {}, a, a))
    bound, scratch = vgprs(compile_with(make_reverse(), {"maxnreg": 40}, a, a))
    assert free > 64 and free_scratch == 0
    assert bound <= 40 and scratch > 0  # the rest spilled


def test_waves_per_eu_bounds_the_vgprs(fly_env):
    # gfx942: 512 VGPRs per SIMD lane, so 8 waves leave 64 to each.
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    free, _ = vgprs(compile_with(make_reverse(), {}, a, a))
    bound, _ = vgprs(compile_with(make_reverse(), {"waves_per_eu": 8}, a, a))
    assert free > 64 >= bound


def division_ops(compiled):
    return sorted({line.split()[0] for line in compiled.isa().splitlines()
                   if line.strip().startswith(("v_div", "v_rcp", "v_mul_f32"))})


@pytest.mark.parametrize("hints, fast", [({}, False), ({"fast_fp_math": True}, True),
                                         ({"fastmath": "fast"}, True),
                                         ({"fastmath": fx.arith.FastMathFlags.nnan}, False),
                                         ({"unsafe_fp_math": True}, False)])
def test_fast_math_hints_reach_the_isa(fly_env, hints, fast):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.ones(64, np.float32)
    ops = division_ops(compile_with(make_divide(), hints, a, a, a))
    if fast:
        assert "v_rcp_f32_e32" in ops and not any(op.startswith("v_div") for op in ops), ops
    else:  # the correctly rounded expansion
        assert {"v_div_scale_f32", "v_div_fmas_f32", "v_div_fixup_f32"} <= set(ops), ops


def test_fast_math_results_on_the_emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu")
    rng = np.random.default_rng(3)
    a = rng.uniform(-4, 4, 64).astype(np.float32)
    b = rng.uniform(0.5, 8, 64).astype(np.float32)
    c = np.zeros(64, np.float32)
    compile_with(make_divide(), {"fast_fp_math": True}, a, b, c)(a, b, c)
    np.testing.assert_allclose(c, a / b, rtol=1e-6)


@pytest.mark.parametrize("hints, message", [
    ({"fastmath": "bogus"}, r"compile hint fastmath='bogus': fastmath: unknown flag 'bogus'"),
    ({"fastmath": True}, r"compile hint fastmath=True: fastmath: expected"),
    ({"nosuch": 1}, r"compile hint 'nosuch' is not one of waves_per_eu, maxnreg"),
])
def test_bad_hints_are_located_errors(hints, message):
    with pytest.raises(ArgumentError, match=message) as info:
        flyc.compile[hints]
    assert info.value.filename == __file__


def test_compile_subscript_takes_a_dict():
    """flyc.compile[...] of anything but a dict: a located TypeError, as FlyDSL's."""
    with pytest.raises(TypeError) as info:
        flyc.compile["not_a_dict"]  # L:not_a_dict
    assert isinstance(info.value, ArgumentError)
    assert info.value.bare_message == ("flyc.compile[...] expects a dict of compile hints, got "
                                       "str 'not_a_dict'")
    assert (info.value.filename, info.value.lineno) == (__file__,
                                                        marker_lines(__file__)["not_a_dict"])


def test_bad_hint_values_are_errors_when_compiling(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    with pytest.raises(ArgumentError, match=r"compile hint maxnreg=-1: a non-negative int"):
        compile_with(make_reverse(), {"maxnreg": -1}, a, a)


# -- a kernel call's unit_attrs= / value_attrs=, as FlyDSL's -----------------

def test_kernel_attributes_reach_the_gpu_func_and_the_code_object(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    free, _ = vgprs(flyc.compile(make_reverse(), a, a))
    attrs = dict(value_attrs={"rocdl.waves_per_eu": 8, "left_out": None, "n": [1, True, "x"],
                              "d": {"k": 2}, "s": 'a "b"\\\nc'},
                 unit_attrs=["fly.test_unit"])
    compiled = flyc.compile(make_reverse(**attrs), a, a)
    (func,) = [line for line in compiled.module_text.splitlines() if "gpu.func @" in line]
    assert ('attributes {known_block_size = array<i32: 64, 1, 1>, "fly.test_unit", '
            '"rocdl.waves_per_eu" = 8 : i32, "n" = [1 : i32, true, "x"], '
            '"d" = {"k" = 2 : i32}, "s" = "a \\"b\\"\\\\\\0Ac"} {') in func
    assert "left_out" not in func
    bound, _ = vgprs(compiled)
    assert free > 64 >= bound   # as the waves_per_eu hint: 8 waves leave 64 VGPRs


@pytest.mark.parametrize("attrs, message", [
    ({"value_attrs": [("a", 1)]}, r"value_attrs= is a dict"),
    ({"unit_attrs": "rocdl.x"}, r"unit_attrs= is a list"),
    ({"value_attrs": {"a": 1.5}}, r"value_attrs\['a'\]: a value of type float"),
    ({"value_attrs": {"a": 1 << 40}}, r"does not fit the attribute's 32 bits"),
    ({"value_attrs": {"known_block_size": 1}}, r"'known_block_size' is the compiler's own"),
    ({"unit_attrs": [""]}, r"an attribute name is a non-empty str")])
def test_bad_kernel_attributes_are_located_errors(fly_env, attrs, message):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    fn = make_reverse(**attrs)
    with pytest.raises(flyc.TraceError, match=message) as err:
        flyc.compile(fn, a, a)
    assert err.value.filename == __file__


def test_hints_changed_in_place_are_checked_and_recompile(fly_env):
    # FlyDSL's kernels set hints on the function's dict in place.
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64 * N, np.float32)
    fn = make_reverse()
    free, _ = vgprs(flyc.compile(fn, a, a))
    fn.compile_hints["waves_per_eu"] = 8
    assert fn.compile_hints == {"waves_per_eu": 8} and isinstance(fn.compile_hints, dict)
    bound, _ = vgprs(flyc.compile(fn, a, a))
    assert free > 64 >= bound
    with pytest.raises(ArgumentError, match=r"compile hint 'nope' is not one of") as err:
        fn.compile_hints["nope"] = 1
    assert err.value.filename == __file__
    with pytest.raises(ArgumentError, match=r"compile hint 'nope' is not one of"):
        fn.compile_hints.update(nope=1)
    assert fn.compile_hints.pop("waves_per_eu") == 8
    assert fn.compile_hints == {} and vgprs(flyc.compile(fn, a, a))[0] == free
    fn.compile_hints.update(waves_per_eu=8)
    assert vgprs(flyc.compile(fn, a, a))[0] == bound
    fn.compile_hints.clear()
    assert fn.compile_hints == {}


def test_llvm_options_are_taken_and_reported_as_not_applied(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_KIND="hip")
    a = np.zeros(64, np.float32)
    fn = make_divide()
    fn.compile_hints["llvm_options"] = {"enable-post-misched": False}
    with pytest.warns(UserWarning, match=r"llvm_options \{'enable-post-misched': False\} is "
                                         r"not applied"):
        compiled = flyc.compile(fn, a, a, a)
    assert ("llvm_options", (("enable-post-misched", False),)) in compiled.options.compile_hints
    for bad in ({"x": 1.5}, [("x", True)], {1: True}):
        with pytest.raises(ArgumentError, match=r"llvm_options=.*a dict of LLVM option names"):
            fn.compile_hints["llvm_options"] = bad


# -- FlyDSL's ambient hints: CompilationContext.compile_hints ----------------------

def test_compilation_context_hints_reach_the_compile_and_end_with_the_block(fly_env):
    from flydsl.compiler.kernel_function import CompilationContext

    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu")
    run = make_divide()
    a = np.full(64, 3.0, np.float32)
    c = np.zeros(64, np.float32)
    run(a, a, c)  # compiled without hints, and on the native warm path now
    assert CompilationContext.get_compile_hints() == {} and CompilationContext.get_current() is None
    with CompilationContext.compile_hints({"fast_fp_math": True}):
        with CompilationContext.compile_hints({"waves_per_eu": 2}):  # nested blocks merge
            assert CompilationContext.get_compile_hints() == {"fast_fp_math": True,
                                                              "waves_per_eu": 2}
        run(a, a, c)  # not the warm path's code: compiled anew with the hints
        inside = run.compile(a, a, c)
        assert dict(inside.options.compile_hints)["fast_fp_math"] is True
        assert run.compile_hints == {}  # the function's own hints are untouched
    outside = run.compile(a, a, c)
    assert "fast_fp_math" not in dict(outside.options.compile_hints)
    assert inside is not outside
    np.testing.assert_array_equal(c, np.ones(64, np.float32))


def test_compilation_context_rejects_bad_hints():
    from flydsl.compiler.kernel_function import CompilationContext

    with pytest.raises(ArgumentError, match="compile hint 'nosuch' is not one of"):
        with CompilationContext.compile_hints({"nosuch": 1}):
            pass
    assert CompilationContext.get_compile_hints() == {}
