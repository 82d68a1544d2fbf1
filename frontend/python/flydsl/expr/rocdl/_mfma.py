"""MFMA: the dense matrix instructions of CDNA3 and CDNA4 (fx.rocdl.MFMA),
as fly_rocdl types. Which instructions exist, on which chips, is the
compiler's table; this module only picks the type a shape belongs to."""

from ... import _fly
from ...tracing.errors import TraceError
from ...tracing.ir import user_location
from .. import numeric as nm
from .._ir_types import FlyType, element_type_text

__all__ = ["MFMA"]


def _text(kind, m, n, k, a, b, acc):
    return f"!fly_rocdl.{kind}<{int(m)}x{int(n)}x{int(k)}, ({a}, {b}) -> {acc}>"


class MmaOpCDNA3MfmaType(FlyType):
    """`!fly_rocdl.cdna3.mfma<MxNxK, (A, B) -> Acc>`: a dense MFMA of CDNA3
    (gfx942 and gfx950)."""

    kinds = ("cdna3.mfma",)

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc):
        return cls.parse(_text("cdna3.mfma", m, n, k, element_type_text(elem_ty_a),
                               element_type_text(elem_ty_b), element_type_text(elem_ty_acc)))


class MmaOpCDNA4MfmaType(FlyType):
    """`!fly_rocdl.cdna4.mfma<MxNxK, (A, B) -> Acc>`: a dense MFMA only
    CDNA4 (gfx950) has."""

    kinds = ("cdna4.mfma",)

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc):
        return cls.parse(_text("cdna4.mfma", m, n, k, element_type_text(elem_ty_a),
                               element_type_text(elem_ty_b), element_type_text(elem_ty_acc)))


def _default_accumulator(ab):
    """The accumulator an element type's MFMAs have: i32 for i8, f64 for
    f64, f32 for the others."""
    text = element_type_text(ab)
    return {"i8": nm.Int32, "f64": nm.Float64}.get(text, nm.Float32)


def MFMA(m, n, k, elem_ty_ab, elem_ty_acc=None):
    """The MFMA instruction computing an m x n x k tile, D = A * B + C, on
    one wave64, A and B of `elem_ty_ab`, C and D of `elem_ty_acc` (when not
    given: Int32 for Int8, Float64 for Float64, Float32 otherwise), for
    fx.make_mma_atom. CDNA3's shapes run on gfx942 and gfx950, the ones
    gfx950 added (twice the K for f16, bf16 and i8) on gfx950 only; 8-bit
    floats are the chip's encoding (Float8E4M3FNUZ / Float8E5M2FNUZ on
    gfx942, Float8E4M3FN / Float8E5M2 on gfx950)."""
    acc = _default_accumulator(elem_ty_ab) if elem_ty_acc is None else elem_ty_acc
    ab, acc_text = element_type_text(elem_ty_ab), element_type_text(acc)
    errors = []
    for cls, kind in ((MmaOpCDNA3MfmaType, "cdna3.mfma"), (MmaOpCDNA4MfmaType, "cdna4.mfma")):
        try:
            return cls(_fly.parse_type(_text(kind, m, n, k, ab, ab, acc_text)))
        except _fly.Error as err:
            errors.append(str(err).split("the ones there are", 1)[-1].lstrip(" "))
    raise TraceError(
        f"fx.rocdl.MFMA(m={m}, n={n}, k={k}, elem_ty_ab={ab}, elem_ty_acc={acc_text}): "
        f"no MFMA has this shape and these types; CDNA3's (gfx942, gfx950) "
        f"{errors[0]}; gfx950's {errors[1]}",
        *user_location()[:2])
