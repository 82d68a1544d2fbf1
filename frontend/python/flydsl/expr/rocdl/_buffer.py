"""Buffer memory (fx.rocdl): buffer pointers and tensors, whose accesses the
hardware checks against the resource's size (num_records, in bytes): a
load past it reads 0, a store past it is dropped. BufferCopy* load from or
store to them, BufferAtomic* combine into them. Each operation is a type of
the compiler's fly_rocdl dialect (`!fly_rocdl.cdna3.buffer_copy<128>`)."""

from .. import _core
from .. import numeric as nm
from .._core import FlyValue, describe, expect, fail, wrap
from .._ir_types import AtomicOp, FlyType, element_type_text, space_name
from ...tracing.trace import builder

__all__ = [
    "BufferCopy", "BufferCopy8b", "BufferCopy16b", "BufferCopy32b", "BufferCopy64b",
    "BufferCopy128b", "BufferCopyLDS", "BufferCopyLDS32b", "BufferCopyLDS128b", "BufferAtomic", "BufferAtomicAdd", "BufferAtomicMax", "BufferAtomicMin",
    "BufferAtomicPkAdd", "make_buffer_ptr", "make_buffer_tensor", "get_buffer_rsrc",
]

#: The address space attribute of buffer memory.
BUFFER_DESC = "#fly_rocdl.buffer_desc"

#: A resource covering 4 GiB - 1 bytes: the largest num_records.
_MAX_RECORDS = 0xFFFFFFFF


class CopyOpCDNA3BufferCopyType(FlyType):
    """`!fly_rocdl.cdna3.buffer_copy<BITS[, cache = C]>`: a raw buffer load
    or store of BITS bits by one thread."""

    kinds = ("cdna3.buffer_copy",)

    @classmethod
    def get(cls, bit_size, cache_modifier=0):
        bits = _int("BufferCopy", "bit_size", bit_size)
        cache = _int("BufferCopy", "cache_modifier", cache_modifier)
        suffix = f", cache = {cache}" if cache else ""
        return cls.parse(f"!fly_rocdl.cdna3.buffer_copy<{bits}{suffix}>")


class CopyOpCDNA3BufferCopyLDSType(FlyType):
    """`!fly_rocdl.cdna3.buffer_copy_lds<BITS>`: a buffer load of BITS bits
    per lane written straight to LDS (`buffer_load_dword ... lds`)."""

    kinds = ("cdna3.buffer_copy_lds",)

    @classmethod
    def get(cls, bit_size):
        bits = _int("BufferCopyLDS", "bit_size", bit_size)
        return cls.parse(f"!fly_rocdl.cdna3.buffer_copy_lds<{bits}>")


class CopyOpCDNA3BufferAtomicType(FlyType):
    """`!fly_rocdl.cdna3.buffer_atomic<OP, T>`: a raw buffer atomic of one
    element of T by one thread."""

    kinds = ("cdna3.buffer_atomic",)

    @classmethod
    def get(cls, atomic_op, val_type):
        try:
            op = AtomicOp(int(atomic_op))
        except (TypeError, ValueError):
            fail("BufferAtomic", f"argument 'atomic_op' must be an fx.AtomicOp, not {atomic_op!r}")
        return cls.parse(f"!fly_rocdl.cdna3.buffer_atomic<{op}, {element_type_text(val_type)}>")


def _int(api, name, x):
    value = getattr(x, "value", x)
    if isinstance(value, bool) or not isinstance(value, int):
        fail(api, f"argument '{name}' must be a Python int, not {describe(x)}")
    return value


def BufferCopy(bit_size, cache_modifier=0):
    """A buffer load (source in buffer memory) or store (destination in
    buffer memory) of `bit_size` bits (8 to 128) by one thread;
    `cache_modifier` is the instruction's cache-policy bits (0 cached, 2
    nontemporal). Fields set with fx.copy(..., soffset=, imm_offset=):
    `soffset` (elements) and `imm_offset` (bytes), both 0 by default."""
    return CopyOpCDNA3BufferCopyType.get(bit_size, cache_modifier)


def BufferCopy8b(cache_modifier=0): return BufferCopy(8, cache_modifier)
def BufferCopy16b(cache_modifier=0): return BufferCopy(16, cache_modifier)
def BufferCopy32b(cache_modifier=0): return BufferCopy(32, cache_modifier)
def BufferCopy64b(cache_modifier=0): return BufferCopy(64, cache_modifier)
def BufferCopy128b(cache_modifier=0): return BufferCopy(128, cache_modifier)


def BufferCopyLDS(bit_size):
    """A buffer load of `bit_size` bits (32, or 128 where the chip has it:
    gfx950) per lane that writes LDS directly, without registers: the
    source is in buffer memory (range-checked: a dword past num_records
    writes 0), the destination in LDS. The hardware writes a wave's data at
    M0 + imm_offset + lane * bit_size / 8, M0 being the destination of the
    wave's first active lane, so a wave's calls fill one contiguous run.
    The tensors' elements need not be bit_size wide (only the addresses
    count). Fields set with fx.copy(..., soffset=, imm_offset=): `soffset`
    (elements of the source) and `imm_offset` (bytes, a Python int: the
    instruction's offset, added to both addresses). The compiler waits for
    the data before LDS is read."""
    return CopyOpCDNA3BufferCopyLDSType.get(bit_size)


