"""The portable collectives under FlyDSL's `coop.universal` names: with no
per-target overrides here, they are the very objects of `fx.coop`."""

from .block import BlockReduce, BlockReduceAlgorithm, BlockScan, BlockScanAlgorithm
from .warp import (warp_exclusive_scan, warp_inclusive_scan, warp_reduce, warp_scan,
                   warp_scan_with_aggregate)

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate", "BlockReduceAlgorithm", "BlockReduce",
           "BlockScanAlgorithm", "BlockScan"]
