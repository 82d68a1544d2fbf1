"""The native warm-call path (frontend/python/bindings/ArgumentPacker.cpp).

After a compiled function's first call, positional calls with numpy arrays,
flyc.from_dlpack descriptors and Python numbers are checked and packed in
C++; anything else, or anything that does not match what the function was
compiled for, goes through the Python path. These tests run the kernels on
the recording launch table of test_host_entry.py and compare, byte for
byte, the kernel parameters the native path launches with those of the
Python path, and check that every mismatch still gets the Python path's
error.
"""

from __future__ import annotations

import numpy as np
import pytest

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl.compiler import ArgumentError

from test_host_entry import LaunchDouble, REPO_ROOT


@pytest.fixture(scope="module")
def double():
    """Reset once: a reset forgets the modules that host entries still hold.
    The parameter sizes are scale_kernel's (A: ptr + {extent}, B: the
    same, alpha, n, flag)."""
    d = LaunchDouble(REPO_ROOT / "build" / "lib" / "libfly-launch-double.so")
    d.reset([8, 4, 8, 4, 4, 4, 1])
    return d


@pytest.fixture
def recording(double, fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    _fly.set_launch_table(double.table)
    yield double
    _fly.set_launch_table(0)


@flyc.kernel
def scale_kernel(A: fx.Tensor, B: fx.Tensor, alpha: fx.Float32, n: fx.Int32, flag: fx.Boolean):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    if flag and i < n:
        B[i] = A[i] * alpha


@flyc.jit
def scale(A, B, alpha, n, flag):
    scale_kernel(A, B, alpha, n, flag).launch(grid=((n + 63) // 64, 1, 1), block=(64, 1, 1))


@flyc.jit
def scale_const(A, B, alpha, n: fx.Constexpr[int]):
    scale_kernel(A, B, alpha, n, True).launch(grid=((n + 63) // 64, 1, 1), block=(64, 1, 1))


def launches(double, count):
    """The kernel parameter bytes of the last `count` launches."""
    total = double.counts()["launches"]
    return [double.launch(i)["params"] for i in range(total - count, total)]


def arrays(n=300, dtype=np.float32):
    return np.arange(n, dtype=dtype), np.zeros(n, dtype)


def test_jit_and_compiled_calls_go_native_and_launch_the_same(recording):
    a, b = arrays()
    compiled = flyc.compile(scale, a, b, 2.0, 300, True)
    compiled(a, b, 2.0, 300, True)  # the Python path, then the packer is made
    assert isinstance(compiled._native, _fly.ArgumentPacker)
    compiled(a, b, 2.0, 300, True)  # native
    first, second = launches(recording, 2)
    assert first == second
    # Values change what is packed, natively too: a scalar and another array.
    c, d = arrays()
    compiled(c, d, 3, 299, True)  # an int for the f32 parameter converts, as in Python
    packer, compiled._native = compiled._native, False  # the Python path, for the reference
    compiled(c, d, 3, 299, True)
    compiled._native = packer  # (flyc.compile hands out this same object again)
    native, python = launches(recording, 2)
    assert native == python and native != first
    # The jit function's warm path lands in the same packer.
    scale(a, b, 2.0, 300, True)
    scale(a, b, 2.0, 300, True)
    jit_compiled = next(iter(scale._compiled.values()))
    assert isinstance(jit_compiled._native, _fly.ArgumentPacker)
    assert launches(recording, 1) == [first]


def test_descriptors_go_native(recording):
    a, b = arrays(256)
    da = flyc.from_dlpack(a).mark_layout_dynamic(divisibility=4)
    db = flyc.from_dlpack(b).mark_layout_dynamic(divisibility=4)
    compiled = flyc.compile(scale, da, db, 1.5, 256, False)
    compiled(da, db, 1.5, 256, False)
    compiled(da, db, 1.5, 256, False)
    compiled(a, b, 1.5, 256, False)  # raw arrays of the same layout: the same block
    x, y, z = launches(recording, 3)
    assert x == y == z
    assert isinstance(compiled._native, _fly.ArgumentPacker)


@pytest.mark.parametrize("bad, message", [
    (lambda a, b: (a.astype(np.float64), b, 2.0, 300, True), "compiled for float32 tensors"),
    (lambda a, b: (a.reshape(3, 100), b, 2.0, 300, True), "rank"),
    (lambda a, b: (a, b, "two", 300, True), "f32 scalar"),
    (lambda a, b: (a, b, 2.0, 2**40, True), "do not fit its argument block"),
    (lambda a, b: (a[1:], b, 2.0, 299, True), "aligned to"),
])
def test_mismatches_fall_back_to_the_python_error(recording, bad, message):
    a, b = arrays()
    compiled = flyc.compile(scale, a, b, 2.0, 300, True)
    compiled(a, b, 2.0, 300, True)
    assert isinstance(compiled._native, _fly.ArgumentPacker)
    before = recording.counts()["launches"]
    with pytest.raises(ArgumentError, match=message):
        compiled(*bad(a, b))
    assert recording.counts()["launches"] == before  # nothing launched
    compiled(a, b, 2.0, 300, True)  # and the packer still works
    assert recording.counts()["launches"] == before + 1


def test_constexpr_values_are_part_of_the_dispatch(recording):
    a, b = arrays(256)
    scale_const(a, b, 2.0, 256)
    scale_const(a, b, 2.0, 256)
    scale_const(a, b, 2.0, 128)  # another value: another compiled function
    assert len(scale_const._compiled) == 2
    total = recording.counts()["launches"]
    grids = [recording.launch(i)["grid"] for i in range(total - 3, total)]
    assert grids == [(4, 1, 1), (4, 1, 1), (2, 1, 1)]
    counts = recording.counts()["launches"]
    compiled = flyc.compile(scale_const, a, b, 2.0, 256)
    compiled(a, b, 2.0, 256)
    compiled(a, b, 2.0, 256)
    with pytest.raises(ArgumentError, match="Constexpr compiled as 256, got 128"):
        compiled(a, b, 2.0, 128)
    assert recording.counts()["launches"] == counts + 3  # flyc.compile's own run, then two


def test_torch_tensors_go_native(recording):
    import torch  # a dependency of the tests (scripts/setup.sh): missing is a failure

    a, b = arrays()
    compiled = flyc.compile(scale, a, b, 2.0, 300, True)
    compiled(a, b, 2.0, 300, True)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    # (A packer made before torch was imported is made again on the first
    # torch call.)
    compiled(ta, tb, 2.0, 300, True)
    assert compiled._native_torch is torch.Tensor
    calls = {}
    real = compiled._native.call

    class Spy:  # records whether the native path took each call
        current = True

        def call(self, args, kwargs):
            calls[len(calls)] = real(args, kwargs)
            return calls[len(calls) - 1]

    compiled._native = Spy()
    try:
        compiled(ta, tb, 2.0, 300, True)  # torch: native, same memory, same block
        compiled(a, b, alpha=2.0, n=300, flag=True)  # keywords: native too
        with pytest.raises(ArgumentError, match="compiled for float32 tensors"):
            compiled(ta.double(), tb, 2.0, 300, True)  # native refuses, Python names it
    finally:
        compiled._native = real.__self__
    assert calls == {0: True, 1: True, 2: False}
    w, x, y, z = launches(recording, 4)
    assert w == x == y == z
    # The jit function keys torch tensors in C++ and lands in its packer.
    scale(ta, tb, 2.0, 300, True)
    scale(ta, tb, 2.0, 300, True)
    assert launches(recording, 1) == [x]


def test_a_new_runtime_rebuilds_the_packer(recording, double):
    a, b = arrays()
    compiled = flyc.compile(scale, a, b, 2.0, 300, True)
    compiled(a, b, 2.0, 300, True)
    old = compiled._native
    assert old.current
    _fly.set_launch_table(0)
    _fly.set_launch_table(double.table)  # the same table: still current
    assert old.current
    _fly.install_emu_runtime()
    assert not old.current
    _fly.set_launch_table(double.table)
    compiled(a, b, 2.0, 300, True)
    assert compiled._native is old  # current again
    _fly.install_emu_runtime()
    b[:] = 0
    compiled(a, b, 2.0, 300, True)  # runs on the emulator, through the Python path
    np.testing.assert_array_equal(b, a * 2.0)
    assert compiled._native is not old and compiled._native.current
    b[:] = 0
    compiled(a, b, 2.0, 300, True)  # natively, on the emulator
    np.testing.assert_array_equal(b, a * 2.0)


@flyc.jit
def scale_with_stream(A, B, alpha, n, flag, stream: fx.Stream = fx.Stream(None)):
    scale_kernel(A, B, alpha, n, flag).launch(grid=((n + 63) // 64, 1, 1), block=(64, 1, 1),
                                              stream=stream)


def test_left_out_defaults_stay_native(recording):
    """FlyDSL's `stream: fx.Stream = fx.Stream(None)` left out of a call:
    the compiled function fills in the default and packs natively, and
    launches what the call with the stream given launches."""
    a, b = arrays()
    compiled = flyc.compile(scale_with_stream, a, b, 2.0, 300, True)
    compiled(a, b, 2.0, 300, True, fx.Stream(None))
    real = compiled._native.call
    taken = []

    class Spy:
        current = True

        def call(self, args, kwargs):
            taken.append((len(args), real(args, kwargs)))
            return taken[-1][1]

    compiled._native = Spy()
    try:
        compiled(a, b, 2.0, 300, True)
    finally:
        compiled._native = real.__self__
    assert taken == [(5, True)]  # the native path filled the default in and took it
    given, left_out = launches(recording, 2)
    assert given == left_out


# -- the jit function's dispatcher ---------------------------------------------

@flyc.jit
def scale_kw(A, B, alpha=2.0, n=300, flag=True, stream: fx.Stream = fx.Stream(None),
             extra_blocks: fx.Constexpr[int] = 0):
    scale_kernel(A, B, alpha, n, flag).launch(grid=(5 + extra_blocks, 1, 1), block=(64, 1, 1),
                                              stream=stream)


def full_path_calls(fn, monkeypatch):
    """A counter of the calls of `fn` that miss its dispatcher and take the
    full path (bind, specs, the compiled-function lookup)."""
    count = [0]
    real = fn._compile

    def counting(args, kwargs):
        count[0] += 1
        return real(args, kwargs)

    monkeypatch.setattr(fn, "_compile", counting)
    return count


def test_keywords_defaults_and_streams_stay_native(recording, monkeypatch):
    """Every way of passing the same arguments -- positional, by keyword,
    defaults left out, the stream as fx.Stream, None or a handle -- lands in
    the dispatcher's one entry and launches the same parameters; only the
    stream differs where the call gives another one."""
    a, b = arrays()
    scale_kw(a, b)  # the full path: compiled, and the key stored
    full = full_path_calls(scale_kw, monkeypatch)
    calls = [lambda: scale_kw(a, b), lambda: scale_kw(a, b, 2.0),
             lambda: scale_kw(a, B=b), lambda: scale_kw(B=b, A=a, flag=True, extra_blocks=0),
             lambda: scale_kw(a, b, 2.0, 300, True, fx.Stream(None)),
             lambda: scale_kw(a, b, stream=None),
             lambda: scale_kw(a, b, stream=fx.Stream(0x1000)),
             lambda: scale_kw(a, b, stream=0x2000)]
    for call in calls:
        call()
    assert full[0] == 0
    assert len(scale_kw._dispatch) == 1
    total = recording.counts()["launches"]
    seen = [recording.launch(i) for i in range(total - len(calls), total)]
    assert all(s["params"] == seen[0]["params"] for s in seen)
    assert [s["stream"] for s in seen] == [None] * 6 + [0x1000, 0x2000]


def test_a_constexpr_value_is_part_of_the_key(recording, monkeypatch):
    a, b = arrays()
    scale_kw(a, b, extra_blocks=0)
    full = full_path_calls(scale_kw, monkeypatch)
    scale_kw(a, b, extra_blocks=1)  # another value: compiled for it
    scale_kw(a, b, extra_blocks=1)
    scale_kw(a, b)
    scale_kw(a, b, 2.0, 300, True, None, 1)
    assert full[0] == 1
    total = recording.counts()["launches"]
    grids = [recording.launch(i)["grid"][0] for i in range(total - 5, total)]
    assert grids == [5, 6, 6, 5, 6]


def test_alternating_calls_each_run_their_own_function(fly_env, monkeypatch):
    """The dispatcher remembers the last call's key: calls that alternate
    between keys (element types, Constexpr values, equal values in new
    objects) must each still run their own compiled function (on the
    emulator, checked against numpy)."""
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    _fly.set_launch_table(0)
    f32, f64 = np.arange(1000, dtype=np.float32), np.arange(1000, dtype=np.float64)
    big = int("1000")  # not a cached small int: int("1000") is another object
    calls = [(f32, 256), (f32, 256), (f64, 256), (f32, 128), (f32, 256), (f64, 256),
             (f32, big), (f32, int("1000")), (f64, 128), (f32, 128)]
    for a, n in calls[:1] + calls[2:4] + calls[6:7] + calls[8:9]:  # each key once
        scale_const(a, np.zeros_like(a), 2.0, n)
    full = full_path_calls(scale_const, monkeypatch)
    for a, n in calls:
        out = np.zeros_like(a)
        scale_const(a, out, 3.0, n)
        assert np.array_equal(out[:n], a[:n] * 3) and not out[n:].any(), (a.dtype, n)
    assert full[0] == 0  # every one from the dispatcher


def test_bad_calls_still_get_the_python_error(recording):
    a, b = arrays()
    scale_kw(a, b)
    with pytest.raises(ArgumentError, match="'B'"):
        scale_kw(a)
    with pytest.raises(ArgumentError, match="bogus"):
        scale_kw(a, b, bogus=1)
    with pytest.raises(ArgumentError, match="'A'"):
        scale_kw(a, b, A=a)
    with pytest.raises(ArgumentError, match="stream"):
        scale_kw(a, b, stream=-1)
    with pytest.raises(ArgumentError, match="stream"):
        scale_kw(a, b, stream="default")


def test_fresh_descriptors_stay_native(recording, monkeypatch):
    """A descriptor made for each call (flyc.from_dlpack(x).mark_...) is
    keyed by its spec, not its identity."""
    a, b = arrays(256)

    def dynamic(x):
        return flyc.from_dlpack(x).mark_layout_dynamic(divisibility=4)

    scale(dynamic(a), dynamic(b), 1.5, 256, False)
    full = full_path_calls(scale, monkeypatch)
    for _ in range(3):
        scale(dynamic(a), dynamic(b), 1.5, 256, False)
    assert full[0] == 0
    scale(dynamic(a), flyc.from_dlpack(b), 1.5, 256, False)  # a static layout: another spec
    assert full[0] == 1


def test_the_environment_and_the_hints_invalidate_the_entries(recording, fly_env, monkeypatch):
    a, b = arrays()
    scale(a, b, 2.0, 300, True)
    full = full_path_calls(scale, monkeypatch)
    scale(a, b, 2.0, 300, True)
    assert full[0] == 0
    fly_env(FLYDSL_COMPILE_OPT_LEVEL="1")  # another compile: the entries are forgotten
    scale(a, b, 2.0, 300, True)
    scale(a, b, 2.0, 300, True)
    assert full[0] == 1
    scale.compile_hints = {"waves_per_eu": 2}
    try:
        scale(a, b, 2.0, 300, True)
        scale(a, b, 2.0, 300, True)
        assert full[0] == 2
    finally:
        scale.compile_hints = {}


# -- torch tensors: DLPack's exchange table --------------------------------------

@flyc.kernel
def touch_kernel(A: fx.Tensor):
    pass


@flyc.jit
def touch(A):
    touch_kernel(A).launch(grid=(1, 1, 1), block=(64, 1, 1))


@pytest.fixture
def emulator(fly_env):
    fly_env(ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)
    _fly.set_launch_table(0)


# Views of every kind: contiguous, offset, transposed, strided, broadcast,
# 3-D permuted, a size-1 dimension of odd stride (dt: the torch dtype).
TORCH_LAYOUTS = {
    "1-d": lambda torch, dt: torch.arange(40).to(dt),
    "2-d": lambda torch, dt: torch.arange(24).to(dt).reshape(4, 6),
    "offset view": lambda torch, dt: torch.arange(48).to(dt).reshape(6, 8)[1:, 4:],
    "transposed": lambda torch, dt: torch.arange(24).to(dt).reshape(4, 6).t(),
    "every other column": lambda torch, dt: torch.arange(48).to(dt).reshape(4, 12)[:, ::2],
    "broadcast": lambda torch, dt: torch.arange(6).to(dt).reshape(1, 6).expand(5, 6),
    "3-d permuted": lambda torch, dt: torch.arange(60).to(dt).reshape(3, 4, 5).permute(2, 0, 1),
    "size-1 dim": lambda torch, dt: torch.arange(40).to(dt).as_strided((1, 8), (13, 1)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int8",
                                   "int16", "int32", "int64", "bool"])
@pytest.mark.parametrize("layout", list(TORCH_LAYOUTS))
def test_torch_tensors_pack_as_the_python_path(emulator, monkeypatch, dtype, layout):
    """torch.Tensor is read natively through DLPack's exchange table: for
    every element type the packer takes and views of every kind, the block
    is the Python path's (address and dynamic leaves), for a static and a
    dynamic layout, and the jit function's dispatcher runs it."""
    import torch

    x = TORCH_LAYOUTS[layout](torch, getattr(torch, dtype))
    descs = [flyc.from_dlpack(x)]
    if 1 in x.stride():  # a layout-dynamic descriptor needs a unit stride
        descs.append(flyc.from_dlpack(x).mark_layout_dynamic())
    for desc in descs:
        compiled = flyc.compile(touch, desc)
        compiled(x)  # the Python path; the packer is made
        assert isinstance(compiled._native, _fly.ArgumentPacker)
        python = compiled.pack(x)
        assert compiled._native.pack((x,), None) == python
        assert int.from_bytes(python[:8], "little") == x.data_ptr()
        assert compiled._native.call((x,), None)
    if len(descs) == 2:  # the dynamic leaves: extents and the strides but the unit one
        leaves = np.frombuffer(python[8:], np.int32)[:2 * x.dim() - 1].tolist()
        assert leaves == list(x.shape) + [s for s in x.stride() if s != 1][:x.dim() - 1]
        touch(x)  # a jit function's tensors (no descriptor) get a dynamic layout
        full = full_path_calls(touch, monkeypatch)
        touch(x)
        touch(x[:])  # another view of the same layout: the same key
        assert full[0] == 0  # the dispatcher's


def test_torch_mismatches_fall_back_to_the_python_error(emulator):
    """What the packer refuses for a torch tensor -- another dtype (also one
    torch describes like int8 through DLPack), rank, a static leaf, a
    dynamic leaf's divisibility, alignment, a tensor off the CPU -- it
    leaves to the Python path, which raises its error; an unsigned tensor
    for a signed element the Python path takes."""
    import torch

    x = torch.zeros(64, 8, dtype=torch.float32)
    compiled = flyc.compile(touch, flyc.from_dlpack(x).mark_layout_dynamic(divisibility=8))
    compiled(x)
    bad = [(x.double(), "compiled for float32 tensors"),
           (x.to(torch.float16), "compiled for float32 tensors"),
           (x[None], "rank"),
           (torch.zeros(64, 12)[:, :8], "divisib|multiple"),  # a row stride of 12
           (x.reshape(-1)[1:505].reshape(63, 8), "aligned to"),
           (torch.zeros(64, 8, device="meta"), "meta")]
    for tensor, message in bad:
        assert compiled._native.pack((tensor,), None) is None
        with pytest.raises(ArgumentError, match=message):
            compiled(tensor)
    assert compiled._native.pack((x,), None) == compiled.pack(x)

    i8 = torch.zeros(16, dtype=torch.int8)
    compiled = flyc.compile(touch, flyc.from_dlpack(i8))
    compiled(i8)
    int4 = torch.zeros(16, dtype=torch.int4)
    assert compiled._native.pack((int4,), None) is None  # not an int8
    with pytest.raises(ArgumentError, match="int4"):
        compiled(int4)
    u8 = torch.zeros(16, dtype=torch.uint8)
    assert compiled._native.pack((u8,), None) is None
    assert int.from_bytes(compiled.pack(u8), "little") == u8.data_ptr()  # the Python path's
    compiled(u8)


def test_torch_subclasses_are_read_through_their_attributes(emulator):
    """A torch.Tensor subclass (nn.Parameter here) keeps the attribute path:
    its attributes may be its own. The block is the same."""
    import torch

    x = torch.arange(32, dtype=torch.float32)
    p = torch.nn.Parameter(x.clone())
    compiled = flyc.compile(touch, flyc.from_dlpack(x).mark_layout_dynamic())
    compiled(x)
    assert compiled._native.pack((p,), None) == compiled.pack(p)
    assert int.from_bytes(compiled.pack(p)[:8], "little") == p.data_ptr()


def test_strided_torch_views_compute_on_the_emulator(emulator):
    """The values: strided torch views (a static layout: no unit stride)
    through the compiled function's packer and offset views through the jit
    function's dispatcher, run on the emulator, against torch."""
    import torch

    a = torch.arange(600, dtype=torch.float32)
    for step in (2, 3):
        b = torch.zeros(700, dtype=torch.float32)
        va, vb = a[::step][:200], b[4::step][:200]
        compiled = flyc.compile(scale, flyc.from_dlpack(va), flyc.from_dlpack(vb), 1.0, 200, True)
        for alpha in (2.0, 3.0, 2.0):
            vb.zero_()
            compiled(va, vb, alpha, 200, True)
            assert torch.equal(vb, va * alpha), (step, alpha)
        assert isinstance(compiled._native, _fly.ArgumentPacker)
        assert compiled._native.pack((va, vb, 2.0, 200, True), None) == \
            compiled.pack(va, vb, 2.0, 200, True)
        assert torch.count_nonzero(b).item() == 199  # nothing outside the view (a[0] is 0)
    for start in (0, 4, 8, 4):
        b = torch.zeros(600, dtype=torch.float32)
        scale(a[start:start + 300], b[start:start + 300], 3.0, 300, True)
        assert torch.equal(b[start:start + 300], a[start:start + 300] * 3)
        assert torch.count_nonzero(b).item() == 300 - (start == 0)
