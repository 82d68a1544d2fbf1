"""Wave (warp) shuffles: values exchanged between the lanes of a wave (SPEC §7).

    shuffle(x, lane)        the value of lane `lane`            (gpu.shuffle idx)
    shuffle_xor(x, mask)    the value of lane `lane_id ^ mask`  (xor)
    shuffle_up(x, delta)    the value of lane `lane_id - delta` (up)
    shuffle_down(x, delta)  the value of lane `lane_id + delta` (down)
    wave_size()             the lanes of a wave, as a dynamic Int32

Every shuffle works within segments of `width` lanes (default: the whole
wave, `gpu.subgroup_size`; a given width must be a power of two no larger
than the wave). It returns the value only: gpu.shuffle's `valid` bit (false
when the source lane falls outside the lane's segment) is dropped, and the
value a lane gets in that case is unspecified by the gpu dialect; pass
`with_valid=True` to get `(value, valid)` with `valid` a Boolean.

Values: scalars of 32 or 64 bits directly; narrower integers, Float16 and
BFloat16 go through a 32-bit integer (bitcast, extended, shuffled, truncated
back); Booleans through an Int32. Vectors are shuffled element by element.

On AMD GPUs convert-gpu-to-rocdl lowers every mode to `ds_bpermute_b32`
(an LDS-crossbar permute, no LDS allocated) with the source lane computed
from `v_mbcnt` (64-bit values take two); an idx shuffle with a uniform lane
becomes `v_readlane_b32`. This holds on wave64 (gfx942) and wave32 (gfx1100).
"""

from __future__ import annotations

from ..compiler.ir import parse_type
from ..compiler.trace import builder
from . import numeric as nm
from ._elementwise import element, fail, lanes

__all__ = ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "wave_size"]


def wave_size() -> nm.Int32:
    """The number of lanes of a wave of the chip compiled for (64 on gfx9,
    32 on gfx11/gfx12), as a dynamic Int32 (gpu.subgroup_size; a constant
    after LLVM)."""
    b = builder()
    (i,) = b.op("gpu.subgroup_size", [], [parse_type("index")])
    (v,) = b.op("arith.index_cast", [i], [parse_type("i32")])
    return nm.Int32(v)


def _i32(fname, what, x):
    if isinstance(x, bool) or (isinstance(x, nm.Numeric) and element(x) is nm.Boolean):
        fail(f"fx.{fname}: the {what} must be an integer, not a bool")
    if isinstance(x, int):
        if x < 0:
            fail(f"fx.{fname}: the {what} must not be negative (got {x})")
        return nm.constant(x, nm.Int32)
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector) and not element(x).is_float:
        return nm.convert(x, nm.Int32)
    fail(f"fx.{fname}: the {what} must be an int or an integer numeric, not "
         f"{type(x).__name__ if not isinstance(x, nm.Numeric) else element(x).__name__}")


def _width(fname, width):
    if width is None:
        return wave_size()
    if isinstance(width, int) and not isinstance(width, bool):
        if width <= 0 or width & (width - 1) or width > 64:
            fail(f"fx.{fname}: width {width} is not a power of two from 1 to 64")
    return _i32(fname, "width", width)


def _shuffle_scalar(x, offset, width, mode):
    """gpu.shuffle of a scalar numeric: (value, valid)."""
    b = builder()
    cls = type(x)
    i1 = nm.Boolean.type_handle()
    if cls.bits in (32, 64):
        v, ok = b.op("gpu.shuffle", [x.ir, offset.ir, width.ir], [x.ir.type, i1],
                     f"mode = #gpu<shuffle_mode {mode}>")
        return cls(v), nm.Boolean(ok)
    # Narrow values: as an unsigned integer of their width, zero-extended to 32 bits.
    bits = nm.numeric_class(f"i{cls.bits}") if cls.bits != 1 else nm.Boolean
    raw = x.ir
    if cls.is_float:
        (raw,) = b.op("arith.bitcast", [raw], [parse_type(f"i{cls.bits}")])
    (wide,) = b.op("arith.extui", [raw], [parse_type("i32")])
    v, ok = b.op("gpu.shuffle", [wide, offset.ir, width.ir], [wide.type, i1],
                 f"mode = #gpu<shuffle_mode {mode}>")
    (v,) = b.op("arith.trunci", [v], [bits.type_handle()])
    if cls.is_float:
        (v,) = b.op("arith.bitcast", [v], [cls.type_handle()])
    return cls(v), nm.Boolean(ok)


