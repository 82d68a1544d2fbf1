"""The packed conversions of 8- and 4-bit floats of fx.rocdl, under FlyDSL's
names (its fx.rocdl wrappers of the ROCDL ops, with the ops' parameters):

    cvt_pk_fp8_f32(res, src_a, src_b, old, word_sel)   f32 x 2 -> fp8 x 2 in old
    cvt_pk_bf8_f32(res, src_a, src_b, old, word_sel)   the same to bf8
    cvt_pk_f32_fp8(res, src, word_sel)                 fp8 x 2 -> vector<2xf32>
    cvt_pk_f32_bf8(res, src, word_sel)
    cvt_f32_fp8(res, src_a, byte_sel)                  fp8 byte -> f32
    cvt_f32_bf8(res, src_a, byte_sel)
    cvt_scalef32_pk_f32_fp4(res, src, scale, src_sel_index)    (gfx950)
    cvt_scalef32_pk_bf16_fp4(res, src, scale, src_sel_index)   (gfx950)
    cvt_scalef32_pk_fp4_f32(res, old_vdst, src0, src1, scale, dst_sel_index)  (gfx950)

Packed 8-bit floats live in an Int32, element 0 in the low byte; word_sel
picks bytes 0-1 (False) or 2-3 (True), byte_sel a byte. The fp8 (E4M3) and
bf8 (E5M2) formats are the chip's: FNUZ on gfx942, OCP (E4M3FN, E5M2) on
gfx950. To 8-bit floats the rounding is to nearest even and does not
saturate: what rounds past the largest finite value is NaN (infinity for
OCP bf8), as torch's float8 conversions do. fp4 is E2M1, two to a byte
(element 0 in the low nibble); the scaled forms multiply (fp4 -> f32/bf16)
or divide (f32 -> fp4) by 2^(exponent of `scale`), ignoring its
mantissa; to fp4 they round to nearest even and saturate at +-6. `res` is
the result type (fx.T.i32, fx.Int32, Vector.make_type(2, fx.Float32),
...). Immediates (word_sel, byte_sel, the selector indices) are
compile-time values. The trailing `**kw` of the MLIR builders FlyDSL
forwards to (`loc=`, `ip=`) is accepted and ignored.
"""

from __future__ import annotations

from ...tracing.errors import TraceError
from ...tracing.ir import user_location
from ...tracing.trace import Trace, builder
from .. import numeric as nm

_FP8_CHIPS = ("gfx942", "gfx950")
_FP4_CHIPS = ("gfx950",)


def _fail(message):
    raise TraceError(message, *user_location()[:2])


def _check(api, kw, chips):
    unknown = [k for k in kw if k not in ("loc", "ip")]
    if unknown:
        _fail(f"{api}: unexpected keyword argument(s) " + ", ".join(f"{k}=" for k in unknown))
    arch = Trace.current().arch
    if arch not in chips:
        _fail(f"{api} is not available on {arch}; the chips that have it: {', '.join(chips)}")


def _check_res(api, res, want):
    text = res.mlir_type if isinstance(res, type) and issubclass(res, nm.Numeric) else str(res)
    if text != want:
        _fail(f"{api}: res must be {want}, not {res!r}")


def _scalar(api, name, value, cls):
    """`value` as a `cls` value: a Python number becomes a constant."""
    if isinstance(value, (bool, int, float)) and not isinstance(value, nm.Numeric):
        if cls is nm.Int32 and not isinstance(value, int):
            _fail(f"{api}: {name} must be an Int32 (packed values), not {value!r}")
        return nm.constant(value, cls)
    if not isinstance(value, nm.Numeric) or isinstance(value, nm.Vector) or \
            value.mlir_type != cls.mlir_type:
        _fail(f"{api}: {name} must be a {cls.__name__}, not {type(value).__name__}")
    return value


def _select(api, name, value, limit):
    """A compile-time selector in 0..limit."""
    if isinstance(value, bool) or (isinstance(value, int) and 0 <= value <= limit):
        return int(value)
    _fail(f"{api}: {name} must be a compile-time integer in 0..{limit}, got {value!r}")


def _emit(name, operands, result, attrs):
    (r,) = builder().op(name, [v.ir_value() for v in operands], [result], attrs)
    return r


def _pack(kind):
    op = f"rocdl.cvt.pk.{kind}.f32"
    api = f"fx.rocdl.cvt_pk_{kind}_f32"

    def convert(res, src_a, src_b, old, word_sel, **kw):
        _check(api, kw, _FP8_CHIPS)
        _check_res(api, res, "i32")
        a = _scalar(api, "src_a", src_a, nm.Float32)
        b = _scalar(api, "src_b", src_b, nm.Float32)
        o = _scalar(api, "old", old, nm.Int32)
        sel = _select(api, "word_sel", word_sel, 1)
        return nm.Int32(_emit(op, [a, b, o], nm.Int32.type_handle(),
                              f"wordSel = {'true' if sel else 'false'}"))

    convert.__name__ = convert.__qualname__ = f"cvt_pk_{kind}_f32"
    convert.__doc__ = (f"src_a and src_b (Float32) as two {kind} values, written into bytes "
                       f"0-1 (word_sel False) or 2-3 (True) of `old` (Int32); the Int32.")
    return convert


