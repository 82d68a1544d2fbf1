"""FlyDSL's namespace for AMD-specific overrides of `fx.random`: it has
none (`__all__` is empty), so every name runs the portable form of
`flydsl.extension.random.universal`."""

__all__: list[str] = []
