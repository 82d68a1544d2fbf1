"""flydsl.expr (fx): the API of traced code, in FlyDSL's module layout
(SPEC §7): each direct child module's `__all__` is exported here too, in
FlyDSL's order, so `fx.<name>`, `fx.<module>.<name>` and
`from flydsl.expr.<module> import <name>` are the same object.

`fx.coop` (the warp and block collectives of flydsl.extension.coop),
`fx.random` (the counter-based random numbers of flydsl.extension.random)
and `fx.tdm_ops` (fx.rocdl.tdm_ops) are imported on first use, as in FlyDSL;
so are `fx.rocdl`, `fx.utils` and the layout pictures (`fx.layout_svg`,
`fx.layout_text`), which importing flydsl.expr does not need."""

# isort: skip_file
from .numeric import *  # noqa: F401,F403
from .typing import *  # noqa: F401,F403
from .enum import *  # noqa: F401,F403
from .primitive import *  # noqa: F401,F403
from .gpu import *  # noqa: F401,F403
from .derived import *  # noqa: F401,F403
from .struct import *  # noqa: F401,F403
from .arith import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403

from . import arith, derived, enum, gpu, math, numeric, primitive, typing  # noqa: F401

# Imported on first use: name -> (module, its attribute or None for the
# module itself). fx.rocdl's names stay in their namespace, as FlyDSL's;
# fx.tdm_ops is FlyDSL's deprecated name of fx.rocdl.tdm_ops.
_LAZY = {
    "rocdl": ("flydsl.expr.rocdl", None),
    "utils": ("flydsl.expr.utils", None),  # fx.utils.print_typst
    "layout_svg": ("flydsl.expr._draw", "layout_svg"),  # layout pictures
    "layout_text": ("flydsl.expr._draw", "layout_text"),
    "coop": ("flydsl.extension.coop", None),
    "random": ("flydsl.extension.random", None),
    "tdm_ops": ("flydsl.expr.rocdl.tdm_ops", None),
}


def __getattr__(name: str):
    """What _LAZY names, imported when first used (`fx.rocdl`, `fx.coop`,
    `fx.random`)."""
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(found[0])
    value = module if found[1] is None else getattr(module, found[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
