"""WMMA: RDNA3, RDNA4 and gfx1250 matrix operations."""

__all__: list = []
