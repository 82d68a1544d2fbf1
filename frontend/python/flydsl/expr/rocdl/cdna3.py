"""fx.rocdl.cdna3: what CDNA3 (gfx942) has of its own."""

from ._waitcnt import cdna3_s_waitcnt as s_waitcnt  # noqa: F401

__all__ = ["s_waitcnt"]
