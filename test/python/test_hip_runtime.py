"""The HIP module loader (runtime/hip, fly/runtime/Hip.h; SPEC.md §9) through
flydsl._fly.hip_runtime_status() and install_hip_runtime().

Two HIP libraries are used:

- the REAL libamdhip64 of Debian's package libamdhip64-5 (scripts/setup.sh
  installs it). No machine of this project has an AMD GPU, so what is
  checked of it is the no-device path: the loader finds it, hipInit and
  hipGetDeviceCount report no device, installing the runtime is the
  "no HIP device" error naming the library, and a @flyc.jit call afterwards
  is an error, not a crash;
- a TEST DOUBLE of HIP's driver boundary
  (test/tools/fly-hip-double/hip-double.cpp): a libamdhip64.so with HIP's C
  entry points that records module loads, kernel lookups and launches
  instead of talking to a GPU. The loader is pointed at it with
  $FLYDSL_HIP_LIBRARY; the test reads the records with ctypes.

The loader opens HIP once per process, at first use, so every case runs in
a Python subprocess of its own with its own environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

from conftest import REPO_ROOT

DOUBLE_DIR = REPO_ROOT / "build" / "test" / "tools" / "fly-hip-double"
TILE_M, TILE_N = 16, 64

# Run in the subprocess before each case's code: the double's ctypes view
# and examples/vector_add.py. A case fills `out`, printed as JSON at exit.
PRELUDE = r'''
import ctypes, importlib.util, json, os, struct, sys
sys.path.insert(0, os.path.join(os.environ["FLY_TEST_REPO"], "frontend", "python"))
import numpy as np
import flydsl.compiler as flyc
from flydsl import _fly

def load_example():
    path = os.path.join(os.environ["FLY_TEST_REPO"], "examples", "vector_add.py")
    spec = importlib.util.spec_from_file_location("example_vector_add", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

class Double:
    """The HIP test double, seen through its fake_hip_* functions (the same
    library object the loader dlopen'ed: same path, same handle)."""
    COUNTS = ("inits", "device_count_queries", "modules", "unloads", "lookups",
              "launches", "streams", "live_streams", "syncs")

    def __init__(self):
        self.lib = ctypes.CDLL(os.environ["FLYDSL_HIP_LIBRARY"])
        self.lib.fake_hip_module.restype = ctypes.c_size_t
        self.sizes = []

    def reset(self, sizes):
        self.sizes = list(sizes)
        self.lib.fake_hip_reset((ctypes.c_size_t * len(sizes))(*sizes), len(sizes))

    def fail(self, entry, status):
        self.lib.fake_hip_fail(entry.encode(), status)

    def counts(self):
        c = (ctypes.c_uint * len(self.COUNTS))()
        self.lib.fake_hip_counts(c)
        return dict(zip(self.COUNTS, c))

    def module(self, index):
        size = self.lib.fake_hip_module(index, None, 0)
        buf = ctypes.create_string_buffer(size)
        self.lib.fake_hip_module(index, buf, size)
        return buf.raw

    def lookup(self, index):
        buf = ctypes.create_string_buffer(256)
        self.lib.fake_hip_lookup(index, buf, 256)
        return buf.value.decode()

    def launch(self, index):
        geometry = (ctypes.c_uint * 10)()
        name = ctypes.create_string_buffer(256)
        params = ctypes.create_string_buffer(max(sum(self.sizes), 1))
        stream = ctypes.c_void_p()
        extra_null = self.lib.fake_hip_launch(index, geometry, name, 256, params,
                                              sum(self.sizes), ctypes.byref(stream))
        g = list(geometry)
        return {"kernel": name.value.decode(), "grid": g[0:3], "block": g[3:6],
                "cluster": g[6:9], "smem": g[9], "stream": stream.value or 0,
                "extra_null": bool(extra_null), "params": params.raw[:sum(self.sizes)].hex()}

class FlyLaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("cluster", ctypes.c_uint32 * 3), ("shared_memory_bytes", ctypes.c_uint32),
                ("stream", ctypes.c_void_p)]

