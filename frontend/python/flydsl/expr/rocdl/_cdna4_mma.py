"""gfx950's scaled MFMA (fx.rocdl.cdna4.MFMA_Scale / MFMAScale)."""

from .. import numeric as nm
from .._ir_types import FlyType, element_type_text

__all__ = ["MFMAScale", "MFMA_Scale"]


class MmaOpCDNA4MfmaScaleType(FlyType):
    """`!fly_rocdl.cdna4.mfma_scale<MxNxK, (A, B) -> f32, opsel = (a, b)>`."""

    kinds = ("cdna4.mfma_scale",)

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc, *, opsel_a=0, opsel_b=0):
        return cls.parse(
            f"!fly_rocdl.cdna4.mfma_scale<{int(m)}x{int(n)}x{int(k)}, "
            f"({element_type_text(elem_ty_a)}, {element_type_text(elem_ty_b)}) -> "
            f"{element_type_text(elem_ty_acc)}, opsel = ({int(opsel_a)}, {int(opsel_b)})>")


def MFMA_Scale(m, n, k, elem_ty_a, elem_ty_b=None, elem_ty_acc=None, *, opsel_a=0, opsel_b=0):
    """gfx950's v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 for
    fx.make_mma_atom: A of `elem_ty_a` and B of `elem_ty_b` (when not given,
    A's type), each an OCP 8-, 6- or 4-bit float, scaled by E8M0 factors
    and accumulated into `elem_ty_acc` (Float32). The atom's run-time
    fields `scale_a` and `scale_b` (Int32, zero when not set) hold each
    lane's scales; opsel_a / opsel_b (0..3) pick the byte of them used."""
    ty_b = elem_ty_a if elem_ty_b is None else elem_ty_b
    ty_acc = nm.Float32 if elem_ty_acc is None else elem_ty_acc
    return MmaOpCDNA4MfmaScaleType.get(m, n, k, elem_ty_a, ty_b, ty_acc,
                                       opsel_a=opsel_a, opsel_b=opsel_b)


MFMAScale = MFMA_Scale
