"""The per-family s_waitcnt(vmcnt, lgkmcnt, expcnt) of fx.rocdl.cdna3/rdna3/rdna4.

Each packs the counters into the 16-bit immediate of the chip family's
S_WAITCNT (`rocdl.s.waitcnt`); a counter left at None is given its field's
maximum, which the hardware reads as "do not wait on it". Field positions,
from AMD's ISA documents:

    gfx9 (CDNA3, CDNA4)   vmcnt [3:0] (low bits) and [15:14] (high bits),
                          expcnt [6:4], lgkmcnt [11:8]
    gfx11, gfx12          expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10]

A counter is a compile-time value (a Python int or a static fx integer),
since it is an immediate of the instruction.
"""

from __future__ import annotations

from ...tracing.ir import user_location
from ...tracing.errors import TraceError
from ...tracing.trace import builder
from .. import numeric as nm

__all__: list = []


def _fail(message):
    raise TraceError(message, *user_location()[:2])


def static_count(api: str, name: str, value, maximum: int, where: str = "") -> int:
    """`value` as a Python int in [0, maximum] (None: maximum), else a
    located error naming `api` and the argument."""
    if value is None:
        return maximum
    if isinstance(value, nm.Numeric) and not isinstance(value, nm.Vector):
        if not value.is_static():
            _fail(f"{api}: {name} must be a compile-time integer (a Python int or a static "
                  "fx integer), not a run-time value")
        if value.is_float:
            _fail(f"{api}: {name} must be an integer, not {type(value).__name__}")
        value = value.host_value
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(f"{api}: {name} must be a Python int or a static fx integer, not "
              f"{type(value).__name__}")
    if not 0 <= value <= maximum:
        _fail(f"{api}: {name}={value} is out of range: it must be in [0, {maximum}]{where}")
    return int(value)


def emit_waitcnt(bitfield: int) -> None:
    builder().op("rocdl.s.waitcnt", [], [], f"bitfield = {bitfield} : i32")


def gfx9_bitfield(api, vmcnt, lgkmcnt, expcnt, where=""):
    vm = static_count(api, "vmcnt", vmcnt, 63, where)
    lgkm = static_count(api, "lgkmcnt", lgkmcnt, 15, where)
    exp = static_count(api, "expcnt", expcnt, 7, where)
    return (vm & 0xF) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8)


def gfx11_bitfield(api, vmcnt, lgkmcnt, expcnt, where=""):
    vm = static_count(api, "vmcnt", vmcnt, 63, where)
    lgkm = static_count(api, "lgkmcnt", lgkmcnt, 63, where)
    exp = static_count(api, "expcnt", expcnt, 7, where)
    return exp | (lgkm << 4) | (vm << 10)


def cdna3_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx9 (CDNA3/CDNA4) encoding: wait until at most
    vmcnt vector-memory, lgkmcnt LDS/scalar-memory and expcnt export
    operations are outstanding (vmcnt <= 63, lgkmcnt <= 15, expcnt <= 7)."""
    emit_waitcnt(gfx9_bitfield("fx.rocdl.cdna3.s_waitcnt", vmcnt, lgkmcnt, expcnt))


def rdna3_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx11 (RDNA3) encoding (vmcnt, lgkmcnt <= 63,
    expcnt <= 7)."""
    emit_waitcnt(gfx11_bitfield("fx.rocdl.rdna3.s_waitcnt", vmcnt, lgkmcnt, expcnt))


def rdna4_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx12 (RDNA4) field layout, the same as gfx11's
    (vmcnt, lgkmcnt <= 63, expcnt <= 7); the backend turns it into gfx12's
    separate s_wait_* counters."""
    emit_waitcnt(gfx11_bitfield("fx.rocdl.rdna4.s_waitcnt", vmcnt, lgkmcnt, expcnt))
