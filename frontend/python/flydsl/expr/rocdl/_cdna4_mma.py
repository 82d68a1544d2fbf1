"""gfx950's scaled MFMA (fx.rocdl.cdna4.MFMA_Scale)."""

__all__: list = []
