"""The warp collectives for AMD chips (FlyDSL's `coop.warp.rocdl`): what
`fx.coop.warp_reduce` and the scans are on the ROCm backend.

On CDNA (gfx9: gfx942, gfx950) a 32-bit scalar (Int32, Uint32, Float32)
moves between lanes by DPP (`v_mov_b32` with a DPP control, through
`rocdl.update.dpp`), which runs on the vector ALU and leaves the LDS pipe
to the kernel; the portable forms (coop.warp.reduce / coop.warp.scan, what
`fx.coop.universal` keeps) exchange through `gpu.shuffle`, which becomes
`ds_bpermute_b32`. Everything else - another chip family (RDNA dropped
row_bcast and wave_shr), a value of another width, a Vector - takes the
portable forms. The results are the same values; a float fold may round
differently, the lanes being combined in another order.

The DPP controls used, as the ISA encodes them (a row is 16 lanes):
    quad_perm  0x00-0xFF   lane i reads lane (i & ~3) | sel[i & 3]
    row_shr:n  0x111-0x11F lane i reads i - n within its row
    row_ror:8  0x128       lane i reads i ^ 8 (a rotate by half a row)
    wave_shr:1 0x138       lane i reads i - 1 across rows
    row_half_mirror 0x141  lane i reads (i & ~7) + 7 - (i & 7)
    row_bcast:15 0x142     rows 1-3 read the last lane of the row below
    row_bcast:31 0x143     rows 2-3 read lane 31
Every move is made with bound_ctrl off and the op's identity as the
destination's old value, so a lane the move does not reach (the start of
a row, a row masked off) reads the identity, which then folds away for
any op; bound_ctrl's 0 would be right for ADD alone.

Two exchanges DPP cannot express on gfx9: `lane ^ 16` (it crosses rows,
and no control reads the row above) and "the last lane of my group" for a
group narrower than the wave. Both take one `ds_swizzle_b32` in its
32-lane bit-mask mode (a lane reads ((lane & and) | or) ^ xor within its
32): the exchange only, no LDS is allocated. A whole wave's total is
lifted out of lane 63 with `v_readlane_b32` instead, uniform in an SGPR.
"""

from __future__ import annotations

from .... import _fly
from ....expr import numeric as nm
from ....expr.gpu import lane_id
from ....expr.rocdl import update_dpp
from ....tracing.trace import Trace, builder
from .._common import check_op, check_value, combine, identity, seed, select, warp_width
from . import reduce as _portable_reduce
from . import scan as _portable_scan

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate"]

_QUAD_XOR1 = 0xB1  # quad_perm [1, 0, 3, 2]
_QUAD_XOR2 = 0x4E  # quad_perm [2, 3, 0, 1]
_ROW_SHR = 0x110  # + n
_ROW_ROR8 = 0x128
_WAVE_SHR1 = 0x138
_ROW_HALF_MIRROR = 0x141
_ROW_BCAST15 = 0x142
_ROW_BCAST31 = 0x143
_ROWS_1_3 = 0b1010
_ROWS_2_3 = 0b1100
_ALL = 0xF

_WAVE = 64  # gfx9's wave; a group of 32 or fewer lanes lies in one half of it


def _takes_dpp(value) -> bool:
    """Whether `value` is exchanged by DPP here (else the portable forms)."""
    if _fly.chip_info(Trace.current().arch)["family"] not in ("CDNA3", "CDNA4"):
        return False  # RDNA dropped row_bcast and wave_shr
    return isinstance(value, nm.Numeric) and not isinstance(value, nm.Vector) \
        and type(value).bits == 32


def _dpp(value, ctrl, fill, rows=_ALL):
    """`value` of the lane DPP control `ctrl` names; `fill` where the move
    reads no lane or the row is off in `rows`."""
    return update_dpp(type(value), fill, value, ctrl, rows, _ALL, False)


def _as_i32(value):
    return value if type(value) is nm.Int32 else value.bitcast(nm.Int32)


def _swizzle(value, and_mask, or_mask=0, xor_mask=0):
    """ds_swizzle_b32, bit-mask mode: lane i reads lane
    (i & ~31) | ((i & and_mask) | or_mask) ^ xor_mask."""
    offset = nm.constant(xor_mask << 10 | or_mask << 5 | and_mask, nm.Int32)
    (moved,) = builder().op("rocdl.ds_swizzle", [_as_i32(value).ir_value(), offset.ir_value()],
                            [nm.Int32.type_handle()])
    moved = nm.Int32(moved)
    return moved if type(value) is nm.Int32 else moved.bitcast(type(value))


def _lane63(value):
    """Lane 63's value in every lane (v_readlane_b32)."""
    lane = nm.constant(_WAVE - 1, nm.Int32)
    (read,) = builder().op("rocdl.readlane", [value.ir_value(), lane.ir_value()],
                           [type(value).type_handle()])
    return type(value)(read)


