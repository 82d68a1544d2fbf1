"""The emulated GPU: torch's "cuda" device in host memory
(flydsl.testing.torch_cuda) and the pytest plugin that installs it
(flydsl.testing.emulated_gpu).

The stand-in is installed and removed around each in-process test; the
plugin's own behaviour (its switches, its refusals, a GPU test file run
unmodified) is checked in pytest sessions of their own, since it changes
the process it runs in.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from conftest import REPO_ROOT
from flydsl.testing import torch_cuda
from flydsl.testing.torch_cuda import EmulatedGPUError


@pytest.fixture
def gpu(fly_env):
    fly_env(FLYDSL_RUNTIME_KIND="emu", ARCH="gfx942", COMPILE_ONLY=None)
    torch_cuda.install("gfx942")
    yield
    torch_cuda.uninstall()


# --- tensors -----------------------------------------------------------------

def test_factories_on_cuda_make_device_tensors_in_host_memory(gpu):
    made = [torch.randn(4, device="cuda"), torch.zeros(2, 3, device=torch.device("cuda:0")),
            torch.tensor([1, 2], device="cuda"), torch.arange(5, device=0),
            torch.empty_like(torch.ones(3), device="cuda"),
            torch.full((2,), 7.0, device="cuda", pin_memory=True)]
    for t in made:
        assert t.device.type == "cpu" and t.is_cuda
    assert made[5].tolist() == [7.0, 7.0]
    with torch.device("cuda"):
        inside = torch.ones(2)
    assert inside.is_cuda
    host = torch.ones(2)
    assert not host.is_cuda


def test_host_device_moves(gpu):
    host = torch.arange(6, dtype=torch.float32)
    for moved in (host.cuda(), host.to("cuda"), host.to(torch.device("cuda")),
                  host.to(device="cuda"), host.to("cuda", torch.float16), host.to(0)):
        assert moved.is_cuda and moved.data_ptr() != host.data_ptr()
        moved.fill_(-1)
        assert host.tolist() == [0, 1, 2, 3, 4, 5]
    assert host.to("cuda", torch.float16).dtype == torch.float16

    dev = torch.arange(4, device="cuda", dtype=torch.int32)
    assert dev.cuda() is dev and dev.to("cuda") is dev
    assert dev.to(torch.float32).is_cuda  # a dtype change stays on the device
    back = dev.cpu()
    assert not back.is_cuda and back.data_ptr() != dev.data_ptr()
    back.fill_(9)
    assert dev.tolist() == [0, 1, 2, 3]
    assert host.cpu() is host
    assert host.to(dev).is_cuda and host.to(dev).dtype == torch.int32
    assert not dev.to("cpu").is_cuda and dev.to("cpu").data_ptr() != dev.data_ptr()
    # results of operations on device tensors are on the device
    assert (dev + 1).is_cuda and dev.view(2, 2).is_cuda and torch.cat([dev, dev]).is_cuda
    assert not (host + 1).is_cuda
    assert dev.pin_memory() is dev


def test_seeding_reproduces_device_random_numbers(gpu):
    torch.manual_seed(7)  # seeds torch.cuda too, as on a GPU
    first = torch.randn(8, device="cuda")
    torch.cuda.manual_seed(7)
    again = torch.randn(8, device="cuda")
    torch.cuda.manual_seed_all(7)
    state = torch.cuda.get_rng_state()
    third = torch.randn(8, device="cuda")
    torch.cuda.set_rng_state(state)
    assert torch.equal(first, again) and torch.equal(again, third)
    assert torch.equal(torch.randn(8, device="cuda"), third)
    assert torch.cuda.initial_seed() == 7


def test_a_second_gpu_is_refused(gpu):
    with pytest.raises(EmulatedGPUError, match=r"cuda:1.*one GPU"):
        torch.zeros(1, device="cuda:1")
    with pytest.raises(EmulatedGPUError, match="cuda:1"):
        torch.ones(1).to("cuda:1")
    with pytest.raises(EmulatedGPUError, match="one GPU"):
        torch.cuda.set_device(1)
    with pytest.raises(EmulatedGPUError):
        torch.cuda.get_device_properties(1)


# --- torch.cuda ------------------------------------------------------------------

@pytest.mark.parametrize("arch,product,wave,cus,capability", [
    ("gfx942", "AMD Instinct MI300X", 64, 304, (9, 4)),
    ("gfx950", "AMD Instinct MI355X", 64, 256, (9, 5)),
    ("gfx1100", "AMD Radeon RX 7900 XTX", 32, 96, (11, 0)),
    ("gfx1201", "AMD Radeon RX 9070 XT", 32, 64, (12, 0)),  # HIP: the stepping is not the minor
])
def test_the_device_is_the_emulated_chip(arch, product, wave, cus, capability):
    torch_cuda.install(arch)
    try:
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        assert torch.cuda.current_device() == 0
        props = torch.cuda.get_device_properties(0)
        assert props.gcnArchName == arch and props.warp_size == wave
        assert props.multi_processor_count == cus
        assert props.name == torch.cuda.get_device_name() == f"{product} (FlyDSL emulator)"
        assert (props.major, props.minor) == capability == torch.cuda.get_device_capability()
        assert props.total_memory == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        assert torch.cuda.get_device_properties(torch.device("cuda")) is props
    finally:
        torch_cuda.uninstall()


def test_memory_queries_count_the_live_device_tensors(gpu):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    a = torch.empty(1000, dtype=torch.float32, device="cuda")
    assert torch.cuda.memory_allocated() == base + 4000
    view = a[10:20]
    assert torch.cuda.memory_allocated() == base + 4000  # a view holds the same storage
    b = torch.empty(250, dtype=torch.float64, device="cuda")
    assert torch.cuda.memory_allocated() == base + 6000
    del a, view, b
    assert torch.cuda.memory_allocated() == base
    assert torch.cuda.max_memory_allocated() == base + 6000
    stats = torch.cuda.memory_stats()
    assert stats["allocated_bytes.all.peak"] == base + 6000
    assert stats["allocated_bytes.all.current"] == base
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == base
    free, total = torch.cuda.mem_get_info()
    assert free + torch.cuda.memory_reserved() == total == torch.cuda.get_device_properties(0).total_memory
    host = torch.empty(1000)  # host memory is not the device's
    assert torch.cuda.memory_allocated() == base
    del host


def test_streams_and_events(gpu):
    default = torch.cuda.current_stream()
    assert default.cuda_stream == 0 and torch.cuda.default_stream() is default
    s = torch.cuda.Stream()
    other = torch.cuda.Stream()
    assert s.cuda_stream not in (0, other.cuda_stream)
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() is s
        s.wait_stream(default)
    assert torch.cuda.current_stream() is default
    s.synchronize()
    assert s.query()
    torch.cuda.synchronize()

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 20.0  # host time, in milliseconds
    untimed = torch.cuda.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing"):
        untimed.elapsed_time(end)
    assert isinstance(s.record_event(), torch.cuda.Event)


def test_cuda_graphs_are_refused(gpu):
    with pytest.raises(EmulatedGPUError, match="CUDA graphs cannot be emulated"):
        torch.cuda.CUDAGraph()
    with pytest.raises(EmulatedGPUError, match="torch.cuda.graph"):
        torch.cuda.graph(None)


def test_a_real_gpu_is_not_hidden(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "NVIDIA H100 80GB HBM3")
    with pytest.raises(EmulatedGPUError, match="real GPU here .NVIDIA H100"):
        torch_cuda.install("gfx942")
    assert torch_cuda.installed_arch() is None


def test_a_generator_for_cuda_draws_device_numbers(gpu):
    """torch.Generator(device="cuda") (a constructor the device mode does not
    see) makes a generator for the emulated device: seeded alike, it draws
    what a host generator draws, for tensors on the device."""
    g = torch.Generator(device="cuda").manual_seed(11)
    assert isinstance(g, torch._C.Generator)
    drawn = torch.randn(6, device="cuda", generator=g)
    want = torch.randn(6, generator=torch.Generator().manual_seed(11))
    assert drawn.is_cuda and torch.equal(drawn.cpu(), want)
    with pytest.raises(RuntimeError, match="cuda:0, not cuda:1"):
        torch.Generator(device="cuda:1")


def test_uninstall_gives_torch_back():
    real = torch.cuda.is_available
    real_generator = torch.Generator
    torch_cuda.install("gfx1100")
    assert torch.cuda.is_available()
    assert torch.Generator is not real_generator
    torch_cuda.uninstall()
    assert torch.cuda.is_available is real and not torch.cuda.is_available()
    assert torch.Generator is real_generator
    with pytest.raises((RuntimeError, AssertionError)):
        torch.zeros(1, device="cuda")


# --- kernels on the emulated device ---------------------------------------------

@flyc.kernel
def _scale_kernel(x: fx.Tensor, y: fx.Tensor, factor: fx.Float32):
    i = fx.block_idx.x * 64 + fx.thread_idx.x
    y[i] = x[i] * factor


@flyc.jit
def _scale(x: fx.Tensor, y: fx.Tensor, factor: fx.Float32, n: fx.Constexpr[int],
           stream: fx.Stream = fx.Stream(None)):
    _scale_kernel(x, y, factor).launch(grid=(n // 64, 1, 1), block=(64, 1, 1), stream=stream)


def test_a_kernel_reads_and_writes_device_tensors_on_any_stream(gpu):
    x = torch.randn(256, device="cuda")
    for stream in (torch.cuda.current_stream(), fx.Stream(torch.cuda.Stream()),
                   torch.cuda.Stream(), fx.Stream(None)):
        y = torch.zeros(256, device="cuda")
        _scale(x, y, 3.0, 256, stream=stream)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(), (x * 3.0).cpu().numpy())


@pytest.mark.parametrize("arch,values", [
    # what FlyDSL 0.4.2 answers for the same calls (COMPILE_ONLY=1, ARCH=<chip>)
    ("gfx942", (64, 5, None, 64, 4)),
    ("gfx1100", (32, 5, None, 32, 8)),
])
def test_host_side_values_are_flydsls(fly_env, arch, values):
    fly_env(ARCH=arch)
    reduce = fx.coop.BlockReduce[fx.Int32, 256]
    assert (fx.num_warp_threads(), fx.Stream(5).value, fx.Stream(None).value,
            reduce.warp_threads, reduce.num_warps) == values


# --- the plugin, in pytest sessions of its own -------------------------------------

GPU_TEST = '''
    import pytest
    import torch

    import flydsl.compiler as flyc
    import flydsl.expr as fx

    if not torch.cuda.is_available():
        pytest.skip("CUDA/ROCm not available", allow_module_level=True)

    @flyc.kernel
    def add_kernel(a: fx.Tensor, b: fx.Tensor, c: fx.Tensor):
        i = fx.block_idx.x * 64 + fx.thread_idx.x
        c[i] = a[i] + b[i]

    @flyc.jit
    def add(a: fx.Tensor, b: fx.Tensor, c: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
        add_kernel(a, b, c).launch(grid=(4, 1, 1), block=(64, 1, 1), stream=stream.value)

    def test_add():
        a = torch.randn(256).cuda()
        b = torch.randn(256, device="cuda")
        c = torch.empty(256, device=torch.device("cuda"))
        add(a, b, c, stream=torch.cuda.current_stream())
        torch.cuda.synchronize()
        torch.testing.assert_close(c.cpu(), (a + b).cpu())

    def test_wave():
        assert fx.num_warp_threads() == torch.cuda.get_device_properties(0).warp_size

    @pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 GPUs")
    def test_two_gpus():
        pass

    def test_second_gpu():
        torch.zeros(1, device="cuda:1")
'''


def _session(tmp_path, *args, env=None, files=None):
    (tmp_path / "test_gpu.py").write_text(textwrap.dedent(GPU_TEST))
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    environ = {k: v for k, v in os.environ.items()
               if k not in ("ARCH", "FLYDSL_GPU_ARCH", "FLYDSL_RUNTIME_KIND", "COMPILE_ONLY",
                            "FLYDSL_EMULATED_GPU", "PYTEST_ADDOPTS")}
    environ["FLYDSL_RUNTIME_CACHE_DIR"] = str(tmp_path / "cache")
    environ["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(REPO_ROOT / "frontend" / "python")])
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args,
                           str(tmp_path / "test_gpu.py")], cwd=tmp_path, env=environ,
                          capture_output=True, text=True)


def test_the_plugin_runs_a_gpu_test_file_unmodified(tmp_path):
    out = _session(tmp_path, "-p", "flydsl.testing.emulated_gpu", files={"conftest.py": """
        import torch
        ASKED_AT_IMPORT = torch.cuda.is_available()

        def test_conftest_saw_the_gpu():
            pass

        def pytest_report_header(config):
            return f"conftest saw a GPU: {ASKED_AT_IMPORT}"
    """})
    text = out.stdout + out.stderr
    assert "flydsl emulated GPU: gfx942 (AMD Instinct MI300X (FlyDSL emulator), wave 64)" in text
    assert "host wall-clock" in text
    assert "conftest saw a GPU: True" in text
    assert "2 passed, 1 skipped" in text and "1 failed" in text, text
    assert "SKIPPED" in text and "needs 2 GPUs" in text
    assert "cuda:1" in text and "one GPU" in text
    assert out.returncode == 1


def test_the_plugin_names_the_fly_opt_on_path(tmp_path):
    """FlyDSL's tests find fly-opt through FLYDSL_FLY_OPT: the plugin names
    the one on PATH (where pip puts it)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "fly-opt").symlink_to(REPO_ROOT / "build" / "bin" / "fly-opt")
    (tmp_path / "test_tool.py").write_text(
        "import os\n\ndef test_fly_opt():\n"
        f"    assert os.environ['FLYDSL_FLY_OPT'] == {str(tools / 'fly-opt')!r}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("FLYDSL_FLY_OPT", "ARCH")}
    env.update(PATH=f"{tools}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(REPO_ROOT / "frontend" / "python"))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "flydsl.testing.emulated_gpu", str(tmp_path / "test_tool.py")],
                         cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "1 passed" in out.stdout, out.stdout + out.stderr


def test_the_plugin_has_flydsls_perf_harness_time_with_events(tmp_path):
    """FlyDSL's perf harness reads torch.profiler's device events unless
    FLYDSL_PERFTEST_USE_EVENTS is set; an emulated launch has none, so the
    plugin sets it (and keeps a value the user set)."""
    (tmp_path / "test_harness.py").write_text(
        "import os\n\ndef test_switch():\n"
        "    assert os.environ['FLYDSL_PERFTEST_USE_EVENTS'] == os.environ['EXPECTED']\n")
    for preset, expected in ((None, "1"), ("0", "0")):
        env = {k: v for k, v in os.environ.items()
               if k not in ("FLYDSL_PERFTEST_USE_EVENTS", "ARCH")}
        env.update(PYTHONPATH=str(REPO_ROOT / "frontend" / "python"), EXPECTED=expected)
        if preset is not None:
            env["FLYDSL_PERFTEST_USE_EVENTS"] = preset
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "flydsl.testing.emulated_gpu",
                              str(tmp_path / "test_harness.py")],
                             cwd=tmp_path, capture_output=True, text=True, env=env)
        assert "1 passed" in out.stdout, out.stdout + out.stderr


