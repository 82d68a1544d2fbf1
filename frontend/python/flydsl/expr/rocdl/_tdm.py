"""gfx1250's tensor data mover (fx.rocdl.TDM, fx.rocdl.make_tdm_atom): one
copy of a whole tile of 1 to 5 modes between global memory and LDS, by
tensor_load_to_lds (global source) or tensor_store_from_lds (global
destination). The operation is the compiler's `!fly_rocdl.gfx1250.tdm<...>`
type; a call builds the instruction's descriptor from the global tile (its
static shape and its pointer), the atom's fields (per-mode extents and
strides, a byte offset) and the LDS tile's address. The copy is
asynchronous on the GPU: tdm_ops.tensor_wait() (s_wait_tensorcnt) waits
for it, and a barrier makes one wave's tile visible to the others."""

from .. import numeric as nm
from .._core import describe, expect, fail
from .._ir_types import FlyType
from ...tracing.trace import builder

__all__ = ["TDM", "make_tdm_atom"]

_MAX_RANK = 5
_NO_LIMIT = 0x7FFFFFFF


class CopyOpGFX1250TDMType(FlyType):
    """`!fly_rocdl.gfx1250.tdm<rank = R, warps = W, pad = I, A, cache = C,
    barrier = B, timeout = T>`: the tensor data mover on a tile of R modes
    shared by W waves."""

    kinds = ("gfx1250.tdm",)

    @classmethod
    def get(cls, rank, num_warps, pad_interval=0, pad_amount=0, cache_modifier=0, *,
            atomic_barrier=False, early_timeout=False, api="TDM"):
        r = _int(api, "rank", rank, 1, _MAX_RANK)
        w = _int(api, "num_warps", num_warps, 1, 32)
        if w & (w - 1):
            fail(api, f"argument 'num_warps' must be a power of two (1 to 32), not {w}")
        interval = _int(api, "pad_interval", pad_interval, 0, 1 << 20)
        amount = _int(api, "pad_amount", pad_amount, 0, 1 << 20)
        if (interval == 0) != (amount == 0):
            fail(api, f"arguments 'pad_interval' and 'pad_amount' are both 0 (no padding) or both "
                      f"positive, not {interval} and {amount}")
        if interval & (interval - 1):
            fail(api, f"argument 'pad_interval' must be a power of two number of elements, not "
                      f"{interval}")
        cache = _int(api, "cache_modifier", cache_modifier, 0, 31)
        flags = [_bool(api, "atomic_barrier", atomic_barrier), _bool(api, "early_timeout", early_timeout)]
        return cls.parse(f"!fly_rocdl.gfx1250.tdm<rank = {r}, warps = {w}, pad = {interval}, {amount}, "
                         f"cache = {cache}, barrier = {flags[0]}, timeout = {flags[1]}>")


def _int(api, name, x, low, high):
    value = getattr(x, "value", x)
    if isinstance(x, nm.Numeric):
        if not x.is_static() or x.is_float:
            fail(api, f"argument '{name}' must be a compile-time integer, not {describe(x)}")
        value = x.host_value
    if isinstance(value, bool) or not isinstance(value, int):
        fail(api, f"argument '{name}' must be a Python int, not {describe(x)}")
    if not low <= value <= high:
        fail(api, f"argument '{name}' must be in [{low}, {high}], not {value}")
    return value


def _bool(api, name, x):
    if not isinstance(x, bool):
        fail(api, f"argument '{name}' must be a Python bool, not {describe(x)}")
    return "true" if x else "false"


def TDM(rank, num_warps, pad_interval=0, pad_amount=0, cache_modifier=0, atomic_barrier=False,
        early_timeout=False):
    """The tensor data mover's operation type for tiles of `rank` (1 to 5)
    modes, shared by `num_warps` waves (split along the outer modes by
    wave id; each wave that runs a call copies its part). The tile's shape
    is the static shape of the global operand of a call, the direction
    which operand is global. In LDS the tile is packed, innermost mode
    first; `pad_interval` / `pad_amount` (elements) leave `pad_amount`
    elements free after every `pad_interval` (a whole number of rows).
    `cache_modifier` is the instruction's cache-policy bits,
    `atomic_barrier` and `early_timeout` the descriptor's bits of those
    names. Fields (fx.atom_set_value, or keywords of fx.copy): `extent_i`
    (Int32), `stride_i` (Int64, elements, modes 0 .. rank-2), `imm_offset`
    (Int64, bytes added to the global address) and `workgroup_mask`
    (Int32). make_tdm_atom sets the extents and strides from a tensor."""
    return CopyOpGFX1250TDMType.get(rank, num_warps, pad_interval, pad_amount, cache_modifier,
                                    atomic_barrier=atomic_barrier, early_timeout=early_timeout)


