"""fx.rocdl: the ROCm atoms and instructions, in FlyDSL's layout (SPEC §4,
§7). Copy operations (buffer copies and atomics through buffer resources,
buffer loads to LDS, gfx1250's tensor data mover), matrix operations (MFMA
on CDNA, WMMA on RDNA and gfx1250), buffer tensors and pointers, and the
scheduling and waiting instructions; the per-family namespaces (`cdna3`,
`cdna4`, `rdna3`, `rdna4`, `cdna5` for gfx1250) and `tdm_ops` hold what
only that family has. Each operation is a type of the compiler's fly_rocdl
dialect: fx.make_copy_atom / fx.make_mma_atom take it like the universal
ones, and an operation the target chip lacks is a located error naming the
chips that have it."""

# isort: skip_file
from ._enum import *  # noqa: F401,F403
from ._buffer import *  # noqa: F401,F403
from ._mfma import *  # noqa: F401,F403
from ._wmma import *  # noqa: F401,F403
from ._sched import *  # noqa: F401,F403
from . import cdna3, cdna4, rdna3, rdna4  # noqa: F401
# gfx1250 (FlyDSL's `cdna5`, outside fx.rocdl's __all__ there too): its
# names are also fx.rocdl's, as FlyDSL star-imports them.
from . import cdna5, tdm_ops  # noqa: F401
from .cdna5 import *  # noqa: F401,F403
# The packed fp8 / fp4 conversions: fx.rocdl names outside its __all__.
from ._cvt import (cvt_pk_fp8_f32, cvt_pk_bf8_f32, cvt_pk_f32_fp8, cvt_pk_f32_bf8,  # noqa: F401
                   cvt_f32_fp8, cvt_f32_bf8, cvt_scalef32_pk_f32_fp4,
                   cvt_scalef32_pk_bf16_fp4, cvt_scalef32_pk_fp4_f32)

from . import _buffer, _enum, _mfma, _sched, _wmma

__all__ = ["cdna3", "cdna4", "rdna3", "rdna4"] + [
    name for module in (_enum, _buffer, _mfma, _wmma, _sched) for name in module.__all__]
