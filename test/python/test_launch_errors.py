"""Bad launches and bad calls give clear errors at the user's line.

- A launch whose block, grid or dynamic LDS is a static Python int is
  checked while it is traced: a TraceError at the `.launch(` line naming
  the kernel, the value and the limit (the chip's LDS per workgroup, 1024
  work-items per workgroup, the kernel's known_block_size); a ValueError
  too, as FlyDSL's.
- A launch with dimensions computed from tensor shapes is checked by the
  runtime when it runs: the error names the jit function, the kernel and
  the launch's line.
- A @flyc.jit function or a compiled function called with the wrong
  number of arguments or an unknown keyword: an ArgumentError (a TypeError)
  naming the function and its parameters. A compiled function called with a
  tensor it was not compiled for (dtype, rank, static extents, divisibility,
  alignment), another Constexpr value or a scalar of another type: an
  ArgumentError naming the parameter, what was compiled and what was given.

After each error a correct call still runs on the emulator and gives the
numpy result. Error lines are found by `# L:<name>` markers.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl.compiler import ArgumentError, FlyDSLError, TraceError

THIS_FILE = str(Path(__file__).resolve())
_LINES = {text.split("# L:")[1].split()[0]: i
          for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
          if "# L:" in text}


@pytest.fixture(autouse=True)
def emulator(fly_env):
    """Kernels run on the CPU emulator for gfx942."""
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None)


@pytest.fixture
def compile_only(fly_env):
    """Compiles for a chip given by the test, without running."""
    return lambda chip: fly_env(FLYDSL_RUNTIME_KIND=None, ARCH=chip, COMPILE_ONLY="1")


# -- kernels and host functions -------------------------------------------------

# (Not fx.block_dim: compiled for a chip, it needs the ROCm device libraries.)
@flyc.kernel
def add_one(A: fx.Tensor, B: fx.Tensor):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    B[i] = A[i] + 1.0


@flyc.kernel(known_block_size=(64, 1, 1))
def add_one_64(A: fx.Tensor, B: fx.Tensor):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    B[i] = A[i] + 1.0


@flyc.jit
def good(A, B):
    add_one(A, B).launch(grid=(A.shape[0] // 64, 1, 1), block=(64, 1, 1))


@flyc.jit
def good_64(A, B):
    add_one_64(A, B).launch(grid=(A.shape[0] // 64, 1, 1), block=(64, 1, 1), smem=0)


def check_good(n=256):
    """A correct launch after an error runs and gives numpy's result."""
    a = np.random.default_rng(n).random(n, dtype=np.float32)
    b = np.zeros_like(a)
    good(a, b)
    np.testing.assert_array_equal(b, a + 1.0)
    b[:] = 0
    good_64(a, b)
    np.testing.assert_array_equal(b, a + 1.0)


@flyc.jit
def block_too_big(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(2048, 1, 1))  # L:block_too_big


@flyc.jit
def block_too_big_2d(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64, 32, 1))  # L:block_too_big_2d


@flyc.jit
def block_empty(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64, 0, 1))  # L:block_empty


@flyc.jit
def grid_empty(A, B):
    add_one(A, B).launch(grid=(0,), block=(64,))  # L:grid_empty


@flyc.jit
def grid_negative(A, B):
    add_one(A, B).launch(grid=(4, -1, 1), block=(64, 1, 1))  # L:grid_negative


@flyc.jit
def smem_too_big(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=1 << 20)  # L:smem_too_big


@flyc.jit
def smem_negative(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=-4)  # L:smem_negative


@flyc.jit
def block_not_known(A, B):
    add_one_64(A, B).launch(grid=(1, 1, 1), block=(128, 1, 1))  # L:block_not_known


@flyc.jit
def block_float(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64.0, 1, 1))  # L:block_float


@flyc.jit
def block_4d(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(8, 8, 1, 1))  # L:block_4d


@flyc.jit
def multi_line(A, B):
    add_one(A, B).launch(  # L:multi_line
        grid=(1, 1, 1),
        block=(1024, 2, 1))