def _extent(name, x):
    """An extent as an Int32 (None: no limit)."""
    if x is None:
        return nm.constant(_NO_LIMIT, nm.Int32)
    if isinstance(x, bool) or not isinstance(x, (int, nm.Integer)):
        fail("make_tdm_atom", f"{name} must be an int, an fx integer or None, not {describe(x)}")
    if isinstance(x, int):
        if not 0 <= x <= _NO_LIMIT:
            fail("make_tdm_atom", f"{name} must be in [0, {_NO_LIMIT}], not {x}")
        return nm.constant(x, nm.Int32)
    return nm.convert(x, nm.Int32)


def _stride(name, x):
    if isinstance(x, bool) or not isinstance(x, (int, nm.Integer)):
        fail("make_tdm_atom", f"{name} must be an int, an fx integer or None, not {describe(x)}")
    if isinstance(x, int):
        if not 0 <= x < 1 << 48:
            fail("make_tdm_atom", f"{name} must be in [0, 2**48), not {x}")
        return nm.constant(x, nm.Int64)
    return nm.convert(x, nm.Int64)


def make_tdm_atom(tensor, tensor_extents, strides=None, *, num_warps, pad_interval=0, pad_amount=0,
                  cache_modifier=0, atomic_barrier=False, early_timeout=False):
    """A TDM copy atom for tiles like `tensor` (the global tile: its rank
    and element type), with the tensor's extents and strides as the atom's
    fields. `tensor_extents` lists, per mode (outermost first), how many
    elements exist from the tile's origin on (an int, an fx integer, or
    None for no limit); elements at or past it are out of range: a load
    writes zeros to LDS for them, a store leaves them alone. `strides`
    (elements, same order; the innermost is 1 and ignored) defaults to the
    layout's strides of the copy's global operand (a dynamic stride of
    `tensor` is read here). The other arguments are TDM's. Copy with
    fx.copy(atom, global_tile, lds_tile) or fx.copy_atom_call, in either
    direction; `imm_offset=` (fx.Int64 bytes) moves the global tile."""
    from ..primitive import _check_available, get, get_layout, get_stride, make_copy_atom
    from ..primitive import rank as rank_of
    api = "make_tdm_atom"
    t = expect(api, "tensor", tensor, ("memref",), "a tensor in global memory")
    if not isinstance(tensor_extents, (list, tuple)):
        fail(api, f"argument 'tensor_extents' must be a list of extents, not {describe(tensor_extents)}")
    extents = list(tensor_extents)
    rank = len(extents)
    if not 1 <= rank <= _MAX_RANK:
        fail(api, f"argument 'tensor_extents' must give 1 to {_MAX_RANK} extents (the tile's rank), "
                  f"not {rank}")
    tensor_rank = rank_of(t)
    if tensor_rank != rank:
        fail(api, f"argument 'tensor_extents' has {rank} extents but the tensor has {tensor_rank} modes")
    if strides is None:
        strides = [None] * rank
    elif not isinstance(strides, (list, tuple)) or len(strides) != rank:
        fail(api, f"argument 'strides' must be a list of {rank} strides (or None), not {describe(strides)}")
    op = CopyOpGFX1250TDMType.get(rank, num_warps, pad_interval, pad_amount, cache_modifier,
                                  atomic_barrier=atomic_barrier, early_timeout=early_timeout, api=api)
    _check_available(api, op.handle)
    atom = make_copy_atom(op, t.element_type)
    for i, extent in enumerate(extents):
        atom = atom.set_value(f"extent_{i}", _extent(f"tensor_extents[{i}]", extent))
    layout_strides = get_stride(get_layout(t)) if rank > 1 else None
    for i in range(rank - 1):
        stride = strides[i]
        if stride is None:
            stride = get(layout_strides, i)
            if isinstance(stride, int):
                continue  # static: the copy reads it from its global operand
        atom = atom.set_value(f"stride_{i}", _stride(f"strides[{i}]", stride))
    return atom


def tensor_wait(count=0):
    """s_wait_tensorcnt: waits until at most `count` (a compile-time int,
    0 to 63) of this wave's tensor copies are outstanding."""
    from ..primitive import _check_available
    from ._waitcnt import static_count
    n = static_count("fx.rocdl.tdm_ops.tensor_wait", "count", count, 63)
    _check_available("rocdl.tdm_ops.tensor_wait", CopyOpGFX1250TDMType.get(1, 1).handle)
    builder().op("rocdl.s.wait.tensorcnt", [], [], f"count = {n} : i16")
