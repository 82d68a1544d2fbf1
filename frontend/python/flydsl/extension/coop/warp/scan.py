"""Warp prefix scans: Hillis-Steele rounds of up shuffles."""

from __future__ import annotations

from ....expr.gpu import lane_id, shuffle_idx, shuffle_up
from .._common import check_op, check_value, combine, identity, seed, select, warp_width


def _inclusive(value, op, width):
    """Lane k of each group gets lanes 0..k folded in lane order: round r
    folds in the running value of the lane 2**r below, where that lane is
    in the group (the shuffle reads below the group otherwise)."""
    position = lane_id() % width
    offset = 1
    while offset < width:
        below = shuffle_up(value, offset, width)
        value = select(position >= offset, combine(op, below, value), value)
        offset *= 2
    return value


def _shift_up(inclusive, op, width):
    """The exclusive scan from the inclusive one: the lane below's value,
    the identity in the group's first lane."""
    below = shuffle_up(inclusive, 1, width)
    return select(lane_id() % width >= 1, below, identity(op, inclusive))


def _last_lane(value, width):
    """Every lane gets the value of its group's last lane (shuffle_idx names
    a lane of the wave, so the group's base is added)."""
    last = (lane_id() // width) * width + (width - 1)
    return shuffle_idx(value, last, width)


def _scan(api, value, op, width):
    check_op(api, op)
    check_value(api, value)
    width = warp_width(api, width)
    return _inclusive(value, op, width), width


def warp_inclusive_scan(value, op, *, width=None, init=None):
    """Lane k of each group of `width` lanes (the wave by default) gets
    `init` (when given) ⊕ lanes 0..k's values, folded in lane order."""
    raw, _ = _scan("fx.coop.warp_inclusive_scan", value, op, width)
    return seed(raw, op, init)


def warp_exclusive_scan(value, op, *, width=None, init=None):
    """Lane k gets `init` ⊕ lanes 0..k-1's values; the group's first lane
    gets `init`, or the identity of `op` without one (0 for ADD, 1 for
    MUL, the type's lowest value or -inf for MAX, its highest or +inf for
    MIN)."""
    raw, width = _scan("fx.coop.warp_exclusive_scan", value, op, width)
    return seed(_shift_up(raw, op, width), op, init)


def warp_scan(value, op, *, width=None, init=None):
    """(inclusive, exclusive) from one scan."""
    raw, width = _scan("fx.coop.warp_scan", value, op, width)
    return seed(raw, op, init), seed(_shift_up(raw, op, width), op, init)


def warp_scan_with_aggregate(value, op, *, width=None, init=None):
    """(inclusive, exclusive, aggregate): the aggregate is the whole group's
    fold (without `init`), in every lane."""
    raw, width = _scan("fx.coop.warp_scan_with_aggregate", value, op, width)
    return (seed(raw, op, init), seed(_shift_up(raw, op, width), op, init),
            _last_lane(raw, width))