def _unpack(kind):
    op = f"rocdl.cvt.pk.f32.{kind}"
    api = f"fx.rocdl.cvt_pk_f32_{kind}"

    def convert(res, src, word_sel, **kw):
        _check(api, kw, _FP8_CHIPS)
        _check_res(api, res, "vector<2xf32>")
        s = _scalar(api, "src", src, nm.Int32)
        sel = _select(api, "word_sel", word_sel, 1)
        r = _emit(op, [s], nm.Vector.make_type(2, nm.Float32),
                  f"wordSel = {'true' if sel else 'false'}")
        return nm.Vector(r, (2,), nm.Float32)

    convert.__name__ = convert.__qualname__ = f"cvt_pk_f32_{kind}"
    convert.__doc__ = (f"The two {kind} values in bytes 0-1 (word_sel False) or 2-3 (True) "
                       f"of `src` (Int32) as a Vector of two Float32.")
    return convert


def _one(kind):
    op = f"rocdl.cvt.f32.{kind}"
    api = f"fx.rocdl.cvt_f32_{kind}"

    def convert(res, src_a, byte_sel, **kw):
        _check(api, kw, _FP8_CHIPS)
        _check_res(api, res, "f32")
        s = _scalar(api, "src_a", src_a, nm.Int32)
        sel = _select(api, "byte_sel", byte_sel, 3)
        return nm.Float32(_emit(op, [s], nm.Float32.type_handle(), f"byteSel = {sel} : i32"))

    convert.__name__ = convert.__qualname__ = f"cvt_f32_{kind}"
    convert.__doc__ = f"The {kind} value in byte `byte_sel` of `src_a` (Int32) as a Float32."
    return convert


cvt_pk_fp8_f32 = _pack("fp8")
cvt_pk_bf8_f32 = _pack("bf8")
cvt_pk_f32_fp8 = _unpack("fp8")
cvt_pk_f32_bf8 = _unpack("bf8")
cvt_f32_fp8 = _one("fp8")
cvt_f32_bf8 = _one("bf8")


def _scaled_unpack(large, res_text):
    op = f"rocdl.cvt.scalef32.pk.{large}.fp4"
    api = f"fx.rocdl.cvt_scalef32_pk_{large}_fp4"
    elem = nm.Float32 if large == "f32" else nm.BFloat16

    def convert(res, src, scale, src_sel_index, **kw):
        _check(api, kw, _FP4_CHIPS)
        _check_res(api, res, res_text)
        s = _scalar(api, "src", src, nm.Int32)
        k = _scalar(api, "scale", scale, nm.Float32)
        sel = _select(api, "src_sel_index", src_sel_index, 3)
        r = _emit(op, [s, k], nm.Vector.make_type(2, elem), f"srcSelIndex = {sel} : i32")
        return nm.Vector(r, (2,), elem)

    convert.__name__ = convert.__qualname__ = f"cvt_scalef32_pk_{large}_fp4"
    convert.__doc__ = (f"The two fp4 values of byte `src_sel_index` of `src` (Int32; element "
                       f"0 the low nibble) times 2^(exponent of `scale`), as a Vector of two "
                       f"{elem.__name__} (gfx950).")
    return convert


cvt_scalef32_pk_f32_fp4 = _scaled_unpack("f32", "vector<2xf32>")
cvt_scalef32_pk_bf16_fp4 = _scaled_unpack("bf16", "vector<2xbf16>")


def cvt_scalef32_pk_fp4_f32(res, old_vdst, src0, src1, scale, dst_sel_index, **kw):
    """src0 and src1 (Float32) divided by 2^(exponent of `scale`) as two fp4
    values (src0 in the low nibble), written into byte `dst_sel_index` of
    `old_vdst` (Int32); the Int32 (gfx950)."""
    api = "fx.rocdl.cvt_scalef32_pk_fp4_f32"
    _check(api, kw, _FP4_CHIPS)
    _check_res(api, res, "i32")
    o = _scalar(api, "old_vdst", old_vdst, nm.Int32)
    a = _scalar(api, "src0", src0, nm.Float32)
    b = _scalar(api, "src1", src1, nm.Float32)
    k = _scalar(api, "scale", scale, nm.Float32)
    sel = _select(api, "dst_sel_index", dst_sel_index, 3)
    return nm.Int32(_emit("rocdl.cvt.scalef32.pk.fp4.f32", [o, a, b, k],
                          nm.Int32.type_handle(), f"dstSelIndex = {sel} : i32"))


# Reachable as fx.rocdl.<name>, as in FlyDSL, whose fx.rocdl.__all__ does
# not list them either.
__all__: list[str] = []
