"""Waits, scheduling hints and lane moves of fx.rocdl (SPEC §4):

    s_waitcnt(bitfield=None, *, vmcnt=None, lgkmcnt=None, expcnt=None)
    asyncmark(), wait_asyncmark(count=0)
    sched_barrier(mask), sched_group_barrier(mask, size, group_id)
    sched_mfma(cnt), sched_vmem(cnt), sched_dsrd(cnt), sched_dswr(cnt)
    s_setprio(priority), s_barrier()
    readfirstlane(res, src), update_dpp(res, old, src, dpp_ctrl, row_mask,
                                        bank_mask, bound_ctrl)
    permlanex16(res, old, src0, src1, src2, fi, bound_control)      (gfx10+)
    permlane16_swap / permlane32_swap(res, old, src, fi, bound_control)  (gfx950):
                        the !llvm.struct<(i32, i32)> pair, which unpacks as two Int32

Waits and hints order the instructions of one wave and have no data
effect (the emulator, which runs every memory operation to completion at
once, drops them); s_barrier is the workgroup barrier; readfirstlane and
update_dpp move values across the lanes of a wave. Immediates (counters,
masks, priorities, DPP controls) are compile-time values, checked here so
that a bad one is an error at the user's line. The trailing `**kw` of the
MLIR builders FlyDSL forwards to (`loc=`, `ip=`) is accepted and ignored.
"""

from __future__ import annotations

from ...tracing.errors import TraceError
from ...tracing.ir import Value, parse_type, user_location
from ...tracing.trace import Trace, builder
from ... import _fly
from .. import numeric as nm
from ._waitcnt import emit_waitcnt, static_count, waitcnt_word

__all__ = ["s_waitcnt", "asyncmark", "wait_asyncmark", "sched_mfma", "sched_vmem",
           "sched_dsrd", "sched_dswr", "sched_barrier", "sched_group_barrier", "s_setprio",
           "s_barrier", "readfirstlane", "update_dpp", "permlanex16", "permlane16_swap",
           "permlane32_swap"]


def _fail(message):
    raise TraceError(message, *user_location()[:2])


def _family() -> tuple[str, str]:
    arch = Trace.current().arch
    return arch, _fly.chip_info(arch)["family"]


def _check_kw(api, kw):
    unknown = [k for k in kw if k not in ("loc", "ip")]
    if unknown:
        _fail(f"{api}: unexpected keyword argument(s) " + ", ".join(f"{k}=" for k in unknown))


# -- waits ------------------------------------------------------------------

def s_waitcnt(bitfield=None, *, vmcnt=None, lgkmcnt=None, expcnt=None):
    """S_WAITCNT: wait until at most `vmcnt` vector-memory, `lgkmcnt`
    LDS/scalar-memory/message and `expcnt` export operations of this wave
    are outstanding, encoded for the chip compiled for (a counter left at
    None is not waited on). `bitfield` is the instruction's raw 16-bit
    immediate instead, and excludes the named counters."""
    api = "fx.rocdl.s_waitcnt"
    if bitfield is not None:
        if vmcnt is not None or lgkmcnt is not None or expcnt is not None:
            _fail(f"{api}: a raw bitfield cannot be combined with vmcnt=, lgkmcnt= or expcnt=")
        emit_waitcnt(static_count(api, "bitfield", bitfield, 0xFFFF))
        return
    arch, family = _family()
    word = waitcnt_word(api, arch, vmcnt, lgkmcnt, expcnt, f" on {arch}")
    if word is not None:
        return emit_waitcnt(word)
    _fail(f"{api}: {arch} has no s_waitcnt counters by these names; it is available on "
          "gfx942, gfx950 (CDNA3/CDNA4), gfx11xx (RDNA3) and gfx120x (RDNA4)")


def asyncmark():
    """Closes the current group of asynchronous LDS loads (the async copy
    atoms); wait_asyncmark(n) waits for all but the last n groups. LLVM 22
    has no group-marking intrinsic, so this emits nothing: the wait is
    conservative instead (below)."""
    Trace.current()


def wait_asyncmark(count=0):
    """Waits until at most `count` groups of asynchronous LDS loads (closed
    by asyncmark) are outstanding; None waits for nothing. Without group
    tracking in LLVM 22, any count below the maximum drains every
    outstanding vector-memory load (s_waitcnt vmcnt(0) on gfx9 and gfx11,
    s_wait_loadcnt 0 and s_wait_asynccnt 0 on gfx12), which satisfies
    every count."""
    api = "fx.rocdl.wait_asyncmark"
    n = static_count(api, "count", count, 0xFFFF)
    if n == 0xFFFF:
        return
    arch, family = _family()
    if family in ("CDNA3", "CDNA4", "RDNA3"):
        emit_waitcnt(waitcnt_word(api, arch, 0, None, None))
    else:
        builder().op("rocdl.s.wait.loadcnt", [], [], "count = 0 : i16")
        if family == "GFX1250":
            builder().op("rocdl.s.wait.asynccnt", [], [], "count = 0 : i16")


