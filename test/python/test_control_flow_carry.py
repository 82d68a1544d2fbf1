"""Python containers and numbers carried by traced control flow (SPEC §7.1),
run on the emulator and checked against Python.

A variable assigned in the branches of a dynamic `if`, by `a if c else b`
or in a traced loop may hold a list, tuple, dict or SimpleNamespace of
dynamic values (nested too): each leaf is a result of the scf op, the
structure must stay the same (dicts matched by key). A list changed in
place (`lst[0] = v`) in a branch is carried like an assigned one; a tensor
stored to is not. A Python number a loop changes becomes a carried numeric;
two Python numbers of the two branches become constants of their common
type. The loop variable of a range loop bound before it has its last value
after the loop (its earlier value when the loop ran no iteration). A
container of tensors built in a jit function is a kernel argument; a raw
SSA value (`x.ir_value()`) is stored as the numeric it holds. What stays
unsupported is a located TraceError naming the variable and its path.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 64
HALF = BLOCK // 2


@pytest.fixture
def emu(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


@pytest.fixture
def compile_only(fly_env):
    fly_env(ARCH="gfx942", COMPILE_ONLY="1")


def _launcher(kernel, width):
    """A jit function running `kernel(Out, n)` on one block of BLOCK
    threads; calling it returns Out as a (BLOCK, width) int32 array."""
    @flyc.jit
    def host(Out: fx.Tensor, n: fx.Int32):
        kernel(Out, n).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    def run(n):
        out = np.full(BLOCK * width, -7, np.int32)
        host(out, n)
        return out.reshape(BLOCK, width)

    run.host = host
    return run


def _store(Out, t, width, values):
    for j in fx.range_constexpr(width):
        Out[t * width + j] = values[j]


def _line(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line and not line.lstrip().startswith("def "):
            return start + i
    raise AssertionError(text)


def _expect_error(kernel, n, match, line_text):
    run = _launcher(kernel, 1)
    with pytest.raises(flyc.TraceError, match=match) as err:
        flyc.compile(run.host, np.zeros(BLOCK, np.int32), n)
    assert err.value.lineno == _line(kernel.fn, line_text), str(err.value)
    return str(err.value)


# -- dynamic if ---------------------------------------------------------------

@flyc.kernel
def if_containers(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    lst = [t, fx.Int32(2)]
    d = {"a": fx.Int32(1), "b": t}
    pair = (t, {"v": fx.Int32(5)})
    ns = SimpleNamespace(x=fx.Int32(3), tag="kept")
    inplace = [fx.Int32(7), t]
    if t < HALF:
        lst = [lst[0] + 10, lst[1] * 3]
        d = {"b": d["b"] * 2, "a": d["a"] + 100}  # keys in another order
        pair = (pair[0] - 1, {"v": pair[1]["v"] + t})
        ns = SimpleNamespace(x=ns.x + t, tag="kept")
        inplace[0] = t * 4  # a list changed in place
    else:
        d = {"a": d["a"] - 1, "b": d["b"]}
    _store(Out, t, 9, [lst[0], lst[1], d["a"], d["b"], pair[0], pair[1]["v"], ns.x,
                       inplace[0], inplace[1]])


def test_if_carries_containers(emu):
    out = _launcher(if_containers, 9)(0)
    for t in range(BLOCK):
        taken = t < HALF
        want = [t + 10 if taken else t, 6 if taken else 2,
                101 if taken else 0, 2 * t if taken else t,
                t - 1 if taken else t, 5 + t if taken else 5,
                3 + t if taken else 3, 4 * t if taken else 7, t]
        assert list(out[t]) == want, t


DIMS = (2, 3)


@flyc.kernel
def ifexp_and_numbers(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    lst = [t, t + 1] if t < n else [fx.Int32(40), fx.Int32(50)]
    half = 1 if t < n else 2.5  # two Python numbers: a Float32
    if t % 2 == 0:
        flag = True
        k = 4
        dims = DIMS
    else:
        flag = False
        k = 4  # the same Python number in both branches stays one
        dims = DIMS  # ... and the same tuple
    width = 0
    for _ in fx.range_constexpr(k + dims[0] - 2):  # Python ints still
        width += 1
    _store(Out, t, 5, [lst[0], lst[1], (half * 2.0).to(fx.Int32), flag.to(fx.Int32), width])


def test_conditional_expression_and_python_numbers(emu):
    n = 20
    out = _launcher(ifexp_and_numbers, 5)(n)
    for t in range(BLOCK):
        want = [t, t + 1] if t < n else [40, 50]
        want += [2 if t < n else 5, int(t % 2 == 0), 4]
        assert list(out[t]) == want, t


# -- loops --------------------------------------------------------------------

def _bump(s, k):
    return {"a": s["a"] + k, "b": [s["b"][0] + k, (s["b"][1][0] + k, s["b"][1][1] * 2)]}


@flyc.kernel
def loop_containers(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    lst = [fx.Int32(0), t]
    tup = (t, fx.Int32(100))
    ns = SimpleNamespace(cnt=t % 5, acc=fx.Int32(0))
    deep = {"a": t, "b": [fx.Int32(1), (fx.Int32(2), fx.Int32(1))]}
    acc = 0  # a Python int the loop makes an Int32
    total = 0  # ... and one it makes a Float32
    found = False
    for i in range(n):
        lst = [lst[0] + i, lst[1] - 1]
        tup = (tup[0] + 2, tup[1] - t)
        deep = _bump(deep, 1)
        acc = acc + fx.Int32(1)
        total = total + fx.Float32(0.5)
        if i == t % 7:
            found = True
    while ns.cnt > 0:
        ns = SimpleNamespace(cnt=ns.cnt - 1, acc=ns.acc + 3)
    _store(Out, t, 12, [lst[0], lst[1], tup[0], tup[1], ns.cnt, ns.acc, deep["a"],
                        deep["b"][0], deep["b"][1][0], deep["b"][1][1], acc,
                        (total * 2.0).to(fx.Int32) * 10 + found.to(fx.Int32)])


@pytest.mark.parametrize("n", [0, 1, 6])
def test_loops_carry_containers_and_numbers(emu, n):
    out = _launcher(loop_containers, 12)(n)
    for t in range(BLOCK):
        want = [sum(range(n)), t - n, t + 2 * n, 100 - n * t, 0, 3 * (t % 5), t + n,
                1 + n, 2 + n, 2 ** n, n, n * 10 + int(t % 7 < n)]
        assert list(out[t]) == want, (n, t)


@flyc.kernel
def loop_variable_live_out(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    i = fx.Int32(999)
    for i in range(n):
        pass
    j = 0
    for j in fx.range_constexpr(3):  # a Python int before the traced loop
        pass
    for j in range(t, n):
        pass
    k = t
    for k in range(n):
        k = k + 100  # the body's last value of k
    total = fx.Int32(0)
    for m in range(n):  # unbound before: not carried
        total = total + m
    _store(Out, t, 4, [i, j, k, total])


@pytest.mark.parametrize("n", [0, 5, 40])
def test_loop_variable_has_its_last_value_after_the_loop(emu, n):
    out = _launcher(loop_variable_live_out, 4)(n)
    for t in range(BLOCK):
        i = j = k = None
        i = 999
        for i in range(n):
            pass
        j = 2
        for j in range(t, n):
            pass
        k = t
        for k in range(n):
            k = k + 100
        assert list(out[t]) == [i, j, k, sum(range(n))], (n, t)


# -- what is not carried ---------------------------------------------------------

@flyc.kernel
def stores_in_loops(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    for i in range(n):
        Out[t] = i  # a tensor stored to is no loop-carried value
    if t < HALF:
        Out[t] = Out[t] + 1


def test_a_tensor_stored_to_is_not_carried(compile_only):
    run = _launcher(stores_in_loops, 1)
    text = flyc.compile(run.host, np.zeros(BLOCK, np.int32), 3).module_text
    assert re.search(r'"scf.for"\(%\d+, %\d+, %\d+\)', text), text  # no iter_args
    assert re.search(r'"scf.if"\(%\d+\) \(.*\) : \(i1\) -> \(\)', text, re.S)


def test_a_tensor_stored_to_runs(emu):
    out = _launcher(stores_in_loops, 1)(4)
    want = np.array([3 + (t < HALF) for t in range(BLOCK)], np.int32)
    np.testing.assert_array_equal(out[:, 0], want)


CONFIG = {"scale": 3, "names": ["a", "b"]}
SEEN = []


@flyc.kernel
def read_only_containers(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    cfg = CONFIG
    v = t
    if t < n:
        v = v * cfg.get("scale")  # a method call: cfg may change, but does not
    for i in range(n):
        v = v + len(cfg.get("names"))
    SEEN.append(cfg)
    Out[t] = v


def test_a_container_left_as_it_was_stays_the_same_object(emu):
    SEEN.clear()
    out = _launcher(read_only_containers, 1)(5)
    assert SEEN and all(c is CONFIG for c in SEEN)
    want = [(t * 3 if t < 5 else t) + 10 for t in range(BLOCK)]
    assert list(out[:, 0]) == want


# -- raw SSA values and container arguments ----------------------------------------

@flyc.kernel
def raw_values(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    v = fx.Float32(1.0)
    if t < n:
        v = fx.Float32(2.5)
    Out[t] = (v * 2.0).to(fx.Int32).ir_value()  # a raw i32 SSA value
    fx.memref_store((t + n).ir_value(), Out, t + BLOCK)


def test_raw_ssa_values_are_stored(emu):
    out = _launcher(raw_values, 2)(10).reshape(-1)
    want = [5 if t < 10 else 2 for t in range(BLOCK)] + [t + 10 for t in range(BLOCK)]
    assert list(out) == want


@flyc.kernel
def bundle_kernel(bundle: SimpleNamespace, pair: tuple, scale: fx.Constexpr[int]):
    t = fx.thread_idx.x
    bundle.C[t] = bundle.A[t] * scale + pair[1]["x"][t] + bundle.n + pair[0]


@flyc.jit
def bundle_host(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, n: fx.Int32):
    bundle = SimpleNamespace(A=A, C=C, n=n, note="static")
    bundle_kernel(bundle, (7, {"x": B}), 3).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))


def test_containers_of_tensors_are_kernel_arguments(emu):
    a = np.arange(BLOCK, dtype=np.int32)
    b = (np.arange(BLOCK, dtype=np.int32) * 5) % 11
    c = np.zeros(BLOCK, np.int32)
    bundle_host(a, b, c, 100)
    np.testing.assert_array_equal(c, a * 3 + b + 100 + 7)


# -- errors ----------------------------------------------------------------------

@flyc.kernel
def branches_differ(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    lst = [t, t]
    if t < n:
        lst = [t, t, t]
    Out[t] = lst[0]


@flyc.kernel
def keys_differ(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    cfg = {"v": [t, {"a": t}]}
    if t < n:
        cfg = {"v": [t, {"b": t}]}
    Out[t] = cfg["v"][0]


@flyc.kernel
def appended_in_branch(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    vals = [t]
    if t < n:
        vals.append(t + 1)
    Out[t] = vals[0]


@flyc.kernel
def python_leaf_differs(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    cfg = {"mode": "fast", "v": t}
    if t < n:
        cfg = {"mode": "slow", "v": t + 1}
    Out[t] = cfg["v"]


@flyc.kernel
def list_or_tuple(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    p = [t, t] if t < n else (t, t)
    Out[t] = p[0]


def test_branch_structures_must_agree(compile_only):
    msg = _expect_error(branches_differ, 3, r"variable 'lst' is a list of 3 in one branch and "
                        r"a list of 2 in the other of an if on a dynamic condition", "if t < n")
    assert "keeps one structure" in msg
    _expect_error(keys_differ, 3, re.escape("variable 'cfg['v'][1]' is a dict with keys ['b'] "
                                            "in one branch and a dict with keys ['a']"),
                  "if t < n")
    _expect_error(appended_in_branch, 3, r"variable 'vals' is a list of 2 in one branch and "
                  r"a list of 1", "if t < n")
    _expect_error(python_leaf_differs, 3, re.escape(
        "variable 'cfg['mode']' is the Python value 'slow' in one branch and the Python value "
        "'fast' in the other of an if on a dynamic condition: a Python value cannot depend on "
        "a dynamic condition"), "if t < n")
    _expect_error(list_or_tuple, 3, r"the value is a list of 2 in one branch and a tuple of 2 "
                  r"in the other of a conditional expression", "p = [t, t]")


@flyc.kernel
def loop_appends(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    vals = [t]
    for i in range(n):
        vals.append(i)
    Out[t] = vals[0]


@flyc.kernel
def loop_leaf_type_changes(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    acc = (t, fx.Int32(0))
    for i in range(n):
        acc = (acc[0], acc[1].to(fx.Float32) + 1.0)
    Out[t] = acc[0]


@flyc.kernel
def loop_variable_taken(Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    i = fx.Float32(1.0)
    for i in range(n):
        Out[t] = i
    Out[t] = t


def test_loop_structures_and_types_must_stay(compile_only):
    _expect_error(loop_appends, 3, r"variable 'vals' is a list of 1 before a range loop and "
                  r"a list of 2 after its body", "for i in range")
    _expect_error(loop_leaf_type_changes, 3, r"variable 'acc\[1\]' changes type across "
                  r"iterations of a range loop: a Int32 of type i32 before, a Float32",
                  "for i in range")
    _expect_error(loop_variable_taken, 3, r"the loop variable 'i' is bound before this "
                  r"`for \.\.\. in range\(\.\.\.\)` loop, to a Float32", "for i in range")
