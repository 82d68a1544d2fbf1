"""FlyDSL's LDS helpers (`flydsl.utils.smem_allocator`): the capacity check
(`SMEM_CAPACITY_MAP`, `check_smem_capacity`: the bytes of shared memory one
workgroup may use on each supported chip, from the compiler's chip table)
and the legacy allocator FlyDSL's older kernels use, on memrefs of the
workgroup address space:

    allocator = SmemAllocator(None, arch=arch)
    offset = allocator._align(allocator.ptr, 16)   # bytes are reserved by hand
    allocator.ptr = offset + 4 * n

    @flyc.kernel
    def k(...):
        red = SmemPtr(allocator.get_base(), offset, T.f32, shape=(n,))
        red.store(x, [i]); y = red.load([j])

    @flyc.jit
    def launch(...):
        allocator.finalized = False
        with ir.InsertionPoint(CompilationContext.get_current().gpu_module_body):
            allocator.finalize()          # the memref.global every kernel module gets
        k(...).launch(...)

New kernels allocate LDS with fx.SharedAllocator instead. (This module
builds IR, so it sits in fx's layer of the package, not in flydsl.utils'.)
"""

from __future__ import annotations

from .. import _fly
from .._mlir import ir
from .._mlir.dialects import arith, memref
from ..expr.gpu import lds_space
from ..tracing.errors import TraceError
from ..tracing.ir import user_location

__all__ = ["SMEM_CAPACITY_MAP", "check_smem_capacity", "SmemAllocator", "SmemPtr",
           "get_mlir_type_size", "get_mlir_type_align", "get_op_result_or_value",
           "get_index_value"]

SMEM_CAPACITY_MAP = {chip: _fly.chip_info(chip)["lds_bytes_per_workgroup"]
                     for chip in _fly.supported_chips()}


def check_smem_capacity(allocated_bytes: int, arch: str | None = None) -> None:
    """RuntimeError when `allocated_bytes` exceed a workgroup's LDS on
    `arch` (no check without an arch, or for a chip outside the table)."""
    limit = SMEM_CAPACITY_MAP.get(str(arch)) if arch is not None else None
    if limit is not None and allocated_bytes > limit:
        raise RuntimeError(f"shared memory overflow: {allocated_bytes} bytes requested, but a "
                           f"workgroup on {arch} has {limit} bytes of LDS")


def _fail(message: str):
    raise TraceError(message, *user_location()[:2])


# -- types and values -------------------------------------------------------------

