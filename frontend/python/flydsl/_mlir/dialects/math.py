"""The math dialect (generated builders: `math.exp2(x)`, ...)."""

from ._math_ops_gen import *  # noqa: F401,F403
from ._math_ops_gen import _Dialect  # noqa: F401
