"""gfx950's other instructions (fx.rocdl.cdna4.cvt_sr_f32_to_bf16)."""

from __future__ import annotations

from ...tracing.errors import TraceError
from ...tracing.ir import parse_type, user_location
from ...tracing.trace import Trace, builder
from .. import numeric as nm

__all__ = ["cvt_sr_f32_to_bf16"]

_CHIPS = ("gfx950",)


def cvt_sr_f32_to_bf16(x, rand):
    """`x` (Float32) as a BFloat16 rounded stochastically by
    V_CVT_SR_BF16_F32 (gfx950 only): the low 16 bits of the 32-bit `rand`
    are added to the 16 bits of `x`'s pattern that bf16 drops before they
    are cut off, so the magnitude rounds up with probability (dropped
    bits) / 2^16 and rand = 0 truncates toward zero. Not saturating: a
    value that rounds past the largest bf16 becomes infinity; NaN stays
    NaN."""
    arch = Trace.current().arch
    if arch not in _CHIPS:
        raise TraceError(f"fx.rocdl.cdna4.cvt_sr_f32_to_bf16: {arch} has no stochastic-rounding "
                         f"conversion; it needs {', '.join(_CHIPS)} (CDNA4)",
                         *user_location()[:2])
    xv = nm.Float32(x).ir_value()
    rv = nm.Uint32(rand).ir_value()
    b = builder()
    pair = parse_type("vector<2xbf16>")
    (old,) = b.op("llvm.mlir.undef", [], [pair])
    (sel,) = b.op("arith.constant", [], [nm.Boolean.type_handle()], "value = false")
    (packed,) = b.op("llvm.call_intrinsic", [old, xv, rv, sel], [pair],
                     'intrin = "llvm.amdgcn.cvt.sr.bf16.f32", '
                     'op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 4, 0>')
    (r,) = b.op("vector.extract", [packed], [nm.BFloat16.type_handle()],
                "static_position = array<i64: 0>")
    return nm.BFloat16(r)
