"""gfx950's async LDS loads and LDS transpose reads (fx.rocdl.cdna4). Each
is a type of the compiler's fly_rocdl dialect; on another chip
fx.make_copy_atom is a located error naming gfx950."""

from .._ir_types import FlyType
from ._buffer import _int

__all__ = [
    "BufferLoadAsyncLDS", "BufferLoadAsyncLDS32b", "BufferLoadAsyncLDS96b", "BufferLoadAsyncLDS128b",
    "GlobalLoadAsyncLDS", "GlobalLoadAsyncLDS32b", "GlobalLoadAsyncLDS96b", "GlobalLoadAsyncLDS128b",
    "LDSReadTrans",
]


class CopyOpCDNA4BufferLoadAsyncLDSType(FlyType):
    """`!fly_rocdl.cdna4.buffer_load_async_lds<BITS>`: gfx950's buffer load
    of BITS bits per lane into LDS."""

    kinds = ("cdna4.buffer_load_async_lds",)

    @classmethod
    def get(cls, bit_size):
        bits = _int("BufferLoadAsyncLDS", "bit_size", bit_size)
        return cls.parse(f"!fly_rocdl.cdna4.buffer_load_async_lds<{bits}>")


class CopyOpCDNA4GlobalLoadAsyncLDSType(FlyType):
    """`!fly_rocdl.cdna4.global_load_async_lds<BITS>`: gfx950's global load
    of BITS bits per lane into LDS."""

    kinds = ("cdna4.global_load_async_lds",)

    @classmethod
    def get(cls, bit_size):
        bits = _int("GlobalLoadAsyncLDS", "bit_size", bit_size)
        return cls.parse(f"!fly_rocdl.cdna4.global_load_async_lds<{bits}>")


class CopyOpCDNA4LdsReadTransposeType(FlyType):
    """`!fly_rocdl.cdna4.lds_read_trans<G, BITS>`: gfx950's LDS read that
    transposes G-bit elements across a row of 16 lanes."""

    kinds = ("cdna4.lds_read_trans",)

    @classmethod
    def get(cls, trans_granularity, bit_size):
        g = _int("LDSReadTrans", "trans_granularity", trans_granularity)
        bits = _int("LDSReadTrans", "bit_size", bit_size)
        return cls.parse(f"!fly_rocdl.cdna4.lds_read_trans<{g}, {bits}>")


def BufferLoadAsyncLDS(bit_size):
    """The buffer-to-LDS load of fx.rocdl.BufferCopyLDS (same addressing,
    range check and fields `soffset` / `imm_offset`) in gfx950's widths,
    `bit_size` 32, 96 or 128 bits per lane, for kernels that group their
    loads with fx.rocdl.asyncmark() and wait with
    fx.rocdl.wait_asyncmark(n)."""
    return CopyOpCDNA4BufferLoadAsyncLDSType.get(bit_size)


def BufferLoadAsyncLDS32b(): return BufferLoadAsyncLDS(32)
def BufferLoadAsyncLDS96b(): return BufferLoadAsyncLDS(96)
def BufferLoadAsyncLDS128b(): return BufferLoadAsyncLDS(128)


def GlobalLoadAsyncLDS(bit_size):
    """gfx950's load of `bit_size` bits (32, 96 or 128) per lane from a
    global tensor straight to LDS (`global_load_lds_dword*`): LDS is written
    at M0 + lane * bit_size / 8, M0 the destination of the wave's first
    active lane. No fields; completion as for BufferLoadAsyncLDS."""
    return CopyOpCDNA4GlobalLoadAsyncLDSType.get(bit_size)


def GlobalLoadAsyncLDS32b(): return GlobalLoadAsyncLDS(32)
def GlobalLoadAsyncLDS96b(): return GlobalLoadAsyncLDS(96)
def GlobalLoadAsyncLDS128b(): return GlobalLoadAsyncLDS(128)


def LDSReadTrans(trans_granularity, bit_size):
    """gfx950's transposing LDS read (ds_read_b64_tr_b16 and kin) of
    `trans_granularity`-bit elements, `bit_size` bits per lane: (16, 64),
    (8, 64), (4, 64) or (6, 96). The atom's 16 threads each read bit_size
    contiguous bits; thread t then holds elements t, t + 16, t + 32, ... of
    the 16 reads taken one after the other. The destination is registers."""
    return CopyOpCDNA4LdsReadTransposeType.get(trans_granularity, bit_size)


# FlyDSL's shorthands for the four forms (outside its stable list).
def LDSReadTrans4_64b(): return LDSReadTrans(4, 64)
def LDSReadTrans8_64b(): return LDSReadTrans(8, 64)
def LDSReadTrans6_96b(): return LDSReadTrans(6, 96)
def LDSReadTrans16_64b(): return LDSReadTrans(16, 64)
