"""flydsl.compiler's public surface is FlyDSL's (SPEC §7): its __all__,
the parameter lists of FlyDSL 0.4.2 (shared/data/flydsl-api), argument
descriptors (from_dlpack, from_torch_tensor, from_c_void_p) with FlyDSL's
members and layout semantics, fx.Stream values, the compile-backend
registry the compile path goes through, the JitArgument protocol for user
types, flyc.compile's hints, and flydsl.runtime.device."""

import ctypes
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.compiler import protocol
from flydsl.compiler.backends.rocm import RocmBackend
from flydsl.tracing.errors import ArgumentError, FlyDSLError
from flydsl.runtime.device import get_rocm_arch, is_rdna_arch

API = Path("/work/shared/data/flydsl-api")
FLYDSL_ALL = ["BaseBackend", "CompiledFunction", "compile_backend_name", "get_backend",
              "GPUTarget", "register_backend", "JitArgumentRegistry", "from_dlpack",
              "from_torch_tensor", "from_c_void_p", "jit", "kernel", "compile"]


def test_all_is_flydsls_and_the_extra_names_stay_importable():
    assert flyc.__all__ == FLYDSL_ALL
    for extra in ("TensorDescriptor", "PointerDescriptor", "JitFunction", "Kernel",
                  "Environment", "CompileOptions", "FlyDSLError", "ArgumentError",
                  "TraceError", "CompileError", "RewriteError"):
        assert hasattr(flyc, extra) and extra not in flyc.__all__


def _catalog():
    return json.loads((API / "signatures-0.4.2.json").read_text())


@pytest.mark.parametrize("path", sorted(p for p in json.loads(
    (API / "signatures-0.4.2.json").read_text()) if p.startswith(
        ("flydsl.compiler", "flydsl.runtime"))))
def test_parameters_are_flydsls(path):
    import importlib

    module, _, name = path.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    want = [tuple(p) for p in _catalog()[path]]
    if want == [("args", "VAR_POSITIONAL"), ("kwargs", "VAR_KEYWORD")]:  # protocol classes
        assert isinstance(obj, type)
        return
    got = [(p.name, p.kind.name) for p in inspect.signature(obj).parameters.values()]
    assert got == want


def test_protocol_all_and_jit_kernel_compile_signatures():
    assert sorted(protocol.__all__) == sorted(
        ["DslType", "JitArgument", "Storable", "c_abi_spec", "cache_signature",
         "construct_from_ir_values", "dsl_align_of", "dsl_size_of", "extract_to_ir_values",
         "get_ir_types", "peek_from_ptr", "poke_into_ptr"])
    assert str(inspect.signature(flyc.kernel)) == "(func=None, *, name=None, known_block_size=None)"
    assert str(inspect.signature(flyc.compile)) == "(func, *args, **kwargs)"


# -- descriptors --------------------------------------------------------------

def test_from_dlpack_members_and_flydsls_layout_semantics():
    a = np.zeros((8, 16), np.float32)
    d = flyc.from_dlpack(a)
    assert (d.shape, d.strides, d.rank, d.element_bits) == ((8, 16), (16, 1), 2, 32)
    assert d.dltensor is a and d.dtype == np.float32 and str(d.element_type) == "f32"
    assert not d.is_layout_dynamic and d.spec.layout == "(8,16):(16,1)"
    # every extent dynamic (divisibility 1), the non-unit strides divisible
    d.mark_layout_dynamic(divisibility=4)
    assert d.spec.layout == "(?,?):(?{div=4},1)"
    assert d.shape_dyn_indices == (0, 1) and d.stride_dyn_indices == (0,)
    e = flyc.from_dlpack(a).mark_shape_dynamic([0, -1], [8, 16]).mark_stride_dynamic(0, 16)
    assert e.spec.layout == "(?{div=8},?{div=16}):(?{div=16},1)"
    assert flyc.from_dlpack(a, assumed_align=8).spec.align == 8
    assert flyc.from_dlpack(a).mark_layout_dynamic(leading_dim=1).spec.layout == "(?,?):(?,1)"
    assert protocol.get_ir_types(d) == [d.spec.type_text()]
    assert protocol.cache_signature(d) == protocol.cache_signature(
        flyc.from_dlpack(np.ones((8, 16), np.float32)).mark_layout_dynamic(divisibility=4))


