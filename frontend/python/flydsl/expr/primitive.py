"""The primitive operations of traced code (FlyDSL's `fx.primitive`):
the layout algebra (SPEC §2.3), tensors and views, atoms, tiled copies and
MMAs, and the copy/gemm algorithms.

Each function emits the Fly op of the same name on its (lifted) operands,
with the result type C++ infers; `copy` and `gemm` emit `fly.copy` /
`fly.gemm`, which the compiler expands into atom calls.
"""

from __future__ import annotations

from ..compiler.errors import TraceError
from ..compiler.ir import parse_type, user_location
from ..compiler.trace import builder
from . import _core
from . import numeric as nm
from ._core import emit, int_tuple, tile, wrap
from ._printf import printf
from .typing import ComposedLayout, CopyAtom, Layout, MmaAtom, Swizzle, Tensor, TiledCopy, TiledMma

__all__ = [
    "range_constexpr", "const_expr", "printf",
    # layouts and the algebra
    "make_int_tuple", "make_tile", "make_layout", "make_ordered_layout", "make_identity_layout", "make_layout_like",
    "make_identity_tensor", "make_view", "get", "slice", "crd2idx", "idx2crd", "size",
    "cosize", "rank", "depth", "elem_less", "composition", "logical_divide", "zipped_divide",
    "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
    "flat_product", "blocked_product", "raked_product", "coalesce", "complement",
    "right_inverse", "left_inverse", "coshape", "make_fragment_like", "make_swizzle",
    "make_composed_layout", "get_dyn_shared",
    # atoms and algorithms
    "UniversalCopy", "UniversalCopy8b", "UniversalCopy16b", "UniversalCopy32b",
    "UniversalCopy64b", "UniversalCopy128b", "UniversalAtomic", "UniversalFMA",
    "make_copy_atom", "make_mma_atom", "make_tiled_copy", "make_tiled_mma", "copy", "gemm",
]


def range_constexpr(*args):
    """A loop unrolled at trace time (a plain Python range)."""
    return range(*args)


def const_expr(x):
    """A condition evaluated at trace time."""
    return x


# -- the algebra (SPEC §2.3) --------------------------------------------------

def make_int_tuple(elems):
    """An int tuple from ints, dynamic integers, None and nested tuples."""
    return int_tuple(elems)


def make_tile(*args):
    """A tiler: ints, None (`*`, keep) and static layouts, one per mode."""
    return tile(args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args)


def make_layout(shape, stride=None):
    if stride is None:
        return emit("fly.make_layout", shape)
    return emit("fly.make_layout", shape, stride)


def make_ordered_layout(shape, order):
    return emit("fly.make_ordered_layout", shape, order)


def make_identity_layout(shape):
    return emit("fly.make_identity_layout", shape)


def make_layout_like(layout):
    return emit("fly.make_layout_like", layout)


def make_identity_tensor(shape):
    """The coordinate tensor whose value at c is c."""
    shape = int_tuple(shape)
    zero = int_tuple(tuple(0 for _ in range(len(shape)))) if isinstance(shape.value, tuple) else int_tuple(0)
    return make_view(zero, make_identity_layout(shape))


def make_view(iterator, layout):
    return emit("fly.make_view", iterator, layout)


def get(t, i):
    return _core.mode(t, i)


def slice_(t, coord):
    return emit("fly.slice", t, coord)


def crd2idx(coord, layout):
    return emit("fly.crd2idx", coord, layout)


def idx2crd(index, layout):
    return emit("fly.idx2crd", index, layout)


def size(x, mode=None):
    s = emit("fly.size", x if mode is None else get(x, mode))
    return s.value if isinstance(s.value, int) else s


def cosize(x):
    return emit("fly.cosize", x)


def rank(x):
    return emit("fly.rank", x).value


def depth(x):
    return emit("fly.depth", x).value


def elem_less(a, b):
    """1 (as a dynamic Boolean) when a < b in every mode."""
    r = emit("fly.elem_less", a, b)
    v = r.to_scalar()
    return bool(v) if isinstance(v, int) else (v != 0)


def _algebra(name):
    def f(a, b):
        return emit(f"fly.{name}", a, tile(b) if isinstance(b, (tuple, list)) else b)
    f.__name__ = name
    return f


def _unary(name):
    def f(a):
        return emit(f"fly.{name}", a)
    f.__name__ = name
    return f


composition = _algebra("composition")
logical_divide = _algebra("logical_divide")
zipped_divide = _algebra("zipped_divide")
tiled_divide = _algebra("tiled_divide")
flat_divide = _algebra("flat_divide")
logical_product = _algebra("logical_product")
zipped_product = _algebra("zipped_product")
tiled_product = _algebra("tiled_product")
flat_product = _algebra("flat_product")
blocked_product = _algebra("blocked_product")
raked_product = _algebra("raked_product")
coalesce = _unary("coalesce")
complement = _unary("complement")
right_inverse = _unary("right_inverse")
left_inverse = _unary("left_inverse")
coshape = _unary("coshape")


