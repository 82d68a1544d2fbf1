"""fx.rocdl's enums (SyncScope)."""

__all__: list = []
