"""The compiler's description of a host function's argument block
(fly/HostAbi.h: its parameters and slots) against the bytes a call packs.

For each kind of argument -- numpy arrays, torch tensors, from_dlpack
descriptors with each mark_*, scalars of every type, Constexpr values,
streams and a protocol (struct-like) value -- a function is compiled
(COMPILE_ONLY), and:
  - every slot's offset is checked against the C layout of the host
    function's LLVM argument types, computed by ctypes (an independent
    implementation of the host's C ABI);
  - the leaves the description says are static or dynamic are checked
    against the layout the test expects for that argument;
  - the block packed by the Python path and by the native packer is decoded
    at the described offsets and compared with the values the test computes
    itself from the arrays (address, extents, strides) and scalars.
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly

from test_compiler_api import Affine

torch = pytest.importorskip("torch")

SLOT_FORMATS = {"ptr": "Q", "i1": "?", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
                "f16": "e", "bf16": "H", "f32": "f", "f64": "d"}

_CTYPES = {"ptr": ctypes.c_void_p, "i1": ctypes.c_bool, "i8": ctypes.c_int8,
           "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
           "half": ctypes.c_uint16, "bfloat": ctypes.c_uint16, "float": ctypes.c_float,
           "double": ctypes.c_double}


def _ctype(llvm_type: str):
    """The ctypes type of an LLVM argument type (`ptr addrspace(1)`,
    `{ i32, i64 }`, `i64`, `float`, ...)."""
    llvm_type = llvm_type.strip()
    if llvm_type.startswith("{"):
        fields = [f for f in llvm_type.strip("{} ").split(",") if f.strip()]
        return type("Leaves", (ctypes.Structure,),
                    {"_fields_": [(f"f{i}", _ctype(f)) for i, f in enumerate(fields)]})
    if llvm_type.startswith("ptr"):
        return ctypes.c_void_p
    return _CTYPES[llvm_type]


def c_offsets(host) -> list[int]:
    """The byte offset of every scalar of the host function's arguments in
    the C struct of them, in order (ctypes' layout)."""
    fields = [(f"a{i}", _ctype(a["type"])) for i, a in enumerate(host["arguments"])]
    block = type("Block", (ctypes.Structure,), {"_fields_": fields})
    assert ctypes.sizeof(block) == host["block_size"]
    offsets = []
    for (name, ctype) in fields:
        base = getattr(block, name).offset
        if issubclass(ctype, ctypes.Structure):
            offsets += [base + getattr(ctype, f).offset for f, _ in ctype._fields_]
        else:
            offsets.append(base)
    return offsets


def decode(host, block: bytes) -> list:
    """The value of every slot of `block`, read where the description puts it."""
    assert len(block) == host["block_size"]
    return [struct.unpack_from("<" + SLOT_FORMATS[kind], block, offset)[0]
            for offset, kind, _, _ in host["slots"]]


def compiled_of(jit, *args, **kwargs):
    compiled = flyc.compile(jit, *args, **kwargs)
    (host,) = compiled.host_functions
    assert [s[0] for s in host["slots"]] == c_offsets(host)
    return compiled, host


def native_block(compiled, *args, **kwargs) -> bytes:
    """The block the native packer makes for these arguments."""
    compiled._entry = _fly.HostEntry(compiled.host_module, compiled.name)
    packer = compiled._native_packer()
    assert packer, "the native packer declined the signature"
    block = packer.pack(args, kwargs)
    assert block is not None, "the native packer declined the arguments"
    return block


def layout_of(parameter) -> str:
    """The parameter's leaves as `(shape):(strides)` text, `?` for dynamic."""
    def text(kind):
        leaves = ["?" if v is None else str(v) for k, _, v, _, _ in parameter["leaves"] if k == kind]
        return "(" + ",".join(leaves) + ")"
    return text("shape") + ":" + text("stride")


def tensor_values(parameter, address, shape, strides) -> list:
    """What the test expects a tensor's slots to hold: its address, then
    the dynamic leaves' values, read from the array itself."""
    values = [address]
    for kind, dim, value, _, _ in parameter["leaves"]:
        if value is None:
            values.append((shape if kind == "shape" else strides)[dim])
    return values


@flyc.kernel
def _sink(A: fx.Tensor, B: fx.Tensor):
    A[0] = B[0]


@flyc.jit
def _two(A, B):
    _sink(A, B).launch(grid=(1, 1, 1), block=(1, 1, 1))


@pytest.fixture(autouse=True)
def compile_only(fly_env):
    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_ENABLE_CACHE="0")


