"""`@flyc.kernel(known_block_size=...)` and the launch's block, by FlyDSL's
rules (its tests/unit/test_kernel_known_block_size.py):

- known_block_size is exactly 3 elements, each a positive int or a numeric
  made of one (`fx.Int32(64)`); anything else is an error at the decorator
  that is a TraceError and the builtin type FlyDSL raises (TypeError for
  what is no sequence or no int, ValueError for a wrong length or value);
- a launch's block whose dimensions are all static (Python ints, numerics
  of them, in any mix) is the gpu.func's `known_block_size = array<i32:
  x, y, z>` when the kernel declares none; one block size, one
  specialization (a launcher reused for another size traces the body
  again under a new symbol, `name_<i>`); a dynamic block (a numeric
  argument, its raw `.ir_value()`, an index) leaves the attribute out;
- a static block dimension that differs from the declared size is a
  located KnownBlockSizeError (a ValueError) at the `.launch(` line;
- fx.known_block_size() sees the declared or inferred size, in the body and
  in a @flyc.jit helper it calls; without one it is a TraceError that is
  the RuntimeError FlyDSL raises.

Kernels run on the emulator for gfx942 and are checked against numpy;
error lines are found by `# L:<name>` markers.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler.jit_function import LaunchError
from flydsl.compiler.kernel_function import KnownBlockSizeError, KnownBlockSizeTypeError
from flydsl.tracing.errors import TraceError

THIS_FILE = __file__
_LINES = marker_lines(THIS_FILE)
ATTRIBUTE = re.compile(r"known_block_size = array<i32: (\d+), (\d+), (\d+)>")


@pytest.fixture(autouse=True)
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def sizes(compiled) -> list[tuple[int, int, int]]:
    """The known_block_size attributes of a compiled function's kernels."""
    return [tuple(map(int, m)) for m in ATTRIBUTE.findall(compiled.module_text)]


# -- known_block_size= at the decorator ----------------------------------------

def wrong_length():
    @flyc.kernel(known_block_size=[256, 1])  # L:wrong_length
    def k(x: fx.Tensor):
        pass


def not_a_sequence():
    @flyc.kernel(known_block_size=512)  # L:not_a_sequence
    def k(x: fx.Tensor):
        pass


def a_string():
    @flyc.kernel(known_block_size="abc")  # L:a_string
    def k(x: fx.Tensor):
        pass


def a_float():
    @flyc.kernel(known_block_size=[64.0, 1, 1])  # L:a_float
    def k(x: fx.Tensor):
        pass


def a_bool():
    @flyc.kernel(known_block_size=[64, True, 1])  # L:a_bool
    def k(x: fx.Tensor):
        pass


def a_float_numeric():
    @flyc.kernel(known_block_size=[fx.Float32(64.0), 1, 1])  # L:a_float_numeric
    def k(x: fx.Tensor):
        pass


def zero():
    @flyc.kernel(known_block_size=[0, 1, 1])  # L:zero
    def k(x: fx.Tensor):
        pass


def negative_numeric():
    @flyc.kernel(known_block_size=[64, fx.Int32(-2), 1])  # L:negative_numeric
    def k(x: fx.Tensor):
        pass


def too_big():
    @flyc.kernel(known_block_size=[1 << 31, 1, 1])  # L:too_big
    def k(x: fx.Tensor):
        pass


