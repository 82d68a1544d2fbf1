"""The host entry (fly/HostEntry.h, flydsl._fly.HostEntry): a @flyc.jit body
compiled to native host code that computes the launch geometry from its
arguments and launches through the runtime's table (fly/runtime/Launch.h).

The runtime here is a TEST DOUBLE of the driver boundary
(test/tools/fly-host-entry/launch-double.cpp, loaded with ctypes): a launch
table that records module loads, launches (grid, block, LDS, stream) and the
bytes of every kernel parameter instead of talking to a GPU. The host modules
come from test/tools/fly-host-entry-tool (fly::Compiler's Artifact), for the
Python-traced examples/vector_add.py and for examples/vector_add.mlir.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import struct
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT, _build_tool

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402
from flydsl import _fly  # noqa: E402

TILE_M, TILE_N = 16, 64


class LaunchDouble:
    """The recording launch table, seen through its C functions."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.fly_double_table.restype = ctypes.c_void_p
        self.lib.fly_double_launch.restype = ctypes.c_size_t
        self.lib.fly_double_module.restype = ctypes.c_size_t
        self.table = self.lib.fly_double_table()

    def reset(self, param_sizes):
        sizes = (ctypes.c_size_t * len(param_sizes))(*param_sizes)
        self.lib.fly_double_reset(sizes, len(param_sizes))
        self.param_sizes = list(param_sizes)

    def fail(self, entry: str):
        self.lib.fly_double_fail(entry.encode())

    def counts(self) -> dict:
        c = (ctypes.c_uint * 6)()
        self.lib.fly_double_counts(c)
        return dict(zip(("loads", "unloads", "launches", "streams", "live_streams", "syncs"), c))

    def module(self, index: int) -> tuple[int, bytes]:
        head = ctypes.create_string_buffer(4)
        size = self.lib.fly_double_module(index, head, 4)
        return size, head.raw

    def launch(self, index: int) -> dict:
        geometry = (ctypes.c_uint * 10)()
        name = ctypes.create_string_buffer(128)
        capacity = sum(self.param_sizes)
        params = ctypes.create_string_buffer(max(capacity, 1))
        stream = ctypes.c_void_p()
        count = self.lib.fly_double_launch(index, geometry, name, 128, params, capacity, ctypes.byref(stream))
        g = list(geometry)
        return {"kernel": name.value.decode(), "grid": tuple(g[0:3]), "block": tuple(g[3:6]),
                "cluster": tuple(g[6:9]), "smem": g[9], "num_params": count,
                "params": params.raw[:capacity], "stream": stream.value}


@pytest.fixture(scope="module")
def double():
    path = REPO_ROOT / "build" / "lib" / "libfly-launch-double.so"
    if not path.exists():
        pytest.fail(f"{path} not found: build it with `ninja -C build fly-launch-double`", pytrace=False)
    return LaunchDouble(path)


@pytest.fixture
def installed(double):
    """The double installed as the runtime (and uninstalled afterwards)."""
    _fly.set_launch_table(double.table)
    yield double
    _fly.set_launch_table(0)


