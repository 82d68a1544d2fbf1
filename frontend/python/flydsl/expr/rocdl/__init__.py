"""fx.rocdl: the ROCm atoms and instructions, in FlyDSL's layout (SPEC §4,
§7). Copy operations (buffer copies and atomics through buffer resources,
buffer loads to LDS), matrix operations (MFMA on CDNA, WMMA on RDNA and
gfx1250), buffer tensors and pointers, and the scheduling and waiting
instructions; the per-family namespaces (`cdna3`, `cdna4`, `rdna3`,
`rdna4`) hold what only that family has. Each operation is a type of the
compiler's fly_rocdl dialect: fx.make_copy_atom / fx.make_mma_atom take it
like the universal ones, and an operation the target chip lacks is a
located error naming the chips that have it."""

# isort: skip_file
from ._enum import *  # noqa: F401,F403
from ._buffer import *  # noqa: F401,F403
from ._mfma import *  # noqa: F401,F403
from ._wmma import *  # noqa: F401,F403
from ._sched import *  # noqa: F401,F403
from . import cdna3, cdna4, rdna3, rdna4  # noqa: F401

from . import _buffer, _enum, _mfma, _sched, _wmma

__all__ = ["cdna3", "cdna4", "rdna3", "rdna4"] + [
    name for module in (_enum, _buffer, _mfma, _wmma, _sched) for name in module.__all__]