@pytest.mark.parametrize("fn, marker, kind, message", [
    (wrong_length, "wrong_length", ValueError,
     "known_block_size=[256, 1] has 2 elements; it takes exactly 3 elements (x, y, z)"),
    (not_a_sequence, "not_a_sequence", TypeError,
     "known_block_size=512: expected a sequence of 3 positive integers (x, y, z), got int"),
    (a_string, "a_string", TypeError,
     "known_block_size='abc': expected a sequence of 3 positive integers (x, y, z), got str"),
    (a_float, "a_float", TypeError,
     "known_block_size[0] must be an int (a Python int or a numeric made of one), got "
     "float 64.0"),
    (a_bool, "a_bool", TypeError, "known_block_size[1] must be an int (a Python int or a "
                                  "numeric made of one), got bool True"),
    (a_float_numeric, "a_float_numeric", TypeError, "known_block_size[0] must be an int"),
    (zero, "zero", ValueError, "known_block_size[0] must be positive, got 0"),
    (negative_numeric, "negative_numeric", ValueError,
     "known_block_size[1] must be positive, got -2"),
    (too_big, "too_big", ValueError,
     "known_block_size[0] = 2147483648 does not fit the attribute's 32 bits"),
])
def test_bad_known_block_size_is_a_located_error(fn, marker, kind, message):
    with pytest.raises(kind) as e:
        fn()
    assert isinstance(e.value, TraceError)
    assert isinstance(e.value, KnownBlockSizeError if kind is ValueError
                      else KnownBlockSizeTypeError)
    assert e.value.bare_message == message or (
        marker == "a_float_numeric" and e.value.bare_message.startswith(message))
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])


def test_known_block_size_takes_ints_and_static_numerics():
    for given in ([fx.Int32(64), fx.Int64(1), 1], (64, 1, 1), [fx.Uint16(64), 1, fx.Index(1)],
                  range(64, 61, -1), None):
        @flyc.kernel(known_block_size=given)
        def k(x: fx.Tensor):
            pass

        assert k.known_block_size == (None if given is None else tuple(
            int(d.host_value) if hasattr(d, "host_value") else d for d in given))
        assert all(type(d) is int for d in k.known_block_size or ())


# -- the attribute: declared, inferred from a static block, left out --------------

@flyc.kernel(known_block_size=[128, 4, 2])
def declared(Out: fx.Tensor):
    tid = fx.thread_idx.x + fx.thread_idx.y * 128 + fx.thread_idx.z * 512
    Out[tid] = fx.Int32(1)


@flyc.kernel
def write_block(Out: fx.Tensor, slot: fx.Constexpr[int]):
    """Out[slot, :] = the launch's block (x, y, z), written by work-item 0."""
    if fx.thread_idx.x + fx.thread_idx.y + fx.thread_idx.z == 0:
        Out[slot * 3] = fx.block_dim.x
        Out[slot * 3 + 1] = fx.block_dim.y
        Out[slot * 3 + 2] = fx.block_dim.z


def test_declared_size_is_the_attribute_and_the_code_objects_workgroup_size(fly_env):
    @flyc.jit
    def run(Out):
        declared(Out).launch(grid=(1, 1, 1), block=(128, 4, 2))

    out = np.zeros(1024, np.int32)
    compiled = flyc.compile(run, out)
    assert sizes(compiled) == [(128, 4, 2)]
    np.testing.assert_array_equal(out, 1)
    # The code object is built for that size (its max flat workgroup size).
    fly_env(COMPILE_ONLY="1", FLYDSL_RUNTIME_KIND="hip")
    (kernel,) = flyc.compile(run, out).kernels
    assert kernel["resources"]["max_workgroup_size"] == 1024


def test_static_numeric_launch_dims_are_inferred():
    @flyc.jit
    def run(Out):
        write_block(Out, 0).launch(grid=fx.Int64(1), block=fx.Int32(64))
        write_block(Out, 1).launch(grid=(fx.Int32(1), fx.Int64(1), fx.Int32(1)),
                                   block=(fx.Int64(32), fx.Int32(2), fx.Int64(1)))
        write_block(Out, 2).launch(grid=(1, 1), block=[fx.Uint32(16), 4])

    out = np.zeros(9, np.int32)
    compiled = flyc.compile(run, out)
    assert sizes(compiled) == [(64, 1, 1), (32, 2, 1), (16, 4, 1)]
    np.testing.assert_array_equal(out, [64, 1, 1, 32, 2, 1, 16, 4, 1])