def test_descriptor_errors_name_the_api_at_the_users_line():
    a = np.zeros((8, 16), np.float32)
    with pytest.raises(ArgumentError) as e:
        flyc.from_dlpack(a).mark_shape_dynamic(2)
    assert "mark_shape_dynamic: the dimension 2 is out of range for rank 2" in str(e.value)
    assert e.value.filename == __file__
    with pytest.raises(ArgumentError, match="divisibility 3 is not a power of two"):
        flyc.from_dlpack(a).mark_stride_dynamic(0, divisibility=3)
    with pytest.raises(ArgumentError, match=r"leading dimension 0 has stride 16, not 1"):
        flyc.from_dlpack(a).mark_layout_dynamic(leading_dim=0)
    with pytest.raises(ArgumentError, match=r"from_dlpack\(assumed_align=\): a power of two"):
        flyc.from_dlpack(a, assumed_align=6)
    with pytest.raises(ArgumentError, match=r"from_torch_tensor\(tensor\): a torch.Tensor"):
        flyc.from_torch_tensor(a)
    for bad in ("0x10", True, -8, 1 << 64):
        with pytest.raises(ArgumentError, match=r"from_c_void_p\(pointer\): an int"):
            flyc.from_c_void_p(fx.Int32, bad)
    assert flyc.from_c_void_p(fx.Int32, np.uint64(64)).pointer.value == 64
    assert flyc.from_c_void_p(fx.Int32, None).pointer.value is None
    with pytest.raises(ArgumentError, match=r"from_c_void_p\(element_type\)"):
        flyc.from_c_void_p(42, 0)


def test_from_torch_tensor():
    import torch

    t = torch.arange(12, dtype=torch.float16).reshape(3, 4)
    d = flyc.from_torch_tensor(t, use_32bit_stride=True).mark_layout_dynamic()
    assert d.torch_tensor is t and d.dtype == torch.float16 and d.element_bits == 16
    assert d.spec.layout == "(?,?):(?,1)" and d.use_32bit_stride


@flyc.kernel
def _copy_from_pointer(P: fx.Pointer, out: fx.Tensor):
    out[fx.thread_idx.x] = (P + fx.thread_idx.x).load()


@flyc.jit
def _from_pointer(P: fx.Pointer, out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    _copy_from_pointer(P, out).launch(grid=(1, 1, 1), block=(4, 1, 1), stream=stream)


def test_from_c_void_p_reaches_the_kernel_as_a_fly_pointer():
    src = np.arange(4, dtype=np.int32) + 10
    p = flyc.from_c_void_p(fx.Int32, src.ctypes.data)
    assert isinstance(p.pointer, ctypes.c_void_p) and p.pointer.value == src.ctypes.data
    assert (str(p.address_space), p.alignment) == ("global", 4)
    out = np.zeros(4, np.int32)
    _from_pointer(p, out)
    assert out.tolist() == [10, 11, 12, 13]
    compiled = flyc.compile(_from_pointer, p, out)
    assert "func.func @_from_pointer(%1: !fly.ptr<i32, global>" in compiled.module_text
    other = np.arange(4, dtype=np.int32) * 3
    out[:] = 0
    compiled(flyc.from_c_void_p(fx.Int32, other.ctypes.data), out, fx.Stream(None))
    assert out.tolist() == [0, 3, 6, 9]
    # As FlyDSL's compiled functions, the address itself (an int, a
    # data_ptr()) or a ctypes.c_void_p.
    for address in (int(other.ctypes.data), np.uint64(other.ctypes.data),
                    ctypes.c_void_p(other.ctypes.data)):
        out[:] = 0
        compiled(address, out, fx.Stream(None))
        assert out.tolist() == [0, 3, 6, 9]
    with pytest.raises(ArgumentError, match=r"compiled for a pointer .*got ndarray"):
        compiled(other, out, fx.Stream(None))
    for bad in (True, 2.5, -8, 1 << 64):
        with pytest.raises(ArgumentError, match=r"compiled for a pointer"):
            compiled(bad, out, fx.Stream(None))


# -- streams ------------------------------------------------------------------

class _TorchLikeStream:
    cuda_stream = 0  # what FlyDSL reads of a torch stream


def test_stream_values():
    assert fx.Stream(None).handle == 0 and fx.Stream(None).value is None
    assert fx.Stream(0x1234).handle == 0x1234
    assert fx.Stream(_TorchLikeStream()).handle == 0
    with pytest.raises(ArgumentError, match=r"fx.Stream\(value\): None .* got str"):
        fx.Stream("default")
    src = np.arange(4, dtype=np.int32)
    out = np.zeros(4, np.int32)
    p = flyc.from_c_void_p(fx.Int32, src.ctypes.data)
    for stream in (fx.Stream(None), fx.Stream(0), 0, _TorchLikeStream()):
        out[:] = -1
        _from_pointer(p, out, stream)
        assert out.tolist() == [0, 1, 2, 3]
    with pytest.raises(ArgumentError, match="fx.Stream"):
        _from_pointer(p, out, "stream")


@flyc.kernel
def _add_one(A: fx.Tensor):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] + 1.0


