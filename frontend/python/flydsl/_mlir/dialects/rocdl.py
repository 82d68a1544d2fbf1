"""The ROCDL dialect (generated builders: `rocdl.raw_ptr_buffer_load(...)`,
`rocdl.workitem_id_x(...)`, ...)."""

from ._rocdl_ops_gen import *  # noqa: F401,F403
from ._rocdl_ops_gen import _Dialect  # noqa: F401
