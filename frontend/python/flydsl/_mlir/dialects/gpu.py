"""The gpu dialect: the generated builders (`gpu.thread_id(gpu.Dimension.x)`,
`gpu.barrier()`, ...), its enums, and MLIR's conveniences for kernels:
`GPUModuleOp(name)` with its body block made, `GPUFuncOp(type,
sym_name=, kernel=)` with `add_entry_block()`, and `AsyncTokenType`."""

from ._gpu_ops_gen import *  # noqa: F401,F403
from ._gpu_ops_gen import GPUFuncOp as _GeneratedGPUFuncOp
from ._gpu_ops_gen import GPUModuleOp as _GeneratedGPUModuleOp
from ._gpu_ops_gen import _Dialect
from ._gpu_enum_gen import *  # noqa: F401,F403
from ._ods_common import _cext
from .. import ir


class AsyncTokenType(ir.Type):
    """!gpu.async.token, the token of asynchronous gpu ops."""

    static_typeid = ir.TypeID("gpu.async_token")

    @staticmethod
    def get(context=None):
        return ir.Type.parse("!gpu.async.token")


@_cext.register_operation(_Dialect, replace=True)
class GPUModuleOp(_GeneratedGPUModuleOp):
    """gpu.module `sym_name`, with one empty body block."""

    def __init__(self, sym_name, targets=None, *, offloadingHandler=None, loc=None, ip=None):  # noqa: N803
        super().__init__(sym_name, targets=targets, offloadingHandler=offloadingHandler,
                         loc=loc, ip=ip)
        self.regions[0].blocks.append()

    @property
    def body(self):
        return self.regions[0].blocks[0]


@_cext.register_operation(_Dialect, replace=True)
class GPUFuncOp(_GeneratedGPUFuncOp):
    """gpu.func of `function_type` named `sym_name`; a kernel with
    `kernel=True`. `body_builder(func_op)` fills its body."""

    def __init__(self, function_type, *, sym_name=None, kernel=False,
                 workgroup_attrib_attrs=None, private_attrib_attrs=None, known_block_size=None,
                 known_grid_size=None, loc=None, ip=None, body_builder=None):
        if not isinstance(function_type, ir.Attribute):
            function_type = ir.TypeAttr.get(function_type)
        super().__init__(function_type, workgroup_attrib_attrs=workgroup_attrib_attrs,
                         private_attrib_attrs=private_attrib_attrs,
                         known_block_size=known_block_size, known_grid_size=known_grid_size,
                         loc=loc, ip=ip)
        if sym_name is not None:
            self.attributes["sym_name"] = ir.StringAttr.get(str(sym_name))
        if kernel:
            self.attributes["gpu.kernel"] = ir.UnitAttr.get()
        if body_builder is not None:
            with ir.InsertionPoint(self.add_entry_block()):
                body_builder(self)

    @property
    def name(self):
        return ir.StringAttr(self.attributes["sym_name"])

    @property
    def is_kernel(self) -> bool:
        return "gpu.kernel" in self.attributes

    @property
    def body(self):
        return self.regions[0]

    def add_entry_block(self):
        inputs = ir.TypeAttr(self.attributes["function_type"]).value.inputs
        return self.body.blocks.append(*inputs)

    @property
    def entry_block(self):
        return self.body.blocks[0]

    @property
    def arguments(self):
        return self.entry_block.arguments