_ENTRY = ctypes.CFUNCTYPE
class FlyLaunchTable(ctypes.Structure):
    """fly/runtime/Launch.h's table, to call the installed entries directly."""
    _fields_ = [("size", ctypes.c_size_t), ("context", ctypes.c_void_p),
                ("module_load", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                       ctypes.POINTER(ctypes.c_void_p))),
                ("module_unload", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)),
                ("get_function", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                        ctypes.POINTER(ctypes.c_void_p))),
                ("launch", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.POINTER(FlyLaunchConfig), ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.c_size_t)),
                ("stream_create", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))),
                ("stream_synchronize", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)),
                ("stream_destroy", _ENTRY(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)),
                ("last_error", _ENTRY(ctypes.c_char_p, ctypes.c_void_p))]

def tensor_words(t):
    return [t.ctypes.data, t.shape[0], t.shape[1], t.strides[0] // t.itemsize]

def error_of(call):
    try:
        call()
    except Exception as err:  # the type is part of what is reported
        return type(err).__name__ + ": " + str(err)
    return None

out = {}
'''


def run_case(code: str, library=None) -> dict:
    """Runs `code` after PRELUDE in a fresh interpreter; its `out` dict.
    `library`: $FLYDSL_HIP_LIBRARY (None: unset, the default search)."""
    env = dict(os.environ)
    env.pop("COMPILE_ONLY", None)
    env.pop("FLYDSL_HIP_LIBRARY", None)
    env.update(FLY_TEST_REPO=str(REPO_ROOT), ARCH="gfx942")
    if library is not None:
        env["FLYDSL_HIP_LIBRARY"] = str(library)
    script = PRELUDE + textwrap.dedent(code) + "\nprint('FLY-TEST-OUT ' + json.dumps(out))\n"
    with tempfile.TemporaryDirectory() as tmp:  # a file: a case may define @flyc.jit functions
        path = os.path.join(tmp, "case.py")
        with open(path, "w") as f:
            f.write(script)
        proc = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True,
                              timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"the case's interpreter exited with {proc.returncode}:\n{proc.stderr[-4000:]}",
                    pytrace=False)
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("FLY-TEST-OUT ")]
    return json.loads(line[len("FLY-TEST-OUT "):])


def double_path(variant: str = "hip"):
    path = DOUBLE_DIR / variant / "libamdhip64.so"
    if not path.exists():
        pytest.fail(f"{path} not found: build it with `ninja -C build fly-hip-double-{variant}`",
                    pytrace=False)
    return path


# --- The real libamdhip64 (Debian's libamdhip64-5) ---------------------------

REAL_NAMES = ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"]


@pytest.fixture(scope="module")
def real_status():
    """hip_runtime_status() with the default search, which must find
    Debian's libamdhip64 (package libamdhip64-5, installed by setup.sh)."""
    status = run_case("out['status'] = _fly.hip_runtime_status()")["status"]
    if not status["library_found"]:
        pytest.fail("the real libamdhip64 was not found (tried: " + "; ".join(status["tried"]) +
                    "). scripts/setup.sh installs Debian's libamdhip64-5; "
                    "`apt-get install libamdhip64-5` does it by hand.", pytrace=False)
    return status


def test_real_library_is_found_by_the_default_search(real_status):
    # The names are tried in order; those that failed are listed with the
    # dynamic loader's reason, and the one found is the next name.
    tried = [t.split(": ", 1)[0] for t in real_status["tried"]]
    assert tried == REAL_NAMES[:len(tried)]
    assert all("cannot open shared object file" in t for t in real_status["tried"])
    assert real_status["library"] == REAL_NAMES[len(tried)]
    assert os.path.isfile(real_status["path"])
    assert real_status["dlopen_calls"] == len(tried) + 1


def test_real_library_reports_no_device(real_status):
    # Debian's HIP 5.2 on a machine without an AMD GPU: hipInit fails with
    # hipErrorInvalidDevice (101), hipGetDeviceCount with hipErrorNoDevice
    # (100) and a count of 0. It has no hipDrvLaunchKernelEx (no clusters).
    assert real_status["device_count_status"] == 100
    assert real_status["device_count"] == 0
    assert real_status["init_status"] != 0
    assert real_status["cluster_launch"] is False
    assert real_status["error"].startswith(f"no HIP device: {real_status['library']} ")
    assert "hipErrorNoDevice" in real_status["error"]


def test_installing_the_real_runtime_is_the_no_device_error():
    out = run_case("""
        out['first'] = error_of(_fly.install_hip_runtime)
        out['second'] = error_of(_fly.install_hip_runtime)
        out['table'] = _fly.launch_table()
        # A @flyc.jit call after the failed install: an error, not a crash.
        example = load_example()
        a = np.zeros((16, 64), np.float32)
        out['call'] = error_of(lambda: example.vector_add(a, a.copy(), a.copy()))
    """)
    assert out["first"].startswith("Error: no HIP device: libamdhip64.so")
    assert "hipGetDeviceCount failed with hipErrorNoDevice" in out["first"]
    assert out["second"] == out["first"]  # loaded once, the same answer
    assert out["table"] == 0  # nothing installed
    assert out["call"] is None


# --- No library at all --------------------------------------------------------

def test_no_runtime_names_what_was_tried(tmp_path):
    missing = tmp_path / "nowhere" / "libamdhip64.so"
    out = run_case("""
        out['status'] = _fly.hip_runtime_status()
        out['install'] = error_of(_fly.install_hip_runtime)
        example = load_example()
        a = np.zeros((16, 64), np.float32)
        out['call'] = error_of(lambda: example.vector_add(a, a.copy(), a.copy()))
    """, library=missing)
    status = out["status"]
    assert status["library_found"] is False and status["library"] is None
    assert status["tried"] == [f"{missing}: cannot open shared object file: No such file or directory"]
    assert out["install"] == (f"Error: no HIP runtime: $FLYDSL_HIP_LIBRARY cannot be loaded "
                              f"({status['tried'][0]})")
    assert out["call"] is None  # without HIP the call runs on the emulator


def test_a_library_that_is_not_hip(tmp_path):
    # A loadable shared object without HIP's entry points (the C library).
    out = run_case("out['install'] = error_of(_fly.install_hip_runtime)", library="libc.so.6")
    assert out["install"].startswith("Error: no HIP runtime: libc.so.6")
    assert "lacks hipInit, hipGetDeviceCount, hipModuleLoadData" in out["install"]


# --- The test double of the driver boundary ----------------------------------

def test_double_is_loaded_and_has_a_device():
    path = double_path()
    out = run_case("""
        out['status'] = _fly.hip_runtime_status()
        out['address'] = _fly.install_hip_runtime()
        out['installed'] = _fly.launch_table()
    """, library=path)
    status = out["status"]
    assert status["library_found"] and status["library"] == str(path) and status["path"] == str(path)
    assert (status["device_count"], status["error"], status["cluster_launch"]) == (1, None, True)
    assert status["dlopen_calls"] == 1 and status["tried"] == []
    assert out["address"] == out["installed"] != 0


def test_vector_add_through_the_host_entry_reaches_hip():
    """examples/vector_add.py called through its host entry, with HIP
    installed: hipModuleLoadData gets the exact code object,
    hipModuleGetFunction the kernel's name, hipModuleLaunchKernel the
    geometry, the caller's stream (the default one, then a handle) and
    kernelParams pointing at the kernel's arguments (three pointers and
    their (M, N, stride) leaves)."""
    out = run_case("""
        double = Double()
        _fly.install_hip_runtime()
        double.reset([8, 12] * 3)  # ptr, {i32, i32, i32} for A, B and C
        example = load_example()
        shapes = [(100, 200), (33, 4), (16, 64)]
        out['words'], out['launches'] = [], []
        for m, n in shapes:
            a, b, c = (np.zeros((m, n), np.float32) for _ in range(3))
            example.vector_add(a, b, c)
            out['words'].append(tensor_words(a) + tensor_words(b) + tensor_words(c))
        out['launches'] = [double.launch(i) for i in range(len(shapes))]
        example.vector_add(a, b, c, stream=example.fx.Stream(0x5EED0))
        out['given_stream'] = double.launch(len(shapes))['stream']
        compiled = example.vector_add.compile(a, b, c)
        elf = compiled.code_objects[0][2]
        module = double.module(0)
        out['module_is_the_code_object'] = module == elf
        out['module_size'], out['elf_size'] = len(module), len(elf)
        out['kernel'] = compiled.kernels[0]['name']
        out['lookups'] = [double.lookup(i) for i in range(double.counts()['lookups'])]
        out['counts'] = double.counts()
        out['status'] = _fly.hip_runtime_status()
    """, library=double_path())
    assert out["module_is_the_code_object"], (out["module_size"], out["elf_size"])
    assert out["kernel"] == "vector_add_kernel"
    assert out["lookups"] == ["vector_add_kernel"]
    shapes = [(100, 200), (33, 4), (16, 64)]
    for (m, n), words, launch in zip(shapes, out["words"], out["launches"]):
        assert launch["kernel"] == "vector_add_kernel"
        assert launch["grid"] == [-(-m // TILE_M), -(-n // TILE_N), 1]  # blocks along M, then N
        assert launch["block"] == [256, 1, 1]
        assert launch["cluster"] == [0, 0, 0] and launch["smem"] == 0
        assert launch["stream"] == 0  # the caller's: `stream: fx.Stream = fx.Stream(None)`
        assert launch["extra_null"]  # arguments through kernelParams only
        assert launch["params"] == __import__("struct").pack("=" + "Qiii" * 3, *words).hex()
    assert out["given_stream"] == 0x5EED0
    counts = out["counts"]
    # One code object load and one lookup for four calls, all on the
    # caller's streams: the host entry makes none of its own.
    assert (counts["modules"], counts["lookups"], counts["launches"]) == (1, 1, 4)
    assert (counts["streams"], counts["syncs"], counts["live_streams"]) == (0, 0, 0)
    # HIP was opened and initialized once.
    assert counts["inits"] == 1 and counts["device_count_queries"] == 1
    assert out["status"]["dlopen_calls"] == 1


@pytest.mark.parametrize("entry, status, name, where", [
    ("hipModuleLaunchKernel", 1, "hipErrorInvalidValue",
     "hipModuleLaunchKernel of kernel 'vector_add_kernel' (grid 1x1x1, block 256x1x1) failed"),
    ("hipModuleLoadData", 200, "hipErrorInvalidImage",
     "loading the code object of kernel 'vector_add_kernel'"),
    ("hipModuleGetFunction", 500, "hipErrorNotFound",
     "hipModuleGetFunction of kernel 'vector_add_kernel' failed"),
])
def test_hip_errors_become_exceptions(entry, status, name, where):
    out = run_case(f"""
        double = Double()
        _fly.install_hip_runtime()
        double.reset([8, 12] * 3)
        double.fail({entry!r}, {status})
        example = load_example()
        a = np.zeros((16, 64), np.float32)
        out['error'] = error_of(lambda: example.vector_add(a, a.copy(), a.copy()))
        double.fail('', 0)
        out['after'] = error_of(lambda: example.vector_add(a, a.copy(), a.copy()))
        out['counts'] = double.counts()
    """, library=double_path())
    assert out["error"].startswith("FlyDSLError: ")
    assert f"(status {status})" in out["error"]
    assert name in out["error"] and where in out["error"]
    if status == 1:  # the double's hipGetErrorString says more than the name
        assert "hipErrorInvalidValue (invalid argument (from the double))" in out["error"]
    assert out["after"] is None  # the next call is clean
    assert out["counts"]["live_streams"] == 0


def test_double_without_a_device_is_the_no_device_error():
    out = run_case("""
        double = Double()
        double.lib.fake_hip_set_device_count(0)  # before HIP's first use
        out['install'] = error_of(_fly.install_hip_runtime)
        out['status'] = _fly.hip_runtime_status()
    """, library=double_path())
    path = str(double_path())
    assert out["install"] == (f"Error: no HIP device: {path} loaded, but hipGetDeviceCount "
                              "failed with hipErrorNoDevice")
    assert out["status"]["device_count"] == 0 and out["status"]["init_status"] == 0


CLUSTER_CASE = """
    double = Double()
    table = FlyLaunchTable.from_address(_fly.install_hip_runtime())
    double.reset([4, 8])
    # Any ELF64 object serves as a code object for the double: its own file.
    image = open(os.environ['FLYDSL_HIP_LIBRARY'], 'rb').read()
    module, function, stream = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert table.module_load(table.context, image, len(image), ctypes.byref(module)) == 0
    assert table.get_function(table.context, module, b"cluster_kernel", ctypes.byref(function)) == 0
    assert table.stream_create(table.context, ctypes.byref(stream)) == 0
    a, b = ctypes.c_int32(-5), ctypes.c_int64(1 << 40)
    params = (ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(b))
    config = FlyLaunchConfig((8, 4, 1), (64, 1, 1), (2, 2, 1), 1024, stream)
    out['status'] = table.launch(table.context, function, ctypes.byref(config), params, 2)
    out['error'] = table.last_error(table.context).decode()
    out['launches'] = [double.launch(i) for i in range(double.counts()['launches'])]
    out['stream'] = stream.value
    out['module_matches'] = double.module(0) == image[:len(double.module(0))]
    out['unload'] = table.module_unload(table.context, module)
    out['cluster_launch'] = _fly.hip_runtime_status()['cluster_launch']
"""


def test_cluster_launch_goes_through_hipDrvLaunchKernelEx():
    out = run_case(CLUSTER_CASE, library=double_path("hip"))
    assert out["status"] == 0 and out["cluster_launch"]
    (launch,) = out["launches"]
    assert launch["kernel"] == "cluster_kernel"
    assert (launch["grid"], launch["block"], launch["cluster"]) == ([8, 4, 1], [64, 1, 1], [2, 2, 1])
    assert launch["smem"] == 1024 and launch["stream"] == out["stream"] and launch["extra_null"]
    assert bytes.fromhex(launch["params"]) == (-5).to_bytes(4, "little", signed=True) + (1 << 40).to_bytes(8, "little")
    assert out["module_matches"] and out["unload"] == 0


def test_cluster_launch_without_hipDrvLaunchKernelEx_is_an_error():
    path = double_path("hip-no-cluster")
    out = run_case(CLUSTER_CASE, library=path)
    assert out["cluster_launch"] is False
    assert out["status"] != 0 and out["launches"] == []
    assert out["error"] == (f"cluster launch of kernel 'cluster_kernel' (grid 8x4x1, block 64x1x1, "
                            f"cluster 2x2x1): {path} has no hipDrvLaunchKernelEx, so it cannot "
                            "launch clusters")


def test_runtime_kind_hip_without_a_device_says_why():
    """FLYDSL_RUNTIME_KIND=hip on a machine whose HIP has no device: the call
    names the missing device; by default the call runs on the emulator."""
    script = (
        "import importlib.util, numpy as np\n"
        "import flydsl.compiler as flyc\n"
        f"spec = importlib.util.spec_from_file_location('va', {str(REPO_ROOT / 'examples' / 'vector_add.py')!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "a = np.zeros((16, 64), np.float32)\n"
        "try:\n"
        "    m.vector_add(a, a.copy(), a.copy())\n"
        "    print('ran')\n"
        "except flyc.FlyDSLError as err:\n"
        "    print(err)\n")
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("COMPILE_ONLY", "FLYDSL_HIP_LIBRARY")}
    hip = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=dict(env, FLYDSL_RUNTIME_KIND="hip"))
    assert hip.returncode == 0, hip.stderr
    assert "no runtime: FLYDSL_RUNTIME_KIND=hip, but no HIP device" in hip.stdout
    # By default, without a HIP device, the call runs on the CPU emulator.
    default = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert default.returncode == 0, default.stderr
    assert default.stdout.strip() == "ran"


def test_a_launch_without_a_stream_waits_for_its_kernel():
    """A @flyc.jit with no stream parameter: each launch goes to a stream
    the host entry creates, synchronizes and destroys, and a failed
    synchronization is the call's error."""
    out = run_case("""
        import flydsl.expr as fx

        @flyc.kernel
        def copy_kernel(A: fx.Tensor, B: fx.Tensor):
            i = fx.thread_idx.x
            B[i] = A[i]

        @flyc.jit
        def copy(A: fx.Tensor, B: fx.Tensor):
            copy_kernel(A, B).launch(grid=(1, 1, 1), block=(64, 1, 1))

        double = Double()
        _fly.install_hip_runtime()
        double.reset([8, 4, 8, 4])  # ptr, {i32 extent} for A and B
        a = np.zeros(64, np.float32)
        copy(a, a.copy())
        copy(a, a.copy())
        out['streams'] = [double.launch(i)['stream'] for i in range(2)]
        out['counts'] = double.counts()
        double.fail('hipStreamSynchronize', 1)
        out['error'] = error_of(lambda: copy(a, a.copy()))
        double.fail('', 0)
        out['after'] = error_of(lambda: copy(a, a.copy()))
        out['live'] = double.counts()['live_streams']
    """, library=double_path())
    assert all(s != 0 for s in out["streams"]) and out["streams"][0] != out["streams"][1]
    counts = out["counts"]
    assert (counts["launches"], counts["streams"], counts["syncs"], counts["live_streams"]) == \
        (2, 2, 2, 0)
    assert out["error"].startswith("FlyDSLError: ") and "hipStreamSynchronize failed" in out["error"]
    assert "(status 1)" in out["error"]
    assert out["after"] is None and out["live"] == 0
