"""gfx950's async LDS loads and LDS transpose reads (fx.rocdl.cdna4)."""

__all__: list = []
