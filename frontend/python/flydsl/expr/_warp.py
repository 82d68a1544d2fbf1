"""Lane exchange inside a wave (warp): the shuffles of fx.gpu (SPEC §7).

    shuffle_idx(v, lane, width)    the value of lane `lane` of the wave
    shuffle_xor(v, offset, width)  the value of lane `lane_id ^ offset`
    shuffle_up(v, offset, width)   the value of lane `lane_id - offset`
    shuffle_down(v, offset, width) the value of lane `lane_id + offset`

Each is one `gpu.shuffle` (FlyDSL's semantics are the gpu dialect's as
convert-gpu-to-rocdl lowers it, so ours are too): the wave is cut into
segments of `width` lanes (a power of two, at most the wave: 64 lanes on
gfx9, 32 on gfx11/gfx12; a Python int or a dynamic integer uniform over the
wave). A lane whose source lane lies at or past the end of its own segment
gets its own value back. The lowering checks nothing else: the `lane` of
shuffle_idx is a lane of the wave, not of the segment (a segment names its
own lanes as `segment_base + i`), and a shuffle_up source before the start
of the segment is read from the segment below (or the top of the wave) —
callers mask those lanes, as fx.coop's scans do.

Values: scalars of 32 or 64 bits directly; narrower integers, Float16 and
BFloat16 through a 32-bit integer (bitcast, zero-extended, shuffled,
truncated back); Booleans the same way. A Vector is shuffled element by
element. On AMD GPUs every mode becomes `ds_bpermute_b32` (no LDS is
allocated), an idx shuffle of a uniform lane `v_readlane_b32`.
"""

from __future__ import annotations

import os

from ..tracing.ir import parse_type
from ..tracing.trace import Trace, builder
from .. import _fly
from . import numeric as nm
from ._elementwise import element, fail, lanes

MODES = ("xor", "up", "down", "idx")


def wave_lanes() -> int:
    """The lanes of a wave of the chip compiled for, as a Python int: the
    trace's chip, or outside a trace the one a compile would target now
    (ARCH, else the machine's GPU, as flydsl.runtime.device finds it)."""
    if Trace.active():
        arch = Trace.current().arch
    else:
        from ..runtime.device import get_rocm_arch

        arch = os.environ.get("ARCH", "").strip().lower() or get_rocm_arch()
        if arch not in _fly.supported_chips():
            fail(f"fx.num_warp_threads(): ARCH={arch} is not a supported chip "
                 f"({', '.join(_fly.supported_chips())})")
    return _fly.chip_info(arch)["wave_size"]


def _i32(fname, what, x):
    if isinstance(x, bool) or (isinstance(x, nm.Numeric) and element(x) is nm.Boolean):
        fail(f"fx.{fname}: {what} must be an integer, not a bool")
    if isinstance(x, int):
        if x < 0:
            fail(f"fx.{fname}: {what} must not be negative (got {x})")
        return nm.constant(x, nm.Int32)
    if isinstance(x, nm.Numeric) and not isinstance(x, nm.Vector) and not element(x).is_float:
        return nm.convert(x, nm.Int32)
    kind = element(x).__name__ if isinstance(x, nm.Numeric) else type(x).__name__
    fail(f"fx.{fname}: {what} must be an int or a scalar integer numeric, not {kind}")


def check_width(fname, width) -> None:
    """A static `width` must be a power of two no wider than the wave."""
    if isinstance(width, int) and not isinstance(width, bool):
        wave = wave_lanes()
        if width <= 0 or width & (width - 1) or width > wave:
            fail(f"fx.{fname}: width={width} is not a power of two from 1 to the "
                 f"{wave} lanes of a wave on {Trace.current().arch}")


def _shuffle_scalar(x, offset, width, mode):
    b = builder()
    cls = type(x)
    i1 = nm.Boolean.type_handle()
    attrs = f"mode = #gpu<shuffle_mode {mode}>"
    if cls.bits in (32, 64):
        v, _ = b.op("gpu.shuffle", [x.ir, offset.ir, width.ir], [x.ir.type, i1], attrs)
        return cls(v)
    # Narrow values: as an unsigned integer of their width, zero-extended to 32 bits.
    raw = x.ir
    narrow = parse_type(f"i{cls.bits}")
    if cls.is_float:
        (raw,) = b.op("arith.bitcast", [raw], [narrow])
    (wide,) = b.op("arith.extui", [raw], [parse_type("i32")])
    v, _ = b.op("gpu.shuffle", [wide, offset.ir, width.ir], [wide.type, i1], attrs)
    (v,) = b.op("arith.trunci", [v], [narrow])
    if cls.is_float:
        (v,) = b.op("arith.bitcast", [v], [cls.type_handle()])
    return cls(v)


def shuffle(fname: str, mode: str, value, offset, width):
    """`value` moved across the lanes by one gpu.shuffle of `mode`."""
    if not isinstance(value, nm.Numeric):
        fail(f"fx.{fname}: value must be a numeric (a scalar or a Vector), not "
             f"{type(value).__name__}")
    cls = element(value)
    if cls.mlir_type == "index":
        fail(f"fx.{fname}: value is an Index, which has no fixed width; cast it to Int32 or Int64")
    if cls.bits > 64:
        fail(f"fx.{fname}: value is a {cls.__name__}, wider than the 64 bits a shuffle moves")
    offset = _i32(fname, "lane" if mode == "idx" else "offset", offset)
    check_width(fname, width)
    width = _i32(fname, "width", width)
    if not isinstance(value, nm.Vector):
        return _shuffle_scalar(value, offset, width, mode)
    b = builder()
    result = value.ir
    for i in range(lanes(value)):
        position = f"static_position = array<i64: {i}>"
        (e,) = b.op("vector.extract", [value.ir], [cls.type_handle()], position)
        s = _shuffle_scalar(cls(e), offset, width, mode)
        (result,) = b.op("vector.insert", [s.ir, result], [value.ir.type], position)
    return nm.Vector(result, cls)