@pytest.mark.parametrize("fn, marker, message", [
    (block_too_big, "block_too_big",
     "launch of kernel add_one: block=(2048, 1, 1) is a workgroup of 2048 work-items, "
     "over the limit of 1024 work-items per workgroup"),
    (block_too_big_2d, "block_too_big_2d",
     "block=(64, 32, 1) is a workgroup of 2048 work-items, over the limit of 1024"),
    (block_empty, "block_empty",
     "launch of kernel add_one: block=(64, 0, 1): dimension y is 0; each dimension must be at least 1"),
    (grid_empty, "grid_empty", "grid=(0, 1, 1): dimension x is 0; each dimension must be at least 1"),
    (grid_negative, "grid_negative", "grid=(4, -1, 1): dimension y is -1"),
    (smem_too_big, "smem_too_big",
     "launch of kernel add_one: smem=1048576 bytes of dynamic LDS exceed the 65536 bytes of "
     "LDS a workgroup can have on gfx942"),
    (smem_negative, "smem_negative", "smem=-4: the dynamic LDS size cannot be negative"),
    (block_not_known, "block_not_known",
     "launch of kernel add_one_64: block=(128, 1, 1) differs from known_block_size=(64, 1, 1) "
     "in x (128 against 64)"),
    (block_float, "block_float", "block dimension x is 64.0, not an integer"),
    (block_4d, "block_4d", "block=(8, 8, 1, 1) has 4 dimensions; give 1 to 3"),
    (multi_line, "multi_line", "block=(1024, 2, 1) is a workgroup of 2048 work-items"),
])
def test_static_launch_errors_at_the_launch_line(fn, marker, message):
    a = np.zeros(64, np.float32)
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        fn(a, np.zeros_like(a))
    # (The Python types of the dimensions are the launch's own TraceErrors.)
    assert isinstance(e.value, ValueError) == (marker not in ("block_float", "block_4d"))
    assert e.value.filename == THIS_FILE
    assert e.value.lineno == _LINES[marker]
    assert str(e.value).startswith(f"{THIS_FILE}:{_LINES[marker]}: launch of kernel ")
    # Nothing was compiled or cached for the failing signature.
    assert not fn._compiled
    check_good()


def test_lds_limits_follow_the_chip(compile_only):
    """Dynamic LDS against each chip's LDS per workgroup."""

    def launcher(smem):
        @flyc.jit
        def with_lds(A, B):
            add_one(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=smem)  # L:with_lds
        return with_lds

    a = np.zeros(64, np.float32)
    for chip, limit in [("gfx942", 65536), ("gfx950", 163840), ("gfx1100", 65536),
                        ("gfx1201", 65536), ("gfx1250", 327680)]:
        compile_only(chip)
        assert launcher(limit)(a, a) is None  # compiles (COMPILE_ONLY): at the limit is fine
        with pytest.raises(TraceError) as e:
            launcher(limit + 1)(a, a)
        assert e.value.bare_message == (
            f"launch of kernel add_one: smem={limit + 1} bytes of dynamic LDS exceed the "
            f"{limit} bytes of LDS a workgroup can have on {chip}")
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["with_lds"])


@flyc.kernel
def with_static_lds(A: fx.Tensor, B: fx.Tensor):
    fx.SharedAllocator().allocate(40000)
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    B[i] = A[i] + 1.0


def test_static_lds_counts_against_the_chip(compile_only):
    """The kernel's static LDS plus the launch's dynamic LDS against the
    chip's LDS per workgroup (the compiler's check: the static part is
    known only there), located at the launch line."""

    def launcher(smem):
        @flyc.jit
        def static_and_dynamic(A, B):
            with_static_lds(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=smem)  # L:static_lds
        return static_and_dynamic

    a = np.zeros(64, np.float32)
    for chip, limit in [("gfx942", 65536), ("gfx950", 163840)]:
        compile_only(chip)
        with pytest.raises(TraceError) as e:
            launcher(limit - 39999)(a, a)
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["static_lds"])
        assert re.fullmatch(
            rf"launch of kernel with_static_lds: the kernel's (\d+) bytes of static LDS and "
            rf"smem={limit - 39999} bytes of dynamic LDS exceed the {limit} bytes of LDS a "
            rf"workgroup can have on {chip}", e.value.bare_message)
        static = int(re.search(r"kernel's (\d+) bytes", e.value.bare_message).group(1))
        assert static >= 40000  # the allocation, padding for alignment aside
        assert launcher(limit - static)(a, a) is None  # at the limit: compiles


