"""flydsl.expr (fx): the API of traced code, in FlyDSL's module layout
(SPEC §7): each direct child module's `__all__` is exported here too, in
FlyDSL's order, so `fx.<name>`, `fx.<module>.<name>` and
`from flydsl.expr.<module> import <name>` are the same object."""

# isort: skip_file
from .numeric import *  # noqa: F401,F403
from .typing import *  # noqa: F401,F403
from .primitive import *  # noqa: F401,F403
from .gpu import *  # noqa: F401,F403
from .derived import *  # noqa: F401,F403
from .arith import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403

from . import arith, derived, gpu, math, numeric, primitive, typing  # noqa: F401
