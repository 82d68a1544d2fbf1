"""Which runtime a call runs on (HIP or the CPU emulator), decided before
compiling, and installing it."""

from __future__ import annotations

import os
import sys

from .. import _fly
from ..tracing.errors import FlyDSLError


_hip_problem: list = []  # why HIP cannot run kernels here, once known


def target_runtime(env) -> str:
    """"hip" or "emu": what a call will run on, decided before compiling
    (the emulator needs its own artifact). FLYDSL_RUNTIME_KIND says; by
    default HIP when it has a device, else the CPU emulator; COMPILE_ONLY
    compiles for the chip unless the emulator is asked for."""
    if env.runtime_kind is not None:
        return env.runtime_kind
    if env.compile_only:
        return "hip"
    if not _hip_problem:
        if (sys.platform.startswith("linux") and not os.path.exists("/dev/kfd")
                and not os.environ.get("FLYDSL_HIP_LIBRARY")):
            # No AMD GPU driver: no device, without the ~15 ms of loading
            # and initialising HIP to learn it.
            _hip_problem.append("no HIP device (no /dev/kfd: no AMD GPU driver)")
        else:
            status = _fly.hip_runtime_status()
            _hip_problem.append("" if status.get("device_count")
                                else status.get("error") or "no HIP device")
    return "emu" if _hip_problem[0] else "hip"


def ensure_runtime(env, kind: str) -> None:
    """Installs the runtime of `kind` unless one is installed (the tests'
    launch-table doubles, or an earlier call)."""
    if _fly.launch_table():
        return
    if kind == "emu":
        _fly.install_emu_runtime()
        return
    try:
        _fly.install_hip_runtime()
    except _fly.Error as err:
        raise FlyDSLError(f"no runtime: FLYDSL_RUNTIME_KIND=hip, but {err}"
                          if env.runtime_kind == "hip" else f"no runtime: {err}") from None
