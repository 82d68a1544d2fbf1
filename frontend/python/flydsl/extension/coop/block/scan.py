"""BlockScan: prefix scans over every thread of the block, in thread order."""

from __future__ import annotations

import enum

from ....expr import numeric as nm
from ....expr._elementwise import fail
from ....expr.gpu import barrier
from ....expr.struct import Array, Struct
from .._common import combine, from_items, items, linear_thread_id, seed, select, when
from ._spec import BlockAlgorithmMeta, BlockCollective, api_name


class BlockScanAlgorithm(enum.Enum):
    """How the block's prefix is found.

    WARP_SCANS: each wave scans with shuffles; the last lane of each writes
        the wave's total to one of `num_warps` LDS slots; after one barrier
        each thread folds in the totals of the waves before its own.
    RAKING, RAKING_MEMOIZE: FlyDSL's planned variants; not implemented."""

    RAKING = "raking"
    RAKING_MEMOIZE = "raking_memoize"
    WARP_SCANS = "warp_scans"


def _warp_scans(cls, partial, tid, storage, op):
    """(the thread's exclusive prefix, the block's aggregate)."""
    inclusive, prefix, aggregate = cls.warp_ops.warp_scan_with_aggregate(
        partial, op, width=cls.warp_threads)
    if cls.num_warps == 1:
        return prefix, aggregate
    slots = storage.slots
    warp = tid // cls.warp_threads

    def publish():
        slots[warp] = inclusive

    when(tid % cls.warp_threads == cls.warp_threads - 1, publish)
    barrier()
    # The waves below this one, highest first: slots[0] ⊕ ... ⊕ slots[w-1] ⊕ prefix.
    for i in range(cls.num_warps - 2, -1, -1):
        prefix = select(warp > i, combine(op, slots[i], prefix), prefix)
    aggregate = slots[0]
    for i in range(1, cls.num_warps):
        aggregate = combine(op, aggregate, slots[i])
    return prefix, aggregate


def _storage_warp_scans(dtype, block_threads, warp_threads):
    return Struct["slots": Array[dtype, block_threads // warp_threads]]


class _BlockScanMeta(BlockAlgorithmMeta):
    _algorithms = BlockScanAlgorithm
    _shared_storage = {BlockScanAlgorithm.WARP_SCANS: _storage_warp_scans}

    def _default_algorithm_for(cls, target):
        return BlockScanAlgorithm.WARP_SCANS  # the one implemented, on every target

    def __call__(cls, *args, **kwargs):
        fail(f"{api_name(cls)} has two forms: call .inclusive(...) or .exclusive(...)")


class BlockScan(BlockCollective, metaclass=_BlockScanMeta):
    """A block-wide prefix scan in linear thread order (x fastest):

        scan = fx.coop.BlockScan[fx.Int32, fx.known_block_size()]
        storage = fx.SharedAllocator().allocate(scan.SharedStorage).peek()
        before = scan.exclusive(x, fx.ReductionOp.ADD, storage=storage)

    Specialized as BlockReduce is (BlockScanAlgorithm.WARP_SCANS by default).
    `x` is a scalar of `dtype`, or a Vector of n of them: thread t's items are
    then items t*n .. t*n+n-1 of the block's sequence, and the result is a
    Vector of their n prefixes. `init=` is folded in front of the whole
    block (the first thread's exclusive result). The `_with_aggregate` forms
    return (result, aggregate), the aggregate being the fold of every
    thread's input (without init), the same in all. `op` must be
    associative; the operands keep their order. Every thread of the block
    must make the call together (it has a barrier); reusing `storage`
    needs an fx.barrier() in between."""


    @classmethod
    def inclusive(cls, value, op, *, storage, init=None):
        """init ⊕ everything up to and including this thread's value."""
        return cls._scan("inclusive", value, op, storage, init)[0]

    @classmethod
    def exclusive(cls, value, op, *, storage, init=None):
        """init ⊕ everything before this thread's value (init, or the
        identity of op, in the first thread)."""
        return cls._scan("exclusive", value, op, storage, init)[0]

    @classmethod
    def inclusive_with_aggregate(cls, value, op, *, storage, init=None):
        return cls._scan("inclusive_with_aggregate", value, op, storage, init)

    @classmethod
    def exclusive_with_aggregate(cls, value, op, *, storage, init=None):
        return cls._scan("exclusive_with_aggregate", value, op, storage, init)

    @classmethod
    def _scan(cls, form, value, op, storage, init):
        value = cls._checked_value(f"{api_name(cls)}.{form}", value, op, storage)
        inclusive = form.startswith("inclusive")
        tid = linear_thread_id(cls.block_size)
        if not isinstance(value, nm.Vector):
            prefix, aggregate = _warp_scans(cls, value, tid, storage, op)
            prefix = seed(prefix, op, init)
            return (combine(op, prefix, value) if inclusive else prefix), aggregate
        # The thread's own items first; their total takes part in the block scan.
        running = items(value)
        for i in range(1, len(running)):
            running[i] = combine(op, running[i - 1], running[i])
        prefix, aggregate = _warp_scans(cls, running[-1], tid, storage, op)
        prefix = seed(prefix, op, init)
        heads = running if inclusive else running[:-1]
        out = [combine(op, prefix, h) for h in heads]
        return from_items(out if inclusive else [prefix, *out], value), aggregate
