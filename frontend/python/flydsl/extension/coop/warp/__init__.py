"""Warp-scope collectives: the lanes of one wave, through shuffles."""

from .reduce import warp_reduce
from .scan import warp_exclusive_scan, warp_inclusive_scan, warp_scan, warp_scan_with_aggregate

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate"]
