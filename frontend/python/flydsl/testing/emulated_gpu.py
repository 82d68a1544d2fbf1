"""pytest plugin: GPU test suites, unmodified, on the FlyDSL emulator.

    pytest -p flydsl.testing.emulated_gpu tests/
    FLYDSL_EMULATED_GPU=1 pytest tests/        (with the package installed)
    ARCH=gfx1100 pytest -p flydsl.testing.emulated_gpu tests/

Tests written for torch's "cuda" device run on a machine without a GPU:
their tensors live in host memory (flydsl.testing.torch_cuda says how
torch is made to answer), and every kernel a `@flyc.jit` function launches
runs on the CPU emulator for the chip `ARCH` names (default gfx942).
FLYDSL_FLY_OPT names the fly-opt on PATH unless it is set, and
FLYDSL_PERFTEST_USE_EVENTS=1 (unless set) has FlyDSL's perf harness time
kernels with torch.cuda.Event rather than the profiler. The plugin
refuses to start, naming the cause, on an unknown `ARCH`, without the
emulator, when `FLYDSL_RUNTIME_KIND` asks for HIP, and where torch sees a
real GPU.
"""

from __future__ import annotations

import os
import shutil

import pytest

from ..tracing.errors import FlyDSLError

DEFAULT_ARCH = "gfx942"


def _fail(message: str):
    raise pytest.UsageError(f"flydsl.testing.emulated_gpu: {message}")


def _chosen_arch() -> str:
    """ARCH (or FLYDSL_GPU_ARCH), checked against the compiler's chip table."""
    from .. import _fly

    arch = (os.environ.get("ARCH") or os.environ.get("FLYDSL_GPU_ARCH") or DEFAULT_ARCH)
    arch = arch.strip().lower()
    other = os.environ.get("FLYDSL_GPU_ARCH")
    if other and other.strip().lower() != arch:
        _fail(f"ARCH={arch} and FLYDSL_GPU_ARCH={other} name different chips; the emulated "
              "GPU is one chip: set one of them")
    chips = _fly.supported_chips()
    if arch not in chips:
        _fail(f"ARCH={arch} is not a chip the emulator runs; supported: {', '.join(chips)}")
    return arch


def _check_emulator() -> None:
    """The emulator needs both native extensions: the runtime (it runs the
    kernels) and the compiler (it compiles them for the host)."""
    try:
        from .. import _fly

        _fly.compiler()
    except (ImportError, OSError, FlyDSLError) as err:
        _fail(f"the FlyDSL emulator is not available: {err}. Build or install flydsl "
              "with its native extensions (README: Two commands)")
    if not hasattr(_fly, "install_emu_runtime"):
        _fail("the FlyDSL emulator is not available: this flydsl build has no emulator runtime")


def _check_runtime_kind() -> None:
    kind = os.environ.get("FLYDSL_RUNTIME_KIND", "").strip().lower()
    if kind and kind != "emu":
        _fail(f"FLYDSL_RUNTIME_KIND={kind} asks for a real GPU runtime; the emulated GPU runs "
              "kernels on the emulator (unset it, or set it to emu)")


def activate() -> str:
    """Sets the process up as the plugin does, and returns the chip. For
    test runners other than pytest."""
    from . import torch_cuda

    _check_runtime_kind()
    _check_emulator()
    arch = _chosen_arch()
    os.environ["FLYDSL_RUNTIME_KIND"] = "emu"
    os.environ["ARCH"] = arch
    # flydsl.runtime.device.get_rocm_arch() answers for the emulated chip,
    # as it answers for the machine's GPU.
    os.environ["FLYDSL_GPU_ARCH"] = arch
    # FlyDSL's tests find fly-opt through FLYDSL_FLY_OPT: the one pip put on
    # PATH with the package.
    fly_opt = shutil.which("fly-opt")
    if fly_opt and not os.environ.get("FLYDSL_FLY_OPT"):
        os.environ["FLYDSL_FLY_OPT"] = fly_opt
    # FlyDSL's perf harness (tests/test_common.py) reads kernel times from
    # torch.profiler's device events, which an emulated launch has none of;
    # this switch of that harness makes it time with torch.cuda.Event
    # instead, which the emulated GPU has.
    os.environ.setdefault("FLYDSL_PERFTEST_USE_EVENTS", "1")
    try:
        torch_cuda.install(arch)
    except torch_cuda.EmulatedGPUError as err:
        _fail(str(err))
    return arch


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before the conftest files import: they may ask torch.cuda at import.
    activate()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    activate()  # again, for a plugin registered after the initial conftests


def pytest_report_header(config):
    from . import torch_cuda

    arch = torch_cuda.installed_arch()
    props = torch_cuda.device_properties(arch)
    return [f"flydsl emulated GPU: {arch} ({props.name}, wave {props.warp_size}); torch "
            "\"cuda\" tensors live in host memory; torch.cuda.Event times are host "
            "wall-clock time of the emulation"]
