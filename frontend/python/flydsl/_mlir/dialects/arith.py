"""The arith dialect: the generated builders (`arith.addf(a, b)`,
`arith.AddFOp(a, b)`, ...), its enums (`CmpIPredicate`, `FastMathFlags`,
...) and MLIR's conveniences for constants: `ConstantOp(type, value)` and
`constant(type, value)` take a Python number (a splat for a vector or tensor
type), a list or numpy array (dense), or an attribute."""

from ._arith_ops_gen import *  # noqa: F401,F403
from ._arith_ops_gen import ConstantOp as _GeneratedConstantOp
from ._arith_ops_gen import _Dialect
from ._arith_enum_gen import *  # noqa: F401,F403
from ._ods_common import _cext, get_op_result_or_op_results
from .. import ir
from .._operations import located_builder


def _constant_attr(result, value):
    """The `value` attribute of a constant of type `result`."""
    if isinstance(value, ir.Attribute):
        return value
    t = ir.Type.parse(result) if isinstance(result, str) else result
    if isinstance(t, ir.ShapedType):
        if isinstance(value, (bool, int, float)):
            element = t.element_type
            scalar = (ir.FloatAttr.get(element, value) if isinstance(element, ir.FloatType)
                      else ir.IntegerAttr.get(element, value))
            return ir.DenseElementsAttr.get_splat(t, scalar)
        return ir.DenseElementsAttr.get(value, type=t)
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"arith.constant: cannot make a {t} constant of {type(value).__name__}")
    if isinstance(value, float) or isinstance(t, ir.FloatType):
        return ir.FloatAttr.get(t, value)
    return ir.IntegerAttr.get(t, value)


@_cext.register_operation(_Dialect, replace=True)
class ConstantOp(_GeneratedConstantOp):
    """arith.constant: `ConstantOp(result_type, value)`."""

    def __init__(self, result, value, *, loc=None, ip=None):
        super().__init__(_constant_attr(result, value), results=[result], loc=loc, ip=ip)

    @classmethod
    def create_index(cls, value: int, *, loc=None, ip=None) -> "ConstantOp":
        return cls(ir.IndexType.get(), value, loc=loc, ip=ip)

    @property
    def type(self):
        return self.results[0].type

    @property
    def value(self):
        return self.operation.attributes["value"]

    @property
    def literal_value(self):
        value = self.value
        if isinstance(value, (ir.IntegerAttr, ir.FloatAttr)):
            return value.value
        raise ValueError("only integer and float constants have a literal value")


@located_builder("arith.constant")
def constant(result, value, *, loc=None, ip=None):
    """The result of an arith.constant of type `result` (see ConstantOp)."""
    return get_op_result_or_op_results(ConstantOp(result, value, loc=loc, ip=ip))
