"""fx.rocdl.cdna5: what only gfx1250 has, as FlyDSL's namespace of that name
holds it. So far the tensor data mover (TDM, make_tdm_atom)."""

from ._tdm import TDM, make_tdm_atom  # noqa: F401

__all__ = ["TDM", "make_tdm_atom"]