def test_dynamic_blocks_leave_the_attribute_out():
    @flyc.jit
    def run(Out, n32: fx.Int32, n64: fx.Int64, u: fx.Int32):
        write_block(Out, 0).launch(grid=(1, 1, 1), block=n32)
        write_block(Out, 1).launch(grid=(1, 1, 1), block=(n64, 1, 1))
        write_block(Out, 2).launch(grid=(1, 1, 1), block=n32.ir_value())
        write_block(Out, 3).launch(grid=(1, 1, 1), block=(fx.Index(n32).ir_value(), 2, 1))
        write_block(Out, 4).launch(grid=(1, 1, 1), block=(fx.Uint32(u), 1, 1))

    out = np.zeros(15, np.int32)
    compiled = flyc.compile(run, out, 64, 32, 16)
    assert sizes(compiled) == []
    np.testing.assert_array_equal(out, [64, 1, 1, 32, 1, 1, 64, 1, 1, 64, 2, 1, 16, 1, 1])
    # An unsigned dimension is widened as unsigned, the others as signed;
    # an index is used as it is.
    text = compiled.module_text
    assert text.count("arith.index_castui") == 1
    out[:] = 0
    compiled(out, 128, 8, 1)
    np.testing.assert_array_equal(out, [128, 1, 1, 8, 1, 1, 128, 1, 1, 128, 2, 1, 1, 1, 1])


@flyc.kernel(known_block_size=[64, 1, 1])
def declared_64(Out: fx.Tensor):
    Out[fx.thread_idx.x] = fx.block_dim.x


def test_declared_size_stays_with_a_dynamic_block():
    @flyc.jit
    def run(Out, n: fx.Int32):
        declared_64(Out).launch(grid=(1, 1, 1), block=(n, 1, 1))

    out = np.zeros(64, np.int32)
    compiled = flyc.compile(run, out, 64)
    assert sizes(compiled) == [(64, 1, 1)]
    np.testing.assert_array_equal(out, 64)


def test_one_specialization_per_block_size_with_unique_symbols():
    @flyc.kernel
    def body(Out: fx.Tensor):
        Out[fx.thread_idx.x] = fx.Int32(fx.known_block_size()[0])

    @flyc.kernel(name="named_kernel")
    def named(Out: fx.Tensor):
        Out[fx.thread_idx.x] = fx.Int32(fx.known_block_size()[0] + 1)

    @flyc.jit
    def run(Out):
        pending = body(Out)
        pending.launch(grid=(1, 1, 1), block=(64, 1, 1))
        pending.launch(grid=(2, 1, 1), block=(64, 1, 1))  # the same specialization
        pending.launch(grid=(1, 1, 1), block=(32, 1, 1))
        again = named(Out)
        again.launch(grid=(1, 1, 1), block=(16, 1, 1))
        again.launch(grid=(1, 1, 1), block=(8, 1, 1))

    out = np.zeros(64, np.int32)
    compiled = flyc.compile(run, out)
    text = compiled.module_text
    assert sizes(compiled) == [(64, 1, 1), (32, 1, 1), (16, 1, 1), (8, 1, 1)]
    assert text.count("gpu.launch_func") == 5
    # A symbol taken gets the number of kernels traced before it, as FlyDSL's.
    symbols = re.findall(r"gpu\.func @(\w+)\(", text)
    assert symbols == ["body", "body_1", "named_kernel", "named_kernel_3"]
    np.testing.assert_array_equal(out, [9] * 8 + [17] * 8 + [32] * 16 + [64] * 32)


# -- a launch against the declared size -------------------------------------------

@flyc.jit
def launch_512(Out):
    declared_64(Out).launch(grid=(1, 1, 1), block=(512, 1, 1))  # L:launch_512


@flyc.jit
def launch_y(Out, n: fx.Int32):
    declared_64(Out).launch(grid=(1, 1, 1), block=(n, fx.Int32(2), 1))  # L:launch_y