def get_mlir_type_size(mlir_type) -> int:
    """The bytes of a value of an integer, float or vector type."""
    if isinstance(mlir_type, ir.VectorType):
        count = 1
        for extent in mlir_type.shape:
            count *= extent
        return count * get_mlir_type_size(mlir_type.element_type)
    width = getattr(mlir_type, "width", None)
    if not isinstance(width, int) or width <= 0:
        _fail(f"SmemPtr: {mlir_type} has no size in bytes (an integer, float or vector "
              "type is needed)")
    return max(1, width // 8)


def get_mlir_type_align(mlir_type) -> int:
    """The alignment of a value of the type in LDS: its size, at most 16."""
    return min(get_mlir_type_size(mlir_type), 16)


def get_op_result_or_value(op_or_value):
    """The SSA value of an op with one result, an fx value or a raw value."""
    if isinstance(op_or_value, ir.Value):
        return op_or_value
    ir_value = getattr(op_or_value, "ir_value", None)
    if callable(ir_value):
        return ir_value()
    for name in ("result", "results"):
        found = getattr(op_or_value, name, None)
        if found is not None:
            return found if name == "result" else found[0]
    return op_or_value


def get_index_value(op_or_value):
    """An index for memref.load / store: a Python int as an index constant,
    an integer value cast to index."""
    index = ir.IndexType.get()
    if isinstance(op_or_value, int) and not isinstance(op_or_value, bool):
        return arith.constant(index, op_or_value)
    value = get_op_result_or_value(op_or_value)
    if isinstance(value, ir.Value) and value.type != index:
        return arith.index_cast(index, value)
    return value


def _lds_bytes(nbytes: int):
    return ir.MemRefType.get([nbytes], ir.IntegerType.get_signless(8), memory_space=lds_space())


# -- the allocator ------------------------------------------------------------------

class SmemAllocator:
    """One LDS buffer of bytes (an i8 memref.global named `global_sym_name`)
    whose layout the kernel author keeps: `ptr` is the bytes reserved so
    far (set by hand, `_align` rounds an offset up), `finalize()` declares
    the buffer in the module body, `get_base()` gives it inside a kernel."""

    BASE_ALIGNMENT = 128  # the buffer's size is rounded up to this

    def __init__(self, ctx=None, arch: str | None = None, global_sym_name: str = "smem_storage"):
        self.ctx = ctx
        self.arch = arch
        self.global_sym_name = global_sym_name
        self.ptr = 0
        self.max_size = 0
        self.alignment = self.BASE_ALIGNMENT
        self.finalized = False
        self.global_op = None

    @staticmethod
    def _align(ptr: int, align: int) -> int:
        """`ptr` rounded up to a multiple of `align`."""
        return -(-ptr // align) * align

    @property
    def total_bytes(self) -> int:
        """The buffer's size: `ptr` rounded up to BASE_ALIGNMENT (at least that)."""
        return max(self._align(self.ptr, self.BASE_ALIGNMENT), self.BASE_ALIGNMENT)

    def finalize(self):
        """Declares the buffer (a memref.global of the workgroup address
        space) where ops are being inserted: the module body
        (`CompilationContext.get_current().gpu_module_body`). Once, until
        `finalized` is set False again (a new trace)."""
        if self.finalized:
            return self.global_op
        check_smem_capacity(self.total_bytes, self.arch)
        # private: the buffer is the module's own (no other module links to it)
        self.global_op = memref.global_(sym_name=self.global_sym_name,
                                        type_=_lds_bytes(self.total_bytes),
                                        sym_visibility="private", alignment=1024)
        self.finalized = True
        return self.global_op

    def get_base(self):
        """The buffer, inside a kernel: a memref<total_bytes x i8> of LDS."""
        return memref.get_global(_lds_bytes(self.total_bytes), self.global_sym_name)


class SmemPtr:
    """A typed view of the bytes at `byte_offset` of an allocator's buffer:
    `shape` elements of `element_type` (one element without a shape)."""

    def __init__(self, base_memref, byte_offset: int, element_type, shape=None):
        self.base_memref = base_memref
        self.byte_offset = byte_offset
        # an MLIR type (fx.T.f32), or a numeric class (fx.Float32)
        self.element_type = (element_type.ir_type if isinstance(element_type, type)
                             else element_type)
        self.shape = tuple(shape) if shape else None
        self._view_cache = None

    def get(self):
        """The view (memref.view of the buffer), made once."""
        if self._view_cache is None:
            offset = arith.constant(ir.IndexType.get(), self.byte_offset)
            view_type = ir.MemRefType.get(list(self.shape or (1,)), self.element_type,
                                          memory_space=lds_space())
            self._view_cache = memref.view(view_type, get_op_result_or_value(self.base_memref),
                                           offset, [])
        return self._view_cache

    def _indices(self, idxs):
        if idxs is None:  # the first element
            return [get_index_value(0) for _ in self.shape or (1,)]
        return [get_index_value(i) for i in idxs]

    def load(self, idxs=None):
        """The element at `idxs` (ints or integer values; default all 0)."""
        return memref.load(self.get(), self._indices(idxs))

    def store(self, val, idxs=None):
        """Writes `val` (a value of the element type) at `idxs`."""
        memref.store(get_op_result_or_value(val), self.get(), self._indices(idxs))
