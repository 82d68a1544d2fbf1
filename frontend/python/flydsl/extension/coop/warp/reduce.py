"""warp_reduce: a butterfly of xor shuffles."""

from __future__ import annotations

from ....expr.gpu import shuffle_xor
from .._common import check_op, check_value, combine, warp_width


def warp_reduce(value, op, *, width=None):
    """`value` folded with `op` over each group of `width` lanes (the wave
    by default); every lane of the group gets the result.

    log2(width) rounds: each lane folds in the partial of the lane `offset`
    away (xor), offset 1, 2, 4, ... The lanes fold the same values in
    different orders, so `op` must be commutative (every ReductionOp is)."""
    api = "fx.coop.warp_reduce"
    check_op(api, op)
    check_value(api, value)
    width = warp_width(api, width)
    offset = 1
    while offset < width:
        value = combine(op, value, shuffle_xor(value, offset, width))
        offset *= 2
    return value
