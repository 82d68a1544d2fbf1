"""fx.utils: helpers outside the traced API (FlyDSL's module path):
`print_typst`, a layout picture as Typst source."""

from .print_typst import print_typst

__all__ = ["print_typst"]
