"""The per-family s_waitcnt(vmcnt, lgkmcnt, expcnt) of fx.rocdl.cdna3/rdna3/rdna4.

Each packs the counters into the 16-bit immediate of the chip family's
S_WAITCNT (`rocdl.s.waitcnt`) at the positions the chip table gives
(`_fly.chip_info(arch)["waitcnt"]`, from AMD's ISA documents: gfx9 splits
vmcnt into low and high bits); a counter left at None is given its field's
maximum, which the hardware reads as "do not wait on it". A counter is a
compile-time value (a Python int or a static fx integer), since it is an
immediate of the instruction.
"""

from __future__ import annotations

from ... import _fly
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


def waitcnt_word(api, arch, vmcnt, lgkmcnt, expcnt, where=""):
    """The S_WAITCNT immediate of `arch` for these counts; None when the
    chip has no S_WAITCNT counters (gfx1250)."""
    fields = _fly.chip_info(arch)["waitcnt"]
    if fields is None:
        return None
    word = 0
    for name, count in (("vmcnt", vmcnt), ("lgkmcnt", lgkmcnt), ("expcnt", expcnt)):
        shift, width, high_shift, high_width = fields[name]
        n = static_count(api, name, count, (1 << (width + high_width)) - 1, where)
        word |= ((n & ((1 << width) - 1)) << shift) | ((n >> width) << high_shift)
    return word


def cdna3_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx9 (CDNA3/CDNA4) encoding: wait until at most
    vmcnt vector-memory, lgkmcnt LDS/scalar-memory and expcnt export
    operations are outstanding (vmcnt <= 63, lgkmcnt <= 15, expcnt <= 7)."""
    emit_waitcnt(waitcnt_word("fx.rocdl.cdna3.s_waitcnt", "gfx942", vmcnt, lgkmcnt, expcnt))


def rdna3_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx11 (RDNA3) encoding (vmcnt, lgkmcnt <= 63,
    expcnt <= 7)."""
    emit_waitcnt(waitcnt_word("fx.rocdl.rdna3.s_waitcnt", "gfx1100", vmcnt, lgkmcnt, expcnt))


def rdna4_s_waitcnt(vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT in the gfx12 (RDNA4) field layout, the same as gfx11's
    (vmcnt, lgkmcnt <= 63, expcnt <= 7); the backend turns it into gfx12's
    separate s_wait_* counters."""
    emit_waitcnt(waitcnt_word("fx.rocdl.rdna4.s_waitcnt", "gfx1201", vmcnt, lgkmcnt, expcnt))
