"""Helpers of the package that depend on nothing else in it (FlyDSL's
`flydsl.utils`): `file.atomic_write` and `log()` (the "flydsl" logger, which
FLYDSL_DEBUG_LOG_LEVEL and friends configure: flydsl.compiler.env).
(`smem_allocator`, FlyDSL's LDS capacity check and legacy LDS allocator,
builds IR: it belongs to fx's layer and is not imported here.)"""

import logging


def log() -> logging.Logger:
    """The package's logger ("flydsl")."""
    return logging.getLogger("flydsl")


__all__ = ["log"]
