"""Block-scope collectives: every thread of the workgroup, through LDS."""

from .reduce import BlockReduce, BlockReduceAlgorithm
from .scan import BlockScan, BlockScanAlgorithm

__all__ = ["BlockReduceAlgorithm", "BlockReduce", "BlockScanAlgorithm", "BlockScan"]
