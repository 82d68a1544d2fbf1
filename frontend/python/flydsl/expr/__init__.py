"""flydsl.expr (fx): the API of traced code, in FlyDSL's module layout
(SPEC §7): each direct child module's `__all__` is exported here too, in
FlyDSL's order, so `fx.<name>`, `fx.<module>.<name>` and
`from flydsl.expr.<module> import <name>` are the same object.

`fx.coop` (the warp and block collectives of flydsl.extension.coop) and
`fx.tdm_ops` (fx.rocdl.tdm_ops) are imported on first use, as in FlyDSL."""

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
from . import rocdl  # noqa: F401  (fx.rocdl: its names stay in their namespace, as FlyDSL's)
from . import utils  # noqa: F401  (fx.utils.print_typst)
from ._draw import layout_svg, layout_text  # noqa: F401  (layout pictures: SVG, text)

# fx.tdm_ops: FlyDSL's deprecated name of fx.rocdl.tdm_ops.
_LIBRARIES = {"coop": "flydsl.extension.coop", "tdm_ops": "flydsl.expr.rocdl.tdm_ops"}


def __getattr__(name: str):
    """The extension libraries, imported when first used (`fx.coop`)."""
    module_name = _LIBRARIES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(module_name)
    globals()[name] = module
    return module
