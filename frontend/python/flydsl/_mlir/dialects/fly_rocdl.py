"""The fly_rocdl dialect: the generated builders of its ops
(`fly_rocdl.make_buffer_ptr`, `fly_rocdl.get_buffer_rsrc`) and
`TargetAddressSpace.BufferDesc`, the address space of buffer pointers
(`#fly_rocdl.buffer_desc`)."""

from ._fly_rocdl_ops_gen import *  # noqa: F401,F403
from ._fly_rocdl_ops_gen import _Dialect  # noqa: F401
from .. import ir


class _TargetAddressSpace:
    """The address spaces of the ROCm target beyond fly's own."""

    @property
    def BufferDesc(self):  # noqa: N802 - FlyDSL's name
        return ir.Attribute.parse("#fly_rocdl.buffer_desc")


TargetAddressSpace = _TargetAddressSpace()
