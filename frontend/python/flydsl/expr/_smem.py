"""The LDS (shared memory) of the traced kernel: fx.SharedAllocator.

    lds = fx.SharedAllocator().allocate(SharedStorage).peek()

`SharedAllocator(static=True)` (the default, like `__shared__` in HIP)
gives every leaf it allocates (a numeric, an Array, a union; a struct is
allocated field by field) an LDS global of its own in the kernel's
gpu.module: the compiler lays them out, the launch needs no `smem=`.
`SharedAllocator(static=False)` (like `extern __shared__`) carves its
Storage out of the dynamic LDS (`fly.get_dyn_shared`) at increasing aligned
offsets; a launch without `smem=` provides `allocated_bytes`, a launch with
`smem=` must give at least that. A kernel has at most one dynamic allocator
(two would hand out the same bytes).

`allocate_tensor(dtype, layout)` (an addition to FlyDSL's API, for the
common case of one shared tile) is `allocate(Array[dtype, cosize(layout)])`
viewed with `layout`.
"""

from __future__ import annotations

import math

from ..tracing.ir import parse_type
from ..tracing.signature import is_constexpr
from ..tracing.trace import builder
from . import numeric as nm
from ._core import wrap
from ._elementwise import fail
from ._late import provide
from .primitive import cosize, get_dyn_shared, make_view
from .typing import ComposedLayout, Layout
from .struct import (Arena, CompositeKind, Storage, align_of, is_composite_type, is_struct_type,
                     retype, size_of)


def _static_lds(record, nbytes: int, align: int):
    """A byte pointer to a new LDS global of the kernel being traced."""
    symbol = record.add_static_lds(nbytes, align)
    b = builder()
    (raw,) = b.op("llvm.mlir.addressof", [], [parse_type("!llvm.ptr<3>")],
                  f"global_name = @{symbol}")
    (ptr,) = b.op("fly.make_ptr", [raw], [parse_type(f"!fly.ptr<i8, shared, align<{align}>>")])
    return wrap(ptr)


class SharedAllocator(Arena):
    """LDS for the kernel being traced, as typed Storage (see the module)."""

    def __init__(self, base_alignment: int = Arena.DEFAULT_BASE_ALIGNMENT, *, static: bool = True):
        from ..tracing.trace import KernelTrace

        super().__init__(base_alignment)
        record = KernelTrace.current()
        if record is None:
            fail("fx.SharedAllocator is created inside a @flyc.kernel body")
        self._record = record
        self._static = bool(static)
        self._base = None
        if not self._static:
            if record.dynamic_smem is not None:
                fail(f"kernel {record.name} already has a SharedAllocator(static=False); "
                     "allocate everything of the dynamic LDS from that one")
            record.dynamic_smem = self
            self._base = get_dyn_shared(nm.Uint8, base_alignment)

    @property
    def is_static(self) -> bool:
        return self._static

    @property
    def base_ptr(self):
        if self._static:
            fail("SharedAllocator(static=True) has no base pointer: each allocation is an LDS "
                 "global of its own (use static=False for one dynamic LDS block)")
        return self._base

    def allocate(self, storable_or_int, alignment=None):
        """`Storage[T]` in LDS for a storable type T, or
        `Storage[Array[Uint8, n]]` for n bytes."""
        if not self._static:
            return super().allocate(storable_or_int, alignment)
        t, nbytes, align = self._request(storable_or_int, alignment)
        self._bump(nbytes, align)
        if isinstance(storable_or_int, int):
            return Storage[t](_static_lds(self._record, nbytes, align))
        return self._static_tree(t, align)

    def _static_tree(self, t, align=None):
        """Storage of `t` over globals of its own: a struct field by field,
        a union or any other type as one."""
        if is_struct_type(t):
            return Storage[t](None, prebuilt={
                n: self._static_tree(ft) for n, ft in t.__dsl_fields__ if not is_constexpr(ft)})
        ptr = _static_lds(self._record, size_of(t), align or align_of(t))
        if is_composite_type(t) and t.__dsl_composite_kind__ is CompositeKind.Sum:
            return Storage[t](ptr, prebuilt={
                n: Storage[ft](ptr) for n, ft in t.__dsl_fields__ if not is_constexpr(ft)})
        return Storage[t](ptr)

    def allocate_tensor(self, dtype, layout, align: int = 16):
        """A shared tensor of `dtype` with the static `layout` (a layout or a
        composed, e.g. swizzled, layout), `align`-byte aligned."""
        if not isinstance(layout, (Layout, ComposedLayout)) or not layout.ir.type.is_static:
            fail("SharedAllocator.allocate_tensor: the layout must be a static Layout or "
                 "ComposedLayout")
        if not isinstance(dtype, type) or not issubclass(dtype, nm.Numeric) or dtype is nm.Vector:
            fail(f"SharedAllocator.allocate_tensor: dtype must be a numeric type, not {dtype!r}")
        # For a composed (swizzled) layout, fly.cosize visits every element:
        # the tile takes exactly the indices its function reaches.
        elements = cosize(layout).value
        nbytes = max(1, math.ceil(elements * dtype.bits / 8))
        storage = self.allocate(nbytes, max(align, max(1, dtype.bits // 8)))
        return make_view(retype(storage._ptr, dtype), layout)


provide(static_lds=_static_lds)