def make_fragment_like(t, dtype=None):
    attrs = f"element_type = {dtype.mlir_type}" if dtype is not None else ""
    return emit("fly.make_fragment_like", t, attrs=attrs)


def make_swizzle(bits: int, base: int, shift: int) -> Swizzle:
    """CuTe's Swizzle<bits, base, shift> (on element indices in a composed
    layout)."""
    (v,) = builder().op("fly.static", [], [parse_type(f"!fly.swizzle<S<{bits},{base},{shift}>>")])
    return Swizzle(v)


def make_composed_layout(inner, offset, outer) -> ComposedLayout:
    """inner(offset + outer(c)): a swizzle (or layout) after a layout."""
    return emit("fly.make_composed_layout", inner, offset, outer)


# -- target-neutral operations (SPEC §4) ---------------------------------------

class CopyOp:
    """A copy operation type: `UniversalCopy(bits)`, `UniversalAtomic(op, T)`."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def UniversalCopy(bits: int) -> CopyOp:
    if bits not in (8, 16, 32, 64, 128):
        raise TraceError(f"UniversalCopy moves 8, 16, 32, 64 or 128 bits, not {bits}",
                         *user_location()[:2])
    return CopyOp(f"!fly.universal_copy<{bits}>")


def UniversalCopy8b(): return UniversalCopy(8)
def UniversalCopy16b(): return UniversalCopy(16)
def UniversalCopy32b(): return UniversalCopy(32)
def UniversalCopy64b(): return UniversalCopy(64)
def UniversalCopy128b(): return UniversalCopy(128)


def UniversalAtomic(op: str, dtype) -> CopyOp:
    return CopyOp(f"!fly.universal_atomic<{op}, {dtype.mlir_type}>")


class MmaOp:
    def __init__(self, text: str):
        self.text = text


def UniversalFMA(d, a=None, b=None, c=None) -> MmaOp:
    """d = a * b + c by one thread; one type for all four, or four types."""
    if a is None:
        return MmaOp(f"!fly.universal_fma<{d.mlir_type}>")
    return MmaOp(f"!fly.universal_fma<{d.mlir_type}, {a.mlir_type}, {b.mlir_type}, {c.mlir_type}>")


def _static(type_text: str):
    (v,) = builder().op("fly.static", [], [parse_type(type_text)])
    return wrap(v)


def make_copy_atom(op: CopyOp, dtype) -> "CopyAtom":
    bits = nm.numeric_class(dtype.mlir_type).bits if hasattr(dtype, "mlir_type") else int(dtype)
    return CopyAtom(_static(f"!fly.copy_atom<{op.text}, {bits}>").ir)


def make_mma_atom(op: MmaOp) -> "MmaAtom":
    return MmaAtom(_static(f"!fly.mma_atom<{op.text}>").ir)


def make_tiled_copy(atom: CopyAtom, layout_tv: Layout, tile) -> TiledCopy:
    t = emit("fly.make_tiled_copy", atom, layout_tv, _core.tile(tile) if isinstance(tile, (tuple, list)) else tile)
    return TiledCopy(t.ir)


def make_tiled_mma(atom: MmaAtom, atom_layout: Layout, permutation=None) -> TiledMma:
    operands = [atom, atom_layout]
    if permutation is not None:
        operands.append(_core.tile(permutation))
    t = emit("fly.make_tiled_mma", *operands)
    return TiledMma(t.ir)


# -- algorithms -------------------------------------------------------------------

def copy(atom, src: Tensor, dst: Tensor, pred: Tensor | None = None) -> None:
    """CuTe's copy / copy_if: `pred` holds one flag per slice of src's rest
    modes."""
    operands = [atom.ir, src.ir, dst.ir] + ([pred.ir] if pred is not None else [])
    builder().op("fly.copy", operands)


def gemm(atom, d: Tensor, a: Tensor, b: Tensor, c: Tensor) -> None:
    builder().op("fly.gemm", [atom.ir, d.ir, a.ir, b.ir, c.ir])


def get_dyn_shared(dtype, align: int = 16) :
    """A pointer to the start of the dynamic LDS, as elements of `dtype`."""
    (v,) = builder().op("fly.get_dyn_shared", [],
                        [parse_type(f"!fly.ptr<{dtype.mlir_type}, shared, align<{align}>>")])
    return wrap(v)


slice = slice_  # noqa: A001 - FlyDSL's name of fly.slice
