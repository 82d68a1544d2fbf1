"""MFMA: the CDNA matrix operations (fx.rocdl.MFMA), as fly_rocdl types."""

from .. import numeric as nm
from .._ir_types import FlyType, element_type_text

__all__ = ["MFMA"]


class MmaOpCDNA3MfmaType(FlyType):
    """`!fly_rocdl.cdna3.mfma<MxNxK, (A, B) -> Acc>`: a dense CDNA3 MFMA."""

    kinds = ("cdna3.mfma",)

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc):
        return cls.parse(f"!fly_rocdl.cdna3.mfma<{int(m)}x{int(n)}x{int(k)}, "
                         f"({element_type_text(elem_ty_a)}, {element_type_text(elem_ty_b)}) -> "
                         f"{element_type_text(elem_ty_acc)}>")


def MFMA(m, n, k, elem_ty_ab, elem_ty_acc=None):
    """The MFMA instruction computing an m x n x k tile from A and B of
    `elem_ty_ab` into an accumulator of `elem_ty_acc` (fx.Float32 when not
    given), for fx.make_mma_atom."""
    acc = nm.Float32 if elem_ty_acc is None else elem_ty_acc
    return MmaOpCDNA3MfmaType.get(m, n, k, elem_ty_ab, elem_ty_ab, acc)
