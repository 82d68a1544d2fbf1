"""The kernel's place in the launch (FlyDSL's `fx.gpu`): thread, block and
lane indices, dimensions, the block barrier, the wave shuffles, the
compile-time block and wave sizes, the SharedAllocator of LDS and the LDS
address space of memref types (`smem_space()`, `lds_space()`); the
gpu dialect's own builders (`fx.gpu.thread_id("x")`) for other names.

    tid = fx.thread_idx.x
    bid_x, bid_y, _ = fx.block_idx
    total = x + fx.shuffle_xor(x, 1, fx.num_warp_threads())
"""

from __future__ import annotations

import builtins

from ..tracing.errors import TraceError
from ..tracing.ir import parse_type, user_location
from ..tracing.trace import builder
from . import _warp
from . import numeric as nm
from ._smem import SharedAllocator
from ._late import provide

__all__ = ["thread_idx", "lane_id", "block_idx", "block_dim", "grid_dim", "barrier",
           "shuffle_xor", "shuffle_up", "shuffle_down", "shuffle_idx", "known_block_size",
           "num_warp_threads", "SharedAllocator"]  # (smem_space, lds_space: fx.gpu's only)


def _index_op(op: str, attrs: str = "") -> nm.Int32:
    b = builder()
    (i,) = b.op(op, [], [parse_type("index")], attrs)
    (v,) = b.op("arith.index_cast", [i], [parse_type("i32")])
    return nm.Int32(v)


class _Dim3:
    """`.x`, `.y`, `.z` (or unpacking: `x, y, z = fx.block_idx`) of one of the
    gpu dialect's index ops, as Int32 values."""

    def __init__(self, op: str, name: str):
        self._op = op
        self._name = name

    def _get(self, dim: str) -> nm.Int32:
        return _index_op(self._op, f"dimension = #gpu<dim {dim}>")

    @property
    def x(self): return self._get("x")

    @property
    def y(self): return self._get("y")

    @property
    def z(self): return self._get("z")

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __repr__(self) -> str:
        return f"fx.{self._name}"


thread_idx = _Dim3("gpu.thread_id", "thread_idx")
block_idx = _Dim3("gpu.block_id", "block_idx")
block_dim = _Dim3("gpu.block_dim", "block_dim")
grid_dim = _Dim3("gpu.grid_dim", "grid_dim")


def smem_space(int=False):  # noqa: A002 - FlyDSL's keyword
    """The LDS (workgroup) address space of memref types: the attribute
    `#gpu.address_space<workgroup>`, or with `int=True` its number in the
    gpu dialect's AddressSpace enum."""
    from .._mlir import ir
    from .._mlir.dialects.gpu import AddressSpace

    if int:
        return builtins.int(AddressSpace.Workgroup)
    return ir.Attribute.parse("#gpu.address_space<workgroup>")


lds_space = smem_space


def lane_id() -> nm.Int32:
    """The calling thread's lane in its wave, from 0 to num_warp_threads() - 1."""
    return _index_op("gpu.lane_id")


def barrier(*args, **kwargs) -> None:
    """All threads of the workgroup meet here; their LDS writes before it
    are visible to all of them after it. (FlyDSL forwards its arguments to
    the MLIR builder, which takes none but its location: `loc=`/`ip=` are
    accepted and ignored.)"""
    unknown = [k for k in kwargs if k not in ("loc", "ip")]
    if args or unknown:
        raise TraceError("fx.barrier takes no arguments (got "
                         + ", ".join([repr(a) for a in args] + [f"{k}=" for k in unknown]) + ")",
                         *user_location()[:2])
    builder().op("gpu.barrier", [])


def shuffle_xor(value, offset, width):
    """`value` of lane `lane_id ^ offset` (a butterfly exchange) within
    segments of `width` lanes."""
    return _warp.shuffle("shuffle_xor", "xor", value, offset, width)


def shuffle_up(value, offset, width):
    """`value` of lane `lane_id - offset` within segments of `width` lanes
    (the lanes below `offset` in their segment read below it: mask them)."""
    return _warp.shuffle("shuffle_up", "up", value, offset, width)


def shuffle_down(value, offset, width):
    """`value` of lane `lane_id + offset`; a lane whose source is past the
    end of its `width`-lane segment keeps its own value."""
    return _warp.shuffle("shuffle_down", "down", value, offset, width)


def shuffle_idx(value, lane, width):
    """`value` of lane `lane` of the wave (every lane may name another); a
    lane naming a lane past the end of its `width`-lane segment keeps its
    own value."""
    return _warp.shuffle("shuffle_idx", "idx", value, lane, width)


class _NoBlockSizeError(TraceError, RuntimeError):
    """fx.known_block_size() with no block size to give: a TraceError, and
    the RuntimeError FlyDSL documents for it."""


def known_block_size():
    """The kernel's block size (x, y, z) as Python ints: its
    `@flyc.kernel(known_block_size=...)`, or else the block of a launch
    whose dimensions are all static (Python ints or numerics of them: the
    kernel is traced for it). Also in a @flyc.jit helper the body calls.
    Without one (outside a kernel body, or a launch with a dynamic block),
    a TraceError that is the RuntimeError FlyDSL raises."""
    from ..tracing.trace import KernelTrace

    record = KernelTrace.current()
    if record is None:
        raise _NoBlockSizeError("fx.known_block_size(): no compile-time block size outside of "
                                "a @flyc.kernel body", *user_location()[:2])
    if record.block_size is None:
        raise _NoBlockSizeError(f"fx.known_block_size(): kernel {record.name} has no "
                                "compile-time block size; give @flyc.kernel(known_block_size=(x, "
                                "y, z)) or launch it with a block of Python ints (or numerics "
                                "of them)", *user_location()[:2])
    return record.block_size


def num_warp_threads() -> int:
    """The lanes of a wave on the chip compiled for, as a Python int (64 on
    gfx9, 32 on gfx11/gfx12); called on the host, outside any trace, the
    chip a compile would target now (ARCH, else the machine's GPU)."""
    return _warp.wave_lanes()


provide(shuffle_xor=shuffle_xor)


def __getattr__(name: str):
    """The gpu dialect's own builder or op class of that name
    (`fx.gpu.thread_id("x")`, `fx.gpu.BarrierOp`; flydsl._mlir, imported on
    first use), for the names this module does not define, as FlyDSL's
    fx.gpu has them."""
    import importlib

    raw = importlib.import_module("flydsl._mlir.dialects.gpu")
    value = getattr(raw, name, None) if not name.startswith("_") else None
    if value is None or not getattr(value, "__module__", "").startswith("flydsl._mlir.dialects"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
