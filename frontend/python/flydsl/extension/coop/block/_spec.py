"""`BlockReduce[dtype, block_size, algorithm]` / `BlockScan[...]`: the
specialization both block collectives share (one class per parameters,
cached), with the LDS each algorithm needs as its `SharedStorage`."""

from __future__ import annotations

from ....expr import numeric as nm
from ....expr._elementwise import fail
from ....expr.gpu import num_warp_threads
from .. import warp as _warp
from .._common import is_power_of_two

_CACHE: dict = {}


def _block_shape(api, block_size):
    dims = tuple(block_size) if isinstance(block_size, (tuple, list)) else (block_size, 1, 1)
    if len(dims) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        fail(f"{api}: block_size must be a positive Python int (x) or a tuple (x, y, z) of "
             f"them, not {block_size!r}")
    return dims


class BlockAlgorithmMeta(type):
    """`[dtype, block_size]` or `[dtype, block_size, algorithm]`:
    block_size is the x extent (y = z = 1) or (x, y, z), e.g.
    `fx.known_block_size()`; the threads in all must be a power of two.
    The specialization has `dtype`, `block_size`, `block_threads`,
    `algorithm`, `warp_threads` (the wave, or the block when narrower),
    `num_warps` and `SharedStorage` (a struct to allocate)."""

    _algorithms = None  # the algorithm enum
    _storage = None  # {algorithm: (dtype, block_threads, warp_threads) -> struct type}
    _default = None

    def __getitem__(cls, params):
        api = f"fx.coop.{cls.__name__}"
        if cls.block_threads is not None:
            fail(f"{api} is already specialized")
        params = params if isinstance(params, tuple) else (params,)
        if not 2 <= len(params) <= 3:
            fail(f"{api}[dtype, block_size] or {api}[dtype, block_size, algorithm]")
        dtype, block_size = params[:2]
        algorithm = params[2] if len(params) == 3 else cls._default
        if not (isinstance(dtype, type) and issubclass(dtype, nm.Numeric)) or dtype is nm.Vector \
                or dtype is nm.Boolean or not dtype.mlir_type or dtype.mlir_type == "index":
            fail(f"{api}: dtype must be an integer or float type (fx.Int32, fx.Float32, ...), "
                 f"not {dtype!r}")
        if not isinstance(algorithm, cls._algorithms):
            fail(f"{api}: algorithm must be a {cls._algorithms.__name__}, not {algorithm!r}")
        block_size = _block_shape(api, block_size)
        block_threads = block_size[0] * block_size[1] * block_size[2]
        if not is_power_of_two(block_threads):
            fail(f"{api}: the block's {block_threads} threads {block_size} are not a power of two")
        # A block narrower than the wave: the lanes never launched take no part.
        warp_threads = min(num_warp_threads(), block_threads)
        key = (cls, dtype, block_size, algorithm, warp_threads)
        if key in _CACHE:
            return _CACHE[key]
        make_storage = cls._storage.get(algorithm)
        if make_storage is None:
            fail(f"{api}: {cls._algorithms.__name__}.{algorithm.name} is not implemented")
        specialized = type(
            f"{cls.__name__}[{dtype.__name__}, {block_threads}, {algorithm.name}]", (cls,), {
                "dtype": dtype, "block_size": block_size, "block_threads": block_threads,
                "algorithm": algorithm, "warp_threads": warp_threads,
                "num_warps": block_threads // warp_threads,
                "SharedStorage": make_storage(dtype, block_threads, warp_threads)})
        _CACHE[key] = specialized
        return specialized

    def _check_call(cls, api, value, op, storage):
        from .._common import check_op, check_value
        from ....expr._elementwise import element

        if cls.block_threads is None:
            fail(f"{api}: specialize it first, e.g. {cls.__name__}[fx.Float32, 256]")
        check_op(api, op)
        check_value(api, value)
        if element(value) is not cls.dtype:
            fail(f"{api}: value is {element(value).__name__}, but the collective is specialized "
                 f"for {cls.dtype.__name__}")
        if not isinstance(storage, cls.SharedStorage):
            fail(f"{api}: storage must be the peeked {cls.__name__}.SharedStorage "
                 "(fx.SharedAllocator().allocate(X.SharedStorage).peek()), not "
                 f"{type(storage).__name__}")


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
    warp_ops = _warp  # where the wave-level folds and scans come from
