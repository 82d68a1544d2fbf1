"""WMMA: the wave32 matrix operations of RDNA3 (gfx11), RDNA4 (gfx120x) and
gfx1250 (fx.rocdl.WMMA), as fly_rocdl types. The family is the one of the
chip being traced for (or, outside a trace, of get_rocm_arch())."""

from ... import _fly
from ...runtime.device import get_rocm_arch
from ...tracing.errors import TraceError
from ...tracing.trace import Trace
from .. import numeric as nm
from .._core import fail
from .._ir_types import FlyType, element_type_text

__all__ = ["WMMA"]


class _WmmaType(FlyType):
    """`!fly_rocdl.<family>.wmma<MxNxK, (A, B) -> Acc[, signA][, signB][, clamp]>`."""

    mnemonic = ""

    @classmethod
    def get(cls, m, n, k, elem_ty_a, elem_ty_b, elem_ty_acc, sign_a=False, sign_b=False,
            clamp=False):
        flags = "".join(f", {name}" for name, on in
                        (("signA", sign_a), ("signB", sign_b), ("clamp", clamp)) if on)
        return cls.parse(f"!fly_rocdl.{cls.mnemonic}<{int(m)}x{int(n)}x{int(k)}, "
                         f"({element_type_text(elem_ty_a)}, {element_type_text(elem_ty_b)}) -> "
                         f"{element_type_text(elem_ty_acc)}{flags}>")


class MmaOpGFX11WmmaType(_WmmaType):
    """A v_wmma_* of RDNA3 (gfx1100/1101/1102)."""

    kinds = ("gfx11.wmma",)
    mnemonic = "gfx11.wmma"


class MmaOpGFX120XWmmaType(_WmmaType):
    """A v_wmma_* of RDNA4 (gfx1200/1201)."""

    kinds = ("gfx120x.wmma",)
    mnemonic = "gfx120x.wmma"


class MmaOpGFX1250WmmaType(_WmmaType):
    """A dense v_wmma_* of gfx1250."""

    kinds = ("gfx1250.wmma",)
    mnemonic = "gfx1250.wmma"


# The chip table's family names (fly::arch::familyName) -> the types.
_FAMILIES = {"RDNA3": MmaOpGFX11WmmaType, "RDNA4": MmaOpGFX120XWmmaType,
             "GFX1250": MmaOpGFX1250WmmaType}
_FLAGS = ("sign_a", "sign_b", "clamp")


def _target_arch():
    if Trace.active() and Trace.current().arch:
        return Trace.current().arch
    return get_rocm_arch()


def WMMA(m, n, k, elem_ty_ab, elem_ty_acc=None, **kwargs):
    """The WMMA instruction of the target chip computing an m x n x k tile
    from A and B of `elem_ty_ab` into an accumulator of `elem_ty_acc`
    (fx.Float32 when not given), for fx.make_mma_atom. The integer forms
    (fx.Int8, 4-bit) take sign_a / sign_b (the operand is signed) and clamp
    (saturate the i32 result), each False by default."""
    unknown = sorted(set(kwargs) - set(_FLAGS))
    if unknown:
        fail("rocdl.WMMA", f"unexpected keyword argument {unknown[0]!r}; WMMA takes "
                           f"{', '.join(_FLAGS)}")
    arch = _target_arch()
    family = None
    if arch in _fly.supported_chips():
        family = _FAMILIES.get(_fly.chip_info(arch)["family"])
    if family is None:
        have = [c for c in _fly.supported_chips() if _fly.chip_info(c)["has_wmma"]]
        fail("rocdl.WMMA", f"WMMA is not available on {arch}; the chips that have it: "
                           f"{', '.join(have)}")
    acc = nm.Float32 if elem_ty_acc is None else elem_ty_acc
    try:
        return family.get(m, n, k, elem_ty_ab, elem_ty_ab, acc,
                          **{name: bool(kwargs.get(name, False)) for name in _FLAGS})
    except TraceError as error:  # the type's verifier: what exists instead
        fail("rocdl.WMMA", f"on {arch}: {str(error).rpartition('error: ')[2]}")
