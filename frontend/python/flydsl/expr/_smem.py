"""Shared memory (LDS) of the traced kernel.

The kernel's shared tensors live in its dynamic LDS (`fly.get_dyn_shared`),
carved out by a SharedAllocator: each `allocate_tensor` takes the next
aligned piece. The launch must provide `allocator.size` bytes
(`.launch(smem=...)`).
"""

from __future__ import annotations

import math

from ..compiler.errors import TraceError
from ..compiler.ir import user_location
from ._core import emit, int_tuple
from .primitive import cosize, get_dyn_shared, make_view
from .typing import ComposedLayout, Layout


class SharedAllocator:
    """Hands out consecutive, aligned pieces of the dynamic LDS."""

    def __init__(self, align: int = 16):
        self.align = align
        self.size = 0  # bytes handed out so far

    def allocate_tensor(self, dtype, layout, align: int = 16):
        """A shared tensor of `dtype` with `layout` (a static layout or
        composed layout), `align`-byte aligned."""
        if not isinstance(layout, (Layout, ComposedLayout)) or not layout.ir.type.is_static:
            raise TraceError("a shared tensor needs a static layout", *user_location()[:2])
        # For a composed (swizzled) layout, fly.cosize visits every element:
        # the tile takes exactly the indices its function reaches.
        elements = cosize(layout).value
        bits = getattr(dtype, "bits", 8)
        offset = -(-self.size // align) * align
        self.size = offset + math.ceil(elements * bits / 8)
        base = get_dyn_shared(dtype, max(self.align, align))
        if offset:
            if (offset * 8) % bits:
                raise TraceError("a shared tensor at an offset that is not a whole element",
                                 *user_location()[:2])
            base = emit("fly.add_offset", base, int_tuple(offset * 8 // bits))
        return make_view(base, layout)

