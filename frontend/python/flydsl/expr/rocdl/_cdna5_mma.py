"""gfx1250's MX-scaled WMMA (fx.rocdl.cdna5.WMMAScale)."""

from .. import numeric as nm
from .._ir_types import FlyType, element_type_text

__all__ = ["WMMAScale"]


class MmaOpGFX1250WmmaScaleType(FlyType):
    """`!fly_rocdl.gfx1250.wmma_scale<MxNxK, (A, B) -> f32, opselA = a,
    opselB = b, modC = c, reuseA = r, reuseB = s, blockSize = 32>`."""

    kinds = ("gfx1250.wmma_scale",)

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc, *, opsel_a=0, opsel_b=0, mod_c=0,
            reuse_a=False, reuse_b=False, block_size=32):
        flag = lambda v: "true" if v else "false"  # noqa: E731
        return cls.parse(
            f"!fly_rocdl.gfx1250.wmma_scale<{int(m)}x{int(n)}x{int(k)}, "
            f"({element_type_text(elem_ty_a)}, {element_type_text(elem_ty_b)}) -> "
            f"{element_type_text(elem_ty_acc)}, opselA = {int(opsel_a)}, opselB = {int(opsel_b)}, "
            f"modC = {int(mod_c)}, reuseA = {flag(reuse_a)}, reuseB = {flag(reuse_b)}, "
            f"blockSize = {int(block_size)}>")


def WMMAScale(m, n, k, elem_ty_a, elem_ty_b=None, elem_ty_acc=None, *, opsel_a=0, opsel_b=0,
              mod_c=0, reuse_a=False, reuse_b=False, block_size=32):
    """gfx1250's v_wmma_scale_f32_16x16x128_f8f6f4 or, for (32, 16, 128)
    and Float4E2M1FN, v_wmma_scale_f32_32x16x128_f4 (block_size 32), or
    their v_wmma_scale16_ forms (block_size 16), for fx.make_mma_atom: A of
    `elem_ty_a` and B of `elem_ty_b` (when not given, A's type), each an OCP
    8-, 6- or 4-bit float (both 4-bit for 32x16x128), every block_size
    values of K scaled by an E8M0 factor, and accumulated into
    `elem_ty_acc` (Float32). The atom's run-time fields `scale_a` and
    `scale_b` (Int32 for block 32, Int64 for block 16; zero when not set)
    hold the scales of row (column) i in lane i, or in lane 16 + i with
    opsel_a / opsel_b 1; byte j scales the j-th block of K. 32x16x128's A
    has 32 rows: row i's scales in lane i (opsel_a 0). mod_c (the C
    modifier) and reuse_a / reuse_b (register-reuse hints) go to the
    instruction."""
    ty_b = elem_ty_a if elem_ty_b is None else elem_ty_b
    ty_acc = nm.Float32 if elem_ty_acc is None else elem_ty_acc
    return MmaOpGFX1250WmmaScaleType.get(m, n, k, elem_ty_a, ty_b, ty_acc, opsel_a=opsel_a,
                                         opsel_b=opsel_b, mod_c=mod_c, reuse_a=reuse_a,
                                         reuse_b=reuse_b, block_size=block_size)
