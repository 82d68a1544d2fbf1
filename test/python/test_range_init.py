"""FlyDSL's loop with explicit carried state (SPEC §7.1):

    for iv, state in range(lo, hi, step, init=[a, b]):
        ...
        results = yield [a2, b2]

is one scf.for over `index` whose iter_args are the init values and whose
scf.yield is the yield; `state` is the list of the carried values, and
`results` (one value, or a list of several) the loop's results, each of
its init value's class (fx numerics, vectors, raw SSA values; a Python
number is a constant of its own type). Nothing else is carried: a
variable the body assigns keeps its value at the end of the body, and one
holding an SSA value made in the body fails where it is used after the
loop. Loops run on the emulator (gfx942 and gfx1100) against numpy;
misuse (a static step that does not count up included, for every traced
range loop) is a RewriteError or TraceError naming the user's line (`# L:`
markers).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import marker_lines

BLOCK = 64
LINES = marker_lines(__file__)


@pytest.fixture
def compile_only(fly_env):
    fly_env(ARCH="gfx942", COMPILE_ONLY="1", FLYDSL_RUNTIME_KIND=None)


@pytest.fixture(params=["gfx942", "gfx1100"])
def emu(request, fly_env):
    fly_env(ARCH=request.param, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    return request.param


def _host(kernel):
    @flyc.jit
    def host(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
        kernel(A, Out, n).launch(grid=(1, 1, 1), block=(BLOCK, 1, 1))

    return host


def _run(kernel, a, width, n):
    out = np.full(BLOCK * width, -7.0, np.float32)
    _host(kernel)(a, out, n)
    return out.reshape(BLOCK, width)


def _module_text(kernel, n=5):
    a = np.zeros(BLOCK, np.float32)
    return flyc.compile(_host(kernel), a, np.zeros(BLOCK * 4, np.float32), n).module_text


def _ops(text, op):
    return re.findall(rf'"{re.escape(op)}"\(', text)


# -- the scf.for ------------------------------------------------------------

@flyc.kernel
def sum_and_count(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    x = A[t]
    tmp = x * 3.0  # assigned in the body too: not carried
    for i, state in range(0, n, 1, init=[x, fx.Int32(0)]):  # L:sum_loop
        acc, cnt = state
        tmp = acc + fx.Float32(fx.Int32(i))
        results = yield [tmp, cnt + 1]  # L:sum_yield
    Out[t * 4] = results[0]
    Out[t * 4 + 1] = fx.Float32(results[1])


def test_one_scf_for_with_the_init_values_as_iter_args(compile_only):
    text = _module_text(sum_and_count)
    assert len(_ops(text, "scf.for")) == 1
    m = re.search(r'(%\d+), (%\d+) = "scf\.for"\((%\d+), (%\d+), (%\d+), (%\d+), (%\d+)\) '
                  r'\(\{\n\^bb0\((%\d+): index, (%\d+): f32, (%\d+): i32\):', text)
    assert m, text
    r0, r1, lb, ub, step, init_x, init_cnt, iv, acc, cnt = m.groups()
    # iter_args: the load of A[t] and the constant 0 of fx.Int32(0), in order
    assert re.search(rf'{init_x} = "fly.memref.load"', text)
    assert re.search(rf'{init_cnt} = "arith.constant"\(\) {{value = 0 : i32}} : \(\) -> \(i32\) '
                     rf'loc\("[^"]*":{LINES["sum_loop"]}:', text), "made at the loop's line"
    # index bounds: a constant, the index_cast of n, a constant
    assert re.search(rf'{lb} = "arith.constant"\(\) {{value = 0 : index}}', text)
    assert re.search(rf'{ub} = "arith.index_cast"\(%\d+\) : \(i32\) -> \(index\)', text)
    assert re.search(rf'{step} = "arith.constant"\(\) {{value = 1 : index}}', text)
    assert ": (index, index, index, f32, i32) -> (f32, i32)" in text
    # the yield is the scf.yield of the body, at the yield's line
    y = re.search(r'"scf\.yield"\((%\d+), (%\d+)\) : \(f32, i32\) -> \(\) '
                  r'loc\("[^"]*":(\d+):\d+\)', text)
    assert y and int(y.group(3)) == LINES["sum_yield"], text
    assert re.search(rf'{y.group(1)} = "arith.addf"\({acc}, %\d+\)', text)
    assert re.search(rf'{y.group(2)} = "arith.addi"\({cnt}, %\d+\)', text)
    assert re.search(rf'"arith.index_cast"\({iv}\) : \(index\) -> \(i32\)', text)
    # results are the loop's results
    assert re.search(rf'"fly.memref.store"\({r0}, ', text)
    assert re.search(rf'%\d+ = "arith.sitofp"\({r1}\)', text)
    assert re.search(rf'"scf.for".*loc\("[^"]*":{LINES["sum_loop"]}:', text.replace("\n", " "))


def test_sum_and_count_on_the_emulator(emu):
    a = np.arange(BLOCK, dtype=np.float32) * 0.5 - 3.0
    for n in (0, 1, 6):
        out = _run(sum_and_count, a, 4, n)
        want_acc = a + sum(range(n))
        np.testing.assert_allclose(out[:, 0], want_acc, rtol=1e-6)
        np.testing.assert_array_equal(out[:, 1], np.full(BLOCK, n, np.float32))


# -- what the state and results are ----------------------------------------

SEEN = {}


@flyc.kernel
def carried_kinds(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    x = A[t]
    vec = fx.Vector.filled(4, x, fx.Float32)
    raw = fx.as_ir_value(t)  # a raw SSA value (an ArithValue) stays raw
    for i, (s, v, r, k, f, b) in range(fx.Int32(1), n + 1, 2,
                                         init=[x, vec, raw, 7, 0.5, True]):
        SEEN["state"] = [type(e) for e in (i, s, v, r, k, f, b)]
        lanes = fx.Vector.from_elements([fx.Float32(fx.Int32(i) + j) for j in range(4)])
        r2 = fx.as_ir_value(fx.Int32(r) + fx.Int32(i))
        results = yield [s * 2.0, v + lanes, r2, k - 1, f + 1.0, not b]
    s, v, r, k, f, b = results
    SEEN["results"] = [type(e) for e in results]
    SEEN["after"] = type(i).__name__
    Out[t * 4] = s + v[0] + v[3]
    Out[t * 4 + 1] = fx.Float32(fx.Int32(r) + k)
    Out[t * 4 + 2] = f
    Out[t * 4 + 3] = fx.Float32(fx.Int32(b))


def test_state_and_results_keep_the_classes_of_the_init_values(emu):
    from flydsl.expr.utils.arith import ArithValue
    from flydsl.tracing.ir import Value

    a = np.linspace(-1.0, 1.0, BLOCK, dtype=np.float32)
    for n in (0, 3, 8):
        out = _run(carried_kinds, a, 4, n)
        ivs = list(range(1, n + 1, 2))
        s = a * 2.0 ** len(ivs)
        v0 = a + sum(float(i) for i in ivs)
        v3 = a + sum(float(i) + 3 for i in ivs)
        np.testing.assert_allclose(out[:, 0], s + v0 + v3, rtol=1e-5)
        np.testing.assert_array_equal(out[:, 1], np.arange(BLOCK) + sum(ivs) + 7 - len(ivs))
        np.testing.assert_allclose(out[:, 2], np.full(BLOCK, 0.5 + len(ivs)))
        np.testing.assert_array_equal(out[:, 3], np.full(BLOCK, 1.0 if len(ivs) % 2 == 0 else 0.0))
    # A numeric's raw SSA value (as_ir_value, ir_value()) is an ArithValue,
    # an ir.Value with FlyDSL's operators, and stays one around the loop.
    assert issubclass(ArithValue, Value)
    classes = [fx.Float32, fx.Vector, ArithValue, fx.Int32, fx.Float32, fx.Boolean]
    assert SEEN["state"] == [fx.Index] + classes
    assert SEEN["results"] == classes
    assert SEEN["after"] == "LoopLocal"  # the loop counter does not outlive the loop


@flyc.kernel
def arith_values(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    for i, (x,) in range(0, n, 1, init=[fx.arith.ArithValue(A[t])]):
        SEEN["arith_state"] = type(x)
        results = yield [x * 2.0 + 1.0]  # ArithValue's operators
    SEEN["arith_result"] = type(results)
    Out[t * 4] = fx.Float32(results)


def test_a_raw_value_with_operators_keeps_its_class(emu):
    a = np.arange(BLOCK, dtype=np.float32) - 10.0
    out = _run(arith_values, a, 4, 3)
    np.testing.assert_array_equal(out[:, 0], ((a * 2 + 1) * 2 + 1) * 2 + 1)
    assert SEEN["arith_state"] is fx.arith.ArithValue
    assert SEEN["arith_result"] is fx.arith.ArithValue


@flyc.kernel
def one_and_no_result(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    for i, (acc,) in range(0, n, init=(A[t],)):
        total = yield acc + 1.0  # one value: `total` is the value itself
    for i, state in fx.range(0, n, 1, init=[]):
        Out[t * 4 + 1] = fx.Float32(fx.Int32(i))
        nothing = yield []
    SEEN["one"] = type(total)
    SEEN["none"] = nothing
    Out[t * 4] = total


def test_one_result_is_the_value_and_none_is_none(emu):
    a = np.arange(BLOCK, dtype=np.float32)
    out = _run(one_and_no_result, a, 4, 4)
    np.testing.assert_array_equal(out[:, 0], a + 4)
    np.testing.assert_array_equal(out[:, 1], np.full(BLOCK, 3.0, np.float32))
    assert SEEN["one"] is fx.Float32 and SEEN["none"] is None


@flyc.kernel
def fragment_pipeline(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    # The kernel library's form: a register fragment whose contents the loop
    # carries as a vector, stored at the top of the body and loaded for the yield.
    t = fx.thread_idx.x
    frag = fx.make_rmem_tensor(4, fx.Float32)
    for j in fx.range_constexpr(4):
        frag[j] = A[t] * float(j)
    for iv, state in range(0, n, 1, init=[frag.load()]):
        frag.store(state[0])
        k_next = fx.Int32(iv + 1)
        for j in fx.range_constexpr(4):
            frag[j] = frag[j] + A[(t + k_next) % BLOCK]
        results = yield [frag.load()]
    frag.store(results)
    for j in fx.range_constexpr(4):
        Out[t * 4 + j] = frag[j]


def test_a_fragment_carried_as_a_vector(emu):
    a = np.arange(BLOCK, dtype=np.float32) % 9 - 4.0
    n = 5
    out = _run(fragment_pipeline, a, 4, n)
    for t in range(BLOCK):
        add = sum(a[(t + k) % BLOCK] for k in range(1, n + 1))
        np.testing.assert_allclose(out[t], [a[t] * j + add for j in range(4)], rtol=1e-6)


# -- nesting and control flow in the body -----------------------------------

@flyc.kernel
def nested(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    best = fx.Float32(-1.0e30)
    for i, (total, hi) in range(0, n, 1, init=[fx.Float32(0.0), best]):
        a = A[(t + fx.Int32(i)) % BLOCK]
        if a > hi:  # a dynamic if inside the body
            hi = a
        for j, inner in range(0, 3, 1, init=[total]):
            step = inner[0] + a
            inner_out = yield [step]
        count = 0
        for k in range(2):  # L:implicit_loop (with implicit carry, inside)
            count = count + k + 1
        results = yield [inner_out + fx.Float32(count), hi]
    Out[t * 4] = results[0]
    Out[t * 4 + 1] = results[1]


def test_nested_loops_and_a_dynamic_if_in_the_body(emu):
    a = (np.arange(BLOCK, dtype=np.float32) * 7 % 23) - 11.0
    for n in (0, 5):
        out = _run(nested, a, 4, n)
        for t in range(BLOCK):
            total, hi = 0.0, -1.0e30
            for i in range(n):
                v = a[(t + i) % BLOCK]
                hi = max(hi, v)
                total = total + 3 * v + 3
            assert out[t, 0] == pytest.approx(total, rel=1e-5), t
            assert out[t, 1] == np.float32(hi), t


def test_nested_loops_emit_one_scf_for_each(compile_only):
    text = _module_text(nested)
    fors = re.findall(r'"scf\.for"\(([^)]*)\)', text)
    assert [len(f.split(", ")) for f in fors] == [5, 4, 4], fors  # outer, inner, implicit
    assert ": (index, index, index, f32, f32) -> (f32, f32)" in text
    assert ": (index, index, index, f32) -> (f32)" in text
    assert ": (i32, i32, i32, i32) -> (i32)" in text  # the implicit loop stays over i32
    # the ops a loop's runtime hook makes (its bound 2) are at the loop's line,
    # not at the last line of its body
    assert re.search(r'"arith.constant"\(\) {value = 2 : i32} : \(\) -> \(i32\) '
                     rf'loc\("[^"]*":{LINES["implicit_loop"]}:', text)


# -- variables after the loop ----------------------------------------------

@flyc.kernel
def after_the_loop(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    unrolled = 0
    for i, (acc,) in range(0, n, 1, init=[A[t]]):
        inside = acc * 2.0
        for u in fx.range_constexpr(3):
            unrolled = unrolled + 1  # a Python value: its value at the end of the body
        res = yield [inside]
    inside = res  # rebinding a LoopLocal is fine
    for i in range(n):  # so is reusing the loop counter's name
        inside = inside + 1.0
    Out[t * 4] = inside + fx.Float32(unrolled)


def test_python_values_keep_their_last_value_and_names_can_be_rebound(emu):
    a = np.arange(BLOCK, dtype=np.float32) - 20.0
    out = _run(after_the_loop, a, 4, 3)
    np.testing.assert_array_equal(out[:, 0], a * 8 + 3 + 3)


@flyc.kernel
def uses_a_body_value(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    tmp = A[t]
    for i, (acc,) in range(0, n, 1, init=[tmp]):  # L:local_loop
        tmp = acc + 1.0
        res = yield [tmp]
    Out[t] = tmp + res  # L:local_use


def test_a_value_made_in_the_body_fails_where_it_is_used(compile_only):
    with pytest.raises(flyc.TraceError) as err:
        _module_text(uses_a_body_value)
    e = err.value
    assert e.lineno == LINES["local_use"], str(e)
    assert "variable 'tmp'" in str(e) and f":{LINES['local_loop']}" in str(e)
    assert "init=" in str(e)


# -- misuse ------------------------------------------------------------------

@flyc.kernel
def yield_without_init(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i in range(n):
        r = yield [A[0]]  # L:no_init_yield


@flyc.kernel
def yield_not_last(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc,) in range(0, n, 1, init=[A[0]]):
        if acc > 0.0:
            r = yield [acc]  # L:yield_in_if
        r = yield [acc]


@flyc.kernel
def init_on_constexpr(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, s in fx.range_constexpr(0, 4, 1, init=[A[0]]):  # L:constexpr_init
        r = yield [s[0]]


@flyc.kernel
def single_target(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i in range(0, n, 1, init=[A[0]]):  # L:single_target
        r = yield [A[0]]


@flyc.kernel
def break_in_body(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc,) in range(0, n, 1, init=[A[0]]):
        if fx.const_expr(True):
            break  # L:init_break
        r = yield [acc]


@flyc.kernel
def else_clause(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc,) in range(0, n, 1, init=[A[0]]):
        r = yield [acc]
    else:
        pass  # L:init_else


@pytest.mark.parametrize("kernel,marker,words", [
    (yield_without_init, "no_init_yield", ["`yield`", "init=[...]", "range_constexpr"]),
    (yield_not_last, "yield_in_if", ["`yield`", "last statement"]),
    (init_on_constexpr, "constexpr_init", ["init=", "range_constexpr"]),
    (single_target, "single_target", ["`iv, state`"]),
    (break_in_body, "init_break", ["`break`", "init=", "no early exit"]),
    (else_clause, "init_else", ["`else:`", "init="]),
])
def test_rewrite_errors(compile_only, kernel, marker, words):
    with pytest.raises(flyc.RewriteError) as err:
        _module_text(kernel)
    e = err.value
    assert e.lineno == LINES[marker] and e.filename == __file__, str(e)
    for w in words:
        assert w in str(e), (w, str(e))


@flyc.kernel
def missing_yield(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc,) in range(0, n, 1, init=[A[0]]):  # L:missing_yield
        Out[0] = acc


@flyc.kernel
def too_many_values(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc,) in range(0, n, 1, init=[A[0]]):
        r = yield [acc, acc]  # L:too_many


@flyc.kernel
def wrong_type(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (acc, c) in range(0, n, 1, init=[A[0], fx.Int32(0)]):
        r = yield [acc, acc]  # L:wrong_type


@flyc.kernel
def python_number_for_a_vector(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (v,) in range(0, n, 1, init=[fx.Vector.filled(2, A[0], fx.Float32)]):
        r = yield [1.0]  # L:number_for_vector


@flyc.kernel
def unpack_mismatch(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, (a, b) in range(0, n, 1, init=[A[0]]):  # L:unpack
        r = yield [a]


@flyc.kernel
def init_not_a_list(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, s in range(0, n, 1, init=A[0]):  # L:init_not_list
        r = yield s


@flyc.kernel
def init_of_python_value(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, s in range(0, n, 1, init=[A[0], None]):  # L:init_none
        r = yield s


@flyc.kernel
def float_bound(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, s in range(0, A[0], 1, init=[A[0]]):  # L:float_bound
        r = yield s


@flyc.kernel
def counting_down(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    for i, s in range(n, 0, -1, init=[A[0]]):  # L:counting_down
        r = yield s


@flyc.kernel
def counting_down_implicitly(A: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    acc = A[0]
    for i in range(n, 0, -1):  # L:counting_down_implicitly
        acc = acc + 1.0
    Out[0] = acc


@pytest.mark.parametrize("kernel,marker,words", [
    (missing_yield, "missing_yield", ["no `yield`", "1 values"]),
    (too_many_values, "too_many", ["gives 2 value(s)", "carries 1"]),
    (wrong_type, "wrong_type", ["carried value 1", "i32", "Float32 of type f32"]),
    (python_number_for_a_vector, "number_for_vector", ["carried value 0", "vector<2xf32>"]),
    (unpack_mismatch, "unpack", ["into 2 names", "init= has 1"]),
    (init_not_a_list, "init_not_list", ["init=", "list", "Float32"]),
    (init_of_python_value, "init_none", ["init[1]", "None"]),
    (float_bound, "float_bound", ["stop", "integer", "f32"]),
    (counting_down, "counting_down", ["step", "positive", "-1"]),
    (counting_down_implicitly, "counting_down_implicitly", ["step", "positive", "-1"]),
])
def test_trace_errors(compile_only, kernel, marker, words):
    with pytest.raises(flyc.TraceError) as err:
        _module_text(kernel)
    e = err.value
    assert e.lineno == LINES[marker] and e.filename == __file__, str(e)
    for w in words:
        assert w in str(e), (w, str(e))


def plain_function(n):
    for i, (acc,) in range(0, n, 1, init=[0]):  # L:plain_loop
        r = yield [acc + 1]
    return r


def test_outside_a_trace_the_loop_needs_a_tracer():
    from flydsl.tracing.ast_rewriter import rewrite

    with pytest.raises(flyc.TraceError) as err:
        rewrite(plain_function)(3)
    assert err.value.lineno == LINES["plain_loop"] and "always traced" in str(err.value)