def test_a_block_that_differs_from_the_declared_size():
    out = np.zeros(64, np.int32)
    for fn, args, marker, message in [
        (launch_512, (out,), "launch_512",
         "launch of kernel declared_64: block=(512, 1, 1) differs from known_block_size=(64, "
         "1, 1) in x (512 against 64); the kernel is compiled for its known_block_size only"),
        (launch_y, (out, 64), "launch_y",
         "launch of kernel declared_64: block=(?, 2, 1) differs from known_block_size=(64, 1, "
         "1) in y (2 against 1)")]:
        with pytest.raises(ValueError) as e:
            fn(*args)
        assert isinstance(e.value, KnownBlockSizeError) and isinstance(e.value, TraceError)
        assert e.value.bare_message.startswith(message)
        assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES[marker])
        assert not fn._compiled


@flyc.jit
def empty_block(Out):
    write_block(Out, 0).launch(grid=(1, 1, 1), block=(64, 0, 1))  # L:empty_block


def test_the_compilers_launch_errors_are_value_errors_too():
    """A static block the chip cannot run (fly-check-launches' LaunchError)
    is a ValueError, as FlyDSL's for a block size of 0."""
    with pytest.raises(ValueError) as e:
        empty_block(np.zeros(3, np.int32))
    assert isinstance(e.value, LaunchError) and isinstance(e.value, TraceError)
    assert "dimension y is 0; each dimension must be at least 1" in e.value.bare_message
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["empty_block"])


# -- fx.known_block_size() --------------------------------------------------------

def test_known_block_size_sees_the_declared_and_the_inferred_size():
    seen = []

    @flyc.jit
    def helper():
        seen.append(("helper", fx.known_block_size()))

    @flyc.kernel(known_block_size=[128, 4, 2])
    def explicit(Out: fx.Tensor):
        seen.append(("explicit", fx.known_block_size()))
        helper()  # a jit helper the body calls: the kernel's size

    @flyc.kernel
    def inferred(Out: fx.Tensor):
        seen.append(("inferred", fx.known_block_size()))

    @flyc.jit
    def run(Out):
        explicit(Out).launch(grid=(1, 1, 1), block=(128, 4, 2))
        inferred(Out).launch(grid=(1, 1, 1), block=(fx.Int32(256), 1, 1))

    run(np.zeros(4, np.float32))
    assert seen == [("explicit", (128, 4, 2)), ("helper", (128, 4, 2)),
                    ("inferred", (256, 1, 1))]
    assert all(type(d) is int for _, size in seen for d in size)


def test_known_block_size_outside_a_kernel_is_a_runtime_error():
    with pytest.raises(RuntimeError) as e:
        fx.known_block_size()  # L:outside
    assert isinstance(e.value, TraceError)
    assert e.value.bare_message == ("fx.known_block_size(): no compile-time block size "
                                    "outside of a @flyc.kernel body")
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["outside"])

    @flyc.jit
    def host(Out):
        fx.known_block_size()  # L:in_the_host

    with pytest.raises(RuntimeError, match="no compile-time block size") as e:
        host(np.zeros(4, np.float32))
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["in_the_host"])


def test_known_block_size_with_a_dynamic_block_is_a_runtime_error():
    @flyc.kernel
    def body(Out: fx.Tensor, n: fx.Int32):
        fx.known_block_size()  # L:dynamic

    @flyc.jit
    def run(Out, n: fx.Int32):
        body(Out, n).launch(grid=(1, 1, 1), block=(n, 1, 1))

    with pytest.raises(RuntimeError) as e:
        run(np.zeros(4, np.float32), 64)
    assert isinstance(e.value, TraceError)
    assert e.value.bare_message == (
        "fx.known_block_size(): kernel body has no compile-time block size; give "
        "@flyc.kernel(known_block_size=(x, y, z)) or launch it with a block of Python ints "
        "(or numerics of them)")
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, _LINES["dynamic"])
