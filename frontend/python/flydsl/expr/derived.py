"""Operations built from the primitives (FlyDSL's `fx.derived`): thread
slices of tiled copies and MMAs, thread-value layouts, tiled copies made
from a thread and a value layout or from a tiled MMA's operands, register
tensors, and the indexed copies gather/scatter.
"""

from __future__ import annotations

from . import numeric as nm
from ._core import emit, expect, fail, int_tuple
from ._ir_types import AddressSpace, MemRefType, MmaOperand
from ._late import provide
from .primitive import (copy, get_iter, get_layout, group, make_layout, make_ordered_layout,
                        make_tiled_copy, make_view, memref_alloca, prepend, rank, size,
                        tiled_copy_partition_dst, tiled_copy_partition_src, tiled_copy_retile,
                        tiled_mma_partition)
from .typing import Layout, TiledCopy, TiledMma

__all__ = ["ThrCopy", "ThrMma", "make_rmem_tensor", "make_layout_tv", "make_tiled_copy_tv",
           "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
           "gather", "scatter"]


def _thread_index(thr_idx):
    if isinstance(thr_idx, nm.Numeric) and not isinstance(thr_idx, nm.Vector):
        return thr_idx if thr_idx.mlir_type in ("i32", "i64") else nm.convert(thr_idx, nm.Int32)
    return int_tuple(thr_idx)


class ThrCopy(TiledCopy):
    """Thread thr_idx's view of a tiled copy (TiledCopy.get_slice)."""

    def __init__(self, tiled_copy: TiledCopy, thr_idx):
        tiled_copy = expect("ThrCopy", "tiled_copy", tiled_copy, ("tiled_copy",))
        super().__init__(tiled_copy.ir)
        self.tiled_copy = tiled_copy
        self._thr_idx = thr_idx
        self._thr = _thread_index(thr_idx)

    @property
    def thr_idx(self):
        return self._thr_idx

    def partition_S(self, src):
        """The source elements this thread moves: ((AtomV,RestV), RestM, RestN, ...)."""
        return tiled_copy_partition_src(self.tiled_copy, src, self._thr)

    def partition_D(self, dst):
        """The destination elements this thread moves."""
        return tiled_copy_partition_dst(self.tiled_copy, dst, self._thr)

    def retile(self, t):
        return tiled_copy_retile(self.tiled_copy, t)


class ThrMma(TiledMma):
    """Thread thr_idx's view of a tiled MMA (TiledMma.get_slice)."""

    def __init__(self, tiled_mma: TiledMma, thr_idx):
        tiled_mma = expect("ThrMma", "tiled_mma", tiled_mma, ("tiled_mma",))
        super().__init__(tiled_mma.ir)
        self.tiled_mma = tiled_mma
        self._thr_idx = thr_idx
        self._thr = _thread_index(thr_idx)

    @property
    def thr_idx(self):
        return self._thr_idx

    def partition_A(self, a):
        return tiled_mma_partition(MmaOperand.A, self.tiled_mma, a, self._thr)

    def partition_B(self, b):
        return tiled_mma_partition(MmaOperand.B, self.tiled_mma, b, self._thr)

    def partition_C(self, c):
        return tiled_mma_partition(MmaOperand.C, self.tiled_mma, c, self._thr)


def make_rmem_tensor(shape_or_layout, dtype):
    """A register tensor of dtype with this layout (a shape gets the
    compact column-major layout)."""
    if not (isinstance(dtype, type) and issubclass(dtype, nm.Numeric)):
        fail("make_rmem_tensor", f"argument 'dtype' must be a numeric type (fx.Float32, ...), "
                                 f"not {dtype!r}")
    if isinstance(shape_or_layout, Layout):
        layout = shape_or_layout
    else:
        layout = make_ordered_layout(shape_or_layout, 0) if not isinstance(
            shape_or_layout, (tuple, list)) else make_layout(shape_or_layout)
    if not layout.ir.type.is_static:
        fail("make_rmem_tensor", "a register tensor needs a static layout")
    return memref_alloca(MemRefType.get(dtype, layout.ir.type, AddressSpace.Register), layout)


def make_layout_tv(thr_layout, val_layout):
    """(tile sizes, thread-value layout) of a thread layout and a value
    layout: raked_product(thr, val) seen as (thread, value) -> index."""
    thr = expect("make_layout_tv", "thr_layout", thr_layout, ("layout",))
    val = expect("make_layout_tv", "val_layout", val_layout, ("layout",))
    for name, x in (("thr_layout", thr), ("val_layout", val)):
        if not x.ir.type.is_static:
            fail("make_layout_tv", f"argument '{name}' must be a static layout")
    tile, layout_tv = emit("fly.make_layout_tv", thr, val)
    return tile.unpack(), layout_tv


