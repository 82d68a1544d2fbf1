"""`BlockReduce[dtype, block_size, algorithm]` / `BlockScan[...]`: the
specialization both block collectives share (one class per parameters,
cached), with the LDS each algorithm needs as its `SharedStorage`.

A collective plugs in through its metaclass, a subclass of
BlockAlgorithmMeta that sets
    _algorithms       the policy enum;
    _shared_storage   {policy: storage(dtype, block_threads, warp_threads)},
                      the struct type each implemented policy needs (a
                      policy missing here is refused by name);
and defines
    _default_algorithm_for(cls, target)
                      the policy used when `[...]` names none, for the
                      GPUTarget compiled for (there is no fallback: a
                      metaclass without it cannot be specialized without
                      naming a policy).
The class itself sets `block_threads = None` (a specialization sets it).

The specializations are Python: they are made and read on the host too
(`fx.coop.BlockReduce[fx.Int32, 64].num_warps`), for the chip a compile
would target now (ARCH)."""

from __future__ import annotations

from ....expr import numeric as nm
from ....expr._elementwise import element, fail
from ....expr.gpu import num_warp_threads
from .. import warp as _warp
from ....tracing.trace import current_target
from .._common import check_op, check_value, is_power_of_two, not_implemented

# Every block collective's specializations, keyed by the class specialized
# (so two collectives, or a collective and its universal form, never share
# one) and everything that shapes it, the resolved policy and the wave
# included: a default that differs per target gives one entry per target.
_CACHE: dict = {}


def api_name(cls) -> str:
    """How messages name `cls`: fx.coop.BlockScan[Int32, 64, WARP_SCANS], ..."""
    namespace = getattr(cls, "_api_namespace", None)
    return f"{namespace}.{cls.__name__}" if namespace else cls.__name__


def _block_shape(api, block_size):
    dims = tuple(block_size) if isinstance(block_size, (tuple, list)) else (block_size, 1, 1)
    if len(dims) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        fail(f"{api}: block_size must be a positive Python int (x) or a tuple (x, y, z) of "
             f"them, not {block_size!r}")
    return dims


def _check_dtype(api, dtype):
    if not (isinstance(dtype, type) and issubclass(dtype, nm.Numeric)) or dtype is nm.Vector \
            or dtype is nm.Boolean or not dtype.mlir_type or dtype.mlir_type == "index":
        fail(f"{api}: dtype must be an integer or float type (fx.Int32, fx.Float32, ...), "
             f"not {dtype!r}")


class BlockAlgorithmMeta(type):
    """`[dtype, block_size]` or `[dtype, block_size, algorithm]`:
    block_size is the x extent (y = z = 1) or (x, y, z), e.g.
    `fx.known_block_size()`; the threads in all must be a power of two.
    The specialization has `dtype`, `block_size`, `block_threads`,
    `algorithm`, `warp_threads` (the wave, or the block when narrower),
    `num_warps` and `SharedStorage` (a struct to allocate)."""

    _algorithms = None
    _shared_storage = None

    def _default_algorithm_for(cls, target):
        """The policy of `cls` when none is named, on `target` (a
        GPUTarget). Each collective's metaclass answers it."""
        not_implemented(f"{api_name(cls)}: its metaclass {type(cls).__name__} does not define "
                        "_default_algorithm_for(cls, target), so an algorithm must be named")

    def __getitem__(cls, params):
        api = api_name(cls)
        if cls.block_threads is not None:
            fail(f"{api} is already specialized")
        params = params if isinstance(params, tuple) else (params,)
        if not 2 <= len(params) <= 3:
            fail(f"{api}[dtype, block_size] or {api}[dtype, block_size, algorithm]")
        dtype, block_size = params[:2]
        _check_dtype(api, dtype)
        block_size = _block_shape(api, block_size)
        block_threads = block_size[0] * block_size[1] * block_size[2]
        if not is_power_of_two(block_threads):
            fail(f"{api}: the block's {block_threads} threads {block_size} are not a power of two")
        algorithm = params[2] if len(params) == 3 else cls._default_algorithm_for(current_target())
        if not isinstance(algorithm, cls._algorithms):
            fail(f"{api}: algorithm must be a {cls._algorithms.__name__}, not {algorithm!r}")
        # A block narrower than the wave: the lanes never launched take no part.
        warp_threads = min(num_warp_threads(), block_threads)
        key = (cls, dtype, block_size, algorithm, warp_threads)
        if key in _CACHE:
            return _CACHE[key]
        make_storage = cls._shared_storage.get(algorithm)
        if make_storage is None:
            not_implemented(f"{api}: {cls._algorithms.__name__}.{algorithm.name} is not "
                            "implemented")
        specialized = type(
            f"{cls.__name__}[{dtype.__name__}, {block_threads}, {algorithm.name}]", (cls,), {
                "dtype": dtype, "block_size": block_size, "block_threads": block_threads,
                "algorithm": algorithm, "warp_threads": warp_threads,
                "num_warps": block_threads // warp_threads,
                "SharedStorage": make_storage(dtype, block_threads, warp_threads)})
        _CACHE[key] = specialized
        return specialized

    def _checked_value(cls, api, value, op, storage):
        """`value`, checked with the other arguments of a call, as a value
        of the collective's dtype: an integer of the other signedness
        (a uint8 tensor's elements are Int8, its element type being i8) is
        taken as the same bits, so that the collective's dtype says how
        MAX and MIN compare."""
        if cls.block_threads is None:
            fail(f"{api}: specialize it first, e.g. {cls.__name__}[fx.Float32, 256]")
        check_op(api, op)
        check_value(api, value)
        given = element(value)
        if given is not cls.dtype and given.mlir_type != cls.dtype.mlir_type:
            fail(f"{api}: value is {given.__name__}, but the collective is specialized "
                 f"for {cls.dtype.__name__}")
        if not isinstance(storage, cls.SharedStorage):
            fail(f"{api}: storage must be the peeked {cls.__name__}.SharedStorage "
                 "(fx.SharedAllocator().allocate(X.SharedStorage).peek()), not "
                 f"{type(storage).__name__}")
        if given is cls.dtype:
            return value
        if isinstance(value, nm.Vector):
            return nm.Vector(value.ir_value(), cls.dtype)
        return cls.dtype(value.ir_value())


class BlockCollective:
    """What a specialization sets (BlockAlgorithmMeta.__getitem__); None on
    the unspecialized class, which refuses calls."""

    dtype = None
    block_size = None
    block_threads = None
    algorithm = None
    warp_threads = None
    num_warps = None
    SharedStorage = None
    # Where the wave-level folds and scans come from: the warp names of
    # fx.coop, which take the target's forms (coop.warp.rocdl);
    # coop.universal's classes set the portable ones.
    warp_ops = _warp
    _api_namespace = "fx.coop"  # for messages