# -- scheduling -------------------------------------------------------------

# The instruction classes of llvm.amdgcn.sched.barrier / sched.group.barrier
# masks, with the keywords of the rocdl dialect's sched_group_mask.
SCHED_MASK_BITS = {
    "none": 0x000, "non_mem_non_sideeffect": 0x001, "valu": 0x002, "salu": 0x004,
    "mfma_wmma": 0x008, "all_vmem": 0x010, "vmem_read": 0x020, "vmem_write": 0x040,
    "all_ds": 0x080, "ds_read": 0x100, "ds_write": 0x200, "transcendental": 0x400,
    "ldsdma": 0x800,
}
_ALL_SCHED_BITS = 0xFFF


def _sched_mask(api, mask) -> int:
    """A scheduling mask given as an int or as keywords ("valu|salu")."""
    if isinstance(mask, str):
        bits = 0
        for word in (w.strip() for w in mask.split("|")):
            if word not in SCHED_MASK_BITS:
                _fail(f"{api}: unknown mask keyword {word!r}; the keywords are "
                      + ", ".join(SCHED_MASK_BITS))
            bits |= SCHED_MASK_BITS[word]
        return bits
    bits = static_count(api, "mask", mask, 0xFFFFFFFF)
    if bits & ~_ALL_SCHED_BITS:
        _fail(f"{api}: mask=0x{bits:x} has bits outside the instruction classes "
              f"(0x{_ALL_SCHED_BITS:x})")
    return bits


def sched_barrier(mask, **kw):
    """A scheduling barrier: the backend moves no instruction across it
    except those of the classes in `mask` (0: none may cross)."""
    api = "fx.rocdl.sched_barrier"
    _check_kw(api, kw)
    builder().op("rocdl.sched.barrier", [], [], f"mask = {_sched_mask(api, mask)} : i32")


def sched_group_barrier(mask, size, group_id, **kw):
    """Asks the scheduler for a group of `size` instructions of the classes
    in `mask` at this point; groups of the same `group_id` form one
    pipeline pattern, in program order."""
    api = "fx.rocdl.sched_group_barrier"
    _check_kw(api, kw)
    bits = _sched_mask(api, mask)
    n = static_count(api, "size", size, 0x7FFFFFFF)
    gid = static_count(api, "group_id", group_id, 0x7FFFFFFF)
    builder().op("rocdl.sched.group.barrier", [], [],
                 f"groupId = {gid} : i32, mask = {bits} : i32, size = {n} : i32")


def sched_mfma(cnt):
    """A scheduling group of `cnt` MFMA/WMMA instructions (group 0)."""
    sched_group_barrier(SCHED_MASK_BITS["mfma_wmma"], cnt, 0)


def sched_vmem(cnt):
    """A scheduling group of `cnt` vector-memory reads (group 0)."""
    sched_group_barrier(SCHED_MASK_BITS["vmem_read"], cnt, 0)


def sched_dsrd(cnt):
    """A scheduling group of `cnt` LDS reads (group 0)."""
    sched_group_barrier(SCHED_MASK_BITS["ds_read"], cnt, 0)


def sched_dswr(cnt):
    """A scheduling group of `cnt` LDS writes (group 0)."""
    sched_group_barrier(SCHED_MASK_BITS["ds_write"], cnt, 0)


def s_setprio(priority, **kw):
    """S_SETPRIO: this wave's issue priority, 0 (lowest) to 3."""
    api = "fx.rocdl.s_setprio"
    _check_kw(api, kw)
    p = static_count(api, "priority", priority, 3)
    builder().op("rocdl.s.setprio", [], [], f"priority = {p} : i16")


def s_barrier(**kw):
    """S_BARRIER: every wave of the workgroup meets here (no memory fence:
    fx.barrier() is the barrier that also orders LDS)."""
    _check_kw("fx.rocdl.s_barrier", kw)
    builder().op("rocdl.s.barrier", [])


# -- lane moves -------------------------------------------------------------

def _result_class(api, res):
    """The numeric class of a result type given as fx.T.*, a type handle,
    MLIR text or a numeric class."""
    if isinstance(res, type) and issubclass(res, nm.Numeric) and res.mlir_type:
        return res
    text = str(res) if isinstance(res, (_fly.Type, str)) else None
    if text is not None:
        try:
            return nm.numeric_class(text) if not text.startswith("vector<") else None
        except Exception:  # noqa: BLE001 - reported below
            pass
    _fail(f"{api}: res must be a scalar type (fx.T.i32, fx.Int32, ...), not {res!r}")


