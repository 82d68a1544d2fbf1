"""The func dialect: the generated builders and MLIR's conveniences for
functions: `FuncOp(name, type)` with `add_entry_block()`, `body`,
`entry_block`, `arguments`, `type`; `CallOp(callee, args)` of a FuncOp."""

from ._func_ops_gen import *  # noqa: F401,F403
from ._func_ops_gen import CallOp as _GeneratedCallOp
from ._func_ops_gen import FuncOp as _GeneratedFuncOp
from ._func_ops_gen import _Dialect
from ._ods_common import _cext, get_op_result_or_op_results
from .. import ir
from .._operations import located_builder


@_cext.register_operation(_Dialect, replace=True)
class FuncOp(_GeneratedFuncOp):
    """func.func: `FuncOp(name, ir.FunctionType.get(inputs, results))` (or
    a (inputs, results) pair); `body_builder(func_op)` fills its body."""

    def __init__(self, name, type, *, visibility=None, body_builder=None, loc=None, ip=None):  # noqa: A002
        if isinstance(type, tuple):
            type = ir.FunctionType.get(*type)  # noqa: A001
        super().__init__(name, ir.TypeAttr.get(type), sym_visibility=visibility, loc=loc, ip=ip)
        if body_builder is not None:
            with ir.InsertionPoint(self.add_entry_block()):
                body_builder(self)

    @property
    def is_external(self) -> bool:
        return len(self.regions[0].blocks) == 0

    @property
    def body(self):
        return self.regions[0]

    @property
    def type(self):
        return ir.FunctionType(ir.TypeAttr(self.attributes["function_type"]).value)

    @property
    def visibility(self):
        return self.attributes["sym_visibility"]

    @property
    def name(self):
        return ir.StringAttr(self.attributes["sym_name"])

    @property
    def entry_block(self):
        if self.is_external:
            raise IndexError("External function does not have a body")
        return self.regions[0].blocks[0]

    def add_entry_block(self, arg_locs=None):
        """The body's entry block, with the function's inputs as arguments."""
        if not self.is_external:
            raise IndexError("The function already has an entry block!")
        self.body.blocks.append(*self.type.inputs, arg_locs=arg_locs)
        return self.body.blocks[0]

    @property
    def arguments(self):
        return self.entry_block.arguments


@_cext.register_operation(_Dialect, replace=True)
class CallOp(_GeneratedCallOp):
    """func.call: `CallOp(callee_func_op, args)` or
    `CallOp(result_types, callee_name_or_symbol, args)`."""

    def __init__(self, calleeOrResults, argumentsOrCallee, arguments=None, *, loc=None, ip=None):  # noqa: N803
        if isinstance(calleeOrResults, FuncOp):
            callee = calleeOrResults
            super().__init__(callee.type.results,
                             ir.FlatSymbolRefAttr.get(callee.name.value),
                             argumentsOrCallee, loc=loc, ip=ip)
            return
        if arguments is None:
            raise ValueError("CallOp(results, callee, arguments): the arguments are missing")
        callee = argumentsOrCallee
        if isinstance(callee, str):
            callee = ir.FlatSymbolRefAttr.get(callee)
        super().__init__(calleeOrResults, callee, arguments, loc=loc, ip=ip)


@located_builder("func.call")
def call(result, callee, operands_, **kwargs):
    return get_op_result_or_op_results(CallOp(result, callee, operands_, **kwargs))
