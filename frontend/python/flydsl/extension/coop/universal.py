"""The portable collectives under fx.coop's names (FlyDSL's
`coop.universal`), whatever the target: the warp collectives of
coop.warp.reduce / coop.warp.scan (gpu.shuffle), and BlockReduce /
BlockScan folding through them. fx.coop's own names take the target's
forms (coop.warp.rocdl on the ROCm backend); these are for a kernel that
prefers the portable ones, and for checking the two against each other.
The algorithm enums are fx.coop's."""

from types import SimpleNamespace

from .block import reduce as _block_reduce
from .block import scan as _block_scan
from .block.reduce import BlockReduceAlgorithm
from .block.scan import BlockScanAlgorithm
from .warp.reduce import warp_reduce
from .warp.scan import (warp_exclusive_scan, warp_inclusive_scan, warp_scan,
                        warp_scan_with_aggregate)

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate", "BlockReduceAlgorithm", "BlockReduce",
           "BlockScanAlgorithm", "BlockScan"]

# The warp collectives the block ones fold through.
_PORTABLE_WARP = SimpleNamespace(warp_reduce=warp_reduce,
                                 warp_scan_with_aggregate=warp_scan_with_aggregate)


class BlockReduce(_block_reduce.BlockReduce):
    """fx.coop.BlockReduce over the portable warp reduction."""

    warp_ops = _PORTABLE_WARP
    _api_namespace = "fx.coop.universal"


class BlockScan(_block_scan.BlockScan):
    """fx.coop.BlockScan over the portable warp scan."""

    warp_ops = _PORTABLE_WARP
    _api_namespace = "fx.coop.universal"