def _lane_value(api, name, value, cls):
    if isinstance(value, (bool, int, float)) and not isinstance(value, nm.Numeric):
        return nm.constant(value, cls)
    if isinstance(value, Value):  # a raw SSA value (FlyDSL's kernels pass them)
        if str(value.type) != cls.mlir_type:
            _fail(f"{api}: {name} is a value of type {value.type} but res is "
                  f"{cls.mlir_type}; they must be the same type")
        return cls(Value(value.name, value.type))
    if not isinstance(value, nm.Numeric) or isinstance(value, nm.Vector):
        _fail(f"{api}: {name} must be a scalar numeric, not {type(value).__name__}")
    if type(value) is not cls:
        _fail(f"{api}: {name} is a {type(value).__name__} but res is {cls.__name__}; they "
              "must be the same type")
    return value


def readfirstlane(res, src, **kw):
    """V_READFIRSTLANE: the value `src` has in the lowest active lane of the
    wave, in every lane (a wave-uniform value); `res` is its type."""
    api = "fx.rocdl.readfirstlane"
    _check_kw(api, kw)
    cls = _result_class(api, res)
    if cls.width > 64 or cls is nm.Index or cls is nm.Boolean:
        _fail(f"{api}: res {cls.__name__} is not a 8- to 64-bit integer or float type")
    v = _lane_value(api, "src", src, cls)
    (r,) = builder().op("rocdl.readfirstlane", [v.ir_value()], [cls.type_handle()])
    return cls(r)


# DPP controls (dpp_ctrl) each chip family decodes, as (first, last) ranges.
_DPP_COMMON = [(0x000, 0x0FF), (0x101, 0x10F), (0x111, 0x11F), (0x121, 0x12F),
               (0x140, 0x141)]
_DPP_GFX9 = _DPP_COMMON + [(0x130, 0x130), (0x134, 0x134), (0x138, 0x138), (0x13C, 0x13C),
                           (0x142, 0x143), (0x150, 0x15F)]
_DPP_GFX10_PLUS = _DPP_COMMON + [(0x150, 0x16F)]


def update_dpp(res, old, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, **kw):
    """A DPP move (V_MOV_B32 with DPP): lane i takes `src` of the lane
    `dpp_ctrl` selects (quad_perm 0x00-0xFF, row_shl 0x101-0x10F, row_shr
    0x111-0x11F, row_ror 0x121-0x12F, row_mirror 0x140, row_half_mirror
    0x141; gfx9: wave_shl/rol/shr/ror 0x130/0x134/0x138/0x13C, row_bcast
    0x142/0x143, row_newbcast 0x150-0x15F; gfx10+: row_share 0x150-0x15F,
    row_xmask 0x160-0x16F). Lanes whose row (16 lanes) is off in `row_mask`
    or whose bank (4 lanes of a row) is off in `bank_mask` keep `old`; a
    lane whose source is out of range or inactive gets 0 with `bound_ctrl`,
    else keeps `old`. Values are 32-bit."""
    api = "fx.rocdl.update_dpp"
    _check_kw(api, kw)
    cls = _result_class(api, res)
    if cls.width != 32 or cls is nm.Index:
        _fail(f"{api}: res must be a 32-bit type (Int32, Uint32, Float32), not {cls.__name__}")
    old_v = _lane_value(api, "old", old, cls)
    src_v = _lane_value(api, "src", src, cls)
    ctrl = static_count(api, "dpp_ctrl", dpp_ctrl, 0x1FF)
    arch, family = _family()
    ranges = _DPP_GFX9 if family in ("CDNA3", "CDNA4") else _DPP_GFX10_PLUS
    if not any(lo <= ctrl <= hi for lo, hi in ranges):
        _fail(f"{api}: dpp_ctrl=0x{ctrl:x} is not a DPP control {arch} decodes")
    rows = static_count(api, "row_mask", row_mask, 0xF)
    banks = static_count(api, "bank_mask", bank_mask, 0xF)
    if not isinstance(bound_ctrl, (bool, int)) or isinstance(bound_ctrl, nm.Numeric):
        _fail(f"{api}: bound_ctrl must be a Python bool, not {type(bound_ctrl).__name__}")
    attrs = (f"bankMask = {banks} : i32, boundCtrl = {'true' if bound_ctrl else 'false'}, "
             f"dppCtrl = {ctrl} : i32, rowMask = {rows} : i32")
    (r,) = builder().op("rocdl.update.dpp", [old_v.ir_value(), src_v.ir_value()],
                        [cls.type_handle()], attrs)
    return cls(r)



