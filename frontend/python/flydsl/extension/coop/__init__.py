"""Cooperative algorithms over the threads of a launch (FlyDSL's
`flydsl.extension.coop`, also `fx.coop`): one flat namespace for both scopes.

Warp scope (the lanes of one wave, exchanged between lanes, no LDS):

    fx.coop.warp_reduce(x, fx.ReductionOp.ADD, width=32)
    fx.coop.warp_inclusive_scan / warp_exclusive_scan(x, op, width=, init=)
    fx.coop.warp_scan(...) -> (inclusive, exclusive)
    fx.coop.warp_scan_with_aggregate(...) -> (inclusive, exclusive, aggregate)

Block scope (every thread of the workgroup, waves combined through LDS):

    scan = fx.coop.BlockScan[fx.Int32, fx.known_block_size()]
    storage = fx.SharedAllocator().allocate(scan.SharedStorage).peek()
    prefix = scan.exclusive(x, fx.ReductionOp.ADD, storage=storage)
    total = fx.coop.BlockReduce[fx.Float32, 256](x, op, storage=...)

`op` is an `fx.ReductionOp` (ADD, MUL, MAX, MIN). A `width` is a power of
two no wider than the wave (the default: the whole wave, 64 lanes on gfx9,
32 on gfx11/gfx12); narrower groups of lanes work side by side. At warp
scope a Vector is folded elementwise across the lanes; at block scope it is
a run of consecutive items of the thread (`scan.exclusive` of an
`Int32x4` gives each of the four its own prefix).

The warp names are dispatched to the compile backend's forms: on ROCm
`coop.warp.rocdl`, DPP moves on gfx9 for 32-bit scalars and the portable
shuffles otherwise; BlockReduce and BlockScan fold through them.
`coop.universal` has the same names with the portable forms throughout.
"""

from . import block as block
from . import universal as universal
from . import warp as warp
from .block import *  # noqa: F401,F403
from .warp import *  # noqa: F401,F403

__all__ = ["warp_reduce", "warp_inclusive_scan", "warp_exclusive_scan", "warp_scan",
           "warp_scan_with_aggregate", "BlockReduceAlgorithm", "BlockReduce",
           "BlockScanAlgorithm", "BlockScan"]
