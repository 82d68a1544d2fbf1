"""fx.utils: helpers outside the traced API (FlyDSL's module path):
`print_typst`, a layout picture as Typst source, and `arith`, FlyDSL's
raw-value arithmetic (ArithValue). `print_typst` is imported on first use:
fx.arith imports this package, and importing fx needs no picture code."""

__all__ = ["print_typst"]


def __getattr__(name: str):
    if name == "print_typst":
        from .print_typst import print_typst

        globals()["print_typst"] = print_typst
        return print_typst
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