def test_the_plugin_emulates_the_chip_arch_names(tmp_path):
    out = _session(tmp_path, "-p", "flydsl.testing.emulated_gpu", "-k", "add or wave",
                   env={"ARCH": "gfx1100"})
    text = out.stdout + out.stderr
    assert "flydsl emulated GPU: gfx1100" in text and "wave 32" in text
    assert "2 passed" in text and out.returncode == 0, text


def test_the_environment_variable_switches_the_plugin_on(tmp_path):
    # pytest_entry is the package's pytest11 entry point, loaded by every
    # session where flydsl is installed.
    on = _session(tmp_path, "-p", "flydsl.testing.pytest_entry", "-k", "add",
                  env={"FLYDSL_EMULATED_GPU": "1"})
    assert "1 passed" in on.stdout and on.returncode == 0, on.stdout + on.stderr
    off = _session(tmp_path, "-p", "flydsl.testing.pytest_entry", env={"FLYDSL_EMULATED_GPU": "0"})
    assert "1 skipped" in off.stdout and "CUDA/ROCm not available" in off.stdout, off.stdout
    bad = _session(tmp_path, "-p", "flydsl.testing.pytest_entry", env={"FLYDSL_EMULATED_GPU": "maybe"})
    assert "FLYDSL_EMULATED_GPU='maybe' is not a boolean" in bad.stdout + bad.stderr
    assert bad.returncode != 0


@pytest.mark.parametrize("env,files,message", [
    ({"ARCH": "gfx999"}, {}, "ARCH=gfx999 is not a chip the emulator runs; supported: gfx942"),
    ({"FLYDSL_RUNTIME_KIND": "hip"}, {}, "FLYDSL_RUNTIME_KIND=hip asks for a real GPU runtime"),
    ({"ARCH": "gfx942", "FLYDSL_GPU_ARCH": "gfx1100"}, {},
     "ARCH=gfx942 and FLYDSL_GPU_ARCH=gfx1100 name different chips"),
    ({}, {"no_compiler.py": "import sys\nsys.modules['flydsl._fly_compiler'] = None\n"},
     "the FlyDSL emulator is not available"),
], ids=["unknown-arch", "hip-runtime", "two-chips", "no-emulator"])
def test_the_plugin_refuses_to_start_naming_the_cause(tmp_path, env, files, message):
    first = ["-p", "no_compiler"] if files else []
    out = _session(tmp_path, *first, "-p", "flydsl.testing.emulated_gpu", env=env, files=files)
    text = out.stdout + out.stderr
    assert f"flydsl.testing.emulated_gpu: {message}" in text, text
    assert out.returncode == 4 and "Traceback" not in text  # a usage error, not a crash
