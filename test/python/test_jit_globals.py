"""The globals a @flyc.jit function reads stay as its first call found them.

Its compiled code is kept per argument signature, and the globals it read
(in its own code, and in the kernels, helpers and jit functions it
reaches) are compiled in; a later call that finds one of them changed
raises GlobalChangedError (a RuntimeError too, as FlyDSL's) naming the
global, its module, the old and new values, at the user's call line:
rebound to an unequal value, deleted, or a list, dict or set changed in
place (also inside a tuple). Rebound to an equal value, or never read, a
global may change; other objects are compared by identity, as FlyDSL's.

Kernels live in module files written by the tests, so that the globals are
a module's, as a user's are; they run on the emulator for gfx942.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import textwrap

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
from flydsl.compiler.cache_key import GlobalChangedError
from flydsl.tracing.errors import FlyDSLError

THIS_FILE = __file__
MODULE = """
import flydsl.compiler as flyc
import flydsl.expr as fx

SCALE = 3
CFG = {"offset": 10, "rows": [1, 2]}
PAIR = (1, [5])
HELPER_FACTOR = 2
KERNEL_BIAS = 100
UNREAD = [0]
TABLE = None


def helper(x):
    return x * HELPER_FACTOR


@flyc.kernel(known_block_size=(64, 1, 1))
def kernel(Out: fx.Tensor):
    t = fx.thread_idx.x
    Out[t] = helper(t) + KERNEL_BIAS


@flyc.jit
def run(Out):
    _ = (SCALE, CFG["offset"], PAIR, TABLE)
    kernel(Out).launch(grid=(1, 1, 1), block=(64, 1, 1))
"""

_count = itertools.count()


@pytest.fixture(autouse=True)
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def load(tmp_path):
    path = tmp_path / "gmod.py"
    path.write_text(MODULE)
    name = f"gmod_{next(_count)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def first_call(tmp_path):
    """A fresh module whose `run` has been called once (and ran)."""
    module = load(tmp_path)
    out = np.zeros(64, np.int32)
    module.run(out)
    np.testing.assert_array_equal(out, np.arange(64) * 2 + 100)
    return module, out


def expect_change(module, out, name, was, now):
    with pytest.raises(RuntimeError) as e:
        module.run(out)  # L:call
    assert isinstance(e.value, GlobalChangedError) and isinstance(e.value, FlyDSLError)
    assert e.value.bare_message == (
        f"run: the global {name!r} of module {module.__name__} changed since the function's "
        f"first call (was {was}, now {now}); its code was compiled for the globals it read "
        "then. Pass the value as an argument (an fx.Constexpr to compile it in), or leave the "
        "global as it is")
    assert (e.value.filename, e.value.lineno) == (THIS_FILE, marker_lines(THIS_FILE)["call"])


@pytest.mark.parametrize("change, name, was, now", [
    (lambda m: setattr(m, "SCALE", 4), "SCALE", "3", "4"),
    (lambda m: setattr(m, "SCALE", "3"), "SCALE", "3", "'3'"),
    (lambda m: m.CFG.__setitem__("offset", 11), "CFG",
     "{'offset': 10, 'rows': [1, 2]}", "{'offset': 11, 'rows': [1, 2]}"),
    (lambda m: m.CFG["rows"].append(3), "CFG",
     "{'offset': 10, 'rows': [1, 2]}", "{'offset': 10, 'rows': [1, 2, 3]}"),
    (lambda m: m.PAIR[1].append(6), "PAIR", "(1, [5])", "(1, [5, 6])"),
    (lambda m: delattr(m, "SCALE"), "SCALE", "3", "deleted"),
    (lambda m: setattr(m, "HELPER_FACTOR", 5), "HELPER_FACTOR", "2", "5"),  # a helper's
    (lambda m: setattr(m, "KERNEL_BIAS", 0), "KERNEL_BIAS", "100", "0"),  # the kernel's
    (lambda m: setattr(m, "TABLE", np.zeros(4)), "TABLE", "None", "array([0., 0., 0., 0.])"),
])
def test_a_changed_global_is_a_located_runtime_error(tmp_path, change, name, was, now):
    module, out = first_call(tmp_path)
    change(module)
    expect_change(module, out, name, was, now)
    # It stays an error: the compiled code is the first call's.
    with pytest.raises(GlobalChangedError):
        flyc.compile(module.run, out)


def test_equal_rebinding_and_unread_globals_do_not_count(tmp_path):
    module, out = first_call(tmp_path)
    module.SCALE = int("3")  # another object, the same value
    module.CFG = {"rows": [1, 2], "offset": 10}  # another dict, the same contents
    module.PAIR = (1, [5])
    module.UNREAD.append(1)  # read by none of run's code
    module.UNRELATED = 7
    out[:] = 0
    module.run(out)
    np.testing.assert_array_equal(out, np.arange(64) * 2 + 100)
    compiled = flyc.compile(module.run, out)
    out[:] = 0
    compiled(out)
    np.testing.assert_array_equal(out, np.arange(64) * 2 + 100)


def test_other_objects_are_compared_by_identity(tmp_path):
    """An array changed in place is the same object (as FlyDSL, which
    compares such objects by identity); rebound to another array with
    other elements, it has changed."""
    module = load(tmp_path)
    module.TABLE = np.arange(4)
    out = np.zeros(64, np.int32)
    module.run(out)
    module.TABLE[0] = 9
    module.run(out)
    module.TABLE = np.arange(4)
    # (`was`: as the first call found it.)
    expect_change(module, out, "TABLE", "array([0, 1, 2, 3])", "array([0, 1, 2, 3])")


def test_a_container_holding_itself(tmp_path):
    module = load(tmp_path)
    cycle = [1]
    cycle.append(cycle)
    module.PAIR = cycle
    out = np.zeros(64, np.int32)
    module.run(out)
    module.run(out)  # the same object: unchanged
    module.PAIR = [1, 2]
    with pytest.raises(GlobalChangedError, match=re.escape("the global 'PAIR'")):
        module.run(out)


def test_each_function_has_its_own_first_call(tmp_path):
    """A second module load (as a second process) records the globals it
    finds at its own first call."""
    module, out = first_call(tmp_path)
    module.SCALE = 4
    other = load(tmp_path)
    other.SCALE = 4
    other.run(out)
    other.run(out)
    expect_change(module, out, "SCALE", "3", "4")


def test_a_host_function_without_kernels(tmp_path):
    source = textwrap.dedent("""
        import flydsl.compiler as flyc
        LIMITS = [1]

        @flyc.jit
        def host(Out):
            _ = LIMITS[0]
    """)
    path = tmp_path / "hmod.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"hmod_{next(_count)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = np.zeros(4, np.int32)
    module.host(out)
    module.LIMITS[0] = 2
    with pytest.raises(RuntimeError, match=re.escape("the global 'LIMITS' of module "
                                                     f"{module.__name__} changed")):
        module.host(out)