def test_chip_table():
    """The launch checks read the compiler's chip table (fly/Arch/Chip.h)."""
    lds = {c: _fly.chip_info(c)["lds_bytes_per_workgroup"] for c in _fly.supported_chips()}
    assert lds == {"gfx942": 65536, "gfx950": 163840, "gfx1100": 65536, "gfx1101": 65536,
                   "gfx1102": 65536, "gfx1200": 65536, "gfx1201": 65536, "gfx1250": 327680}
    info = _fly.chip_info("gfx1100")
    assert (info["wave_size"], info["max_workgroup_size"], info["family"]) == (32, 1024, "RDNA3")
    assert info["has_wmma"] and not info["has_mfma"]
    with pytest.raises(ValueError, match="unknown chip gfx999; supported chips: gfx942"):
        _fly.chip_info("gfx999")
    # The facts the atoms read (AMD's ISA guides; LLVM's buffer.load.lds takes
    # 1, 2, 4 bytes, and 12, 16 on gfx950; gfx11 and later have no LDS DMA).
    facts = {c: (_fly.chip_info(c)["fp8_format"], _fly.chip_info(c)["lds_dma_bits"],
                 _fly.chip_info(c)["has_mfma"]) for c in _fly.supported_chips()}
    assert facts == {"gfx942": ("fnuz", [8, 16, 32], True),
                     "gfx950": ("ocp", [8, 16, 32, 96, 128], True),
                     **{c: ("ocp", [], False) for c in ("gfx1100", "gfx1101", "gfx1102",
                                                         "gfx1200", "gfx1201", "gfx1250")}}


@flyc.kernel(known_block_size=(64, 1, 1))
def lds_round_trip(A: fx.Tensor):
    tid = fx.thread_idx.x
    tile = fx.SharedAllocator().allocate_tensor(fx.Float32, fx.make_layout((64,), (1,)))
    tile[63 - tid] = tid.to(fx.Float32)
    fx.barrier()
    A[tid] = tile[63 - tid]


@flyc.jit
def dynamic_lds(A, smem):
    lds_round_trip(A).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=smem)  # a run-time size


def test_emulator_lds_limit_follows_the_chip(fly_env):
    """The emulator enforces the chip's LDS size, not a fixed 64 KiB: 100000
    bytes fit a gfx950 workgroup (160 KiB) but not a gfx942 one."""
    for chip, fits in (("gfx950", True), ("gfx942", False)):
        fly_env(FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None, ARCH=chip)
        a = np.zeros(64, np.float32)
        if fits:
            dynamic_lds(a, 100000)
            np.testing.assert_array_equal(a, np.arange(64, dtype=np.float32))
        else:
            with pytest.raises(flyc.FlyDSLError, match="exceeds the limit of 65536 bytes"):
                dynamic_lds(a, 100000)


# -- dynamic dimensions: the runtime's error, readable ---------------------------

@flyc.jit
def dynamic_block(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(A.shape[0], 1, 1))  # L:dynamic_block


@flyc.jit
def two_kernels(A, B):
    add_one(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1))  # L:first_launch
    add_one_64(A, B).launch(grid=(1, 1, 1), block=(A.shape[0], 1, 1))  # L:second_launch


def test_dynamic_block_error_names_function_kernel_and_line():
    a = np.zeros(4096, np.float32)
    b = np.zeros_like(a)
    with pytest.raises(FlyDSLError) as e:
        dynamic_block(a, b)
    assert e.value.bare_message == (
        "dynamic_block: launch of kernel add_one failed on the emulator: a workgroup of 4096 "
        "work-items (block 4096x1x1) exceeds the limit of 1024")
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["dynamic_block"])
    assert "status" not in str(e.value)
    # The same function with a valid size runs.
    a = np.arange(512, dtype=np.float32)
    b = np.zeros_like(a)
    dynamic_block(a, b)
    np.testing.assert_array_equal(b, a + 1.0)
    check_good()


