"""Warp-scope collectives: the lanes of one wave.

The names here (fx.coop's) are dispatched when called: to the module of
the compile backend's own forms (`rocdl` for "rocm", whose functions take
the portable ones wherever they have nothing better), else to the
portable forms of `reduce` and `scan` (which fx.coop.universal names).
Each takes the arguments its portable form documents."""

from types import SimpleNamespace

from ....tracing.trace import current_target
from . import reduce as _reduce
from . import rocdl as rocdl
from . import scan as _scan

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate"]

_PORTABLE = SimpleNamespace(
    warp_reduce=_reduce.warp_reduce, warp_inclusive_scan=_scan.warp_inclusive_scan,
    warp_exclusive_scan=_scan.warp_exclusive_scan, warp_scan=_scan.warp_scan,
    warp_scan_with_aggregate=_scan.warp_scan_with_aggregate)
_BACKEND_FORMS = {"rocm": rocdl}  # compile backend -> the module of its forms


def _forms():
    return _BACKEND_FORMS.get(current_target().backend, _PORTABLE)


def warp_reduce(value, op, *, width=None):
    """`value` folded with `op` over each group of `width` lanes, in all of
    them (coop.warp.reduce.warp_reduce)."""
    return _forms().warp_reduce(value, op, width=width)


def warp_inclusive_scan(value, op, *, width=None, init=None):
    """Lanes 0..k of the group folded, in lane k (coop.warp.scan)."""
    return _forms().warp_inclusive_scan(value, op, width=width, init=init)


def warp_exclusive_scan(value, op, *, width=None, init=None):
    """Lanes 0..k-1 of the group folded, in lane k (coop.warp.scan)."""
    return _forms().warp_exclusive_scan(value, op, width=width, init=init)


def warp_scan(value, op, *, width=None, init=None):
    """(inclusive, exclusive) from one scan (coop.warp.scan)."""
    return _forms().warp_scan(value, op, width=width, init=init)


def warp_scan_with_aggregate(value, op, *, width=None, init=None):
    """(inclusive, exclusive, the group's total) (coop.warp.scan)."""
    return _forms().warp_scan_with_aggregate(value, op, width=width, init=init)
