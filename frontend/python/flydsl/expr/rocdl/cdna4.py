"""fx.rocdl.cdna4: what CDNA4 (gfx950) adds: the async LDS loads, LDS
transpose reads, the scaled MFMA and stochastic-rounding conversions."""

# isort: skip_file
from ._cdna4_copy import *  # noqa: F401,F403
from ._cdna4_copy import (  # noqa: F401
    LDSReadTrans4_64b, LDSReadTrans6_96b, LDSReadTrans8_64b, LDSReadTrans16_64b)
from ._cdna4_mma import *  # noqa: F401,F403
from ._cdna4_misc import *  # noqa: F401,F403
from . import _cdna4_copy, _cdna4_misc, _cdna4_mma

__all__ = _cdna4_copy.__all__ + _cdna4_mma.__all__ + _cdna4_misc.__all__