def _row_scan(value, op, fill, width):
    """Lane k of each group of `width` (up to a row) gets the group's lanes
    up to k folded in lane order: row_shr by 1, 2, 4, 8, a group narrower
    than the row keeping out what the shift brings from the group below."""
    position = lane_id() % width if width < 16 else None
    shift = 1
    while shift < min(width, 16):
        moved = _dpp(value, _ROW_SHR + shift, fill)
        if position is not None:
            moved = select(position >= shift, moved, fill)
        value = combine(op, moved, value)
        shift *= 2
    return value


def _inclusive(value, op, width):
    """Each row scanned, then row_bcast:15 carries a row's total into the
    next row of its group (rows 1 and 3) and row_bcast:31 the lower half's
    into the upper (rows 2 and 3)."""
    fill = identity(op, value)
    value = _row_scan(value, op, fill, width)
    if width > 16:
        value = combine(op, _dpp(value, _ROW_BCAST15, fill, _ROWS_1_3), value)
    if width > 32:
        value = combine(op, _dpp(value, _ROW_BCAST31, fill, _ROWS_2_3), value)
    return value


def _exclusive(inclusive, op, width):
    """The inclusive scan moved up a lane, the identity in each group's
    first lane: row_shr:1 within a row, wave_shr:1 across rows; where the
    group does not start where the row or wave does, the lane is picked."""
    fill = identity(op, inclusive)
    shifted = _dpp(inclusive, _ROW_SHR + 1 if width <= 16 else _WAVE_SHR1, fill)
    if width < 16 or width == 32:
        shifted = select(lane_id() % width == 0, fill, shifted)
    return shifted


def _group_total(inclusive, width):
    """The last lane of each group of `width`, in all of its lanes."""
    if width == _WAVE:
        return _lane63(inclusive)
    if width == 1:
        return inclusive
    return _swizzle(inclusive, and_mask=0x1F & ~(width - 1), or_mask=width - 1)


# The butterfly's partner at each distance. quad_perm gives xor 1 and 2 and
# row_ror:8 xor 8 exactly; row_half_mirror is not xor 4, but when it is used
# each quad holds one value already, and it reads the other quad of the 8.
_BUTTERFLY = {1: _QUAD_XOR1, 2: _QUAD_XOR2, 4: _ROW_HALF_MIRROR, 8: _ROW_ROR8}


def _butterfly(value, op, width):
    fill = identity(op, value)
    distance = 1
    while distance < width:
        if distance in _BUTTERFLY:
            partner = _dpp(value, _BUTTERFLY[distance], fill)
        else:  # 16: across the two rows of a half-wave
            partner = _swizzle(value, and_mask=0x1F, xor_mask=16)
        value = combine(op, value, partner)
        distance *= 2
    return value


def _route(api, value, op, width):
    """(the group's width, whether DPP takes it), the arguments checked."""
    check_op(api, op)
    check_value(api, value)
    return warp_width(api, width), _takes_dpp(value)


def warp_reduce(value, op, *, width=None):
    """fx.coop.warp_reduce (coop.warp.reduce.warp_reduce's contract). A
    whole wave is scanned and lane 63's total read out; a narrower group
    folds as a butterfly, every lane ending with the group's total."""
    width, dpp = _route("fx.coop.warp_reduce", value, op, width)
    if not dpp:
        return _portable_reduce.warp_reduce(value, op, width=width)
    if width == _WAVE:
        return _lane63(_inclusive(value, op, _WAVE))
    return _butterfly(value, op, width)


def warp_inclusive_scan(value, op, *, width=None, init=None):
    """fx.coop.warp_inclusive_scan (coop.warp.scan's contract)."""
    width, dpp = _route("fx.coop.warp_inclusive_scan", value, op, width)
    if not dpp:
        return _portable_scan.warp_inclusive_scan(value, op, width=width, init=init)
    return seed(_inclusive(value, op, width), op, init)


def warp_exclusive_scan(value, op, *, width=None, init=None):
    """fx.coop.warp_exclusive_scan (coop.warp.scan's contract)."""
    width, dpp = _route("fx.coop.warp_exclusive_scan", value, op, width)
    if not dpp:
        return _portable_scan.warp_exclusive_scan(value, op, width=width, init=init)
    return seed(_exclusive(_inclusive(value, op, width), op, width), op, init)


def warp_scan(value, op, *, width=None, init=None):
    """fx.coop.warp_scan: (inclusive, exclusive) from one scan."""
    width, dpp = _route("fx.coop.warp_scan", value, op, width)
    if not dpp:
        return _portable_scan.warp_scan(value, op, width=width, init=init)
    raw = _inclusive(value, op, width)
    return seed(raw, op, init), seed(_exclusive(raw, op, width), op, init)


def warp_scan_with_aggregate(value, op, *, width=None, init=None):
    """fx.coop.warp_scan_with_aggregate: (inclusive, exclusive, the
    group's total without init)."""
    width, dpp = _route("fx.coop.warp_scan_with_aggregate", value, op, width)
    if not dpp:
        return _portable_scan.warp_scan_with_aggregate(value, op, width=width, init=init)
    raw = _inclusive(value, op, width)
    return (seed(raw, op, init), seed(_exclusive(raw, op, width), op, init),
            _group_total(raw, width))
