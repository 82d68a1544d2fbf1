"""Which GPU this machine has, as FlyDSL's `flydsl.runtime.device` answers:
`get_rocm_arch()` and `is_rdna_arch(arch)`.

The arch comes from, in order: FLYDSL_GPU_ARCH, HSA_OVERRIDE_GFX_VERSION
(`11.0.0` is gfx1100), the first GPU agent of the machine, else gfx942 --
the default arch of compiler/env.py, which uses this for its default
target when ARCH is not set."""

from __future__ import annotations

import functools
import os
import sys

DEFAULT_ARCH = "gfx942"


def _override() -> str | None:
    text = os.environ.get("FLYDSL_GPU_ARCH") or os.environ.get("HSA_OVERRIDE_GFX_VERSION")
    if not text:
        return None
    text = text.strip().lower()
    if text.startswith("gfx"):
        return text
    parts = text.split(".")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        # HSA's major.minor.stepping: the stepping is a hex digit of the name
        return f"gfx{int(parts[0])}{int(parts[1])}{int(parts[2]):x}"
    return text


def _agent_timeout() -> float:
    text = os.environ.get("FLYDSL_ROCM_AGENT_TIMEOUT", "300")
    try:
        return float(text)
    except ValueError:
        from ..tracing.errors import FlyDSLError

        raise FlyDSLError(f"environment variable FLYDSL_ROCM_AGENT_TIMEOUT={text!r} is not "
                          "a number of seconds") from None


@functools.lru_cache(maxsize=None)
def _device_arch() -> str | None:
    """The first GPU agent's arch, or None without an AMD GPU driver (no
    /dev/kfd: nothing is asked, in microseconds) or a device."""
    if sys.platform.startswith("linux") and not os.path.exists("/dev/kfd"):
        return None
    try:
        import subprocess  # only on a machine with a GPU driver (10 ms to import)

        out = subprocess.run(["rocm_agent_enumerator", "-name"], capture_output=True,
                             text=True, timeout=_agent_timeout()).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        name = line.strip().split(":", 1)[0]
        if name.startswith("gfx") and name != "gfx000":
            return name
    return None


def get_rocm_arch() -> str:
    """The GPU arch of this machine, lower-case (e.g. "gfx942")."""
    return _override() or (_device_arch() or DEFAULT_ARCH).lower()


def is_rdna_arch(arch: str | None = None) -> bool:
    """Whether `arch` (default: get_rocm_arch()) is an RDNA chip (gfx10,
    gfx11, gfx120x: wave32 graphics parts). gfx1250 is wave32 too, but not
    RDNA."""
    if arch is None:
        arch = get_rocm_arch()
    if not isinstance(arch, str):
        from ..tracing.errors import ArgumentError
        from ..tracing.ir import user_location

        raise ArgumentError(f"is_rdna_arch(arch): a str or None, got {type(arch).__name__} "
                            f"{arch!r}", *user_location()[:2])
    arch = arch.lower()
    return arch.startswith(("gfx10", "gfx11", "gfx120"))


def get_warp_size(arch: str | None = None) -> int:
    """The wave size of `arch` (default: get_rocm_arch())."""
    from .. import _fly

    arch = (arch or get_rocm_arch()).lower()
    if arch in _fly.supported_chips():
        return _fly.chip_info(arch)["wave_size"]
    return 32 if arch.startswith(("gfx10", "gfx11", "gfx12")) else 64


__all__ = ["get_rocm_arch", "is_rdna_arch", "get_warp_size"]
