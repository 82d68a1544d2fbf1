"""MLIR's Python extras: `types` (type constructors by name)."""
