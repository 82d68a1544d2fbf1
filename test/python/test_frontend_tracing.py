"""Tracing Python into Fly IR: control flow on dynamic values becomes scf
ops (the AST rewriter plus the tracer), Python-static control flow runs at
trace time, and user errors are exceptions naming the user's line.

Kernels are compiled with COMPILE_ONLY for gfx942; the tests read the
traced module (`compiled.module_text`, generic-form MLIR) and the ISA.
"""

import inspect
import re
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402


@pytest.fixture(autouse=True)
def compile_only(monkeypatch):
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    yield
    monkeypatch.undo()
    flyc.Environment.reload()


def _line_of(fn, text):
    """The file line of the first source line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line and not line.lstrip().startswith("def "):
            return start + i
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def _compile(kernel, *args, block=64):
    @flyc.jit
    def host(A, n: fx.Int32):
        kernel(A, n).launch(grid=(1, 1, 1), block=(block, 1, 1))

    return flyc.compile(host, np.zeros(64, np.float32), *args)


def _count(text, op):
    return len(re.findall(rf'"{re.escape(op)}"\(', text))


# -- dynamic control flow ------------------------------------------------------

@flyc.kernel
def if_elif_else(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    x = A[t]
    if t < 16:
        y = x * 2.0
    elif t < n:
        y = x + 1.0
    else:
        y = x
    A[t] = y


def test_if_elif_else_yields_the_assigned_variable():
    text = _compile(if_elif_else, 5).module_text
    # Two nested scf.ifs, each yielding y (an f32).
    assert _count(text, "scf.if") == 2
    assert text.count(": (i1) -> (f32)") == 2
    assert _count(text, "scf.yield") == 4


@flyc.kernel
def loop_carried(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    acc = fx.Float32(0.0)
    count = fx.Int32(0)
    for i in range(n):
        tmp = A[t] * 2.0
        acc = acc + tmp
        count = count + 1
    A[t] = acc + count.to(fx.Float32)


def test_range_loop_carries_what_the_body_assigns():
    compiled = _compile(loop_carried, 5)
    text = compiled.module_text
    # acc and count are carried; tmp is local to the body.
    m = re.search(r'"scf.for"\((%\d+), (%\d+), (%\d+), (%\d+), (%\d+)\)', text)
    assert m, text
    assert re.search(r"\^bb0\(%\d+: i32, %\d+: f32, %\d+: i32\):", text)
    assert re.search(r"\) : \(i32, i32, i32, f32, i32\) -> \(f32, i32\)", text)
    assert "s_cbranch" in compiled.isa()


@flyc.kernel
def nested_and_while(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    total = fx.Int32(0)
    for i in range(n):
        for j in range(i):
            total = total + j
    k = fx.Int32(1)
    while k < n:
        k = k * 2
    A[t] = (total + k).to(fx.Float32)


def test_nested_loops_and_while():
    text = _compile(nested_and_while, 7).module_text
    assert _count(text, "scf.for") == 2
    assert _count(text, "scf.while") == 1
    assert _count(text, "scf.condition") == 1


@flyc.kernel
def expressions(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    inside = t < n and not (t == 3) or t > 60
    v = A[t] if inside else A[0]
    A[t] = v


def test_ternary_and_boolean_operators():
    text = _compile(expressions, 7).module_text
    assert _count(text, "arith.andi") == 1
    assert _count(text, "arith.ori") == 1
    assert _count(text, "arith.xori") == 1  # not
    assert _count(text, "scf.if") == 1  # the conditional expression, lazily


@flyc.kernel
def static_control(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    x = A[t]
    for i in fx.range_constexpr(3):
        x = x + float(i)
    if fx.const_expr(n is not None):
        x = x * 2.0
    A[t] = x


def test_range_constexpr_and_const_expr_run_at_trace_time():
    text = _compile(static_control, 7).module_text
    assert _count(text, "scf.for") == 0 and _count(text, "scf.if") == 0
    assert _count(text, "arith.addf") == 3
    assert _count(text, "arith.mulf") == 1


def clamp_helper(x, n):
    if x > n:
        x = n
    return x


@flyc.kernel
def calls_helper(A: fx.Tensor, n: fx.Int32):
    t = fx.thread_idx.x
    A[t] = clamp_helper(t, n).to(fx.Float32)


def test_helpers_called_from_kernels_are_rewritten():
    text = _compile(calls_helper, 7).module_text
    assert _count(text, "scf.if") == 1
    # The helper's ops carry the helper's lines.
    line = _line_of(clamp_helper, "if x > n")
    assert f'{__file__}":{line}:' in text.replace('loc("', "")


# -- errors --------------------------------------------------------------------

@flyc.kernel
def breaks(A: fx.Tensor, n: fx.Int32):
    for i in range(n):
        if i > 2:
            break
        A[i] = 1.0


def test_break_in_a_range_loop_names_construct_and_line():
    with pytest.raises(flyc.RewriteError) as err:
        _compile(breaks, 7)
    assert "break" in str(err.value)
    assert err.value.lineno == _line_of(breaks.fn, "break")


@flyc.kernel
def python_bool(A: fx.Tensor, n: fx.Int32):
    assert n > 0


def test_dynamic_value_as_python_bool():
    with pytest.raises(flyc.TraceError, match="used as a Python bool") as err:
        _compile(python_bool, 7)
    assert err.value.lineno == _line_of(python_bool.fn, "assert")


@flyc.kernel
def number_carried(A: fx.Tensor, n: fx.Int32):
    acc = 0
    for i in range(n):
        acc = acc + A[i]
    A[0] = acc


def test_a_python_number_a_loop_changes_is_carried():
    # `acc = 0` becomes a loop-carried f32 (the type the body gives it).
    text = _compile(number_carried, 7).module_text
    assert _count(text, "scf.for") == 1
    assert re.search(r"\^bb0\(%\d+: i32, %\d+: f32\):", text)
    assert re.search(r"\) : \(i32, i32, i32, f32\) -> \(f32\)", text)


@flyc.kernel
def changes_type(A: fx.Tensor, n: fx.Int32):
    tag = "start"
    for i in range(n):
        tag = "again"
    A[0] = 1.0


def test_a_python_value_cannot_be_carried():
    with pytest.raises(flyc.TraceError, match="variable 'tag'") as err:
        _compile(changes_type, 7)
    assert err.value.lineno == _line_of(changes_type.fn, "for i in range")


@flyc.kernel
def bad_copy(A: fx.Tensor, n: fx.Int32):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    frag = fx.make_rmem_tensor(fx.make_layout((4, 2), (2, 1)), fx.Float32)
    fx.copy(atom, fx.zipped_divide(A, (8,))[None, 0], frag)


def test_invalid_ir_reports_the_users_line():
    with pytest.raises(flyc.CompileError) as err:
        _compile(bad_copy, 7)
    line = _line_of(bad_copy.fn, "fx.copy(")
    assert f"{__file__}:{line}:" in str(err.value)
    assert "'fly.copy' op" in str(err.value)
    # The message shows the user's source line under the diagnostic.
    assert "    fx.copy(atom, fx.zipped_divide(A, (8,))[None, 0], frag)" in str(err.value)


def test_argument_errors_are_clear():
    @flyc.jit
    def host(A, n: fx.Constexpr[int] = 3):
        pass

    with pytest.raises(flyc.TraceError, match="argument 'A' of host: a str is not a kernel argument"):
        flyc.compile(host, "not a tensor")
    strided = np.zeros((8, 8), np.float32)[:, ::2]
    with pytest.raises(flyc.TraceError, match="without a unit-stride dimension"):
        flyc.compile(host, strided)
    with pytest.raises(flyc.TraceError, match=r"is Constexpr\[int\] but got float"):
        flyc.compile(host, np.zeros(4, np.float32), 2.5)


@flyc.kernel
def fill_one(A: fx.Tensor):
    A[fx.thread_idx.x] = 1.0


def test_a_stream_argument_is_the_launch_stream():
    @flyc.jit
    def host(A, stream: fx.Stream):
        fill_one(A).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)

    compiled = flyc.compile(host, np.zeros(64, np.float32), fx.Stream(0))
    m = re.search(r"func.func @host\(%\d+: .*?, (%\d+): !llvm.ptr\)", compiled.module_text)
    assert m, compiled.module_text
    # The stream is the launch's async dependency (what gpu-to-llvm hands the
    # runtime), as a token cast from the host function's pointer argument.
    token = re.search(rf'(%\d+) = "builtin.unrealized_conversion_cast"\({m.group(1)}\) : '
                      r'\(!llvm.ptr\) -> \(!gpu.async.token\)', compiled.module_text)
    assert token, compiled.module_text
    assert re.search(rf"%\d+ = gpu.launch_func async \[{token.group(1)}\] "
                     "@fill_one_module::@fill_one", compiled.module_text)
    assert compiled.code_objects  # (test_host_entry.py: the launch gets the stream)


def test_new_shapes_with_the_same_signature_do_not_retrace():
    traces = []

    @flyc.kernel
    def fill(A: fx.Tensor):
        traces.append(1)
        A[fx.thread_idx.x] = 1.0

    @flyc.jit
    def host(A):
        fill(A).launch(grid=(1, 1, 1), block=(64, 1, 1))

    for n in (64, 100, 1000):
        host(np.zeros(n, np.float32))
    assert len(traces) == 1
    host(np.zeros((4, 8), np.float32))  # another rank: another signature
    host(np.zeros(64, np.int32))  # another element type
    assert len(traces) == 3
    host(np.zeros(200, np.float32)[1:])  # 4-byte aligned, not 16: another alignment class
    assert len(traces) == 4


@flyc.kernel
def scale(A: fx.Tensor, s: fx.Float32, n: fx.Int64):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] * s


def test_scalar_arguments_take_their_annotated_or_numeric_type():
    @flyc.jit
    def host(A, s: fx.Float32, n: fx.Int64):
        scale(A, s, n).launch(grid=(1, 1, 1), block=(64, 1, 1))

    text = flyc.compile(host, np.zeros(64, np.float32), 2, 5).module_text
    assert re.search(r"func.func @host\(%\d+: .*?, %\d+: f32, %\d+: i64\)", text)

    @flyc.jit
    def host2(A, s, n):
        scale(A, s, n).launch(grid=(1, 1, 1), block=(64, 1, 1))

    text = flyc.compile(host2, np.zeros(64, np.float32), fx.Float32(2.0), fx.Int64(5)).module_text
    assert re.search(r"func.func @host2\(%\d+: .*?, %\d+: f32, %\d+: i64\)", text)
    with pytest.raises(flyc.TraceError, match="argument 's' of host is Float32 but got str"):
        flyc.compile(host, np.zeros(64, np.float32), "2", 5)


@flyc.kernel
def vector_compare(A: fx.Tensor, n: fx.Int32):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    part = fx.zipped_divide(A, (4,))[None, fx.thread_idx.x]
    frag = fx.make_fragment_like(part)
    fx.copy(atom, part, frag)
    v = frag.load()
    frag.store(fx.arith.select(v > 0.5, v, v * 2.0))
    fx.copy(atom, frag, part)


def test_vector_comparisons_are_elementwise():
    compiled = _compile(vector_compare, 7)
    assert re.search(r'"arith.cmpf"\(%\d+, %\d+\) \{predicate = 2 : i64\} : '
                     r'\(vector<4xf32>, vector<4xf32>\) -> \(vector<4xi1>\)', compiled.module_text)
    assert "global_load_dwordx4" in compiled.isa()


def test_torch_tensors_are_arguments():
    import torch

    @flyc.jit
    def host(A, n: fx.Int32):
        vector_compare(A, n).launch(grid=(1, 1, 1), block=(64, 1, 1))

    t = torch.zeros(256, dtype=torch.float32)
    compiled = flyc.compile(host, t, 3)
    assert re.search(r"func.func @host\(%\d+: !fly.memref<f32, global, \?:1, align<16>>, %\d+: i32\)",
                     compiled.module_text)
    # The block the host entry gets holds the tensor's own data pointer.
    block = compiled.pack(t, 3)
    assert int.from_bytes(block[:8], "little") == t.data_ptr()
    assert int.from_bytes(block[8:12], "little") == 256
    with pytest.raises(flyc.TraceError, match="Int32 but got str"):
        flyc.compile(host, t, "3")


@flyc.kernel
def add_value(A: fx.Tensor, v: fx.Float32, times: fx.Constexpr[int]):
    x = A[fx.thread_idx.x]
    for _ in fx.range_constexpr(times):
        x = x + v
    A[fx.thread_idx.x] = x


def test_keywords_and_defaults():
    @flyc.jit
    def host(A, v: fx.Float32 = 1.0, times: fx.Constexpr[int] = 2):
        add_value(A, v, times=times).launch(grid=(1, 1, 1), block=(64, 1, 1))

    a = np.zeros(64, np.float32)
    by_default = flyc.compile(host, a)
    by_keyword = flyc.compile(host, A=a, times=2, v=3.0)
    assert by_default is by_keyword  # one signature: v is dynamic, times the same
    assert _count(by_default.module_text, "arith.addf") == 2
    three = flyc.compile(host, a, times=3)
    assert three is not by_default and _count(three.module_text, "arith.addf") == 3


# -- the module text -----------------------------------------------------------

@flyc.kernel
def layouts_used_twice(A: fx.Tensor, n: fx.Int32):
    layout = fx.make_layout((4, 16), (16, 1))
    t = fx.thread_idx.x
    a = fx.crd2idx((t % 4, t // 4), layout)
    b = fx.crd2idx((t // 16, t % 16), layout)
    A[t] = A[a] + A[b]


def test_dialect_types_are_written_once_as_aliases():
    """Each Fly type the ops use is printed once, as a `!name = type` alias
    before the module, and the ops refer to it by name: the compiler parses
    each type once, however many ops use it."""
    text = _compile(layouts_used_twice, 5).module_text
    head, _, body = text.partition("module attributes")
    aliases = dict(line.split(" = ", 1) for line in head.splitlines())
    layout = "!fly.layout<(4,16):(16,1)>"
    names = [name for name, ty in aliases.items() if ty == layout]
    assert len(names) == 1 and re.fullmatch(r"!layout_\d+", names[0]), aliases
    assert layout not in body
    uses = re.findall(rf"{re.escape(names[0])}\b", body)
    assert len(uses) >= 3, body  # make_layout's result, both crd2idx operands
    assert len(set(aliases.values())) == len(aliases)


@flyc.kernel
def _scale_kernel(A: fx.Tensor, B: fx.Tensor, factor: fx.Constexpr[float]):
    tid = fx.thread_idx.x
    B[tid] = A[tid] * factor


@flyc.jit
def _scale(A: fx.Tensor, B: fx.Tensor, factor: fx.Constexpr[float], stream: fx.Stream = fx.Stream(None)):
    if factor > 1.0:  # trace-time Python: the inlined body is rewritten too
        _scale_kernel(A, B, factor).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)


@flyc.jit
def _scale_twice(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    _scale(A, B, 2.0, stream)   # a @flyc.jit function called by one being traced
    _scale(B, C, 3.0)


def test_a_jit_function_called_while_tracing_runs_inline(fly_env):
    # FlyDSL runs such a call's body in the caller's trace: its launches are
    # the caller's, in one host function; nothing is compiled for it.
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    a = np.arange(64, dtype=np.float32)
    b, c = np.zeros_like(a), np.zeros_like(a)
    compiled = flyc.compile(_scale_twice, a, b, c)
    np.testing.assert_array_equal(b, a * 2)
    np.testing.assert_array_equal(c, a * 6)
    source, first = inspect.getsourcelines(_scale.fn)
    launch_line = first + next(i for i, text in enumerate(source) if ".launch(" in text)
    assert [line for _, _, line in compiled.launches()] == [launch_line] * 2
    assert "func.func @_scale(" not in compiled.module_text
