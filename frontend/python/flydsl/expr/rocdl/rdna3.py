"""fx.rocdl.rdna3: what RDNA3 (gfx11) has of its own."""

from ._waitcnt import rdna3_s_waitcnt as s_waitcnt  # noqa: F401

__all__ = ["s_waitcnt"]