def test_runtime_error_with_several_launches_lists_them():
    a = np.zeros(2048, np.float32)
    with pytest.raises(FlyDSLError) as e:
        two_kernels(a, np.zeros_like(a))
    message = str(e.value)
    assert message.startswith("two_kernels: a kernel launch failed on the emulator (one of: ")
    assert f"add_one at {THIS_FILE}:{_LINES['first_launch']}" in message
    assert f"add_one_64 at {THIS_FILE}:{_LINES['second_launch']}" in message
    assert message.endswith("a workgroup of 2048 work-items (block 2048x1x1) exceeds the limit of 1024")
    check_good()


# -- wrong calls of @flyc.jit and compiled functions -----------------------------

@flyc.jit
def with_default(A, B, scale: fx.Constexpr[int] = 1):
    add_one(A, B).launch(grid=(A.shape[0] // 64, 1, 1), block=(64, 1, 1))


def test_jit_call_with_wrong_arguments():
    a = np.zeros(64, np.float32)
    with pytest.raises(ArgumentError) as e:
        good(a, a, a)  # L:too_many
    assert e.value.bare_message == "good() takes 2 positional arguments (A, B), got 3"
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["too_many"])
    assert isinstance(e.value, TypeError)

    with pytest.raises(TypeError) as e:
        good(a)
    assert e.value.bare_message == ("good() missing a required argument: 'B'; its parameters "
                                    "are (A, B)")
    with pytest.raises(TypeError) as e:
        good(A=a, C=a)
    assert e.value.bare_message == ("good() got an unexpected keyword argument 'C'; its "
                                    "parameters are (A, B)")
    with pytest.raises(TypeError) as e:
        good(a, a, A=a)
    assert e.value.bare_message == ("good() got multiple values for argument 'A'; its "
                                    "parameters are (A, B)")
    with pytest.raises(TypeError) as e:
        with_default(a, a, 2, 3)
    assert e.value.bare_message == ("with_default() takes 2 to 3 positional arguments "
                                    "(A, B, scale=1), got 4")
    check_good()


@flyc.jit
def call_kernel_badly(A, B):
    add_one(A, B, A).launch(grid=(1, 1, 1), block=(64, 1, 1))  # L:kernel_args


def test_kernel_call_with_wrong_arguments():
    a = np.zeros(64, np.float32)
    with pytest.raises(ArgumentError) as e:
        call_kernel_badly(a, a)
    assert e.value.bare_message == "kernel add_one() takes 2 positional arguments (A, B), got 3"
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["kernel_args"])


def _compiled_good(a, b):
    compiled = flyc.compile(good, a, b)
    return compiled


def _run(compiled, n=256, offset=0):
    a = np.random.default_rng(n).random(n + offset, dtype=np.float32)[offset:]
    b = np.zeros_like(a)
    compiled(a, b)
    np.testing.assert_array_equal(b, a + 1.0)


def test_compiled_call_with_wrong_argument_count():
    a = np.zeros(256, np.float32)
    compiled = _compiled_good(a, a)
    with pytest.raises(ArgumentError) as e:
        compiled(a, a, a)  # L:compiled_too_many
    assert e.value.bare_message == "compiled good() takes 2 positional arguments (A, B), got 3"
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["compiled_too_many"])
    with pytest.raises(TypeError, match=re.escape(
            "compiled good() got an unexpected keyword argument 'X'; its parameters are (A, B)")):
        compiled(a, X=a)
    _run(compiled)


SUFFIX = (" (flyc.compile again for these arguments, or call the @flyc.jit function, "
          "which compiles per signature)")


