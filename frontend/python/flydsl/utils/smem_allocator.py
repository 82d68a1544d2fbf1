"""FlyDSL's LDS capacity check (`flydsl.utils.smem_allocator`): the bytes
of shared memory one workgroup may use on each supported chip, from the
compiler's chip table. Kernels allocate LDS with fx.SharedAllocator."""

from __future__ import annotations

from .. import _fly

SMEM_CAPACITY_MAP = {chip: _fly.chip_info(chip)["lds_bytes_per_workgroup"]
                     for chip in _fly.supported_chips()}


def check_smem_capacity(allocated_bytes: int, arch: str | None = None) -> None:
    """RuntimeError when `allocated_bytes` exceed a workgroup's LDS on
    `arch` (no check without an arch, or for a chip outside the table)."""
    limit = SMEM_CAPACITY_MAP.get(str(arch)) if arch is not None else None
    if limit is not None and allocated_bytes > limit:
        raise RuntimeError(f"shared memory overflow: {allocated_bytes} bytes requested, but a "
                           f"workgroup on {arch} has {limit} bytes of LDS")
