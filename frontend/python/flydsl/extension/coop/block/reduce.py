"""BlockReduce: one value folded over every thread of the block."""

from __future__ import annotations

import enum

from ....expr.gpu import barrier
from ....expr.struct import Array, Struct
from .._common import combine, linear_thread_id, thread_partial, when
from ._spec import BlockAlgorithmMeta, BlockCollective, api_name


class BlockReduceAlgorithm(enum.Enum):
    """How the threads' partials meet.

    WARP_REDUCTIONS: each wave reduces with shuffles; lane 0 of each writes
        its total to one of `num_warps` LDS slots; after one barrier every
        thread folds the slots (lowest wave first).
    RAKING: every thread writes its partial to LDS (a slot each); after a
        barrier the first wave's lanes each fold a run of `num_warps` slots,
        reduce those with shuffles and publish the total in one more slot,
        read by all after a second barrier.
    RAKING_COMMUTATIVE_ONLY, WARP_REDUCTIONS_NONDETERMINISTIC: FlyDSL's
        planned variants; not implemented (specializing for them is an error).

    The wave reductions fold lanes in a butterfly, so every algorithm needs
    a commutative op (every ReductionOp is)."""

    RAKING = "raking"
    RAKING_COMMUTATIVE_ONLY = "raking_commutative_only"
    WARP_REDUCTIONS = "warp_reductions"
    WARP_REDUCTIONS_NONDETERMINISTIC = "warp_reductions_nondeterministic"


def _warp_reductions(cls, partial, tid, storage, op):
    total = cls.warp_ops.warp_reduce(partial, op, width=cls.warp_threads)
    if cls.num_warps == 1:
        return total
    slots = storage.slots
    warp = tid // cls.warp_threads

    def publish():
        slots[warp] = total

    when(tid % cls.warp_threads == 0, publish)
    barrier()
    total = slots[0]
    for i in range(1, cls.num_warps):
        total = combine(op, total, slots[i])
    return total


def _raking(cls, partial, tid, storage, op):
    if cls.num_warps == 1:  # the block is one wave: nothing to rake
        return cls.warp_ops.warp_reduce(partial, op, width=cls.warp_threads)
    slots, result, run = storage.slots, storage.result, cls.num_warps
    slots[tid] = partial
    barrier()

    def rake():
        base = tid * run
        raked = slots[base]
        for i in range(1, run):
            raked = combine(op, raked, slots[base + i])
        raked = cls.warp_ops.warp_reduce(raked, op, width=cls.warp_threads)

        def publish():
            result[0] = raked

        when(tid == 0, publish)

    when(tid < cls.warp_threads, rake)
    barrier()
    return result[0]


def _storage_warp_reductions(dtype, block_threads, warp_threads):
    return Struct["slots": Array[dtype, block_threads // warp_threads]]


def _storage_raking(dtype, block_threads, warp_threads):
    # A one-wave block never stages its partials.
    slots = block_threads if block_threads > warp_threads else 1
    return Struct["slots": Array[dtype, slots], "result": Array[dtype, 1]]


_ALGORITHMS = {
    BlockReduceAlgorithm.WARP_REDUCTIONS: (_warp_reductions, _storage_warp_reductions),
    BlockReduceAlgorithm.RAKING: (_raking, _storage_raking),
}


class _BlockReduceMeta(BlockAlgorithmMeta):
    _algorithms = BlockReduceAlgorithm
    _shared_storage = {a: storage for a, (_, storage) in _ALGORITHMS.items()}

    def _default_algorithm_for(cls, target):
        # The same on every target: WARP_REDUCTIONS needs one barrier and
        # num_warps LDS slots where RAKING needs two and a slot per thread.
        return BlockReduceAlgorithm.WARP_REDUCTIONS

    def __call__(cls, value, op, *, storage):
        value = cls._checked_value(api_name(cls), value, op, storage)
        partial = thread_partial(value, op)
        reduce = _ALGORITHMS[cls.algorithm][0]
        return reduce(cls, partial, linear_thread_id(cls.block_size), storage, op)


class BlockReduce(BlockCollective, metaclass=_BlockReduceMeta):
    """A block-wide reduction, every thread's result the same:

        reduce = fx.coop.BlockReduce[fx.Float32, fx.known_block_size()]
        storage = fx.SharedAllocator().allocate(reduce.SharedStorage).peek()
        total = reduce(x, fx.ReductionOp.ADD, storage=storage)

    Specialized as `[dtype, block_size]` or `[dtype, block_size, algorithm]`
    (BlockReduceAlgorithm, WARP_REDUCTIONS by default); block_size is the
    block the kernel is launched with. `x` is a scalar of `dtype` or a
    Vector of them (its items folded first). Every thread of the block must
    make the call together (it has barriers); reusing `storage` for another
    collective needs an fx.barrier() in between."""

