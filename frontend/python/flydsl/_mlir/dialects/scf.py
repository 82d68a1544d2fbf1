"""The scf dialect: the generated builders (`scf.yield_(values)`, ...) and
MLIR's conveniences for structured control flow: `ForOp(lb, ub, step,
iter_args)` with its body block made (`body`, `induction_variable`,
`inner_iter_args`), `IfOp(cond, result_types, hasElse=)` with `then_block` /
`else_block`, and the `for_(start, stop, step, iter_args)` generator, which
builds the loop and yields its induction variable inside the body. The
bodies end with an explicit `scf.yield_([...])`, as in MLIR."""

from ._scf_ops_gen import *  # noqa: F401,F403
from ._scf_ops_gen import ForOp as _GeneratedForOp
from ._scf_ops_gen import IfOp as _GeneratedIfOp
from ._scf_ops_gen import _Dialect
from ._ods_common import _cext
from .arith import constant
from .. import ir
from .._operations import located_builder


def _value_type(x):
    value = x if isinstance(x, ir.Value) else getattr(x, "ir_value", lambda: x)()
    return value.type


@_cext.register_operation(_Dialect, replace=True)
class ForOp(_GeneratedForOp):
    """scf.for over [lower_bound, upper_bound) by step, carrying iter_args."""

    def __init__(self, lower_bound, upper_bound, step, iter_args=None, *, loc=None, ip=None):
        iter_args = [] if iter_args is None else list(iter_args)
        results = [_value_type(a) for a in iter_args]
        super().__init__(results, lower_bound, upper_bound, step, iter_args, loc=loc, ip=ip)
        self.regions[0].blocks.append(self.operation.operands[0].type, *results)

    @property
    def body(self):
        return self.regions[0].blocks[0]

    @property
    def induction_variable(self):
        return self.body.arguments[0]

    @property
    def inner_iter_args(self):
        return self.body.arguments[1:]


@_cext.register_operation(_Dialect, replace=True)
class IfOp(_GeneratedIfOp):
    """scf.if on `cond` with results of `results_`; an else block when
    `hasElse` (or results are given: both branches yield them)."""

    def __init__(self, cond, results_=None, *, hasElse=False, loc=None, ip=None):  # noqa: N803
        results = [] if results_ is None else list(results_)
        super().__init__(results, cond, loc=loc, ip=ip)
        self.regions[0].blocks.append()
        if hasElse or results:
            self.regions[1].blocks.append()

    @property
    def then_block(self):
        return self.regions[0].blocks[0]

    @property
    def else_block(self):
        return self.regions[1].blocks[0]


def _index_operand(x):
    if isinstance(x, bool) or isinstance(x, float):
        raise TypeError(f"scf.for_: loop bounds are integers or index values, not {x!r}")
    return constant(ir.IndexType.get(), x) if isinstance(x, int) else x


@located_builder("scf.for")
def for_(start, stop=None, step=None, iter_args=None, *, loc=None, ip=None):
    """A loop like `range(start, stop, step)` (ints become index constants):
    inside the body, yields the induction variable, or (iv, iter args,
    results) with iter_args (single ones unpacked). The loop is built by the
    call (where a `for` over it starts), so that its errors are the call's."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    loop = ForOp(_index_operand(start), _index_operand(stop), _index_operand(step), iter_args,
                 loc=loc, ip=ip)
    return _in_body(loop)


def _in_body(loop: ForOp):
    carried = tuple(loop.inner_iter_args)
    with ir.InsertionPoint(loop.body):
        if len(carried) > 1:
            yield loop.induction_variable, carried, loop.results
        elif len(carried) == 1:
            yield loop.induction_variable, carried[0], loop.results[0]
        else:
            yield loop.induction_variable
