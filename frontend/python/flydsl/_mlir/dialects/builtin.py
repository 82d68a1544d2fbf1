"""The builtin dialect: `ModuleOp()` (with its body block made, `body`)
and `unrealized_conversion_cast`."""

from ._builtin_ops_gen import *  # noqa: F401,F403
from ._builtin_ops_gen import ModuleOp as _GeneratedModuleOp
from ._builtin_ops_gen import _Dialect
from ._ods_common import _cext


@_cext.register_operation(_Dialect, replace=True)
class ModuleOp(_GeneratedModuleOp):
    """builtin.module, with one empty body block."""

    def __init__(self, *, sym_name=None, sym_visibility=None, loc=None, ip=None):
        super().__init__(sym_name=sym_name, sym_visibility=sym_visibility, loc=loc, ip=ip)
        self.regions[0].blocks.append()

    @property
    def body(self):
        return self.regions[0].blocks[0]
