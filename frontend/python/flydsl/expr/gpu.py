"""Thread and block indices, dimensions and barriers of the traced kernel."""

from __future__ import annotations

from ..compiler.ir import parse_type
from ..compiler.trace import builder
from . import numeric as nm
from ._smem import SharedAllocator
from ._warp import shuffle, shuffle_down, shuffle_up, shuffle_xor, wave_size

__all__ = ["thread_idx", "block_idx", "block_dim", "grid_dim", "barrier", "SharedAllocator", "shuffle", "wave_size",
           "shuffle_xor", "shuffle_up", "shuffle_down"]


class _Dim3:
    """`.x`, `.y`, `.z` of one of the gpu dialect's index ops, as Int32."""

    def __init__(self, op: str):
        self._op = op

    def _get(self, dim: str) -> nm.Int32:
        b = builder()
        (i,) = b.op(self._op, [], [parse_type("index")], f"dimension = #gpu<dim {dim}>")
        (v,) = b.op("arith.index_cast", [i], [parse_type("i32")])
        return nm.Int32(v)

    @property
    def x(self): return self._get("x")

    @property
    def y(self): return self._get("y")

    @property
    def z(self): return self._get("z")


thread_idx = _Dim3("gpu.thread_id")
block_idx = _Dim3("gpu.block_id")
block_dim = _Dim3("gpu.block_dim")
grid_dim = _Dim3("gpu.grid_dim")


def barrier() -> None:
    """All threads of the workgroup meet here (LDS writes become visible)."""
    builder().op("gpu.barrier", [])
