"""fx.rocdl.rdna4: what RDNA4 (gfx12) has of its own."""

from ._waitcnt import rdna4_s_waitcnt as s_waitcnt  # noqa: F401

__all__ = ["s_waitcnt"]