ARRAYS = {
    "numpy 2-D": lambda: np.zeros((6, 10), np.float32),
    "numpy column view": lambda: np.zeros((6, 10), np.float32)[:, 2:5],
    "numpy transposed": lambda: np.zeros((6, 10), np.float32).T,
    "numpy 3-D int32": lambda: np.zeros((2, 3, 4), np.int32),
    "torch 2-D": lambda: torch.zeros((5, 7), dtype=torch.float16),
    "torch bf16": lambda: torch.zeros((4, 8), dtype=torch.bfloat16),
}


def _dims(t):
    if isinstance(t, np.ndarray):
        return t.ctypes.data, list(t.shape), [s // t.itemsize for s in t.strides]
    return t.data_ptr(), list(t.shape), list(t.stride())


@pytest.mark.parametrize("name", list(ARRAYS))
def test_raw_tensors(name):
    """A raw tensor is traced with every extent and every stride dynamic but
    the first unit stride; the block holds exactly those, as the arrays
    have them."""
    a, b = ARRAYS[name](), ARRAYS[name]()
    compiled, host = compiled_of(_two, a, b)
    pa, pb = host["parameters"]
    _, shape, strides = _dims(a)
    unit = strides.index(1) if 1 in strides else None
    expect = "(" + ",".join("?" * len(shape)) + "):(" + ",".join(
        "1" if i == unit else "?" for i in range(len(strides))) + ")"
    assert layout_of(pa) == layout_of(pb) == expect
    want = tensor_values(pa, *_dims(a)) + tensor_values(pb, *_dims(b))
    assert decode(host, compiled.pack(a, b)) == want
    assert decode(host, native_block(compiled, a, b)) == want
    # the slots of A point at A's parameter, B's at B's
    assert [s[2] for s in host["slots"]] == [0] * (len(want) // 2) + [1] * (len(want) // 2)


MARKS = {
    "static": (lambda d: d, "(6,10):(10,1)"),
    "mark_layout_dynamic()": (lambda d: d.mark_layout_dynamic(), "(?,?):(?,1)"),
    "mark_layout_dynamic(divisibility=2)": (lambda d: d.mark_layout_dynamic(divisibility=2),
                                            "(?,?):(?,1)"),
    "mark_shape_dynamic(0)": (lambda d: d.mark_shape_dynamic(0), "(?,10):(10,1)"),
    "mark_shape_dynamic([0, 1])": (lambda d: d.mark_shape_dynamic([0, 1]), "(?,?):(10,1)"),
    "mark_stride_dynamic(0)": (lambda d: d.mark_stride_dynamic(0), "(6,10):(?,1)"),
}


@pytest.mark.parametrize("mark", list(MARKS))
def test_descriptors_with_each_mark(mark):
    fn, expect = MARKS[mark]
    arrays = [np.zeros((6, 10), np.float32) for _ in range(2)]
    descs = [fn(flyc.from_dlpack(a)) for a in arrays]
    compiled, host = compiled_of(_two, *descs)
    assert layout_of(host["parameters"][0]) == expect
    if "divisibility=2" in mark:  # the declared divisor reaches the description
        assert [leaf[3] for leaf in host["parameters"][0]["leaves"] if leaf[2] is None] != [1] * 3
    want = sum((tensor_values(host["parameters"][i], *_dims(a)) for i, a in enumerate(arrays)), [])
    assert decode(host, compiled.pack(*descs)) == want
    assert decode(host, native_block(compiled, *descs)) == want
    # the native packer takes the arrays as they are, as the Python path does
    assert decode(host, native_block(compiled, *arrays)) == want


@flyc.kernel
def _scalars_kernel(A: fx.Tensor, a: fx.Int8, b: fx.Int16, c: fx.Int32, d: fx.Int64,
                    e: fx.Float32, f: fx.Float64, g: fx.Boolean):
    A[0] = fx.Float32(c)


@flyc.jit
def _scalars(A, a: fx.Int8, b: fx.Int16, c: fx.Int32, d: fx.Int64, e: fx.Float32, f: fx.Float64,
             g: fx.Boolean, n: fx.Constexpr[int], stream: fx.Stream = fx.Stream(None)):
    _scalars_kernel(A, a, b, c, d, e, f, g).launch(grid=(n, 1, 1), block=(1, 1, 1), stream=stream)


def test_scalars_constexpr_and_streams():
    A = np.zeros(8, np.float32)
    values = (-5, -300, 70000, -(2**40), 1.5, 2.25, True)
    compiled, host = compiled_of(_scalars, A, *values, 2)
    kinds = [p["kind"] for p in host["parameters"]]
    assert kinds == ["tensor"] + ["scalar"] * 7 + ["handle"]  # no slot for the Constexpr
    assert [s[1] for s in host["slots"][-8:]] == ["i8", "i16", "i32", "i64", "f32", "f64", "i1",
                                                  "ptr"]
    for stream, handle in ((fx.Stream(None), 0), (fx.Stream(0x5EED0), 0x5EED0), (0x77, 0x77)):
        want = tensor_values(host["parameters"][0], *_dims(A)) + list(values) + [handle]
        assert decode(host, compiled.pack(A, *values, 2, stream)) == want
        assert decode(host, native_block(compiled, A, *values, 2, stream=stream)) == want
    # the default stream when none is given, through both paths
    want = tensor_values(host["parameters"][0], *_dims(A)) + list(values) + [0]
    assert decode(host, compiled.pack(A, *values, 2)) == want
    assert decode(host, native_block(compiled, A, *values, 2)) == want
    # a Constexpr other than the compiled one is the Python path's error
    with pytest.raises(flyc.ArgumentError, match="Constexpr compiled as 2, got 3"):
        compiled.pack(A, *values, 3)
    # a value out of its slot's range: the native packer declines, Python names it
    compiled._entry = _fly.HostEntry(compiled.host_module, compiled.name)
    # (a slot is signless: i8 takes -128 .. 255, the signed and unsigned readings)
    assert compiled._native_packer().pack((A, 256, *values[1:], 2), None) is None
    with pytest.raises(flyc.ArgumentError, match=r"256 does not fit the i8 at offset \d+"):
        compiled.pack(A, 256, *values[1:], 2)
    with pytest.raises(flyc.ArgumentError, match=r"-129 does not fit the i8 at offset \d+"):
        compiled.pack(A, -129, *values[1:], 2)
    for byte in (255, -1):
        want = tensor_values(host["parameters"][0], *_dims(A)) + [-1] + list(values[1:]) + [0]
        assert decode(host, compiled.pack(A, byte, *values[1:], 2)) == want
        assert decode(host, native_block(compiled, A, byte, *values[1:], 2)) == want


@flyc.kernel
def _halves_kernel(A: fx.Tensor, h: fx.Float16, b: fx.BFloat16):
    A[0] = fx.Float32(h)


@flyc.jit
def _halves(A, h: fx.Float16, b: fx.BFloat16):
    _halves_kernel(A, h, b).launch(grid=(1, 1, 1), block=(1, 1, 1))


def test_half_precision_scalars_round_to_nearest_even():
    """f16 and bf16 scalars take the Python path; their bits are those numpy
    and torch round to."""
    A = np.zeros(4, np.float32)
    compiled, host = compiled_of(_halves, A, 1.0, 1.0)
    assert [s[1] for s in host["slots"][-2:]] == ["f16", "bf16"]

    def bf16_bits(v):
        return int(torch.tensor([v], dtype=torch.float64).to(torch.bfloat16)
                   .view(torch.int16).item()) & 0xFFFF

    # above half an ulp (rounds up), and exactly half an ulp (ties to even)
    for h, b in ((1.0 + 2.0**-11 + 2.0**-13, 1.0 + 2.0**-8 + 2.0**-10),
                 (1.0 + 2.0**-11, 1.0 + 2.0**-8), (-3.0e-5, -1.0e30)):
        got = decode(host, compiled.pack(A, h, b))[-2:]
        assert got == [float(np.float16(h)), bf16_bits(b)]
    assert decode(host, compiled.pack(A, 1.0 + 2.0**-11 + 2.0**-13, 0.0))[-2] == 1.0 + 2.0**-10


@flyc.jit
def _affine_only(out, f: Affine):
    from test_compiler_api import _affine_kernel

    _affine_kernel(out, f.scale, f.bias).launch(grid=(1, 1, 1), block=(4, 1, 1))


def test_a_protocol_value_fills_its_parts():
    """A struct-like protocol value is two host parameters (`f#0`, `f#1`);
    the Python path fills them from its __c_abi_spec__."""
    out = np.zeros(4, np.int32)
    compiled, host = compiled_of(_affine_only, out, Affine(3, -9))
    assert [p["kind"] for p in host["parameters"][-2:]] == ["scalar", "scalar"]
    assert compiled.arg_names[-2:] == ["f#0", "f#1"]
    want = tensor_values(host["parameters"][0], *_dims(out)) + [3, -9]
    assert decode(host, compiled.pack(out, Affine(3, -9))) == want
    compiled._entry = _fly.HostEntry(compiled.host_module, compiled.name)
    assert compiled._native_packer() is False  # its parts are Python's to fill


def test_description_survives_the_disk_cache(fly_env, tmp_path):
    """The description is in the cached artifact: a function loaded from
    the cache packs the same block."""
    fly_env(FLYDSL_RUNTIME_ENABLE_CACHE="1", FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path))
    a, b = np.zeros((6, 10), np.float32), np.zeros((6, 10), np.float32)
    fresh = flyc.compile(_two, a, b)
    loaded = flyc.compiled.CompiledFunction.from_bytes(fresh.to_bytes(), _two)
    loaded.signature, loaded.specs = fresh.signature, fresh.specs
    (before,), (after,) = fresh.host_functions, loaded.host_functions
    assert [tuple(x) for x in after["slots"]] == [tuple(x) for x in before["slots"]]
    assert loaded.pack(a, b) == fresh.pack(a, b)
    # The rest of the artifact round-trips too (the module text is a blob
    # of its own after the host module).
    assert loaded.module_text == fresh.module_text and "func.func" in loaded.module_text
    assert loaded.host_module == fresh.host_module
    assert loaded.code_objects == fresh.code_objects and loaded.kernels == fresh.kernels


def test_a_malformed_description_is_a_value_error():
    with pytest.raises(ValueError, match="a host function dict"):
        _fly.ArgumentBlock(3)
    with pytest.raises(ValueError, match="without its parameters and slots"):
        _fly.ArgumentBlock({"name": "f", "block_size": 8})
    bad = {"name": "f", "block_size": 4, "parameters": [
        {"kind": "scalar", "type": "i64", "element": "", "alignment": 1, "rank": 0,
         "leaves": [], "scalar": "i64"}], "slots": [[0, "i64", 0, -1]]}
    with pytest.raises(ValueError, match="outside the block"):
        _fly.ArgumentBlock(bad)
    assert _fly.ArgumentBlock({**bad, "block_size": 8}).size == 8


@flyc.kernel
def _unsigned_kernel(W: fx.Tensor, N: fx.Tensor, wide: fx.Uint64, narrow: fx.Uint32):
    W[0] = wide
    N[0] = narrow


@flyc.jit
def _unsigned(W: fx.Tensor, N: fx.Tensor, wide: fx.Uint64, narrow: fx.Uint32):
    _unsigned_kernel(W, N, wide, narrow).launch(grid=(1, 1, 1), block=(1, 1, 1))


def test_unsigned_scalars_take_their_whole_range(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    for wide, narrow in ((2**64 - 1, 2**32 - 1), (2**63, 2**31), (5, 7)):
        w, n = np.zeros(1, np.uint64), np.zeros(1, np.uint32)
        _unsigned(w, n, fx.Uint64(wide), fx.Uint32(narrow))  # the Python path
        assert (int(w[0]), int(n[0])) == (wide, narrow)
        w[0], n[0] = 0, 0
        _unsigned(w, n, wide, narrow)  # Python ints, through the native packer once warm
        assert (int(w[0]), int(n[0])) == (wide, narrow)
    with pytest.raises(flyc.ArgumentError, match="does not fit the i64"):
        _unsigned(w, n, 2**64, 1)