def compile_host(tmp_path, module_text: str) -> tuple[bytes, dict]:
    """The host module (bitcode) of a module and the compile's ABI record."""
    tool = _build_tool("fly-host-entry-tool", "FLY_HOST_ENTRY_TOOL")
    src, out = tmp_path / "module.mlir", tmp_path / "host.bc"
    src.write_text(module_text)
    proc = subprocess.run([tool, str(src), "--chip=gfx942", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes(), json.loads(proc.stdout)


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """examples/vector_add.py's @flyc.jit body, traced for dynamic layouts."""
    spec = importlib.util.spec_from_file_location("example_vector_add", REPO_ROOT / "examples" / "vector_add.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    a = np.zeros((100, 200), np.float32)
    compiled = flyc.compile(example.vector_add,
                            *[flyc.from_dlpack(a).mark_layout_dynamic(divisibility=4) for _ in range(3)])
    bitcode, abi = compile_host(tmp_path_factory.mktemp("traced"), compiled.module_text)
    (host,) = abi["host_functions"]
    (kernel,) = abi["kernels"]
    return bitcode, host, kernel


DEFAULT_STREAM = 0  # the example's `stream: fx.Stream = fx.Stream(None)`: the null stream


def param_sizes(host, kernel):
    """The kernel's parameter sizes: those of the host arguments it gets."""
    size = {a["abi"]: a["size"] for a in host["arguments"]}
    return [size[entry] for entry in kernel["abi"]]


# The C type of each slot type (the host's C ABI: little-endian, natural sizes).
SLOT_FORMATS = {"ptr": "Q", "i1": "?", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
                "f16": "e", "f32": "f", "f64": "d"}


def pack(host, *values) -> bytes:
    """The argument block of `values` (one per slot), written slot by slot
    where the description puts them, with Python's struct (not the packer
    under test)."""
    block = bytearray(host["block_size"])
    assert len(values) == len(host["slots"])
    for (offset, kind, _, _), value in zip(host["slots"], values):
        struct.pack_into("<" + SLOT_FORMATS[kind], block, offset, value)
    return bytes(block)


def tensor_words(t: np.ndarray):
    """A row-major f32 matrix as its ptr and its dynamic leaves (M, N, row stride)."""
    return [t.ctypes.data, t.shape[0], t.shape[1], t.strides[0] // t.itemsize]


def test_argument_block_abi(traced):
    bitcode, host, kernel = traced
    assert host["name"] == "vector_add"
    assert [a["abi"] for a in host["arguments"]] == ["ptr:0", "leaves:0", "ptr:1", "leaves:1", "ptr:2",
                                                     "leaves:2", "value:3"]
    assert [a["type"] for a in host["arguments"][:2]] == ["ptr addrspace(1)", "{ i32, i32, i32 }"]
    assert host["arguments"][-1]["type"] == "ptr"  # the stream (0: the default)
    # C-struct layout: a pointer at 0, three i32 at 8, the next pointer at 24.
    assert [(a["offset"], a["size"]) for a in host["arguments"]] == [(0, 8), (8, 12), (24, 8), (32, 12),
                                                                    (48, 8), (56, 12), (72, 8)]
    assert host["block_size"] == 80
    # Per tensor: its pointer, then its dynamic leaves M, N and the row
    # stride (leaves 0, 1, 2 of (?,?):(?{div=4},1); leaf 3, the unit stride,
    # is static), then the stream's handle.
    assert [tuple(s) for s in host["slots"]] == [
        (0, "ptr", 0, -1), (8, "i32", 0, 0), (12, "i32", 0, 1), (16, "i32", 0, 2),
        (24, "ptr", 1, -1), (32, "i32", 1, 0), (36, "i32", 1, 1), (40, "i32", 1, 2),
        (48, "ptr", 2, -1), (56, "i32", 2, 0), (60, "i32", 2, 1), (64, "i32", 2, 2),
        (72, "ptr", 3, -1)]
    tensor = host["parameters"][0]
    assert tensor["type"] == "!fly.memref<f32, global, (?,?):(?{div=4},1), align<16>>"
    assert (tensor["element"], tensor["alignment"], tensor["rank"]) == ("f32", 16, 2)
    assert tensor["leaves"] == [["shape", 0, None, 1, False], ["shape", 1, None, 1, False],
                                ["stride", 0, None, 4, False], ["stride", 1, 1, 1, False]]
    assert host["parameters"][3]["type"] == "!llvm.ptr"
    assert kernel["abi"] == ["ptr:0", "leaves:0", "ptr:1", "leaves:1", "ptr:2", "leaves:2"]
    assert _fly.HostEntry(bitcode, "vector_add").block_size == 80


@pytest.mark.parametrize("m, n", [(100, 200), (1, 4), (16, 64), (17, 68), (33, 260), (1000, 8), (5, 1024)])
def test_grid_is_computed_from_the_shape(traced, installed, m, n):
    bitcode, host, kernel = traced
    installed.reset(param_sizes(host, kernel))
    entry = _fly.HostEntry(bitcode, "vector_add")
    a, b, c = (np.zeros((m, n), np.float32) for _ in range(3))
    words = tensor_words(a) + tensor_words(b) + tensor_words(c)
    entry.call(pack(host, *words, DEFAULT_STREAM))

    assert installed.counts()["launches"] == 1
    launch = installed.launch(0)
    assert launch["kernel"] == kernel["name"] == "vector_add_kernel"
    assert launch["grid"] == (-(-m // TILE_M), -(-n // TILE_N), 1)  # blocks along M, then N
    assert launch["block"] == (256, 1, 1)
    assert launch["cluster"] == (0, 0, 0)
    assert launch["smem"] == 0
    # The kernel gets the pointers and leaves passed, in its own layout
    # (pointer, then the 12 bytes of the leaves struct).
    assert launch["num_params"] == 6
    assert struct.unpack("=" + "Qiii" * 3, launch["params"]) == tuple(words)


def test_strided_rows_reach_the_kernel(traced, installed):
    bitcode, host, kernel = traced
    installed.reset(param_sizes(host, kernel))
    entry = _fly.HostEntry(bitcode, "vector_add")
    big = np.zeros((40, 128), np.float32)
    view = big[:, :68]  # row stride 128, N 68
    words = tensor_words(view) * 3
    entry.call(pack(host, *words, DEFAULT_STREAM))
    launch = installed.launch(0)
    assert launch["grid"] == (3, 2, 1)
    assert struct.unpack("=" + "Qiii" * 3, launch["params"])[:4] == (view.ctypes.data, 40, 68, 128)


def test_no_runtime_is_an_error_not_an_abort(traced, double):
    bitcode, host, kernel = traced
    _fly.set_launch_table(0)
    entry = _fly.HostEntry(bitcode, "vector_add")  # creating needs no runtime
    block = bytes(host["block_size"])
    with pytest.raises(_fly.Error, match="^no runtime: .*'vector_add_kernel'"):
        entry.call(block)
    with pytest.raises(_fly.Error, match="no runtime"):
        entry.call(block)
    # Installing a runtime afterwards makes the same entry launch.
    double.reset(param_sizes(host, kernel))
    _fly.set_launch_table(double.table)
    try:
        entry.call(block)
        assert double.counts()["launches"] == 1
    finally:
        _fly.set_launch_table(0)


def test_code_object_is_loaded_once(traced, installed):
    bitcode, host, kernel = traced
    installed.reset(param_sizes(host, kernel))
    entry = _fly.HostEntry(bitcode, "vector_add")
    assert installed.counts()["loads"] == 0  # nothing before the first launch
    a = np.zeros((64, 64), np.float32)
    block = pack(host, *(tensor_words(a) * 3), DEFAULT_STREAM)
    for _ in range(5):
        entry.call(block)
    counts = installed.counts()
    assert (counts["loads"], counts["launches"]) == (1, 5)
    # The launches go to the caller's stream (the default one here): the
    # host function makes none of its own.
    assert (counts["streams"], counts["syncs"], counts["live_streams"]) == (0, 0, 0)
    assert [installed.launch(i)["stream"] for i in range(5)] == [None] * 5
    entry.call(pack(host, *(tensor_words(a) * 3), 0x5EED0))
    assert installed.launch(5)["stream"] == 0x5EED0
    size, head = installed.module(0)
    assert head == b"\x7fELF" and size > 1000
    del entry
    assert installed.counts()["unloads"] == 1


def test_runtime_failures_are_errors(traced, installed):
    bitcode, host, kernel = traced
    entry = _fly.HostEntry(bitcode, "vector_add")
    block = bytes(host["block_size"])
    for failing in ("module_load", "get_function", "launch"):
        installed.reset(param_sizes(host, kernel))
        installed.fail(failing)
        with pytest.raises(_fly.Error, match=f"status 7.*told to fail {failing}"):
            entry.call(block)
        assert installed.counts()["live_streams"] == 0
    installed.fail("")
    entry.call(block)  # the next call is clean
    assert installed.counts()["launches"] == 1


def test_bad_blocks_and_names(traced):
    bitcode, host, _ = traced
    entry = _fly.HostEntry(bitcode, "vector_add")
    with pytest.raises(ValueError, match="79 bytes, the host function takes 80"):
        entry.call(bytes(79))
    with pytest.raises(_fly.Error, match="no host function 'nope'"):
        _fly.HostEntry(bitcode, "nope")
    with pytest.raises(_fly.Error):
        _fly.HostEntry(b"not bitcode", "vector_add")
    with pytest.raises(ValueError):
        _fly.set_launch_table(ctypes.addressof(ctypes.create_string_buffer(b"\x01" + bytes(127))))


def test_buffers_other_than_bytes(traced, installed):
    bitcode, host, kernel = traced
    installed.reset(param_sizes(host, kernel))
    entry = _fly.HostEntry(bitcode, "vector_add")
    a = np.zeros((20, 8), np.float32)
    block = bytearray(pack(host, *(tensor_words(a) * 3), DEFAULT_STREAM))
    entry.call(block)
    entry.call(memoryview(block))
    assert [installed.launch(i)["grid"] for i in range(2)] == [(2, 1, 1)] * 2


def test_scalar_arguments_of_the_fly_ir_example(tmp_path, installed):
    """examples/vector_add.mlir's @launch takes its grid as two index values."""
    bitcode, abi = compile_host(tmp_path, (REPO_ROOT / "examples" / "vector_add.mlir").read_text())
    (host,) = abi["host_functions"]
    assert host["name"] == "launch"
    assert [a["abi"] for a in host["arguments"]][-2:] == ["value:3", "value:4"]
    # The two `index` values are i64 slots at 8-aligned offsets after the
    # last tensor's leaves (which end at 68).
    assert [tuple(s) for s in host["slots"][-2:]] == [(72, "i64", 3, -1), (80, "i64", 4, -1)]
    assert host["block_size"] == 88
    installed.reset(param_sizes(host, abi["kernels"][0]))
    entry = _fly.HostEntry(bitcode, "launch")
    a = np.zeros((8, 8), np.float32)
    entry.call(pack(host, *(tensor_words(a) * 3), 123456, 7))
    launch = installed.launch(0)
    assert launch["grid"] == (123456, 7, 1) and launch["block"] == (256, 1, 1)


def test_jit_calls_launch_through_the_installed_runtime(installed, monkeypatch):
    """A plain @flyc.jit call (no COMPILE_ONLY): the Python side packs the
    arrays' pointers and dynamic leaves into the block, the host entry
    computes the grid for each shape; one trace serves every shape."""
    monkeypatch.delenv("COMPILE_ONLY", raising=False)
    monkeypatch.setenv("ARCH", "gfx942")
    flyc.Environment.reload()
    try:
        spec = importlib.util.spec_from_file_location("example_vector_add_jit",
                                                      REPO_ROOT / "examples" / "vector_add.py")
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        shapes = [(100, 200), (16, 64), (33, 4)]
        installed.reset([8, 12] * 3)
        for i, (m, n) in enumerate(shapes):
            a, b, c = (np.zeros((m, n), np.float32) for _ in range(3))
            example.vector_add(a, b, c)
            launch = installed.launch(i)
            assert launch["kernel"] == "vector_add_kernel"
            assert launch["grid"] == (-(-m // TILE_M), -(-n // TILE_N), 1)
            assert launch["block"] == (256, 1, 1)
            words = []
            for t in (a, b, c):
                words += [t.ctypes.data, m, n, n]
            assert launch["params"] == struct.pack("=" + "Qiii" * 3, *words)
        assert len(example.vector_add._compiled) == 1  # traced once for all shapes
        assert installed.counts()["loads"] == 1  # the code object loaded once
    finally:
        monkeypatch.undo()
        flyc.Environment.reload()


def test_jit_call_without_a_runtime_says_so(monkeypatch):
    """FLYDSL_RUNTIME_KIND=hip with no HIP device and no table installed:
    the call says there is no runtime (and installs nothing)."""
    monkeypatch.delenv("COMPILE_ONLY", raising=False)
    monkeypatch.setenv("FLYDSL_RUNTIME_KIND", "hip")
    flyc.Environment.reload()
    _fly.set_launch_table(0)
    try:
        spec = importlib.util.spec_from_file_location("example_vector_add_norun",
                                                      REPO_ROOT / "examples" / "vector_add.py")
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        a = np.zeros((16, 64), np.float32)
        with pytest.raises(flyc.FlyDSLError, match="no runtime"):
            example.vector_add(a, a.copy(), a.copy())
    finally:
        monkeypatch.undo()
        flyc.Environment.reload()


@flyc.kernel
def _touch(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    A[0, 0] = B[0, 0] + C[0, 0]


@flyc.jit
def _touch_all(A, B, C):
    _touch(A, B, C).launch(grid=(1, 1, 1), block=(1, 1, 1))


@pytest.mark.parametrize("shape", [(7, 1), (1, 9), (5, 6)])
def test_packed_leaves_match_the_descriptors(monkeypatch, shape):
    """The fast packing of raw numpy arrays gives the leaves that
    mark_layout_dynamic's descriptor gives, also when several dimensions
    have unit stride."""
    monkeypatch.setenv("COMPILE_ONLY", "1")
    flyc.Environment.reload()
    try:
        arrays = [np.zeros(shape, np.float32) for _ in range(3)]
        compiled = flyc.compile(_touch_all, *arrays)
        fast = compiled.pack(*arrays)
        descriptors = [flyc.from_dlpack(a).mark_layout_dynamic() for a in arrays]
        words = []
        for a, d in zip(arrays, descriptors):
            words += [d.address] + d.dynamic_leaves()
        (info,) = compiled.host_functions
        assert fast == pack(info, *words)
    finally:
        monkeypatch.undo()
        flyc.Environment.reload()
