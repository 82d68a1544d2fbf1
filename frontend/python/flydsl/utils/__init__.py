"""Helpers of the package that depend on nothing else in it (FlyDSL's
`flydsl.utils`): `file.atomic_write`, `log()` (the "flydsl" logger, which
FLYDSL_DEBUG_LOG_LEVEL and friends configure: flydsl.compiler.env) and
`smem_allocator`'s LDS capacity check."""

import logging


def log() -> logging.Logger:
    """The package's logger ("flydsl")."""
    return logging.getLogger("flydsl")


__all__ = ["log"]