def test_compiled_call_with_another_dtype_or_rank():
    a = np.zeros(256, np.float32)
    compiled = _compiled_good(a, a)
    for bad, message in [
        (np.zeros(256, np.float64),
         "argument 'B' of good was compiled for float32 tensors, got an ndarray of float64"),
        (np.zeros(256, np.int32),
         "argument 'B' of good was compiled for float32 tensors, got an ndarray of int32"),
        (np.zeros((16, 16), np.float32),
         "argument 'B' of good was compiled for tensors of rank 1 (shape (?,)), got an "
         "ndarray of float32 of rank 2 (shape (16, 16))"),
    ]:
        before = bad.copy()
        with pytest.raises(ArgumentError) as e:
            compiled(a, bad)  # L:compiled_dtype
        assert e.value.bare_message == message + SUFFIX
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["compiled_dtype"])
        np.testing.assert_array_equal(bad, before)  # nothing ran
    _run(compiled)


def test_compiled_static_layout_checks_extents_divisibility_and_alignment():
    a = np.zeros(256, np.float32)
    static = flyc.compile(good, flyc.from_dlpack(a), flyc.from_dlpack(a))
    with pytest.raises(ArgumentError) as e:
        static(np.zeros(128, np.float32), np.zeros(128, np.float32))
    assert e.value.bare_message == ("argument 'A' of good was compiled for shape (256,), "
                                    "got shape (128,)" + SUFFIX)
    _run(static)

    dyn = flyc.compile(good, flyc.from_dlpack(a).mark_shape_dynamic(0, divisibility=64),
                       flyc.from_dlpack(a).mark_shape_dynamic(0, divisibility=64))
    with pytest.raises(ArgumentError) as e:
        dyn(np.zeros(100, np.float32), np.zeros(100, np.float32))
    assert e.value.bare_message == ("argument 'A' of good: shape[0] = 100 is not a multiple "
                                    "of 64, as the code was compiled for (divisibility=64)" + SUFFIX)
    _run(dyn, 128)

    # Compiled for 16-byte aligned data; a view one element in is 4-byte aligned.
    base = np.zeros(256 + 4, np.float32)
    offset = (-_fly.data_address(base) % 16) // 4
    aligned = base[offset:offset + 256]
    assert flyc.from_dlpack(aligned).spec.align == 16
    compiled = _compiled_good(aligned, aligned)
    with pytest.raises(ArgumentError) as e:
        compiled(base[offset + 1:offset + 257], aligned)
    assert e.value.bare_message == ("argument 'A' of good was compiled for data aligned to 16 "
                                    "bytes, got an address aligned to 4 bytes" + SUFFIX)
    _run(compiled)