def BufferCopyLDS32b(): return BufferCopyLDS(32)
def BufferCopyLDS128b(): return BufferCopyLDS(128)


def BufferAtomic(atomic_op, val_type):
    """A buffer atomic combining one element of `val_type` into buffer
    memory with `atomic_op` (fx.AtomicOp): Add on floats (f32, f64; a pair
    of f16/bf16 with BufferAtomicPkAdd), Max on floats and signed integers,
    Min on integers compared as unsigned. Field: `soffset` (elements)."""
    return CopyOpCDNA3BufferAtomicType.get(atomic_op, val_type)


def BufferAtomicAdd(val_type): return BufferAtomic(AtomicOp.Add, val_type)
def BufferAtomicMax(val_type): return BufferAtomic(AtomicOp.Max, val_type)
def BufferAtomicMin(val_type): return BufferAtomic(AtomicOp.Min, val_type)


def BufferAtomicPkAdd(val_type):
    """A packed add of two elements of `val_type` (fx.Float16, fx.BFloat16)."""
    return BufferAtomic(AtomicOp.Add, f"vector<2x{element_type_text(val_type)}>")


def _records(api, name, n):
    """num_records as an Int64 value."""
    if isinstance(n, bool) or not isinstance(n, (int, nm.Integer)):
        fail(api, f"argument '{name}' must be an integer (bytes), not {describe(n)}")
    if isinstance(n, int) and not 0 <= n <= _MAX_RECORDS:
        fail(api, f"argument '{name}' must be 0..{_MAX_RECORDS:#x} bytes, not {n}")
    return nm.convert(n, nm.Int64)


def make_buffer_ptr(ptr, num_records_bytes=None):
    """A pointer into buffer memory over the global pointer `ptr`: a raw
    buffer resource based at `ptr` of `num_records_bytes` bytes (all 4 GiB
    - 1 when None), its stride and flags those of the target chip's raw
    buffers. Element type and alignment stay those of `ptr`."""
    p = expect("make_buffer_ptr", "ptr", ptr, ("ptr",), "a Pointer")
    space = space_name(p.ir.type.address_space)
    if space != "global":
        fail("make_buffer_ptr", f"argument 'ptr' must be a pointer to global memory, not to {space} memory")
    records = _records("make_buffer_ptr", "num_records_bytes",
                       _MAX_RECORDS if num_records_bytes is None else num_records_bytes)
    t = _core.parse_type(f"!fly.ptr<{p.ir.type.element_type}, {BUFFER_DESC}, align<{p.alignment}>>")
    (v,) = builder().op("fly_rocdl.make_buffer_ptr", [p.ir, records.ir], [t])
    return wrap(v)


def make_buffer_tensor(tensor, max_size=True, *, num_records_bytes=None):
    """The tensor `tensor` (in global memory) with its pointer in buffer
    memory, its layout unchanged. The resource's size: `num_records_bytes`
    when given; else 4 GiB - 1 when `max_size` (no range check that
    matters); else the tensor's extent, cosize(layout) elements in bytes,
    so that accesses past the tensor's last element read 0 and are
    dropped."""
    from ..primitive import cosize, get_iter, get_layout, get_scalar, make_view
    t = expect("make_buffer_tensor", "tensor", tensor, ("memref",), "a tensor in memory")
    if num_records_bytes is None and not max_size:
        extent = get_scalar(cosize(get_layout(t)))
        elem_bytes = _element_bytes(t)
        if isinstance(extent, int):
            num_records_bytes = min(extent * elem_bytes, _MAX_RECORDS)
        else:
            num_records_bytes = nm.convert(extent, nm.Int64) * elem_bytes
    return make_view(make_buffer_ptr(get_iter(t), num_records_bytes), get_layout(t))


def _element_bytes(t):
    width = getattr(t.element_type, "width", None)
    if not isinstance(width, int):
        fail("make_buffer_tensor", f"the tensor's elements ({t.ir.type.element_type}) have no bit width")
    return max(1, (width + 7) // 8)


class _BufferRsrc(FlyValue):
    """The `!llvm.ptr<8>` of a buffer resource (get_buffer_rsrc)."""


def get_buffer_rsrc(ptr):
    """The buffer resource (`!llvm.ptr<8>`) of a buffer pointer (of
    make_buffer_ptr, or the iterator of a make_buffer_tensor tensor),
    without the pointer's offset."""
    p = expect("get_buffer_rsrc", "ptr", ptr, ("ptr",), "a Pointer")
    if str(p.ir.type.address_space) != BUFFER_DESC:
        fail("get_buffer_rsrc", f"argument 'ptr' must be a buffer pointer (make_buffer_ptr), "
                                f"not a pointer to {space_name(p.ir.type.address_space)} memory")
    (v,) = builder().op("fly_rocdl.get_buffer_rsrc", [p.ir], [_core.parse_type("!llvm.ptr<8>")])
    return _BufferRsrc(v)
