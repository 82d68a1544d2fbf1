"""FlyDSL: a Python DSL for AMD GPU kernels with CuTe-style layouts.

    import flydsl.compiler as flyc
    import flydsl.expr as fx
"""

__version__ = "0.1.0"
