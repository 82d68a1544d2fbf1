"""The description of a @flyc.jit function's arguments has one home
(flydsl/compiler/arguments.py): the parameters are read once from the
signature (JitSignature), each argument of a call becomes one ArgumentSpec
record, and the cache key, the traced host function, the packing plan of
the argument block and the native packer are all read from those records.
The key's text is pinned: it is part of the disk cache's key, so entries
written before the records existed are still found."""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler import arguments as args_mod
from flydsl.compiler.jit_function import JitFunction
from flydsl.tracing.ir import parse_type


@flyc.kernel
def _add(A: fx.Tensor, c: fx.Constexpr[int]):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] + fx.Float32(float(c))


def _every_kind(A: fx.Tensor, B, n: fx.Int32, x, c: fx.Constexpr[int], p,
                s: fx.Stream = fx.Stream(None), flag=True, h: fx.Float16 = 1.0):
    _add(A, c).launch(grid=(1, 1, 1), block=(8, 1, 1), stream=s)


def _aligned(shape, dtype, align=64):
    """An array whose data starts at a multiple of `align` bytes (a raw
    tensor's alignment class is 16 then, whatever the allocator does)."""
    itemsize = np.dtype(dtype).itemsize
    size = int(np.prod(shape))
    buffer = np.zeros(size + align // itemsize, dtype)
    start = (-buffer.ctypes.data % align) // itemsize
    return buffer[start:start + size].reshape(shape)


def _arguments():
    a = _aligned((4, 8), np.float32)
    b = flyc.from_dlpack(_aligned((16,), np.int8)).mark_layout_dynamic(divisibility=4)
    pointer = flyc.from_c_void_p(fx.Float32, a.ctypes.data)
    return a, (a, b, 3, 2.5, 7, pointer)


# The key of these arguments as it was before the records (the tuples
# (name, kind, payload) the disk cache has always hashed).
KEY_TEXT = ("(('A', 'tensor', TensorSpec(element='f32', layout='(?,?):(?,1)', align=16)), "
            "('B', 'tensor', TensorSpec(element='i8', layout='?:1', align=16)), "
            "('n', 'scalar', 'i32'), ('x', 'scalar', 'f32'), ('c', 'constexpr', 7), "
            "('p', 'pointer', '!fly.ptr<f32, global, align<4>>'), ('s', 'stream', '!llvm.ptr'), "
            "('flag', 'scalar', 'i1'), ('h', 'scalar', 'f16'))")


def test_each_argument_is_one_record_of_its_kind():
    jit = JitFunction(_every_kind)
    _, args = _arguments()
    specs = jit._jit_signature.describe(jit._arguments(args, {}))
    assert [type(s).__name__ for s in specs] == [
        "TensorArgument", "TensorArgument", "ScalarArgument", "ScalarArgument",
        "ConstexprArgument", "PointerArgument", "StreamArgument", "ScalarArgument",
        "ScalarArgument"]
    assert repr(tuple(s.key for s in specs)) == KEY_TEXT
    assert [s.where for s in specs[:2]] == ["argument 'A' of _every_kind",
                                            "argument 'B' of _every_kind"]
    # the host function's arguments: one per argument but the Constexpr
    assert [n for s in specs for n in s.host_names] == ["A", "B", "n", "x", "p", "s", "flag", "h"]
    assert [t for s in specs for t in s.host_types] == [
        "!fly.memref<f32, global, (?,?):(?,1), align<16>>",
        "!fly.memref<i8, global, ?:1, align<16>>", "i32", "f32",
        "!fly.ptr<f32, global, align<4>>", "!llvm.ptr", "i1", "f16"]
    assert specs[4].host_types == () and specs[4].traced(()) == 7


def test_the_disk_cache_key_reads_the_records(fly_env):
    fly_env(ARCH="gfx942")
    jit = JitFunction(_every_kind)
    _, args = _arguments()
    specs = jit._jit_signature.describe(jit._arguments(args, {}))
    fields = dict(jit._cache_fields(specs, jit.compile_options()))
    assert fields["arguments"] == KEY_TEXT


def test_the_trace_and_the_packing_plan_read_the_records(fly_env):
    fly_env(ARCH="gfx942", COMPILE_ONLY="1", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    jit = JitFunction(_every_kind)
    a, args = _arguments()
    compiled = flyc.compile(jit, *args)
    assert compiled.arg_names == ["A", "B", "n", "x", "p", "s", "flag", "h"]
    (host,) = [line for line in compiled.module_text.splitlines()
               if line.startswith("func.func @_every_kind(")]
    types = [str(parse_type(t)) for s in compiled.specs for t in s.host_types]
    assert host == ("func.func @_every_kind("
                    + ", ".join(f"%{i}: {t}" for i, t in enumerate(types, 1)) + ") {")
    _, plan = compiled._packing()
    assert [(spec.name, kind) for spec, _, kind, _ in plan.entries] == [
        ("A", "tensor"), ("B", "tensor"), ("n", "scalar"), ("x", "scalar"), ("p", "pointer"),
        ("s", "handle"), ("flag", "scalar"), ("h", "scalar")]
    assert [spec.name for spec in plan.constants] == ["c"]
    params = plan.native_params()
    assert params[4] == ("constexpr", 7)
    assert [p[:2] for p in params[:4]] == [("host", 0), ("host", 1), ("host", 2), ("host", 3)]
    # a call's values, checked against the records, in the block's slots
    slots, parameters = plan.values(compiled._bind(args, {}, "f"), None)
    assert parameters[0] == (a.ctypes.data, [4, 8, 8, 1])  # its address, extents, strides
    assert parameters[2:4] == [3, 2.5] and parameters[5] == 0 and parameters[6:] == [True, 1.0]
    assert len(slots) == len(compiled._host_function()["slots"])
    with pytest.raises(flyc.TraceError, match="argument 'c' of _every_kind is a Constexpr "
                                             "compiled as 7, got 8"):
        plan.values(compiled._bind(args[:4] + (8,) + args[5:], {}, "f"), None)


def test_the_parameters_are_read_once_from_the_signature():
    def plain(A, c: fx.Constexpr[int], s: fx.Stream = fx.Stream(None), n: fx.Int32 = 1):
        pass

    def keyword_only(A, *, c: fx.Constexpr[int] = 1):
        pass

    described = args_mod.JitSignature("plain", args_mod.evaluated_signature(plain))
    assert described.dispatch_kinds == "vcsv"
    assert described.binding[0] == ("A", "c", "s", "n")
    assert described.bind((1, 2), {}) == {"A": 1, "c": 2, "s": plain.__defaults__[0], "n": 1}
    assert args_mod.JitSignature("k", args_mod.evaluated_signature(keyword_only)).binding is None