@flyc.jit
def _add_one_default_stream(A: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    _add_one(A).launch(grid=(1, 1, 1), block=(8, 1, 1), stream=stream)


def test_flyc_compile_runs_the_call_once_as_flydsls(fly_env):
    """FlyDSL's flyc.compile(f, *args) runs f(*args) once before handing
    out the compiled function; under COMPILE_ONLY it runs nothing."""
    fly_env(COMPILE_ONLY=None, FLYDSL_RUNTIME_KIND="emu")
    a = np.zeros(8, np.float32)
    compiled = flyc.compile(_add_one_default_stream, a)
    assert a.tolist() == [1.0] * 8
    compiled(a)
    assert a.tolist() == [2.0] * 8
    fly_env(COMPILE_ONLY="1")
    again = flyc.compile(_add_one_default_stream, a)
    assert again is compiled and a.tolist() == [2.0] * 8


def test_a_default_stream_parameter_stays_on_the_fast_path():
    a = np.zeros(8, np.float32)
    _add_one_default_stream(a)
    _add_one_default_stream(a)
    _add_one_default_stream(a, fx.Stream(None))
    assert a.tolist() == [3.0] * 8
    assert len(_add_one_default_stream._dispatch) == 1  # one key for all three calls
    (compiled,) = _add_one_default_stream._compiled.values()
    assert compiled._native  # the native packer took the stream as its handle


# -- backends -----------------------------------------------------------------

class _RecordingBackend(RocmBackend):
    compiles = []

    def compile(self, module_text, options):
        type(self).compiles.append((self.target, options))
        return super().compile(module_text, options)


def test_a_registered_backend_is_the_one_compiling(fly_env):
    flyc.register_backend("recording", _RecordingBackend, force=True)
    fly_env(FLYDSL_COMPILE_BACKEND="Recording", ARCH="gfx950", FLYDSL_RUNTIME_ENABLE_CACHE="0")
    assert flyc.compile_backend_name() == "recording"
    backend = flyc.get_backend()
    assert isinstance(backend, _RecordingBackend)
    assert backend.target == flyc.GPUTarget("rocm", "gfx950", 64)
    assert flyc.get_backend("rocm", arch="gfx1100").target.warp_size == 32
    a = np.zeros(8, np.float32)
    _add_one_default_stream(a)
    target, options = _RecordingBackend.compiles[-1]
    assert target.arch == "gfx950" and options.backend == "recording"
    assert options.arch == "gfx950" and options.opt_level == 2 and options.emulator
    assert a.tolist() == [1.0] * 8
    assert backend.pipeline_fragments(compile_hints={"waves_per_eu": 2})[0] == (
        "fly-pipeline{stage=pre_binary chip=gfx950 O=2 waves-per-eu=2}")


def test_backend_registry_errors(fly_env):
    with pytest.raises(ArgumentError, match="'rocm' is already registered"):
        flyc.register_backend("rocm", RocmBackend)
    with pytest.raises(ArgumentError, match="a subclass of BaseBackend"):
        flyc.register_backend("x", object)

    class Partial(flyc.BaseBackend):
        @staticmethod
        def supports_target(target):
            return True

    with pytest.raises(ArgumentError, match="Partial does not implement detect_target"):
        flyc.register_backend("partial", Partial)
    with pytest.raises(ArgumentError, match="does not support the target"):
        RocmBackend(flyc.GPUTarget("cuda", "sm_90", 32))
    fly_env(FLYDSL_COMPILE_BACKEND="nosuch")
    with pytest.raises(FlyDSLError, match=r"unknown compile backend 'nosuch' "
                                          r"\(FLYDSL_COMPILE_BACKEND\).*rocm"):
        _add_one_default_stream(np.zeros(8, np.float32))


# -- the JitArgument protocol --------------------------------------------------

class Affine:
    """A user type: two i32 scalars on the host, one object in the kernel."""

    def __init__(self, scale, bias):
        self.scale, self.bias = scale, bias

    def __get_ir_types__(self):
        return ["i32", "i32"]

    def __cache_signature__(self):
        return (Affine,)

    def __c_abi_spec__(self):
        return [(ctypes.c_int32, lambda a, s: setattr(s, "value", a.scale)),
                (ctypes.c_int32, lambda a, s: setattr(s, "value", a.bias))]

    @classmethod
    def __construct_from_ir_values__(cls, values, exemplar=None):
        from flydsl.expr._core import wrap

        return cls(*(wrap(v) for v in values))

    def __extract_to_ir_values__(self):
        return [self.scale.ir, self.bias.ir]


@flyc.kernel
def _affine_kernel(out: fx.Tensor, scale: fx.Int32, bias: fx.Int32):
    out[fx.thread_idx.x] = scale * fx.thread_idx.x + bias


@flyc.jit
def _affine(out: fx.Tensor, f: Affine):
    assert len(protocol.extract_to_ir_values(f)) == 2
    _affine_kernel(out, f.scale, f.bias).launch(grid=(1, 1, 1), block=(4, 1, 1))


def test_a_user_type_reaches_the_kernel_through_the_protocol():
    assert isinstance(Affine(1, 2), protocol.JitArgument)
    assert isinstance(Affine(1, 2), protocol.DslType)
    out = np.zeros(4, np.int32)
    _affine(out, Affine(3, 1))
    assert out.tolist() == [1, 4, 7, 10]
    _affine(out, Affine(2, 5))  # same signature: the same compiled code, new values
    assert out.tolist() == [5, 7, 9, 11]
    assert len(_affine._compiled) == 1


class Offset:
    def __init__(self, n):
        self.n = n


@flyc.JitArgumentRegistry.register(Offset, dsl_type=fx.Int32)
class OffsetArg:
    def __init__(self, offset):
        self.offset = offset

    def __get_ir_types__(self):
        return ["i32"]

    def __cache_signature__(self):
        return (OffsetArg,)

    def __c_abi_spec__(self):
        return [(ctypes.c_int32, lambda a, s: setattr(s, "value", a.offset.n))]


@flyc.jit
def _offset(out: fx.Tensor, k):
    _affine_kernel(out, 1, k).launch(grid=(1, 1, 1), block=(4, 1, 1))


def test_a_registered_python_type_becomes_its_jit_argument():
    assert flyc.JitArgumentRegistry.get(Offset) == (OffsetArg, fx.Int32)
    out = np.zeros(4, np.int32)
    _offset(out, Offset(100))
    assert out.tolist() == [100, 101, 102, 103]
    with pytest.raises(ArgumentError, match="already registered"):
        flyc.JitArgumentRegistry.register(Offset, dsl_type=fx.Int32)(OffsetArg)


def test_protocol_functions_on_containers():
    from types import SimpleNamespace

    ns = SimpleNamespace(a=Affine(1, 2), b=[Affine(3, 4)])
    assert protocol.get_ir_types(ns) == ["i32"] * 4
    assert protocol.cache_signature(ns) == (("a", (Affine,)), ("b", ((Affine,),)))
    with pytest.raises(TypeError, match="Storable"):
        protocol.dsl_size_of(Affine)


# -- compile hints and CompiledFunction -----------------------------------------

def test_compile_hints_enter_the_module_and_the_key(fly_env):
    fly_env(COMPILE_ONLY=None, FLYDSL_RUNTIME_ENABLE_CACHE="0")

    @flyc.jit
    def hinted(A: fx.Tensor):
        _add_one(A).launch(grid=(1, 1, 1), block=(8, 1, 1))

    a = np.zeros(8, np.float32)
    plain = flyc.compile(hinted, a)
    assert flyc.compile(hinted) is hinted
    tuned = flyc.compile[{"waves_per_eu": 2}](hinted, a)
    assert tuned is not plain and hinted.compile_hints == {"waves_per_eu": 2}
    assert tuned.options.compile_hints == (("waves_per_eu", 2),)
    text = RocmBackend(RocmBackend.make_target("gfx942")).lower_compile_hints(
        tuned.module_text, compile_hints={"waves_per_eu": 2})
    assert "rocdl.waves_per_eu = 2 : i32" in text
    with pytest.raises(ArgumentError, match="compile hint 'fast_math' is not one of"):
        flyc.compile[{"fast_math": True}]
    with pytest.raises(ArgumentError, match=r"CompiledFunction\(call_state\): a CallState"):
        flyc.CompiledFunction(None, None)


# -- flydsl.runtime.device -------------------------------------------------------

def test_runtime_device_queries(fly_env):
    fly_env(FLYDSL_GPU_ARCH=None, HSA_OVERRIDE_GFX_VERSION=None, ARCH=None)
    assert get_rocm_arch() == "gfx942" == flyc.Environment.current().arch  # no GPU here
    fly_env(FLYDSL_GPU_ARCH="GFX1201")
    assert get_rocm_arch() == "gfx1201" == flyc.Environment.current().arch
    assert is_rdna_arch() and flyc.get_backend().target.warp_size == 32
    fly_env(FLYDSL_GPU_ARCH=None, HSA_OVERRIDE_GFX_VERSION="11.0.0")
    assert get_rocm_arch() == "gfx1100"
    fly_env(ARCH="gfx950")
    assert flyc.Environment.current().arch == "gfx950" and get_rocm_arch() == "gfx1100"
    assert [is_rdna_arch(a) for a in ("gfx942", "gfx1100", "gfx1201", "gfx1250", "gfx1030")] == [
        False, True, True, False, True]
    with pytest.raises(ArgumentError, match=r"is_rdna_arch\(arch\): a str or None, got int"):
        is_rdna_arch(942)
