"""FlyDSL: a Python DSL for AMD GPU kernels with CuTe-style layouts.

    import flydsl.compiler as flyc
    import flydsl.expr as fx
    from flydsl import Config, autotune
"""

__version__ = "0.1.0"

from .autotune import Config as Config, autotune as autotune  # noqa: E402

__all__ = ["__version__"]
