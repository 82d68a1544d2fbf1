"""FlyDSL's `flydsl.expr.rocdl.universal` path: the fx.rocdl operations
available on every ROCm chip family (buffer copies, pointers and tensors,
MFMA / WMMA atoms, waits). The names are fx.rocdl's own objects."""

from ._buffer import (BufferAtomic, BufferCopy, BufferCopyLDS, get_buffer_rsrc,  # noqa: F401
                      make_buffer_ptr, make_buffer_tensor)
from ._mfma import MFMA  # noqa: F401
from ._sched import asyncmark, s_waitcnt, wait_asyncmark  # noqa: F401
from ._wmma import WMMA  # noqa: F401

__all__ = ["s_waitcnt", "asyncmark", "wait_asyncmark", "BufferCopy", "BufferCopyLDS",
           "BufferAtomic", "MFMA", "WMMA", "make_buffer_ptr", "make_buffer_tensor",
           "get_buffer_rsrc"]