def make_tiled_copy_tv(atom, thr_layout, val_layout):
    """A tiled copy of atom over make_layout_tv(thr_layout, val_layout)."""
    tile, layout_tv = make_layout_tv(thr_layout, val_layout)
    return make_tiled_copy(atom, layout_tv, tile)


def _tiled_copy_for(api, copy_atom, tiled_mma, operand):
    atom = expect(api, "copy_atom", copy_atom, ("copy_atom",))
    mma = expect(api, "tiled_mma", tiled_mma, ("tiled_mma",))
    return emit("fly.make_tiled_copy_for", atom, mma, attrs=f'operand = "{operand}"')


def make_tiled_copy_A(copy_atom, tiled_mma):
    """A tiled copy laid out like operand A of tiled_mma."""
    return _tiled_copy_for("make_tiled_copy_A", copy_atom, tiled_mma, "A")


def make_tiled_copy_B(copy_atom, tiled_mma):
    """A tiled copy laid out like operand B of tiled_mma."""
    return _tiled_copy_for("make_tiled_copy_B", copy_atom, tiled_mma, "B")


def make_tiled_copy_C(copy_atom, tiled_mma):
    """A tiled copy laid out like operand C of tiled_mma."""
    return _tiled_copy_for("make_tiled_copy_C", copy_atom, tiled_mma, "C")


# -- gather / scatter ---------------------------------------------------------------------

def _indexed_calls(api, offset_tensor, operand, pred):
    """(offset, operand slice, pred slice) of each atom call: the offset
    tensor is (TV, Rest...), the operand ((AtomV, TV), Rest...), the
    predicate (TV, Rest...)."""
    offset_tensor = expect(api, "offset_tensor", offset_tensor, ("memref", "coord_tensor"))
    operand = expect(api, "operand", operand, ("memref",))
    offset_rank = rank(offset_tensor)
    if pred is not None:
        pred = expect(api, "pred", pred, ("memref",))
        # One flag per call: a unit mode in front, like the operand's AtomV.
        pred = make_view(get_iter(pred), prepend(get_layout(pred), make_layout(1, 0)))
    tv = offset_tensor.shape[0].unpack()
    if not isinstance(tv, int):
        fail(api, "the TV mode of offset_tensor must be static")
    if offset_rank == 1:
        for v in range(tv):
            yield (offset_tensor[v], operand[None, v],
                   None if pred is None else pred[None, v])
        return
    offsets = group(offset_tensor, 1, offset_rank)
    operand = group(operand, 1, rank(operand))
    if pred is not None:
        pred = group(pred, 2, rank(pred))
    rest = size(offsets.shape[1]).unpack()
    if not isinstance(rest, int):
        fail(api, "the rest modes of offset_tensor must be static")
    for v in range(tv):
        for i in range(rest):
            yield (offsets[v, i], operand[(None, v), i],
                   None if pred is None else pred[None, v, i])


def gather(copy_atom, base_iter, offset_tensor, dst_tensor, *, pred=None):
    """dst_tensor = base_iter[offset_tensor]: for each (v, rest) call, the
    atom's source values at base_iter + offset_tensor[v, rest] (laid out as
    the atom's source value layout) into dst_tensor[(None, v), rest]."""
    atom = expect("gather", "copy_atom", copy_atom, ("copy_atom",))
    expect("gather", "base_iter", base_iter, ("ptr",))
    src_layout = atom.layout_src_tv[1]
    for off, dst_v, pred_v in _indexed_calls("gather", offset_tensor, dst_tensor, pred):
        copy(atom, make_view(base_iter + off, src_layout), dst_v, pred=pred_v)


def scatter(copy_atom, src_tensor, base_iter, offset_tensor, *, pred=None):
    """base_iter[offset_tensor] = src_tensor: for each (v, rest) call,
    src_tensor[(None, v), rest] to the atom's destination values at
    base_iter + offset_tensor[v, rest]."""
    atom = expect("scatter", "copy_atom", copy_atom, ("copy_atom",))
    expect("scatter", "base_iter", base_iter, ("ptr",))
    dst_layout = atom.layout_dst_tv[1]
    for off, src_v, pred_v in _indexed_calls("scatter", offset_tensor, src_tensor, pred):
        copy(atom, src_v, make_view(base_iter + off, dst_layout), pred=pred_v)


provide(ThrCopy=ThrCopy, ThrMma=ThrMma)