def _flag(api, name, value):
    if not isinstance(value, (bool, int)) or isinstance(value, nm.Numeric):
        _fail(f"{api}: {name} must be a Python bool, not {type(value).__name__}")
    return "true" if value else "false"


def permlanex16(res, old, src0, src1, src2, fi, bound_control, **kw):
    """V_PERMLANEX16_B32 (gfx10 and later): lane i reads `src0` of lane
    `sel` of the other row of 16 in its half-wave of 32, where `sel` is
    nibble (i mod 16) of the 64-bit selector src2:src1 (src1 the low word;
    both wave-uniform Int32). `fi` reads inactive source lanes too; a lane
    whose source gives no value gets 0 with `bound_control`, else `old`."""
    api = "fx.rocdl.permlanex16"
    _check_kw(api, kw)
    arch, family = _family()
    if family in ("CDNA3", "CDNA4"):
        _fail(f"{api}: {arch} has no v_permlanex16_b32; it needs gfx10 or later "
              "(gfx11xx, gfx120x, gfx1250)")
    cls = _result_class(api, res)
    if cls.width != 32 or cls is nm.Index:
        _fail(f"{api}: res must be a 32-bit type (Int32, Uint32, Float32), not {cls.__name__}")
    old_v = _lane_value(api, "old", old, cls)
    src_v = _lane_value(api, "src0", src0, cls)
    sel1 = _lane_value(api, "src1", src1, nm.Int32)
    sel2 = _lane_value(api, "src2", src2, nm.Int32)
    attrs = f"boundControl = {_flag(api, 'bound_control', bound_control)}, fi = {_flag(api, 'fi', fi)}"
    (r,) = builder().op("rocdl.permlanex16",
                        [old_v.ir_value(), src_v.ir_value(), sel1.ir_value(), sel2.ir_value()],
                        [cls.type_handle()], attrs)
    return cls(r)


def _permlane_swap(api, op, res, old, src, fi, bound_control, kw):
    _check_kw(api, kw)
    arch, family = _family()
    if family != "CDNA4":
        _fail(f"{api}: {arch} has no {op.replace('rocdl.', 'v_').replace('.', '_')}_b32; "
              "it needs gfx950")
    if res is not None:
        text = str(res).replace(" ", "")
        if text not in ("!llvm.struct<(i32,i32)>",):
            _fail(f"{api}: res must be the pair type !llvm.struct<(i32, i32)> (or None), "
                  f"not {res!r}")
    old_v = _lane_value(api, "old", old, nm.Int32)
    src_v = _lane_value(api, "src", src, nm.Int32)
    pair = parse_type("!llvm.struct<(i32, i32)>")
    attrs = f"boundControl = {_flag(api, 'bound_control', bound_control)}, fi = {_flag(api, 'fi', fi)}"
    (r,) = builder().op(op, [old_v.ir, src_v.ir], [pair], attrs)
    return SwapPair(r.name, r.type)


class SwapPair(Value):
    """The !llvm.struct<(i32, i32)> a permlane swap gives (FlyDSL's result:
    `llvm.extractvalue` takes it), which also unpacks as the pair
    (new old, new src) of Int32: `d, s = fx.rocdl.permlane32_swap(...)`."""

    def __iter__(self):
        b = builder()
        for i in range(2):
            (half,) = b.op("llvm.extractvalue", [Value(self.name, self.type)],
                           [nm.Int32.type_handle()], f"position = array<i64: {i}>")
            yield nm.Int32(half)


def permlane16_swap(res, old, src, fi, bound_control, **kw):
    """V_PERMLANE16_SWAP_B32 (gfx950): in each pair of rows of 16 lanes, the
    odd row of `old` (the destination register) and the even row of `src`
    trade places. `res` is the pair type !llvm.struct<(i32, i32)> or None;
    `old` and `src` Int32 numerics, raw i32 values or Python ints. Returns
    the pair as FlyDSL does (an !llvm.struct<(i32, i32)> value), which also
    unpacks as two Int32: (new old, new src)."""
    return _permlane_swap("fx.rocdl.permlane16_swap", "rocdl.permlane16.swap", res, old, src,
                          fi, bound_control, kw)


def permlane32_swap(res, old, src, fi, bound_control, **kw):
    """V_PERMLANE32_SWAP_B32 (gfx950): lanes 32-63 of `old` and lanes 0-31
    of `src` trade places. Operands and result as permlane16_swap's."""
    return _permlane_swap("fx.rocdl.permlane32_swap", "rocdl.permlane32.swap", res, old, src,
                          fi, bound_control, kw)
