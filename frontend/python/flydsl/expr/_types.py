"""The numeric side of `fx.typing`: MLIR type handles (`T`, `Types`), the
vector aliases (`Float32x4`, ...) and value constructors (`full`,
`zeros_like`, ...); re-exported by `typing`."""

from __future__ import annotations

__all__: list[str] = []
