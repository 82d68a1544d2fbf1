"""Operations built from the primitives (FlyDSL's `fx.derived`): thread
slices of tiled copies and MMAs, thread-value layouts, tiled copies made
from a thread and a value layout or from a tiled MMA's operands, and
register tensors.
"""

from __future__ import annotations

from ..compiler.errors import TraceError
from ..compiler.ir import parse_type, user_location
from ..compiler.trace import builder
from ._core import emit
from .primitive import make_layout, make_tiled_copy
from .typing import CopyAtom, Layout, Tensor, ThrCopy, ThrMma, TiledCopy

__all__ = ["ThrCopy", "ThrMma", "make_layout_tv", "make_tiled_copy", "make_tiled_copy_tv", "make_tiled_copy_A",
           "make_tiled_copy_B", "make_tiled_copy_C", "make_rmem_tensor"]


def make_rmem_tensor(layout_or_shape, dtype):
    """A register tensor of `dtype` with this layout (a shape gets the
    compact column-major layout)."""
    layout = layout_or_shape if isinstance(layout_or_shape, Layout) else make_layout(layout_or_shape)
    if not layout.ir.type.is_static:
        raise TraceError("a register tensor needs a static layout", *user_location()[:2])
    t = parse_type(f"!fly.memref<{dtype.mlir_type}, register, "
                   f"{str(layout.ir.type)[len('!fly.layout<'):-1]}>")
    (v,) = builder().op("fly.memref.alloca", [], [t])
    return Tensor(v)


def make_layout_tv(thr: Layout, val: Layout):
    """(tile, thread-value layout) of make_layout_tv(thr, val)."""
    return emit("fly.make_layout_tv", thr, val)


def make_tiled_copy_tv(atom: CopyAtom, thr: Layout, val: Layout) -> TiledCopy:
    tile, layout_tv = make_layout_tv(thr, val)
    return make_tiled_copy(atom, layout_tv, tile)


def _tiled_copy_for(atom, mma, operand):
    t = emit("fly.make_tiled_copy_for", atom, mma, attrs=f'operand = "{operand}"')
    return TiledCopy(t.ir)


def make_tiled_copy_A(atom, mma): return _tiled_copy_for(atom, mma, "A")
def make_tiled_copy_B(atom, mma): return _tiled_copy_for(atom, mma, "B")
def make_tiled_copy_C(atom, mma): return _tiled_copy_for(atom, mma, "C")
