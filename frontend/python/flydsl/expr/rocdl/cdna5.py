"""fx.rocdl.cdna5: what only gfx1250 has, as FlyDSL's namespace of that name
holds it: the MX-scaled WMMA (WMMAScale) and the tensor data mover (TDM,
make_tdm_atom)."""

from ._cdna5_mma import WMMAScale  # noqa: F401
from ._tdm import TDM, make_tdm_atom  # noqa: F401

__all__ = ["WMMAScale", "TDM", "make_tdm_atom"]