def _shuffle(fname, mode, x, offset, width, with_valid):
    if not isinstance(x, nm.Numeric):
        fail(f"fx.{fname} shuffles a numeric, not {type(x).__name__}")
    cls = element(x)
    if cls.mlir_type == "index":
        fail(f"fx.{fname}: an Index value has no fixed width; cast it to Int32 or Int64")
    if cls.bits > 64:
        fail(f"fx.{fname}: {cls.__name__} is wider than 64 bits")
    offset = _i32(fname, "lane" if mode == "idx" else "offset", offset)
    width = _width(fname, width)
    # convert-gpu-to-rocdl checks a source lane only against the end of the
    # lane's segment: an idx lane is taken from lane 0 of the wave rather
    # than of the segment, and an up shuffle past the segment's start reads
    # the segment before (or wraps around the wave) and says it is valid.
    # Both are corrected here, so the documented semantics hold on AMD.
    up_ok = None
    if mode in ("idx", "up"):
        b = builder()
        i32 = parse_type("i32")
        (lane_index,) = b.op("gpu.lane_id", [], [parse_type("index")])
        (lane,) = b.op("arith.index_cast", [lane_index], [i32])
        (c0,) = b.op("arith.constant", [], [i32], "value = 0 : i32")
        (neg_width,) = b.op("arith.subi", [c0, width.ir], [i32])
        if mode == "idx":  # the segment's first lane + the lane asked for
            (base,) = b.op("arith.andi", [lane, neg_width], [i32])
            (src,) = b.op("arith.addi", [base, offset.ir], [i32])
            offset = nm.Int32(src)
        else:  # valid only when lane - delta stays in the segment
            (c1,) = b.op("arith.constant", [], [i32], "value = 1 : i32")
            (low_bits,) = b.op("arith.subi", [width.ir, c1], [i32])
            (in_segment,) = b.op("arith.andi", [lane, low_bits], [i32])
            (ok,) = b.op("arith.cmpi", [in_segment, offset.ir], [parse_type("i1")],
                         "predicate = 9 : i64")  # uge
            up_ok = nm.Boolean(ok)
    if not isinstance(x, nm.Vector):
        value, valid = _shuffle_scalar(x, offset, width, mode)
    else:
        b = builder()
        result = x.ir
        valid = None
        for i in range(lanes(x)):
            (e,) = b.op("vector.extract", [x.ir], [cls.type_handle()],
                        f"static_position = array<i64: {i}>")
            s, valid = _shuffle_scalar(cls(e), offset, width, mode)
            (result,) = b.op("vector.insert", [s.ir, result], [x.ir.type],
                             f"static_position = array<i64: {i}>")
        value = nm.Vector(result, cls)
    if up_ok is not None:  # an invalid lane keeps its own value, as the others do
        b = builder()
        (v,) = b.op("arith.select", [up_ok.ir, value.ir, x.ir], [x.ir.type])
        value = type(value)(v, cls) if isinstance(value, nm.Vector) else cls(v)
        (ok,) = b.op("arith.andi", [valid.ir, up_ok.ir], [up_ok.ir.type])
        valid = nm.Boolean(ok)
    return (value, valid) if with_valid else value


def shuffle(x, lane, width=None, *, with_valid: bool = False):
    """The value `x` of lane `lane` (within the lane's segment of `width`)."""
    return _shuffle("shuffle", "idx", x, lane, width, with_valid)


def shuffle_xor(x, mask, width=None, *, with_valid: bool = False):
    """The value `x` of lane `lane_id ^ mask` (butterfly exchange)."""
    return _shuffle("shuffle_xor", "xor", x, mask, width, with_valid)


def shuffle_up(x, delta, width=None, *, with_valid: bool = False):
    """The value `x` of lane `lane_id - delta`."""
    return _shuffle("shuffle_up", "up", x, delta, width, with_valid)


def shuffle_down(x, delta, width=None, *, with_valid: bool = False):
    """The value `x` of lane `lane_id + delta`."""
    return _shuffle("shuffle_down", "down", x, delta, width, with_valid)