@flyc.jit
def scaled(A, B, n, k: fx.Constexpr[int]):
    add_one(A, B).launch(grid=(n // 64, 1, 1), block=(64 * k, 1, 1))


def test_compiled_scalars_and_constexprs():
    a = np.zeros(256, np.float32)
    compiled = flyc.compile(scaled, a, a, 256, 1)
    with pytest.raises(ArgumentError) as e:
        compiled(a, a, 256.0, 1)
    assert e.value.bare_message == ("argument 'n' of scaled was compiled for an i32 scalar, "
                                    "got float 256.0" + SUFFIX)
    with pytest.raises(ArgumentError) as e:
        compiled(a, a, 256, 2)
    assert e.value.bare_message == ("argument 'k' of scaled is a Constexpr compiled as 1, "
                                    "got 2" + SUFFIX)
    with pytest.raises(ArgumentError) as e:
        compiled(a, 3, 256, 1)
    assert "argument 'B' of scaled: a int is not a tensor" in e.value.bare_message
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    compiled(x, y, 128, 1)  # the first half only
    np.testing.assert_array_equal(y[:128], x[:128] + 1.0)
    np.testing.assert_array_equal(y[128:], 0.0)


def test_string_annotations_are_evaluated():
    """Under `from __future__ import annotations` an annotation is a string:
    fx.Constexpr[int] must still make a Constexpr, and one that does not
    evaluate is an error naming it at the decorator."""
    namespace = {}
    exec(compile("from __future__ import annotations\n"
                 "import flydsl.compiler as flyc\nimport flydsl.expr as fx\n"
                 "@flyc.jit\ndef f(A, n: fx.Constexpr[int]):\n    pass\n", "ann.py", "exec"),
         namespace)
    assert namespace["f"].signature.parameters["n"].annotation == fx.Constexpr[int]
    with pytest.raises(TraceError, match="the annotations of g do not evaluate: name "
                                         "'Undefined' is not defined") as e:
        exec(compile("from __future__ import annotations\nimport flydsl.compiler as flyc\n"
                     "@flyc.jit\ndef g(A: Undefined):\n    pass\n", "ann.py", "exec"), {})
    assert (e.value.filename, e.value.lineno) == ("ann.py", 3)


# -- tracebacks end in the user's code ------------------------------------------

@flyc.kernel
def exp_of_a_tensor(A: fx.Tensor):
    A[fx.thread_idx.x] = fx.math.exp(A)  # L:exp_of_tensor


@flyc.jit
def run_exp_of_a_tensor(A):
    exp_of_a_tensor(A).launch(grid=(1, 1, 1), block=(64, 1, 1))


def _frames(err):
    import traceback

    package = str(Path(flyc.__file__).resolve().parents[1])
    frames = traceback.extract_tb(err.__traceback__)
    return frames, [f for f in frames if f.filename.startswith(package)]


@pytest.mark.parametrize("how", ["jit", "compile", "compiled call"])
def test_a_traceback_ends_in_the_users_code(fly_env, how):
    """An error raised through the API shows the user's frames, ending at
    the user's line, and of flydsl's only the entry point that re-raised
    it; FLYDSL_DEBUG_SHOW_STACKTRACE=1 keeps every frame. (Python puts the
    re-raising frame in the traceback; it is the only one of flydsl's.)"""
    a = np.zeros(64, np.float32)
    if how == "compiled call":
        compiled = flyc.compile(scaled, a, a, 64, 1)
        call, where = (lambda: compiled(a, a, 64.0, 1)), None  # a float for an i32
    elif how == "compile":
        call, where = (lambda: flyc.compile(run_exp_of_a_tensor, a)), _LINES["exp_of_tensor"]
    else:
        call, where = (lambda: run_exp_of_a_tensor(a)), _LINES["exp_of_tensor"]
    with pytest.raises(FlyDSLError) as e:
        call()
    frames, ours = _frames(e.value)
    # The user's frames, then the entry point that re-raised it, then (for
    # an error in the user's kernel or host function) the user's frames
    # down to the line.
    assert len(ours) == 1, ours
    if where is None:  # the entry point itself found the error
        assert frames[-1] == ours[0] and frames[-2].filename == THIS_FILE
    else:
        assert (frames[-1].filename, frames[-1].lineno) == (THIS_FILE, where), frames
    fly_env(FLYDSL_DEBUG_SHOW_STACKTRACE="1")
    with pytest.raises(FlyDSLError) as e:
        call()
    frames, ours = _frames(e.value)
    assert len(ours) > 1 and frames[-1].filename != THIS_FILE


def test_sizes_the_ir_cannot_hold_are_trace_errors(compile_only):
    """What never reaches fly-check-launches' IR intact is checked at the
    launch: a dimension beyond a 64-bit index, smem beyond the i32 size."""
    compile_only("gfx942")

    @flyc.jit
    def huge_grid(A, B):
        add_one(A, B).launch(grid=(1 << 63, 1, 1), block=(64, 1, 1))  # L:huge_grid

    @flyc.jit
    def huge_smem(A, B):
        add_one(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1), smem=1 << 31)  # L:huge_smem

    a = np.zeros(64, np.float32)
    for fn, marker, message in (
            (huge_grid, "huge_grid", f"grid dimension x is {1 << 63}, which a 64-bit index "
                                     "cannot hold"),
            (huge_smem, "huge_smem", f"smem={1 << 31} bytes of dynamic LDS do not fit the "
                                     "launch's 32-bit size")):
        with pytest.raises(TraceError) as e:
            fn(a, a)
        assert message in e.value.bare_message
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])
