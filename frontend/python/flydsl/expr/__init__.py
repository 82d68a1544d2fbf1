"""flydsl.expr (fx): the target-neutral API of traced code (SPEC §7)."""

from ..compiler.signature import Constexpr, Stream
from .algebra import (ComposedLayout, IntTuple, Layout, Swizzle, Tensor, Tile,
                      blocked_product, coalesce, complement, composition, coshape,
                      cosize, crd2idx, depth, elem_less, flat_divide, flat_product, get,
                      idx2crd, int_tuple, left_inverse, logical_divide, logical_product,
                      make_fragment_like, make_identity_layout, make_identity_tensor,
                      make_layout, make_layout_like, make_ordered_layout, make_rmem_tensor,
                      make_view, raked_product, rank, right_inverse, size, tile, tiled_divide,
                      tiled_product, zipped_divide, zipped_product)
from .algebra import slice_ as slice  # noqa: A001 - the Fly op's name
from .atom import (CopyAtom, MmaAtom, ThrCopy, ThrMma, TiledCopy, TiledMma, UniversalAtomic,
                   UniversalCopy, UniversalCopy8b, UniversalCopy16b, UniversalCopy32b,
                   UniversalCopy64b, UniversalCopy128b, UniversalFMA, copy, gemm,
                   make_copy_atom, make_layout_tv, make_mma_atom, make_tiled_copy,
                   make_tiled_copy_A, make_tiled_copy_B, make_tiled_copy_C,
                   make_tiled_copy_tv, make_tiled_mma)
from .gpu import barrier, block_dim, block_idx, grid_dim, thread_idx
from .numeric import (BFloat16, Boolean, Float8E4M3FN, Float8E5M2, Float16, Float32, Float64,
                      Int8, Int16, Int32, Int64, Numeric, Uint8, Uint16, Uint32, Uint64, Vector)


def range_constexpr(*args):
    """A loop unrolled at trace time (a plain Python range)."""
    return range(*args)


def const_expr(x):
    """A condition evaluated at trace time."""
    return x
from .algebra import make_composed_layout, make_swizzle
from .smem import SharedAllocator, get_dyn_shared

# fx.math, fx.arith, wave shuffles, printf (SPEC §7).
from . import arith, math  # noqa: E402
from .printf import printf  # noqa: E402
from .warp import shuffle, shuffle_down, shuffle_up, shuffle_xor, wave_size  # noqa: E402
